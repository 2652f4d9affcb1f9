#include "loudness.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define ABS_GATE_LUFS (-70.0)
#define REL_GATE_LU (-10.0)     /* BS.1770-4: integrated */
#define LRA_REL_GATE_LU (-20.0) /* EBU Tech 3342: loudness range */
#define LRA_LOW 0.10
#define LRA_HIGH 0.95
#define TP_TAPS 12
#define TP_PHASES 4
#define CHUNK 256 /* frames a channel is run over at a time */
#define LOUDNESS_PI 3.14159265358979323846 /* M_PI is not in ISO C */

/* BS.1770-4 Annex 2: the 48-tap interpolation filter of the 4x true-peak meter, as its
 * four phases (phase p: the point p/4 of a sample period after the centre tap). */
static const double TP_COEF[TP_PHASES][TP_TAPS] = {
    {0.0017089843750, 0.0109863281250, -0.0196533203125, 0.0332031250000, -0.0594482421875, 0.1373291015625,
     0.9721679687500, -0.1022949218750, 0.0476074218750, -0.0266113281250, 0.0148925781250, -0.0083007812500},
    {-0.0291748046875, 0.0292968750000, -0.0517578125000, 0.0891113281250, -0.1665039062500, 0.4650878906250,
     0.7797851562500, -0.2003173828125, 0.1015625000000, -0.0582275390625, 0.0330810546875, -0.0189208984375},
    {-0.0189208984375, 0.0330810546875, -0.0582275390625, 0.1015625000000, -0.2003173828125, 0.7797851562500,
     0.4650878906250, -0.1665039062500, 0.0891113281250, -0.0517578125000, 0.0292968750000, -0.0291748046875},
    {-0.0083007812500, 0.0148925781250, -0.0266113281250, 0.0476074218750, -0.1022949218750, 0.9721679687500,
     0.1373291015625, -0.0594482421875, 0.0332031250000, -0.0196533203125, 0.0109863281250, 0.0017089843750},
};

typedef struct {
    double b0, b1, b2, a1, a2;
} biquad;

typedef struct {
    double s1[2], s2[2];        /* the two biquads' transposed direct form II states */
    float hist[2 * TP_TAPS];    /* the last TP_TAPS samples, twice: hist[pos .. pos+TP_TAPS) in order */
    int pos;
    double weight;
} channel_state;

struct loudness_meter {
    int rate, channels;
    biquad shelf, highpass;
    channel_state *ch;
    uint64_t frames;            /* taken so far */
    uint64_t step_end;          /* the frame where the current step ends */
    double acc;                 /* weighted sum of squares of the current step */
    double *energy;             /* per complete step: weighted sum of squares */
    uint32_t *len;              /* per complete step: its samples per channel */
    size_t steps, cap;
    double sample_peak, true_peak; /* linear */
    /* loudness_meter_keep_levels: per step the sample and true peak and the raw sum of
     * squares (as energy[]), and the current step's */
    int keep;
    float *st_peak, *st_tp;
    double *st_sq;
    double step_peak, step_tp, step_sq;
    double tp_gain;             /* the largest sum of |coefficients| of a phase */
    float tp_coef[TP_TAPS][TP_PHASES]; /* TP_COEF transposed */
};

/* BS.1770-4's two K-weighting stages for any rate: the 48 kHz table's filters are a high
 * shelf (f0 1681.97 Hz, +4.0 dB, Q 0.7072) and a high-pass (f0 38.135 Hz, Q 0.5003), here
 * made again by the bilinear transform at `rate` (at 48 kHz they give the table's
 * coefficients to 1e-9). */
static void k_weighting(double rate, biquad *shelf, biquad *hp)
{
    double f0 = 1681.974450955533, g_db = 3.999843853973347, q = 0.7071752369554196;
    double k = tan(LOUDNESS_PI * f0 / rate), vh = pow(10.0, g_db / 20.0), vb = pow(vh, 0.4996667741545416);
    double a0 = 1.0 + k / q + k * k;
    shelf->b0 = (vh + vb * k / q + k * k) / a0;
    shelf->b1 = 2.0 * (k * k - vh) / a0;
    shelf->b2 = (vh - vb * k / q + k * k) / a0;
    shelf->a1 = 2.0 * (k * k - 1.0) / a0;
    shelf->a2 = (1.0 - k / q + k * k) / a0;
    f0 = 38.13547087602444;
    q = 0.5003270373238773;
    k = tan(LOUDNESS_PI * f0 / rate);
    a0 = 1.0 + k / q + k * k;
    hp->b0 = 1.0;
    hp->b1 = -2.0;
    hp->b2 = 1.0;
    hp->a1 = 2.0 * (k * k - 1.0) / a0;
    hp->a2 = (1.0 - k / q + k * k) / a0;
}

