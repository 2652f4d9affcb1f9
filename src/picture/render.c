#include "render.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "colormap.h"

render_config render_config_default(void)
{
    render_config c;
    memset(&c, 0, sizeof c);
    c.width = 1920;
    c.height = 1080;
    c.scale = FREQ_SCALE_LINEAR;
    c.colormap = COLORMAP_VIRIDIS;
    c.db_lo = -120.0f;
    c.db_hi = 0.0f;
    c.fmin = 0.0;
    c.fmax = 0.0;
    c.title = NULL;
    c.font = NULL;
    return c;
}

#ifdef SPECTRO_HAVE_RENDER /* without: render_none.c */

#include <unistd.h>

#include "par.h"
#include "png_write.h"
#include "render_internal.h"

#ifndef SPECTRO_FONT_DIR
#define SPECTRO_FONT_DIR "assets/fonts"
#endif

#define FONT_FILE "DejaVuSans.ttf"
#define FONT_BOLD_FILE "DejaVuSans-Bold.ttf"
#define MAX_AXIS_TICKS 128
/* labelled ticks at least this many text lines apart: airy, as in print */
#define FREQ_LABEL_GAP 2.4
#define DB_LABEL_GAP 2.4
/* Accumulated columns per channel: ACCUM_MIN_RATIO .. ACCUM_MAX_RATIO times the plot
 * width, as the budget allows. After a merge a pixel gathers between ratio/2 and ratio
 * columns, so a larger ratio evens out how many frames each pixel's maximum sees (noise
 * would otherwise show faint vertical stripes). */
#define ACCUM_MIN_RATIO 2
#define ACCUM_MAX_RATIO 8
#define ACCUM_BUDGET_BYTES ((size_t)256 << 20)

const rgb8 RENDER_COL_BG = {0x12, 0x14, 0x19};
const rgb8 RENDER_COL_FRAME = {0x4d, 0x53, 0x60};
const rgb8 RENDER_COL_TICK = {0x8f, 0x95, 0xa1};
const rgb8 RENDER_COL_LABEL = {0xcc, 0xd0, 0xd8};
const rgb8 RENDER_COL_TITLE = {0xf0, 0xf1, 0xf4};
static const rgb8 COL_SHADOW = {0x00, 0x00, 0x00};


/* ---- fonts and text ------------------------------------------------------------------ */

/* Where the label font is looked for, in order: cfg->font (must be readable), font_search,
 * the system's folders, font_bundled, the source tree's assets/fonts (SPECTRO_FONT_DIR). */

int render_find_font(const render_config *cfg, char *found, size_t len, sp_errinfo *ei)
{
    const char *env = cfg->font_search;
    const char *dirs[] = {"/usr/share/fonts/truetype/dejavu", "/usr/share/fonts/TTF", "/usr/share/fonts/dejavu",
                          "/usr/share/fonts/dejavu-sans-fonts", "/usr/local/share/fonts", SPECTRO_FONT_DIR};
    if (cfg->font) {
        if (access(cfg->font, R_OK) != 0)
            return sp_fail(ei, SP_EIO, "%s: cannot read the font file", cfg->font);
        snprintf(found, len, "%s", cfg->font);
        return SP_OK;
    }
    if (env && *env && access(env, R_OK) == 0) {
        snprintf(found, len, "%s", env);
        return SP_OK;
    }
    for (size_t i = 0; !cfg->font_no_system && i + 1 < sizeof dirs / sizeof dirs[0]; i++) {
        snprintf(found, len, "%s/%s", dirs[i], FONT_FILE);
        if (access(found, R_OK) == 0)
            return SP_OK;
    }
    if (cfg->font_bundled && access(cfg->font_bundled, R_OK) == 0) {
        snprintf(found, len, "%s", cfg->font_bundled);
        return SP_OK;
    }
    /* last, the source tree's copy: a binary run from its build tree */
    snprintf(found, len, "%s/%s", dirs[sizeof dirs / sizeof dirs[0] - 1], FONT_FILE);
    if (!cfg->font_no_system && access(found, R_OK) == 0)
        return SP_OK;
    return sp_fail(ei, SP_EIO,
                   "font " FONT_FILE " not found in /usr/share/fonts/... or " SPECTRO_FONT_DIR
                   ": install fonts-dejavu-core (or set SPECTRO_FONT to a .ttf file)");
}

/* ---- axes ------------------------------------------------------------------------------ */

double render_nice_125(double min_step)
{
    double mag = pow(10.0, floor(log10(min_step)));
    if (mag >= min_step)
        return mag;
    if (2 * mag >= min_step)
        return 2 * mag;
    if (5 * mag >= min_step)
        return 5 * mag;
    return 10 * mag;
}

/* Time steps that read well on a clock: 1-2-5 below 10 s, then 15 s, 30 s, minutes... */
static double nice_time_step(double min_step)
{
    static const double clock[] = {10,  15,   20,   30,   60,   120,  180,   300,   600,   900,
                                   1200, 1800, 3600, 7200, 10800, 21600, 43200, 86400};
    if (min_step <= 10)
        return render_nice_125(min_step);
    for (size_t i = 0; i < sizeof clock / sizeof clock[0]; i++)
        if (clock[i] >= min_step)
            return clock[i];
    return 86400.0 * ceil(min_step / 86400.0);
}

void render_format_signed(double v, int decimals, char *buf, size_t len)
{
    char num[48];
    snprintf(num, sizeof num, "%.*f", decimals, fabs(v));
    if (v < 0 && strspn(num, "0.") != strlen(num))
        snprintf(buf, len, "\xe2\x88\x92%s", num);
    else
        snprintf(buf, len, "%s", num);
}

