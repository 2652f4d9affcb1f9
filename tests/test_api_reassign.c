/* test_api_reassign: spectro_reassign_grid (spectro.h, API version 6) against a reference
 * written here from its documented rule (docs/transforms.md "Reassignment"): the points of
 * the "reassign" transform's rows (spectro_transform_compute) to the nearest frame and bin,
 * the loudest kept, within `reach` frames of their own. Pushed in uneven pieces, the frames
 * come out complete, in order, once each; an emit function's failure stops the call and is
 * returned; bad arguments are refused naming the argument. Links libspectro.so only. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "spectro.h"

int check_failures, check_count;

enum { RATE = 48000, N = 512, HOP = 128, BINS = N / 2 + 1, CH = 2, LEN = 24000 };
#define TWO_PI 6.283185307179586

typedef struct {
    float *img;           /* [channel][frame][bin] */
    size_t frames;
    uint64_t next[CH];    /* each channel's next frame expected */
    int bad_order, fail_at; /* fail_at >= 0: the emit function fails at that frame */
} sink;

static int emit(void *user, int channel, uint64_t first, size_t count, const float *rows)
{
    sink *s = user;
    if (channel < 0 || channel >= CH || first != s->next[channel] || first + count > s->frames) {
        s->bad_order = 1;
        return 0;
    }
    if (s->fail_at >= 0 && (uint64_t)s->fail_at >= first && (uint64_t)s->fail_at < first + count)
        return SPECTRO_EIO;
    memcpy(s->img + ((size_t)channel * s->frames + first) * BINS, rows, count * BINS * sizeof *rows);
    s->next[channel] = first + count;
    return 0;
}

/* A chirp on channel 0 and two tones on channel 1, a little noise on both. */
static float *make(void)
{
    float *x = malloc((size_t)LEN * CH * sizeof *x);
    uint32_t r = 12345;
    for (size_t i = 0; i < LEN; i++) {
        double t = (double)i / RATE;
        r = r * 1664525u + 1013904223u;
        x[i * CH] = (float)(0.5 * sin(TWO_PI * (300.0 * t + 8000.0 * t * t)) + 1e-4 * ((double)r / 4294967296.0));
        x[i * CH + 1] = (float)(0.3 * sin(TWO_PI * 1234.5 * t) + 0.2 * sin(TWO_PI * 7000.0 * t));
    }
    return x;
}

static void reference(const float *pts, size_t frames, size_t reach, float *img)
{
    const double bin_hz = (double)RATE / N, t0 = (double)(N / 2) / RATE, dt = (double)HOP / RATE;
    for (size_t i = 0; i < (size_t)CH * frames * BINS; i++)
        img[i] = -200.0f;
    for (size_t c = 0; c < CH; c++)
        for (size_t f = 0; f < frames; f++)
            for (size_t k = 0; k < BINS; k++) {
                const float *p = pts + ((c * frames + f) * BINS + k) * 3;
                double j = floor(((double)p[1] - t0) / dt + 0.5), m = floor((double)p[0] / bin_hz + 0.5);
                float *cell;
                if (!(j >= 0 && j < (double)frames && j + (double)reach >= (double)f && j <= (double)(f + reach) &&
                      m >= 0 && m < BINS))
                    continue;
                cell = img + (c * frames + (size_t)j) * BINS + (size_t)m;
                *cell = p[2] > *cell ? p[2] : *cell;
            }
}

