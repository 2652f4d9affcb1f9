/* fft_cuda: the project's own batched radix-2 decimation-in-time FFT.
 *
 * A complex N-point transform of a batch is 1 + log2(N) launches, each covering the whole
 * batch: bitrev_*_kernel puts every frame in bit-reversed order (__brev), then
 * butterfly_kernel runs once per level s = 1..log2(N), one thread per butterfly, pairing
 * elements m/2 apart inside blocks of m = 2^s. Each level reads and writes the whole batch
 * once, so a transform moves about (1 + log2 N) * 16 bytes per point: this is the reference
 * structure, not the fast path (docs/gpu.md "Backends").
 *
 * Twiddles: one table per plan, d_tw[k] = exp(-2 pi i k / n) for k < n/2, computed on the
 * host in double. A level of span m of an N-point transform (N = n for c2c, n/2 for the
 * real-input transform) uses W_N^(j*N/m) = d_tw[j * n/m]; the inverse conjugates it.
 *
 * Real input of n points: the frame is read as n/2 complex points z_j = x_2j + i x_2j+1,
 * transformed, and r2c_post_kernel untangles bins 0..n/2:
 *   E_k = (Z_k + conj Z_{M-k}) / 2,  O_k = (Z_k - conj Z_{M-k}) / 2i,  X_k = E_k + W_n^k O_k
 * with M = n/2 and indices mod M. */
#include <cuda_runtime.h>

#include <cmath>
#include <cstdlib>
#include <vector>

#include <cstring>

#include "fft_fused.h"
#include "fft_gpu.h"
#include "gpu_plan.h"

static_assert(sizeof(cpx) == sizeof(float2), "cpx must have the layout of float2");

#define FFT_BLOCK 256

typedef struct {
    float2 *d_tw; /* n/2 twiddles */
    unsigned log2n;
    void *stream[GPU_NSLOTS];
    int fused;                /* fft_config.cuda_path: 1 fused (default) or portable, 0 perlevel */
    unsigned c2c_flags;       /* fused_c2c's FUSED_* (portable: none) */
    cpx *d_tmp[GPU_NSLOTS];   /* fused four-step scratch (chunk*n points), n > 2^17 (2^14 without clusters) */
} cuda_ctx;

/* ---- kernels -------------------------------------------------------------------------- */

/* Out of place: d_out[f*N + i] = s * d_in[f*N + rev(i)] (coalesced writes, gathered reads). */
__global__ void bitrev_gather_kernel(const float2 *__restrict__ d_in, float2 *__restrict__ d_out,
                                     unsigned log2N, size_t total, float s)
{
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= total)
        return;
    size_t base = t & ~(((size_t)1 << log2N) - 1);
    unsigned i = (unsigned)(t - base);
    unsigned r = __brev(i) >> (32 - log2N);
    float2 v = d_in[base + r];
    d_out[t] = make_float2(v.x * s, v.y * s);
}

/* In place: the thread of i < rev(i) swaps the pair; every element is touched once. */
__global__ void bitrev_swap_kernel(float2 *d_data, unsigned log2N, size_t total, float s)
{
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= total)
        return;
    size_t base = t & ~(((size_t)1 << log2N) - 1);
    unsigned i = (unsigned)(t - base);
    unsigned r = __brev(i) >> (32 - log2N);
    if (i < r) {
        float2 a = d_data[base + i], b = d_data[base + r];
        d_data[base + i] = make_float2(b.x * s, b.y * s);
        d_data[base + r] = make_float2(a.x * s, a.y * s);
    } else if (i == r && s != 1.0f) {
        float2 a = d_data[t];
        d_data[t] = make_float2(a.x * s, a.y * s);
    }
}

/* One level (span m = 2^level) of every N-point frame: total = batch * N/2 butterflies.
 * tw_shift = log2(n) - level, so that j << tw_shift = j * n/m. */
__global__ void butterfly_kernel(float2 *d_data, const float2 *__restrict__ d_tw, unsigned log2N,
                                 unsigned level, unsigned tw_shift, size_t total, int inverse)
{
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= total)
        return;
    size_t frame = t >> (log2N - 1);
    unsigned p = (unsigned)(t & (((size_t)1 << (log2N - 1)) - 1)); /* butterfly in frame */
    unsigned half = 1u << (level - 1);
    unsigned j = p & (half - 1);
    unsigned i0 = ((p >> (level - 1)) << level) + j;
    float2 *x = d_data + (frame << log2N);
    float2 w = d_tw[(size_t)j << tw_shift];
    if (inverse)
        w.y = -w.y;
    float2 a = x[i0], b = x[i0 + half];
    float2 bw = make_float2(b.x * w.x - b.y * w.y, b.x * w.y + b.y * w.x);
    x[i0] = make_float2(a.x + bw.x, a.y + bw.y);
    x[i0 + half] = make_float2(a.x - bw.x, a.y - bw.y);
}

