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
#include "sink_table.h"

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
} peaks_sink;

static int peaks_sink_open(void *self, const sink_stream *st, sink_wants *wants, sp_errinfo *ei)
{
    peaks_sink *s = self;
    size_t n = st->n;
    double lo = s->fmin > 0 ? s->fmin / st->bin_hz : 1.0;
    double hi = s->fmax > 0 ? s->fmax / st->bin_hz : (double)(n / 2 - 1);
    if (lo > (double)(n / 2)) /* beyond the last bin (and no overflow below) */
        lo = (double)(n / 2);
    wants->peak_kmin = lo < 1.0 ? 1 : (size_t)(lo + 0.5);
    wants->peak_kmax = hi > (double)(n / 2 - 1) ? n / 2 - 1 : (size_t)(hi + 0.5);
    if (wants->peak_kmax < wants->peak_kmin)
        return sp_fail(ei, SP_EINVAL, "--fmin/--fmax: the range %.1f..%.1f Hz holds no bin", s->fmin, s->fmax);
    wants->peaks = 1;
    s->t0 = st->time_first_s;
    s->dt = st->time_step_s;
    s->all = st->channel_name && strcmp(st->channel_name, "all") == 0;
    s->channels = st->channels > 0 ? st->channels : 1;
    s->live = st->live;
    snprintf(s->source, sizeof s->source, "%s", st->source ? st->source : "");
    return SP_OK;
}

/* One line; the reason of the first write that fails is kept for the message. The numbers are
 * formatted by sp_fmt_fixed (printf's "%.6f", "%.3f", "%.2f", byte for byte): printf itself took
 * most of a dense run's time (2.5 us a line). */
static void put_line(peaks_sink *s, int channel, double t, const peak *p)
{
    char line[4 * SP_FMT_FIXED_MAX + 32];
    size_t n = 0;
    if (s->all)
        n += (size_t)snprintf(line, sizeof line, "%d\t", channel);
    n += sp_fmt_fixed(line + n, t, 6);
    line[n++] = '\t';
    n += sp_fmt_fixed(line + n, p->freq_hz, 3);
    line[n++] = '\t';
    n += sp_fmt_fixed(line + n, p->db, 2);
    line[n++] = '\n';
    int ok = !s->label || (fputs(s->source, s->out) >= 0 && putc('\t', s->out) != EOF);
    if ((!ok || fwrite(line, 1, n, s->out) != n) && s->write_errno == 0)
        s->write_errno = errno ? errno : EIO;
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
            return sp_fail(ei, SP_ENOMEM, "--peaks: out of memory for %zu frames of %d channels", nframes,
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
    if (s->all && channel < s->channels - 1)
        return hold(s, channel, nframes, pk, ei);
    for (size_t i = 0; i < nframes; i++) {
        double t = s->t0 + (double)(first + i) * s->dt;
        for (int c = 0; s->all && c < channel; c++)
            put_line(s, c, t, &s->held[(size_t)c * s->cap + i]);
        put_line(s, channel, t, &pk[i]);
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
    if (s)
        free(s->held);
    free(s);
}

static const sink_ops peaks_sink_ops = {"peaks",           peaks_sink_open,  NULL, peaks_sink_peaks,
                                        peaks_sink_finish, peaks_sink_abort, peaks_sink_destroy, NULL};

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
