/* view_select: the file view's selection and the two-point mark. See view_internal.h.
 *
 * Selection: shift+drag over the picture selects a time range, ui.sel_f0 .. sel_f1 in frame
 * units (frame f spans [f, f+1), as ui.v0/v1); with a frequency zoom active, the band
 * shown (ui.zf_lo .. zf_hi) too, a shaded box. Its frames are those whose centre f + 1/2
 * lies in the range (at least one). Their spectrum is a power mean read again from the
 * input at full precision: a run of the same analysis over just those frames (--start at
 * frame a's first sample, --end after frame b-1's last), on a thread of its own, into
 * --average mean's accumulator: exactly what `--average mean --start A --end B --dump` gives.
 * A pipe cannot be read again: the panel says so. Esc or a plain click clears it.
 *
 * Mark: m (or the right button) marks the point under the cursor (channel, frame,
 * frequency, level as the read-out reads them); the read-out then adds the differences
 * cursor - mark and the interval between their frequencies. m again clears it. */
#include "view_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scale.h"

static const rgb8 COL_SEL = {0x9a, 0xc8, 0xff};
static const rgb8 COL_MARK = {0xff, 0xe0, 0x40};

#define CLICK_SLOP 3 /* pixels a plain click may move */

/* ---- the selection's spectrum, read again on a thread ---- */

static int job_open(void *user, const spectro_stream_info *in, spectro_stream_wants *wants, spectro_error *e)
{
    sel_job *j = user;
    const spectro_frames_info *f = in->frames;
    sp_errinfo ei = {{0}};
    if (f->fft_size != j->n || f->bins != j->bins || f->channels != j->channels) {
        snprintf(e->message, sizeof e->message, "the input reads differently from its analysis");
        return e->code = SPECTRO_EINVAL;
    }
    if ((e->code = view_avg_create(in, SPECTRO_AVERAGE_BIT(SPECTRO_AVERAGE_MEAN), &j->acc, &ei)) != SP_OK) {
        snprintf(e->message, sizeof e->message, "%s", ei.msg);
        return e->code;
    }
    wants->spectra = 1;
    return SPECTRO_OK;
}

static int job_spectra(void *user, int channel, uint64_t first, size_t nframes, const float *db, spectro_error *e)
{
    sel_job *j = user;
    (void)first, (void)e;
    spectro_average_add(j->acc, channel, db, nframes, NULL);
    return SPECTRO_OK;
}

static const spectro_stream_ops JOB_STREAM = {
    .size = sizeof(spectro_stream_ops),
    .open = job_open, .spectra = job_spectra,
};

static void *job_main(void *arg)
{
    view *v = arg;
    sel_job *j = &v->pn.job;
    sp_errinfo ei = {{0}};
    spectro_error e = {0, {0}};
    SDL_Event ev;
    int err = spectro_job_run(j->run, &e);
    if (err != SPECTRO_OK)
        snprintf(ei.msg, sizeof ei.msg, "%s", e.message);
    uint64_t want = j->f1 - j->f0, got = spectro_average_frames(j->acc, 0, SPECTRO_AVERAGE_MEAN);
    if (err == SP_OK && got != want)
        err = sp_fail(&ei, SP_EIO, "the selection read %llu frames again, not %llu", (unsigned long long)got,
                      (unsigned long long)want);
    j->err = err;
    j->ei = ei;
    atomic_store(&j->done, 1);
    pthread_mutex_lock(&v->sh.mu);
    v->sh.version++; /* a frame to draw */
    pthread_mutex_unlock(&v->sh.mu);
    memset(&ev, 0, sizeof ev);
    ev.type = v->sh.wake_event;
    SDL_PushEvent(&ev);
    return NULL;
}

static void job_cancel(view *v)
{
    sel_job *j = &v->pn.job;
    if (j->running) {
        spectro_job_stop(j->run, 1);
        pthread_join(j->th, NULL);
        j->running = 0;
    }
    spectro_job_destroy(j->run);
    j->run = NULL;
    spectro_average_destroy(j->acc);
    j->acc = NULL;
    j->ready = 0;
    j->err = SP_OK;
    j->ei.msg[0] = '\0';
}

