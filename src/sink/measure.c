#include "measure.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fft.h"
#include "numfmt.h"

#define MEASURE_PI 3.14159265358979323846 /* M_PI is not in ISO C */
#define MEASURE_LN10 2.30258509299404568402

/* ---- modes -------------------------------------------------------------------------------- */

static const char *const AVERAGE_NAMES[] = {[MEASURE_MEAN] = "mean", [MEASURE_MAX] = "max", [MEASURE_MIN] = "min"};
#define AVERAGE_COUNT ((int)(sizeof AVERAGE_NAMES / sizeof AVERAGE_NAMES[0]))

int measure_average_count(void)
{
    return AVERAGE_COUNT;
}

const char *measure_average_name(int i)
{
    return i >= 0 && i < AVERAGE_COUNT ? AVERAGE_NAMES[i] : NULL;
}

const char *measure_average_help(int i)
{
    static const char *const help[] = {[MEASURE_MEAN] = "default: the power mean, as Welch's method",
                                       [MEASURE_MAX] = "peak hold", [MEASURE_MIN] = "minimum hold"};
    return i >= 0 && i < AVERAGE_COUNT ? help[i] : NULL;
}

int measure_average_parse(const char *text, measure_average *out, sp_errinfo *ei)
{
    for (int i = 0; text && i < AVERAGE_COUNT; i++)
        if (strcasecmp(text, AVERAGE_NAMES[i]) == 0) {
            *out = (measure_average)i;
            return SP_OK;
        }
    return sp_fail(ei, SP_EINVAL, SP_FIELD("mode") " %s: unknown mode (mean, max, min)", text ? text : "");
}

/* ---- the window ----------------------------------------------------------------------------- */

#define LOBE_POINTS 1024 /* the window resampled to this many points for its spectrum */
#define LOBE_STEPS 64    /* spectrum samples per bin */
#define LOBE_MAX_BINS 24
#define LOBE_EDGE 1e-3   /* a lobe ends at a minimum at least 30 dB below its centre */

/* |DTFT|^2 of w[0..m-1] at f bins (f/m cycles per sample). */
static double dtft_power(const double *w, size_t m, double f)
{
    double re = 0.0, im = 0.0, step = -2.0 * MEASURE_PI * f / (double)m;
    for (size_t i = 0; i < m; i++) {
        re += w[i] * cos(step * (double)i);
        im += w[i] * sin(step * (double)i);
    }
    return re * re + im * im;
}

void measure_window_of(const float *w, size_t n, measure_window *out)
{
    double s1 = 0.0, s2 = 0.0, peak, prev, cur, rs[LOBE_POINTS];
    size_t m = n < LOBE_POINTS ? n : LOBE_POINTS;
    int j;
    for (size_t i = 0; i < n; i++) {
        s1 += w[i];
        s2 += (double)w[i] * w[i];
    }
    out->enbw_bins = s1 != 0.0 ? (double)n * s2 / (s1 * s1) : 1.0;
    /* the same periodic window at m points: sample i of m sits at i*n/m of n */
    for (size_t i = 0; i < m; i++)
        rs[i] = w[i * n / m];
    peak = prev = dtft_power(rs, m, 0.0);
    out->null_bins = LOBE_MAX_BINS;
    for (j = 1; j <= LOBE_MAX_BINS * LOBE_STEPS; j++) {
        cur = dtft_power(rs, m, (double)j / LOBE_STEPS);
        /* the lobe stopped falling at the previous step, far enough down (a flat top's
         * ripple near the centre is not its end) */
        if (cur >= prev && prev < LOBE_EDGE * peak) {
            out->null_bins = (double)(j - 1) / LOBE_STEPS;
            break;
        }
        prev = cur;
    }
    /* the tolerance absorbs a null found a step late (hann's null at 2 bins read 2.016) */
    out->lobe_bins = (int)ceil(out->null_bins - 0.05);
    if (out->lobe_bins < 1)
        out->lobe_bins = 1;
}