static int step_decimals(double step)
{
    int d = 0;
    while (d < 6 && fabs(step * pow(10.0, d) - floor(step * pow(10.0, d) + 0.5)) > 1e-6)
        d++;
    return d;
}

/* style 0: seconds ("12.5"), 1: m:ss, 2: h:mm:ss (fractions of a second when step < 1). */
static void format_time(double t, int style, int decimals, char *buf, size_t len)
{
    double scale = pow(10.0, decimals), a;
    long long whole;
    char frac[16] = "";
    if (style == 0) {
        render_format_signed(t, decimals, buf, len);
        return;
    }
    a = floor(fabs(t) * scale + 0.5) / scale;
    whole = (long long)floor(a);
    if (decimals > 0)
        snprintf(frac, sizeof frac, ".%0*lld", decimals, (long long)floor((a - (double)whole) * scale + 0.5));
    if (style == 1)
        snprintf(buf, len, "%s%lld:%02lld%s", t < 0 ? "\xe2\x88\x92" : "", whole / 60, whole % 60, frac);
    else
        snprintf(buf, len, "%s%lld:%02lld:%02lld%s", t < 0 ? "\xe2\x88\x92" : "", whole / 3600, whole / 60 % 60,
                 whole % 60, frac);
}

/* dB ticks of the colour bar, at 1-2-5 steps at least gap_px apart. */
static int db_ticks(const render *r, double length_px, double gap_px, double *out, int max)
{
    double lo = r->cfg.db_lo, hi = r->cfg.db_hi, raw = (hi - lo) * gap_px / length_px, step;
    int count = 0;
    if (max > 1 && raw < (hi - lo) / (max - 1)) /* a tall bar gets ticks to its top */
        raw = (hi - lo) / (max - 1);
    step = render_nice_125(raw);
    for (double k = ceil(lo / step - 1e-9); k * step <= hi + 1e-9 * step && count < max; k++)
        out[count++] = k * step;
    return count;
}

static int db_decimals(const render *r, double length_px)
{
    double v[MAX_AXIS_TICKS];
    int n = db_ticks(r, length_px, DB_LABEL_GAP * r->line_h, v, MAX_AXIS_TICKS);
    return n > 1 ? step_decimals(v[1] - v[0]) : 0;
}

/* ---- create ---------------------------------------------------------------------------- */

/* Bin -> row mapping of one panel (top row = fmax). Row y spans u in [1-(y+1)/h, 1-y/h]. */
/* A transform's rows: pixel row y shows the maximum of the columns it overlaps. */
static void build_column_rows(render *r)
{
    double h = r->panel_h, c = (double)r->bins;
    for (int y = 0; y < r->panel_h; y++) {
        double lo = (1.0 - (y + 1) / h) * c, hi = (1.0 - y / h) * c;
        int32_t k0 = (int32_t)floor(lo + 1e-9), k1 = (int32_t)ceil(hi - 1e-9) - 1;
        r->rows[y].k0 = k0 < 0 ? 0 : k0;
        r->rows[y].k1 = k1 < r->rows[y].k0 ? r->rows[y].k0 : k1 > (int32_t)r->bins - 1 ? (int32_t)r->bins - 1 : k1;
        r->rows[y].frac = 0;
    }
}

/* Where frequency f lies among the columns (their centres at u = (i + 0.5)/C), by linear
 * interpolation of col_hz; -1 outside them. */
static double column_unit(const render_config *cfg, double f)
{
    const double *hz = cfg->col_hz;
    size_t c = cfg->columns;
    for (size_t i = 0; i + 1 < c; i++)
        if (f >= hz[i] && f <= hz[i + 1] && hz[i + 1] > hz[i])
            return ((double)i + 0.5 + (f - hz[i]) / (hz[i + 1] - hz[i])) / (double)c;
    return c == 1 && f == hz[0] ? 0.5 : -1.0;
}

/* The note of f as "C4", "A#3" (MIDI's numbering: A4 = 440 Hz), and whether it is a C. */
static int note_name(double f, char *buf, size_t len, int octave)
{
    static const char *const names[] = {"C", "C#", "D", "D#", "E", "F", "F#", "G", "G#", "A", "A#", "B"};
    long midi = lround(12.0 * log2(f / 440.0) + 69.0), pc = ((midi % 12) + 12) % 12;
    if (octave)
        snprintf(buf, len, "%s%ld", names[pc], (midi - pc) / 12 - 1);
    else
        snprintf(buf, len, "%s", names[pc]);
    return pc == 0;
}

/* The axis of a transform's columns: labels at least gap_px apart (render_config). */
static int column_ticks(const render *r, double gap_px, scale_tick *out, int max)
{
    static const double hz_steps[] = {20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000};
    const render_config *cfg = &r->cfg;
    double last = -1e9;
    int n = 0, cand = cfg->col_notes ? (int)cfg->columns : (int)(sizeof hz_steps / sizeof hz_steps[0]);
    for (int i = 0; i < cand && n < max; i++) {
        scale_tick t;
        memset(&t, 0, sizeof t);
        t.hz = cfg->col_notes ? cfg->col_hz[i] : hz_steps[i];
        t.u = cfg->col_notes ? (i + 0.5) / (double)cfg->columns : column_unit(cfg, t.hz);
        if (t.u < 0)
            continue;
        if (cfg->col_notes == 0)
            scale_format_hz(t.hz, t.label, sizeof t.label);
        else if (cfg->col_notes == 3)
            snprintf(t.label, sizeof t.label, "%g", t.hz); /* a coefficient's number */
        else if (!note_name(t.hz, t.label, sizeof t.label, cfg->col_notes == 1) && cfg->col_notes == 1)
            continue; /* cqt: the Cs only */
        if ((t.u - last) * r->panel_h < gap_px)
            continue;
        t.labeled = 1;
        last = t.u;
        out[n++] = t;
    }
    return n;
}

