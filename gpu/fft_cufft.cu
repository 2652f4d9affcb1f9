/* fft_cufft: the same interface with cuFFT doing the transforms, for cross-checks and
 * side-by-side speed. The buffers, streams, pipeline, framing and dB kernels are
 * gpu_plan's, shared with the cuda backend.
 *
 * cuFFT plans have a fixed batch: each slot keeps a plan for `chunk` frames (the full
 * sub-batch) and caches one for the last other batch size seen (a call's tail, or the
 * small batches of live mode). Each slot's plans are bound to that slot's stream and
 * have their own work area, so the two slots can run at the same time. */
#include <cuda_runtime.h>
#include <cufft.h>

#include <cstdlib>

#include "fft_gpu.h"
#include "gpu_plan.h"

static_assert(sizeof(cpx) == sizeof(cufftComplex), "cpx must have the layout of cufftComplex");

enum { KIND_C2C, KIND_R2C, KIND_COUNT };

typedef struct {
    cufftHandle h;
    size_t batch; /* 0: no plan */
} cached_plan;

typedef struct {
    size_t n, chunk;
    cudaStream_t stream[GPU_NSLOTS];
    cached_plan full[GPU_NSLOTS][KIND_COUNT], tail[GPU_NSLOTS][KIND_COUNT];
} cufft_ctx;

static const char *cufft_result_name(cufftResult r)
{
    switch (r) {
    case CUFFT_SUCCESS: return "CUFFT_SUCCESS";
    case CUFFT_INVALID_PLAN: return "CUFFT_INVALID_PLAN";
    case CUFFT_ALLOC_FAILED: return "CUFFT_ALLOC_FAILED (out of GPU memory)";
    case CUFFT_INVALID_VALUE: return "CUFFT_INVALID_VALUE";
    case CUFFT_INTERNAL_ERROR: return "CUFFT_INTERNAL_ERROR";
    case CUFFT_EXEC_FAILED: return "CUFFT_EXEC_FAILED";
    case CUFFT_SETUP_FAILED: return "CUFFT_SETUP_FAILED";
    case CUFFT_INVALID_SIZE: return "CUFFT_INVALID_SIZE";
    case CUFFT_INVALID_DEVICE: return "CUFFT_INVALID_DEVICE";
    case CUFFT_NO_WORKSPACE: return "CUFFT_NO_WORKSPACE";
    case CUFFT_NOT_IMPLEMENTED: return "CUFFT_NOT_IMPLEMENTED";
    case CUFFT_NOT_SUPPORTED: return "CUFFT_NOT_SUPPORTED";
    default: return "unknown cufftResult";
    }
}

static int fail_cufft(sp_errinfo *ei, cufftResult r, const char *what, size_t n, size_t batch)
{
    /* a launch inside cuFFT may have left a CUDA error: report that text when there is one */
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess)
        return sp_fail(ei, SP_EGPU, "cuFFT %s (n %zu, batch %zu): %s (%d); CUDA: %s", what, n,
                       batch, cufft_result_name(r), (int)r, cudaGetErrorString(e));
    return sp_fail(ei, r == CUFFT_ALLOC_FAILED ? SP_ENOMEM : SP_EGPU,
                   "cuFFT %s (n %zu, batch %zu): %s (%d)", what, n, batch, cufft_result_name(r),
                   (int)r);
}

static int make_plan(cufft_ctx *c, int slot, int kind, size_t batch, cached_plan *out,
                     sp_errinfo *ei)
{
    long long n = (long long)c->n;
    long long odist = kind == KIND_C2C ? n : n / 2 + 1;
    const char *what = kind == KIND_C2C ? "plan (C2C)" : "plan (R2C)";
    size_t work = 0, est = 0;
    cufftResult r;
    out->batch = 0;
    if ((r = cufftCreate(&out->h)) != CUFFT_SUCCESS)
        return fail_cufft(ei, r, "cufftCreate", c->n, batch);
    /* the 64-bit calls: batch * n may pass 2^31 elements. The size of the work area it
     * will ask for goes into an out-of-memory message. */
    if (cufftGetSizeMany64(out->h, 1, &n, NULL, 1, n, NULL, 1, odist,
                           kind == KIND_C2C ? CUFFT_C2C : CUFFT_R2C, (long long)batch, &est) != CUFFT_SUCCESS)
        est = 0;
    r = cufftMakePlanMany64(out->h, 1, &n, NULL, 1, n, NULL, 1, odist,
                            kind == KIND_C2C ? CUFFT_C2C : CUFFT_R2C, (long long)batch, &work);
    if (r == CUFFT_SUCCESS)
        r = cufftSetStream(out->h, c->stream[slot]);
    if (r != CUFFT_SUCCESS) {
        cufftDestroy(out->h);
        if (r == CUFFT_ALLOC_FAILED) {
            (void)cudaGetLastError();
            return sp_fail(ei, SP_ENOMEM, "out of GPU memory: cuFFT %s (n %zu, batch %zu) asked for "
                           "a work area of about %zu bytes", what, c->n, batch, est);
        }
        return fail_cufft(ei, r, what, c->n, batch);
    }
    out->batch = batch;
    return SP_OK;
}

static void drop_plan(cached_plan *p)
{
    if (p->batch)
        cufftDestroy(p->h);
    p->batch = 0;
}

