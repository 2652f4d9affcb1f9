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

#ifdef __cplusplus
}
#endif
#endif
