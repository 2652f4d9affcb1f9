/* mel and MFCC (docs/transforms.md): the Slaney mel filter bank with area normalisation
 * (librosa's filters.mel, htk=False, norm='slaney') on the dBFS power spectrum, in dB; MFCC
 * the orthonormal DCT-II of that row. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xform_internal.h"
#include "xform_vec.h"

/* Slaney's scale: linear below 1 kHz (200/3 Hz a mel), logarithmic above (27 mels an
 * octave-and-a-bit: 6.4x). */
#define MEL_F_SP (200.0 / 3.0)
#define MEL_MIN_LOG_HZ 1000.0
#define MEL_MIN_LOG_MEL (MEL_MIN_LOG_HZ / MEL_F_SP)
#define MEL_LOGSTEP (log(6.4) / 27.0)

static double hz_to_mel(double f)
{
    return f >= MEL_MIN_LOG_HZ ? MEL_MIN_LOG_MEL + log(f / MEL_MIN_LOG_HZ) / MEL_LOGSTEP : f / MEL_F_SP;
}

static double mel_to_hz(double m)
{
    return m >= MEL_MIN_LOG_MEL ? MEL_MIN_LOG_HZ * exp(MEL_LOGSTEP * (m - MEL_MIN_LOG_MEL)) : MEL_F_SP * m;
}

void xform_melbank_free(xform_melbank *mb)
{
    free(mb->k0);
    free(mb->len);
    free(mb->off);
    free(mb->w);
    free(mb->vk0);
    free(mb->vw);
    memset(mb, 0, sizeof *mb);
}

/* Band b's triangle between edges[b], edges[b+1], edges[b+2], times 2/(edges[b+2]-edges[b]). */
static double tri(const double *edges, int b, double f)
{
    double lower = (f - edges[b]) / (edges[b + 1] - edges[b]);
    double upper = (edges[b + 2] - f) / (edges[b + 2] - edges[b + 1]);
    double v = lower < upper ? lower : upper;
    return v > 0 ? v * 2.0 / (edges[b + 2] - edges[b]) : 0.0;
}

/* mb's vk0, vlen, voff (one block) and vw from its runs. SP_ENOMEM. */
static int melbank_widen(xform_melbank *mb, size_t bins)
{
    size_t total = 0, nb = (size_t)mb->bands;
    if (!(mb->vk0 = malloc(3 * nb * sizeof *mb->vk0)))
        return SP_ENOMEM;
    mb->vlen = mb->vk0 + nb;
    mb->voff = mb->vk0 + 2 * nb;
    for (size_t b = 0; b < nb; b++) {
        size_t len = (mb->len[b] + 3) / 4 * 4;
        if (len > bins)
            len = mb->len[b];
        mb->vk0[b] = mb->k0[b] + len <= bins ? mb->k0[b] : bins - len;
        mb->vlen[b] = len;
        mb->voff[b] = total;
        total += len;
    }
    if (!(mb->vw = calloc(total, sizeof *mb->vw)))
        return SP_ENOMEM;
    for (size_t b = 0; b < nb; b++)
        memcpy(mb->vw + mb->voff[b] + (mb->k0[b] - mb->vk0[b]), mb->w + mb->off[b], mb->len[b] * sizeof *mb->w);
    return SP_OK;
}