static void build_rows(render *r)
{
    double binhz = r->rate / (double)r->n, h = r->panel_h;
    int32_t last = (int32_t)r->bins - 1;
    for (int y = 0; y < r->panel_h; y++) {
        double p_hi = scale_from_unit(&r->map, 1.0 - y / h) / binhz;
        double p_lo = scale_from_unit(&r->map, 1.0 - (y + 1) / h) / binhz;
        double p_c = scale_from_unit(&r->map, 1.0 - (y + 0.5) / h) / binhz;
        double k0 = ceil(p_lo - 1e-9), k1 = y == 0 ? floor(p_hi + 1e-9) : ceil(p_hi - 1e-9) - 1;
        row_map *m = &r->rows[y];
        if (k0 < 0)
            k0 = 0;
        if (k1 > last)
            k1 = last;
        if (k0 <= k1) {
            m->k0 = (int32_t)k0;
            m->k1 = (int32_t)k1;
            m->frac = 0;
        } else {
            double k = floor(p_c);
            if (k < 0)
                k = 0;
            if (k > last - 1)
                k = last - 1;
            m->k0 = (int32_t)k;
            m->k1 = -1;
            m->frac = (float)fmin(1.0, fmax(0.0, p_c - k));
        }
    }
}

int render_scale_map(const render_config *cfg, double rate, size_t n, scale_map *map, sp_errinfo *ei)
{
    double nyq = rate / 2, fmin = cfg->fmin, fmax = cfg->fmax;
    if (!isfinite(fmax) || fmax < 0)
        return sp_fail(ei, SP_EINVAL, SP_FIELD("fmax") " %g: must be above 0 Hz", fmax);
    if (fmax == 0 || fmax > nyq) /* above Nyquist: clipped there, as every output does */
        fmax = nyq;
    if (!isfinite(fmin) || fmin < 0)
        return sp_fail(ei, SP_EINVAL, SP_FIELD("fmin") " %g: must be 0 Hz or more", fmin);
    if (cfg->scale == FREQ_SCALE_LOG && fmin == 0) {
        fmin = scale_log_default_fmin(rate, n);
        if (fmin >= fmax)
            return sp_fail(ei, SP_EINVAL,
                           SP_FIELD("fmax") " %g: a log scale needs " SP_FIELD("fmax") " above %g Hz (or give "
                           SP_FIELD("fmin") ")", fmax, fmin);
    }
    if (fmin >= fmax)
        return sp_fail(ei, SP_EINVAL, SP_FIELD("fmin") " %g: must be below " SP_FIELD("fmax") " (%g Hz)", fmin, fmax);
    return scale_map_init(map, cfg->scale, fmin, fmax, ei);
}

static int resolve_scale(render *r, sp_errinfo *ei)
{
    return render_scale_map(&r->cfg, r->rate, r->n, &r->map, ei);
}

static int open_fonts_locked(render *r, sp_errinfo *ei)
{
    char path[1024], bold[1024];
    const char *slash;
    int err;
    double W = r->cfg.width, H = r->cfg.height;
    if ((err = render_find_font(&r->cfg, path, sizeof path, ei)) != SP_OK)
        return err;
    if (TTF_Init() != 0)
        return sp_fail(ei, SP_EIO, "cannot start SDL2_ttf: %s", TTF_GetError());
    r->ttf_init = 1;
    /* about 19 px at 1920x1080, never below 10 */
    r->fs = (int)lround(fmin(H * 0.018, W * 0.0105));
    r->fs = r->fs < 10 ? 10 : r->fs > 96 ? 96 : r->fs;
    if (!(r->font = TTF_OpenFont(path, r->fs)))
        return sp_fail(ei, SP_EIO, "%s: cannot load the font: %s", path, TTF_GetError());
    /* the title in the bold cut beside it, when there is one */
    slash = strrchr(path, '/');
    snprintf(bold, sizeof bold, "%.*s" FONT_BOLD_FILE, slash ? (int)(slash - path + 1) : 0, path);
    if (r->cfg.font || access(bold, R_OK) != 0)
        snprintf(bold, sizeof bold, "%s", path);
    if (!(r->font_title = TTF_OpenFont(bold, (int)lround(r->fs * 1.2))))
        return sp_fail(ei, SP_EIO, "%s: cannot load the font: %s", bold, TTF_GetError());
    TTF_SetFontHinting(r->font, TTF_HINTING_LIGHT);
    TTF_SetFontHinting(r->font_title, TTF_HINTING_LIGHT);
    r->line_h = TTF_FontHeight(r->font);
    r->title_h = TTF_FontHeight(r->font_title);
    return SP_OK;
}

/* open_fonts_locked under the program's TTF lock (canvas.h) */
static int open_fonts(render *r, sp_errinfo *ei)
{
    int err;
    canvas_ttf_lock();
    err = open_fonts_locked(r, ei);
    canvas_ttf_unlock();
    return err;
}

