/* gpu_plan's setup (gpu_plan.h): CUDA errors into sp_errinfo, the device probe, the plan's
 * buffers and streams (create, destroy), the pinned host memory it hands out, and the
 * release of the device at the process's end. The kernels and the pipeline: gpu_plan.cu. */
#include "gpu_plan_internal.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

/* ---- error helpers ------------------------------------------------------------------- */

int gpu_fail_cuda(sp_errinfo *ei, int cuda_err, const char *what)
{
    cudaError_t e = (cudaError_t)cuda_err;
    int code = e == cudaErrorMemoryAllocation ? SP_ENOMEM : SP_EGPU;
    (void)cudaGetLastError(); /* a non-sticky error must not be reported again by the next check */
    return sp_fail(ei, code, "CUDA error in %s: %s (%s)", what, cudaGetErrorString(e),
                   cudaGetErrorName(e));
}

int gpu_check_launch(sp_errinfo *ei, const char *kernel)
{
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess)
        return sp_fail(ei, SP_EGPU, "CUDA error launching %s: %s (%s)", kernel,
                       cudaGetErrorString(e), cudaGetErrorName(e));
    return SP_OK;
}

int gpu_malloc(void **d_ptr, size_t bytes, const char *what, sp_errinfo *ei)
{
    *d_ptr = NULL;
    cudaError_t e = cudaMalloc(d_ptr, bytes);
    if (e == cudaErrorMemoryAllocation) {
        (void)cudaGetLastError(); /* not sticky: clear it so later calls work */
        size_t free_b = 0, total_b = 0;
        (void)cudaMemGetInfo(&free_b, &total_b);
        *d_ptr = NULL;
        return sp_fail(ei, SP_ENOMEM,
                       "out of GPU memory: %zu bytes asked for %s, %zu of %zu bytes free", bytes,
                       what, free_b, total_b);
    }
    if (e != cudaSuccess) {
        *d_ptr = NULL;
        return gpu_fail_cuda(ei, (int)e, "cudaMalloc");
    }
    return SP_OK;
}

int gpu_host_alloc_pinned(unsigned char **h_ptr, size_t bytes, const char *what, sp_errinfo *ei)
{
    *h_ptr = NULL;
    cudaError_t e = cudaHostAlloc((void **)h_ptr, bytes, cudaHostAllocDefault);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        *h_ptr = NULL;
        return sp_fail(ei, e == cudaErrorMemoryAllocation ? SP_ENOMEM : SP_EGPU,
                       "cudaHostAlloc of %zu bytes of pinned memory for %s failed: %s", bytes,
                       what, cudaGetErrorString(e));
    }
    return SP_OK;
}

/* ---- probe ---------------------------------------------------------------------------- */

__global__ void probe_kernel(int *unused)
{
    if (unused)
        *unused = 0;
}

int gpu_probe(sp_errinfo *ei)
{
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e == cudaErrorNoDevice || (e == cudaSuccess && count == 0))
        return sp_fail(ei, SP_ENODEV, "no CUDA device found");
    if (e == cudaErrorInsufficientDriver)
        return sp_fail(ei, SP_ENODEV, "no usable CUDA device: %s (no NVIDIA driver, or one too "
                       "old for CUDA runtime %d.%d)", cudaGetErrorString(e), CUDART_VERSION / 1000,
                       (CUDART_VERSION % 1000) / 10);
    if (e != cudaSuccess)
        return sp_fail(ei, SP_ENODEV, "no usable CUDA device: %s", cudaGetErrorString(e));
    e = cudaFree(0);
    if (e != cudaSuccess)
        return sp_fail(ei, SP_ENODEV, "CUDA device found but unusable: %s", cudaGetErrorString(e));
    {
        /* the kernels are built for one architecture (SPECTRO_CUDA_ARCH): loading one tells
         * whether this device can run them, before a plan is made */
        cudaFuncAttributes fa;
        e = cudaFuncGetAttributes(&fa, probe_kernel);
        if (e != cudaSuccess) {
            cudaDeviceProp p;
            int dev = 0;
            (void)cudaGetLastError();
            if (cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceProperties(&p, dev) != cudaSuccess)
                snprintf(p.name, sizeof p.name, "?");
            return sp_fail(ei, SP_ENODEV, "CUDA device %s (compute capability %d.%d) cannot run this "
                           "build's kernels: %s (rebuild with -DSPECTRO_CUDA_ARCH=%d%d)", p.name,
                           p.major, p.minor, cudaGetErrorString(e), p.major, p.minor);
        }
    }
    return SP_OK;
}

