/* gpu_time: device-side timings for bench_gpu_fft (plain C header, no CUDA types). Times
 * are medians over warm runs, measured with CUDA events on the device, of work that stays
 * on the device (gpu_plan.h's device entry points). */
#ifndef SPECTRO_BENCH_GPU_TIME_H
#define SPECTRO_BENCH_GPU_TIME_H

#include <stddef.h>

#include "err.h"
#include "gpu_plan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Name of the current device, its multiprocessor count and memory size in bytes. */
int gpu_time_device(char *name, size_t len, int *sm_count, size_t *mem_bytes, sp_errinfo *ei);

/* Median time in ms of one forward transform (real: r2c, else c2c) of `batch` frames of
 * random data, out of place, no host transfer. The plan needs max_batch >= 2*batch - 1
 * (each of its two slots holds the batch). */
int gpu_time_forward(gpu_plan *gp, int real, size_t batch, int reps, double *median_ms, sp_errinfo *ei);

/* Median time in ms of the short-time levels of a device-resident random signal of nsamples
 * (>= n) samples with the plan's n, hop and window; *nframes gets the frame count. */
int gpu_time_stft(gpu_plan *gp, size_t nsamples, int reps, double *median_ms, size_t *nframes,
                  sp_errinfo *ei);

/* Median time in ms of a device-to-device cudaMemcpy of `bytes` (reads + writes 2*bytes). */
int gpu_time_d2d(size_t bytes, int reps, double *median_ms, sp_errinfo *ei);

#ifdef __cplusplus
}
#endif
#endif
