#include "transfer.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const transfer_column_names[TRANSFER_COLUMNS] = {"freq_hz", "magnitude_db", "phase_deg", "coherence"};

/* The floor of the magnitude, as the levels' (docs/design.md "Levels (dBFS)"). */
#define MAG_FLOOR 1e-10
/* Coherence is clamped below 1 for the delay's weighting gamma^2 / (1 - gamma^2): a noiseless
 * bin weighs as much as one at 30 dB SNR, not infinitely more. */
#define COH_WEIGHT_MAX 0.999
#define TRANSFER_PI 3.14159265358979323846 /* M_PI is not in ISO C */

struct transfer {
    size_t n, bins;
    uint64_t frames;
    double *sxx, *syy; /* bins each */
    double *sxy;       /* bins complex: re, im */
};

int transfer_create(size_t n, transfer **out, sp_errinfo *ei)
{
    transfer *t;
    if (!out)
        return sp_fail(ei, SP_EINVAL, "transfer_create: NULL argument");
    *out = NULL;
    if (n < FFT_MIN_SIZE || n > FFT_MAX_SIZE || (n & (n - 1)))
        return sp_fail(ei, SP_EINVAL, SP_FIELD("fft_size") " %zu: a power of two from %u to %u", n, FFT_MIN_SIZE,
                       FFT_MAX_SIZE);
    if (!(t = calloc(1, sizeof *t)))
        goto fail;
    t->n = n;
    t->bins = n / 2 + 1;
    if (!(t->sxx = calloc(t->bins, sizeof *t->sxx)) || !(t->syy = calloc(t->bins, sizeof *t->syy)) ||
        !(t->sxy = calloc(2 * t->bins, sizeof *t->sxy)))
        goto fail;
    *out = t;
    return SP_OK;
fail:
    transfer_destroy(t);
    return sp_fail(ei, SP_ENOMEM, "out of memory for a transfer function of %zu bins", n / 2 + 1);
}

void transfer_destroy(transfer *t)
{
    if (!t)
        return;
    free(t->sxx);
    free(t->syy);
    free(t->sxy);
    free(t);
}

void transfer_reset(transfer *t)
{
    t->frames = 0;
    memset(t->sxx, 0, t->bins * sizeof *t->sxx);
    memset(t->syy, 0, t->bins * sizeof *t->syy);
    memset(t->sxy, 0, 2 * t->bins * sizeof *t->sxy);
}

int transfer_copy(transfer *dst, const transfer *src)
{
    if (!dst || !src || dst->n != src->n)
        return SP_EINVAL;
    dst->frames = src->frames;
    memcpy(dst->sxx, src->sxx, src->bins * sizeof *src->sxx);
    memcpy(dst->syy, src->syy, src->bins * sizeof *src->syy);
    memcpy(dst->sxy, src->sxy, 2 * src->bins * sizeof *src->sxy);
    return SP_OK;
}

void transfer_add(transfer *t, const cpx *x, const cpx *y, size_t nframes)
{
    for (size_t f = 0; f < nframes; f++) {
        const cpx *a = x + f * t->bins, *b = y + f * t->bins;
        for (size_t k = 0; k < t->bins; k++) {
            double xr = a[k].re, xi = a[k].im, yr = b[k].re, yi = b[k].im;
            t->sxx[k] += xr * xr + xi * xi;
            t->syy[k] += yr * yr + yi * yi;
            t->sxy[2 * k] += xr * yr + xi * yi; /* conj(X) Y */
            t->sxy[2 * k + 1] += xr * yi - xi * yr;
        }
    }
    t->frames += nframes;
}

uint64_t transfer_averages(const transfer *t)
{
    return t->frames;
}

size_t transfer_bins(const transfer *t)
{
    return t->bins;
}

static double coherence_at(const transfer *t, size_t k)
{
    double re = t->sxy[2 * k], im = t->sxy[2 * k + 1], d = t->sxx[k] * t->syy[k];
    double c = d > 0.0 ? (re * re + im * im) / d : 0.0;
    return c > 1.0 ? 1.0 : c; /* rounding: Cauchy-Schwarz holds for the sums */
}

/* |H1| of bin k, and its phase in radians (that of Sxy, as Sxx is real). */
static double magnitude_at(const transfer *t, size_t k)
{
    return t->sxx[k] > 0.0 ? hypot(t->sxy[2 * k], t->sxy[2 * k + 1]) / t->sxx[k] : 0.0;
}

/* Bin k's magnitude in dB, phase in degrees and coherence. */
static void bin_values(const transfer *t, size_t k, float *mag_db, float *phase_deg, float *coherence)
{
    double m = magnitude_at(t, k);
    *mag_db = (float)(20.0 * log10(m > MAG_FLOOR ? m : MAG_FLOOR));
    *phase_deg = t->sxx[k] > 0.0 ? (float)(atan2(t->sxy[2 * k + 1], t->sxy[2 * k]) * (180.0 / TRANSFER_PI)) : 0.0f;
    *coherence = (float)coherence_at(t, k);
}

