/* job_env: the environment variables spectro reads, turned into a job's fields
 * (job_read_environment). The C API reaches it through spectro_job_read_environment; the
 * engine's stages take their settings as arguments and read none.
 *
 *   SPECTRO_CPU_THREADS=1..256           cpu backend threads (default min(online CPUs, 8))
 *   SPECTRO_CPU_SIMD=sse2                cpu backend: keep the 4-wide path where AVX exists
 *   SPECTRO_CUDA_PATH=fused|portable|perlevel   cuda backend kernels (default fused)
 *   SPECTRO_CUDA_STREAM=0|1              cuda backend: C2C 16384 one-block or streamed
 *                                        (default: the device's choice)
 *   SPECTRO_AUTO_RATES=cpu_core:X,gpu_start:Y,gpu:Z,host:H --backend auto's rates (fft_rates;
 *                                        any of them; default: fft_choose.c's measured ones)
 *   SPECTRO_FONT=FILE                    label font tried before the system's (skipped when
 *                                        unreadable)
 *   SPECTRO_READERS=1..64                threads decoding a big uncompressed file ahead
 *                                        (default half the cores, at most 4; 1: the reader
 *                                        thread decodes alone)
 * and the test hooks, read only in a build configured with -DSPECTRO_TEST_HOOKS=ON (the test
 * suite's; docs/developer.md "Test hooks"): elsewhere they are ignored, good or bad:
 *   SPECTRO_AUTO_DEVICE=0|1              auto: pretend no GPU / a GPU's device node
 *   SPECTRO_READ_CHUNK=1..16777216       frames those threads decode at a time (default
 *                                        2 MB of samples)
 *   SPECTRO_TEST_FONTS=bundled           labels only from SPECTRO_FONT or the font installed
 *                                        beside the library (not the system's)
 *   SPECTRO_TEST_STALL=AT:FOR            the analysis sleeps FOR seconds once after AT
 *                                        seconds of audio (a stalled consumer of a live run)
 *   SPECTRO_TEST_MAXIMA=host|off         column maxima made on the host / none (the window)
 * Unset or empty: the default. A bad value is SP_EINVAL with one line naming the variable,
 * e.g. "SPECTRO_CUDA_STREAM=yes: must be 0 or 1". Where the modules and the font are is the
 * API's (api_job.c: beside the library). The window, the program's, reads its own
 * (src/view/view_env.c: the display's and its test hooks; its labels' font is the job's). */
#include "job.h"

