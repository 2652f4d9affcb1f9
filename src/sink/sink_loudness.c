/* The --loudness output kind: the BS.1770-4 / EBU R128 meter (loudness.h) over the
 * input's samples (sink.h: it wants samples, not spectra), every source channel weighted
 * per BS.1770-4 whatever --channel picks for the spectra.
 *
 * A file: one JSON object a line at the end: "input", integrated, loudness range,
 * momentary and short-term maxima, true and sample peak; a number that was not measured
 * (silence, or a short-term value of an input under 3 s) is null. A live run (microphone,
 * --realtime, a pipe): a line per second of audio with its "time_s" (the end of that
 * second, from the input's start), "momentary_lufs" and "short_term_lufs", then the whole
 * run's line at its end. Input shorter than one 400 ms block: SP_EINPUT, nothing printed.
 *
 * The kind "loudness-dump" (--loudness with --dump OUT) does the same and also writes the
 * 100 ms series to OUT (docs/formats.md "Loudness reports and series"): one row per 100 ms
 * step, the momentary and short-term loudness of the blocks that end there (NaN before a
 * block is whole), with its sidecar. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "loudness.h"
#include "outfile.h"
#include "sink_table.h"

static const char *const SERIES[] = {"momentary_lufs", "short_term_lufs"};

typedef struct {
    const char *path;       /* the series' dump, or NULL */
    FILE *out;
    sink_stream st;
    loudness_meter *m;
    dump *d;
    size_t written;         /* steps in the dump */
    size_t reported;        /* live: steps up to the last line */
    int done;
} loudness_sink;

static int loud_open(void *self, const sink_stream *st, sink_wants *wants, sp_errinfo *ei)
{
    loudness_sink *s = self;
    dump_config dc;
    int err;
    s->st = *st;
    s->st.window_coef = NULL;
    if ((err = loudness_meter_create(st->rate, st->source_channels, NULL, &s->m, ei)) != SP_OK)
        return err;
    wants->samples = 1;
    if (!s->path)
        return SP_OK;
    memset(&dc, 0, sizeof dc);
    dc.path = s->path;
    dc.channels = 1;
    dc.bins = 2;
    dc.col_names = SERIES;
    dc.time_first = st->start_s + 1.0 / LOUDNESS_STEPS_PER_S;
    dc.time_step = 1.0 / LOUDNESS_STEPS_PER_S;
    return dump_open(&dc, &s->d, ei);
}

/* A number as JSON: null where none was measured. */
static const char *num_text(char *buf, size_t len, double v)
{
    if (isfinite(v))
        snprintf(buf, len, "%.4f", v);
    else
        snprintf(buf, len, "null");
    return buf;
}

/* A number, or null where none was measured. */
static void put_num(FILE *f, const char *key, double v)
{
    if (isfinite(v))
        fprintf(f, ", \"%s\": %.4f", key, v);
    else
        fprintf(f, ", \"%s\": null", key);
}

static void put_input(const loudness_sink *s)
{
    fputs("{\"input\": ", s->out);
    sp_json_string(s->out, s->st.source ? s->st.source : "");
}

/* The steps the meter completed since the last call: into the dump, and live, a line for
 * each whole second. */
static int after_steps(loudness_sink *s, sp_errinfo *ei)
{
    size_t steps = loudness_meter_steps(s->m);
    int err;
    for (; s->d && s->written < steps; s->written++) {
        float row[2] = {(float)loudness_meter_momentary(s->m, s->written),
                        (float)loudness_meter_short_term(s->m, s->written)};
        if ((err = dump_write(s->d, 0, s->written, 1, row, ei)) != SP_OK)
            return err;
    }
    if (!s->st.live)
        return SP_OK;
    for (; s->reported + LOUDNESS_STEPS_PER_S <= steps; s->reported += LOUDNESS_STEPS_PER_S) {
        size_t last = s->reported + LOUDNESS_STEPS_PER_S - 1;
        put_input(s);
        fprintf(s->out, ", \"time_s\": %.10g", s->st.start_s + (double)(last + 1) / LOUDNESS_STEPS_PER_S);
        put_num(s->out, "momentary_lufs", loudness_meter_momentary(s->m, last));
        put_num(s->out, "short_term_lufs", loudness_meter_short_term(s->m, last));
        fputs("}\n", s->out);
        if (ferror(s->out) || fflush(s->out) != 0)
            return sp_fail(ei, SP_EIO, "writing the loudness to standard output failed");
    }
    return SP_OK;
}

