/* spectro_analyzer: the engine's framer (stft.h) on an FFT plan (fft.h), both made once and
 * kept from call to call. The framer hands each block of frames to a callback of this file,
 * which puts it either straight into the caller's array (a whole array's call) or at the
 * end of the stream's queue, from which spectro_analyzer_read takes it. */
#include <stdlib.h>
#include <string.h>

#include "analyze.h" /* analyze_auto_batch: the program's batch sizes */
#include "api_internal.h"
#include "stft.h"
#include "xform.h"

struct spectro_analyzer {
    int rate, channels, channel, outs;
    size_t n, hop, bins, batch;
    uint64_t first_sample;
    char window[64];
    spectro_analyzer_config cfg; /* as made (a whole array shorter than n remakes it); its
                             * strings are this analyzer's own: window, backend NULL */
    size_t win_len;         /* the window's length: n, or the samples of a short array */
    float *win;             /* the window's n coefficients (zeros after win_len) */
    double wsum;
    float *cscale;          /* bins: the complex output's level scale c_k */
    fft_plan *plan;
    stft *st;
    peaks_window *pw;       /* the peak search's, made on first use */
    int output;             /* SPECTRO_OUTPUT_DB or SPECTRO_OUTPUT_COMPLEX */
    int finished;
    size_t elem;            /* bytes a frame of one channel: bins floats or complex */
    /* the stream's queue: frames head .. head+count[c] of each channel's buffer, cap each */
    unsigned char **q;
    size_t *count;
    size_t head, cap;
    uint64_t read_pos;
    /* a whole array's call: frames go to direct[channel][frame] (direct_frames a channel) */
    unsigned char *direct;
    size_t direct_frames;
    /* a stream's first samples while it has fewer than n (interleaved, early_n frames): a
     * stream that ends that short gets a whole short array's frame (whole_short) */
    float *early;
    size_t early_n;
    /* a transform's whole array (api_analyzer_transform): its rows go to xout, its frames
     * through a framer of its own with a bigger batch (analyze_frames_batch; made on first
     * use, with a cpu plan that only sizes it: no FFT runs on it) */
    fft_plan *xplan;
    stft *xst;
    xform *xf;
    float *xout;
    size_t xframes;
};

/* The members of the first API version's structs. */
#define ANALYZER_CONFIG_V1 (offsetof(spectro_analyzer_config, cpu_threads) + sizeof(int))
#define ANALYZER_INFO_V1 (offsetof(spectro_analyzer_info, fallback) + sizeof(((spectro_analyzer_info *)0)->fallback))

spectro_analyzer_config spectro_analyzer_config_default(void)
{
    spectro_analyzer_config c;
    memset(&c, 0, sizeof c);
    c.size = sizeof c;
    c.sample_rate = 48000;
    c.channels = 1;
    c.fft_size = fft_config_default().n; /* the engine's default N, written once there */
    c.channel = SPECTRO_CHANNEL_MIX;
    return c;
}

uint64_t spectro_frame_count(uint64_t samples, size_t fft_size, size_t hop)
{
    if (samples == 0 || fft_size < 1)
        return 0;
    hop = stft_hop_or_default(hop, fft_size);
    if (hop < 1)
        hop = 1;
    return samples < fft_size ? 1 : (samples - fft_size) / hop + 1;
}

/* ---- the framer's callbacks -------------------------------------------------------------------- */

/* Room in the queue for nframes more frames of channel c (the channels stay in step). */
static int queue_room(spectro_analyzer *a, int c, size_t nframes)
{
    size_t need = a->count[c] + nframes;
    if (a->head + need <= a->cap)
        return SP_OK;
    if (a->head > 0) { /* read frames leave the front */
        for (int k = 0; k < a->outs; k++)
            memmove(a->q[k], a->q[k] + a->head * a->elem, a->count[k] * a->elem);
        a->head = 0;
    }
    if (need > a->cap) {
        size_t cap = a->cap ? a->cap : 64;
        while (cap < need)
            cap *= 2;
        for (int k = 0; k < a->outs; k++) {
            unsigned char *p = realloc(a->q[k], cap * a->elem);
            if (!p)
                return SP_ENOMEM;
            a->q[k] = p;
        }
        a->cap = cap;
    }
    return SP_OK;
}

/* Where frames first .. first+nframes-1 of channel c go; NULL when out of memory or outside
 * the caller's array. */
