/* constant-Q, octave-wise multirate (docs/transforms.md "Constant-Q (octave-wise
 * multirate)"): bin j's temporal kernel is a hann window of N_j = round(Q rate/f_j) samples
 * centred in the frame times e^(-2 pi i f_j t), scaled by 2/sum(w) so that a sine of
 * amplitude A on f_j reads A: c_j = sum_t x_t k_j(t). Each octave's bins read it on the
 * signal decimated by 2^d (a cascade of halfband FIRs run once over the call's span,
 * xform_cqt_dec.c), the kernel sampled at the decimated instants and scaled by 2^d:
 * c_j = 2^d sum_m y_d[m] k_j(2^d m). The decimated grid is anchored at each frame's first
 * sample, so that a row is a function of its own frame's N samples only, whatever the call. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "par.h"
#include "xform_internal.h"

/* An octave's highest main-lobe edge, f (1 + 2/Q), at most this fraction of its decimated
 * rate: each stage's transition band is then at least 1/8 of its input rate. */
#define CQT_RATIO 0.375
#define CQT_MAX_STAGES 14
/* A kernel's samples run in blocks of 16 (xform_cqt_dot), zero-padded. */
#define CQT_PAD 16
/* Frames a part of the rows takes at least: a call of the framer's 32 frames at N 32768
 * stays on its thread (a fork and join costs more than its rows on a busy machine). */
#define CQT_PART_FRAMES 64
/* Outputs of a stage below which it runs on the caller's thread alone. */
#define CQT_PAR_MIN 65536

typedef struct {
    size_t bins;
    int stages;                  /* D: levels 1 .. D are the signal decimated by 2^d */
    xform_halfband hb[CQT_MAX_STAGES + 1]; /* hb[i]: level i-1 to level i */
    long lo[CQT_MAX_STAGES + 1]; /* a frame's first sample of level d (from its start) */
    int *level;                  /* bin j's level */
    long *a;                     /* bin j's first sample on its level, from the frame's start */
    size_t *len, *off;           /* its weights wr/wi[off .. off + len), len a multiple of 16 */
    float *wr, *wi;              /* 2^d k_j(2^d m), re and im */
    size_t nw;
    int octaves, oct_level[64];  /* for the sidecar */
    /* xform_rows: the levels of a span, in buf[cur]; the previous call's in buf[!cur], with
     * the input samples after its last frame's start (the next call's first, when the calls
     * follow one stream: their levels are taken over where those samples are the same) */
    float *buf[2], *tail;
    size_t cap[2], tail_len, prev_len, prev_hop;
    long prev_hi[CQT_MAX_STAGES + 1];
    int cur, prev_ok;
    int *slot;                   /* level d, phase p: array slot[2^d - 1 + p] (-1: none) */
    struct cqt_arr *arr;         /* a span's arrays of the levels (cqt_phases) */
    const float **ptr;           /* ... and where their samples are */
    int avx;
} cqt_state;

static void cqt_fini(xform *x)
{
    cqt_state *q = x->priv;
    if (!q)
        return;
    free(q->level);
    free(q->a);
    free(q->len);
    free(q->off);
    free(q->wr);
    free(q->wi);
    free(q->buf[0]);
    free(q->buf[1]);
    free(q->tail);
    free(q->slot);
    free(q->arr);
    free(q->ptr);
    free(q);
}

/* The bins' frequencies from fmin, B an octave, up to fmax or (default) the last whose
 * kernel's main lobe (f_j (1 + 2/Q)) stays below Nyquist. */
