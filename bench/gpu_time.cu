/* gpu_time: device-side timings for bench_gpu_fft (see gpu_time.h). */
#include "gpu_time.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

#define TIME_BLOCK 256

/* On a CUDA error: err gets the program's code and message, then `goto done`. */
#define TIME_CK(call)                                                                      \
    do {                                                                                   \
        cudaError_t e_ = (call);                                                           \
        if (e_ != cudaSuccess) {                                                           \
            err = gpu_fail_cuda(ei, (int)e_, #call);                                       \
            goto done;                                                                     \
        }                                                                                  \
    } while (0)

/* Fills d_out with values in [-1, 1) from a per-element hash. */
__global__ void fill_random_kernel(float *d_out, size_t count, uint32_t seed)
{
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= count)
        return;
    uint32_t h = (uint32_t)t * 2654435761u ^ seed ^ (uint32_t)(t >> 32);
    h ^= h >> 16;
    h *= 0x7feb352dU;
    h ^= h >> 15;
    h *= 0x846ca68bU;
    h ^= h >> 16;
    d_out[t] = (float)(h >> 8) * (2.0f / 16777216.0f) - 1.0f;
}

static int fill_random(cudaStream_t st, float *d, size_t count, uint32_t seed, sp_errinfo *ei)
{
    fill_random_kernel<<<(unsigned)((count + TIME_BLOCK - 1) / TIME_BLOCK), TIME_BLOCK, 0, st>>>(d, count, seed);
    return gpu_check_launch(ei, "fill_random_kernel");
}

static double median_of(std::vector<float> &ms)
{
    std::sort(ms.begin(), ms.end());
    return ms.size() % 2 ? ms[ms.size() / 2] : 0.5 * (ms[ms.size() / 2 - 1] + ms[ms.size() / 2]);
}

int gpu_time_device(char *name, size_t len, int *sm_count, size_t *mem_bytes, sp_errinfo *ei)
{
    cudaDeviceProp prop;
    int dev = 0, err = SP_OK;
    TIME_CK(cudaGetDevice(&dev));
    TIME_CK(cudaGetDeviceProperties(&prop, dev));
    if (name && len)
        snprintf(name, len, "%s", prop.name);
    if (sm_count)
        *sm_count = prop.multiProcessorCount;
    if (mem_bytes)
        *mem_bytes = prop.totalGlobalMem;
done:
    return err;
}

int gpu_time_forward(gpu_plan *gp, int real, size_t batch, int reps, double *median_ms, sp_errinfo *ei)
{
    cudaStream_t st;
    cudaEvent_t ev0 = NULL, ev1 = NULL;
    size_t floats;
    std::vector<float> ms;
    int err = SP_OK;

    if (!gp || !median_ms || reps < 1 || batch < 1 || batch > gpu_plan_chunk(gp))
        return sp_fail(ei, SP_EINVAL, "gpu_time_forward: bad argument (batch %zu)", batch);
    st = (cudaStream_t)gpu_plan_stream(gp, 0);
    floats = batch * gpu_plan_n(gp) * 2;
    TIME_CK(cudaEventCreate(&ev0));
    TIME_CK(cudaEventCreate(&ev1));
    if ((err = fill_random(st, (float *)gpu_plan_work(gp, 0), floats, 0x5eed1234u, ei)) != SP_OK)
        goto done;
    for (int w = 0; w < 3; w++)
        if ((err = gpu_plan_forward_device(gp, real, batch, ei)) != SP_OK)
            goto done;
    TIME_CK(cudaStreamSynchronize(st));
    for (int r = 0; r < reps; r++) {
        float t = 0;
        /* the per-level r2c transforms its input in place: refresh it (untimed) so that
         * every run sees finite data, then one untimed run, so that the timed one starts
         * from the state its own previous run left (as the c2c and stft timings do), not
         * from a cache full of the refill's writes: after the refill our r2c times varied
         * 0.86-0.97x cuFFT's from one process to the next, cuFFT's by 1% (H200) */
        if (real) {
            if ((err = fill_random(st, (float *)gpu_plan_work(gp, 0), floats, 0x5eed1234u, ei)) != SP_OK ||
                (err = gpu_plan_forward_device(gp, real, batch, ei)) != SP_OK)
                goto done;
        }
        TIME_CK(cudaEventRecord(ev0, st));
        if ((err = gpu_plan_forward_device(gp, real, batch, ei)) != SP_OK)
            goto done;
        TIME_CK(cudaEventRecord(ev1, st));
        TIME_CK(cudaEventSynchronize(ev1));
        TIME_CK(cudaEventElapsedTime(&t, ev0, ev1));
        ms.push_back(t);
    }
    *median_ms = median_of(ms);
done:
    if (ev0)
        cudaEventDestroy(ev0);
    if (ev1)
        cudaEventDestroy(ev1);
    return err;
}

