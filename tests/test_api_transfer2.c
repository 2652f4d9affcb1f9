/* test_api_transfer2: the transfer function's API version 6 (spectro.h): spectro_transfer_values
 * against the table the program's --transfer --dump writes (spectro_transfer_table: the
 * engine's numbers) on the same frames, the delay against the table's and against the known
 * delay of the signal, the unwrapped phase against the wrapped one and against the delay's
 * own phase (360 f d), a handle of a size (spectro_transfer_create_size) against one of an
 * analyzer, and a snapshot (spectro_transfer_copy) against an average of the frames it held.
 * Links libspectro.so and uses nothing but spectro.h. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "spectro.h"

int check_failures, check_count;

enum { RATE = 48000, N = 1024, BINS = N / 2 + 1, DELAY = 9 };

static uint64_t rng_state = 0x2545f4914f6cdd1dull;

static double rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (double)(rng_state >> 11) / 9007199254740992.0 - 0.5;
}

/* Channel 0 white noise, channel 1 the noise DELAY samples later through a one-pole low-pass
 * (a minimum-phase filter: its group delay is not counted as delay), plus a little noise of
 * its own. The complex frames of both channels into *z ([channel][frame][bin]). */
static size_t frames_of(size_t len, spectro_complex **z, spectro_analyzer **out)
{
    spectro_analyzer_config cfg = spectro_analyzer_config_default();
    spectro_error err = {0, {0}};
    float *x = malloc((len + DELAY) * sizeof *x), *xy = malloc(2 * len * sizeof *xy);
    double lp = 0.0;
    size_t frames = 0;
    cfg.sample_rate = RATE;
    cfg.channels = 2;
    cfg.channel = SPECTRO_CHANNEL_ALL;
    cfg.fft_size = N;
    cfg.backend = "cpu";
    CHECK(x && xy);
    CHECK_MSG(spectro_analyzer_create(&cfg, out, &err) == SPECTRO_OK, "%s", err.message);
    for (size_t i = 0; i < len + DELAY; i++)
        x[i] = (float)rnd();
    for (size_t i = 0; i < len; i++) {
        lp = 0.7 * lp + 0.3 * x[i];
        xy[2 * i] = x[i + DELAY];
        xy[2 * i + 1] = (float)(lp + 1e-3 * rnd());
    }
    frames = (size_t)spectro_analyzer_frame_count(*out, len);
    *z = malloc(2 * frames * BINS * sizeof **z);
    CHECK(*z != NULL);
    CHECK_MSG(spectro_analyzer_stft(*out, xy, len, *z, frames, &err) == SPECTRO_OK, "%s", err.message);
    free(x);
    free(xy);
    return frames;
}

static int same(const float *a, const float *b, size_t n)
{
    return memcmp(a, b, n * sizeof *a) == 0;
}

/* values (flags 0) are the table's columns; the delay is the table's and the signal's. */
static void test_values(spectro_transfer *t)
{
    float table[BINS * SPECTRO_TRANSFER_COLUMNS], mag[BINS], ph[BINS], coh[BINS], col[BINS];
    double dt = -1.0, dv = -2.0, dd = -3.0;
    spectro_error err = {0, {0}};
    CHECK(spectro_transfer_table(t, table, &dt, &err) == SPECTRO_OK);
    CHECK_MSG(spectro_transfer_values(t, mag, ph, coh, 0, &dv, &err) == SPECTRO_OK, "%s", err.message);
    CHECK(spectro_transfer_delay(t, &dd, &err) == SPECTRO_OK);
    CHECK_MSG(dt == dv && dt == dd, "delays %.17g %.17g %.17g", dt, dv, dd);
    /* the source's delay: DELAY samples of the reference before the low-pass (minimum phase) */
    CHECK_MSG(fabs(dv * RATE - DELAY) < 0.2, "delay %g samples, expected %d", dv * RATE, DELAY);
    for (int c = 1; c < SPECTRO_TRANSFER_COLUMNS; c++) {
        for (size_t k = 0; k < BINS; k++)
            col[k] = table[k * SPECTRO_TRANSFER_COLUMNS + (size_t)c];
        CHECK_MSG(same(col, c == 1 ? mag : c == 2 ? ph : coh, BINS), "column %d differs from the table's", c);
    }
    /* NULL arrays: nothing written, the rest the same */
    memset(col, 0, sizeof col);
    CHECK(spectro_transfer_values(t, NULL, NULL, col, SPECTRO_TRANSFER_UNWRAP, NULL, &err) == SPECTRO_OK);
    CHECK(same(col, coh, BINS));
}