static unsigned char *destination(spectro_analyzer *a, int c, uint64_t first, size_t nframes)
{
    unsigned char *p;
    if (a->direct) {
        if (first + nframes > a->direct_frames)
            return NULL; /* not reached: the caller's array holds frame_count frames */
        return a->direct + ((size_t)c * a->direct_frames + (size_t)first) * a->elem;
    }
    if (queue_room(a, c, nframes) != SP_OK)
        return NULL;
    p = a->q[c] + (a->head + a->count[c]) * a->elem;
    a->count[c] += nframes;
    return p;
}

static int take_db(void *user, int channel, uint64_t first, size_t nframes, const float *db)
{
    spectro_analyzer *a = user;
    unsigned char *dst = destination(a, channel, first, nframes);
    if (!dst)
        return SP_ENOMEM;
    memcpy(dst, db, nframes * a->elem);
    return SP_OK;
}

static int take_complex(void *user, int channel, uint64_t first, size_t nframes, const cpx *z)
{
    spectro_analyzer *a = user;
    cpx *dst = (cpx *)destination(a, channel, first, nframes);
    if (!dst)
        return SP_ENOMEM;
    for (size_t f = 0; f < nframes; f++)
        for (size_t k = 0; k < a->bins; k++) {
            size_t i = f * a->bins + k;
            dst[i].re = z[i].re * a->cscale[k];
            dst[i].im = z[i].im * a->cscale[k];
        }
    return SP_OK;
}

/* ---- create ---------------------------------------------------------------------------------------- */

int api_analyzer_check_config(const spectro_analyzer_config *cfg, window_spec *w, fft_backend_kind *backend,
                              spectro_error *err)
{
    sp_errinfo ei = {{0}};
    int rc;
    if ((rc = api_check_size(cfg->size, ANALYZER_CONFIG_V1, "spectro_analyzer_config", err)) != SPECTRO_OK)
        return rc;
    if (cfg->sample_rate < 1)
        return api_fail(err, SPECTRO_EINVAL, "sample_rate %d: must be at least 1 Hz", cfg->sample_rate);
    if (cfg->channels < 1)
        return api_fail(err, SPECTRO_EINVAL, "channels %d: must be at least 1", cfg->channels);
    if (!fft_is_pow2(cfg->fft_size) || cfg->fft_size < FFT_MIN_SIZE || cfg->fft_size > FFT_MAX_SIZE)
        return api_fail(err, SPECTRO_EINVAL, "fft_size %zu: must be a power of two from %u to %u", cfg->fft_size,
                        FFT_MIN_SIZE, FFT_MAX_SIZE);
    if (cfg->channel >= cfg->channels || cfg->channel < SPECTRO_CHANNEL_ALL)
        return api_fail(err, SPECTRO_EINVAL,
                        "channel %d: out of range: the input has %d channel%s (0 to %d; or mix %d, all %d)",
                        cfg->channel, cfg->channels, cfg->channels == 1 ? "" : "s", cfg->channels - 1,
                        SPECTRO_CHANNEL_MIX, SPECTRO_CHANNEL_ALL);
    if (cfg->cpu_threads < 0 || cfg->cpu_threads > FFT_CPU_THREADS_MAX)
        return api_fail(err, SPECTRO_EINVAL, "cpu_threads %d: must be 0 (automatic) to %d", cfg->cpu_threads,
                        FFT_CPU_THREADS_MAX);
    *w = window_spec_default();
    if (cfg->window && (rc = window_parse(cfg->window, w, &ei)) != SP_OK)
        return api_from_engine(err, rc, &ei);
    *backend = FFT_BACKEND_AUTO;
    if (cfg->backend && fft_backend_parse(cfg->backend, backend) != SP_OK) {
        char names[64] = "";
        for (int i = 0; i < fft_backend_count(); i++)
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? ", " : "", fft_backend_name(i));
        return api_fail(err, SPECTRO_EINVAL, "backend \"%s\": unknown backend (%s)", cfg->backend, names);
    }
    return SPECTRO_OK;
}

/* The plan: the program's batch for the backend auto will choose (analyze.c's rule), the
 * job as far as known. */
