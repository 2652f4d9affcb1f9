/* view_store: the window's memory of spectra, in dBFS quantised to 0.01 dB (int16).
 *
 *   live  a ring of the newest `cap` frames per channel (one frame per entry); frames
 *         skipped by the analysis (it fell behind) read as VIEW_STORE_NODATA.
 *   file  every frame, in a pyramid of maxima for drawing any zoom quickly:
 *           level 0: entry j = max of frames [j*fpc, (j+1)*fpc)     (fpc = 1 at first, or
 *                    what view_store_expect chose for the frames to come)
 *           level k: entry j = max of level k-1 entries 2j, 2j+1
 *         When level 0 is full (a memory budget), the levels shift down by one: the old
 *         level 1 becomes level 0 and fpc doubles, so nothing is dropped, only merged.
 *
 * Maxima (never samples) keep every transient visible at any zoom. Memory: about twice
 * level 0, at most the budget given at create; levels grow as frames arrive.
 *
 * Thread safety: none; the view guards a store with its mutex (the analysis thread adds,
 * the window's thread reads).
 */
#ifndef SPECTRO_VIEW_STORE_H
#define SPECTRO_VIEW_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"

#define VIEW_STORE_FLOOR (-20000) /* -200 dBFS in 0.01 dB */
/* No spectrum there: frames not held (before the start, not yet analysed, overwritten) or
 * skipped by the analysis. Below every level stored (those are clamped above it), so an
 * entry's maximum is data wherever one of its frames is. */
#define VIEW_STORE_NODATA (-32768)

typedef struct view_store view_store;

/* channels >= 1 output channels of bins values each; live selects the ring; budget:
 * bytes the store may use in all. SP_ENOMEM. */
int view_store_create(int channels, size_t bins, int live, size_t budget, view_store **out, sp_errinfo *ei);
void view_store_destroy(view_store *s); /* NULL is a no-op */

/* Adds nframes spectra (bins float dB each) of `channel`, frame indices first ..
 * first+nframes-1, in increasing order across calls (gaps allowed in live mode).
 * O(bins) per frame (amortised, levels included). SP_EINVAL / SP_ENOMEM. */
int view_store_add(view_store *s, int channel, uint64_t first, size_t nframes, const float *db);

/* Adds the maximum of frames f0 .. f1-1 of `channel` (bins float dB, e.g. a GPU's column
 * maxima: sink.h maxima_span), as if those frames were added one by one: the frames must
 * lie in one level-0 entry (f0/fpc == (f1-1)/fpc; true for aligned groups of a span that
 * divides view_store_capacity(), which only doubles). The part of a group already added
 * (a group split across calls) may come again. Live: one frame only. SP_EINVAL /
 * SP_ENOMEM. */
int view_store_add_max(view_store *s, int channel, uint64_t f0, uint64_t f1, const float *db);

/* File, before the first frame: about `frames` frames per channel will come; level 0
 * starts with the frames per entry that adding them would have reached (the same store,
 * without the merges on the way). Returns the frames per level-0 entry (1 for live). */
uint64_t view_store_expect(view_store *s, uint64_t frames);

/* For the tests: level k of a file store's channel, *count entries of bins values (NULL
 * for live or out of range). Valid until the next add. */
const int16_t *view_store_level(const view_store *s, int channel, int k, size_t *count);

/* Frames seen: the highest frame index added (any channel) + 1. */
uint64_t view_store_frames(const view_store *s);
/* Oldest frame still held (live: newest+1-cap; file: 0). */
uint64_t view_store_oldest(const view_store *s);
/* Live: frames the ring holds. File: frames per level-0 entry. */
uint64_t view_store_capacity(const view_store *s);

/* Spectra covering frames [f0, f0 + count*span) of `channel`, `span` frames per entry:
 * out[i*bins + k] = max over frames f0+i*span .. f0+(i+1)*span-1 of bin k; frames not
 * held (negative, not yet seen, overwritten, skipped) read as VIEW_STORE_NODATA. f0 may be
 * negative. Cost: O(count*bins) when span is a power of two times the level-0 step,
 * which view_store_span() gives; O(span*count*bins / level step) otherwise. */
void view_store_get(const view_store *s, int channel, int64_t f0, uint64_t span, size_t count, int16_t *out);

/* For a reader that keeps what it read (the window's scrolling picture): whether the
 * entry of frames [f0, f0 + span) of `channel`, as view_store_get reads it, may read
 * differently later.
 *   VIEW_STORE_HELD  live: every frame is in and still held: reads the same until the
 *                    state changes (the ring overwrites the oldest frames)
 *   VIEW_STORE_GONE  live: every frame overwritten or before frame 0: the floor for good
 *   VIEW_STORE_OPEN  frames still to come, some overwritten, or a file store (its levels
 *                    merge as frames come): read it again */
enum { VIEW_STORE_OPEN, VIEW_STORE_HELD, VIEW_STORE_GONE };
int view_store_entry_state(const view_store *s, int channel, int64_t f0, uint64_t span);

/* The span (frames per entry) that shows `frames` frames in at most max_entries entries
 * and reads from one level: fpc * 2^k (file) or a power of two (live). */
uint64_t view_store_span(const view_store *s, uint64_t frames, size_t max_entries);

#endif
