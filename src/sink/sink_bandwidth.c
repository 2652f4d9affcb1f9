/* The --bandwidth output kind: where the long-term spectrum falls off for good, and what
 * encoder such a cut-off suggests (docs/measurements.md "Codec bandwidth").
 *
 * The power mean of every frame's spectrum (all output channels together) in dB, smoothed
 * over SMOOTH_HZ. A low-pass shows as a cliff: the highest frequency c where the level just
 * below (c - EDGE_HZ) stands CLIFF_DB or more above everything from c + EDGE_HZ up (not the
 * gradual fall of a programme's highs). Its passband level P is the mean level REF_FROM_HZ
 * to REF_TO_HZ below c, and the cut-off is the lowest frequency from which the level stays
 * DROP_DB or more below P. No cliff: the top of the spectrum. A cut-off at FULL_BAND of
 * Nyquist or above is "full-band". One JSON line per input at the end:
 * "input", "cutoff_hz", "verdict", "encoders" (typical for that cut-off), and the evidence:
 * "below_db" and "above_db" (the mean smoothed levels within EVIDENCE_HZ below and above
 * it), "drop_db", "nyquist_hz". With a path (--bandwidth --png OUT), the long-term spectrum
 * is drawn there too (plot.h), the cut-off marked, before the line is printed. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "plot.h"
#include "sink_table.h"

#define SMOOTH_HZ 200.0
#define EDGE_HZ 250.0
#define EVIDENCE_HZ 1500.0
#define CLIFF_DB 25.0
#define DROP_DB 20.0
#define REF_FROM_HZ 4000.0
#define REF_TO_HZ 2000.0
#define FULL_BAND 0.93

/* Typical low-pass frequencies of common encoders (LAME's defaults, FFmpeg's AAC). */
static const struct {
    double lo_khz, hi_khz;
    const char *encoders;
} TYPICAL[] = {
    {.lo_khz = 10.0, .hi_khz = 11.8, .encoders = "MP3 64 kb/s"},
    {.lo_khz = 13.5, .hi_khz = 15.5, .encoders = "MP3 96-112 kb/s, AAC 64-80 kb/s"},
    {.lo_khz = 15.5, .hi_khz = 16.3, .encoders = "AAC 96 kb/s (about 16 kHz)"},
    {.lo_khz = 16.3, .hi_khz = 17.3, .encoders = "MP3 128 kb/s (about 16.5-17 kHz)"},
    {.lo_khz = 17.3, .hi_khz = 18.2, .encoders = "MP3 160 kb/s"},
    {.lo_khz = 18.2, .hi_khz = 19.3, .encoders = "MP3 192 kb/s"},
    {.lo_khz = 19.3, .hi_khz = 19.9, .encoders = "MP3 256 kb/s"},
    {.lo_khz = 19.9, .hi_khz = 20.7, .encoders = "MP3 320 kb/s (about 20-20.5 kHz)"},
};

typedef struct {
    FILE *out;
    sink_stream st;
    measure_accum *acc;
    const char *path;   /* the picture's, or NULL: the line only */
    render_config rc;   /* the picture's settings (with a path) */
    plot *plot;         /* made at open: a bad --size or a missing font stops the run first */
    char title[512], mark[96];
} bandwidth_sink;

typedef struct {
    double cutoff_hz, below_db, above_db;
    int full_band;
    const char *encoders;
} bandwidth_result;

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

/* The mean of s[a .. b] (clipped to the spectrum). */
static double mean_of(const double *s, size_t bins, double a, double b)
{
    size_t i = a < 0 ? 0 : (size_t)a, j = b < 0 ? 0 : (size_t)b;
    double sum = 0.0;
    if (j >= bins)
        j = bins - 1;
    if (i > j)
        return s[j];
    for (size_t k = i; k <= j; k++)
        sum += s[k];
    return sum / (double)(j - i + 1);
}

/* The cliff search over the smoothed spectrum sm[bins] (bins bin_hz apart). */
static void find_cutoff(const double *sm, size_t bins, double bin_hz, bandwidth_result *r)
{
    size_t edge = (size_t)ceil(EDGE_HZ / bin_hz), ev = (size_t)ceil(EVIDENCE_HZ / bin_hz);
    double *tail = malloc(bins * sizeof *tail), nyq = (double)(bins - 1) * bin_hz;
    size_t cut = bins - 1;
    r->full_band = 1;
    if (tail && bins > 2 * edge + 4) {
        tail[bins - 1] = sm[bins - 1];
        for (size_t k = bins - 1; k-- > 0;)
            tail[k] = sm[k] > tail[k + 1] ? sm[k] : tail[k + 1];
        for (size_t k = bins - 1 - edge; k > edge + 1; k--)
            if (sm[k - edge] - tail[k + edge] >= CLIFF_DB) {
                double from = (double)k - REF_FROM_HZ / bin_hz, to = (double)k - REF_TO_HZ / bin_hz;
                double ref = mean_of(sm, bins, from, to);
                size_t j = from > 0 ? (size_t)from : 0;
                while (j < k && tail[j] > ref - DROP_DB)
                    j++;
                cut = j;
                break;
            }
        free(tail);
    }
    r->cutoff_hz = (double)cut * bin_hz;
    r->below_db = mean_of(sm, bins, (double)cut - (double)ev, (double)cut - (double)edge);
    r->above_db = mean_of(sm, bins, (double)(cut + edge), (double)(cut + ev));
    r->full_band = r->cutoff_hz >= FULL_BAND * nyq;
    r->encoders = NULL;
    for (size_t i = 0; !r->full_band && i < sizeof TYPICAL / sizeof TYPICAL[0]; i++)
        if (r->cutoff_hz >= TYPICAL[i].lo_khz * 1000.0 && r->cutoff_hz < TYPICAL[i].hi_khz * 1000.0)
            r->encoders = TYPICAL[i].encoders;
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
    size_t bins = s->st.bins, half = (size_t)(SMOOTH_HZ / 2.0 / s->st.bin_hz);
    double *p = malloc(bins * sizeof *p), *sm = malloc(bins * sizeof *sm), nyq = s->st.rate / 2.0;
    bandwidth_result r;
    FILE *f = s->out;
    (void)end;
    if (!p || !sm) {
        free(p);
        free(sm);
        return sp_fail(ei, SP_ENOMEM, "out of memory");
    }
    measure_accum_power(s->acc, 0, p);
    for (size_t k = 0; k < bins; k++)
        p[k] = 10.0 * log10(p[k] > 1e-30 ? p[k] : 1e-30);
    for (size_t k = 0; k < bins; k++)
        sm[k] = mean_of(p, bins, (double)k - (double)half, (double)(k + half));
    find_cutoff(sm, bins, s->st.bin_hz, &r);
    if (s->plot) {
        int err = draw_picture(s, p, &r, ei);
        if (err != SP_OK) {
            free(p);
            free(sm);
            return err;
        }
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
    free(sm);
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