void loudness_default_weights(int channels, double *w)
{
    for (int c = 0; c < channels; c++)
        w[c] = 1.0;
    if (channels == 5) {
        w[3] = w[4] = 1.41;
    } else if (channels == 6 || channels == 8) {
        w[3] = 0.0; /* LFE */
        for (int c = 4; c < channels; c++)
            w[c] = 1.41;
    }
}

int loudness_meter_create(int rate, int channels, const double *weights, loudness_meter **out, sp_errinfo *ei)
{
    loudness_meter *m;
    double w[LOUDNESS_MAX_CHANNELS];
    if (!out)
        return sp_fail(ei, SP_EINVAL, "loudness: no meter to make");
    *out = NULL;
    if (rate < 400 || rate > 1000000)
        return sp_fail(ei, SP_EINVAL, "loudness: sample rate %d Hz out of range (400 Hz .. 1 MHz)", rate);
    if (channels < 1 || channels > LOUDNESS_MAX_CHANNELS)
        return sp_fail(ei, SP_EINVAL, "loudness: %d channels out of range (1 .. %d)", channels,
                       LOUDNESS_MAX_CHANNELS);
    if (weights) {
        for (int c = 0; c < channels; c++)
            if (!isfinite(weights[c]) || weights[c] < 0.0)
                return sp_fail(ei, SP_EINVAL, "loudness: channel %d's weight %g is not a finite value >= 0", c,
                               weights[c]);
        memcpy(w, weights, (size_t)channels * sizeof *w);
    } else {
        loudness_default_weights(channels, w);
    }
    if (!(m = calloc(1, sizeof *m)) || !(m->ch = calloc((size_t)channels, sizeof *m->ch))) {
        free(m);
        return sp_fail(ei, SP_ENOMEM, "out of memory");
    }
    m->rate = rate;
    m->channels = channels;
    for (int c = 0; c < channels; c++)
        m->ch[c].weight = w[c];
    k_weighting(rate, &m->shelf, &m->highpass);
    for (int p = 0; p < TP_PHASES; p++) {
        double g = 0.0;
        for (int k = 0; k < TP_TAPS; k++) {
            g += fabs(TP_COEF[p][k]);
            m->tp_coef[k][p] = (float)TP_COEF[p][k];
        }
        m->tp_gain = g > m->tp_gain ? g : m->tp_gain;
    }
    m->step_end = (uint64_t)rate / LOUDNESS_STEPS_PER_S;
    *out = m;
    return SP_OK;
}

void loudness_meter_destroy(loudness_meter *m)
{
    if (!m)
        return;
    free(m->ch);
    free(m->energy);
    free(m->len);
    free(m->st_peak);
    free(m->st_tp);
    free(m->st_sq);
    free(m);
}

/* The level series to cap steps; 0 on success. */
static int grow_levels(loudness_meter *m, size_t cap)
{
    float *p = realloc(m->st_peak, cap * sizeof *p), *t;
    double *q;
    if (p)
        m->st_peak = p;
    t = p ? realloc(m->st_tp, cap * sizeof *t) : NULL;
    if (t)
        m->st_tp = t;
    q = t ? realloc(m->st_sq, cap * sizeof *q) : NULL;
    if (q)
        m->st_sq = q;
    return q ? 0 : -1;
}

