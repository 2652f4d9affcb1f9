/* The --peaks output kind: one line per frame, "time_s<TAB>freq_hz<TAB>db", with the output
 * channel first under --channel all, and before it the source's name in a run over several
 * files (sink_options.peaks_label_source). It declares the peak search (sink_wants.peaks)
 * and prints the records the pipeline computed.
 *
 * Under --channel all the framer hands the same frames channel after channel; the lines go
 * out frame by frame, channels in order (times never go back), so the records of channels
 * 0 .. C-2 wait in `held` until the last channel's block arrives. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "numfmt.h"
#include "par.h"
#include "sink_table.h"

/* Frames a part of a block's text gets at least (see par.h). */
#define FORMAT_PART_MIN 64

/* One part's text of a block. */
typedef struct {
    char *p;
    size_t len, cap;
    int failed; /* out of memory */
} text_buf;

typedef struct {
    FILE *out;
    double fmin, fmax;
    double t0, dt;
    int all, live;
    int channels;
    peak *held;      /* channels x cap records: the block of each channel so far */
    size_t cap;      /* records per channel held has room for */
    int write_errno; /* the first failed write's reason */
    int label;          /* print the source first */
    char source[256];   /* sink_stream.source, for that */
    size_t line_max;    /* the longest line's bytes */
    text_buf text[SP_PAR_MAX]; /* a block's lines, formatted in parts on the pool (par.h) */
} peaks_sink;

static int peaks_sink_open(void *self, const sink_stream *st, sink_wants *wants, sp_errinfo *ei)
{
    peaks_sink *s = self;
    if (!peaks_bin_range(s->fmin, s->fmax, st->bin_hz, st->n, &wants->peak_kmin, &wants->peak_kmax))
        return sp_fail(ei, SP_EINVAL, SP_FIELD("fmin") "/" SP_FIELD("fmax") ": the range %.1f..%.1f Hz holds no bin",
                       s->fmin, s->fmax);
    wants->peaks = 1;
    s->t0 = st->time_first_s;
    s->dt = st->time_step_s;
    s->all = st->channel_name && strcmp(st->channel_name, "all") == 0;
    s->channels = st->channels > 0 ? st->channels : 1;
    s->live = st->live;
    snprintf(s->source, sizeof s->source, "%s", st->source ? st->source : "");
    s->line_max = sizeof s->source + 16 + 3 * SP_FMT_FIXED_MAX;
    return SP_OK;
}

/* One line into out (room for s->line_max bytes); its length. The numbers are formatted by
 * sp_fmt_fixed (printf's "%.6f", "%.3f", "%.2f", byte for byte): printf itself took most of a
 * dense run's time (2.5 us a line). */
static size_t format_line(const peaks_sink *s, char *out, int channel, double t, const peak *p)
{
    size_t n = 0;
    if (s->label) {
        n = strlen(s->source);
        memcpy(out, s->source, n);
        out[n++] = '\t';
    }
    if (s->all)
        n += (size_t)snprintf(out + n, 16, "%d\t", channel);
    n += sp_fmt_fixed(out + n, t, 6);
    out[n++] = '\t';
    n += sp_fmt_fixed(out + n, p->freq_hz, 3);
    out[n++] = '\t';
    n += sp_fmt_fixed(out + n, p->db, 2);
    out[n++] = '\n';
    return n;
}

/* A block's lines: frames first .. first+nframes-1, each with the held channels before `channel`. */
typedef struct {
    peaks_sink *s;
    int channel;
    uint64_t first;
    size_t nframes;
    const peak *pk;
} format_job;

static int room(text_buf *b, size_t want)
{
    if (b->len + want <= b->cap)
        return 1;
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->len + want)
        cap *= 2;
    char *p = realloc(b->p, cap);
    if (!p)
        return 0;
    b->p = p;
    b->cap = cap;
    return 1;
}

