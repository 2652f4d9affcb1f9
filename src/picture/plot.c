/* plot: the spectrum plot of --png --average (see plot.h). */
#include "plot.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef SPECTRO_HAVE_RENDER

int plot_create(const plot_config *cfg, plot **out, sp_errinfo *ei)
{
    render_config rc = render_config_default();
    render *r = NULL;
    (void)cfg;
    if (out)
        *out = NULL;
    /* the renderer's own refusal, so that both say the same */
    return render_create(&rc, 48000.0, 4096, 0.0, 0.1, 1, -1, &r, ei);
}

int plot_draw(plot *p, const float *const *db, uint8_t *rgba, sp_errinfo *ei)
{
    (void)p, (void)db, (void)rgba;
    return sp_fail(ei, SP_EUNSUPPORTED, "PNG images are not built in");
}

int plot_write_png(plot *p, const float *const *db, const char *path, sp_errinfo *ei)
{
    (void)p, (void)db, (void)path;
    return sp_fail(ei, SP_EUNSUPPORTED, "PNG images are not built in");
}

render_rect plot_area(const plot *p)
{
    render_rect r = {0, 0, 0, 0};
    (void)p;
    return r;
}

double plot_x_of_hz(const plot *p, double hz)
{
    (void)p, (void)hz;
    return 0.0;
}

double plot_y_of_db(const plot *p, double db)
{
    (void)p, (void)db;
    return 0.0;
}

void plot_set_mark(plot *p, double hz)
{
    (void)p, (void)hz;
}

int plot_labels(const plot *p, plot_label *out, int max)
{
    (void)p, (void)out, (void)max;
    return 0;
}

void plot_destroy(plot *p)
{
    (void)p;
}

#else /* SPECTRO_HAVE_RENDER */

#include <SDL_ttf.h>
#include <unistd.h>

#include "canvas.h"
#include "colormap.h"
#include "png_write.h"

#define MAX_FREQ_TICKS 512
#define MAX_DB_TICKS 128
#define LABEL_GAP_LINES 2.4  /* level labels at least this many text lines apart */
#define MAX_CANDIDATES 4096  /* peaks tried for a label, most prominent first */
#define MAX_LEGEND 16        /* channels named in the legend; more: "..." */
#define PROMINENCE_DB 10.0   /* a labelled peak's least topographic prominence */

struct plot {
    plot_config cfg;
    scale_map map;
    TTF_Font *font, *font_title;
    int ttf_init;
    int fs, line_h, title_h, pad, tick_len, tick_gap;
    render_rect area;
    scale_tick ticks[MAX_FREQ_TICKS];
    int nticks;
    double dbv[MAX_DB_TICKS];
    int ndb, db_dec;
    canvas cv;
    plot_label labels[PLOT_MAX_LABELS];
    int nlabels;
};

/* ---- numbers ---------------------------------------------------------------------------- */

/* "997.0 Hz", "1.001 kHz", "12.34 kHz". */
static void format_peak_hz(double hz, char *buf, size_t len)
{
    if (hz < 1000.0)
        snprintf(buf, len, "%.1f Hz", hz);
    else if (hz < 10000.0)
        snprintf(buf, len, "%.3f kHz", hz / 1000.0);
    else
        snprintf(buf, len, "%.2f kHz", hz / 1000.0);
}

/* ---- create -------------------------------------------------------------------------------- */

static int resolve_scale(plot *p, sp_errinfo *ei)
{
    const render_config *rc = &p->cfg.rc;
    int err = render_scale_map(rc, p->cfg.rate, p->cfg.n, &p->map, ei);
    if (err == SP_OK && (!isfinite(rc->db_lo) || !isfinite(rc->db_hi) || !(rc->db_lo < rc->db_hi)))
        return sp_fail(ei, SP_EINVAL, SP_FIELD("db_range") " %g:%g: LO must be below HI", rc->db_lo, rc->db_hi);
    return err;
}

