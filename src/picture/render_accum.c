/* The renderer's columns: spectra, or column maxima, folded into 8-bit levels per pixel row
 * (render_internal.h's accum), merged two by two when a picture of unknown length outgrows
 * them. */
#include <stdlib.h>
#include <string.h>

#include "par.h"
#include "render_internal.h"

#define PAR_MIN_COLUMNS 8 /* render_add_max_rows: fewer whole columns go one by one */

/* Halves the columns in use: column i becomes the fold (max) of 2i and 2i+1; O(cap * panel_h). */
static void accum_merge(accum *a, size_t cap, size_t rows, int fold_signed)
{
    for (size_t i = 0; i < cap / 2; i++) {
        uint8_t *d = a->cols + i * rows;
        const uint8_t *s0 = a->cols + 2 * i * rows, *s1 = s0 + rows;
        for (size_t y = 0; y < rows; y++)
            d[y] = level_fold(s0[y], s1[y], fold_signed);
    }
    memset(a->cols + cap / 2 * rows, RENDER_LEVEL_EMPTY(fold_signed), cap / 2 * rows);
    a->fpc *= 2;
}

/* A spectrum's value in each pixel row (dB, into rv): O(bins + panel_h). */
void render_column_rows(const render *r, const float *s, float *restrict rv)
{
    const size_t rows = (size_t)r->panel_h;
    const float mid = 0.5f * (r->cfg.db_lo + r->cfg.db_hi);
    const int sgn = r->cfg.fold_signed;
    for (size_t y = 0; y < rows; y++) {
        const row_map *m = &r->rows[y];
        float v;
        if (m->k1 >= 0) {
            v = s[m->k0];
            for (int32_t k = m->k0 + 1; k <= m->k1; k++)
                v = value_fold(v, s[k], mid, sgn);
        } else {
            v = s[m->k0] + (s[m->k0 + 1] - s[m->k0]) * m->frac;
        }
        rv[y] = v;
    }
}

/* col = max(col, levels of rv): a plain loop the compiler vectorises; or the signed fold. */
static void fold_levels(uint8_t *restrict col, const float *restrict rv, size_t rows, float lo, float qs,
                        int fold_signed)
{
    if (fold_signed) {
        for (size_t y = 0; y < rows; y++)
            col[y] = level_fold(col[y], quantise(rv[y], lo, qs), 1);
        return;
    }
    for (size_t y = 0; y < rows; y++) {
        uint8_t q = quantise(rv[y], lo, qs);
        col[y] = q > col[y] ? q : col[y];
    }
}

/* Maps the pending per-bin column to rows and folds it into its column:
 * O(bins + panel_h), once per column. */
void render_accum_flush(render *r, accum *a)
{
    if (a->pending_col < 0)
        return;
    render_column_rows(r, a->pending, r->rowv);
    fold_levels(a->cols + (size_t)a->pending_col * (size_t)r->panel_h, r->rowv, (size_t)r->panel_h,
                r->cfg.db_lo, r->qscale, r->cfg.fold_signed);
    a->pending_col = -1;
}

/* p = max(p, s) per bin; restrict lets the compiler use packed max instructions. Or the
 * signed fold about mid. */
static void bins_max(float *restrict p, const float *restrict s, size_t n, float mid, int fold_signed)
{
    if (fold_signed) {
        for (size_t k = 0; k < n; k++)
            p[k] = value_fold(p[k], s[k], mid, 1);
        return;
    }
    for (size_t k = 0; k < n; k++)
        p[k] = s[k] > p[k] ? s[k] : p[k];
}

/* Frame f's spectrum s (or the maximum of frames f .. last-1 of one column) into its column. */
static void add_row(render *r, accum *a, uint64_t f, uint64_t last, const float *s)
{
    int64_t j;
    if (f / a->fpc >= r->cap) {
        render_accum_flush(r, a);
        while (f / a->fpc >= r->cap)
            accum_merge(a, r->cap, (size_t)r->panel_h, r->cfg.fold_signed);
    }
    j = (int64_t)(f / a->fpc);
    if (j != a->pending_col) {
        render_accum_flush(r, a);
        memcpy(a->pending, s, r->bins * sizeof *s);
        a->pending_col = j;
    } else {
        bins_max(a->pending, s, r->bins, 0.5f * (r->cfg.db_lo + r->cfg.db_hi), r->cfg.fold_signed);
    }
    if (last > a->frames)
        a->frames = last;
}