/* Part `part`'s lines into its own buffer (par.h: the parts run side by side). */
static void format_part(void *ctx, int part, int parts)
{
    const format_job *j = ctx;
    peaks_sink *s = j->s;
    text_buf *b = &s->text[part];
    size_t a, e;
    sp_par_share(j->nframes, part, parts, &a, &e);
    b->len = 0;
    b->failed = 0;
    for (size_t i = a; i < e; i++) {
        double t = s->t0 + (double)(j->first + i) * s->dt;
        if (!room(b, (size_t)(j->channel + 1) * s->line_max)) {
            b->failed = 1;
            return;
        }
        for (int c = 0; s->all && c < j->channel; c++)
            b->len += format_line(s, b->p + b->len, c, t, &s->held[(size_t)c * s->cap + i]);
        b->len += format_line(s, b->p + b->len, j->channel, t, &j->pk[i]);
    }
}

static int write_failed(peaks_sink *s, sp_errinfo *ei)
{
    return sp_fail(ei, SP_EIO, "writing peaks to standard output failed: %s",
                   strerror(s->write_errno ? s->write_errno : EIO));
}

/* Keeps channel's block until the last channel's (see the top). */
static int hold(peaks_sink *s, int channel, size_t nframes, const peak *pk, sp_errinfo *ei)
{
    if (nframes > s->cap) {
        peak *h = realloc(s->held, (size_t)s->channels * nframes * sizeof *h);
        if (!h)
            return sp_fail(ei, SP_ENOMEM, SP_FIELD("peaks") ": out of memory for %zu frames of %d channels", nframes,
                           s->channels);
        s->held = h;
        s->cap = nframes;
    }
    memcpy(s->held + (size_t)channel * s->cap, pk, nframes * sizeof *pk);
    return SP_OK;
}

static int peaks_sink_peaks(void *self, int channel, uint64_t first, size_t nframes, const peak *pk,
                            sp_errinfo *ei)
{
    peaks_sink *s = self;
    format_job j = {s, channel, first, nframes, pk};
    int parts;
    if (s->all && channel < s->channels - 1)
        return hold(s, channel, nframes, pk, ei);
    /* a dense run's block: its lines formatted in parts on the pool, written in order */
    parts = sp_par_parts(nframes, FORMAT_PART_MIN);
    sp_par_run(format_part, &j, parts);
    for (int p = 0; p < parts; p++) {
        if (s->text[p].failed)
            return sp_fail(ei, SP_ENOMEM, SP_FIELD("peaks") ": out of memory for the text of %zu frames", nframes);
        if (fwrite(s->text[p].p, 1, s->text[p].len, s->out) != s->text[p].len && s->write_errno == 0)
            s->write_errno = errno ? errno : EIO;
    }
    if (s->live && fflush(s->out) != 0 && s->write_errno == 0) /* a live run's lines go out as they come */
        s->write_errno = errno;
    if (ferror(s->out))
        return write_failed(s, ei);
    return SP_OK;
}

static int peaks_sink_finish(void *self, const sink_end *end, sp_errinfo *ei)
{
    peaks_sink *s = self;
    (void)end;
    if (fflush(s->out) != 0 && s->write_errno == 0)
        s->write_errno = errno;
    if (ferror(s->out))
        return write_failed(s, ei);
    return SP_OK;
}

/* Lines already written stay: they went to a stream, not into a file of ours. */
static void peaks_sink_abort(void *self)
{
    (void)self;
}

static void peaks_sink_destroy(void *self)
{
    peaks_sink *s = self;
    if (s) {
        free(s->held);
        for (int p = 0; p < SP_PAR_MAX; p++)
            free(s->text[p].p);
    }
    free(s);
}

static const sink_ops peaks_sink_ops = {
    .name = "peaks", .open = peaks_sink_open, .peaks = peaks_sink_peaks, .finish = peaks_sink_finish,
    .abort = peaks_sink_abort, .destroy = peaks_sink_destroy,
};

int sink_peaks_create(const char *path, const sink_options *opt, sink *out, sp_errinfo *ei)
{
    peaks_sink *s;
    (void)path;
    if (!opt || !out)
        return sp_fail(ei, SP_EINVAL, "sink_peaks_create: NULL argument");
    if (!(s = calloc(1, sizeof *s)))
        return sp_fail(ei, SP_ENOMEM, "out of memory");
    s->out = opt->out ? opt->out : stdout;
    s->fmin = opt->peak_fmin;
    s->fmax = opt->peak_fmax;
    s->label = opt->peaks_label_source;
    out->ops = &peaks_sink_ops;
    out->self = s;
    return SP_OK;
}
