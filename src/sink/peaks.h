/* peaks: the strongest component of a spectrum, located between bins by parabolic
 * interpolation on the dB values. */
#ifndef SPECTRO_PEAKS_H
#define SPECTRO_PEAKS_H

#include <stddef.h>

typedef struct {
    double freq_hz;
    double db;
    size_t bin; /* the strongest bin itself */
} peak;

/* db holds the n/2+1 bins of an n-point spectrum at `rate` Hz. The search covers bins
 * 1 .. n/2-1 (DC and Nyquist excluded); with k the strongest and l, c, r the dB values at
 * k-1, k, k+1: d = 0.5(l-r)/(l-2c+r), freq = (k+d)*rate/n, level = c - 0.25(l-r)d. */
peak peaks_find(const float *db, size_t n, double rate);

/* The same, searching bins kmin .. kmax only (clamped to 1 .. n/2-1), for --fmin/--fmax:
 * the first strongest bin (fft_peak_scan), then peaks_refine. */
peak peaks_find_range(const float *db, size_t n, double rate, size_t kmin, size_t kmax);

/* The one refinement of a peak, from its bin and the dB levels l, c, r at bin-1, bin,
 * bin+1 (wherever the bin was found: the host scan above, or a backend's reduction beside
 * its FFT, fft_stft_reduce): the parabola through the three levels. */
peak peaks_refine(size_t bin, double l, double c, double r, size_t n, double rate);

#endif
