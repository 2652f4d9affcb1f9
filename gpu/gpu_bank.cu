/* gpu_bank: the transforms' filter banks beside the FFT (fft.h "transform reductions",
 * docs/transforms.md "Where it runs"): mel, MFCC and chroma on the device.
 *
 * A sub-batch of frames goes through two kernels on a slot's stream: the fused short-time
 * kernel with power output (fused_stft_power: frames windowed from the signal, real FFT,
 * p_k = max(a_k^2, 1e-20)) into the slot's work buffer, then bank_kernel, one block a frame:
 * the frame's power row into shared memory, each warp a row's weighted sum over its run of
 * bins (a shuffle tree), then the post step (dB; dB and the DCT-II; division by the frame's
 * maximum). Only the rows leave the device. Sub-batches alternate between the plan's two
 * slots, so that one's bank kernel overlaps the next one's FFT; the power rows of a
 * sub-batch (chunk x (n/2+1) floats) stay in L2 between the two kernels.
 *
 * The weights are the host's (src/xform builds them: one truth), uploaded once. */
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "gpu_plan_internal.h"

#define BANK_THREADS 256
#define BANK_WARPS (BANK_THREADS / 32)
#define BANK_SMEM_MAX (48 * 1024) /* the default dynamic shared memory of a block */

struct bank_dev {
    size_t rows, width, coeffs, bins;
    int post;
    uint32_t *d_k0, *d_len, *d_off; /* rows each */
    float *d_w;                     /* the weights */
    float *d_dct;                   /* coeffs x rows, or NULL */
    float *d_rows[GPU_NSLOTS];      /* host path: a sub-batch's rows, chunk x width */
    size_t smem;
};

