/* view: the window's set-up, its event loop and its clean-up (see view.h; the parts are
 * listed in view_internal.h). The loop only waits, dispatches events to short handlers,
 * takes the analysis' state, and draws a frame when one is due. */
#include "view.h"

#include <stdio.h>
#include <string.h>

int view_window(void *user, spectro_job *job, spectro_error *err)
{
    view_config vc = view_config_default();
    view_outcome *out = user;
    spectro_stream_end last = {0, 0, 0, 0};
    sp_errinfo ei = {{0}};
    char device[1024];
    int code;
    view_config_from_env(&vc);
    if ((code = spectro_job_get(job, "output_device", device, sizeof device, err)) != SPECTRO_OK)
        return code;
    vc.output_device = device[0] ? device : NULL;
    code = view_run(job, &vc, &last, &ei);
    if (out) {
        out->ran = 1;
        out->last = last;
    }
    if (code != SP_OK) { /* the codes are the library's */
        err->code = code;
        snprintf(err->message, sizeof err->message, "%s", ei.msg);
    }
    return code;
}

void view_set_field_namer(const char *(*namer)(const char *field))
{
    sp_set_field_namer(namer);
}

#ifndef SPECTRO_HAVE_RENDER

int view_run(spectro_job *pub, const view_config *vcfg, spectro_stream_end *last, sp_errinfo *ei)
{
    (void)pub, (void)vcfg, (void)last;
    return sp_fail(ei, SP_EUNSUPPORTED,
                   "the window is not built in (SDL2, SDL2_ttf or libpng was not found at configure time: "
                   "apt-get install libsdl2-dev libsdl2-ttf-dev libpng-dev and rebuild); use " SP_FIELD("dump") " or "
                   SP_FIELD("peaks"));
}

#else /* SPECTRO_HAVE_RENDER */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "clock.h"
#include "view_internal.h"

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
    const view_settings *cfg = &v->user;
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
    /* hidden until the renderer exists: an OpenGL renderer makes SDL destroy the X window
       and create another, and a window shown twice is two windows to whoever looks for it */
    v->win = SDL_CreateWindow(title, SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED, w, h,
                              SDL_WINDOW_RESIZABLE | SDL_WINDOW_ALLOW_HIGHDPI | SDL_WINDOW_HIDDEN);
    if (!v->win)
        return sp_fail(ei, SP_ENODEV, "cannot open a window: %s: use " SP_FIELD("png") " OUT, " SP_FIELD("dump") " "
                                      "OUT or " SP_FIELD("peaks") " for headless output",
                       SDL_GetError());
    SDL_SetWindowMinimumSize(v->win, MIN_WIN_W, MIN_WIN_H);
    v->ren = SDL_CreateRenderer(v->win, -1, SDL_RENDERER_ACCELERATED | SDL_RENDERER_PRESENTVSYNC);
    if (!v->ren)
        v->ren = SDL_CreateRenderer(v->win, -1, SDL_RENDERER_SOFTWARE);
    if (!v->ren)
        return sp_fail(ei, SP_ENODEV, "cannot make a renderer for the window: %s", SDL_GetError());
    SDL_ShowWindow(v->win);
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
    v->cv = canvas_make(malloc((size_t)w * (size_t)h * 4), w, h, (size_t)w * 4);
    if (!v->cv.px)
        return sp_fail(ei, SP_ENOMEM, "out of memory for a %dx%d window", w, h);
    v->dw = w;
    v->dh = h;
    return SP_OK;
}

static void destroy_view(view *v)
{
    view_worker_stop(&v->w);
    view_play_free(v);
    view_panel_free(v);
    view_bands_free(v);
    view_sig_free(v);
    view_compare_free(v);
    view_xfer_free(v);
    view_avg_close(&v->sh.avg);
    view_xform_free(&v->sh);
    render_destroy(v->pic.r);
    free(v->pic.snap);
    free(v->pic.drawn_snap);
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
    canvas_ttf_lock();
    for (int i = 0; i < TEXT_CACHE; i++)
        SDL_FreeSurface(v->texts[i].sf);
    if (v->font)
        TTF_CloseFont(v->font);
    if (v->ttf)
        TTF_Quit();
    canvas_ttf_unlock();
    if (v->tex)
        SDL_DestroyTexture(v->tex);
    if (v->ring_tex)
        SDL_DestroyTexture(v->ring_tex);
    if (v->ren)
        SDL_DestroyRenderer(v->ren);
    if (v->win)
        SDL_DestroyWindow(v->win);
    pthread_mutex_destroy(&v->sh.mu);
    pthread_mutex_destroy(&v->sh.sig_mu);
}

