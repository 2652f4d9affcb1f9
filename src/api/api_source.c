/* spectro_source: a source of the engine's table (source.h: file, FFmpeg, pipe, synth) with
 * the time range the program's --start and --end give. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_internal.h"
#include "source.h"
#include "stft.h"

struct spectro_source {
    source *src;
    source_info info;
    uint64_t start;         /* the first sample read, in the input */
    uint64_t limit;         /* samples to deliver, UINT64_MAX: up to the input's end */
    uint64_t delivered;
    double end_s;           /* the config's end, for the message when the input is shorter */
};

/* The members of spectro_source_config's first version. */
#define SOURCE_CONFIG_V1 (offsetof(spectro_source_config, stream) + sizeof(int))
#define SOURCE_INFO_V1 (offsetof(spectro_source_info, decoder) + sizeof(((spectro_source_info *)0)->decoder))

spectro_source_config spectro_source_config_default(void)
{
    spectro_source_config c;
    memset(&c, 0, sizeof c);
    c.size = sizeof c;
    c.reference_channel = c.input_channel = -1; /* SPECTRO_CHANNEL_MIX: each file's mix */
    return c;
}

/* cfg as the caller's version holds it, the later members their defaults (docs/api-c.md:
 * structs grow at their end). */
static spectro_source_config config_of(const spectro_source_config *cfg)
{
    spectro_source_config c = spectro_source_config_default();
    memcpy(&c, cfg, cfg->size < sizeof c ? cfg->size : sizeof c);
    c.size = sizeof c;
    return c;
}

/* A pair's settings onto the engine's request (source.h: source_open_pair). */
static int pair_request(const spectro_source_config *c, source_request *req, spectro_error *err)
{
    if (!c->reference)
        return c->resample ? api_fail(err, SPECTRO_EINVAL, "resample: only with a reference (a pair)") : SPECTRO_OK;
    if (c->pair != SPECTRO_PAIR_ALIGN && c->pair != SPECTRO_PAIR_COMPARE)
        return api_fail(err, SPECTRO_EINVAL, "pair %d: SPECTRO_PAIR_ALIGN (0) or SPECTRO_PAIR_COMPARE (1)", c->pair);
    if (c->resample && c->pair != SPECTRO_PAIR_COMPARE)
        return api_fail(err, SPECTRO_EINVAL, "resample: only with pair SPECTRO_PAIR_COMPARE");
    if (c->reference_channel < -1 || c->input_channel < -1)
        return api_fail(err, SPECTRO_EINVAL, "%s %d: a channel (0 or more) or SPECTRO_CHANNEL_MIX (-1)",
                        c->reference_channel < -1 ? "reference_channel" : "input_channel",
                        c->reference_channel < -1 ? c->reference_channel : c->input_channel);
    req->reference = c->reference;
    req->reference_channel = c->reference_channel;
    req->measured_channel = c->input_channel;
    req->compare = c->pair == SPECTRO_PAIR_COMPARE;
    req->resample = c->resample;
    return SPECTRO_OK;
}

/* Samples at `seconds` into the input: the nearest sample (the program's rule). */
static uint64_t to_samples(double seconds, int rate)
{
    double v = nearbyint(seconds * rate);
    return v >= 1.8e19 ? UINT64_MAX : (uint64_t)v;
}

static int past_end(const spectro_source *s, const char *what, double at_s, int64_t length, spectro_error *err)
{
    if (length >= 0)
        return api_fail(err, SPECTRO_EINVAL, "%s: %s %g s is past the end of the audio (%.3f s)", s->info.name, what,
                        at_s, (double)length / s->info.rate);
    return api_fail(err, SPECTRO_EINVAL, "%s: %s %g s is past the end of the audio", s->info.name, what, at_s);
}

/* cfg's start (a seek, or reading up to it) and end (a limit counted from the start). */
static int apply_range(spectro_source *s, const spectro_source_config *cfg, spectro_error *err)
{
    sp_errinfo ei = {{0}};
    int64_t reached = 0;
    int rc;
    s->start = cfg->start > 0 ? to_samples(cfg->start, s->info.rate) : 0;
    s->limit = UINT64_MAX;
    s->end_s = cfg->end;
    if (cfg->end > 0) {
        uint64_t end = to_samples(cfg->end, s->info.rate);
        if (end <= s->start)
            return api_fail(err, SPECTRO_EINVAL, "end %g must be after start %g (at %d Hz)", cfg->end, cfg->start,
                            s->info.rate);
        s->limit = end - s->start;
    }
    if (s->start == 0)
        return SPECTRO_OK;
    if (s->start > INT64_MAX)
        return past_end(s, "start", cfg->start, -1, err);
    rc = source_seek(s->src, (int64_t)s->start, NULL, &reached, &ei);
    if (rc == SP_EINPUT) /* the source knows its end: a seek past it */
        return past_end(s, "start", cfg->start, s->info.samples_hint, err);
    if (rc != SP_OK)
        return api_from_engine(err, rc, &ei);
    if ((uint64_t)reached < s->start)
        return past_end(s, "start", cfg->start, reached, err);
    return SPECTRO_OK;
}

