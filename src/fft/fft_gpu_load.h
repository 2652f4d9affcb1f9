/* fft_gpu_load: the GPU backends live in a shared module (libspectro-cuda.so, gpu/) that
 * spectro opens only when a GPU backend is asked for or chosen by auto, so the program
 * itself runs with no CUDA runtime installed. Private to src/fft. */
#ifndef SPECTRO_FFT_GPU_LOAD_H
#define SPECTRO_FFT_GPU_LOAD_H

#include "fft_backend.h"

#define FFT_GPU_MODULE_NAME "libspectro-cuda.so"

/* The cuda and cufft backends from the module: `hint` (a path: the program passes the one
 * installed beside it, or the build tree's when it runs from there), or, when hint is NULL
 * (the tests, the benchmarks), the build tree's; then the dynamic loader's search for
 * FFT_GPU_MODULE_NAME. Loaded once per process (thread-safe); a failure is
 * remembered too. SP_EUNSUPPORTED with the reason ("not installed", the loader's error)
 * when there is none. */
int fft_gpu_backends(const char *hint, const fft_backend **cuda, const fft_backend **cufft, sp_errinfo *ei);

#endif
