/* Synthetic source: sines + noise, computed in double from the absolute sample index so
 * that any block size gives the same samples. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "source.h"

#define SYNTH_TWO_PI 6.28318530717958647692

typedef struct {
    source_synth_config cfg;
    int64_t pos;
    uint32_t rng;
} synth_state;

source_synth_config source_synth_config_default(void)
{
    source_synth_config c;
    memset(&c, 0, sizeof c);
    c.rate = 48000;
    c.channels = 1;
    c.frames = 48000;
    c.ntones = 1;
    c.freq[0] = 1000.0;
    c.amp[0] = 0.5;
    c.seed = 1;
    return c;
}

/* xorshift32: cheap, deterministic, good enough for test noise */
static float synth_noise(uint32_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 17;
    *x ^= *x << 5;
    return (float)((*x >> 8) * (2.0 / 16777216.0) - 1.0);
}

static int synth_read(void *state, float *dst, size_t max_frames, size_t *got, sp_errinfo *ei)
{
    synth_state *st = state;
    const source_synth_config *c = &st->cfg;
    size_t n = max_frames;
    (void)ei;
    if (c->frames >= 0 && (int64_t)n > c->frames - st->pos)
        n = (size_t)(c->frames - st->pos);
    for (size_t i = 0; i < n; i++) {
        double t = (double)(st->pos + (int64_t)i) / c->rate;
        for (int ch = 0; ch < c->channels; ch++) {
            double v = 0.0;
            for (int k = 0; k < c->ntones; k++) {
                double f = c->freq[k] + ch * c->channel_step_hz;
                /* fmod keeps the phase argument small so long signals stay exact */
                v += c->amp[k] * sin(SYNTH_TWO_PI * fmod(f * t, 1.0));
            }
            if (c->noise > 0.0)
                v += c->noise * synth_noise(&st->rng);
            dst[i * (size_t)c->channels + (size_t)ch] = (float)v;
        }
    }
    st->pos += (int64_t)n;
    *got = n;
    return SP_OK;
}

static void synth_close(void *state)
{
    free(state);
}

/* Every sample is a function of its index, so a seek is a jump; the noise is a sequence,
 * which only reading reproduces. */
static int synth_seek(void *state, int64_t frame, sp_errinfo *ei)
{
    synth_state *st = state;
    if (st->cfg.noise > 0.0)
        return SP_EUNSUPPORTED;
    if (st->cfg.frames >= 0 && frame >= st->cfg.frames)
        return sp_fail(ei, SP_EINPUT, "%s: the start is past the end", st->cfg.name ? st->cfg.name : "synth");
    st->pos = frame;
    return SP_OK;
}

static const source_ops synth_ops = {
    .kind = "synth", .read = synth_read, .close = synth_close, .seek = synth_seek,
};

int source_open_synth(const source_synth_config *cfg, source **out, sp_errinfo *ei)
{
    synth_state *st;
    source_info info;
    if (!cfg || !out)
        return sp_fail(ei, SP_EINVAL, "source_open_synth: NULL argument");
    if (cfg->rate < 1 || cfg->rate > SOURCE_MAX_RATE || cfg->channels < 1 ||
        cfg->channels > SOURCE_MAX_CHANNELS || cfg->ntones < 0 || cfg->ntones > SOURCE_SYNTH_MAX_TONES)
        return sp_fail(ei, SP_EINVAL, "synth: bad rate, channel count or tone count");
    st = calloc(1, sizeof *st);
    if (!st)
        return sp_fail(ei, SP_ENOMEM, "synth: out of memory");
    st->cfg = *cfg;
    st->rng = cfg->seed ? cfg->seed : 1;
    memset(&info, 0, sizeof info);
    info.rate = cfg->rate;
    info.channels = cfg->channels;
    info.samples_hint = cfg->frames;
    snprintf(info.name, sizeof info.name, "%s", cfg->name ? cfg->name : "synth");
    strcpy(info.format, "synthetic");
    return source_create(&synth_ops, st, &info, out, ei);
}

/* ---- the spec ---------------------------------------------------------------------------- */

#define SYNTH_KEYS "rate, channels, sine, noise, duration, step, seed"

/* A whole number in [lo, hi] or a finite real in [lo, hi]: the text must be used up. */
static int synth_number(const char *text, size_t len, double lo, double hi, double *out)
{
    char buf[64], *end;
    double v;
    if (len == 0 || len >= sizeof buf)
        return 0;
    memcpy(buf, text, len);
    buf[len] = '\0';
    v = strtod(buf, &end);
    if (*end || !isfinite(v) || v < lo || v > hi)
        return 0;
    *out = v;
    return 1;
}

static int synth_bad(const char *spec, const char *item, size_t len, const char *want, sp_errinfo *ei)
{
    return sp_fail(ei, SP_EINVAL, "%s: %.*s: expected %s", spec, (int)len, item, want);
}

/* sine=FREQ[@AMP] */
static int synth_sine(const char *spec, const char *item, size_t len, const char *val, size_t vlen,
                      source_synth_config *c, int *tones, sp_errinfo *ei)
{
    const char *at = memchr(val, '@', vlen);
    size_t flen = at ? (size_t)(at - val) : vlen;
    double f, a = 0.5;
    if (*tones >= SOURCE_SYNTH_MAX_TONES)
        return synth_bad(spec, item, len, "at most 8 sines", ei);
    if (!synth_number(val, flen, 0.0, 1e9, &f) || (at && !synth_number(at + 1, vlen - flen - 1, 0.0, 1e6, &a)))
        return synth_bad(spec, item, len, "sine=FREQ or sine=FREQ@AMP (Hz, amplitude, from 0)", ei);
    c->freq[*tones] = f;
    c->amp[*tones] = a;
    c->ntones = ++*tones;
    return SP_OK;
}

