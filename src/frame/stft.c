#include "stft.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "par.h"

/* Each output channel keeps a linear buffer `sig[c]` holding the samples from the start of
 * the next frame onwards: sig[c][0] is absolute sample `base`. After a batch of B frames
 * the first B*hop samples are dropped (with hop > n some of them have not arrived yet:
 * `skip` counts how many incoming samples to discard).
 *
 * Overlap (a GPU plan, one output channel, a reduction): a batch is begun on the device
 * (fft_stft_reduce_start) and the samples after it go on in a second signal buffer while
 * the device reads the first; the batch's results reach the sink when the next batch
 * begins, or at the end (deliver). */
struct stft {
    stft_config cfg;
    fft_plan *plan;
    stft_sink_fn sink;
    void *user;
    int outs;
    size_t bins;
    size_t cap;    /* samples per channel buffer */
    size_t len;    /* valid samples in each channel buffer (the same for all) */
    size_t skip;   /* incoming samples still to drop before buffering resumes */
    float **sig;
    float *db[2];  /* batch * bins each, used in turn (see stft_sink_fn); NULL when a
                    * reduction without spectra was set */
    int cur;       /* the one the next FFT call writes */
    stft_reduce_fn reduce; /* set: batches go through fft_stft_reduce */
    void *reduce_user;
    fft_peak_req req;
    int spectra;           /* with reduce: the spectra are wanted too */
    stft_complex_fn cfn;   /* set: batches give the windowed frames' DFTs to it instead */
    void *cfn_user;
    const float *cwin;     /* with cfn: the window (borrowed) */
    stft_frames_fn ffn;    /* set: batches give their frames to it instead (no FFT) */
    void *ffn_user;
    float *frm;            /* with cfn: a batch of windowed frames (batch * n), kept */
    cpx *z;                /* with cfn: their transforms (batch * bins), kept */
    fft_peak_raw *raw[2];  /* batch * req.nranges each, used in turn like db */
    float *cm[2];          /* req.span: the column maxima's rows, used in turn like db */
    float *spare;          /* overlap (made when a reduction is set on a plan that overlaps,
                            * kept across streams): the signal buffer the device is not reading */
    struct {               /* overlap: the batch on the device */
        int on;
        uint64_t first;
        size_t nframes;
        float *db, *cm;
        fft_peak_raw *raw;
    } pend;
    const atomic_int *stop; /* stft_set_stop */
    uint64_t frames, samples;
    uint64_t skipped; /* frame indices stft_discard passed over (never analysed) */
    double fft_s, sink_s; /* time spent in the FFT plan and in the sink */
};

stft_config stft_config_default(void)
{
    stft_config c;
    c.n = FFT_DEFAULT_SIZE;
    c.hop = fft_default_hop(c.n);
    c.in_channels = 1;
    c.channel = STFT_CHANNEL_MIX;
    c.batch = 64;
    return c;
}

size_t stft_hop_or_default(size_t hop, size_t n)
{
    return hop ? hop : fft_default_hop(n);
}

/* The input is copied in pieces of at most PUSH_PIECE frames so the buffers never need
 * to grow beyond span(batch) + PUSH_PIECE; one channel taken as it is goes in pieces up to
 * the batch's end, copied on the pool's threads from COPY_PAR_FLOATS on (a GPU's hour went
 * through one thread's memcpy in ~0.07 s of its ~0.5 s). */
#define PUSH_PIECE 4096
#define COPY_PAR_FLOATS ((size_t)1 << 18)

typedef struct {
    float *dst;
    const float *src;
    size_t n;
} copy_job;

static void copy_part(void *ctx, int part, int parts)
{
    const copy_job *j = ctx;
    size_t b, e;
    sp_par_share(j->n, part, parts, &b, &e);
    memcpy(j->dst + b, j->src + b, (e - b) * sizeof *j->src);
}

static void copy_floats(float *dst, const float *src, size_t n)
{
    copy_job j = {dst, src, n};
    if (n < COPY_PAR_FLOATS) {
        memcpy(dst, src, n * sizeof *src);
        return;
    }
    sp_par_run(copy_part, &j, sp_par_parts(n, COPY_PAR_FLOATS / 4));
}

