/* view_measure: the window's measurement panel: the running averages (fed by the sink on
 * the analysis thread, under mu), their curve in the spectrum strip, the tone analysis
 * (spectro_average_tone; its figures and the harmonics' marks are view_strip.c's), and the averaged
 * spectrum's export to CSV (spectro_dump: the format of --average mean --dump x.csv).
 * See view_internal.h.
 *
 * The running averages (spectro.h's spectro_average, one handle for both), in power
 * P = 10^(dB/10) per bin and output channel, from the analysis' float spectra (not the
 * store's 0.01 dB):
 *   infinite     the power mean of every frame since the analysis started (a restart, w
 *                or n, starts it again; live, choosing it with `a` starts it afresh):
 *                --average mean's own accumulator, so a finished file's reads exactly
 *                what `--average mean --dump` writes
 *   exponential  P <- P + alpha (P_frame - P), alpha = 1 - exp(-hop / (rate * tau)),
 *                tau = AVG_TAU_S: a level that stops falls 10 log10(e) / tau = 4.34 dB/s;
 *                the first frame sets P
 * In the file view the frames come in the analysis' order, the file's from its start:
 * the exponential average shows the last seconds analysed (the file's end once done),
 * whatever part of the file the view shows. Both are kept whatever `a` shows (one exp()
 * per bin and frame on the analysis thread, the power both take). */
#include "view_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "scale.h"

/* ---- the analysis thread's side (the caller holds mu, except in open) ---- */

int view_avg_create(const spectro_stream_info *in, unsigned modes, spectro_average **out, sp_errinfo *ei)
{
    spectro_analyzer_config fc = spectro_analyzer_config_default();
    spectro_average_config ac = spectro_average_config_default();
    spectro_error e;
    fc.sample_rate = in->frames->sample_rate;
    fc.channels = in->frames->channels;
    fc.channel = in->frames->channels > 1 ? SPECTRO_CHANNEL_ALL : SPECTRO_CHANNEL_MIX; /* the output's */
    fc.fft_size = in->frames->fft_size;
    fc.hop = in->frames->hop;
    fc.window = in->window;
    ac.modes = modes;
    ac.time_constant_s = AVG_TAU_S;
    ac.window_coefficients = in->window_coef; /* a short file's zero-padded one included */
    if (spectro_average_create(&fc, &ac, out, &e) != SPECTRO_OK)
        return sp_fail(ei, e.code == SPECTRO_ENOMEM ? SP_ENOMEM : SP_EINVAL, "the running average: %s", e.message);
    return SP_OK;
}

int view_avg_open(view_avg *a, const spectro_stream_info *in, sp_errinfo *ei)
{
    int err;
    memset(a, 0, sizeof *a);
    a->channels = in->frames->channels;
    a->rate = in->frames->sample_rate;
    a->source_channels = in->source_channels;
    a->channel = in->channel;
    a->bins = in->frames->bins;
    a->n = in->frames->fft_size;
    a->hop = in->frames->hop;
    snprintf(a->channel_name, sizeof a->channel_name, "%s", in->channel_name ? in->channel_name : "");
    snprintf(a->source, sizeof a->source, "%s", in->frames->source);
    snprintf(a->decoder, sizeof a->decoder, "%s", in->decoder ? in->decoder : "");
    a->start_s = in->start_s;
    a->time_first_s = in->frames->time_first_s;
    a->time_step_s = in->frames->time_step_s;
    a->bin_hz = in->bin_hz;
    a->on = 1;
    if (in->frames->transform) /* a transform's rows: the panel is off (view_xform.c) */
        return SP_OK;
    err = view_avg_create(in,
                          SPECTRO_AVERAGE_BIT(SPECTRO_AVERAGE_MEAN) | SPECTRO_AVERAGE_BIT(SPECTRO_AVERAGE_EXPONENTIAL),
                          &a->avg, ei);
    if (err != SP_OK) {
        view_avg_close(a);
        return err;
    }
    a->enbw_bins = spectro_average_enbw_bins(a->avg);
    return SP_OK;
}