static int no_display(const view *v, sp_errinfo *ei)
{
    const char *d = v->vc.display, *wl = v->vc.wayland_display;
    if ((!d || !*d) && (!wl || !*wl))
        return sp_fail(ei, SP_ENODEV, "no display to open a window on (DISPLAY is not set): use " SP_FIELD("png") " "
                                      "OUT, "
                                      SP_FIELD("dump") " OUT or " SP_FIELD("peaks") " for headless output");
    return sp_fail(ei, SP_ENODEV, "no display to open a window on (%s: %s): use " SP_FIELD("png") " OUT, "
                                  SP_FIELD("dump") " OUT or " SP_FIELD("peaks") " "
                                  "for headless output", d && *d ? d : wl, SDL_GetError());
}

/* SDL's video and SDL2_ttf. *refused: there is no display to open a window on. */
static int start_video(view *v, int *refused, sp_errinfo *ei)
{
    const char *d = v->vc.display, *wl = v->vc.wayland_display, *drv;
    /* SIGINT stays with main (spectro_job_stop); SDL would otherwise turn it into SDL_QUIT */
    SDL_SetHint(SDL_HINT_NO_SIGNAL_HANDLERS, "1");
    if ((!d || !*d) && (!wl || !*wl) && !v->vc.video_driver_set) {
        *refused = 1;
        return no_display(v, ei);
    }
    /* Only drivers that show a window, and only the one the environment names: left to
     * itself SDL tries Wayland after a failed X connection (its library prints to stderr)
     * and then falls back to an offscreen driver, a window nobody can see. */
    if (!v->vc.video_driver_set)
        SDL_SetHint(SDL_HINT_VIDEODRIVER, wl && *wl ? "wayland,x11" : "x11");
    if (SDL_Init(SDL_INIT_VIDEO) != 0 ||
        (!v->vc.video_driver_set && (!(drv = SDL_GetCurrentVideoDriver()) || strcmp(drv, "offscreen") == 0 ||
                                     strcmp(drv, "dummy") == 0))) {
        *refused = 1;
        return no_display(v, ei);
    }
    v->sh.wake_event = SDL_RegisterEvents(1);
    canvas_ttf_lock();
    v->ttf = TTF_Init() == 0;
    canvas_ttf_unlock();
    if (!v->ttf)
        return sp_fail(ei, SP_EIO, "cannot start SDL2_ttf: %s", TTF_GetError());
    v->ttf = 1; /* held for the window's life: the renders made per picture reuse it */
    return SP_OK;
}

static int view_init(view *v, spectro_job *pub, const view_config *vcfg, sp_errinfo *ei)
{
    const view_settings *cfg = &v->user;
    int err;
    v->vs_late = VSYNC_LATE_S;
    if ((err = view_settings_read(pub, &v->user, ei)) != SP_OK)
        return err;
    v->pub = pub;
    v->vc = vcfg ? *vcfg : view_config_default();
    v->w.cfg = *cfg;
    v->w.pub = pub;
    v->w.sh = &v->sh;
    v->n0 = cfg->n;
    v->hop0 = cfg->hop;
    v->ui.scale = cfg->render.scale;
    v->ui.cmap = cfg->render.colormap;
    v->ui.db_lo = cfg->render.db_lo;
    v->ui.db_hi = cfg->render.db_hi;
    v->ui.live_zoom = 1;
    v->ver.on = v->vc.verify;
    view_panel_init(v);
    view_bands_init(v);
    view_xform_init(v);
    view_compare_init(v);
    view_xfer_init(v);
    if (!(v->st.lat = malloc(MAX_LAT_SAMPLES * sizeof *v->st.lat)))
        return sp_fail(ei, SP_ENOMEM, "out of memory");
    return render_find_font(&cfg->render, v->font_path, sizeof v->font_path, ei);
}