void gpu_release(void)
{
    (void)cudaDeviceReset();
}

/* ---- create / destroy ----------------------------------------------------------------- */

/* a*b with overflow detection */
static int mul_ok(size_t a, size_t b, size_t *out)
{
    if (a != 0 && b > SIZE_MAX / a)
        return 0;
    *out = a * b;
    return 1;
}

int gpu_plan_create(const fft_config *cfg, const float *window, double window_sum,
                    gpu_plan **out, sp_errinfo *ei)
{
    gpu_plan *gp = NULL;
    int err = SP_OK;
    size_t n, chunk, t1, t2;

    if (!cfg || !window || !out)
        return sp_fail(ei, SP_EINVAL, "gpu plan: NULL argument");
    *out = NULL;
    n = cfg->n;
    chunk = cfg->max_batch / 2 + cfg->max_batch % 2;
    if (chunk == 0)
        return sp_fail(ei, SP_EINVAL, "gpu plan: max_batch must be at least 1");
    /* sizes: overflow means the request cannot be met at all */
    if (!mul_ok(n * sizeof(cpx), chunk, &t1) || !mul_ok(chunk - 1, cfg->hop, &t2) ||
        t2 > SIZE_MAX / sizeof(float) - n)
        return sp_fail(ei, SP_ENOMEM,
                       "out of GPU memory: an FFT plan of size %zu for %zu frames (hop %zu) is "
                       "larger than the address space", n, cfg->max_batch, cfg->hop);

    gp = (gpu_plan *)calloc(1, sizeof *gp);
    if (!gp)
        return sp_fail(ei, SP_ENOMEM, "out of memory for a GPU FFT plan");
    gp->n = n;
    gp->hop = cfg->hop;
    gp->max_batch = cfg->max_batch;
    gp->chunk = chunk;
    gp->live = cfg->live;
    gp->work_bytes = n * sizeof(cpx);
    gp->spec_bytes = (n / 2 + 1) * sizeof(cpx);
    gp->sig_bytes = ((chunk - 1) * cfg->hop + n) * sizeof(float);
    gp->hin_bytes = std::max(chunk * gp->work_bytes, gp->sig_bytes);
    gp->hout_bytes = chunk * gp->work_bytes;
    gp->pk_bytes = chunk * FFT_PEAK_RANGES_MAX * sizeof(fft_peak_raw);
    gp->cm_bytes = (chunk + 1) * (n / 2 + 1) * sizeof(float);
    /* the same float expressions as fft_level_scale() in src/fft/fft.h */
    gp->scale_mid = (float)(2.0 / window_sum);
    gp->scale_edge = (float)(1.0 / window_sum);

    if ((err = gpu_malloc((void **)&gp->d_window, n * sizeof(float), "the window", ei)) != SP_OK)
        goto fail;
    {
        cudaError_t e = cudaMemcpy(gp->d_window, window, n * sizeof(float), cudaMemcpyHostToDevice);
        if (e != cudaSuccess) {
            err = gpu_fail_cuda(ei, (int)e, "cudaMemcpy(window)");
            goto fail;
        }
    }
    for (int s = 0; s < GPU_NSLOTS; s++) {
        cudaError_t e = cudaStreamCreateWithFlags(&gp->stream[s], cudaStreamNonBlocking);
        if (e != cudaSuccess) {
            gp->stream[s] = NULL;
            err = gpu_fail_cuda(ei, (int)e, "cudaStreamCreate");
            goto fail;
        }
        if ((err = gpu_malloc(&gp->d_work[s], chunk * gp->work_bytes, "FFT work buffers", ei)) ||
            (err = gpu_malloc((void **)&gp->d_spec[s], chunk * gp->spec_bytes, "spectra", ei)) ||
            (err = gpu_malloc((void **)&gp->d_sig[s], gp->sig_bytes, "the signal", ei)) ||
            (err = gpu_malloc((void **)&gp->d_pk[s], gp->pk_bytes, "peak records", ei)))
            goto fail;
    }
    *out = gp;
    return SP_OK;

fail:
    gpu_plan_destroy(gp);
    return err;
}

