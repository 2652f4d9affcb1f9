/* view_worker: the analysis on a thread of its own, a job derived from the caller's
 * (spectro_job_derive) whose stream is the window's (spectro_job_set_stream): open makes
 * the store, spectra copy into it. See view_internal.h.
 *
 * A file's store keeps maxima of fpc frames an entry (view_store.h); with fpc > 1 the sink
 * asks for column maxima of that span (spectro_stream_wants.maxima_span), which a GPU computes
 * where the spectra are: then only fpc-th of the rows cross the bus, and the running
 * averages, which need every spectrum, are not fed (sh->maxima; the panel starts the
 * analysis again, taking spectra, when it comes to need them: view_panel_frames). */
#include "view_internal.h"

#include <stdio.h>
#include <string.h>

#include "clock.h"

static void wake(const shared *sh)
{
    SDL_Event ev;
    memset(&ev, 0, sizeof ev);
    ev.type = sh->wake_event;
    SDL_PushEvent(&ev); /* thread-safe: wakes the window's loop */
}

/* The engine's failure as the API's, for the run. */
static int failed(int err, const sp_errinfo *ei, spectro_error *e)
{
    if (err != SP_OK) {
        e->code = err;
        snprintf(e->message, sizeof e->message, "%s", ei->msg);
    }
    return err;
}