namespace {

__device__ __forceinline__ float warp_sum(float v)
{
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

__device__ __forceinline__ double warp_sum_d(double v)
{
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

/* 10 log10(max(s, 1e-20)), as xform_db (docs/design.md "Levels (dBFS)") */
__device__ __forceinline__ float bank_db(float s)
{
    const double d = s;
    return (float)(10.0 * log10(d > 1e-20 ? d : 1e-20));
}

struct BankArgs {
    const float *pow; /* nframes x bins */
    float *out;       /* nframes x width */
    const uint32_t *k0, *len, *off;
    const float *w, *dct;
    unsigned rows, bins, width, coeffs;
    int post;
};

/* One frame a block: its power row into shared memory, a warp a row's sum, the post step. */
__global__ void __launch_bounds__(BANK_THREADS) bank_kernel(const BankArgs A)
{
    extern __shared__ float sm[];
    float *p = sm, *val = sm + A.bins;
    const size_t f = blockIdx.x;
    const unsigned tid = threadIdx.x, lane = tid & 31u, warp = tid >> 5;
    const float *src = A.pow + f * A.bins;
    for (unsigned k = tid; k < A.bins; k += BANK_THREADS)
        p[k] = __ldcs(src + k); /* read once: streamed past L1 */
    __syncthreads();
    for (unsigned r = warp; r < A.rows; r += BANK_WARPS) {
        const float *w = A.w + A.off[r], *q = p + A.k0[r];
        const unsigned len = A.len[r];
        float s = 0.0f;
        for (unsigned i = lane; i < len; i += 32)
            s = fmaf(__ldg(w + i), q[i], s);
        s = warp_sum(s);
        if (lane == 0)
            val[r] = s;
    }
    __syncthreads();
    float *out = A.out + f * A.width;
    if (A.post == FFT_BANK_DB) {
        for (unsigned r = tid; r < A.rows; r += BANK_THREADS)
            out[r] = bank_db(val[r]);
    } else if (A.post == FFT_BANK_DB_DCT) {
        for (unsigned r = tid; r < A.rows; r += BANK_THREADS)
            val[r] = bank_db(val[r]);
        __syncthreads();
        for (unsigned c = warp; c < A.coeffs; c += BANK_WARPS) {
            const float *d = A.dct + (size_t)c * A.rows;
            double s = 0.0;
            for (unsigned r = lane; r < A.rows; r += 32)
                s += (double)(__ldg(d + r) * val[r]);
            s = warp_sum_d(s);
            if (lane == 0)
                out[c] = (float)s;
        }
    } else {
        float top = 0.0f;
        for (unsigned r = 0; r < A.rows; r++)
            top = fmaxf(top, val[r]);
        for (unsigned r = tid; r < A.rows; r += BANK_THREADS)
            out[r] = top > 0.0f ? val[r] / top : 0.0f;
    }
}

int bank_launch(const bank_dev *b, cudaStream_t st, const float *d_pow, size_t cnt, float *d_out, sp_errinfo *ei)
{
    BankArgs A;
    A.pow = d_pow;
    A.out = d_out;
    A.k0 = b->d_k0;
    A.len = b->d_len;
    A.off = b->d_off;
    A.w = b->d_w;
    A.dct = b->d_dct;
    A.rows = (unsigned)b->rows;
    A.bins = (unsigned)b->bins;
    A.width = (unsigned)b->width;
    A.coeffs = (unsigned)b->coeffs;
    A.post = b->post;
    if (cnt == 0)
        return SP_OK;
    bank_kernel<<<(unsigned)cnt, BANK_THREADS, b->smem, st>>>(A);
    return gpu_check_launch(ei, "bank_kernel");
}

/* The power rows of frames [f0, f0+cnt) of d_sig into slot s's work buffer, then their bank
 * rows into d_out, on slot s's stream. */
int bank_sub(gpu_plan *gp, const bank_dev *b, int s, const float *d_sig, size_t cnt, float *d_out, sp_errinfo *ei)
{
    float *d_pow = (float *)gp->d_work[s];
    int err = gp->xf->stft_power(gp->ctx, gp->stream[s], d_sig, gp->hop, gp->d_window, gp->scale_mid,
                                 gp->scale_edge, cnt, d_pow, ei);
    if (err != SP_OK)
        return err;
    return bank_launch(b, gp->stream[s], d_pow, cnt, d_out, ei);
}

template <class T> int upload(T **d, const T *h, size_t count, const char *what, sp_errinfo *ei)
{
    int err = gpu_malloc((void **)d, std::max<size_t>(count, 1) * sizeof(T), what, ei);
    if (err != SP_OK)
        return err;
    GPU_CK(cudaMemcpy(*d, h, count * sizeof(T), cudaMemcpyHostToDevice));
    return SP_OK;
}

/* The end of a call: both slots' work waited for; a failure marks the plan broken. */
int bank_finish(gpu_plan *gp, int err, sp_errinfo *ei)
{
    for (int s = 0; s < GPU_NSLOTS; s++) {
        cudaError_t e = cudaStreamSynchronize(gp->stream[s]);
        if (e != cudaSuccess && err == SP_OK)
            err = gpu_fail_cuda(ei, (int)e, "cudaStreamSynchronize(filter bank)");
    }
    if (err != SP_OK && err != SP_EINVAL && err != SP_EUNSUPPORTED) {
        gp->broken = 1;
        snprintf(gp->why, sizeof gp->why, "%s", ei ? ei->msg : "filter bank failed");
    }
    return err;
}

int bank_check(const gpu_plan *gp, const void *bank, sp_errinfo *ei)
{
    if (!gp || !bank)
        return sp_fail(ei, SP_EINVAL, "filter bank: NULL argument");
    if (gp->broken)
        return sp_fail(ei, SP_EGPU, "GPU plan unusable after an earlier error: %s", gp->why);
    if (gp->pend.on)
        return sp_fail(ei, SP_EINVAL, "gpu plan: a call is pending (fft_stft_reduce_wait first)");
    return SP_OK;
}

} // namespace

void gpu_plan_bank_destroy(void *state, void *bank)
{
    bank_dev *b = (bank_dev *)bank;
    (void)state;
    if (!b)
        return;
    cudaFree(b->d_k0);
    cudaFree(b->d_len);
    cudaFree(b->d_off);
    cudaFree(b->d_w);
    cudaFree(b->d_dct);
    for (int s = 0; s < GPU_NSLOTS; s++)
        cudaFree(b->d_rows[s]);
    free(b);
}

int gpu_plan_bank_create(void *state, const fft_bank *fb, void **bank, sp_errinfo *ei)
{
    gpu_plan *gp = (gpu_plan *)state;
    bank_dev *b;
    int err;
    *bank = NULL;
    if (!gp->xf->stft_power)
        return sp_fail(ei, SP_EUNSUPPORTED, "this GPU backend has no short-time power kernel");
    if (!(b = (bank_dev *)calloc(1, sizeof *b)))
        return sp_fail(ei, SP_ENOMEM, "out of memory");
    b->rows = fb->rows;
    b->bins = gp->n / 2 + 1;
    b->post = (int)fb->post;
    b->coeffs = fb->post == FFT_BANK_DB_DCT ? fb->coeffs : 0;
    b->width = b->coeffs ? b->coeffs : b->rows;
    b->smem = (b->bins + b->rows) * sizeof(float);
    if (b->smem > BANK_SMEM_MAX) {
        free(b);
        return sp_fail(ei, SP_EUNSUPPORTED, "filter bank: %zu bins and %zu rows exceed a block's shared memory",
                       gp->n / 2 + 1, fb->rows);
    }
    if ((err = upload(&b->d_k0, fb->k0, fb->rows, "filter bank", ei)) != SP_OK ||
        (err = upload(&b->d_len, fb->len, fb->rows, "filter bank", ei)) != SP_OK ||
        (err = upload(&b->d_off, fb->off, fb->rows, "filter bank", ei)) != SP_OK ||
        (err = upload(&b->d_w, fb->w, fb->nw, "filter bank weights", ei)) != SP_OK ||
        (b->coeffs && (err = upload(&b->d_dct, fb->dct, b->coeffs * b->rows, "DCT matrix", ei)) != SP_OK))
        goto fail;
    for (int s = 0; s < GPU_NSLOTS; s++)
        if ((err = gpu_malloc((void **)&b->d_rows[s], gp->chunk * b->width * sizeof(float), "filter bank rows",
                              ei)) != SP_OK)
            goto fail;
    /* a first sub-batch of one frame: SP_EUNSUPPORTED now (a size the fused kernel lacks)
     * rather than at the first call */
    err = gp->xf->stft_power(gp->ctx, gp->stream[0], gp->d_sig[0], gp->hop, gp->d_window, gp->scale_mid,
                             gp->scale_edge, 0, (float *)gp->d_work[0], ei);
    if (err != SP_OK)
        goto fail;
    *bank = b;
    return SP_OK;
fail:
    gpu_plan_bank_destroy(state, b);
    return err;
}

int gpu_plan_bank_rows_device(void *state, void *bank, const float *d_sig, size_t nframes, float *d_rows,
                              sp_errinfo *ei)
{
    gpu_plan *gp = (gpu_plan *)state;
    const bank_dev *b = (const bank_dev *)bank;
    int err = bank_check(gp, bank, ei), s = 0;
    if (err != SP_OK)
        return err;
    for (size_t f0 = 0; f0 < nframes && err == SP_OK; f0 += gp->chunk, s ^= 1)
        err = bank_sub(gp, b, s, d_sig + f0 * gp->hop, std::min(gp->chunk, nframes - f0), d_rows + f0 * b->width,
                       ei);
    return bank_finish(gp, err, ei);
}

/* The host's signal a sub-batch at a time into the slot's signal buffer, its rows back. */
int gpu_plan_bank_rows(void *state, void *bank, const float *signal, size_t nframes, float *rows, sp_errinfo *ei)
{
    gpu_plan *gp = (gpu_plan *)state;
    const bank_dev *b = (const bank_dev *)bank;
    int err = bank_check(gp, bank, ei), s = 0;
    if (err != SP_OK)
        return err;
    for (size_t f0 = 0; f0 < nframes && err == SP_OK; f0 += gp->chunk, s ^= 1) {
        size_t cnt = std::min(gp->chunk, nframes - f0), samples = (cnt - 1) * gp->hop + gp->n;
        cudaError_t e = cudaMemcpyAsync(gp->d_sig[s], signal + f0 * gp->hop, samples * sizeof(float),
                                        cudaMemcpyHostToDevice, gp->stream[s]);
        if (e != cudaSuccess) {
            err = gpu_fail_cuda(ei, (int)e, "cudaMemcpyAsync(signal)");
            break;
        }
        if ((err = bank_sub(gp, b, s, gp->d_sig[s], cnt, b->d_rows[s], ei)) != SP_OK)
            break;
        e = cudaMemcpyAsync(rows + f0 * b->width, b->d_rows[s], cnt * b->width * sizeof(float),
                            cudaMemcpyDeviceToHost, gp->stream[s]);
        if (e != cudaSuccess)
            err = gpu_fail_cuda(ei, (int)e, "cudaMemcpyAsync(rows)");
    }
    return bank_finish(gp, err, ei);
}
