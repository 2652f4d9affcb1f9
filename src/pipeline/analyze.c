#include "analyze.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "dump.h"
#include "peaks.h"
#include "progress.h"
#include "ring.h"

#define FILE_RING_FLOATS (1u << 23) /* 32 MB of samples between reader and analysis: room
                                      * to read ahead while a GPU starts (0.2-0.3 s) */
#define READ_BLOCK_FLOATS (1u << 16) /* one source_read / ring_read, all channels */
#define LIVE_BATCH 16                /* frames per FFT call in live runs */
#define LIVE_BIG_HOP ((size_t)1 << 20) /* live hops above it: one frame per call (the framer
                                        * holds (batch-1) hops + n samples) */

analyze_config analyze_config_default(void)
{
    analyze_config c;
    memset(&c, 0, sizeof c);
    c.n = 4096;
    c.window = window_spec_default();
    c.channel = STFT_CHANNEL_MIX;
    c.backend = FFT_BACKEND_AUTO;
    c.out = stdout;
    c.render = render_config_default();
    return c;
}

size_t analyze_auto_batch(size_t n, size_t hop, int out_channels, int gpu)
{
    /* output budget per call: 512K dB values (2 MB) on the CPU, so that reading, the FFT
     * and writing overlap from the start; 4M on a GPU, where bigger launches pay off */
    size_t budget = (gpu ? (size_t)1 << 22 : (size_t)1 << 19) / (size_t)out_channels;
    size_t b = budget / (n / 2 + 1);
    size_t span_cap = ((size_t)1 << 24) / (size_t)out_channels; /* signal samples held */
    if (b > 8192)
        b = 8192;
    if (hop > 0 && b > 1 + span_cap / hop)
        b = 1 + span_cap / hop;
    return b < 1 ? 1 : b;
}

static void sleep_s(double s)
{
    struct timespec ts;
    if (s <= 0)
        return;
    ts.tv_sec = (time_t)s;
    ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
    nanosleep(&ts, NULL);
}

static void nap(void)
{
    sleep_s(100e-6);
}

static size_t pow2_at_least(size_t v)
{
    size_t p = 2;
    while (p < v)
        p <<= 1;
    return p;
}

/* ---- the reader thread (pull sources) -------------------------------------------------- */

typedef struct {
    source *src;
    ring *r;
    int channels;
    int paced;                  /* --realtime: write at the file's own rate, never wait */
    double rate;
    atomic_int *stop;
    atomic_int quit;            /* consumer is finished: reader leaves */
    atomic_int done;            /* reader finished (end of file or error) */
    atomic_ullong dropped;      /* paced: frames that did not fit */
    int err;                    /* valid once done */
    sp_errinfo ei;
} reader;

static void *reader_main(void *arg)
{
    reader *rd = arg;
    size_t block = READ_BLOCK_FLOATS / (size_t)rd->channels;
    float *buf;
    uint64_t sent = 0;
    double t0 = sp_now();
    if (rd->paced && block > (size_t)(rd->rate / 100) + 1)
        block = (size_t)(rd->rate / 100) + 1; /* 10 ms pieces, as an audio device delivers */
    if (block < 1)
        block = 1;
    buf = malloc(block * (size_t)rd->channels * sizeof *buf);
    rd->err = buf ? SP_OK : sp_fail(&rd->ei, SP_ENOMEM, "out of memory for the read buffer");
    while (rd->err == SP_OK && !atomic_load(&rd->quit)) {
        size_t got = 0, off = 0, total;
        rd->err = source_read(rd->src, buf, block, &got, &rd->ei);
        if (rd->err != SP_OK || got == 0)
            break;
        total = got * (size_t)rd->channels;
        if (rd->paced) {
            sleep_s(t0 + (double)sent / rd->rate - sp_now());
            sent += got;
            {
                size_t room = ring_writable(rd->r);
                room -= room % (size_t)rd->channels; /* whole frames only: channels stay aligned */
                off = ring_write(rd->r, buf, total < room ? total : room);
            }
            if (off < total)
                atomic_fetch_add(&rd->dropped, (total - off) / (size_t)rd->channels);
            continue;
        }
        while (off < total) {
            size_t w = ring_write(rd->r, buf + off, total - off);
            off += w;
            if (w == 0) {
                if (atomic_load(&rd->quit) || (rd->stop && atomic_load(rd->stop)))
                    goto out;
                nap(); /* the ring is full: files wait, they never drop samples */
            }
        }
    }
out:
    free(buf);
    atomic_store_explicit(&rd->done, 1, memory_order_release);
    return NULL;
}

