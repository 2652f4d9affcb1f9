/* What the CUDA runtime costs before and after any work, on this machine: the fixed part
 * of every `--backend cuda|cufft` run, which no pipelining can hide. Prints the wall time
 * of each start-up step (the first runtime call loads the driver; cudaFree(0) makes the
 * context), of pinning host memory like spectro's plans do, and of the whole process
 * (measure it with `time`: the context is torn down at exit).
 *
 *   time build/bench/bench_cuda_start */
#include <cuda_runtime.h>

#include <cstdio>
#include <ctime>

static double now()
{
    timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int step(const char *what, cudaError_t e, double &t0)
{
    double t = now();
    if (e != cudaSuccess) {
        fprintf(stderr, "bench_cuda_start: %s: %s\n", what, cudaGetErrorString(e));
        return 1;
    }
    printf("%-44s %8.1f ms\n", what, 1e3 * (t - t0));
    t0 = t;
    return 0;
}

int main()
{
    const size_t pinned = (size_t)45 << 20; /* a 4096-point plan's stft buffers, batch 2047 */
    double t0 = now(), start = t0;
    int count = 0;
    void *d = nullptr, *h = nullptr;
    cudaStream_t s = nullptr;
    if (step("driver load (cudaGetDeviceCount)", cudaGetDeviceCount(&count), t0) ||
        step("context (cudaFree(0))", cudaFree(0), t0) ||
        step("a stream", cudaStreamCreate(&s), t0) ||
        step("device memory, 64 MB", cudaMalloc(&d, (size_t)64 << 20), t0) ||
        step("pinned host memory, 45 MB", cudaHostAlloc(&h, pinned, cudaHostAllocDefault), t0) ||
        step("copy 45 MB to the device", cudaMemcpy(d, h, pinned, cudaMemcpyHostToDevice), t0) ||
        step("unpin the host memory", cudaFreeHost(h), t0) || step("free the rest", cudaStreamDestroy(s), t0) ||
        step("free the device memory", cudaFree(d), t0))
        return 1;
    printf("%-44s %8.1f ms  (plus the context's teardown at exit)\n", "total before exit", 1e3 * (now() - start));
    return 0;
}