/* One key=value item. *duration: seconds asked for (-1 endless), applied once rate is known. */
static int synth_item(const char *spec, const char *item, size_t len, source_synth_config *c, int *tones,
                      double *duration, sp_errinfo *ei)
{
    const char *eq = memchr(item, '=', len);
    size_t klen = eq ? (size_t)(eq - item) : len, vlen = eq ? len - klen - 1 : 0;
    const char *val = eq ? eq + 1 : item + len;
    double v;
#define SYNTH_KEY(k) (klen == sizeof k - 1 && memcmp(item, k, klen) == 0)
    if (!eq)
        return synth_bad(spec, item, len, "KEY=VALUE (keys: " SYNTH_KEYS ")", ei);
    if (SYNTH_KEY("sine"))
        return synth_sine(spec, item, len, val, vlen, c, tones, ei);
    if (SYNTH_KEY("rate")) {
        if (!synth_number(val, vlen, SOURCE_SYNTH_MIN_RATE, SOURCE_MAX_RATE, &v) || v != floor(v))
            return synth_bad(spec, item, len, "a whole rate in Hz from 1000 to 10000000", ei);
        c->rate = (int)v;
    } else if (SYNTH_KEY("channels")) {
        if (!synth_number(val, vlen, 1, SOURCE_MAX_CHANNELS, &v) || v != floor(v))
            return synth_bad(spec, item, len, "a channel count from 1 to 1024", ei);
        c->channels = (int)v;
    } else if (SYNTH_KEY("noise")) {
        if (!synth_number(val, vlen, 0.0, 1e6, &c->noise))
            return synth_bad(spec, item, len, "a noise amplitude from 0", ei);
    } else if (SYNTH_KEY("step")) {
        if (!synth_number(val, vlen, -1e9, 1e9, &c->channel_step_hz))
            return synth_bad(spec, item, len, "a frequency step in Hz", ei);
    } else if (SYNTH_KEY("seed")) {
        if (!synth_number(val, vlen, 0, 4294967295.0, &v) || v != floor(v))
            return synth_bad(spec, item, len, "a whole seed from 0 to 4294967295", ei);
        c->seed = (uint32_t)v;
    } else if (SYNTH_KEY("duration")) {
        if (vlen == 3 && memcmp(val, "inf", 3) == 0)
            *duration = -1.0;
        else if (!synth_number(val, vlen, 0.0, 1e9, duration) || *duration <= 0.0)
            return synth_bad(spec, item, len, "a duration in seconds above 0, or inf", ei);
    } else {
        return sp_fail(ei, SP_EINVAL, "%s: %.*s: unknown key (keys: " SYNTH_KEYS ")", spec, (int)klen, item);
    }
#undef SYNTH_KEY
    return SP_OK;
}

/* Every channel's every sine below half the rate: the rate may come after the sines, so
 * this runs once the spec is read. Channel c plays f + c*step, so the ends are the extremes. */
static int synth_check_nyquist(const char *spec, const source_synth_config *c, int tones, sp_errinfo *ei)
{
    double nyquist = c->rate / 2.0;
    for (int k = 0; k < c->ntones; k++) {
        int last = c->channels - 1;
        double f = c->freq[k], top = f + last * c->channel_step_hz;
        const char *dflt = tones ? "" : "the default ";
        if (f >= nyquist)
            return sp_fail(ei, SP_EINVAL,
                           "%s: %ssine=%.15g: at or above the Nyquist frequency; expected from 0 to below %.15g Hz "
                           "(half of rate=%d)",
                           spec, dflt, f, nyquist, c->rate);
        if (fabs(top) >= nyquist)
            return sp_fail(ei, SP_EINVAL,
                           "%s: %ssine=%.15g with step=%.15g is %.15g Hz in channel %d: at or above the Nyquist "
                           "frequency; every channel's sine must be below %.15g Hz (half of rate=%d)",
                           spec, dflt, f, c->channel_step_hz, top, last, nyquist, c->rate);
    }
    return SP_OK;
}

int source_synth_parse(const char *spec, source_synth_config *out, sp_errinfo *ei)
{
    source_synth_config c = source_synth_config_default();
    const char *p;
    int tones = 0, err;
    double duration = 1.0;
    if (!spec || !out)
        return sp_fail(ei, SP_EINVAL, "source_synth_parse: NULL argument");
    if (strncmp(spec, "synth:", 6) != 0)
        return sp_fail(ei, SP_EINVAL, "%s: not a synth: spec", spec);
    for (p = spec + 6; *p;) {
        size_t len = strcspn(p, ",");
        if (len == 0)
            return sp_fail(ei, SP_EINVAL, "%s: an empty item (keys: " SYNTH_KEYS ")", spec);
        if ((err = synth_item(spec, p, len, &c, &tones, &duration, ei)) != SP_OK)
            return err;
        p += len + (p[len] == ',');
    }
    if ((err = synth_check_nyquist(spec, &c, tones, ei)) != SP_OK)
        return err;
    c.frames = duration < 0 ? -1 : (int64_t)(duration * c.rate + 0.5);
    if (c.frames == 0)
        return sp_fail(ei, SP_EINVAL, "%s: duration: shorter than one sample at %d Hz", spec, c.rate);
    c.name = spec;
    *out = c;
    return SP_OK;
}