int view_select_ready(view *v)
{
    sel_job *j = &v->pn.job;
    if (j->running && atomic_load(&j->done)) {
        pthread_join(j->th, NULL);
        j->running = 0;
        j->ready = j->err == SP_OK;
    }
    return j->ready;
}

/* The analysis' frames: expected, or seen when more; *known: the count is final. */
static uint64_t total_frames(view *v, int *known)
{
    uint64_t expected, seen;
    pthread_mutex_lock(&v->sh.mu);
    expected = v->sh.started ? view_expected_frames(&v->sh.info) : 0;
    seen = view_store_frames(v->sh.store);
    if (known)
        *known = expected > 0 || v->sh.finished;
    pthread_mutex_unlock(&v->sh.mu);
    return expected > seen ? expected : seen;
}

void view_select_frames(view *v, uint64_t *a, uint64_t *b)
{
    uint64_t total = total_frames(v, NULL);
    double fa = ceil(v->ui.sel_f0 - 0.5), fb = ceil(v->ui.sel_f1 - 0.5);
    total = total ? total : 1;
    fa = fmin(fmax(fa, 0.0), (double)(total - 1));
    fb = fmin(fmax(fb, fa + 1.0), (double)total);
    *a = (uint64_t)fa;
    *b = (uint64_t)fb;
}

/* Where the analysis' frames [a, b) lie in the input: from frame a's first sample to
 * frame b-1's last, in seconds. */
static void frames_span(const view_avg *m, uint64_t a, uint64_t b, double *t0, double *t1)
{
    *t0 = m->start_s + (double)(a * m->hop) / m->rate;
    *t1 = m->start_s + (double)((b - 1) * m->hop + m->n) / m->rate;
}

/* Starts reading the selection's frames again (the one before, if any, is given up). */
static void job_start(view *v)
{
    sel_job *j = &v->pn.job;
    view_avg m;
    view_settings c;
    uint64_t a, b;
    int known, last;
    double t0, t1;
    job_cancel(v);
    view_select_frames(v, &a, &b);
    last = b >= total_frames(v, &known) && known;
    pthread_mutex_lock(&v->sh.mu);
    m = v->sh.avg;
    pthread_mutex_unlock(&v->sh.mu);
    j->f0 = a;
    j->f1 = b;
    if (!m.on || spectro_input_is_stream(v->user.input)) {
        j->err = sp_fail(&j->ei, SP_EUNSUPPORTED, "the selection's spectrum reads its input again: not a pipe");
        return;
    }
    frames_span(&m, a, b, &t0, &t1);
    c = v->w.cfg;
    c.xform = view_xf_none(); /* the selection's spectrum is linear */
    c.start = t0;
    if (!last || !(v->w.cfg.end > 0 || v->w.cfg.duration > 0)) {
        c.end = last ? 0 : t1; /* the last frame: to the end, as the analysis read it */
        c.duration = 0;
    } else if (v->w.cfg.duration > 0) {
        c.end = v->w.cfg.start + v->w.cfg.duration;
        c.duration = 0;
    }
    if ((j->err = view_worker_job(v->w.pub, &c, v->w.window, 1, &j->run, &j->ei)) != SP_OK)
        return;
    spectro_job_set_stream(j->run, &JOB_STREAM, j);
    j->channels = m.channels;
    j->bins = m.bins;
    j->n = m.n;
    atomic_store(&j->done, 0);
    if (pthread_create(&j->th, NULL, job_main, v) != 0) {
        j->err = sp_fail(&j->ei, SP_ENOMEM, "cannot start a thread for the selection");
        return;
    }
    j->running = 1;
}

void view_select_clear(view *v)
{
    job_cancel(v);
    v->ui.sel_on = 0;
    v->ui.sel_f0 = v->ui.sel_f1 = 0;
    v->pn.sel_drag = 0;
    v->pn.sel_hz0 = v->pn.sel_hz1 = 0;
}

void view_select_restarted(view *v)
{
    view_select_clear(v);
    v->pn.mark_on = 0;
    v->pn.delta_on = 0;
}

/* ---- the mouse ---- */