static size_t span(const stft *s, size_t frames)
{
    return (frames - 1) * s->cfg.hop + s->cfg.n;
}

int stft_create(const stft_config *cfg, fft_plan *plan, stft_sink_fn sink, void *user, stft **out,
                sp_errinfo *ei)
{
    stft *s = NULL;
    int err = SP_ENOMEM;
    if (!cfg || !plan || !sink || !out)
        return sp_fail(ei, SP_EINVAL, "stft_create: NULL argument");
    *out = NULL;
    if (cfg->n != fft_plan_size(plan) || cfg->hop < 1 || cfg->batch < 1 ||
        cfg->batch > fft_plan_max_batch(plan))
        return sp_fail(ei, SP_EINVAL, "stft_create: config does not match the FFT plan");
    if (cfg->in_channels < 1)
        return sp_fail(ei, SP_EINVAL, "stft_create: no input channels");
    if (cfg->channel >= cfg->in_channels || cfg->channel < STFT_CHANNEL_ALL)
        return sp_fail(ei, SP_EINVAL, SP_FIELD("channel") " %d: out of range (the input has %d channel%s: 0 to %d)",
                       cfg->channel, cfg->in_channels, cfg->in_channels == 1 ? "" : "s", cfg->in_channels - 1);

    s = calloc(1, sizeof *s);
    if (!s)
        goto fail;
    s->cfg = *cfg;
    s->plan = plan;
    s->sink = sink;
    s->user = user;
    s->outs = cfg->channel == STFT_CHANNEL_ALL ? cfg->in_channels : 1;
    s->bins = cfg->n / 2 + 1;
    s->cap = span(s, cfg->batch) + PUSH_PIECE;
    /* the buffers the plan reads and writes come from the plan: pinned memory on a GPU,
     * which the copies to and from the device use directly; the spectra's (db) are made by
     * the first batch that needs them (spectra_room): a run whose sinks take reductions only
     * never pins them */
    s->sig = calloc((size_t)s->outs, sizeof *s->sig);
    if (!s->sig)
        goto fail;
    for (int c = 0; c < s->outs; c++)
        if (!(s->sig[c] = fft_plan_host_alloc(plan, s->cap * sizeof **s->sig)))
            goto fail;
    *out = s;
    return SP_OK;

fail:
    stft_destroy(s);
    return sp_fail(ei, err, "out of memory for frames of %zu samples (batch %zu)", cfg->n, cfg->batch);
}

void stft_destroy(stft *s)
{
    if (!s)
        return;
    if (s->pend.on) /* the device may still read the buffers */
        (void)fft_stft_reduce_wait(s->plan);
    fft_plan_host_free(s->plan, s->spare);
    if (s->sig)
        for (int c = 0; c < s->outs; c++)
            fft_plan_host_free(s->plan, s->sig[c]);
    free(s->sig);
    fft_plan_host_free(s->plan, s->db[0]);
    fft_plan_host_free(s->plan, s->db[1]);
    for (int i = 0; i < 2; i++) {
        fft_plan_host_free(s->plan, s->raw[i]);
        fft_plan_host_free(s->plan, s->cm[i]);
    }
    fft_plan_host_free(s->plan, s->frm);
    fft_plan_host_free(s->plan, s->z);
    free(s);
}

