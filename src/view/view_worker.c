/* view_worker: the analysis on a thread of its own, with the view as its sink (sink.h):
 * open makes the store, spectra copy into it. See view_internal.h.
 *
 * A file's store keeps maxima of fpc frames an entry (view_store.h); with fpc > 1 the sink
 * asks for column maxima of that span (sink.h maxima_span), which a GPU backend computes
 * where the spectra are: then only fpc-th of the rows cross the bus, and the running
 * averages, which need every spectrum, are not fed (sh->maxima; the panel starts the
 * analysis again, taking spectra, when it comes to need them: view_panel_frames). */
#include "view_internal.h"

#include <stdio.h>
#include <string.h>

#include "clock.h"
#include "fft.h" /* fft_colmax_rows */

static void wake(const shared *sh)
{
    SDL_Event ev;
    memset(&ev, 0, sizeof ev);
    ev.type = sh->wake_event;
    SDL_PushEvent(&ev); /* thread-safe: wakes the window's loop */
}

/* Open: what the window needs of the stream, and the store for its spectra. */
static int on_start(void *user, const sink_stream *ss, sink_wants *wants, sp_errinfo *ei)
{
    shared *sh = user;
    view_store *st = NULL;
    view_stream info;
    view_avg avg;
    view_sig sig;
    int err, need_frames, want_m, want_p;
    uint64_t fpc = 1;
    memset(&info, 0, sizeof info);
    snprintf(info.name, sizeof info.name, "%s", ss->source);
    snprintf(info.window, sizeof info.window, "%s", ss->window);
    snprintf(info.backend, sizeof info.backend, "%s", ss->backend);
    info.rate = ss->rate;
    info.channels = ss->channels;
    info.n = ss->n;
    info.hop = ss->hop;
    info.bins = ss->n / 2 + 1;
    info.source_frames = ss->source_frames;
    info.time_first_s = ss->time_first_s;
    info.live = ss->live;
    if ((err = view_xform_open(sh, ss, &info, ei)) != SP_OK) /* a transform's columns */
        return err;
    /* --transfer: the frames' transforms to its average instead (view_transfer.c) */
    if (sh->xf.on && (err = view_xfer_open(&sh->xf, ss, ei)) != SP_OK)
        return err;
    wants->spectra = !sh->xf.on;
    wants->complex = sh->xf.on;
    err = view_store_create(info.channels, info.bins, info.live, info.live ? STORE_BUDGET_LIVE : STORE_BUDGET_FILE,
                            &st, ei);
    if (err != SP_OK)
        return err;
    pthread_mutex_lock(&sh->mu);
    need_frames = sh->need_frames;
    pthread_mutex_unlock(&sh->mu);
    /* level 0's step from the frames to come, so that it holds from the first frame on */
    if (!info.live && ss->frames_expected > 0)
        fpc = view_store_expect(st, (uint64_t)ss->frames_expected);
    wants->maxima_span = fpc > 1 && !need_frames && !sh->xf.on ? fpc : 0;
    wants->samples = 1; /* the meters, pitch, waveform and scope (view_sig.h) */
    pthread_mutex_lock(&sh->sig_mu);
    want_m = sh->sig.want_meters;
    want_p = sh->sig.want_pitch;
    pthread_mutex_unlock(&sh->sig_mu);
    if ((err = view_sig_open(&sig, &sh->sig_mu, ss, want_m, want_p, ei)) != SP_OK) {
        view_store_destroy(st);
        return err;
    }
    if ((err = view_avg_open(&avg, ss, ei)) != SP_OK) {
        view_sig_clear(&sig);
        view_store_destroy(st);
        return err;
    }
    pthread_mutex_lock(&sh->sig_mu);
    view_sig_clear(&sh->sig);
    sig.want_meters = sh->sig.want_meters; /* a key pressed meanwhile */
    sig.want_pitch = sh->sig.want_pitch;
    sh->sig = sig;
    pthread_mutex_unlock(&sh->sig_mu);
    pthread_mutex_lock(&sh->mu);
    view_avg_close(&sh->avg);
    sh->avg = avg;
    view_store_destroy(sh->store);
    sh->store = st;
    sh->info = info;
    sh->started = 1;
    sh->maxima = 0;
    sh->have_anchor = 0;
    sh->version++;
    sh->gen++;
    pthread_mutex_unlock(&sh->mu);
    return SP_OK;
}

/* Frames first .. first+nframes-1 of `channel` are in the store: the counters, and the
 * window woken when it waits for them. Under mu; returns whether to wake it. */
static int frames_in(shared *sh, int channel, uint64_t first, size_t nframes)
{
    int woken = 0;
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
    if (channel == sh->info.channels - 1) { /* every channel is in */
        double now = sp_now();
        if (sh->last_in > 0)
            sh->in_gap += 0.125 * (now - sh->last_in - sh->in_gap);
        sh->last_in = now;
        woken = sh->want_wake;
        sh->want_wake = 0;
    }
    return woken;
}

