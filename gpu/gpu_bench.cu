/* gpu_bench: device-side timing helpers (see gpu_bench.h). */
#include "gpu_bench.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "gpu_plan.h"

#define GPU_CK(call)                                                                       \
    do {                                                                                   \
        cudaError_t e_ = (call);                                                           \
        if (e_ != cudaSuccess) {                                                           \
            err = gpu_fail_cuda(ei, (int)e_, #call);                                       \
            goto done;                                                                     \
        }                                                                                  \
    } while (0)

int gpu_bench_device(char *name, size_t len, int *sm_count, size_t *mem_bytes, sp_errinfo *ei)
{
    cudaDeviceProp prop;
    int dev = 0, err = SP_OK;
    GPU_CK(cudaGetDevice(&dev));
    GPU_CK(cudaGetDeviceProperties(&prop, dev));
    if (name && len)
        snprintf(name, len, "%s", prop.name);
    if (sm_count)
        *sm_count = prop.multiProcessorCount;
    if (mem_bytes)
        *mem_bytes = prop.totalGlobalMem;
done:
    return err;
}

int gpu_bench_c2c(void *state, size_t batch, int reps, double *median_ms, sp_errinfo *ei)
{
    return gpu_plan_time_c2c(state, batch, reps, median_ms, ei);
}

int gpu_bench_r2c(void *state, size_t batch, int reps, double *median_ms, sp_errinfo *ei)
{
    return gpu_plan_time_r2c(state, batch, reps, median_ms, ei);
}

int gpu_bench_stft(void *state, size_t nsamples, int reps, double *median_ms, size_t *nframes,
                   sp_errinfo *ei)
{
    return gpu_plan_time_stft(state, nsamples, reps, median_ms, nframes, ei);
}

int gpu_bench_d2d(size_t bytes, int reps, double *median_ms, sp_errinfo *ei)
{
    void *d_a = NULL, *d_b = NULL;
    cudaEvent_t ev0 = NULL, ev1 = NULL;
    std::vector<float> ms;
    int err = SP_OK;

    if (reps < 1 || !median_ms)
        return sp_fail(ei, SP_EINVAL, "gpu_bench_d2d: bad argument");
    if ((err = gpu_malloc(&d_a, bytes, "the copy benchmark", ei)) != SP_OK ||
        (err = gpu_malloc(&d_b, bytes, "the copy benchmark", ei)) != SP_OK)
        goto done;
    GPU_CK(cudaMemset(d_a, 0x3c, bytes));
    GPU_CK(cudaEventCreate(&ev0));
    GPU_CK(cudaEventCreate(&ev1));
    GPU_CK(cudaMemcpy(d_b, d_a, bytes, cudaMemcpyDeviceToDevice)); /* warm-up */
    for (int r = 0; r < reps; r++) {
        float t = 0;
        GPU_CK(cudaEventRecord(ev0, 0));
        GPU_CK(cudaMemcpyAsync(d_b, d_a, bytes, cudaMemcpyDeviceToDevice, 0));
        GPU_CK(cudaEventRecord(ev1, 0));
        GPU_CK(cudaEventSynchronize(ev1));
        GPU_CK(cudaEventElapsedTime(&t, ev0, ev1));
        ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    *median_ms = ms.size() % 2 ? ms[ms.size() / 2] : 0.5 * (ms[ms.size() / 2 - 1] + ms[ms.size() / 2]);
done:
    if (ev0)
        cudaEventDestroy(ev0);
    if (ev1)
        cudaEventDestroy(ev1);
    cudaFree(d_a);
    cudaFree(d_b);
    return err;
}