int xform_melbank_make(xform_melbank *mb, int bands, double fmin, double fmax, size_t n, double rate,
                       double *centres, sp_errinfo *ei)
{
    size_t bins = n / 2 + 1, total = 0;
    double lo = hz_to_mel(fmin), hi = hz_to_mel(fmax), *edges;
    memset(mb, 0, sizeof *mb);
    mb->bands = bands;
    edges = malloc((size_t)(bands + 2) * sizeof *edges);
    mb->k0 = calloc((size_t)bands, sizeof *mb->k0);
    mb->len = calloc((size_t)bands, sizeof *mb->len);
    mb->off = calloc((size_t)bands, sizeof *mb->off);
    if (!edges || !mb->k0 || !mb->len || !mb->off)
        goto nomem;
    for (int i = 0; i < bands + 2; i++)
        edges[i] = mel_to_hz(lo + (hi - lo) * i / (bands + 1));
    for (int b = 0; b < bands; b++) {
        size_t k0 = bins, k1 = 0;
        for (size_t k = 0; k < bins; k++)
            if (tri(edges, b, (double)k * rate / (double)n) > 0) {
                if (k0 == bins)
                    k0 = k;
                k1 = k + 1;
            }
        if (k0 == bins) {
            int err = sp_fail(ei, SP_EINVAL, "mel band %d (%.4g .. %.4g Hz) holds no FFT bin at N %zu: fewer bands or "
                                             "a larger N",
                              b, edges[b], edges[b + 2], n);
            free(edges);
            xform_melbank_free(mb);
            return err;
        }
        mb->k0[b] = k0;
        mb->len[b] = k1 - k0;
        mb->off[b] = total;
        total += k1 - k0;
        if (centres)
            centres[b] = edges[b + 1];
    }
    if (!(mb->w = malloc(total * sizeof *mb->w)))
        goto nomem;
    for (int b = 0; b < bands; b++)
        for (size_t i = 0; i < mb->len[b]; i++)
            mb->w[mb->off[b] + i] = (float)tri(edges, b, (double)(mb->k0[b] + i) * rate / (double)n);
    free(edges);
    if (melbank_widen(mb, bins) != SP_OK) {
        xform_melbank_free(mb);
        return sp_fail(ei, SP_ENOMEM, "out of memory");
    }
    return SP_OK;
nomem:
    free(edges);
    xform_melbank_free(mb);
    return sp_fail(ei, SP_ENOMEM, "out of memory");
}

void xform_melbank_power(const xform_melbank *mb, const float *p, float *out)
{
    const float fl = (float)XFORM_POWER_FLOOR;
    for (int b = 0; b < mb->bands; b++) {
        const float *w = mb->vw + mb->voff[b], *q = p + mb->vk0[b];
        size_t i = 0, len = mb->vlen[b];
        float s = 0.0f; /* a band's few hundred terms at most: float's 1e-7 is 5e-7 dB */
#ifdef XFORM_VW
        xv acc = {0}, lo = (xv){0} + fl;
        for (; i + XFORM_VW <= len; i += XFORM_VW) /* four partial sums */
            acc += xv_ld(w + i) * xv_max(xv_ld(q + i), lo);
        s = (acc[0] + acc[2]) + (acc[1] + acc[3]);
#endif
        for (; i < len; i++)
            s += w[i] * (q[i] > fl ? q[i] : fl);
        out[b] = s > fl ? s : fl; /* NaN too */
    }
}

/* ---- mel ---------------------------------------------------------------------------------- */

typedef struct {
    xform_melbank mb;
    int coeffs;                 /* mfcc: K */
    float *dct;                 /* mfcc: K x bands, orthonormal DCT-II (the GPU bank's) */
    float *dct_t;               /* mfcc: the same, bands x K4 (K rounded up to 4, zeros past K) */
} mel_state;

static int mel_bands(const xform *x)
{
    return x->spec.bands > 0 ? x->spec.bands : XFORM_MEL_DEFAULT_BANDS;
}