static int make_plan(spectro_analyzer *a, const spectro_analyzer_config *cfg, fft_backend_kind kind,
                     spectro_error *err)
{
    fft_config fc = fft_config_default();
    fft_choice choice;
    sp_errinfo ei = {{0}};
    int gpu = kind != FFT_BACKEND_CPU, chosen = 0, rc;
    fc.backend = kind;
    fc.n = a->n;
    fc.hop = a->hop;
    fc.window = a->win;
    fc.tuning.cpu_threads = cfg->cpu_threads;
    fc.tuning.gpu_module = api_gpu_module();
    if (cfg->expected_samples) {
        fc.job.channels = a->outs;
        fc.job.frames = spectro_frame_count(cfg->expected_samples, a->n, a->hop);
        fc.job.rate = a->rate;
    }
    fc.max_batch = analyze_auto_batch(a->n, a->hop, a->outs, 0, 0);
    if (kind == FFT_BACKEND_AUTO) {
        chosen = fft_config_choose(&fc, &choice) == SP_OK;
        gpu = chosen && choice.kind != FFT_BACKEND_CPU;
    }
    if (gpu)
        fc.max_batch = analyze_auto_batch(a->n, a->hop, a->outs, 1, 0);
    a->batch = fc.max_batch;
    /* the plan takes the choice the batch was sized for (weighed once) */
    if ((rc = fft_plan_create_chosen(&fc, chosen ? &choice : NULL, &a->plan, &ei)) != SP_OK)
        return api_from_engine(err, rc, &ei);
    return SPECTRO_OK;
}

static int make_parts(spectro_analyzer *a, const spectro_analyzer_config *cfg, const window_spec *w,
                      fft_backend_kind kind, spectro_error *err)
{
    stft_config sc = stft_config_default();
    sp_errinfo ei = {{0}};
    int rc;
    window_format(w, a->window, sizeof a->window);
    a->win = malloc(a->n * sizeof *a->win);
    a->cscale = malloc(a->bins * sizeof *a->cscale);
    a->q = calloc((size_t)a->outs, sizeof *a->q);
    a->count = calloc((size_t)a->outs, sizeof *a->count);
    if (!a->win || !a->cscale || !a->q || !a->count)
        return api_fail(err, SPECTRO_ENOMEM, "out of memory for an analyzer of fft_size %zu", a->n);
    memset(a->win, 0, a->n * sizeof *a->win);
    if (window_fill(w, a->win_len, a->win, &a->wsum) != SP_OK || !(a->wsum > 0))
        return api_fail(err, SPECTRO_EINVAL, "window %s: cannot make it for fft_size %zu", a->window, a->n);
    for (size_t k = 0; k < a->bins; k++)
        a->cscale[k] = fft_level_scale(a->n, k, a->wsum);
    if ((rc = make_plan(a, cfg, kind, err)) != SPECTRO_OK)
        return rc;
    sc.n = a->n;
    sc.hop = a->hop;
    sc.in_channels = a->channels;
    sc.channel = a->channel;
    sc.batch = a->batch;
    if ((rc = stft_create(&sc, a->plan, take_db, a, &a->st, &ei)) != SP_OK)
        return api_from_engine(err, rc, &ei);
    return SPECTRO_OK;
}

/* An analyzer of cfg whose window is win_len samples long (n: every analyzer's; fewer: the
 * one frame of a whole array that short, as the program windows a short file's). */
static int analyzer_new(const spectro_analyzer_config *cfg, size_t win_len, spectro_analyzer **out,
                        spectro_error *err)
{
    spectro_analyzer *a;
    window_spec w;
    fft_backend_kind kind;
    int rc;
    if (!cfg || !out)
        return api_fail(err, SPECTRO_EINVAL, "spectro_analyzer_create: %s is NULL", cfg ? "out" : "cfg");
    *out = NULL;
    if ((rc = api_analyzer_check_config(cfg, &w, &kind, err)) != SPECTRO_OK)
        return rc;
    if (!(a = calloc(1, sizeof *a)))
        return api_fail(err, SPECTRO_ENOMEM, "out of memory");
    a->cfg = spectro_analyzer_config_default();
    memcpy(&a->cfg, cfg, cfg->size < sizeof a->cfg ? cfg->size : sizeof a->cfg);
    a->cfg.size = sizeof a->cfg;
    a->cfg.window = a->window; /* borrowed strings: the canonical window, filled below */
    a->cfg.backend = NULL;
    a->rate = cfg->sample_rate;
    a->channels = cfg->channels;
    a->channel = cfg->channel;
    a->outs = cfg->channel == SPECTRO_CHANNEL_ALL ? cfg->channels : 1;
    a->n = cfg->fft_size;
    a->win_len = win_len && win_len < a->n ? win_len : a->n;
    a->hop = stft_hop_or_default(cfg->hop, cfg->fft_size);
    a->bins = a->n / 2 + 1;
    a->first_sample = cfg->first_sample;
    a->output = SPECTRO_OUTPUT_DB;
    a->elem = a->bins * sizeof(float);
    if ((rc = make_parts(a, cfg, &w, kind, err)) != SPECTRO_OK) {
        spectro_analyzer_destroy(a);
        return rc;
    }
    *out = a;
    return SPECTRO_OK;
}

