#include "analyze.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "pipeline_internal.h"
#include "progress.h"

#define READ_BLOCK_FLOATS (1u << 16) /* one ring_read, all channels */
#define FILE_CONSUME_FLOATS (1u << 20) /* a file: at most this much from the ring at a time */
#define REDUCED_MIN_CALLS 8         /* a reduced run's bigger calls: when it makes this many */
#define LIVE_BATCH 16                /* frames per FFT call in live runs */
#define LIVE_BIG_HOP ((size_t)1 << 20) /* live hops above it: one frame per call (the framer
                                        * holds (batch-1) hops + n samples) */

analyze_config analyze_config_default(void)
{
    analyze_config c;
    memset(&c, 0, sizeof c);
    c.n = FFT_DEFAULT_SIZE;
    c.window = window_spec_default();
    c.xform = xform_spec_default();
    c.channel = STFT_CHANNEL_MIX;
    c.backend = FFT_BACKEND_AUTO;
    c.render = render_config_default();
    c.measure = sink_measure_default();
    c.file = source_file_options_default();
    return c;
}

analyze_context analyze_context_default(void)
{
    analyze_context c;
    memset(&c, 0, sizeof c);
    c.out = stdout;
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

size_t analyze_auto_batch(size_t n, size_t hop, int out_channels, int gpu, int reduced)
{
    /* output budget per call: 512K dB values (2 MB) on the CPU, so that reading, the FFT
     * and writing overlap from the start; 4M on a GPU, where bigger launches pay off; 16M
     * spectrum values on the device when only their reductions come back */
    size_t budget = (!gpu ? (size_t)1 << 19 : reduced ? (size_t)1 << 24 : (size_t)1 << 22) / (size_t)out_channels;
    size_t b = budget / (n / 2 + 1);
    /* signal samples held (pinned twice on a GPU: pinning 45 MB took 21 ms after CUDA's
     * start on the H100 host, so a reduced run's bigger calls hold no more signal than the
     * others'; the device's column maxima, staged a row a frame, do grow with the call) */
    size_t span_cap = ((size_t)1 << (reduced && gpu ? 22 : 24)) / (size_t)out_channels;
    if (b > 8192)
        b = 8192;
    if (hop > 0 && b > 1 + span_cap / hop)
        b = 1 + span_cap / hop;
    return b < 1 ? 1 : b;
}

size_t analyze_frames_batch(size_t n, size_t hop, int out_channels)
{
    const size_t span = ((size_t)1 << 20) / (size_t)(out_channels > 0 ? out_channels : 1);
    size_t b = n >= span || hop == 0 ? 1 : 1 + (span - n) / hop;
    return b > 8192 ? 8192 : b;
}

static size_t pow2_at_least(size_t v)
{
    size_t p = 2;
    while (p < v)
        p <<= 1;
    return p;
}

/* Frames a source of `frames` samples gives (docs/design.md "Frames"), -1 when unknown. */
static int64_t expected_frames(int64_t frames, size_t n, size_t hop)
{
    if (frames < 0)
        return -1;
    if ((uint64_t)frames < n)
        return 1;
    return (int64_t)(((uint64_t)frames - n) / hop + 1);
}

/* One run's state, from set-up to the end. The plan and the framer are the session's; the
 * source, the ring and the reader are its feed's (a read-ahead may have started them). */
typedef struct {
    analyze_session *ss;
    const analyze_config *cfg;
    const analyze_context *ctx; /* the session's */
    analyze_result *res;
    pipe_feed *f;
    source *src;            /* f->src */
    ring *ring;             /* &f->r */
    pipe_input *in;         /* &f->in */
    fft_plan *plan;
    stft *st;
    float *win, *buf;
    pipe_sinks sinks;
    progress own_pg;        /* the bar of a run on its own */
    progress *pg;           /* own_pg, or the batch's bar */
    int ch;                 /* source channels */
    int may_skip;           /* live input that runs at its own clock (microphone, --realtime):
                             * frames are skipped when the analysis falls behind */
    uint64_t start;         /* --start in samples: where the analysis began */
    size_t whole;           /* frames per ring_read */
    size_t lag, keep;       /* live: frames behind before skipping; frames kept when skipping */
    uint64_t limit;         /* frames to analyse (--duration), UINT64_MAX = all */
    uint64_t consumed;      /* frames analysed or skipped: where the stream is */
    uint64_t lost_seen;     /* --realtime: samples the reader dropped, as far as skips took them in */
    uint64_t taken;         /* frames read or skipped from the ring: where the source's gaps are placed */
    uint64_t next_gap;      /* where the next gap the source reported lies */
    int stalled;
    int fft_off;            /* the sinks take samples only: no FFT (docs/design.md "Data
                             * flow"); samples_in counts what the framer would have */
    uint64_t samples_in;
    uint64_t pushed;        /* frames of the current consume pushed so far */
    /* --backend auto's choice, weighed once a run (plan_job_and_batch): the ring, the batch
     * and the plan all follow it */
    int chosen;             /* made (choice_ok: and fft_config_choose succeeded) */
    int choice_ok;
    fft_choice choice;
} run;

/* Samples at `seconds` into the input (the nearest sample; a start given as k*hop/rate is
 * exactly k*hop). */
static uint64_t to_samples(double seconds, int rate)
{
    double v = nearbyint(seconds * rate);
    return v >= 1.8e19 ? UINT64_MAX : (uint64_t)v;
}

/* "song.wav: --start 90 s is past the end of the audio (61.250 s)" */
static int range_past_end(const run *r, const char *what, double at_s, int64_t length, sp_errinfo *ei)
{
    const source_info *info = &r->res->info;
    if (length >= 0)
        return sp_fail(ei, SP_EINVAL, "%s: %s %g s is past the end of the audio (%.3f s)", info->name, what, at_s,
                       (double)length / info->rate);
    return sp_fail(ei, SP_EINVAL, "%s: %s %g s is past the end of the audio", info->name, what, at_s);
}

/* --start (a seek, or reading up to it) and --end (a limit counted from the start). */
static int run_range(run *r, sp_errinfo *ei)
{
    const analyze_config *cfg = r->cfg;
    int rate = r->res->info.rate;
    int64_t reached = 0;
    int err;
    r->start = cfg->start > 0 ? to_samples(cfg->start, rate) : 0;
    if (r->start > 0 && source_is_push(r->src))
        return sp_fail(ei, SP_EINVAL, SP_FIELD("start") ": %s is live; a time range needs a file or a pipe",
                       r->res->info.name);
    if (cfg->end > 0) {
        uint64_t end = to_samples(cfg->end, rate);
        if (end <= r->start)
            return sp_fail(ei, SP_EINVAL, SP_FIELD("end") " %g: must be after " SP_FIELD("start") " %g (at %d Hz)",
                           cfg->end, cfg->start, rate);
        r->limit = end - r->start;
    }
    r->res->start_s = (double)r->start / rate;
    if (r->start == 0)
        return SP_OK;
    if (r->start > INT64_MAX)
        return range_past_end(r, SP_FIELD("start"), cfg->start, -1, ei);
    err = source_seek(r->src, (int64_t)r->start, r->ctx->stop, &reached, ei);
    if (err == SP_EINPUT) /* the source knows its end: a seek past it */
        return range_past_end(r, SP_FIELD("start"), cfg->start, r->res->info.samples_hint, ei);
    if (err != SP_OK)
        return err;
    if (r->ctx->stop && atomic_load(r->ctx->stop))
        return sp_fail(ei, SP_EINTERRUPTED, "interrupted");
    if ((uint64_t)reached < r->start) /* read up to it, and the audio ended first */
        return range_past_end(r, SP_FIELD("start"), cfg->start, reached, ei);
    r->res->start_sought = source_sought(r->src);
    return SP_OK;
}

/* The source and what follows from it: live or not, hop, channels, the time range. */
/* The highest top of a frequency range asked for above Nyquist (each output clips it
 * there: the picture's axis, the peak search, the tone and band ranges), or 0. */
static double fmax_above(const analyze_config *cfg, double nyquist)
{
    const double top[] = {cfg->render.fmax, cfg->peak_fmax, cfg->measure.band_hi};
    double above = 0.0;
    for (size_t i = 0; i < sizeof top / sizeof top[0]; i++)
        if (top[i] > nyquist && top[i] > above)
            above = top[i];
    return above;
}

static int run_open_source(run *r, sp_errinfo *ei)
{
    const analyze_config *cfg = r->cfg;
    analyze_result *res = r->res;
    source_request req = {cfg->input, cfg->device, cfg->rate, cfg->channels, cfg->file, r->ctx->stop,
                          cfg->measure.reference, cfg->measure.transfer_ref, cfg->measure.transfer_meas,
                          cfg->measure.compare, cfg->measure.resample};
    const source_info *info;
    int err;
    if (r->f->open_err != SP_OK) { /* the read-ahead of this input failed */
        if (ei)
            *ei = r->f->open_ei;
        return r->f->open_err;
    }
    if (!r->f->src && (err = source_open_request(&req, &r->f->src, ei)) != SP_OK)
        return err;
    r->src = r->f->src;
    info = source_get_info(r->src);
    r->ch = info->channels;
    res->info = *info;
    /* a pipe is live: it delivers at its writer's pace and has no length (source.h) */
    r->may_skip = source_is_push(r->src) || cfg->realtime;
    res->live = r->may_skip || info->pipe;
    res->n = cfg->n;
    res->hop = stft_hop_or_default(cfg->hop, cfg->n);
    window_format(&cfg->window, res->window, sizeof res->window);
    if (cfg->channel >= r->ch)
        return sp_fail(ei, SP_EINVAL, SP_FIELD("channel") " %d: out of range: %s has %d channel%s (0 to %d)",
                       cfg->channel, info->name, r->ch, r->ch == 1 ? "" : "s", r->ch - 1);
    res->out_channels = cfg->channel == STFT_CHANNEL_ALL ? r->ch : 1;
    res->fmax_clipped = fmax_above(cfg, info->rate / 2.0);
    r->limit = UINT64_MAX;
    if (cfg->duration > 0) {
        double l = cfg->duration * info->rate + 0.5;
        if (l < 1.0)
            return sp_fail(ei, SP_EINVAL, SP_FIELD("duration") " %g: shorter than one sample at %d Hz", cfg->duration,
                           info->rate);
        r->limit = l >= 1.8e19 ? UINT64_MAX : (uint64_t)l;
    }
    return run_range(r, ei);
}

/* Samples a channel the run analyses, as far as known: the input's after --start, up to
 * --end or --duration; -1 unknown. */
static int64_t run_samples(const run *r)
{
    int64_t samples = r->res->info.samples_hint;
    if (samples > 0)
        samples = (uint64_t)samples > r->start ? samples - (int64_t)r->start : 0;
    if (r->limit != UINT64_MAX && (samples < 0 || (uint64_t)samples > r->limit))
        samples = (int64_t)r->limit;
    return samples;
}

/* The job auto weighs (frames a channel as far as known, channels, the rate) and the
 * frames per FFT call: the batch of the backend auto will choose, weighed with the cpu's
 * batch first (its threads never outnumber a call's frames); no CUDA call. The choice is
 * made at the first call of the run and kept in r (the plan takes it: run_make_plan). 1 when
 * the run will ask for a GPU. */
static int plan_job_and_batch(run *r, fft_config *fc)
{
    const analyze_config *cfg = r->cfg;
    const analyze_result *res = r->res;
    int64_t frames = expected_frames(run_samples(r), res->n, res->hop);
    int gpu = cfg->backend != FFT_BACKEND_CPU;
    fc->job.channels = res->out_channels;
    fc->job.frames = frames > 0 ? (uint64_t)frames : 0;
    fc->job.rate = res->info.rate;
    if (cfg->batch || res->live) {
        fc->max_batch = cfg->batch ? cfg->batch : res->hop > LIVE_BIG_HOP ? 1 : LIVE_BATCH;
        return gpu;
    }
    fc->max_batch = analyze_auto_batch(cfg->n, res->hop, res->out_channels, 0, 0);
    if (cfg->backend == FFT_BACKEND_AUTO) {
        if (!r->chosen) {
            r->choice_ok = fft_config_choose(fc, &r->choice) == SP_OK;
            r->chosen = 1;
        }
        gpu = r->choice_ok && r->choice.kind != FFT_BACKEND_CPU;
    }
    if (gpu) {
        /* reductions only, over many calls: bigger ones (a short picture still takes
         * spectra, which would fill buffers of the bigger size). Only in the process's one
         * run: the files of a batch share a plan, which a batch size that follows each
         * file's length would make again and again. */
        size_t big = analyze_auto_batch(cfg->n, res->hop, res->out_channels, 1, 1);
        int reduced = r->ctx->last_run && pipe_sinks_reduce_only(cfg, r->ctx) &&
                      fc->job.frames >= REDUCED_MIN_CALLS * (uint64_t)big;
        fc->max_batch = reduced ? big : analyze_auto_batch(cfg->n, res->hop, res->out_channels, 1, 0);
    }
    /* a transform on the host's threads: its frames, no spectra (a GPU's bank keeps the
     * GPU's batch) */
    if (!gpu && cfg->xform.kind != XFORM_NONE)
        fc->max_batch = analyze_frames_batch(cfg->n, res->hop, res->out_channels);
    return gpu;
}

/* The FFT's config of the run, before its plan: backend, sizes, the job's size for auto. */
static int run_fft_config(run *r, fft_config *fc)
{
    *fc = fft_config_default();
    /* a transform without a filter bank transforms its frames itself, on the host's
     * threads (docs/transforms.md "Where it runs"): auto starts no GPU for it */
    fc->backend = r->cfg->backend == FFT_BACKEND_AUTO && r->cfg->xform.kind != XFORM_NONE &&
                          !xform_kind_banked(r->cfg->xform.kind)
                      ? FFT_BACKEND_CPU
                      : r->cfg->backend;
    fc->n = r->cfg->n;
    fc->hop = r->res->hop;
    fc->window = r->win;
    fc->live = r->res->live;
    fc->tuning = r->cfg->fft_tuning;
    if (r->fft_off) { /* a small plan that is never run: no GPU started for it */
        fc->backend = FFT_BACKEND_CPU;
        fc->max_batch = 1;
        return 0;
    }
    return plan_job_and_batch(r, fc);
}

/* A file analysed on a GPU: while the GPU starts (0.2-0.3 s, time for the decoder threads to
 * read most of an hour), the reader fills the ring, which then holds up to what the run
 * analyses (after --start, up to --end; GPU_RING_FLOATS at most, and an eighth of the
 * memory); else FILE_RING_FLOATS. Pages are touched only as far as the reader gets. */
static size_t file_ring_floats(run *r)
{
    fft_config fc;
    int64_t frames = run_samples(r);
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    uint64_t want, cap = GPU_RING_FLOATS;
    if (frames <= 0 || !run_fft_config(r, &fc))
        return FILE_RING_FLOATS;
    if (pages > 0 && page > 0 && (uint64_t)pages / 8 * (uint64_t)page / sizeof(float) < cap)
        cap = (uint64_t)pages / 8 * (uint64_t)page / sizeof(float);
    want = (uint64_t)frames * (uint64_t)r->ch;
    if (want <= FILE_RING_FLOATS)
        return FILE_RING_FLOATS;
    want = pow2_at_least((size_t)(want < cap ? want : cap));
    return want > cap ? (size_t)want / 2 : (size_t)want;
}



/* Live: at most ~half a second (or 4 frames) behind before skipping ahead to the newest n
 * samples; the ring holds twice that. Files: file_ring_floats (unless a read-ahead made the
 * ring and is filling it already). */
static int run_make_ring(run *r, sp_errinfo *ei)
{
    size_t ring_floats = FILE_RING_FLOATS, rate = (size_t)r->res->info.rate, n = r->cfg->n;
    if (!r->res->live && !r->in->reading)
        ring_floats = file_ring_floats(r);
    if (r->res->live) {
        r->lag = rate / 2 > 4 * n ? rate / 2 : 4 * n;
        r->keep = n;
        ring_floats = pow2_at_least(2 * r->lag * (size_t)r->ch);
    }
    /* frames a consume takes at most: live, a block; a file, up to a big one, read in place */
    r->whole = (r->res->live ? READ_BLOCK_FLOATS : FILE_CONSUME_FLOATS) / (size_t)r->ch;
    r->buf = malloc((size_t)r->ch * sizeof *r->buf); /* a frame across the ring's wrap */
    if (!r->buf)
        return sp_fail(ei, SP_ENOMEM, "out of memory for the sample ring");
    return r->in->reading ? SP_OK : pipe_feed_ring(r->f, ring_floats, ei);
}

/* The run's window. An input known to hold fewer samples L than n gives one zero-padded
 * frame (docs/design.md "Frames"); its window is the L-point one, zeros after: levels, the peaks' and the
 * measurements' window shapes (all read from these coefficients) are then those of the L
 * samples present, where the n-point window cut at L read low (-9.7 dB for -6 dB) and
 * leaked like a rectangle (a clean sine's THD -40 dB). The bins stay n/2+1. */
static int run_window(run *r, sp_errinfo *ei)
{
    const analyze_config *cfg = r->cfg;
    analyze_result *res = r->res;
    int64_t len = run_samples(r);
    double wsum = 0.0;
    int err;
    if (!(r->win = malloc(cfg->n * sizeof *r->win)))
        return sp_fail(ei, SP_ENOMEM, "out of memory for a window of %zu samples", cfg->n);
    if (len > 0 && (uint64_t)len < cfg->n && window_fill(&cfg->window, (size_t)len, r->win, &wsum) == SP_OK &&
        wsum > 0.0) {
        memset(r->win + len, 0, (cfg->n - (size_t)len) * sizeof *r->win);
        res->short_samples = (uint64_t)len;
        return SP_OK;
    }
    if ((err = window_fill(&cfg->window, cfg->n, r->win, &wsum)) != SP_OK)
        return sp_fail(ei, err, SP_FIELD("window") ": cannot make a %s window of %zu samples", res->window, cfg->n);
    return SP_OK;
}

/* The window, the FFT plan (a GPU's start-up) and the framer, which calls the sinks. */
static int run_make_plan(run *r, sp_errinfo *ei)
{
    const analyze_config *cfg = r->cfg;
    analyze_result *res = r->res;
    fft_config fc = fft_config_default();
    stft_config sc = stft_config_default();
    int err;
    if ((err = run_window(r, ei)) != SP_OK)
        return err;
    res->plan_s = sp_now();
    run_fft_config(r, &fc);
    if ((err = session_plan(r->ss, &fc, r->chosen && r->choice_ok ? &r->choice : NULL, &r->plan, ei)) != SP_OK)
        return err;
    fft_plan_set_unit_bound(r->plan, res->info.unit_bound); /* a plan kept from the last file's too */
    res->batch = fc.max_batch;
    res->plan_s = sp_now() - res->plan_s;
    snprintf(res->backend, sizeof res->backend, "%s", fft_plan_backend_name(r->plan));
    snprintf(res->fallback, sizeof res->fallback, "%s", fft_plan_fallback_reason(r->plan));
    res->choice = *fft_plan_choice(r->plan);
    sc.n = cfg->n;
    sc.hop = res->hop;
    sc.in_channels = r->ch;
    sc.channel = cfg->channel;
    sc.batch = fc.max_batch;
    if ((err = session_stft(r->ss, &sc, r->plan, &r->sinks, &r->st, ei)) != SP_OK)
        return err;
    /* a file's stop ends the run between FFT calls (a read from the ring can hold hours of
     * them); a live run's blocks are small, and its stop is a normal end that keeps what the
     * framer holds (pump) */
    stft_set_stop(r->st, r->res->live ? NULL : r->ctx->stop);
    return SP_OK;
}

/* What the run is, for the sinks' open. */
static sink_stream stream_of(const run *r)
{
    const analyze_result *res = r->res;
    int channel = r->cfg->channel;
    int64_t samples = res->info.samples_hint;
    sink_stream st;
    memset(&st, 0, sizeof st);
    if (samples >= 0) /* what is left after --start */
        samples = (uint64_t)samples > r->start ? samples - (int64_t)r->start : 0;
    if (r->limit != UINT64_MAX && (samples < 0 || (uint64_t)samples > r->limit))
        samples = (int64_t)r->limit;
    st.source = res->info.name;
    st.format = res->info.format;
    st.decoder = res->info.decoder;
    st.start_s = res->start_s;
    st.rate = res->info.rate;
    st.source_channels = res->info.channels;
    st.channels = res->out_channels;
    st.channel = channel;
    st.channel_name = channel == STFT_CHANNEL_MIX ? "mix" : channel == STFT_CHANNEL_ALL ? "all" : NULL;
    st.n = res->n;
    st.hop = res->hop;
    st.bins = res->n / 2 + 1;
    st.window = res->window;
    st.window_coef = r->win;
    st.backend = res->backend;
    /* a frame's centre; the one padded frame's is that of the samples present */
    st.time_first_s = res->short_samples ? ((double)r->start + (double)res->short_samples / 2.0) / res->info.rate
                                         : (double)(r->start + res->n / 2) / res->info.rate;
    st.time_step_s = (double)res->hop / res->info.rate;
    st.bin_hz = (double)res->info.rate / (double)res->n;
    st.source_frames = r->start ? samples : res->info.samples_hint;
    st.frames_hint = expected_frames(samples, res->n, res->hop);
    st.frames_expected = res->live ? -1 : st.frames_hint;
    st.live = res->live;
    st.aligned_s = (double)res->info.aligned / res->info.rate;
    st.level_unit = r->cfg->render.level_unit;
    return st;
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
    ring_skip(r->ring, gap * (size_t)r->ch);
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

/* `count` frames from the ring into the framer: read in place where they lie in one piece
 * (one copy fewer for every sample of a file), through r->buf where a frame straddles the
 * ring's wrap. */
static int push_from_ring(run *r, size_t count, sp_errinfo *ei)
{
    size_t ch = (size_t)r->ch;
    while (count > 0) {
        const float *p;
        size_t n = ring_peek(r->ring, &p) / ch;
        int err;
        if (n > count)
            n = count;
        if (n == 0) { /* a frame across the wrap */
            n = 1;
            ring_read(r->ring, r->buf, ch);
            p = r->buf;
        }
        err = pipe_sinks_samples(&r->sinks, r->consumed + r->pushed, n, p, ei);
        if (err == SP_OK && !r->fft_off)
            err = stft_push(r->st, p, n, ei);
        if (p != r->buf)
            ring_skip(r->ring, n * ch);
        if (err != SP_OK)
            return err;
        r->taken += n;
        r->pushed += n;
        r->samples_in += n;
        count -= n;
    }
    return SP_OK;
}

/* Moves `avail` frames from the ring into the framer. */
static int consume(run *r, size_t avail, sp_errinfo *ei)
{
    double rate = r->res->info.rate;
    int err;
    if (avail > r->whole)
        avail = r->whole;
    if ((uint64_t)avail > r->limit - r->consumed)
        avail = (size_t)(r->limit - r->consumed);
    if (r->ctx->capture_anchor && r->res->live && r->consumed == 0)
        /* the newest sample in the ring was captured about now */
        *r->ctx->capture_anchor = sp_now() - (double)(ring_readable(r->ring) / (size_t)r->ch) / rate;
    r->pushed = 0;
    if ((err = push_from_ring(r, avail, ei)) != SP_OK)
        return err;
    r->consumed += avail;
    if (r->res->live && !r->fft_off && (err = stft_flush(r->st, ei)) != SP_OK)
        return err;
    progress_update(r->pg, (int64_t)r->consumed); /* before a test's stall: the bar shows it */
    if (!r->stalled && r->ctx->test.stall_for > 0 && (double)r->consumed >= r->ctx->test.stall_at * rate) {
        r->stalled = 1;
        sp_sleep(r->ctx->test.stall_for);
    }
    return SP_OK;
}

/* The loop: ring -> framer until the input ends, the duration is reached or a stop. */
static int pump(run *r, sp_errinfo *ei)
{
    analyze_result *res = r->res;
    int err;
    while (r->consumed < r->limit) {
        size_t avail;
        uint64_t lost;
        int finished = pipe_input_finished(r->in);
        if (r->ctx->stop && atomic_load(r->ctx->stop)) {
            if (!res->live)
                return sp_fail(ei, SP_EINTERRUPTED, "interrupted");
            res->interrupted = 1; /* Ctrl-C ends a live run normally */
            break;
        }
        if ((err = pipe_input_status(r->in, ei)) != SP_OK)
            return err;
        if (finished)
            session_read_ahead(r->ss); /* the next input decodes while this one computes */
        /* what the paced reader dropped (the ring was full) is read before what the ring
         * holds. The microphone places its drops itself (source_take_gaps): read after the
         * ring, so every gap before a frame seen is known. */
        lost = pipe_input_dropped(r->in);
        avail = ring_readable(r->ring) / (size_t)r->ch;
        /* a samples-only run (a meter) is cheap and must see every sample: it never skips */
        if (r->may_skip && !r->fft_off && avail > r->lag && live_catch_up(r, lost, &avail))
            break; /* the duration ends in what was dropped */
        if (skip_source_gaps(r))
            break; /* the duration ends in the gap */
        if ((uint64_t)avail > r->next_gap - r->taken)
            avail = (size_t)(r->next_gap - r->taken); /* up to the gap, not across it */
        if (avail == 0) {
            double t_wait;
            /* `finished` was read before `avail`: a finished reader has nothing more to give */
            if (finished && ring_readable(r->ring) < (size_t)r->ch)
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

/* The run's counts at its end, into the result and for the sinks' finish. */
static sink_end run_counts(run *r)
{
    analyze_result *res = r->res;
    sink_end end;
    res->frames = stft_frames(r->st);
    res->frames_skipped = stft_skipped(r->st);
    res->samples = r->fft_off ? r->samples_in : stft_samples(r->st);
    res->nonfinite = source_nonfinite(r->src);
    res->out_of_range = source_out_of_range(r->src);
    res->dropped += source_dropped(r->src) + pipe_input_dropped(r->in);
    memset(&end, 0, sizeof end);
    end.frames = res->frames;
    end.samples = res->samples;
    end.nonfinite_samples = res->nonfinite;
    end.dropped_samples = res->dropped;
    end.truncated = res->truncated;
    end.interrupted = res->interrupted;
    return end;
}

/* After the loop: the input stopped, the last frames out, the result, the sinks finished. */
static int run_end(run *r, sp_errinfo *ei)
{
    analyze_result *res = r->res;
    sink_end end;
    int err;
    if (r->pg == &r->own_pg)
        progress_end(r->pg);
    session_read_ahead(r->ss); /* (when the loop ended before the reader: --duration) */
    if ((err = pipe_input_stop(r->in, ei)) != SP_OK)
        return err;
    if ((!res->live || res->info.pipe) && (r->fft_off ? r->samples_in : stft_samples(r->st)) == 0)
        return sp_fail(ei, SP_EINPUT, "%s: holds no audio samples", res->info.name);
    if (r->cfg->end > 0 && r->consumed < r->limit && !res->interrupted)
        return range_past_end(r, SP_FIELD("end"), r->cfg->end, (int64_t)(r->start + r->consumed), ei);
    if (!r->fft_off && (err = stft_finish(r->st, ei)) != SP_OK)
        return err;
    res->truncated = source_truncated(r->src);
    end = run_counts(r);
    if (r->ctx->last_run) {
        /* nothing more for the FFT: its plan (a GPU's teardown) goes while the outputs finish */
        if ((err = pipe_sinks_settle(&r->sinks, ei)) != SP_OK)
            return err;
        stft_times(r->st, &res->fft_s, &res->sink_s);
        r->st = NULL;
        xform_drop_plan(r->sinks.xf); /* a transform's bank beside the plan goes before it */
        session_release(r->ss);
    }
    return pipe_sinks_finish(&r->sinks, &end, ei);
}

/* A live run whose input was lost (SP_EAUDIO) or whose output stopped (SP_EIO: a disk
 * nearly full, a closed stdout) ends like Ctrl-C for its outputs: the sinks are finished
 * with the frames analysed so far, and the run still fails with that error (exit 1). No
 * frame is flushed: the framer's work may be half done. 1 when the outputs were kept; 0
 * when not (a file run, another error, or finishing failed too): then they are aborted. */
static int run_keep(run *r, int err, sp_errinfo *ei)
{
    analyze_result *res = r->res;
    sp_errinfo why = {{0}};
    sink_end end;
    if (!res->live || r->sinks.opened == 0 || (err != SP_EAUDIO && err != SP_EIO))
        return 0;
    if (ei)
        why = *ei;
    if (r->pg == &r->own_pg)
        progress_end(r->pg);
    pipe_input_stop(r->in, NULL);
    end = run_counts(r);
    err = pipe_sinks_finish(&r->sinks, &end, NULL);
    if (ei)
        *ei = why; /* the reason the run ended, not what finishing said */
    return err == SP_OK;
}

/* The progress bar: the run's own, or its file's part of the batch's. */
static void run_progress_begin(run *r)
{
    const analyze_result *res = r->res;
    /* the range's length; a pipe has none: a bar without a percentage */
    int64_t total = res->info.samples_hint < 0 ? -1 : res->info.samples_hint - (int64_t)r->start;
    if (r->limit != UINT64_MAX && (total < 0 || (uint64_t)total > r->limit))
        total = (int64_t)r->limit;
    r->pg = session_progress(r->ss);
    if (r->pg)
        progress_file(r->pg, res->info.rate, res->live && !res->info.pipe ? -1 : total);
    else
        progress_begin(r->pg = &r->own_pg, stderr, r->ctx->progress && (!res->live || res->info.pipe),
                       res->info.rate, total);
}

int pipe_run(analyze_session *ss, const analyze_config *cfg, source *src, analyze_result *res, sp_errinfo *ei)
{
    run r;
    double t_start = sp_now();
    int err, kept = 0;

    memset(res, 0, sizeof *res);
    memset(&r, 0, sizeof r);
    r.ss = ss;
    r.cfg = cfg;
    r.ctx = session_context(ss);
    r.res = res;
    r.f = session_feed(ss, cfg->input);
    r.ring = &r.f->r;
    r.in = &r.f->in;
    if (src) { /* the caller's source (analyze_run_source): the feed owns it from here */
        pipe_feed_release(r.f);
        r.f->input = cfg->input;
        r.f->src = src;
    }
    if ((err = pipe_sinks_build(&r.sinks, cfg, r.ctx, ei)) != SP_OK)
        goto done;
    r.fft_off = pipe_sinks_samples_only(cfg, r.ctx);
    if (cfg->realtime && !cfg->input && !src) {
        err = sp_fail(ei, SP_EINVAL, SP_FIELD("realtime") " streams a file: give a FILE");
        goto done;
    }
    if ((err = run_open_source(&r, ei)) != SP_OK || (err = run_make_ring(&r, ei)) != SP_OK)
        goto done;
    /* a file is read and decoded from now on (or since the previous run), while the FFT
     * plan (a GPU's start) is made; live input starts once everything is ready, so that it
     * does not begin behind */
    if (!res->live && !r.in->reading &&
        (err = pipe_input_start(r.in, r.src, r.ring, 0, r.ctx->stop, ei)) != SP_OK)
        goto done;
    if ((err = run_make_plan(&r, ei)) != SP_OK)
        goto done;
    {
        sink_stream st = stream_of(&r);
        r.sinks.win = r.win; /* the peak searches level by the window's own transform */
        if ((err = pipe_sinks_xform(&r.sinks, cfg, &st, r.win, ei)) != SP_OK ||
            (err = pipe_sinks_open(&r.sinks, &st, ei)) != SP_OK ||
            (err = pipe_sinks_attach(&r.sinks, r.st, r.plan, ei)) != SP_OK)
            goto done;
        res->maxima_span = r.sinks.span;
        pipe_sinks_unresolved(cfg, &st, res);
    }
    if (res->live && (err = pipe_input_start(r.in, r.src, r.ring, cfg->realtime, r.ctx->stop, ei)) != SP_OK)
        goto done;
    run_progress_begin(&r);
    if ((err = pump(&r, ei)) != SP_OK) {
        kept = run_keep(&r, err, ei);
        goto done;
    }
    err = run_end(&r, ei);

done:
    if (err != SP_OK && !kept) {
        pipe_sinks_abort(&r.sinks);
        if (r.pg == &r.own_pg)
            progress_end(r.pg);
    }
    if (r.pg && r.pg != &r.own_pg)
        progress_file_done(r.pg, (int64_t)r.consumed);
    else if (!r.pg && session_progress(ss))
        progress_file_done(session_progress(ss), 0); /* failed before it began */
    pipe_feed_release(r.f);
    res->seconds = sp_now() - t_start;
    if (r.st)
        stft_times(r.st, &res->fft_s, &res->sink_s);
    pipe_sinks_free(&r.sinks);
    free(r.buf);
    free(r.win);
    return err;
}

/* One run in a session of its own: the input's (src NULL: the config's input), or src. */
static int run_once(const analyze_config *cfg, const analyze_context *ctx, source *src, analyze_result *res,
                    sp_errinfo *ei)
{
    analyze_result local;
    analyze_session *s = NULL;
    int err;

    if (!res)
        res = &local;
    memset(res, 0, sizeof *res);
    if (!cfg) {
        source_close(src);
        return sp_fail(ei, SP_EINVAL, "analyze_run: no config");
    }
    if ((err = analyze_session_create(cfg, ctx, &s, ei)) == SP_OK)
        err = src ? pipe_run(s, cfg, src, res, ei)
                  : analyze_session_run(s, cfg->input, cfg->outputs, cfg->n_outputs, res, ei);
    else
        source_close(src);
    analyze_session_destroy(s);
    return err;
}

int analyze_run(const analyze_config *cfg, const analyze_context *ctx, analyze_result *res, sp_errinfo *ei)
{
    return run_once(cfg, ctx, NULL, res, ei);
}

int analyze_run_source(const analyze_config *cfg, const analyze_context *ctx, source *src, analyze_result *res,
                       sp_errinfo *ei)
{
    if (!src) {
        if (res)
            memset(res, 0, sizeof *res);
        return sp_fail(ei, SP_EINVAL, "analyze_run_source: no source");
    }
    return run_once(cfg, ctx, src, res, ei);
}