/* The unwrapped phase: the wrapped one plus whole turns, no step over 180 degrees; with the
 * delay taken out, that phase plus 360 f delay, unwrapped. Against the delay's own phase
 * (-360 f DELAY / RATE): where coherent, the unwrapped phase follows it within the
 * low-pass's own phase (under 90 degrees). */
static void test_unwrap(spectro_transfer *t)
{
    float wrapped[BINS], un[BINS], rm[BINS], coh[BINS];
    double delay = 0.0, worst = 0.0;
    spectro_error err = {0, {0}};
    CHECK(spectro_transfer_values(t, NULL, wrapped, coh, 0, NULL, &err) == SPECTRO_OK);
    CHECK(spectro_transfer_values(t, NULL, un, NULL, SPECTRO_TRANSFER_UNWRAP, NULL, &err) == SPECTRO_OK);
    CHECK(spectro_transfer_values(t, NULL, rm, NULL, SPECTRO_TRANSFER_REMOVE_DELAY, &delay, &err) == SPECTRO_OK);
    for (size_t k = 0; k < BINS; k++) {
        double turns = (un[k] - wrapped[k]) / 360.0, hz = (double)k * RATE / N;
        CHECK_MSG(fabs(turns - nearbyint(turns)) < 1e-3, "bin %zu: %g is not %g plus whole turns", k, un[k],
                  wrapped[k]);
        if (k > 0) {
            CHECK_MSG(fabsf(un[k] - un[k - 1]) <= 180.0f, "bin %zu: a step of %g", k, un[k] - un[k - 1]);
            CHECK_MSG(fabsf(rm[k] - rm[k - 1]) <= 180.0f, "bin %zu: a step of %g less the delay", k,
                      rm[k] - rm[k - 1]);
        }
        turns = (rm[k] - (wrapped[k] + 360.0 * hz * delay)) / 360.0;
        CHECK_MSG(fabs(turns - nearbyint(turns)) < 1e-3, "bin %zu: %g is not the phase less the delay", k, rm[k]);
        if (coh[k] > 0.9 && hz < 8000.0) {
            double own = un[k] + 360.0 * hz * DELAY / RATE; /* what the low-pass adds */
            worst = fabs(own) > worst ? fabs(own) : worst;
            CHECK_MSG(fabs(rm[k]) < 90.0, "bin %zu: %g degrees left with the delay out", k, rm[k]);
        }
    }
    CHECK_MSG(worst < 90.0, "the unwrapped phase strays %g degrees from the delay's", worst);
    CHECK(delay > 0.0);
}

/* A handle of a size equals one of the analyzer; a snapshot taken half way equals an average
 * of the first half's frames and stays so while the original goes on. */
