/* The --transfer output kinds: the averaged H1 transfer function of two channels of the
 * input (transfer.h; docs/measurements.md "Transfer function"), from the frames' windowed
 * transforms (sink_wants.complex), written at the end
 *
 *   "transfer"      with --dump: a table of shape (bins, 4), freq_hz, magnitude_db,
 *                   phase_deg, coherence (dump.c's table mode: a CSV with that header);
 *                   the sidecar adds the channels, the averages and the delay
 *   "transfer-png"  with --png: magnitude, unwrapped phase and coherence against frequency
 *                   (three spectrum plots, plot.h, one above the other)
 *
 * The framer hands over one output channel's block at a time, the channels in order: the
 * block of the lower of the two channels is kept until the higher one's arrives. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dump.h"
#include "json.h"
#include "outfile.h"
#include "plot.h"
#include "png_write.h"
#include "sink_table.h"
#include "transfer.h"

/* The picture's panels, top to bottom. */
enum { PANEL_MAG, PANEL_PHASE, PANEL_COH, PANELS };

typedef struct {
    sink_head h;            /* first (sink_table.h): path, png, done, m, rc, d */
    sink_stream st;
    int ref, meas;         /* the stream's channels: REF and MEAS, or 0 and 1 of a pair */
    transfer *tf;
    cpx *held;             /* the lower channel's block, until the higher one's comes */
    size_t held_cap;       /* frames it holds room for */
    uint64_t held_first;
    size_t held_frames;
    plot *panel[PANELS];   /* png */
    char title[512];
    char extra[4096 + 1024]; /* the sidecar's members (a path's worth and more) */
} transfer_sink;

int sink_transfer_check(const sink_measure *ms, const sink_stream *st, sp_errinfo *ei)
{
    int r = ms->transfer_ref, m = ms->transfer_meas, c = st->source_channels;
    if (ms->reference) /* a pair: its source checked REF and MEAS against the two files */
        return c == 2 && st->channels == 2 ? SP_OK
                                           : sp_fail(ei, SP_EINVAL, SP_FIELD("reference") ": not a pair of channels");
    if (c < 2)
        return sp_fail(ei, SP_EINVAL,
                       SP_FIELD("transfer") " %d:%d: %s has one channel (the transfer function needs two)", r, m,
                       st->source);
    if (r < 0 || m < 0 || r >= c || m >= c)
        return sp_fail(ei, SP_EINVAL,
                       SP_FIELD("transfer") " %d:%d: channel %d out of range: %s has %d channels (0 to %d)", r, m,
                       r < 0 || r >= c ? r : m, st->source, c, c - 1);
    if (r == m)
        return sp_fail(ei, SP_EINVAL,
                       SP_FIELD("transfer") " %d:%d: the reference and the measured channel are the same", r, m);
    if (st->channels != c)
        return sp_fail(ei, SP_EINVAL,
                       SP_FIELD("transfer") ": needs every channel of the input (" SP_FIELD("channel") " all)");
    return SP_OK;
}

/* One panel: the picture's settings with a third of its height, the values' range. */
static int open_panel(transfer_sink *s, int i, sp_errinfo *ei)
{
    static const char *const ylabels[PANELS] = {"Magnitude (dB)", "Phase (deg)", "Coherence"};
    plot_config pc;
    memset(&pc, 0, sizeof pc);
    pc.rc = s->h.rc;
    pc.rc.height = s->h.rc.height / PANELS;
    pc.rc.title = i == 0 ? s->title : "";
    pc.rc.scale = FREQ_SCALE_LOG;
    pc.rate = s->st.rate;
    pc.n = s->st.n;
    pc.channels = 1;
    pc.ylabel = ylabels[i];
    pc.no_labels = 1;
    if (i == PANEL_COH) {
        pc.rc.db_lo = 0.0f;
        pc.rc.db_hi = 1.0f;
    }
    return plot_create(&pc, &s->panel[i], ei);
}

static int transfer_open(void *self, const sink_stream *st, sink_wants *wants, sp_errinfo *ei)
{
    transfer_sink *s = self;
    int err;
    s->st = *st;
    s->st.window_coef = NULL; /* valid during open only */
    s->ref = s->h.m.reference ? 0 : s->h.m.transfer_ref;
    s->meas = s->h.m.reference ? 1 : s->h.m.transfer_meas;
    if ((err = sink_transfer_check(&s->h.m, st, ei)) != SP_OK || (err = transfer_create(st->n, &s->tf, ei)) != SP_OK)
        return err;
    if (s->h.png) {
        /* the phase's and magnitude's ranges come from the data: the panels are made at the
         * end, this one now so that a bad --size or a missing font stops the run first */
        if ((err = open_panel(s, PANEL_COH, ei)) != SP_OK)
            return err;
    } else {
        dump_config dc;
        memset(&dc, 0, sizeof dc);
        dc.path = s->h.path;
        dc.channels = 1;
        dc.bins = TRANSFER_COLUMNS;
        dc.columns = transfer_column_names;
        if ((err = dump_open(&dc, &s->h.d, ei)) != SP_OK)
            return err;
    }
    wants->complex = 1;
    return SP_OK;
}