void gpu_plan_set_xform(gpu_plan *gp, const gpu_xform *xf, void *ctx)
{
    gp->xf = xf;
    gp->ctx = ctx;
}

size_t gpu_plan_n(const gpu_plan *gp)
{
    return gp->n;
}

size_t gpu_plan_chunk(const gpu_plan *gp)
{
    return gp->chunk;
}

void *gpu_plan_stream(const gpu_plan *gp, int slot)
{
    return (void *)gp->stream[slot];
}

void *gpu_plan_host_alloc(void *state, size_t bytes)
{
    gpu_plan *gp = (gpu_plan *)state;
    for (int i = 0; i < GPU_NPINNED; i++) {
        if (gp->pinned[i].p)
            continue;
        void *p = NULL;
        if (cudaHostAlloc(&p, bytes ? bytes : 1, cudaHostAllocDefault) != cudaSuccess) {
            (void)cudaGetLastError();
            return malloc(bytes ? bytes : 1); /* pageable: slower copies, still correct */
        }
        gp->pinned[i].p = (unsigned char *)p;
        gp->pinned[i].bytes = bytes;
        return p;
    }
    return malloc(bytes ? bytes : 1);
}

void gpu_plan_host_free(void *state, void *p)
{
    gpu_plan *gp = (gpu_plan *)state;
    if (!p)
        return;
    for (int i = 0; i < GPU_NPINNED; i++)
        if (gp->pinned[i].p == p) {
            cudaFreeHost(p);
            gp->pinned[i].p = NULL;
            return;
        }
    free(p);
}

/* The pinned block that holds [p, p+bytes), or NULL. */
const unsigned char *gpu_pinned_range(const gpu_plan *gp, const unsigned char *p, size_t bytes)
{
    for (int i = 0; i < GPU_NPINNED; i++) {
        uintptr_t b = (uintptr_t)gp->pinned[i].p, a = (uintptr_t)p;
        if (b && a >= b && bytes <= gp->pinned[i].bytes && a - b <= gp->pinned[i].bytes - bytes)
            return gp->pinned[i].p;
    }
    return NULL;
}

void gpu_plan_destroy(void *state)
{
    gpu_plan *gp = (gpu_plan *)state;
    if (!gp)
        return;
    /* work queued on callers' streams reads the window and the tables: which streams is
     * not known, so the whole device is waited for */
    if (gp->async_used)
        (void)cudaDeviceSynchronize();
    /* queued work may still use the buffers (a call that failed half way) */
    for (int s = 0; s < GPU_NSLOTS; s++)
        if (gp->stream[s])
            (void)cudaStreamSynchronize(gp->stream[s]);
    if (gp->xf && gp->xf->destroy)
        gp->xf->destroy(gp->ctx);
    for (int g = 0; g < GPU_NGRAPHS; g++)
        if (gp->graph[g].state == 2)
            cudaGraphExecDestroy(gp->graph[g].exec);
    for (int s = 0; s < GPU_NSLOTS; s++) {
        cudaFree(gp->d_work[s]);
        cudaFree(gp->d_spec[s]);
        cudaFree(gp->d_sig[s]);
        cudaFree(gp->d_pk[s]);
        cudaFree(gp->d_cm[s]);
        cudaFreeHost(gp->h_cm[s]);
        cudaFreeHost(gp->h_in[s]);
        cudaFreeHost(gp->h_out[s]);
        cudaFreeHost(gp->h_pk[s]);
        if (gp->stream[s])
            cudaStreamDestroy(gp->stream[s]);
    }
    for (int i = 0; i < GPU_NPINNED; i++)
        cudaFreeHost(gp->pinned[i].p);
    if (gp->ev_in)
        cudaEventDestroy(gp->ev_in);
    if (gp->ev_out)
        cudaEventDestroy(gp->ev_out);
    cudaFree(gp->d_window);
    free(gp);
}

