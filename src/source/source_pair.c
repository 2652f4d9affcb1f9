/* A pair of inputs (--reference FILE with --transfer REF:MEAS): channel REF of the reference
 * file and channel MEAS of the input, read side by side as one two-channel source (0: the
 * reference, 1: the measured), aligned first. --compare A B makes a pair of the two files'
 * mixes, not aligned, of one length; with --resample B is resampled to A's rate (resample.h).
 *
 * The alignment is a coarse one, to the sample: the first ALIGN_MAX frames of each channel
 * are cross-correlated with the phase transform (GCC-PHAT, one FFT of twice that length),
 * and the input that comes later is read from its correlation peak on (info.aligned says
 * how far). What is left of the delay, within a frame, is the transfer function's to
 * measure (docs/measurements.md "Transfer function"). Both inputs are files of one rate;
 * the pair ends with the shorter. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fft.h"
#include "resample.h"
#include "source.h"

#define ALIGN_MAX ((size_t)1 << 20) /* frames each input gives the alignment: ~22 s at 48 kHz */
#define PAIR_BLOCK 4096             /* frames a read takes of each input at most */

typedef struct {
    source *in[2];   /* the reference, the measured */
    int chan[2];     /* the channel taken of each */
    float *buf[2];   /* PAIR_BLOCK frames of each, interleaved as the input has them */
    int ended;
    resampler *rs;   /* --compare --resample: the measured input to the reference's rate */
    float *mono;     /* PAIR_BLOCK samples: the measured input's channel before resampling */
    int in_ended;    /* the measured input gave its last sample to the resampler */
} pair_state;

static void pair_close(void *state)
{
    pair_state *p = state;
    if (!p)
        return;
    for (int i = 0; i < 2; i++) {
        source_close(p->in[i]);
        free(p->buf[i]);
    }
    resampler_destroy(p->rs);
    free(p->mono);
    free(p);
}

/* Channel c of frame f of input i's block, or its channels' mean for c = -1 (the float sum
 * in channel order times 1/C, as the framer mixes: docs/design.md "Channels"). */
static float sample_of(const pair_state *p, int i, size_t f, size_t ch)
{
    const float *x = p->buf[i] + f * ch;
    float sum = 0.0f;
    if (p->chan[i] >= 0)
        return x[p->chan[i]];
    for (size_t c = 0; c < ch; c++)
        sum += x[c];
    return sum * (1.0f / (float)ch);
}

/* Up to `want` frames of input i into p->buf[i]; fewer only at its end. */
static int read_full(pair_state *p, int i, size_t want, size_t *got, sp_errinfo *ei)
{
    size_t ch = (size_t)source_get_info(p->in[i])->channels, have = 0;
    while (have < want) {
        size_t n = 0;
        int err = source_read(p->in[i], p->buf[i] + have * ch, want - have, &n, ei);
        if (err != SP_OK)
            return err;
        if (n == 0)
            break;
        have += n;
    }
    *got = have;
    return SP_OK;
}

/* Up to `want` samples of the measured input at the reference's rate into dst (channel 1 of
 * the pair's frames); fewer only at its end. */
static int read_resampled(pair_state *p, size_t want, float *dst, size_t *got, sp_errinfo *ei)
{
    size_t ch = (size_t)source_get_info(p->in[1])->channels, have = 0, n;
    float tmp[256];
    int err;
    while (have < want) {
        size_t k = resampler_run(p->rs, NULL, 0, p->in_ended, tmp, want - have < 256 ? want - have : 256);
        for (size_t f = 0; f < k; f++)
            dst[2 * (have + f)] = tmp[f];
        have += k;
        if (k > 0)
            continue;
        if (p->in_ended) /* everything given was made */
            break;
        if ((err = read_full(p, 1, PAIR_BLOCK, &n, ei)) != SP_OK)
            return err;
        for (size_t f = 0; f < n; f++)
            p->mono[f] = sample_of(p, 1, f, ch);
        p->in_ended = n < PAIR_BLOCK;
        resampler_run(p->rs, p->mono, n, p->in_ended, tmp, 0); /* only takes them */
    }
    *got = have;
    return SP_OK;
}

static int pair_read(void *state, float *dst, size_t max_frames, size_t *got, sp_errinfo *ei)
{
    pair_state *p = state;
    size_t n[2] = {0, 0}, want = max_frames < PAIR_BLOCK ? max_frames : PAIR_BLOCK;
    int err;
    *got = 0;
    if (p->ended)
        return SP_OK;
    for (int i = 0; i < 2; i++) {
        size_t ch = (size_t)source_get_info(p->in[i])->channels;
        if (i == 1 && p->rs) {
            if ((err = read_resampled(p, want, dst + 1, &n[1], ei)) != SP_OK)
                return err;
            continue;
        }
        if ((err = read_full(p, i, want, &n[i], ei)) != SP_OK)
            return err;
        for (size_t f = 0; f < n[i]; f++)
            dst[2 * f + (size_t)i] = sample_of(p, i, f, ch);
    }
    if (n[0] < want || n[1] < want)
        p->ended = 1;
    *got = n[0] < n[1] ? n[0] : n[1];
    return SP_OK;
}

