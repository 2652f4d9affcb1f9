/* The --average output kinds: one spectrum per channel kept over all the frames of the run
 * (measure.h: power mean, max hold, min hold), written at the end
 *
 *   "average"      with --dump: dump.c's writer with one row and no frame axis, shape
 *                  (bins,) or (channels, bins), in dBFS (or dBFS/Hz with --psd); the
 *                  sidecar adds average, frames_averaged, units, enbw_bins, enbw_hz and
 *                  psd_conversion
 *   "average-png"  with --png: the spectrum plot (plot.h) instead of the spectrogram
 *
 * A live run's skipped frames are not averaged: frames_averaged counts what was. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dump.h"
#include "fft.h"
#include "outfile.h"
#include "plot.h"
#include "sink_table.h"

typedef struct {
    sink_head h;            /* first (sink_table.h): path, png, done, m, rc, d */
    sink_stream st;
    measure_window win;
    measure_accum *acc;
    plot *plot;
    peaks_window *pw;    /* the window's transform, for the plot's peak labels (NULL: none told) */
    char title[512];     /* the plot's, completed at finish (the plot borrows it) */
    float *row;
    double *sum;         /* a transform's plain values (MFCC, chroma: sink.h xform_db 0): their
                          * sums (mean: an arithmetic mean, not a power mean), maxima or minima,
                          * channels x bins, as they come; NULL otherwise */
    char extra[1024];    /* the sidecar's members */
} average_sink;

/* The plot's peak labels: the --peaks refinement (peaks.h), by the spectra's window. */
static void refine_label(const void *ctx, size_t bin, float l, float c, float r, double *hz, double *db)
{
    const average_sink *s = ctx;
    peak pk = peaks_refine(s->pw, bin, l, c, r, s->st.n, s->st.rate);
    *hz = pk.freq_hz;
    *db = pk.db;
}

/* The plot is made at open, so that a bad --size or a missing font stops the run before
 * it starts; its title (frames averaged) is completed at finish. */
static int open_plot(average_sink *s, const float *window_coef, sp_errinfo *ei)
{
    const sink_stream *st = &s->st;
    plot_config pc;
    int err;
    if (st->channels > RENDER_MAX_CHANNELS)
        return sp_fail(ei, SP_EINVAL, SP_FIELD("png") ": at most %d channels in one picture", RENDER_MAX_CHANNELS);
    if (window_coef && (err = peaks_window_create(window_coef, st->n, &s->pw, ei)) != SP_OK)
        return err;
    memset(&pc, 0, sizeof pc);
    pc.rc = s->h.rc;
    if (!pc.rc.title)
        pc.rc.title = s->title;
    pc.rate = st->rate;
    pc.n = st->n;
    pc.channels = st->channels;
    pc.ylabel = s->h.m.psd ? (s->st.level_unit ? "Level (dB SPL/Hz)" : "Level (dBFS/Hz)")
                         : (s->st.level_unit ? "Level (dB SPL)" : "Level (dBFS)");
    pc.refine = refine_label;
    pc.refine_ctx = s;
    pc.no_labels = st->xform != NULL; /* a transform's bands: no peaks between bins to refine */
    return plot_create(&pc, &s->plot, ei);
}

static int average_open(void *self, const sink_stream *st, sink_wants *wants, sp_errinfo *ei)
{
    average_sink *s = self;
    int err;
    s->st = *st;
    s->st.window_coef = NULL; /* valid during open only */
    if (st->window_coef) {
        measure_window_of(st->window_coef, st->n, &s->win);
    } else { /* a caller that says nothing of its window: rectangular */
        s->win.enbw_bins = 1.0;
        s->win.null_bins = 1.0;
        s->win.lobe_bins = 1;
    }
    if (st->xform && !st->xform_db) {
        if (!(s->sum = malloc((size_t)st->channels * st->bins * sizeof *s->sum)))
            return sp_fail(ei, SP_ENOMEM, "out of memory");
        for (size_t i = 0; i < (size_t)st->channels * st->bins; i++)
            s->sum[i] = s->h.m.average == MEASURE_MEAN ? 0.0 : s->h.m.average == MEASURE_MAX ? -HUGE_VAL : HUGE_VAL;
    }
    if (measure_accum_create(s->h.m.average, st->channels, st->bins, &s->acc) != SP_OK ||
        !(s->row = malloc((size_t)st->channels * st->bins * sizeof *s->row)))
        return sp_fail(ei, SP_ENOMEM, "out of memory");
    if (s->h.png) {
        if ((err = open_plot(s, st->window_coef, ei)) != SP_OK)
            return err;
    } else {
        dump_config dc;
        memset(&dc, 0, sizeof dc);
        dc.path = s->h.path;
        dc.channels = st->channels;
        dc.stacked = st->channel_name && strcmp(st->channel_name, "all") == 0;
        dc.single = 1;
        dc.bins = st->bins;
        dc.bin_hz = st->bin_hz;
        dc.col_hz = st->col_hz; /* a transform's columns (sink.h) */
        if ((err = dump_open(&dc, &s->h.d, ei)) != SP_OK)
            return err;
    }
    wants->spectra = 1;
    return SP_OK;
}

