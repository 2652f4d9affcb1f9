/* spectro_dump: the program's --dump writer (src/sink/dump.h, which the dump and average
 * outputs use) for spectra the caller has: the config checked and named by its fields, each
 * channel's frames taken in order, the commit's sidecar (dump_meta) made of the config. */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "api_internal.h"
#include "dump.h"

struct spectro_dump {
    dump *d;
    dump_meta meta;         /* the sidecar: the config's strings, borrowed */
    int channels, averaged, committed;
    size_t bins;
    uint64_t *next;         /* each channel's next frame */
};

spectro_dump_config spectro_dump_config_default(void)
{
    spectro_dump_config c;
    memset(&c, 0, sizeof c);
    c.size = sizeof c;
    return c;
}

/* The path's format as --dump takes it, the message naming path. */
static int check_path(const char *path, spectro_error *err)
{
    dump_format fmt;
    char list[64] = "";
    size_t at = 0;
    if (!path || !*path)
        return api_fail(err, SPECTRO_EINVAL, "path is empty");
    if (dump_format_from_path(path, &fmt, NULL) == SP_OK)
        return SPECTRO_OK;
    for (int i = 0; i < dump_format_count() && at < sizeof list; i++)
        at += (size_t)snprintf(list + at, sizeof list - at, "%s%s", i ? ", " : "", dump_format_ext(i));
    return api_fail(err, SPECTRO_EINVAL, "path %s: unknown format (the extension: %s; \"-\": CSV on standard output)",
                    path, list);
}

/* What API version 7's config holds: a later, larger config is read that far. */
#define DUMP_CONFIG_V7 (offsetof(spectro_dump_config, extra) + sizeof(const char *))

/* The config's members, each named where at fault. */
static int check_config(const spectro_dump_config *c, spectro_error *err)
{
    int rc;
    if (!c)
        return api_fail(err, SPECTRO_EINVAL, "the config is NULL");
    if ((rc = api_check_size(c->size, DUMP_CONFIG_V7, "spectro_dump_config", err)) != SPECTRO_OK)
        return rc;
    if (c->sample_rate < 1)
        return api_fail(err, SPECTRO_EINVAL, "sample_rate %d: must be at least 1", c->sample_rate);
    if (c->channels < 1)
        return api_fail(err, SPECTRO_EINVAL, "channels %d: must be at least 1", c->channels);
    if (c->fft_size < 1 || c->hop < 1)
        return api_fail(err, SPECTRO_EINVAL, "%s 0: must be at least 1", c->fft_size < 1 ? "fft_size" : "hop");
    if (c->bins < 1)
        return api_fail(err, SPECTRO_EINVAL, "bins 0: must be at least 1");
    if (!isfinite(c->bin_hz) || c->bin_hz < 0)
        return api_fail(err, SPECTRO_EINVAL, "bin_hz %g: must be positive (0: sample_rate / fft_size)", c->bin_hz);
    if (!isfinite(c->time_first_s) || !isfinite(c->time_step_s) || !isfinite(c->start_s))
        return api_fail(err, SPECTRO_EINVAL, "%s is not finite",
                        !isfinite(c->time_first_s) ? "time_first_s" : !isfinite(c->time_step_s) ? "time_step_s"
                                                                                                 : "start_s");
    if (!c->window || !*c->window || !c->source || !c->backend || !*c->backend)
        return api_fail(err, SPECTRO_EINVAL, "%s is missing",
                        !c->window || !*c->window ? "window" : !c->source ? "source" : "backend");
    if (c->source_channels < 1)
        return api_fail(err, SPECTRO_EINVAL, "source_channels %d: must be at least 1", c->source_channels);
    if (c->channel_name && strcmp(c->channel_name, "mix") != 0 && strcmp(c->channel_name, "all") != 0)
        return api_fail(err, SPECTRO_EINVAL, "channel_name \"%s\": must be \"mix\", \"all\" or NULL", c->channel_name);
    if (!c->channel_name && (c->channel < 0 || c->channel >= c->source_channels))
        return api_fail(err, SPECTRO_EINVAL, "channel %d: the input has %d (0 to %d)", c->channel,
                        c->source_channels, c->source_channels - 1);
    if (c->extra && *c->extra && c->extra[0] != ',')
        return api_fail(err, SPECTRO_EINVAL, "extra: members follow the sidecar's own: start with \",\"");
    return SPECTRO_OK;
}