static int pair_truncated(const void *state)
{
    const pair_state *p = state;
    return source_truncated(p->in[0]) || source_truncated(p->in[1]);
}

static const source_ops pair_ops = {.kind = "pair", .read = pair_read, .truncated = pair_truncated,
                                    .close = pair_close};

/* Opens one input of the pair: a file (not the microphone, a pipe or a generated signal). */
static int open_one(const source_request *req, const char *input, source **out, sp_errinfo *ei)
{
    source_request r = *req;
    int err;
    r.input = input;
    r.reference = NULL;
    if (!input || source_is_pipe_path(input) || strncmp(input, "synth:", 6) == 0)
        return sp_fail(ei, SP_EINVAL, SP_FIELD("reference") ": both the reference and the input must be files");
    if ((err = source_open_request(&r, out, ei)) != SP_OK)
        return err;
    if (source_get_info(*out)->pipe || source_is_push(*out)) {
        source_close(*out);
        *out = NULL;
        return sp_fail(ei, SP_EINVAL, SP_FIELD("reference") ": both the reference and the input must be files");
    }
    return SP_OK;
}

/* Channel c of up to `max` frames of the input into x[0..*len), as complex values. */
static int read_channel(const source_request *req, const char *input, int c, cpx *x, size_t max, size_t *len,
                        sp_errinfo *ei)
{
    pair_state p;
    size_t ch, n = 0;
    int err;
    memset(&p, 0, sizeof p);
    if ((err = open_one(req, input, &p.in[0], ei)) != SP_OK)
        return err;
    ch = (size_t)source_get_info(p.in[0])->channels;
    *len = 0;
    if (!(p.buf[0] = malloc(PAIR_BLOCK * ch * sizeof *p.buf[0])))
        err = sp_fail(ei, SP_ENOMEM, "out of memory");
    while (err == SP_OK && *len < max && (err = read_full(&p, 0, PAIR_BLOCK, &n, ei)) == SP_OK && n > 0)
        for (size_t f = 0; f < n && *len < max; f++, ++*len) {
            x[*len].re = p.buf[0][f * ch + (size_t)c];
            x[*len].im = 0.0f;
        }
    source_close(p.in[0]);
    free(p.buf[0]);
    return err;
}

/* The lag of the measured channel after the reference (frames; negative: it comes first)
 * by GCC-PHAT over the first ALIGN_MAX frames of each. */
static int align_lag(const source_request *req, int64_t *lag, sp_errinfo *ei)
{
    fft_config fc = fft_config_default();
    fft_plan *plan = NULL;
    size_t n = 2 * ALIGN_MAX, len[2], best = 0;
    cpx *x[2] = {calloc(n, sizeof(cpx)), calloc(n, sizeof(cpx))};
    int err = SP_OK;
    if (!x[0] || !x[1])
        err = sp_fail(ei, SP_ENOMEM, "out of memory aligning " SP_FIELD("reference"));
    if (err == SP_OK)
        err = read_channel(req, req->reference, req->reference_channel, x[0], ALIGN_MAX, &len[0], ei);
    if (err == SP_OK)
        err = read_channel(req, req->input, req->measured_channel, x[1], ALIGN_MAX, &len[1], ei);
    if (err == SP_OK) /* the smallest transform that holds the correlation of what was read */
        for (n = FFT_MIN_SIZE; n < 2 * (len[0] > len[1] ? len[0] : len[1]); n *= 2)
            ;
    fc.backend = FFT_BACKEND_CPU;
    fc.n = n;
    fc.hop = n;
    fc.max_batch = 1;
    if (err == SP_OK && (err = fft_plan_create(&fc, &plan, ei)) == SP_OK &&
        ((err = fft_c2c(plan, x[0], x[0], 1, 0)) != SP_OK || (err = fft_c2c(plan, x[1], x[1], 1, 0)) != SP_OK))
        err = sp_fail(ei, err, SP_FIELD("reference") ": FFT failed");
    for (size_t k = 0; err == SP_OK && k < n; k++) { /* conj(R) M / |conj(R) M| */
        double re = (double)x[0][k].re * x[1][k].re + (double)x[0][k].im * x[1][k].im;
        double im = (double)x[0][k].re * x[1][k].im - (double)x[0][k].im * x[1][k].re, m = hypot(re, im);
        x[0][k].re = m > 0.0 ? (float)(re / m) : 0.0f;
        x[0][k].im = m > 0.0 ? (float)(im / m) : 0.0f;
    }
    if (err == SP_OK && (err = fft_c2c(plan, x[0], x[0], 1, 1)) != SP_OK)
        err = sp_fail(ei, err, SP_FIELD("reference") ": FFT failed");
    for (size_t i = 1; err == SP_OK && i < n; i++)
        if (x[0][i].re > x[0][best].re)
            best = i;
    *lag = best < n / 2 ? (int64_t)best : (int64_t)best - (int64_t)n;
    fft_plan_destroy(plan);
    free(x[0]);
    free(x[1]);
    return err;
}