static int average_spectra(void *self, int channel, uint64_t first, size_t nframes, const float *db, sp_errinfo *ei)
{
    average_sink *s = self;
    (void)first, (void)ei;
    measure_accum_add(s->acc, channel, nframes, db);
    for (size_t f = 0; s->sum && f < nframes; f++)
        for (size_t k = 0; k < s->st.bins; k++) {
            double *a = &s->sum[(size_t)channel * s->st.bins + k], v = db[f * s->st.bins + k];
            *a = s->h.m.average == MEASURE_MEAN ? *a + v : s->h.m.average == MEASURE_MAX ? (v > *a ? v : *a)
                                                                                       : (v < *a ? v : *a);
        }
    return SP_OK;
}

/* Frames averaged: the fewest of any channel (they are equal unless a run broke off). */
static uint64_t frames_averaged(const average_sink *s)
{
    uint64_t f = measure_accum_frames(s->acc, 0);
    for (int c = 1; c < s->st.channels; c++)
        if (measure_accum_frames(s->acc, c) < f)
            f = measure_accum_frames(s->acc, c);
    return f;
}

/* The results, channel after channel, in s->row; offset: the --psd conversion or 0. */
static double fill_rows(average_sink *s)
{
    double psd = measure_psd_offset_db(&s->win, s->st.bin_hz), offset = s->h.m.psd ? psd : 0.0;
    for (int c = 0; c < s->st.channels; c++) {
        uint64_t frames = measure_accum_frames(s->acc, c);
        measure_accum_db(s->acc, c, offset, s->row + (size_t)c * s->st.bins);
        for (size_t k = 0; s->sum && frames && k < s->st.bins; k++) /* plain values */
            s->row[(size_t)c * s->st.bins + k] =
                (float)(s->sum[(size_t)c * s->st.bins + k] / (s->h.m.average == MEASURE_MEAN ? (double)frames : 1.0));
    }
    return psd;
}

static void sidecar_extra(average_sink *s, double psd)
{
    snprintf(s->extra, sizeof s->extra,
             ",\n  \"average\": \"%s\",\n  \"frames_averaged\": %llu,\n  \"units\": \"%s\",\n  \"enbw_bins\": %.17g,"
             "\n  \"enbw_hz\": %.17g,\n  \"psd_conversion\": \"dBFS/Hz = dBFS - 10*log10(enbw_bins * bin_hz) = dBFS %s "
             "%.6f\"",
             measure_average_name((int)s->h.m.average), (unsigned long long)frames_averaged(s),
             s->h.m.psd ? "dBFS/Hz" : s->st.xform && !s->st.xform_db ? "values" : "dBFS", s->win.enbw_bins,
             s->win.enbw_bins * s->st.bin_hz, psd < 0 ? "-" : "+",
             psd < 0 ? -psd : psd);
}

