#include "scale.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static const char *const scale_names[] = {[FREQ_SCALE_LINEAR] = "linear", [FREQ_SCALE_LOG] = "log",
                                          [FREQ_SCALE_MEL] = "mel"};
#define SCALE_COUNT ((int)(sizeof scale_names / sizeof scale_names[0]))

int scale_count(void)
{
    return SCALE_COUNT;
}

int scale_parse(const char *text, freq_scale *out, sp_errinfo *ei)
{
    if (!out)
        return sp_fail(ei, SP_EINVAL, "scale_parse: bad arguments");
    for (int i = 0; text && i < SCALE_COUNT; i++) {
        if (strcasecmp(text, scale_names[i]) == 0) {
            *out = (freq_scale)i;
            return SP_OK;
        }
    }
    char list[128];
    size_t at = 0;
    list[0] = 0;
    for (int i = 0; i < SCALE_COUNT && at < sizeof list; i++)
        at += (size_t)snprintf(list + at, sizeof list - at, "%s%s", i == 0 ? "" : i + 1 < SCALE_COUNT ? ", " : " or ",
                               scale_names[i]);
    return sp_fail(ei, SP_EINVAL, SP_FIELD("scale") " %s: unknown frequency scale (use %s)", text ? text : "(null)",
                   list);
}

const char *scale_name(freq_scale s)
{
    return (unsigned)s < (unsigned)SCALE_COUNT ? scale_names[s] : "?";
}

double scale_hz_to_mel(double hz)
{
    return 2595.0 * log10(1.0 + hz / 700.0);
}

double scale_mel_to_hz(double mel)
{
    return 700.0 * (pow(10.0, mel / 2595.0) - 1.0);
}

double scale_log_default_fmin(double rate, size_t n)
{
    double bin1 = n ? rate / (double)n : 20.0;
    return bin1 > 20.0 ? bin1 : 20.0;
}

static double warp(freq_scale kind, double hz)
{
    switch (kind) {
    case FREQ_SCALE_LOG:
        return hz > 0 ? log(hz) : -INFINITY;
    case FREQ_SCALE_MEL:
        return scale_hz_to_mel(hz);
    default:
        return hz;
    }
}

static double unwarp(freq_scale kind, double w)
{
    switch (kind) {
    case FREQ_SCALE_LOG:
        return exp(w);
    case FREQ_SCALE_MEL:
        return scale_mel_to_hz(w);
    default:
        return w;
    }
}

int scale_map_init(scale_map *m, freq_scale kind, double fmin, double fmax, sp_errinfo *ei)
{
    if (!m || (unsigned)kind > FREQ_SCALE_MEL)
        return sp_fail(ei, SP_EINVAL, "scale_map_init: bad arguments");
    if (!(fmin >= 0) || !isfinite(fmin))
        return sp_fail(ei, SP_EINVAL, SP_FIELD("fmin") " %g: must be 0 Hz or more", fmin);
    if (!(fmax > fmin) || !isfinite(fmax))
        return sp_fail(ei, SP_EINVAL, SP_FIELD("fmax") " %g: must be above " SP_FIELD("fmin") " (%g Hz)", fmax, fmin);
    if (fmax - fmin < 1e-6 * fmax) /* the axis could not tell its ends apart */
        return sp_fail(ei, SP_EINVAL,
                       SP_FIELD("fmin") " %.17g / " SP_FIELD("fmax") " %.17g: the range is too narrow to draw", fmin,
                       fmax);
    if (kind == FREQ_SCALE_LOG && fmin <= 0)
        return sp_fail(ei, SP_EINVAL, SP_FIELD("fmin") " 0: a log frequency scale needs fmin > 0");
    m->kind = kind;
    m->fmin = fmin;
    m->fmax = fmax;
    m->w0 = warp(kind, fmin);
    m->w1 = warp(kind, fmax);
    return SP_OK;
}

double scale_to_unit(const scale_map *m, double hz)
{
    return (warp(m->kind, hz) - m->w0) / (m->w1 - m->w0);
}

double scale_from_unit(const scale_map *m, double u)
{
    return unwarp(m->kind, m->w0 + u * (m->w1 - m->w0));
}

void scale_format_hz(double hz, char *buf, size_t len)
{
    char num[32];
    const char *unit = " Hz";
    size_t n;
    if (fabs(hz) >= 1000.0) {
        hz /= 1000.0;
        unit = " kHz";
    }
    snprintf(num, sizeof num, "%.3f", hz);
    n = strlen(num);
    while (n > 0 && num[n - 1] == '0')
        num[--n] = 0;
    if (n > 0 && num[n - 1] == '.')
        num[--n] = 0;
    if (strcmp(num, "-0") == 0)
        strcpy(num, "0");
    snprintf(buf, len, "%s%s", num, unit);
}