/* Until the analysis has opened its source (or failed, or Ctrl-C): its error, if any. */
static int wait_started(view *v, sp_errinfo *ei)
{
    int err = SP_OK;
    for (;;) {
        int st, fin;
        pthread_mutex_lock(&v->sh.mu);
        st = v->sh.started;
        fin = v->sh.finished;
        pthread_mutex_unlock(&v->sh.mu);
        if (st || fin || spectro_job_stop_asked(v->pub))
            break;
        SDL_Delay(2);
    }
    pthread_mutex_lock(&v->sh.mu);
    if (v->sh.finished && v->sh.err != SP_OK && !v->sh.started) {
        err = v->sh.err;
        *ei = v->sh.ei;
    }
    pthread_mutex_unlock(&v->sh.mu);
    return err;
}

/* Options the picture cannot honour (--fmin above Nyquist ...) fail here, as --png
 * would, rather than inside the window. */
static int check_picture(view *v, sp_errinfo *ei)
{
    render *probe = NULL;
    render_config rc = v->user.render;
    view_stream info;
    int err;
    pthread_mutex_lock(&v->sh.mu);
    info = v->sh.info;
    pthread_mutex_unlock(&v->sh.mu);
    if (info.rate <= 0)
        return SP_OK;
    err = render_create(&rc, info.rate, info.n, 0.0, 1.0, info.channels > 0 ? info.channels : 1, 1, &probe, ei);
    render_destroy(probe);
    return err;
}

/* ---- the event loop: wait, dispatch, take the analysis' state, draw when due ---- */

typedef struct {
    int quit, started, live, dirty;
    uint64_t seen_version;
    double next_frame, t_last; /* t_last: when the last present returned */
    view_stream info;          /* the analysis' stream, copied under mu */
} loop_state;

static int scrolling(const view *v, const loop_state *ls)
{
    return ls->live && ls->started && !v->ui.paused && !v->finished;
}

/* Seconds until a scrolling frame is due (0: now). */
static double pace_wait(view *v, const loop_state *ls, double now)
{
    return v->vsync ? vsync_wait(v, ls->t_last, now) : live_wait(v, ls->next_frame, now);
}

/* When a file's moving playhead wants its next frame: PLAY_FRAME_S after the last. */
static double play_due(const loop_state *ls)
{
    return ls->t_last + PLAY_FRAME_S;
}

/* How long to wait for events (ms). A file playing wakes for its playhead's next frame
 * (play_due; view_play_tick asks for it only after this wait), not after the idle 0.1 s. */
static int loop_timeout(view *v, loop_state *ls)
{
    double now = sp_now(), wait_s;
    if (!scrolling(v, ls)) {
        double due = ls->dirty ? ls->next_frame : v->play.pl ? fmax(ls->next_frame, play_due(ls)) : -1.0;
        return due < 0 ? 100 : (int)ceil(fmax(0.0, (due - now) * 1000.0));
    }
    wait_s = pace_wait(v, ls, now);
    if (!ls->dirty) {
        /* nothing new to draw: sleep until on_frames wakes the loop (checked under the
         * lock that on_frames takes, so no wake-up is missed), not spin */
        pthread_mutex_lock(&v->sh.mu);
        if (v->sh.version == ls->seen_version) {
            v->sh.want_wake = 1;
            wait_s = fmax(wait_s, 0.1);
        }
        pthread_mutex_unlock(&v->sh.mu);
    }
    return (int)ceil(1000.0 * wait_s);
}

static void dispatch(view *v, loop_state *ls, const SDL_Event *e, int *err, sp_errinfo *ei)
{
    switch (e->type) {
    case SDL_QUIT:
        ls->quit = 1;
        break;
    case SDL_KEYDOWN:
        if (view_on_key(v, &e->key.keysym, ls->live, err, ei))
            ls->quit = 1;
        ls->dirty = 1;
        break;
    case SDL_WINDOWEVENT:
        if (e->window.event == SDL_WINDOWEVENT_LEAVE)
            v->ui.mouse_in = 0;
        if (e->window.event == SDL_WINDOWEVENT_CLOSE)
            ls->quit = 1;
        ls->dirty = 1;
        break;
    case SDL_MOUSEMOTION:
        view_mouse_motion(v, e->motion.x, e->motion.y, ls->live);
        ls->dirty = 1;
        break;
    case SDL_MOUSEBUTTONDOWN:
        if (view_select_button(v, &e->button, ls->live))
            ls->dirty = 1;
        else if (e->button.button == SDL_BUTTON_LEFT)
            view_mouse_button(v, e->button.x, e->button.y, 1);
        break;
    case SDL_MOUSEBUTTONUP:
        if (view_select_button(v, &e->button, ls->live))
            ls->dirty = 1;
        view_mouse_button(v, e->button.x, e->button.y, 0);
        break;
    case SDL_MOUSEWHEEL:
        view_wheel(v, &e->wheel, ls->live);
        ls->dirty = 1;
        break;
    default:
        break;
    }
}