double measure_psd_offset_db(const measure_window *w, double bin_hz)
{
    return -10.0 * log10(w->enbw_bins * bin_hz);
}

/* ---- the accumulator ------------------------------------------------------------------------ */

struct measure_accum {
    measure_average mode;
    int channels;
    size_t bins;
    double *acc;      /* channels x bins: the power sum (mean) or the dB held (max, min) */
    uint64_t *frames; /* per channel */
};

int measure_accum_create(measure_average mode, int channels, size_t bins, measure_accum **out)
{
    measure_accum *a;
    if (!out || channels < 1 || bins < 1 || (int)mode < 0 || (int)mode >= AVERAGE_COUNT)
        return SP_EINVAL;
    *out = NULL;
    if (!(a = calloc(1, sizeof *a)))
        return SP_ENOMEM;
    a->mode = mode;
    a->channels = channels;
    a->bins = bins;
    a->acc = malloc((size_t)channels * bins * sizeof *a->acc);
    a->frames = calloc((size_t)channels, sizeof *a->frames);
    if (!a->acc || !a->frames) {
        measure_accum_destroy(a);
        return SP_ENOMEM;
    }
    for (int c = 0; c < channels; c++)
        measure_accum_reset(a, c);
    *out = a;
    return SP_OK;
}

void measure_accum_reset(measure_accum *a, int channel)
{
    double *acc = a->acc + (size_t)channel * a->bins;
    for (size_t k = 0; k < a->bins; k++)
        acc[k] = a->mode == MEASURE_MEAN ? 0.0 : a->mode == MEASURE_MAX ? -INFINITY : INFINITY;
    a->frames[channel] = 0;
}

void measure_accum_add(measure_accum *a, int channel, size_t nframes, const float *db)
{
    double *restrict acc = a->acc + (size_t)channel * a->bins;
    /* 10^(x/10) = e^(x ln10/10): one exp per bin and frame, in double so that the sum of
     * millions of frames keeps its digits */
    const double to_power = MEASURE_LN10 / 10.0;
    for (size_t f = 0; f < nframes; f++) {
        const float *row = db + f * a->bins;
        if (a->mode == MEASURE_MEAN)
            for (size_t k = 0; k < a->bins; k++)
                acc[k] += exp(to_power * row[k]);
        else if (a->mode == MEASURE_MAX)
            for (size_t k = 0; k < a->bins; k++)
                acc[k] = row[k] > acc[k] ? row[k] : acc[k];
        else
            for (size_t k = 0; k < a->bins; k++)
                acc[k] = row[k] < acc[k] ? row[k] : acc[k];
    }
    a->frames[channel] += nframes;
}

void measure_accum_add_powers(measure_accum *a, int channel, const float *db, double *pw)
{
    double *restrict acc = a->acc + (size_t)channel * a->bins;
    const double to_power = MEASURE_LN10 / 10.0; /* as measure_accum_add */
    for (size_t k = 0; k < a->bins; k++) {
        pw[k] = exp(to_power * db[k]);
        acc[k] += pw[k];
    }
    a->frames[channel]++;
}

uint64_t measure_accum_frames(const measure_accum *a, int channel)
{
    return a->frames[channel];
}

/* Bin k of the channel in dB (the floor with no frame). */
static double accum_db_at(const measure_accum *a, int channel, size_t k)
{
    double v = a->acc[(size_t)channel * a->bins + k], db;
    if (a->frames[channel] == 0)
        return FFT_DB_FLOOR;
    db = a->mode == MEASURE_MEAN ? 10.0 * log10(v / (double)a->frames[channel]) : v;
    /* a mean of levels at the floor can round a hair below it */
    return db > FFT_DB_FLOOR ? db : FFT_DB_FLOOR;
}

void measure_accum_db(const measure_accum *a, int channel, double offset_db, float *out)
{
    for (size_t k = 0; k < a->bins; k++)
        out[k] = (float)(accum_db_at(a, channel, k) + offset_db);
}