static int close_step(loudness_meter *m, sp_errinfo *ei)
{
    uint64_t start = m->steps * (uint64_t)m->rate / LOUDNESS_STEPS_PER_S;
    if (m->steps == m->cap) {
        size_t cap = m->cap ? 2 * m->cap : 1024;
        double *e = realloc(m->energy, cap * sizeof *e);
        uint32_t *l = e ? realloc(m->len, cap * sizeof *l) : NULL;
        if (e)
            m->energy = e;
        if (!l)
            return sp_fail(ei, SP_ENOMEM, "out of memory for the loudness of %zu steps", cap);
        m->len = l;
        if (m->keep && grow_levels(m, cap) != 0)
            return sp_fail(ei, SP_ENOMEM, "out of memory for the levels of %zu steps", cap);
        m->cap = cap;
    }
    if (m->keep) {
        m->st_peak[m->steps] = (float)m->step_peak;
        m->st_tp[m->steps] = (float)(m->step_tp > m->step_peak ? m->step_tp : m->step_peak);
        m->st_sq[m->steps] = m->step_sq;
        m->step_peak = m->step_tp = m->step_sq = 0.0;
    }
    m->energy[m->steps] = m->acc;
    m->len[m->steps] = (uint32_t)(m->step_end - start);
    m->steps++;
    m->acc = 0.0;
    /* step k ends at floor((k+1) * rate / 10): exact at any rate */
    m->step_end = (m->steps + 1) * (uint64_t)m->rate / LOUDNESS_STEPS_PER_S;
    return SP_OK;
}

/* The K-weighted squares of one channel's n samples (stride apart), summed; the filters'
 * states kept in registers over the run. */
static double weigh(const loudness_meter *m, channel_state *c, const float *x, size_t stride, size_t n,
                    double *maxabs)
{
    const biquad f = m->shelf, g = m->highpass;
    double a0 = c->s1[0], a1 = c->s1[1], b0 = c->s2[0], b1 = c->s2[1], sum = 0.0, peak = *maxabs;
    for (size_t i = 0; i < n; i++) {
        double v = x[i * stride], y, z;
        if (!isfinite(v))
            v = 0.0; /* counted by the source (nonfinite_samples); silence here */
        peak = fabs(v) > peak ? fabs(v) : peak;
        y = f.b0 * v + a0;
        a0 = f.b1 * v - f.a1 * y + a1;
        a1 = f.b2 * v - f.a2 * y;
        z = g.b0 * y + b0;
        b0 = g.b1 * y - g.a1 * z + b1;
        b1 = g.b2 * y - g.a2 * z;
        sum += z * z;
    }
    c->s1[0] = a0;
    c->s1[1] = a1;
    c->s2[0] = b0;
    c->s2[1] = b1;
    *maxabs = peak;
    return sum;
}

/* Sample x into the channel's interpolator history. */
static inline void history_push(channel_state *c, double x)
{
    c->pos = c->pos == 0 ? TP_TAPS - 1 : c->pos - 1;
    c->hist[c->pos] = c->hist[c->pos + TP_TAPS] = isfinite(x) ? (float)x : 0.0f;
}

/* The largest magnitude of the four interpolated points after each of n samples (stride
 * apart): 48 multiply-adds a sample, in float (the sums of 12 products are good to 1e-6 dB),
 * the four phases side by side (tp_coef[k][p]) so that they run as one vector. */
static double true_peak_run(const loudness_meter *m, channel_state *c, const float *x, size_t stride, size_t n)
{
    float peak = 0.0f;
    for (size_t i = 0; i < n; i++) {
        const float *h;
        float y[TP_PHASES] = {0.0f, 0.0f, 0.0f, 0.0f};
        history_push(c, x[i * stride]);
        h = c->hist + c->pos; /* h[0] the newest */
        for (int k = 0; k < TP_TAPS; k++) {
            float hk = h[k];
            for (int p = 0; p < TP_PHASES; p++)
                y[p] += m->tp_coef[k][p] * hk;
        }
        for (int p = 0; p < TP_PHASES; p++)
            peak = fabsf(y[p]) > peak ? fabsf(y[p]) : peak;
    }
    return peak;
}

/* One channel's n samples through the true-peak meter. No interpolated point can exceed
 * tp_gain times the largest sample in reach (the history and these), so a stretch that
 * cannot beat the peak so far only enters the history: the filter runs where a peak may
 * be, which after a programme's first loud moment is seldom. */
