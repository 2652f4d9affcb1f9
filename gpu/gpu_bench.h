/* gpu_bench: device-side timing helpers for bench/bench_gpu_fft.c (plain C, no CUDA types).
 * Times are medians over warm runs, measured with CUDA events on the device. Library code:
 * nothing here prints. */
#ifndef SPECTRO_GPU_BENCH_H
#define SPECTRO_GPU_BENCH_H

#include <stddef.h>

#include "err.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Name of the current device, its multiprocessor count and memory size in bytes. */
int gpu_bench_device(char *name, size_t len, int *sm_count, size_t *mem_bytes, sp_errinfo *ei);

/* Median time in ms of one forward c2c transform of `batch` frames, out of place, with no
 * host transfer. state comes from fft_backend_cuda.create() or fft_backend_cufft.create()
 * called with max_batch >= 2*batch - 1 (each of the plan's two slots holds the batch). */
int gpu_bench_c2c(void *state, size_t batch, int reps, double *median_ms, sp_errinfo *ei);

/* The same for one real forward transform (n floats -> n/2+1 bins a frame). */
int gpu_bench_r2c(void *state, size_t batch, int reps, double *median_ms, sp_errinfo *ei);

/* Median time in ms of the short-time levels of a device-resident signal of nsamples
 * samples with the plan's n, hop and window (the cuda backend's fused kernel, or the
 * framing + r2c + dB kernels of the cufft backend); *nframes gets the frame count. */
int gpu_bench_stft(void *state, size_t nsamples, int reps, double *median_ms, size_t *nframes,
                   sp_errinfo *ei);

/* Median time in ms of a device-to-device cudaMemcpy of `bytes` (reads + writes 2*bytes). */
int gpu_bench_d2d(size_t bytes, int reps, double *median_ms, sp_errinfo *ei);

#ifdef __cplusplus
}
#endif
#endif