void view_avg_add(view_avg *a, int channel, size_t nframes, const float *db)
{
    if (a->on && a->avg) /* no allocation: the analysis thread's, under mu */
        spectro_average_add(a->avg, channel, db, nframes, NULL);
}

void view_avg_close(view_avg *a)
{
    spectro_average_destroy(a->avg);
    memset(a, 0, sizeof *a);
}

/* ---- the window's side ---- */

const char *view_panel_src_name(int src)
{
    static const char *const names[] = {"none", "selection", "exponential", "infinite"};
    return src >= 0 && src <= PANEL_SRC_INF ? names[src] : "?";
}

void view_panel_init(view *v)
{
    v->pn.tone_on = v->user.panel_tone;
    v->pn.avg_mode = v->user.panel_average ? VIEW_AVG_INF : VIEW_AVG_OFF;
    /* before the first start: asked for at once, the averages never wait for a second run */
    v->sh.need_frames = v->pn.tone_on || v->pn.avg_mode != VIEW_AVG_OFF;
}

void view_panel_free(view *v)
{
    view_select_clear(v); /* joins its thread */
    free(v->pn.db);
}

static void panel_tone(view *v, spectro_average *avg, int mode);

/* Average `mode` of avg: dB into db (may be NULL) and, with `tone`, its tone analysis
 * (panel_tone); the rows it averages into *frames. */
static void fetch_average(view *v, spectro_average *avg, int mode, float *db, int tone, uint64_t *frames)
{
    const view_avg *m = &v->pn.meta;
    *frames = spectro_average_frames(avg, 0, mode);
    for (int c = 0; db && c < m->channels; c++)
        spectro_average_read(avg, c, mode, 0, db + (size_t)c * m->bins, NULL);
    if (tone && *frames > 0)
        panel_tone(v, avg, mode);
}

/* The spectrum of `src` for every channel: dB into db (may be NULL) and, with `tone`, its
 * tone analysis; the frames it averages into *frames. pn.meta gets the stream's figures. 0
 * when there is none (nothing yet, a selection still being read, a stream of another shape
 * than the picture's). The running averages are read under mu (the tone too: O(bins) per
 * channel, no copy of the powers). */
static int panel_fetch(view *v, int src, float *db, int tone, uint64_t *frames)
{
    panel_state *pn = &v->pn;
    view_avg *a = &v->sh.avg;
    int ok;
    *frames = 0;
    if (src == PANEL_SRC_NONE)
        return 0;
    pthread_mutex_lock(&v->sh.mu);
    ok = a->on && a->bins == v->pic.bins && a->channels == v->pic.channels;
    if (ok) {
        pn->meta = *a;
        pn->meta.avg = NULL;
    } else {
        pn->meta.on = 0;
    }
    if (ok && a->avg && (src == PANEL_SRC_INF || src == PANEL_SRC_EXP))
        fetch_average(v, a->avg, src == PANEL_SRC_INF ? SPECTRO_AVERAGE_MEAN : SPECTRO_AVERAGE_EXPONENTIAL, db, tone,
                      frames);
    pthread_mutex_unlock(&v->sh.mu);
    if (ok && src == PANEL_SRC_SEL) {
        const sel_job *j = &pn->job;
        ok = view_select_ready(v) && j->channels == pn->meta.channels && j->bins == pn->meta.bins;
        if (ok)
            fetch_average(v, j->acc, SPECTRO_AVERAGE_MEAN, db, tone, frames);
    }
    return ok && *frames > 0;
}

/* What the strip's second curve shows, and what the tone is measured on: the selection's
 * spectrum when there is a selection, else the running average shown; the tone without
 * either: the whole file's mean (--tone's), live the exponential average. */
