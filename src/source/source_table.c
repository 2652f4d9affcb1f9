/* The source kinds, chosen by the input's form. A new kind (a network stream, a generator)
 * is one file and one row here, before the file row, which takes every path ("-" too). */
#include <string.h>

#include "source.h"

static int claims_none(const char *input)
{
    return input == NULL;
}

static int claims_synth(const char *input)
{
    return input && strncmp(input, "synth:", 6) == 0;
}

static int claims_path(const char *input)
{
    return input != NULL;
}

static int open_mic(const source_request *req, source **out, sp_errinfo *ei)
{
    source_mic_config mc = source_mic_config_default();
    mc.device = req->device;
    mc.rate = req->rate;
    mc.channels = req->channels;
    return source_open_mic(&mc, out, ei);
}

static int open_synth(const source_request *req, source **out, sp_errinfo *ei)
{
    source_synth_config c;
    int err = source_synth_parse(req->input, &c, ei);
    return err != SP_OK ? err : source_open_synth(&c, out, ei);
}

static int open_file(const source_request *req, source **out, sp_errinfo *ei)
{
    return source_open_file(req->input, out, ei);
}

static const source_kind KINDS[] = {
    {"microphone", claims_none, open_mic},
    {"synth", claims_synth, open_synth},
    {"file", claims_path, open_file},
};

int source_kind_count(void)
{
    return (int)(sizeof KINDS / sizeof KINDS[0]);
}

const source_kind *source_kind_at(int i)
{
    return i >= 0 && i < source_kind_count() ? &KINDS[i] : NULL;
}

const source_kind *source_kind_for(const char *input)
{
    for (int i = 0; i < source_kind_count(); i++)
        if (KINDS[i].claims(input))
            return &KINDS[i];
    return NULL; /* not reached: the rows cover NULL and every string */
}

int source_open_request(const source_request *req, source **out, sp_errinfo *ei)
{
    const source_kind *k;
    if (!req || !out)
        return sp_fail(ei, SP_EINVAL, "source_open_request: NULL argument");
    k = source_kind_for(req->input);
    return k->open(req, out, ei);
}