static int check_config(const char *input, const spectro_source_config *cfg, source_file_options *fo,
                        spectro_error *err)
{
    sp_errinfo ei = {{0}};
    int rc;
    if (!input)
        return api_fail(err, SPECTRO_EINVAL, "input is NULL: give a file path, \"-\" or a synth: spec");
    if ((rc = api_check_size(cfg->size, SOURCE_CONFIG_V1, "spectro_source_config", err)) != SPECTRO_OK)
        return rc;
    if (!(cfg->start >= 0) || !isfinite(cfg->start))
        return api_fail(err, SPECTRO_EINVAL, "start %g: must be a number of seconds, 0 or more", cfg->start);
    if (!(cfg->end >= 0) || !isfinite(cfg->end))
        return api_fail(err, SPECTRO_EINVAL, "end %g: must be a number of seconds, 0 or more", cfg->end);
    if (cfg->stream < 0)
        return api_fail(err, SPECTRO_EINVAL, "stream %d: must be 0 or more", cfg->stream);
    *fo = source_file_options_default();
    fo->stream = cfg->stream;
    fo->ffmpeg_module = api_ffmpeg_module();
    if (cfg->raw_format && (rc = source_raw_parse(cfg->raw_format, &fo->raw, &ei)) != SP_OK)
        return api_from_engine(err, rc, &ei);
    return SPECTRO_OK;
}

int spectro_source_open(const char *input, const spectro_source_config *cfg, spectro_source **out,
                        spectro_error *err)
{
    spectro_source_config def = spectro_source_config_default(), full;
    source_request req;
    sp_errinfo ei = {{0}};
    spectro_source *s;
    int rc;
    if (!out)
        return api_fail(err, SPECTRO_EINVAL, "spectro_source_open: out is NULL");
    *out = NULL;
    if (!cfg)
        cfg = &def;
    memset(&req, 0, sizeof req);
    if ((rc = check_config(input, cfg, &req.file, err)) != SPECTRO_OK)
        return rc;
    full = config_of(cfg);
    if ((rc = pair_request(&full, &req, err)) != SPECTRO_OK)
        return rc;
    req.input = input;
    if (!(s = calloc(1, sizeof *s)))
        return api_fail(err, SPECTRO_ENOMEM, "out of memory");
    if ((rc = source_open_request(&req, &s->src, &ei)) != SP_OK) {
        free(s);
        return api_from_engine(err, rc, &ei);
    }
    s->info = *source_get_info(s->src);
    if ((rc = apply_range(s, cfg, err)) != SPECTRO_OK) {
        spectro_source_close(s);
        return rc;
    }
    *out = s;
    return SPECTRO_OK;
}

int spectro_source_get_info(const spectro_source *s, spectro_source_info *info)
{
    spectro_source_info full;
    int64_t length;
    if (!s || !info || info->size == 0)
        return SPECTRO_EINVAL;
    memset(&full, 0, sizeof full);
    full.size = info->size < sizeof full ? info->size : sizeof full;
    full.sample_rate = s->info.rate;
    full.channels = s->info.channels;
    full.source_length = s->info.samples_hint;
    length = s->info.samples_hint;
    if (length >= 0)
        length = (uint64_t)length > s->start ? length - (int64_t)s->start : 0;
    if (s->limit != UINT64_MAX && (length < 0 || (uint64_t)length > s->limit))
        length = (int64_t)s->limit;
    full.length = length;
    full.start_sample = s->start;
    full.start_s = (double)s->start / s->info.rate;
    full.pipe = s->info.pipe;
    full.unit_bound = s->info.unit_bound;
    snprintf(full.name, sizeof full.name, "%s", s->info.name);
    snprintf(full.format, sizeof full.format, "%s", s->info.format);
    snprintf(full.decoder, sizeof full.decoder, "%s", s->info.decoder);
    full.aligned = s->info.aligned;
    memcpy(info, &full, full.size);
    return SPECTRO_OK;
}

int spectro_source_read(spectro_source *s, float *dst, size_t max_frames, size_t *got, spectro_error *err)
{
    sp_errinfo ei = {{0}};
    size_t n = 0;
    int rc;
    if (!s || !got || (!dst && max_frames))
        return api_fail(err, SPECTRO_EINVAL, "spectro_source_read: NULL argument");
    *got = 0;
    if ((uint64_t)max_frames > s->limit - s->delivered)
        max_frames = (size_t)(s->limit - s->delivered);
    if (max_frames == 0)
        return SPECTRO_OK;
    if ((rc = source_read(s->src, dst, max_frames, &n, &ei)) != SP_OK)
        return api_from_engine(err, rc, &ei);
    if (n == 0 && s->limit != UINT64_MAX) /* the input ended before the range did */
        return past_end(s, "end", s->end_s, (int64_t)(s->start + s->delivered), err);
    s->delivered += n;
    *got = n;
    return SPECTRO_OK;
}

uint64_t spectro_source_nonfinite(const spectro_source *s)
{
    return s ? source_nonfinite(s->src) : 0;
}

int spectro_source_truncated(const spectro_source *s)
{
    return s ? source_truncated(s->src) : 0;
}

int spectro_input_is_stream(const char *input)
{
    return !input || source_is_pipe_path(input);
}

int spectro_mix_channels(const float *in, size_t frames, int channels, int channel, float *out,
                         spectro_error *err)
{
    if (channels < 1)
        return api_fail(err, SPECTRO_EINVAL, "channels %d: must be at least 1", channels);
    if (channel < SPECTRO_CHANNEL_MIX || channel >= channels)
        return api_fail(err, SPECTRO_EINVAL, "channel %d: SPECTRO_CHANNEL_MIX (-1) or 0 .. %d", channel, channels - 1);
    if (frames && (!in || !out))
        return api_fail(err, SPECTRO_EINVAL, "%s is NULL", in ? "out" : "in");
    if (channel == SPECTRO_CHANNEL_MIX) {
        stft_mix(in, frames, channels, out);
        return SPECTRO_OK;
    }
    for (size_t i = 0; i < frames; i++)
        out[i] = in[i * (size_t)channels + (size_t)channel];
    return SPECTRO_OK;
}

void spectro_source_close(spectro_source *s)
{
    if (!s)
        return;
    source_close(s->src);
    free(s);
}
