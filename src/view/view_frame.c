/* view_frame: one frame of the window: the layout, the picture (live or the whole
 * file), the spectrum strip beside it, the status line and the overlays, into the canvas.
 * See view_internal.h. */
#include "view_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "colormap.h"
#include "png_write.h"
#include "scale.h"

static int font_size_for(int w, int h)
{
    /* render.c's rule: about 19 px at 1920x1080, never below 10 */
    int fs = (int)lround(fmin(h * 0.018, w * 0.0105));
    return fs < 10 ? 10 : fs > 96 ? 96 : fs;
}

layout view_layout(int W, int H, int inst_em)
{
    layout L;
    int fs = font_size_for(W, H), inst_w = inst_em * fs;
    L.fs = fs;
    L.status_h = (int)lround(fs * 2.0);
    L.side_w = (int)lround(W * 0.17);
    if (L.side_w < 13 * fs) /* room for the strip's boxes (view_strip.c) at small sizes */
        L.side_w = 13 * fs;
    if (L.side_w > 24 * fs)
        L.side_w = 24 * fs;
    if (inst_w > W / 3)
        inst_w = W / 3;
    L.pic_w = W - L.side_w - inst_w;
    L.pic_h = H - L.status_h;
    if (L.pic_w < RENDER_MIN_WIDTH)
        L.pic_w = RENDER_MIN_WIDTH;
    if (L.pic_h < RENDER_MIN_HEIGHT)
        L.pic_h = RENDER_MIN_HEIGHT;
    if (inst_w > 0 && L.pic_w + inst_w > W - 10 * fs) /* a narrow window: the picture first */
        inst_w = W - 10 * fs - L.pic_w > 0 ? W - 10 * fs - L.pic_w : 0;
    L.inst_x = L.pic_w;
    L.inst_w = inst_w;
    L.side_x = L.pic_w + inst_w;
    L.side_w = W - L.side_x;
    L.status_y = L.pic_h;
    L.status_h = H - L.pic_h;
    /* the renderer sizes its labels from its own picture: the same rule, the same size */
    L.fs = font_size_for(L.pic_w, L.pic_h);
    return L;
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
    double lo = v->ui.db_lo - v->ui.gain, hi = v->ui.db_hi - v->ui.gain, bin_hz = p->rate / (double)p->n, step;
    int16_t *hold16 = NULL;
    char buf[64];
    render_rect bottom = render_plot_rect(p->r, p->channels - 1);
    if (pw < 20 || !map)
        return;
    view_font(v, fs);
    /* dB grid: 1-2-5 steps at least ~3 label widths apart */
    step = 10;
    {
        double min_step = (hi - lo) * (canvas_text_width(v->font, "\xe2\x88\x92" "120") * 1.8) / pw;
        static const double steps[] = {1, 2, 5, 10, 20, 25, 50, 100, 200, 500, 1000};
        for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++)
            if (steps[i] >= min_step) {
                step = steps[i];
                break;
            }
    }
    if (have_hold && (hold16 = malloc(p->bins * sizeof *hold16)) == NULL)
        have_hold = 0;
    view_text(v, caption, x0, (int)lround(0.8 * fs) / 2 + (int)lround(0.1 * fs), RENDER_COL_LABEL);
    for (int c = 0; c < p->channels; c++) {
        render_rect pr = render_plot_rect(p->r, c);
        int prev_x = -1, prev_hx = -1;
        canvas_fill(cv, x0, pr.y, pw, pr.h, COL_PANEL_BG);
        for (double d = ceil(lo / step) * step; d <= hi + 1e-9; d += step) {
            int gx = x0 + (int)lround((d - lo) / (hi - lo) * (pw - 1));
            canvas_fill(cv, gx, pr.y, 1, pr.h, COL_GRID);
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
                double db = p->cols ? view_xform_strip_db(v, cur[c], y, pr.h) /* view_xform.c */
                                    : band_db(cur[c], p->bins, f_lo, f_hi, bin_hz);
                double t = (db - lo) / (hi - lo);
                int x = x0 + (int)lround(fmin(1.0, fmax(0.0, t)) * (pw - 1));
                int li = (int)lround(fmin(1.0, fmax(0.0, t)) * 255);
                rgb8 col = {lut[li][0], lut[li][1], lut[li][2]};
                int a = prev_x < 0 ? x : prev_x, lo_x = a < x ? a : x, hi_x = a < x ? x : a;
                canvas_blend(cv, x0, yy, x - x0, 1, col, 150);
                canvas_fill(cv, lo_x, yy, hi_x - lo_x + 1, 1, COL_CURVE);
                prev_x = x;
            }
            if (have_hold) {
                double db = p->cols ? view_xform_strip_db(v, hold16, y, pr.h)
                                    : band_db(hold16, p->bins, f_lo, f_hi, bin_hz);
                int x = x0 + (int)lround(fmin(1.0, fmax(0.0, (db - lo) / (hi - lo))) * (pw - 1));
                int a = prev_hx < 0 ? x : prev_hx, lo_x = a < x ? a : x, hi_x = a < x ? x : a;
                if (db > lo || prev_hx > x0) /* nothing to hold at the floor */
                    canvas_fill(cv, lo_x, yy, hi_x - lo_x + 1, 1, COL_HOLD);
                prev_hx = db > lo ? x : x0;
            }
        }
        canvas_outline(cv, x0 - 1, pr.y - 1, pw + 2, pr.h + 2, RENDER_COL_FRAME);
    }
    free(hold16);
    /* the dB axis under the last panel */
    {
        int ty = bottom.y + bottom.h + 1, tick = (int)lround(0.4 * fs), gap = (int)lround(0.3 * fs);
        char cap[32];
        snprintf(cap, sizeof cap, "Level (%s)", view_level_unit(v));
        for (double d = ceil(lo / step) * step; d <= hi + 1e-9; d += step) {
            int gx = x0 + (int)lround((d - lo) / (hi - lo) * (pw - 1)), w;
            double dv = fabs(d) < 1e-9 ? 0.0 : d;
            canvas_fill(cv, gx, ty, 1, tick, RENDER_COL_TICK);
            snprintf(buf, sizeof buf, "%s%.0f", dv < 0 ? "\xe2\x88\x92" : "", fabs(dv));
            w = canvas_text_width(v->font, buf);
            view_text(v, buf, gx - w / 2, ty + tick + gap, RENDER_COL_LABEL);
        }
        view_text(v, cap, x0 + (pw - canvas_text_width(v->font, cap)) / 2, ty + tick + gap + v->line_h + fs / 4,
                  RENDER_COL_LABEL);
    }
    /* the legend names the curves (view_strip.c) */
    v->sn.curve = cur != NULL;
    v->sn.hold = have_hold;
}