static int open_fonts_locked(plot *p, sp_errinfo *ei)
{
    char path[1024], bold[1024];
    const char *slash;
    double W = p->cfg.rc.width, H = p->cfg.rc.height;
    int err;
    if ((err = render_find_font(&p->cfg.rc, path, sizeof path, ei)) != SP_OK)
        return err;
    if (TTF_Init() != 0)
        return sp_fail(ei, SP_EIO, "cannot start SDL2_ttf: %s", TTF_GetError());
    p->ttf_init = 1;
    /* the spectrogram's sizes: about 19 px at 1920x1080, never below 10 */
    p->fs = (int)lround(fmin(H * 0.018, W * 0.0105));
    p->fs = p->fs < 10 ? 10 : p->fs > 96 ? 96 : p->fs;
    if (!(p->font = TTF_OpenFont(path, p->fs)))
        return sp_fail(ei, SP_EIO, "%s: cannot load the font: %s", path, TTF_GetError());
    slash = strrchr(path, '/');
    snprintf(bold, sizeof bold, "%.*sDejaVuSans-Bold.ttf", slash ? (int)(slash - path + 1) : 0, path);
    if (p->cfg.rc.font || access(bold, R_OK) != 0)
        snprintf(bold, sizeof bold, "%s", path);
    if (!(p->font_title = TTF_OpenFont(bold, (int)lround(p->fs * 1.2))))
        return sp_fail(ei, SP_EIO, "%s: cannot load the font: %s", bold, TTF_GetError());
    TTF_SetFontHinting(p->font, TTF_HINTING_LIGHT);
    TTF_SetFontHinting(p->font_title, TTF_HINTING_LIGHT);
    p->line_h = TTF_FontHeight(p->font);
    p->title_h = TTF_FontHeight(p->font_title);
    return SP_OK;
}

/* open_fonts_locked under the program's TTF lock (canvas.h) */
static int open_fonts(plot *p, sp_errinfo *ei)
{
    int err;
    canvas_ttf_lock();
    err = open_fonts_locked(p, ei);
    canvas_ttf_unlock();
    return err;
}

/* Level ticks at 1-2-5 steps, labels at least LABEL_GAP_LINES lines apart. */
static void level_ticks(plot *p)
{
    double lo = p->cfg.rc.db_lo, hi = p->cfg.rc.db_hi;
    double step = render_nice_125((hi - lo) * LABEL_GAP_LINES * p->line_h / p->area.h);
    int d = 0;
    p->ndb = 0;
    for (double k = ceil(lo / step - 1e-9); k * step <= hi + 1e-9 * step && p->ndb < MAX_DB_TICKS; k++)
        p->dbv[p->ndb++] = k * step;
    while (d < 3 && fabs(step * pow(10.0, d) - floor(step * pow(10.0, d) + 0.5)) > 1e-6)
        d++;
    p->db_dec = d;
}

/* Margins from the font and the widest labels, then the area and its ticks. */
static int place_areas(plot *p, sp_errinfo *ei)
{
    int W = p->cfg.rc.width, H = p->cfg.rc.height, fs = p->fs, top, bottom, left, right, dbw = 0;
    char buf[64];
    p->pad = (int)lround(0.8 * fs);
    p->tick_len = (int)lround(0.4 * fs);
    p->tick_gap = (int)lround(0.3 * fs);
    top = p->pad / 2 + p->title_h + p->pad;
    bottom = p->tick_len + p->tick_gap + p->line_h + fs / 4 + p->line_h + p->pad / 2;
    p->area.y = top;
    p->area.h = H - top - bottom;
    if (p->area.h < 32)
        return sp_fail(ei, SP_EINVAL, SP_FIELD("size") " %dx%d: too small for a spectrum plot", W, H);
    level_ticks(p);
    for (int i = 0; i < p->ndb; i++) {
        int w;
        render_format_signed(p->dbv[i], p->db_dec, buf, sizeof buf);
        w = canvas_text_width(p->font, buf);
        dbw = w > dbw ? w : dbw;
    }
    left = p->pad / 2 + p->line_h + fs / 2 + dbw + p->tick_gap + p->tick_len;
    right = p->pad + canvas_text_width(p->font, "20.05 kHz") / 2; /* the last label's half */
    p->area.x = left;
    p->area.w = W - left - right;
    if (p->area.w < 32)
        return sp_fail(ei, SP_EINVAL, SP_FIELD("size") " %dx%d: too narrow for a spectrum plot", W, H);
    p->nticks = scale_ticks(&p->map, p->area.w, canvas_text_width(p->font, "20.05 kHz") + 1.5 * fs, p->ticks,
                            MAX_FREQ_TICKS);
    return SP_OK;
}