/* Bins 0..M of each real n-point frame (n = 2M) from the M-point transform Z of its
 * even/odd packing; total = batch * (M+1). */
__global__ void r2c_post_kernel(const float2 *__restrict__ d_z, float2 *__restrict__ d_x,
                                const float2 *__restrict__ d_tw, unsigned log2M, size_t total)
{
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= total)
        return;
    size_t M = (size_t)1 << log2M;
    size_t f = t / (M + 1);
    size_t k = t - f * (M + 1);
    const float2 *z = d_z + (f << log2M);
    float2 out;
    if (k == 0 || k == M) {
        float2 z0 = z[0]; /* E_0 = Re Z_0, O_0 = Im Z_0, W^M = -1 */
        out = make_float2(k == 0 ? z0.x + z0.y : z0.x - z0.y, 0.0f);
    } else {
        float2 a = z[k], b = z[M - k];
        float2 e = make_float2(0.5f * (a.x + b.x), 0.5f * (a.y - b.y));  /* (a + conj b)/2  */
        float2 o = make_float2(0.5f * (a.y + b.y), -0.5f * (a.x - b.x)); /* (a - conj b)/2i */
        float2 w = d_tw[k];
        out = make_float2(e.x + w.x * o.x - w.y * o.y, e.y + w.x * o.y + w.y * o.x);
    }
    d_x[t] = out;
}

/* ---- transforms ----------------------------------------------------------------------- */

static unsigned nblocks(size_t total)
{
    return (unsigned)((total + FFT_BLOCK - 1) / FFT_BLOCK);
}

/* N-point transforms (N = 2^log2N <= n) of batch frames d_in -> d_out on stream st. */
static int radix2(const cuda_ctx *c, cudaStream_t st, const float2 *d_in, float2 *d_out,
                  unsigned log2N, size_t batch, int inverse, float s, sp_errinfo *ei)
{
    size_t total = batch << log2N;
    int err;
    if (d_in == d_out)
        bitrev_swap_kernel<<<nblocks(total), FFT_BLOCK, 0, st>>>(d_out, log2N, total, s);
    else
        bitrev_gather_kernel<<<nblocks(total), FFT_BLOCK, 0, st>>>(d_in, d_out, log2N, total, s);
    if ((err = gpu_check_launch(ei, "bitrev_kernel")) != SP_OK)
        return err;
    size_t pairs = total / 2;
    for (unsigned level = 1; level <= log2N; level++) {
        butterfly_kernel<<<nblocks(pairs), FFT_BLOCK, 0, st>>>(d_out, c->d_tw, log2N, level,
                                                               c->log2n - level, pairs, inverse);
        if ((err = gpu_check_launch(ei, "butterfly_kernel")) != SP_OK)
            return err;
    }
    return SP_OK;
}

static int cuda_c2c(void *ctx, int slot, const cpx *d_in, cpx *d_out, size_t batch, int inverse,
                    sp_errinfo *ei)
{
    const cuda_ctx *c = (const cuda_ctx *)ctx;
    float s = inverse ? (float)(1.0 / (double)((size_t)1 << c->log2n)) : 1.0f;
    if (c->fused)
        return fused_c2c(c->stream[slot], (const cpx *)c->d_tw, c->log2n, d_in, d_out, c->d_tmp[slot],
                         c->log2n, batch, inverse, s, c->c2c_flags, ei);
    return radix2(c, (cudaStream_t)c->stream[slot], (const float2 *)d_in, (float2 *)d_out,
                  c->log2n, batch, inverse, s, ei);
}

