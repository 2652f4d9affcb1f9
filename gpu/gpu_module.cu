/* The CUDA module's one exported symbol. spectro loads this shared library (dlopen) only
 * when a GPU backend is asked for, or chosen by auto, so that the program itself needs no
 * CUDA runtime: a machine without CUDA runs every CPU path, and the Debian package
 * `spectro-cuda` adds this file. Everything else in the module is hidden
 * (-Wl,--exclude-libs,ALL and -fvisibility=hidden, gpu/CMakeLists.txt). */
#include "fft_backend.h"

extern "C" __attribute__((visibility("default"))) int spectro_gpu_module(unsigned abi, const fft_backend **cuda,
                                                                          const fft_backend **cufft)
{
    if (abi != FFT_BACKEND_ABI || !cuda || !cufft)
        return SP_EUNSUPPORTED; /* built against another fft_backend table */
    *cuda = &fft_backend_cuda;
    *cufft = &fft_backend_cufft;
    return SP_OK;
}