/* Margins from the font size and the widest labels; then panels, ticks and the bar. */
static int place_areas(render *r, sp_errinfo *ei)
{
    int W = r->cfg.width, H = r->cfg.height, C = r->channels, fs = r->fs;
    int top, bottom, left, right, ph, maxw = 0, dbw = 0, kept = 0;
    double dbv[MAX_AXIS_TICKS];
    int ndb, dbdec;
    char buf[64];

    r->pad = (int)lround(0.8 * fs);
    r->tick_len = (int)lround(0.4 * fs);
    r->tick_gap = (int)lround(0.3 * fs);
    r->panel_gap = C > 1 ? (int)lround(0.8 * fs) : 0;
    top = r->pad / 2 + r->title_h + r->pad + (r->cfg.top_gap > 0 ? r->cfg.top_gap : 0);
    bottom = r->tick_len + r->tick_gap + r->line_h + fs / 4 + r->line_h + r->pad / 2;
    ph = H - top - bottom;
    r->panel_h = (ph - (C - 1) * r->panel_gap) / C;
    if (r->panel_h < 16)
        return sp_fail(ei, SP_EINVAL, SP_FIELD("size") " %dx%d: too small for %d channel%s", W, H, C, C > 1 ? "s" : "");

    /* frequency ticks, shared by every panel; with several panels a label must stay
     * within its panel (and half the gap) */
    r->nticks = r->cfg.columns ? column_ticks(r, FREQ_LABEL_GAP * r->line_h * (r->cfg.col_notes == 2 ? 0.5 : 1.0),
                                              r->ticks, MAX_FREQ_TICKS)
                               : scale_ticks(&r->map, r->panel_h, FREQ_LABEL_GAP * r->line_h, r->ticks, MAX_FREQ_TICKS);
    for (int i = 0; i < r->nticks; i++) {
        double y = (1.0 - r->ticks[i].u) * r->panel_h;
        if (C > 1 && r->ticks[i].labeled &&
            (y - r->line_h / 2.0 < -r->panel_gap / 2.0 || y + r->line_h / 2.0 > r->panel_h + r->panel_gap / 2.0))
            r->ticks[i].labeled = 0;
        if (r->ticks[i].labeled) {
            int w = canvas_text_width(r->font, r->ticks[i].label);
            maxw = w > maxw ? w : maxw;
        }
        r->ticks[kept++] = r->ticks[i];
    }
    r->nticks = kept;

    r->plot.y = top;
    r->plot.h = C * r->panel_h + (C - 1) * r->panel_gap;
    ndb = db_ticks(r, r->plot.h, DB_LABEL_GAP * r->line_h, dbv, MAX_AXIS_TICKS);
    dbdec = db_decimals(r, r->plot.h);
    for (int i = 0; i < ndb; i++) {
        int w;
        render_format_signed(dbv[i], dbdec, buf, sizeof buf);
        w = canvas_text_width(r->font, buf);
        dbw = w > dbw ? w : dbw;
    }
    left = r->pad / 2 + r->line_h + fs / 2 + maxw + r->tick_gap + r->tick_len;
    right = fs + fs + r->tick_len + r->tick_gap + dbw + r->pad;
    r->plot.x = left;
    r->plot.w = W - left - right;
    if (r->plot.w < 16)
        return sp_fail(ei, SP_EINVAL, SP_FIELD("size") " %dx%d: too narrow for the axes", W, H);
    r->bar.x = r->plot.x + r->plot.w + fs;
    r->bar.y = r->plot.y;
    r->bar.w = fs;
    r->bar.h = r->plot.h;
    return SP_OK;
}