/* The plan of slot for batch frames: the full one, or the cached tail (remade on change). */
static int plan_for(cufft_ctx *c, int slot, int kind, size_t batch, cufftHandle *h, sp_errinfo *ei)
{
    cached_plan *p = batch == c->chunk ? &c->full[slot][kind] : &c->tail[slot][kind];
    if (p->batch != batch) {
        /* the old plan's work area may still be in use by queued work on this stream */
        cudaError_t e = cudaStreamSynchronize(c->stream[slot]);
        if (e != cudaSuccess)
            return gpu_fail_cuda(ei, (int)e, "cudaStreamSynchronize");
        drop_plan(p);
        int err = make_plan(c, slot, kind, batch, p, ei);
        if (err != SP_OK)
            return err;
    }
    *h = p->h;
    return SP_OK;
}

static int cufft_c2c(void *ctx, int slot, const cpx *d_in, cpx *d_out, size_t batch, int inverse,
                     sp_errinfo *ei)
{
    cufft_ctx *c = (cufft_ctx *)ctx;
    cufftHandle h = 0;
    int err = plan_for(c, slot, KIND_C2C, batch, &h, ei);
    if (err != SP_OK)
        return err;
    cufftResult r = cufftExecC2C(h, (cufftComplex *)d_in, (cufftComplex *)d_out,
                                 inverse ? CUFFT_INVERSE : CUFFT_FORWARD);
    if (r != CUFFT_SUCCESS)
        return fail_cufft(ei, r, "cufftExecC2C", c->n, batch);
    if ((err = gpu_check_launch(ei, "cufftExecC2C")) != SP_OK)
        return err;
    if (inverse) /* cuFFT's inverse is unscaled */
        return gpu_scale((void *)c->stream[slot], d_out, batch * c->n, (float)(1.0 / (double)c->n), ei);
    return SP_OK;
}

static int cufft_r2c(void *ctx, int slot, float *d_in, cpx *d_out, size_t batch, sp_errinfo *ei)
{
    cufft_ctx *c = (cufft_ctx *)ctx;
    cufftHandle h = 0;
    int err = plan_for(c, slot, KIND_R2C, batch, &h, ei);
    if (err != SP_OK)
        return err;
    cufftResult r = cufftExecR2C(h, (cufftReal *)d_in, (cufftComplex *)d_out);
    if (r != CUFFT_SUCCESS)
        return fail_cufft(ei, r, "cufftExecR2C", c->n, batch);
    return gpu_check_launch(ei, "cufftExecR2C");
}

static void cufft_ctx_destroy(void *ctx)
{
    cufft_ctx *c = (cufft_ctx *)ctx;
    if (!c)
        return;
    for (int s = 0; s < GPU_NSLOTS; s++)
        for (int k = 0; k < KIND_COUNT; k++) {
            drop_plan(&c->full[s][k]);
            drop_plan(&c->tail[s][k]);
        }
    free(c);
}

static const gpu_xform cufft_xform = {
    .c2c = cufft_c2c, .r2c = cufft_r2c, .destroy = cufft_ctx_destroy, .stft_db = NULL, .stft_db_clips = NULL,
    .stft_bank = NULL,
};

static int cufft_create(const fft_config *cfg, const float *window, double window_sum,
                        void **state, sp_errinfo *ei)
{
    gpu_plan *gp = NULL;
    cufft_ctx *c = NULL;
    int err;

    *state = NULL;
    if ((err = gpu_plan_create(cfg, window, window_sum, &gp, ei)) != SP_OK)
        return err;
    c = (cufft_ctx *)calloc(1, sizeof *c);
    if (!c) {
        err = sp_fail(ei, SP_ENOMEM, "out of memory for a cuFFT plan");
        goto fail;
    }
    gpu_plan_set_xform(gp, &cufft_xform, c); /* gp owns c from here */
    c->n = cfg->n;
    c->chunk = gpu_plan_chunk(gp);
    for (int s = 0; s < GPU_NSLOTS; s++) {
        c->stream[s] = (cudaStream_t)gpu_plan_stream(gp, s);
        for (int k = 0; k < KIND_COUNT; k++)
            if ((err = make_plan(c, s, k, c->chunk, &c->full[s][k], ei)) != SP_OK)
                goto fail;
    }
    *state = gp;
    return SP_OK;

fail:
    gpu_plan_destroy(gp);
    return err;
}

extern "C" const fft_backend fft_backend_cufft = {
    .name = "cufft", .probe = gpu_probe, .create = cufft_create, .destroy = gpu_plan_destroy,
    .c2c = gpu_plan_c2c, .r2c = gpu_plan_r2c, .stft_db = gpu_plan_stft_db, .host_alloc = gpu_plan_host_alloc,
    .host_free = gpu_plan_host_free, .stft_reduce = gpu_plan_stft_reduce, .reduces_columns = 1,
    .stft_reduce_start = gpu_plan_stft_reduce_start, .stft_reduce_wait = gpu_plan_stft_reduce_wait,
    .release = NULL, /* cuFFT keeps device memory of its own past its plans (compute-sanitizer
                      * reported 7 MB of it leaked when the context went before the library) */
    .stft_db_device = gpu_plan_stft_db_device, .stft_db_device_async = gpu_plan_stft_db_device_async,
    /* no stft_bank in its gpu_xform: bank_create says SP_EUNSUPPORTED (host transforms) */
    .bank_create = gpu_plan_bank_create, .bank_destroy = gpu_plan_bank_destroy, .bank_rows = gpu_plan_bank_rows,
    .bank_rows_device = gpu_plan_bank_rows_device,
};