void measure_accum_power(const measure_accum *a, int channel, double *out)
{
    const double *acc = a->acc + (size_t)channel * a->bins;
    double nf = (double)a->frames[channel];
    for (size_t k = 0; k < a->bins; k++)
        out[k] = a->mode == MEASURE_MEAN && nf > 0 ? acc[k] / nf : pow(10.0, accum_db_at(a, channel, k) / 10.0);
}

void measure_accum_destroy(measure_accum *a)
{
    if (!a)
        return;
    free(a->acc);
    free(a->frames);
    free(a);
}

/* ---- tone analysis ---------------------------------------------------------------------------- */

#define TONE_DEFAULT_LO 20.0
#define TONE_DEFAULT_HI 20000.0
#define RATIO_DB_LIMIT 200.0

int measure_tone_band(double lo, double hi, double rate, double *lo_out, double *hi_out, sp_errinfo *ei)
{
    double nyq = rate / 2.0;
    if (lo < 0)
        lo = TONE_DEFAULT_LO;
    if (hi <= 0)
        hi = TONE_DEFAULT_HI;
    if (hi > nyq)
        hi = nyq;
    if (!(lo < hi))
        return sp_fail(ei, SP_EINVAL, SP_FIELD("fmin") " %g: the band %g .. %g Hz is empty (Nyquist is %g Hz)", lo, lo,
                       hi, nyq);
    *lo_out = lo;
    *hi_out = hi;
    return SP_OK;
}

/* 10 log10(x), clamped to +-RATIO_DB_LIMIT (a ratio of nothing to nothing reads as equal). */
static double ratio_db(double num, double den)
{
    double r;
    if (!(num > 0.0) && !(den > 0.0))
        return 0.0;
    r = den > 0.0 ? 10.0 * log10(num / den) : RATIO_DB_LIMIT;
    if (!(r > -RATIO_DB_LIMIT))
        return -RATIO_DB_LIMIT;
    return r < RATIO_DB_LIMIT ? r : RATIO_DB_LIMIT;
}

/* What a tone analysis walks: the spectrum and which bins are taken by what. */
typedef struct {
    const double *p;
    size_t last;        /* n/2, the Nyquist bin */
    size_t klo, khi;    /* the band's bins */
    double lo, hi;      /* the band in Hz */
    int K;              /* lobe half-width */
    unsigned char *use; /* per bin: 0 free, 1 DC region, 2 fundamental, 3 a harmonic */
} tone_work;

/* DC and Nyquist bins stand for half a bin of the one-sided spectrum (measure.h). */
static double power_weight(const tone_work *t, size_t k)
{
    return k == 0 || k == t->last ? 2.0 : 1.0;
}

static double width_weight(const tone_work *t, size_t k)
{
    return k == 0 || k == t->last ? 0.5 : 1.0;
}

/* Marks the free bins of the lobe around c as `what` and returns their power sum. */
static double take_lobe(tone_work *t, size_t c, unsigned char what)
{
    size_t a = c > (size_t)t->K ? c - (size_t)t->K : 0, b = c + (size_t)t->K;
    double sum = 0.0;
    if (b > t->last)
        b = t->last;
    for (size_t k = a; k <= b; k++)
        if (!t->use[k]) {
            t->use[k] = what;
            sum += power_weight(t, k) * t->p[k];
        }
    return sum;
}

/* The strongest bin in kmin .. kmax. */
static size_t strongest(const tone_work *t, size_t kmin, size_t kmax)
{
    size_t best = kmin;
    for (size_t k = kmin + 1; k <= kmax; k++)
        if (t->p[k] > t->p[best])
            best = k;
    return best;
}

/* The error for a band with no bin above the DC region. With the default band the FFT size
 * is at fault (-n 16 with kaiser:20: the region reaches 21 kHz), not the --fmin/--fmax the
 * user never gave: the message names -n and the smallest N that serves. */