/* The bank of x->spec (its range checked against Nyquist), its centres in x->freqs. */
static int mel_common(xform *x, sp_errinfo *ei)
{
    double nyq = x->rate / 2.0, fmin = x->spec.fmin < 0 ? 0.0 : x->spec.fmin;
    double fmax = x->spec.fmax > 0 ? x->spec.fmax : nyq;
    int bands = mel_bands(x), err;
    mel_state *m;
    if (bands < 1 || bands > XFORM_MAX_BANDS)
        return sp_fail(ei, SP_EINVAL, "mel: %d bands: must be from 1 to %d", bands, XFORM_MAX_BANDS);
    if (fmax > nyq)
        return sp_fail(ei, SP_EINVAL, "mel: " SP_FIELD("fmax") " %g Hz is above the Nyquist frequency (%g Hz)", fmax,
                       nyq);
    if (fmin >= fmax)
        return sp_fail(ei, SP_EINVAL, "mel: " SP_FIELD("fmin") " %g Hz must be below " SP_FIELD("fmax") " %g Hz", fmin,
                       fmax);
    if (!(m = calloc(1, sizeof *m)) || !(x->freqs = malloc((size_t)bands * sizeof *x->freqs))) {
        free(m);
        return SP_ENOMEM;
    }
    x->priv = m;
    if ((err = xform_melbank_make(&m->mb, bands, fmin, fmax, x->n, x->rate, x->freqs, ei)) != SP_OK)
        return err;
    snprintf(x->params, sizeof x->params,
             ", \"bands\": %d, \"fmin\": %.10g, \"fmax\": %.10g, \"scale\": \"slaney\", \"norm\": \"slaney\"", bands,
             fmin, fmax);
    return SP_OK;
}

static int mel_init(xform *x, sp_errinfo *ei)
{
    int err = mel_common(x, ei);
    if (err != SP_OK)
        return err;
    x->width = (size_t)mel_bands(x);
    strncat(x->params, ", \"values\": \"dBFS\"", sizeof x->params - strlen(x->params) - 1);
    return SP_OK;
}

static void mel_fini(xform *x)
{
    mel_state *m = x->priv;
    if (!m)
        return;
    xform_melbank_free(&m->mb);
    free(m->dct);
    free(m->dct_t);
    free(m);
}

static size_t mel_scratch(const xform *x)
{
    return x->bins + (size_t)mel_bands(x);
}

/* The frame's power spectrum (docs/transforms.md), the bands' powers, their dB. */
static void mel_frame(const xform *x, fft_plan *plan, const float *frame, double t, float *out, float *scratch)
{
    const mel_state *m = x->priv;
    (void)t;
    fft_r2c_power(plan, frame, x->wins[0], x->scale2, scratch);
    xform_melbank_power(&m->mb, scratch, out);
    fft_power_db(plan, out, (size_t)m->mb.bands);
}

/* The bands as a filter bank (fft.h): their runs and weights; mfcc adds its DCT. */
static int mel_bank(const xform *x, fft_bank *b, void **mem)
{
    const mel_state *m = x->priv;
    const xform_melbank *mb = &m->mb;
    if (xform_bank_runs(b, (size_t)mb->bands, mem) != SP_OK)
        return SP_ENOMEM;
    for (int r = 0; r < mb->bands; r++) {
        ((uint32_t *)b->k0)[r] = (uint32_t)mb->k0[r];
        ((uint32_t *)b->len)[r] = (uint32_t)mb->len[r];
        ((uint32_t *)b->off)[r] = (uint32_t)mb->off[r];
    }
    b->w = mb->w;
    b->nw = mb->off[mb->bands - 1] + mb->len[mb->bands - 1];
    b->post = FFT_BANK_DB;
    if (m->dct) {
        b->post = FFT_BANK_DB_DCT;
        b->coeffs = (size_t)m->coeffs;
        b->dct = m->dct;
    }
    return SP_OK;
}

const xform_ops xform_mel_ops = {
    .kind = XFORM_MEL, .name = "mel", .init = mel_init, .frame_row = mel_frame, .scratch_floats = mel_scratch,
    .fini = mel_fini, .db = 1, .bank = mel_bank,
};

/* ---- MFCC --------------------------------------------------------------------------------- */

