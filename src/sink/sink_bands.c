/* The --bands output kind (with --dump): fractional-octave band levels (bands.h), weighted
 * by --weighting,
 *   per frame          shape (frames, bands), or (channels, frames, bands) with --channel all
 *   with --average     one row per channel over all frames (measure.h's mean of power, max
 *                      or min of the band levels): (bands,) or (channels, bands)
 * in dBFS, for the bands the FFT resolves (bands.h): those too narrow are listed, not
 * reported. The sidecar adds bands (b), weighting, bands_hz (the exact mid frequencies),
 * band_edges_hz ([lower, upper] each), bands_unresolved_hz, enbw_bins and, averaged, average
 * and frames_averaged. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bands.h"
#include "dump.h"
#include "fft.h"
#include "sink_table.h"

typedef struct {
    const char *path;
    sink_measure m;
    sink_stream st;
    bands *b;
    size_t nb;
    float *rows;          /* a block's band levels: nframes x nb, or channels x nb at the end */
    size_t rows_cap;      /* frames rows holds */
    measure_accum *acc;   /* --average: over the band levels (NaN bands fed as the floor) */
    dump *d;
    double enbw;
    int done;
    char *extra;          /* the sidecar's members */
} bands_sink;

/* The sidecar's members: the bands' frequencies and edges, exact. */
static int make_extra(bands_sink *s, sp_errinfo *ei)
{
    size_t cap = 256 + (s->nb + bands_unresolved_count(s->b)) * 96, at = 0;
    if (!(s->extra = malloc(cap)))
        return sp_fail(ei, SP_ENOMEM, "out of memory");
    at += (size_t)snprintf(s->extra + at, cap - at, ",\n  \"bands\": %d,\n  \"weighting\": \"%s\",\n  \"bands_hz\": [",
                           s->m.bands, bands_weighting_name((bands_weighting)s->m.weighting));
    for (size_t i = 0; i < s->nb; i++)
        at += (size_t)snprintf(s->extra + at, cap - at, "%s%.17g", i ? ", " : "", bands_mid_hz(s->b, i));
    at += (size_t)snprintf(s->extra + at, cap - at, "],\n  \"band_edges_hz\": [");
    for (size_t i = 0; i < s->nb; i++)
        at += (size_t)snprintf(s->extra + at, cap - at, "%s[%.17g, %.17g]", i ? ", " : "", bands_lower_hz(s->b, i),
                               bands_upper_hz(s->b, i));
    at += (size_t)snprintf(s->extra + at, cap - at, "],\n  \"bands_unresolved_hz\": [");
    for (size_t i = 0; i < bands_unresolved_count(s->b); i++)
        at += (size_t)snprintf(s->extra + at, cap - at, "%s%.17g", i ? ", " : "", bands_unresolved_hz(s->b, i));
    snprintf(s->extra + at, cap - at, "],\n  \"enbw_bins\": %.17g", s->enbw);
    return SP_OK;
}

/* The bands m asks for of the stream st (its window's coefficients read: during open). */
static bands_config config_of(const sink_measure *m, const sink_stream *st)
{
    measure_window win = {1.0, 1.0, 1};
    bands_config bc;
    if (st->window_coef)
        measure_window_of(st->window_coef, st->n, &win);
    memset(&bc, 0, sizeof bc);
    bc.fraction = m->bands;
    bc.weighting = (bands_weighting)m->weighting;
    bc.lo = m->band_lo >= 0.0 ? m->band_lo : 20.0;
    bc.hi = m->band_hi >= 0.0 ? m->band_hi : 20000.0;
    bc.rate = st->rate;
    bc.n = st->n;
    bc.enbw_bins = win.enbw_bins;
    bc.lobe_bins = win.lobe_bins;
    return bc;
}

size_t sink_bands_unresolved(const sink_measure *m, const sink_stream *st, double *hz, size_t max)
{
    bands_config bc = config_of(m, st);
    bands *b = NULL;
    size_t count = 0;
    if (m->bands > 0 && bands_create(&bc, &b, NULL) == SP_OK) {
        count = bands_unresolved_count(b);
        for (size_t i = 0; i < count && i < max; i++)
            hz[i] = bands_unresolved_hz(b, i);
    }
    bands_destroy(b);
    return count;
}