static int cqt_plan_bins(xform *x, double *fmin_out, double *fmax_out, size_t *count, sp_errinfo *ei)
{
    int bpo = x->spec.bands;
    double nyq = x->rate / 2.0, q = 1.0 / (pow(2.0, 1.0 / bpo) - 1.0);
    double fmin = x->spec.fmin < 0 ? XFORM_CQT_DEFAULT_FMIN : x->spec.fmin;
    double fmax = x->spec.fmax > 0 ? x->spec.fmax : nyq / (1.0 + 2.0 / q);
    double need = ceil(q * x->rate / fmin);
    size_t n_need = 16;
    if (bpo < 1 || bpo > XFORM_CQT_MAX_BPO)
        return sp_fail(ei, SP_EINVAL, "cqt: %d bins an octave: must be from 1 to %d", bpo, XFORM_CQT_MAX_BPO);
    if (!(fmin > 0))
        return sp_fail(ei, SP_EINVAL, "cqt: " SP_FIELD("fmin") " must be above 0 Hz");
    if (x->spec.fmax > nyq)
        return sp_fail(ei, SP_EINVAL, "cqt: " SP_FIELD("fmax") " %g Hz is above the Nyquist frequency (%g Hz)",
                       x->spec.fmax, nyq);
    if (fmin > fmax)
        return sp_fail(ei, SP_EINVAL, "cqt: " SP_FIELD("fmin") " %g Hz must be below " SP_FIELD("fmax") " %g Hz", fmin,
                       fmax);
    while ((double)n_need < need && n_need < FFT_MAX_SIZE)
        n_need *= 2;
    if (need > (double)x->n)
        return sp_fail(ei, SP_EINVAL,
                       "cqt: " SP_FIELD("fmin") " %g Hz at %d bins an octave needs N >= %zu (a kernel of %.0f "
                       "samples), not %zu",
                       fmin, bpo, n_need, need, x->n);
    *count = (size_t)floor(bpo * log2(fmax / fmin) + 1e-9) + 1;
    *fmin_out = fmin;
    *fmax_out = fmax;
    return SP_OK;
}

/* Octave o (0 the highest): its highest bin and the top edge of that bin's main lobe. */
static size_t cqt_octave_top(const xform *x, const cqt_state *q, int o, double qf, double *edge)
{
    size_t top = q->bins - 1 - (size_t)o * (size_t)x->spec.bands;
    *edge = x->freqs[top] * (1.0 + 2.0 / qf);
    return top;
}

/* Bin j's kernel length N_j and first sample in the frame (as the full-rate definition). */
static long cqt_klen(const xform *x, size_t j, double qf, long *start)
{
    long len = lround(qf * x->rate / x->freqs[j]);
    *start = ((long)x->n - len) / 2;
    return len;
}

/* Bin j's samples on level d: the m with start < 2^d m < start + N_j (where the hann window
 * is not 0), [*m0, *m1]. */
static void cqt_support(const xform *x, size_t j, double qf, int d, long *m0, long *m1)
{
    long start, len = cqt_klen(x, j, qf, &start), step = 1L << d;
    *m0 = start / step + 1;
    *m1 = (start + len + step - 1) / step - 1;
}

/* The level chain over a span of `len` samples: level i's first and last sample made from
 * level i-1's (a stage reaches 2 pairs - 1 samples either side). */
static void cqt_chain(const cqt_state *q, int stages, long len, long *lo, long *hi)
{
    lo[0] = 0;
    hi[0] = len - 1;
    for (int i = 1; i <= stages; i++) {
        long h = 2L * q->hb[i].pairs - 1;
        lo[i] = (lo[i - 1] + h + 1) / 2;
        hi[i] = hi[i - 1] - h >= 0 ? (hi[i - 1] - h) / 2 : -1;
    }
}

/* Each octave's level: the most decimation that keeps its highest main-lobe edge below
 * CQT_RATIO of the rate and its kernels plus the stages' reach inside the frame. The stage
 * to level i passes the highest edge of the octaves that go that far. */
