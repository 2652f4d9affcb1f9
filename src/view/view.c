/* view: the SDL2 window (see view.h).
 *
 *   analysis thread                          window thread (the caller's)
 *   analyze_run -> sink: dB -> view_store    events, then at most 60 times a second:
 *               (under `mu`, O(bins)/frame)    file: snapshot of the visible spectra
 *                                                (under mu) -> render (the --png code)
 *                                                -> picture, all of it
 *                                              live: the spectra new since the last
 *                                                picture -> their pixel columns, the
 *                                                rest kept (draw_live)
 *                                              + live spectrum, status line, overlays
 *                                              -> one streaming texture, updated where
 *                                                the picture changed -> present
 *
 * The window's picture is composed in one RGBA buffer of the drawable size:
 *
 *   +---------------------------------------------+-----------------+
 *   | render_draw: title, axes, panels, colour bar| spectrum curve  |
 *   |                                             | per channel     |
 *   +---------------------------------------------+-----------------+
 *   | status line                                                   |
 *   +---------------------------------------------------------------+
 */
#include "view.h"

#ifndef SPECTRO_HAVE_RENDER

int view_run(const analyze_config *cfg, analyze_result *res, sp_errinfo *ei)
{
    (void)cfg, (void)res;
    return sp_fail(ei, SP_EUNSUPPORTED,
                   "the window is not built in (SDL2, SDL2_ttf or libpng was not found at configure time: "
                   "apt-get install libsdl2-dev libsdl2-ttf-dev libpng-dev and rebuild); use --dump or --peaks");
}

#else /* SPECTRO_HAVE_RENDER */

#include <SDL.h>
#include <SDL_ttf.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "colormap.h"
#include "png_write.h"
#include "clock.h"
#include "render.h"
#include "scale.h"
#include "view_store.h"
#include "window.h"

#define STORE_BUDGET_LIVE ((size_t)128 << 20)
#define STORE_BUDGET_FILE ((size_t)512 << 20)
#define FRAME_PERIOD (1.0 / 60.0)
#define MIN_WIN_W 560
#define MIN_WIN_H 360
#define MAX_LAT_SAMPLES 65536
#define HOLD_DECAY_DB_S 20.0 /* peak hold falls this fast after HOLD_TIME_S */
#define HOLD_TIME_S 1.0
#define TOAST_S 3.0
/* live: a frame may start this much before it is due, or wait this much after, for new
 * spectra (live_wait); together more than the usual time between two deliveries */
#define ALIGN_EARLY_S (0.5 * FRAME_PERIOD)
#define ALIGN_LATE_S (0.4 * FRAME_PERIOD)
/* live with vsync: after a present returns, new spectra are waited for from VSYNC_OPEN_S
 * to VSYNC_LATE_S (vsync_wait) */
#define VSYNC_OPEN_S (0.15 * FRAME_PERIOD)
#define VSYNC_LATE_S (0.5 * FRAME_PERIOD)
#define DIRECT_MAX_CHANNELS 16 /* more: the live panels go through the canvas (see damage) */

/* the renderer's palette (RENDER_COL_*) and the window's own colours */
static const rgb8 COL_STATUS_BG = {0x0b, 0x0c, 0x10};
static const rgb8 COL_PANEL_BG = {0x0d, 0x0f, 0x13};
static const rgb8 COL_GRID = {0x23, 0x27, 0x30};
static const rgb8 COL_CURVE = {0xf2, 0xf4, 0xf8};
static const rgb8 COL_HOLD = {0xff, 0xa0, 0x3c};
static const rgb8 COL_LIVE = {0xff, 0x4d, 0x4d};
static const rgb8 COL_PAUSED = {0xff, 0xc8, 0x3c};
static const rgb8 COL_BLACK = {0, 0, 0};
static const rgb8 COL_WHITE = {0xff, 0xff, 0xff};

/* ---- state shared with the analysis thread (guarded by mu) ----------------------------- */

typedef struct {
    pthread_mutex_t mu;
    int started;          /* on_start ran: info valid, store made */
    analyze_result info;  /* what on_start saw */
    view_store *store;
    double anchor;        /* capture time of sample 0 (live), copied from anchor_src */
    int have_anchor;
    uint64_t version;     /* bumped by every sink call */
    uint64_t next0;       /* channel 0's next frame index */
    uint64_t skipped;     /* frames the live analysis skipped (it fell behind) */
    int finished;         /* the worker returned */
    int err;              /* its result */
    sp_errinfo ei;
    analyze_result res;
    double anchor_src;    /* written by analyze_run on its thread (cfg.capture_anchor) */
    uint64_t gen;         /* bumped when the store is replaced (a start or restart) */
    int want_wake;        /* the window waits for new spectra: wake it when they are in */
    double last_in;       /* when the last spectra came in (every channel) */
    double in_gap;        /* the usual time between two deliveries (moving average) */
} shared;

typedef struct {
    analyze_config cfg;   /* the run's config: extra_sinks, capture_anchor, stop belong to the view */
    shared *sh;
    sink as_sink;         /* the view as the run's sink (VIEW_SINK, self = sh) */
    atomic_int stop;
    pthread_t thread;
    int running;
} worker;

static Uint32 wake_event;

/* The view as a sink of the analysis (sink.h): open makes the store. */
static int on_start(void *user, const sink_stream *ss, sink_wants *wants, sp_errinfo *ei)
{
    shared *sh = user;
    view_store *st = NULL;
    analyze_result r;
    const analyze_result *res = &r;
    memset(&r, 0, sizeof r);
    r.info.rate = ss->rate;
    r.info.channels = ss->source_channels;
    r.info.frames_hint = ss->source_frames;
    snprintf(r.info.name, sizeof r.info.name, "%s", ss->source);
    snprintf(r.info.format, sizeof r.info.format, "%s", ss->format);
    snprintf(r.backend, sizeof r.backend, "%s", ss->backend);
    snprintf(r.window, sizeof r.window, "%s", ss->window);
    r.n = ss->n;
    r.hop = ss->hop;
    r.out_channels = ss->channels;
    r.live = ss->live;
    wants->spectra = 1;
    int err = view_store_create(res->out_channels, res->n / 2 + 1, res->live,
                                res->live ? STORE_BUDGET_LIVE : STORE_BUDGET_FILE, &st, ei);
    if (err != SP_OK)
        return err;
    pthread_mutex_lock(&sh->mu);
    view_store_destroy(sh->store);
    sh->store = st;
    sh->info = *res;
    sh->started = 1;
    sh->have_anchor = 0;
    sh->version++;
    sh->gen++;
    pthread_mutex_unlock(&sh->mu);
    return SP_OK;
}

/* Runs on the analysis thread: a copy into the store, nothing that waits long. */
static int on_frames(void *user, int channel, uint64_t first, size_t nframes, const float *db, sp_errinfo *ei)
{
    (void)ei;
    shared *sh = user;
    int err, wake = 0;
    pthread_mutex_lock(&sh->mu);
    err = view_store_add(sh->store, channel, first, nframes, db);
    if (channel == 0) {
        if (first > sh->next0)
            sh->skipped += first - sh->next0;
        sh->next0 = first + nframes;
    }
    if (sh->info.live && !sh->have_anchor && sh->anchor_src > 0) {
        sh->anchor = sh->anchor_src;
        sh->have_anchor = 1;
    }
    sh->version++;
    if (channel == sh->info.out_channels - 1) { /* every channel is in */
        double now = sp_now();
        if (sh->last_in > 0)
            sh->in_gap += 0.125 * (now - sh->last_in - sh->in_gap);
        sh->last_in = now;
        wake = sh->want_wake;
        sh->want_wake = 0;
    }
    pthread_mutex_unlock(&sh->mu);
    if (wake) {
        SDL_Event ev;
        memset(&ev, 0, sizeof ev);
        ev.type = wake_event;
        SDL_PushEvent(&ev); /* thread-safe */
    }
    return err;
}

static const sink_ops VIEW_SINK = {"window", on_start, on_frames, NULL, NULL, NULL, NULL};

static void *worker_main(void *arg)
{
    worker *w = arg;
    analyze_result res;
    sp_errinfo ei = {{0}};
    int err = analyze_run(&w->cfg, &res, &ei);
    SDL_Event ev;
    pthread_mutex_lock(&w->sh->mu);
    w->sh->finished = 1;
    w->sh->err = err;
    w->sh->ei = ei;
    w->sh->res = res;
    pthread_mutex_unlock(&w->sh->mu);
    memset(&ev, 0, sizeof ev);
    ev.type = wake_event;
    SDL_PushEvent(&ev); /* thread-safe: wakes the window's loop */
    return NULL;
}

static int worker_start(worker *w, sp_errinfo *ei)
{
    shared *sh = w->sh;
    pthread_mutex_lock(&sh->mu);
    sh->started = sh->finished = 0;
    sh->err = SP_OK;
    sh->next0 = sh->skipped = 0;
    sh->anchor_src = 0;
    sh->have_anchor = 0;
    sh->last_in = sh->in_gap = 0;
    view_store_destroy(sh->store);
    sh->store = NULL;
    sh->version++;
    sh->gen++;
    pthread_mutex_unlock(&sh->mu);
    atomic_store(&w->stop, 0);
    w->as_sink.ops = &VIEW_SINK;
    w->as_sink.self = sh;
    w->cfg.extra_sinks = &w->as_sink;
    w->cfg.n_extra_sinks = 1;
    w->cfg.capture_anchor = &sh->anchor_src;
    w->cfg.stop = &w->stop;
    if (pthread_create(&w->thread, NULL, worker_main, w) != 0)
        return sp_fail(ei, SP_ENOMEM, "cannot start the analysis thread");
    w->running = 1;
    return SP_OK;
}

static void worker_stop(worker *w)
{
    if (!w->running)
        return;
    atomic_store(&w->stop, 1);
    pthread_join(w->thread, NULL);
    w->running = 0;
}

/* ---- drawing into an RGBA buffer -------------------------------------------------------- */

typedef struct {
    uint8_t *px;
    int w, h;
} canvas;

static void fill(canvas *c, int x, int y, int w, int h, rgb8 col)
{
    int x0 = x < 0 ? 0 : x, y0 = y < 0 ? 0 : y, x1 = x + w > c->w ? c->w : x + w, y1 = y + h > c->h ? c->h : y + h;
    uint8_t *first, *p;
    if (x0 >= x1 || y0 >= y1)
        return;
    first = c->px + ((size_t)y0 * (size_t)c->w + (size_t)x0) * 4;
    p = first;
    for (int xx = x0; xx < x1; xx++, p += 4) {
        p[0] = col.r;
        p[1] = col.g;
        p[2] = col.b;
        p[3] = 255;
    }
    for (int yy = y0 + 1; yy < y1; yy++) /* the other rows: copies of the first */
        memcpy(first + (size_t)(yy - y0) * (size_t)c->w * 4, first, (size_t)(x1 - x0) * 4);
}

/* alpha 0..255 */
static void blend(canvas *c, int x, int y, int w, int h, rgb8 col, unsigned a)
{
    int x0 = x < 0 ? 0 : x, y0 = y < 0 ? 0 : y, x1 = x + w > c->w ? c->w : x + w, y1 = y + h > c->h ? c->h : y + h;
    for (int yy = y0; yy < y1; yy++) {
        uint8_t *p = c->px + ((size_t)yy * (size_t)c->w + (size_t)x0) * 4;
        for (int xx = x0; xx < x1; xx++, p += 4) {
            p[0] = (uint8_t)((p[0] * (255 - a) + col.r * a + 127) / 255);
            p[1] = (uint8_t)((p[1] * (255 - a) + col.g * a + 127) / 255);
            p[2] = (uint8_t)((p[2] * (255 - a) + col.b * a + 127) / 255);
        }
    }
}

static void outline(canvas *c, int x, int y, int w, int h, rgb8 col)
{
    fill(c, x, y, w, 1, col);
    fill(c, x, y + h - 1, w, 1, col);
    fill(c, x, y, 1, h, col);
    fill(c, x + w - 1, y, 1, h, col);
}

static int text_w(TTF_Font *f, const char *s)
{
    int w = 0, h = 0;
    if (!f || !s || !*s || TTF_SizeUTF8(f, s, &w, &h) != 0)
        return 0;
    return w;
}

/* Anti-aliased text rendered by SDL2_ttf (blended: coverage in alpha) blended in colour
 * col with its box's top-left at x, y. */
static void blit_text(canvas *c, const SDL_Surface *sf, int x, int y, rgb8 col)
{
    for (int sy = 0; sy < sf->h; sy++) {
        const uint32_t *src = (const uint32_t *)((const uint8_t *)sf->pixels + (size_t)sy * (size_t)sf->pitch);
        int dy = y + sy;
        if (dy < 0 || dy >= c->h)
            continue;
        for (int sx = 0; sx < sf->w; sx++) {
            unsigned a = src[sx] >> 24; /* ARGB8888 */
            int dx = x + sx;
            uint8_t *p;
            if (!a || dx < 0 || dx >= c->w)
                continue;
            p = c->px + ((size_t)dy * (size_t)c->w + (size_t)dx) * 4;
            p[0] = (uint8_t)((p[0] * (255 - a) + col.r * a + 127) / 255);
            p[1] = (uint8_t)((p[1] * (255 - a) + col.g * a + 127) / 255);
            p[2] = (uint8_t)((p[2] * (255 - a) + col.b * a + 127) / 255);
        }
    }
}

/* ---- notes ------------------------------------------------------------------------------ */

/* "A4 +3 ct" for 441 Hz (A4 = 440 Hz, equal temperament). */
static void note_name(double hz, char *buf, size_t len)
{
    static const char *names[12] = {"C", "C\xe2\x99\xaf", "D", "D\xe2\x99\xaf", "E", "F",
                                    "F\xe2\x99\xaf", "G", "G\xe2\x99\xaf", "A", "A\xe2\x99\xaf", "B"};
    double midi;
    long n;
    int ct;
    if (!(hz >= 8.0) || !isfinite(hz)) {
        snprintf(buf, len, "\xe2\x80\x94");
        return;
    }
    midi = 69.0 + 12.0 * log2(hz / 440.0);
    n = lround(midi);
    ct = (int)lround((midi - (double)n) * 100.0);
    snprintf(buf, len, "%s%ld %s%d ct", names[((n % 12) + 12) % 12], n / 12 - 1, ct < 0 ? "\xe2\x88\x92" : "+",
             abs(ct));
}

/* ---- the window's own state -------------------------------------------------------------- */

static const char *const WINDOWS[] = {"hann", "hamming", "blackman", "blackman-harris",
                                      "flattop", "rect", "kaiser", "gauss"};