/* The analysis' state, once per loop: a failure ends the window with its error. */
static void sync_shared(view *v, loop_state *ls, int *err, sp_errinfo *ei)
{
    if (spectro_job_stop_asked(v->pub))
        ls->quit = 1; /* Ctrl-C */
    pthread_mutex_lock(&v->sh.mu);
    if (v->sh.finished && v->sh.err != SP_OK && !atomic_load(&v->w.stop)) {
        *err = v->sh.err;
        *ei = v->sh.ei;
        ls->quit = 1;
    }
    if (v->sh.finished && !v->finished)
        ls->dirty = 1; /* the status line drops its progress */
    v->finished = v->sh.finished;
    ls->started = v->sh.started;
    if (ls->started) {
        ls->info = v->sh.info;
        ls->live = ls->info.live;
        v->live = ls->live;
    }
    if (v->sh.version != ls->seen_version) {
        ls->seen_version = v->sh.version;
        if (!v->ui.paused)
            ls->dirty = 1;
    }
    pthread_mutex_unlock(&v->sh.mu);
    if (v->ui.toast[0] && sp_now() > v->ui.toast_until) {
        v->ui.toast[0] = 0;
        ls->dirty = 1;
    }
    if (v->ui.toast[0])
        ls->dirty = 1; /* keep it up to date; it expires by itself */
}

/* Capture-to-pixel: the newest frame's last sample, captured at anchor + (f*hop + n)/rate,
 * is on the screen now. */
static void note_latency(view *v, const loop_state *ls, uint64_t newest, double t_present)
{
    if (!ls->started || !ls->live || v->ui.paused || newest <= v->st.newest_shown)
        return;
    pthread_mutex_lock(&v->sh.mu);
    if (v->sh.have_anchor) {
        double cap = v->sh.anchor + (double)((newest - 1) * ls->info.hop + ls->info.n) / ls->info.rate;
        double lat = t_present - cap;
        v->last_latency = lat;
        v->st.lat[v->st.nlat++ % MAX_LAT_SAMPLES] = lat;
    }
    pthread_mutex_unlock(&v->sh.mu);
    v->st.newest_shown = newest;
}

/* Composes a frame, shows it, and paces the next. */
static int present_frame(view *v, loop_state *ls, sp_errinfo *ei)
{
    int scroll_now = scrolling(v, ls), err;
    uint64_t newest;
    double t_present, t_draw;
    if ((err = fit_drawable(v, ei)) != SP_OK)
        return err;
    t_draw = sp_now();
    newest = view_draw_frame(v, &ls->info, ls->started);
    v->st.draw_s += sp_now() - t_draw;
    view_present(v);
    if (v->ver.on && ls->started && ls->live)
        view_verify_shown(v);
    SDL_RenderPresent(v->ren);
    t_present = sp_now();
    ls->dirty = 0;
    /* vsync: the present waited for the refresh; else pace to 60 Hz ourselves */
    if (scroll_now && v->vsync)
        vsync_adapt(v, ls->t_last, t_draw, t_present);
    ls->t_last = t_present;
    ls->next_frame = v->vsync ? t_present + 0.25 * FRAME_PERIOD
                              : fmax(ls->next_frame + FRAME_PERIOD, t_present - 0.5 * FRAME_PERIOD);
    view_stats_frame(v, t_present);
    v->fps_n++;
    if (t_present - v->fps_t0 >= 1.0) {
        v->fps = (double)v->fps_n / (t_present - v->fps_t0);
        v->fps_n = 0;
        v->fps_t0 = t_present;
    }
    note_latency(v, ls, newest, t_present);
    return SP_OK;
}

