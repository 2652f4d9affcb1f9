/* The --pitch output kind: the fundamental frequency of each frame by YIN (de Cheveigné and
 * Kawahara's cumulative mean normalised difference), docs/measurements.md "Pitch".
 *
 * It takes the samples (sink.h), the mean of the channels, and cuts its own frames of n
 * samples every hop, as the spectra's frames are cut (docs/design.md "Frames"): frame f is
 * samples [f*hop, f*hop + n), its time the centre. Per frame one line on standard output:
 * time_s<TAB>f0_hz<TAB>confidence, f0 0 for an unvoiced frame. The lags searched are
 * rate/fmax .. rate/fmin (--fmin/--fmax, default 50 to 2000 Hz): the engine is pitch.h's. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pitch.h"
#include "sink_table.h"

typedef struct {
    FILE *out;
    sink_stream st;
    double fmin, fmax;
    size_t n, hop;
    pitch_yin *yin;
    float *mono;            /* the frame being filled (n samples) */
    size_t have;            /* samples in mono */
    uint64_t frame;
} pitch_sink;

static int pitch_open(void *self, const sink_stream *st, sink_wants *wants, sp_errinfo *ei)
{
    pitch_sink *s = self;
    int err;
    s->st = *st;
    s->st.window_coef = NULL;
    s->n = st->n;
    s->hop = st->hop;
    if ((err = pitch_yin_create(st->rate, st->n, s->fmin, s->fmax, &s->yin, ei)) != SP_OK)
        return err;
    if (!(s->mono = malloc(s->n * sizeof *s->mono)))
        return sp_fail(ei, SP_ENOMEM, "out of memory");
    wants->samples = 1;
    return SP_OK;
}

static int emit(pitch_sink *s, sp_errinfo *ei)
{
    double f0, conf, time = s->st.start_s + ((double)(s->frame * s->hop) + (double)s->n / 2.0) / s->st.rate;
    pitch_yin_estimate(s->yin, s->mono, &f0, &conf);
    fprintf(s->out, "%.6f\t%.3f\t%.3f\n", time, f0, conf);
    s->frame++;
    if (ferror(s->out) || (s->st.live && fflush(s->out) != 0))
        return sp_fail(ei, SP_EIO, "writing the pitch to standard output failed");
    return SP_OK;
}

static int pitch_samples(void *self, uint64_t first, size_t nframes, const float *x, sp_errinfo *ei)
{
    pitch_sink *s = self;
    size_t ch = (size_t)s->st.source_channels;
    int err;
    (void)first;
    for (size_t i = 0; i < nframes; i++) {
        float v = 0.0f;
        for (size_t c = 0; c < ch; c++)
            v += x[i * ch + c];
        s->mono[s->have++] = isfinite(v) ? v / (float)ch : 0.0f;
        if (s->have < s->n)
            continue;
        if ((err = emit(s, ei)) != SP_OK)
            return err;
        if (s->hop < s->n) {
            memmove(s->mono, s->mono + s->hop, (s->n - s->hop) * sizeof *s->mono);
            s->have = s->n - s->hop;
        } else {
            s->have = 0; /* hops above n skip samples: not handled, one frame per n */
        }
    }
    return SP_OK;
}

static int pitch_finish(void *self, const sink_end *end, sp_errinfo *ei)
{
    pitch_sink *s = self;
    (void)end;
    if (s->frame == 0 && s->have > 0) { /* shorter than a frame: one zero-padded frame */
        memset(s->mono + s->have, 0, (s->n - s->have) * sizeof *s->mono);
        int err = emit(s, ei);
        if (err != SP_OK)
            return err;
    }
    return fflush(s->out) == 0 ? SP_OK : sp_fail(ei, SP_EIO, "writing the pitch to standard output failed");
}

static void pitch_abort(void *self)
{
    (void)self;
}

static void pitch_destroy(void *self)
{
    pitch_sink *s = self;
    if (!s)
        return;
    pitch_yin_destroy(s->yin);
    free(s->mono);
    free(s);
}

static const sink_ops pitch_ops = {
    .name = "pitch", .open = pitch_open, .samples = pitch_samples, .finish = pitch_finish, .abort = pitch_abort,
    .destroy = pitch_destroy,
};

int sink_pitch_create(const char *path, const sink_options *opt, sink *out, sp_errinfo *ei)
{
    pitch_sink *s;
    (void)path;
    if (!opt || !out)
        return sp_fail(ei, SP_EINVAL, "sink_pitch_create: NULL argument");
    if (!(s = calloc(1, sizeof *s)))
        return sp_fail(ei, SP_ENOMEM, "out of memory");
    s->out = opt->out ? opt->out : stdout;
    s->fmin = opt->measure.band_lo;
    s->fmax = opt->measure.band_hi;
    out->ops = &pitch_ops;
    out->self = s;
    return SP_OK;
}
