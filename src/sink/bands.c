#include "bands.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fft.h" /* FFT_DB_FLOOR */
#include "numfmt.h"

#define G10 1.9952623149688795 /* 10^(3/10), IEC 61260-1's octave ratio, base 10 */

struct bands {
    bands_config cfg;
    size_t count;
    double *mid, *lower, *upper;
    double *unres;   /* unresolved bands' mid frequencies */
    size_t nunres;
    size_t *k0, *k1; /* band i: bins k0[i] .. k1[i]-1 */
    double *wgain;   /* per bin: 10^(W(f_k)/10) / ENBW, the Nyquist bin twice */
};

static const char *const weight_names[BANDS_WEIGHT_COUNT] = {[BANDS_WEIGHT_Z] = "Z", [BANDS_WEIGHT_A] = "A",
                                                             [BANDS_WEIGHT_C] = "C"};

const char *bands_weighting_name(bands_weighting w)
{
    return (int)w >= 0 && w < BANDS_WEIGHT_COUNT ? weight_names[w] : "?";
}

int bands_weighting_parse(const char *text, bands_weighting *out, sp_errinfo *ei)
{
    for (int i = 0; text && i < BANDS_WEIGHT_COUNT; i++)
        if ((text[0] == weight_names[i][0] || text[0] == weight_names[i][0] + 32) && text[1] == 0) {
            *out = (bands_weighting)i;
            return SP_OK;
        }
    return sp_fail(ei, SP_EINVAL, SP_FIELD("weighting") " %s: one of A, C, Z", text ? text : "(none)");
}

/* IEC 61672-1 Annex E: the poles (Hz) of the A and C curves. */
#define F1 20.598997
#define F2 107.65265
#define F3 737.86223
#define F4 12194.217

static double a_gain(double f)
{
    double f2 = f * f;
    return F4 * F4 * f2 * f2 / ((f2 + F1 * F1) * sqrt((f2 + F2 * F2) * (f2 + F3 * F3)) * (f2 + F4 * F4));
}

static double c_gain(double f)
{
    double f2 = f * f;
    return F4 * F4 * f2 / ((f2 + F1 * F1) * (f2 + F4 * F4));
}

double bands_weight_db(bands_weighting w, double f)
{
    if (w == BANDS_WEIGHT_Z)
        return 0.0;
    if (!(f > 0.0))
        return -INFINITY;
    /* normalised at 1 kHz (the standard's constants A1000 = -2.000 dB, C1000 = -0.062 dB) */
    return w == BANDS_WEIGHT_A ? 20.0 * log10(a_gain(f) / a_gain(1000.0)) : 20.0 * log10(c_gain(f) / c_gain(1000.0));
}

/* Mid frequency of band index x (x = 0: the band at 1 kHz for odd b, above it for even b). */
static double mid_of(int b, int x)
{
    return b % 2 ? 1000.0 * pow(G10, (double)x / b) : 1000.0 * pow(G10, (2.0 * x + 1.0) / (2.0 * b));
}

static int alloc_all(bands *b, size_t count, size_t bins)
{
    b->mid = calloc(count, sizeof *b->mid);
    b->lower = calloc(count, sizeof *b->lower);
    b->upper = calloc(count, sizeof *b->upper);
    b->unres = calloc(count, sizeof *b->unres);
    b->k0 = calloc(count, sizeof *b->k0);
    b->k1 = calloc(count, sizeof *b->k1);
    b->wgain = calloc(bins, sizeof *b->wgain);
    return b->mid && b->lower && b->upper && b->unres && b->k0 && b->k1 && b->wgain;
}