int plot_create(const plot_config *cfg, plot **out, sp_errinfo *ei)
{
    plot *p;
    int err;
    if (!cfg || !out || cfg->channels < 1 || cfg->channels > RENDER_MAX_CHANNELS || cfg->n < 16 ||
        !(cfg->rate > 0) || (!cfg->refine && !cfg->no_labels))
        return sp_fail(ei, SP_EINVAL, "plot_create: bad arguments");
    *out = NULL;
    if (cfg->rc.width < RENDER_MIN_WIDTH || cfg->rc.width > RENDER_MAX_SIZE || cfg->rc.height < RENDER_MIN_HEIGHT ||
        cfg->rc.height > RENDER_MAX_SIZE)
        return sp_fail(ei, SP_EINVAL, SP_FIELD("size") " %dx%d: width must be %d .. %d and height %d .. %d pixels",
                       cfg->rc.width, cfg->rc.height, RENDER_MIN_WIDTH, RENDER_MAX_SIZE, RENDER_MIN_HEIGHT,
                       RENDER_MAX_SIZE);
    if (!(p = calloc(1, sizeof *p)))
        return sp_fail(ei, SP_ENOMEM, "out of memory");
    p->cfg = *cfg;
    if (!p->cfg.ylabel)
        p->cfg.ylabel = "Level (dBFS)";
    if ((err = resolve_scale(p, ei)) != SP_OK || (err = open_fonts(p, ei)) != SP_OK ||
        (err = place_areas(p, ei)) != SP_OK) {
        plot_destroy(p);
        return err;
    }
    *out = p;
    return SP_OK;
}

void plot_destroy(plot *p)
{
    if (!p)
        return;
    canvas_ttf_lock();
    if (p->font)
        TTF_CloseFont(p->font);
    if (p->font_title)
        TTF_CloseFont(p->font_title);
    if (p->ttf_init)
        TTF_Quit();
    canvas_ttf_unlock();
    free(p);
}

/* ---- geometry ------------------------------------------------------------------------------ */

render_rect plot_area(const plot *p)
{
    return p->area;
}

double plot_x_of_hz(const plot *p, double hz)
{
    return p->area.x + scale_to_unit(&p->map, hz) * p->area.w;
}

double plot_y_of_db(const plot *p, double db)
{
    const render_config *rc = &p->cfg.rc;
    return p->area.y + (rc->db_hi - db) / (rc->db_hi - rc->db_lo) * (p->area.h - 1);
}

/* The row of a level, on the area's edge when outside the range. */
static int row_of(const plot *p, double db)
{
    double y = plot_y_of_db(p, db);
    if (!(y >= p->area.y)) /* NaN too */
        return p->area.y;
    return y > p->area.y + p->area.h - 1 ? p->area.y + p->area.h - 1 : (int)lround(y);
}

static rgb8 curve_colour(const plot *p, int channel)
{
    uint8_t c[3];
    rgb8 col;
    float t = p->cfg.channels == 1 ? 0.85f : 0.3f + 0.65f * (float)channel / (float)(p->cfg.channels - 1);
    colormap_rgb(p->cfg.rc.colormap, t, c);
    col.r = c[0];
    col.g = c[1];
    col.b = c[2];
    return col;
}

/* ---- drawing ------------------------------------------------------------------------------- */