static int finish_dump(average_sink *s, const sink_end *end, sp_errinfo *ei)
{
    const sink_stream *st = &s->st;
    dump_meta m;
    int err;
    sidecar_extra(s, fill_rows(s));
    for (int c = 0; c < st->channels; c++)
        if ((err = dump_write(s->h.d, c, 0, 1, s->row + (size_t)c * st->bins, ei)) != SP_OK)
            return err;
    m = sink_dump_meta(st, end);
    if (st->xform_json) { /* a transform's members first (sink_dump_meta's), then the average's */
        size_t len = strlen(st->xform_json) + strlen(s->extra) + 1;
        char *both = malloc(len);
        if (!both)
            return sp_fail(ei, SP_ENOMEM, "out of memory");
        snprintf(both, len, "%s%s", st->xform_json, s->extra);
        m.extra = both;
        err = dump_commit(s->h.d, &m, ei);
        free(both);
        return err;
    }
    m.extra = s->extra;
    return dump_commit(s->h.d, &m, ei);
}

/* A transform's averaged levels (mel, CQT: dB at each column's frequency) as the plot's
 * n/2+1 bins: linear in Hz between the columns' frequencies, the floor outside them. */
static float *columns_as_bins(const average_sink *s, const float *row)
{
    const sink_stream *st = &s->st;
    size_t bins = st->n / 2 + 1, j = 0;
    float *out = malloc(bins * sizeof *out);
    if (!out)
        return NULL;
    for (size_t k = 0; k < bins; k++) {
        double f = (double)k * st->bin_hz;
        while (j + 1 < st->bins && st->col_hz[j + 1] < f)
            j++;
        if (f < st->col_hz[0] || f > st->col_hz[st->bins - 1])
            out[k] = FFT_DB_FLOOR;
        else if (j + 1 >= st->bins || st->col_hz[j + 1] <= st->col_hz[j])
            out[k] = row[j];
        else
            out[k] = (float)(row[j] + (row[j + 1] - row[j]) * (f - st->col_hz[j]) / (st->col_hz[j + 1] - st->col_hz[j]));
    }
    return out;
}

static int finish_png(average_sink *s, sp_errinfo *ei)
{
    const sink_stream *st = &s->st;
    const float *rows[RENDER_MAX_CHANNELS];
    float *lin[RENDER_MAX_CHANNELS] = {0};
    const char *slash = strrchr(st->source, '/');
    int err = SP_OK;
    fill_rows(s);
    for (int c = 0; c < st->channels; c++) {
        rows[c] = s->row + (size_t)c * st->bins;
        if (st->xform && !(rows[c] = lin[c] = columns_as_bins(s, rows[c])))
            err = sp_fail(ei, SP_ENOMEM, "out of memory");
    }
    snprintf(s->title, sizeof s->title, "%s  \xe2\x80\x94  %s%s%s of %llu frames, %d Hz, N=%zu, hop=%zu, %s",
             slash ? slash + 1 : st->source, st->xform ? st->xform : "", st->xform ? " " : "",
             measure_average_name((int)s->h.m.average), (unsigned long long)frames_averaged(s), st->rate, st->n,
             st->hop, st->window);
    if (err == SP_OK)
        err = plot_write_png(s->plot, rows, s->h.path, ei);
    for (int c = 0; c < st->channels; c++)
        free(lin[c]);
    return err;
}

static int average_finish(void *self, const sink_end *end, sp_errinfo *ei)
{
    average_sink *s = self;
    return sink_head_finished(&s->h, s->h.png ? finish_png(s, ei) : finish_dump(s, end, ei));
}

static void average_destroy(void *self)
{
    average_sink *s = self;
    if (!s)
        return;
    dump_destroy(s->h.d);
    plot_destroy(s->plot);
    peaks_window_destroy(s->pw);
    measure_accum_destroy(s->acc);
    free(s->row);
    free(s->sum);
    free(s);
}

static const sink_ops average_ops = {
    .name = "average", .open = average_open, .spectra = average_spectra, .finish = average_finish,
    .abort = sink_head_abort, .destroy = average_destroy,
};

static int average_create(const char *path, const sink_options *opt, int png, sink *out, sp_errinfo *ei)
{
    return sink_head_create(sizeof(average_sink), &average_ops, path, opt, png, out, ei);
}

int sink_average_create(const char *path, const sink_options *opt, sink *out, sp_errinfo *ei)
{
    return average_create(path, opt, 0, out, ei);
}

int sink_average_png_create(const char *path, const sink_options *opt, sink *out, sp_errinfo *ei)
{
    return average_create(path, opt, 1, out, ei);
}