static int empty_band(const tone_work *t, double bin_hz, sp_errinfo *ei)
{
    char a[SP_FMT_NUM_MAX], b[SP_FMT_NUM_MAX], dc[SP_FMT_NUM_MAX];
    double rate = bin_hz * (double)(2 * t->last), need, top;
    size_t n = 2 * t->last, m = 16;
    if (t->lo == TONE_DEFAULT_LO && t->hi == fmin(TONE_DEFAULT_HI, rate / 2.0)) {
        /* bin K+1 at or below the band's top, and below Nyquist */
        need = fmax((double)(t->K + 1) * rate / t->hi, 2.0 * (double)t->K + 4.0);
        while ((double)m < need && m < ((size_t)1 << 40))
            m *= 2;
        top = (double)t->K * bin_hz;
        return sp_fail(ei, SP_EINVAL,
                       SP_FIELD("fft_size") " %zu: too small for a tone analysis: the window's DC region (bins 0 .. "
                       "%d, up to %s Hz) leaves no bin of the band %s .. %s Hz; " SP_FIELD("fft_size") " %zu or more",
                       n, t->K, sp_fmt_num(dc, top, 6), sp_fmt_num(a, t->lo, 6), sp_fmt_num(b, t->hi, 6), m);
    }
    return sp_fail(ei, SP_EINVAL,
                   SP_FIELD("fmin") "/" SP_FIELD("fmax") ": the band %s .. %s Hz holds no bin above the DC region "
                   "(%s Hz) at " SP_FIELD("fft_size") " %zu",
                   sp_fmt_num(a, t->lo, 6), sp_fmt_num(b, t->hi, 6), sp_fmt_num(dc, (double)t->K * bin_hz, 6), n);
}

/* The fundamental's bin: the strongest of the band (above the DC region and below
 * Nyquist), or within one bin of the given frequency. */
static int find_fundamental(const tone_work *t, double bin_hz, double given_hz, size_t *c, sp_errinfo *ei)
{
    size_t kmin = t->klo > (size_t)t->K ? t->klo : (size_t)t->K + 1, kmax = t->khi < t->last ? t->khi : t->last - 1;
    if (given_hz > 0) {
        double b = given_hz / bin_hz;
        size_t g = (size_t)floor(b + 0.5);
        if (b < (double)kmin - 0.5 || b > (double)kmax + 0.5)
            return sp_fail(ei, SP_EINVAL,
                           SP_FIELD("fundamental_hz") " %g: outside the band %g .. %g Hz above the DC region (%g Hz)",
                           given_hz, (double)t->klo * bin_hz, (double)t->khi * bin_hz, (double)t->K * bin_hz);
        kmin = g > kmin ? g - 1 : kmin;
        kmax = g + 1 < kmax ? g + 1 : kmax;
    }
    if (kmax < kmin)
        return empty_band(t, bin_hz, ei);
    *c = strongest(t, kmin, kmax);
    return SP_OK;
}

/* The fundamental's frequency between bins: the power centroid of its lobe, within 0.001
 * bin of the truth for hann and closer for the wider windows (a parabola through the dB
 * values of three bins is off by 0.016 bin with hann and 0.14 with flattop). */
static double lobe_centroid_hz(const tone_work *t, size_t c, double bin_hz)
{
    size_t a = c > (size_t)t->K ? c - (size_t)t->K : 0, b = c + (size_t)t->K;
    double sum = 0.0, moment = 0.0;
    if (b > t->last)
        b = t->last;
    for (size_t k = a; k <= b; k++) {
        sum += t->p[k];
        moment += (double)k * t->p[k];
    }
    return (sum > 0.0 ? moment / sum : (double)c) * bin_hz;
}

/* The harmonics 2..10 up to the band's top: their lobes, levels and power sum. */
static double take_harmonics(tone_work *t, double f0, double bin_hz, double hi, double enbw, measure_tone *out)
{
    double sum = 0.0;
    out->harmonics = 0;
    for (int h = 2; h <= MEASURE_MAX_HARMONIC; h++) {
        double hz = h * f0, s;
        size_t c = (size_t)floor(hz / bin_hz + 0.5);
        measure_harmonic *m = &out->harmonic[out->harmonics];
        if (hz > hi || c > t->last)
            break;
        s = take_lobe(t, c, 3);
        m->n = h;
        m->hz = hz;
        m->dbfs = ratio_db(s, enbw);
        if (m->dbfs < FFT_DB_FLOOR)
            m->dbfs = FFT_DB_FLOOR;
        sum += s;
        out->harmonics++;
    }
    return sum;
}

