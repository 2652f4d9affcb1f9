/* spectro_job: the program's run as a call (job.h), with the library's modules and font
 * found beside the library; the settings' table as data; the devices; the build's features. */
#include <pthread.h>
#include <sndfile.h>
#include <stdlib.h>
#include <string.h>

#include "api_internal.h"
#include "job.h"
#include "job_report.h"
#include "source.h"
#ifdef SPECTRO_HAVE_RENDER
#include <SDL.h>
#include <SDL_ttf.h>
#include <png.h>
#endif
#ifdef SPECTRO_HAVE_PORTAUDIO
#include <portaudio.h>
#endif

struct spectro_job {
    job *j;
    api_frames frames; /* spectro_job_set_frames' */
    api_stream stream; /* spectro_job_set_stream's */
    double capture;    /* a live run's capture time (the run's capture_anchor) */
    /* the settings given, in order (spectro_job_derive replays them): the job's own copies */
    const char **given_name, **given_value;
    int n_given;
    spectro_window_fn window; /* spectro_job_set_window's */
    void *window_user;
    int ran;
    int stopped; /* the reason of the stop that ended the last run, or 0 */
};

#ifndef __cplusplus
_Static_assert((int)SPECTRO_MESSAGE_ERROR == (int)JOB_SAY_ERROR &&
                   (int)SPECTRO_MESSAGE_WARNING == (int)JOB_SAY_WARNING &&
                   (int)SPECTRO_MESSAGE_NOTE == (int)JOB_SAY_NOTE && (int)SPECTRO_MESSAGE_INFO == (int)JOB_SAY_INFO,
               "the message levels are the job's");
#endif

int spectro_job_create(spectro_job **out, spectro_error *err)
{
    spectro_job *s;
    sp_errinfo ei = {{0}};
    int code;
    if (!out)
        return api_fail(err, SPECTRO_EINVAL, "out is NULL");
    *out = NULL;
    if (!(s = calloc(1, sizeof *s)))
        return api_fail(err, SPECTRO_ENOMEM, "out of memory");
    if ((code = job_create(&s->j, &ei)) != SP_OK) {
        free(s);
        return api_from_engine(err, code, &ei);
    }
    s->j->api = s;
    /* the modules and the font beside the library, kept by the job (the paths are the
     * calling thread's buffers) */
    {
        const char *gpu = api_gpu_module(), *ffmpeg = api_ffmpeg_module(), *font = api_font();
        if ((gpu && !(s->j->an.fft_tuning.gpu_module = job_keep(s->j, gpu, &ei))) ||
            (ffmpeg && !(s->j->an.file.ffmpeg_module = job_keep(s->j, ffmpeg, &ei))) ||
            (font && !(s->j->an.render.font_bundled = job_keep(s->j, font, &ei)))) {
            spectro_job_destroy(s);
            return api_from_engine(err, SP_ENOMEM, &ei);
        }
    }
    *out = s;
    return SPECTRO_OK;
}

void spectro_job_destroy(spectro_job *s)
{
    if (!s)
        return;
    job_destroy(s->j);
    api_frames_free(&s->frames);
    api_stream_free(&s->stream);
    free(s->given_name);
    free(s->given_value);
    free(s);
}

void spectro_job_set_stream(spectro_job *s, const spectro_stream_ops *ops, void *user)
{
    if (!s)
        return;
    api_frames_set(&s->frames, s->j, NULL, NULL);
    api_stream_set(&s->stream, s->j, ops, user);
    s->j->run.capture_anchor = ops ? &s->capture : NULL;
}

double spectro_job_capture_time(const spectro_job *s)
{
    return s ? s->capture : 0.0;
}

