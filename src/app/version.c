#include "version.h"

#include <sndfile.h>

#include "env.h"
#include "source.h"
#include "spectro_git.h"
#ifdef SPECTRO_HAVE_RENDER
#include <SDL.h>
#include <SDL_ttf.h>
#include <png.h>
#endif
#ifdef SPECTRO_HAVE_PORTAUDIO
#include <portaudio.h>
#endif

#ifndef SPECTRO_VERSION
#define SPECTRO_VERSION "?"
#endif

/* One line a feature: "  name: yes (detail)" or "  name: no (why)". */
static void feature(FILE *f, const char *name, int on, const char *detail)
{
    fprintf(f, "  %-11s %s%s%s%s\n", name, on ? "yes" : "no", detail && *detail ? " (" : "", detail ? detail : "",
            detail && *detail ? ")" : "");
}

void app_print_version(FILE *f)
{
    char buf[160];
    fprintf(f, "spectro %s (git %s)\n", SPECTRO_VERSION, SPECTRO_GIT_REV);
    fprintf(f, "features:\n");
#ifdef SPECTRO_HAVE_RENDER
    snprintf(buf, sizeof buf, "SDL2 %d.%d.%d, SDL2_ttf %d.%d.%d", SDL_MAJOR_VERSION, SDL_MINOR_VERSION,
             SDL_PATCHLEVEL, SDL_TTF_MAJOR_VERSION, SDL_TTF_MINOR_VERSION, SDL_TTF_PATCHLEVEL);
    feature(f, "window:", 1, buf);
    feature(f, "png:", 1, "libpng " PNG_LIBPNG_VER_STRING);
#else
    feature(f, "window:", 0, "built without SDL2, SDL2_ttf or libpng");
    feature(f, "png:", 0, "built without SDL2, SDL2_ttf or libpng");
#endif
#ifdef SPECTRO_HAVE_PORTAUDIO
    feature(f, "microphone:", 1, Pa_GetVersionText());
#else
    feature(f, "microphone:", 0, "built without PortAudio");
#endif
#ifdef SPECTRO_HAVE_CUDA
    feature(f, "cuda:", 1, "CUDA " SPECTRO_CUDA_VERSION ", architectures " SPECTRO_CUDA_ARCHS);
#else
    feature(f, "cuda:", 0, "built without CUDA");
#endif
    if (source_ffmpeg_version(app_ffmpeg_module()))
        feature(f, "ffmpeg:", 1, source_ffmpeg_version(app_ffmpeg_module()));
    else
        feature(f, "ffmpeg:", 0, "built without libavformat, libavcodec, libswresample or libavutil");
    sf_command(NULL, SFC_GET_LIB_VERSION, buf, sizeof buf);
    feature(f, "files:", 1, buf);
}
