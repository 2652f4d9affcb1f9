/* view_store: the window's memory of spectra. Every read is compared with the maximum
 * computed here by brute force over the frames themselves (quantised to 0.01 dB, as the
 * store keeps them). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "view_store.h"

#define BINS 9
#define NFRAMES 1000

static float frames_db[NFRAMES][BINS];

static int16_t q(float db)
{
    float v = db * 100.0f;
    if (!(v > -32767.0f))
        return VIEW_STORE_FLOOR;
    return v > 32767.0f ? 32767 : (int16_t)lrintf(v);
}

/* Brute-force maximum of frames [a, b) (clipped to [lo, hi)), no data when empty. */
static void brute(int64_t a, int64_t b, int64_t lo, int64_t hi, int16_t *out)
{
    for (int k = 0; k < BINS; k++)
        out[k] = VIEW_STORE_NODATA;
    for (int64_t f = a < lo ? lo : a; f < b && f < hi; f++)
        for (int k = 0; k < BINS; k++)
            if (q(frames_db[f][k]) > out[k])
                out[k] = q(frames_db[f][k]);
}

static int same(const int16_t *x, const int16_t *y, size_t n)
{
    return memcmp(x, y, n * sizeof *x) == 0;
}

static void test_file_pyramid(void)
{
    view_store *s = NULL;
    sp_errinfo ei = {{0}};
    int16_t got[64 * BINS], want[BINS];
    /* 2 channels, a budget for 16 level-0 entries: 1000 frames force six shifts */
    size_t budget = 2 * 16 * BINS * sizeof(int16_t) * 2;
    CHECK(view_store_create(2, BINS, 0, budget, &s, &ei) == SP_OK);
    if (!s)
        return;
    /* frames arrive in uneven blocks, both channels (channel 1 = channel 0 + 1 dB) */
    for (int f = 0; f < NFRAMES;) {
        int nb = 1 + (f * 7) % 23;
        float blk[23][BINS];
        if (f + nb > NFRAMES)
            nb = NFRAMES - f;
        for (int i = 0; i < nb; i++)
            for (int k = 0; k < BINS; k++)
                blk[i][k] = frames_db[f + i][k] + 1.0f;
        CHECK(view_store_add(s, 0, (uint64_t)f, (size_t)nb, &frames_db[f][0]) == SP_OK);
        CHECK(view_store_add(s, 1, (uint64_t)f, (size_t)nb, &blk[0][0]) == SP_OK);
        f += nb;
    }
    CHECK(view_store_frames(s) == NFRAMES);
    CHECK(view_store_oldest(s) == 0);
    /* channel 1 (one block behind channel 0 through every shift) lost nothing */
    {
        uint64_t fpc = view_store_capacity(s);
        for (size_t i = 0; i * fpc < NFRAMES; i++) {
            int16_t w1[BINS];
            view_store_get(s, 1, (int64_t)(i * fpc), fpc, 1, got);
            brute((int64_t)(i * fpc), (int64_t)((i + 1) * fpc), 0, NFRAMES, w1);
            for (int k = 0; k < BINS; k++)
                CHECK_MSG(abs(got[k] - (w1[k] >= 32667 ? 32767 : w1[k] == VIEW_STORE_FLOOR ? VIEW_STORE_FLOOR : w1[k] + 100)) <= 1,
                          "channel 1 entry %zu bin %d: %d vs %d", i, k, got[k], w1[k]);
        }
    }
    {
        uint64_t fpc = view_store_capacity(s);
        CHECK_MSG(fpc >= (NFRAMES + 15) / 16 && fpc <= 128, "fpc %llu", (unsigned long long)fpc);
        /* aligned spans of fpc * 2^k read exact maxima, whatever the level */
        for (uint64_t span = fpc; span <= 8 * fpc; span *= 2) {
            size_t count = (NFRAMES + span - 1) / span;
            if (count > 64)
                count = 64;
            view_store_get(s, 0, 0, span, count, got);
            for (size_t i = 0; i < count; i++) {
                brute((int64_t)(i * span), (int64_t)((i + 1) * span), 0, NFRAMES, want);
                CHECK_MSG(same(got + i * BINS, want, BINS), "span %llu entry %zu", (unsigned long long)span, i);
            }
        }
        /* span chosen for 10 entries covers everything in at most 10 */
        {
            uint64_t span = view_store_span(s, NFRAMES, 10);
            CHECK(span * 10 >= NFRAMES && span % fpc == 0);
        }
        /* entries before 0 and after the end read as the floor */
        view_store_get(s, 0, -(int64_t)fpc, fpc, 1, got);
        brute(0, 0, 0, 0, want);
        CHECK(same(got, want, BINS));
        view_store_get(s, 0, (int64_t)(2 * NFRAMES), fpc, 1, got);
        CHECK(same(got, want, BINS));
        /* channel 1 is channel 0 + 1 dB */
        view_store_get(s, 1, 0, 4 * fpc, 1, got);
        brute(0, (int64_t)(4 * fpc), 0, NFRAMES, want);
        for (int k = 0; k < BINS; k++)
            CHECK(abs(got[k] - (want[k] >= 32667 ? 32767 : want[k] + 100)) <= 1); /* float rounding */
    }
    view_store_destroy(s);
}