int spectro_analyzer_create(const spectro_analyzer_config *cfg, spectro_analyzer **out, spectro_error *err)
{
    return analyzer_new(cfg, 0, out, err);
}

void spectro_analyzer_destroy(spectro_analyzer *a)
{
    if (!a)
        return;
    stft_destroy(a->st);
    fft_plan_destroy(a->plan);
    stft_destroy(a->xst);
    fft_plan_destroy(a->xplan);
    peaks_window_destroy(a->pw);
    for (int c = 0; a->q && c < a->outs; c++)
        free(a->q[c]);
    free(a->q);
    free(a->count);
    free(a->win);
    free(a->early);
    free(a->cscale);
    free(a);
}

int spectro_analyzer_get_info(const spectro_analyzer *a, spectro_analyzer_info *info)
{
    spectro_analyzer_info full;
    if (!a || !info || info->size == 0)
        return SPECTRO_EINVAL;
    memset(&full, 0, sizeof full);
    full.size = info->size < sizeof full ? info->size : sizeof full;
    full.sample_rate = a->rate;
    full.channels = a->channels;
    full.out_channels = a->outs;
    full.fft_size = a->n;
    full.hop = a->hop;
    full.bins = a->bins;
    full.bin_hz = (double)a->rate / (double)a->n;
    full.time_first_s = (double)(a->first_sample + a->n / 2) / a->rate;
    full.time_step_s = (double)a->hop / a->rate;
    snprintf(full.window, sizeof full.window, "%s", a->window);
    snprintf(full.backend, sizeof full.backend, "%s", fft_plan_backend_name(a->plan));
    snprintf(full.fallback, sizeof full.fallback, "%s", fft_plan_fallback_reason(a->plan));
    memcpy(info, &full, full.size);
    return SPECTRO_OK;
}

uint64_t spectro_analyzer_frame_count(const spectro_analyzer *a, uint64_t samples)
{
    return a ? spectro_frame_count(samples, a->n, a->hop) : 0;
}

double spectro_analyzer_frame_time(const spectro_analyzer *a, uint64_t frame)
{
    /* the program's arithmetic (sink_stream.time_first_s + f * time_step_s), bit for bit */
    double t0 = (double)(a->first_sample + a->n / 2) / a->rate, dt = (double)a->hop / a->rate;
    return t0 + (double)frame * dt;
}

double spectro_analyzer_input_frame_time(const spectro_analyzer *a, uint64_t samples, uint64_t frame)
{
    if (samples > 0 && samples < a->n && frame == 0) /* its one frame: the samples' centre */
        return (double)(a->first_sample + samples / 2) / a->rate;
    return spectro_analyzer_frame_time(a, frame);
}

void api_analyzer_shape(const spectro_analyzer *a, api_frame_shape *out)
{
    out->n = a->n;
    out->bins = a->bins;
    out->rate = a->rate;
    out->win = a->win;
}

int api_analyzer_peaks_window(spectro_analyzer *a, const peaks_window **out, spectro_error *err)
{
    sp_errinfo ei = {{0}};
    int rc;
    if (!a->pw && (rc = peaks_window_create(a->win, a->n, &a->pw, &ei)) != SP_OK)
        return api_from_engine(err, rc, &ei);
    *out = a->pw;
    return SPECTRO_OK;
}

/* ---- streams ------------------------------------------------------------------------------------------ */

