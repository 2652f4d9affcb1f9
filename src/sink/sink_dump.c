/* The --dump output kind: dump.c behind sink.h. A live run that skipped frames gets floor
 * rows in their place, so that row f is still the frame at time_first_s + f*time_step_s. */
#include <stdlib.h>
#include <string.h>

#include "dump.h"
#include "fft.h"
#include "sink_table.h"

typedef struct {
    const char *path;
    sink_stream st;
    dump *d;
    uint64_t *next;   /* per output channel: the next frame index the dump expects */
    float *floor_row; /* one spectrum at the floor, for the gaps */
    int committed;
} dump_sink;

static int dump_sink_open(void *self, const sink_stream *st, sink_wants *wants, sp_errinfo *ei)
{
    dump_sink *s = self;
    dump_config dc;
    int err;
    memset(&dc, 0, sizeof dc);
    s->st = *st;
    dc.path = s->path;
    dc.channels = st->channels;
    dc.stacked = st->channel_name && strcmp(st->channel_name, "all") == 0;
    dc.depth = st->depth > 1 ? st->depth : 1;
    dc.bins = st->bins * dc.depth; /* a transform's columns of depth values (sink.h) */
    dc.bin_hz = st->bin_hz;
    dc.col_hz = st->col_hz;
    dc.time_first = st->time_first_s;
    dc.time_step = st->time_step_s;
    /* known before the first frame (a file, or a live run with --duration): the dump
     * refuses a job larger than the free space */
    dc.frames_expected = st->frames_hint > 0 ? (uint64_t)st->frames_hint : 0;
    if ((err = dump_open(&dc, &s->d, ei)) != SP_OK)
        return err;
    s->next = calloc((size_t)st->channels, sizeof *s->next);
    s->floor_row = malloc(dc.bins * sizeof *s->floor_row);
    if (!s->next || !s->floor_row)
        return sp_fail(ei, SP_ENOMEM, "out of memory");
    for (size_t k = 0; k < dc.bins; k++) /* a gap in a transform's rows: its floor too, or 0 */
        s->floor_row[k] = !st->xform || st->xform_db ? FFT_DB_FLOOR : 0.0f;
    wants->spectra = 1;
    return SP_OK;
}

static int dump_sink_gap(dump_sink *s, int channel, uint64_t first, sp_errinfo *ei)
{
    while (s->next[channel] < first) {
        int err = dump_write(s->d, channel, s->next[channel], 1, s->floor_row, ei);
        if (err != SP_OK)
            return err;
        s->next[channel]++;
    }
    return SP_OK;
}

static int dump_sink_spectra(void *self, int channel, uint64_t first, size_t nframes, const float *db,
                             sp_errinfo *ei)
{
    dump_sink *s = self;
    int err;
    if ((err = dump_sink_gap(s, channel, first, ei)) != SP_OK ||
        (err = dump_write(s->d, channel, first, nframes, db, ei)) != SP_OK)
        return err;
    s->next[channel] = first + nframes;
    return SP_OK;
}

dump_meta sink_dump_meta(const sink_stream *st, const sink_end *end)
{
    dump_meta m;
    memset(&m, 0, sizeof m);
    m.source = st->source;
    m.decoder = st->decoder;
    m.start_s = st->start_s;
    m.sample_rate = st->rate;
    m.source_channels = st->source_channels;
    m.channel = st->channel;
    m.channel_name = st->channel_name;
    m.channels = st->channels;
    m.fft_size = st->n;
    m.hop = st->hop;
    m.bins = st->bins;
    m.window = st->window;
    m.frames = end->frames;
    m.time_first_s = st->time_first_s;
    m.time_step_s = st->time_step_s;
    m.bin_hz = st->bin_hz;
    m.backend = st->backend;
    m.nonfinite_samples = end->nonfinite_samples;
    m.truncated = end->truncated;
    m.dropped_samples = end->dropped_samples;
    m.level_unit = st->level_unit;
    m.extra = st->xform_json; /* a transform's name, parameters and columns */
    return m;
}

/* The sidecar: the stream as opened, the end as reached (its frame count is the dump's:
 * dump_commit says how many rows every channel has). */
static int dump_sink_finish(void *self, const sink_end *end, sp_errinfo *ei)
{
    dump_sink *s = self;
    const sink_stream *st = &s->st;
    dump_meta m;
    int err;
    /* a dump stopped for want of space keeps what it has: no floor rows after it */
    for (int c = 0; c < st->channels && !dump_stopped(s->d); c++)
        if ((err = dump_sink_gap(s, c, end->frames, ei)) != SP_OK)
            return err;
    m = sink_dump_meta(st, end);
    if ((err = dump_commit(s->d, &m, ei)) != SP_OK)
        return err;
    s->committed = 1;
    return SP_OK;
}

/* Before the commit: the temporary goes. After it the dump stays: the dump finishes last
 * of the outputs (sink_table.h), so only a caller's sink can fail after it. */
static void dump_sink_abort(void *self)
{
    dump_sink *s = self;
    if (!s->committed) {
        dump_destroy(s->d);
        s->d = NULL;
    }
}

static void dump_sink_destroy(void *self)
{
    dump_sink *s = self;
    if (!s)
        return;
    dump_destroy(s->d);
    free(s->next);
    free(s->floor_row);
    free(s);
}

static const sink_ops dump_sink_ops = {
    .name = "dump", .open = dump_sink_open, .spectra = dump_sink_spectra, .finish = dump_sink_finish,
    .abort = dump_sink_abort, .destroy = dump_sink_destroy,
};

int sink_dump_create(const char *path, const sink_options *opt, sink *out, sp_errinfo *ei)
{
    dump_sink *s;
    (void)opt;
    if (!path || !out)
        return sp_fail(ei, SP_EINVAL, SP_FIELD("dump") ": missing output path");
    if (!(s = calloc(1, sizeof *s)))
        return sp_fail(ei, SP_ENOMEM, "out of memory");
    s->path = path;
    out->ops = &dump_sink_ops;
    out->self = s;
    return SP_OK;
}