static int cqt_levels(xform *x, cqt_state *q, double qf, long *hi)
{
    int drate[64], dmax = 0;
    long lo[CQT_MAX_STAGES + 1];
    q->octaves = (int)((q->bins + (size_t)x->spec.bands - 1) / (size_t)x->spec.bands);
    if (q->octaves > 64)
        return SP_EINVAL;
    for (int o = 0; o < q->octaves; o++) {
        double edge;
        cqt_octave_top(x, q, o, qf, &edge);
        for (drate[o] = 0; drate[o] < CQT_MAX_STAGES && edge <= CQT_RATIO * x->rate / (double)(2L << drate[o]);)
            drate[o]++;
        dmax = drate[o] > dmax ? drate[o] : dmax;
    }
    for (int i = 1; i <= dmax; i++) {
        int o = 0;
        double edge;
        while (drate[o] < i)
            o++;
        cqt_octave_top(x, q, o, qf, &edge);
        if (xform_halfband_design(&q->hb[i], edge / (x->rate / (double)(1L << (i - 1)))) != SP_OK)
            return SP_EINVAL;
    }
    cqt_chain(q, dmax, (long)x->n, lo, hi);
    q->stages = 0;
    for (int o = 0; o < q->octaves; o++) {
        double edge;
        size_t top = cqt_octave_top(x, q, o, qf, &edge);
        size_t bot = top + 1 > (size_t)x->spec.bands ? top + 1 - (size_t)x->spec.bands : 0;
        int d = drate[o], fits = 0;
        for (; d > 0 && !fits; d -= !fits) {
            fits = 1;
            for (size_t j = bot; j <= top && fits; j++) {
                long m0, m1;
                cqt_support(x, j, qf, d, &m0, &m1);
                fits = m0 >= lo[d] && m1 <= hi[d];
            }
        }
        for (size_t j = bot; j <= top; j++)
            q->level[j] = d;
        q->oct_level[o] = d;
        q->stages = d > q->stages ? d : q->stages;
    }
    memcpy(q->lo, lo, sizeof lo);
    return SP_OK;
}

/* The kernels on their levels: 2^d k_j(2^d m), zero-padded to runs of CQT_PAD that stay
 * within the level's samples of the frame where they can. */
static int cqt_weights(xform *x, cqt_state *q, double qf, const long *hi)
{
    size_t total = 0;
    for (size_t j = 0; j < q->bins; j++) {
        int d = q->level[j];
        long m0, m1, len;
        cqt_support(x, j, qf, d, &m0, &m1);
        len = (m1 - m0 + 1 + CQT_PAD - 1) / CQT_PAD * CQT_PAD;
        q->a[j] = m0 + len - 1 > hi[d] ? hi[d] + 1 - len : m0;
        q->a[j] = q->a[j] < q->lo[d] ? q->lo[d] : q->a[j];
        q->len[j] = (size_t)len;
        q->off[j] = total;
        total += (size_t)len;
    }
    q->nw = total;
    if (!(q->wr = calloc(total, sizeof *q->wr)) || !(q->wi = calloc(total, sizeof *q->wi)))
        return SP_ENOMEM;
    for (size_t j = 0; j < q->bins; j++) {
        const int d = q->level[j];
        const double step = (double)(1L << d), f = x->freqs[j];
        long start, len = cqt_klen(x, j, qf, &start), m0, m1;
        const double wsum = len > 1 ? (double)len / 2.0 : 1.0; /* sum of the N_j hann samples */
        cqt_support(x, j, qf, d, &m0, &m1);
        for (long m = m0; m <= m1; m++) {
            const double t = step * (double)m, ph = 2.0 * XFORM_PI * f * (t - (double)x->n / 2.0) / x->rate;
            const double w = (0.5 - 0.5 * cos(2.0 * XFORM_PI * (t - (double)start) / (double)len)) * 2.0 / wsum * step;
            q->wr[q->off[j] + (size_t)(m - q->a[j])] = (float)(w * cos(ph));
            q->wi[q->off[j] + (size_t)(m - q->a[j])] = (float)(-w * sin(ph));
        }
    }
    return SP_OK;
}