static int transfer_complex(void *self, int channel, uint64_t first, size_t nframes, const cpx *z, sp_errinfo *ei)
{
    transfer_sink *s = self;
    int lo = s->ref < s->meas ? s->ref : s->meas, hi = s->ref ^ s->meas ^ lo;
    if (channel == lo) {
        if (nframes > s->held_cap) {
            cpx *h = realloc(s->held, nframes * s->st.bins * sizeof *h);
            if (!h)
                return sp_fail(ei, SP_ENOMEM, "out of memory for %zu frames' transforms", nframes);
            s->held = h;
            s->held_cap = nframes;
        }
        memcpy(s->held, z, nframes * s->st.bins * sizeof *z);
        s->held_first = first;
        s->held_frames = nframes;
    } else if (channel == hi && s->held_frames == nframes && s->held_first == first) {
        if (lo == s->ref)
            transfer_add(s->tf, s->held, z, nframes);
        else
            transfer_add(s->tf, z, s->held, nframes);
        s->held_frames = 0;
    }
    return SP_OK;
}

/* The delay in samples: the transfer function's, plus a pair's alignment. */
static int total_delay(transfer_sink *s, double *delay, sp_errinfo *ei)
{
    int err = transfer_delay(s->tf, delay, ei);
    *delay += s->st.aligned_s * s->st.rate;
    return err;
}

/* The sidecar's members of a transfer (docs/formats.md "Transfer function"). */
static int sidecar_extra(transfer_sink *s, double *delay, sp_errinfo *ei)
{
    int err = total_delay(s, delay, ei);
    size_t at;
    if (err != SP_OK)
        return err;
    at = (size_t)snprintf(s->extra, sizeof s->extra, ",\n  \"aligned_s\": %.17g", s->st.aligned_s);
    if (s->h.m.reference) {
        FILE *f = fmemopen(s->extra + at, sizeof s->extra - at, "w");
        if (!f)
            return sp_fail(ei, SP_ENOMEM, "out of memory");
        fputs(",\n  \"reference\": ", f);
        sp_json_string(f, s->h.m.reference);
        at += (size_t)ftell(f);
        fclose(f);
    }
    snprintf(s->extra + at, sizeof s->extra - at,
             ",\n  \"transfer\": \"H1\",\n  \"reference_channel\": %d,\n  \"measured_channel\": %d,"
             "\n  \"averages\": %llu,\n  \"delay_s\": %.17g,\n  \"delay_samples\": %.17g,"
             "\n  \"delay_method\": \"excess-phase GCC, coherence-weighted\","
             "\n  \"columns\": [\"%s\", \"%s\", \"%s\", \"%s\"]",
             s->h.m.transfer_ref, s->h.m.transfer_meas, (unsigned long long)transfer_averages(s->tf),
             *delay / s->st.rate, *delay, transfer_column_names[0], transfer_column_names[1], transfer_column_names[2],
             transfer_column_names[3]);
    return SP_OK;
}

static int finish_dump(transfer_sink *s, const sink_end *end, sp_errinfo *ei)
{
    size_t bins = s->st.bins;
    float *rows = malloc(bins * TRANSFER_COLUMNS * sizeof *rows);
    double delay;
    dump_meta m;
    int err;
    if (!rows)
        return sp_fail(ei, SP_ENOMEM, "out of memory");
    transfer_table(s->tf, s->st.rate, rows);
    if ((err = sidecar_extra(s, &delay, ei)) == SP_OK && (err = dump_write(s->h.d, 0, 0, bins, rows, ei)) == SP_OK) {
        m = sink_dump_meta(&s->st, end);
        m.extra = s->extra;
        err = dump_commit(s->h.d, &m, ei);
    }
    free(rows);
    return err;
}

/* [lo, hi] of v[k] over the bins 1 .. bins-2 that are coherent (coherence >= 0.5), or over
 * all of them when none is; 0 when there are none. */
static void value_range(const float *v, const float *coh, size_t bins, float *lo, float *hi)
{
    int any = 0;
    for (int pass = 0; pass < 2 && !any; pass++)
        for (size_t k = 1; k + 1 < bins; k++)
            if (pass == 1 || coh[k] >= 0.5f) {
                *lo = any && *lo < v[k] ? *lo : v[k];
                *hi = any && *hi > v[k] ? *hi : v[k];
                any = 1;
            }
    if (!any)
        *lo = *hi = 0.0f;
}

/* The magnitude's axis: 10 dB steps around the coherent bins, 40 dB at least; the phase's:
 * 90-degree steps, 360 degrees at least. */