int bands_create(const bands_config *cfg, bands **out, sp_errinfo *ei)
{
    const int fr = cfg ? cfg->fraction : 0;
    bands *b;
    if (out)
        *out = NULL;
    if (!cfg || !out || cfg->n < 4 || !(cfg->rate > 0.0) || !(cfg->enbw_bins > 0.0))
        return sp_fail(ei, SP_EINVAL, "bands_create: bad argument");
    if (fr != 1 && fr != 3 && fr != 6 && fr != 12)
        return sp_fail(ei, SP_EINVAL, SP_FIELD("fraction") " %d: one of 1, 3, 6, 12 (1/b octave)", fr);
    const double nyq = cfg->rate / 2.0, bin_hz = cfg->rate / (double)cfg->n, half = pow(G10, 1.0 / (2.0 * fr));
    const size_t bins = cfg->n / 2 + 1;
    int xlo = (int)floor(fr * log(cfg->lo / 1000.0) / log(G10)) - 2, xhi = (int)ceil(fr * log(nyq / 1000.0) / log(G10)) + 2;
    if (!(cfg->lo > 0.0) || !(cfg->hi >= cfg->lo))
        return sp_fail(ei, SP_EINVAL, SP_FIELD("fmin") "/" SP_FIELD("fmax") ": no octave band in %g .. %g Hz", cfg->lo,
                       cfg->hi);
    if (xhi < xlo) /* Nyquist below the range: no band (the message below), not a negative count */
        xhi = xlo;
    if (!(b = calloc(1, sizeof *b)) || !alloc_all(b, (size_t)(xhi - xlo + 1), bins)) {
        bands_destroy(b);
        return sp_fail(ei, SP_ENOMEM, "out of memory");
    }
    b->cfg = *cfg;
    for (int x = xlo; x <= xhi; x++) {
        double m = mid_of(fr, x);
        /* 2 %: the nominal labels (20 Hz for 19.95 Hz, 20 kHz for 19.95 kHz) name the band */
        if (m < cfg->lo * 0.98 || m > cfg->hi * 1.02 || m * half > nyq * (1.0 + 1e-12))
            continue;
        if (m - m / half < (cfg->lobe_bins + 1) * bin_hz) { /* too narrow: listed, not reported */
            b->unres[b->nunres++] = m;
            continue;
        }
        size_t i = b->count++;
        b->mid[i] = m;
        b->lower[i] = m / half;
        b->upper[i] = m * half;
        b->k0[i] = (size_t)ceil(b->lower[i] / bin_hz);
        b->k1[i] = (size_t)ceil(b->upper[i] / bin_hz);
        if (b->k1[i] > bins)
            b->k1[i] = bins;
    }
    if (b->count == 0) {
        double top = b->nunres ? b->unres[b->nunres - 1] : 0.0;
        char top_hz[SP_FMT_NUM_MAX];
        /* the N that resolves the top band: 2^log2n */
        double log2n = b->nunres ? ceil(log2((cfg->lobe_bins + 1) * cfg->rate / (top * (1.0 - 1.0 / half)))) : 0.0;
        int err = b->nunres ? sp_fail(ei, SP_EINVAL,
                                      SP_FIELD("fraction") " %d: no band of %g .. %g Hz is resolved at "
                                      SP_FIELD("fft_size") " %zu (" SP_FIELD("fft_size") " %zu resolves the %s Hz band)",
                                      fr, cfg->lo, cfg->hi, cfg->n, (size_t)1 << (int)log2n, sp_fmt_num(top_hz, top, 4))
                            : sp_fail(ei, SP_EINVAL,
                                      SP_FIELD("fmin") "/" SP_FIELD("fmax") ": no 1/%d-octave band with its mid "
                                      "frequency in %g .. %g Hz (Nyquist %g Hz)", fr, cfg->lo, cfg->hi, nyq);
        bands_destroy(b);
        return err;
    }
    for (size_t k = 0; k < bins; k++) {
        double w = bands_weight_db(cfg->weighting, (double)k * bin_hz);
        b->wgain[k] = (k == bins - 1 ? 2.0 : 1.0) * pow(10.0, w / 10.0) / cfg->enbw_bins;
    }
    *out = b;
    return SP_OK;
}

void bands_destroy(bands *b)
{
    if (!b)
        return;
    free(b->mid);
    free(b->lower);
    free(b->upper);
    free(b->unres);
    free(b->k0);
    free(b->k1);
    free(b->wgain);
    free(b);
}

size_t bands_count(const bands *b)
{
    return b ? b->count : 0;
}

double bands_mid_hz(const bands *b, size_t i)
{
    return i < b->count ? b->mid[i] : NAN;
}

double bands_lower_hz(const bands *b, size_t i)
{
    return i < b->count ? b->lower[i] : NAN;
}

double bands_upper_hz(const bands *b, size_t i)
{
    return i < b->count ? b->upper[i] : NAN;
}

size_t bands_unresolved_count(const bands *b)
{
    return b ? b->nunres : 0;
}

double bands_unresolved_hz(const bands *b, size_t i)
{
    return i < b->nunres ? b->unres[i] : NAN;
}

void bands_levels(const bands *b, const float *db, float *out)
{
    for (size_t i = 0; i < b->count; i++) {
        double p = 0.0;
        int heard = 0;
        for (size_t k = b->k0[i]; k < b->k1[i]; k++) {
            p += exp(0.23025850929940458 * (double)db[k]) * b->wgain[k]; /* 10^(L/10) */
            heard |= db[k] > FFT_DB_FLOOR;
        }
        /* every bin at the floor (silence, a skipped frame): the floor, not a sum of floors */
        double l = p > 0.0 && heard ? 10.0 * log10(p) : FFT_DB_FLOOR;
        out[i] = l > FFT_DB_FLOOR ? (float)l : FFT_DB_FLOOR;
    }
}