int render_create(const render_config *cfg, double rate, size_t n, double t0, double dt, int channels,
                  int64_t frames_hint, render **out, sp_errinfo *ei)
{
    render *r;
    int err;
    size_t budget_cols;
    if (!cfg || !out)
        return sp_fail(ei, SP_EINVAL, "render_create: bad arguments");
    *out = NULL;
    if (cfg->width < RENDER_MIN_WIDTH || cfg->width > RENDER_MAX_SIZE || cfg->height < RENDER_MIN_HEIGHT ||
        cfg->height > RENDER_MAX_SIZE)
        return sp_fail(ei, SP_EINVAL, SP_FIELD("size") " %dx%d: width must be %d .. %d and height %d .. %d pixels",
                       cfg->width, cfg->height, RENDER_MIN_WIDTH, RENDER_MAX_SIZE, RENDER_MIN_HEIGHT, RENDER_MAX_SIZE);
    if (!colormap_name(cfg->colormap))
        return sp_fail(ei, SP_EINVAL, SP_FIELD("colormap") ": unknown colour map id %d", cfg->colormap);
    if ((unsigned)cfg->scale > FREQ_SCALE_MEL)
        return sp_fail(ei, SP_EINVAL, SP_FIELD("scale") ": unknown frequency scale id %d", (int)cfg->scale);
    if (!isfinite(cfg->db_lo) || !isfinite(cfg->db_hi) || !(cfg->db_lo < cfg->db_hi))
        return sp_fail(ei, SP_EINVAL, SP_FIELD("db_range") " %g:%g: LO must be below HI", (double)cfg->db_lo,
                       (double)cfg->db_hi);
    if (cfg->columns && !cfg->col_hz)
        return sp_fail(ei, SP_EINVAL, "render_create: columns without their frequencies");
    if (channels > RENDER_MAX_CHANNELS)
        return sp_fail(ei, SP_EINVAL, SP_FIELD("channel") " all: %d channels; a picture stacks at most %d", channels,
                       RENDER_MAX_CHANNELS);
    if (!(rate > 0) || !isfinite(rate) || n < 2 || n % 2 || channels < 1 || !isfinite(t0) ||
        !(dt > 0) || !isfinite(dt))
        return sp_fail(ei, SP_EINVAL, "render_create: bad stream parameters (rate %g, n %zu, dt %g, %d channels)",
                       rate, n, dt, channels);

    if (!(r = calloc(1, sizeof *r)))
        return sp_fail(ei, SP_ENOMEM, "out of memory");
    r->cfg = *cfg;
    r->cfg.title = NULL;
    r->cfg.panel_labels = NULL;
    r->rate = rate;
    r->n = n;
    r->bins = cfg->columns ? cfg->columns : n / 2 + 1;
    r->t0 = t0;
    r->dt = dt;
    r->axis_frames = -1;
    r->channels = channels;
    r->qscale = 255.0f / (cfg->db_hi - cfg->db_lo);
    err = SP_ENOMEM;
    if ((cfg->title && !(r->title = strdup(cfg->title))) ||
        (cfg->panel_labels && !(r->labels = strdup(cfg->panel_labels))))
        goto fail_msg;
    if ((err = resolve_scale(r, ei)) != SP_OK || (err = open_fonts(r, ei)) != SP_OK ||
        (err = place_areas(r, ei)) != SP_OK)
        goto fail;

    budget_cols = ACCUM_BUDGET_BYTES / ((size_t)r->panel_h * (size_t)channels);
    r->cap = (size_t)r->plot.w * ACCUM_MAX_RATIO;
    if (r->cap > budget_cols)
        r->cap = budget_cols;
    if (r->cap < (size_t)r->plot.w * ACCUM_MIN_RATIO)
        r->cap = (size_t)r->plot.w * ACCUM_MIN_RATIO;
    r->cap &= ~(size_t)1;
    err = SP_ENOMEM;
    r->rows = malloc((size_t)r->panel_h * sizeof *r->rows);
    r->rowv = malloc((size_t)r->panel_h * sizeof *r->rowv);
    r->rowv_par = malloc((size_t)SP_PAR_MAX * (size_t)r->panel_h * sizeof *r->rowv_par);
    r->acc = calloc((size_t)channels, sizeof *r->acc);
    if (!r->rows || !r->rowv || !r->rowv_par || !r->acc)
        goto fail_msg;
    for (int c = 0; c < channels; c++) {
        /* calloc: pages are only committed as columns fill */
        if (!(r->acc[c].cols = calloc(r->cap, (size_t)r->panel_h)) ||
            !(r->acc[c].pending = malloc(r->bins * sizeof *r->acc[c].pending)))
            goto fail_msg;
        if (cfg->fold_signed) /* a difference's panel: small, committed whole */
            memset(r->acc[c].cols, RENDER_LEVEL_EMPTY(1), r->cap * (size_t)r->panel_h);
        r->acc[c].pending_col = -1;
        /* a known length starts at the frames per column it will end with, saving merges */
        r->acc[c].fpc = frames_hint > 0 && (uint64_t)frames_hint > r->cap ? (uint64_t)frames_hint / r->cap : 1;
    }
    if (cfg->columns)
        build_column_rows(r);
    else
        build_rows(r);
    r->cfg.col_hz = NULL; /* borrowed during create only */
    *out = r;
    return SP_OK;

fail_msg:
    err = sp_fail(ei, SP_ENOMEM, "out of memory (a %dx%d picture of %d channels)", cfg->width, cfg->height, channels);
fail:
    render_destroy(r);
    return err;
}

void render_destroy(render *r)
{
    if (!r)
        return;
    canvas_ttf_lock();
    if (r->font)
        TTF_CloseFont(r->font);
    if (r->font_title)
        TTF_CloseFont(r->font_title);
    if (r->ttf_init)
        TTF_Quit();
    canvas_ttf_unlock();
    if (r->acc)
        for (int c = 0; c < r->channels; c++) {
            free(r->acc[c].cols);
            free(r->acc[c].pending);
        }
    free(r->acc);
    free(r->rows);
    free(r->rowv);
    free(r->rowv_par);
    free(r->title);
    free(r->labels);
    free(r);
}

/* ---- draw ------------------------------------------------------------------------------ */

static uint64_t total_frames(const render *r)
{
    uint64_t f = 0;
    for (int c = 0; c < r->channels; c++)
        f = r->acc[c].frames > f ? r->acc[c].frames : f;
    return f;
}

/* One panel. Pixel column x covers frames [x*F/W, (x+1)*F/W) and shows the maximum of the
 * columns whose centre falls there, so each accumulated column lands in exactly one
 * pixel; a pixel with none (fewer frames than pixels) shows the column under its centre. */
