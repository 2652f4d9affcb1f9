/* spectro_job_set_stream: a job's whole stream to the caller's functions, through a sink of
 * the run (sink.h, the job's extra sink, as api_frames.c's): the stream's description at
 * open, then the rows or their column maxima, the samples, the complex frames, the end; and
 * the transfer output's check of a stream's channels, for a caller's own transfer function. */
#include <stdlib.h>
#include <string.h>

#include "api_internal.h"
#include "job.h"
#include "sink_table.h"

#ifndef __cplusplus
_Static_assert(sizeof(spectro_complex) == sizeof(cpx), "a complex frame is the framer's");
#endif

/* The caller's error as the engine's: its code and line. */
static int to_engine(int code, const spectro_error *e, sp_errinfo *ei)
{
    if (code > 0 || code < SPECTRO_EINTERRUPTED) /* a caller's own number: the run stops */
        code = SPECTRO_EINTERRUPTED;
    if (e->message[0])
        return sp_fail(ei, code, "%s", e->message);
    return code;
}

static int stream_open(void *self, const sink_stream *st, sink_wants *wants, sp_errinfo *ei)
{
    api_stream *s = self;
    spectro_stream_info *in = &s->info;
    spectro_stream_wants w = {0};
    spectro_error e = {0, {0}};
    int err;
    /* the frames' own description, as the frames callback gives it */
    if ((err = api_frames_describe(&s->frames, st, &s->frames.info, ei)) != SP_OK)
        return err;
    in->frames = &s->frames.info;
    in->size = sizeof *in;
    in->format = st->format ? st->format : "";
    in->decoder = st->decoder ? st->decoder : "";
    in->window = st->window;
    in->window_coef = st->window_coef;
    in->backend = st->backend;
    in->source_channels = st->source_channels;
    in->channel = st->channel;
    in->channel_name = st->channel_name;
    in->start_s = st->start_s;
    in->bin_hz = st->bin_hz;
    in->source_frames = st->source_frames;
    in->frames_expected = st->frames_expected;
    in->frames_hint = st->frames_hint;
    in->aligned_s = st->aligned_s;
    in->transform_db = st->xform_db;
    if (s->ops.open && (err = s->ops.open(s->user, in, &w, &e)) != 0)
        return to_engine(err, &e, ei);
    wants->spectra = w.spectra && !w.complex;
    wants->complex = w.complex != 0;
    wants->samples = w.samples != 0;
    wants->maxima_span = wants->spectra && !st->xform ? w.maxima_span : 0;
    return SP_OK;
}

static int stream_spectra(void *self, int channel, uint64_t first, size_t nframes, const float *rows,
                          sp_errinfo *ei)
{
    api_stream *s = self;
    spectro_error e = {0, {0}};
    int err = s->ops.spectra ? s->ops.spectra(s->user, channel, first, nframes, rows, &e) : 0;
    return err ? to_engine(err, &e, ei) : SP_OK;
}

static int stream_maxima(void *self, int channel, uint64_t first, size_t nframes, uint64_t span, const float *rows,
                         sp_errinfo *ei)
{
    api_stream *s = self;
    spectro_error e = {0, {0}};
    int err = s->ops.maxima ? s->ops.maxima(s->user, channel, first, nframes, span, rows, &e) : 0;
    return err ? to_engine(err, &e, ei) : SP_OK;
}

static int stream_samples(void *self, uint64_t first, size_t nframes, const float *x, sp_errinfo *ei)
{
    api_stream *s = self;
    spectro_error e = {0, {0}};
    int err = s->ops.samples ? s->ops.samples(s->user, first, nframes, x, &e) : 0;
    return err ? to_engine(err, &e, ei) : SP_OK;
}

static int stream_complex(void *self, int channel, uint64_t first, size_t nframes, const cpx *z, sp_errinfo *ei)
{
    api_stream *s = self;
    spectro_error e = {0, {0}};
    int err = s->ops.complex ? s->ops.complex(s->user, channel, first, nframes, (const spectro_complex *)z, &e)
                             : 0;
    return err ? to_engine(err, &e, ei) : SP_OK;
}

static int stream_finish(void *self, const sink_end *end, sp_errinfo *ei)
{
    api_stream *s = self;
    spectro_error e = {0, {0}};
    spectro_stream_end out = {
        .frames = end->frames, .samples = end->samples, .dropped_samples = end->dropped_samples,
        .interrupted = end->interrupted,
    };
    int err = s->ops.finish ? s->ops.finish(s->user, &out, &e) : 0;
    return err ? to_engine(err, &e, ei) : SP_OK;
}

static void stream_abort(void *self)
{
    (void)self;
}

static const sink_ops stream_ops = {
    .name = "stream", .open = stream_open, .spectra = stream_spectra, .maxima = stream_maxima,
    .samples = stream_samples, .complex = stream_complex, .finish = stream_finish, .abort = stream_abort,
};

void api_stream_set(api_stream *s, job *j, const spectro_stream_ops *ops, void *user)
{
    memset(&s->ops, 0, sizeof s->ops);
    if (ops) /* a caller's older, smaller table: what it has */
        memcpy(&s->ops, ops, ops->size && ops->size < sizeof s->ops ? ops->size : sizeof s->ops);
    s->user = user;
    s->s.ops = ops ? &stream_ops : NULL;
    s->s.self = s;
    job_set_frames(j, ops ? &s->s : NULL);
}

void api_stream_free(api_stream *s)
{
    api_frames_free(&s->frames);
}

size_t spectro_maxima_rows(uint64_t span, uint64_t first, size_t count)
{
    return span ? fft_colmax_rows(span, first, count) : 0;
}

/* The transfer output's own check (sink_transfer_check), on what it reads of the stream. */
int spectro_stream_check_transfer(const spectro_stream_info *in, int ref, int meas, int pair, spectro_error *err)
{
    sink_measure m = sink_measure_default();
    sink_stream st;
    sp_errinfo ei = {{0}};
    int rc;
    if (!in || !in->frames)
        return api_fail(err, SPECTRO_EINVAL, "%s is NULL", !in ? "the stream" : "the stream's frames");
    memset(&st, 0, sizeof st);
    st.source = in->frames->source ? in->frames->source : "";
    st.source_channels = in->source_channels;
    st.channels = in->frames->channels;
    m.transfer = 1;
    m.transfer_ref = ref;
    m.transfer_meas = meas;
    m.reference = pair ? st.source : NULL; /* a pair's: only whether there is one is read */
    if ((rc = sink_transfer_check(&m, &st, &ei)) != SP_OK)
        return api_from_engine(err, rc, &ei);
    return SPECTRO_OK;
}