#include <errno.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* NULL for an unset or empty variable: both mean the default. */
static const char *env_get(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

/* SPECTRO_AUTO_RATES=cpu_core:X,gpu_start:Y,gpu:Z,host:H (any of them, any order): auto's
 * rates, each a positive number. */
static int env_auto_rates(const char *v, fft_tuning *t, sp_errinfo *ei)
{
    static const struct {
        const char *key;
        size_t off;
    } keys[] = {{.key = "cpu_core", .off = offsetof(fft_tuning, auto_cpu_core)},
                {.key = "gpu_start", .off = offsetof(fft_tuning, auto_gpu_start)},
                {.key = "gpu", .off = offsetof(fft_tuning, auto_gpu)},
                {.key = "host", .off = offsetof(fft_tuning, auto_host)}};
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
    return sp_fail(ei, SP_EINVAL, "SPECTRO_AUTO_RATES=%s: must be cpu_core:X,gpu_start:Y,gpu:Z,host:H "
                   "(any of them; positive numbers)", v);
}

int job_env_fft(fft_tuning *t, sp_errinfo *ei)
{
    const char *threads = env_get("SPECTRO_CPU_THREADS"), *simd = env_get("SPECTRO_CPU_SIMD");
    const char *path = env_get("SPECTRO_CUDA_PATH"), *stream = env_get("SPECTRO_CUDA_STREAM");
    const char *rates = env_get("SPECTRO_AUTO_RATES");
#ifdef SPECTRO_TEST_HOOKS
    const char *device = env_get("SPECTRO_AUTO_DEVICE");
#endif
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
#ifdef SPECTRO_TEST_HOOKS
    if (device) {
        if (strcmp(device, "0") != 0 && strcmp(device, "1") != 0)
            return sp_fail(ei, SP_EINVAL, "SPECTRO_AUTO_DEVICE=%s: must be 0 or 1", device);
        t->auto_device = device[0] == '1' ? FFT_AUTO_DEVICE_PRESENT : FFT_AUTO_DEVICE_NONE;
    }
#endif
    return SP_OK;
}

/* A whole number from lo to hi in *out, or SP_EINVAL with a line naming the variable. */
static int env_int(const char *name, const char *v, long lo, long hi, long *out, sp_errinfo *ei)
{
    char *end = NULL;
    long x;
    errno = 0;
    x = strtol(v, &end, 10);
    if (errno || end == v || *end || x < lo || x > hi)
        return sp_fail(ei, SP_EINVAL, "%s=%s: must be a whole number from %ld to %ld", name, v, lo, hi);
    *out = x;
    return SP_OK;
}

/* SPECTRO_READERS: decoding a file ahead on threads (source_file_par.c). */
static int env_readers(source_file_options *f, sp_errinfo *ei)
{
    const char *readers = env_get("SPECTRO_READERS");
    long v = 0;
    int err;
    if (readers) {
        if ((err = env_int("SPECTRO_READERS", readers, 1, 64, &v, ei)) != SP_OK)
            return err;
        f->readers = (int)v;
    }
    return SP_OK;
}

#ifdef SPECTRO_TEST_HOOKS
/* The test hooks of the analysis (docs/developer.md "Test hooks"), read only in a build
 * configured with -DSPECTRO_TEST_HOOKS=ON: SPECTRO_READ_CHUNK into an->file,
 * SPECTRO_TEST_FONTS into an->render, SPECTRO_TEST_STALL and SPECTRO_TEST_MAXIMA into the
 * run's context. (SPECTRO_AUTO_DEVICE is app_env_fft's.) */
static int env_test_hooks(analyze_config *an, analyze_context *ctx, sp_errinfo *ei)
{
    const char *chunk = env_get("SPECTRO_READ_CHUNK");
    const char *fonts = env_get("SPECTRO_TEST_FONTS");
    const char *stall = env_get("SPECTRO_TEST_STALL");
    const char *maxima = env_get("SPECTRO_TEST_MAXIMA");
    long v = 0;
    int err;
    if (chunk) {
        if ((err = env_int("SPECTRO_READ_CHUNK", chunk, 1, 1L << 24, &v, ei)) != SP_OK)
            return err;
        an->file.read_chunk = v;
    }
    an->render.font_no_system = fonts && strcmp(fonts, "bundled") == 0;
    if (stall && sscanf(stall, "%lf:%lf", &ctx->test.stall_at, &ctx->test.stall_for) != 2)
        ctx->test.stall_at = ctx->test.stall_for = 0;
    /* host: the column maxima on any backend (the cpu's made on the host); off: none */
    if (maxima && strcmp(maxima, "host") != 0 && strcmp(maxima, "off") != 0)
        return sp_fail(ei, SP_EINVAL, "SPECTRO_TEST_MAXIMA=%s: must be host or off", maxima);
    ctx->test.maxima = !maxima                     ? ANALYZE_TEST_MAXIMA_DEVICE
                       : strcmp(maxima, "host") == 0 ? ANALYZE_TEST_MAXIMA_HOST
                                                     : ANALYZE_TEST_MAXIMA_OFF;
    return SP_OK;
}
#endif

int job_read_environment(job *j, sp_errinfo *ei)
{
    analyze_config *an = &j->an;
    const char *gpu_module;
    int err;
    job_unprepare(j); /* into the settings as given */
    gpu_module = an->fft_tuning.gpu_module; /* the API's: kept */
    err = job_env_fft(&an->fft_tuning, ei);
    an->fft_tuning.gpu_module = gpu_module;
    if (err == SP_OK)
        err = env_readers(&an->file, ei);
#ifdef SPECTRO_TEST_HOOKS
    if (err == SP_OK)
        err = env_test_hooks(an, &j->run, ei);
#endif
    if (err != SP_OK)
        return err;
    an->render.font_search = env_get("SPECTRO_FONT");
    j->env_read = 1;
    return SP_OK;
}
