/* test_reassign_grid: the reassigned points gathered onto the frame x bin grid
 * (src/sink/reassign_grid.h), which --reassign --png draws.
 * - Each point lands in the frame nearest its time and the bin nearest its frequency; a cell
 *   keeps the loudest point; cells no point reaches read -200 dB.
 * - Every frame is emitted exactly once, in order, and only once no later frame can reach it.
 * - Points outside the grid (past the reach, beyond the bins, NaN) are dropped.
 * - A gap in the frames (a live run's skip) is passed over without emitting it.
 * - Channels are kept apart. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "reassign_grid.h"

#define BINS 8
#define REACH 2
#define T0 0.5
#define DT 0.25
#define MAXF 64

typedef struct {
    float got[2][MAXF][BINS];
    uint64_t next[2];   /* the frame each channel's next emit must start at */
    int order_ok, calls;
} collect;

static int emit(void *user, int channel, uint64_t first, size_t count, const float *rows, sp_errinfo *ei)
{
    collect *s = user;
    (void)ei;
    s->calls++;
    if (first != s->next[channel] || first + count > MAXF)
        s->order_ok = 0;
    for (size_t i = 0; i < count && first + i < MAXF; i++)
        memcpy(s->got[channel][first + i], rows + i * BINS, sizeof s->got[0][0]);
    s->next[channel] = first + count;
    return SP_OK;
}

/* A frame whose points all sit at (hz, t) with level db, but bin `loud`'s at db + 10. */
static void frame_pts(float *pts, double hz, double t, float db, int loud)
{
    for (int k = 0; k < BINS; k++) {
        pts[k * 3 + 0] = (float)hz;
        pts[k * 3 + 1] = (float)t;
        pts[k * 3 + 2] = db + (k == loud ? 10.0f : 0.0f);
    }
}

static void test_places_and_emits(void)
{
    reassign_grid *g = NULL;
    collect s;
    float pts[BINS * 3];
    sp_errinfo ei = {{0}};
    memset(&s, 0, sizeof s);
    s.order_ok = 1;
    CHECK(reassign_grid_create(2, BINS, 100.0, T0, DT, REACH, &g, &ei) == SP_OK);
    for (uint64_t f = 0; f < 10; f++) {
        /* frame f's points one frame later in time and at 300 Hz (bin 3); frame 4's past the
         * reach (8 frames later) and frame 5's at 1e6 Hz: dropped */
        double t = T0 + DT * (double)(f + 1) + (f == 4 ? 8 * DT : 0.0);
        frame_pts(pts, f == 5 ? 1e6 : 310.0, t, -40.0f - (float)f, 0);
        CHECK(reassign_grid_add(g, 0, f, 1, pts, emit, &s, &ei) == SP_OK);
        /* frame f - REACH - 1 is out by now, no later one before */
        CHECK(f <= REACH || s.next[0] == f - REACH);
    }
    frame_pts(pts, 120.0, T0, -10.0f, 0); /* channel 1: one frame, its points in frame 0, bin 1 */
    pts[3 * 3] = NAN;                     /* bin 3's point: NaN Hz, dropped */
    CHECK(reassign_grid_add(g, 1, 0, 1, pts, emit, &s, &ei) == SP_OK);
    CHECK(reassign_grid_flush(g, emit, &s, &ei) == SP_OK);
    CHECK(s.order_ok && s.next[0] == 10 && s.next[1] == 1);
    for (int f = 0; f < 10; f++)
        for (int k = 0; k < BINS; k++) {
            /* frame f holds frame f-1's points at bin 3 (the loudest of them: its bin 0's), but
             * frame 5 (frame 4's went past the reach) and frame 6 (frame 5's beyond the bins) */
            float want = k == 3 && f >= 1 && f != 5 && f != 6 ? -40.0f - (float)(f - 1) + 10.0f : -200.0f;
            CHECK_MSG(s.got[0][f][k] == want, "frame %d bin %d: %g, want %g", f, k, s.got[0][f][k], want);
        }
    CHECK(s.got[1][0][1] == 0.0f && s.got[1][0][3] == -200.0f && s.got[1][0][0] == -200.0f);
    reassign_grid_destroy(g);
}

static void test_gap_passed_over(void)
{
    reassign_grid *g = NULL;
    collect s;
    float pts[BINS * 3];
    sp_errinfo ei = {{0}};
    memset(&s, 0, sizeof s);
    s.order_ok = 1;
    CHECK(reassign_grid_create(1, BINS, 100.0, T0, DT, REACH, &g, &ei) == SP_OK);
    for (uint64_t f = 0; f < 3; f++) {
        frame_pts(pts, 200.0, T0 + DT * (double)f, -30.0f, 7);
        CHECK(reassign_grid_add(g, 0, f, 1, pts, emit, &s, &ei) == SP_OK);
    }
    /* frames 3 .. 39 skipped: the next comes at 40 */
    frame_pts(pts, 200.0, T0 + DT * 40.0, -20.0f, 7);
    CHECK(reassign_grid_add(g, 0, 40, 1, pts, emit, &s, &ei) == SP_OK);
    CHECK(reassign_grid_flush(g, emit, &s, &ei) == SP_OK);
    /* the gap is not emitted as one run of floors: the emits skip from the ring's last frame
     * (2 + REACH) to the frame the new one can reach (40 - REACH) */
    CHECK(s.got[0][0][2] == -20.0f && s.got[0][2][2] == -20.0f); /* bin 7's level +10 */
    CHECK(s.got[0][40][2] == -10.0f);
    CHECK(s.next[0] == 41 && s.calls <= 8);
    reassign_grid_destroy(g);
}

int main(void)
{
    sp_errinfo ei;
    reassign_grid *g = NULL;
    CHECK(reassign_grid_create(0, BINS, 100.0, T0, DT, REACH, &g, &ei) == SP_EINVAL && !g);
    test_places_and_emits();
    test_gap_passed_over();
    return check_done("test_reassign_grid");
}