typedef struct {
    /* settings the keys change */
    freq_scale scale;
    int cmap;
    float db_lo, db_hi, gain;
    double zf_lo, zf_hi; /* frequency zoom in Hz; 0 = the configured range */
    int paused;
    uint64_t paused_frames;
    int help;
    /* time: live = frames per column (power of two); file = visible frames [v0, v1) */
    uint64_t live_zoom;
    double v0, v1;
    int file_view_set;
    /* mouse, in drawable pixels */
    int mx, my, mouse_in;
    int dragging;
    double drag_x, drag_v0;
    /* messages */
    char toast[640];
    double toast_until;
    int shot_pending;
} ui_state;

/* What the last picture was drawn from, for the read-out and the mouse. */
typedef struct {
    render *r;
    int ok;
    int64_t a0;        /* first frame of entry 0 */
    uint64_t span;     /* frames per entry */
    size_t count;      /* entries */
    int channels;
    size_t bins, n, hop;
    double rate;
    int16_t *snap;     /* channels * count * bins: entry i of channel c in slot (i + rot) % count */
    size_t snap_cap;
    size_t rot;        /* live: entries keep their slot as the picture scrolls; file: 0 */
    float *hold;       /* channels * bins: live peak hold (dB) */
    double *hold_t;    /* channels * bins: when each hold was set */
    size_t hold_cap, hold_t_cap;
    double hold_last;     /* when the hold last fell */
    uint64_t hold_frames; /* frames already folded into the hold */
    render_config key; /* the config plot_w was measured with (title, font aside) */
    double key_rate;
    size_t key_n;
    int key_channels, plot_w;
    float *fbuf;       /* bins floats */
    size_t fbuf_cap;
    char render_err[512];
} picture;

/* The live picture, kept from one frame to the next (see draw_live). What it was made
 * for is its key: any change there starts it over. */
typedef struct {
    int valid;
    render_config rc;  /* p->r's config; rc.title points to title */
    char title[600];
    double rate;
    size_t n;
    int channels;
    float gain;
    uint64_t span, gen;
    size_t count;
    int chrome_ok;     /* chrome is p->r's picture */
    int canvas_ok;     /* the canvas holds chrome around the panels: nothing drew there since */
    uint8_t *chrome;   /* pic_w x pic_h: p->r's picture, panels left out (the time axis is redrawn) */
    size_t chrome_cap;
    int panel_h;
    uint8_t *ring;     /* channels x panel_h rows x count RGBA: pixel column of slot j at x = j */
    size_t ring_cap;
    int64_t *slot_e;   /* channels x count: the entry a slot holds */
    uint8_t *slot_st;  /* its view_store_entry_state when drawn (VIEW_STORE_OPEN: draw again) */
    uint8_t *slot_new; /* fetched this frame, to draw */
    size_t slot_e_cap, slot_st_cap, slot_new_cap;
} scroll;

/* SPECTRO_VIEW_VERIFY (tests): every live picture is also drawn whole, the old way, from
 * the same snapshot, and compared. */
typedef struct {
    int on;
    uint64_t frames, mismatched, shown, shown_mismatched; /* shown: the texture read back */
    int16_t *snap;
    size_t snap_cap;
    uint8_t *px;
    size_t px_cap;
    uint8_t *ref;      /* the window expected (verify_overlays) */
    size_t ref_cap;
    int ref_ok;
    char first[320];   /* the first difference, for the stats */
    char pending[320]; /* a difference in the last frame shown (verify_commit) */
} verify;

/* Text rendered by SDL2_ttf, kept between frames: most labels come back every frame. */
#define TEXT_CACHE 48
typedef struct {
    SDL_Surface *sf;   /* NULL: free */
    uint64_t font_gen; /* the font it was rendered with (view.font_gen) */
    rgb8 col;
    uint64_t used;     /* when last drawn, for the oldest to go */
    char s[256];
} text_entry;

typedef struct {
    uint64_t drawn;
    double first, last;
    double *lat;
    size_t nlat;
    uint64_t newest_shown;
    double draw_s;      /* time spent composing pictures (draw_frame), in all */
} stats;

typedef struct {
    const analyze_config *user; /* the caller's config */
    worker w;
    shared sh;
    ui_state ui;
    picture pic;
    scroll scr;
    verify ver;
    stats st;
    SDL_Window *win;
    SDL_Renderer *ren;
    SDL_Texture *tex;
    int vsync, software;
    char renderer_name[64];
    int dw, dh;       /* drawable size */
    canvas cv;
    uint8_t *pic_px;  /* the renderer's picture */
    size_t pic_cap;
    TTF_Font *font;
    int font_px;
    uint64_t font_gen; /* bumped whenever font changes */
    text_entry texts[TEXT_CACHE];
    uint64_t text_tick;
    char font_path[1024];
    int ttf;
    size_t n0, hop0;  /* the FFT size and hop asked for, for `n` */
    int window_idx;
    double fps_t0;
    uint64_t fps_n;
    double fps;
    double last_latency;
    double vs_late; /* live with vsync: the latest draw after a present (vsync_wait) */
    int live, finished; /* copies made under mu once per loop, for the window's thread */
    int line_h;
    /* what the texture must take from this frame: all of the canvas, or its parts that
     * changed (dmg); ring_panels: the live panels come from the ring's own texture */
    int dmg_all, ring_panels, ndmg;
    SDL_Rect dmg[64];
    SDL_Texture *ring_tex; /* the ring (scroll.ring), where the live panels are drawn from */
    int ring_tex_w, ring_tex_h, ring_tex_stale;
    int ring_live;         /* draw_live drew this frame: slots it fetched go to ring_tex */
    /* what the overlays (read-out, message, help) covered: put back at the next frame */
    int ncovered;
    SDL_Rect covered[8];
} view;

/* ---- layout ------------------------------------------------------------------------------ */

typedef struct {
    int pic_w, pic_h;   /* the renderer's part, top-left */
    int side_x, side_w; /* the spectrum strip */
    int status_y, status_h;
    int fs;
} layout;

static int font_size_for(int w, int h)
{
    /* render.c's rule: about 19 px at 1920x1080, never below 10 */
    int fs = (int)lround(fmin(h * 0.018, w * 0.0105));
    return fs < 10 ? 10 : fs > 96 ? 96 : fs;
}

static layout make_layout(int W, int H)
{
    layout L;
    int fs = font_size_for(W, H);
    L.fs = fs;
    L.status_h = (int)lround(fs * 2.0);
    L.side_w = (int)lround(W * 0.17);
    if (L.side_w < 8 * fs)
        L.side_w = 8 * fs;
    if (L.side_w > 24 * fs)
        L.side_w = 24 * fs;
    L.pic_w = W - L.side_w;
    L.pic_h = H - L.status_h;
    if (L.pic_w < RENDER_MIN_WIDTH)
        L.pic_w = RENDER_MIN_WIDTH;
    if (L.pic_h < RENDER_MIN_HEIGHT)
        L.pic_h = RENDER_MIN_HEIGHT;
    L.side_x = L.pic_w;
    L.side_w = W - L.pic_w;
    L.status_y = L.pic_h;
    L.status_h = H - L.pic_h;
    /* the renderer sizes its labels from its own picture: the same rule, the same size */
    L.fs = font_size_for(L.pic_w, L.pic_h);
    return L;
}

static int ensure_font(view *v, int px)
{
    if (v->font && v->font_px == px)
        return 1;
    if (v->font)
        TTF_CloseFont(v->font);
    v->font = TTF_OpenFont(v->font_path, px);
    v->font_px = px;
    v->font_gen++;
    if (v->font) {
        TTF_SetFontHinting(v->font, TTF_HINTING_LIGHT);
        v->line_h = TTF_FontHeight(v->font);
    }
    return v->font != NULL;
}

/* v->font's rendering of s in colour col: from the cache, else rendered and kept there in
 * place of the entry drawn longest ago (NULL when it cannot be rendered). Strings too
 * long for an entry are rendered each time, into *own (the caller frees it). */
static SDL_Surface *text_surface(view *v, const char *s, rgb8 col, SDL_Surface **own)
{
    SDL_Color fg = {col.r, col.g, col.b, 255};
    text_entry *e = NULL;
    *own = NULL;
    if (strlen(s) >= sizeof v->texts[0].s)
        return *own = TTF_RenderUTF8_Blended(v->font, s, fg);
    for (int i = 0; i < TEXT_CACHE; i++) {
        text_entry *t = &v->texts[i];
        if (t->sf && t->font_gen == v->font_gen && t->col.r == col.r && t->col.g == col.g && t->col.b == col.b &&
            strcmp(t->s, s) == 0) {
            t->used = ++v->text_tick;
            return t->sf;
        }
        if (!e || !t->sf || (e->sf && t->used < e->used))
            e = t;
    }
    SDL_FreeSurface(e->sf);
    if (!(e->sf = TTF_RenderUTF8_Blended(v->font, s, fg)))
        return NULL;
    e->font_gen = v->font_gen;
    e->col = col;
    e->used = ++v->text_tick;
    snprintf(e->s, sizeof e->s, "%s", s);
    return e->sf;
}

/* Anti-aliased text in v->font with its box's top-left at x, y; returns the x after it. */
static int text(view *v, const char *s, int x, int y, rgb8 col)
{
    SDL_Surface *own, *sf;
    if (!v->font || !s || !*s || !(sf = text_surface(v, s, col, &own)))
        return x;
    blit_text(&v->cv, sf, x, y, col);
    x += sf->w;
    SDL_FreeSurface(own);
    return x;
}

/* ---- the picture ------------------------------------------------------------------------- */

static uint64_t expected_frames(const analyze_result *info)
{
    int64_t hint = info->info.frames_hint;
    if (hint < 0)
        return 0;
    if ((uint64_t)hint < info->n)
        return 1;
    return ((uint64_t)hint - info->n) / info->hop + 1;
}

static int grow(void **p, size_t *cap, size_t want, size_t elem)
{
    void *q;
    if (want <= *cap)
        return 1;
    if (!(q = realloc(*p, want * elem)))
        return 0;
    *p = q;
    *cap = want;
    return 1;
}

/* Frame time (centre) and the time at the left edge of frame f's slot. */
static double frame_time(const picture *p, double f)
{
    return (f * (double)p->hop + (double)(p->n / 2)) / p->rate;
}

/* Resolves the frequency range of the base scale (before zoom). */
static void base_range(const view *v, double rate, size_t n, double *lo, double *hi)
{
    double fmin = v->user->render.fmin, fmax = v->user->render.fmax;
    if (fmax <= 0 || fmax > rate / 2)
        fmax = rate / 2;
    if (v->ui.scale == FREQ_SCALE_LOG && fmin <= 0)
        fmin = scale_log_default_fmin(rate, n);
    if (fmin >= fmax)
        fmin = 0;
    *lo = fmin;
    *hi = fmax;
}

static void make_title(const view *v, const analyze_result *info, char *buf, size_t len)
{
    const char *name = info->info.name, *slash = strrchr(name, '/');
    if (!v->user->input)
        snprintf(buf, len, "Live \xe2\x80\x94 %s", name);
    else if (v->user->realtime)
        snprintf(buf, len, "%s  (real time)", slash ? slash + 1 : name);
    else
        snprintf(buf, len, "%s", slash ? slash + 1 : name);
}

/* The renderer's config for the picture as the settings are now (its title written into
 * `title`), and the stream's fields of the picture. */
static render_config picture_config(view *v, const layout *L, const analyze_result *info, char *title, size_t len)
{
    picture *p = &v->pic;
    render_config rc = v->user->render;
    double lo, hi;

    p->channels = info->out_channels;
    p->bins = info->n / 2 + 1;
    p->n = info->n;
    p->hop = info->hop;
    p->rate = info->info.rate;
    base_range(v, p->rate, p->n, &lo, &hi);
    rc.width = L->pic_w;
    rc.height = L->pic_h;
    rc.scale = v->ui.scale;
    rc.colormap = v->ui.cmap;
    rc.db_lo = v->ui.db_lo;
    rc.db_hi = v->ui.db_hi;
    rc.fmin = v->ui.zf_lo > 0 ? v->ui.zf_lo : lo;
    rc.fmax = v->ui.zf_hi > 0 ? v->ui.zf_hi : hi;
    if (rc.scale != FREQ_SCALE_LOG && rc.fmin == 0 && lo == 0)
        rc.fmin = 0;
    make_title(v, info, title, len);
    rc.title = title;
    return rc;
}

/* The entries the picture shows with plot_w pixel columns (p->a0, span, count) and the
 * newest frame it shows (*newest). Under mu. */
static void picture_range(view *v, const analyze_result *info, size_t plot_w, uint64_t *newest)
{
    picture *p = &v->pic;
    uint64_t frames = view_store_frames(v->sh.store), total;
    if (info->live) {
        uint64_t end = v->ui.paused ? v->ui.paused_frames : frames;
        uint64_t cap = view_store_capacity(v->sh.store), zmax = 1;
        while (zmax * 2 * plot_w <= cap)
            zmax *= 2;
        if (v->ui.live_zoom > zmax)
            v->ui.live_zoom = zmax;
        p->span = v->ui.live_zoom;
        p->count = plot_w;
        p->a0 = (int64_t)end - (int64_t)(p->span * plot_w);
        /* columns stay put as the picture scrolls: entry edges on multiples of span */
        p->a0 = p->a0 >= 0 ? p->a0 / (int64_t)p->span * (int64_t)p->span
                           : -((-p->a0 + (int64_t)p->span - 1) / (int64_t)p->span) * (int64_t)p->span;
        *newest = end;
    } else {
        double a, b;
        total = expected_frames(info);
        if (total < frames)
            total = frames;
        if (total == 0)
            total = 1;
        if (!v->ui.file_view_set) {
            v->ui.v0 = 0;
            v->ui.v1 = (double)total;
        }
        if (v->ui.v1 > (double)total && v->ui.file_view_set) {
            double span = v->ui.v1 - v->ui.v0;
            v->ui.v1 = (double)total;
            v->ui.v0 = fmax(0.0, v->ui.v1 - span);
        }
        if (!(v->ui.v1 > v->ui.v0) || !isfinite(v->ui.v0) || !isfinite(v->ui.v1)) {
            v->ui.v0 = 0;
            v->ui.v1 = (double)total;
        }
        a = v->ui.v0;
        b = v->ui.v1;
        p->span = view_store_span(v->sh.store, (uint64_t)ceil(b - a), plot_w);
        p->a0 = (int64_t)(floor(a / (double)p->span) * (double)p->span);
        p->count = (size_t)ceil((b - (double)p->a0) / (double)p->span);
        if (p->count < 1)
            p->count = 1;
        *newest = frames;
    }
}

/* Entry i of channel c in p->snap. */
static const int16_t *snap_entry(const picture *p, int c, size_t i)
{
    return p->snap + ((size_t)c * p->count + (i + p->rot) % p->count) * p->bins;
}

/* One entry as the renderer's input: dB with the gain. */
static void entry_db(const view *v, const int16_t *s, float *db)
{
    for (size_t k = 0; k < v->pic.bins; k++)
        db[k] = (float)s[k] * 0.01f + v->ui.gain;
}