static int cqt_params(xform *x, double fmin, double fmax, double qf)
{
    cqt_state *q = x->priv;
    size_t at = (size_t)snprintf(
        x->params, sizeof x->params,
        ", \"bins_per_octave\": %d, \"fmin\": %.10g, \"fmax\": %.10g, \"bins\": %zu, \"q\": %.10g, \"method\": "
        "\"octave-wise multirate: halfband FIR decimators (Kaiser, 80 dB), hann kernels on each octave's decimated "
        "signal\", \"values\": \"dBFS\", \"kernel_s_lowest\": %.6g, \"kernel_s_highest\": %.6g, \"octave_rates_hz\": [",
        x->spec.bands, fmin, fmax, q->bins, qf, qf / x->freqs[0], qf / x->freqs[q->bins - 1]);
    for (int o = 0; o < q->octaves && at < sizeof x->params; o++)
        at += (size_t)snprintf(x->params + at, sizeof x->params - at, "%s%.10g", o ? ", " : "",
                               x->rate / (double)(1L << q->oct_level[o]));
    for (int i = 1; i <= q->stages && at < sizeof x->params; i++)
        at += (size_t)snprintf(x->params + at, sizeof x->params - at, "%s%d", i > 1 ? ", " : "], \"decimator_taps\": [",
                               4 * q->hb[i].pairs - 1);
    if (at < sizeof x->params)
        at += (size_t)snprintf(x->params + at, sizeof x->params - at, "]");
    return at < sizeof x->params ? SP_OK : SP_ENOMEM;
}

static int cqt_init(xform *x, sp_errinfo *ei)
{
    double fmin = 0.0, fmax = 0.0, qf = 1.0 / (pow(2.0, 1.0 / x->spec.bands) - 1.0);
    long hi[CQT_MAX_STAGES + 1];
    size_t count = 0;
    cqt_state *q;
    int err = cqt_plan_bins(x, &fmin, &fmax, &count, ei);
    if (err != SP_OK)
        return err;
    if (!(q = calloc(1, sizeof *q)))
        return SP_ENOMEM;
    x->priv = q;
    q->bins = count;
    q->avx = xform_cqt_avx();
    q->level = calloc(count, sizeof *q->level);
    q->a = calloc(count, sizeof *q->a);
    q->len = calloc(count, sizeof *q->len);
    q->off = calloc(count, sizeof *q->off);
    x->freqs = malloc(count * sizeof *x->freqs);
    if (!q->level || !q->a || !q->len || !q->off || !x->freqs)
        return SP_ENOMEM;
    for (size_t j = 0; j < count; j++)
        x->freqs[j] = fmin * pow(2.0, (double)j / x->spec.bands);
    if (cqt_levels(x, q, qf, hi) != SP_OK)
        return sp_fail(ei, SP_EINVAL, "cqt: no decimator for %d bins an octave", x->spec.bands);
    if ((err = cqt_weights(x, q, qf, hi)) != SP_OK)
        return err;
    for (size_t i = 0; i < x->n; i++) /* the kernels hold their own windows */
        x->wins[0][i] = 1.0f;
    x->width = count;
    return cqt_params(x, fmin, fmax, qf);
}

/* ---- rows: the levels of a span, then each frame's dot products ----------------------------
 *
 * A frame reads level d on the grid of its own first sample s: positions s + 2^d m. Frames
 * whose starts agree modulo 2^d share that grid (its phase), so a span keeps one array of
 * level d a phase its frames use: a tree, each array made from its parent's (the phase
 * modulo 2^(d-1)), every second sample from an offset of 0 or 1. A sample's value depends
 * only on its position (the same operations on the same inputs, whichever array holds it),
 * so a row is a function of its own frame's samples. One array a level when the hop is a
 * multiple of 2^stages; at most 2^d/gcd(hop, 2^d) at level d otherwise. */

typedef struct cqt_arr {
    long lo, hi;                 /* grid indices m (positions phase + 2^d m) whose reach is in the span */
    size_t at;                   /* sample m at buf[at + m - lo] */
    int parent, odd, level;      /* the array it is made from, at centres 2m + odd there */
} cqt_arr;

