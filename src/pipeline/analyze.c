#include "analyze.h"

#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "pipeline_internal.h"
#include "progress.h"

#define FILE_RING_FLOATS (1u << 23) /* 32 MB of samples between reader and analysis: room
                                      * to read ahead while a GPU starts (0.2-0.3 s) */
#define READ_BLOCK_FLOATS (1u << 16) /* one ring_read, all channels */
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

int analyze_set_output(analyze_config *c, const char *kind, const char *path, sp_errinfo *ei)
{
    int i;
    if (!c || !sink_kind_find(kind))
        return sp_fail(ei, SP_EINVAL, "unknown output kind \"%s\"", kind ? kind : "(null)");
    for (i = 0; i < c->n_outputs; i++)
        if (strcmp(c->outputs[i].kind, kind) == 0)
            break;
    if (i == ANALYZE_MAX_OUTPUTS)
        return sp_fail(ei, SP_EINVAL, "too many outputs (at most %d)", ANALYZE_MAX_OUTPUTS);
    c->outputs[i].kind = sink_kind_find(kind)->name;
    c->outputs[i].path = path;
    if (i == c->n_outputs)
        c->n_outputs++;
    return SP_OK;
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

static size_t pow2_at_least(size_t v)
{
    size_t p = 2;
    while (p < v)
        p <<= 1;
    return p;
}

/* Frames a source of `frames` samples gives (DESIGN.md), -1 when unknown. */
static int64_t expected_frames(int64_t frames, size_t n, size_t hop)
{
    if (frames < 0)
        return -1;
    if ((uint64_t)frames < n)
        return 1;
    return (int64_t)(((uint64_t)frames - n) / hop + 1);
}

/* One run's state, from set-up to the end. */
typedef struct {
    const analyze_config *cfg;
    analyze_result *res;
    source *src;
    fft_plan *plan;
    stft *st;
    float *win, *buf, *ring_mem;
    ring r;
    pipe_input in;
    pipe_sinks sinks;
    progress pg;
    int ch;                 /* source channels */
    size_t whole;           /* frames per ring_read */
    size_t lag, keep;       /* live: frames behind before skipping; frames kept when skipping */
    uint64_t limit;         /* frames to analyse (--duration), UINT64_MAX = all */
    uint64_t consumed;      /* frames analysed or skipped: where the stream is */
    uint64_t lost_seen;     /* --realtime: samples the reader dropped, as far as skips took them in */
    uint64_t taken;         /* frames read or skipped from the ring: where the source's gaps are placed */
    uint64_t next_gap;      /* where the next gap the source reported lies */
    int stalled;
} run;

/* The source and what follows from it: live or not, hop, channels, the --duration limit. */
static int run_open_source(run *r, sp_errinfo *ei)
{
    const analyze_config *cfg = r->cfg;
    analyze_result *res = r->res;
    source_request req = {cfg->input, cfg->device, cfg->rate, cfg->channels};
    const source_info *info;
    int err;
    if (!r->src && (err = source_open_request(&req, &r->src, ei)) != SP_OK) /* else given */
        return err;
    info = source_get_info(r->src);
    r->ch = info->channels;
    res->info = *info;
    res->live = source_is_push(r->src) || cfg->realtime;
    res->n = cfg->n;
    res->hop = cfg->hop ? cfg->hop : cfg->n / 4;
    window_format(&cfg->window, res->window, sizeof res->window);
    if (cfg->channel >= r->ch)
        return sp_fail(ei, SP_EINVAL, "--channel %d: out of range: %s has %d channel%s (0 to %d)", cfg->channel,
                       info->name, r->ch, r->ch == 1 ? "" : "s", r->ch - 1);
    res->out_channels = cfg->channel == STFT_CHANNEL_ALL ? r->ch : 1;
    r->limit = UINT64_MAX;
    if (cfg->duration > 0) {
        double l = cfg->duration * info->rate + 0.5;
        if (l < 1.0)
            return sp_fail(ei, SP_EINVAL, "--duration %g: shorter than one sample at %d Hz", cfg->duration,
                           info->rate);
        r->limit = l >= 1.8e19 ? UINT64_MAX : (uint64_t)l;
    }
    return SP_OK;
}

/* Live: at most ~half a second (or 4 frames) behind before skipping ahead to the newest n
 * samples; the ring holds twice that. Files: a fixed FILE_RING_FLOATS. */
static int run_make_ring(run *r, sp_errinfo *ei)
{
    size_t ring_floats = FILE_RING_FLOATS, rate = (size_t)r->res->info.rate, n = r->cfg->n;
    if (r->res->live) {
        r->lag = rate / 2 > 4 * n ? rate / 2 : 4 * n;
        r->keep = n;
        ring_floats = pow2_at_least(2 * r->lag * (size_t)r->ch);
    }
    r->whole = READ_BLOCK_FLOATS / (size_t)r->ch;
    r->ring_mem = malloc(ring_floats * sizeof *r->ring_mem);
    r->buf = malloc(r->whole * (size_t)r->ch * sizeof *r->buf);
    if (!r->ring_mem || !r->buf)
        return sp_fail(ei, SP_ENOMEM, "out of memory for the sample ring");
    ring_init(&r->r, r->ring_mem, ring_floats);
    return SP_OK;
}

/* The window, the FFT plan (a GPU's start-up) and the framer, which calls the sinks. */
static int run_make_plan(run *r, sp_errinfo *ei)
{
    const analyze_config *cfg = r->cfg;
    analyze_result *res = r->res;
    double wsum = 0.0;
    fft_config fc = fft_config_default();
    stft_config sc = stft_config_default();
    int err;
    if (!(r->win = malloc(cfg->n * sizeof *r->win)))
        return sp_fail(ei, SP_ENOMEM, "out of memory for a window of %zu samples", cfg->n);
    if ((err = window_fill(&cfg->window, cfg->n, r->win, &wsum)) != SP_OK)
        return sp_fail(ei, err, "--window: cannot make a %s window of %zu samples", res->window, cfg->n);
    fc.backend = cfg->backend;
    fc.n = cfg->n;
    fc.hop = res->hop;
    fc.window = r->win;
    fc.live = res->live;
    res->plan_s = sp_now();
    fc.max_batch = cfg->batch      ? cfg->batch
                   : res->live     ? (res->hop > LIVE_BIG_HOP ? 1 : LIVE_BATCH)
                                   : analyze_auto_batch(cfg->n, res->hop, res->out_channels,
                                                        fft_backend_resolve(cfg->backend) != FFT_BACKEND_CPU);
    if ((err = fft_plan_create(&fc, &r->plan, ei)) != SP_OK)
        return err;
    res->batch = fc.max_batch;
    res->plan_s = sp_now() - res->plan_s;
    snprintf(res->backend, sizeof res->backend, "%s", fft_plan_backend_name(r->plan));
    snprintf(res->fallback, sizeof res->fallback, "%s", fft_plan_fallback_reason(r->plan));
    sc.n = cfg->n;
    sc.hop = res->hop;
    sc.in_channels = r->ch;
    sc.channel = cfg->channel;
    sc.batch = fc.max_batch;
    return stft_create(&sc, r->plan, pipe_sinks_frames, &r->sinks, &r->st, ei);
}

/* What the run is, for the sinks' open. */
static sink_stream stream_of(const run *r)
{
    const analyze_result *res = r->res;
    int channel = r->cfg->channel;
    int64_t frames = res->info.frames_hint;
    sink_stream ss;
    memset(&ss, 0, sizeof ss);
    if (r->limit != UINT64_MAX && (frames < 0 || (uint64_t)frames > r->limit))
        frames = (int64_t)r->limit;
    ss.source = res->info.name;
    ss.format = res->info.format;
    ss.rate = res->info.rate;
    ss.source_channels = res->info.channels;
    ss.channels = res->out_channels;
    ss.channel = channel;
    ss.channel_name = channel == STFT_CHANNEL_MIX ? "mix" : channel == STFT_CHANNEL_ALL ? "all" : NULL;
    ss.n = res->n;
    ss.hop = res->hop;
    ss.bins = res->n / 2 + 1;
    ss.window = res->window;
    ss.backend = res->backend;
    ss.time_first_s = (double)(res->n / 2) / res->info.rate;
    ss.time_step_s = (double)res->hop / res->info.rate;
    ss.bin_hz = (double)res->info.rate / (double)res->n;
    ss.source_frames = res->info.frames_hint;
    ss.frames_hint = expected_frames(frames, res->n, res->hop);
    ss.frames_expected = res->live ? -1 : ss.frames_hint;
    ss.live = res->live;
    return ss;
}

/* Live: fallen more than `lag` frames behind, drop all but the newest `keep`. The paced
 * reader only drops when the ring is full, so its drops come before those frames too, as
 * do the source's gaps up to there: the frame times move on by all of it, and stay exact.
 * 1 when the duration ends in what was dropped. */
static int live_catch_up(run *r, uint64_t lost, size_t *avail)
{
    size_t gap = *avail - r->keep;
    uint64_t skipped = gap + (lost - r->lost_seen) + source_take_gaps(r->src, r->taken + gap, &r->next_gap);
    r->lost_seen = lost;
    if (skipped >= r->limit - r->consumed)
        return 1;
    ring_skip(&r->r, gap * (size_t)r->ch);
    r->taken += gap;
    stft_discard(r->st, skipped);
    r->res->dropped += gap;
    r->consumed += skipped;
    *avail = r->keep;
    return 0;
}

/* A gap in the source's audio (counted in source_dropped): no frame spans it, and the frame
 * times move on by it. 1 when the duration ends in the gap. */
static int skip_source_gaps(run *r)
{
    uint64_t gone = source_take_gaps(r->src, r->taken, &r->next_gap);
    if (gone == 0)
        return 0;
    if (gone >= r->limit - r->consumed)
        return 1;
    stft_discard(r->st, gone);
    r->consumed += gone;
    return 0;
}

/* Moves `avail` frames from the ring into the framer. */
static int consume(run *r, size_t avail, sp_errinfo *ei)
{
    const analyze_config *cfg = r->cfg;
    double rate = r->res->info.rate;
    int err;
    if (avail > r->whole)
        avail = r->whole;
    if ((uint64_t)avail > r->limit - r->consumed)
        avail = (size_t)(r->limit - r->consumed);
    if (cfg->capture_anchor && r->res->live && r->consumed == 0)
        /* the newest sample in the ring was captured about now */
        *cfg->capture_anchor = sp_now() - (double)(ring_readable(&r->r) / (size_t)r->ch) / rate;
    ring_read(&r->r, r->buf, avail * (size_t)r->ch);
    r->taken += avail;
    if ((err = stft_push(r->st, r->buf, avail, ei)) != SP_OK)
        return err;
    r->consumed += avail;
    if (r->res->live && (err = stft_flush(r->st, ei)) != SP_OK)
        return err;
    if (!r->stalled && cfg->test.stall_for > 0 && (double)r->consumed >= cfg->test.stall_at * rate) {
        r->stalled = 1;
        sp_sleep(cfg->test.stall_for);
    }
    progress_update(&r->pg, (int64_t)r->consumed);
    return SP_OK;
}

/* The loop: ring -> framer until the input ends, the duration is reached or a stop. */
static int pump(run *r, sp_errinfo *ei)
{
    const analyze_config *cfg = r->cfg;
    analyze_result *res = r->res;
    int err;
    while (r->consumed < r->limit) {
        size_t avail;
        uint64_t lost;
        int finished = pipe_input_finished(&r->in);
        if (cfg->stop && atomic_load(cfg->stop)) {
            if (!res->live)
                return sp_fail(ei, SP_EINTERRUPTED, "interrupted");
            res->interrupted = 1; /* Ctrl-C ends a live run normally */
            break;
        }
        if ((err = pipe_input_status(&r->in, ei)) != SP_OK)
            return err;
        /* what the paced reader dropped (the ring was full) is read before what the ring
         * holds. The microphone places its drops itself (source_take_gaps): read after the
         * ring, so every gap before a frame seen is known. */
        lost = pipe_input_dropped(&r->in);
        avail = ring_readable(&r->r) / (size_t)r->ch;
        if (res->live && avail > r->lag && live_catch_up(r, lost, &avail))
            break; /* the duration ends in what was dropped */
        if (skip_source_gaps(r))
            break; /* the duration ends in the gap */
        if ((uint64_t)avail > r->next_gap - r->taken)
            avail = (size_t)(r->next_gap - r->taken); /* up to the gap, not across it */
        if (avail == 0) {
            double t_wait;
            /* `finished` was read before `avail`: a finished reader has nothing more to give */
            if (finished && ring_readable(&r->r) < (size_t)r->ch)
                break;
            t_wait = sp_now();
            sp_sleep(100e-6);
            res->wait_s += sp_now() - t_wait;
            continue;
        }
        if ((err = consume(r, avail, ei)) != SP_OK)
            return err;
    }
    return SP_OK;
}

/* After the loop: the input stopped, the last frames out, the result, the sinks finished. */
static int run_end(run *r, sp_errinfo *ei)
{
    analyze_result *res = r->res;
    sink_end end;
    int err;
    progress_end(&r->pg);
    if ((err = pipe_input_stop(&r->in, ei)) != SP_OK)
        return err;
    if (!res->live && stft_samples(r->st) == 0)
        return sp_fail(ei, SP_EINPUT, "%s: holds no audio samples", res->info.name);
    if ((err = stft_finish(r->st, ei)) != SP_OK)
        return err;
    res->frames = stft_frames(r->st);
    res->samples = stft_samples(r->st);
    res->nonfinite = source_nonfinite(r->src);
    res->truncated = source_truncated(r->src);
    res->dropped += source_dropped(r->src) + pipe_input_dropped(&r->in);
    memset(&end, 0, sizeof end);
    end.frames = res->frames;
    end.samples = res->samples;
    end.nonfinite_samples = res->nonfinite;
    end.dropped_samples = res->dropped;
    end.truncated = res->truncated;
    end.interrupted = res->interrupted;
    return pipe_sinks_finish(&r->sinks, &end, ei);
}

/* src: a source already open (the run takes it), or NULL to open cfg's input. */
static int run_all(const analyze_config *cfg, source *src, analyze_result *res, sp_errinfo *ei)
{
    analyze_result local;
    run r;
    double t_start = sp_now();
    int err;

    if (!res)
        res = &local;
    memset(res, 0, sizeof *res);
    memset(&r, 0, sizeof r);
    r.cfg = cfg;
    r.res = res;
    r.src = src;
    if (!cfg) {
        source_close(src);
        return sp_fail(ei, SP_EINVAL, "analyze_run: no config");
    }
    if ((err = pipe_sinks_build(&r.sinks, cfg, ei)) != SP_OK)
        goto done;
    if (cfg->realtime && !cfg->input && !src) {
        err = sp_fail(ei, SP_EINVAL, "--realtime streams a file: give a FILE");
        goto done;
    }
    if ((err = run_open_source(&r, ei)) != SP_OK || (err = run_make_ring(&r, ei)) != SP_OK)
        goto done;
    /* a file is read and decoded from now on, while the FFT plan (a GPU's start) is made;
     * live input starts once everything is ready, so that it does not begin behind */
    if (!res->live && (err = pipe_input_start(&r.in, r.src, &r.r, 0, cfg->stop, ei)) != SP_OK)
        goto done;
    if ((err = run_make_plan(&r, ei)) != SP_OK)
        goto done;
    {
        sink_stream ss = stream_of(&r);
        if ((err = pipe_sinks_open(&r.sinks, &ss, ei)) != SP_OK)
            goto done;
    }
    if (res->live && (err = pipe_input_start(&r.in, r.src, &r.r, cfg->realtime, cfg->stop, ei)) != SP_OK)
        goto done;
    progress_begin(&r.pg, stderr, cfg->progress && !res->live, res->info.rate, res->info.frames_hint);
    if ((err = pump(&r, ei)) != SP_OK)
        goto done;
    err = run_end(&r, ei);

done:
    if (err != SP_OK) {
        pipe_sinks_abort(&r.sinks);
        progress_end(&r.pg);
    }
    pipe_input_stop(&r.in, NULL);
    res->seconds = sp_now() - t_start;
    if (r.st)
        stft_times(r.st, &res->fft_s, &res->sink_s);
    pipe_sinks_free(&r.sinks);
    stft_destroy(r.st);
    fft_plan_destroy(r.plan);
    source_close(r.src);
    free(r.ring_mem);
    free(r.buf);
    free(r.win);
    return err;
}

int analyze_run(const analyze_config *cfg, analyze_result *res, sp_errinfo *ei)
{
    return run_all(cfg, NULL, res, ei);
}

int analyze_run_source(const analyze_config *cfg, source *src, analyze_result *res, sp_errinfo *ei)
{
    if (!src) {
        if (res)
            memset(res, 0, sizeof *res);
        return sp_fail(ei, SP_EINVAL, "analyze_run_source: no source");
    }
    return run_all(cfg, src, res, ei);
}