/* The band's noise per bin (free bins) and what THD+N counts (all but DC and fundamental,
 * whose bins get the noise per bin instead). */
static void band_noise(const tone_work *t, double *per_bin, double *width, double *dist)
{
    double free_p = 0.0, free_w = 0.0, other_p = 0.0, filled_w = 0.0;
    *width = 0.0;
    for (size_t k = t->klo; k <= t->khi; k++) {
        double pw = power_weight(t, k) * t->p[k], ww = width_weight(t, k);
        *width += ww;
        if (t->use[k] == 0) {
            free_p += pw;
            free_w += ww;
        } else if (t->use[k] == 3) {
            other_p += pw;
        } else {
            filled_w += ww;
        }
    }
    *per_bin = free_w > 0 ? free_p / free_w : 0.0;
    *dist = free_p + other_p + *per_bin * filled_w;
}

int measure_tone_analyze(const double *p, size_t n, double rate, const measure_window *w, double lo, double hi,
                         double fundamental_hz, measure_tone *out, sp_errinfo *ei)
{
    tone_work t;
    double bin_hz = rate / (double)n, enbw = w->enbw_bins, fund, harm, per_bin, width, dist, noise;
    size_t c = 0;
    int err;
    if (!p || n < 16 || !w || !out)
        return sp_fail(ei, SP_EINVAL, "measure_tone_analyze: bad arguments");
    memset(out, 0, sizeof *out);
    memset(&t, 0, sizeof t);
    t.p = p;
    t.last = n / 2;
    t.K = w->lobe_bins;
    t.lo = lo;
    t.hi = hi;
    t.klo = (size_t)ceil(lo / bin_hz - 1e-9);
    t.khi = (size_t)floor(hi / bin_hz + 1e-9);
    if (t.khi > t.last)
        t.khi = t.last;
    if (!(t.use = calloc(t.last + 1, 1)))
        return sp_fail(ei, SP_ENOMEM, "out of memory");
    if ((err = find_fundamental(&t, bin_hz, fundamental_hz, &c, ei)) != SP_OK)
        goto done;
    /* the fundamental's lobe first: a tone 8 to 2K bins up (94 .. 160 Hz at N = 4096,
     * 48 kHz, kaiser:20) reaches into bins 0 .. K, and leaving those to the DC region
     * read 100 Hz 0.68 dB low; what is left of them is the DC region */
    fund = take_lobe(&t, c, 2);
    for (size_t k = 0; k <= (size_t)t.K && k <= t.last; k++)
        if (!t.use[k])
            t.use[k] = 1;
    out->fundamental_hz = lobe_centroid_hz(&t, c, bin_hz);
    out->fundamental_dbfs = ratio_db(fund, enbw);
    harm = take_harmonics(&t, out->fundamental_hz, bin_hz, hi, enbw, out);
    band_noise(&t, &per_bin, &width, &dist);
    noise = per_bin * width;
    out->thd_db = out->harmonics ? ratio_db(harm, fund) : -RATIO_DB_LIMIT;
    out->thd_percent = fund > 0 ? 100.0 * sqrt(harm / fund) : 0.0;
    out->thdn_db = ratio_db(dist, fund);
    out->snr_db = ratio_db(fund, noise);
    out->sinad_db = -out->thdn_db;
    out->enob_bits = (out->sinad_db - 1.76) / 6.02;
    out->noise_dbfs = ratio_db(noise, enbw);
    out->band_lo = lo;
    out->band_hi = hi;
    err = SP_OK;
done:
    free(t.use);
    return err;
}