static int add_tick(scale_tick *out, int count, int max, const scale_map *m, double hz, int labeled)
{
    if (count >= max)
        return count;
    out[count].hz = hz;
    out[count].u = scale_to_unit(m, hz);
    out[count].labeled = labeled;
    out[count].label[0] = 0;
    if (labeled)
        scale_format_hz(hz, out[count].label, sizeof out[count].label);
    return count + 1;
}

/* Linear: one step from 1, 2, 2.5, 5 x 10^k, minor ticks subdividing it. */
static int linear_ticks(const scale_map *m, double length_px, double gap_px, scale_tick *out, int max)
{
    static const double mant[] = {1, 2, 2.5, 5, 10};
    static const int subdiv[] = {5, 4, 5, 5, 5};
    double span = m->fmax - m->fmin, raw = span * gap_px / length_px;
    if (max > 1 && raw < span / (max - 1)) /* every part of a tall axis gets its ticks */
        raw = span / (max - 1);
    double mag = pow(10.0, floor(log10(raw))), step = 10 * mag, eps = span * 1e-9;
    int div = 5, count = 0;
    for (int i = 0; i < 5; i++) {
        if (mant[i] * mag >= raw) {
            step = mant[i] * mag;
            div = subdiv[i];
            break;
        }
    }
    /* counted in whole steps from k0 (a double k would stop counting past 2^53) */
    double k0 = ceil((m->fmin - eps) / step);
    for (int i = 0; count < max && (k0 + i) * step <= m->fmax + eps; i++)
        count = add_tick(out, count, max, m, (k0 + i) * step, 1);
    if (step / div * length_px / span >= 4.0 && count + span / (step / div) + 1 <= max) {
        double sub = step / div, s0 = ceil((m->fmin - eps) / sub);
        for (int i = 0; count < max && (s0 + i) * sub <= m->fmax + eps; i++)
            if (fmod(s0 + i, div) != 0)
                count = add_tick(out, count, max, m, (s0 + i) * sub, 0);
    }
    return count;
}

/* Log and mel: candidates by priority (decades, 5s, 2s, other digits, 1.5s and 2.5s),
 * each accepted when it keeps gap_px from every tick accepted before it. O(n^2) on a
 * few hundred candidates at most. */
static int warped_ticks(const scale_map *m, double length_px, double gap_px, scale_tick *out, int max)
{
    static const struct {
        double mant;
        int level;
    } cand[] = {{1, 0}, {5, 1}, {2, 2}, {3, 3}, {4, 3}, {6, 3}, {7, 3}, {8, 3}, {9, 3}, {1.5, 4}, {2.5, 4}};
    double lo = m->fmin * (1 - 1e-9), hi = m->fmax * (1 + 1e-9);
    int e0 = m->fmin > 0 ? (int)floor(log10(m->fmin)) : 0, e1 = (int)ceil(log10(m->fmax));
    int count = 0;
    if (m->fmin == 0)
        count = add_tick(out, count, max, m, 0.0, 1);
    for (int level = 0; level <= 4; level++) {
        for (int e = e0; e <= e1; e++) {
            for (size_t c = 0; c < sizeof cand / sizeof cand[0]; c++) {
                double hz = cand[c].mant * pow(10.0, e), px;
                int ok = 1;
                if (cand[c].level != level || hz < lo || hz > hi)
                    continue;
                px = scale_to_unit(m, hz) * length_px;
                for (int i = 0; i < count && ok; i++)
                    ok = fabs(out[i].u * length_px - px) >= gap_px;
                if (ok)
                    count = add_tick(out, count, max, m, hz, 1);
            }
        }
    }
    /* minor ticks at the digits of each decade, all of a decade or none of it */
    for (int e = e0; e <= e1; e++) {
        double scale10 = pow(10.0, e), prev = scale_to_unit(m, scale10) * length_px, closest = INFINITY;
        for (int d = 2; d <= 10; d++) {
            double px = scale_to_unit(m, d * scale10) * length_px;
            if (fabs(px - prev) < closest)
                closest = fabs(px - prev);
            prev = px;
        }
        if (closest < 4.0)
            continue;
        for (int d = 1; d <= 9; d++) {
            double hz = d * scale10;
            int taken = 0;
            if (hz < lo || hz > hi)
                continue;
            for (int i = 0; i < count && !taken; i++)
                taken = out[i].labeled && fabs(out[i].hz - hz) <= hz * 1e-9;
            if (!taken)
                count = add_tick(out, count, max, m, hz, 0);
        }
    }
    return count;
}

int scale_ticks(const scale_map *m, double length_px, double label_gap_px, scale_tick *out, int max)
{
    if (!m || !out || max <= 0 || !(length_px > 0) || !(label_gap_px > 0))
        return 0;
    if (m->kind == FREQ_SCALE_LINEAR)
        return linear_ticks(m, length_px, label_gap_px, out, max);
    return warped_ticks(m, length_px, label_gap_px, out, max);
}
