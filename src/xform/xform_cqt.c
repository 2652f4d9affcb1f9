/* constant-Q by spectral kernels on one FFT of the frame (Brown-Puckette; docs/transforms.md
 * "Constant-Q (spectral kernels)"): bin j's temporal kernel, a hann window of N_j = Q rate/f_j
 * samples centred in the frame times e^(2 pi i f_j t), scaled by 2/sum(w) so that a sine of
 * amplitude A on f_j reads A; its DFT K_j kept where it matters (sparse); the bin's value
 * c_j = (1/N) sum_k X_k conj(K_j,k) (Parseval) with X the frame's rectangular-window DFT. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xform_internal.h"

/* A kernel's coefficients below this share of its peak are dropped (Brown and Puckette's
 * 0.0054): -46 dB, past the hann window's first sidelobes. */
#define CQT_SPARSE 0.0054

typedef struct {
    size_t bins;                 /* CQT bins */
    size_t *k0, *len, *off;      /* bin j: coefficients c[off[j] ..] for FFT bins k0[j] .. */
    cpx *c;                      /* conj(K_j,k) / N */
} cqt_state;

static void cqt_fini(xform *x)
{
    cqt_state *q = x->priv;
    if (!q)
        return;
    free(q->k0);
    free(q->len);
    free(q->off);
    free(q->c);
    free(q);
}

/* The bins' frequencies from fmin, B an octave, up to fmax or (default) the last whose
 * kernel's main lobe (f_j (1 + 2/Q)) stays below Nyquist. */
static int cqt_plan_bins(xform *x, double *fmin_out, double *fmax_out, size_t *count, sp_errinfo *ei)
{
    int bpo = x->spec.bands;
    double nyq = x->rate / 2.0, q = 1.0 / (pow(2.0, 1.0 / bpo) - 1.0);
    double fmin = x->spec.fmin < 0 ? XFORM_CQT_DEFAULT_FMIN : x->spec.fmin;
    double fmax = x->spec.fmax > 0 ? x->spec.fmax : nyq / (1.0 + 2.0 / q);
    double need = ceil(q * x->rate / fmin);
    size_t n_need = 16;
    if (bpo < 1 || bpo > XFORM_CQT_MAX_BPO)
        return sp_fail(ei, SP_EINVAL, "cqt: %d bins an octave: must be from 1 to %d", bpo, XFORM_CQT_MAX_BPO);
    if (!(fmin > 0))
        return sp_fail(ei, SP_EINVAL, "cqt: " SP_FIELD("fmin") " must be above 0 Hz");
    if (x->spec.fmax > nyq)
        return sp_fail(ei, SP_EINVAL, "cqt: " SP_FIELD("fmax") " %g Hz is above the Nyquist frequency (%g Hz)",
                       x->spec.fmax, nyq);
    if (fmin > fmax)
        return sp_fail(ei, SP_EINVAL, "cqt: " SP_FIELD("fmin") " %g Hz must be below " SP_FIELD("fmax") " %g Hz", fmin,
                       fmax);
    while ((double)n_need < need && n_need < FFT_MAX_SIZE)
        n_need *= 2;
    if (need > (double)x->n)
        return sp_fail(ei, SP_EINVAL,
                       "cqt: " SP_FIELD("fmin") " %g Hz at %d bins an octave needs N >= %zu (a kernel of %.0f "
                       "samples), not %zu",
                       fmin, bpo, n_need, need, x->n);
    *count = (size_t)floor(bpo * log2(fmax / fmin) + 1e-9) + 1;
    *fmin_out = fmin;
    *fmax_out = fmax;
    return SP_OK;
}

/* Kernel j's DFT by the plan, its coefficients above CQT_SPARSE of its peak (a contiguous
 * run of FFT bins k <= N/2) appended to q. */
static int cqt_kernel(xform *x, cqt_state *q, size_t j, double f, double qf, fft_plan *plan, cpx *buf,
                      size_t *cap)
{
    size_t n = x->n, len = (size_t)lround(qf * x->rate / f), start = (n - len) / 2, k0 = x->bins, k1 = 0;
    double wsum = 0.0, peak = 0.0;
    memset(buf, 0, n * sizeof *buf);
    for (size_t m = 0; m < len; m++)
        wsum += 0.5 - 0.5 * cos(2.0 * XFORM_PI * (double)m / (double)len);
    for (size_t m = 0; m < len; m++) {
        double w = (0.5 - 0.5 * cos(2.0 * XFORM_PI * (double)m / (double)len)) * 2.0 / wsum;
        double ph = 2.0 * XFORM_PI * f * ((double)(start + m) - (double)n / 2.0) / x->rate;
        buf[start + m].re = (float)(w * cos(ph));
        buf[start + m].im = (float)(w * sin(ph));
    }
    if (fft_c2c(plan, buf, buf, 1, 0) != SP_OK)
        return SP_ENOMEM;
    for (size_t k = 0; k < x->bins; k++) {
        double a = hypot(buf[k].re, buf[k].im);
        peak = a > peak ? a : peak;
    }
    for (size_t k = 0; k < x->bins; k++)
        if (hypot(buf[k].re, buf[k].im) >= CQT_SPARSE * peak) {
            k0 = k < k0 ? k : k0;
            k1 = k + 1;
        }
    q->k0[j] = k0;
    q->len[j] = k1 - k0;
    q->off[j] = j ? q->off[j - 1] + q->len[j - 1] : 0;
    if (q->off[j] + q->len[j] > *cap) {
        size_t want = 2 * (q->off[j] + q->len[j]);
        cpx *c = realloc(q->c, want * sizeof *c);
        if (!c)
            return SP_ENOMEM;
        q->c = c;
        *cap = want;
    }
    for (size_t i = 0; i < q->len[j]; i++) { /* conj(K)/N */
        q->c[q->off[j] + i].re = buf[k0 + i].re / (float)n;
        q->c[q->off[j] + i].im = -buf[k0 + i].im / (float)n;
    }
    return SP_OK;
}