static void test_live_ring(void)
{
    view_store *s = NULL;
    sp_errinfo ei = {{0}};
    int16_t got[8 * BINS], want[BINS];
    size_t budget = 100 * BINS * sizeof(int16_t); /* 100 frames */
    CHECK(view_store_create(1, BINS, 1, budget, &s, &ei) == SP_OK);
    if (!s)
        return;
    CHECK(view_store_capacity(s) == 100);
    CHECK(view_store_add(s, 0, 0, 50, &frames_db[0][0]) == SP_OK);
    /* frames 50 .. 59 skipped (the analysis fell behind): they read as the floor */
    CHECK(view_store_add(s, 0, 60, 30, &frames_db[60][0]) == SP_OK);
    CHECK(view_store_frames(s) == 90);
    view_store_get(s, 0, 50, 10, 1, got);
    brute(0, 0, 0, 0, want);
    CHECK(same(got, want, BINS));
    view_store_get(s, 0, 40, 30, 1, got);
    {
        int16_t a[BINS], b[BINS];
        brute(40, 50, 0, 90, a);
        brute(60, 70, 0, 90, b);
        for (int k = 0; k < BINS; k++)
            want[k] = a[k] > b[k] ? a[k] : b[k];
        CHECK(same(got, want, BINS));
    }
    /* 400 more frames: only the newest 100 are held */
    CHECK(view_store_add(s, 0, 90, 400, &frames_db[90][0]) == SP_OK);
    CHECK(view_store_frames(s) == 490);
    CHECK(view_store_oldest(s) == 390);
    view_store_get(s, 0, 380, 20, 1, got);
    brute(380, 400, 390, 490, want);
    CHECK(same(got, want, BINS));
    for (int64_t f = 390; f < 490; f += 7) {
        view_store_get(s, 0, f, 1, 1, got);
        brute(f, f + 1, 0, 490, want);
        CHECK(same(got, want, BINS));
    }
    /* a jump larger than the ring: everything before reads as the floor */
    CHECK(view_store_add(s, 0, 900, 1, &frames_db[0][0]) == SP_OK);
    view_store_get(s, 0, 801, 99, 1, got);
    brute(0, 0, 0, 0, want);
    CHECK(same(got, want, BINS));
    view_store_destroy(s);
}

/* An entry read while HELD reads the same until its state changes; the states of a
 * channel that lags another, of skipped and overwritten frames, of frames before 0. */