int render_add(render *r, int channel, uint64_t first, size_t nframes, const float *db)
{
    if (!r || channel < 0 || channel >= r->channels || (!db && nframes))
        return SP_EINVAL;
    for (size_t i = 0; i < nframes; i++)
        add_row(r, &r->acc[channel], first + i, first + i + 1, db + i * r->bins);
    return SP_OK;
}

int render_add_max(render *r, int channel, uint64_t f0, uint64_t f1, const float *max_db)
{
    if (!r || channel < 0 || channel >= r->channels || !max_db || f1 <= f0 ||
        f0 / r->acc[channel].fpc != (f1 - 1) / r->acc[channel].fpc)
        return SP_EINVAL;
    add_row(r, &r->acc[channel], f0, f1, max_db);
    return SP_OK;
}

/* Whole columns of a block of maxima (one row of bins values each), mapped to pixel rows
 * and folded in on the pool's threads, each with its own rowv. */
typedef struct {
    const render *r;
    uint8_t *cols;     /* the first column's levels */
    const float *rows; /* its row */
    size_t n;          /* columns */
} max_rows_job;

static void max_rows_part(void *ctx, int part, int parts)
{
    const max_rows_job *j = ctx;
    const render *r = j->r;
    size_t b, e, h = (size_t)r->panel_h;
    float *rv = r->rowv_par + (size_t)part * h;
    sp_par_share(j->n, part, parts, &b, &e);
    for (size_t i = b; i < e; i++) {
        render_column_rows(r, j->rows + i * r->bins, rv);
        fold_levels(j->cols + i * h, rv, h, r->cfg.db_lo, r->qscale, r->cfg.fold_signed);
    }
}

int render_add_max_rows(render *r, int channel, uint64_t first, size_t nframes, uint64_t span, const float *rows)
{
    accum *a;
    size_t nrows;
    uint64_t g0, end = first + nframes;
    if (!r || channel < 0 || channel >= r->channels || !rows || span == 0 || nframes == 0)
        return SP_EINVAL;
    a = &r->acc[channel];
    g0 = first / span;
    nrows = (size_t)((end - 1) / span - g0 + 1); /* the groups touched: fft_colmax_rows */
    for (size_t i = 0; i < nrows; i++) {
        uint64_t f0 = (g0 + i) * span, f1 = f0 + span;
        size_t full = nrows - 1 - i; /* rows i .. nrows-2: whole groups (the last may not be) */
        /* whole groups that are whole columns, none past the columns kept (no merge ahead):
         * folded in at once, as accum_flush folds each; nothing else lands in them */
        if (i > 0 && span == a->fpc && full >= PAR_MIN_COLUMNS && g0 + nrows <= r->cap) {
            max_rows_job j = {r, a->cols + (size_t)(g0 + i) * (size_t)r->panel_h, rows + i * r->bins, full};
            render_accum_flush(r, a);
            sp_par_run(max_rows_part, &j, sp_par_parts(full, PAR_MIN_COLUMNS / 2));
            if (f0 + full * span > a->frames)
                a->frames = f0 + full * span;
            i += full - 1;
            continue;
        }
        int err = render_add_max(r, channel, f0 > first ? f0 : first, f1 < end ? f1 : end, rows + i * r->bins);
        if (err != SP_OK)
            return err;
    }
    return SP_OK;
}

uint64_t render_frames_per_column(const render *r)
{
    return r && r->channels > 0 ? r->acc[0].fpc : 1;
}

int render_accum_info(const render *r, int channel, size_t *columns, size_t *capacity, uint64_t *frames_per_column,
                      uint64_t *frames)
{
    const accum *a;
    if (!r || channel < 0 || channel >= r->channels)
        return SP_EINVAL;
    a = &r->acc[channel];
    if (columns)
        *columns = (size_t)((a->frames + a->fpc - 1) / a->fpc);
    if (capacity)
        *capacity = r->cap;
    if (frames_per_column)
        *frames_per_column = a->fpc;
    if (frames)
        *frames = a->frames;
    return SP_OK;
}
