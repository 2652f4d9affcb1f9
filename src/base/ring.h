/* ring: a lock-free ring buffer of float samples.
 *
 * SINGLE PRODUCER, SINGLE CONSUMER: exactly one thread (or audio callback) writes and
 * exactly one thread reads. Neither side blocks or allocates, so the producer may be a
 * real-time audio callback. Storage is owned by the caller; capacity is a power of two.
 *
 * The producer publishes with a release store of `head` after copying; the consumer reads
 * `head` with acquire before copying out (and symmetrically for `tail`), so the bytes a
 * side sees are always complete. Indices run freely and wrap through the mask.
 */
#ifndef SPECTRO_RING_H
#define SPECTRO_RING_H

#include <stdatomic.h>
#include <stddef.h>

#include "err.h"

typedef struct ring_s {
    float *buf;
    size_t mask;                 /* capacity - 1 */
    _Atomic size_t head;         /* next index to write; written by the producer only */
    _Atomic size_t tail;         /* next index to read; written by the consumer only */
} ring;

/* Prepares r over caller-owned storage of `capacity` floats (a power of two >= 2).
 * SP_EINVAL otherwise. Not thread-safe: call before either side starts. */
int ring_init(ring *r, float *storage, size_t capacity);

size_t ring_capacity(const ring *r);

/* Producer side. Copies up to n samples; returns how many fit (0..n). */
size_t ring_write(ring *r, const float *src, size_t n);
/* Producer side: free space now (a lower bound, since the consumer may free more). */
size_t ring_writable(const ring *r);
/* Producer side: where the free space begins (*p) and how much of it lies there in one
 * piece, before the storage wraps. A producer fills it in place (a file's reader decodes
 * into it), then publishes what it wrote with ring_commit; the consumer sees nothing
 * before. */
size_t ring_space(ring *r, float **p);
/* Producer side: publishes the next n samples written in place (n <= ring_space's). */
void ring_commit(ring *r, size_t n);

/* Consumer side. Copies up to n samples out; returns how many were there. */
size_t ring_read(ring *r, float *dst, size_t n);
/* Consumer side: samples available now (a lower bound). */
size_t ring_readable(const ring *r);
/* Consumer side: where the samples available now begin (*p) and how many of them lie there
 * in one piece, before the storage wraps. They stay unchanged until the consumer's
 * ring_skip (or ring_read) passes them: a consumer reads them in place, then skips them. */
size_t ring_peek(ring *r, const float **p);
/* Consumer side: drops up to n samples without copying (a live consumer that fell behind
 * skips to fresh audio); returns how many were dropped. */
size_t ring_skip(ring *r, size_t n);

#endif
