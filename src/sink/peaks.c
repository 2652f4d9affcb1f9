#include "peaks.h"

#include "fft.h"

peak peaks_find(const float *db, size_t n, double rate)
{
    return peaks_find_range(db, n, rate, 1, n / 2 - 1);
}

peak peaks_find_range(const float *db, size_t n, double rate, size_t kmin, size_t kmax)
{
    fft_peak_raw raw;
    if (kmin < 1)
        kmin = 1;
    if (kmax > n / 2 - 1)
        kmax = n / 2 - 1;
    if (kmax < kmin)
        kmax = kmin;
    raw = fft_peak_scan(db, kmin, kmax);
    return peaks_refine(raw.bin, raw.l, raw.c, raw.r, n, rate);
}

peak peaks_refine(size_t bin, double l, double c, double r, size_t n, double rate)
{
    peak p;
    double den = l - 2.0 * c + r, d = 0.0;
    /* den < 0 at a true maximum; a flat top (den == 0) stays on the bin */
    if (den < 0.0) {
        d = 0.5 * (l - r) / den;
        if (d > 0.5)
            d = 0.5;
        if (d < -0.5)
            d = -0.5;
    }
    p.bin = bin;
    p.freq_hz = ((double)bin + d) * rate / (double)n;
    p.db = c - 0.25 * (l - r) * d;
    return p;
}