static void panel_sources(view *v, int *show, int *tone)
{
    panel_state *pn = &v->pn;
    *show = v->ui.sel_on ? PANEL_SRC_SEL
            : pn->avg_mode == VIEW_AVG_EXP ? PANEL_SRC_EXP
            : pn->avg_mode == VIEW_AVG_INF ? PANEL_SRC_INF
                                           : PANEL_SRC_NONE;
    *tone = *show != PANEL_SRC_NONE ? *show : v->live ? PANEL_SRC_EXP : PANEL_SRC_INF;
}

int view_panel_frames(view *v, sp_errinfo *ei)
{
    int show, tone, again;
    panel_sources(v, &show, &tone);
    if (show != PANEL_SRC_EXP && show != PANEL_SRC_INF &&
        (!v->pn.tone_on || (tone != PANEL_SRC_EXP && tone != PANEL_SRC_INF)))
        return SP_OK;
    pthread_mutex_lock(&v->sh.mu);
    v->sh.need_frames = 1; /* and for every later start (w, n) */
    again = v->sh.maxima > 0; /* set by the run's first maxima: checked again next time */
    pthread_mutex_unlock(&v->sh.mu);
    if (!again)
        return SP_OK;
    v->pn.reanalysed++;
    view_toast(v, "analysing again for the average: the picture's spectra were reduced on the device");
    return view_restart(v, 1, ei);
}

/* The tone analysis of average `mode` of avg, channel by channel (the first
 * PANEL_TONE_CHANNELS), in the band asked for (narrowed to a selection's). */
static void panel_tone(view *v, spectro_average *avg, int mode)
{
    panel_state *pn = &v->pn;
    const view_avg *m = &pn->meta;
    const view_settings *sm = &v->user;
    spectro_tone_config tc = spectro_tone_config_default();
    spectro_error e;
    int err = spectro_tone_band(sm->band_lo, sm->band_hi, m->rate, &tc.fmin, &tc.fmax, &e);
    pn->tone_ok = 0;
    if (err == SPECTRO_OK && pn->tone_src == PANEL_SRC_SEL && pn->sel_hz1 > pn->sel_hz0) {
        tc.fmin = fmax(tc.fmin, pn->sel_hz0); /* the selection's band */
        tc.fmax = fmin(tc.fmax, pn->sel_hz1);
    }
    tc.fundamental_hz = sm->tone_hz;
    for (int c = 0; err == SPECTRO_OK && c < m->channels && c < PANEL_TONE_CHANNELS; c++) {
        pn->tone[c].size = sizeof pn->tone[c];
        err = spectro_average_tone(avg, c, mode, &tc, &pn->tone[c], &e);
    }
    if (err != SPECTRO_OK)
        snprintf(pn->tone_msg, sizeof pn->tone_msg, "tone: %.180s", e.message);
    pn->tone_ok = err == SPECTRO_OK;
}

/* This frame's spectra: the curve's dB (pn->db) and the tone's power (pn->pw). */
static void panel_update(view *v)
{
    panel_state *pn = &v->pn;
    size_t n = (size_t)v->pic.channels * v->pic.bins;
    panel_sources(v, &pn->show_src, &pn->tone_src);
    pn->show_frames = pn->tone_frames = 0;
    pn->tone_ok = 0;
    pn->tone_msg[0] = '\0';
    if (!view_grow((void **)&pn->db, &pn->db_cap, n, sizeof *pn->db)) {
        pn->show_src = PANEL_SRC_NONE;
        return;
    }
    if (!panel_fetch(v, pn->show_src, pn->db, 0, &pn->show_frames))
        pn->show_frames = 0;
    if (!pn->tone_on)
        return;
    if (!panel_fetch(v, pn->tone_src, NULL, 1, &pn->tone_frames))
        snprintf(pn->tone_msg, sizeof pn->tone_msg, "tone: %s",
                 pn->tone_src == PANEL_SRC_SEL ? "reading the selection\xe2\x80\xa6" : "no frames yet");
}

