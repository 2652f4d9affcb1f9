/* The GPU backends, from the CUDA module (gpu/gpu_module.cu), loaded once on first use. */
#include "fft_gpu_load.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

_Static_assert(FFT_BACKEND_ABI_SIZES < 0x10000, "FFT_BACKEND_ABI: the sizes overflow into the version");

typedef int (*module_entry)(unsigned abi, const fft_backend **cuda, const fft_backend **cufft);

static pthread_mutex_t load_mu = PTHREAD_MUTEX_INITIALIZER;
static int load_tried;
static const fft_backend *loaded_cuda, *loaded_cufft;
static char load_why[400];

/* Opens the first module of the candidates that exists; its entry fills the table. */
static void load_module(const char *hint)
{
#ifdef SPECTRO_GPU_MODULE_BUILD
    const char *build = SPECTRO_GPU_MODULE_BUILD;
#else
    const char *build = NULL;
#endif
    /* a hint (the program's: installed beside it) replaces the build tree's copy, so that an
     * installed spectro never loads a module from the tree it was built in */
    const char *cand[] = {hint ? hint : build, FFT_GPU_MODULE_NAME};
    snprintf(load_why, sizeof load_why, "the GPU module %s is not installed (the package spectro-cuda)",
             FFT_GPU_MODULE_NAME);
    for (size_t i = 0; i < sizeof cand / sizeof cand[0]; i++) {
        void *h;
        module_entry entry;
        if (!cand[i] || !*cand[i])
            continue;
        if (!(h = dlopen(cand[i], RTLD_NOW | RTLD_LOCAL))) {
            const char *e = dlerror();
            /* a module that exists but does not load (a missing CUDA library) says why */
            if (e && !strstr(e, "No such file"))
                snprintf(load_why, sizeof load_why, "cannot load the GPU module: %s", e);
            continue;
        }
        *(void **)&entry = dlsym(h, "spectro_gpu_module");
        if (!entry || entry(FFT_BACKEND_ABI, &loaded_cuda, &loaded_cufft) != SP_OK) {
            snprintf(load_why, sizeof load_why, "%s: not a GPU module of this spectro (built from another version)",
                     cand[i]);
            loaded_cuda = loaded_cufft = NULL;
            dlclose(h);
            continue;
        }
        return; /* kept open for the process's life */
    }
}

int fft_gpu_backends(const char *hint, const fft_backend **cuda, const fft_backend **cufft, sp_errinfo *ei)
{
    int err = SP_OK;
    pthread_mutex_lock(&load_mu);
    if (!load_tried) {
        load_module(hint);
        load_tried = 1;
    }
    if (loaded_cuda) {
        *cuda = loaded_cuda;
        *cufft = loaded_cufft;
    } else {
        err = sp_fail(ei, SP_EUNSUPPORTED, "%s", load_why);
    }
    pthread_mutex_unlock(&load_mu);
    return err;
}