static void test_copy(spectro_analyzer *a, const spectro_complex *z, size_t frames)
{
    spectro_transfer *full = NULL, *sized = NULL, *half = NULL, *snap = NULL, *other = NULL;
    spectro_error err = {0, {0}};
    const spectro_complex *x = z, *y = z + frames * BINS;
    size_t h = frames / 2;
    float v1[3 * BINS], v2[3 * BINS];
    CHECK(spectro_transfer_create(a, &full, &err) == SPECTRO_OK);
    CHECK_MSG(spectro_transfer_create_size(RATE, N, &sized, &err) == SPECTRO_OK, "%s", err.message);
    CHECK(spectro_transfer_create_size(RATE, N, &half, &err) == SPECTRO_OK);
    CHECK(spectro_transfer_create_size(RATE, N, &snap, &err) == SPECTRO_OK);
    CHECK(spectro_transfer_bins(sized) == BINS && spectro_transfer_bins(NULL) == 0);
    CHECK(spectro_transfer_add(full, x, y, frames, &err) == SPECTRO_OK);
    CHECK(spectro_transfer_add(sized, x, y, h, &err) == SPECTRO_OK);
    CHECK(spectro_transfer_add(half, x, y, h, &err) == SPECTRO_OK);
    CHECK(spectro_transfer_copy(snap, sized, &err) == SPECTRO_OK);
    CHECK(spectro_transfer_add(sized, x + h * BINS, y + h * BINS, frames - h, &err) == SPECTRO_OK);
    CHECK(spectro_transfer_averages(snap) == h && spectro_transfer_averages(sized) == frames);
    CHECK(spectro_transfer_values(snap, v1, v1 + BINS, v1 + 2 * BINS, SPECTRO_TRANSFER_REMOVE_DELAY, NULL, &err) ==
          SPECTRO_OK);
    CHECK(spectro_transfer_values(half, v2, v2 + BINS, v2 + 2 * BINS, SPECTRO_TRANSFER_REMOVE_DELAY, NULL, &err) ==
          SPECTRO_OK);
    CHECK_MSG(same(v1, v2, 3 * BINS), "the snapshot is not the first half's average");
    CHECK(spectro_transfer_values(full, v1, v1 + BINS, v1 + 2 * BINS, SPECTRO_TRANSFER_UNWRAP, NULL, &err) ==
          SPECTRO_OK);
    CHECK(spectro_transfer_values(sized, v2, v2 + BINS, v2 + 2 * BINS, SPECTRO_TRANSFER_UNWRAP, NULL, &err) ==
          SPECTRO_OK);
    CHECK_MSG(same(v1, v2, 3 * BINS), "a handle of a size differs from the analyzer's");
    spectro_transfer_reset(sized);
    CHECK(spectro_transfer_averages(sized) == 0);
    /* errors: sizes, flags, NULLs, each naming what is wrong */
    CHECK(spectro_transfer_create_size(RATE, 2 * N, &other, &err) == SPECTRO_OK);
    CHECK(spectro_transfer_copy(other, full, &err) == SPECTRO_EINVAL && strstr(err.message, "fft_size"));
    spectro_transfer_destroy(snap);
    CHECK(spectro_transfer_create_size(RATE, 1000, &snap, &err) == SPECTRO_EINVAL && snap == NULL);
    CHECK_MSG(strstr(err.message, "1000") != NULL && strstr(err.message, "--") == NULL, "%s", err.message);
    CHECK(spectro_transfer_create_size(0, N, &snap, &err) == SPECTRO_EINVAL && strstr(err.message, "sample_rate"));
    CHECK(spectro_transfer_values(full, v1, NULL, NULL, 4u, NULL, &err) == SPECTRO_EINVAL &&
          strstr(err.message, "flags"));
    CHECK(spectro_transfer_values(NULL, v1, NULL, NULL, 0, NULL, &err) == SPECTRO_EINVAL);
    CHECK(spectro_transfer_delay(full, NULL, &err) == SPECTRO_EINVAL);
    CHECK(spectro_transfer_copy(NULL, full, &err) == SPECTRO_EINVAL);
    spectro_transfer_reset(NULL);
    spectro_transfer_destroy(other);
    spectro_transfer_destroy(full);
    spectro_transfer_destroy(sized);
    spectro_transfer_destroy(half);
}

int main(void)
{
    spectro_analyzer *a = NULL;
    spectro_transfer *t = NULL;
    spectro_complex *z = NULL;
    spectro_error err = {0, {0}};
    size_t frames = frames_of(60000, &z, &a);
    CHECK(spectro_transfer_create(a, &t, &err) == SPECTRO_OK);
    CHECK(spectro_transfer_add(t, z, z + frames * BINS, frames, &err) == SPECTRO_OK);
    test_values(t);
    test_unwrap(t);
    test_copy(a, z, frames);
    spectro_transfer_destroy(t);
    spectro_analyzer_destroy(a);
    free(z);
    return check_done("test_api_transfer2");
}
