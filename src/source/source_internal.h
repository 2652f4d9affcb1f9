/* The source module's parts, shared by its files (not a public header): the file and the
 * pipe kinds both read through libsndfile (source_file.c). */
#ifndef SPECTRO_SOURCE_INTERNAL_H
#define SPECTRO_SOURCE_INTERNAL_H

#include <sndfile.h>
#include <sys/stat.h>

#include "source.h"

/* Fills *in for raw samples (format, rate, channels) when raw->encoding >= 0, else zeroes
 * it (libsndfile reads the header). */
void source_raw_sfinfo(const source_raw_format *raw, SF_INFO *in);

/* Wraps an open SNDFILE (ownership passes, also on failure) as a source called `name`:
 * checks the channels and the rate, fills the info (decoder "libsndfile"). pipe_fd >= 0:
 * the descriptor of a pipe read as a stream (no length, no seeking, small reads so that a
 * live writer is followed closely; a read waiting for its writer ends, as the end of the
 * stream, once *stop is set: stop may be NULL). */
int source_sndfile_adopt(SNDFILE *sf, const SF_INFO *in, const char *name, int pipe_fd, atomic_int *stop,
                         source **out, sp_errinfo *ei);

/* sf_readf_float, except that a 64-bit float stream's finite samples beyond float's range
 * become +-FLT_MAX (counted into *clamped) where libsndfile's cast would make them
 * infinite: the float path keeps huge finite samples finite, and so does this one. format:
 * the stream's SF_INFO.format. */
sf_count_t file_readf(SNDFILE *sf, int format, int channels, float *dst, sf_count_t frames, uint64_t *clamped);

/* 1 when libsndfile's last open error means "not a format I read" (FFmpeg may). */
int source_sndfile_unknown_format(int sf_code);

/* ---- decoding ahead on several threads (source_file_par.c) ------------------------------
 * For a regular file whose frames all take the same bytes and decode without state (PCM,
 * float, double, u-law, A-law in WAV/W64/RF64/AIFF/AU/CAF/raw): the frames, in order, that
 * sf_readf_float on one handle would give. The file source starts it at its first read. */
typedef struct file_par file_par;

/* 1 when libsndfile's format (SF_INFO.format) may be decoded in parallel. */
int file_par_eligible(int format);
/* Decoder threads for `readers` (the option: 0 = automatic) on a machine of `cpus` cores:
 * readers itself, or half the cores, 1 to 4. */
int file_par_threads(int readers, long cpus);
/* Starts `threads` decoders on path (in: as the file source opened it, sb: its stat then)
 * from frame `start` on, in chunks of chunk_frames (< 1: 2 MB of samples). NULL when it
 * cannot (the file changed since, no memory, no thread): the caller reads serially. */
file_par *file_par_start(const char *path, const struct stat *sb, const SF_INFO *in, int64_t start,
                         int threads, int64_t chunk_frames);
/* Up to max_frames frames into dst; 0 at the end, where *sf_failed is set when a decoder's
 * read ended with libsndfile's error (left alone otherwise). *clamped grows by a chunk's
 * samples that file_readf clamped when the reader starts on it. The reader's thread only. */
size_t file_par_read(file_par *p, float *dst, size_t max_frames, int *sf_failed, uint64_t *clamped);
/* Stops and joins the decoders, closes their handles. NULL is a no-op. */
void file_par_close(file_par *p);

#endif
