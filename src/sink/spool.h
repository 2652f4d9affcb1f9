/* spool: the channels of a dump that cannot go straight into the output, kept in ONE
 * scratch file on the output's filesystem until the output is finished (dump.c appends
 * them channel by channel). One file, whatever the channel count: 1024 channels work under
 * the default descriptor limit.
 *
 * Layout: the file is cut into extents as the data comes; each channel owns a list of
 * extents (offset, capacity, bytes used), written in order with pwrite. A channel's next
 * extent doubles the last one's capacity up to SPOOL_EXTENT_MAX, so the index stays small
 * (a few dozen entries a channel for gigabytes) and memory does not grow with the stream
 * but by the log of it, then by one entry per 16 MiB. An extent not filled is a hole of
 * the sparse file: it costs no disk space.
 *
 * Reading back (spool_copy) punches holes behind itself where the filesystem can
 * (FALLOC_FL_PUNCH_HOLE), so appending the spool to the output needs at most
 * SPOOL_COPY_PIECE of extra space instead of the spool's size.
 *
 * Thread safety: one thread at a time (the dump's writer thread, or its caller). */
#ifndef SPECTRO_SPOOL_H
#define SPECTRO_SPOOL_H

#include <stdint.h>
#include <stdio.h>

#include "err.h"

#define SPOOL_EXTENT_MAX ((uint64_t)16 << 20)
#define SPOOL_COPY_PIECE ((size_t)1 << 20)

typedef struct spool spool;

/* A spool for `channels` channels in an unnamed scratch file beside the output `path`
 * (outfile_scratch: /tmp for an output written straight through). SP_EIO naming path. */
int spool_create(const char *path, int channels, spool **out, sp_errinfo *ei);

/* Appends len bytes to channel's data. 0, or the errno of the failed write. */
int spool_write(spool *s, int channel, const void *data, size_t len);

/* Bytes held for one channel; for all of them. */
uint64_t spool_bytes(const spool *s, int channel);
uint64_t spool_total(const spool *s);

/* 1 when reading back frees the space behind it (hole punching works here). */
int spool_frees_as_it_copies(const spool *s);

/* Writes the first `len` bytes of channel's data (at most what it holds) to `to`, freeing
 * the spool's space behind it where it can. 0, or an errno (of the read or the write). */
int spool_copy(spool *s, int channel, uint64_t len, FILE *to);

void spool_destroy(spool *s);

#endif
