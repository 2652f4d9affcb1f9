/* The API's versions, errors, name tables and module paths. */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "api_internal.h"
#include "measure.h"
#include "source.h"

#ifndef SPECTRO_VERSION
#define SPECTRO_VERSION "?"
#endif

const char *spectro_version(void)
{
    return SPECTRO_VERSION;
}

int spectro_api_version(void)
{
    return SPECTRO_API_VERSION;
}

/* The codes are the engine's (err.h): the program's exit status follows from each. */
#ifndef __cplusplus
_Static_assert(SPECTRO_EINVAL == SP_EINVAL && SPECTRO_EINPUT == SP_EINPUT && SPECTRO_ENOMEM == SP_ENOMEM &&
                   SPECTRO_EIO == SP_EIO && SPECTRO_EGPU == SP_EGPU && SPECTRO_ENODEV == SP_ENODEV &&
                   SPECTRO_EUNSUPPORTED == SP_EUNSUPPORTED && SPECTRO_EAUDIO == SP_EAUDIO &&
                   SPECTRO_EINTERRUPTED == SP_EINTERRUPTED,
               "the API's codes are the engine's");
_Static_assert(sizeof(spectro_complex) == sizeof(cpx), "spectro_complex is the engine's cpx");
#endif

const char *spectro_strerror(int code)
{
    return sp_strerror(code);
}

int api_fail(spectro_error *err, int code, const char *fmt, ...)
{
    va_list ap;
    if (!err)
        return code;
    err->code = code;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    return code;
}

/* The engine's messages name its settings with marks (SP_FIELD, err.h); the library shows
 * them as the fields' names ("fft_size"): no command-line option is named here. */
int api_from_engine(spectro_error *err, int code, const sp_errinfo *ei)
{
    if (!err)
        return code;
    err->code = code;
    snprintf(err->message, sizeof err->message, "%s", ei ? ei->msg : "");
    sp_render_fields(err->message, sizeof err->message);
    return code;
}

int api_check_size(size_t size, size_t min, const char *what, spectro_error *err)
{
    if (size < min)
        return api_fail(err, SPECTRO_EINVAL,
                        "%s.size is %zu: set it with %s_default() (or to sizeof(%s))", what, size, what, what);
    return SPECTRO_OK;
}

/* ---- the modules ------------------------------------------------------------------------- */

#if defined(SPECTRO_LIB_GPU_REL) || defined(SPECTRO_LIB_FFMPEG_REL) || defined(SPECTRO_LIB_FONT_REL)
/* rel made absolute from this library's directory into buf; NULL when the library runs from
 * the build tree (the engine then takes the build tree's module) or the loader cannot say. */
static const char *beside_library(const char *rel, char *buf, size_t len)
{
    Dl_info info;
    const char *slash;
    if (!dladdr((void *)&spectro_version, &info) || !info.dli_fname || !(slash = strrchr(info.dli_fname, '/')))
        return NULL;
#ifdef SPECTRO_BUILD_DIR
    if (strncmp(info.dli_fname, SPECTRO_BUILD_DIR "/", sizeof SPECTRO_BUILD_DIR) == 0)
        return NULL;
#endif
    if ((size_t)snprintf(buf, len, "%.*s/%s", (int)(slash - info.dli_fname), info.dli_fname, rel) >= len)
        return NULL;
    return buf;
}
#endif

/* The path is read by the loader within the caller's call (once a process): a buffer of
 * the calling thread's. */
const char *api_gpu_module(void)
{
#ifdef SPECTRO_LIB_GPU_REL
    static _Thread_local char path[4096 + sizeof SPECTRO_LIB_GPU_REL + 1];
    return beside_library(SPECTRO_LIB_GPU_REL, path, sizeof path);
#else
    return NULL;
#endif
}

const char *api_font(void)
{
#ifdef SPECTRO_LIB_FONT_REL
    static _Thread_local char path[4096 + sizeof SPECTRO_LIB_FONT_REL + 1];
    return beside_library(SPECTRO_LIB_FONT_REL, path, sizeof path);
#else
    return NULL;
#endif
}

const char *api_ffmpeg_module(void)
{
#ifdef SPECTRO_LIB_FFMPEG_REL
    static _Thread_local char path[4096 + sizeof SPECTRO_LIB_FFMPEG_REL + 1];
    return beside_library(SPECTRO_LIB_FFMPEG_REL, path, sizeof path);
#else
    return NULL;
#endif
}

/* ---- tables ----------------------------------------------------------------------------------- */

int spectro_window_count(void)
{
    return window_count();
}

const char *spectro_window_name(int i)
{
    return window_name(i);
}

int spectro_backend_count(void)
{
    return fft_backend_count();
}

const char *spectro_backend_name(int i)
{
    return fft_backend_name(i);
}

int spectro_average_count(void)
{
    return measure_average_count();
}

const char *spectro_average_name(int i)
{
    return measure_average_name(i);
}

int spectro_raw_format_count(void)
{
    return source_raw_count();
}

const char *spectro_raw_format_name(int i)
{
    return source_raw_name(i);
}
