/* par: one small fork-join pool for the host work that follows a batch of spectra (refining
 * and formatting a dense run's peaks): a block of frames split into equal parts, the parts run
 * on the pool's threads and the caller, the caller waits for all of them. Made on first use,
 * min(online CPUs, SP_PAR_MAX) threads in all; lives for the process. */
#ifndef SPECTRO_PAR_H
#define SPECTRO_PAR_H

#include <stddef.h>

#define SP_PAR_MAX 8

/* part p of parts: fn(ctx, p, parts) handles its own share of the work. */
typedef void (*sp_par_fn)(void *ctx, int part, int parts);

/* How many parts sp_par_run would use for `items` items of which each part should have at
 * least `min_items` (1 when the pool cannot be made, or there is one CPU). */
int sp_par_parts(size_t items, size_t min_items);

/* Runs fn for parts 0 .. parts-1 (parts from sp_par_parts) and returns when every part has
 * returned. When the pool is busy (another thread's run), or parts is 1, the parts run one
 * after another on the caller: the result is the same either way. */
void sp_par_run(sp_par_fn fn, void *ctx, int parts);

/* The items [*begin, *end) of part `part` of `parts` when `items` are split evenly. */
void sp_par_share(size_t items, int part, int parts, size_t *begin, size_t *end);

#endif