void transfer_result(const transfer *t, float *mag_db, float *phase_deg, float *coherence)
{
    for (size_t k = 0; k < t->bins; k++) {
        float m, p, c;
        bin_values(t, k, &m, &p, &c);
        if (mag_db)
            mag_db[k] = m;
        if (phase_deg)
            phase_deg[k] = p;
        if (coherence)
            coherence[k] = c;
    }
}

void transfer_table(const transfer *t, double rate, float *rows)
{
    for (size_t k = 0; k < t->bins; k++) {
        float *row = rows + k * TRANSFER_COLUMNS;
        row[0] = (float)((double)k * rate / (double)t->n);
        bin_values(t, k, &row[1], &row[2], &row[3]);
    }
}

/* a[0..n) from a half spectrum h[0..bins): a[k] = h[k], a[n-k] = conj(h[k]). */
static void hermitian(cpx *a, size_t n)
{
    for (size_t k = 1; k < n / 2; k++) {
        a[n - k].re = a[k].re;
        a[n - k].im = -a[k].im;
    }
}

/* The minimum phase of |H1| (radians) into phi[0..bins): the real cepstrum of log|H1|,
 * folded onto positive quefrencies, transformed back. */
static int minimum_phase(const transfer *t, fft_plan *plan, cpx *a, double *phi, sp_errinfo *ei)
{
    size_t n = t->n;
    int err;
    for (size_t k = 0; k < t->bins; k++) {
        double m = magnitude_at(t, k);
        a[k].re = (float)log(m > MAG_FLOOR ? m : MAG_FLOOR);
        a[k].im = 0.0f;
    }
    hermitian(a, n);
    if ((err = fft_c2c(plan, a, a, 1, 1)) != SP_OK)
        return sp_fail(ei, err, "transfer: inverse FFT failed");
    for (size_t i = 1; i < n; i++) {
        a[i].re = i < n / 2 ? 2.0f * a[i].re : i == n / 2 ? a[i].re : 0.0f;
        a[i].im = 0.0f;
    }
    a[0].im = 0.0f;
    if ((err = fft_c2c(plan, a, a, 1, 0)) != SP_OK)
        return sp_fail(ei, err, "transfer: FFT failed");
    for (size_t k = 0; k < t->bins; k++)
        phi[k] = a[k].im;
    return SP_OK;
}

/* The lag of the largest value of r[0..n) (real parts), refined by a parabola, in (-n/2, n/2]. */
static double peak_lag(const cpx *r, size_t n)
{
    size_t k = 0;
    double l, c, rr, den, d;
    for (size_t i = 1; i < n; i++)
        if (r[i].re > r[k].re)
            k = i;
    l = r[(k + n - 1) % n].re;
    c = r[k].re;
    rr = r[(k + 1) % n].re;
    den = l - 2.0 * c + rr;
    d = (double)k + (den < 0.0 ? 0.5 * (l - rr) / den : 0.0);
    return d > (double)n / 2 ? d - (double)n : d;
}

int transfer_delay(const transfer *t, double *samples, sp_errinfo *ei)
{
    fft_config fc = fft_config_default();
    fft_plan *plan = NULL;
    cpx *a = NULL;
    double *phi = NULL;
    int err;
    *samples = 0.0;
    if (t->frames == 0)
        return SP_OK;
    fc.backend = FFT_BACKEND_CPU;
    fc.n = t->n;
    fc.hop = t->n;
    fc.max_batch = 1;
    fc.tuning.cpu_threads = 1;
    if ((err = fft_plan_create(&fc, &plan, ei)) != SP_OK)
        return err;
    if (!(a = malloc(t->n * sizeof *a)) || !(phi = malloc(t->bins * sizeof *phi))) {
        err = sp_fail(ei, SP_ENOMEM, "out of memory for the delay of %zu bins", t->bins);
        goto done;
    }
    if ((err = minimum_phase(t, plan, a, phi, ei)) != SP_OK)
        goto done;
    for (size_t k = 0; k < t->bins; k++) {
        double g = coherence_at(t, k), w, ph;
        g = g < COH_WEIGHT_MAX ? g : COH_WEIGHT_MAX;
        w = t->sxx[k] > 0.0 ? g / (1.0 - g) : 0.0;
        ph = atan2(t->sxy[2 * k + 1], t->sxy[2 * k]) - phi[k]; /* the excess phase */
        a[k].re = (float)(w * cos(ph));
        a[k].im = (float)(w * sin(ph));
    }
    hermitian(a, t->n);
    if ((err = fft_c2c(plan, a, a, 1, 1)) != SP_OK) {
        err = sp_fail(ei, err, "transfer: inverse FFT failed");
        goto done;
    }
    *samples = peak_lag(a, t->n);
done:
    free(a);
    free(phi);
    fft_plan_destroy(plan);
    return err;
}

void transfer_unwrap(float *phase_deg, size_t bins, double bin_hz, int remove_delay, double delay_s)
{
    double prev = 0.0, offset = 0.0;
    for (size_t k = 0; k < bins; k++) {
        double p = phase_deg[k];
        if (remove_delay)
            p = remainder(p + 360.0 * (double)k * bin_hz * delay_s, 360.0);
        if (k > 0)
            offset -= 360.0 * nearbyint((p + offset - prev) / 360.0);
        prev = p + offset;
        phase_deg[k] = (float)prev;
    }
}
