/* The --peaks output kind: one line per frame, "time_s<TAB>freq_hz<TAB>db", with the output
 * channel first under --channel all, and before it the source's name in a run over several
 * files (sink_options.peaks_label_source). It declares the peak search (sink_wants.peaks) and
 * prints the records the pipeline computed. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sink_table.h"

typedef struct {
    FILE *out;
    double fmin, fmax;
    double t0, dt;
    int all, live;
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
    s->live = st->live;
    snprintf(s->source, sizeof s->source, "%s", st->source ? st->source : "");
    return SP_OK;
}

static int peaks_sink_peaks(void *self, int channel, uint64_t first, size_t nframes, const peak *pk,
                            sp_errinfo *ei)
{
    peaks_sink *s = self;
    for (size_t i = 0; i < nframes; i++) {
        double t = s->t0 + (double)(first + i) * s->dt;
        if (s->label)
            fprintf(s->out, "%s\t", s->source);
        if (s->all)
            fprintf(s->out, "%d\t%.6f\t%.3f\t%.2f\n", channel, t, pk[i].freq_hz, pk[i].db);
        else
            fprintf(s->out, "%.6f\t%.3f\t%.2f\n", t, pk[i].freq_hz, pk[i].db);
    }
    if (ferror(s->out))
        return sp_fail(ei, SP_EIO, "writing peaks to standard output failed");
    if (s->live)
        fflush(s->out); /* a live run's lines go out as they come */
    return SP_OK;
}

static int peaks_sink_finish(void *self, const sink_end *end, sp_errinfo *ei)
{
    peaks_sink *s = self;
    (void)end;
    if (fflush(s->out) != 0)
        return sp_fail(ei, SP_EIO, "writing peaks to standard output failed: %s", strerror(errno));
    return SP_OK;
}

/* Lines already written stay: they went to a stream, not into a file of ours. */
static void peaks_sink_abort(void *self)
{
    (void)self;
}

static void peaks_sink_destroy(void *self)
{
    free(self);
}

static const sink_ops peaks_sink_ops = {"peaks",           peaks_sink_open,  NULL, peaks_sink_peaks,
                                        peaks_sink_finish, peaks_sink_abort, peaks_sink_destroy};

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