static int bands_open(void *self, const sink_stream *st, sink_wants *wants, sp_errinfo *ei)
{
    bands_sink *s = self;
    bands_config bc = config_of(&s->m, st);
    dump_config dc;
    double *mids;
    int err;
    s->st = *st;
    s->st.window_coef = NULL; /* valid during open only */
    s->enbw = bc.enbw_bins;
    if ((err = bands_create(&bc, &s->b, ei)) != SP_OK)
        return err;
    s->nb = bands_count(s->b);
    if ((err = make_extra(s, ei)) != SP_OK)
        return err;
    if (s->m.bands_average && measure_accum_create(s->m.average, st->channels, s->nb, &s->acc) != SP_OK)
        return sp_fail(ei, SP_ENOMEM, "out of memory");
    if (!(mids = malloc(s->nb * sizeof *mids)))
        return sp_fail(ei, SP_ENOMEM, "out of memory");
    for (size_t i = 0; i < s->nb; i++)
        mids[i] = bands_mid_hz(s->b, i);
    memset(&dc, 0, sizeof dc);
    dc.path = s->path;
    dc.channels = st->channels;
    dc.stacked = st->channel_name && strcmp(st->channel_name, "all") == 0;
    dc.single = s->m.bands_average;
    dc.bins = s->nb;
    dc.bin_hz = st->bin_hz;
    dc.col_hz = mids;
    dc.time_first = st->time_first_s;
    dc.time_step = st->time_step_s;
    dc.frames_expected = !s->m.bands_average && st->frames_expected > 0 ? (uint64_t)st->frames_expected : 0;
    err = dump_open(&dc, &s->d, ei);
    free(mids);
    wants->spectra = 1;
    return err;
}

static int reserve_rows(bands_sink *s, size_t frames, sp_errinfo *ei)
{
    if (frames <= s->rows_cap)
        return SP_OK;
    float *r = realloc(s->rows, frames * s->nb * sizeof *r);
    if (!r)
        return sp_fail(ei, SP_ENOMEM, "out of memory for the band levels of %zu frames", frames);
    s->rows = r;
    s->rows_cap = frames;
    return SP_OK;
}

static int bands_spectra(void *self, int channel, uint64_t first, size_t nframes, const float *db, sp_errinfo *ei)
{
    bands_sink *s = self;
    int err;
    if ((err = reserve_rows(s, nframes, ei)) != SP_OK)
        return err;
    for (size_t f = 0; f < nframes; f++)
        bands_levels(s->b, db + f * s->st.bins, s->rows + f * s->nb);
    if (s->acc) {
        measure_accum_add(s->acc, channel, nframes, s->rows);
        return SP_OK;
    }
    return dump_write(s->d, channel, first, nframes, s->rows, ei);
}

static uint64_t frames_averaged(const bands_sink *s)
{
    uint64_t f = measure_accum_frames(s->acc, 0);
    for (int c = 1; c < s->st.channels; c++)
        f = measure_accum_frames(s->acc, c) < f ? measure_accum_frames(s->acc, c) : f;
    return f;
}

static int bands_finish(void *self, const sink_end *end, sp_errinfo *ei)
{
    bands_sink *s = self;
    const sink_stream *st = &s->st;
    dump_meta m;
    int err;
    if (s->acc) {
        size_t len = strlen(s->extra), cap = len + 128;
        char *x = realloc(s->extra, cap);
        if (!x || (err = reserve_rows(s, (size_t)st->channels, ei)) != SP_OK)
            return x ? err : sp_fail(ei, SP_ENOMEM, "out of memory");
        s->extra = x;
        snprintf(x + len, cap - len, ",\n  \"average\": \"%s\",\n  \"frames_averaged\": %llu",
                 measure_average_name((int)s->m.average), (unsigned long long)frames_averaged(s));
        for (int c = 0; c < st->channels; c++) {
            float *row = s->rows + (size_t)c * s->nb;
            measure_accum_db(s->acc, c, 0.0, row);
            if ((err = dump_write(s->d, c, 0, 1, row, ei)) != SP_OK)
                return err;
        }
    }
    m = sink_dump_meta(st, end);
    m.extra = s->extra;
    if ((err = dump_commit(s->d, &m, ei)) == SP_OK)
        s->done = 1;
    return err;
}

static void bands_abort(void *self)
{
    bands_sink *s = self;
    if (!s->done) {
        dump_destroy(s->d);
        s->d = NULL;
    }
}

static void bands_destroy_sink(void *self)
{
    bands_sink *s = self;
    if (!s)
        return;
    dump_destroy(s->d);
    bands_destroy(s->b);
    measure_accum_destroy(s->acc);
    free(s->rows);
    free(s->extra);
    free(s);
}

static const sink_ops bands_ops = {
    .name = "bands", .open = bands_open, .spectra = bands_spectra, .finish = bands_finish,
    .abort = bands_abort, .destroy = bands_destroy_sink,
};

int sink_bands_create(const char *path, const sink_options *opt, sink *out, sp_errinfo *ei)
{
    bands_sink *s;
    if (!path || !*path || !opt || !out)
        return sp_fail(ei, SP_EINVAL, SP_FIELD("dump") ": missing output path");
    if (!(s = calloc(1, sizeof *s)))
        return sp_fail(ei, SP_ENOMEM, "out of memory");
    s->path = path;
    s->m = opt->measure;
    out->ops = &bands_ops;
    out->self = s;
    return SP_OK;
}