static void draw_panel(const render *r, int channel, uint8_t *tmp)
{
    const accum *a = &r->acc[channel];
    const uint8_t(*lut)[3] = colormap_lut(r->cfg.colormap);
    size_t rows = (size_t)r->panel_h, pitch = r->cv.pitch; /* locals: the stores below may alias r */
    uint8_t *img = r->cv.px;
    int pw = r->plot.w, px = r->plot.x, py = r->plot.y + channel * (r->panel_h + r->panel_gap);
    uint64_t F = total_frames(r), fpc = a->fpc;
    uint64_t ncols = a->frames ? (a->frames + fpc - 1) / fpc : 0;
    size_t j = 0;
    /* the panel's pixels inside the clip: x in [cx0, cx1), rows [y0, y1) */
    int cx0 = r->cv.clip.x - r->plot.x, cx1 = r->cv.clip.x + r->cv.clip.w - r->plot.x;
    size_t y0 = r->cv.clip.y > py ? (size_t)(r->cv.clip.y - py) : 0;
    size_t y1 = r->cv.clip.y + r->cv.clip.h < py + r->panel_h ? (size_t)(r->cv.clip.y + r->cv.clip.h - py) : rows;
    if (cx1 > pw)
        cx1 = pw;
    if (cx0 >= cx1 || r->cv.clip.y >= py + r->panel_h || r->cv.clip.y + r->cv.clip.h <= py)
        return;
    for (int x = 0; x < cx1; x++) {
        double fa = (double)x * (double)F / pw, fb = (double)(x + 1) * (double)F / pw;
        size_t j0, j1;
        if (ncols == 0) {
            memset(tmp, RENDER_LEVEL_EMPTY(r->cfg.fold_signed), rows);
        } else {
#define COL_CENTRE(jj) (0.5 * (double)((jj) * fpc + ((jj) + 1 == ncols ? a->frames : ((jj) + 1) * fpc)))
            while (j < ncols && COL_CENTRE(j) < fa)
                j++;
            j0 = j1 = j;
            while (j1 < ncols && COL_CENTRE(j1) < fb)
                j1++;
            if (j1 == j0) { /* no column centre in this pixel: the one under its centre */
                uint64_t fc = (uint64_t)(0.5 * (fa + fb)) / fpc;
                j0 = fc < ncols ? fc : ncols - 1;
                j1 = j0 + 1;
            }
#undef COL_CENTRE
            memcpy(tmp, a->cols + j0 * rows, rows);
            for (size_t jj = j0 + 1; jj < j1; jj++) {
                const uint8_t *c = a->cols + jj * rows;
                for (size_t y = 0; y < rows; y++)
                    tmp[y] = level_fold(tmp[y], c[y], r->cfg.fold_signed);
            }
        }
        if (x < cx0)
            continue;
        for (size_t y = y0; y < y1; y++) {
            uint8_t *p = img + ((size_t)py + y) * pitch + (size_t)(px + x) * 4;
            p[0] = lut[tmp[y]][0];
            p[1] = lut[tmp[y]][1];
            p[2] = lut[tmp[y]][2];
            p[3] = 255;
        }
    }
}

static void draw_freq_axis(const render *r, int channel)
{
    int py = r->plot.y + channel * (r->panel_h + r->panel_gap);
    for (int i = 0; i < r->nticks; i++) {
        const scale_tick *t = &r->ticks[i];
        int y = py + (int)floor((1.0 - t->u) * r->panel_h);
        int len = t->labeled ? r->tick_len : (r->tick_len + 1) / 2;
        if (y >= py + r->panel_h)
            y = py + r->panel_h - 1;
        if (y < py)
            y = py;
        canvas_fill(&r->cv, r->plot.x - 1 - len, y, len, 1, t->labeled ? RENDER_COL_TICK : RENDER_COL_FRAME);
        if (t->labeled) {
            int w = canvas_text_width(r->font, t->label);
            canvas_text(&r->cv, r->font, t->label, r->plot.x - 1 - r->tick_len - r->tick_gap - w, y - r->line_h / 2,
                      RENDER_COL_LABEL, 0);
        }
    }
}

static void draw_time_axis(const render *r)
{
    uint64_t F = r->axis_frames >= 0 ? (uint64_t)r->axis_frames : total_frames(r);
    double tmin = r->t0 - 0.5 * r->dt, tmax = r->t0 + ((double)F - 0.5) * r->dt, span = tmax - tmin, step;
    int style = tmax >= 3600 ? 2 : tmax >= 60 ? 1 : 0, decimals, y = r->plot.y + r->plot.h + 1;
    char buf[64];
    const char *caption = style == 2 ? "Time (h:mm:ss)" : style == 1 ? "Time (m:ss)" : "Time (s)";
    int cw = canvas_text_width(r->font, caption);
    canvas_text(&r->cv, r->font, caption, r->plot.x + (r->plot.w - cw) / 2,
              y + r->tick_len + r->tick_gap + r->line_h + r->fs / 4, RENDER_COL_LABEL, 0);
    if (F == 0)
        return;
    /* label width from the longest label, with a decimal guess refined once */
    format_time(tmax, style, 1, buf, sizeof buf);
    step = nice_time_step((canvas_text_width(r->font, buf) + 2.0 * r->fs) * span / r->plot.w);
    decimals = step_decimals(step);
    for (double k = ceil(tmin / step - 1e-9); k * step <= tmax + 1e-9 * step; k++) {
        double t = k * step;
        int x = r->plot.x + (int)floor((t - tmin) / span * r->plot.w), w;
        if (x > r->plot.x + r->plot.w - 1)
            x = r->plot.x + r->plot.w - 1;
        canvas_fill(&r->cv, x, y, 1, r->tick_len, RENDER_COL_TICK);
        format_time(fabs(t) < 1e-9 * step ? 0.0 : t, style, decimals, buf, sizeof buf);
        w = canvas_text_width(r->font, buf);
        canvas_text(&r->cv, r->font, buf, x - w / 2, y + r->tick_len + r->tick_gap, RENDER_COL_LABEL, 0);
    }
}