/* ---- the picture's own thread ------------------------------------------------------------ */

/* render_add runs on a thread of its own, so that drawing one block of spectra overlaps
 * the FFT of the next. No copy: the stft keeps a block unchanged until the sink's next call
 * returns (stft_sink_fn), and drawer_add waits there until the previous block is drawn. */
typedef struct {
    render *r;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    const float *db; /* the block being handed over or drawn; NULL = idle */
    int channel;
    uint64_t first;
    size_t nframes;
    int quit, err, started;
} drawer;

static void *drawer_main(void *arg)
{
    drawer *d = arg;
    pthread_mutex_lock(&d->mu);
    for (;;) {
        while (!d->db && !d->quit)
            pthread_cond_wait(&d->cv, &d->mu);
        if (!d->db)
            break; /* quit with nothing left */
        int skip = d->err != SP_OK; /* after an error the rest is only drained */
        pthread_mutex_unlock(&d->mu);
        int err = skip ? SP_OK : render_add(d->r, d->channel, d->first, d->nframes, d->db);
        pthread_mutex_lock(&d->mu);
        if (err != SP_OK && !d->err)
            d->err = err;
        d->db = NULL;
        pthread_cond_broadcast(&d->cv);
    }
    pthread_mutex_unlock(&d->mu);
    return NULL;
}

static int drawer_start(drawer *d, render *r, sp_errinfo *ei)
{
    memset(d, 0, sizeof *d);
    d->r = r;
    pthread_mutex_init(&d->mu, NULL);
    pthread_cond_init(&d->cv, NULL);
    if (pthread_create(&d->thread, NULL, drawer_main, d) != 0) {
        pthread_cond_destroy(&d->cv);
        pthread_mutex_destroy(&d->mu);
        return sp_fail(ei, SP_ENOMEM, "cannot start the drawing thread");
    }
    d->started = 1;
    return SP_OK;
}

/* Waits until the previous block is drawn, then hands this one over. */
static int drawer_add(drawer *d, int channel, uint64_t first, size_t nframes, const float *db)
{
    int err;
    pthread_mutex_lock(&d->mu);
    while (d->db)
        pthread_cond_wait(&d->cv, &d->mu);
    err = d->err;
    if (err == SP_OK) {
        d->db = db;
        d->channel = channel;
        d->first = first;
        d->nframes = nframes;
        pthread_cond_broadcast(&d->cv);
    }
    pthread_mutex_unlock(&d->mu);
    return err;
}

/* Draws what was handed over and stops the thread (idempotent); the first render_add error. */
static int drawer_finish(drawer *d)
{
    if (d->started) {
        pthread_mutex_lock(&d->mu);
        d->quit = 1;
        pthread_cond_broadcast(&d->cv);
        pthread_mutex_unlock(&d->mu);
        pthread_join(d->thread, NULL);
        pthread_cond_destroy(&d->cv);
        pthread_mutex_destroy(&d->mu);
        d->started = 0;
    }
    return d->err;
}

/* ---- sinks ----------------------------------------------------------------------------- */

typedef struct {
    dump *dump;
    drawer *png;
    int peaks;
    FILE *out;
    size_t n, bins, kmin, kmax;
    double rate, t0, dt;
    int all;
    const sink *extra;
    int nextra;
    uint64_t *next;      /* per output channel: the next frame index the dump expects */
    float *floor_row;    /* one spectrum at the floor, for gaps in the dump */
    sp_errinfo *ei;
} sinks;

/* A live run that skipped ahead leaves frame indices out; the dump gets floor rows in
 * their place, so row f is still the frame at time t0 + f*dt. */
static int dump_gap(sinks *s, int channel, uint64_t first)
{
    while (s->next[channel] < first) {
        int err = dump_write(s->dump, channel, s->next[channel], 1, s->floor_row, s->ei);
        if (err != SP_OK)
            return err;
        s->next[channel]++;
    }
    return SP_OK;
}

