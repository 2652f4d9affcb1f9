/* The API's versions, errors, name tables and module paths. */
#define _GNU_SOURCE /* dladdr */
#include <ctype.h>
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

/* Command-line options -> the fields that set them; the rest lose their dashes ("--x-y" ->
 * "x_y"). Longest first where one is the start of another. */
static const struct {
    const char *option, *field;
} FIELD_OF[] = {
    {"--fmin/--fmax", "fmin/fmax"}, {"--fft-size", "fft_size"}, {"--tone", "fundamental_hz"},
    {"--bands", "fraction"},        {"--average", "mode"},      {"-n", "fft_size"},
};

/* The option starting at s (s[0] == '-'), when it is one: its length, 0 otherwise. */
static size_t option_len(const char *s, const char *line)
{
    size_t len = 0;
    if (s > line && (isalnum((unsigned char)s[-1]) || strchr("-_/.", s[-1])))
        return 0; /* inside a word or a path: "non-finite", "/tmp/--x.wav" */
    if (s[1] == '-')
        len = 2;
    else if (s[1] == 'n' && !isalnum((unsigned char)s[2]) && s[2] != '-')
        return 2; /* -n */
    else
        return 0;
    if (!islower((unsigned char)s[len]))
        return 0;
    while (islower((unsigned char)s[len]) || isdigit((unsigned char)s[len]) ||
           (s[len] == '-' && islower((unsigned char)s[len + 1])) ||
           (s[len] == '/' && s[len + 1] == '-' && s[len + 2] == '-'))
        len++;
    return len;
}

static size_t put_field(char *out, size_t at, size_t cap, const char *opt, size_t len)
{
    for (size_t i = 0; i < sizeof FIELD_OF / sizeof FIELD_OF[0]; i++)
        if (strlen(FIELD_OF[i].option) == len && strncmp(FIELD_OF[i].option, opt, len) == 0) {
            for (const char *f = FIELD_OF[i].field; *f && at + 1 < cap; f++)
                out[at++] = *f;
            return at;
        }
    for (size_t i = 2; i < len && at + 1 < cap; i++)
        out[at++] = opt[i] == '-' ? '_' : opt[i] == '/' ? '/' : opt[i];
    return at;
}

int api_from_engine(spectro_error *err, int code, const sp_errinfo *ei)
{
    const char *s = ei ? ei->msg : "";
    size_t at = 0, cap;
    if (!err)
        return code;
    err->code = code;
    cap = sizeof err->message;
    while (*s && at + 1 < cap) {
        size_t len = *s == '-' ? option_len(s, ei->msg) : 0;
        if (len) {
            at = put_field(err->message, at, cap, s, len);
            s += len;
        } else {
            err->message[at++] = *s++;
        }
    }
    err->message[at] = 0;
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

#if defined(SPECTRO_LIB_GPU_REL) || defined(SPECTRO_LIB_FFMPEG_REL)
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
