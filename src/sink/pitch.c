#include "pitch.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fft.h"

#define YIN_THRESHOLD 0.15 /* the first dip of the normalised difference below it is the period */
#define VOICED_MAX 0.35    /* a best dip above it: unvoiced */
#define SILENCE 1e-10      /* mean square below it (-100 dBFS): unvoiced */

struct pitch_yin {
    int rate;
    double fmin, fmax;
    size_t n, tau_min, tau_max, w, m; /* m: the correlation's FFT size */
    fft_plan *plan;
    float *rev;             /* the frame reversed */
    cpx *buf;               /* 3 x m: both directions' packed signals, the cross terms */
    double *d, *cum, *c1, *c2; /* tau_max + 1 */
};

int pitch_yin_create(int rate, size_t n, double fmin, double fmax, pitch_yin **out, sp_errinfo *ei)
{
    pitch_yin *s;
    fft_config fc = fft_config_default();
    int err;
    *out = NULL;
    if (fmin <= 0)
        fmin = PITCH_FMIN;
    if (fmax <= 0)
        fmax = PITCH_FMAX;
    if (fmax > rate / 2.0)
        fmax = rate / 2.0;
    if (!(fmin < fmax))
        return sp_fail(ei, SP_EINVAL, SP_FIELD("pitch") ": " SP_FIELD("fmin") " %g must be below " SP_FIELD("fmax")
                                      " %g (at %d Hz)",
                       fmin, fmax, rate);
    if (!(s = calloc(1, sizeof *s)))
        return sp_fail(ei, SP_ENOMEM, "out of memory");
    s->rate = rate;
    s->n = n;
    s->fmin = fmin;
    s->fmax = fmax;
    s->tau_min = (size_t)floor(rate / fmax);
    s->tau_max = (size_t)ceil(rate / fmin) + 1;
    if (s->tau_min < 2)
        s->tau_min = 2;
    if (2 * s->tau_max > n) {
        err = sp_fail(ei, SP_EINVAL,
                      SP_FIELD("pitch") ": " SP_FIELD("fmin") " %g Hz at %d Hz needs " SP_FIELD("fft_size")
                                        " %zu or more",
                      fmin, rate, (size_t)1 << (size_t)ceil(log2(2.0 * (double)s->tau_max)));
        goto fail;
    }
    s->w = n - s->tau_max;
    for (s->m = 16; s->m < n + s->w; s->m <<= 1)
        ;
    fc.backend = FFT_BACKEND_CPU;
    fc.n = s->m;
    fc.max_batch = 2;
    fc.tuning.cpu_threads = 1;
    if ((err = fft_plan_create(&fc, &s->plan, ei)) != SP_OK)
        goto fail;
    if (!(s->rev = malloc(n * sizeof *s->rev)) || !(s->buf = malloc(3 * s->m * sizeof *s->buf)) ||
        !(s->d = malloc((s->tau_max + 1) * sizeof *s->d)) || !(s->cum = malloc((s->tau_max + 1) * sizeof *s->cum)) ||
        !(s->c1 = malloc((s->tau_max + 1) * sizeof *s->c1)) || !(s->c2 = malloc((s->tau_max + 1) * sizeof *s->c2))) {
        err = sp_fail(ei, SP_ENOMEM, "out of memory");
        goto fail;
    }
    *out = s;
    return SP_OK;
fail:
    pitch_yin_destroy(s);
    return err;
}

void pitch_yin_destroy(pitch_yin *s)
{
    if (!s)
        return;
    fft_plan_destroy(s->plan);
    free(s->rev);
    free(s->buf);
    free(s->d);
    free(s->cum);
    free(s->c1);
    free(s->c2);
    free(s);
}

/* d(tau) = sum_{j<w} (x_j - x_{j+tau})^2 for tau 0 .. tau_max: the energies by running sums,
 * added into out[] with weight 1/2; c[tau] the cross term sum x_j x_{j+tau}. */
static void add_difference(const pitch_yin *s, const float *x, const double *c, double *out)
{
    double e0 = 0.0, et;
    for (size_t j = 0; j < s->w; j++)
        e0 += (double)x[j] * x[j];
    et = e0;
    for (size_t t = 0; t <= s->tau_max; t++) {
        double v;
        if (t > 0)
            et += (double)x[t + s->w - 1] * x[t + s->w - 1] - (double)x[t - 1] * x[t - 1];
        v = e0 + et - 2.0 * c[t];
        out[t] += v > 0.0 ? 0.5 * v : 0.0;
    }
}

