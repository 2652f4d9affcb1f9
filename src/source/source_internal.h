/* The source module's parts, shared by its files (not a public header): the file and the
 * pipe kinds both read through libsndfile (source_file.c). */
#ifndef SPECTRO_SOURCE_INTERNAL_H
#define SPECTRO_SOURCE_INTERNAL_H

#include <sndfile.h>

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

/* 1 when libsndfile's last open error means "not a format I read" (FFmpeg may). */
int source_sndfile_unknown_format(int sf_code);

#endif
