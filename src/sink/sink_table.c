#include "sink_table.h"

#include <stdlib.h>
#include <string.h>

#include "outfile.h"

/* "-", /dev/stdout, /proc/self/fd/1, a link to one, the file the shell sent stdout to ... */
static int names_stdout(const char *path)
{
    return path && outfile_path_is_stdout(path);
}

static int always(const char *path)
{
    (void)path;
    return 1;
}

/* A dump's name says its format (.npy, .csv, "-"). */
static int dump_path_ok(const char *path, sp_errinfo *ei)
{
    dump_format fmt;
    return dump_format_from_path(path, &fmt, ei);
}

/* The order is the order of the calls (sink_table.h): the dump first, so it finishes last. */
static const sink_kind KINDS[] = {
    {.name = "dump",
     .option = SP_FIELD("dump"),
     .create = sink_dump_create,
     .writes_stdout = names_stdout,
     .writes_spectra = 1,
     .sidecar = 1,
     .dir_ext = DUMP_DEFAULT_EXT,
     .check_path = dump_path_ok,
     .averaged = "average",
     .banded = "bands",
     .transferred = "transfer",
     .compared = "compare",
     .loudness = "loudness-dump"},
    {.name = "average",
     .option = SP_FIELD("dump"),
     .create = sink_average_create,
     .writes_stdout = names_stdout,
     .sidecar = 1,
     .dir_ext = DUMP_DEFAULT_EXT,
     .check_path = dump_path_ok},
    {.name = "bands",
     .option = SP_FIELD("dump"),
     .create = sink_bands_create,
     .writes_stdout = names_stdout,
     .sidecar = 1,
     .dir_ext = DUMP_DEFAULT_EXT,
     .check_path = dump_path_ok,
     .averaged = "bands"},
    {.name = "png",
     .option = SP_FIELD("png"),
     .create = sink_png_create,
     .writes_stdout = names_stdout,
     .reduces = 1,
     .dir_ext = ".png",
     .averaged = "average-png",
     .transferred = "transfer-png",
     .compared = "compare-png"},
    {.name = "average-png",
     .option = SP_FIELD("png"),
     .create = sink_average_png_create,
     .writes_stdout = names_stdout,
     .dir_ext = ".png"},
    {.name = "peaks", .option = SP_FIELD("peaks"), .create = sink_peaks_create, .writes_stdout = always, .reduces = 1},
    {.name = "transfer",
     .option = SP_FIELD("dump"),
     .create = sink_transfer_create,
     .writes_stdout = names_stdout,
     .sidecar = 1,
     .dir_ext = DUMP_DEFAULT_EXT,
     .check_path = dump_path_ok,
     .transferred = "transfer"},
    {.name = "transfer-png",
     .option = SP_FIELD("png"),
     .create = sink_transfer_png_create,
     .writes_stdout = names_stdout,
     .dir_ext = ".png",
     .transferred = "transfer-png"},
    {.name = "compare",
     .option = SP_FIELD("dump"),
     .create = sink_compare_create,
     .writes_stdout = names_stdout,
     .sidecar = 1,
     .dir_ext = DUMP_DEFAULT_EXT,
     .check_path = dump_path_ok,
     .compared = "compare"},
    {.name = "compare-png",
     .option = SP_FIELD("png"),
     .create = sink_compare_png_create,
     .writes_stdout = names_stdout,
     .dir_ext = ".png",
     .compared = "compare-png"},
    {.name = "tone", .option = SP_FIELD("fundamental_hz"), .create = sink_tone_create, .writes_stdout = always},
    {.name = "pitch", .option = SP_FIELD("pitch"), .create = sink_pitch_create, .writes_stdout = always,
     .samples_only = 1},
    {.name = "bandwidth",
     .option = SP_FIELD("bandwidth"),
     .create = sink_bandwidth_create,
     .writes_stdout = always,
     .dir_ext = ".png"}, /* with --png: its picture (the long-term spectrum, the cut-off marked) */
    {.name = "loudness", .option = SP_FIELD("loudness"), .create = sink_loudness_create, .writes_stdout = always,
     .samples_only = 1},
    {.name = "loudness-dump",
     .option = SP_FIELD("dump"),
     .create = sink_loudness_create,
     .writes_stdout = names_stdout,
     .samples_only = 1,
     .sidecar = 1,
     .dir_ext = DUMP_DEFAULT_EXT,
     .check_path = dump_path_ok},
};

sink_measure sink_measure_default(void)
{
    sink_measure m;
    memset(&m, 0, sizeof m);
    m.average = MEASURE_MEAN;
    m.band_lo = -1.0;
    m.band_hi = -1.0;
    return m;
}

int sink_kind_count(void)
{
    return (int)(sizeof KINDS / sizeof KINDS[0]);
}

const sink_kind *sink_kind_at(int i)
{
    return i >= 0 && i < sink_kind_count() ? &KINDS[i] : NULL;
}

const sink_kind *sink_kind_find(const char *name)
{
    for (int i = 0; name && i < sink_kind_count(); i++)
        if (strcmp(KINDS[i].name, name) == 0)
            return &KINDS[i];
    return NULL;
}

int sink_requests_check_stdout(const sink_request *req, int n, sp_errinfo *ei)
{
    const sink_request *first = NULL;
    const sink_kind *first_kind = NULL;
    for (int i = 0; i < n; i++) {
        const sink_kind *k = sink_kind_find(req[i].kind);
        const sink_request *q = &req[i];
        if (!k || !k->writes_stdout(q->path))
            continue;
        if (first)
            return sp_fail(ei, SP_EINVAL, "%s%s%s and %s%s%s both write to standard output: pick one",
                           first_kind->option, first->path ? " " : "", first->path ? first->path : "", k->option,
                           q->path ? " " : "", q->path ? q->path : "");
        first = q;
        first_kind = k;
    }
    return SP_OK;
}

int sink_requests_check_paths(const sink_request *req, int n, sp_errinfo *ei)
{
    for (int i = 0; i < n; i++) {
        const sink_kind *k = sink_kind_find(req[i].kind);
        sp_errinfo e = {{0}};
        int err;
        if (!k || !req[i].path || k->writes_stdout(req[i].path))
            continue;
        if ((err = outfile_check(req[i].path, &e)) != SP_OK)
            return sp_fail(ei, err, "%s %s", k->option, e.msg);
    }
    return SP_OK;
}

void sink_destroy(sink *s)
{
    if (s && s->ops && s->ops->destroy)
        s->ops->destroy(s->self);
    if (s)
        s->ops = NULL;
}

int sink_head_create(size_t size, const sink_ops *ops, const char *path, const sink_options *opt, int png,
                     sink *out, sp_errinfo *ei)
{
    sink_head *h;
    if (!path || !*path || !opt || !out || (png && !opt->render))
        return sp_fail(ei, SP_EINVAL, "%s: missing output path", png ? SP_FIELD("png") : SP_FIELD("dump"));
    if (!(h = calloc(1, size)))
        return sp_fail(ei, SP_ENOMEM, "out of memory");
    h->path = path;
    h->png = png;
    h->m = opt->measure;
    if (png)
        h->rc = *opt->render;
    out->ops = ops;
    out->self = h;
    return SP_OK;
}

int sink_head_finished(sink_head *h, int err)
{
    if (err == SP_OK)
        h->done = 1;
    return err;
}

void sink_head_abort(void *self)
{
    sink_head *h = self;
    dump_or_picture_abort(h->png, &h->done, h->path, &h->d);
}
