/* The source kinds, chosen by the input's form. A new kind (a network stream, a generator)
 * is one file and one row here, before the file row, which takes every other path. A kind
 * that does not know the input's format passes it on (SOURCE_PASS) to the next row that
 * claims it: the file row's libsndfile to the FFmpeg row. */
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

static int claims_pipe(const char *input)
{
    return source_is_pipe_path(input);
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

static int open_pipe(const source_request *req, source **out, sp_errinfo *ei)
{
    return source_open_pipe(req->input, &req->file, req->stop, out, ei);
}

static int open_file(const source_request *req, source **out, sp_errinfo *ei)
{
    return source_open_file_opts(req->input, &req->file, out, ei);
}

static int open_ffmpeg(const source_request *req, source **out, sp_errinfo *ei)
{
    return source_open_ffmpeg(req->input, &req->file, out, ei);
}

static const source_kind KINDS[] = {
    {.name = "microphone", .claims = claims_none, .open = open_mic},
    {.name = "synth", .claims = claims_synth, .open = open_synth},
    {.name = "stdin", .claims = claims_pipe, .open = open_pipe},
    {.name = "file", .claims = claims_path, .open = open_file},
    {.name = "ffmpeg", .claims = claims_path, .open = open_ffmpeg},
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
    int err = SP_EINPUT;
    if (!req || !out)
        return sp_fail(ei, SP_EINVAL, "source_open_request: NULL argument");
    if (req->reference) /* not a form of the input: a second input beside it */
        return source_open_pair(req, out, ei);
    for (int i = 0; i < source_kind_count(); i++)
        if (KINDS[i].claims(req->input) && (err = KINDS[i].open(req, out, ei)) != SOURCE_PASS)
            return err;
    return SP_EINPUT; /* the last kind that claimed it passed: its line in ei stands */
}
