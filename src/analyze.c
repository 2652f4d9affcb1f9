#include "analyze.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dump.h"
#include "peaks.h"
#include "progress.h"
#include "ring.h"
#include "stft.h"

#define RING_FLOATS (1u << 21)       /* 8 MB of samples between reader and analysis */
#define READ_BLOCK_FLOATS (1u << 16) /* one source_read, all channels */

analyze_config analyze_config_default(void)
{
    analyze_config c;
    memset(&c, 0, sizeof c);
    c.n = 4096;
    c.hop = 0;
    c.window = window_spec_default();
    c.channel = STFT_CHANNEL_MIX;
    c.backend = FFT_BACKEND_AUTO;
    c.out = stdout;
    return c;
}

size_t analyze_auto_batch(size_t n, size_t hop, int out_channels, int gpu)
{
    /* output budget: 4M dB values on the CPU, 16M on a GPU (bigger launches pay off) */
    size_t budget = (gpu ? (size_t)1 << 24 : (size_t)1 << 22) / (size_t)out_channels;
    size_t b = budget / (n / 2 + 1);
    size_t span_cap = ((size_t)1 << 24) / (size_t)out_channels; /* signal samples held */
    if (b > 8192)
        b = 8192;
    if (hop > 0 && b > 1 + span_cap / hop)
        b = 1 + span_cap / hop;
    return b < 1 ? 1 : b;
}

static void nap(void)
{
    struct timespec ts = {0, 100000}; /* 100 us */
    nanosleep(&ts, NULL);
}

/* ---- the reader thread ----------------------------------------------------------------- */

typedef struct {
    source *src;
    ring *r;
    int channels;
    volatile sig_atomic_t *stop;
    atomic_int quit; /* consumer gave up: reader leaves */
    atomic_int done; /* reader finished (eof or error) */
    int err;         /* valid once done */
    sp_errinfo ei;
} reader;