static int sink_frames(void *user, int channel, uint64_t first, size_t nframes, const float *db)
{
    sinks *s = user;
    int err;
    if (s->dump) {
        if ((err = dump_gap(s, channel, first)) != SP_OK ||
            (err = dump_write(s->dump, channel, first, nframes, db, s->ei)) != SP_OK)
            return err;
        s->next[channel] = first + nframes;
    }
    if (s->png && (err = drawer_add(s->png, channel, first, nframes, db)) != SP_OK)
        return sp_fail(s->ei, err, "drawing the picture failed");
    for (int i = 0; i < s->nextra; i++)
        if (s->extra[i].ops->spectra &&
            (err = s->extra[i].ops->spectra(s->extra[i].self, channel, first, nframes, db, s->ei)) != SP_OK)
            return err;
    if (s->peaks) {
        for (size_t i = 0; i < nframes; i++) {
            peak p = peaks_find_range(db + i * s->bins, s->n, s->rate, s->kmin, s->kmax);
            double t = s->t0 + (double)(first + i) * s->dt;
            if (s->all)
                fprintf(s->out, "%d\t%.6f\t%.3f\t%.2f\n", channel, t, p.freq_hz, p.db);
            else
                fprintf(s->out, "%.6f\t%.3f\t%.2f\n", t, p.freq_hz, p.db);
        }
        if (ferror(s->out))
            return sp_fail(s->ei, SP_EIO, "writing peaks to standard output failed");
    }
    return SP_OK;
}

/* ---- the run --------------------------------------------------------------------------- */

/* Frames a source of `frames` samples gives (DESIGN.md), -1 when unknown. */
static int64_t expected_frames(int64_t frames, size_t n, size_t hop)
{
    if (frames < 0)
        return -1;
    if ((uint64_t)frames < n)
        return 1;
    return (int64_t)(((uint64_t)frames - n) / hop + 1);
}

static int open_png(const analyze_config *cfg, const analyze_result *res, uint64_t limit, render **out,
                    sp_errinfo *ei)
{
    render_config rc = cfg->render;
    char title[512];
    const char *name = res->info.name, *slash = strrchr(name, '/');
    int64_t frames = res->info.frames_hint;
    if (limit != UINT64_MAX && (frames < 0 || (uint64_t)frames > limit))
        frames = (int64_t)limit;
    if (!rc.title) {
        snprintf(title, sizeof title, "%s  \xe2\x80\x94  %d Hz, N=%zu, hop=%zu, %s, %s", slash ? slash + 1 : name,
                 res->info.rate, res->n, res->hop, res->window, res->backend);
        rc.title = title;
    }
    return render_create(&rc, res->info.rate, res->n, (double)(res->n / 2) / res->info.rate,
                         (double)res->hop / res->info.rate, res->out_channels,
                         expected_frames(frames, res->n, res->hop), out, ei);
}

/* What the run is, for the sinks' open. */
static sink_stream stream_of(const analyze_config *cfg, const analyze_result *res, uint64_t limit)
{
    sink_stream ss;
    int64_t frames = res->info.frames_hint;
    memset(&ss, 0, sizeof ss);
    if (limit != UINT64_MAX && (frames < 0 || (uint64_t)frames > limit))
        frames = (int64_t)limit;
    ss.source = res->info.name;
    ss.format = res->info.format;
    ss.rate = res->info.rate;
    ss.source_channels = res->info.channels;
    ss.channels = res->out_channels;
    ss.channel = cfg->channel;
    ss.channel_name = cfg->channel == STFT_CHANNEL_MIX ? "mix" : cfg->channel == STFT_CHANNEL_ALL ? "all" : NULL;
    ss.n = res->n;
    ss.hop = res->hop;
    ss.bins = res->n / 2 + 1;
    ss.window = res->window;
    ss.backend = res->backend;
    ss.time_first_s = (double)(res->n / 2) / res->info.rate;
    ss.time_step_s = (double)res->hop / res->info.rate;
    ss.bin_hz = (double)res->info.rate / (double)res->n;
    ss.source_frames = res->info.frames_hint;
    ss.frames_expected = res->live ? -1 : expected_frames(frames, res->n, res->hop);
    ss.live = res->live;
    return ss;
}

static int open_source(const analyze_config *cfg, source **src, sp_errinfo *ei)
{
    if (cfg->input)
        return source_open_file(cfg->input, src, ei);
    {
        source_mic_config mc = source_mic_config_default();
        mc.device = cfg->device;
        mc.rate = cfg->rate;
        mc.channels = cfg->channels;
        return source_open_mic(&mc, src, ei);
    }
}

