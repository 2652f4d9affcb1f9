/* view_input: what the keys, the wheel and the mouse do (see view_draw_help for the list).
 * See view_internal.h. */
#include "view_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "colormap.h"
#include "scale.h"

/* Frequency zoom by `k` (> 1 in) around unit position u of the current map. */
static void zoom_freq(view *v, double u, double k)
{
    picture *p = &v->pic;
    const scale_map *m;
    double u0, u1, lo, hi, f0, f1, min_span;
    scale_map base;
    if (!p->r || !(m = render_scale(p->r)))
        return;
    view_base_range(v, p->rate, p->n, &lo, &hi);
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

int view_restart(view *v, int same_frames, sp_errinfo *ei)
{
    view_worker_stop(&v->w);
    v->pic.hold_frames = 0;
    /* the new run counts its frames from 0 again */
    v->st.newest_shown = 0;
    v->last_latency = 0;
    v->ui.paused_frames = 0;
    if (!same_frames)
        view_select_restarted(v);
    return view_worker_start(&v->w, ei);
}

static void mouse_to_drawable(view *v, int x, int y)
{
    int ww = 1, wh = 1;
    SDL_GetWindowSize(v->win, &ww, &wh);
    v->ui.mx = (int)((double)x * v->dw / (ww > 0 ? ww : 1));
    v->ui.my = (int)((double)y * v->dh / (wh > 0 ? wh : 1));
}

void view_wheel(view *v, const SDL_MouseWheelEvent *e, int live)
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
        view_scroll_time(v, dx * 0.1 * (v->ui.v1 - v->ui.v0));
    if (dy)
        view_zoom_time(v, view_frame_at_x(v, v->ui.mx), dy > 0 ? 1.25 : 1 / 1.25);
}

/* The window function after the one in use (spectro_window_name's table), analysed from
 * the start. */
static int next_window(view *v, int *err, sp_errinfo *ei)
{
    char msg[128], now[64];
    int i = 0, n = spectro_window_count();
    size_t len;
    pthread_mutex_lock(&v->sh.mu);
    snprintf(now, sizeof now, "%s", v->sh.info.window); /* "kaiser:8.6": its name's place */
    pthread_mutex_unlock(&v->sh.mu);
    len = strcspn(now, ":");
    while (i < n && !(strlen(spectro_window_name(i)) == len && strncmp(spectro_window_name(i), now, len) == 0))
        i++;
    i = i < n ? (i + 1) % n : 0;
    view_worker_stop(&v->w); /* the run of the settings before; the next is derived anew */
    snprintf(v->w.window, sizeof v->w.window, "%s", spectro_window_name(i));
    snprintf(msg, sizeof msg, "window: %s", v->w.window);
    view_toast(v, msg);
    return (*err = view_restart(v, 0, ei)) != SP_OK;
}

/* The next FFT size (256 .. 32768), its hop in the proportion asked for, from the start. */
static int next_size(view *v, int *err, sp_errinfo *ei)
{
    char msg[128];
    size_t n = v->w.cfg.n * 2;
    if (n > 32768)
        n = 256;
    view_worker_stop(&v->w); /* the run of the settings before; the next is derived anew */
    v->w.cfg.n = n;
    view_xform_spec(v); /* the CQT's lowest bin at this N */
    v->w.cfg.hop = (size_t)((double)v->hop0 * (double)n / (double)v->n0 + 0.5);
    if (v->w.cfg.hop < 1)
        v->w.cfg.hop = 1;
    snprintf(msg, sizeof msg, "FFT size %zu, hop %zu", n, v->w.cfg.hop);
    view_toast(v, msg);
    v->ui.zf_lo = v->ui.zf_hi = 0;
    v->ui.file_view_set = 0;
    return (*err = view_restart(v, 0, ei)) != SP_OK;
}

/* The display's settings: pause, colour map, scale, level range, gain, help. Returns 0
 * when the key is none of them. */