/* As draw_spectrum (view_frame.c) places the strip's panels. */
static void strip_geometry(const view *v, const layout *L, int *x0, int *pw, double *lo, double *hi)
{
    int fs = L->fs;
    *x0 = L->side_x + fs / 2;
    *pw = v->cv.w - (int)lround(fs * 1.4) - *x0;
    *lo = v->ui.db_lo - v->ui.gain;
    *hi = v->ui.db_hi - v->ui.gain;
}

/* The highest of the bins in f_lo .. f_hi, or between the two nearest where the range is
 * narrower than a bin (draw_spectrum's rule, on floats). */
static double rows_db(const float *s, size_t bins, double f_lo, double f_hi, double bin_hz)
{
    double k0 = ceil(f_lo / bin_hz - 1e-9), k1 = floor(f_hi / bin_hz + 1e-9), kc, fr;
    size_t a;
    k0 = k0 < 0 ? 0 : k0;
    k1 = k1 > (double)(bins - 1) ? (double)(bins - 1) : k1;
    if (k0 <= k1) {
        float m = s[(size_t)k0];
        for (size_t k = (size_t)k0 + 1; k <= (size_t)k1; k++)
            m = s[k] > m ? s[k] : m;
        return m;
    }
    kc = fmin(fmax(0.5 * (f_lo + f_hi) / bin_hz, 0.0), (double)(bins - 2));
    a = (size_t)floor(kc);
    fr = kc - (double)a;
    return s[a] + (s[a + 1] - s[a]) * fr;
}

static void draw_curve(view *v, const layout *L)
{
    picture *p = &v->pic;
    const scale_map *map = render_scale(p->r);
    int x0, pw;
    double lo, hi, bin_hz = p->rate / (double)p->n;
    strip_geometry(v, L, &x0, &pw, &lo, &hi);
    if (pw < 20 || !map)
        return;
    for (int c = 0; c < p->channels && c < RENDER_MAX_CHANNELS; c++) {
        render_rect pr = render_plot_rect(p->r, c);
        const float *s = v->pn.db + (size_t)c * p->bins;
        int prev = -1;
        for (int y = 0; y < pr.h; y++) {
            double f_hi = scale_from_unit(map, 1.0 - (double)y / pr.h);
            double f_lo = scale_from_unit(map, 1.0 - (double)(y + 1) / pr.h);
            double t = (rows_db(s, p->bins, f_lo, f_hi, bin_hz) - lo) / (hi - lo);
            int x = x0 + (int)lround(fmin(1.0, fmax(0.0, t)) * (pw - 1));
            int a = prev < 0 ? x : prev, lx = a < x ? a : x, hx = a < x ? x : a;
            canvas_fill(&v->cv, lx, pr.y + y, hx - lx + 1, 1, COL_AVG);
            prev = x;
        }
    }
}

void view_panel_strip(view *v, const layout *L)
{
    panel_state *pn = &v->pn;
    if (!v->pic.r || !v->pic.ok)
        return;
    panel_update(v);
    if (pn->show_src != PANEL_SRC_NONE && pn->show_frames)
        draw_curve(v, L);
}

/* ---- export ---- */

/* The spectrum the strip shows when no average is: live the newest, the file view the
 * one under the cursor, else the maximum over the view (0.01 dB, the store's). */
