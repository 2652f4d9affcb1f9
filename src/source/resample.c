#include "resample.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define RESAMPLE_PI 3.14159265358979323846 /* M_PI is not in ISO C */
#define KAISER_BETA 8.6                    /* about 86 dB stop-band */
#define CUTOFF 0.45                        /* of the lower rate */

/* Output sample j is sum_t hp[p][t] x[b - t] with p = (j M + c) mod L, b = (j M + c) div L:
 * the prototype h[k] (k = 0 .. L T, centred on c = L T / 2) read a phase at a time,
 * hp[p*T + t] = h[p + t L]. */
struct resampler {
    int L, M, in_rate, out_rate;
    uint64_t c;
    float *hp;       /* L * RESAMPLE_TAPS */
    float *x;        /* input samples x0 .. x0 + xlen - 1 */
    size_t xlen, xcap;
    uint64_t x0;
    uint64_t nin;    /* input samples given */
    uint64_t j;      /* the next output sample */
};

static int gcd(int a, int b)
{
    while (b) {
        int t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* The modified Bessel function I0 (its series: terms fall fast for the betas used). */
static double bessel_i0(double x)
{
    double sum = 1.0, term = 1.0;
    for (int k = 1; k < 60; k++) {
        term *= (x / (2.0 * k)) * (x / (2.0 * k));
        sum += term;
        if (term < sum * 1e-17)
            break;
    }
    return sum;
}

static void design(resampler *r)
{
    const int L = r->L, T = RESAMPLE_TAPS;
    double fc = CUTOFF / (double)(L > r->M ? L : r->M), half = (double)L * T / 2.0, i0b = bessel_i0(KAISER_BETA);
    for (int p = 0; p < L; p++)
        for (int t = 0; t < T; t++) {
            double k = (double)(p + t * L) - half, u = k / half, s, w;
            s = k == 0.0 ? 1.0 : sin(2.0 * RESAMPLE_PI * fc * k) / (2.0 * RESAMPLE_PI * fc * k);
            w = fabs(u) <= 1.0 ? bessel_i0(KAISER_BETA * sqrt(1.0 - u * u)) / i0b : 0.0;
            r->hp[p * T + t] = (float)((double)L * 2.0 * fc * s * w);
        }
}

int resampler_create(int in_rate, int out_rate, resampler **out, sp_errinfo *ei)
{
    resampler *r;
    int g;
    *out = NULL;
    if (in_rate < 1 || out_rate < 1)
        return sp_fail(ei, SP_EINVAL, "resampler_create: bad rates");
    g = gcd(in_rate, out_rate);
    if (out_rate / g > RESAMPLE_MAX_L)
        return sp_fail(ei, SP_EINVAL, SP_FIELD("resample") ": %d Hz to %d Hz is no ratio of %d phases or fewer",
                       in_rate, out_rate, RESAMPLE_MAX_L);
    if (!(r = calloc(1, sizeof *r)))
        return sp_fail(ei, SP_ENOMEM, "out of memory");
    r->in_rate = in_rate;
    r->out_rate = out_rate;
    r->L = out_rate / g;
    r->M = in_rate / g;
    r->c = (uint64_t)r->L * RESAMPLE_TAPS / 2;
    if (!(r->hp = malloc((size_t)r->L * RESAMPLE_TAPS * sizeof *r->hp))) {
        free(r);
        return sp_fail(ei, SP_ENOMEM, "out of memory");
    }
    design(r);
    *out = r;
    return SP_OK;
}

void resampler_destroy(resampler *r)
{
    if (!r)
        return;
    free(r->hp);
    free(r->x);
    free(r);
}

uint64_t resampler_length(const resampler *r, uint64_t n)
{
    return (n * (uint64_t)r->L + (uint64_t)r->M - 1) / (uint64_t)r->M;
}

/* Input sample i, 0 before the start and past what was given. */
static float at(const resampler *r, int64_t i)
{
    return i < (int64_t)r->x0 || (uint64_t)i >= r->x0 + r->xlen ? 0.0f : r->x[(uint64_t)i - r->x0];
}

size_t resampler_run(resampler *r, const float *in, size_t n, int end, float *out, size_t max)
{
    const int T = RESAMPLE_TAPS;
    size_t made = 0;
    uint64_t total = end ? resampler_length(r, r->nin + n) : UINT64_MAX, keep;
    if (n > 0) {
        if (r->xlen + n > r->xcap) {
            size_t cap = (r->xlen + n) * 2;
            float *x = realloc(r->x, cap * sizeof *x);
            if (!x)
                return 0;
            r->x = x;
            r->xcap = cap;
        }
        memcpy(r->x + r->xlen, in, n * sizeof *in);
        r->xlen += n;
        r->nin += n;
    }
    while (made < max && r->j < total) {
        uint64_t pos = r->j * (uint64_t)r->M + r->c, b = pos / (uint64_t)r->L;
        const float *h = r->hp + (size_t)(pos % (uint64_t)r->L) * (size_t)T;
        double acc = 0.0;
        if (!end && b >= r->nin)
            break;
        for (int t = 0; t < T; t++)
            acc += (double)h[t] * at(r, (int64_t)b - t);
        out[made++] = (float)acc;
        r->j++;
    }
    /* the oldest sample the next output reads */
    keep = (r->j * (uint64_t)r->M + r->c) / (uint64_t)r->L;
    keep = keep >= (uint64_t)T ? keep - (uint64_t)T + 1 : 0;
    if (keep > r->x0) {
        size_t drop = keep - r->x0 < r->xlen ? (size_t)(keep - r->x0) : r->xlen;
        memmove(r->x, r->x + drop, (r->xlen - drop) * sizeof *r->x);
        r->xlen -= drop;
        r->x0 += drop;
    }
    return made;
}