static void test_entry_state(void)
{
    view_store *s = NULL;
    sp_errinfo ei = {{0}};
    int16_t kept[40][BINS], got[BINS];
    int held_at[40], checked = 0;
    size_t budget = 2 * 16 * BINS * sizeof(int16_t); /* 16 frames a channel */
    CHECK(view_store_create(2, BINS, 1, budget, &s, &ei) == SP_OK);
    if (!s)
        return;
    CHECK(view_store_capacity(s) == 16);
    CHECK(view_store_add(s, 0, 0, 10, &frames_db[0][0]) == SP_OK);
    CHECK(view_store_add(s, 1, 0, 8, &frames_db[0][0]) == SP_OK);
    CHECK(view_store_entry_state(s, 0, 8, 2) == VIEW_STORE_HELD);
    CHECK(view_store_entry_state(s, 1, 8, 2) == VIEW_STORE_OPEN); /* channel 1 is behind */
    CHECK(view_store_entry_state(s, 1, 6, 2) == VIEW_STORE_HELD);
    CHECK(view_store_entry_state(s, 0, -2, 4) == VIEW_STORE_HELD);
    CHECK(view_store_entry_state(s, 0, -4, 4) == VIEW_STORE_GONE);
    CHECK(view_store_entry_state(s, 0, 10, 1) == VIEW_STORE_OPEN);
    CHECK(view_store_entry_state(s, 2, 0, 1) == VIEW_STORE_OPEN);
    CHECK(view_store_entry_state(NULL, 0, 0, 1) == VIEW_STORE_OPEN);
    /* frames 10 .. 19 skipped: once 20 is in they are held (as the floor) */
    CHECK(view_store_add(s, 0, 20, 1, &frames_db[20][0]) == SP_OK);
    CHECK(view_store_entry_state(s, 0, 12, 4) == VIEW_STORE_HELD);
    CHECK(view_store_entry_state(s, 0, 4, 2) == VIEW_STORE_OPEN); /* frame 5 overwritten, 4 not */
    CHECK(view_store_entry_state(s, 0, 2, 2) == VIEW_STORE_GONE);
    view_store_destroy(s);

    /* one channel, entries of 2 frames, frames one at a time: every HELD read stays */
    CHECK(view_store_create(1, BINS, 1, 16 * BINS * sizeof(int16_t), &s, &ei) == SP_OK);
    if (!s)
        return;
    for (int e = 0; e < 40; e++)
        held_at[e] = -1;
    for (int f = 0; f < 80; f++) {
        CHECK(view_store_add(s, 0, (uint64_t)f, 1, &frames_db[f][0]) == SP_OK);
        for (int e = 0; e < 40; e++) {
            int st = view_store_entry_state(s, 0, 2 * e, 2);
            view_store_get(s, 0, 2 * e, 2, 1, got);
            if (st == VIEW_STORE_HELD && held_at[e] >= 0) {
                CHECK_MSG(same(got, kept[e], BINS), "entry %d changed while held (frame %d)", e, f);
                checked++;
            }
            if (st == VIEW_STORE_HELD && held_at[e] < 0) {
                memcpy(kept[e], got, sizeof got);
                held_at[e] = f;
            }
            if (st == VIEW_STORE_GONE) {
                int16_t floor_[BINS];
                brute(0, 0, 0, 0, floor_);
                CHECK(same(got, floor_, BINS));
            }
            if (st != VIEW_STORE_HELD)
                held_at[e] = -1;
        }
    }
    CHECK(checked > 100);
    view_store_destroy(s);
}

/* A file store with a budget below its minimum size keeps every frame: it once built no
 * level above the first, so its first merge dropped what it held. */
static void test_tiny_budget(void)
{
    view_store *s = NULL;
    sp_errinfo ei;
    float db[4];
    int16_t out[4];
    CHECK(view_store_create(1, 4, 0, 16, &s, &ei) == SP_OK);
    if (!s)
        return;
    for (int f = 0; f < 100; f++) {
        for (int k = 0; k < 4; k++)
            db[k] = f == 3 ? 0.0f : -150.0f; /* one loud frame */
        view_store_add(s, 0, f, 1, db);
    }
    view_store_get(s, 0, 0, 100, 1, out);
    CHECK_MSG(out[0] == 0, "the loud frame reads %d (0 dB expected)", out[0]);
    view_store_destroy(s);
}

/* What has no spectrum reads as no data, never as a level: before the start, not yet
 * analysed, a live skip; the lowest level stored stays data. */
