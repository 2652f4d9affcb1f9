/* chroma (docs/transforms.md): 12 pitch classes from C, A4 = 440 Hz, librosa's
 * filters.chroma (ctroct 5, octwidth 2, columns L2-normalised) on the dBFS power spectrum,
 * each frame divided by its maximum (chroma_stft's norm=inf). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xform_internal.h"
#include "xform_vec.h"

#define CHROMA_N 12
#define CHROMA_A440 440.0
#define CHROMA_CTROCT 5.0
#define CHROMA_OCTWIDTH 2.0

/* Each bin's weights below CHROMA_SPARSE of its largest are zeroed, and each class sums
 * only over the run of bins where it has weights (lo .. hi). The values move by less than
 * 1e-6 of a frame's maximum. */
#define CHROMA_SPARSE 1e-7
#define CHROMA_LANES 8 /* independent partial sums, two vectors (xform_vec.h) */

typedef struct {
    float *w;                    /* CHROMA_N x bins */
    size_t lo[CHROMA_N], hi[CHROMA_N];
} chroma_state;

static void chroma_sparse(xform *x, float *w)
{
    chroma_state *cs = calloc(1, sizeof *cs);
    if (!cs)
        return; /* chroma_init sees x->priv unchanged and fails */
    for (size_t k = 0; k < x->bins; k++) {
        float top = 0.0f;
        for (int c = 0; c < CHROMA_N; c++)
            top = w[(size_t)c * x->bins + k] > top ? w[(size_t)c * x->bins + k] : top;
        for (int c = 0; c < CHROMA_N; c++)
            if (w[(size_t)c * x->bins + k] < CHROMA_SPARSE * top)
                w[(size_t)c * x->bins + k] = 0.0f;
    }
    for (int c = 0; c < CHROMA_N; c++) {
        const float *wc = w + (size_t)c * x->bins;
        size_t lo = x->bins, hi = 0;
        for (size_t k = 0; k < x->bins; k++)
            if (wc[k] != 0.0f) {
                lo = k < lo ? k : lo;
                hi = k + 1;
            }
        cs->lo[c] = lo < hi ? lo : 0;
        cs->hi[c] = lo < hi ? hi : 0;
    }
    cs->w = w;
    x->priv = cs;
}

/* A4 at the spec's tuning (semitones; librosa's A440 * 2^(tuning/12)). */
static double chroma_a4(const xform_spec *spec)
{
    return CHROMA_A440 * pow(2.0, spec->tuning / CHROMA_N);
}

/* The weights, CHROMA_N x bins, as librosa builds them over the n bins of the full circle
 * (the bins above n/2 only take part in no column's normalisation, which is per column). */
static int chroma_init(xform *x, sp_errinfo *ei)
{
    size_t n = x->n, bins = x->bins;
    double a4 = chroma_a4(&x->spec), *frq, *bw;
    float *w;
    if (!(fabs(x->spec.tuning) <= 0.5))
        return sp_fail(ei, SP_EINVAL, "chroma: tuning %g: not within -0.5 .. 0.5 semitone", x->spec.tuning);
    frq = malloc(n * sizeof *frq);
    bw = malloc(n * sizeof *bw);
    w = malloc(CHROMA_N * bins * sizeof *w);
    if (!frq || !bw || !w || !(x->freqs = malloc(CHROMA_N * sizeof *x->freqs))) {
        free(frq), free(bw), free(w);
        return SP_ENOMEM;
    }
    /* bin k's position in chroma bins (12 * octaves above A440/16); bin 0 is made 1.5
     * octaves below bin 1 */
    for (size_t k = 1; k < n; k++)
        frq[k] = CHROMA_N * log2((double)k * x->rate / (double)n / (a4 / 16.0));
    frq[0] = CHROMA_N * log2(x->rate / (double)n / (a4 / 16.0)) - 1.5 * CHROMA_N;
    for (size_t k = 0; k + 1 < n; k++)
        bw[k] = frq[k + 1] - frq[k] > 1.0 ? frq[k + 1] - frq[k] : 1.0;
    bw[n - 1] = 1.0;
    for (size_t k = 0; k < bins; k++) {
        double col[CHROMA_N], norm = 0.0;
        double oct = exp(-0.5 * pow((frq[k] / CHROMA_N - CHROMA_CTROCT) / CHROMA_OCTWIDTH, 2.0));
        for (int c = 0; c < CHROMA_N; c++) {
            double d = frq[k] - c + 6.0; /* to -6 .. 6, as numpy's floor remainder */
            d = d - CHROMA_N * floor(d / CHROMA_N) - 6.0;
            col[c] = exp(-0.5 * pow(2.0 * d / bw[k], 2.0));
            norm += col[c] * col[c];
        }
        norm = sqrt(norm);
        /* librosa's rows start at A; rolled by -3 they start at C */
        for (int c = 0; c < CHROMA_N; c++)
            w[(size_t)((c + CHROMA_N - 3) % CHROMA_N) * bins + k] = (float)(col[c] / norm * oct);
    }
    free(frq);
    free(bw);
    x->priv = w;
    chroma_sparse(x, w);
    if (x->priv == w) { /* chroma_sparse found no memory */
        free(w);
        x->priv = NULL;
        return SP_ENOMEM;
    }
    /* C4 .. B4 at A4 = 440 Hz whatever the tuning (the sidecar's a4_hz has it): the
     * columns are named before --tuning auto's estimate */
    for (int c = 0; c < CHROMA_N; c++)
        x->freqs[c] = CHROMA_A440 * pow(2.0, (c - 9) / 12.0);
    x->width = CHROMA_N;
    snprintf(x->params, sizeof x->params,
             ", \"a4_hz\": %.10g, \"tuning\": %.10g%s, \"ctroct\": %g, \"octwidth\": %g, \"norm\": \"max\", \"classes\": "
             "[\"C\", \"C#\", \"D\", \"D#\", \"E\", \"F\", \"F#\", \"G\", \"G#\", \"A\", \"A#\", \"B\"]",
             a4, x->spec.tuning, x->spec.tuning_auto ? ", \"tuning_auto\": true" : "",
             CHROMA_CTROCT, CHROMA_OCTWIDTH);
    return SP_OK;
}