/* Runs on the analysis thread: a copy into the store, nothing that waits long. */
static int store_rows(shared *sh, int channel, uint64_t first, size_t nframes, const float *db, sp_errinfo *ei)
{
    int err, woken;
    (void)ei;
    pthread_mutex_lock(&sh->mu);
    err = view_store_add(sh->store, channel, first, nframes, db);
    view_avg_add(&sh->avg, channel, nframes, db);
    woken = frames_in(sh, channel, first, nframes);
    pthread_mutex_unlock(&sh->mu);
    if (woken)
        wake(sh);
    return err;
}

/* Instead of on_frames when the backend reduced the spectra (sink.h maxima): a row per
 * group of span frames, each one level-0 entry of the store (or part of one). */
static int on_maxima(void *user, int channel, uint64_t first, size_t nframes, uint64_t span, const float *rows,
                     sp_errinfo *ei)
{
    shared *sh = user;
    size_t nrows = fft_colmax_rows(span, first, nframes);
    uint64_t g0 = first / span, end = first + nframes;
    int err = SP_OK, woken;
    pthread_mutex_lock(&sh->mu);
    for (size_t i = 0; i < nrows && err == SP_OK; i++) {
        uint64_t f0 = (g0 + i) * span, f1 = f0 + span;
        err = view_store_add_max(sh->store, channel, f0 > first ? f0 : first, f1 < end ? f1 : end,
                                 rows + i * sh->info.bins);
    }
    sh->maxima = span;
    woken = frames_in(sh, channel, first, nframes);
    pthread_mutex_unlock(&sh->mu);
    if (woken)
        wake(sh);
    return err == SP_OK ? SP_OK : sp_fail(ei, err, "the window's store took no column maxima of %llu frames",
                                          (unsigned long long)span);
}

static int on_frames(void *user, int channel, uint64_t first, size_t nframes, const float *db, sp_errinfo *ei)
{
    shared *sh = user;
    return sh->xr.kind ? view_xform_rows(sh, channel, first, nframes, db, store_rows, ei) /* view_xform.c */
                       : store_rows(sh, channel, first, nframes, db, ei);
}

/* The run ended: a transform's last rows (the reassigned points' last frames). */
static int on_finish(void *user, const sink_end *end, sp_errinfo *ei)
{
    (void)end;
    return view_xform_flush(user, store_rows, ei);
}

/* The samples themselves (view_sig.h): under the views' own lock, not mu. */
static int on_samples(void *user, uint64_t first, size_t nframes, const float *x, sp_errinfo *ei)
{
    shared *sh = user;
    return view_sig_samples(&sh->sig, first, nframes, x, ei);
}

/* --transfer: the frames' transforms, to the transfer view's average (view_transfer.c). */
static int on_complex(void *user, int channel, uint64_t first, size_t nframes, const cpx *z, sp_errinfo *ei)
{
    shared *sh = user;
    int err = view_xfer_add(&sh->xf, channel, first, nframes, z, ei), woken;
    pthread_mutex_lock(&sh->mu);
    woken = frames_in(sh, channel, first, nframes);
    pthread_mutex_unlock(&sh->mu);
    if (woken)
        wake(sh);
    return err;
}

static const sink_ops VIEW_SINK = {
    .name = "window", .open = on_start, .spectra = on_frames, .maxima = on_maxima, .finish = on_finish,
    .samples = on_samples,
    .complex = on_complex,
};

static void *worker_main(void *arg)
{
    worker *w = arg;
    analyze_result res;
    sp_errinfo ei = {{0}};
    int err = analyze_run(&w->cfg, &w->ctx, &res, &ei);
    pthread_mutex_lock(&w->sh->mu);
    w->sh->finished = 1;
    w->sh->err = err;
    w->sh->ei = ei;
    w->sh->res = res;
    pthread_mutex_unlock(&w->sh->mu);
    wake(w->sh);
    return NULL;
}

int view_worker_start(worker *w, sp_errinfo *ei)
{
    shared *sh = w->sh;
    pthread_mutex_lock(&sh->mu);
    sh->started = sh->finished = 0;
    sh->err = SP_OK;
    sh->next0 = sh->skipped = 0;
    sh->maxima = 0;
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
    w->ctx.extra_sinks = &w->as_sink;
    w->ctx.n_extra_sinks = 1;
    w->ctx.capture_anchor = &sh->anchor_src;
    w->ctx.stop = &w->stop;
    if (pthread_create(&w->thread, NULL, worker_main, w) != 0)
        return sp_fail(ei, SP_ENOMEM, "cannot start the analysis thread");
    w->running = 1;
    return SP_OK;
}

void view_worker_stop(worker *w)
{
    if (!w->running)
        return;
    atomic_store(&w->stop, 1);
    pthread_join(w->thread, NULL);
    w->running = 0;
}
