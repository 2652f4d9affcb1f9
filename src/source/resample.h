/* resample: a streaming rational resampler (--compare --resample): one channel from in_rate
 * to out_rate Hz by L/M = out_rate/in_rate in lowest terms, a polyphase windowed-sinc filter
 * (Kaiser, RESAMPLE_TAPS taps a phase, cut-off 0.45 of the lower rate) centred on each
 * output sample, so that output sample j is at input time j * in_rate / out_rate exactly (no
 * delay). A tone within 0.4 of the lower rate keeps its level within 0.01 dB.
 *
 * Thread safety: one thread uses a resampler at a time.
 */
#ifndef SPECTRO_RESAMPLE_H
#define SPECTRO_RESAMPLE_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"

#define RESAMPLE_TAPS 64     /* filter taps a phase: the input samples each output reads */
#define RESAMPLE_MAX_L 4096  /* the most phases (out_rate over the rates' gcd) */

typedef struct resampler resampler;

/* SP_EINVAL when the ratio needs more than RESAMPLE_MAX_L phases (naming the rates). */
int resampler_create(int in_rate, int out_rate, resampler **out, sp_errinfo *ei);
void resampler_destroy(resampler *r); /* NULL is a no-op */

/* Takes n input samples (in may be NULL with n 0; end = 1: the input ended, the samples
 * still owed are made against zeros after it) and writes up to max output samples into out;
 * returns how many. The input samples it cannot use yet are kept, so every input sample is
 * given once; call again with n 0 while it returns max (more output is ready). */
size_t resampler_run(resampler *r, const float *in, size_t n, int end, float *out, size_t max);

/* Output samples for n input samples: ceil(n * out_rate / in_rate). */
uint64_t resampler_length(const resampler *r, uint64_t n);

#endif
