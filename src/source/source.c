#include "source.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct source {
    const source_ops *ops;
    void *state;
    source_info info;
    uint64_t nonfinite;
    uint64_t out_of_range; /* counted by the kind, through source_out_of_range_counter */
    int sought;   /* the last source_seek used the stream's own seek */
};

int source_create(const source_ops *ops, void *state, const source_info *info, source **out,
                  sp_errinfo *ei)
{
    source *s;
    if (!ops || !info || !out) {
        if (ops && state)
            ops->close(state);
        return sp_fail(ei, SP_EINVAL, "source_create: NULL argument");
    }
    s = calloc(1, sizeof *s);
    if (!s) {
        ops->close(state);
        return sp_fail(ei, SP_ENOMEM, "out of memory opening %s", info->name);
    }
    s->ops = ops;
    s->state = state;
    s->info = *info;
    *out = s;
    return SP_OK;
}

int source_is_push(const source *s)
{
    return s->ops->read == NULL;
}

int source_start(source *s, struct ring_s *r, sp_errinfo *ei)
{
    if (!s || !r || !s->ops->start)
        return sp_fail(ei, SP_EINVAL, "source_start: not a push source");
    return s->ops->start(s->state, r, ei);
}

int source_stop(source *s)
{
    return s && s->ops->stop ? s->ops->stop(s->state) : SP_OK;
}

uint64_t source_dropped(const source *s)
{
    return s->ops->dropped ? s->ops->dropped(s->state) : 0;
}

uint64_t source_take_gaps(source *s, uint64_t upto, uint64_t *next_at)
{
    *next_at = UINT64_MAX;
    return s->ops->take_gaps ? s->ops->take_gaps(s->state, upto, next_at) : 0;
}

int source_status(const source *s, sp_errinfo *ei)
{
    return s->ops->status ? s->ops->status(s->state, ei) : SP_OK;
}

/* 1 when x[0..n) holds a NaN or an infinity (all exponent bits set: adding one to the
 * exponent then carries into the sign bit). No branch, so the compiler vectorizes it: the
 * common case, none, costs about one read of the block (the branching isfinite loop took
 * a fifth of a file reader's time). */
static int any_nonfinite(const float *x, size_t n)
{
    uint32_t carry = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t u;
        memcpy(&u, &x[i], sizeof u);
        carry |= (u & 0x7f800000u) + 0x00800000u;
    }
    return (carry & 0x80000000u) != 0;
}

int source_read(source *s, float *dst, size_t max_frames, size_t *got, sp_errinfo *ei)
{
    int err;
    size_t n;
    if (!s || !dst || !got || !s->ops->read)
        return SP_EINVAL;
    *got = 0;
    if ((err = s->ops->read(s->state, dst, max_frames, got, ei)) != SP_OK)
        return err;
    n = *got * (size_t)s->info.channels;
    if (!any_nonfinite(dst, n))
        return SP_OK;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(dst[i])) {
            dst[i] = 0.0f;
            s->nonfinite++;
        }
    }
    return SP_OK;
}

int source_seek(source *s, int64_t frame, atomic_int *stop, int64_t *reached, sp_errinfo *ei)
{
    enum { SKIP_FLOATS = 1 << 14 };
    float *buf;
    int64_t at = 0;
    int err = SP_EUNSUPPORTED;
    if (!s || !reached || frame < 0 || !s->ops->read)
        return sp_fail(ei, SP_EINVAL, "source_seek: not a pull source");
    *reached = 0;
    if (frame == 0)
        return SP_OK;
    s->sought = 0;
    if (s->ops->seek && (err = s->ops->seek(s->state, frame, ei)) == SP_OK) {
        *reached = frame;
        s->sought = 1;
    }
    if (err != SP_EUNSUPPORTED)
        return err;
    /* A stream that cannot seek: read up to the frame. What is read is discarded, so its
     * NaN/Inf samples are not counted. Memory: one block. */
    size_t block = SKIP_FLOATS / (size_t)s->info.channels + 1;
    if (!(buf = malloc(block * (size_t)s->info.channels * sizeof *buf)))
        return sp_fail(ei, SP_ENOMEM, "out of memory skipping to the start of %s", s->info.name);
    while (at < frame && !(stop && atomic_load(stop))) {
        size_t want = (size_t)(frame - at < (int64_t)block ? frame - at : (int64_t)block), got = 0;
        if ((err = s->ops->read(s->state, buf, want, &got, ei)) != SP_OK || got == 0)
            break;
        at += (int64_t)got;
    }
    free(buf);
    *reached = at;
    return err == SP_EUNSUPPORTED ? SP_OK : err;
}

int source_sought(const source *s)
{
    return s ? s->sought : 0;
}

const source_info *source_get_info(const source *s)
{
    return &s->info;
}

uint64_t source_nonfinite(const source *s)
{
    return s->nonfinite;
}

uint64_t source_out_of_range(const source *s)
{
    return s->out_of_range;
}

uint64_t *source_out_of_range_counter(source *s)
{
    return &s->out_of_range;
}

int source_truncated(const source *s)
{
    return s->ops->truncated ? s->ops->truncated(s->state) : 0;
}

void source_close(source *s)
{
    if (!s)
        return;
    s->ops->close(s->state);
    free(s);
}
