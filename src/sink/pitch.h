/* pitch: the fundamental frequency of a frame by YIN (de Cheveigne and Kawahara's cumulative
 * mean normalised difference), docs/measurements.md "Pitch": the engine of the --pitch
 * output (sink_pitch.c) and of the window's pitch trace (view_pitch.c).
 *
 * The lags searched are rate/fmax .. rate/fmin; the difference function sums
 * W = n - tau_max products, computed for every lag at once by FFT correlation, from the
 * frame's start and, reversed, from its end (the lags' spans then centre on the frame's
 * centre). Thread safety: one estimator, one thread at a time.
 */
#ifndef SPECTRO_PITCH_H
#define SPECTRO_PITCH_H

#include <stddef.h>

#include "err.h"

#define PITCH_FMIN 50.0   /* the defaults of --fmin/--fmax for --pitch */
#define PITCH_FMAX 2000.0

typedef struct pitch_yin pitch_yin;

/* An estimator for frames of n samples at `rate` Hz, f0 in fmin .. fmax Hz (<= 0: the
 * defaults; fmax is cut to Nyquist). SP_EINVAL naming fmin/fmax (and fft_size: n must hold
 * two periods of fmin), SP_ENOMEM. */
int pitch_yin_create(int rate, size_t n, double fmin, double fmax, pitch_yin **out, sp_errinfo *ei);
void pitch_yin_destroy(pitch_yin *p); /* NULL: no-op */

/* The frame x (n samples)'s f0 in Hz (0: unvoiced, silent below -100 dBFS) and its
 * confidence 1 - d'(tau) (0 .. 1). */
void pitch_yin_estimate(pitch_yin *p, const float *x, double *f0, double *conf);

#endif