static void true_peak_of(loudness_meter *m, channel_state *c, const float *x, size_t stride, size_t n,
                         double maxabs)
{
    double reach = maxabs, beat = m->keep ? m->step_tp : m->true_peak; /* step_tp <= true_peak */
    for (int k = 0; k < TP_TAPS; k++)
        reach = fabs(c->hist[k]) > reach ? fabs(c->hist[k]) : reach;
    if (reach * m->tp_gain > beat) {
        double tp = true_peak_run(m, c, x, stride, n);
        m->true_peak = tp > m->true_peak ? tp : m->true_peak;
        m->step_tp = tp > m->step_tp ? tp : m->step_tp;
        return;
    }
    for (size_t i = n > TP_TAPS ? n - TP_TAPS : 0; i < n; i++)
        history_push(c, x[i * stride]);
}

/* The step's raw squares and sample peak (loudness_meter_keep_levels). */
static void keep_levels(loudness_meter *m, const channel_state *c, const float *x, size_t stride, size_t n,
                        double maxabs)
{
    double sq = 0.0;
    for (size_t i = 0; i < n; i++) {
        double v = isfinite(x[i * stride]) ? x[i * stride] : 0.0;
        sq += v * v;
    }
    m->step_sq += c->weight * sq;
    m->step_peak = maxabs > m->step_peak ? maxabs : m->step_peak;
}

int loudness_meter_keep_levels(loudness_meter *m, sp_errinfo *ei)
{
    if (!m || m->frames > 0)
        return sp_fail(ei, SP_EINVAL, "loudness_meter_keep_levels: no meter, or samples already taken");
    if (m->cap > 0 && grow_levels(m, m->cap) != 0)
        return sp_fail(ei, SP_ENOMEM, "out of memory");
    m->keep = 1;
    return SP_OK;
}

int loudness_meter_step_levels(const loudness_meter *m, size_t step, loudness_step_levels *out, sp_errinfo *ei)
{
    if (!m || !out || !m->keep || step >= m->steps)
        return sp_fail(ei, SP_EINVAL, "loudness_meter_step_levels: step %zu not kept", step);
    out->sample_peak = m->st_peak[step];
    out->true_peak = m->st_tp[step];
    out->mean_square = m->len[step] ? m->st_sq[step] / (double)m->len[step] : 0.0;
    return SP_OK;
}

int loudness_meter_add(loudness_meter *m, const float *x, size_t frames, sp_errinfo *ei)
{
    int err;
    if (!m || (!x && frames))
        return sp_fail(ei, SP_EINVAL, "loudness_meter_add: NULL argument");
    while (frames > 0) {
        /* a stretch within the current step, at most CHUNK frames */
        size_t n = (size_t)(m->step_end - m->frames), stride = (size_t)m->channels;
        if (n > frames)
            n = frames;
        if (n > CHUNK)
            n = CHUNK;
        for (int c = 0; c < m->channels; c++) {
            channel_state *s = &m->ch[c];
            double maxabs = 0.0, sum = weigh(m, s, x + c, stride, n, &maxabs);
            m->acc += s->weight * sum;
            m->sample_peak = maxabs > m->sample_peak ? maxabs : m->sample_peak;
            true_peak_of(m, s, x + c, stride, n, maxabs);
            if (m->keep)
                keep_levels(m, s, x + c, stride, n, maxabs);
        }
        x += n * stride;
        frames -= n;
        m->frames += n;
        if (m->frames == m->step_end && (err = close_step(m, ei)) != SP_OK)
            return err;
    }
    return SP_OK;
}

size_t loudness_meter_steps(const loudness_meter *m)
{
    return m ? m->steps : 0;
}

/* -0.691 + 10 log10 of the weighted mean square (BS.1770-4 eq. 2). */
static double lufs(double power)
{
    return power > 0.0 ? -0.691 + 10.0 * log10(power) : -INFINITY;
}

/* The mean weighted power of the `span` steps that end with `step`; -1 when incomplete. */
static double block_power(const loudness_meter *m, size_t step, size_t span)
{
    double e = 0.0, n = 0.0;
    if (!m || step >= m->steps || step + 1 < span)
        return -1.0;
    for (size_t j = step + 1 - span; j <= step; j++) {
        e += m->energy[j];
        n += m->len[j];
    }
    return n > 0.0 ? e / n : 0.0;
}

