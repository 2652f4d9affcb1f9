/* The FFmpeg source's loader: source_open_ffmpeg and source_ffmpeg_version from the module
 * libspectro-ffmpeg.so (source_ffmpeg.c), opened once on first use (dlopen), so that runs
 * which read nothing through FFmpeg do not pay for loading its libraries (~30 ms a process,
 * 163 shared libraries instead of 66). */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "source.h"

#define NO_FFMPEG "this build has no FFmpeg support (built without libavformat)"

_Static_assert(SOURCE_FFMPEG_ABI_SIZES < 0x10000, "SOURCE_FFMPEG_ABI: the sizes overflow into the version");

static pthread_mutex_t load_mu = PTHREAD_MUTEX_INITIALIZER;
static int load_tried;
static source_ffmpeg_open_fn mod_open;
static source_ffmpeg_version_fn mod_version;
static char load_why[400];

static void load_module(const char *hint)
{
#ifdef SPECTRO_FFMPEG_MODULE_BUILD
    const char *cand[] = {hint ? hint : SPECTRO_FFMPEG_MODULE_BUILD, "libspectro-ffmpeg.so"};
    snprintf(load_why, sizeof load_why, "FFmpeg's module libspectro-ffmpeg.so is missing (reinstall spectro)");
    for (size_t i = 0; i < sizeof cand / sizeof cand[0]; i++) {
        int (*entry)(unsigned, source_ffmpeg_open_fn *, source_ffmpeg_version_fn *);
        void *h = dlopen(cand[i], RTLD_NOW | RTLD_LOCAL);
        if (!h) {
            const char *e = dlerror();
            if (e && !strstr(e, "No such file"))
                snprintf(load_why, sizeof load_why, "cannot load FFmpeg's module: %s", e);
            continue;
        }
        *(void **)&entry = dlsym(h, "spectro_ffmpeg_module");
        if (entry && entry(SOURCE_FFMPEG_ABI, &mod_open, &mod_version) == SP_OK)
            return; /* kept open for the process's life */
        snprintf(load_why, sizeof load_why, "%s: not the FFmpeg module of this spectro", cand[i]);
        mod_open = NULL;
        mod_version = NULL;
        dlclose(h);
    }
#else
    (void)hint;
    snprintf(load_why, sizeof load_why, NO_FFMPEG);
#endif
}

/* The module's entry points, loaded once (thread-safe); 0 when there is none. */
static int loaded(const char *hint)
{
    int ok;
    pthread_mutex_lock(&load_mu);
    if (!load_tried) {
        load_module(hint);
        load_tried = 1;
    }
    ok = mod_open != NULL;
    pthread_mutex_unlock(&load_mu);
    return ok;
}

int source_open_ffmpeg_input(const source_ffmpeg_input *in, const source_file_options *o, source **out,
                             sp_errinfo *ei)
{
    if (out)
        *out = NULL;
    if (!in || !loaded(o ? o->ffmpeg_module : NULL)) {
        if (in && in->own_fd && in->fd >= 0)
            close(in->fd);
        return sp_fail(ei, SP_EINPUT, "%s: not a format libsndfile reads, and %s",
                       in && in->name ? in->name : "(null)", load_why);
    }
    return mod_open(in, o, out, ei);
}

int source_open_ffmpeg(const char *path, const source_file_options *o, source **out, sp_errinfo *ei)
{
    source_ffmpeg_input in = {.path = path, .fd = -1, .name = path};
    return source_open_ffmpeg_input(&in, o, out, ei);
}

const char *source_ffmpeg_version(const char *module)
{
    return loaded(module) ? mod_version() : NULL;
}