static void draw_grid_and_axes(const plot *p)
{
    const render_rect *a = &p->area;
    char buf[64];
    int w;
    for (int i = 0; i < p->ndb; i++) {
        int y = (int)lround(plot_y_of_db(p, p->dbv[i]));
        canvas_blend(&p->cv, a->x, y, a->w, 1, RENDER_COL_FRAME, 150);
        canvas_fill(&p->cv, a->x - 1 - p->tick_len, y, p->tick_len, 1, RENDER_COL_TICK);
        render_format_signed(p->dbv[i], p->db_dec, buf, sizeof buf);
        w = canvas_text_width(p->font, buf);
        canvas_text(&p->cv, p->font, buf, a->x - 1 - p->tick_len - p->tick_gap - w, y - p->line_h / 2,
                    RENDER_COL_LABEL, 0);
    }
    for (int i = 0; i < p->nticks; i++) {
        const scale_tick *t = &p->ticks[i];
        int x = a->x + (int)fmin(floor(t->u * a->w), a->w - 1), y = a->y + a->h; /* its column */
        canvas_blend(&p->cv, x, a->y, 1, a->h, RENDER_COL_FRAME, t->labeled ? 150 : 60);
        canvas_fill(&p->cv, x, y, 1, t->labeled ? p->tick_len : p->tick_len / 2, RENDER_COL_TICK);
        if (t->labeled) {
            w = canvas_text_width(p->font, t->label);
            canvas_text(&p->cv, p->font, t->label, x - w / 2, y + p->tick_len + p->tick_gap, RENDER_COL_LABEL, 0);
        }
    }
    canvas_outline(&p->cv, a->x - 1, a->y - 1, a->w + 2, a->h + 2, RENDER_COL_FRAME);
    w = canvas_text_width(p->font, "Frequency");
    canvas_text(&p->cv, p->font, "Frequency", a->x + (a->w - w) / 2,
                a->y + a->h + p->tick_len + p->tick_gap + p->line_h + p->fs / 4, RENDER_COL_LABEL, 0);
    w = canvas_text_width(p->font, p->cfg.ylabel);
    canvas_text(&p->cv, p->font, p->cfg.ylabel, p->pad / 2, a->y + (a->h - w) / 2, RENDER_COL_LABEL, 1);
    if (p->cfg.rc.title && *p->cfg.rc.title) {
        char t[1024];
        snprintf(t, sizeof t, "%s", p->cfg.rc.title);
        canvas_fit_text(p->font_title, t, p->cfg.rc.width - a->x - p->pad);
        canvas_text(&p->cv, p->font_title, t, a->x, p->pad / 2, RENDER_COL_TITLE, 0);
    }
}

/* The level a column shows: the highest bin in it, or, narrower than a bin, the value
 * between the two nearest bins. */
static double column_level(const plot *p, const float *db, int col)
{
    double bin_hz = p->cfg.rate / (double)p->cfg.n, last = (double)(p->cfg.n / 2);
    double k0 = scale_from_unit(&p->map, (double)col / p->area.w) / bin_hz;
    double k1 = scale_from_unit(&p->map, (double)(col + 1) / p->area.w) / bin_hz;
    size_t a = (size_t)ceil(k0), b;
    if ((double)a < k1 && (double)a <= last) {
        double best = db[a];
        for (b = a + 1; (double)b < k1 && (double)b <= last; b++)
            best = db[b] > best ? db[b] : best;
        return best;
    }
    {
        double c = 0.5 * (k0 + k1), f;
        size_t i = (size_t)floor(c);
        if ((double)i >= last)
            return db[(size_t)last];
        f = c - (double)i;
        return db[i] + f * (db[i + 1] - db[i]);
    }
}

static void draw_curve(const plot *p, const float *db, int channel)
{
    rgb8 col = curve_colour(p, channel);
    int t = p->fs >= 16 ? 2 : 1, prev = -1;
    for (int x = 0; x < p->area.w; x++) {
        int y = row_of(p, column_level(p, db, x)), y0 = prev < 0 ? y : prev < y ? prev : y,
            y1 = prev < 0 ? y : prev > y ? prev : y;
        /* a vertical run from the previous column's row joins the columns */
        canvas_fill(&p->cv, p->area.x + x, y0 - t / 2, 1, y1 - y0 + t, col);
        prev = y;
    }
}

/* The legend's box (several channels), top right inside the area; w = 0 when none. */
static render_rect legend_rect(const plot *p)
{
    render_rect r = {0, 0, 0, 0};
    int shown = p->cfg.channels > MAX_LEGEND ? MAX_LEGEND + 1 : p->cfg.channels;
    if (p->cfg.channels < 2)
        return r;
    r.w = canvas_text_width(p->font, "channel 000") + 3 * p->fs;
    r.h = shown * p->line_h + p->fs / 2;
    r.x = p->area.x + p->area.w - r.w - p->fs / 2;
    r.y = p->area.y + p->fs / 2;
    return r;
}