static const char *displayed_db(view *v, float *db)
{
    picture *p = &v->pic;
    const char *what = v->live ? "newest" : "max of view";
    size_t i = p->count - 1;
    if (!v->live && v->ui.mouse_in) {
        render_rect pr = render_plot_rect(p->r, 0);
        if (v->ui.mx >= pr.x && v->ui.mx < pr.x + pr.w) {
            i = (size_t)(((double)(v->ui.mx - pr.x) + 0.5) / pr.w * (double)p->count);
            i = i < p->count ? i : p->count - 1;
            what = "cursor";
        }
    }
    for (int c = 0; c < p->channels; c++)
        for (size_t k = 0; k < p->bins; k++) {
            size_t j = (size_t)c * p->bins + k;
            if (!v->live && strcmp(what, "max of view") == 0) {
                db[j] = p->hold ? p->hold[j] : (float)SPECTRO_DB_FLOOR;
            } else {
                int16_t s = view_snap_entry(p, c, i)[k];
                db[j] = s == VIEW_STORE_NODATA ? (float)SPECTRO_DB_FLOOR : (float)s * 0.01f;
            }
        }
    return what;
}

/* spectro-avg-YYYYmmdd-HHMMSS.csv, or -2, -3 ... when taken. */
static void export_path(char *path, size_t len)
{
    char name[64];
    time_t now = time(NULL);
    struct tm tmv;
    localtime_r(&now, &tmv);
    strftime(name, sizeof name, "spectro-avg-%Y%m%d-%H%M%S", &tmv);
    snprintf(path, len, "%s.csv", name);
    for (int i = 2; access(path, F_OK) == 0 && i < 100; i++)
        snprintf(path, len, "%s-%d.csv", name, i);
}

/* db (channels x bins) to path as --average mean --dump path.csv writes it (spectro.h's dump
 * writer), with its sidecar (what, frames_averaged, the selection's frames: null without one). */
static int write_csv(view *v, const char *path, const float *db, const char *what, uint64_t frames, sp_errinfo *ei)
{
    const view_avg *m = &v->pn.meta;
    spectro_dump_config dc = spectro_dump_config_default();
    spectro_dump *d = NULL;
    spectro_error e = {0, {0}};
    char extra[512], sel[64] = "null", window[64], backend[16];
    uint64_t a = 0, b = 0;
    int err;
    if (v->ui.sel_on) {
        view_select_frames(v, &a, &b);
        snprintf(sel, sizeof sel, "[%llu, %llu]", (unsigned long long)a, (unsigned long long)b);
    }
    snprintf(extra, sizeof extra,
             ",\n  \"average\": \"%s\",\n  \"frames_averaged\": %llu,\n  \"units\": \"%s\",\n  \"enbw_bins\": %.17g,"
             "\n  \"enbw_hz\": %.17g,\n  \"selection_frames\": %s",
             what, (unsigned long long)frames, view_level_unit(v), m->enbw_bins, m->enbw_bins * m->bin_hz, sel);
    pthread_mutex_lock(&v->sh.mu);
    snprintf(window, sizeof window, "%s", v->sh.info.window); /* the stream's: change only at a restart */
    snprintf(backend, sizeof backend, "%s", v->sh.info.backend);
    pthread_mutex_unlock(&v->sh.mu);
    dc.sample_rate = m->rate;
    dc.channels = m->channels;
    dc.fft_size = m->n;
    dc.hop = m->hop;
    dc.bins = m->bins;
    dc.bin_hz = m->bin_hz;
    dc.time_first_s = m->time_first_s + (double)a * m->time_step_s;
    dc.time_step_s = m->time_step_s;
    dc.averaged = 1;
    dc.unit = view_level_unit(v);
    dc.window = window;
    dc.source = m->source;
    dc.decoder = m->decoder;
    dc.backend = backend;
    dc.start_s = m->start_s;
    dc.source_channels = m->source_channels;
    dc.channel = m->channel;
    dc.channel_name = m->channel_name[0] ? m->channel_name : NULL;
    dc.extra = extra;
    err = spectro_dump_open(path, &dc, &d, &e);
    for (int c = 0; c < m->channels && err == SPECTRO_OK; c++)
        err = spectro_dump_write(d, c, 0, 1, db + (size_t)c * m->bins, &e);
    if (err == SPECTRO_OK)
        err = spectro_dump_commit(d, &e);
    spectro_dump_destroy(d);
    return err == SPECTRO_OK ? SP_OK : sp_fail(ei, err, "%s", e.message); /* the codes are the engine's */
}