static void *reader_main(void *arg)
{
    reader *rd = arg;
    size_t block = READ_BLOCK_FLOATS / (size_t)rd->channels;
    float *buf;
    if (block < 1)
        block = 1;
    buf = malloc(block * (size_t)rd->channels * sizeof *buf);
    rd->err = buf ? SP_OK : sp_fail(&rd->ei, SP_ENOMEM, "out of memory for the read buffer");
    while (rd->err == SP_OK) {
        size_t got = 0, off = 0, total;
        rd->err = source_read(rd->src, buf, block, &got, &rd->ei);
        if (rd->err != SP_OK || got == 0)
            break;
        total = got * (size_t)rd->channels;
        while (off < total) {
            size_t w = ring_write(rd->r, buf + off, total - off);
            off += w;
            if (w == 0) {
                if (atomic_load(&rd->quit) || (rd->stop && *rd->stop))
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

/* ---- sinks ----------------------------------------------------------------------------- */

typedef struct {
    dump *dump;
    int peaks;
    FILE *out;
    size_t n, bins;
    double rate, t0, dt;
    int all;
    sp_errinfo *ei;
} sinks;

static int sink_frames(void *user, int channel, uint64_t first, size_t nframes, const float *db)
{
    sinks *s = user;
    if (s->dump) {
        int err = dump_write(s->dump, channel, first, nframes, db, s->ei);
        if (err != SP_OK)
            return err;
    }
    if (s->peaks) {
        for (size_t i = 0; i < nframes; i++) {
            peak p = peaks_find(db + i * s->bins, s->n, s->rate);
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

int analyze_run(const analyze_config *cfg, analyze_result *res, sp_errinfo *ei)
{
    analyze_result local;
    source *src = NULL;
    fft_plan *plan = NULL;
    stft *st = NULL;
    dump *dp = NULL;
    float *win = NULL, *buf = NULL;
    float *ring_mem = NULL;
    ring r;
    reader rd;
    pthread_t thread;
    int started = 0, err;
    double wsum = 0.0, t_start = progress_now();
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
    memset(&pg, 0, sizeof pg);
    if (!cfg || !cfg->input)
        return sp_fail(ei, SP_EINVAL, "analyze_run: no input");
    if (cfg->dump_path && cfg->peaks && strcmp(cfg->dump_path, "-") == 0)
        return sp_fail(ei, SP_EINVAL, "--dump - and --peaks both write to standard output: pick one");

    if ((err = source_open_file(cfg->input, &src, ei)) != SP_OK)
        goto done;
    info = source_get_info(src);
    res->info = *info;
    res->n = cfg->n;
    res->hop = cfg->hop ? cfg->hop : cfg->n / 4;
    window_format(&cfg->window, res->window, sizeof res->window);
    if (cfg->channel >= info->channels) {
        err = sp_fail(ei, SP_EINVAL, "--channel %d: out of range: %s has %d channel%s (0 to %d)", cfg->channel,
                      info->name, info->channels, info->channels == 1 ? "" : "s", info->channels - 1);
        goto done;
    }
    res->out_channels = cfg->channel == STFT_CHANNEL_ALL ? info->channels : 1;

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
    fc.n = cfg->n;
    fc.hop = res->hop;
    fc.window = win;
    fc.max_batch = cfg->batch ? cfg->batch
                              : analyze_auto_batch(cfg->n, res->hop, res->out_channels,
                                                   cfg->backend != FFT_BACKEND_CPU);
    if ((err = fft_plan_create(&fc, &plan, ei)) != SP_OK)
        goto done;
    res->batch = fc.max_batch;
    snprintf(res->backend, sizeof res->backend, "%s", fft_plan_backend_name(plan));
    snprintf(res->fallback, sizeof res->fallback, "%s", fft_plan_fallback_reason(plan));

    sc = stft_config_default();
    sc.n = cfg->n;
    sc.hop = res->hop;
    sc.in_channels = info->channels;
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
    sk.ei = ei;
    if ((err = stft_create(&sc, plan, sink_frames, &sk, &st, ei)) != SP_OK)
        goto done;

    if (cfg->dump_path) {
        dump_config dc;
        dc.path = cfg->dump_path;
        dc.channels = res->out_channels;
        dc.bins = sk.bins;
        dc.bin_hz = (double)info->rate / (double)cfg->n;
        dc.time_first = sk.t0;
        dc.time_step = sk.dt;
        if ((err = dump_open(&dc, &dp, ei)) != SP_OK)
            goto done;
        sk.dump = dp;
    }

    ring_mem = malloc(RING_FLOATS * sizeof *ring_mem);
    buf = malloc(READ_BLOCK_FLOATS * sizeof *buf);
    if (!ring_mem || !buf) {
        err = sp_fail(ei, SP_ENOMEM, "out of memory for the sample ring");
        goto done;
    }
    ring_init(&r, ring_mem, RING_FLOATS);
    rd.src = src;
    rd.r = &r;
    rd.channels = info->channels;
    rd.stop = cfg->stop;
    if (pthread_create(&thread, NULL, reader_main, &rd) != 0) {
        err = sp_fail(ei, SP_ENOMEM, "cannot start the reader thread");
        goto done;
    }
    started = 1;

    progress_begin(&pg, stderr, cfg->progress, info->rate, info->frames_hint);
    for (;;) {
        size_t avail = ring_readable(&r), whole = (READ_BLOCK_FLOATS / (size_t)info->channels);
        int finished = atomic_load_explicit(&rd.done, memory_order_acquire);
        if (cfg->stop && *cfg->stop) {
            err = sp_fail(ei, SP_EINTERRUPTED, "interrupted");
            goto done;
        }
        avail /= (size_t)info->channels;
        if (avail == 0) {
            /* `done` was read before `avail`: a finished reader has nothing more to give */
            if (finished && ring_readable(&r) < (size_t)info->channels)
                break;
            nap();
            continue;
        }
        if (avail > whole)
            avail = whole;
        if (avail == 0)
            avail = 1; /* more channels than READ_BLOCK_FLOATS: cannot happen (<= 1024) */
        ring_read(&r, buf, avail * (size_t)info->channels);
        if ((err = stft_push(st, buf, avail, ei)) != SP_OK)
            goto done;
        progress_update(&pg, (int64_t)stft_samples(st));
    }
    progress_end(&pg);
    pthread_join(thread, NULL);
    started = 0;
    if ((err = rd.err) != SP_OK) {
        *ei = rd.ei;
        goto done;
    }
    if ((err = stft_finish(st, ei)) != SP_OK)
        goto done;

    res->frames = stft_frames(st);
    res->samples = stft_samples(st);
    res->nonfinite = source_nonfinite(src);
    res->truncated = source_truncated(src);
    if (dp) {
        dump_meta m;
        m.source = info->name;
        m.sample_rate = info->rate;
        m.source_channels = info->channels;
        m.channel = cfg->channel;
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
        err = dump_commit(dp, &m, ei);
    }

done:
    if (started) {
        atomic_store(&rd.quit, 1);
        pthread_join(thread, NULL);
    }
    if (err != SP_OK)
        progress_end(&pg);
    res->seconds = progress_now() - t_start;
    dump_destroy(dp);
    stft_destroy(st);
    fft_plan_destroy(plan);
    source_close(src);
    free(ring_mem);
    free(buf);
    free(win);
    return err;
}