int spectro_analyzer_reset(spectro_analyzer *a, int output, spectro_error *err)
{
    sp_errinfo ei = {{0}};
    int rc;
    if (!a)
        return api_fail(err, SPECTRO_EINVAL, "spectro_analyzer_reset: the analyzer is NULL");
    if (output != SPECTRO_OUTPUT_DB && output != SPECTRO_OUTPUT_COMPLEX)
        return api_fail(err, SPECTRO_EINVAL, "output %d: must be SPECTRO_OUTPUT_DB (%d) or SPECTRO_OUTPUT_COMPLEX (%d)",
                        output, SPECTRO_OUTPUT_DB, SPECTRO_OUTPUT_COMPLEX);
    a->direct = NULL;
    a->head = 0;
    memset(a->count, 0, (size_t)a->outs * sizeof *a->count);
    a->read_pos = 0;
    a->finished = 0;
    a->early_n = 0;
    if (output != a->output) { /* frames of another size: the queue starts anew */
        for (int c = 0; c < a->outs; c++) {
            free(a->q[c]);
            a->q[c] = NULL;
        }
        a->cap = 0;
    }
    a->output = output;
    a->elem = a->bins * (output == SPECTRO_OUTPUT_COMPLEX ? sizeof(cpx) : sizeof(float));
    if ((rc = stft_reset(a->st, &ei)) != SP_OK ||
        (output == SPECTRO_OUTPUT_COMPLEX && (rc = stft_set_complex(a->st, a->win, take_complex, a, &ei)) != SP_OK)) {
        a->finished = 1; /* unusable until a reset succeeds */
        return api_from_engine(err, rc, &ei);
    }
    return SPECTRO_OK;
}

size_t spectro_analyzer_ready(const spectro_analyzer *a)
{
    size_t r;
    if (!a)
        return 0;
    r = a->count[0];
    for (int c = 1; c < a->outs; c++)
        r = a->count[c] < r ? a->count[c] : r;
    return r;
}

uint64_t spectro_analyzer_position(const spectro_analyzer *a)
{
    return a ? a->read_pos : 0;
}

/* The framer's failure: out of memory in a callback has no line of its own. */
static int stream_failed(spectro_analyzer *a, int rc, const sp_errinfo *ei, spectro_error *err)
{
    a->finished = 1; /* frames may be missing: the stream ends here */
    if (rc == SP_ENOMEM && !ei->msg[0])
        return api_fail(err, rc, "out of memory for the frames of a stream (read them as they come)");
    return api_from_engine(err, rc, ei);
}

int spectro_analyzer_push(spectro_analyzer *a, const float *samples, size_t count, size_t *ready, spectro_error *err)
{
    sp_errinfo ei = {{0}};
    int rc;
    if (!a || (!samples && count))
        return api_fail(err, SPECTRO_EINVAL, "spectro_analyzer_push: %s is NULL", a ? "samples" : "the analyzer");
    if (a->finished)
        return api_fail(err, SPECTRO_EINVAL, "push after the stream's finish: reset the analyzer first");
    if (a->early_n < a->win_len && count > 0) {
        size_t take = count < a->win_len - a->early_n ? count : a->win_len - a->early_n, ch = (size_t)a->channels;
        if (!a->early && !(a->early = malloc(a->win_len * ch * sizeof *a->early)))
            return api_fail(err, SPECTRO_ENOMEM, "out of memory for a stream's first frame");
        memcpy(a->early + a->early_n * ch, samples, take * ch * sizeof *samples);
        a->early_n += take;
    }
    if ((rc = stft_push(a->st, samples, count, &ei)) != SP_OK || (rc = stft_flush(a->st, &ei)) != SP_OK)
        return stream_failed(a, rc, &ei, err);
    if (ready)
        *ready = spectro_analyzer_ready(a);
    return SPECTRO_OK;
}

static int whole_short(spectro_analyzer *a, int output, const float *samples, size_t count, void *out,
                       size_t out_frames, spectro_error *err);

/* The one frame of a stream that ended with fewer samples than n, from its first samples,
 * into the stream's queue. */
static int finish_short(spectro_analyzer *a, spectro_error *err)
{
    unsigned char *frame = malloc((size_t)a->outs * a->elem), *dst;
    int rc;
    if (!frame)
        return api_fail(err, SPECTRO_ENOMEM, "out of memory for a stream's last frame");
    rc = whole_short(a, a->output, a->early, a->early_n, frame, 1, err);
    for (int c = 0; rc == SPECTRO_OK && c < a->outs; c++) {
        if (!(dst = destination(a, c, 0, 1)))
            rc = api_fail(err, SPECTRO_ENOMEM, "out of memory for the stream's frames");
        else
            memcpy(dst, frame + (size_t)c * a->elem, a->elem);
    }
    free(frame);
    return rc;
}

