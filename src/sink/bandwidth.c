/* The cut-off search (bandwidth.h): docs/measurements.md "Codec bandwidth". */
#include "bandwidth.h"

#include <math.h>
#include <stdlib.h>

#define SMOOTH_HZ 200.0
#define EDGE_HZ 250.0
#define EVIDENCE_HZ 1500.0
#define CLIFF_DB 25.0
#define DROP_DB 20.0
#define REF_FROM_HZ 4000.0
#define REF_TO_HZ 2000.0
#define FULL_BAND 0.93

/* Typical low-pass frequencies of common encoders (LAME's defaults, FFmpeg's AAC). */
static const struct {
    double lo_khz, hi_khz;
    const char *encoders;
} TYPICAL[] = {
    {.lo_khz = 10.0, .hi_khz = 11.8, .encoders = "MP3 64 kb/s"},
    {.lo_khz = 13.5, .hi_khz = 15.5, .encoders = "MP3 96-112 kb/s, AAC 64-80 kb/s"},
    {.lo_khz = 15.5, .hi_khz = 16.3, .encoders = "AAC 96 kb/s (about 16 kHz)"},
    {.lo_khz = 16.3, .hi_khz = 17.3, .encoders = "MP3 128 kb/s (about 16.5-17 kHz)"},
    {.lo_khz = 17.3, .hi_khz = 18.2, .encoders = "MP3 160 kb/s"},
    {.lo_khz = 18.2, .hi_khz = 19.3, .encoders = "MP3 192 kb/s"},
    {.lo_khz = 19.3, .hi_khz = 19.9, .encoders = "MP3 256 kb/s"},
    {.lo_khz = 19.9, .hi_khz = 20.7, .encoders = "MP3 320 kb/s (about 20-20.5 kHz)"},
};

/* The mean of s[a .. b] (clipped to the spectrum). */
static double mean_of(const double *s, size_t bins, double a, double b)
{
    size_t i = a < 0 ? 0 : (size_t)a, j = b < 0 ? 0 : (size_t)b;
    double sum = 0.0;
    if (j >= bins)
        j = bins - 1;
    if (i > j)
        return s[j];
    for (size_t k = i; k <= j; k++)
        sum += s[k];
    return sum / (double)(j - i + 1);
}

/* The cliff search over the smoothed spectrum sm[bins] (bins bin_hz apart). */
static void find_cutoff(const double *sm, size_t bins, double bin_hz, bandwidth_result *r)
{
    size_t edge = (size_t)ceil(EDGE_HZ / bin_hz), ev = (size_t)ceil(EVIDENCE_HZ / bin_hz);
    double *tail = malloc(bins * sizeof *tail), nyq = (double)(bins - 1) * bin_hz;
    size_t cut = bins - 1;
    r->full_band = 1;
    if (tail && bins > 2 * edge + 4) {
        tail[bins - 1] = sm[bins - 1];
        for (size_t k = bins - 1; k-- > 0;)
            tail[k] = sm[k] > tail[k + 1] ? sm[k] : tail[k + 1];
        for (size_t k = bins - 1 - edge; k > edge + 1; k--)
            if (sm[k - edge] - tail[k + edge] >= CLIFF_DB) {
                double from = (double)k - REF_FROM_HZ / bin_hz, to = (double)k - REF_TO_HZ / bin_hz;
                double ref = mean_of(sm, bins, from, to);
                size_t j = from > 0 ? (size_t)from : 0;
                while (j < k && tail[j] > ref - DROP_DB)
                    j++;
                cut = j;
                break;
            }
        free(tail);
    }
    r->cutoff_hz = (double)cut * bin_hz;
    r->below_db = mean_of(sm, bins, (double)cut - (double)ev, (double)cut - (double)edge);
    r->above_db = mean_of(sm, bins, (double)(cut + edge), (double)(cut + ev));
    r->full_band = r->cutoff_hz >= FULL_BAND * nyq;
    r->encoders = NULL;
    for (size_t i = 0; !r->full_band && i < sizeof TYPICAL / sizeof TYPICAL[0]; i++)
        if (r->cutoff_hz >= TYPICAL[i].lo_khz * 1000.0 && r->cutoff_hz < TYPICAL[i].hi_khz * 1000.0)
            r->encoders = TYPICAL[i].encoders;
}

int bandwidth_find(const double *power, size_t bins, double bin_hz, bandwidth_result *r, double *level_db,
                   sp_errinfo *ei)
{
    size_t half = (size_t)(SMOOTH_HZ / 2.0 / bin_hz);
    double *p = malloc(bins * sizeof *p), *sm = malloc(bins * sizeof *sm);
    if (!p || !sm) {
        free(p);
        free(sm);
        return sp_fail(ei, SP_ENOMEM, "out of memory");
    }
    for (size_t k = 0; k < bins; k++)
        p[k] = 10.0 * log10(power[k] > 1e-30 ? power[k] : 1e-30);
    for (size_t k = 0; k < bins; k++)
        sm[k] = mean_of(p, bins, (double)k - (double)half, (double)(k + half));
    find_cutoff(sm, bins, bin_hz, r);
    r->nyquist_hz = (double)(bins - 1) * bin_hz;
    for (size_t k = 0; level_db && k < bins; k++)
        level_db[k] = p[k];
    free(p);
    free(sm);
    return SP_OK;
}