typedef struct {
    const xform *x;
    const cqt_state *q;
    const float **ptr;            /* array e's sample m at ptr[e][m - arr[e].lo] */
    const xform_halfband *hb;     /* a stage: count outputs from in */
    const float *in;
    float *stage_out;
    size_t count;
    size_t nframes, hop;          /* frame k at k*hop; its row at rows + k*width */
    float *rows;
} cqt_job;

static void stage_part(void *ctx, int part, int parts)
{
    const cqt_job *j = ctx;
    size_t a, b;
    sp_par_share(j->count, part, parts, &a, &b);
    xform_halfband_run(j->hb, j->in + 2 * a, j->stage_out + a, b - a, j->q->avx);
}

/* The powers of a row to dB in place, eight at a time. */
static void cqt_row_db(float *row, size_t bins, int avx)
{
    size_t whole = bins / 8 * 8;
    float tail[8] = {0};
    xform_cqt_db(row, row, whole, avx);
    if (whole < bins) {
        memcpy(tail, row + whole, (bins - whole) * sizeof *tail);
        xform_cqt_db(tail, tail, 8, avx);
        memcpy(row + whole, tail, (bins - whole) * sizeof *tail);
    }
}

/* Bin i's first sample for the frame at s: on its level, in the array of s's phase. */
static const float *cqt_at(const cqt_job *j, size_t i, size_t s)
{
    const cqt_state *q = j->q;
    const int d = q->level[i];
    const int e = q->slot[((size_t)1 << d) - 1 + (s & (((size_t)1 << d) - 1))];
    return j->ptr[e] + ((long)(s >> d) + q->a[i] - q->arr[e].lo);
}

static void rows_part(void *ctx, int part, int parts)
{
    const cqt_job *j = ctx;
    const cqt_state *q = j->q;
    const size_t width = j->x->width;
    size_t a, b;
    sp_par_share(j->nframes, part, parts, &a, &b);
    for (size_t k = a; k < b; k += 2) { /* two frames at a time (the last may pair itself) */
        const size_t s0 = k * j->hop, s1 = (k + 1 < b ? k + 1 : k) * j->hop;
        float *row0 = j->rows + k * width, *row1 = row0 + width;
        for (size_t i = 0; i < q->bins; i++) {
            float c[4];
            xform_cqt_dot2(cqt_at(j, i, s0), cqt_at(j, i, s1), q->wr + q->off[i], q->wi + q->off[i], q->len[i], c,
                           q->avx);
            row0[i] = c[0] * c[0] + c[1] * c[1];
            if (k + 1 < b)
                row1[i] = c[2] * c[2] + c[3] * c[3];
        }
        cqt_row_db(row0, q->bins, q->avx);
        if (k + 1 < b)
            cqt_row_db(row1, q->bins, q->avx);
    }
}

/* The arrays the frames k*hop (k < nframes) of a span of len samples use, parents first;
 * their floats (with CQT_PAD zeros a side) into *need. Returns how many. */
static int cqt_phases(cqt_state *q, size_t len, size_t nframes, size_t hop, size_t *need)
{
    const size_t period = (size_t)1 << q->stages; /* the phases repeat after so many frames */
    int count = 0;
    *need = 0;
    for (size_t i = 0; i < 2 * period; i++)
        q->slot[i] = -1;
    for (size_t f = 0; f < nframes && f < period; f++)
        for (int d = 0; d <= q->stages; d++) {
            const size_t s = f * hop, ph = s & (((size_t)1 << d) - 1), k = ((size_t)1 << d) - 1 + ph;
            cqt_arr *e = &q->arr[count];
            if (q->slot[k] >= 0)
                continue;
            e->level = d;
            e->parent = -1;
            e->odd = 0;
            e->lo = 0;
            e->hi = (long)len - 1;
            e->at = 0;
            if (d > 0) {
                const long h = 2L * q->hb[d].pairs - 1;
                const cqt_arr *p;
                e->parent = q->slot[((size_t)1 << (d - 1)) - 1 + (ph & (((size_t)1 << (d - 1)) - 1))];
                e->odd = (int)(ph >> (d - 1)) & 1;
                p = &q->arr[e->parent];
                e->lo = (p->lo + h - e->odd + 1) / 2;
                e->hi = p->hi - h - e->odd >= 0 ? (p->hi - h - e->odd) / 2 : -1;
                e->at = *need;
                *need += (size_t)(e->hi >= e->lo ? e->hi - e->lo + 1 : 0) + 2 * CQT_PAD;
            }
            q->slot[k] = count++;
        }
    return count;
}