int spectro_analyzer_finish(spectro_analyzer *a, size_t *ready, spectro_error *err)
{
    sp_errinfo ei = {{0}};
    int rc;
    if (!a)
        return api_fail(err, SPECTRO_EINVAL, "spectro_analyzer_finish: the analyzer is NULL");
    if (a->finished)
        return api_fail(err, SPECTRO_EINVAL, "finish after the stream's finish: reset the analyzer first");
    /* no sample, no frame (the engine's framer would give a frame of zeros); fewer than n:
     * the frame a whole array that short gives (its length is known now) */
    if (stft_samples(a->st) > 0 && stft_samples(a->st) < a->win_len) {
        if ((rc = finish_short(a, err)) != SPECTRO_OK)
            return rc;
    } else if (stft_samples(a->st) > 0 && (rc = stft_finish(a->st, &ei)) != SP_OK)
        return stream_failed(a, rc, &ei, err);
    a->finished = 1;
    if (ready)
        *ready = spectro_analyzer_ready(a);
    return SPECTRO_OK;
}

static int read_frames(spectro_analyzer *a, int output, void *out, size_t max_frames, size_t *got,
                       spectro_error *err)
{
    size_t k;
    if (!a || !got || (!out && max_frames))
        return api_fail(err, SPECTRO_EINVAL, "spectro_analyzer_read: NULL argument");
    *got = 0;
    if (a->output != output)
        return api_fail(err, SPECTRO_EINVAL, "the stream gives %s frames: read them with spectro_analyzer_read%s",
                        a->output == SPECTRO_OUTPUT_DB ? "dB" : "complex",
                        a->output == SPECTRO_OUTPUT_DB ? "" : "_complex");
    k = spectro_analyzer_ready(a);
    if (k > max_frames)
        k = max_frames;
    if (k == 0) /* (the queue may not even exist yet) */
        return SPECTRO_OK;
    for (int c = 0; c < a->outs; c++) {
        memcpy((unsigned char *)out + (size_t)c * k * a->elem, a->q[c] + a->head * a->elem, k * a->elem);
        a->count[c] -= k;
    }
    a->head += k;
    if (spectro_analyzer_ready(a) == 0 && a->count[a->outs - 1] == 0) /* all empty */
        a->head = 0;
    a->read_pos += k;
    *got = k;
    return SPECTRO_OK;
}

int spectro_analyzer_read(spectro_analyzer *a, float *out, size_t max_frames, size_t *got, spectro_error *err)
{
    return read_frames(a, SPECTRO_OUTPUT_DB, out, max_frames, got, err);
}

int spectro_analyzer_read_complex(spectro_analyzer *a, spectro_complex *out, size_t max_frames, size_t *got,
                                  spectro_error *err)
{
    return read_frames(a, SPECTRO_OUTPUT_COMPLEX, out, max_frames, got, err);
}

/* ---- whole arrays ------------------------------------------------------------------------------------- */

static int whole(spectro_analyzer *a, int output, const float *samples, size_t count, void *out, size_t out_frames,
                 spectro_error *err);

/* A whole array of fewer samples L than n: its one zero-padded frame windowed by the L-point
 * window, zeros after (docs/design.md "Frames"), as the program windows a file that short;
 * by an analyzer made for it, on the backend this one runs. */
static int whole_short(spectro_analyzer *a, int output, const float *samples, size_t count, void *out,
                       size_t out_frames, spectro_error *err)
{
    spectro_analyzer_config c = a->cfg;
    spectro_analyzer *s = NULL;
    int rc;
    c.backend = fft_plan_backend_name(a->plan);
    c.expected_samples = count;
    if ((rc = analyzer_new(&c, count, &s, err)) == SPECTRO_OK)
        rc = whole(s, output, samples, count, out, out_frames, err);
    spectro_analyzer_destroy(s);
    return rc;
}

static int whole(spectro_analyzer *a, int output, const float *samples, size_t count, void *out, size_t out_frames,
                 spectro_error *err)
{
    sp_errinfo ei = {{0}};
    uint64_t frames;
    int rc;
    if (!a || !samples || !out)
        return api_fail(err, SPECTRO_EINVAL, "%s is NULL", !a ? "the analyzer" : !samples ? "samples" : "out");
    if (count == 0)
        return api_fail(err, SPECTRO_EINVAL, "count is 0: no samples, no frame");
    frames = spectro_frame_count(count, a->n, a->hop);
    if (out_frames < frames)
        return api_fail(err, SPECTRO_EINVAL, "out_frames %zu: %zu samples give %llu frames a channel", out_frames,
                        count, (unsigned long long)frames);
    if (count < a->win_len)
        return whole_short(a, output, samples, count, out, out_frames, err);
    if ((rc = spectro_analyzer_reset(a, output, err)) != SPECTRO_OK)
        return rc;
    a->direct = out;
    a->direct_frames = (size_t)frames;
    if ((rc = stft_push(a->st, samples, count, &ei)) == SP_OK)
        rc = stft_finish(a->st, &ei);
    a->direct = NULL;
    if (rc != SP_OK)
        rc = stream_failed(a, rc, &ei, err);
    /* the analyzer is left with a fresh dB stream, whatever happened */
    if (spectro_analyzer_reset(a, SPECTRO_OUTPUT_DB, rc == SP_OK ? err : NULL) != SPECTRO_OK && rc == SP_OK)
        return err ? err->code : SPECTRO_ENOMEM;
    return rc;
}