static void chroma_fini(xform *x)
{
    chroma_state *cs = x->priv;
    if (cs)
        free(cs->w);
    free(cs);
}

static size_t chroma_scratch(const xform *x)
{
    return x->bins;
}

/* The frame's power spectrum with its floor (docs/transforms.md: p_k, at least 1e-20),
 * then each class's weighted sum and the frame's maximum. */
static void chroma_frame(const xform *x, fft_plan *plan, const float *frame, double t, float *out, float *scratch)
{
    const chroma_state *cs = x->priv;
    const float fl = (float)XFORM_POWER_FLOOR;
    double v[CHROMA_N], top = 0.0;
    size_t i = 0;
    (void)t;
    fft_r2c_power(plan, frame, x->wins[0], x->scale2, scratch);
#ifdef XFORM_VW
    for (const xv lo = (xv){0} + fl; i + XFORM_VW <= x->bins; i += XFORM_VW)
        xv_st(scratch + i, xv_max(xv_ld(scratch + i), lo));
#endif
    for (; i < x->bins; i++)
        scratch[i] = scratch[i] > fl ? scratch[i] : fl;
    for (int c = 0; c < CHROMA_N; c++) {
        const float *wc = cs->w + (size_t)c * x->bins;
        float lane[CHROMA_LANES] = {0};
        size_t k = cs->lo[c];
        double s = 0.0;
#ifdef XFORM_VW
        xv l0 = {0}, l1 = {0}; /* lanes 0-3 and 4-7: the same sums as the loop below */
        for (; k + CHROMA_LANES <= cs->hi[c]; k += CHROMA_LANES) {
            l0 += xv_ld(wc + k) * xv_ld(scratch + k);
            l1 += xv_ld(wc + k + 4) * xv_ld(scratch + k + 4);
        }
        xv_st(lane, l0);
        xv_st(lane + 4, l1);
#endif
        for (; k + CHROMA_LANES <= cs->hi[c]; k += CHROMA_LANES)
            for (int j = 0; j < CHROMA_LANES; j++)
                lane[j] += wc[k + (size_t)j] * scratch[k + (size_t)j];
        for (; k < cs->hi[c]; k++)
            s += (double)(wc[k] * scratch[k]);
        for (int j = 0; j < CHROMA_LANES; j++)
            s += (double)lane[j];
        v[c] = s;
        top = s > top ? s : top;
    }
    for (int c = 0; c < CHROMA_N; c++)
        out[c] = top > 0 ? (float)(v[c] / top) : 0.0f;
}

/* The classes as a filter bank (fft.h): class c's run lo .. hi of its row of weights. */
static int chroma_bank(const xform *x, fft_bank *b, void **mem)
{
    const chroma_state *cs = x->priv;
    if (xform_bank_runs(b, CHROMA_N, mem) != SP_OK)
        return SP_ENOMEM;
    for (int c = 0; c < CHROMA_N; c++) {
        ((uint32_t *)b->k0)[c] = (uint32_t)cs->lo[c];
        ((uint32_t *)b->len)[c] = (uint32_t)(cs->hi[c] - cs->lo[c]);
        ((uint32_t *)b->off)[c] = (uint32_t)((size_t)c * x->bins + cs->lo[c]);
    }
    b->w = cs->w;
    b->nw = CHROMA_N * x->bins;
    b->post = FFT_BANK_MAXNORM;
    return SP_OK;
}

const xform_ops xform_chroma_ops = {
    .kind = XFORM_CHROMA, .name = "chroma", .init = chroma_init, .frame_row = chroma_frame,
    .scratch_floats = chroma_scratch, .fini = chroma_fini, .bank = chroma_bank,
};
