#include "env.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* NULL for an unset or empty variable: both mean the default. */
static const char *env_get(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

/* SPECTRO_AUTO_RATES=cpu_core:X,gpu_start:Y,gpu:Z (any of them, any order): auto's rates,
 * each a positive number. */
static int env_auto_rates(const char *v, fft_tuning *t, sp_errinfo *ei)
{
    static const struct {
        const char *key;
        size_t off;
    } keys[] = {{"cpu_core", offsetof(fft_tuning, auto_cpu_core)},
                {"gpu_start", offsetof(fft_tuning, auto_gpu_start)},
                {"gpu", offsetof(fft_tuning, auto_gpu)}};
    const char *p = v;
    while (*p) {
        size_t klen = strcspn(p, ":,"), k;
        char *end = NULL;
        double x;
        for (k = 0; k < sizeof keys / sizeof keys[0]; k++)
            if (strlen(keys[k].key) == klen && strncmp(p, keys[k].key, klen) == 0)
                break;
        if (k == sizeof keys / sizeof keys[0] || p[klen] != ':')
            goto bad;
        errno = 0;
        x = strtod(p + klen + 1, &end);
        if (errno || end == p + klen + 1 || !(x > 0 && x < 1e300) || (*end && *end != ','))
            goto bad;
        *(double *)((char *)t + keys[k].off) = x;
        if (*end == ',' && !end[1])
            goto bad; /* a comma announces another item */
        p = *end ? end + 1 : end;
    }
    return SP_OK;
bad:
    return sp_fail(ei, SP_EINVAL, "SPECTRO_AUTO_RATES=%s: must be cpu_core:X,gpu_start:Y,gpu:Z "
                   "(any of them; positive numbers)", v);
}

int app_env_fft(fft_tuning *t, sp_errinfo *ei)
{
    const char *threads = env_get("SPECTRO_CPU_THREADS"), *simd = env_get("SPECTRO_CPU_SIMD");
    const char *path = env_get("SPECTRO_CUDA_PATH"), *stream = env_get("SPECTRO_CUDA_STREAM");
    const char *rates = env_get("SPECTRO_AUTO_RATES"), *device = env_get("SPECTRO_AUTO_DEVICE");
    int err;

    memset(t, 0, sizeof *t);
    if (threads) {
        char *end = NULL;
        errno = 0;
        long v = strtol(threads, &end, 10);
        if (errno || end == threads || *end || v < 1 || v > FFT_CPU_THREADS_MAX)
            return sp_fail(ei, SP_EINVAL, "SPECTRO_CPU_THREADS=%s: must be a whole number from 1 to %d",
                           threads, FFT_CPU_THREADS_MAX);
        t->cpu_threads = (int)v;
    }
    /* any other value keeps the default, as it always did */
    if (simd && strcmp(simd, "sse2") == 0)
        t->cpu_simd = FFT_CPU_SIMD_SSE2;
    if (path) {
        if (strcmp(path, "perlevel") == 0)
            t->cuda_path = FFT_CUDA_PATH_PERLEVEL;
        else if (strcmp(path, "portable") == 0)
            t->cuda_path = FFT_CUDA_PATH_PORTABLE;
        else if (strcmp(path, "fused") != 0)
            return sp_fail(ei, SP_EINVAL, "SPECTRO_CUDA_PATH=%s: must be fused, portable or perlevel", path);
    }
    if (stream) {
        if (strcmp(stream, "0") != 0 && strcmp(stream, "1") != 0)
            return sp_fail(ei, SP_EINVAL, "SPECTRO_CUDA_STREAM=%s: must be 0 or 1", stream);
        t->cuda_stream = stream[0] == '1' ? FFT_CUDA_STREAM_ON : FFT_CUDA_STREAM_OFF;
    }
    if (rates && (err = env_auto_rates(rates, t, ei)) != SP_OK)
        return err;
    if (device) {
        if (strcmp(device, "0") != 0 && strcmp(device, "1") != 0)
            return sp_fail(ei, SP_EINVAL, "SPECTRO_AUTO_DEVICE=%s: must be 0 or 1", device);
        t->auto_device = device[0] == '1' ? FFT_AUTO_DEVICE_PRESENT : FFT_AUTO_DEVICE_NONE;
    }
    return SP_OK;
}

int app_env_read(analyze_config *an, sp_errinfo *ei)
{
    int err = app_env_fft(&an->fft_tuning, ei);
    if (err == SP_OK)
        an->render.font_search = env_get("SPECTRO_FONT");
    return err;
}
