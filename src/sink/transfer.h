/* transfer: the dual-channel transfer function of a reference and a measured signal,
 * averaged over the frames of a run (docs/measurements.md "Transfer function").
 *
 * Every frame brings the two channels' windowed transforms X (reference) and Y (measured),
 * unscaled as the framer's complex path makes them (stft_complex_fn); per bin the sums
 *   Sxx = sum |X|^2,   Syy = sum |Y|^2,   Sxy = sum conj(X) Y
 * are kept in double, and at the end
 *   H1 = Sxy / Sxx             magnitude in dB (20 log10 |H1|, floored at -200 dB like the
 *                              levels), phase in degrees (-180, 180]
 *   coherence = |Sxy|^2 / (Sxx Syy)   in [0, 1]
 * A bin without reference energy (Sxx = 0) reads the floor, phase 0, coherence 0.
 *
 * The delay of the measured channel after the reference (transfer_delay) is the pure delay
 * in H1's excess phase: H1's phase less the minimum phase its magnitude implies (the
 * folded real cepstrum of log|H1|), put through the phase transform weighted by coherence
 * (gamma^2 / (1 - gamma^2), the Hannan-Thomson weighting of GCC) and inverse transformed;
 * the peak's lag, refined by a parabola through it and its neighbours, in samples. A
 * system's own minimum-phase part (a filter's group delay) is thus not counted as delay.
 *
 * Thread safety: one thread uses a transfer at a time.
 */
#ifndef SPECTRO_TRANSFER_H
#define SPECTRO_TRANSFER_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "fft.h"

/* The columns of a transfer's table (the dump's CSV header, the sidecar's "columns"). */
#define TRANSFER_COLUMNS 4
extern const char *const transfer_column_names[TRANSFER_COLUMNS]; /* freq_hz, magnitude_db, ... */

typedef struct transfer transfer;

/* For frames of n samples (n/2 + 1 bins; n a power of two, FFT_MIN_SIZE .. FFT_MAX_SIZE).
 * SP_EINVAL, SP_ENOMEM. */
int transfer_create(size_t n, transfer **out, sp_errinfo *ei);
void transfer_destroy(transfer *t); /* NULL is a no-op */
void transfer_reset(transfer *t);   /* no frames averaged */
/* dst takes src's sums and count (both of one n): a snapshot to compute from while src goes
 * on averaging on another thread. O(bins). SP_EINVAL when the sizes differ. */
int transfer_copy(transfer *dst, const transfer *src);

/* Adds nframes frames: x[f*bins + k] the reference's transforms, y[...] the measured's. */
void transfer_add(transfer *t, const cpx *x, const cpx *y, size_t nframes);

/* Frames averaged so far. */
uint64_t transfer_averages(const transfer *t);
size_t transfer_bins(const transfer *t);

/* Per bin (bins values each; any may be NULL): magnitude in dB, phase in degrees,
 * coherence. */
void transfer_result(const transfer *t, float *mag_db, float *phase_deg, float *coherence);

/* The table of the dump: rows[k*4 + c] for bin k, the columns of transfer_column_names
 * (freq_hz = k * rate / n). */
void transfer_table(const transfer *t, double rate, float *rows);

/* The delay of the measured channel after the reference, in samples (negative: it comes
 * first), within (-n/2, n/2). 0 with no frames averaged. SP_ENOMEM. */
int transfer_delay(const transfer *t, double *samples, sp_errinfo *ei);

/* Unwraps phase_deg[0..bins) in place (steps over 180 degrees taken out), after taking out
 * a delay of delay_s seconds (phase + 360 f delay_s) when remove_delay is set. */
void transfer_unwrap(float *phase_deg, size_t bins, double bin_hz, int remove_delay, double delay_s);

#endif