static void test_no_data(void)
{
    view_store *s = NULL;
    sp_errinfo ei;
    float db[2] = {-327.675f, -500.0f};
    int16_t out[2 * 6];
    for (int live = 0; live < 2; live++) {
        CHECK(view_store_create(1, 2, live, 1 << 16, &s, &ei) == SP_OK);
        if (!s)
            return;
        view_store_add(s, 0, 0, 1, db);
        if (live)
            view_store_add(s, 0, 3, 1, db); /* frames 1, 2 skipped */
        view_store_get(s, 0, -1, 1, 6, out);
        CHECK(out[0] == VIEW_STORE_NODATA && out[1] == VIEW_STORE_NODATA); /* before frame 0 */
        CHECK(out[2] > VIEW_STORE_NODATA && out[3] == VIEW_STORE_FLOOR);  /* data, however low */
        CHECK(out[4] == VIEW_STORE_NODATA && out[6] == VIEW_STORE_NODATA); /* skipped / not yet */
        CHECK(live ? out[8] > VIEW_STORE_NODATA : out[8] == VIEW_STORE_NODATA);
        CHECK(out[10] == VIEW_STORE_NODATA);
        view_store_get(s, 0, 0, 4, 1, out); /* an entry with data and none: data */
        CHECK(out[0] > VIEW_STORE_NODATA);
        view_store_destroy(s);
        s = NULL;
    }
}

/* ---- groups of maxima (a GPU's column maxima: sink.h maxima_span) ---- */

/* Feeds frames [0, nframes) of both channels as the pipeline hands over column maxima:
 * calls of uneven length, each with a row for every group of `span` it touches (the first
 * and last partial, their groups' other frames in the neighbouring calls), channel 1
 * (= channel 0 + 1 dB) after channel 0 in each call. The rows are maxima ignoring NaN, as
 * a device's fmaxf. */
static void feed_groups(view_store *s, uint64_t span, int nframes)
{
    float row[BINS];
    for (int first = 0, call = 0; first < nframes; call++) {
        int nb = 1 + (call * 37 + 11) % 97, end;
        if (first + nb > nframes)
            nb = nframes - first;
        end = first + nb;
        for (int ch = 0; ch < 2; ch++)
            for (uint64_t g = (uint64_t)first / span; g * span < (uint64_t)end; g++) {
                uint64_t f0 = g * span > (uint64_t)first ? g * span : (uint64_t)first;
                uint64_t f1 = (g + 1) * span < (uint64_t)end ? (g + 1) * span : (uint64_t)end;
                for (int k = 0; k < BINS; k++) {
                    float m = NAN;
                    for (uint64_t f = f0; f < f1; f++) {
                        float x = frames_db[f][k] + (float)ch;
                        m = isnan(m) || x > m ? x : m;
                    }
                    row[k] = m;
                }
                CHECK_MSG(view_store_add_max(s, ch, f0, f1, row) == SP_OK, "group %llu", (unsigned long long)g);
            }
        first = end;
    }
}

/* Frames one at a time, both channels (channel 1 = channel 0 + 1 dB). */
static void feed_frames(view_store *s, int nframes)
{
    float row[BINS];
    for (int f = 0; f < nframes; f++) {
        CHECK(view_store_add(s, 0, (uint64_t)f, 1, frames_db[f]) == SP_OK);
        for (int k = 0; k < BINS; k++)
            row[k] = frames_db[f][k] + 1.0f;
        CHECK(view_store_add(s, 1, (uint64_t)f, 1, row) == SP_OK);
    }
}

/* Every level of both channels holds the same entries in a and b. */
static void same_store(const view_store *a, const view_store *b, const char *what)
{
    CHECK_MSG(view_store_capacity(a) == view_store_capacity(b), "%s: fpc %llu vs %llu", what,
              (unsigned long long)view_store_capacity(a), (unsigned long long)view_store_capacity(b));
    CHECK_MSG(view_store_frames(a) == view_store_frames(b), "%s: frames", what);
    for (int ch = 0; ch < 2; ch++)
        for (int k = 0; k < 40; k++) {
            size_t na, nb;
            const int16_t *la = view_store_level(a, ch, k, &na), *lb = view_store_level(b, ch, k, &nb);
            CHECK_MSG(na == nb, "%s: level %d of channel %d: %zu vs %zu entries", what, k, ch, na, nb);
            for (size_t j = 0; j < na && j < nb; j++)
                CHECK_MSG(same(la + j * BINS, lb + j * BINS, BINS), "%s: level %d entry %zu of channel %d", what,
                          k, j, ch);
        }
}