/* The whole picture from scratch: a render for the entries in snap (channels x count x
 * bins, in order), every entry added as the renderer's frame i (its time that of its
 * middle frame), drawn into rgba (the picture's size). *out receives the render. */
static int full_picture(view *v, const render_config *rc, const int16_t *snap, uint8_t *rgba, render **out,
                        sp_errinfo *ei)
{
    picture *p = &v->pic;
    double t0 = frame_time(p, (double)p->a0 + 0.5 * (double)(p->span - 1));
    double dt = (double)p->span * (double)p->hop / p->rate;
    int err;
    *out = NULL;
    if ((err = render_create(rc, p->rate, p->n, t0, dt, p->channels, (int64_t)p->count, out, ei)) != SP_OK)
        return err;
    if (!grow((void **)&p->fbuf, &p->fbuf_cap, p->bins, sizeof *p->fbuf))
        return sp_fail(ei, SP_ENOMEM, "out of memory");
    for (int c = 0; c < p->channels; c++)
        for (size_t i = 0; i < p->count; i++) {
            entry_db(v, snap + ((size_t)c * p->count + i) * p->bins, p->fbuf);
            render_add(*out, c, i, 1, p->fbuf);
        }
    return render_draw(*out, rgba, ei);
}

/* File view: builds pic->r and draws it into v->pic_px (L.pic_w x L.pic_h), all of it.
 * Returns 1 when drawn. */
static int draw_spectrogram(view *v, const layout *L, const analyze_result *info, uint64_t *newest_out)
{
    picture *p = &v->pic;
    char title[600];
    render_config rc = picture_config(v, L, info, title, sizeof title);
    sp_errinfo ei = {{0}};
    int C = p->channels, err;
    size_t plot_w, need;
    render *probe = NULL;

    /* the plot's width comes from the layout, which does not depend on the time range:
     * measured once per layout (a probe), then the real picture with its time origin */
    if (p->plot_w > 0 && p->key.width == rc.width && p->key.height == rc.height && p->key.scale == rc.scale &&
        p->key.db_lo == rc.db_lo && p->key.db_hi == rc.db_hi && p->key.fmin == rc.fmin && p->key.fmax == rc.fmax &&
        p->key_rate == p->rate && p->key_n == p->n && p->key_channels == C) {
        plot_w = (size_t)p->plot_w;
    } else {
        if ((err = render_create(&rc, p->rate, p->n, 0.0, 1.0, C, 1, &probe, &ei)) != SP_OK) {
            snprintf(p->render_err, sizeof p->render_err, "%s", ei.msg);
            p->plot_w = 0;
            return 0;
        }
        plot_w = (size_t)render_plot_rect(probe, 0).w;
        render_destroy(probe);
        p->key = rc;
        p->key_rate = p->rate;
        p->key_n = p->n;
        p->key_channels = C;
        p->plot_w = (int)plot_w;
    }

    pthread_mutex_lock(&v->sh.mu);
    picture_range(v, info, plot_w, newest_out);
    need = (size_t)C * p->count * p->bins;
    if (!grow((void **)&p->snap, &p->snap_cap, need, sizeof *p->snap)) {
        pthread_mutex_unlock(&v->sh.mu);
        snprintf(p->render_err, sizeof p->render_err, "out of memory");
        return 0;
    }
    for (int c = 0; c < C; c++)
        view_store_get(v->sh.store, c, p->a0, p->span, p->count, p->snap + (size_t)c * p->count * p->bins);
    pthread_mutex_unlock(&v->sh.mu);
    p->rot = 0;

    render_destroy(p->r);
    p->r = NULL;
    v->scr.valid = 0; /* the live picture's render is gone */
    if (!grow((void **)&v->pic_px, &v->pic_cap, (size_t)L->pic_w * (size_t)L->pic_h * 4, 1))
        return 0;
    if (full_picture(v, &rc, p->snap, v->pic_px, &p->r, &ei) != SP_OK) {
        snprintf(p->render_err, sizeof p->render_err, "%s", ei.msg);
        return 0;
    }
    p->render_err[0] = 0;
    return 1;
}

/* ---- the live picture, drawn a little at a time ------------------------------------------ */

static int same_config(const render_config *a, const render_config *b)
{
    return a->width == b->width && a->height == b->height && a->scale == b->scale && a->colormap == b->colormap &&
           a->db_lo == b->db_lo && a->db_hi == b->db_hi && a->fmin == b->fmin && a->fmax == b->fmax &&
           a->font == b->font && strcmp(a->title ? a->title : "", b->title ? b->title : "") == 0;
}

/* x, y, w, h clipped to the canvas; 0 when nothing is left. */
static int clip_rect(const view *v, int x, int y, int w, int h, SDL_Rect *out)
{
    int x1 = x + w < v->cv.w ? x + w : v->cv.w, y1 = y + h < v->cv.h ? y + h : v->cv.h;
    out->x = x > 0 ? x : 0;
    out->y = y > 0 ? y : 0;
    out->w = x1 - out->x;
    out->h = y1 - out->y;
    return out->w > 0 && out->h > 0;
}

/* Marks a part of the canvas for the texture; the canvas holds the whole picture there.
 * A full list takes all of the canvas, which the live panels' frames (ring_panels) never
 * need: they have at most DIRECT_MAX_CHANNELS labels and a few overlays. */
static void damage(view *v, int x, int y, int w, int h)
{
    SDL_Rect r;
    if (!clip_rect(v, x, y, w, h, &r))
        return;
    if (v->ndmg == (int)(sizeof v->dmg / sizeof v->dmg[0]))
        v->dmg_all = 1;
    else
        v->dmg[v->ndmg++] = r;
}

/* The ring's columns into the canvas, for the panel pixels inside `area`: screen column
 * i of a panel is slot (i + rot) % count, so a row is at most two copies. */
static void compose_panels(view *v, render_rect area)
{
    picture *p = &v->pic;
    scroll *sc = &v->scr;
    size_t count = p->count, pitch = (size_t)v->cv.w * 4;
    for (int c = 0; c < p->channels; c++) {
        render_rect pr = render_plot_rect(p->r, c);
        int x0 = area.x > pr.x ? area.x : pr.x, x1 = area.x + area.w < pr.x + pr.w ? area.x + area.w : pr.x + pr.w;
        int y0 = area.y > pr.y ? area.y : pr.y, y1 = area.y + area.h < pr.y + pr.h ? area.y + area.h : pr.y + pr.h;
        for (int y = y0; y < y1; y++) {
            const uint8_t *ring = sc->ring + ((size_t)c * (size_t)sc->panel_h + (size_t)(y - pr.y)) * count * 4;
            uint8_t *dst = v->cv.px + (size_t)y * pitch;
            for (int x = x0; x < x1;) {
                size_t j = ((size_t)(x - pr.x) + p->rot) % count;
                int run = x1 - x < (int)(count - j) ? x1 - x : (int)(count - j);
                memcpy(dst + (size_t)x * 4, ring + j * 4, (size_t)run * 4);
                x += run;
            }
        }
    }
}

/* The part of channel c's label (several channels) that lies on its panel. */
static render_rect label_area(const view *v, int c)
{
    render_rect box = render_label_rect(v->pic.r, c), pc = render_plot_rect(v->pic.r, c), on;
    int x1 = box.x + box.w < pc.x + pc.w ? box.x + box.w : pc.x + pc.w;
    int y1 = box.y + box.h < pc.y + pc.h ? box.y + box.h : pc.y + pc.h;
    on.x = box.x > pc.x ? box.x : pc.x;
    on.y = box.y > pc.y ? box.y : pc.y;
    on.w = x1 - on.x > 0 ? x1 - on.x : 0;
    on.h = y1 - on.y > 0 ? y1 - on.y : 0;
    return on;
}

/* The chrome into the canvas where an overlay was: its part around the panels. */
static void restore_chrome(view *v, const layout *L, SDL_Rect a)
{
    picture *p = &v->pic;
    render_rect p0 = render_plot_rect(p->r, 0), last = render_plot_rect(p->r, p->channels - 1);
    int stride = p->channels > 1 ? render_plot_rect(p->r, 1).y - p0.y : p0.h; /* panel + gap */
    int x1 = a.x + a.w < L->pic_w ? a.x + a.w : L->pic_w, y1 = a.y + a.h < L->pic_h ? a.y + a.h : L->pic_h;
    for (int y = a.y; y < y1; y++) {
        const uint8_t *src = v->scr.chrome + (size_t)y * (size_t)L->pic_w * 4;
        uint8_t *dst = v->cv.px + (size_t)y * (size_t)v->cv.w * 4;
        int in = y >= p0.y && y < last.y + last.h && (y - p0.y) % stride < p0.h;
        int l1 = in && p0.x < x1 ? p0.x : x1, r0 = in && p0.x + p0.w > a.x ? p0.x + p0.w : a.x;
        if (l1 > a.x)
            memcpy(dst + (size_t)a.x * 4, src + (size_t)a.x * 4, (size_t)(l1 - a.x) * 4);
        if (x1 > r0)
            memcpy(dst + (size_t)r0 * 4, src + (size_t)r0 * 4, (size_t)(x1 - r0) * 4);
    }
}

/* An overlay is about to be drawn over x, y, w, h: under it the canvas must hold the
 * whole picture (the live panels too), the texture takes the area, and the next frame
 * puts the picture back there. */
static void overlay_area(view *v, int x, int y, int w, int h)
{
    SDL_Rect r;
    render_rect a = {x, y, w, h};
    if (!clip_rect(v, x, y, w, h, &r))
        return;
    if (v->ring_panels) {
        /* the panels there, and the labels on them again */
        compose_panels(v, a);
        for (int c = 0; v->pic.channels > 1 && c < v->pic.channels; c++) {
            render_rect on = label_area(v, c);
            int x0 = on.x > a.x ? on.x : a.x, y0 = on.y > a.y ? on.y : a.y;
            int x1 = on.x + on.w < a.x + a.w ? on.x + on.w : a.x + a.w;
            int y1 = on.y + on.h < a.y + a.h ? on.y + on.h : a.y + a.h;
            render_rect both = {x0, y0, x1 - x0, y1 - y0};
            if (both.w > 0 && both.h > 0)
                render_draw_area(v->pic.r, v->cv.px, (size_t)v->cv.w * 4, both, 1, NULL);
        }
    }
    damage(v, r.x, r.y, r.w, r.h);
    if (v->ncovered == (int)(sizeof v->covered / sizeof v->covered[0]))
        v->scr.canvas_ok = 0;
    else
        v->covered[v->ncovered++] = r;
}

/* The chrome into the canvas, around the panels. */
static void copy_chrome(view *v, const layout *L)
{
    picture *p = &v->pic;
    render_rect p0 = render_plot_rect(p->r, 0), last = render_plot_rect(p->r, p->channels - 1);
    int stride = p->channels > 1 ? render_plot_rect(p->r, 1).y - p0.y : p0.h; /* panel + gap */
    size_t row = (size_t)L->pic_w * 4, right = (size_t)(p0.x + p0.w) * 4;
    for (int y = 0; y < L->pic_h; y++) {
        const uint8_t *src = v->scr.chrome + (size_t)y * row;
        uint8_t *dst = v->cv.px + (size_t)y * (size_t)v->cv.w * 4;
        if (y >= p0.y && y < last.y + last.h && (y - p0.y) % stride < p0.h) {
            memcpy(dst, src, (size_t)p0.x * 4);
            memcpy(dst + right, src + right, row - right);
        } else {
            memcpy(dst, src, row);
        }
    }
}

/* The ring's texture at the ring's size (a new one is all stale); 0 when there is none. */
static int fit_ring_texture(view *v)
{
    int w = (int)v->pic.count, h = v->pic.channels * v->scr.panel_h;
    if (v->ring_tex && v->ring_tex_w == w && v->ring_tex_h == h)
        return 1;
    if (v->ring_tex)
        SDL_DestroyTexture(v->ring_tex);
    v->ring_tex = SDL_CreateTexture(v->ren, SDL_PIXELFORMAT_RGBA32, SDL_TEXTUREACCESS_STREAMING, w, h);
    if (!v->ring_tex)
        return 0;
    SDL_SetTextureBlendMode(v->ring_tex, SDL_BLENDMODE_NONE);
    v->ring_tex_w = w;
    v->ring_tex_h = h;
    v->ring_tex_stale = 1;
    return 1;
}

/* The slots drawn this frame into the ring's texture: runs of columns, every channel. */
static void upload_ring(view *v)
{
    size_t count = v->pic.count, rp = count * 4;
    int C = v->pic.channels;
    for (size_t j = 0; j < count;) {
        size_t j1 = j;
        for (;; j1++) {
            int fresh = v->ring_tex_stale;
            for (int c = 0; !fresh && j1 < count && c < C; c++)
                fresh = v->scr.slot_new[(size_t)c * count + j1];
            if (j1 == count || !fresh)
                break;
        }
        if (j1 > j) {
            SDL_Rect r = {(int)j, 0, (int)(j1 - j), v->ring_tex_h};
            SDL_UpdateTexture(v->ring_tex, &r, v->scr.ring + j * 4, (int)rp);
        }
        j = j1 + 1;
    }
    v->ring_tex_stale = 0;
}

/* Whether a and b overlap. */
static int meet(const SDL_Rect *a, const SDL_Rect *b)
{
    return a->x < b->x + b->w && b->x < a->x + a->w && a->y < b->y + b->h && b->y < a->y + a->h;
}

/* The frame's changes into the textures, and the textures onto the renderer's output:
 * the canvas whole, or (ring_panels) the canvas around the panels, the panels from the
 * ring's texture, oldest entry at the left (two copies a panel), and the canvas again
 * where something lies on them. The texture covers the whole output: no clear. */
