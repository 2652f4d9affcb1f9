/* bench_gpu_fft: the project's radix-2 kernels (cuda backend) against cuFFT, side by side.
 *
 * For N = 2^8 .. 2^21, forward complex transforms of a batch of frames so that each run
 * reads and writes at least 256 MB (16 bytes a point: 8 read, 8 written), out of place, on
 * device data (no host transfers). Times are device-side (CUDA events), the median of
 * several warm runs. Printed per N: both times, their ratio (cuda / cufft: how many times
 * slower the project's kernels are), the effective bandwidth (bytes read + bytes written)/time
 * and 5 N log2(N) / time, with the device-to-device copy bandwidth (cudaMemcpy, read + write)
 * measured in the same run as the ceiling.
 *
 * usage: bench_gpu_fft [reps (default 15)] [min log2 N (8)] [max log2 N (21)] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "err.h"
#include "fft_gpu.h"
#include "gpu_bench.h"

static int time_backend(const fft_backend *be, size_t n, size_t batch, int reps, const float *win,
                        double *ms, sp_errinfo *ei)
{
    fft_config cfg = fft_config_default();
    void *st = NULL;
    int err;
    cfg.n = n;
    cfg.hop = n;
    cfg.max_batch = 2 * batch; /* each of the plan's two slots holds `batch` frames */
    if ((err = be->create(&cfg, win, (double)n, &st, ei)) != SP_OK)
        return err;
    err = gpu_bench_c2c(st, batch, reps, ms, ei);
    be->destroy(st);
    return err;
}

int main(int argc, char **argv)
{
    sp_errinfo ei = {{0}};
    int reps = argc > 1 ? atoi(argv[1]) : 15;
    int lo = argc > 2 ? atoi(argv[2]) : 8;
    int hi = argc > 3 ? atoi(argv[3]) : 21;
    char name[256];
    int sms = 0;
    size_t mem = 0;
    double copy_ms = 0;
    const size_t copy_bytes = (size_t)1 << 30;
    const size_t run_bytes = (size_t)256 << 20;

    if (reps < 1 || lo < 4 || hi > 22 || lo > hi) {
        fprintf(stderr, "usage: bench_gpu_fft [reps >= 1] [min log2 N >= 4] [max log2 N <= 22]\n");
        return 2;
    }
    if (fft_backend_cuda.probe(&ei) != SP_OK) {
        fprintf(stderr, "bench_gpu_fft: %s\n", ei.msg);
        return 1;
    }
    if (gpu_bench_device(name, sizeof name, &sms, &mem, &ei) != SP_OK ||
        gpu_bench_d2d(copy_bytes, reps, &copy_ms, &ei) != SP_OK) {
        fprintf(stderr, "bench_gpu_fft: %s\n", ei.msg);
        return 1;
    }
    double copy_gbs = 2.0 * (double)copy_bytes / (copy_ms * 1e-3) / 1e9;
    printf("device: %s, %d SMs, %.1f GiB\n", name, sms, (double)mem / (1 << 30));
    printf("device-to-device cudaMemcpy of %zu MiB: %.3f ms, %.0f GB/s (read + write)\n",
           copy_bytes >> 20, copy_ms, copy_gbs);
    printf("forward c2c, out of place, device data; median of %d runs; ratio = cuda/cufft time\n",
           reps);
    printf("%8s %7s %10s %10s %7s %10s %10s %9s %9s %8s %8s\n", "N", "batch", "cuda_ms",
           "cufft_ms", "ratio", "cuda_GB/s", "cufft_GB/s", "cuda_GF/s", "cufft_GF/s", "cuda_%cp",
           "cufft_%cp");

    float *win = malloc(((size_t)1 << hi) * sizeof *win);
    if (!win)
        return 1;
    for (size_t i = 0; i < ((size_t)1 << hi); i++)
        win[i] = 1.0f;
    for (int l = lo; l <= hi; l++) {
        size_t n = (size_t)1 << l;
        size_t batch = run_bytes / (16 * n);
        if (batch < 1)
            batch = 1;
        double t_cuda = 0, t_cufft = 0;
        if (time_backend(&fft_backend_cuda, n, batch, reps, win, &t_cuda, &ei) != SP_OK ||
            time_backend(&fft_backend_cufft, n, batch, reps, win, &t_cufft, &ei) != SP_OK) {
            fprintf(stderr, "bench_gpu_fft: N=%zu: %s\n", n, ei.msg);
            free(win);
            return 1;
        }
        double bytes = 16.0 * (double)n * (double)batch;
        double flops = 5.0 * (double)n * (double)l * (double)batch;
        double gbs_a = bytes / (t_cuda * 1e-3) / 1e9, gbs_b = bytes / (t_cufft * 1e-3) / 1e9;
        printf("%8zu %7zu %10.4f %10.4f %7.2f %10.1f %10.1f %9.1f %9.1f %8.1f %8.1f\n", n, batch,
               t_cuda, t_cufft, t_cuda / t_cufft, gbs_a, gbs_b, flops / (t_cuda * 1e-3) / 1e9,
               flops / (t_cufft * 1e-3) / 1e9, 100.0 * gbs_a / copy_gbs, 100.0 * gbs_b / copy_gbs);
        fflush(stdout);
    }
    free(win);
    return 0;
}