int main(void)
{
    spectro_analyzer_config ac = spectro_analyzer_config_default();
    spectro_transform_config tc = spectro_transform_config_default();
    spectro_analyzer *a = NULL;
    spectro_transform *t = NULL;
    spectro_reassign_grid *g = NULL;
    spectro_error err = {0, {0}};
    size_t frames, reach = (N / 2 + HOP - 1) / HOP + 1, moved = 0;
    float *x = make(), *pts, *want;
    sink s;
    ac.sample_rate = RATE;
    ac.channels = CH;
    ac.channel = SPECTRO_CHANNEL_ALL;
    ac.fft_size = N;
    ac.hop = HOP;
    ac.backend = "cpu";
    tc.kind = "reassign";
    CHECK_MSG(spectro_analyzer_create(&ac, &a, &err) == SPECTRO_OK, "%s", err.message);
    CHECK_MSG(spectro_transform_create(a, &tc, &t, &err) == SPECTRO_OK, "%s", err.message);
    CHECK(spectro_transform_columns(t) == BINS && spectro_transform_depth(t) == 3);
    frames = (size_t)spectro_analyzer_frame_count(a, LEN);
    pts = malloc((size_t)CH * frames * BINS * 3 * sizeof *pts);
    want = malloc((size_t)CH * frames * BINS * sizeof *want);
    memset(&s, 0, sizeof s);
    s.img = malloc((size_t)CH * frames * BINS * sizeof *s.img);
    s.frames = frames;
    s.fail_at = -1;
    CHECK_MSG(spectro_transform_compute(t, a, x, LEN, pts, frames, &err) == SPECTRO_OK, "%s", err.message);
    reference(pts, frames, reach, want);
    CHECK_MSG(spectro_reassign_grid_create(CH, BINS, (double)RATE / N, (double)(N / 2) / RATE, (double)HOP / RATE,
                                           reach, &g, &err) == SPECTRO_OK,
              "%s", err.message);
    /* the channels interleaved, in pieces of 1, 2, ... 9 frames */
    for (size_t f = 0, piece = 1; f < frames; f += piece, piece = piece % 9 + 1) {
        size_t m = f + piece <= frames ? piece : frames - f;
        for (int c = 0; c < CH; c++)
            CHECK(spectro_reassign_grid_add(g, c, f, m, pts + (((size_t)c * frames + f) * BINS) * 3, emit, &s, &err) ==
                  SPECTRO_OK);
        CHECK(s.next[0] + reach + 1 >= f + m); /* frames come out as they complete */
    }
    CHECK(spectro_reassign_grid_flush(g, emit, &s, &err) == SPECTRO_OK);
    CHECK(!s.bad_order && s.next[0] == frames && s.next[1] == frames);
    CHECK_MSG(memcmp(s.img, want, (size_t)CH * frames * BINS * sizeof *want) == 0, "the image differs");
    /* the points do move: the image is not the frames' own bins */
    for (size_t i = 0; i < frames * BINS; i++)
        moved += want[i] != -200.0f && fabsf(pts[i * 3 + 2] - want[i]) > 1e-3f;
    CHECK_MSG(moved > frames, "%zu cells moved", moved);
    spectro_reassign_grid_destroy(g);
    /* an emit function's failure stops the add and is returned */
    memset(s.next, 0, sizeof s.next);
    s.fail_at = 5;
    CHECK(spectro_reassign_grid_create(CH, BINS, (double)RATE / N, (double)(N / 2) / RATE, (double)HOP / RATE, reach,
                                       &g, &err) == SPECTRO_OK);
    CHECK(spectro_reassign_grid_add(g, 0, 0, frames, pts, emit, &s, &err) == SPECTRO_EIO && err.code == SPECTRO_EIO);
    CHECK(s.next[0] <= 5);
    CHECK(spectro_reassign_grid_add(g, 2, 0, 1, pts, emit, &s, &err) == SPECTRO_EINVAL &&
          strstr(err.message, "channel 2"));
    CHECK(spectro_reassign_grid_add(g, 0, 0, 1, pts, NULL, &s, &err) == SPECTRO_EINVAL);
    spectro_reassign_grid_destroy(g);
    spectro_reassign_grid_destroy(NULL);
    g = NULL;
    CHECK(spectro_reassign_grid_create(0, BINS, 1.0, 0.0, 1.0, 1, &g, &err) == SPECTRO_EINVAL && g == NULL &&
          strstr(err.message, "channels"));
    CHECK(spectro_reassign_grid_create(1, BINS, -1.0, 0.0, 1.0, 1, &g, &err) == SPECTRO_EINVAL &&
          strstr(err.message, "bin_hz"));
    CHECK(spectro_reassign_grid_create(1, BINS, 1.0, 0.0, 0.0, 1, &g, &err) == SPECTRO_EINVAL &&
          strstr(err.message, "time_step_s"));
    spectro_transform_destroy(t);
    spectro_analyzer_destroy(a);
    free(x);
    free(pts);
    free(want);
    free(s.img);
    return check_done("test_api_reassign");
}