static void present_parts(view *v)
{
    picture *p = &v->pic;
    size_t pitch = (size_t)v->cv.w * 4;
    int W = v->cv.w, H = v->cv.h, C = p->channels;
    render_rect p0, last;
    if (v->ring_live)
        upload_ring(v);
    if (v->dmg_all)
        SDL_UpdateTexture(v->tex, NULL, v->cv.px, (int)pitch);
    else
        for (int i = 0; i < v->ndmg; i++)
            SDL_UpdateTexture(v->tex, &v->dmg[i], v->cv.px + (size_t)v->dmg[i].y * pitch + (size_t)v->dmg[i].x * 4,
                              (int)pitch);
    if (!v->ring_panels) {
        SDL_RenderCopy(v->ren, v->tex, NULL, NULL);
        return;
    }
    p0 = render_plot_rect(p->r, 0);
    last = render_plot_rect(p->r, C - 1);
    {
        SDL_Rect top = {0, 0, W, p0.y}, bottom = {0, last.y + last.h, W, H - (last.y + last.h)};
        SDL_RenderCopy(v->ren, v->tex, &top, &top);
        SDL_RenderCopy(v->ren, v->tex, &bottom, &bottom);
    }
    for (int c = 0; c < C; c++) {
        render_rect pr = render_plot_rect(p->r, c);
        int cut = (int)(p->count - p->rot);
        SDL_Rect left = {0, pr.y, pr.x, pr.h}, right = {pr.x + pr.w, pr.y, W - (pr.x + pr.w), pr.h};
        SDL_Rect old_src = {(int)p->rot, c * pr.h, cut, pr.h}, old_dst = {pr.x, pr.y, cut, pr.h};
        SDL_Rect new_src = {0, c * pr.h, (int)p->rot, pr.h}, new_dst = {pr.x + cut, pr.y, (int)p->rot, pr.h};
        SDL_RenderCopy(v->ren, v->tex, &left, &left);
        SDL_RenderCopy(v->ren, v->tex, &right, &right);
        SDL_RenderCopy(v->ren, v->ring_tex, &old_src, &old_dst);
        if (p->rot > 0)
            SDL_RenderCopy(v->ren, v->ring_tex, &new_src, &new_dst);
        if (c + 1 < C) { /* the gap below */
            render_rect next = render_plot_rect(p->r, c + 1);
            SDL_Rect gap = {0, pr.y + pr.h, W, next.y - (pr.y + pr.h)};
            SDL_RenderCopy(v->ren, v->tex, &gap, &gap);
        }
    }
    for (int i = 0; i < v->ndmg; i++)
        for (int c = 0; c < C; c++) {
            render_rect pr = render_plot_rect(p->r, c);
            SDL_Rect panel = {pr.x, pr.y, pr.w, pr.h};
            if (meet(&v->dmg[i], &panel)) {
                SDL_RenderCopy(v->ren, v->tex, &v->dmg[i], &v->dmg[i]);
                break;
            }
        }
}

/* ---- checks (SPECTRO_VIEW_VERIFY, for the tests) ----------------------------------------- */

/* SPECTRO_VIEW_VERIFY: the picture area of the canvas and the spectra kept against a
 * whole picture drawn the old way from v->ver.snap (the same snapshot). */
static void verify_live(view *v, const layout *L, const render_config *rc)
{
    picture *p = &v->pic;
    verify *vf = &v->ver;
    render *ref = NULL;
    sp_errinfo ei = {{0}};
    size_t row = (size_t)L->pic_w * 4;
    char msg[256] = "";
    vf->frames++;
    if (!grow((void **)&vf->px, &vf->px_cap, row * (size_t)L->pic_h, 1) ||
        full_picture(v, rc, vf->snap, vf->px, &ref, &ei) != SP_OK)
        snprintf(msg, sizeof msg, "cannot draw the reference: %.200s", ei.msg);
    for (int y = 0; !msg[0] && y < L->pic_h; y++) {
        const uint8_t *a = v->cv.px + (size_t)y * (size_t)v->cv.w * 4, *b = vf->px + (size_t)y * row;
        if (memcmp(a, b, row) != 0) {
            size_t x = 0;
            while (a[x] == b[x])
                x++;
            snprintf(msg, sizeof msg, "pixel (%zu, %d) differs from a whole redraw", x / 4, y);
        }
    }
    for (int c = 0; !msg[0] && c < p->channels; c++)
        for (size_t i = 0; !msg[0] && i < p->count; i++)
            if (memcmp(snap_entry(p, c, i), vf->snap + ((size_t)c * p->count + i) * p->bins,
                       p->bins * sizeof *vf->snap) != 0)
                snprintf(msg, sizeof msg, "spectrum %zu of channel %d differs from the store's", i, c);
    if (msg[0] && vf->mismatched++ == 0 && vf->shown_mismatched == 0)
        snprintf(vf->first, sizeof vf->first, "frame %llu: %s", (unsigned long long)vf->frames, msg);
    render_destroy(ref);
}

/* A difference seen in what was shown counts unless the window turned out to be in the
 * middle of a resize then (fit_drawable drops it): the GL drawable changes size under
 * that frame. */
static void verify_commit(view *v)
{
    verify *vf = &v->ver;
    if (!vf->pending[0])
        return;
    if (vf->shown_mismatched++ == 0 && vf->mismatched == 0)
        snprintf(vf->first, sizeof vf->first, "%s", vf->pending);
    vf->pending[0] = 0;
}

/* SPECTRO_VIEW_VERIFY: what the renderer is about to show, read back, against the window
 * expected (verify_overlays): the textures' updates in parts are checked. */
static void verify_shown(view *v)
{
    verify *vf = &v->ver;
    size_t row = (size_t)v->cv.w * 4;
    char msg[256] = "";
    verify_commit(v);
    vf->shown++;
    if (!vf->ref_ok || !grow((void **)&vf->px, &vf->px_cap, row * (size_t)v->cv.h, 1) ||
        SDL_RenderReadPixels(v->ren, NULL, SDL_PIXELFORMAT_RGBA32, vf->px, (int)row) != 0)
        snprintf(msg, sizeof msg, "cannot read the window back: %.160s", SDL_GetError());
    for (int y = 0; !msg[0] && y < v->cv.h; y++)
        for (int x = 0; x < v->cv.w; x++) {
            size_t o = (size_t)y * row + (size_t)x * 4;
            const uint8_t *a = vf->ref + o, *b = vf->px + o;
            if (a[0] != b[0] || a[1] != b[1] || a[2] != b[2]) {
                snprintf(msg, sizeof msg, "shown pixel (%d, %d) differs from the window expected", x, y);
                break;
            }
        }
    if (msg[0])
        snprintf(vf->pending, sizeof vf->pending, "shown frame %llu: %s", (unsigned long long)vf->shown, msg);
}

/* Live: the picture scrolls by whole entries, and an entry's pixels do not change while
 * it is HELD (view_store_entry_state), so most of a frame is the last one's. Kept in v->scr:
 *   - the render (fonts, layout, axes) and its picture less the panels (chrome), made
 *     again only when the layout or a setting changes;
 *   - the panels as a ring of pixel columns, one per entry at slot entry % count, with
 *     the spectra beside them (p->snap, same slots): an entry is fetched and drawn
 *     (render_draw_column) when it first shows, and again while it may still change.
 * A frame draws into the canvas only what moves: the time axis, the channel labels on
 * the panels, and it puts back the chrome that last frame's overlays covered. With
 * `direct` the panels stay out of the canvas: they are drawn from the ring's own texture,
 * which takes only the new columns (present_parts), and from the canvas only where
 * something lies on them (labels, overlay_area); without, the ring is copied into the
 * canvas, all of which goes to the texture.
 * Cost per frame: O(new entries x (bins + rows)) and the panels' pixels copied once,
 * where a whole redraw costs O(entries x bins) and the renderer's every pixel and
 * label. The pixels are draw_spectrogram's (SPECTRO_VIEW_VERIFY compares them).
 * Returns 1 when drawn. */
static int draw_live(view *v, const layout *L, const analyze_result *info, uint64_t *newest_out, int direct)
{
    picture *p = &v->pic;
    scroll *sc = &v->scr;
    canvas *cv = &v->cv;
    char title[600];
    render_config rc = picture_config(v, L, info, title, sizeof title);
    sp_errinfo ei = {{0}};
    int C = p->channels, ph;
    size_t bins = p->bins, count, nslots, pitch = (size_t)cv->w * 4;
    int64_t e0;
    render_rect pr, last;

    /* the render and the chrome: kept while the config is */
    if (!sc->valid || !p->r || !same_config(&sc->rc, &rc) || sc->rate != p->rate || sc->n != p->n ||
        sc->channels != C) {
        render_destroy(p->r);
        p->r = NULL;
        sc->valid = 0;
        if (render_create(&rc, p->rate, p->n, 0.0, 1.0, C, 1, &p->r, &ei) != SP_OK) {
            snprintf(p->render_err, sizeof p->render_err, "%s", ei.msg);
            return 0;
        }
        sc->rc = rc;
        snprintf(sc->title, sizeof sc->title, "%s", title);
        sc->rc.title = sc->title;
        sc->rate = p->rate;
        sc->n = p->n;
        sc->channels = C;
        sc->count = 0; /* the slots start over */
        sc->chrome_ok = 0;
        sc->valid = 1;
    }
    pr = render_plot_rect(p->r, 0);
    last = render_plot_rect(p->r, C - 1);
    ph = pr.h;
    count = (size_t)pr.w; /* one entry a pixel column (picture_range) */
    nslots = (size_t)C * count;
    if (!grow((void **)&p->snap, &p->snap_cap, nslots * bins, sizeof *p->snap) ||
        !grow((void **)&sc->slot_e, &sc->slot_e_cap, nslots, sizeof *sc->slot_e) ||
        !grow((void **)&sc->slot_st, &sc->slot_st_cap, nslots, 1) ||
        !grow((void **)&sc->slot_new, &sc->slot_new_cap, nslots, 1) ||
        !grow((void **)&sc->ring, &sc->ring_cap, nslots * (size_t)ph * 4, 1) ||
        !grow((void **)&p->fbuf, &p->fbuf_cap, bins, sizeof *p->fbuf) ||
        (v->ver.on && !grow((void **)&v->ver.snap, &v->ver.snap_cap, nslots * bins, sizeof *v->ver.snap))) {
        snprintf(p->render_err, sizeof p->render_err, "out of memory");
        return 0;
    }

    pthread_mutex_lock(&v->sh.mu);
    picture_range(v, info, count, newest_out);
    /* what every slot's pixels depend on besides their entry */
    if (sc->count != count || sc->span != p->span || sc->gen != v->sh.gen || sc->gain != v->ui.gain ||
        sc->panel_h != ph) {
        memset(sc->slot_st, VIEW_STORE_OPEN, nslots);
        sc->count = count;
        sc->span = p->span;
        sc->gen = v->sh.gen;
        sc->gain = v->ui.gain;
        sc->panel_h = ph;
    }
    e0 = p->a0 / (int64_t)p->span; /* a0 is a multiple of span */
    p->rot = (size_t)(((e0 % (int64_t)count) + (int64_t)count) % (int64_t)count);
    for (int c = 0; c < C; c++)
        for (size_t i = 0; i < count; i++) {
            size_t k = (size_t)c * count + (i + p->rot) % count;
            int64_t e = e0 + (int64_t)i, a = e * (int64_t)p->span;
            int st = view_store_entry_state(v->sh.store, c, a, p->span);
            sc->slot_new[k] = 0;
            if (sc->slot_e[k] == e && sc->slot_st[k] == st && st != VIEW_STORE_OPEN)
                continue;
            view_store_get(v->sh.store, c, a, p->span, 1, p->snap + k * bins);
            sc->slot_e[k] = e;
            sc->slot_st[k] = (uint8_t)st;
            sc->slot_new[k] = 1;
        }
    if (v->ver.on)
        for (int c = 0; c < C; c++)
            view_store_get(v->sh.store, c, p->a0, p->span, count, v->ver.snap + (size_t)c * count * bins);
    pthread_mutex_unlock(&v->sh.mu);

    /* the new columns */
    for (size_t k = 0; k < nslots; k++)
        if (sc->slot_new[k]) {
            size_t c = k / count, j = k % count;
            entry_db(v, p->snap + k * bins, p->fbuf);
            render_draw_column(p->r, p->fbuf, sc->ring + (c * (size_t)ph * count + j) * 4, count * 4);
        }

    if (!sc->chrome_ok) {
        render_rect all = {0, 0, L->pic_w, L->pic_h};
        if (!grow((void **)&sc->chrome, &sc->chrome_cap, (size_t)L->pic_w * (size_t)L->pic_h * 4, 1)) {
            snprintf(p->render_err, sizeof p->render_err, "out of memory");
            return 0;
        }
        memset(sc->chrome, 0, (size_t)L->pic_w * (size_t)L->pic_h * 4);
        if (render_draw_area(p->r, sc->chrome, (size_t)L->pic_w * 4, all, 1, &ei) != SP_OK) {
            snprintf(p->render_err, sizeof p->render_err, "%s", ei.msg);
            return 0;
        }
        sc->chrome_ok = 1;
        sc->canvas_ok = 0;
    }

    /* the canvas: chrome around the panels (kept from the last frame when nothing drew
     * over it), the ring in them unless they are drawn from the ring's texture */
    v->ring_live = fit_ring_texture(v); /* the slots drawn now go to it */
    direct = direct && v->ring_live;     /* else the panels go through the canvas */
    v->ring_panels = direct;
    if (!sc->canvas_ok) {
        copy_chrome(v, L);
        sc->canvas_ok = 1;
        v->dmg_all = 1;
    } else {
        for (int i = 0; i < v->ncovered; i++) {
            render_rect a = {v->covered[i].x, v->covered[i].y, v->covered[i].w, v->covered[i].h};
            restore_chrome(v, L, v->covered[i]);
            if (direct)
                compose_panels(v, a);
            damage(v, a.x, a.y, a.w, a.h);
        }
    }
    v->ncovered = 0;
    if (!direct || v->ver.on) { /* the check wants the whole picture in the canvas */
        render_rect all = {0, 0, L->pic_w, L->pic_h};
        compose_panels(v, all);
        v->dmg_all |= !direct;
    }
    /* what moves or lies on the panels: the time axis (everything under the panels, as
     * the renderer draws it there) and the channel labels */
    {
        render_rect band = {0, last.y + last.h + 1, L->pic_w, L->pic_h - (last.y + last.h + 1)};
        double t0 = frame_time(p, (double)p->a0 + 0.5 * (double)(p->span - 1));
        double dt = (double)p->span * (double)p->hop / p->rate;
        int err = render_set_time(p->r, t0, dt, (int64_t)count);
        if (err == SP_OK)
            err = render_draw_area(p->r, cv->px, pitch, band, 1, &ei);
        damage(v, band.x, band.y, band.w, band.h);
        for (int c = 0; err == SP_OK && C > 1 && c < C; c++) {
            render_rect on = label_area(v, c); /* its part off the panel is chrome */
            if (on.w <= 0 || on.h <= 0)
                continue;
            if (direct)
                compose_panels(v, on);
            err = render_draw_area(p->r, cv->px, pitch, on, 1, &ei);
            damage(v, on.x, on.y, on.w, on.h);
        }
        if (err != SP_OK) {
            snprintf(p->render_err, sizeof p->render_err, "%s", ei.msg[0] ? ei.msg : "cannot draw");
            return 0;
        }
    }
    if (v->ver.on)
        verify_live(v, L, &rc);
    p->render_err[0] = 0;
    return 1;
}

