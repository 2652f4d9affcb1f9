/* the reassigned spectrogram (docs/transforms.md "Reassignment"; Auger and Flandrin): three
 * transforms of each frame, with the window h, t*h (t in samples from the window's centre)
 * and dh/dt (h differentiated spectrally: exact for the periodic windows). Bin k moves to
 *   f = k rate/N - Im(X_dh conj(X_h)) / |X_h|^2 * rate / (2 pi)
 *   t = t_frame + Re(X_th conj(X_h)) / |X_h|^2 / rate
 * and keeps its level (dBFS); a bin with X_h = 0 keeps its centre. Row: (bins, 3). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xform_internal.h"
#include "xform_vec.h"

/* h' by the FFT: H_m times i w_m (w_m = 2 pi m/N, m from -N/2 .. N/2-1; 0 at N/2), back. */
static int derivative(const float *h, size_t n, float *out)
{
    fft_config fc = fft_config_default();
    fft_plan *plan = NULL;
    cpx *buf = malloc(n * sizeof *buf);
    int err = SP_ENOMEM;
    fc.backend = FFT_BACKEND_CPU;
    fc.n = n;
    fc.max_batch = 1;
    fc.tuning.cpu_threads = 1;
    if (!buf || fft_plan_create(&fc, &plan, NULL) != SP_OK)
        goto done;
    for (size_t i = 0; i < n; i++) {
        buf[i].re = h[i];
        buf[i].im = 0.0f;
    }
    if ((err = fft_c2c(plan, buf, buf, 1, 0)) != SP_OK)
        goto done;
    for (size_t m = 0; m < n; m++) {
        double w = m < n / 2 ? 2.0 * XFORM_PI * (double)m / (double)n
                 : m == n / 2 ? 0.0 : 2.0 * XFORM_PI * ((double)m - (double)n) / (double)n;
        float re = buf[m].re;
        buf[m].re = (float)(-w * buf[m].im);
        buf[m].im = (float)(w * re);
    }
    if ((err = fft_c2c(plan, buf, buf, 1, 1)) != SP_OK)
        goto done;
    for (size_t i = 0; i < n; i++)
        out[i] = buf[i].re;
done:
    fft_plan_destroy(plan);
    free(buf);
    return err;
}

static int reassign_init(xform *x, sp_errinfo *ei)
{
    size_t n = x->n;
    double sum = 0.0, moment = 0.0, *centre;
    (void)ei;
    if (!(x->wins[1] = malloc(n * sizeof *x->wins[1])) || !(x->wins[2] = malloc(n * sizeof *x->wins[2])) ||
        !(x->freqs = malloc(x->bins * sizeof *x->freqs)) || !(centre = malloc(sizeof *centre)))
        return SP_ENOMEM;
    /* t from the window's centroid: n/2 for the periodic windows, L/2 for the L-point
     * window of a short input (docs/design.md "Frames": that frame's time is L/2's) */
    for (size_t i = 0; i < n; i++) {
        sum += x->wins[0][i];
        moment += (double)i * x->wins[0][i];
    }
    *centre = sum != 0.0 ? moment / sum : (double)n / 2.0;
    for (size_t i = 0; i < n; i++)
        x->wins[1][i] = (float)(((double)i - *centre) * x->wins[0][i]);
    if (derivative(x->wins[0], n, x->wins[2]) != SP_OK) {
        free(centre);
        return SP_ENOMEM;
    }
    x->priv = centre;
    x->nwin = 3;
    x->depth = 3;
    x->width = 3 * x->bins;
    for (size_t k = 0; k < x->bins; k++)
        x->freqs[k] = (double)k * x->bin_hz;
    snprintf(x->params, sizeof x->params,
             ", \"method\": \"Auger-Flandrin: windows h, t*h, dh/dt\", "
             "\"values\": [\"freq_hz\", \"time_s\", \"dBFS\"]");
    return SP_OK;
}

static void reassign_fini(xform *x)
{
    free(x->priv);
}

/* Bin k's reassigned frequency and time offset (s) and power, from the split spectra of h
 * (hr, hi), t*h (tr, ti) and dh/dt (dr, di): f into dr, dt into tr, p into hi. */
#define REASSIGN_BIN(re, im, thr, thi, dhr, dhi, kf, s2, f, dt, p)                                    \
    d = re * re + im * im;                                                                         \
    inv = 1.0f / d;                                 /* inf where d = 0: that bin keeps its centre */ \
    f = kf - (dhi * re - dhr * im) * inv * fs;     /* Im(X_dh conj X_h) */                          \
    dt = (thr * re + thi * im) * inv * ts;         /* Re(X_th conj X_h) */                          \
    p = d * s2

