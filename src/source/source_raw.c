/* Headerless samples: --raw-format ENC,RATE,CHANNELS. One table of encodings, read by the
 * parser, --help's list and libsndfile's format codes. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "source_internal.h"

typedef struct {
    const char *name;
    int sf_subformat;
} raw_encoding;

/* little-endian, interleaved: what arecord -t raw and ffmpeg -f f32le write */
static const raw_encoding ENCODINGS[] = {
    {.name = "f32le", .sf_subformat = SF_FORMAT_FLOAT},
    {.name = "s16le", .sf_subformat = SF_FORMAT_PCM_16},
    {.name = "s24le", .sf_subformat = SF_FORMAT_PCM_24},
    {.name = "s32le", .sf_subformat = SF_FORMAT_PCM_32},
    {.name = "u8", .sf_subformat = SF_FORMAT_PCM_U8},
    {.name = "f64le", .sf_subformat = SF_FORMAT_DOUBLE},
};
#define ENCODING_COUNT ((int)(sizeof ENCODINGS / sizeof ENCODINGS[0]))

source_raw_format source_raw_none(void)
{
    source_raw_format r = {-1, 0, 0};
    return r;
}

int source_raw_count(void)
{
    return ENCODING_COUNT;
}

const char *source_raw_name(int i)
{
    return i >= 0 && i < ENCODING_COUNT ? ENCODINGS[i].name : NULL;
}

void source_raw_sfinfo(const source_raw_format *raw, SF_INFO *in)
{
    memset(in, 0, sizeof *in);
    if (!raw || raw->encoding < 0 || raw->encoding >= ENCODING_COUNT)
        return;
    in->format = SF_FORMAT_RAW | SF_ENDIAN_LITTLE | ENCODINGS[raw->encoding].sf_subformat;
    in->samplerate = raw->rate;
    in->channels = raw->channels;
}

/* A whole decimal in [lo, hi] spanning text[0..len). */
static int raw_number(const char *text, size_t len, long lo, long hi, int *out)
{
    char buf[16], *end;
    long v;
    if (len == 0 || len >= sizeof buf || text[0] < '0' || text[0] > '9')
        return 0;
    memcpy(buf, text, len);
    buf[len] = '\0';
    errno = 0;
    v = strtol(buf, &end, 10);
    if (errno || *end || v < lo || v > hi)
        return 0;
    *out = (int)v;
    return 1;
}

int source_raw_parse(const char *spec, source_raw_format *out, sp_errinfo *ei)
{
    const char *c1, *c2;
    char names[128];
    size_t at = 0, elen;
    int enc = -1, rate, channels;
    if (!spec || !out)
        return sp_fail(ei, SP_EINVAL, "source_raw_parse: NULL argument");
    names[0] = '\0';
    for (int i = 0; i < ENCODING_COUNT && at < sizeof names; i++) {
        int w = snprintf(names + at, sizeof names - at, "%s%s", i ? ", " : "", ENCODINGS[i].name);
        at += w > 0 ? (size_t)w : 0;
    }
    c1 = strchr(spec, ',');
    c2 = c1 ? strchr(c1 + 1, ',') : NULL;
    if (!c1 || !c2)
        return sp_fail(ei, SP_EINVAL, SP_FIELD("raw_format") " %s: expected ENCODING,RATE,CHANNELS, e.g. f32le,48000,1",
                       spec);
    elen = (size_t)(c1 - spec);
    for (int i = 0; i < ENCODING_COUNT; i++)
        if (strlen(ENCODINGS[i].name) == elen && strncmp(spec, ENCODINGS[i].name, elen) == 0)
            enc = i;
    if (enc < 0)
        return sp_fail(ei, SP_EINVAL, SP_FIELD("raw_format") " %s: unknown encoding \"%.*s\" (%s)", spec, (int)elen,
                       spec, names);
    if (!raw_number(c1 + 1, (size_t)(c2 - c1 - 1), 1, SOURCE_MAX_RATE, &rate))
        return sp_fail(ei, SP_EINVAL, SP_FIELD("raw_format") " %s: the rate must be a whole number of Hz from 1 to %d",
                       spec, SOURCE_MAX_RATE);
    if (!raw_number(c2 + 1, strlen(c2 + 1), 1, SOURCE_MAX_CHANNELS, &channels))
        return sp_fail(ei, SP_EINVAL, SP_FIELD("raw_format") " %s: the channels must be a whole number from 1 to %d",
                       spec, SOURCE_MAX_CHANNELS);
    out->encoding = enc;
    out->rate = rate;
    out->channels = channels;
    return SP_OK;
}