/* Level d's samples (one array a level) that the previous span made from the same input
 * samples: how many (from its first, lo), copied to out. The previous span started `shift`
 * samples before this one (a multiple of 2^stages). */
static size_t cqt_reuse(const cqt_state *q, int d, long lo, long hi, size_t shift, float *out)
{
    const float *old = q->buf[!q->cur];
    long sh = (long)(shift >> d), last = hi < q->prev_hi[d] - sh ? hi : q->prev_hi[d] - sh;
    size_t at = 0;
    if (last < lo)
        return 0;
    for (int k = 1; k < d; k++)
        at += (size_t)(q->prev_hi[k] - q->arr[k].lo + 1) + 2 * CQT_PAD;
    memcpy(out, old + at + sh, (size_t)(last - lo + 1) * sizeof *out);
    return (size_t)(last - lo + 1);
}

/* Keeps what the next call may take over (cqt_reuse; one array a level): the levels'
 * extents and the input samples from the frame after the last; 0 or SP_ENOMEM. */
static int cqt_keep(cqt_state *q, const float *anchor, size_t len, size_t hop, size_t nframes, size_t n)
{
    size_t from = nframes * hop;
    if (from >= len)
        return SP_OK;
    if (!q->tail && !(q->tail = malloc(n * sizeof *q->tail)))
        return SP_ENOMEM;
    q->tail_len = len - from;
    memcpy(q->tail, anchor + from, q->tail_len * sizeof *q->tail);
    for (int d = 0; d <= q->stages; d++)
        q->prev_hi[d] = q->arr[d].hi;
    q->prev_len = len;
    q->prev_hop = hop;
    q->prev_ok = 1;
    return SP_OK;
}

/* nframes frames at anchor + k*hop over len samples: the arrays, then the rows. `follow`:
 * the span may follow the previous call's (cqt_reuse). */
static int cqt_span(xform *x, const float *anchor, size_t len, size_t nframes, size_t hop, float *rows, int follow)
{
    cqt_state *q = x->priv;
    cqt_job j = {.x = x, .q = q, .ptr = q->ptr, .nframes = nframes, .hop = hop, .rows = rows};
    size_t need = 0;
    const int arrays = cqt_phases(q, len, nframes, hop, &need);
    /* one array a level, and the next call's frames on the same grids */
    const int single = arrays == q->stages + 1 && (hop & (((size_t)1 << q->stages) - 1)) == 0;
    int same = follow && single && q->prev_ok && q->prev_hop == hop && q->tail_len <= len &&
               !memcmp(q->tail, anchor, q->tail_len * sizeof *anchor);
    q->prev_ok = 0; /* until this span is whole (cqt_keep) */
    q->cur = !q->cur;
    if (need > q->cap[q->cur]) {
        float *b = realloc(q->buf[q->cur], need * sizeof *b);
        if (!b)
            return SP_ENOMEM;
        q->buf[q->cur] = b;
        q->cap[q->cur] = need;
    }
    q->ptr[0] = anchor;
    for (int e = 1; e < arrays; e++) { /* parents first (cqt_phases) */
        const cqt_arr *a = &q->arr[e], *p = &q->arr[a->parent];
        float *out = q->buf[q->cur] + a->at;
        size_t all = (size_t)(a->hi >= a->lo ? a->hi - a->lo + 1 : 0),
               done = same ? cqt_reuse(q, a->level, a->lo, a->hi, q->prev_len - q->tail_len, out) : 0;
        j.count = all - done;
        memset(out + all, 0, 2 * CQT_PAD * sizeof *out); /* what padded runs may read past the end */
        j.hb = &q->hb[a->level];
        j.in = q->ptr[a->parent] + (2 * (a->lo + (long)done) + a->odd - p->lo);
        j.stage_out = out + done;
        if (j.count)
            sp_par_run(stage_part, &j, j.count < CQT_PAR_MIN ? 1 : sp_par_parts(j.count, CQT_PAR_MIN / 2));
        q->ptr[e] = out;
    }
    sp_par_run(rows_part, &j, sp_par_parts(nframes, CQT_PART_FRAMES));
    return follow && single ? cqt_keep(q, anchor, len, hop, nframes, x->n) : SP_OK;
}

