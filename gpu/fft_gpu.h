/* fft_gpu: the GPU FFT backends (plain C header, no CUDA types).
 *   fft_backend_cuda   the project's radix-2 kernels (bit-reverse + butterfly levels)
 *   fft_backend_cufft  NVIDIA cuFFT, for cross-checks and side-by-side speed
 * Only present when spectro is built with CUDA (SPECTRO_HAVE_CUDA). */
#ifndef SPECTRO_FFT_GPU_H
#define SPECTRO_FFT_GPU_H

#include "fft_backend.h"
#include "gpu_plan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* fft_backend_cuda and fft_backend_cufft, declared in fft_backend.h */

/* fused_c2c's flags (FUSED_*, fft_fused.h) that the cuda backend uses for cfg's
 * cuda_path and cuda_stream on the current device (the bench names the kernel with it). */
unsigned fft_cuda_c2c_flags(const fft_config *cfg);

/* The GPU plan of the cuda or cufft backend (cfg->backend; cfg validated as fft.c does) for
 * code that drives it on device data through gpu_plan.h's device entry points (the
 * benchmarks); everyone else goes through fft.h. Destroy with gpu_plan_destroy. */
int fft_gpu_plan_create(const fft_config *cfg, const float *window, double window_sum, gpu_plan **out,
                        sp_errinfo *ei);

#ifdef __cplusplus
}
#endif
#endif