/* Groups of maxima make the same store as their frames one by one: every level, every
 * entry; with the frames per entry chosen up front (view_store_expect) or reached by
 * merging, with more frames than expected (level 0 fills, fpc doubles past the groups'
 * span) and a last partial group. */
static void test_maxima(void)
{
    /* 2 channels, 16 level-0 entries */
    size_t budget = 2 * 16 * BINS * sizeof(int16_t) * 2;
    static const struct {
        int expect, frames;
    } cases[] = {{NFRAMES, NFRAMES}, {NFRAMES, 997}, {300, NFRAMES}, {40, 999}, {17, NFRAMES}};
    sp_errinfo ei = {{0}};
    float row[BINS];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        view_store *grown = NULL, *framed = NULL, *grouped = NULL;
        uint64_t span;
        char what[64];
        snprintf(what, sizeof what, "expect %d, %d frames", cases[i].expect, cases[i].frames);
        CHECK(view_store_create(2, BINS, 0, budget, &grown, &ei) == SP_OK);
        CHECK(view_store_create(2, BINS, 0, budget, &framed, &ei) == SP_OK);
        CHECK(view_store_create(2, BINS, 0, budget, &grouped, &ei) == SP_OK);
        if (!grown || !framed || !grouped)
            return;
        span = view_store_expect(grouped, (uint64_t)cases[i].expect);
        CHECK(view_store_expect(framed, (uint64_t)cases[i].expect) == span);
        CHECK_MSG(span > 1 && span * 16 >= (uint64_t)cases[i].expect && span * 8 < (uint64_t)cases[i].expect,
                  "%s: span %llu", what, (unsigned long long)span);
        feed_frames(grown, cases[i].frames);   /* fpc from 1, doubling */
        feed_frames(framed, cases[i].frames);  /* fpc from the expectation */
        feed_groups(grouped, span, cases[i].frames);
        CHECK_MSG(view_store_capacity(grown) >= span, "%s", what);
        same_store(grown, framed, what);
        same_store(grown, grouped, what);
        view_store_destroy(grown);
        view_store_destroy(framed);
        view_store_destroy(grouped);
    }
    /* a row across two entries, a live group, an empty one: refused; the expectation only
     * before the first frame */
    {
        view_store *s = NULL, *l = NULL;
        CHECK(view_store_create(1, BINS, 0, budget, &s, &ei) == SP_OK);
        CHECK(view_store_create(1, BINS, 1, budget, &l, &ei) == SP_OK);
        if (!s || !l)
            return;
        for (int k = 0; k < BINS; k++)
            row[k] = -10.0f;
        CHECK(view_store_expect(s, 100) == 4);
        CHECK(view_store_add_max(s, 0, 2, 6, row) == SP_EINVAL);
        CHECK(view_store_add_max(s, 0, 4, 4, row) == SP_EINVAL);
        CHECK(view_store_add_max(s, 0, 4, 8, row) == SP_OK);
        CHECK(view_store_frames(s) == 8);
        CHECK(view_store_expect(s, 100000) == 4);
        CHECK(view_store_expect(l, 100000) == 1);
        CHECK(view_store_add_max(l, 0, 0, 2, row) == SP_EINVAL);
        CHECK(view_store_add_max(l, 0, 0, 1, row) == SP_OK);
        view_store_destroy(s);
        view_store_destroy(l);
    }
}

int main(void)
{
    srand(12345);
    for (int f = 0; f < NFRAMES; f++)
        for (int k = 0; k < BINS; k++)
            frames_db[f][k] = -150.0f + 150.0f * (float)rand() / (float)RAND_MAX;
    for (int k = 0; k < BINS; k++) /* (16 + 32m)/128 dB: exact, and 100 times it a tie (12.5 + 25m) */
        frames_db[5][k] = (float)(16 + 32 * (k - BINS / 2)) / 128.0f;
    frames_db[3][0] = NAN;            /* NaN reads as the floor */
    frames_db[3][1] = 1e30f;        /* clamps */
    test_file_pyramid();
    test_live_ring();
    test_entry_state();
    test_tiny_budget();
    test_no_data();
    test_maxima();
    view_store_destroy(NULL);
    return check_done("test_view_store");
}