static void draw_legend(const plot *p)
{
    render_rect r = legend_rect(p);
    char buf[32];
    if (!r.w)
        return;
    canvas_blend(&p->cv, r.x, r.y, r.w, r.h, RENDER_COL_BG, 200);
    canvas_outline(&p->cv, r.x, r.y, r.w, r.h, RENDER_COL_FRAME);
    for (int c = 0; c < p->cfg.channels && c <= MAX_LEGEND; c++) {
        int y = r.y + p->fs / 4 + c * p->line_h;
        if (c == MAX_LEGEND) {
            canvas_text(&p->cv, p->font, "\xe2\x80\xa6", r.x + p->fs / 2, y, RENDER_COL_LABEL, 0);
            break;
        }
        canvas_fill(&p->cv, r.x + p->fs / 2, y + p->line_h / 2 - 1, p->fs + p->fs / 2, 3, curve_colour(p, c));
        snprintf(buf, sizeof buf, "channel %d", c);
        canvas_text(&p->cv, p->font, buf, r.x + 2 * p->fs + p->fs / 2, y, RENDER_COL_LABEL, 0);
    }
}

/* ---- peak labels ----------------------------------------------------------------------------- */

typedef struct {
    float prom, db;
    int channel;
    size_t bin;
} candidate;

/* Most prominent first, then strongest; ties by channel and bin, so the order (and the
 * picture) is fixed. */
static int candidate_cmp(const void *a, const void *b)
{
    const candidate *x = a, *y = b;
    if (x->prom != y->prom)
        return x->prom > y->prom ? -1 : 1;
    if (x->db != y->db)
        return x->db > y->db ? -1 : 1;
    if (x->channel != y->channel)
        return x->channel < y->channel ? -1 : 1;
    return x->bin < y->bin ? -1 : x->bin > y->bin;
}

/* One side of the prominences: low[i] = the lowest level strictly between bin i and the
 * nearest bin beyond it (in the direction dir) that is higher than i, or the spectrum's end;
 * +inf when there is none between. A stack of ever higher levels, each with the lowest level
 * between it and the one below: O(m). */
static void lowest_to_higher(const float *d, size_t m, int dir, uint32_t *stack, float *gap, float *low)
{
    size_t top = 0;
    for (size_t j = 0; j < m; j++) {
        size_t i = dir > 0 ? j : m - 1 - j;
        float lo = INFINITY;
        while (top > 0 && d[stack[top - 1]] <= d[i]) {
            top--;
            lo = fminf(lo, fminf(d[stack[top]], gap[top]));
        }
        low[i] = lo;
        stack[top] = (uint32_t)i;
        gap[top++] = lo;
    }
}

/* The topographic prominence of each bin that is a local maximum (others get 0): its height
 * above the higher of the lowest levels between it and a higher bin on either side (or the
 * spectrum's end), as scipy.signal.peak_prominences. A tone stands out of the noise and of
 * a stronger neighbour's skirt by it, where a noise bump or a skirt's ripple does not. */
static int prominences(const float *d, size_t m, float *prom)
{
    uint32_t *stack = malloc(m * sizeof *stack);
    float *gap = malloc(m * sizeof *gap), *left = malloc(m * sizeof *left);
    if (!stack || !gap || !left) {
        free(stack), free(gap), free(left);
        return -1;
    }
    lowest_to_higher(d, m, 1, stack, gap, left);
    lowest_to_higher(d, m, -1, stack, gap, prom);
    for (size_t i = 0; i < m; i++) {
        int peak = i > 0 && i + 1 < m && d[i] > d[i - 1] && d[i] >= d[i + 1];
        prom[i] = peak ? d[i] - fmaxf(left[i], prom[i]) : 0.0f;
    }
    free(stack), free(gap), free(left);
    return 0;
}

/* The local maxima of every channel inside the shown range, above the level range's floor and
 * at least PROMINENCE_DB prominent, most prominent first. */