static int settings_key(view *v, SDL_Keycode sym, int shift)
{
    char msg[128];
    switch (sym) {
    case SDLK_p:
        if (!v->live)
            view_play_toggle(v);
        return 1;
    case SDLK_SPACE:
        if (!v->live && v->finished) { /* a complete file: space plays, as p */
            view_play_toggle(v);
            return 1;
        }
        v->ui.paused = !v->ui.paused;
        if (v->ui.paused) {
            pthread_mutex_lock(&v->sh.mu);
            v->ui.paused_frames = view_store_frames(v->sh.store);
            pthread_mutex_unlock(&v->sh.mu);
        }
        return 1;
    case SDLK_s:
        v->ui.shot_pending = 1;
        return 1;
    case SDLK_c:
        v->ui.cmap = (v->ui.cmap + 1) % colormap_count();
        snprintf(msg, sizeof msg, "colour map: %s", colormap_name(v->ui.cmap));
        view_toast(v, msg);
        return 1;
    case SDLK_l:
        v->ui.scale = (freq_scale)((v->ui.scale + 1) % scale_count());
        v->ui.zf_lo = v->ui.zf_hi = 0;
        snprintf(msg, sizeof msg, "frequency scale: %s", scale_name(v->ui.scale));
        view_toast(v, msg);
        return 1;
    case SDLK_UP:
    case SDLK_DOWN: {
        float d = sym == SDLK_UP ? 5.0f : -5.0f;
        if (v->ui.db_hi + d <= 60.0f && v->ui.db_lo + d >= -300.0f) {
            v->ui.db_lo += d;
            v->ui.db_hi += d;
        }
        return 1;
    }
    case SDLK_RIGHTBRACKET:
    case SDLK_LEFTBRACKET: {
        /* the range's width: its low end moves, the top stays (10 .. 300 dB wide) */
        float lo = v->ui.db_lo + (sym == SDLK_RIGHTBRACKET ? -10.0f : 10.0f);
        if (lo >= -300.0f && v->ui.db_hi - lo >= 10.0f)
            v->ui.db_lo = lo;
        snprintf(msg, sizeof msg, "dB range %s%g \xe2\x80\xa6 %s%g", v->ui.db_lo < 0 ? "\xe2\x88\x92" : "",
                 fabs((double)v->ui.db_lo), v->ui.db_hi < 0 ? "\xe2\x88\x92" : "", fabs((double)v->ui.db_hi));
        view_toast(v, msg);
        return 1;
    }
    case SDLK_PLUS:
    case SDLK_EQUALS:
    case SDLK_KP_PLUS:
        v->ui.gain = fminf(v->ui.gain + 3.0f, 60.0f);
        return 1;
    case SDLK_MINUS:
    case SDLK_KP_MINUS:
        v->ui.gain = fmaxf(v->ui.gain - 3.0f, -60.0f);
        return 1;
    case SDLK_h:
    case SDLK_QUESTION:
    case SDLK_F1:
        v->ui.help = !v->ui.help;
        return 1;
    case SDLK_SLASH:
        if (shift)
            v->ui.help = !v->ui.help;
        return 1;
    default:
        return 0;
    }
}

/* Where the view looks: time (the file view), frequency zoom, and back to it all. */
static void move_key(view *v, SDL_Keycode sym, int shift, int live)
{
    switch (sym) {
    case SDLK_LEFT:
    case SDLK_RIGHT:
        if (!live)
            view_scroll_time(v, (sym == SDLK_LEFT ? -1 : 1) * (shift ? 0.5 : 0.1) * (v->ui.v1 - v->ui.v0));
        break;
    case SDLK_HOME:
        if (!live)
            view_scroll_time(v, -2.0 * view_total_frames(v));
        break;
    case SDLK_END:
        if (!live)
            view_scroll_time(v, view_total_frames(v));
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
        break;
    }
}

int view_on_key(view *v, const SDL_Keysym *ks, int live, int *err, sp_errinfo *ei)
{
    int shift = (ks->mod & KMOD_SHIFT) != 0;
    if (view_xform_refuses(v, ks->sym) || view_panel_key(v, ks->sym, live) || view_bands_key(v, ks->sym) ||
        view_compare_key(v, ks->sym) || view_xfer_key(v, ks->sym))
        return 0;
    if (view_sig_key(v, ks->sym, live, err, ei))
        return *err != SP_OK;
    switch (ks->sym) {
    case SDLK_q:
    case SDLK_ESCAPE:
        return 1;
    case SDLK_w:
        return next_window(v, err, ei);
    case SDLK_n:
        return next_size(v, err, ei);
    case SDLK_x:
        return view_xform_key(v, err, ei);
    default:
        if (!settings_key(v, ks->sym, shift))
            move_key(v, ks->sym, shift, live);
        return 0;
    }
}

void view_mouse_motion(view *v, int x, int y, int live)
{
    mouse_to_drawable(v, x, y);
    v->ui.mouse_in = 1;
    if (view_select_motion(v))
        return;
    if (v->ui.dragging && !live && v->pic.r) {
        render_rect pr = render_plot_rect(v->pic.r, 0);
        double fpp = (v->ui.v1 - v->ui.v0) / pr.w;
        double target = v->ui.drag_v0 - ((double)v->ui.mx - v->ui.drag_x) * fpp;
        view_scroll_time(v, target - v->ui.v0);
    }
}

/* The left button: down starts a drag (the file view scrolls with it), up ends it. */
void view_mouse_button(view *v, int x, int y, int down)
{
    if (!down) {
        v->ui.dragging = 0;
        return;
    }
    mouse_to_drawable(v, x, y);
    v->ui.dragging = 1;
    v->ui.drag_x = v->ui.mx;
    v->ui.drag_v0 = v->ui.v0;
}
