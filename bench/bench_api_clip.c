/* bench_api_clip: the C API's time for one 1-s clip on the GPU, the figure the Python
 * package's call is held against (bench/bench_python_gpu.py runs this in the same run).
 *
 *   bench_api_clip [calls 2000] [backend cuda]
 *
 * 48 kHz mono, N 4096, hop 1024, periodic Hann; the clip and the output in device memory.
 * Three rows, each the best and the median of 7 rounds of `calls` calls, in µs a call:
 *   sync     spectro_analyzer_spectrogram_device (the library waits for its own stream);
 *   waited   spectro_analyzer_spectrogram_device_async on a user stream, then
 *            cudaStreamSynchronize on it (as a caller that reads every result does);
 *   queued   the async entry `calls` times, one synchronisation at the end (a caller's
 *            time a call when the GPU keeps up: the launch).
 * Output: one line a row, "api_clip ROW best_us median_us". */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "spectro.h"

#define ROUNDS 7

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

enum { ROW_SYNC, ROW_WAITED, ROW_QUEUED };

/* One round of `calls` calls of `row`; the seconds a call, or a negative value on failure. */
static double round_of(int row, spectro_analyzer *a, const float *d_x, size_t count, float *d_db, size_t frames,
                       cudaStream_t st, int calls)
{
    spectro_error err;
    double t0 = now_s();
    for (int i = 0; i < calls; i++) {
        int rc = row == ROW_SYNC ? spectro_analyzer_spectrogram_device(a, d_x, count, d_db, frames, &err)
                                 : spectro_analyzer_spectrogram_device_async(a, d_x, count, d_db, frames, st, &err);
        if (rc != SPECTRO_OK) {
            fprintf(stderr, "bench_api_clip: %s\n", err.message);
            return -1.0;
        }
        if (row == ROW_WAITED && cudaStreamSynchronize(st) != cudaSuccess)
            return -1.0;
    }
    if (cudaStreamSynchronize(st) != cudaSuccess)
        return -1.0;
    return (now_s() - t0) / calls;
}

int main(int argc, char **argv)
{
    static const char *rows[] = {[ROW_SYNC] = "sync", [ROW_WAITED] = "waited", [ROW_QUEUED] = "queued"};
    int calls = argc > 1 ? atoi(argv[1]) : 2000;
    spectro_analyzer_config cfg = spectro_analyzer_config_default();
    spectro_analyzer *a = NULL;
    spectro_error err;
    size_t count = 48000, frames, bins = 4096 / 2 + 1;
    float *x, *d_x = NULL, *d_db = NULL;
    cudaStream_t st;
    if (calls < 1) {
        fprintf(stderr, "bench_api_clip: calls %d: must be at least 1\n", calls);
        return 2;
    }
    cfg.sample_rate = 48000;
    cfg.fft_size = 4096;
    cfg.hop = 1024;
    cfg.backend = argc > 2 ? argv[2] : "cuda";
    if (spectro_analyzer_create(&cfg, &a, &err) != SPECTRO_OK) {
        fprintf(stderr, "bench_api_clip: %s\n", err.message);
        return 1;
    }
    frames = (size_t)spectro_analyzer_frame_count(a, count);
    if (!(x = malloc(count * sizeof *x)))
        return 1;
    for (size_t i = 0; i < count; i++)
        x[i] = (float)((double)rand() / RAND_MAX * 2.0 - 1.0);
    if (cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking) != cudaSuccess ||
        cudaMalloc((void **)&d_x, count * sizeof *d_x) != cudaSuccess ||
        cudaMalloc((void **)&d_db, frames * bins * sizeof *d_db) != cudaSuccess ||
        cudaMemcpy(d_x, x, count * sizeof *x, cudaMemcpyHostToDevice) != cudaSuccess) {
        fprintf(stderr, "bench_api_clip: CUDA set-up failed\n");
        return 1;
    }
    for (int row = ROW_SYNC; row <= ROW_QUEUED; row++) {
        double t[ROUNDS];
        if (round_of(row, a, d_x, count, d_db, frames, st, calls / 10 + 1) < 0) /* warm-up */
            return 1;
        for (int r = 0; r < ROUNDS; r++)
            if ((t[r] = round_of(row, a, d_x, count, d_db, frames, st, calls)) < 0)
                return 1;
        qsort(t, ROUNDS, sizeof *t, cmp_double);
        printf("api_clip %s %.2f %.2f\n", rows[row], t[0] * 1e6, t[ROUNDS / 2] * 1e6);
    }
    spectro_analyzer_destroy(a);
    cudaFree(d_x);
    cudaFree(d_db);
    cudaStreamDestroy(st);
    free(x);
    return 0;
}
