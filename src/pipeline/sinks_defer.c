/* A transform whose rows need all of the frames first: chroma with --tuning auto
 * (docs/transforms.md "Tuning"). The frames' samples are kept as they come (one copy of
 * each block's span of the signal, in the order the framer delivered them); after the last
 * frame the tuning is estimated from all of them (xform_tuning_estimate), the transform is
 * made again with it, and the rows go to the sinks in the same order as the blocks came. */
#include <stdlib.h>
#include <string.h>

#include "pipeline_internal.h"

typedef struct {
    int channel;
    uint64_t first;
    size_t nframes, hop;
    float *sig;                 /* (nframes - 1) * hop + n samples */
} defer_block;

struct pipe_defer {
    xform_spec spec;
    size_t n;
    double rate;
    float *win;                 /* n: the window, copied */
    defer_block *b;
    size_t count, cap;
    int done;                   /* the rows went out */
};

void pipe_defer_free(pipe_defer *d)
{
    if (!d)
        return;
    for (size_t i = 0; i < d->count; i++)
        free(d->b[i].sig);
    free(d->b);
    free(d->win);
    free(d);
}

int pipe_defer_make(pipe_sinks *l, const xform_spec *spec, size_t n, double rate, const float *win,
                    sink_stream *ss, sp_errinfo *ei)
{
    pipe_defer *d = calloc(1, sizeof *d);
    const char *json = xform_json(l->xf);
    if (!d || !(d->win = malloc(n * sizeof *d->win)) || !(l->xjson = malloc(strlen(json) + 128))) {
        pipe_defer_free(d);
        return sp_fail(ei, SP_ENOMEM, "out of memory");
    }
    memcpy(d->win, win, n * sizeof *d->win);
    d->spec = *spec;
    d->n = n;
    d->rate = rate;
    /* the sinks read the sidecar's members at the end: rewritten there with the tuning
     * estimated (the columns' frequencies do not depend on it) */
    strcpy(l->xjson, json);
    ss->xform_json = l->xjson;
    l->defer = d;
    return SP_OK;
}

int pipe_defer_keep(pipe_sinks *l, int channel, uint64_t first, size_t nframes, const float *sig, size_t hop)
{
    pipe_defer *d = l->defer;
    defer_block *b;
    size_t len = (nframes - 1) * hop + d->n;
    if (d->count == d->cap) {
        size_t cap = d->cap ? 2 * d->cap : 64;
        defer_block *p = realloc(d->b, cap * sizeof *p);
        if (!p)
            return sp_fail(l->ei, SP_ENOMEM, "out of memory for the frames of the tuning estimate");
        d->b = p;
        d->cap = cap;
    }
    b = &d->b[d->count];
    if (!(b->sig = malloc(len * sizeof *b->sig)))
        return sp_fail(l->ei, SP_ENOMEM, "out of memory for the frames of the tuning estimate");
    memcpy(b->sig, sig, len * sizeof *b->sig);
    b->channel = channel;
    b->first = first;
    b->nframes = nframes;
    b->hop = hop;
    d->count++;
    return SP_OK;
}

/* The estimate, the transform made again with it, its sidecar members and columns. */
static int defer_retune(pipe_sinks *l, pipe_defer *d, sp_errinfo *ei)
{
    xform_span *spans = malloc((d->count ? d->count : 1) * sizeof *spans);
    xform *nx;
    int err;
    if (!spans)
        return sp_fail(ei, SP_ENOMEM, "out of memory");
    for (size_t i = 0; i < d->count; i++) {
        spans[i].sig = d->b[i].sig;
        spans[i].hop = d->b[i].hop;
        spans[i].nframes = d->b[i].nframes;
    }
    err = xform_tuning_estimate(spans, d->count, d->n, d->rate, d->win, &d->spec.tuning, ei);
    free(spans);
    if (err != SP_OK || (err = xform_create(&d->spec, d->n, d->rate, d->win, &nx, ei)) != SP_OK)
        return err;
    if (strlen(xform_json(nx)) > strlen(xform_json(l->xf)) + 127) { /* (a number's digits at most) */
        xform_destroy(nx);
        return sp_fail(ei, SP_EINVAL, "chroma: the sidecar's tuning does not fit");
    }
    strcpy(l->xjson, xform_json(nx));
    xform_destroy(l->xf);
    l->xf = nx;
    return SP_OK;
}

int pipe_defer_flush(pipe_sinks *l, sp_errinfo *ei)
{
    pipe_defer *d = l->defer;
    size_t width;
    int err;
    if (!d || d->done)
        return SP_OK;
    d->done = 1;
    l->ei = ei;
    if ((err = defer_retune(l, d, ei)) != SP_OK)
        return err;
    width = xform_width(l->xf);
    for (size_t i = 0; i < d->count; i++) {
        defer_block *b = &d->b[i];
        if (b->nframes > l->xcap) {
            float *p = realloc(l->xrows, b->nframes * width * sizeof *p);
            if (!p)
                return sp_fail(ei, SP_ENOMEM, "out of memory for %zu rows", b->nframes);
            l->xrows = p;
            l->xcap = b->nframes;
        }
        if (xform_rows(l->xf, b->sig, b->hop, b->nframes, l->t0 + (double)b->first * l->dt, l->dt, l->xrows) !=
            SP_OK)
            return sp_fail(ei, SP_ENOMEM, "out of memory");
        if ((err = pipe_sinks_frames(l, b->channel, b->first, b->nframes, l->xrows)) != SP_OK)
            return err;
        free(b->sig); /* what went out is not needed again */
        b->sig = NULL;
    }
    return SP_OK;
}