static size_t find_candidates(const plot *p, const float *const *db, candidate **out)
{
    double bin_hz = p->cfg.rate / (double)p->cfg.n;
    size_t last = p->cfg.n / 2, kmin = (size_t)ceil(p->map.fmin / bin_hz), kmax = (size_t)floor(p->map.fmax / bin_hz);
    size_t count = 0, cap = 0;
    candidate *c = NULL;
    float *prom = malloc((last + 1) * sizeof *prom);
    kmin = kmin < 1 ? 1 : kmin;
    kmax = kmax > last - 1 ? last - 1 : kmax;
    for (int ch = 0; prom && ch < p->cfg.channels && kmin <= kmax; ch++) {
        const float *d = db[ch];
        if (prominences(d, last + 1, prom) != 0)
            break;
        for (size_t k = kmin; k <= kmax; k++) {
            if (!(prom[k] >= PROMINENCE_DB && d[k] > p->cfg.rc.db_lo))
                continue;
            if (count == cap) {
                candidate *nc = realloc(c, (cap = cap ? 2 * cap : 256) * sizeof *c);
                if (!nc)
                    break;
                c = nc;
            }
            c[count].prom = prom[k];
            c[count].db = d[k];
            c[count].channel = ch;
            c[count++].bin = k;
        }
    }
    free(prom);
    if (count)
        qsort(c, count, sizeof *c, candidate_cmp);
    *out = c;
    return count;
}

static int boxes_meet(render_rect a, render_rect b, int gap)
{
    return a.x < b.x + b.w + gap && b.x < a.x + a.w + gap && a.y < b.y + b.h + gap && b.y < a.y + a.h + gap;
}

/* The label of a peak, above its marker (below when there is no room), inside the area; its
 * figures from the caller's refinement (the --peaks one). */
static void place_label(const plot *p, const float *db, candidate c, plot_label *l)
{
    double bin_hz = p->cfg.rate / (double)p->cfg.n;
    char hz[24], lev[32];
    l->channel = c.channel;
    p->cfg.refine(p->cfg.refine_ctx, c.bin, db[c.bin - 1], db[c.bin], db[c.bin + 1], &l->hz, &l->db);
    format_peak_hz(l->hz, hz, sizeof hz);
    render_format_signed(l->db, 1, lev, sizeof lev);
    snprintf(l->text, sizeof l->text, "%s  %s dB", hz, lev);
    l->x = (int)floor(plot_x_of_hz(p, (double)c.bin * bin_hz));
    l->y = row_of(p, c.db);
    l->box.w = canvas_text_width(p->font, l->text) + p->fs / 2;
    l->box.h = p->line_h;
    l->box.x = l->x - l->box.w / 2;
    l->box.y = l->y - p->fs / 2 - l->box.h;
    if (l->box.y < p->area.y)
        l->box.y = l->y + p->fs / 2;
    if (l->box.x < p->area.x)
        l->box.x = p->area.x;
    if (l->box.x + l->box.w > p->area.x + p->area.w)
        l->box.x = p->area.x + p->area.w - l->box.w;
}

/* A label's marker square (draw_labels). */
static render_rect marker_box(const plot *p, const plot_label *l)
{
    int m = p->fs / 4 + 1;
    render_rect r = {l->x - m, l->y - m, 2 * m + 1, 2 * m + 1};
    return r;
}

/* Picks up to PLOT_MAX_LABELS peaks, most prominent first, whose labels fit without overlap. */
static void choose_labels(plot *p, const float *const *db)
{
    candidate *c = NULL;
    size_t count;
    render_rect legend = legend_rect(p);
    p->nlabels = 0;
    if (p->cfg.no_labels)
        return;
    count = find_candidates(p, db, &c);
    for (size_t i = 0; i < count && i < MAX_CANDIDATES && p->nlabels < PLOT_MAX_LABELS; i++) {
        plot_label l;
        int ok = 1;
        place_label(p, db[c[i].channel], c[i], &l);
        if (l.box.y + l.box.h > p->area.y + p->area.h || (legend.w && boxes_meet(l.box, legend, 2)))
            ok = 0;
        for (int j = 0; ok && j < p->nlabels; j++)
            /* nor on another label, nor on another's marker, nor its marker under another */
            if (boxes_meet(l.box, p->labels[j].box, p->fs / 4) || boxes_meet(l.box, marker_box(p, &p->labels[j]), 1) ||
                boxes_meet(p->labels[j].box, marker_box(p, &l), 1))
                ok = 0;
        if (ok)
            p->labels[p->nlabels++] = l;
    }
    free(c);
}