static size_t reassign_bins(const xform *x, float *hr, float *hi, float *tr, const float *ti, float *dr,
                            const float *di)
{
    const float fs = (float)(x->rate / (2.0 * XFORM_PI)), ts = (float)(1.0 / x->rate), bin = (float)x->bin_hz;
    const float fl = (float)XFORM_POWER_FLOOR;
    size_t k = 0;
#ifdef XFORM_VW
    const xv lo = (xv){0} + fl, zero = {0};
    for (; k + XFORM_VW <= x->bins; k += XFORM_VW) {
        xv re = xv_ld(hr + k), im = xv_ld(hi + k), d, inv, f, dt, p;
        xv kf = ((xv){0, 1, 2, 3} + (float)k) * bin;
        REASSIGN_BIN(re, im, xv_ld(tr + k), xv_ld(ti + k), xv_ld(dr + k), xv_ld(di + k), kf, xv_ld(x->scale2 + k), f,
                     dt, p);
        xvi pos = d > zero;
        xv_st(dr + k, xv_pick(pos, f, kf));
        xv_st(tr + k, xv_pick(pos, dt, zero));
        xv_st(hi + k, xv_pick(p > lo, p, lo));
    }
#endif
    for (; k < x->bins; k++) {
        float re = hr[k], im = hi[k], d, inv, f, dt, p, kf = (float)k * bin;
        REASSIGN_BIN(re, im, tr[k], ti[k], dr[k], di[k], kf, x->scale2[k], f, dt, p);
        dr[k] = d > 0.0f ? f : kf;
        tr[k] = d > 0.0f ? dt : 0.0f;
        hi[k] = p > fl ? p : fl;
    }
    return k;
}

/* The three transforms, each bin's values, the levels' dB; the row: in float but for the
 * frame's time (a long file's seconds need double's digits before the offset is added). */
static void reassign_frame(const xform *x, fft_plan *plan, const float *frame, double t, float *out,
                           float *scratch)
{
    const size_t bins = x->bins;
    float *hr = scratch, *hi = hr + bins, *tr = hi + bins, *ti = tr + bins, *dr = ti + bins, *di = dr + bins;
    fft_r2c_split(plan, frame, x->wins[0], hr, hi);
    fft_r2c_split(plan, frame, x->wins[1], tr, ti);
    fft_r2c_split(plan, frame, x->wins[2], dr, di);
    size_t k = 0;
    reassign_bins(x, hr, hi, tr, ti, dr, di);
    fft_power_db(plan, hi, bins);
#ifdef XFORM_VW
    for (const xvd tv = {t, t}; k + XFORM_VW <= bins; k += XFORM_VW) { /* 4 bins: 3 vectors of (f, t, dB) */
        xv f = xv_ld(dr + k), dt = xv_ld(tr + k), lv = xv_ld(hi + k);
        xvd t01 = tv + __builtin_convertvector((xv2){dt[0], dt[1]}, xvd);
        xvd t23 = tv + __builtin_convertvector((xv2){dt[2], dt[3]}, xvd);
        xv2 a = __builtin_convertvector(t01, xv2), b = __builtin_convertvector(t23, xv2);
        xv tt = {a[0], a[1], b[0], b[1]};
        xv ft01 = XV_SHUFFLE2(f, tt, 0, 4, 1, 5), ft23 = XV_SHUFFLE2(f, tt, 2, 6, 3, 7);
        xv_st(out + 3 * k, XV_SHUFFLE2(ft01, lv, 0, 1, 4, 2));
        xv_st(out + 3 * k + 4, XV_SHUFFLE2(XV_SHUFFLE2(ft01, lv, 3, 5, 0, 0), ft23, 0, 1, 4, 5));
        xv_st(out + 3 * k + 8, XV_SHUFFLE2(lv, ft23, 2, 6, 7, 3));
    }
#endif
    for (; k < bins; k++) {
        out[3 * k] = dr[k];
        out[3 * k + 1] = (float)(t + (double)tr[k]);
        out[3 * k + 2] = hi[k];
    }
}

static size_t reassign_scratch(const xform *x)
{
    return 6 * x->bins;
}

/* The three windows as a bank (fft.h FFT_BANK_REASSIGN): a GPU plan makes the same rows,
 * their times relative to the frames' (xform_rows adds those). */
static int reassign_bank(const xform *x, fft_bank *b, void **mem)
{
    float *w = malloc(3 * x->n * sizeof *w);
    memset(b, 0, sizeof *b);
    *mem = w;
    if (!w)
        return SP_ENOMEM;
    for (int v = 0; v < 3; v++)
        memcpy(w + (size_t)v * x->n, x->wins[v], x->n * sizeof *w);
    b->window = w;
    b->post = FFT_BANK_REASSIGN;
    b->rate = x->rate;
    return SP_OK;
}

const xform_ops xform_reassign_ops = {
    .kind = XFORM_REASSIGN, .name = "reassign", .init = reassign_init, .frame_row = reassign_frame,
    .scratch_floats = reassign_scratch, .fini = reassign_fini, .bank = reassign_bank,
};