double loudness_meter_momentary(const loudness_meter *m, size_t step)
{
    double p = block_power(m, step, LOUDNESS_MOMENTARY_STEPS);
    return p < 0.0 ? NAN : lufs(p);
}

double loudness_meter_short_term(const loudness_meter *m, size_t step)
{
    double p = block_power(m, step, LOUDNESS_SHORT_STEPS);
    return p < 0.0 ? NAN : lufs(p);
}

/* BS.1770-4 gating over the blocks of `span` steps (one every step): the blocks above
 * -70 LUFS, then those above their power mean + rel_lu. The power mean of what is left,
 * and its blocks' powers into kept[] (when not NULL), their count in *nkept. */
static double gated_power(const loudness_meter *m, size_t span, double rel_lu, double *kept, size_t *nkept)
{
    double sum = 0.0, gate, abs_gate = pow(10.0, (ABS_GATE_LUFS + 0.691) / 10.0);
    size_t n = 0;
    *nkept = 0;
    for (size_t j = span - 1; j < m->steps; j++) {
        double p = block_power(m, j, span);
        if (p > abs_gate) {
            sum += p;
            n++;
        }
    }
    if (n == 0)
        return 0.0;
    gate = sum / (double)n * pow(10.0, rel_lu / 10.0);
    sum = 0.0;
    n = 0;
    for (size_t j = span - 1; j < m->steps; j++) {
        double p = block_power(m, j, span);
        if (p > abs_gate && p > gate) {
            sum += p;
            if (kept)
                kept[n] = p;
            n++;
        }
    }
    *nkept = n;
    return n ? sum / (double)n : 0.0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* EBU Tech 3342: the short-term blocks gated at -70 LUFS and -20 LU, the distance between
 * their 10th and 95th percentiles (nearest rank: index round((n-1)*p)) in LU. */
static int loudness_range(const loudness_meter *m, double *lra, sp_errinfo *ei)
{
    double *kept;
    size_t n;
    *lra = -INFINITY;
    if (m->steps < LOUDNESS_SHORT_STEPS)
        return SP_OK;
    if (!(kept = malloc((m->steps - LOUDNESS_SHORT_STEPS + 1) * sizeof *kept)))
        return sp_fail(ei, SP_ENOMEM, "out of memory for the loudness range");
    gated_power(m, LOUDNESS_SHORT_STEPS, LRA_REL_GATE_LU, kept, &n);
    if (n > 0) {
        qsort(kept, n, sizeof *kept, cmp_double);
        *lra = lufs(kept[(size_t)((double)(n - 1) * LRA_HIGH + 0.5)]) -
               lufs(kept[(size_t)((double)(n - 1) * LRA_LOW + 0.5)]);
    }
    free(kept);
    return SP_OK;
}

int loudness_meter_result(const loudness_meter *m, loudness_result *r, sp_errinfo *ei)
{
    size_t n;
    if (!m || !r)
        return sp_fail(ei, SP_EINVAL, "loudness_meter_result: NULL argument");
    memset(r, 0, sizeof *r);
    r->frames = m->frames;
    r->steps = m->steps;
    r->integrated_lufs = -INFINITY;
    r->momentary_max_lufs = -INFINITY;
    r->short_term_max_lufs = -INFINITY;
    if (m->steps >= LOUDNESS_MOMENTARY_STEPS)
        r->integrated_lufs = lufs(gated_power(m, LOUDNESS_MOMENTARY_STEPS, REL_GATE_LU, NULL, &n));
    for (size_t j = 0; j < m->steps; j++) {
        double mo = loudness_meter_momentary(m, j), st = loudness_meter_short_term(m, j);
        if (mo > r->momentary_max_lufs)
            r->momentary_max_lufs = mo;
        if (st > r->short_term_max_lufs)
            r->short_term_max_lufs = st;
    }
    r->sample_peak_dbfs = m->sample_peak > 0.0 ? 20.0 * log10(m->sample_peak) : -INFINITY;
    /* the interpolated points, or a sample itself where they fall short of it */
    r->true_peak_dbtp = m->true_peak > m->sample_peak ? 20.0 * log10(m->true_peak) : r->sample_peak_dbfs;
    return loudness_range(m, &r->loudness_range_lu, ei);
}