int gpu_time_stft(gpu_plan *gp, size_t nsamples, int reps, double *median_ms, size_t *nframes,
                  sp_errinfo *ei)
{
    cudaStream_t st;
    cudaEvent_t ev0 = NULL, ev1 = NULL;
    float *d_sig = NULL, *d_db = NULL;
    size_t n, nf;
    std::vector<float> ms;
    int err = SP_OK;

    if (!gp || !median_ms || reps < 1 || nsamples < gpu_plan_n(gp))
        return sp_fail(ei, SP_EINVAL, "gpu_time_stft: bad argument (%zu samples)", nsamples);
    st = (cudaStream_t)gpu_plan_stream(gp, 0);
    n = gpu_plan_n(gp);
    nf = (nsamples - n) / gpu_plan_hop(gp) + 1;
    if (nframes)
        *nframes = nf;
    TIME_CK(cudaEventCreate(&ev0));
    TIME_CK(cudaEventCreate(&ev1));
    if ((err = gpu_malloc((void **)&d_sig, nsamples * sizeof(float), "the benchmark signal", ei)) ||
        (err = gpu_malloc((void **)&d_db, nf * (n / 2 + 1) * sizeof(float), "the benchmark levels", ei)))
        goto done;
    if ((err = fill_random(st, d_sig, nsamples, 0x5eed4321u, ei)) != SP_OK ||
        (err = gpu_plan_stft_device(gp, d_sig, nf, d_db, ei)) != SP_OK)
        goto done;
    for (int r = 0; r < reps; r++) {
        float t = 0;
        TIME_CK(cudaEventRecord(ev0, st));
        if ((err = gpu_plan_stft_device(gp, d_sig, nf, d_db, ei)) != SP_OK)
            goto done;
        TIME_CK(cudaEventRecord(ev1, st));
        TIME_CK(cudaEventSynchronize(ev1));
        TIME_CK(cudaEventElapsedTime(&t, ev0, ev1));
        ms.push_back(t);
    }
    *median_ms = median_of(ms);
done:
    if (d_sig || d_db)
        (void)cudaStreamSynchronize(st);
    cudaFree(d_sig);
    cudaFree(d_db);
    if (ev0)
        cudaEventDestroy(ev0);
    if (ev1)
        cudaEventDestroy(ev1);
    return err;
}

int gpu_time_d2d(size_t bytes, int reps, double *median_ms, sp_errinfo *ei)
{
    void *d_a = NULL, *d_b = NULL;
    cudaEvent_t ev0 = NULL, ev1 = NULL;
    std::vector<float> ms;
    int err = SP_OK;

    if (reps < 1 || !median_ms)
        return sp_fail(ei, SP_EINVAL, "gpu_time_d2d: bad argument");
    if ((err = gpu_malloc(&d_a, bytes, "the copy benchmark", ei)) != SP_OK ||
        (err = gpu_malloc(&d_b, bytes, "the copy benchmark", ei)) != SP_OK)
        goto done;
    TIME_CK(cudaMemset(d_a, 0x3c, bytes));
    TIME_CK(cudaEventCreate(&ev0));
    TIME_CK(cudaEventCreate(&ev1));
    TIME_CK(cudaMemcpy(d_b, d_a, bytes, cudaMemcpyDeviceToDevice)); /* warm-up */
    for (int r = 0; r < reps; r++) {
        float t = 0;
        TIME_CK(cudaEventRecord(ev0, 0));
        TIME_CK(cudaMemcpyAsync(d_b, d_a, bytes, cudaMemcpyDeviceToDevice, 0));
        TIME_CK(cudaEventRecord(ev1, 0));
        TIME_CK(cudaEventSynchronize(ev1));
        TIME_CK(cudaEventElapsedTime(&t, ev0, ev1));
        ms.push_back(t);
    }
    *median_ms = median_of(ms);
done:
    if (ev0)
        cudaEventDestroy(ev0);
    if (ev1)
        cudaEventDestroy(ev1);
    cudaFree(d_a);
    cudaFree(d_b);
    return err;
}
