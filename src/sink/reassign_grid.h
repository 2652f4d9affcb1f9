/* reassign_grid: the reassigned spectrogram's points (docs/transforms.md
 * "Reassignment") gathered back onto the frame x bin grid, so that a picture can draw them as
 * a spectrogram: each point (frequency, time, level) goes to the frame nearest its time and
 * the bin nearest its frequency, a cell keeping its loudest point (cells no point reaches
 * read the -200 dB floor). A point moves at most half a window from its frame, so frame f is
 * complete once frame f + reach has been added; complete frames are handed on in order.
 * Points outside the grid (a near-silent bin's reassignment can land anywhere) are dropped.
 *
 * One thread uses a grid at a time. */
#ifndef SPECTRO_REASSIGN_GRID_H
#define SPECTRO_REASSIGN_GRID_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"

typedef struct reassign_grid reassign_grid;

/* Receives `count` complete frames of channel `channel`, the first frame index `first`,
 * rows of `bins` levels (valid until the next call). */
typedef int (*reassign_emit_fn)(void *user, int channel, uint64_t first, size_t count, const float *rows,
                                sp_errinfo *ei);

/* A grid of `bins` bins (bin k at k * bin_hz) for frames at time_first_s + f * time_step_s,
 * points within `reach` frames of their own. */
int reassign_grid_create(int channels, size_t bins, double bin_hz, double time_first_s, double time_step_s,
                         size_t reach, reassign_grid **out, sp_errinfo *ei);
void reassign_grid_destroy(reassign_grid *g); /* NULL is a no-op */

/* Adds nframes frames of channel `channel` from frame `first`: pts[(f * bins + k) * 3 + 0..2]
 * = Hz, s, dB of bin k (the reassign transform's rows); emits the frames this completes. */
int reassign_grid_add(reassign_grid *g, int channel, uint64_t first, size_t nframes, const float *pts,
                      reassign_emit_fn emit, void *user, sp_errinfo *ei);

/* Emits every frame not yet emitted, up to the last added, of every channel. */
int reassign_grid_flush(reassign_grid *g, reassign_emit_fn emit, void *user, sp_errinfo *ei);

#endif