int stft_set_reduce(stft *s, const fft_peak_req *req, int spectra, stft_reduce_fn fn, void *fn_user,
                    sp_errinfo *ei)
{
    if (!s || !req || !fn)
        return sp_fail(ei, SP_EINVAL, "stft_set_reduce: NULL argument");
    if (s->reduce || s->cfn || s->ffn || s->samples || s->frames)
        return sp_fail(ei, SP_EINVAL, "stft_set_reduce: only once, before the first samples");
    if (req->nranges > FFT_PEAK_RANGES_MAX || (req->nranges < 1 && !req->span))
        return sp_fail(ei, SP_EINVAL, "peak search: %zu ranges (1 to %d)", req->nranges, FFT_PEAK_RANGES_MAX);
    for (size_t r = 0; r < req->nranges; r++)
        if (req->kmin[r] < 1 || req->kmin[r] > req->kmax[r] || req->kmax[r] > s->cfg.n / 2 - 1)
            return sp_fail(ei, SP_EINVAL, "peak search: bins %zu .. %zu not within 1 .. %zu", req->kmin[r],
                           req->kmax[r], s->cfg.n / 2 - 1);
    for (int i = 0; i < 2 && req->nranges; i++)
        if (!(s->raw[i] = fft_plan_host_alloc(s->plan, s->cfg.batch * req->nranges * sizeof *s->raw[i])))
            return sp_fail(ei, SP_ENOMEM, "out of memory for the peaks of %zu frames", s->cfg.batch);
    /* a batch touches at most batch/span + 2 groups */
    for (int i = 0; i < 2 && req->span; i++)
        if (!(s->cm[i] = fft_plan_host_alloc(s->plan, (s->cfg.batch / req->span + 2) * s->bins * sizeof *s->cm[i])))
            return sp_fail(ei, SP_ENOMEM, "out of memory for the column maxima of %zu frames", s->cfg.batch);
    if (!spectra) /* never filled: give the (pinned, on a GPU) memory back, if made */
        for (int i = 0; i < 2; i++) {
            fft_plan_host_free(s->plan, s->db[i]);
            s->db[i] = NULL;
        }
    /* one output channel on a plan whose device works while this thread goes on */
    if (s->outs == 1 && fft_plan_overlaps(s->plan) && !s->spare &&
        !(s->spare = fft_plan_host_alloc(s->plan, s->cap * sizeof *s->spare)))
        return sp_fail(ei, SP_ENOMEM, "out of memory for frames of %zu samples (batch %zu)", s->cfg.n, s->cfg.batch);
    s->req = *req;
    s->spectra = spectra;
    s->reduce = fn;
    s->reduce_user = fn_user;
    return SP_OK;
}

void stft_set_stop(stft *s, const atomic_int *stop)
{
    if (s)
        s->stop = stop;
}

/* SP_EINTERRUPTED once the stop is set (stft_set_stop), before the next FFT call. */
static int stopped(const stft *s, sp_errinfo *ei)
{
    return s->stop && atomic_load(s->stop) ? sp_fail(ei, SP_EINTERRUPTED, "interrupted") : SP_OK;
}

int stft_reset(stft *s, sp_errinfo *ei)
{
    if (s->pend.on) { /* a stream given up half way: its last batch is not delivered */
        (void)fft_stft_reduce_wait(s->plan);
        s->pend.on = 0;
    }
    s->len = s->skip = 0;
    s->cur = 0;
    s->frames = s->samples = s->skipped = 0;
    s->fft_s = s->sink_s = 0.0;
    /* the next stream declares its own reduction (stft_set_reduce); the spectra's buffers
     * come back, if it needs them, with its first batch */
    (void)ei;
    for (int i = 0; i < 2; i++) {
        fft_plan_host_free(s->plan, s->raw[i]);
        fft_plan_host_free(s->plan, s->cm[i]);
        s->raw[i] = NULL;
        s->cm[i] = NULL;
    }
    s->reduce = NULL;
    s->spectra = 0;
    s->cfn = NULL;
    s->ffn = NULL;
    return SP_OK;
}

int stft_set_frames(stft *s, stft_frames_fn fn, void *fn_user, sp_errinfo *ei)
{
    if (!s || !fn)
        return sp_fail(ei, SP_EINVAL, "stft_set_frames: NULL argument");
    if (s->reduce || s->cfn || s->ffn || s->samples || s->frames)
        return sp_fail(ei, SP_EINVAL, "stft_set_frames: only once, before the first samples");
    s->ffn = fn;
    s->ffn_user = fn_user;
    return SP_OK;
}

