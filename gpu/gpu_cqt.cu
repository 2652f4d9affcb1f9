/* gpu_cqt: the octave-wise multirate constant-Q on the device (fft.h FFT_BANK_CQT_OCT,
 * docs/transforms.md "Constant-Q (octave-wise multirate)"), the host's method (src/xform/
 * xform_cqt.c) with its decimators and weights:
 *
 *   signal (device) ─→ per stage, one launch over the span: halfband FIR and decimation by 2
 *   (a thread an output, the host's FMA order) ─→ rows: a warp a frame, its rows in turn,
 *   each kernel's weights dotted with its level's samples from the frame's start ─→ dB
 *
 * The frames fall in classes whose starts lie 2^stages apart, as on the host: each class's
 * span is decimated once, so that every frame reads its level on a grid from its own first
 * sample. No FFT: the plan's window and FFT are not used. */
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "gpu_plan_internal.h"

#define CQT_LEVELS 16 /* at most stages + 1 */
#define CQT_SLACK 32  /* zeros past each level: the padded runs read into them */
#define CQT_THREADS 128

struct cqt_hb {
    int pairs;
    float centre;
    float g[FFT_BANK_HB_PAIRS];
};

struct cqt_levels {
    const float *p[CQT_LEVELS]; /* level d's first sample (lo_d) */
};

struct gpu_cqt {
    unsigned rows, stages;
    cqt_hb hb[CQT_LEVELS];   /* hb[i]: level i-1 to i */
    unsigned *d_runs;        /* k0, len, off, level: rows each */
    float2 *d_w;
    float *d_lev, *d_in, *d_out;
    size_t lev_cap, in_cap, out_cap; /* floats */
};