/* Open: what the window needs of the stream, and the store for its spectra. */
static int open_store(shared *sh, const spectro_stream_info *in, spectro_stream_wants *wants, sp_errinfo *ei)
{
    view_store *st = NULL;
    view_stream info;
    view_avg avg;
    view_sig sig;
    int err, need_frames, want_m, want_p;
    uint64_t fpc = 1;
    memset(&info, 0, sizeof info);
    snprintf(info.name, sizeof info.name, "%s", in->frames->source);
    snprintf(info.window, sizeof info.window, "%s", in->window);
    snprintf(info.backend, sizeof info.backend, "%s", in->backend);
    info.rate = in->frames->sample_rate;
    info.channels = in->frames->channels;
    info.n = in->frames->fft_size;
    info.hop = in->frames->hop;
    info.bins = in->frames->fft_size / 2 + 1;
    info.source_frames = in->source_frames;
    info.time_first_s = in->frames->time_first_s;
    info.live = in->frames->live;
    if ((err = view_xform_open(sh, in, &info, ei)) != SP_OK) /* a transform's columns */
        return err;
    /* --transfer: the frames' transforms to its average instead (view_transfer.c) */
    if (sh->xf.on && (err = view_xfer_open(&sh->xf, in, ei)) != SP_OK)
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
    if (!info.live && in->frames_expected > 0)
        fpc = view_store_expect(st, (uint64_t)in->frames_expected);
    wants->maxima_span = fpc > 1 && !need_frames && !sh->xf.on ? fpc : 0;
    wants->samples = 1; /* the meters, pitch, waveform and scope (view_sig.h) */
    pthread_mutex_lock(&sh->sig_mu);
    want_m = sh->sig.want_meters;
    want_p = sh->sig.want_pitch;
    pthread_mutex_unlock(&sh->sig_mu);
    if ((err = view_sig_open(&sig, &sh->sig_mu, in, want_m, want_p, ei)) != SP_OK) {
        view_store_destroy(st);
        return err;
    }
    if ((err = view_avg_open(&avg, in, ei)) != SP_OK) {
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

static int on_start(void *user, const spectro_stream_info *in, spectro_stream_wants *wants, spectro_error *e)
{
    sp_errinfo ei = {{0}};
    return failed(open_store(user, in, wants, &ei), &ei, e);
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
    if (sh->info.live && !sh->have_anchor && spectro_job_capture_time(sh->running) > 0) {
        sh->anchor = spectro_job_capture_time(sh->running);
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

/* Instead of on_frames when the backend reduced the spectra (spectro_stream_ops.maxima): a
 * row per group of span frames, each one level-0 entry of the store (or part of one). */
static int on_maxima(void *user, int channel, uint64_t first, size_t nframes, uint64_t span, const float *rows,
                     spectro_error *e)
{
    shared *sh = user;
    size_t nrows = spectro_maxima_rows(span, first, nframes);
    uint64_t g0 = first / span, end = first + nframes;
    int err = SP_OK, woken;
    sp_errinfo ei = {{0}};
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
    if (err != SP_OK)
        sp_fail(&ei, err, "the window's store took no column maxima of %llu frames", (unsigned long long)span);
    return failed(err, &ei, e);
}

static int on_frames(void *user, int channel, uint64_t first, size_t nframes, const float *db, spectro_error *e)
{
    shared *sh = user;
    sp_errinfo ei = {{0}};
    int err = sh->xr.kind ? view_xform_rows(sh, channel, first, nframes, db, store_rows, &ei) /* view_xform.c */
                          : store_rows(sh, channel, first, nframes, db, &ei);
    return failed(err, &ei, e);
}

/* The run ended: how (the window's read-outs), and a transform's last rows (the
 * reassigned points' last frames). */
static int on_finish(void *user, const spectro_stream_end *end, spectro_error *e)
{
    shared *sh = user;
    sp_errinfo ei = {{0}};
    pthread_mutex_lock(&sh->mu);
    sh->end = *end;
    pthread_mutex_unlock(&sh->mu);
    return failed(view_xform_flush(user, store_rows, &ei), &ei, e);
}

/* The samples themselves (view_sig.h): under the views' own lock, not mu. */
static int on_samples(void *user, uint64_t first, size_t nframes, const float *x, spectro_error *e)
{
    shared *sh = user;
    sp_errinfo ei = {{0}};
    return failed(view_sig_samples(&sh->sig, first, nframes, x, &ei), &ei, e);
}

/* --transfer: the frames' transforms, to the transfer view's average (view_transfer.c). */
static int on_complex(void *user, int channel, uint64_t first, size_t nframes, const spectro_complex *z,
                      spectro_error *e)
{
    shared *sh = user;
    sp_errinfo ei = {{0}};
    int err = view_xfer_add(&sh->xf, channel, first, nframes, z, &ei), woken;
    pthread_mutex_lock(&sh->mu);
    woken = frames_in(sh, channel, first, nframes);
    pthread_mutex_unlock(&sh->mu);
    if (woken)
        wake(sh);
    return failed(err, &ei, e);
}

static const spectro_stream_ops VIEW_STREAM = {
    .size = sizeof(spectro_stream_ops),
    .open = on_start, .spectra = on_frames, .maxima = on_maxima, .finish = on_finish, .samples = on_samples,
    .complex = on_complex,
};

static void *worker_main(void *arg)
{
    worker *w = arg;
    spectro_error e = {0, {0}};
    int err = spectro_job_run(w->run, &e);
    pthread_mutex_lock(&w->sh->mu);
    w->sh->finished = 1;
    w->sh->err = err;
    snprintf(w->sh->ei.msg, sizeof w->sh->ei.msg, "%s", err != SPECTRO_OK ? e.message : "");
    pthread_mutex_unlock(&w->sh->mu);
    wake(w->sh);
    return NULL;
}

/* A setting of the run from a number: "%.17g" gives the double back exactly. */
static int set_num(spectro_job *j, const char *name, double x, spectro_error *e)
{
    char text[40];
    snprintf(text, sizeof text, "%.17g", x);
    return spectro_job_set(j, name, text, e);
}

int view_worker_job(spectro_job *pub, const view_settings *c, const char *window, int range, spectro_job **out,
                    sp_errinfo *ei)
{
    /* what the window sets itself, the rest of the frames' settings being the caller's: a
     * selection's run also its range, and it says nothing (its input was read once already) */
    static const char *const OWN[] = {"start", "end", "duration", "realtime", "verbose",
                                      "fft_size", "hop", "mel", "mfcc", "chroma", "cqt", "reassign",
                                      "tuning", "fmin", "fmax", NULL};
    enum { RANGE_NAMES = 5 };
    spectro_error e = {0, {0}};
    spectro_job *j = NULL;
    int err = spectro_job_derive(pub, range ? OWN : OWN + RANGE_NAMES, &j, &e);
    if (err == SPECTRO_OK)
        err = set_num(j, "fft_size", (double)c->n, &e);
    if (err == SPECTRO_OK)
        err = set_num(j, "hop", (double)c->hop, &e);
    if (!window || !*window) /* the caller's, as its job made it (with tone: kaiser:20) */
        window = c->window;
    if (err == SPECTRO_OK)
        err = spectro_job_set(j, "window", window, &e);
    if (err == SPECTRO_OK)
        err = view_settings_set_xform(j, &c->xform, &e);
    if (err == SPECTRO_OK && range && c->start > 0)
        err = set_num(j, "start", c->start, &e);
    if (err == SPECTRO_OK && range && c->end > 0)
        err = set_num(j, "end", c->end, &e);
    if (err == SPECTRO_OK && range && c->duration > 0)
        err = set_num(j, "duration", c->duration, &e);
    if (err == SPECTRO_OK && range)
        err = spectro_job_set(j, "quiet", NULL, &e);
    if (err != SPECTRO_OK) {
        spectro_job_destroy(j);
        return sp_fail(ei, err, "%s", e.message);
    }
    *out = j;
    return SP_OK;
}

int view_worker_start(worker *w, sp_errinfo *ei)
{
    shared *sh = w->sh;
    int err;
    pthread_mutex_lock(&sh->mu);
    sh->started = sh->finished = 0;
    sh->err = SP_OK;
    sh->next0 = sh->skipped = 0;
    sh->maxima = 0;
    sh->have_anchor = 0;
    sh->last_in = sh->in_gap = 0;
    memset(&sh->end, 0, sizeof sh->end);
    view_store_destroy(sh->store);
    sh->store = NULL;
    sh->version++;
    sh->gen++;
    pthread_mutex_unlock(&sh->mu);
    atomic_store(&w->stop, 0);
    if ((err = view_worker_job(w->pub, &w->cfg, w->window, 0, &w->run, ei)) != SP_OK)
        return err;
    spectro_job_set_stream(w->run, &VIEW_STREAM, sh);
    sh->running = w->run;
    if (pthread_create(&w->thread, NULL, worker_main, w) != 0) {
        spectro_job_destroy(w->run);
        w->run = NULL;
        sh->running = NULL;
        return sp_fail(ei, SP_ENOMEM, "cannot start the analysis thread");
    }
    w->running = 1;
    return SP_OK;
}

void view_worker_stop(worker *w)
{
    if (!w->running)
        return;
    atomic_store(&w->stop, 1);
    spectro_job_stop(w->run, 1);
    pthread_join(w->thread, NULL);
    w->running = 0;
    w->sh->running = NULL;
    spectro_job_destroy(w->run);
    w->run = NULL;
}
