/* The reassigned points onto the frame x bin grid (reassign_grid.h). Each channel keeps a
 * ring of `slots` frames (2 * reach + 2: the frames a point of the frame being added can
 * reach, and one being emitted); emitted frames are copied out in runs, in order. */
#include "reassign_grid.h"

#include <math.h>
#include <stdlib.h>

#define GRID_FLOOR_DB (-200.0f) /* the levels' floor (docs/design.md "Levels (dBFS)") */

typedef struct {
    float *ring;       /* slots * bins: frame j in slot j % slots */
    uint64_t emitted;  /* frames 0 .. emitted-1 are out */
    uint64_t next;     /* one past the last frame added */
} grid_channel;

struct reassign_grid {
    int channels;
    size_t bins, reach, slots;
    double bin_hz, t0, dt;
    grid_channel *ch;
    float *out;        /* a run of complete frames, copied out of the ring */
    size_t out_cap;    /* frames */
};

int reassign_grid_create(int channels, size_t bins, double bin_hz, double time_first_s, double time_step_s,
                         size_t reach, reassign_grid **out, sp_errinfo *ei)
{
    reassign_grid *g;
    *out = NULL;
    if (channels < 1 || bins < 2 || !(bin_hz > 0) || !(time_step_s > 0))
        return sp_fail(ei, SP_EINVAL, "reassign_grid_create: bad arguments");
    if (!(g = calloc(1, sizeof *g)) || !(g->ch = calloc((size_t)channels, sizeof *g->ch))) {
        free(g);
        return sp_fail(ei, SP_ENOMEM, "out of memory");
    }
    g->channels = channels;
    g->bins = bins;
    g->reach = reach;
    g->slots = 2 * reach + 2;
    g->bin_hz = bin_hz;
    g->t0 = time_first_s;
    g->dt = time_step_s;
    for (int c = 0; c < channels; c++) {
        if (!(g->ch[c].ring = malloc(g->slots * bins * sizeof *g->ch[c].ring))) {
            reassign_grid_destroy(g);
            return sp_fail(ei, SP_ENOMEM, "out of memory for the reassigned picture's frames");
        }
        for (size_t i = 0; i < g->slots * bins; i++)
            g->ch[c].ring[i] = GRID_FLOOR_DB;
    }
    *out = g;
    return SP_OK;
}

void reassign_grid_destroy(reassign_grid *g)
{
    if (!g)
        return;
    for (int c = 0; c < g->channels; c++)
        free(g->ch[c].ring);
    free(g->ch);
    free(g->out);
    free(g);
}

/* Emits the frames of channel c from `emitted` to before `upto`, in one run. */
static int emit_upto(reassign_grid *g, int c, uint64_t upto, reassign_emit_fn emit, void *user, sp_errinfo *ei)
{
    grid_channel *ch = &g->ch[c];
    size_t count, bins = g->bins;
    uint64_t from = ch->emitted;
    if (upto <= from)
        return SP_OK;
    count = (size_t)(upto - from);
    if (count > g->out_cap) {
        float *grown = realloc(g->out, count * bins * sizeof *grown);
        if (!grown)
            return sp_fail(ei, SP_ENOMEM, "out of memory for the reassigned picture's frames");
        g->out = grown;
        g->out_cap = count;
    }
    for (size_t i = 0; i < count; i++) {
        float *slot = ch->ring + (size_t)((from + i) % g->slots) * bins;
        for (size_t k = 0; k < bins; k++) {
            g->out[i * bins + k] = slot[k];
            slot[k] = GRID_FLOOR_DB; /* free for frame + slots */
        }
    }
    ch->emitted = upto;
    return emit(user, c, from, count, g->out, ei);
}

/* Frame f's points into the ring: each to its nearest frame (not one already out, nor past
 * the reach) and bin, the loudest kept. */
static void place(reassign_grid *g, grid_channel *ch, uint64_t f, const float *pts)
{
    const double lo = (double)ch->emitted, hi = (double)(f + g->reach);
    for (size_t k = 0; k < g->bins; k++) {
        const float *p = pts + k * 3;
        double j = floor(((double)p[1] - g->t0) / g->dt + 0.5), m = floor((double)p[0] / g->bin_hz + 0.5);
        float *cell;
        if (!(j >= lo && j <= hi && m >= 0 && m < (double)g->bins)) /* NaN too */
            continue;
        cell = ch->ring + (size_t)((uint64_t)j % g->slots) * g->bins + (size_t)m;
        if (p[2] > *cell)
            *cell = p[2];
    }
}

int reassign_grid_add(reassign_grid *g, int channel, uint64_t first, size_t nframes, const float *pts,
                      reassign_emit_fn emit, void *user, sp_errinfo *ei)
{
    grid_channel *ch;
    int err;
    if (!g || channel < 0 || channel >= g->channels)
        return sp_fail(ei, SP_EINVAL, "reassign_grid_add: bad channel");
    ch = &g->ch[channel];
    for (size_t i = 0; i < nframes; i++) {
        uint64_t f = first + i, done = f > g->reach ? f - g->reach : 0;
        if (f < ch->next) /* not after the last (never, from the framer): its points are lost */
            continue;
        if (done > ch->next + g->reach) { /* frames skipped (a live run's): out what the ring
                                           * holds, then on past the gap, which holds nothing */
            if ((err = emit_upto(g, channel, ch->next + g->reach, emit, user, ei)) != SP_OK)
                return err;
            ch->emitted = done;
        }
        /* frames before f - reach can receive no more points: out, their slots freed */
        if ((err = emit_upto(g, channel, done, emit, user, ei)) != SP_OK)
            return err;
        place(g, ch, f, pts + i * g->bins * 3);
        ch->next = f + 1;
    }
    return SP_OK;
}

int reassign_grid_flush(reassign_grid *g, reassign_emit_fn emit, void *user, sp_errinfo *ei)
{
    int err = SP_OK;
    for (int c = 0; g && c < g->channels && err == SP_OK; c++) {
        err = emit_upto(g, c, g->ch[c].next, emit, user, ei); /* points past the last frame: none */
    }
    return err;
}