/* dB of bin range [k0, k1] (max), or interpolated at fractional bin kc when k0 > k1. */
static float band_db(const int16_t *s, size_t bins, double f_lo, double f_hi, double bin_hz)
{
    double k0 = ceil(f_lo / bin_hz - 1e-9), k1 = floor(f_hi / bin_hz + 1e-9);
    if (k0 < 0)
        k0 = 0;
    if (k1 > (double)(bins - 1))
        k1 = (double)(bins - 1);
    if (k0 <= k1) {
        int16_t m = s[(size_t)k0];
        for (size_t k = (size_t)k0 + 1; k <= (size_t)k1; k++)
            m = s[k] > m ? s[k] : m;
        return (float)m * 0.01f;
    } else {
        double kc = 0.5 * (f_lo + f_hi) / bin_hz, kf = floor(kc), fr;
        size_t a;
        if (kf < 0)
            kf = 0;
        if (kf > (double)(bins - 2))
            kf = (double)(bins - 2);
        a = (size_t)kf;
        fr = fmin(1.0, fmax(0.0, kc - kf));
        return (float)((s[a] + (s[a + 1] - s[a]) * fr) * 0.01);
    }
}

/* The live spectrum strip: one curve per channel panel, level on x (dB range of the
 * colour bar), frequency on y shared with the spectrogram beside it. */
static void draw_spectrum(view *v, const layout *L, const int16_t *const *cur, const float *hold_db, int have_hold,
                          const char *caption)
{
    picture *p = &v->pic;
    canvas *cv = &v->cv;
    const scale_map *map = render_scale(p->r);
    const uint8_t(*lut)[3] = colormap_lut(v->ui.cmap);
    int fs = L->fs, x0 = L->side_x + fs / 2, x1 = cv->w - (int)lround(fs * 1.4), pw = x1 - x0;
    double lo = v->ui.db_lo, hi = v->ui.db_hi, bin_hz = p->rate / (double)p->n, step;
    int16_t *hold16 = NULL;
    char buf[64];
    render_rect bottom = render_plot_rect(p->r, p->channels - 1);
    if (pw < 20 || !map)
        return;
    ensure_font(v, fs);
    /* dB grid: 1-2-5 steps at least ~3 label widths apart */
    step = 10;
    {
        double min_step = (hi - lo) * (text_w(v->font, "\xe2\x88\x92" "120") * 1.8) / pw;
        static const double steps[] = {1, 2, 5, 10, 20, 25, 50, 100, 200, 500, 1000};
        for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++)
            if (steps[i] >= min_step) {
                step = steps[i];
                break;
            }
    }
    if (have_hold && (hold16 = malloc(p->bins * sizeof *hold16)) == NULL)
        have_hold = 0;
    text(v, caption, x0, (int)lround(0.8 * fs) / 2 + (int)lround(0.1 * fs), RENDER_COL_LABEL);
    for (int c = 0; c < p->channels; c++) {
        render_rect pr = render_plot_rect(p->r, c);
        int prev_x = -1, prev_hx = -1;
        fill(cv, x0, pr.y, pw, pr.h, COL_PANEL_BG);
        for (double d = ceil(lo / step) * step; d <= hi + 1e-9; d += step) {
            int gx = x0 + (int)lround((d - lo) / (hi - lo) * (pw - 1));
            fill(cv, gx, pr.y, 1, pr.h, COL_GRID);
        }
        if (have_hold)
            for (size_t k = 0; k < p->bins; k++) {
                float h = hold_db[(size_t)c * p->bins + k] * 100.0f;
                hold16[k] = (int16_t)(h < -32768.0f ? -32768 : h > 32767.0f ? 32767 : h);
            }
        for (int y = 0; y < pr.h; y++) {
            double f_hi = scale_from_unit(map, 1.0 - (double)y / pr.h);
            double f_lo = scale_from_unit(map, 1.0 - (double)(y + 1) / pr.h);
            int yy = pr.y + y;
            if (cur && cur[c]) {
                double db = band_db(cur[c], p->bins, f_lo, f_hi, bin_hz) + v->ui.gain;
                double t = (db - lo) / (hi - lo);
                int x = x0 + (int)lround(fmin(1.0, fmax(0.0, t)) * (pw - 1));
                int li = (int)lround(fmin(1.0, fmax(0.0, t)) * 255);
                rgb8 col = {lut[li][0], lut[li][1], lut[li][2]};
                int a = prev_x < 0 ? x : prev_x, lo_x = a < x ? a : x, hi_x = a < x ? x : a;
                blend(cv, x0, yy, x - x0, 1, col, 150);
                fill(cv, lo_x, yy, hi_x - lo_x + 1, 1, COL_CURVE);
                prev_x = x;
            }
            if (have_hold) {
                double db = band_db(hold16, p->bins, f_lo, f_hi, bin_hz) + v->ui.gain;
                int x = x0 + (int)lround(fmin(1.0, fmax(0.0, (db - lo) / (hi - lo))) * (pw - 1));
                int a = prev_hx < 0 ? x : prev_hx, lo_x = a < x ? a : x, hi_x = a < x ? x : a;
                if (db > lo || prev_hx > x0) /* nothing to hold at the floor */
                    fill(cv, lo_x, yy, hi_x - lo_x + 1, 1, COL_HOLD);
                prev_hx = db > lo ? x : x0;
            }
        }
        outline(cv, x0 - 1, pr.y - 1, pw + 2, pr.h + 2, RENDER_COL_FRAME);
    }
    free(hold16);
    /* the dB axis under the last panel */
    {
        int ty = bottom.y + bottom.h + 1, tick = (int)lround(0.4 * fs), gap = (int)lround(0.3 * fs);
        const char *cap = "Level (dBFS)";
        for (double d = ceil(lo / step) * step; d <= hi + 1e-9; d += step) {
            int gx = x0 + (int)lround((d - lo) / (hi - lo) * (pw - 1)), w;
            double dv = fabs(d) < 1e-9 ? 0.0 : d;
            fill(cv, gx, ty, 1, tick, RENDER_COL_TICK);
            snprintf(buf, sizeof buf, "%s%.0f", dv < 0 ? "\xe2\x88\x92" : "", fabs(dv));
            w = text_w(v->font, buf);
            text(v, buf, gx - w / 2, ty + tick + gap, RENDER_COL_LABEL);
        }
        text(v, cap, x0 + (pw - text_w(v->font, cap)) / 2, ty + tick + gap + v->line_h + fs / 4, RENDER_COL_LABEL);
    }
    /* legend */
    if (have_hold) {
        int ly = bottom.y + (int)lround(0.4 * fs), lx = x0 + (int)lround(0.5 * fs);
        const char *hl = v->live ? "peak hold" : "max of view";
        blend(cv, lx - fs / 3, ly - fs / 6, fs + fs / 3 + text_w(v->font, hl) + fs * 2 / 3, v->line_h + fs / 3, COL_BLACK,
              190);
        fill(cv, lx, ly + v->line_h / 2, fs, 2, COL_HOLD);
        text(v, hl, lx + fs + fs / 3, ly, RENDER_COL_LABEL);
    }
}

/* ---- status line, read-out, help ------------------------------------------------------- */

static void draw_status(view *v, const layout *L, const analyze_result *info, double latency)
{
    canvas *cv = &v->cv;
    char left[512], right[256], lat[48], wname[64];
    int fs = L->fs, y, x = fs;
    const char *name = info->info.name, *slash = strrchr(name, '/');
    shared *sh = &v->sh;
    uint64_t dropped;
    ensure_font(v, fs);
    fill(cv, 0, L->status_y, cv->w, L->status_h, COL_STATUS_BG);
    fill(cv, 0, L->status_y, cv->w, 1, COL_GRID);
    y = L->status_y + (L->status_h - v->line_h) / 2;
    if (info->live) {
        if (v->ui.paused)
            x = text(v, "\xe2\x9d\x9a\xe2\x9d\x9a PAUSED   ", x, y, COL_PAUSED);
        else if (v->finished)
            x = text(v, "\xe2\x96\xa0 ENDED   ", x, y, RENDER_COL_TICK);
        else
            x = text(v, "\xe2\x97\x8f LIVE   ", x, y, COL_LIVE);
    } else {
        char st[64];
        uint64_t total = expected_frames(info), have;
        pthread_mutex_lock(&sh->mu);
        have = view_store_frames(sh->store);
        pthread_mutex_unlock(&sh->mu);
        if (v->finished)
            snprintf(st, sizeof st, "%s", v->ui.paused ? "\xe2\x9d\x9a\xe2\x9d\x9a PAUSED   " : "");
        else
            snprintf(st, sizeof st, "analysing %.0f%%   ", total ? 100.0 * (double)have / (double)total : 0.0);
        x = text(v, st, x, y, v->ui.paused ? COL_PAUSED : COL_HOLD);
    }
    snprintf(wname, sizeof wname, "%s", info->window);
    pthread_mutex_lock(&sh->mu);
    dropped = sh->finished ? sh->res.dropped : sh->skipped * info->hop;
    pthread_mutex_unlock(&sh->mu);
    snprintf(left, sizeof left,
             "%s  \xc2\xb7  %d Hz  \xc2\xb7  N=%zu  hop=%zu  %s  \xc2\xb7  %s  \xc2\xb7  %s  %s  %s%g \xe2\x80\xa6 %s%g dB  "
             "gain %s%g dB",
             slash ? slash + 1 : name, info->info.rate, info->n, info->hop, wname, info->backend,
             colormap_name(v->ui.cmap), scale_name(v->ui.scale), v->ui.db_lo < 0 ? "\xe2\x88\x92" : "",
             fabs((double)v->ui.db_lo), v->ui.db_hi < 0 ? "\xe2\x88\x92" : "", fabs((double)v->ui.db_hi),
             v->ui.gain < 0 ? "\xe2\x88\x92" : "+", fabs((double)v->ui.gain));
    if (info->live) {
        if (latency > 0)
            snprintf(lat, sizeof lat, "%.0f ms", latency * 1e3);
        else
            snprintf(lat, sizeof lat, "\xe2\x80\x94");
        snprintf(right, sizeof right, "latency %s  \xc2\xb7  dropped %llu  \xc2\xb7  %.0f fps   h: help", lat,
                 (unsigned long long)dropped, v->fps);
    } else {
        if (v->finished) /* a still picture: redrawn on demand only */
            snprintf(right, sizeof right, "h: help");
        else
            snprintf(right, sizeof right, "%.0f fps   h: help", v->fps);
    }
    {
        int rw = text_w(v->font, right), rx = cv->w - fs - rw;
        text(v, left, x, y, RENDER_COL_LABEL);
        fill(cv, rx - fs, L->status_y + 1, rw + 2 * fs, L->status_h - 1, COL_STATUS_BG);
        text(v, right, rx, y, RENDER_COL_TICK);
    }
}

/* Overlays are drawn in two passes: `draw` 0 only claims the areas they will cover
 * (overlay_area), so that no claim comes after another overlay's pixels. */

/* A short message above the status line (not in screenshots). */
static void draw_toast(view *v, const layout *L, int draw)
{
    canvas *cv = &v->cv;
    int fs = L->fs;
    ensure_font(v, fs);
    if (v->ui.toast[0] && sp_now() < v->ui.toast_until) {
        int tw = text_w(v->font, v->ui.toast), bx = (cv->w - tw) / 2 - fs, by = L->status_y - v->line_h * 2 - fs;
        if (!draw) {
            overlay_area(v, bx, by, tw + 2 * fs, v->line_h + fs);
            return;
        }
        blend(cv, bx, by, tw + 2 * fs, v->line_h + fs, COL_BLACK, 210);
        outline(cv, bx, by, tw + 2 * fs, v->line_h + fs, RENDER_COL_FRAME);
        text(v, v->ui.toast, bx + fs, by + fs / 2, RENDER_COL_TITLE);
    }
}

/* Cross-hair and a read-out box: time, frequency (and note), level. */
static void draw_readout(view *v, const layout *L, int draw)
{
    picture *p = &v->pic;
    canvas *cv = &v->cv;
    int mx = v->ui.mx, my = v->ui.my, fs = L->fs;
    if (!v->ui.mouse_in || !p->r || !p->ok)
        return;
    for (int c = 0; c < p->channels; c++) {
        render_rect pr = render_plot_rect(p->r, c);
        const scale_map *map = render_scale(p->r);
        char l1[96], l2[96], l3[96], note[48], hz[32];
        double u, hzv, t;
        size_t i, k;
        float db;
        int bw, bh, bx, by;
        if (mx < pr.x || mx >= pr.x + pr.w || my < pr.y || my >= pr.y + pr.h)
            continue;
        i = (size_t)(((double)(mx - pr.x) + 0.5) / pr.w * (double)p->count);
        if (i >= p->count)
            i = p->count - 1;
        u = 1.0 - ((double)(my - pr.y) + 0.5) / pr.h;
        hzv = scale_from_unit(map, u);
        k = (size_t)lround(hzv * (double)p->n / p->rate);
        if (k >= p->bins)
            k = p->bins - 1;
        db = (float)snap_entry(p, c, i)[k] * 0.01f;
        t = frame_time(p, (double)p->a0 + (double)i * (double)p->span + 0.5 * (double)(p->span - 1));
        if (hzv >= 1000)
            snprintf(hz, sizeof hz, "%.3f kHz", hzv / 1000);
        else
            snprintf(hz, sizeof hz, "%.1f Hz", hzv);
        note_name(hzv, note, sizeof note);
        snprintf(l1, sizeof l1, "%s%.3f s", t < 0 ? "\xe2\x88\x92" : "", fabs(t));
        snprintf(l2, sizeof l2, "%s   %s", hz, note);
        {
            char ch[24] = "";
            if (p->channels > 1)
                snprintf(ch, sizeof ch, "   ch %d", c);
            if (db <= -199.99f)
                snprintf(l3, sizeof l3, "\xe2\x89\xa4 \xe2\x88\x92" "200 dBFS%s", ch);
            else
                snprintf(l3, sizeof l3, "%s%.1f dBFS%s", db < 0 ? "\xe2\x88\x92" : "", fabs((double)db), ch);
        }
        ensure_font(v, fs);
        bw = text_w(v->font, l2);
        bw = text_w(v->font, l1) > bw ? text_w(v->font, l1) : bw;
        bw = text_w(v->font, l3) > bw ? text_w(v->font, l3) : bw;
        bw += fs;
        bh = 3 * v->line_h + fs / 2;
        bx = mx + fs;
        by = my + fs;
        if (bx + bw > pr.x + pr.w)
            bx = mx - fs - bw;
        if (by + bh > pr.y + pr.h)
            by = my - fs - bh;
        if (!draw) {
            overlay_area(v, pr.x, my, pr.w, 1);
            overlay_area(v, mx, pr.y, 1, pr.h);
            overlay_area(v, bx, by, bw, bh);
            continue;
        }
        blend(cv, pr.x, my, pr.w, 1, COL_WHITE, 70);
        blend(cv, mx, pr.y, 1, pr.h, COL_WHITE, 70);
        blend(cv, bx, by, bw, bh, COL_BLACK, 200);
        outline(cv, bx, by, bw, bh, RENDER_COL_FRAME);
        text(v, l1, bx + fs / 2, by + fs / 4, RENDER_COL_TITLE);
        text(v, l2, bx + fs / 2, by + fs / 4 + v->line_h, RENDER_COL_TITLE);
        text(v, l3, bx + fs / 2, by + fs / 4 + 2 * v->line_h, RENDER_COL_TITLE);
    }
}