int spectro_analyzer_spectrogram(spectro_analyzer *a, const float *samples, size_t count, float *out,
                                 size_t out_frames, spectro_error *err)
{
    return whole(a, SPECTRO_OUTPUT_DB, samples, count, out, out_frames, err);
}

int spectro_analyzer_stft(spectro_analyzer *a, const float *samples, size_t count, spectro_complex *out,
                          size_t out_frames, spectro_error *err)
{
    return whole(a, SPECTRO_OUTPUT_COMPLEX, samples, count, out, out_frames, err);
}

/* The checks of the device entries; *frames the frames a clip. */
static int device_args(spectro_analyzer *a, const float *d_samples, size_t count, size_t stride, const float *d_out,
                       size_t out_frames, uint64_t *frames, spectro_error *err)
{
    if (!a || !d_samples || !d_out)
        return api_fail(err, SPECTRO_EINVAL, "%s is NULL", !a ? "the analyzer" : !d_samples ? "d_samples" : "d_out");
    if (a->channels != 1)
        return api_fail(err, SPECTRO_EUNSUPPORTED, "channels %d: device samples are one channel only", a->channels);
    if (count < a->n) /* the zero-padded frame would need a copy on the device */
        return api_fail(err, SPECTRO_EINVAL, "count %zu: device samples are at least fft_size (%zu)", count, a->n);
    if (stride < count)
        return api_fail(err, SPECTRO_EINVAL, "stride %zu: the clips of %zu samples overlap", stride, count);
    *frames = spectro_frame_count(count, a->n, a->hop);
    if (out_frames < *frames)
        return api_fail(err, SPECTRO_EINVAL, "out_frames %zu: %zu samples give %llu frames", out_frames, count,
                        (unsigned long long)*frames);
    return SPECTRO_OK;
}

int spectro_analyzer_spectrogram_device_batch(spectro_analyzer *a, const float *d_samples, size_t clips, size_t count,
                                              size_t stride, float *d_out, size_t out_frames, spectro_error *err)
{
    uint64_t frames = 0;
    int rc;
    if ((rc = device_args(a, d_samples, count, stride, d_out, out_frames, &frames, err)) != SPECTRO_OK)
        return rc;
    if (clips == 0)
        return SPECTRO_OK;
    if ((rc = fft_stft_db_device(a->plan, d_samples, clips, stride, (size_t)frames, d_out)) != SP_OK)
        return api_fail(err, rc, "device samples: %s", fft_plan_last_error(a->plan));
    return SPECTRO_OK;
}

int spectro_analyzer_spectrogram_device(spectro_analyzer *a, const float *d_samples, size_t count, float *d_out,
                                        size_t out_frames, spectro_error *err)
{
    return spectro_analyzer_spectrogram_device_batch(a, d_samples, 1, count, count, d_out, out_frames, err);
}

int spectro_analyzer_spectrogram_device_batch_async(spectro_analyzer *a, const float *d_samples, size_t clips,
                                                    size_t count, size_t stride, float *d_out, size_t out_frames,
                                                    void *cuda_stream, spectro_error *err)
{
    uint64_t frames = 0;
    int rc;
    if ((rc = device_args(a, d_samples, count, stride, d_out, out_frames, &frames, err)) != SPECTRO_OK)
        return rc;
    if (clips == 0)
        return SPECTRO_OK;
    if ((rc = fft_stft_db_device_async(a->plan, d_samples, clips, stride, (size_t)frames, d_out, cuda_stream)) !=
        SP_OK)
        return api_fail(err, rc, "device samples: %s", fft_plan_last_error(a->plan));
    return SPECTRO_OK;
}

int spectro_analyzer_spectrogram_device_async(spectro_analyzer *a, const float *d_samples, size_t count, float *d_out,
                                              size_t out_frames, void *cuda_stream, spectro_error *err)
{
    return spectro_analyzer_spectrogram_device_batch_async(a, d_samples, 1, count, count, d_out, out_frames,
                                                           cuda_stream, err);
}