static void mouse_xy(view *v, int x, int y)
{
    int ww = 1, wh = 1;
    SDL_GetWindowSize(v->win, &ww, &wh);
    v->ui.mx = (int)((double)x * v->dw / (ww > 0 ? ww : 1));
    v->ui.my = (int)((double)y * v->dh / (wh > 0 ? wh : 1));
}

/* 1 when (mx, my) is on the picture's panels (any channel). */
static int on_panels(const view *v)
{
    const picture *p = &v->pic;
    render_rect top, bot;
    if (!p->r || !p->ok)
        return 0;
    top = render_plot_rect(p->r, 0);
    bot = render_plot_rect(p->r, p->channels - 1);
    return v->ui.mx >= top.x && v->ui.mx < top.x + top.w && v->ui.my >= top.y && v->ui.my < bot.y + bot.h;
}

/* The selection from its anchor to the cursor, and the band zoomed to. */
static void drag_to_cursor(view *v)
{
    double total = view_total_frames(v), f = fmin(fmax(view_frame_at_x(v, v->ui.mx), 0.0), total);
    v->ui.sel_f0 = fmin(v->pn.sel_anchor, f);
    v->ui.sel_f1 = fmax(v->pn.sel_anchor, f);
    v->ui.sel_on = v->ui.sel_f1 > v->ui.sel_f0;
    v->pn.sel_hz0 = v->ui.zf_hi > 0 ? v->ui.zf_lo : 0;
    v->pn.sel_hz1 = v->ui.zf_hi > 0 ? v->ui.zf_hi : 0;
}

int view_select_button(view *v, const SDL_MouseButtonEvent *e, int live)
{
    panel_state *pn = &v->pn;
    mouse_xy(v, e->x, e->y);
    if (e->type == SDL_MOUSEBUTTONDOWN) {
        if (e->button == SDL_BUTTON_RIGHT) {
            if (!view_mark_toggle(v))
                view_toast(v, "mark: put the cursor on the picture");
            return 1;
        }
        if (e->button != SDL_BUTTON_LEFT)
            return 0;
        if ((SDL_GetModState() & KMOD_SHIFT) && !live && on_panels(v)) {
            job_cancel(v);
            pn->sel_drag = 1;
            pn->sel_anchor = fmin(fmax(view_frame_at_x(v, v->ui.mx), 0.0), view_total_frames(v));
            v->ui.sel_on = 0;
            return 1;
        }
        pn->click_armed = 1;
        pn->click_x = v->ui.mx;
        pn->click_y = v->ui.my;
        return 0;
    }
    if (e->button != SDL_BUTTON_LEFT)
        return 0;
    if (pn->sel_drag) {
        drag_to_cursor(v);
        pn->sel_drag = 0;
        if (v->ui.sel_on)
            job_start(v);
        return 1;
    }
    if (pn->click_armed && v->ui.sel_on && abs(v->ui.mx - pn->click_x) <= CLICK_SLOP &&
        abs(v->ui.my - pn->click_y) <= CLICK_SLOP)
        view_select_clear(v);
    pn->click_armed = 0;
    return 0;
}

int view_select_motion(view *v)
{
    panel_state *pn = &v->pn;
    if (pn->click_armed && (abs(v->ui.mx - pn->click_x) > CLICK_SLOP || abs(v->ui.my - pn->click_y) > CLICK_SLOP))
        pn->click_armed = 0;
    if (!pn->sel_drag)
        return 0;
    drag_to_cursor(v);
    return 1;
}

/* ---- drawing, the status line ---- */

int view_select_span(view *v, double *t0, double *t1)
{
    view_avg m;
    uint64_t a, b;
    if (!v->ui.sel_on)
        return 0;
    pthread_mutex_lock(&v->sh.mu);
    m = v->sh.avg;
    pthread_mutex_unlock(&v->sh.mu);
    if (!m.on)
        return 0;
    view_select_frames(v, &a, &b);
    frames_span(&m, a, b, t0, t1);
    return 1;
}

