#include "peaks.h"

peak peaks_find(const float *db, size_t n, double rate)
{
    peak p = {0.0, (double)db[1], 1};
    size_t half = n / 2;
    for (size_t k = 2; k < half; k++)
        if (db[k] > db[p.bin])
            p.bin = k;
    {
        double l = db[p.bin - 1], c = db[p.bin], r = db[p.bin + 1];
        double den = l - 2.0 * c + r, d = 0.0;
        /* den < 0 at a true maximum; a flat top (den == 0) stays on the bin */
        if (den < 0.0) {
            d = 0.5 * (l - r) / den;
            if (d > 0.5)
                d = 0.5;
            if (d < -0.5)
                d = -0.5;
        }
        p.freq_hz = ((double)p.bin + d) * rate / (double)n;
        p.db = c - 0.25 * (l - r) * d;
    }
    return p;
}