static int cqt_params(xform *x, double fmin, double fmax, double qf)
{
    cqt_state *q = x->priv;
    size_t at = (size_t)snprintf(x->params, sizeof x->params,
                                 ", \"bins_per_octave\": %d, \"fmin\": %.10g, \"fmax\": %.10g, \"bins\": %zu, \"q\": "
                                 "%.10g, \"method\": \"spectral kernels on one FFT (Brown-Puckette), hann kernels\", "
                                 "\"values\": \"dBFS\", \"kernel_s_lowest\": %.6g, \"kernel_s_highest\": %.6g",
                                 x->spec.bands, fmin, fmax, q->bins, qf, qf / x->freqs[0], qf / x->freqs[q->bins - 1]);
    return at < sizeof x->params ? SP_OK : SP_ENOMEM;
}

static int cqt_init(xform *x, sp_errinfo *ei)
{
    double fmin = 0.0, fmax = 0.0, qf = 1.0 / (pow(2.0, 1.0 / x->spec.bands) - 1.0);
    size_t count = 0, cap = 0;
    cqt_state *q;
    fft_config fc = fft_config_default();
    fft_plan *plan = NULL;
    cpx *buf = NULL;
    int err = cqt_plan_bins(x, &fmin, &fmax, &count, ei);
    if (err != SP_OK)
        return err;
    if (!(q = calloc(1, sizeof *q)))
        return SP_ENOMEM;
    x->priv = q;
    q->bins = count;
    q->k0 = calloc(count, sizeof *q->k0);
    q->len = calloc(count, sizeof *q->len);
    q->off = calloc(count, sizeof *q->off);
    x->freqs = malloc(count * sizeof *x->freqs);
    buf = malloc(x->n * sizeof *buf);
    fc.backend = FFT_BACKEND_CPU;
    fc.n = x->n;
    fc.max_batch = 1;
    fc.tuning.cpu_threads = 1;
    if (!q->k0 || !q->len || !q->off || !x->freqs || !buf || fft_plan_create(&fc, &plan, ei) != SP_OK) {
        free(buf);
        fft_plan_destroy(plan);
        return SP_ENOMEM;
    }
    for (size_t j = 0; j < count && err == SP_OK; j++) {
        x->freqs[j] = fmin * pow(2.0, (double)j / x->spec.bands);
        err = cqt_kernel(x, q, j, x->freqs[j], qf, plan, buf, &cap);
    }
    free(buf);
    fft_plan_destroy(plan);
    if (err != SP_OK)
        return err;
    for (size_t i = 0; i < x->n; i++) /* the kernels hold their own windows */
        x->wins[0][i] = 1.0f;
    x->width = count;
    return cqt_params(x, fmin, fmax, qf);
}

static void cqt_row(const xform *x, const xform_frame *fr, float *out, float *scratch)
{
    const cqt_state *q = x->priv;
    (void)scratch;
    for (size_t j = 0; j < q->bins; j++) {
        const cpx *z = fr->z[0] + q->k0[j], *c = q->c + q->off[j];
        float re = 0.0f, im = 0.0f;
        for (size_t i = 0; i < q->len[j]; i++) {
            re += z[i].re * c[i].re - z[i].im * c[i].im;
            im += z[i].re * c[i].im + z[i].im * c[i].re;
        }
        out[j] = xform_db((double)re * re + (double)im * im);
    }
}

/* The kernels as a filter bank (fft.h FFT_BANK_CQT): their runs of conj(K)/N on the frames'
 * rectangular-window spectra. */
static int cqt_bank(const xform *x, fft_bank *b, void **mem)
{
    const cqt_state *q = x->priv;
    if (xform_bank_runs(b, q->bins, mem) != SP_OK)
        return SP_ENOMEM;
    for (size_t j = 0; j < q->bins; j++) {
        ((uint32_t *)b->k0)[j] = (uint32_t)q->k0[j];
        ((uint32_t *)b->len)[j] = (uint32_t)q->len[j];
        ((uint32_t *)b->off)[j] = (uint32_t)q->off[j];
    }
    b->w = &q->c[0].re;
    b->nw = q->off[q->bins - 1] + q->len[q->bins - 1];
    b->window = x->wins[0];
    b->post = FFT_BANK_CQT;
    return SP_OK;
}

const xform_ops xform_cqt_ops = {
    .kind = XFORM_CQT, .name = "cqt", .init = cqt_init, .row = cqt_row, .fini = cqt_fini, .db = 1,
    .bank = cqt_bank,
};
