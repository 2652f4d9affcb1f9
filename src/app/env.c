#include "env.h"

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

int app_env_fft(fft_tuning *t, sp_errinfo *ei)
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

/* rel (a path relative to the running binary's directory) made absolute in buf; NULL when
 * /proc does not say where the binary is, or buf is too small. What spectro installs
 * beside itself (its font, its GPU module) is found this way under any prefix or DESTDIR. */
static const char *beside_binary(const char *rel, char *buf, size_t len)
{
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    char *slash;
    if (n <= 0)
        return NULL;
    exe[n] = 0;
    if (!(slash = strrchr(exe, '/')))
        return NULL;
    *slash = 0;
    if ((size_t)snprintf(buf, len, "%s/%s", exe, rel) >= len)
        return NULL;
    return buf;
}

/* The font and the GPU module installed with spectro (SPECTRO_INSTALL_*_REL, set by the
 * install rules); NULL in a build without them. */
static const char *bundled_font(void)
{
#ifdef SPECTRO_INSTALL_FONT_REL
    static char path[4096 + sizeof SPECTRO_INSTALL_FONT_REL + 1];
    return beside_binary(SPECTRO_INSTALL_FONT_REL, path, sizeof path);
#else
    return NULL;
#endif
}

/* A module for this binary: run from the build tree, the one built there (build); else
 * the one installed beside it (rel), never the build tree's. buf holds the latter. */
#if defined(SPECTRO_GPU_MODULE_BUILD) || defined(SPECTRO_FFMPEG_MODULE_BUILD)
static const char *module_for(const char *build, const char *rel, char *buf, size_t len)
{
#ifdef SPECTRO_BUILD_DIR
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0 && strncmp(exe, SPECTRO_BUILD_DIR "/", sizeof SPECTRO_BUILD_DIR) == 0)
        return build;
#endif
    return beside_binary(rel, buf, len);
}
#endif

/* The GPU module (the package spectro-cuda) */
static const char *bundled_gpu_module(void)
{
#if defined(SPECTRO_INSTALL_GPU_REL) && defined(SPECTRO_GPU_MODULE_BUILD)
    static char path[4096 + sizeof SPECTRO_INSTALL_GPU_REL + 1];
    return module_for(SPECTRO_GPU_MODULE_BUILD, SPECTRO_INSTALL_GPU_REL, path, sizeof path);
#else
    return NULL;
#endif
}

const char *app_ffmpeg_module(void)
{
#if defined(SPECTRO_INSTALL_FFMPEG_REL) && defined(SPECTRO_FFMPEG_MODULE_BUILD)
    static char path[4096 + sizeof SPECTRO_INSTALL_FFMPEG_REL + 1];
    return module_for(SPECTRO_FFMPEG_MODULE_BUILD, SPECTRO_INSTALL_FFMPEG_REL, path, sizeof path);
#else
    return NULL;
#endif
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

int app_env_read(analyze_config *an, analyze_context *ctx, sp_errinfo *ei)
{
    int err = app_env_fft(&an->fft_tuning, ei);
    if (err == SP_OK)
        err = env_readers(&an->file, ei);
#ifdef SPECTRO_TEST_HOOKS
    if (err == SP_OK)
        err = env_test_hooks(an, ctx, ei);
#else
    (void)ctx;
#endif
    if (err != SP_OK)
        return err;
    an->render.font_search = env_get("SPECTRO_FONT");
    an->render.font_bundled = bundled_font();
    an->fft_tuning.gpu_module = bundled_gpu_module();
    an->file.ffmpeg_module = app_ffmpeg_module();
    return SP_OK;
}

void app_env_view(view_config *vc)
{
    vc->display = getenv("DISPLAY");
    vc->wayland_display = getenv("WAYLAND_DISPLAY");
    vc->video_driver_set = getenv("SDL_VIDEODRIVER") != NULL;
#ifdef SPECTRO_TEST_HOOKS
    const char *verify = env_get("SPECTRO_VIEW_VERIFY");
    vc->stats_path = env_get("SPECTRO_VIEW_STATS");
    vc->shot_path = env_get("SPECTRO_VIEW_SHOT");
    vc->verify = verify && strcmp(verify, "0") != 0;
#endif
}
