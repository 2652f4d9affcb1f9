/* The --tone output kind: tone analysis (measure.h) of the power-mean spectrum, printed on
 * standard output as one JSON object a line (--tone-format text: lines for people).
 *
 * A file: one report per output channel at the end, over all its frames. A live run
 * (microphone, --realtime): one report per second of audio and channel, over the frames
 * that start within that second (frame f starts at f*hop/rate s), flushed as it is made;
 * the last, partial second at the end. Each report starts with its "input" (the source's
 * name: a batch's lines tell their files apart), then in a live run the "time_s" of its
 * second (from the input's start), then with --channel all its "channel". */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "sink_table.h"

typedef struct {
    FILE *out;
    sink_measure m;
    sink_stream st;
    measure_window win;
    measure_accum *acc;
    double *power;
    double lo, hi;          /* the band, resolved */
    int all;                /* --channel all: reports name their channel */
    int64_t *second;        /* live, per channel: the second being gathered */
} tone_sink;

static int tone_open(void *self, const sink_stream *st, sink_wants *wants, sp_errinfo *ei)
{
    tone_sink *s = self;
    measure_tone probe;
    int err;
    s->st = *st;
    s->st.window_coef = NULL; /* valid during open only */
    if (st->window_coef) {
        measure_window_of(st->window_coef, st->n, &s->win);
    } else {
        s->win.enbw_bins = 1.0;
        s->win.null_bins = 1.0;
        s->win.lobe_bins = 1;
    }
    s->all = st->channel_name && strcmp(st->channel_name, "all") == 0;
    if ((err = measure_tone_band(s->m.band_lo, s->m.band_hi, st->rate, &s->lo, &s->hi, ei)) != SP_OK)
        return err;
    if (measure_accum_create(MEASURE_MEAN, st->channels, st->bins, &s->acc) != SP_OK ||
        !(s->power = malloc(st->bins * sizeof *s->power)) ||
        !(s->second = calloc((size_t)st->channels, sizeof *s->second)))
        return sp_fail(ei, SP_ENOMEM, "out of memory");
    /* the band and --tone F checked now, on an empty spectrum, rather than after the run */
    for (size_t k = 0; k < st->bins; k++)
        s->power[k] = 1e-20;
    if ((err = measure_tone_analyze(s->power, st->n, st->rate, &s->win, s->lo, s->hi, s->m.tone_hz, &probe, ei)) !=
        SP_OK)
        return err;
    wants->spectra = 1;
    return SP_OK;
}

/* The second a live report covers, in seconds from the input's start. */
static double report_time_s(const tone_sink *s, int channel)
{
    return s->st.start_s + (double)s->second[channel];
}

static void print_json(const tone_sink *s, int channel, const measure_tone *t, uint64_t frames)
{
    FILE *f = s->out;
    fputs("{\"input\": ", f);
    sp_json_string(f, s->st.source ? s->st.source : "");
    fputs(", ", f);
    if (s->st.live)
        fprintf(f, "\"time_s\": %.10g, ", report_time_s(s, channel));
    if (s->all)
        fprintf(f, "\"channel\": %d, ", channel);
    fprintf(f, "\"fundamental_hz\": %.4f, \"fundamental_dbfs\": %.4f, \"harmonics\": [", t->fundamental_hz,
            t->fundamental_dbfs);
    for (int i = 0; i < t->harmonics; i++)
        fprintf(f, "%s{\"n\": %d, \"hz\": %.4f, \"dbfs\": %.4f}", i ? ", " : "", t->harmonic[i].n, t->harmonic[i].hz,
                t->harmonic[i].dbfs);
    fprintf(f,
            "], \"thd_percent\": %.6f, \"thd_db\": %.4f, \"thdn_db\": %.4f, \"snr_db\": %.4f, \"sinad_db\": %.4f, "
            "\"enob_bits\": %.4f, \"noise_dbfs\": %.4f, \"band_hz\": [%.10g, %.10g], \"frames_averaged\": %llu}\n",
            t->thd_percent, t->thd_db, t->thdn_db, t->snr_db, t->sinad_db, t->enob_bits, t->noise_dbfs, t->band_lo,
            t->band_hi, (unsigned long long)frames);
}

/* --calibrate LEVEL@FREQ: the calibrator's tone as measured (after --calibration and
 * --spl-offset), and the --spl-offset that makes it read LEVEL. */
static void print_calibrate(const tone_sink *s, int channel, const measure_tone *t)
{
    FILE *f = s->out;
    fputs("{\"input\": ", f);
    sp_json_string(f, s->st.source ? s->st.source : "");
    if (s->st.live)
        fprintf(f, ", \"time_s\": %.10g", report_time_s(s, channel));
    if (s->all)
        fprintf(f, ", \"channel\": %d", channel);
    fprintf(f, ", \"freq_hz\": %.4f, \"measured_db\": %.4f, \"level_db\": %.4f, \"spl_offset_db\": %.4f}\n",
            t->fundamental_hz, t->fundamental_dbfs, s->m.calibrate_level,
            s->m.spl_offset + s->m.calibrate_level - t->fundamental_dbfs);
}