/* e: the selection's spectrum (waiting for it to be read), else the running average
 * shown, else the spectrum shown, to a CSV in the current directory; a message says
 * where, or why not. */
static void panel_export(view *v)
{
    panel_state *pn = &v->pn;
    size_t n = (size_t)v->pic.channels * v->pic.bins;
    int show, tone, ok;
    uint64_t frames = 0;
    char path[96], msg[400];
    const char *what;
    float *db;
    sp_errinfo ei = {{0}};
    if (!v->pic.r || !v->pic.ok || !(db = malloc(n * sizeof *db))) {
        view_toast(v, "export: nothing to export yet");
        return;
    }
    panel_sources(v, &show, &tone);
    if (show == PANEL_SRC_SEL) {
        while (pn->job.running && !view_select_ready(v))
            SDL_Delay(5); /* a small wait: the frames asked for are being read */
        if (pn->job.err != SP_OK) {
            snprintf(msg, sizeof msg, "export failed: %.300s", pn->job.ei.msg);
            view_toast(v, msg);
            free(db);
            return;
        }
    }
    ok = show != PANEL_SRC_NONE ? panel_fetch(v, show, db, 0, &frames)
                                : panel_fetch(v, PANEL_SRC_INF, NULL, 0, &frames);
    what = show == PANEL_SRC_NONE ? displayed_db(v, db) : show == PANEL_SRC_EXP ? "exponential" : "mean";
    if (show == PANEL_SRC_NONE) {
        ok = pn->meta.on;
        frames = 1;
    }
    export_path(path, sizeof path);
    if (!ok)
        snprintf(msg, sizeof msg, "export failed: no spectrum yet");
    else if (write_csv(v, path, db, what, frames, &ei) != SP_OK)
        snprintf(msg, sizeof msg, "export failed: %.300s", ei.msg);
    else {
        snprintf(msg, sizeof msg, "saved %s (%s%s)", path, show == PANEL_SRC_SEL ? "selection, " : "", what);
        snprintf(pn->last_export, sizeof pn->last_export, "%s", path);
    }
    view_toast(v, msg);
    free(db);
}

/* a: the running average's next mode; t: tone analysis; e: export; m: the mark; Esc:
 * the selection goes (and then, with none, Esc quits). */
int view_panel_key(view *v, SDL_Keycode sym, int live)
{
    panel_state *pn = &v->pn;
    static const char *const modes[] = {"off", "exponential (\xcf\x84 1 s)", "infinite (power mean)"};
    char msg[96];
    switch (sym) {
    case SDLK_a:
        pn->avg_mode = (pn->avg_mode + 1) % VIEW_AVG_MODES;
        if (pn->avg_mode == VIEW_AVG_INF && live) { /* live: the mean starts now */
            pthread_mutex_lock(&v->sh.mu);
            if (v->sh.avg.on && v->sh.avg.avg)
                spectro_average_reset(v->sh.avg.avg, -1, SPECTRO_AVERAGE_BIT(SPECTRO_AVERAGE_MEAN), NULL);
            pthread_mutex_unlock(&v->sh.mu);
        }
        snprintf(msg, sizeof msg, "running average: %s", modes[pn->avg_mode]);
        view_toast(v, msg);
        return 1;
    case SDLK_t:
        pn->tone_on = !pn->tone_on;
        view_toast(v, pn->tone_on ? "tone analysis on" : "tone analysis off");
        return 1;
    case SDLK_e:
        panel_export(v);
        return 1;
    case SDLK_m:
        if (!view_mark_toggle(v))
            view_toast(v, "mark: put the cursor on the picture");
        return 1;
    case SDLK_ESCAPE:
        if (!v->ui.sel_on)
            return 0;
        view_select_clear(v);
        return 1;
    default:
        return 0;
    }
}