/* The pair's description from its two inputs, the later one read from `skip` on. */
static int pair_info(pair_state *p, const source_request *req, int64_t lag, source_info *info, sp_errinfo *ei)
{
    const source_info *r = source_get_info(p->in[0]), *m = source_get_info(p->in[1]);
    int64_t skip[2] = {lag < 0 ? -lag : 0, lag > 0 ? lag : 0}, reached, mlen = m->samples_hint;
    const char *opt = req->compare ? SP_FIELD("compare") : SP_FIELD("reference");
    int err;
    if (req->reference_channel >= r->channels || req->measured_channel >= m->channels)
        return sp_fail(ei, SP_EINVAL, SP_FIELD("transfer") " %d:%d: channel %d out of range: %s has %d channel%s",
                       req->reference_channel, req->measured_channel,
                       req->reference_channel >= r->channels ? req->reference_channel : req->measured_channel,
                       req->reference_channel >= r->channels ? r->name : m->name,
                       req->reference_channel >= r->channels ? r->channels : m->channels,
                       (req->reference_channel >= r->channels ? r->channels : m->channels) == 1 ? "" : "s");
    if (r->rate != m->rate && !p->rs)
        return sp_fail(ei, SP_EINVAL, "%s %s: %d Hz, but %s is %d Hz (give files of one rate%s)", opt, r->name,
                       r->rate, m->name, m->rate, req->compare ? ", or " SP_FIELD("resample") : "");
    if (p->rs && mlen >= 0) /* a length at the reference's rate, within a sample */
        mlen = (int64_t)resampler_length(p->rs, (uint64_t)mlen);
    if (req->compare && (p->rs ? llabs(r->samples_hint - mlen) > 1 : r->samples_hint != mlen))
        return sp_fail(ei, SP_EINVAL, SP_FIELD("compare") ": %s has %lld samples, %s %lld%s (give files of one length)",
                       r->name, (long long)r->samples_hint, m->name, (long long)mlen, p->rs ? " resampled" : "");
    *info = *m;
    info->rate = r->rate;
    info->channels = 2;
    info->unit_bound = r->unit_bound && m->unit_bound;
    info->aligned = lag;
    snprintf(info->name, sizeof info->name, req->compare ? "%.120s - %.120s" : "%.120s (reference %.120s)", m->name,
             r->name);
    info->samples_hint = r->samples_hint < 0 || mlen < 0                 ? -1
                         : r->samples_hint - skip[0] < mlen - skip[1] ? r->samples_hint - skip[0]
                                                                      : mlen - skip[1];
    if (info->samples_hint < -1)
        info->samples_hint = 0;
    for (int i = 0; i < 2; i++)
        if (skip[i] && (err = source_seek(p->in[i], skip[i], req->stop, &reached, ei)) != SP_OK)
            return err;
    return SP_OK;
}

int source_open_pair(const source_request *req, source **out, sp_errinfo *ei)
{
    pair_state *p = calloc(1, sizeof *p);
    source_info info;
    int64_t lag = 0;
    int err;
    if (!p)
        return sp_fail(ei, SP_ENOMEM, "out of memory");
    p->chan[0] = req->reference_channel;
    p->chan[1] = req->measured_channel;
    if ((err = open_one(req, req->reference, &p->in[0], ei)) != SP_OK ||
        (err = open_one(req, req->input, &p->in[1], ei)) != SP_OK)
        goto fail;
    if (req->compare && req->resample && source_get_info(p->in[0])->rate != source_get_info(p->in[1])->rate) {
        if ((err = resampler_create(source_get_info(p->in[1])->rate, source_get_info(p->in[0])->rate, &p->rs, ei)) !=
            SP_OK)
            goto fail;
        if (!(p->mono = malloc(PAIR_BLOCK * sizeof *p->mono))) {
            err = sp_fail(ei, SP_ENOMEM, "out of memory");
            goto fail;
        }
    }
    if ((err = pair_info(p, req, 0, &info, ei)) != SP_OK)
        goto fail;
    if (!req->compare &&
        ((err = align_lag(req, &lag, ei)) != SP_OK || (err = pair_info(p, req, lag, &info, ei)) != SP_OK))
        goto fail;
    for (int i = 0; i < 2; i++)
        if (!(p->buf[i] = malloc(PAIR_BLOCK * (size_t)source_get_info(p->in[i])->channels * sizeof(float)))) {
            err = sp_fail(ei, SP_ENOMEM, "out of memory");
            goto fail;
        }
    return source_create(&pair_ops, p, &info, out, ei);
fail:
    pair_close(p);
    return err;
}
