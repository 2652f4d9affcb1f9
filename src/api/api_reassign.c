/* spectro_reassign_grid: the reassigned spectrogram's points onto the frame x bin grid
 * (sink/reassign_grid.h, which the program's --reassign --png draws from), for a picture or
 * an image array. The caller's emit function gets the complete frames; its non-zero return
 * stops the call and is returned. */
#include <math.h>
#include <stdlib.h>

#include "api_internal.h"
#include "reassign_grid.h"

struct spectro_reassign_grid {
    reassign_grid *g;
    int channels;
};

typedef struct {
    spectro_reassign_emit_fn emit;
    void *user;
    int rc; /* the emit function's non-zero return */
} trampoline;

static int emit_rows(void *user, int channel, uint64_t first, size_t count, const float *rows, sp_errinfo *ei)
{
    trampoline *t = user;
    (void)ei;
    t->rc = t->emit(t->user, channel, first, count, rows);
    return t->rc == 0 ? SP_OK : SP_EINVAL; /* the engine stops; result() returns t->rc */
}

int spectro_reassign_grid_create(int channels, size_t bins, double bin_hz, double time_first_s,
                                 double time_step_s, size_t reach, spectro_reassign_grid **out, spectro_error *err)
{
    spectro_reassign_grid *g;
    sp_errinfo ei = {{0}};
    int rc;
    if (!out)
        return api_fail(err, SPECTRO_EINVAL, "out is NULL");
    *out = NULL;
    if (channels < 1 || bins < 2)
        return api_fail(err, SPECTRO_EINVAL, "%s %d: must be at least %d", channels < 1 ? "channels" : "bins",
                        channels < 1 ? channels : (int)bins, channels < 1 ? 1 : 2);
    if (!(bin_hz > 0.0) || !(time_step_s > 0.0) || !isfinite(bin_hz) || !isfinite(time_step_s))
        return api_fail(err, SPECTRO_EINVAL, "%s %g: must be a positive number",
                        !(bin_hz > 0.0) || !isfinite(bin_hz) ? "bin_hz" : "time_step_s",
                        !(bin_hz > 0.0) || !isfinite(bin_hz) ? bin_hz : time_step_s);
    if (!isfinite(time_first_s))
        return api_fail(err, SPECTRO_EINVAL, "time_first_s: must be a number of seconds");
    if (!(g = calloc(1, sizeof *g)))
        return api_fail(err, SPECTRO_ENOMEM, "out of memory");
    if ((rc = reassign_grid_create(channels, bins, bin_hz, time_first_s, time_step_s, reach, &g->g, &ei)) != SP_OK) {
        free(g);
        return api_from_engine(err, rc, &ei);
    }
    g->channels = channels;
    *out = g;
    return SPECTRO_OK;
}

void spectro_reassign_grid_destroy(spectro_reassign_grid *g)
{
    if (!g)
        return;
    reassign_grid_destroy(g->g);
    free(g);
}

/* The engine's result, or the emit function's return when that stopped it. */
static int result(const trampoline *t, int rc, const sp_errinfo *ei, spectro_error *err)
{
    if (t->rc != 0)
        return api_fail(err, t->rc, "emit returned %d", t->rc);
    return rc == SP_OK ? SPECTRO_OK : api_from_engine(err, rc, ei);
}

int spectro_reassign_grid_add(spectro_reassign_grid *g, int channel, uint64_t first, size_t frames,
                              const float *points, spectro_reassign_emit_fn emit, void *user, spectro_error *err)
{
    trampoline t = {emit, user, 0};
    sp_errinfo ei = {{0}};
    if (!g || !emit || (!points && frames))
        return api_fail(err, SPECTRO_EINVAL, "%s is NULL", !g ? "the grid" : !emit ? "emit" : "points");
    if (channel < 0 || channel >= g->channels)
        return api_fail(err, SPECTRO_EINVAL, "channel %d: out of range (0 to %d)", channel, g->channels - 1);
    return result(&t, reassign_grid_add(g->g, channel, first, frames, points, emit_rows, &t, &ei), &ei, err);
}

int spectro_reassign_grid_flush(spectro_reassign_grid *g, spectro_reassign_emit_fn emit, void *user,
                                spectro_error *err)
{
    trampoline t = {emit, user, 0};
    sp_errinfo ei = {{0}};
    if (!g || !emit)
        return api_fail(err, SPECTRO_EINVAL, "%s is NULL", !g ? "the grid" : "emit");
    return result(&t, reassign_grid_flush(g->g, emit_rows, &t, &ei), &ei, err);
}