/* Starts the input: a push source (microphone) writes into the ring from its callback, a
 * pull source gets a reader thread. */
static int start_input(const analyze_config *cfg, source *src, ring *r, reader *rd, pthread_t *thread,
                       int *started, int *pushing, sp_errinfo *ei)
{
    const source_info *info = source_get_info(src);
    int err;
    if (source_is_push(src)) {
        if ((err = source_start(src, r, ei)) != SP_OK)
            return err;
        *pushing = 1;
        return SP_OK;
    }
    rd->src = src;
    rd->r = r;
    rd->channels = info->channels;
    rd->paced = cfg->realtime;
    rd->rate = info->rate;
    rd->stop = cfg->stop;
    if (pthread_create(thread, NULL, reader_main, rd) != 0)
        return sp_fail(ei, SP_ENOMEM, "cannot start the reader thread");
    *started = 1;
    return SP_OK;
}

int analyze_run(const analyze_config *cfg, analyze_result *res, sp_errinfo *ei)
{
    analyze_result local;
    source *src = NULL;
    fft_plan *plan = NULL;
    stft *st = NULL;
    dump *dp = NULL;
    render *png = NULL;
    drawer draw;
    float *win = NULL, *buf = NULL, *ring_mem = NULL;
    size_t ring_floats, whole, keep = 0, lag = 0;
    ring r;
    reader rd;
    pthread_t thread;
    int started = 0, pushing = 0, stalled = 0, err, ch, opened = 0;
    double wsum = 0.0, t_start = sp_now(), t_wait;
    uint64_t limit = UINT64_MAX, consumed = 0;
    uint64_t lost_seen = 0; /* --realtime: samples the reader dropped, as far as skips took them in */
    uint64_t taken = 0;     /* frames read or skipped from the ring: where the source's gaps are placed */
    uint64_t next_gap;      /* where the next gap the source reported lies */
    const source_info *info;
    stft_config sc;
    fft_config fc;
    sinks sk;
    progress pg;

    if (!res)
        res = &local;
    memset(res, 0, sizeof *res);
    memset(&rd, 0, sizeof rd);
    memset(&sk, 0, sizeof sk);
    memset(&draw, 0, sizeof draw);
    memset(&pg, 0, sizeof pg);
    if (!cfg)
        return sp_fail(ei, SP_EINVAL, "analyze_run: no config");
    if (cfg->dump_path && cfg->peaks && strcmp(cfg->dump_path, "-") == 0)
        return sp_fail(ei, SP_EINVAL, "--dump - and --peaks both write to standard output: pick one");
    if (cfg->realtime && !cfg->input)
        return sp_fail(ei, SP_EINVAL, "--realtime streams a file: give a FILE");

    if ((err = open_source(cfg, &src, ei)) != SP_OK)
        goto done;
    info = source_get_info(src);
    ch = info->channels;
    res->info = *info;
    res->live = !cfg->input || cfg->realtime;
    res->n = cfg->n;
    res->hop = cfg->hop ? cfg->hop : cfg->n / 4;
    window_format(&cfg->window, res->window, sizeof res->window);
    if (cfg->channel >= ch) {
        err = sp_fail(ei, SP_EINVAL, "--channel %d: out of range: %s has %d channel%s (0 to %d)", cfg->channel,
                      info->name, ch, ch == 1 ? "" : "s", ch - 1);
        goto done;
    }
    res->out_channels = cfg->channel == STFT_CHANNEL_ALL ? ch : 1;
    if (cfg->duration > 0) {
        double l = cfg->duration * info->rate + 0.5;
        if (l < 1.0) {
            err = sp_fail(ei, SP_EINVAL, "--duration %g: shorter than one sample at %d Hz", cfg->duration,
                          info->rate);
            goto done;
        }
        limit = l >= 1.8e19 ? UINT64_MAX : (uint64_t)l;
    }

    /* Live: at most ~half a second (or 4 frames) behind before skipping ahead to the
     * newest n samples; the ring holds twice that. Files: a fixed FILE_RING_FLOATS. */
    if (res->live) {
        lag = (size_t)info->rate / 2 > 4 * cfg->n ? (size_t)info->rate / 2 : 4 * cfg->n;
        keep = cfg->n;
        ring_floats = pow2_at_least(2 * lag * (size_t)ch);
    } else {
        ring_floats = FILE_RING_FLOATS;
    }
    whole = READ_BLOCK_FLOATS / (size_t)ch;
    ring_mem = malloc(ring_floats * sizeof *ring_mem);
    buf = malloc(whole * (size_t)ch * sizeof *buf);
    if (!ring_mem || !buf) {
        err = sp_fail(ei, SP_ENOMEM, "out of memory for the sample ring");
        goto done;
    }
    ring_init(&r, ring_mem, ring_floats);
    /* a file is read and decoded from now on, while the FFT plan (a GPU's start) is made;
     * live input starts once everything is ready, so that it does not begin behind */
    if (!res->live && (err = start_input(cfg, src, &r, &rd, &thread, &started, &pushing, ei)) != SP_OK)
        goto done;

    if (!(win = malloc(cfg->n * sizeof *win))) {
        err = sp_fail(ei, SP_ENOMEM, "out of memory for a window of %zu samples", cfg->n);
        goto done;
    }
    if ((err = window_fill(&cfg->window, cfg->n, win, &wsum)) != SP_OK) {
        err = sp_fail(ei, err, "--window: cannot make a %s window of %zu samples", res->window, cfg->n);
        goto done;
    }

    fc = fft_config_default();
    fc.backend = cfg->backend;
    fc.tuning = cfg->fft_tuning;
    fc.n = cfg->n;
    fc.hop = res->hop;
    fc.window = win;
    fc.live = res->live;
    res->plan_s = sp_now();
    fc.max_batch = cfg->batch      ? cfg->batch
                   : res->live     ? (res->hop > LIVE_BIG_HOP ? 1 : LIVE_BATCH)
                                   : analyze_auto_batch(cfg->n, res->hop, res->out_channels,
                                                        fft_backend_resolve(cfg->backend) != FFT_BACKEND_CPU);
    if ((err = fft_plan_create(&fc, &plan, ei)) != SP_OK)
        goto done;
    res->batch = fc.max_batch;
    res->plan_s = sp_now() - res->plan_s;
    snprintf(res->backend, sizeof res->backend, "%s", fft_plan_backend_name(plan));
    snprintf(res->fallback, sizeof res->fallback, "%s", fft_plan_fallback_reason(plan));

    sc = stft_config_default();
    sc.n = cfg->n;
    sc.hop = res->hop;
    sc.in_channels = ch;
    sc.channel = cfg->channel;
    sc.batch = fc.max_batch;
    sk.peaks = cfg->peaks;
    sk.out = cfg->out ? cfg->out : stdout;
    sk.n = cfg->n;
    sk.bins = cfg->n / 2 + 1;
    sk.rate = info->rate;
    sk.t0 = (double)(cfg->n / 2) / info->rate;
    sk.dt = (double)res->hop / info->rate;
    sk.all = cfg->channel == STFT_CHANNEL_ALL;
    sk.extra = cfg->extra_sinks;
    sk.nextra = cfg->n_extra_sinks;
    sk.ei = ei;
    {
        double bin_hz = (double)info->rate / (double)cfg->n;
        double lo = cfg->peak_fmin > 0 ? cfg->peak_fmin / bin_hz : 1.0;
        double hi = cfg->peak_fmax > 0 ? cfg->peak_fmax / bin_hz : (double)(cfg->n / 2 - 1);
        if (lo > (double)(cfg->n / 2)) /* beyond the last bin (and no overflow below) */
            lo = (double)(cfg->n / 2);
        sk.kmin = lo < 1.0 ? 1 : (size_t)(lo + 0.5);
        sk.kmax = hi > (double)(cfg->n / 2 - 1) ? cfg->n / 2 - 1 : (size_t)(hi + 0.5);
        if (cfg->peaks && sk.kmax < sk.kmin) { /* only the peak search needs a whole bin */
            err = sp_fail(ei, SP_EINVAL, "--fmin/--fmax: the range %.1f..%.1f Hz holds no bin", cfg->peak_fmin,
                          cfg->peak_fmax);
            goto done;
        }
    }
    if ((err = stft_create(&sc, plan, sink_frames, &sk, &st, ei)) != SP_OK)
        goto done;

    if (cfg->dump_path) {
        dump_config dc;
        dc.path = cfg->dump_path;
        dc.channels = res->out_channels;
        dc.stacked = cfg->channel == STFT_CHANNEL_ALL;
        dc.bins = sk.bins;
        dc.bin_hz = (double)info->rate / (double)cfg->n;
        dc.time_first = sk.t0;
        dc.time_step = sk.dt;
        if ((err = dump_open(&dc, &dp, ei)) != SP_OK)
            goto done;
        sk.dump = dp;
        sk.next = calloc((size_t)res->out_channels, sizeof *sk.next);
        sk.floor_row = malloc(sk.bins * sizeof *sk.floor_row);
        if (!sk.next || !sk.floor_row) {
            err = sp_fail(ei, SP_ENOMEM, "out of memory");
            goto done;
        }
        for (size_t k = 0; k < sk.bins; k++)
            sk.floor_row[k] = FFT_DB_FLOOR;
    }
    if (cfg->png_path) {
        if ((err = open_png(cfg, res, limit, &png, ei)) != SP_OK ||
            (err = drawer_start(&draw, png, ei)) != SP_OK)
            goto done;
        sk.png = &draw;
    }
    {
        sink_stream ss = stream_of(cfg, res, limit);
        for (int i = 0; i < cfg->n_extra_sinks; i++) {
            sink_wants w;
            memset(&w, 0, sizeof w);
            if ((err = cfg->extra_sinks[i].ops->open(cfg->extra_sinks[i].self, &ss, &w, ei)) != SP_OK)
                goto done;
            opened = i + 1;
        }
    }

    if (!started && (err = start_input(cfg, src, &r, &rd, &thread, &started, &pushing, ei)) != SP_OK)
        goto done;

    progress_begin(&pg, stderr, cfg->progress && !res->live, info->rate, info->frames_hint);
    while (consumed < limit) {
        size_t avail;
        uint64_t lost, gone;
        int finished = pushing ? 0 : atomic_load_explicit(&rd.done, memory_order_acquire);
        if (cfg->stop && atomic_load(cfg->stop)) {
            if (res->live) {
                res->interrupted = 1; /* Ctrl-C ends a live run normally */
                break;
            }
            err = sp_fail(ei, SP_EINTERRUPTED, "interrupted");
            goto done;
        }
        if (pushing && (err = source_status(src, ei)) != SP_OK)
            goto done;
        /* what the paced reader dropped (the ring was full) is read before what the ring
         * holds. The microphone places its drops itself (source_take_gaps): read after the
         * ring, so every gap before a frame seen is known. */
        lost = atomic_load(&rd.dropped);
        avail = ring_readable(&r) / (size_t)ch;
        if (res->live && avail > lag) {
            /* fallen behind: drop all but the newest `keep` frames. The paced reader only
             * drops when the ring is full, so its drops come before those frames too, as do
             * the source's gaps up to there: the frame times move on by all of it, and stay
             * exact. */
            size_t gap = avail - keep;
            uint64_t skipped = gap + (lost - lost_seen) + source_take_gaps(src, taken + gap, &next_gap);
            lost_seen = lost;
            if (skipped >= limit - consumed)
                break; /* the duration ends in what was dropped */
            ring_skip(&r, gap * (size_t)ch);
            taken += gap;
            stft_discard(st, skipped);
            res->dropped += gap;
            consumed += skipped;
            avail = keep;
        }
        gone = source_take_gaps(src, taken, &next_gap);
        if (gone > 0) {
            /* a gap in the source's audio (counted in source_dropped): no frame spans it,
             * and the frame times move on by it */
            if (gone >= limit - consumed)
                break; /* the duration ends in the gap */
            stft_discard(st, gone);
            consumed += gone;
        }
        if ((uint64_t)avail > next_gap - taken)
            avail = (size_t)(next_gap - taken); /* up to the gap, not across it */
        if (avail == 0) {
            /* `done` was read before `avail`: a finished reader has nothing more to give */
            if (finished && ring_readable(&r) < (size_t)ch)
                break;
            t_wait = sp_now();
            nap();
            res->wait_s += sp_now() - t_wait;
            continue;
        }
        if (avail > whole)
            avail = whole;
        if ((uint64_t)avail > limit - consumed)
            avail = (size_t)(limit - consumed);
        if (cfg->capture_anchor && res->live && consumed == 0)
            /* the newest sample in the ring was captured about now */
            *cfg->capture_anchor = sp_now() - (double)(ring_readable(&r) / (size_t)ch) / info->rate;
        ring_read(&r, buf, avail * (size_t)ch);
        taken += avail;
        if ((err = stft_push(st, buf, avail, ei)) != SP_OK)
            goto done;
        consumed += avail;
        if (res->live) {
            if ((err = stft_flush(st, ei)) != SP_OK)
                goto done;
            if (cfg->peaks)
                fflush(sk.out);
        }
        if (!stalled && cfg->stall_for > 0 && (double)consumed >= cfg->stall_at * info->rate) {
            stalled = 1;
            sleep_s(cfg->stall_for);
        }
        progress_update(&pg, (int64_t)consumed);
    }
    progress_end(&pg);
    if (pushing) {
        source_stop(src);
        pushing = 0;
    }
    if (started) {
        atomic_store(&rd.quit, 1);
        pthread_join(thread, NULL);
        started = 0;
        if ((err = rd.err) != SP_OK) {
            *ei = rd.ei;
            goto done;
        }
    }
    if (!res->live && stft_samples(st) == 0) {
        err = sp_fail(ei, SP_EINPUT, "%s: holds no audio samples", info->name);
        goto done;
    }
    if ((err = stft_finish(st, ei)) != SP_OK)
        goto done;
    if (cfg->peaks && fflush(sk.out) != 0) {
        err = sp_fail(ei, SP_EIO, "writing peaks to standard output failed: %s", strerror(errno));
        goto done;
    }

    res->frames = stft_frames(st);
    res->samples = stft_samples(st);
    res->nonfinite = source_nonfinite(src);
    res->truncated = source_truncated(src);
    res->dropped += source_dropped(src) + atomic_load(&rd.dropped);
    if (png) {
        if ((err = drawer_finish(&draw)) != SP_OK)
            err = sp_fail(ei, err, "drawing the picture failed");
        else
            err = render_write_png(png, cfg->png_path, ei);
        if (err != SP_OK)
            goto done;
    }
    if (dp) {
        dump_meta m;
        for (int c = 0; c < res->out_channels; c++)
            if ((err = dump_gap(&sk, c, res->frames)) != SP_OK)
                goto done;
        m.source = info->name;
        m.sample_rate = info->rate;
        m.source_channels = ch;
        m.channel = cfg->channel;
        m.channel_name = cfg->channel == STFT_CHANNEL_MIX ? "mix" : cfg->channel == STFT_CHANNEL_ALL ? "all" : NULL;
        m.channels = res->out_channels;
        m.fft_size = cfg->n;
        m.hop = res->hop;
        m.bins = sk.bins;
        m.window = res->window;
        m.frames = res->frames;
        m.time_first_s = sk.t0;
        m.time_step_s = sk.dt;
        m.bin_hz = (double)info->rate / (double)cfg->n;
        m.backend = res->backend;
        m.nonfinite_samples = res->nonfinite;
        m.truncated = res->truncated;
        m.dropped_samples = res->dropped;
        if ((err = dump_commit(dp, &m, ei)) != SP_OK) {
            if (png)
                remove(cfg->png_path); /* written just before: no half of the output stays */
            goto done;
        }
    }

    {
        sink_end end;
        memset(&end, 0, sizeof end);
        end.frames = res->frames;
        end.samples = res->samples;
        end.nonfinite_samples = res->nonfinite;
        end.dropped_samples = res->dropped;
        end.truncated = res->truncated;
        end.interrupted = res->interrupted;
        for (int i = 0; i < cfg->n_extra_sinks; i++)
            if (cfg->extra_sinks[i].ops->finish &&
                (err = cfg->extra_sinks[i].ops->finish(cfg->extra_sinks[i].self, &end, ei)) != SP_OK)
                goto done;
        opened = 0;
    }

done:
    for (int i = 0; i < opened; i++)
        if (cfg->extra_sinks[i].ops->abort)
            cfg->extra_sinks[i].ops->abort(cfg->extra_sinks[i].self);
    if (pushing)
        source_stop(src);
    if (started) {
        atomic_store(&rd.quit, 1);
        pthread_join(thread, NULL);
    }
    if (err != SP_OK)
        progress_end(&pg);
    res->seconds = sp_now() - t_start;
    if (st)
        stft_times(st, &res->fft_s, &res->sink_s);
    dump_destroy(dp);
    drawer_finish(&draw);
    render_destroy(png);
    stft_destroy(st);
    fft_plan_destroy(plan);
    source_close(src);
    free(ring_mem);
    free(buf);
    free(win);
    free(sk.next);
    free(sk.floor_row);
    return err;
}
