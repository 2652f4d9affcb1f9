/* render_internal.h: the renderer's state, shared by its two files: render.c (fonts, axes,
 * layout, drawing) and render_accum.c (spectra and column maxima folded into the picture's
 * columns). Not for other modules: they go through render.h. */
#ifndef SPECTRO_RENDER_INTERNAL_H
#define SPECTRO_RENDER_INTERNAL_H

#include <SDL_ttf.h>
#include <math.h>
#include <stdint.h>

#include "canvas.h"
#include "render.h"

#define MAX_FREQ_TICKS 512

/* How one pixel row of a panel reads a spectrum: k1 >= k0: the maximum of bins k0..k1;
 * k1 < 0: db[k0] + (db[k0+1] - db[k0]) * frac (the row is narrower than a bin). */
typedef struct {
    int32_t k0, k1;
    float frac;
} row_map;

/* One channel's columns: cols[j * panel_h + row] is the 8-bit level (0 = db_lo .. 255 =
 * db_hi) of the loudest of frames j*fpc .. (j+1)*fpc-1 in that row. Levels are quantised
 * before the maximum, which commutes with it, so nothing is lost against the 256-entry
 * colour map.
 * The column being filled is first kept per bin (pending, the maximum of its frames so
 * far, a vectorised max over the bins per frame) and mapped to rows once, when frames
 * move on to another column or the picture is drawn: the bin -> row step then costs once
 * per column, not once per frame. Row maxima commute with it; interpolated rows (narrower
 * than a bin) interpolate the per-bin maxima. */
typedef struct {
    uint8_t *cols;
    uint64_t fpc;    /* frames per column, doubles at each merge */
    uint64_t frames; /* highest frame index added + 1 */
    float *pending;  /* bins values */
    int64_t pending_col; /* column index of pending, -1 = none */
} accum;

struct render {
    render_config cfg;
    char *title;
    char *labels; /* cfg.panel_labels' copy (NULL: none) */
    double rate, t0, dt;
    size_t n, bins;
    int channels;
    scale_map map;
    float qscale; /* 255 / (db_hi - db_lo) */

    TTF_Font *font, *font_title;
    int ttf_init;
    int fs, line_h, title_h, tick_len, tick_gap, pad;

    render_rect plot; /* all panels together */
    int panel_h, panel_gap;
    render_rect bar;
    scale_tick ticks[MAX_FREQ_TICKS];
    int nticks;

    row_map *rows; /* panel_h entries, top row first */
    float *rowv;   /* panel_h: a column's row values in dB, before quantising */
    float *rowv_par; /* SP_PAR_MAX of them: columns mapped at once (render_add_max_rows) */
    size_t cap;    /* columns per channel, even */
    accum *acc;    /* channels entries */
    int64_t axis_frames; /* frames the time axis spans; -1 = those added */

    /* the drawing under way: the picture, and only pixels inside cv.clip are written
     * (render_draw: the whole picture) */
    canvas cv;
    int keep_panels; /* the panels' pixels are the caller's: neither cleared nor drawn */
};

/* dB -> colour map level 0 (db_lo) .. 255 (db_hi). */
static inline uint8_t quantise(float v, float lo, float qs)
{
    float t = (v - lo) * qs;
    t = t > 0.0f ? t : 0.0f; /* also NaN -> 0 */
    t = t < 255.0f ? t : 255.0f;
    return (uint8_t)(int)(t + 0.5f);
}

/* An accumulated column's level before any frame: the bottom (max), or the middle. */
#define RENDER_LEVEL_EMPTY(fold_signed) ((fold_signed) ? 128 : 0)

/* The level of two that a column keeps: the larger, or (cfg.fold_signed) the farther from
 * the middle of the range (127.5; a tie keeps a). */
static inline uint8_t level_fold(uint8_t a, uint8_t b, int fold_signed)
{
    int da = 2 * (int)a - 255, db = 2 * (int)b - 255;
    if (!fold_signed)
        return b > a ? b : a;
    return (db < 0 ? -db : db) > (da < 0 ? -da : da) ? b : a;
}

/* The value of two that a column keeps, as level_fold does in dB (mid: the range's middle). */
static inline float value_fold(float a, float b, float mid, int fold_signed)
{
    if (!fold_signed)
        return b > a ? b : a;
    return fabsf(b - mid) > fabsf(a - mid) ? b : a;
}

/* Maps the pending per-bin column to rows and folds it into its column (render_accum.c). */
void render_accum_flush(render *r, accum *a);
/* A spectrum's value in each pixel row (dB, into rv): O(bins + panel_h). */
void render_column_rows(const render *r, const float *s, float *restrict rv);

#endif