/* SPECTRO_VIEW_SHOT (view.h; a test hook): the finished file's picture, once; the loop
 * then quits. */
static void test_shot(view *v, int started)
{
#ifndef SPECTRO_TEST_HOOKS
    (void)v, (void)started;
#else
    sp_errinfo ei = {{0}};
    if (!v->vc.shot_path || !*v->vc.shot_path || v->shot_done || !started || v->live || !v->finished ||
        !v->pic.ok)
        return;
    png_write_rgba(v->vc.shot_path, v->cv.px, v->cv.w, v->cv.h, &ei); /* none written: the test says so */
    v->shot_done = 1;
#endif
}

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
    if (!view_grow((void **)&p->hold, &p->hold_cap, n, sizeof *p->hold) ||
        !view_grow((void **)&p->hold_t, &p->hold_t_cap, n, sizeof *p->hold_t))
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
            s = view_snap_entry(p, c, i);
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

/* The picture's part of the canvas: the live picture drawn in place (the panels from the
 * ring's texture, except for a screenshot: it wants the whole picture in the canvas), or
 * the whole file's picture drawn and copied in. Returns 1 when drawn. */
static int frame_picture(view *v, const layout *L, const view_stream *info, int started, uint64_t *newest)
{
    canvas *cv = &v->cv;
    int ok;
    if (started && info->live) {
        ok = view_draw_live(v, L, info, newest, !v->ui.shot_pending && info->channels <= DIRECT_MAX_CHANNELS);
        if (ok) {
            canvas_fill(cv, L->side_x, 0, cv->w - L->side_x, L->pic_h, RENDER_COL_BG);
            view_damage(v, L->side_x, 0, cv->w - L->side_x, L->pic_h);
        } else {
            canvas_fill(cv, 0, 0, cv->w, cv->h, RENDER_COL_BG);
            v->dmg_all = 1;
            v->ring_panels = v->ring_live = 0;
            v->ring_tex_stale = 1; /* slots it may have drawn did not go to the texture */
            v->scr.canvas_ok = 0;
        }
        return ok;
    }
    v->dmg_all = 1;
    v->scr.canvas_ok = 0;
    v->ncovered = 0;
    canvas_fill(cv, 0, 0, cv->w, cv->h, RENDER_COL_BG);
    ok = started && view_draw_spectrogram(v, L, info, newest);
    if (ok)
        for (int y = 0; y < L->pic_h && y < cv->h; y++)
            memcpy(cv->px + (size_t)y * (size_t)cv->w * 4, v->pic_px + (size_t)y * (size_t)L->pic_w * 4,
                   (size_t)(L->pic_w < cv->w ? L->pic_w : cv->w) * 4);
    return ok;
}