/* The frames as one span (each frame alone where they lie far apart: not the gaps). */
static int cqt_rows(xform *x, const float *sig, size_t hop, size_t nframes, float *out)
{
    cqt_state *q = x->priv;
    int err = SP_OK;
    if (!q->slot) { /* the arrays' tables: 2^(d+1) - 1 slots up to level d */
        const size_t slots = (size_t)2 << q->stages;
        if (!(q->slot = malloc(slots * sizeof *q->slot)) || !(q->arr = malloc(slots * sizeof *q->arr)) ||
            !(q->ptr = malloc(slots * sizeof *q->ptr)))
            return SP_ENOMEM;
    }
    if (hop <= 2 * x->n)
        return cqt_span(x, sig, (nframes - 1) * hop + x->n, nframes, hop, out, 1);
    for (size_t k = 0; k < nframes && err == SP_OK; k++)
        err = cqt_span(x, sig + k * hop, x->n, 1, 0, out + k * x->width, 0);
    return err;
}

_Static_assert(XFORM_HB_MAX_PAIRS == FFT_BANK_HB_PAIRS, "the bank carries the decimators whole");

/* The method as a bank (fft.h FFT_BANK_CQT_OCT) for a GPU backend: the decimators' taps, each
 * row's level, its first sample from its level's first (k0) and its weights, interleaved. */
static int cqt_bank(const xform *x, fft_bank *b, void **mem)
{
    const cqt_state *q = x->priv;
    const size_t rows = q->bins, nu = 4 * rows, nh = (size_t)q->stages * FFT_BANK_HB_FLOATS;
    uint32_t *u = malloc(nu * sizeof *u + (nh + 2 * q->nw) * sizeof(float));
    float *h, *w;
    memset(b, 0, sizeof *b);
    *mem = u;
    if (!u)
        return SP_ENOMEM;
    h = (float *)(u + nu);
    w = h + nh;
    memset(h, 0, nh * sizeof *h);
    for (size_t j = 0; j < rows; j++) {
        u[j] = (uint32_t)(q->a[j] - q->lo[q->level[j]]);
        u[rows + j] = (uint32_t)q->len[j];
        u[2 * rows + j] = (uint32_t)q->off[j];
        u[3 * rows + j] = (uint32_t)q->level[j];
    }
    for (int i = 1; i <= q->stages; i++) {
        float *t = h + (size_t)(i - 1) * FFT_BANK_HB_FLOATS;
        t[0] = (float)q->hb[i].pairs;
        t[1] = q->hb[i].centre;
        memcpy(t + 2, q->hb[i].g, (size_t)q->hb[i].pairs * sizeof *t);
    }
    for (size_t k = 0; k < q->nw; k++) {
        w[2 * k] = q->wr[k];
        w[2 * k + 1] = q->wi[k];
    }
    b->rows = rows;
    b->k0 = u;
    b->len = u + rows;
    b->off = u + 2 * rows;
    b->level = u + 3 * rows;
    b->w = w;
    b->nw = q->nw;
    b->post = FFT_BANK_CQT_OCT;
    b->stages = (size_t)q->stages;
    b->hb = h;
    return SP_OK;
}

const xform_ops xform_cqt_ops = {
    .kind = XFORM_CQT, .name = "cqt", .init = cqt_init, .fini = cqt_fini, .db = 1, .rows = cqt_rows,
    .bank = cqt_bank,
};