/* Keeps (name, value) in the order given, for spectro_job_derive. */
static int remember(spectro_job *s, const char *name, const char *value, spectro_error *err)
{
    sp_errinfo ei = {{0}};
    const char **n = realloc(s->given_name, (size_t)(s->n_given + 1) * sizeof *n), **v;
    if (n)
        s->given_name = n;
    v = n ? realloc(s->given_value, (size_t)(s->n_given + 1) * sizeof *v) : NULL;
    if (v)
        s->given_value = v;
    if (!n || !v || !(n[s->n_given] = job_keep(s->j, name, &ei)) ||
        (value && !(v[s->n_given] = job_keep(s->j, value, &ei))))
        return api_fail(err, SPECTRO_ENOMEM, "out of memory");
    if (!value)
        v[s->n_given] = NULL;
    s->n_given++;
    return SPECTRO_OK;
}

int spectro_setting_shapes_frames(const char *name)
{
    int on = job_setting_shapes_frames(name);
    return on < 0 ? SPECTRO_EINVAL : on;
}

static int excepted(const char *name, const char *const *except)
{
    for (; except && *except; except++)
        if (job_setting_same(name, *except))
            return 1;
    return 0;
}

int spectro_job_derive(const spectro_job *src, const char *const *except, spectro_job **out, spectro_error *err)
{
    spectro_job *d = NULL;
    int code;
    if (out)
        *out = NULL;
    if (!src || !out)
        return api_fail(err, SPECTRO_EINVAL, "%s is NULL", src ? "out" : "src");
    if ((code = spectro_job_create(&d, err)) != SPECTRO_OK)
        return code;
    if (src->j->env_read && (code = spectro_job_read_environment(d, err)) != SPECTRO_OK)
        goto fail;
    for (int i = 0; i < src->n_given; i++) {
        const char *name = src->given_name[i];
        if (spectro_setting_shapes_frames(name) == 1 && !excepted(name, except) &&
            (code = spectro_job_set(d, name, src->given_value[i], err)) != SPECTRO_OK)
            goto fail;
    }
    for (int i = 0; i < src->j->n_inputs; i++)
        if ((code = spectro_job_add_input(d, src->j->inputs[i], err)) != SPECTRO_OK)
            goto fail;
    d->j->say = src->j->say;
    d->j->say_user = src->j->say_user;
    d->j->run.out = src->j->run.out;
    *out = d;
    return SPECTRO_OK;
fail:
    spectro_job_destroy(d);
    return code;
}

void spectro_job_set_frames(spectro_job *s, spectro_frames_fn fn, void *user)
{
    if (!s)
        return;
    api_stream_set(&s->stream, s->j, NULL, NULL); /* one or the other */
    s->j->run.capture_anchor = NULL;
    api_frames_set(&s->frames, s->j, fn, user);
}

int spectro_job_set(spectro_job *s, const char *name, const char *value, spectro_error *err)
{
    sp_errinfo ei = {{0}};
    int code;
    if (!s || !name)
        return api_fail(err, SPECTRO_EINVAL, "%s is NULL", s ? "name" : "job");
    code = job_set(s->j, name, value, &ei);
    return code == SP_OK ? remember(s, name, value, err) : api_from_engine(err, code, &ei);
}

int spectro_job_add_input(spectro_job *s, const char *input, spectro_error *err)
{
    sp_errinfo ei = {{0}};
    int code;
    if (!s)
        return api_fail(err, SPECTRO_EINVAL, "job is NULL");
    code = job_add_input(s->j, input, &ei);
    return code == SP_OK ? SPECTRO_OK : api_from_engine(err, code, &ei);
}

int spectro_job_read_environment(spectro_job *s, spectro_error *err)
{
    sp_errinfo ei = {{0}};
    int code;
    if (!s)
        return api_fail(err, SPECTRO_EINVAL, "job is NULL");
    code = job_read_environment(s->j, &ei);
    return code == SP_OK ? SPECTRO_OK : api_from_engine(err, code, &ei);
}

void spectro_job_set_messages(spectro_job *s, spectro_message_fn fn, void *user)
{
    if (!s)
        return;
    s->j->say = fn;
    s->j->say_user = user;
}