static int cuda_r2c(void *ctx, int slot, float *d_in, cpx *d_out, size_t batch, sp_errinfo *ei)
{
    const cuda_ctx *c = (const cuda_ctx *)ctx;
    cudaStream_t st = (cudaStream_t)c->stream[slot];
    float2 *d_z = (float2 *)d_in; /* n reals = n/2 complex, transformed in place */
    unsigned log2M = c->log2n - 1;
    int err;
    if (c->fused && c->log2n <= FUSED_MAX_ONEPASS_LOG2 + 1) /* one kernel, untangled on chip */
        return fused_r2c(c->stream[slot], (const cpx *)c->d_tw, c->log2n, d_in, d_out, c->log2n,
                         batch, ei);
    if (c->fused) /* n/2 > 2^14: cluster or four-step FFT of the packing, then the post kernel */
        err = fused_c2c(c->stream[slot], (const cpx *)c->d_tw, c->log2n, (const cpx *)d_z,
                        (cpx *)d_z, c->d_tmp[slot], log2M, batch, 0, 1.0f, c->c2c_flags, ei);
    else
        err = radix2(c, st, d_z, d_z, log2M, batch, 0, 1.0f, ei);
    if (err != SP_OK)
        return err;
    size_t total = batch * (((size_t)1 << log2M) + 1);
    r2c_post_kernel<<<nblocks(total), FFT_BLOCK, 0, st>>>(d_z, (float2 *)d_out, c->d_tw, log2M,
                                                          total);
    return gpu_check_launch(ei, "r2c_post_kernel");
}

/* The fused short-time kernel (n <= 2^15); SP_EUNSUPPORTED sends gpu_plan to its framing +
 * r2c + dB kernels (the per-level path, and n > 2^15). */
static int cuda_stft_db(void *ctx, void *stream, const float *d_sig, size_t hop, const float *d_win,
                        float scale_mid, float scale_edge, size_t nframes, float *d_db, sp_errinfo *ei)
{
    const cuda_ctx *c = (const cuda_ctx *)ctx;
    if (!c->fused || c->log2n > FUSED_MAX_ONEPASS_LOG2 + 1)
        return SP_EUNSUPPORTED;
    return fused_stft_db(stream, (const cpx *)c->d_tw, c->log2n, d_sig, hop, d_win,
                         scale_mid, scale_edge, c->log2n, nframes, d_db, ei);
}

static int cuda_stft_db_clips(void *ctx, void *stream, const float *d_sig, size_t hop, size_t clip_frames,
                              size_t clip_stride, const float *d_win, float scale_mid, float scale_edge,
                              size_t nframes, float *d_db, sp_errinfo *ei)
{
    const cuda_ctx *c = (const cuda_ctx *)ctx;
    if (!c->fused || c->log2n > FUSED_MAX_ONEPASS_LOG2 + 1)
        return SP_EUNSUPPORTED;
    return fused_stft_db_clips(stream, (const cpx *)c->d_tw, c->log2n, d_sig, hop, d_win, scale_mid,
                               scale_edge, c->log2n, nframes, clip_frames, clip_stride, d_db, ei);
}

static int cuda_stft_bank(void *ctx, void *stream, const float *d_sig, size_t hop, const float *d_win,
                          float scale_mid, float scale_edge, size_t nframes, const fused_bank *bank, float *d_rows,
                          sp_errinfo *ei)
{
    const cuda_ctx *c = (const cuda_ctx *)ctx;
    if (!c->fused || c->log2n > FUSED_MAX_ONEPASS_LOG2 + 1)
        return sp_fail(ei, SP_EUNSUPPORTED, "no fused short-time kernel for this plan");
    return fused_stft_bank(stream, (const cpx *)c->d_tw, c->log2n, d_sig, hop, d_win, scale_mid, scale_edge, c->log2n,
                           nframes, bank, d_rows, ei);
}

static void cuda_ctx_destroy(void *ctx)
{
    cuda_ctx *c = (cuda_ctx *)ctx;
    if (!c)
        return;
    for (int s = 0; s < GPU_NSLOTS; s++)
        cudaFree(c->d_tmp[s]);
    cudaFree(c->d_tw);
    free(c);
}

static const gpu_xform cuda_xform = {
    .c2c = cuda_c2c, .r2c = cuda_r2c, .destroy = cuda_ctx_destroy, .stft_db = cuda_stft_db,
    .stft_db_clips = cuda_stft_db_clips, .stft_bank = cuda_stft_bank,
};

/* ---- backend -------------------------------------------------------------------------- */

unsigned fft_cuda_c2c_flags(const fft_config *cfg)
{
    const fft_tuning *t = &cfg->tuning;
    if (t->cuda_path == FFT_CUDA_PATH_PORTABLE || !fused_sm90_ok())
        return 0;
    int stream = t->cuda_stream == FFT_CUDA_STREAM_AUTO ? fused_stream_pays() : t->cuda_stream == FFT_CUDA_STREAM_ON;
    return FUSED_SM90 | (stream ? FUSED_STREAM : 0u);
}

