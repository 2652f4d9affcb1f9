/* view_bands: fractional-octave band bars in the spectrum strip (the `b` key: off, 1/1, 1/3
 * octave; `--bands B` with the window starts them on, `--weighting` weights them). The bars
 * are the band levels (spectro_bands: power sums of the bins over the window's ENBW) of the
 * spectrum the strip shows: live the newest, a file's the one under the cursor, else the
 * maximum over the view; each bar spans its band's rows (lower .. upper edge on the
 * frequency scale) and reaches its level on the strip's dB axis. Bands too narrow for the
 * FFT size are not drawn. The levels come from the window's 0.01 dB store. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "view_internal.h"

static const int FRACTIONS[] = {0, 1, 3}; /* the key's cycle; --bands may start at 6 or 12 */
#define NFRACTIONS ((int)(sizeof FRACTIONS / sizeof FRACTIONS[0]))

void view_bands_init(view *v)
{
    v->bd.fraction = v->user.bands;
    v->bd.weighting = v->user.bands_weighting;
}

void view_bands_free(view *v)
{
    spectro_bands_destroy(v->bd.b);
    free(v->bd.lv);
    free(v->bd.db);
    v->bd.b = NULL;
    v->bd.lv = v->bd.db = NULL;
}

int view_bands_key(view *v, SDL_Keycode sym)
{
    int i = 0;
    if (sym != SDLK_b)
        return 0;
    while (i < NFRACTIONS && FRACTIONS[i] != v->bd.fraction)
        i++;
    v->bd.fraction = FRACTIONS[(i + 1) % NFRACTIONS]; /* 6 or 12 (from --bands) go to off */
    if (v->bd.fraction)
        view_toast(v, v->bd.fraction == 1 ? "band bars: octaves" : "band bars: third octaves");
    else
        view_toast(v, "band bars: off");
    return 1;
}

/* The bands for the picture's stream and the analysis' window (its ENBW and lobe width),
 * made again when either changed (`w`, `n`). */
static int ensure_bands(view *v)
{
    view_bands *bd = &v->bd;
    const picture *p = &v->pic;
    spectro_analyzer_config fc = spectro_analyzer_config_default();
    spectro_bands_config bc = spectro_bands_config_default();
    char window[sizeof bd->key_window];
    pthread_mutex_lock(&v->sh.mu);
    snprintf(window, sizeof window, "%s", v->sh.info.window); /* the stream's, as it ran */
    pthread_mutex_unlock(&v->sh.mu);
    if (bd->b && bd->key_fraction == bd->fraction && bd->key_rate == p->rate && bd->key_n == p->n &&
        strcmp(bd->key_window, window) == 0)
        return 1;
    spectro_bands_destroy(bd->b);
    bd->b = NULL;
    fc.sample_rate = (int)p->rate;
    fc.fft_size = p->n;
    fc.window = window[0] ? window : NULL;
    bc.fraction = bd->fraction;
    bc.weighting = spectro_bands_weighting_name(bd->weighting);
    bc.fmin = 20.0;
    bc.fmax = 20000.0;
    if (spectro_bands_create_for(&fc, &bc, &bd->b, NULL) != SPECTRO_OK)
        return 0;
    bd->key_fraction = bd->fraction;
    bd->key_rate = p->rate;
    bd->key_n = p->n;
    snprintf(bd->key_window, sizeof bd->key_window, "%s", window);
    return 1;
}

/* One channel's bars over its strip panel x0 .. x0+pw, the panel's rows pr. */
static void draw_bars(view *v, const render_rect *pr, int x0, int pw, const float *lv)
{
    const scale_map *map = render_scale(v->pic.r);
    double lo = v->ui.db_lo - v->ui.gain, hi = v->ui.db_hi - v->ui.gain;
    for (size_t i = 0; i < spectro_bands_count(v->bd.b); i++) {
        double u0 = scale_to_unit(map, spectro_bands_lower_hz(v->bd.b, i)),
               u1 = scale_to_unit(map, spectro_bands_upper_hz(v->bd.b, i));
        if (!(u1 > 0.0) || !(u0 < 1.0))
            continue; /* outside the shown range */
        int y0 = pr->y + (int)lround((1.0 - fmin(1.0, u1)) * pr->h), y1 = pr->y + (int)lround((1.0 - fmax(0.0, u0)) * pr->h);
        double t = fmin(1.0, fmax(0.0, ((double)lv[i] - lo) / (hi - lo)));
        int w = (int)lround(t * (pw - 1)), h = y1 - y0 - (y1 - y0 > 3 ? 1 : 0); /* a gap between bars */
        if (h < 1 || w < 1)
            continue;
        for (int y = y0, end; y < y0 + h; y = end) { /* the rows no box of the strip covers */
            end = y0 + h;
            if (view_strip_keepout(v, x0, w + 1, y, &end))
                continue;
            canvas_blend(&v->cv, x0, y, w, end - y, COL_BAR, 120);
            canvas_fill(&v->cv, x0 + w - 1, y, 2, end - y, COL_BAR);
            view_note_bar(v, x0, y, w + 1, end - y);
        }
    }
}

void view_bands_draw(view *v, const layout *L, const int16_t *const *cur, const float *fallback)
{
    view_bands *bd = &v->bd;
    picture *p = &v->pic;
    int C = p->channels < RENDER_MAX_CHANNELS ? p->channels : RENDER_MAX_CHANNELS, fs = L->fs;
    int x0 = L->side_x + fs / 2, pw = v->cv.w - (int)lround(fs * 1.4) - x0;
    bd->shown = 0;
    if (!bd->fraction || pw < 20 || !render_scale(p->r) || !ensure_bands(v))
        return;
    size_t nb = spectro_bands_count(bd->b);
    if (!view_grow((void **)&bd->lv, &bd->lv_cap, (size_t)C * nb, sizeof *bd->lv) ||
        !view_grow((void **)&bd->db, &bd->db_cap, p->bins, sizeof *bd->db))
        return;
    for (int c = 0; c < C; c++) {
        const float *src = fallback ? fallback + (size_t)c * p->bins : NULL;
        if (cur && cur[c]) {
            view_entry_db(v, cur[c], bd->db);
            src = bd->db;
        }
        if (!src)
            return;
        spectro_bands_levels(bd->b, src, 1, bd->lv + (size_t)c * nb, NULL);
        render_rect pr = render_plot_rect(p->r, c);
        draw_bars(v, &pr, x0, pw, bd->lv + (size_t)c * nb);
    }
    bd->shown = C;
}