static int loud_samples(void *self, uint64_t first, size_t nframes, const float *x, sp_errinfo *ei)
{
    loudness_sink *s = self;
    int err;
    /* a live run's skipped samples are gone: the meter joins what is left (its steps then
     * cover the audio measured, and time_s follows them) */
    (void)first;
    if ((err = loudness_meter_add(s->m, x, nframes, ei)) != SP_OK)
        return err;
    return after_steps(s, ei);
}

static int loud_finish(void *self, const sink_end *end, sp_errinfo *ei)
{
    loudness_sink *s = self;
    loudness_result r;
    dump_meta meta;
    char extra[512], a[32], b[32];
    int err;
    if ((err = loudness_meter_result(s->m, &r, ei)) != SP_OK)
        return err;
    if (r.steps < LOUDNESS_MOMENTARY_STEPS)
        return sp_fail(ei, SP_EINPUT, "%s: loudness needs at least 0.4 s of audio (one BS.1770 block); it holds "
                                      "%.3f s",
                       s->st.source ? s->st.source : "input", (double)r.frames / s->st.rate);
    put_input(s);
    put_num(s->out, "integrated_lufs", r.integrated_lufs);
    put_num(s->out, "loudness_range_lu", r.loudness_range_lu);
    put_num(s->out, "momentary_max_lufs", r.momentary_max_lufs);
    put_num(s->out, "short_term_max_lufs", r.short_term_max_lufs);
    put_num(s->out, "true_peak_dbtp", r.true_peak_dbtp);
    put_num(s->out, "sample_peak_dbfs", r.sample_peak_dbfs);
    fputs("}\n", s->out);
    if (ferror(s->out) || fflush(s->out) != 0)
        return sp_fail(ei, SP_EIO, "writing the loudness to standard output failed");
    if (!s->d)
        return SP_OK;
    meta = sink_dump_meta(&s->st, end);
    meta.channels = 1;
    meta.bins = 2;
    meta.frames = s->written;
    meta.time_first_s = s->st.start_s + 1.0 / LOUDNESS_STEPS_PER_S;
    meta.time_step_s = 1.0 / LOUDNESS_STEPS_PER_S;
    meta.bin_hz = 0.0;
    snprintf(extra, sizeof extra,
             ",\n  \"series\": \"loudness\",\n  \"columns\": [\"%s\", \"%s\"],\n  \"integrated_lufs\": %s,"
             "\n  \"loudness_range_lu\": %s",
             SERIES[0], SERIES[1], num_text(a, sizeof a, r.integrated_lufs),
             num_text(b, sizeof b, r.loudness_range_lu));
    meta.extra = extra;
    if ((err = dump_commit(s->d, &meta, ei)) == SP_OK)
        s->done = 1;
    return err;
}

static void loud_abort(void *self)
{
    loudness_sink *s = self;
    if (!s->done) {
        dump_destroy(s->d);
        s->d = NULL;
    }
}

static void loud_destroy(void *self)
{
    loudness_sink *s = self;
    if (!s)
        return;
    dump_destroy(s->d);
    loudness_meter_destroy(s->m);
    free(s);
}

static const sink_ops loudness_ops = {
    .name = "loudness", .open = loud_open, .samples = loud_samples, .finish = loud_finish, .abort = loud_abort,
    .destroy = loud_destroy,
};

int sink_loudness_create(const char *path, const sink_options *opt, sink *out, sp_errinfo *ei)
{
    loudness_sink *s;
    if (!opt || !out)
        return sp_fail(ei, SP_EINVAL, "sink_loudness_create: NULL argument");
    if (path && (!*path || outfile_path_is_stdout(path)))
        return sp_fail(ei, SP_EINVAL,
                       SP_FIELD("dump") " %s: with " SP_FIELD("loudness") " its JSON lines take standard output; "
                                        "give the series a file (.npy or .csv)",
                       path);
    if (!(s = calloc(1, sizeof *s)))
        return sp_fail(ei, SP_ENOMEM, "out of memory");
    s->path = path;
    s->out = opt->out ? opt->out : stdout;
    out->ops = &loudness_ops;
    out->self = s;
    return SP_OK;
}