int spectro_spectrogram(const spectro_analyzer_config *cfg, const float *samples, size_t count, float *out,
                        size_t out_frames, spectro_error *err)
{
    spectro_analyzer_config c;
    spectro_analyzer *a = NULL;
    int rc;
    if (!cfg)
        return api_fail(err, SPECTRO_EINVAL, "spectro_spectrogram: cfg is NULL");
    /* no member beyond the caller's size is read (docs/api-c.md, ABI policy) */
    c = spectro_analyzer_config_default();
    memcpy(&c, cfg, cfg->size < sizeof c ? cfg->size : sizeof c);
    if (c.size >= ANALYZER_CONFIG_V1 && c.expected_samples == 0)
        c.expected_samples = count;
    if ((rc = spectro_analyzer_create(&c, &a, err)) == SPECTRO_OK)
        rc = spectro_analyzer_spectrogram(a, samples, count, out, out_frames, err);
    spectro_analyzer_destroy(a);
    return rc;
}

/* ---- transforms ------------------------------------------------------------------------------------ */

static int take_xform(void *user, int channel, uint64_t first, size_t nframes, const float *sig, size_t hop)
{
    spectro_analyzer *a = user;
    size_t width = xform_width(a->xf);
    float *dst = a->xout + ((size_t)channel * a->xframes + (size_t)first) * width;
    if (first + nframes > a->xframes)
        return SP_ENOMEM; /* not reached: the caller's array holds frame_count frames */
    return xform_rows(a->xf, sig, hop, nframes, spectro_analyzer_frame_time(a, first), (double)a->hop / a->rate,
                      dst);
}

/* The transforms' framer (a->xst), made on first use. */
static int transform_framer(spectro_analyzer *a, sp_errinfo *ei)
{
    fft_config fc = fft_config_default();
    stft_config sc = stft_config_default();
    int rc;
    if (a->xst)
        return SP_OK;
    fc.backend = FFT_BACKEND_CPU;
    fc.n = a->n;
    fc.hop = a->hop;
    fc.max_batch = analyze_frames_batch(a->n, a->hop, a->outs);
    fc.tuning.cpu_threads = 1;
    if ((rc = fft_plan_create(&fc, &a->xplan, ei)) != SP_OK)
        return rc;
    sc.n = a->n;
    sc.hop = a->hop;
    sc.in_channels = a->channels;
    sc.channel = a->channel;
    sc.batch = fc.max_batch;
    return stft_create(&sc, a->xplan, take_db, a, &a->xst, ei);
}

int api_analyzer_transform(spectro_analyzer *a, xform *x, const float *samples, size_t count, float *out,
                           size_t out_frames, spectro_error *err)
{
    sp_errinfo ei = {{0}};
    uint64_t frames;
    int rc;
    if (count < a->n) /* the short array's L-point window is the analyzer's to remake */
        return api_fail(err, SPECTRO_EINVAL, "count %zu: a transform takes at least fft_size (%zu) samples", count,
                        a->n);
    frames = spectro_frame_count(count, a->n, a->hop);
    if (out_frames < frames)
        return api_fail(err, SPECTRO_EINVAL, "out_frames %zu: %zu samples give %llu frames a channel", out_frames,
                        count, (unsigned long long)frames);
    if ((rc = spectro_analyzer_reset(a, SPECTRO_OUTPUT_DB, err)) != SPECTRO_OK)
        return rc;
    if ((rc = transform_framer(a, &ei)) != SP_OK || (rc = stft_reset(a->xst, &ei)) != SP_OK ||
        (rc = stft_set_frames(a->xst, take_xform, a, &ei)) != SP_OK)
        return api_from_engine(err, rc, &ei);
    a->xf = x;
    a->xout = out;
    a->xframes = (size_t)frames;
    if ((rc = stft_push(a->xst, samples, count, &ei)) == SP_OK)
        rc = stft_finish(a->xst, &ei);
    a->xf = NULL;
    a->xout = NULL;
    if (rc != SP_OK)
        rc = stream_failed(a, rc, &ei, err);
    if (spectro_analyzer_reset(a, SPECTRO_OUTPUT_DB, rc == SP_OK ? err : NULL) != SPECTRO_OK && rc == SP_OK)
        return err ? err->code : SPECTRO_ENOMEM;
    return rc;
}
