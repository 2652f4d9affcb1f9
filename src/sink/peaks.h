/* peaks: the strongest component of a spectrum, located between bins and levelled by the
 * window's own transform.
 *
 * A steady sine at bin k + d (|d| <= 1/2) reads A g(d) at bin k and A g(1 -+ d) at its
 * neighbours, where g(x) = |W(x)| / W(0) is the magnitude of the window's transform at x
 * bins, normalised to 1 at 0 (dBFS levels already divide by W(0) = sum w). A peaks_window
 * holds g for 0 <= x <= 2, tabulated once from the window's own coefficients; the
 * refinement finds d from the three levels (a ratio of the linear levels, inverted on the
 * table) and takes A = a_k / g(d). Levels come out within 0.01 dB and frequencies within
 * 0.001 bin for every window of window.h (tests/test_peaks.c), where the parabola on dB
 * was 0.2 dB high at worst (and worse with flattop). */
#ifndef SPECTRO_PEAKS_H
#define SPECTRO_PEAKS_H

#include <stddef.h>

#include "err.h"

typedef struct {
    double freq_hz;
    double db;
    size_t bin; /* the strongest bin itself */
} peak;

/* A window's transform near its peak (opaque; read-only once made, so threads may share
 * it). */
typedef struct peaks_window peaks_window;

/* Tabulates g from w[0..n-1] (the window the spectra were made with; from at most 4096 of
 * its coefficients, evenly spaced, above that: the shape is the same). About 2 M
 * multiply-adds, once per plan. SP_EINVAL for n < 4 or a window summing to <= 0,
 * SP_ENOMEM. */
int peaks_window_create(const float *w, size_t n, peaks_window **out, sp_errinfo *ei);
void peaks_window_destroy(peaks_window *pw); /* NULL is a no-op */

/* The peak around `bin` of an n-point spectrum at `rate` Hz, from the dB levels l, c, r of
 * bins bin-1, bin, bin+1 (c the largest): the one refinement of a peak, wherever its bin
 * was found (the host scan below, or a backend's reduction beside its FFT, fft_stft_reduce). pw NULL: the parabola through the three dB values
 * (d = 0.5(l-r)/(l-2c+r), level c - 0.25(l-r)d), for callers without the window. */
peak peaks_refine(const peaks_window *pw, size_t bin, float l, float c, float r, size_t n, double rate);

/* The strongest of bins 1 .. n/2-1 (DC and Nyquist excluded) of db's n/2+1 bins, refined. */
peak peaks_find(const peaks_window *pw, const float *db, size_t n, double rate);

/* The same, searching bins kmin .. kmax only (clamped to 1 .. n/2-1), for --fmin/--fmax:
 * the first strongest bin (fft_peak_scan), then peaks_refine. */
peak peaks_find_range(const peaks_window *pw, const float *db, size_t n, double rate, size_t kmin, size_t kmax);

/* The bins a peak search covers for the range fmin .. fmax Hz (0: from bin 1, up to bin
 * n/2-1; DC and Nyquist are never searched) of an n-point spectrum with bins bin_hz apart:
 * the nearest bins, clamped. 0 when the range holds no bin (then *kmin > *kmax). */
int peaks_bin_range(double fmin, double fmax, double bin_hz, size_t n, size_t *kmin, size_t *kmax);

#endif