static void panel_ranges(transfer_sink *s, const float *const *v, render_config *mag, render_config *ph)
{
    float lo, hi;
    value_range(v[PANEL_MAG], v[PANEL_COH], s->st.bins, &lo, &hi);
    mag->db_hi = 10.0f * ceilf(hi / 10.0f + 0.01f);
    mag->db_lo = 10.0f * floorf(lo / 10.0f - 0.01f);
    if (mag->db_lo > mag->db_hi - 40.0f)
        mag->db_lo = mag->db_hi - 40.0f;
    if (mag->db_lo < mag->db_hi - 200.0f)
        mag->db_lo = mag->db_hi - 200.0f;
    value_range(v[PANEL_PHASE], v[PANEL_COH], s->st.bins, &lo, &hi);
    ph->db_hi = 90.0f * ceilf(hi / 90.0f + 0.01f);
    ph->db_lo = 90.0f * floorf(lo / 90.0f - 0.01f);
    if (ph->db_lo > ph->db_hi - 360.0f)
        ph->db_lo = ph->db_hi - 360.0f;
}

/* Draws the three panels into one picture and writes it. */
static int draw_png(transfer_sink *s, sp_errinfo *ei)
{
    size_t bins = s->st.bins;
    int w = s->h.rc.width, h = s->h.rc.height / PANELS, err;
    float *v = malloc(bins * PANELS * sizeof *v);
    const float *rows[PANELS];
    uint8_t *rgba = malloc((size_t)w * (size_t)h * PANELS * 4);
    const char *slash = strrchr(s->st.source, '/');
    double delay;
    render_config mag = s->h.rc, ph = s->h.rc;
    if (!v || !rgba) {
        err = sp_fail(ei, SP_ENOMEM, "out of memory for a %dx%d picture", w, h * PANELS);
        goto done;
    }
    for (int i = 0; i < PANELS; i++)
        rows[i] = v + (size_t)i * bins;
    transfer_result(s->tf, v, v + bins, v + 2 * bins);
    if ((err = total_delay(s, &delay, ei)) != SP_OK)
        goto done;
    /* a pair's phase holds only what is left after its alignment */
    transfer_unwrap(v + bins, bins, s->st.bin_hz, s->h.m.remove_delay, delay / s->st.rate - s->st.aligned_s);
    snprintf(s->title, sizeof s->title,
             "%s  \xe2\x80\x94  H1 ch %d / ch %d, %llu averages, %d Hz, N=%zu, hop=%zu, %s, delay %.3f ms%s",
             slash ? slash + 1 : s->st.source, s->h.m.transfer_meas, s->h.m.transfer_ref,
             (unsigned long long)transfer_averages(s->tf), s->st.rate, s->st.n, s->st.hop, s->st.window,
             1e3 * delay / s->st.rate, s->h.m.remove_delay ? " (removed)" : "");
    panel_ranges(s, rows, &mag, &ph);
    s->h.rc.db_lo = mag.db_lo, s->h.rc.db_hi = mag.db_hi;
    if ((err = open_panel(s, PANEL_MAG, ei)) != SP_OK)
        goto done;
    s->h.rc.db_lo = ph.db_lo, s->h.rc.db_hi = ph.db_hi;
    if ((err = open_panel(s, PANEL_PHASE, ei)) != SP_OK)
        goto done;
    for (int i = 0; i < PANELS && err == SP_OK; i++)
        err = plot_draw(s->panel[i], &rows[i], rgba + (size_t)i * (size_t)w * (size_t)h * 4, ei);
    if (err == SP_OK)
        err = png_write_rgba(s->h.path, rgba, w, h * PANELS, ei);
done:
    free(v);
    free(rgba);
    return err;
}

static int transfer_finish(void *self, const sink_end *end, sp_errinfo *ei)
{
    transfer_sink *s = self;
    return sink_head_finished(&s->h, s->h.png ? draw_png(s, ei) : finish_dump(s, end, ei));
}

static void transfer_destroy_sink(void *self)
{
    transfer_sink *s = self;
    if (!s)
        return;
    dump_destroy(s->h.d);
    for (int i = 0; i < PANELS; i++)
        plot_destroy(s->panel[i]);
    transfer_destroy(s->tf);
    free(s->held);
    free(s);
}

static const sink_ops transfer_ops = {
    .name = "transfer", .open = transfer_open, .complex = transfer_complex, .finish = transfer_finish,
    .abort = sink_head_abort, .destroy = transfer_destroy_sink,
};

static int transfer_sink_create(const char *path, const sink_options *opt, int png, sink *out, sp_errinfo *ei)
{
    return sink_head_create(sizeof(transfer_sink), &transfer_ops, path, opt, png, out, ei);
}

int sink_transfer_create(const char *path, const sink_options *opt, sink *out, sp_errinfo *ei)
{
    return transfer_sink_create(path, opt, 0, out, ei);
}

int sink_transfer_png_create(const char *path, const sink_options *opt, sink *out, sp_errinfo *ei)
{
    return transfer_sink_create(path, opt, 1, out, ei);
}