static void draw_labels(const plot *p)
{
    for (int i = 0; i < p->nlabels; i++) {
        const plot_label *l = &p->labels[i];
        render_rect m = marker_box(p, l);
        canvas_fill(&p->cv, m.x, m.y, m.w, m.h, RENDER_COL_TITLE);
        canvas_blend(&p->cv, l->box.x, l->box.y, l->box.w, l->box.h, RENDER_COL_BG, 190);
        canvas_text(&p->cv, p->font, l->text, l->box.x + p->fs / 4, l->box.y, RENDER_COL_TITLE, 0);
    }
}

const rgb8 PLOT_COL_MARK = {240, 80, 70};

/* The marked frequency (plot_config.mark_hz): a line the plot's height, its text beside the
 * line's top, on the left of it where the right has no room. */
static void draw_mark(const plot *p)
{
    const render_rect a = p->area;
    double x = plot_x_of_hz(p, p->cfg.mark_hz);
    int xi, w;
    if (!(p->cfg.mark_hz > 0) || !(x >= a.x) || !(x < a.x + a.w))
        return;
    xi = (int)x;
    canvas_fill(&p->cv, xi, a.y, 2, a.h, PLOT_COL_MARK);
    if (!p->cfg.mark_text || !*p->cfg.mark_text)
        return;
    w = canvas_text_width(p->font, p->cfg.mark_text);
    x = xi + 2 + w + p->fs / 2 <= a.x + a.w ? xi + 2 + p->fs / 2 : xi - p->fs / 2 - w;
    canvas_text(&p->cv, p->font, p->cfg.mark_text, (int)x, a.y + p->line_h / 2, PLOT_COL_MARK, 0);
}

int plot_draw(plot *p, const float *const *db, uint8_t *rgba, sp_errinfo *ei)
{
    int W, H;
    if (!p || !db || !rgba)
        return sp_fail(ei, SP_EINVAL, "plot_draw: bad arguments");
    W = p->cfg.rc.width;
    H = p->cfg.rc.height;
    p->cv = canvas_make(rgba, W, H, (size_t)W * 4);
    canvas_fill(&p->cv, 0, 0, W, H, RENDER_COL_BG);
    draw_grid_and_axes(p);
    p->cv.clip = p->area; /* the curves stay inside */
    for (int c = 0; c < p->cfg.channels; c++)
        draw_curve(p, db[c], c);
    choose_labels(p, db);
    draw_labels(p);
    draw_mark(p);
    draw_legend(p);
    p->cv.clip.x = p->cv.clip.y = 0;
    p->cv.clip.w = W;
    p->cv.clip.h = H;
    return SP_OK;
}

int plot_write_png(plot *p, const float *const *db, const char *path, sp_errinfo *ei)
{
    uint8_t *rgba;
    int err;
    if (!p || !path)
        return sp_fail(ei, SP_EINVAL, "plot_write_png: bad arguments");
    if (!(rgba = malloc((size_t)p->cfg.rc.width * (size_t)p->cfg.rc.height * 4)))
        return sp_fail(ei, SP_ENOMEM, "out of memory for a %dx%d picture", p->cfg.rc.width, p->cfg.rc.height);
    if ((err = plot_draw(p, db, rgba, ei)) == SP_OK)
        err = png_write_rgba(path, rgba, p->cfg.rc.width, p->cfg.rc.height, ei);
    free(rgba);
    return err;
}

void plot_set_mark(plot *p, double hz)
{
    if (p)
        p->cfg.mark_hz = hz;
}

int plot_labels(const plot *p, plot_label *out, int max)
{
    int n = 0;
    for (; p && out && n < p->nlabels && n < max; n++)
        out[n] = p->labels[n];
    return n;
}

#endif /* SPECTRO_HAVE_RENDER */
