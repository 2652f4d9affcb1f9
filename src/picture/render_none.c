/* render_none: the renderer of a build without SDL2, SDL2_ttf or libpng (render.c has the
 * real one): options still parse, pictures are refused with one line saying what to install.
 * render_config_default is render.c's, in both builds. */
#include "render.h"

#define NO_RENDER "PNG images and the window are not built in (SDL2, SDL2_ttf or libpng was not found " \
                  "at configure time: apt-get install libsdl2-dev libsdl2-ttf-dev libpng-dev and rebuild)"

int render_find_font(const render_config *cfg, char *found, size_t len, sp_errinfo *ei)
{
    (void)cfg;
    if (found && len)
        found[0] = 0;
    return sp_fail(ei, SP_EUNSUPPORTED, NO_RENDER);
}

int render_create(const render_config *cfg, double rate, size_t n, double t0, double dt, int channels,
                  int64_t frames_hint, render **out, sp_errinfo *ei)
{
    (void)cfg, (void)rate, (void)n, (void)t0, (void)dt, (void)channels, (void)frames_hint;
    if (out)
        *out = NULL;
    return sp_fail(ei, SP_EUNSUPPORTED, NO_RENDER);
}

int render_add(render *r, int channel, uint64_t first, size_t nframes, const float *db)
{
    (void)r, (void)channel, (void)first, (void)nframes, (void)db;
    return SP_EUNSUPPORTED;
}

int render_add_max(render *r, int channel, uint64_t f0, uint64_t f1, const float *max_db)
{
    (void)r, (void)channel, (void)f0, (void)f1, (void)max_db;
    return SP_EUNSUPPORTED;
}

int render_add_max_rows(render *r, int channel, uint64_t first, size_t nframes, uint64_t span, const float *rows)
{
    (void)r, (void)channel, (void)first, (void)nframes, (void)span, (void)rows;
    return SP_EUNSUPPORTED;
}

uint64_t render_frames_per_column(const render *r)
{
    (void)r;
    return 1;
}

int render_write_png(render *r, const char *path, sp_errinfo *ei)
{
    (void)r, (void)path;
    return sp_fail(ei, SP_EUNSUPPORTED, NO_RENDER);
}

void render_destroy(render *r)
{
    (void)r;
}