int stft_set_complex(stft *s, const float *window, stft_complex_fn fn, void *fn_user, sp_errinfo *ei)
{
    if (!s || !window || !fn)
        return sp_fail(ei, SP_EINVAL, "stft_set_complex: NULL argument");
    if (s->reduce || s->cfn || s->ffn || s->samples || s->frames)
        return sp_fail(ei, SP_EINVAL, "stft_set_complex: only once, before the first samples");
    if ((!s->frm && !(s->frm = fft_plan_host_alloc(s->plan, s->cfg.batch * s->cfg.n * sizeof *s->frm))) ||
        (!s->z && !(s->z = fft_plan_host_alloc(s->plan, s->cfg.batch * s->bins * sizeof *s->z))))
        return sp_fail(ei, SP_ENOMEM, "out of memory for %zu complex spectra", s->cfg.batch);
    s->cwin = window;
    s->cfn = fn;
    s->cfn_user = fn_user;
    return SP_OK;
}

int stft_out_channels(const stft *s)
{
    return s->outs;
}

uint64_t stft_frames(const stft *s)
{
    return s->frames;
}

uint64_t stft_skipped(const stft *s)
{
    return s->skipped;
}

uint64_t stft_samples(const stft *s)
{
    return s->samples;
}

void stft_times(const stft *s, double *fft_s, double *sink_s)
{
    *fft_s = s->fft_s;
    *sink_s = s->sink_s;
}

/* The spectra's buffers, when this stream's batches fill them (all but a reduction-only
 * stream's) and they are not made yet. */
static int spectra_room(stft *s, sp_errinfo *ei)
{
    if ((s->reduce && !s->spectra) || s->cfn || s->ffn)
        return SP_OK;
    for (int i = 0; i < 2; i++)
        if (!s->db[i] && !(s->db[i] = fft_plan_host_alloc(s->plan, s->cfg.batch * s->bins * sizeof *s->db[i])))
            return sp_fail(ei, SP_ENOMEM, "out of memory for %zu spectra", s->cfg.batch);
    return SP_OK;
}

static int fft_failed(stft *s, int err, sp_errinfo *ei)
{
    return sp_fail(ei, err, "FFT (%s backend) failed: %s", fft_plan_backend_name(s->plan),
                   fft_plan_last_error(s->plan)[0] ? fft_plan_last_error(s->plan) : sp_strerror(err));
}

/* Overlap: waits for the batch on the device and hands its results to the sink. */
static int deliver(stft *s, sp_errinfo *ei)
{
    double t0 = sp_now(), t1;
    int err;
    if (!s->pend.on)
        return SP_OK;
    s->pend.on = 0;
    err = fft_stft_reduce_wait(s->plan);
    t1 = sp_now();
    s->fft_s += t1 - t0;
    if (err != SP_OK)
        return fft_failed(s, err, ei);
    err = s->reduce(s->reduce_user, 0, s->pend.first, s->pend.nframes, s->pend.db, s->pend.raw, s->pend.cm);
    s->sink_s += sp_now() - t1;
    return err;
}

/* Overlap: delivers the batch before, begins this one on the device and carries the
 * samples after its first nframes*hop over to the spare buffer, where the next ones go. */
static int begin_batch(stft *s, size_t nframes, sp_errinfo *ei)
{
    size_t drop = nframes * s->cfg.hop;
    float *sig = s->sig[0];
    double t0;
    int err = deliver(s, ei);
    if (err != SP_OK)
        return err;
    s->req.first = s->frames;
    s->req.colmax = s->cm[s->cur];
    t0 = sp_now();
    err = fft_stft_reduce_start(s->plan, sig, nframes, s->db[s->cur], &s->req, s->raw[s->cur]);
    s->fft_s += sp_now() - t0;
    if (err != SP_OK)
        return fft_failed(s, err, ei);
    s->pend.on = 1;
    s->pend.first = s->frames;
    s->pend.nframes = nframes;
    s->pend.db = s->db[s->cur];
    s->pend.raw = s->raw[s->cur];
    s->pend.cm = s->cm[s->cur];
    s->cur ^= 1;
    s->frames += nframes;
    if (drop >= s->len) {
        s->skip = drop - s->len;
        s->len = 0;
    } else {
        memcpy(s->spare, sig + drop, (s->len - drop) * sizeof *sig);
        s->len -= drop;
    }
    s->sig[0] = s->spare;
    s->spare = sig; /* the device's until the next deliver */
    return SP_OK;
}