#ifdef SPECTRO_TEST_HOOKS
/* SPECTRO_VIEW_KEYS (view.h; a test hook): the keys queued as if pressed, by their SDL names. */
static void press_keys(const char *keys)
{
    char name[32];
    for (const char *p = keys; p && *p;) {
        size_t len = strcspn(p, " ");
        SDL_Event e;
        memset(&e, 0, sizeof e);
        snprintf(name, sizeof name, "%.*s", (int)(len < sizeof name ? len : sizeof name - 1), p);
        e.type = SDL_KEYDOWN;
        e.key.keysym.sym = SDL_GetKeyFromName(name);
        if (e.key.keysym.sym != SDLK_UNKNOWN)
            SDL_PushEvent(&e);
        p += len;
        p += strspn(p, " ");
    }
}
#else
#define press_keys(keys) ((void)(keys))
#endif

static int run_loop(view *v, sp_errinfo *ei)
{
    loop_state ls;
    int err = SP_OK;
    press_keys(v->vc.keys);
    memset(&ls, 0, sizeof ls);
    ls.dirty = 1;
    pthread_mutex_lock(&v->sh.mu);
    ls.info = v->sh.info;
    pthread_mutex_unlock(&v->sh.mu);
    v->fps_t0 = sp_now();
    while (!ls.quit) {
        SDL_Event e;
        double now;
        int got = SDL_WaitEventTimeout(&e, loop_timeout(v, &ls));
        for (; got; got = SDL_PollEvent(&e))
            dispatch(v, &ls, &e, &err, ei);
        sync_shared(v, &ls, &err, ei);
        if (!ls.quit && ls.started && (err = view_panel_frames(v, ei)) != SP_OK)
            break;
        /* the playhead moves (a frame when due), or it stopped (a frame now) */
        if (view_play_tick(v) && (!v->play.pl || sp_now() >= play_due(&ls)))
            ls.dirty = 1;
        if (ls.quit || !ls.dirty)
            continue;
        now = sp_now();
        if (scrolling(v, &ls) ? pace_wait(v, &ls, now) > 0 : now < ls.next_frame)
            continue;
        if ((err = present_frame(v, &ls, ei)) != SP_OK)
            break;
        if (v->shot_done)
            ls.quit = 1; /* SPECTRO_VIEW_SHOT written: the test has its picture */
    }
    return err;
}

int view_run(spectro_job *pub, const view_config *vcfg, spectro_stream_end *last, sp_errinfo *ei)
{
    view *v;
    int err, refused = 0;

    if (!pub)
        return sp_fail(ei, SP_EINVAL, "view_run: no job");
    if (!(v = calloc(1, sizeof *v)))
        return sp_fail(ei, SP_ENOMEM, "out of memory");
    pthread_mutex_init(&v->sh.mu, NULL);
    pthread_mutex_init(&v->sh.sig_mu, NULL);
    v->sh.sig.mu = &v->sh.sig_mu;
    if ((err = view_init(v, pub, vcfg, ei)) != SP_OK || (err = start_video(v, &refused, ei)) != SP_OK)
        goto done;
    /* the source opens first: a bad file or a missing microphone fails without a window */
    if ((err = view_worker_start(&v->w, ei)) != SP_OK || (err = wait_started(v, ei)) != SP_OK ||
        (err = check_picture(v, ei)) != SP_OK)
        goto done;
    if ((err = open_window(v, ei)) != SP_OK || (err = fit_drawable(v, ei)) != SP_OK)
        goto done;
    err = run_loop(v, ei);

done:
    view_worker_stop(&v->w);
    pthread_mutex_lock(&v->sh.mu);
    if (last && v->sh.finished) /* the worker is stopped: it finished, or never ran */
        *last = v->sh.end;
    pthread_mutex_unlock(&v->sh.mu);
    /* a window refused for want of a display leaves no statistics */
    if (!refused && v->vc.stats_path && *v->vc.stats_path)
        view_write_stats(v, v->vc.stats_path);
    destroy_view(v);
    free(v);
    SDL_Quit();
    return err;
}

#endif /* SPECTRO_HAVE_RENDER */