static int cuda_create(const fft_config *cfg, const float *window, double window_sum,
                       void **state, sp_errinfo *ei)
{
    gpu_plan *gp = NULL;
    cuda_ctx *c = NULL;
    size_t n = cfg->n, half = n / 2;
    int err;

    *state = NULL;
    if ((unsigned)cfg->tuning.cuda_path > FFT_CUDA_PATH_PERLEVEL ||
        (unsigned)cfg->tuning.cuda_stream > FFT_CUDA_STREAM_ON)
        return sp_fail(ei, SP_EINVAL, "cuda FFT: cuda_path %d or cuda_stream %d out of range",
                       (int)cfg->tuning.cuda_path, (int)cfg->tuning.cuda_stream);
    if ((err = gpu_plan_create(cfg, window, window_sum, &gp, ei)) != SP_OK)
        return err;
    c = (cuda_ctx *)calloc(1, sizeof *c);
    if (!c) {
        err = sp_fail(ei, SP_ENOMEM, "out of memory for a CUDA FFT plan");
        goto fail;
    }
    c->fused = cfg->tuning.cuda_path != FFT_CUDA_PATH_PERLEVEL;
    c->c2c_flags = fft_cuda_c2c_flags(cfg);
    gpu_plan_set_xform(gp, &cuda_xform, c); /* gp owns c from here */
    while (((size_t)1 << c->log2n) < n)
        c->log2n++;
    for (int s = 0; s < GPU_NSLOTS; s++)
        c->stream[s] = gpu_plan_stream(gp, s);
    if ((err = gpu_malloc((void **)&c->d_tw, half * sizeof(float2), "twiddles", ei)) != SP_OK)
        goto fail;
    if (c->fused && c->log2n > ((c->c2c_flags & FUSED_SM90) ? FUSED_MAX_CLUSTER_LOG2 : FUSED_MAX_ONEPASS_LOG2))
        for (int s = 0; s < GPU_NSLOTS; s++)
            if ((err = gpu_malloc((void **)&c->d_tmp[s], gpu_plan_chunk(gp) * n * sizeof(cpx),
                                  "four-step FFT scratch", ei)) != SP_OK)
                goto fail;
    {
        /* sincos of 2 pi k/n in double: exact at k = 0, n/4 */
        std::vector<float2> h_tw(half);
        for (size_t k = 0; k < half; k++) {
            double a = 2.0 * 3.14159265358979323846 * (double)k / (double)n;
            h_tw[k] = make_float2((float)cos(a), (float)-sin(a));
            if (4 * k == n)
                h_tw[k] = make_float2(0.0f, -1.0f);
        }
        cudaError_t e = cudaMemcpy(c->d_tw, h_tw.data(), half * sizeof(float2),
                                   cudaMemcpyHostToDevice);
        if (e != cudaSuccess) {
            err = gpu_fail_cuda(ei, (int)e, "cudaMemcpy(twiddles)");
            goto fail;
        }
    }
    *state = gp;
    return SP_OK;

fail:
    gpu_plan_destroy(gp);
    return err;
}

extern "C" const fft_backend fft_backend_cuda = {
    .name = "cuda", .probe = gpu_probe, .create = cuda_create, .destroy = gpu_plan_destroy,
    .c2c = gpu_plan_c2c, .r2c = gpu_plan_r2c, .stft_db = gpu_plan_stft_db, .host_alloc = gpu_plan_host_alloc,
    .host_free = gpu_plan_host_free, .stft_reduce = gpu_plan_stft_reduce, .reduces_columns = 1,
    .stft_reduce_start = gpu_plan_stft_reduce_start, .stft_reduce_wait = gpu_plan_stft_reduce_wait,
    .release = gpu_release, .stft_db_device = gpu_plan_stft_db_device,
    .stft_db_device_async = gpu_plan_stft_db_device_async, .bank_create = gpu_plan_bank_create,
    .bank_destroy = gpu_plan_bank_destroy, .bank_rows = gpu_plan_bank_rows,
    .bank_rows_device = gpu_plan_bank_rows_device,
};

int fft_gpu_plan_create(const fft_config *cfg, const float *window, double window_sum, gpu_plan **out,
                        sp_errinfo *ei)
{
    const fft_backend *be = cfg->backend == FFT_BACKEND_CUFFT ? &fft_backend_cufft : &fft_backend_cuda;
    void *state = NULL;
    int err = be->create(cfg, window, window_sum, &state, ei);
    *out = (gpu_plan *)state;
    return err;
}