int view_select_status(view *v, char *buf, size_t len)
{
    double t0, t1;
    char s0[40], s1[40], sl[40];
    if (!v->pic.r || !view_select_span(v, &t0, &t1))
        return 0;
    view_format_time(&v->pic, t0, s0, sizeof s0);
    view_format_time(&v->pic, t1, s1, sizeof s1);
    view_format_time(&v->pic, t1 - t0, sl, sizeof sl);
    snprintf(buf, len, "sel %s \xe2\x80\x93 %s (%s)", s0, s1, sl);
    if (v->pn.sel_hz1 > v->pn.sel_hz0) {
        char h0[32], h1[32];
        scale_format_hz(v->pn.sel_hz0, h0, sizeof h0);
        scale_format_hz(v->pn.sel_hz1, h1, sizeof h1);
        snprintf(buf + strlen(buf), len - strlen(buf), " %s \xe2\x80\x93 %s", h0, h1);
    }
    return 1;
}

/* Pixel x of frame position f on a panel. */
static double x_of_frame(const picture *p, const render_rect *pr, double f)
{
    return pr->x + (f - (double)p->a0) / ((double)p->count * (double)p->span) * pr->w;
}

void view_select_draw(view *v, const layout *L)
{
    picture *p = &v->pic;
    const scale_map *map;
    (void)L;
    if (!v->ui.sel_on || v->live || !p->r || !p->ok || !(map = render_scale(p->r)))
        return;
    for (int c = 0; c < p->channels; c++) {
        render_rect pr = render_plot_rect(p->r, c);
        double xa = fmax(x_of_frame(p, &pr, v->ui.sel_f0), pr.x);
        double xb = fmin(x_of_frame(p, &pr, v->ui.sel_f1), pr.x + pr.w);
        int y0 = pr.y, y1 = pr.y + pr.h, x0 = (int)lround(xa), x1 = (int)lround(xb);
        if (v->pn.sel_hz1 > v->pn.sel_hz0) {
            y0 = pr.y + (int)lround((1.0 - fmin(1.0, scale_to_unit(map, v->pn.sel_hz1))) * pr.h);
            y1 = pr.y + (int)lround((1.0 - fmax(0.0, scale_to_unit(map, v->pn.sel_hz0))) * pr.h);
        }
        if (x1 <= x0)
            x1 = x0 + 1;
        if (xb < pr.x || xa >= pr.x + pr.w || y1 <= y0)
            continue;
        canvas_blend(&v->cv, x0, y0, x1 - x0, y1 - y0, COL_WHITE, 45);
        canvas_outline(&v->cv, x0, y0, x1 - x0, y1 - y0, COL_SEL);
    }
}

/* ---- the mark ---- */

/* The point under the cursor as the read-out reads it. 0 when not on a panel. */
static int cursor_point(view *v, int *c_out, double *f, double *hz, size_t *k_out, double *db)
{
    picture *p = &v->pic;
    const scale_map *map;
    if (!v->ui.mouse_in || !p->r || !p->ok || !(map = render_scale(p->r)))
        return 0;
    for (int c = 0; c < p->channels; c++) {
        render_rect pr = render_plot_rect(p->r, c);
        size_t i, k;
        int16_t raw;
        if (v->ui.mx < pr.x || v->ui.mx >= pr.x + pr.w || v->ui.my < pr.y || v->ui.my >= pr.y + pr.h)
            continue;
        i = (size_t)(((double)(v->ui.mx - pr.x) + 0.5) / pr.w * (double)p->count);
        i = i < p->count ? i : p->count - 1;
        *hz = scale_from_unit(map, 1.0 - ((double)(v->ui.my - pr.y) + 0.5) / pr.h);
        k = (size_t)lround(*hz * (double)p->n / p->rate);
        k = k < p->bins ? k : p->bins - 1;
        raw = view_snap_entry(p, c, i)[k];
        *db = raw == VIEW_STORE_NODATA ? NAN : (double)((float)raw * 0.01f);
        *f = (double)p->a0 + (double)i * (double)p->span + 0.5 * (double)(p->span - 1);
        *k_out = k;
        *c_out = c;
        return 1;
    }
    return 0;
}

int view_mark_toggle(view *v)
{
    panel_state *pn = &v->pn;
    if (view_xform_refuses(v, SDLK_m)) /* a transform's columns: no linear spectrum to mark */
        return 1;
    if (pn->mark_on) {
        pn->mark_on = pn->delta_on = 0;
        view_toast(v, "mark cleared");
        return 1;
    }
    if (!cursor_point(v, &pn->mark_c, &pn->mark_f, &pn->mark_hz, &pn->mark_k, &pn->mark_db))
        return 0;
    pn->mark_on = 1;
    return 1;
}