namespace {

__global__ void cqt_hb_kernel(const float *__restrict__ in, float *__restrict__ out, size_t count, cqt_hb h)
{
    const size_t m = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (m >= count)
        return;
    const float *c = in + 2 * m;
    float acc = __fmul_rn(h.centre, c[0]);
    /* the taps by constant indices: a parameter array indexed at run time would be copied
     * to each thread's local memory */
#pragma unroll
    for (int i = 0; i < FFT_BANK_HB_PAIRS; i++)
        if (i < h.pairs)
            acc = __fmaf_rn(h.g[i], __fadd_rn(c[-2 * i - 1], c[2 * i + 1]), acc);
    out[m] = acc;
}

/* A warp a frame (frame k of the class, at k*stride in the span), its rows one after another:
 * the lanes read a row's samples and weights side by side (coalesced), the sums meet by
 * shuffles, and lane r % 32 writes row r to out[k*row_step*rows + r]. */
__global__ void cqt_rows_kernel(cqt_levels lev, const unsigned *__restrict__ runs, const float2 *__restrict__ w,
                                unsigned rows, size_t nframes, size_t stride, size_t row_step,
                                float *__restrict__ out)
{
    __shared__ const float *lp[CQT_LEVELS]; /* the levels, indexed by each row's */
    const size_t k = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const unsigned lane = threadIdx.x & 31u;
#pragma unroll
    for (int i = 0; i < CQT_LEVELS; i++) /* constant indices into the parameter (as above) */
        if (threadIdx.x == (unsigned)i)
            lp[i] = lev.p[i];
    __syncthreads();
    if (k >= nframes) /* whole warps: k is the warp's */
        return;
    const size_t s = k * stride;
    float *o = out + k * row_step * rows;
    for (unsigned r = 0; r < rows; r++) {
        const unsigned k0 = __ldg(runs + r), len = __ldg(runs + rows + r), off = __ldg(runs + 2 * rows + r),
                       d = __ldg(runs + 3 * rows + r);
        const float *y = lp[d] + (s >> d) + k0;
        const float2 *c = w + off;
        float re = 0.0f, im = 0.0f;
        for (unsigned i = lane; i < len; i += 32) {
            const float v = y[i];
            const float2 ci = __ldg(c + i);
            re = __fmaf_rn(v, ci.x, re);
            im = __fmaf_rn(v, ci.y, im);
        }
        for (int m = 16; m > 0; m >>= 1) {
            re += __shfl_xor_sync(0xffffffffu, re, m);
            im += __shfl_xor_sync(0xffffffffu, im, m);
        }
        if (lane == (r & 31u)) {
            const double p = (double)re * re + (double)im * im;
            o[r] = (float)(10.0 * log10(p > 1e-20 ? p : 1e-20));
        }
    }
}

int grow(float **d, size_t *cap, size_t need, const char *what, sp_errinfo *ei)
{
    if (need <= *cap)
        return SP_OK;
    cudaFree(*d); /* waits for the work that uses it */
    *d = NULL;
    *cap = 0;
    int err = gpu_malloc((void **)d, need * sizeof(float), what, ei);
    if (err == SP_OK)
        *cap = need;
    return err;
}

size_t gcd_size(size_t a, size_t b)
{
    while (b) {
        size_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* One class's span: its levels, then its frames' rows. */
int cqt_span(gpu_plan *gp, gpu_cqt *c, const float *d_anchor, size_t len, size_t nframes, size_t stride,
             float *d_rows, size_t row_step, sp_errinfo *ei)
{
    cudaStream_t st = gp->stream[0];
    long lo[CQT_LEVELS], hi[CQT_LEVELS];
    size_t at[CQT_LEVELS], need = 0;
    cqt_levels lev = {};
    lo[0] = 0;
    hi[0] = (long)len - 1;
    for (unsigned i = 1; i <= c->stages; i++) { /* the host's chain (xform_cqt.c cqt_chain) */
        const long h = 2L * c->hb[i].pairs - 1;
        lo[i] = (lo[i - 1] + h + 1) / 2;
        hi[i] = hi[i - 1] - h >= 0 ? (hi[i - 1] - h) / 2 : -1;
        at[i] = need;
        need += (size_t)std::max(hi[i] - lo[i] + 1, 0L) + CQT_SLACK;
    }
    int err = grow(&c->d_lev, &c->lev_cap, std::max<size_t>(need, 1), "constant-Q levels", ei);
    if (err != SP_OK)
        return err;
    lev.p[0] = d_anchor;
    for (unsigned i = 1; i <= c->stages; i++) {
        const size_t count = (size_t)std::max(hi[i] - lo[i] + 1, 0L);
        float *out = c->d_lev + at[i];
        GPU_CK(cudaMemsetAsync(out + count, 0, CQT_SLACK * sizeof(float), st));
        if (count) {
            cqt_hb_kernel<<<(unsigned)((count + 255) / 256), 256, 0, st>>>(lev.p[i - 1] + (2 * lo[i] - lo[i - 1]), out,
                                                                           count, c->hb[i]);
            GPU_CK(cudaGetLastError());
        }
        lev.p[i] = out;
    }
    const size_t warps = CQT_THREADS / 32;
    cqt_rows_kernel<<<(unsigned)((nframes + warps - 1) / warps), CQT_THREADS, 0, st>>>(lev, c->d_runs, c->d_w, c->rows,
                                                                                    nframes, stride, row_step, d_rows);
    GPU_CK(cudaGetLastError());
    return SP_OK;
}

} // namespace

int gpu_cqt_create(const gpu_plan *gp, const fft_bank *fb, gpu_cqt **out, sp_errinfo *ei)
{
    gpu_cqt *c;
    unsigned *runs;
    int err;
    (void)gp;
    *out = NULL;
    if (fb->stages >= CQT_LEVELS)
        return sp_fail(ei, SP_EUNSUPPORTED, "constant-Q: %zu decimators (at most %d here)", fb->stages,
                       CQT_LEVELS - 1);
    if (!(c = (gpu_cqt *)calloc(1, sizeof *c)) || !(runs = (unsigned *)malloc(4 * fb->rows * sizeof *runs))) {
        free(c);
        return sp_fail(ei, SP_ENOMEM, "out of memory");
    }
    c->rows = (unsigned)fb->rows;
    c->stages = (unsigned)fb->stages;
    for (unsigned i = 1; i <= c->stages; i++) {
        const float *t = fb->hb + (size_t)(i - 1) * FFT_BANK_HB_FLOATS;
        c->hb[i].pairs = (int)t[0];
        c->hb[i].centre = t[1];
        memcpy(c->hb[i].g, t + 2, sizeof c->hb[i].g);
    }
    for (size_t r = 0; r < fb->rows; r++) {
        runs[r] = fb->k0[r];
        runs[fb->rows + r] = fb->len[r];
        runs[2 * fb->rows + r] = fb->off[r];
        runs[3 * fb->rows + r] = fb->level[r];
    }
    err = gpu_malloc((void **)&c->d_runs, 4 * fb->rows * sizeof *runs, "constant-Q rows", ei);
    if (err == SP_OK && (err = gpu_malloc((void **)&c->d_w, std::max<size_t>(fb->nw, 1) * sizeof(float2),
                                          "constant-Q weights", ei)) == SP_OK) {
        cudaError_t e = cudaMemcpy(c->d_runs, runs, 4 * fb->rows * sizeof *runs, cudaMemcpyHostToDevice);
        if (e == cudaSuccess)
            e = cudaMemcpy(c->d_w, fb->w, fb->nw * sizeof(float2), cudaMemcpyHostToDevice);
        if (e != cudaSuccess)
            err = gpu_fail_cuda(ei, (int)e, "cudaMemcpy(constant-Q bank)");
    }
    free(runs);
    if (err != SP_OK) {
        gpu_cqt_destroy(c);
        return err;
    }
    *out = c;
    return SP_OK;
}

void gpu_cqt_destroy(gpu_cqt *c)
{
    if (!c)
        return;
    cudaFree(c->d_runs);
    cudaFree(c->d_w);
    cudaFree(c->d_lev);
    cudaFree(c->d_in);
    cudaFree(c->d_out);
    free(c);
}

int gpu_cqt_rows_device(gpu_plan *gp, gpu_cqt *c, const float *d_sig, size_t nframes, float *d_rows, sp_errinfo *ei)
{
    const size_t hop = gp->hop, step = (size_t)1 << c->stages;
    size_t classes = step / gcd_size(hop, step);
    int err = SP_OK;
    classes = std::min(classes, nframes);
    for (size_t k = 0; k < classes && err == SP_OK; k++) {
        const size_t nf = (nframes - k + classes - 1) / classes, stride = classes * hop;
        err = cqt_span(gp, c, d_sig + k * hop, (nf - 1) * stride + gp->n, nf, stride, d_rows + k * c->rows, classes,
                       ei);
    }
    return err;
}

int gpu_cqt_rows(gpu_plan *gp, gpu_cqt *c, const float *sig, size_t nframes, float *rows, sp_errinfo *ei)
{
    const size_t len = (nframes - 1) * gp->hop + gp->n, width = c->rows;
    int err;
    if (!nframes)
        return SP_OK;
    if ((err = grow(&c->d_in, &c->in_cap, len, "constant-Q signal", ei)) != SP_OK ||
        (err = grow(&c->d_out, &c->out_cap, nframes * width, "constant-Q rows", ei)) != SP_OK)
        return err;
    GPU_CK(cudaMemcpyAsync(c->d_in, sig, len * sizeof(float), cudaMemcpyHostToDevice, gp->stream[0]));
    if ((err = gpu_cqt_rows_device(gp, c, c->d_in, nframes, c->d_out, ei)) != SP_OK)
        return err;
    GPU_CK(cudaMemcpyAsync(rows, c->d_out, nframes * width * sizeof(float), cudaMemcpyDeviceToHost, gp->stream[0]));
    return SP_OK;
}