/* The same numbers as the JSON, in the same digits. */
static void print_text(const tone_sink *s, int channel, const measure_tone *t, uint64_t frames)
{
    FILE *f = s->out;
    fprintf(f, "input            %s\n", s->st.source ? s->st.source : "");
    if (s->st.live)
        fprintf(f, "time             %.10g s\n", report_time_s(s, channel));
    if (s->all)
        fprintf(f, "channel          %d\n", channel);
    fprintf(f, "fundamental      %.4f Hz  %.4f dBFS\n", t->fundamental_hz, t->fundamental_dbfs);
    for (int i = 0; i < t->harmonics; i++)
        fprintf(f, "harmonic %-2d      %.4f Hz  %.4f dBFS\n", t->harmonic[i].n, t->harmonic[i].hz,
                t->harmonic[i].dbfs);
    fprintf(f,
            "THD              %.6f %%  %.4f dB\nTHD+N            %.4f dB\nSNR              %.4f dB\n"
            "SINAD            %.4f dB\nENOB             %.4f bits\nnoise            %.4f dBFS\n"
            "band             %.10g .. %.10g Hz\nframes averaged  %llu\n\n",
            t->thd_percent, t->thd_db, t->thdn_db, t->snr_db, t->sinad_db, t->enob_bits, t->noise_dbfs, t->band_lo,
            t->band_hi, (unsigned long long)frames);
}

/* Analyses and prints what the channel gathered, then starts it afresh. */
static int report(tone_sink *s, int channel, sp_errinfo *ei)
{
    measure_tone t;
    uint64_t frames = measure_accum_frames(s->acc, channel);
    int err;
    if (frames == 0)
        return SP_OK;
    measure_accum_power(s->acc, channel, s->power);
    if ((err = measure_tone_analyze(s->power, s->st.n, s->st.rate, &s->win, s->lo, s->hi, s->m.tone_hz, &t, ei)) !=
        SP_OK)
        return err;
    if (s->m.calibrate)
        print_calibrate(s, channel, &t);
    else if (s->m.tone_text)
        print_text(s, channel, &t, frames);
    else
        print_json(s, channel, &t, frames);
    measure_accum_reset(s->acc, channel);
    if (ferror(s->out) || (s->st.live && fflush(s->out) != 0))
        return sp_fail(ei, SP_EIO, "writing the tone analysis to standard output failed");
    return SP_OK;
}

static int tone_spectra(void *self, int channel, uint64_t first, size_t nframes, const float *db, sp_errinfo *ei)
{
    tone_sink *s = self;
    size_t i = 0;
    int err;
    if (!s->st.live) {
        measure_accum_add(s->acc, channel, nframes, db);
        return SP_OK;
    }
    /* a live block may cross into the next second: report at each crossing */
    while (i < nframes) {
        size_t j = i;
        int64_t sec = (int64_t)((double)((first + i) * s->st.hop) / s->st.rate);
        if (sec != s->second[channel] && (err = report(s, channel, ei)) != SP_OK)
            return err;
        s->second[channel] = sec;
        while (j < nframes && (int64_t)((double)((first + j) * s->st.hop) / s->st.rate) == sec)
            j++;
        measure_accum_add(s->acc, channel, j - i, db + i * s->st.bins);
        i = j;
    }
    return SP_OK;
}

static int tone_finish(void *self, const sink_end *end, sp_errinfo *ei)
{
    tone_sink *s = self;
    int err;
    (void)end;
    for (int c = 0; c < s->st.channels; c++)
        if ((err = report(s, c, ei)) != SP_OK)
            return err;
    if (fflush(s->out) != 0)
        return sp_fail(ei, SP_EIO, "writing the tone analysis to standard output failed: %s", strerror(errno));
    return SP_OK;
}

/* What was printed stays: it went to a stream, not into a file of ours. */
static void tone_abort(void *self)
{
    (void)self;
}

static void tone_destroy(void *self)
{
    tone_sink *s = self;
    if (!s)
        return;
    measure_accum_destroy(s->acc);
    free(s->power);
    free(s->second);
    free(s);
}

static const sink_ops tone_ops = {
    .name = "tone", .open = tone_open, .spectra = tone_spectra, .finish = tone_finish, .abort = tone_abort,
    .destroy = tone_destroy,
};

int sink_tone_create(const char *path, const sink_options *opt, sink *out, sp_errinfo *ei)
{
    tone_sink *s;
    (void)path;
    if (!opt || !out)
        return sp_fail(ei, SP_EINVAL, "sink_tone_create: NULL argument");
    if (!(s = calloc(1, sizeof *s)))
        return sp_fail(ei, SP_ENOMEM, "out of memory");
    s->out = opt->out ? opt->out : stdout;
    s->m = opt->measure;
    out->ops = &tone_ops;
    out->self = s;
    return SP_OK;
}