/* Live strip: the newest spectrum, and the peak hold; cur: the spectrum, for the bars. */
static void strip_live(view *v, const layout *L, uint64_t newest, const int16_t **cur)
{
    picture *p = &v->pic;
    int C = p->channels < RENDER_MAX_CHANNELS ? p->channels : RENDER_MAX_CHANNELS;
    if (!v->ui.paused)
        update_hold(v, newest, sp_now());
    /* the newest entry is the last one */
    for (int c = 0; c < C; c++)
        cur[c] = view_snap_entry(p, c, p->count - 1);
    draw_spectrum(v, L, cur, p->hold, p->hold != NULL, "Spectrum (newest)");
}

/* File strip: the spectrum under the cursor, and the maximum over the view; cur: the
 * spectrum under the cursor, for the bars (none: *fallback, the maximum). */
static void strip_file(view *v, const layout *L, const int16_t **cur, const float **fallback)
{
    picture *p = &v->pic;
    int C = p->channels < RENDER_MAX_CHANNELS ? p->channels : RENDER_MAX_CHANNELS, have_cur = 0;
    size_t n = (size_t)p->channels * p->bins;
    if (view_grow((void **)&p->hold, &p->hold_cap, n, sizeof *p->hold) &&
        view_grow((void **)&p->hold_t, &p->hold_t_cap, n, sizeof *p->hold_t)) {
        for (int c = 0; c < p->channels; c++) {
            float *h = p->hold + (size_t)c * p->bins;
            for (size_t k = 0; k < p->bins; k++)
                h[k] = -200.0f;
            for (size_t i = 0; i < p->count; i++) {
                const int16_t *s = view_snap_entry(p, c, i);
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
                cur[c] = view_snap_entry(p, c, i);
                have_cur = 1;
            }
        }
    draw_spectrum(v, L, have_cur ? cur : NULL, p->hold, p->hold != NULL, have_cur ? "Spectrum (cursor)" : "Spectrum");
    *fallback = p->hold;
    if (!have_cur)
        cur[0] = NULL;
}

/* Composes the frame in the canvas, noting what the textures must take (dmg_all, dmg,
 * ring_panels); returns the newest frame the picture shows. */
uint64_t view_draw_frame(view *v, const view_stream *info, int started)
{
    layout L = view_layout(v->dw, v->dh, view_sig_inst_em(v));
    picture *p = &v->pic;
    const int16_t *cur[RENDER_MAX_CHANNELS] = {0};
    const float *fallback = NULL;
    uint64_t newest = 0;

    v->dmg_all = v->ring_panels = v->ring_live = v->ndmg = v->ntrace = 0;
    view_note_reset(v);
    p->ok = v->sh.xf.on ? 0 : frame_picture(v, &L, info, started, &newest); /* --transfer: its own */
    v->sn.curve = v->sn.hold = v->sn.nbox = 0;
    if (p->ok && info->live) {
        strip_live(v, &L, newest, cur);
    } else if (p->ok && !v->cmp.diff) { /* --compare's difference: no levels to plot */
        strip_file(v, &L, cur, &fallback);
    }
    if (p->ok) {
        view_sig_draw_column(v, &L);
        view_wave_draw(v, &L);
        view_pitch_draw(v, &L);
        view_select_draw(v, &L);
        view_play_draw(v, &L); /* under the overlays: the file view's canvas is drawn whole */
        view_panel_strip(v, &L);
        /* the boxes' places first: the bars keep out of them; the boxes over everything */
        view_strip_layout(v, &L);
        view_bands_draw(v, &L, cur[0] ? cur : NULL, fallback);
        view_strip_draw(v, &L);
    } else if (v->sh.xf.on) {
        view_xfer_draw(v, &L, started); /* view_transfer.c: the three panels, the cursor */
    } else {
        const char *msg = !started ? "starting\xe2\x80\xa6" : p->render_err[0] ? p->render_err : "cannot draw";
        view_font(v, L.fs);
        view_text(v, msg, L.fs * 2, L.fs * 2, RENDER_COL_LABEL);
    }
    if (started) {
        view_draw_status(v, &L, info, v->last_latency);
        view_damage(v, 0, L.status_y, v->cv.w, L.status_h);
    }
    if (v->ui.shot_pending) {
        v->ui.shot_pending = 0;
        screenshot(v);
    }
    test_shot(v, started);
    v->ui.toast_up = v->ui.toast[0] && sp_now() < v->ui.toast_until;
    view_verify_overlays(v, &L, 0);
    for (int pass = 0; pass < 2; pass++) {
        view_draw_toast(v, &L, pass);
        view_draw_mark(v, &L, pass);
        view_draw_readout(v, &L, pass);
        if (v->ui.help)
            view_draw_help(v, &L, pass);
    }
    view_verify_overlays(v, &L, 1);
    return newest;
}