/* The complex path: channel c's nframes frames windowed side by side, one real transform
 * call, the results to the complex callback. */
static int run_complex(stft *s, int c, size_t nframes, sp_errinfo *ei)
{
    const size_t n = s->cfg.n;
    double t0 = sp_now(), t1;
    int err;
    for (size_t f = 0; f < nframes; f++) {
        const float *x = s->sig[c] + f * s->cfg.hop;
        float *y = s->frm + f * n;
        for (size_t i = 0; i < n; i++)
            y[i] = x[i] * s->cwin[i];
    }
    err = fft_r2c(s->plan, s->frm, s->z, nframes);
    t1 = sp_now();
    s->fft_s += t1 - t0;
    if (err != SP_OK)
        return fft_failed(s, err, ei);
    err = s->cfn(s->cfn_user, c, s->frames, nframes, s->z);
    s->sink_s += sp_now() - t1;
    return err;
}

/* Runs nframes frames from the start of the buffers, emits them, drops nframes*hop. */
static int run_batch(stft *s, size_t nframes, sp_errinfo *ei)
{
    size_t drop = nframes * s->cfg.hop;
    int room = stopped(s, ei);
    if (room == SP_OK)
        room = spectra_room(s, ei);
    if (room != SP_OK)
        return room;
    if (s->reduce && s->spare) /* overlap */
        return begin_batch(s, nframes, ei);
    for (int c = 0; c < s->outs && s->cfn; c++) {
        int err = run_complex(s, c, nframes, ei);
        if (err != SP_OK)
            return err;
    }
    for (int c = 0; c < s->outs && s->ffn; c++) {
        double t0 = sp_now();
        int err = s->ffn(s->ffn_user, c, s->frames, nframes, s->sig[c], s->cfg.hop);
        s->sink_s += sp_now() - t0;
        if (err != SP_OK)
            return err;
    }
    for (int c = 0; c < s->outs && !s->cfn && !s->ffn; c++) {
        float *db = s->db[s->cur];
        fft_peak_raw *raw = s->raw[s->cur];
        float *cm = s->cm[s->cur];
        double t0 = sp_now(), t1;
        s->req.first = s->frames;
        s->req.colmax = cm;
        int err = s->reduce ? fft_stft_reduce(s->plan, s->sig[c], nframes, db, &s->req, raw)
                            : fft_stft_db(s->plan, s->sig[c], nframes, db);
        s->cur ^= 1;
        t1 = sp_now();
        s->fft_s += t1 - t0;
        if (err != SP_OK)
            return fft_failed(s, err, ei);
        err = s->reduce ? s->reduce(s->reduce_user, c, s->frames, nframes, db, raw, cm)
                        : s->sink(s->user, c, s->frames, nframes, db);
        s->sink_s += sp_now() - t1;
        if (err != SP_OK)
            return err;
    }
    s->frames += nframes;
    if (drop >= s->len) {
        s->skip = drop - s->len;
        s->len = 0;
    } else {
        for (int c = 0; c < s->outs; c++)
            memmove(s->sig[c], s->sig[c] + drop, (s->len - drop) * sizeof **s->sig);
        s->len -= drop;
    }
    return SP_OK;
}

static size_t complete_frames(const stft *s)
{
    return s->len < s->cfg.n ? 0 : (s->len - s->cfg.n) / s->cfg.hop + 1;
}