static void draw_help(view *v, const layout *L, int draw)
{
    static const char *const keys[][2] = {
        {"space", "pause / resume the display"},
        {"s", "screenshot (spectro-YYYYmmdd-HHMMSS.png)"},
        {"c", "next colour map"},
        {"l", "next frequency scale (linear, log, mel)"},
        {"w", "next window (restarts the analysis)"},
        {"n", "next FFT size (restarts the analysis)"},
        {"\xe2\x86\x91 / \xe2\x86\x93", "dB range up / down (5 dB)"},
        {"+ / \xe2\x88\x92", "gain up / down (3 dB)"},
        {"wheel", "time zoom (file: around the cursor)"},
        {"\xe2\x86\x90 / \xe2\x86\x92, drag", "scroll in time (file)"},
        {"Home / End", "start / end of the file"},
        {"shift+wheel, PgUp / PgDn", "frequency zoom"},
        {"0", "reset the zoom"},
        {"h / ?", "this help"},
        {"q / Esc", "quit"},
    };
    canvas *cv = &v->cv;
    int fs = L->fs, n = (int)(sizeof keys / sizeof keys[0]), kw = 0, dw = 0, bw, bh, bx, by, lh;
    ensure_font(v, fs);
    lh = v->line_h + fs / 3;
    for (int i = 0; i < n; i++) {
        int a = text_w(v->font, keys[i][0]), b = text_w(v->font, keys[i][1]);
        kw = a > kw ? a : kw;
        dw = b > dw ? b : dw;
    }
    bw = kw + dw + 4 * fs;
    bh = (n + 2) * lh + fs;
    bx = (cv->w - bw) / 2;
    by = (cv->h - bh) / 2;
    if (!draw) {
        overlay_area(v, bx, by, bw, bh);
        return;
    }
    blend(cv, bx, by, bw, bh, COL_BLACK, 225);
    outline(cv, bx, by, bw, bh, RENDER_COL_FRAME);
    text(v, "Keys", bx + fs, by + fs / 2, RENDER_COL_TITLE);
    for (int i = 0; i < n; i++) {
        int y = by + fs / 2 + (i + 1) * lh + lh / 2;
        text(v, keys[i][0], bx + fs + kw - text_w(v->font, keys[i][0]), y, COL_HOLD);
        text(v, keys[i][1], bx + 3 * fs + kw, y, RENDER_COL_LABEL);
    }
}

/* SPECTRO_VIEW_VERIFY: the expected window for verify_shown: the canvas before the overlays
 * (whole then: the check composes every panel) with the overlays drawn straight onto it,
 * none of the areas they claim (overlay_area) composed again. */
static void verify_overlays(view *v, const layout *L, int after)
{
    verify *vf = &v->ver;
    size_t n = (size_t)v->cv.w * (size_t)v->cv.h * 4;
    uint8_t *px;
    if (!vf->on)
        return;
    if (!after) {
        vf->ref_ok = grow((void **)&vf->ref, &vf->ref_cap, n, 1);
        if (vf->ref_ok)
            memcpy(vf->ref, v->cv.px, n);
        return;
    }
    if (!vf->ref_ok)
        return;
    px = v->cv.px;
    v->cv.px = vf->ref;
    draw_toast(v, L, 1);
    draw_readout(v, L, 1);
    if (v->ui.help)
        draw_help(v, L, 1);
    v->cv.px = px;
}

/* ---- one frame --------------------------------------------------------------------------- */

static void screenshot(view *v)
{
    char name[64], path[80];
    time_t now = time(NULL);
    struct tm tmv;
    sp_errinfo ei = {{0}};
    localtime_r(&now, &tmv);
    strftime(name, sizeof name, "spectro-%Y%m%d-%H%M%S", &tmv);
    snprintf(path, sizeof path, "%s.png", name);
    for (int i = 2; access(path, F_OK) == 0 && i < 100; i++)
        snprintf(path, sizeof path, "%s-%d.png", name, i);
    if (png_write_rgba(path, v->cv.px, v->cv.w, v->cv.h, &ei) == SP_OK)
        snprintf(v->ui.toast, sizeof v->ui.toast, "saved %s", path);
    else
        snprintf(v->ui.toast, sizeof v->ui.toast, "screenshot failed: %s", ei.msg);
    v->ui.toast_until = sp_now() + TOAST_S;
}

/* Live peak hold: folds the frames new since the last picture into the hold, and lets
 * the rest fall. */
static void update_hold(view *v, uint64_t newest, double now)
{
    picture *p = &v->pic;
    size_t n = (size_t)p->channels * p->bins;
    uint64_t from;
    if (!grow((void **)&p->hold, &p->hold_cap, n, sizeof *p->hold) ||
        !grow((void **)&p->hold_t, &p->hold_t_cap, n, sizeof *p->hold_t))
        return;
    if (p->hold_frames == 0 || p->hold_frames > newest) {
        for (size_t i = 0; i < n; i++) {
            p->hold[i] = -200.0f;
            p->hold_t[i] = now;
        }
        p->hold_frames = newest > p->count ? newest - p->count : 0;
        p->hold_last = now;
    }
    for (size_t i = 0; i < n; i++) {
        double age = now - p->hold_t[i];
        if (age > HOLD_TIME_S)
            p->hold[i] = (float)fmax(-200.0, p->hold[i] - HOLD_DECAY_DB_S * (now - p->hold_last));
    }
    p->hold_last = now;
    from = p->hold_frames;
    for (int c = 0; c < p->channels; c++)
        for (size_t i = 0; i < p->count; i++) {
            int64_t f_end = p->a0 + (int64_t)((i + 1) * p->span);
            const int16_t *s;
            if (f_end <= (int64_t)from || f_end > (int64_t)newest + (int64_t)p->span)
                continue;
            s = snap_entry(p, c, i);
            for (size_t k = 0; k < p->bins; k++) {
                float d = (float)s[k] * 0.01f;
                size_t j = (size_t)c * p->bins + k;
                if (d >= p->hold[j]) {
                    p->hold[j] = d;
                    p->hold_t[j] = now;
                }
            }
        }
    p->hold_frames = newest;
}

static uint64_t draw_frame(view *v, const analyze_result *info, int started)
{
    layout L = make_layout(v->dw, v->dh);
    canvas *cv = &v->cv;
    picture *p = &v->pic;
    uint64_t newest = 0;
    int ok;

    v->dmg_all = v->ring_panels = v->ring_live = v->ndmg = 0;
    if (started && info->live) {
        /* the picture's part of the canvas is drawn in place, the strip beside it here;
         * the panels come from the ring's texture, except for a screenshot (it wants the
         * whole picture in the canvas) */
        ok = draw_live(v, &L, info, &newest, !v->ui.shot_pending && info->out_channels <= DIRECT_MAX_CHANNELS);
        if (ok) {
            fill(cv, L.side_x, 0, cv->w - L.side_x, L.pic_h, RENDER_COL_BG);
            damage(v, L.side_x, 0, cv->w - L.side_x, L.pic_h);
        } else {
            fill(cv, 0, 0, cv->w, cv->h, RENDER_COL_BG);
            v->dmg_all = 1;
            v->ring_panels = v->ring_live = 0;
            v->ring_tex_stale = 1; /* slots it may have drawn did not go to the texture */
            v->scr.canvas_ok = 0;
        }
    } else {
        v->dmg_all = 1;
        v->scr.canvas_ok = 0;
        v->ncovered = 0;
        fill(cv, 0, 0, cv->w, cv->h, RENDER_COL_BG);
        ok = started && draw_spectrogram(v, &L, info, &newest);
        if (ok)
            for (int y = 0; y < L.pic_h && y < cv->h; y++)
                memcpy(cv->px + (size_t)y * (size_t)cv->w * 4, v->pic_px + (size_t)y * (size_t)L.pic_w * 4,
                       (size_t)(L.pic_w < cv->w ? L.pic_w : cv->w) * 4);
    }
    p->ok = ok;
    if (ok) {
        if (info->live) {
            const int16_t *cur[RENDER_MAX_CHANNELS] = {0};
            int C = p->channels < RENDER_MAX_CHANNELS ? p->channels : RENDER_MAX_CHANNELS;
            if (!v->ui.paused)
                update_hold(v, newest, sp_now());
            /* the newest entry is the last one */
            for (int c = 0; c < C; c++)
                cur[c] = snap_entry(p, c, p->count - 1);
            draw_spectrum(v, &L, cur, p->hold, p->hold != NULL, "Spectrum (newest)");
        } else {
            /* file: the spectrum under the cursor, and the maximum over the view */
            const int16_t *cur[RENDER_MAX_CHANNELS] = {0};
            int C = p->channels < RENDER_MAX_CHANNELS ? p->channels : RENDER_MAX_CHANNELS, have_cur = 0;
            size_t n = (size_t)p->channels * p->bins;
            if (grow((void **)&p->hold, &p->hold_cap, n, sizeof *p->hold) &&
                grow((void **)&p->hold_t, &p->hold_t_cap, n, sizeof *p->hold_t)) {
                for (int c = 0; c < p->channels; c++) {
                    float *h = p->hold + (size_t)c * p->bins;
                    for (size_t k = 0; k < p->bins; k++)
                        h[k] = -200.0f;
                    for (size_t i = 0; i < p->count; i++) {
                        const int16_t *s = snap_entry(p, c, i);
                        for (size_t k = 0; k < p->bins; k++)
                            h[k] = (float)s[k] * 0.01f > h[k] ? (float)s[k] * 0.01f : h[k];
                    }
                }
            }
            if (v->ui.mouse_in)
                for (int c = 0; c < C; c++) {
                    render_rect pr = render_plot_rect(p->r, c);
                    if (v->ui.mx >= pr.x && v->ui.mx < pr.x + pr.w) {
                        size_t i = (size_t)(((double)(v->ui.mx - pr.x) + 0.5) / pr.w * (double)p->count);
                        if (i >= p->count)
                            i = p->count - 1;
                        cur[c] = snap_entry(p, c, i);
                        have_cur = 1;
                    }
                }
            draw_spectrum(v, &L, have_cur ? cur : NULL, p->hold, p->hold != NULL,
                          have_cur ? "Spectrum (cursor)" : "Spectrum");
        }
    } else {
        const char *msg = !started ? "starting\xe2\x80\xa6" : p->render_err[0] ? p->render_err : "cannot draw";
        ensure_font(v, L.fs);
        text(v, msg, L.fs * 2, L.fs * 2, RENDER_COL_LABEL);
    }
    if (started) {
        draw_status(v, &L, info, v->last_latency);
        damage(v, 0, L.status_y, cv->w, L.status_h);
    }
    if (v->ui.shot_pending) {
        v->ui.shot_pending = 0;
        screenshot(v);
    }
    verify_overlays(v, &L, 0);
    for (int pass = 0; pass < 2; pass++) {
        draw_toast(v, &L, pass);
        draw_readout(v, &L, pass);
        if (v->ui.help)
            draw_help(v, &L, pass);
    }
    verify_overlays(v, &L, 1);
    return newest;
}

/* ---- events ------------------------------------------------------------------------------ */

/* Frequency zoom by `k` (> 1 in) around unit position u of the current map. */
static void zoom_freq(view *v, double u, double k)
{
    picture *p = &v->pic;
    const scale_map *m;
    double u0, u1, lo, hi, f0, f1, min_span;
    scale_map base;
    if (!p->r || !(m = render_scale(p->r)))
        return;
    base_range(v, p->rate, p->n, &lo, &hi);
    if (scale_map_init(&base, v->ui.scale, lo, hi, NULL) != SP_OK)
        return;
    u0 = u - u / k;
    u1 = u + (1.0 - u) / k;
    f0 = scale_from_unit(m, u0);
    f1 = scale_from_unit(m, u1);
    /* zooming out stops at the whole range; a view keeps at least 4 bins */
    if (f0 < lo)
        f0 = lo;
    if (f1 > hi)
        f1 = hi;
    min_span = 4.0 * p->rate / (double)p->n;
    if (f1 - f0 < min_span)
        return;
    if (f0 <= lo * (1 + 1e-9) && f1 >= hi * (1 - 1e-9)) {
        v->ui.zf_lo = v->ui.zf_hi = 0;
        return;
    }
    v->ui.zf_lo = f0 > 0 ? f0 : 0;
    if (v->ui.zf_lo == 0 && v->ui.scale != FREQ_SCALE_LOG)
        v->ui.zf_lo = 1e-9; /* 0 reads as "not zoomed" */
    v->ui.zf_hi = f1;
}

static double total_frames(view *v)
{
    uint64_t total, have;
    pthread_mutex_lock(&v->sh.mu);
    total = v->sh.started ? expected_frames(&v->sh.info) : 0;
    have = view_store_frames(v->sh.store);
    pthread_mutex_unlock(&v->sh.mu);
    return (double)(total > have ? total : have > 0 ? have : 1);
}

/* File view: zoom by k (> 1 in) around frame position a (frames). */
static void zoom_time(view *v, double a, double k)
{
    double total = total_frames(v), span;
    if (!(v->ui.v1 > v->ui.v0)) { /* no picture yet: the whole file */
        v->ui.v0 = 0;
        v->ui.v1 = total;
    }
    span = (v->ui.v1 - v->ui.v0) / k;
    if (span < 8)
        span = 8;
    if (span > total)
        span = total;
    v->ui.v0 = a - (a - v->ui.v0) * span / (v->ui.v1 - v->ui.v0);
    v->ui.v1 = v->ui.v0 + span;
    if (v->ui.v0 < 0) {
        v->ui.v1 -= v->ui.v0;
        v->ui.v0 = 0;
    }
    if (v->ui.v1 > total) {
        v->ui.v0 -= v->ui.v1 - total;
        v->ui.v1 = total;
    }
    v->ui.file_view_set = 1;
}

static void scroll_time(view *v, double frames)
{
    double total = total_frames(v), span = v->ui.v1 - v->ui.v0;
    v->ui.v0 += frames;
    if (v->ui.v0 < 0)
        v->ui.v0 = 0;
    if (v->ui.v0 + span > total)
        v->ui.v0 = total - span;
    v->ui.v1 = v->ui.v0 + span;
    v->ui.file_view_set = 1;
}

/* Frame position under drawable x (file view). */
static double frame_at_x(view *v, int x)
{
    picture *p = &v->pic;
    render_rect pr;
    if (!p->r)
        return 0.5 * (v->ui.v0 + v->ui.v1);
    pr = render_plot_rect(p->r, 0);
    return (double)p->a0 + ((double)(x - pr.x) / pr.w) * (double)(p->count * p->span);
}

