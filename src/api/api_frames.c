/* spectro_job_set_frames: a job's frames to the caller's callback, through a sink of the
 * run (sink.h, the job's extra sink): the stream's description at open becomes the
 * callback's spectro_frames_info, each block of rows one call. */
#include <stdlib.h>

#include "api_internal.h"
#include "job.h"

int api_frames_describe(api_frames *f, const sink_stream *st, spectro_frames_info *in, sp_errinfo *ei)
{
    free(f->freqs);
    f->freqs = NULL;
    if (!st->col_hz) { /* the linear spectrum: bin k at k * bin_hz */
        if (!(f->freqs = malloc(st->bins * sizeof *f->freqs)))
            return sp_fail(ei, SP_ENOMEM, "out of memory");
        for (size_t k = 0; k < st->bins; k++)
            f->freqs[k] = (double)k * st->bin_hz;
    }
    in->source = st->source;
    in->sample_rate = st->rate;
    in->channels = st->channels;
    in->fft_size = st->n;
    in->hop = st->hop;
    in->bins = st->bins;
    in->depth = st->depth ? st->depth : 1;
    in->transform = st->xform;
    in->freqs_hz = st->col_hz ? st->col_hz : f->freqs;
    in->unit = st->xform && !st->xform_db && in->depth == 1 ? NULL : st->level_unit ? st->level_unit : "dBFS";
    in->time_first_s = st->time_first_s;
    in->time_step_s = st->time_step_s;
    in->live = st->live;
    return SP_OK;
}

static int frames_open(void *self, const sink_stream *st, sink_wants *wants, sp_errinfo *ei)
{
    api_frames *f = self;
    int err = api_frames_describe(f, st, &f->info, ei);
    wants->spectra = 1;
    return err;
}

static int frames_spectra(void *self, int channel, uint64_t first, size_t nframes, const float *rows,
                          sp_errinfo *ei)
{
    api_frames *f = self;
    (void)ei;
    if (f->fn(f->user, &f->info, channel, first, nframes, rows) != 0)
        job_stop(f->j, 1);
    return SP_OK;
}

static int frames_finish(void *self, const sink_end *end, sp_errinfo *ei)
{
    (void)self;
    (void)end;
    (void)ei;
    return SP_OK;
}

static void frames_abort(void *self)
{
    (void)self;
}

static const sink_ops frames_ops = {
    .name = "frames", .open = frames_open, .spectra = frames_spectra, .finish = frames_finish,
    .abort = frames_abort,
};

void api_frames_set(api_frames *f, job *j, spectro_frames_fn fn, void *user)
{
    f->fn = fn;
    f->user = user;
    f->j = j;
    f->s.ops = fn ? &frames_ops : NULL;
    f->s.self = f;
    job_set_frames(j, fn ? &f->s : NULL);
}

void api_frames_free(api_frames *f)
{
    free(f->freqs);
    f->freqs = NULL;
}