static int mfcc_init(xform *x, sp_errinfo *ei)
{
    int bands = mel_bands(x), k = x->spec.coeffs, err;
    mel_state *m;
    char more[96];
    if (k < 1)
        return sp_fail(ei, SP_EINVAL, "mfcc: %d coefficients: at least 1", k);
    if (k > bands)
        return sp_fail(ei, SP_EINVAL, "mfcc: %d coefficients from %d mel bands: at most %d", k, bands, bands);
    if ((err = mel_common(x, ei)) != SP_OK)
        return err;
    m = x->priv;
    m->coeffs = k;
    if (!(m->dct = malloc((size_t)k * (size_t)bands * sizeof *m->dct)) ||
        !(m->dct_t = calloc((size_t)(k + 3) / 4 * 4 * (size_t)bands, sizeof *m->dct_t)))
        return SP_ENOMEM;
    for (int q = 0; q < k; q++) {
        double s = sqrt((q ? 2.0 : 1.0) / bands);
        for (int b = 0; b < bands; b++)
            m->dct[(size_t)q * (size_t)bands + (size_t)b] =
                m->dct_t[(size_t)b * (size_t)((k + 3) / 4 * 4) + (size_t)q] =
                (float)(s * cos(XFORM_PI * q * (2 * b + 1) / (2.0 * bands)));
    }
    for (int q = 0; q < k; q++)
        x->freqs[q] = q; /* the columns are the coefficients' indices */
    x->width = (size_t)k;
    snprintf(more, sizeof more, ", \"coefficients\": %d, \"dct\": \"II, orthonormal, of the mel dB\"", k);
    strncat(x->params, more, sizeof x->params - strlen(x->params) - 1);
    return SP_OK;
}

/* Coefficients q .. q+4NV-1 (of K, the rest up to K4 being zeros): each a sum in double
 * over the bands in order of float products, 2NV independent sums at once. */
#define DCT_PASS(NV)                                                                                  \
    for (; q + 4 * (NV) <= k4; q += 4 * (NV)) {                                                   \
        xvd s[2 * (NV)];                                                                          \
        for (int i = 0; i < 2 * (NV); i++)                                                        \
            s[i] = (xvd){0.0, 0.0};                                                               \
        for (size_t b = 0; b < bands; b++) {                                                      \
            const float *d = m->dct_t + b * k4 + q;                                               \
            for (int i = 0; i < (NV); i++) {                                                      \
                xv pr = xv_ld(d + 4 * i) * mel[b];                                                \
                s[2 * i] += (xvd){pr[0], pr[1]};                                                  \
                s[2 * i + 1] += (xvd){pr[2], pr[3]};                                              \
            }                                                                                     \
        }                                                                                         \
        for (size_t i = 0; i < 4 * (NV) && q + i < (size_t)m->coeffs; i++)                         \
            out[q + i] = (float)s[i / 2][i % 2];                                                  \
    }

/* The mel dB row, then its DCT, 16 coefficients a pass (the same sums as one at a time). */
static void mfcc_frame(const xform *x, fft_plan *plan, const float *frame, double t, float *out, float *scratch)
{
    const mel_state *m = x->priv;
    size_t bands = (size_t)m->mb.bands, k4 = ((size_t)m->coeffs + 3) / 4 * 4, q = 0;
    float *mel = scratch + x->bins;
    mel_frame(x, plan, frame, t, mel, scratch);
#ifdef XFORM_VW
    DCT_PASS(4)
    DCT_PASS(1)
#endif
    for (; q < (size_t)m->coeffs; q++) {
        double s = 0.0;
        for (size_t b = 0; b < bands; b++)
            s += (double)(m->dct_t[b * k4 + q] * mel[b]);
        out[q] = (float)s;
    }
}

const xform_ops xform_mfcc_ops = {
    .kind = XFORM_MFCC, .name = "mfcc", .init = mfcc_init, .frame_row = mfcc_frame, .scratch_floats = mel_scratch,
    .fini = mel_fini, .bank = mel_bank,
};