void spectro_job_set_output(spectro_job *s, FILE *out)
{
    if (s)
        s->j->run.out = out ? out : stdout;
}

void spectro_job_set_progress(spectro_job *s, int on)
{
    if (s)
        s->j->run.progress = on != 0;
}

int spectro_job_run(spectro_job *s, spectro_error *err)
{
    sp_errinfo ei = {{0}};
    analyze_result res;
    int code;
    if (!s)
        return api_fail(err, SPECTRO_EINVAL, "job is NULL");
    if (s->ran)
        return api_fail(err, SPECTRO_EINVAL, "a job runs once: make another");
    s->ran = 1;
    if (!s->j->run.out)
        s->j->run.out = stdout;
    code = job_run(s->j, &res, &ei);
    s->stopped = code == SP_OK && res.interrupted ? atomic_load(&s->j->stopped) : 0;
    if (code == SP_OK)
        return SPECTRO_OK;
    if (!ei.msg[0] && !s->j->said) /* no line, and none said */
        snprintf(ei.msg, sizeof ei.msg, "%s", sp_strerror(code));
    return api_from_engine(err, code, &ei);
}

/* The job's window through the public job (job.h's job_window_fn). */
static int run_window(void *user, sp_errinfo *ei)
{
    spectro_job *s = user;
    spectro_error e = {SPECTRO_OK, ""};
    int code = s->window(s->window_user, s, &e);
    if (code == SPECTRO_OK)
        return SP_OK;
    snprintf(ei->msg, sizeof ei->msg, "%s", e.message); /* the codes are the engine's */
    return code;
}

void spectro_job_set_window(spectro_job *s, spectro_window_fn fn, void *user)
{
    if (!s)
        return;
    s->window = fn;
    s->window_user = user;
    s->j->window = fn ? run_window : NULL;
    s->j->window_user = fn ? s : NULL;
}

void spectro_job_stop(spectro_job *s, int reason)
{
    if (s)
        job_stop(s->j, reason);
}

int spectro_job_stopped(const spectro_job *s)
{
    return s ? s->stopped : 0;
}

/* ---- a job's settings read back ---------------------------------------------------------- */

int spectro_job_get(const spectro_job *s, const char *name, char *value, size_t len, spectro_error *err)
{
    sp_errinfo ei = {{0}};
    int code;
    if (!s || !name)
        return api_fail(err, SPECTRO_EINVAL, "%s is NULL", s ? "name" : "job");
    code = job_get(s->j, name, value, len, &ei);
    return code == SP_OK ? SPECTRO_OK : api_from_engine(err, code, &ei);
}

int spectro_job_prepare(spectro_job *s, spectro_error *err)
{
    sp_errinfo ei = {{0}};
    int code;
    if (!s)
        return api_fail(err, SPECTRO_EINVAL, "job is NULL");
    code = job_prepare(s->j, &ei);
    return code == SP_OK ? SPECTRO_OK : api_from_engine(err, code, &ei);
}

const char *spectro_job_input(const spectro_job *s, int i)
{
    return s && i >= 0 && i < s->j->n_inputs ? s->j->inputs[i] : NULL;
}

int spectro_job_is_set(const spectro_job *s, const char *name)
{
    if (!s || !name || job_setting_shapes_frames(name) < 0)
        return SPECTRO_EINVAL;
    return job_was_given(s->j, name);
}

int spectro_job_font(const spectro_job *s, char *path, size_t len, spectro_error *err)
{
    sp_errinfo ei = {{0}};
    char found[4096 + 64]; /* the search's paths are whole here: a short len cannot cut them */
    size_t n;
    int code;
    if (!s || !path || len == 0)
        return api_fail(err, SPECTRO_EINVAL, "%s", s ? "path is NULL or len 0" : "job is NULL");
    if ((code = render_find_font(&s->j->an.render, found, sizeof found, &ei)) != SP_OK)
        return api_from_engine(err, code, &ei);
    if ((n = strlen(found)) >= len)
        return api_fail(err, SPECTRO_EINVAL, "the font's path takes %zu bytes, len is %zu", n + 1, len);
    memcpy(path, found, n + 1);
    return SPECTRO_OK;
}