static void draw_colorbar(const render *r)
{
    const uint8_t(*lut)[3] = colormap_lut(r->cfg.colormap);
    double v[MAX_AXIS_TICKS];
    int n = db_ticks(r, r->bar.h, DB_LABEL_GAP * r->line_h, v, MAX_AXIS_TICKS), dec = db_decimals(r, r->bar.h);
    char buf[64];
    for (int y = 0; y < r->bar.h; y++) {
        double t = r->bar.h > 1 ? 1.0 - (double)y / (r->bar.h - 1) : 1.0;
        int i = (int)lround(t * 255);
        rgb8 c = {lut[i][0], lut[i][1], lut[i][2]};
        canvas_fill(&r->cv, r->bar.x, r->bar.y + y, r->bar.w, 1, c);
    }
    canvas_outline(&r->cv, r->bar.x - 1, r->bar.y - 1, r->bar.w + 2, r->bar.h + 2, RENDER_COL_FRAME);
    for (int i = 0; i < n; i++) {
        int y = r->bar.y +
                (int)lround((r->cfg.db_hi - v[i]) / (r->cfg.db_hi - r->cfg.db_lo) * (r->bar.h - 1));
        int x = r->bar.x + r->bar.w + 1;
        canvas_fill(&r->cv, x, y, r->tick_len, 1, RENDER_COL_TICK);
        render_format_signed(fabs(v[i]) < 1e-9 ? 0.0 : v[i], dec, buf, sizeof buf);
        canvas_text(&r->cv, r->font, buf, x + r->tick_len + r->tick_gap, y - r->line_h / 2, RENDER_COL_LABEL, 0);
    }
}

/* The label of a panel (cfg.panel_labels' line, else "ch 1") and its top-left; 0 when
 * the panel has none (the only panel, not named), 2 for a named one (drawn on a dark box:
 * it may lie over any colour, rdbu's light middle too). */
static int channel_label(const render *r, int channel, char *buf, size_t len, int *x, int *y)
{
    render_rect p = render_plot_rect(r, channel);
    const char *s = r->labels;
    for (int i = 0; s && i < channel; i++)
        s = (s = strchr(s, '\n')) ? s + 1 : NULL;
    if (s) {
        const char *end = strchr(s, '\n');
        snprintf(buf, len, "%.*s", (int)(end ? (size_t)(end - s) : strlen(s)), s);
    } else if (r->channels > 1) {
        snprintf(buf, len, "ch %d", channel);
    } else {
        buf[0] = '\0';
    }
    *x = p.x + r->fs / 2;
    *y = p.y + r->fs / 4;
    return !buf[0] ? 0 : s ? 2 : 1;
}

/* The background, around the panels when they are the caller's. */
static void fill_background(const render *r)
{
    int W = r->cfg.width, y = 0;
    if (!r->keep_panels) {
        canvas_fill(&r->cv, 0, 0, W, r->cfg.height, RENDER_COL_BG);
        return;
    }
    for (int c = 0; c < r->channels; c++) {
        render_rect p = render_plot_rect(r, c);
        canvas_fill(&r->cv, 0, y, W, p.y - y, RENDER_COL_BG);
        canvas_fill(&r->cv, 0, p.y, p.x, p.h, RENDER_COL_BG);
        canvas_fill(&r->cv, p.x + p.w, p.y, W - p.x - p.w, p.h, RENDER_COL_BG);
        y = p.y + p.h;
    }
    canvas_fill(&r->cv, 0, y, W, r->cfg.height - y, RENDER_COL_BG);
}

/* Everything, in this order (later parts cover earlier ones), written only inside
 * r->clip: every pixel there comes out as in the whole picture. */
static int draw_all(render *r, sp_errinfo *ei)
{
    uint8_t *tmp;
    int W = r->cfg.width, capw, capx;
    const char *cap = r->cfg.caption ? r->cfg.caption : r->cfg.level_unit ? r->cfg.level_unit : "dBFS";
    if (!(tmp = malloc((size_t)r->panel_h)))
        return sp_fail(ei, SP_ENOMEM, "out of memory");
    if (!r->keep_panels)
        for (int c = 0; c < r->channels; c++)
            render_accum_flush(r, &r->acc[c]);
    fill_background(r);
    for (int c = 0; c < r->channels; c++) {
        render_rect p = render_plot_rect(r, c);
        if (!r->keep_panels)
            draw_panel(r, c, tmp);
        canvas_outline(&r->cv, p.x - 1, p.y - 1, p.w + 2, p.h + 2, RENDER_COL_FRAME); /* just outside */
        draw_freq_axis(r, c);
        char label[256];
        int lx, ly;
        int kind = channel_label(r, c, label, sizeof label, &lx, &ly);
        if (kind == 2) {
            render_rect b = render_label_rect(r, c);
            canvas_blend(&r->cv, b.x, b.y, b.w, b.h, COL_SHADOW, 150);
        }
        if (kind) {
            canvas_text(&r->cv, r->font, label, lx + 1, ly + 1, COL_SHADOW, 0);
            canvas_text(&r->cv, r->font, label, lx, ly, RENDER_COL_TITLE, 0);
        }
    }
    free(tmp);
    draw_time_axis(r);
    {
        const char *fc = r->cfg.col_notes == 2 ? "Pitch class" : r->cfg.col_notes == 3 ? "MFCC k" : "Frequency";
        int fw = canvas_text_width(r->font, fc);
        canvas_text(&r->cv, r->font, fc, r->pad / 2, r->plot.y + (r->plot.h - fw) / 2, RENDER_COL_LABEL, 1);
    }
    draw_colorbar(r);

    /* the caption of the bar at the right end of the title row, the title before it */
    capw = canvas_text_width(r->font, cap);
    capx = W - r->pad - capw;
    if (capx > r->bar.x)
        capx = r->bar.x;
    canvas_text(&r->cv, r->font, cap, capx, r->pad / 2 + (r->title_h - r->line_h) / 2, RENDER_COL_LABEL, 0);
    if (r->title && *r->title && r->cv.clip.y < r->pad / 2 + r->title_h) {
        size_t len = strlen(r->title) + 4;
        char *t = malloc(len);
        if (t) {
            snprintf(t, len, "%s", r->title);
            canvas_fit_text(r->font_title, t, capx - r->fs - r->plot.x);
            canvas_text(&r->cv, r->font_title, t, r->plot.x, r->pad / 2, RENDER_COL_TITLE, 0);
            free(t);
        }
    }
    return SP_OK;
}

