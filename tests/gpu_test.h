/* gpu_test.h: what test_gpu_fft.c and test_gpu_reduce.c share: host memory that exits on
 * failure, and the plans they make (fft_config.tuning.cuda_path: fused, perlevel,
 * portable; make_plan gives its plans set_path()'s kernels). */
#ifndef SPECTRO_GPU_TEST_H
#define SPECTRO_GPU_TEST_H

#include <stdio.h>
#include <stdlib.h>

#include "fft.h"
#include "fft_backend.h"
#include "test_util.h"

static inline void *xmalloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "gpu test: out of host memory (%zu bytes)\n", bytes);
        exit(1);
    }
    return p;
}

/* The tuning make_plan gives its plans: set_path()'s kernels, the C2C 16384 kernel. */
static fft_tuning tuning;

static inline fft_plan *make_plan(fft_backend_kind kind, size_t n, size_t hop, const float *window,
                           size_t max_batch)
{
    return tu_plan_tuned(kind, &tuning, n, hop, window, max_batch);
}

enum { PATH_FUSED, PATH_PERLEVEL, PATH_PORTABLE, PATH_COUNT };
static int cuda_path;
/* the portable path differs from the fused one from 2^15 to 2^17 (c2c; r2c 2^16 to 2^18) */
#define PORTABLE_FROM 32768
#define PORTABLE_TO 262144

static inline void set_path(int p)
{
    static const fft_cuda_path paths[PATH_COUNT] = {FFT_CUDA_PATH_FUSED, FFT_CUDA_PATH_PERLEVEL,
                                                    FFT_CUDA_PATH_PORTABLE};
    cuda_path = p;
    tuning.cuda_path = paths[p];
}

static inline const char *kind_name(fft_backend_kind k)
{
    static const char *cuda_names[PATH_COUNT] = {"cuda/fused", "cuda/perlevel", "cuda/portable"};
    return k == FFT_BACKEND_CUDA ? cuda_names[cuda_path]
           : k == FFT_BACKEND_CUFFT ? "cufft" : "cpu";
}

#endif