/* The sidecar as the dump output's (sink_dump_meta): the frames are dump_commit's. */
static void meta_from(const spectro_dump_config *c, double bin_hz, dump_meta *m)
{
    memset(m, 0, sizeof *m);
    m->source = c->source;
    m->decoder = c->decoder;
    m->start_s = c->start_s;
    m->sample_rate = c->sample_rate;
    m->source_channels = c->source_channels;
    m->channel = c->channel;
    m->channel_name = c->channel_name;
    m->channels = c->channels;
    m->fft_size = c->fft_size;
    m->hop = c->hop;
    m->bins = c->bins;
    m->window = c->window;
    m->time_first_s = c->time_first_s;
    m->time_step_s = c->time_step_s;
    m->bin_hz = bin_hz;
    m->backend = c->backend;
    m->nonfinite_samples = c->nonfinite_samples;
    m->dropped_samples = c->dropped_samples;
    m->truncated = c->truncated != 0;
    m->level_unit = c->unit && *c->unit && strcmp(c->unit, "dBFS") != 0 ? c->unit : NULL;
    m->extra = c->extra && *c->extra ? c->extra : NULL;
}

int spectro_dump_open(const char *path, const spectro_dump_config *cfg, spectro_dump **out, spectro_error *err)
{
    spectro_dump *d;
    dump_config dc;
    sp_errinfo ei = {{0}};
    double bin_hz;
    int rc;
    if (!out)
        return api_fail(err, SPECTRO_EINVAL, "out is NULL");
    *out = NULL;
    if ((rc = check_path(path, err)) != SPECTRO_OK || (rc = check_config(cfg, err)) != SPECTRO_OK)
        return rc;
    bin_hz = cfg->bin_hz > 0 ? cfg->bin_hz : (double)cfg->sample_rate / (double)cfg->fft_size;
    if (!(d = calloc(1, sizeof *d)) || !(d->next = calloc((size_t)cfg->channels, sizeof *d->next))) {
        free(d);
        return api_fail(err, SPECTRO_ENOMEM, "out of memory");
    }
    memset(&dc, 0, sizeof dc);
    dc.path = path;
    dc.channels = cfg->channels;
    dc.stacked = cfg->channel_name && strcmp(cfg->channel_name, "all") == 0;
    dc.single = cfg->averaged != 0;
    dc.bins = cfg->bins;
    dc.depth = 1;
    dc.bin_hz = bin_hz;
    dc.col_hz = cfg->freqs_hz;
    dc.time_first = cfg->time_first_s;
    dc.time_step = cfg->time_step_s;
    if ((rc = dump_open(&dc, &d->d, &ei)) != SP_OK) {
        free(d->next);
        free(d);
        return api_from_engine(err, rc, &ei);
    }
    meta_from(cfg, bin_hz, &d->meta);
    d->channels = cfg->channels;
    d->averaged = cfg->averaged != 0;
    d->bins = cfg->bins;
    *out = d;
    return SPECTRO_OK;
}

int spectro_dump_write(spectro_dump *d, int channel, uint64_t first, size_t count, const float *rows,
                       spectro_error *err)
{
    sp_errinfo ei = {{0}};
    int rc;
    if (!d || (!rows && count))
        return api_fail(err, SPECTRO_EINVAL, "%s is NULL", !d ? "the dump" : "rows");
    if (d->committed)
        return api_fail(err, SPECTRO_EINVAL, "the dump is committed");
    if (channel < 0 || channel >= d->channels)
        return api_fail(err, SPECTRO_EINVAL, "channel %d: the dump has %d (0 to %d)", channel, d->channels,
                        d->channels - 1);
    if (first != d->next[channel])
        return api_fail(err, SPECTRO_EINVAL, "first %llu: channel %d's next frame is %llu", (unsigned long long)first,
                        channel, (unsigned long long)d->next[channel]);
    if (d->averaged && first + count > 1)
        return api_fail(err, SPECTRO_EINVAL, "count %zu: an averaged dump holds one row a channel", count);
    if (!count)
        return SPECTRO_OK;
    if ((rc = dump_write(d->d, channel, first, count, rows, &ei)) != SP_OK)
        return api_from_engine(err, rc, &ei);
    d->next[channel] += count;
    return SPECTRO_OK;
}

int spectro_dump_commit(spectro_dump *d, spectro_error *err)
{
    sp_errinfo ei = {{0}};
    int rc;
    if (!d)
        return api_fail(err, SPECTRO_EINVAL, "the dump is NULL");
    if (d->committed)
        return api_fail(err, SPECTRO_EINVAL, "the dump is committed");
    d->committed = 1; /* once: a failed commit leaves nothing to commit again */
    if ((rc = dump_commit(d->d, &d->meta, &ei)) != SP_OK)
        return api_from_engine(err, rc, &ei);
    return SPECTRO_OK;
}

void spectro_dump_destroy(spectro_dump *d)
{
    if (!d)
        return;
    dump_destroy(d->d);
    free(d->next);
    free(d);
}
