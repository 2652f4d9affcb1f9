/* The --bandwidth output kind: where the long-term spectrum falls off for good, and what
 * encoder such a cut-off suggests (docs/measurements.md "Codec bandwidth"): the power mean of
 * every frame's spectrum (all output channels together) into bandwidth.h's search. One JSON
 * line per input at the end:
 * "input", "cutoff_hz", "verdict", "encoders" (typical for that cut-off), and the evidence:
 * "below_db" and "above_db" (the mean smoothed levels within EVIDENCE_HZ below and above
 * it), "drop_db", "nyquist_hz". With a path (--bandwidth --png OUT), the long-term spectrum
 * is drawn there too (plot.h), the cut-off marked, before the line is printed. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "bandwidth.h"
#include "plot.h"
#include "sink_table.h"

typedef struct {
    FILE *out;
    sink_stream st;
    measure_accum *acc;
    const char *path;   /* the picture's, or NULL: the line only */
    render_config rc;   /* the picture's settings (with a path) */
    plot *plot;         /* made at open: a bad --size or a missing font stops the run first */
    char title[512], mark[96];
} bandwidth_sink;

static int bw_open(void *self, const sink_stream *st, sink_wants *wants, sp_errinfo *ei)
{
    bandwidth_sink *s = self;
    s->st = *st;
    s->st.window_coef = NULL;
    if (measure_accum_create(MEASURE_MEAN, 1, st->bins, &s->acc) != SP_OK)
        return sp_fail(ei, SP_ENOMEM, "out of memory");
    wants->spectra = 1;
    if (s->path) {
        plot_config pc;
        memset(&pc, 0, sizeof pc);
        pc.rc = s->rc;
        if (!pc.rc.title)
            pc.rc.title = s->title; /* completed at finish, with the verdict */
        pc.rate = st->rate;
        pc.n = st->n;
        pc.channels = 1;
        pc.ylabel = st->level_unit ? "Long-term level (dB SPL)" : "Long-term level (dBFS)";
        pc.no_labels = 1;
        pc.mark_text = s->mark;
        return plot_create(&pc, &s->plot, ei);
    }
    return SP_OK;
}

static int bw_spectra(void *self, int channel, uint64_t first, size_t nframes, const float *db, sp_errinfo *ei)
{
    bandwidth_sink *s = self;
    (void)channel, (void)first, (void)ei;
    measure_accum_add(s->acc, 0, nframes, db);
    return SP_OK;
}

/* The long-term spectrum p[bins] (dB) into the picture, the cut-off marked (none when
 * full-band: the title says so). */
static int draw_picture(bandwidth_sink *s, const double *p, const bandwidth_result *r, sp_errinfo *ei)
{
    float *db = malloc(s->st.bins * sizeof *db);
    const float *curves[1];
    int err;
    if (!db)
        return sp_fail(ei, SP_ENOMEM, "out of memory");
    for (size_t k = 0; k < s->st.bins; k++)
        db[k] = (float)p[k];
    curves[0] = db;
    if (r->full_band)
        snprintf(s->title, sizeof s->title, "%s  \xe2\x80\x94  full-band (no low-pass found)",
                 s->st.source ? s->st.source : "");
    else
        snprintf(s->title, sizeof s->title, "%s  \xe2\x80\x94  low-passed at %.1f kHz%s%s",
                 s->st.source ? s->st.source : "", r->cutoff_hz / 1000.0, r->encoders ? ", typical of " : "",
                 r->encoders ? r->encoders : "");
    snprintf(s->mark, sizeof s->mark, "cut-off %.1f kHz", r->cutoff_hz / 1000.0);
    plot_set_mark(s->plot, r->full_band ? 0.0 : r->cutoff_hz);
    err = plot_write_png(s->plot, curves, s->path, ei);
    free(db);
    return err;
}

static int bw_finish(void *self, const sink_end *end, sp_errinfo *ei)
{
    bandwidth_sink *s = self;
    size_t bins = s->st.bins;
    double *p = malloc(bins * sizeof *p), nyq = s->st.rate / 2.0;
    bandwidth_result r;
    FILE *f = s->out;
    int err;
    (void)end;
    if (!p)
        return sp_fail(ei, SP_ENOMEM, "out of memory");
    measure_accum_power(s->acc, 0, p);
    err = bandwidth_find(p, bins, s->st.bin_hz, &r, p, ei); /* p: now the level in dB */
    if (err == SP_OK && s->plot)
        err = draw_picture(s, p, &r, ei);
    if (err != SP_OK) {
        free(p);
        return err;
    }
    fputs("{\"input\": ", f);
    sp_json_string(f, s->st.source ? s->st.source : "");
    fprintf(f, ", \"cutoff_hz\": %.1f, \"verdict\": ", r.cutoff_hz);
    if (r.full_band)
        fputs("\"full-band\"", f);
    else
        fprintf(f, "\"low-passed at %.1f kHz\"", r.cutoff_hz / 1000.0);
    fputs(", \"encoders\": ", f);
    if (r.encoders)
        sp_json_string(f, r.encoders);
    else
        fputs("null", f);
    fprintf(f, ", \"below_db\": %.2f, \"above_db\": %.2f, \"drop_db\": %.2f, \"nyquist_hz\": %.1f}\n", r.below_db,
            r.above_db, r.below_db - r.above_db, nyq);
    free(p);
    if (ferror(f) || fflush(f) != 0)
        return sp_fail(ei, SP_EIO, "writing the bandwidth to standard output failed");
    return SP_OK;
}

static void bw_abort(void *self)
{
    (void)self; /* the picture is written at finish, just before the line: nothing to take back */
}

static void bw_destroy(void *self)
{
    bandwidth_sink *s = self;
    if (!s)
        return;
    measure_accum_destroy(s->acc);
    plot_destroy(s->plot);
    free(s);
}

static const sink_ops bandwidth_ops = {
    .name = "bandwidth", .open = bw_open, .spectra = bw_spectra, .finish = bw_finish, .abort = bw_abort,
    .destroy = bw_destroy,
};

int sink_bandwidth_create(const char *path, const sink_options *opt, sink *out, sp_errinfo *ei)
{
    bandwidth_sink *s;
    if (!opt || !out || (path && !opt->render))
        return sp_fail(ei, SP_EINVAL, "sink_bandwidth_create: NULL argument");
    if (path && !*path)
        return sp_fail(ei, SP_EINVAL, SP_FIELD("png") ": missing output path");
    if (!(s = calloc(1, sizeof *s)))
        return sp_fail(ei, SP_ENOMEM, "out of memory");
    s->out = opt->out ? opt->out : stdout;
    s->path = path;
    if (path)
        s->rc = *opt->render;
    out->ops = &bandwidth_ops;
    out->self = s;
    return SP_OK;
}