void stft_mix(const float *in, size_t count, int ch, float *dst)
{
    const float inv = 1.0f / (float)ch;
    /* channel by channel (the same sums, in the same order, as sample by sample):
     * each pass is a plain loop the compiler vectorises */
    if (ch == 1) {
        copy_floats(dst, in, count);
        return;
    }
    for (size_t i = 0; i < count; i++)
        dst[i] = in[i * (size_t)ch];
    for (int c = 1; c < ch; c++)
        for (size_t i = 0; i < count; i++)
            dst[i] += in[i * (size_t)ch + (size_t)c];
    for (size_t i = 0; i < count; i++)
        dst[i] *= inv;
    /* huge finite samples can overflow the float sum (FLT_MAX + FLT_MAX): those few are
     * mixed again in double, so a finite input always mixes to a finite sample (the others
     * keep their float sums, bit for bit) */
    for (size_t i = 0; i < count; i++)
        if (!isfinite(dst[i])) {
            double sum = 0.0;
            for (int c = 0; c < ch; c++)
                sum += in[i * (size_t)ch + (size_t)c];
            dst[i] = (float)(sum / ch);
        }
}

/* Mixes or selects `count` interleaved input frames onto the end of the channel buffers. */
static void append(stft *s, const float *in, size_t count)
{
    const int ch = s->cfg.in_channels;
    if (s->cfg.channel == STFT_CHANNEL_MIX) {
        stft_mix(in, count, ch, s->sig[0] + s->len);
    } else if (s->cfg.channel == STFT_CHANNEL_ALL) {
        for (int c = 0; c < ch; c++) {
            float *dst = s->sig[c] + s->len;
            for (size_t i = 0; i < count; i++)
                dst[i] = in[i * (size_t)ch + (size_t)c];
        }
    } else {
        float *dst = s->sig[0] + s->len;
        for (size_t i = 0; i < count; i++)
            dst[i] = in[i * (size_t)ch + (size_t)s->cfg.channel];
    }
    s->len += count;
}

int stft_push(stft *s, const float *in, size_t nframes, sp_errinfo *ei)
{
    size_t need;
    if (!s || (!in && nframes))
        return SP_EINVAL;
    need = span(s, s->cfg.batch);
    s->samples += nframes;
    while (nframes > 0) {
        size_t take;
        if (s->skip) {
            take = nframes < s->skip ? nframes : s->skip;
            s->skip -= take;
        } else {
            /* one channel as it is: up to the batch's end in one piece */
            size_t piece = s->cfg.in_channels == 1 && s->len < need ? need - s->len : PUSH_PIECE;
            take = nframes < piece ? nframes : piece;
            append(s, in, take);
            while (s->len >= need) {
                int err = run_batch(s, s->cfg.batch, ei);
                if (err != SP_OK)
                    return err;
            }
        }
        in += take * (size_t)s->cfg.in_channels;
        nframes -= take;
    }
    return SP_OK;
}

void stft_discard(stft *s, uint64_t gap)
{
    /* stream position just after the missing samples */
    uint64_t pos = s->frames * s->cfg.hop + s->len - s->skip + gap;
    uint64_t next = (pos + s->cfg.hop - 1) / s->cfg.hop;
    s->skipped += next - s->frames;
    s->frames = next;
    s->len = 0;
    s->skip = (size_t)(next * s->cfg.hop - pos);
    s->samples += gap;
}

int stft_flush(stft *s, sp_errinfo *ei)
{
    size_t ready;
    while ((ready = complete_frames(s)) > 0) {
        int err = run_batch(s, ready < s->cfg.batch ? ready : s->cfg.batch, ei);
        if (err != SP_OK)
            return err;
    }
    return deliver(s, ei);
}

int stft_finish(stft *s, sp_errinfo *ei)
{
    int err = stft_flush(s, ei);
    if (err != SP_OK)
        return err;
    if (s->samples < s->cfg.n) {
        /* shorter than one frame: one frame, zero-padded */
        for (int c = 0; c < s->outs; c++)
            memset(s->sig[c] + s->len, 0, (s->cfg.n - s->len) * sizeof **s->sig);
        s->len = s->cfg.n;
        if ((err = run_batch(s, 1, ei)) != SP_OK)
            return err;
        return deliver(s, ei);
    }
    return SP_OK;
}