int render_draw(render *r, uint8_t *rgba, sp_errinfo *ei)
{
    if (!r || !rgba)
        return sp_fail(ei, SP_EINVAL, "render_draw: bad arguments");
    r->cv = canvas_make(rgba, r->cfg.width, r->cfg.height, (size_t)r->cfg.width * 4);
    r->keep_panels = 0;
    return draw_all(r, ei);
}

int render_draw_area(render *r, uint8_t *rgba, size_t pitch, render_rect area, int keep_panels, sp_errinfo *ei)
{
    int x1, y1;
    if (!r || !rgba || pitch < (size_t)r->cfg.width * 4)
        return sp_fail(ei, SP_EINVAL, "render_draw_area: bad arguments");
    x1 = area.x + area.w < r->cfg.width ? area.x + area.w : r->cfg.width;
    y1 = area.y + area.h < r->cfg.height ? area.y + area.h : r->cfg.height;
    r->cv = canvas_make(rgba, r->cfg.width, r->cfg.height, pitch);
    r->cv.clip.x = area.x > 0 ? area.x : 0;
    r->cv.clip.y = area.y > 0 ? area.y : 0;
    r->cv.clip.w = x1 - r->cv.clip.x;
    r->cv.clip.h = y1 - r->cv.clip.y;
    if (r->cv.clip.w <= 0 || r->cv.clip.h <= 0)
        return SP_OK;
    r->keep_panels = keep_panels != 0;
    return draw_all(r, ei);
}

void render_draw_column(render *r, const float *db, uint8_t *rgba, size_t pitch)
{
    const uint8_t(*lut)[3];
    if (!r || !db || !rgba)
        return;
    lut = colormap_lut(r->cfg.colormap);
    render_column_rows(r, db, r->rowv);
    /* as accum_flush folds a lone spectrum into an empty column and draw_panel shows it */
    for (int y = 0; y < r->panel_h; y++) {
        uint8_t q = quantise(r->rowv[y], r->cfg.db_lo, r->qscale), *p = rgba + (size_t)y * pitch;
        p[0] = lut[q][0];
        p[1] = lut[q][1];
        p[2] = lut[q][2];
        p[3] = 255;
    }
}

int render_set_time(render *r, double t0, double dt, int64_t frames)
{
    if (!r || !isfinite(t0) || !(dt > 0) || !isfinite(dt))
        return SP_EINVAL;
    r->t0 = t0;
    r->dt = dt;
    r->axis_frames = frames < 0 ? -1 : frames;
    return SP_OK;
}

int render_write_png(render *r, const char *path, sp_errinfo *ei)
{
    uint8_t *img;
    int err;
    if (!r || !path || !*path)
        return sp_fail(ei, SP_EINVAL, SP_FIELD("png") ": missing output path");
    if (!(img = malloc((size_t)r->cfg.width * (size_t)r->cfg.height * 4)))
        return sp_fail(ei, SP_ENOMEM, "out of memory (a %dx%d picture)", r->cfg.width, r->cfg.height);
    err = render_draw(r, img, ei);
    if (err == SP_OK)
        err = png_write_rgba(path, img, r->cfg.width, r->cfg.height, ei);
    free(img);
    return err;
}

/* ---- layout queries -------------------------------------------------------------------- */

render_rect render_plot_rect(const render *r, int channel)
{
    render_rect p = {0, 0, 0, 0};
    if (!r || channel < 0 || channel >= r->channels)
        return p;
    p.x = r->plot.x;
    p.w = r->plot.w;
    p.y = r->plot.y + channel * (r->panel_h + r->panel_gap);
    p.h = r->panel_h;
    return p;
}

render_rect render_colorbar_rect(const render *r)
{
    render_rect p = {0, 0, 0, 0};
    return r ? r->bar : p;
}

const scale_map *render_scale(const render *r)
{
    return r ? &r->map : NULL;
}

render_rect render_label_rect(const render *r, int channel)
{
    render_rect b = {0, 0, 0, 0};
    char label[256];
    int sized, kind;
    if (!r || channel < 0 || channel >= r->channels ||
        !(kind = channel_label(r, channel, label, sizeof label, &b.x, &b.y)))
        return (render_rect){0, 0, 0, 0};
    canvas_ttf_lock();
    sized = TTF_SizeUTF8(r->font, label, &b.w, &b.h) == 0;
    canvas_ttf_unlock();
    if (!sized)
        return render_plot_rect(r, channel); /* cannot tell: all of the panel */
    b.w++; /* the shadow, one pixel right and down */
    b.h++;
    if (kind == 2) { /* its dark box, a little wider than the text */
        b.x -= r->fs / 4;
        b.w += r->fs / 2;
    }
    return b;
}

size_t render_label_text(const render *r, int channel, char *buf, size_t len)
{
    int x, y;
    if (len == 0)
        return 0;
    buf[0] = '\0';
    if (r && channel >= 0 && channel < r->channels)
        channel_label(r, channel, buf, len, &x, &y);
    return strlen(buf);
}

#endif /* SPECTRO_HAVE_RENDER */