int spectro_job_stop_asked(const spectro_job *s)
{
    return s ? atomic_load(&s->j->stopped) : 0;
}

/* ---- the settings as data ----------------------------------------------------------------- */

int spectro_setting_count(void)
{
    return job_setting_count();
}

int spectro_setting_info_at(int i, spectro_setting_info *out)
{
    job_setting_doc d;
    if (!out || job_setting_doc_at(i, &d) != SP_OK)
        return SPECTRO_EINVAL;
    memset(out, 0, sizeof *out);
    out->name = d.name;
    out->alias = d.alias;
    out->value = d.value;
    out->group = d.group;
    memcpy(out->section, d.section, sizeof out->section);
    memcpy(out->help, d.text, sizeof out->help);
    out->kind = d.kind;
    memcpy(out->values, d.values, sizeof out->values);
    return SPECTRO_OK;
}

void spectro_set_field_namer(const char *(*namer)(const char *field))
{
    sp_set_field_namer(namer);
}

/* ---- features (the devices: api_devices.c) --------------------------------------------------- */

static char features[1024];
static pthread_once_t features_once = PTHREAD_ONCE_INIT;

/* One line a feature: "  name: yes (detail)" or "  name: no (why)". */
static void feature(size_t *at, const char *name, int on, const char *detail)
{
    int w;
    if (*at >= sizeof features)
        return;
    w = snprintf(features + *at, sizeof features - *at, "  %-11s %s%s%s%s\n", name, on ? "yes" : "no",
                 detail && *detail ? " (" : "", detail ? detail : "", detail && *detail ? ")" : "");
    if (w > 0)
        *at += (size_t)w;
}

static void make_features(void)
{
    char buf[160];
    size_t at = 0;
    const char *ffmpeg = source_ffmpeg_version(api_ffmpeg_module());
#ifdef SPECTRO_HAVE_RENDER
    snprintf(buf, sizeof buf, "SDL2 %d.%d.%d, SDL2_ttf %d.%d.%d", SDL_MAJOR_VERSION, SDL_MINOR_VERSION,
             SDL_PATCHLEVEL, SDL_TTF_MAJOR_VERSION, SDL_TTF_MINOR_VERSION, SDL_TTF_PATCHLEVEL);
    feature(&at, "window:", 1, buf);
    feature(&at, "png:", 1, "libpng " PNG_LIBPNG_VER_STRING);
#else
    feature(&at, "window:", 0, "built without SDL2, SDL2_ttf or libpng");
    feature(&at, "png:", 0, "built without SDL2, SDL2_ttf or libpng");
#endif
#ifdef SPECTRO_HAVE_PORTAUDIO
    feature(&at, "microphone:", 1, Pa_GetVersionText());
#else
    feature(&at, "microphone:", 0, "built without PortAudio");
#endif
#ifdef SPECTRO_HAVE_CUDA
    feature(&at, "cuda:", 1, "CUDA " SPECTRO_CUDA_VERSION ", architectures " SPECTRO_CUDA_ARCHS);
#else
    feature(&at, "cuda:", 0, "built without CUDA");
#endif
    if (ffmpeg)
        feature(&at, "ffmpeg:", 1, ffmpeg);
    else
        feature(&at, "ffmpeg:", 0, "built without libavformat, libavcodec, libswresample or libavutil");
    sf_command(NULL, SFC_GET_LIB_VERSION, buf, sizeof buf);
    feature(&at, "files:", 1, buf);
}

const char *spectro_features(void)
{
    pthread_once(&features_once, make_features);
    return features;
}
