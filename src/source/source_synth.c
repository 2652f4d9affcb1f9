/* Synthetic source: sines + noise, computed in double from the absolute sample index so
 * that any block size gives the same samples. */
#include <math.h>
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

static const source_ops synth_ops = {"synth", synth_read, NULL, synth_close, NULL, NULL, NULL, NULL, NULL};

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
    info.frames_hint = cfg->frames;
    strcpy(info.name, "synth");
    strcpy(info.format, "synthetic");
    return source_create(&synth_ops, st, &info, out, ei);
}
