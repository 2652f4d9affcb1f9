/* fft_gpu: the GPU FFT backends (plain C header, no CUDA types).
 *   fft_backend_cuda   the project's radix-2 kernels (bit-reverse + butterfly levels)
 *   fft_backend_cufft  NVIDIA cuFFT, for cross-checks and side-by-side speed
 * Only present when spectro is built with CUDA (SPECTRO_HAVE_CUDA). */
#ifndef SPECTRO_FFT_GPU_H
#define SPECTRO_FFT_GPU_H

#include "fft_backend.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const fft_backend fft_backend_cuda;
extern const fft_backend fft_backend_cufft;

/* The cuda backend's environment. SPECTRO_CUDA_PATH: fused (default), portable (the fused
 * kernels a build for GPUs before sm_90 runs, so that a Hopper tests them too) or perlevel
 * (the reference kernels, one launch a level). SPECTRO_CUDA_STREAM=0|1: C2C 16384 by the
 * one-block or the streamed kernel instead of the device's choice (stream -1). Another
 * value: SP_EINVAL, naming the variable. */
typedef struct {
    int fused, sm90, stream;
} fft_cuda_env;
int fft_cuda_env_read(fft_cuda_env *env, sp_errinfo *ei);

/* fused_c2c's flags (FUSED_*, fft_fused.h) for env on the current device */
unsigned fft_cuda_c2c_flags(const fft_cuda_env *env);

#ifdef __cplusplus
}
#endif
#endif