static const char *minus(double x)
{
    return x < 0 ? "\xe2\x88\x92" : "+";
}

/* "P5", "m3 + 1 oct", "2 oct" for n semitones (n >= 0). */
static void interval_name(long n, char *buf, size_t len)
{
    static const char *const names[12] = {"P1", "m2", "M2", "m3", "M3", "P4", "TT", "P5", "m6", "M6", "m7", "M7"};
    long oct = n / 12;
    if (n % 12 == 0 && oct > 0)
        snprintf(buf, len, "%ld oct", oct);
    else if (oct > 0)
        snprintf(buf, len, "%s + %ld oct", names[n % 12], oct);
    else
        snprintf(buf, len, "%s", names[n % 12]);
}

int view_mark_readout(view *v, int c, double f, double hz, double db, char *l1, char *l2, size_t len)
{
    panel_state *pn = &v->pn;
    const picture *p = &v->pic;
    char iv[96] = "\xe2\x80\x94", dbs[48] = "\xe2\x80\x94 dB";
    pn->delta_on = 0;
    if (!pn->mark_on)
        return 0;
    (void)c;
    pn->cur_f = f;
    pn->cur_hz = hz;
    pn->cur_db = db;
    pn->d_t = view_frame_time(p, f) - view_frame_time(p, pn->mark_f);
    pn->d_f = hz - pn->mark_hz;
    pn->d_db = db - pn->mark_db; /* NaN where either has no data */
    pn->d_st = hz > 0 && pn->mark_hz > 0 ? 12.0 * log2(hz / pn->mark_hz) : NAN;
    if (isfinite(pn->d_st)) {
        long n = lround(pn->d_st);
        int ct = (int)lround((pn->d_st - (double)n) * 100.0);
        char name[32];
        interval_name(labs(n), name, sizeof name);
        snprintf(iv, sizeof iv, "%s%ld st %s%d ct (%s%s)", minus((double)n), labs(n), minus(ct), abs(ct), name,
                 n < 0 ? " down" : "");
    }
    if (isfinite(pn->d_db))
        snprintf(dbs, sizeof dbs, "%s%.1f dB", minus(pn->d_db), fabs(pn->d_db));
    snprintf(l1, len, "\xce\x94t %s%.3f s   \xce\x94" "f %s%.1f Hz", minus(pn->d_t), fabs(pn->d_t), minus(pn->d_f),
             fabs(pn->d_f));
    snprintf(l2, len, "\xce\x94 %s   %s", dbs, iv);
    pn->delta_on = 1;
    return 1;
}

/* A cross at the mark (an overlay: claimed at draw 0). */
void view_draw_mark(view *v, const layout *L, int draw)
{
    panel_state *pn = &v->pn;
    picture *p = &v->pic;
    const scale_map *map;
    render_rect pr;
    int arm = L->fs / 2, x, y;
    double u;
    if (!pn->mark_on || !p->r || !p->ok || pn->mark_c >= p->channels || !(map = render_scale(p->r)))
        return;
    pr = render_plot_rect(p->r, pn->mark_c);
    x = (int)lround(x_of_frame(p, &pr, pn->mark_f + 0.5));
    u = scale_to_unit(map, pn->mark_hz);
    y = pr.y + (int)lround((1.0 - u) * pr.h);
    if (x < pr.x || x >= pr.x + pr.w || !(u >= 0.0 && u <= 1.0))
        return;
    if (!draw) {
        view_overlay_area(v, x - arm - 1, y - arm - 1, 2 * arm + 3, 2 * arm + 3);
        return;
    }
    canvas_fill(&v->cv, x - arm - 1, y - 1, 2 * arm + 3, 3, COL_BLACK);
    canvas_fill(&v->cv, x - 1, y - arm - 1, 3, 2 * arm + 3, COL_BLACK);
    canvas_fill(&v->cv, x - arm, y, 2 * arm + 1, 1, COL_MARK);
    canvas_fill(&v->cv, x, y - arm, 1, 2 * arm + 1, COL_MARK);
}