/* Which unit position of the frequency axis the mouse is on (0.5 when not on a panel). */
static double unit_at_mouse(view *v)
{
    picture *p = &v->pic;
    if (p->r && v->ui.mouse_in)
        for (int c = 0; c < p->channels; c++) {
            render_rect pr = render_plot_rect(p->r, c);
            if (v->ui.my >= pr.y && v->ui.my < pr.y + pr.h)
                return 1.0 - ((double)(v->ui.my - pr.y) + 0.5) / pr.h;
        }
    return 0.5;
}

static int restart(view *v, sp_errinfo *ei)
{
    worker_stop(&v->w);
    v->pic.hold_frames = 0;
    /* the new run counts its frames from 0 again */
    v->st.newest_shown = 0;
    v->last_latency = 0;
    v->ui.paused_frames = 0;
    return worker_start(&v->w, ei);
}

static void set_toast(view *v, const char *msg)
{
    snprintf(v->ui.toast, sizeof v->ui.toast, "%s", msg);
    v->ui.toast_until = sp_now() + TOAST_S;
}

/* Returns 1 to quit; *err for a failed restart. */
static int handle_key(view *v, const SDL_Keysym *ks, int live, int *err, sp_errinfo *ei)
{
    char msg[128];
    int shift = (ks->mod & KMOD_SHIFT) != 0;
    switch (ks->sym) {
    case SDLK_q:
    case SDLK_ESCAPE:
        return 1;
    case SDLK_SPACE:
        v->ui.paused = !v->ui.paused;
        if (v->ui.paused) {
            pthread_mutex_lock(&v->sh.mu);
            v->ui.paused_frames = view_store_frames(v->sh.store);
            pthread_mutex_unlock(&v->sh.mu);
        }
        break;
    case SDLK_s:
        v->ui.shot_pending = 1;
        break;
    case SDLK_c:
        v->ui.cmap = (v->ui.cmap + 1) % colormap_count();
        snprintf(msg, sizeof msg, "colour map: %s", colormap_name(v->ui.cmap));
        set_toast(v, msg);
        break;
    case SDLK_l:
        v->ui.scale = (freq_scale)((v->ui.scale + 1) % 3);
        v->ui.zf_lo = v->ui.zf_hi = 0;
        snprintf(msg, sizeof msg, "frequency scale: %s", scale_name(v->ui.scale));
        set_toast(v, msg);
        break;
    case SDLK_w: {
        window_spec ws;
        v->window_idx = (v->window_idx + 1) % (int)(sizeof WINDOWS / sizeof WINDOWS[0]);
        if (window_parse(WINDOWS[v->window_idx], &ws, NULL) == SP_OK) {
            worker_stop(&v->w); /* the analysis reads w.cfg until it returns */
            v->w.cfg.window = ws;
            snprintf(msg, sizeof msg, "window: %s", WINDOWS[v->window_idx]);
            set_toast(v, msg);
            if ((*err = restart(v, ei)) != SP_OK)
                return 1;
        }
        break;
    }
    case SDLK_n: {
        size_t n = v->w.cfg.n * 2;
        if (n > 32768)
            n = 256;
        worker_stop(&v->w); /* the analysis reads w.cfg until it returns */
        v->w.cfg.n = n;
        v->w.cfg.hop = (size_t)((double)v->hop0 * (double)n / (double)v->n0 + 0.5);
        if (v->w.cfg.hop < 1)
            v->w.cfg.hop = 1;
        snprintf(msg, sizeof msg, "FFT size %zu, hop %zu", n, v->w.cfg.hop);
        set_toast(v, msg);
        v->ui.zf_lo = v->ui.zf_hi = 0;
        v->ui.file_view_set = 0;
        if ((*err = restart(v, ei)) != SP_OK)
            return 1;
        break;
    }
    case SDLK_UP:
    case SDLK_DOWN: {
        float d = ks->sym == SDLK_UP ? 5.0f : -5.0f;
        if (v->ui.db_hi + d <= 60.0f && v->ui.db_lo + d >= -300.0f) {
            v->ui.db_lo += d;
            v->ui.db_hi += d;
        }
        break;
    }
    case SDLK_PLUS:
    case SDLK_EQUALS:
    case SDLK_KP_PLUS:
        v->ui.gain = fminf(v->ui.gain + 3.0f, 60.0f);
        break;
    case SDLK_MINUS:
    case SDLK_KP_MINUS:
        v->ui.gain = fmaxf(v->ui.gain - 3.0f, -60.0f);
        break;
    case SDLK_h:
    case SDLK_QUESTION:
    case SDLK_F1:
        v->ui.help = !v->ui.help;
        break;
    case SDLK_SLASH:
        if (shift)
            v->ui.help = !v->ui.help;
        break;
    case SDLK_LEFT:
    case SDLK_RIGHT:
        if (!live)
            scroll_time(v, (ks->sym == SDLK_LEFT ? -1 : 1) * (shift ? 0.5 : 0.1) * (v->ui.v1 - v->ui.v0));
        break;
    case SDLK_HOME:
        if (!live)
            scroll_time(v, -2.0 * total_frames(v));
        break;
    case SDLK_END:
        if (!live)
            scroll_time(v, total_frames(v));
        break;
    case SDLK_PAGEUP:
        zoom_freq(v, unit_at_mouse(v), 1.5);
        break;
    case SDLK_PAGEDOWN:
        zoom_freq(v, unit_at_mouse(v), 1 / 1.5);
        break;
    case SDLK_0:
    case SDLK_KP_0:
        v->ui.zf_lo = v->ui.zf_hi = 0;
        v->ui.file_view_set = 0;
        v->ui.live_zoom = 1;
        break;
    default:
        return 0;
    }
    return 0;
}

static void mouse_to_drawable(view *v, int x, int y)
{
    int ww = 1, wh = 1;
    SDL_GetWindowSize(v->win, &ww, &wh);
    v->ui.mx = (int)((double)x * v->dw / (ww > 0 ? ww : 1));
    v->ui.my = (int)((double)y * v->dh / (wh > 0 ? wh : 1));
}

static void handle_wheel(view *v, const SDL_MouseWheelEvent *e, int live)
{
    int dy = e->y, dx = e->x;
    int shift = (SDL_GetModState() & KMOD_SHIFT) != 0;
    if (e->direction == SDL_MOUSEWHEEL_FLIPPED) {
        dy = -dy;
        dx = -dx;
    }
    if (shift && dy) {
        zoom_freq(v, unit_at_mouse(v), dy > 0 ? 1.25 : 1 / 1.25);
        return;
    }
    if (live) {
        if (dy > 0 && v->ui.live_zoom > 1)
            v->ui.live_zoom /= 2;
        else if (dy < 0 && v->ui.live_zoom < ((uint64_t)1 << 40))
            v->ui.live_zoom *= 2; /* clamped to what the ring holds when drawn */
        return;
    }
    if (dx)
        scroll_time(v, dx * 0.1 * (v->ui.v1 - v->ui.v0));
    if (dy)
        zoom_time(v, frame_at_x(v, v->ui.mx), dy > 0 ? 1.25 : 1 / 1.25);
}

/* ---- statistics (SPECTRO_VIEW_STATS) ----------------------------------------------------- */

/* With SPECTRO_VIEW_VERIFY set (tests) they also hold the live pictures' checks
 * (verify_live, verify_shown): frames checked, frames that differed, the first difference. */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void write_stats(view *v, const char *path)
{
    stats *s = &v->st;
    FILE *f = fopen(path, "w");
    double fps = s->drawn > 1 && s->last > s->first ? (double)(s->drawn - 1) / (s->last - s->first) : 0;
    double p50 = -1, p95 = -1;
    size_t n = s->nlat < MAX_LAT_SAMPLES ? s->nlat : MAX_LAT_SAMPLES;
    if (!f)
        return;
    if (n > 0) {
        qsort(s->lat, n, sizeof *s->lat, cmp_double);
        p50 = s->lat[(n - 1) / 2];
        p95 = s->lat[(size_t)((double)(n - 1) * 0.95)];
    }
    fprintf(f,
            "{\"frames_drawn\": %llu, \"mean_fps\": %.2f, \"latency_p50_ms\": %.2f, \"latency_p95_ms\": %.2f, "
            "\"latency_samples\": %zu, \"draw_ms_mean\": %.2f, \"renderer\": \"%s\", \"vsync\": %d, "
            "\"width\": %d, \"height\": %d",
            (unsigned long long)s->drawn, fps, p50 >= 0 ? p50 * 1e3 : -1.0, p95 >= 0 ? p95 * 1e3 : -1.0, n,
            s->drawn ? s->draw_s * 1e3 / (double)s->drawn : 0.0, v->renderer_name, v->vsync, v->dw, v->dh);
    verify_commit(v);
    if (v->ver.on)
        fprintf(f,
                ", \"verify_frames\": %llu, \"verify_mismatches\": %llu, \"verify_shown\": %llu, "
                "\"verify_shown_mismatches\": %llu, \"verify_first\": \"%s\"",
                (unsigned long long)v->ver.frames, (unsigned long long)v->ver.mismatched,
                (unsigned long long)v->ver.shown, (unsigned long long)v->ver.shown_mismatched, v->ver.first);
    fprintf(f, "}\n");
    fclose(f);
}

/* ---- the window -------------------------------------------------------------------------- */

/* Live pacing without vsync: a frame is due every FRAME_PERIOD (next_frame). It starts
 * as soon as new spectra come in from ALIGN_EARLY_S before that; with none yet, it waits
 * for them up to ALIGN_LATE_S after when they are due by then, else until next_frame.
 * Drawn as they come in, spectra are on the screen a frame's drawing later, rather than
 * up to one delivery later again. Returns the seconds to wait (0: draw now); on_frames
 * is asked to wake the window when spectra come in meanwhile. */
static double live_wait(view *v, double next_frame, double now)
{
    double open = next_frame - ALIGN_EARLY_S, expect;
    int fresh;
    if (now < open)
        return open - now;
    pthread_mutex_lock(&v->sh.mu);
    fresh = v->sh.last_in >= open;
    expect = v->sh.last_in + v->sh.in_gap;
    v->sh.want_wake = !fresh;
    pthread_mutex_unlock(&v->sh.mu);
    if (fresh)
        return 0.0;
    return fmax(0.0, (expect <= next_frame + ALIGN_LATE_S ? next_frame + ALIGN_LATE_S : next_frame) - now);
}

/* Live pacing with vsync: a present waits for the display's next refresh, about a frame
 * after the last present returned (t_last). To put the freshest spectra on that refresh,
 * the frame is drawn as soon as new spectra come in from VSYNC_OPEN_S after t_last, and at
 * the latest at v->vs_late after it, with what there is. Drawing and presenting must fit
 * before the refresh: vs_late starts at VSYNC_LATE_S, steps back when a frame drawn in
 * time still missed its refresh, and creeps forward again (vsync_adapt). Returns the
 * seconds to wait (0: draw now); on_frames is asked to wake the window when spectra come
 * in meanwhile. */
static double vsync_wait(view *v, double t_last, double now)
{
    double open = t_last + VSYNC_OPEN_S, late = t_last + v->vs_late;
    int fresh;
    if (now < open)
        return open - now;
    if (now >= late)
        return 0.0;
    pthread_mutex_lock(&v->sh.mu);
    fresh = v->sh.last_in >= open;
    v->sh.want_wake = !fresh;
    pthread_mutex_unlock(&v->sh.mu);
    return fresh ? 0.0 : late - now;
}

/* After a live present with vsync that was drawn by vs_late (t_draw): a present that came
 * back more than one refresh after the last (t_last) missed its refresh. */
static void vsync_adapt(view *v, double t_last, double t_draw, double t_present)
{
    if (t_last <= 0 || t_draw > t_last + v->vs_late + 1e-3)
        return; /* the first frame, or one that waited for spectra past vs_late */
    if (t_present - t_last > 1.05 * FRAME_PERIOD)
        v->vs_late = fmax(VSYNC_OPEN_S, v->vs_late - 0.1 * FRAME_PERIOD);
    else
        v->vs_late = fmin(VSYNC_LATE_S, v->vs_late + 0.002 * FRAME_PERIOD);
}


/* With vsync (no tearing; SDL_RENDER_VSYNC=0 turns it off, and a live window then paces
 * itself to the spectra: live_wait). */
static int open_window(view *v, sp_errinfo *ei)
{
    const analyze_config *cfg = v->user;
    int w = cfg->render.width, h = cfg->render.height;
    SDL_Rect usable;
    SDL_RendererInfo ri;
    char title[300];
    const char *in = cfg->input ? cfg->input : "microphone", *slash = strrchr(in, '/');
    if (SDL_GetDisplayUsableBounds(0, &usable) == 0) {
        /* a default 1920x1080 on a smaller screen: fit it */
        if (w > usable.w)
            w = usable.w;
        if (h > usable.h)
            h = usable.h;
    }
    if (w < MIN_WIN_W)
        w = MIN_WIN_W;
    if (h < MIN_WIN_H)
        h = MIN_WIN_H;
    snprintf(title, sizeof title, "spectro \xe2\x80\x94 %s", slash ? slash + 1 : in);
    v->win = SDL_CreateWindow(title, SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED, w, h,
                              SDL_WINDOW_RESIZABLE | SDL_WINDOW_ALLOW_HIGHDPI);
    if (!v->win)
        return sp_fail(ei, SP_ENODEV, "cannot open a window: %s: use --png OUT, --dump OUT or --peaks for headless output",
                       SDL_GetError());
    SDL_SetWindowMinimumSize(v->win, MIN_WIN_W, MIN_WIN_H);
    v->ren = SDL_CreateRenderer(v->win, -1, SDL_RENDERER_ACCELERATED | SDL_RENDERER_PRESENTVSYNC);
    if (!v->ren)
        v->ren = SDL_CreateRenderer(v->win, -1, SDL_RENDERER_SOFTWARE);
    if (!v->ren)
        return sp_fail(ei, SP_ENODEV, "cannot make a renderer for the window: %s", SDL_GetError());
    if (SDL_GetRendererInfo(v->ren, &ri) == 0) {
        snprintf(v->renderer_name, sizeof v->renderer_name, "%s", ri.name);
        v->software = (ri.flags & SDL_RENDERER_SOFTWARE) != 0;
        /* SDL's software renderer says vsync but does not wait: the loop paces it */
        v->vsync = (ri.flags & SDL_RENDERER_PRESENTVSYNC) != 0 && !v->software;
    }
    return SP_OK;
}

