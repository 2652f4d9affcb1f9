/* The transforms' shared parts (not a public header): the object every transform fills,
 * the row of the table each transform file provides, and helpers they share. */
#ifndef SPECTRO_XFORM_INTERNAL_H
#define SPECTRO_XFORM_INTERNAL_H

#include "xform.h"

#define XFORM_PI 3.14159265358979323846
#define XFORM_MAX_WINDOWS 3 /* h, t*h, dh/dt: reassignment's */
#define XFORM_PARTS_MAX 8 /* SP_PAR_MAX: xform_rows' parts */
#define XFORM_POWER_FLOOR 1e-20 /* (1e-10)^2: the dB floor of docs/design.md "Levels (dBFS)" */

typedef struct {
    xform_kind kind;
    const char *name;
    /* fills x->width, depth, freqs, the windows past the analysis one, priv and the json
     * members after "kind" (x->params); the spec is x->spec */
    int (*init)(xform *x, sp_errinfo *ei);
    /* the floats of scratch frame_row gets (NULL: none) */
    size_t (*scratch_floats)(const xform *x);
    /* one frame's row, out[0 .. width), from its n samples, transformed by the transform
     * itself on the part's cpu plan (fft_r2c_power, fft_r2c_split: the window in the FFT's
     * first pass, the values in its last one); t the frame's centre (s). NULL where `rows`
     * makes the rows (the constant-Q) */
    void (*frame_row)(const xform *x, fft_plan *plan, const float *frame, double t, float *out, float *scratch);
    void (*fini)(xform *x);
    int db;                      /* the values are dB levels */
    /* Optional: the transform as a filter bank (fft.h "transform reductions") that a GPU
     * backend runs beside its FFT; its run arrays from xform_bank_runs (*mem, freed by the
     * caller once the bank is on the device). SP_ENOMEM. */
    int (*bank)(const xform *x, fft_bank *b, void **mem);
    /* Optional: the host's rows of xform_rows made by the transform itself (the constant-Q's
     * octave-wise multirate rows, over the call's span) in place of a FFT of each frame. */
    int (*rows)(xform *x, const float *sig, size_t hop, size_t nframes, float *out);
} xform_ops;

struct xform {
    const xform_ops *ops;
    xform_spec spec;
    size_t n, bins;
    double rate, bin_hz;
    float *scale;                /* bins: a_k = scale[k]·|X_k| (docs/design.md "Levels (dBFS)") */
    float *scale2;               /* bins: p_k = scale2[k]·|X_k|^2 (scale², rounded once) */
    float *wins[XFORM_MAX_WINDOWS];
    int nwin;                    /* windows[0] is the analysis window, or the transform's own */
    size_t width, depth;
    double *freqs;               /* width/depth values, or NULL */
    char params[1024];            /* the sidecar's transform members after "name" */
    char *json;
    void *priv;
    struct xform_work *work[XFORM_PARTS_MAX]; /* xform_rows' parts' plans and buffers */
    fft_plan *plan;              /* xform_use_plan: the plan whose device reduces the rows */
    fft_bank_handle *bank;       /* ... its bank, or NULL: the rows are made here */
    size_t plan_hop;
};

/* b->k0, len, off: rows uint32 each, in one block *mem (b zeroed first). SP_ENOMEM. */
int xform_bank_runs(fft_bank *b, size_t rows, void **mem);

/* The rows of the table (one file each). */
extern const xform_ops xform_mel_ops, xform_mfcc_ops, xform_chroma_ops, xform_cqt_ops, xform_reassign_ops;

/* 10 log10(max(p, floor)). */
float xform_db(double p);

/* Mel filter bank (xform_mel.c), shared with MFCC: the sparse weights of `bands` bands. */
typedef struct {
    int bands;
    size_t *k0, *len;            /* band b: weights w[off[b] .. off[b]+len[b]) for bins k0[b] .. */
    size_t *off;
    float *w;
    /* the same bands for the host's vectors: each run widened with zero weights to a
     * multiple of 4 bins (within the spectrum) where the spectrum holds that many */
    size_t *vk0, *vlen, *voff;
    float *vw;
} xform_melbank;
int xform_melbank_make(xform_melbank *mb, int bands, double fmin, double fmax, size_t n, double rate,
                       double *centres, sp_errinfo *ei);
void xform_melbank_free(xform_melbank *mb);
/* out[b] = max(sum_k W_bk max(p_k, floor), floor): the bands' powers (fft_power_db: dB) */
void xform_melbank_power(const xform_melbank *mb, const float *p, float *out);

/* The constant-Q's halfband decimators (xform_cqt_dec.c; docs/transforms.md "Constant-Q
 * (octave-wise multirate)"):
 * a linear-phase FIR of 4·pairs − 1 taps whose even taps are zero but the centre, made by
 * Kaiser's window for about 80 dB of stopband; out[m] = centre·in[2m] + Σ_i g_i·(in[2m−2i−1]
 * + in[2m+2i+1]). */
#define XFORM_HB_MAX_PAIRS 24
typedef struct {
    int pairs;
    float centre;
    float g[XFORM_HB_MAX_PAIRS];
} xform_halfband;
/* The stage for a passband to fp and a stopband from 1/2 − fp (fractions of its input rate);
 * SP_EINVAL when fp leaves too narrow a transition. */
int xform_halfband_design(xform_halfband *h, double fp);
/* count outputs of one stage: out[m] from in[2m − (2·pairs − 1) .. 2m + 2·pairs − 1]. */
void xform_halfband_run(const xform_halfband *h, const float *in, float *out, size_t count, int avx);
/* out = {Σ y0_i·wr_i, Σ y0_i·wi_i, Σ y1_i·wr_i, Σ y1_i·wi_i}, i < len (a multiple of 16), each
 * in a fixed order: two frames' sums at once, each the same as alone. */
void xform_cqt_dot2(const float *y0, const float *y1, const float *wr, const float *wi, size_t len, float *out,
                    int avx);
/* db[i] = 10 log10(max(p[i], 1e-20)) within a few float roundings, i < count (a multiple
 * of 8). */
void xform_cqt_db(const float *p, float *db, size_t count, int avx);
/* The loops' version for this machine, passed as `avx` above: 0 plain x86-64, 1 AVX (the
 * same bits as 0), 2 AVX2 with FMA (products and sums rounded once). */
int xform_cqt_avx(void);

#endif