/* conj(Y_k) X_k of the two real signals packed in z (re: x, im: y), at bin k (k2 = -k). */
static cpx cross_of(const cpx *z, size_t k, size_t k2)
{
    double xr = 0.5 * (z[k].re + z[k2].re), xi = 0.5 * (z[k].im - z[k2].im);
    double yr = 0.5 * (z[k].im + z[k2].im), yi = -0.5 * (z[k].re - z[k2].re);
    cpx c = {(float)(yr * xr + yi * xi), (float)(yr * xi - yi * xr)};
    return c;
}

/* The difference of the frame x and of its reversal xr, averaged into out[]: the cross
 * terms c(tau) = IFFT(conj(FFT(x[0..w))) FFT(x)) of both by three transforms of m points,
 * each direction's frame and first w samples packed into one complex signal, the two real
 * correlations into one inverse. */
static void differences(pitch_yin *s, const float *x, const float *xr, double *out)
{
    cpx *z1 = s->buf, *z2 = s->buf + s->m, *c = s->buf + 2 * s->m;
    memset(s->buf, 0, 2 * s->m * sizeof *s->buf);
    for (size_t j = 0; j < s->n; j++) {
        z1[j].re = x[j];
        z2[j].re = xr[j];
    }
    for (size_t j = 0; j < s->w; j++) {
        z1[j].im = x[j];
        z2[j].im = xr[j];
    }
    fft_c2c(s->plan, s->buf, s->buf, 2, 0);
    for (size_t k = 0; k < s->m; k++) {
        size_t k2 = (s->m - k) & (s->m - 1);
        cpx a = cross_of(z1, k, k2), b = cross_of(z2, k, k2);
        c[k].re = a.re - b.im; /* a + i b: both inverses are real */
        c[k].im = a.im + b.re;
    }
    fft_c2c(s->plan, c, c, 1, 1);
    for (size_t t = 0; t <= s->tau_max; t++) {
        s->c1[t] = c[t].re;
        s->c2[t] = c[t].im;
    }
    add_difference(s, x, s->c1, out);
    add_difference(s, xr, s->c2, out);
}

/* The frame's f0 (0: unvoiced) and confidence 1 - d'(tau) from the cumulative mean
 * normalised difference d', its dip refined by a parabola. */
void pitch_yin_estimate(pitch_yin *s, const float *x, double *f0, double *conf)
{
    double sum = 0.0, ms = 0.0, best = 1e300, t;
    size_t tau = 0;
    for (size_t j = 0; j < s->n; j++)
        ms += (double)x[j] * x[j];
    *f0 = 0.0;
    *conf = 0.0;
    if (ms / (double)s->n < SILENCE)
        return;
    /* the samples from the frame's start and, reversed, from its end: the lags' spans then
     * centre on the frame's centre, its time, whatever the lag (one way alone read a
     * 900 cent/s glide 7 cents flat) */
    memset(s->d, 0, (s->tau_max + 1) * sizeof *s->d);
    for (size_t j = 0; j < s->n; j++)
        s->rev[j] = x[s->n - 1 - j];
    differences(s, x, s->rev, s->d);
    s->cum[0] = 1.0;
    for (size_t k = 1; k <= s->tau_max; k++) {
        sum += s->d[k];
        s->cum[k] = sum > 0.0 ? s->d[k] * (double)k / sum : 1.0;
    }
    for (size_t k = s->tau_min; k < s->tau_max; k++) {
        if (s->cum[k] < YIN_THRESHOLD) {
            while (k + 1 < s->tau_max && s->cum[k + 1] < s->cum[k])
                k++;
            tau = k;
            break;
        }
        if (s->cum[k] < best) {
            best = s->cum[k];
            tau = k;
        }
    }
    if (tau == 0 || s->cum[tau] > VOICED_MAX)
        return;
    t = (double)tau;
    if (tau > s->tau_min && tau + 1 < s->tau_max) {
        /* on d itself: near its dip a parabola in tau, where d' (d divided by a running
         * mean) bends it (3 cents sharp at a 13-sample period) */
        double a = s->d[tau - 1], b = s->d[tau], c = s->d[tau + 1], den = a - 2.0 * b + c;
        if (den > 0.0)
            t += 0.5 * (a - c) / den;
    }
    *f0 = s->rate / t;
    *conf = 1.0 - s->cum[tau] < 0.0 ? 0.0 : 1.0 - s->cum[tau];
}