/* Matches the texture and the canvas to the drawable size. */
static int fit_drawable(view *v, sp_errinfo *ei)
{
    int w = 0, h = 0;
    if (SDL_GetRendererOutputSize(v->ren, &w, &h) != 0 || w < 1 || h < 1)
        SDL_GetWindowSize(v->win, &w, &h);
    if (w < RENDER_MIN_WIDTH + 100)
        w = RENDER_MIN_WIDTH + 100;
    if (h < RENDER_MIN_HEIGHT + 40)
        h = RENDER_MIN_HEIGHT + 40;
    if (v->tex && w == v->dw && h == v->dh)
        return SP_OK;
    if (v->tex)
        SDL_DestroyTexture(v->tex);
    v->tex = SDL_CreateTexture(v->ren, SDL_PIXELFORMAT_RGBA32, SDL_TEXTUREACCESS_STREAMING, w, h);
    if (!v->tex)
        return sp_fail(ei, SP_ENODEV, "cannot make a %dx%d texture: %s", w, h, SDL_GetError());
    /* the picture is opaque: copied, not blended (less work for a software GL) */
    SDL_SetTextureBlendMode(v->tex, SDL_BLENDMODE_NONE);
    v->scr.canvas_ok = 0;
    v->ver.pending[0] = 0;
    free(v->cv.px);
    if (!(v->cv.px = malloc((size_t)w * (size_t)h * 4)))
        return sp_fail(ei, SP_ENOMEM, "out of memory for a %dx%d window", w, h);
    v->cv.w = v->dw = w;
    v->cv.h = v->dh = h;
    return SP_OK;
}

static int no_display(sp_errinfo *ei)
{
    const char *d = getenv("DISPLAY"), *wl = getenv("WAYLAND_DISPLAY");
    if ((!d || !*d) && (!wl || !*wl))
        return sp_fail(ei, SP_ENODEV, "no display to open a window on (DISPLAY is not set): use --png OUT, "
                                      "--dump OUT or --peaks for headless output");
    return sp_fail(ei, SP_ENODEV, "no display to open a window on (%s: %s): use --png OUT, --dump OUT or --peaks "
                                  "for headless output", d && *d ? d : wl, SDL_GetError());
}

static void destroy_view(view *v)
{
    worker_stop(&v->w);
    render_destroy(v->pic.r);
    free(v->pic.snap);
    free(v->pic.hold);
    free(v->pic.hold_t);
    free(v->pic.fbuf);
    free(v->pic_px);
    free(v->scr.chrome);
    free(v->scr.ring);
    free(v->scr.slot_e);
    free(v->scr.slot_st);
    free(v->scr.slot_new);
    free(v->ver.snap);
    free(v->ver.px);
    free(v->ver.ref);
    free(v->cv.px);
    free(v->st.lat);
    view_store_destroy(v->sh.store);
    for (int i = 0; i < TEXT_CACHE; i++)
        SDL_FreeSurface(v->texts[i].sf);
    if (v->font)
        TTF_CloseFont(v->font);
    if (v->ttf)
        TTF_Quit();
    if (v->tex)
        SDL_DestroyTexture(v->tex);
    if (v->ring_tex)
        SDL_DestroyTexture(v->ring_tex);
    if (v->ren)
        SDL_DestroyRenderer(v->ren);
    if (v->win)
        SDL_DestroyWindow(v->win);
    pthread_mutex_destroy(&v->sh.mu);
}

int view_run(const analyze_config *cfg, analyze_result *res, sp_errinfo *ei)
{
    view *v;
    int err = SP_OK, quit = 0, started = 0, live = 0, dirty = 1;
    uint64_t seen_version = 0;
    double next_frame = 0, t_last = 0; /* t_last: when the last present returned */
    const char *stats_path = getenv("SPECTRO_VIEW_STATS"), *verify_env = getenv("SPECTRO_VIEW_VERIFY");
    analyze_result info;

    if (!cfg)
        return sp_fail(ei, SP_EINVAL, "view_run: no config");
    if (res)
        memset(res, 0, sizeof *res);
    if (!(v = calloc(1, sizeof *v)))
        return sp_fail(ei, SP_ENOMEM, "out of memory");
    memset(&info, 0, sizeof info);
    pthread_mutex_init(&v->sh.mu, NULL);
    v->vs_late = VSYNC_LATE_S;
    v->user = cfg;
    v->w.cfg = *cfg;
    v->w.cfg.progress = 0;
    v->w.cfg.png_path = NULL;
    v->w.sh = &v->sh;
    v->n0 = cfg->n;
    v->hop0 = cfg->hop ? cfg->hop : cfg->n / 4;
    v->w.cfg.hop = v->hop0;
    v->ui.scale = cfg->render.scale;
    v->ui.cmap = cfg->render.colormap;
    v->ui.db_lo = cfg->render.db_lo;
    v->ui.db_hi = cfg->render.db_hi;
    v->ui.live_zoom = 1;
    v->ver.on = verify_env && *verify_env && strcmp(verify_env, "0") != 0;
    for (int i = 0; i < (int)(sizeof WINDOWS / sizeof WINDOWS[0]); i++) {
        window_spec ws;
        if (window_parse(WINDOWS[i], &ws, NULL) == SP_OK && ws.kind == cfg->window.kind)
            v->window_idx = i;
    }
    if (!(v->st.lat = malloc(MAX_LAT_SAMPLES * sizeof *v->st.lat))) {
        err = sp_fail(ei, SP_ENOMEM, "out of memory");
        goto done;
    }
    if ((err = render_find_font(&cfg->render, v->font_path, sizeof v->font_path, ei)) != SP_OK)
        goto done;

    /* SIGINT stays with main (cfg->stop); SDL would otherwise turn it into SDL_QUIT */
    SDL_SetHint(SDL_HINT_NO_SIGNAL_HANDLERS, "1");
    {
        const char *d = getenv("DISPLAY"), *wl = getenv("WAYLAND_DISPLAY");
        if ((!d || !*d) && (!wl || !*wl) && !getenv("SDL_VIDEODRIVER")) {
            err = no_display(ei);
            free(v->st.lat);
            pthread_mutex_destroy(&v->sh.mu);
            free(v);
            return err;
        }
    }
    /* Only drivers that show a window, and only the one the environment names: left to
     * itself SDL tries Wayland after a failed X connection (its library prints to stderr)
     * and then falls back to an offscreen driver, a window nobody can see. */
    if (!getenv("SDL_VIDEODRIVER")) {
        const char *wl = getenv("WAYLAND_DISPLAY");
        SDL_SetHint(SDL_HINT_VIDEODRIVER, wl && *wl ? "wayland,x11" : "x11");
    }
    if (SDL_Init(SDL_INIT_VIDEO) != 0 ||
        (!getenv("SDL_VIDEODRIVER") && (!SDL_GetCurrentVideoDriver() ||
                                        strcmp(SDL_GetCurrentVideoDriver(), "offscreen") == 0 ||
                                        strcmp(SDL_GetCurrentVideoDriver(), "dummy") == 0))) {
        err = no_display(ei);
        SDL_Quit();
        free(v->st.lat);
        pthread_mutex_destroy(&v->sh.mu);
        free(v);
        return err;
    }
    wake_event = SDL_RegisterEvents(1);
    if (TTF_Init() != 0) {
        err = sp_fail(ei, SP_EIO, "cannot start SDL2_ttf: %s", TTF_GetError());
        goto done;
    }
    v->ttf = 1; /* held for the window's life: the renders made per picture reuse it */

    /* the source opens first: a bad file or a missing microphone fails without a window */
    if ((err = worker_start(&v->w, ei)) != SP_OK)
        goto done;
    for (;;) {
        int st, fin;
        pthread_mutex_lock(&v->sh.mu);
        st = v->sh.started;
        fin = v->sh.finished;
        pthread_mutex_unlock(&v->sh.mu);
        if (st || fin || (cfg->stop && atomic_load(cfg->stop)))
            break;
        SDL_Delay(2);
    }
    pthread_mutex_lock(&v->sh.mu);
    if (v->sh.finished && v->sh.err != SP_OK && !v->sh.started) {
        err = v->sh.err;
        *ei = v->sh.ei;
    }
    pthread_mutex_unlock(&v->sh.mu);
    if (err != SP_OK)
        goto done;
    {
        /* options the picture cannot honour (--fmax above Nyquist ...) fail here, as
         * --png would, rather than inside the window */
        render *probe = NULL;
        render_config rc = cfg->render;
        pthread_mutex_lock(&v->sh.mu);
        info = v->sh.info;
        pthread_mutex_unlock(&v->sh.mu);
        if (info.info.rate > 0) {
            err = render_create(&rc, info.info.rate, info.n, 0.0, 1.0, info.out_channels > 0 ? info.out_channels : 1,
                                1, &probe, ei);
            render_destroy(probe);
            if (err != SP_OK)
                goto done;
        }
    }
    if ((err = open_window(v, ei)) != SP_OK || (err = fit_drawable(v, ei)) != SP_OK)
        goto done;
    v->fps_t0 = sp_now();

    while (!quit) {
        SDL_Event e;
        double now = sp_now();
        int scrolling = live && started && !v->ui.paused && !v->finished, got;
        int timeout = dirty ? (int)ceil(fmax(0.0, (next_frame - now) * 1000.0)) : 100;
        if (scrolling) {
            double wait_s = v->vsync ? vsync_wait(v, t_last, now) : live_wait(v, next_frame, now);
            if (!dirty) {
                /* nothing new to draw: sleep until on_frames wakes the loop (checked under
                 * the lock that on_frames takes, so no wake-up is missed), not spin */
                pthread_mutex_lock(&v->sh.mu);
                if (v->sh.version == seen_version) {
                    v->sh.want_wake = 1;
                    wait_s = fmax(wait_s, 0.1);
                }
                pthread_mutex_unlock(&v->sh.mu);
            }
            timeout = (int)ceil(1000.0 * wait_s);
        }
        got = SDL_WaitEventTimeout(&e, timeout);
        while (got) {
            switch (e.type) {
            case SDL_QUIT:
                quit = 1;
                break;
            case SDL_KEYDOWN:
                if (handle_key(v, &e.key.keysym, live, &err, ei))
                    quit = 1;
                dirty = 1;
                break;
            case SDL_WINDOWEVENT:
                if (e.window.event == SDL_WINDOWEVENT_LEAVE)
                    v->ui.mouse_in = 0;
                if (e.window.event == SDL_WINDOWEVENT_CLOSE)
                    quit = 1;
                dirty = 1;
                break;
            case SDL_MOUSEMOTION:
                mouse_to_drawable(v, e.motion.x, e.motion.y);
                v->ui.mouse_in = 1;
                if (v->ui.dragging && !live && v->pic.r) {
                    render_rect pr = render_plot_rect(v->pic.r, 0);
                    double fpp = (v->ui.v1 - v->ui.v0) / pr.w;
                    double target = v->ui.drag_v0 - ((double)v->ui.mx - v->ui.drag_x) * fpp;
                    scroll_time(v, target - v->ui.v0);
                }
                dirty = 1;
                break;
            case SDL_MOUSEBUTTONDOWN:
                if (e.button.button == SDL_BUTTON_LEFT) {
                    mouse_to_drawable(v, e.button.x, e.button.y);
                    v->ui.dragging = 1;
                    v->ui.drag_x = v->ui.mx;
                    v->ui.drag_v0 = v->ui.v0;
                }
                break;
            case SDL_MOUSEBUTTONUP:
                v->ui.dragging = 0;
                break;
            case SDL_MOUSEWHEEL:
                handle_wheel(v, &e.wheel, live);
                dirty = 1;
                break;
            default:
                break;
            }
            got = SDL_PollEvent(&e);
        }
        if (cfg->stop && atomic_load(cfg->stop))
            quit = 1; /* Ctrl-C */
        pthread_mutex_lock(&v->sh.mu);
        if (v->sh.finished && v->sh.err != SP_OK && !atomic_load(&v->w.stop)) {
            /* the analysis failed: the window ends with its error */
            err = v->sh.err;
            *ei = v->sh.ei;
            quit = 1;
        }
        v->finished = v->sh.finished;
        if (v->sh.started) {
            info = v->sh.info;
            started = 1;
            live = info.live;
            v->live = live;
        } else {
            started = 0;
        }
        if (v->sh.version != seen_version) {
            seen_version = v->sh.version;
            if (!v->ui.paused)
                dirty = 1;
        }
        pthread_mutex_unlock(&v->sh.mu);
        if (v->ui.toast[0] && sp_now() > v->ui.toast_until) {
            v->ui.toast[0] = 0;
            dirty = 1;
        }
        if (v->ui.toast[0])
            dirty = 1; /* keep it up to date; it expires by itself */
        if (quit || !dirty)
            continue;
        now = sp_now();
        scrolling = live && started && !v->ui.paused && !v->finished;
        if (scrolling ? (v->vsync ? vsync_wait(v, t_last, now) : live_wait(v, next_frame, now)) > 0
                      : now < next_frame)
            continue;
        {
            uint64_t newest;
            double t_present, t_draw;
            if ((err = fit_drawable(v, ei)) != SP_OK)
                break;
            t_draw = sp_now();
            newest = draw_frame(v, &info, started);
            v->st.draw_s += sp_now() - t_draw;
            present_parts(v);
            if (v->ver.on && started && live)
                verify_shown(v);
            SDL_RenderPresent(v->ren);
            t_present = sp_now();
            dirty = 0;
            /* vsync: the present waited for the refresh; else pace to 60 Hz ourselves */
            if (scrolling && v->vsync)
                vsync_adapt(v, t_last, t_draw, t_present);
            t_last = t_present;
            next_frame = v->vsync ? t_present + 0.25 * FRAME_PERIOD
                                  : fmax(next_frame + FRAME_PERIOD, t_present - 0.5 * FRAME_PERIOD);
            v->st.drawn++;
            if (v->st.drawn == 1)
                v->st.first = t_present;
            v->st.last = t_present;
            v->fps_n++;
            if (t_present - v->fps_t0 >= 1.0) {
                v->fps = (double)v->fps_n / (t_present - v->fps_t0);
                v->fps_n = 0;
                v->fps_t0 = t_present;
            }
            /* capture-to-pixel: the newest frame's last sample, captured at anchor +
             * (f*hop + n)/rate, is on the screen now */
            if (started && live && !v->ui.paused && newest > v->st.newest_shown) {
                pthread_mutex_lock(&v->sh.mu);
                if (v->sh.have_anchor) {
                    double cap = v->sh.anchor + (double)((newest - 1) * info.hop + info.n) / info.info.rate;
                    double lat = t_present - cap;
                    v->last_latency = lat;
                    v->st.lat[v->st.nlat++ % MAX_LAT_SAMPLES] = lat;
                }
                pthread_mutex_unlock(&v->sh.mu);
                v->st.newest_shown = newest;
            }
        }
    }

done:
    if (v->w.running)
        worker_stop(&v->w);
    if (stats_path && *stats_path)
        write_stats(v, stats_path);
    pthread_mutex_lock(&v->sh.mu);
    if (res && (v->sh.finished || v->sh.started)) {
        *res = v->sh.finished ? v->sh.res : v->sh.info;
    }
    pthread_mutex_unlock(&v->sh.mu);
    destroy_view(v);
    free(v);
    SDL_Quit();
    return err;
}

#endif /* SPECTRO_HAVE_RENDER */
