/* test_api_measure2: the running averages (spectro_average), their tone analysis, bands made
 * without an analyzer and the tone band (include/spectro.h, API version 6) through
 * libspectro.so, against the whole-array reductions of the same frames
 * (spectro_analyzer_average, _tone, spectro_bands_create: measure.h's and bands.h's
 * arithmetic behind the library's wall) and, for the exponential average, a reference
 * computed here in double. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "spectro.h"

int check_failures, check_count; /* check.h's counters */

#define RATE 48000
#define N 4096
#define HOP 1024
#define CH 2
#define LEN (RATE * 2)
#define BINS (N / 2 + 1)
#define ALL_MODES                                                                                   \
    (SPECTRO_AVERAGE_BIT(SPECTRO_AVERAGE_MEAN) | SPECTRO_AVERAGE_BIT(SPECTRO_AVERAGE_MAX) |          \
     SPECTRO_AVERAGE_BIT(SPECTRO_AVERAGE_MIN) | SPECTRO_AVERAGE_BIT(SPECTRO_AVERAGE_EXPONENTIAL))

static const double PI = 3.14159265358979323846;

/* Two channels: a 997 Hz tone with a 2nd and 3rd harmonic and a little noise on channel 0,
 * a 3 kHz tone that grows louder on channel 1 (so that the averages differ). */
static float *make_signal(void)
{
    float *x = malloc((size_t)LEN * CH * sizeof *x);
    uint32_t s = 12345;
    for (int i = 0; i < LEN; i++) {
        double t = (double)i / RATE, noise;
        s = s * 1664525u + 1013904223u;
        noise = ((double)(s >> 8) / 16777216.0 - 0.5) * 1e-4;
        x[i * CH] = (float)(0.5 * sin(2 * PI * 997 * t) + 0.01 * sin(2 * PI * 1994 * t) +
                            0.003 * sin(2 * PI * 2991 * t) + noise);
        x[i * CH + 1] = (float)((0.05 + 0.4 * t) * sin(2 * PI * 3000 * t) + noise);
    }
    return x;
}

static spectro_analyzer_config frames_config(const char *window)
{
    spectro_analyzer_config c = spectro_analyzer_config_default();
    c.sample_rate = RATE;
    c.channels = CH;
    c.channel = SPECTRO_CHANNEL_ALL;
    c.fft_size = N;
    c.hop = HOP;
    c.window = window;
    c.backend = "cpu";
    return c;
}

/* The rows fed in uneven chunks (1, 3, 7, the rest) per channel. */
static void feed(spectro_average *avg, const float *db, size_t frames)
{
    static const size_t chunks[] = {1, 3, 7};
    for (int c = 0; c < CH; c++) {
        size_t at = 0;
        for (int i = 0; at < frames; i++) {
            size_t n = i < 3 ? chunks[i] : frames - at;
            n = n < frames - at ? n : frames - at;
            CHECK(spectro_average_add(avg, c, db + ((size_t)c * frames + at) * BINS, n, NULL) == SPECTRO_OK);
            at += n;
        }
    }
}

/* MEAN, MAX and MIN read what spectro_analyzer_average gives for the same rows, byte for
 * byte, as levels and as densities. */
static void test_modes(spectro_analyzer *a, spectro_average *avg, const float *db, size_t frames)
{
    float *want = malloc(BINS * sizeof *want), *got = malloc(BINS * sizeof *got);
    for (int mode = SPECTRO_AVERAGE_MEAN; mode <= SPECTRO_AVERAGE_MIN; mode++)
        for (int c = 0; c < CH; c++)
            for (int psd = 0; psd <= 1; psd++) {
                CHECK(spectro_average_frames(avg, c, mode) == frames);
                CHECK(spectro_analyzer_average(a, db + (size_t)c * frames * BINS, frames, mode, psd, want, NULL) ==
                      SPECTRO_OK);
                CHECK(spectro_average_read(avg, c, mode, psd, got, NULL) == SPECTRO_OK);
                CHECK_MSG(memcmp(want, got, BINS * sizeof *got) == 0, "mode %d channel %d psd %d", mode, c, psd);
            }
    free(want);
    free(got);
}

/* The exponential average against P <- P + alpha (P_frame - P) in double here. */
static void test_exponential(spectro_average *avg, const float *db, size_t frames, double tau)
{
    double alpha = 1.0 - exp(-(double)HOP / ((double)RATE * tau)), *ref = malloc(BINS * sizeof *ref);
    double *pw = malloc(BINS * sizeof *pw), worst = 0.0, worst_db = 0.0;
    float *got = malloc(BINS * sizeof *got);
    for (int c = 0; c < CH; c++) {
        for (size_t f = 0; f < frames; f++)
            for (size_t k = 0; k < BINS; k++) {
                double p = pow(10.0, db[((size_t)c * frames + f) * BINS + k] / 10.0);
                ref[k] = f == 0 ? p : ref[k] + alpha * (p - ref[k]);
            }
        CHECK(spectro_average_frames(avg, c, SPECTRO_AVERAGE_EXPONENTIAL) == frames);
        CHECK(spectro_average_power(avg, c, SPECTRO_AVERAGE_EXPONENTIAL, pw, NULL) == SPECTRO_OK);
        CHECK(spectro_average_read(avg, c, SPECTRO_AVERAGE_EXPONENTIAL, 0, got, NULL) == SPECTRO_OK);
        for (size_t k = 0; k < BINS; k++) {
            double e = fabs(pw[k] - ref[k]) / ref[k], d = fabs(got[k] - fmax(10.0 * log10(ref[k]), -200.0));
            worst = e > worst ? e : worst;
            worst_db = d > worst_db ? d : worst_db;
        }
    }
    CHECK_MSG(worst < 1e-9, "exponential power off by %.3g (relative)", worst);
    CHECK_MSG(worst_db < 1e-4, "exponential dB off by %.3g dB", worst_db);
    free(ref);
    free(pw);
    free(got);
}

static void tone_equal(const spectro_tone *a, const spectro_tone *b, const char *what)
{
    CHECK_MSG(memcmp(a, b, sizeof *a) == 0, "%s: f0 %.9g/%.9g Hz, thd %.9g/%.9g dB, snr %.9g/%.9g dB, frames %llu/%llu",
              what, a->fundamental_hz, b->fundamental_hz, a->thd_db, b->thd_db, a->snr_db, b->snr_db,
              (unsigned long long)a->frames_averaged, (unsigned long long)b->frames_averaged);
}

/* The tone of the mean is spectro_analyzer_tone's on the same rows, member for member; the
 * exponential's after one row is the mean's of that row (its power is that row's). */
static void test_tone(spectro_analyzer *a, spectro_average *avg, const float *db, size_t frames)
{
    spectro_tone_config tc = spectro_tone_config_default();
    spectro_tone want, got;
    spectro_average *one = NULL;
    spectro_analyzer_config fc = frames_config(spectro_tone_window());
    spectro_average_config ac = spectro_average_config_default();
    for (int c = 0; c < CH; c++) {
        for (int fixed = 0; fixed <= 1; fixed++) {
            tc.fundamental_hz = fixed ? (c == 0 ? 997.0 : 3000.0) : 0.0;
            tc.fmin = fixed ? 100.0 : -1.0;
            memset(&want, 0, sizeof want);
            memset(&got, 0, sizeof got);
            want.size = got.size = sizeof want;
            CHECK(spectro_analyzer_tone(a, db + (size_t)c * frames * BINS, frames, &tc, &want, NULL) == SPECTRO_OK);
            CHECK(spectro_average_tone(avg, c, SPECTRO_AVERAGE_MEAN, &tc, &got, NULL) == SPECTRO_OK);
            tone_equal(&want, &got, "mean");
        }
        CHECK(c != 0 ||
              (fabs(want.fundamental_hz - 997.0) < 1.0 && fabs(want.thd_db - 20 * log10(0.01044 / 0.5)) < 0.5));
    }
    ac.modes = SPECTRO_AVERAGE_BIT(SPECTRO_AVERAGE_EXPONENTIAL);
    CHECK(spectro_average_create(&fc, &ac, &one, NULL) == SPECTRO_OK);
    memset(&got, 0, sizeof got);
    got.size = sizeof got;
    {
        spectro_error e;
        CHECK(spectro_average_tone(one, 0, SPECTRO_AVERAGE_EXPONENTIAL, NULL, &got, &e) == SPECTRO_EINVAL);
        CHECK_MSG(strstr(e.message, "frames is 0") != NULL, "%s", e.message);
    }
    CHECK(spectro_average_add(one, 0, db + 5 * BINS, 1, NULL) == SPECTRO_OK);
    memset(&want, 0, sizeof want);
    want.size = sizeof want;
    CHECK(spectro_analyzer_tone(a, db + 5 * BINS, 1, NULL, &want, NULL) == SPECTRO_OK);
    CHECK(spectro_average_tone(one, 0, SPECTRO_AVERAGE_EXPONENTIAL, NULL, &got, NULL) == SPECTRO_OK);
    tone_equal(&want, &got, "exponential of one row");
    spectro_average_destroy(one);
}

/* Reset: the mean alone starts again (the exponential keeps its rows), and then averages
 * just the rows added since. */
static void test_reset(spectro_analyzer *a, spectro_average *avg, const float *db, size_t frames)
{
    float *want = malloc(BINS * sizeof *want), *got = malloc(BINS * sizeof *got);
    size_t tail = frames - 10;
    CHECK(spectro_average_reset(avg, -1, SPECTRO_AVERAGE_BIT(SPECTRO_AVERAGE_MEAN), NULL) == SPECTRO_OK);
    CHECK(spectro_average_frames(avg, 1, SPECTRO_AVERAGE_MEAN) == 0);
    CHECK(spectro_average_frames(avg, 1, SPECTRO_AVERAGE_MAX) == frames);
    CHECK(spectro_average_frames(avg, 1, SPECTRO_AVERAGE_EXPONENTIAL) == frames);
    CHECK(spectro_average_read(avg, 1, SPECTRO_AVERAGE_MEAN, 0, got, NULL) == SPECTRO_OK);
    CHECK(got[0] == (float)SPECTRO_DB_FLOOR && got[BINS - 1] == (float)SPECTRO_DB_FLOOR);
    CHECK(spectro_average_add(avg, 1, db + ((size_t)frames + 10) * BINS, tail, NULL) == SPECTRO_OK);
    CHECK(spectro_analyzer_average(a, db + ((size_t)frames + 10) * BINS, tail, SPECTRO_AVERAGE_MEAN, 0, want, NULL) ==
          SPECTRO_OK);
    CHECK(spectro_average_read(avg, 1, SPECTRO_AVERAGE_MEAN, 0, got, NULL) == SPECTRO_OK);
    CHECK(memcmp(want, got, BINS * sizeof *got) == 0);
    CHECK(spectro_average_reset(avg, 0, 0, NULL) == SPECTRO_OK); /* every average of channel 0 */
    CHECK(spectro_average_frames(avg, 0, SPECTRO_AVERAGE_EXPONENTIAL) == 0 &&
          spectro_average_frames(avg, 0, SPECTRO_AVERAGE_MIN) == 0);
    free(want);
    free(got);
}

/* Bands from a config equal those of an analyzer of that config, each weighting. */
static void test_bands(spectro_analyzer *a, const float *db)
{
    spectro_analyzer_config fc = frames_config(spectro_tone_window());
    CHECK(spectro_bands_weighting_count() == 3);
    CHECK(strcmp(spectro_bands_weighting_name(0), "Z") == 0 && strcmp(spectro_bands_weighting_name(1), "A") == 0 &&
          strcmp(spectro_bands_weighting_name(2), "C") == 0 && !spectro_bands_weighting_name(3) &&
          !spectro_bands_weighting_name(-1));
    for (int w = 0; w < spectro_bands_weighting_count(); w++) {
        spectro_bands_config bc = spectro_bands_config_default();
        spectro_bands *b1 = NULL, *b2 = NULL;
        float l1[64 * 4], l2[64 * 4];
        size_t nb;
        bc.weighting = spectro_bands_weighting_name(w);
        CHECK(spectro_bands_create(a, &bc, &b1, NULL) == SPECTRO_OK);
        CHECK(spectro_bands_create_for(&fc, &bc, &b2, NULL) == SPECTRO_OK);
        nb = spectro_bands_count(b1);
        CHECK_MSG(nb > 10 && nb <= 64 && spectro_bands_count(b2) == nb, "%zu bands", nb);
        CHECK(spectro_bands_unresolved_count(b1) == spectro_bands_unresolved_count(b2));
        for (size_t i = 0; i < nb; i++)
            CHECK(spectro_bands_mid_hz(b1, i) == spectro_bands_mid_hz(b2, i) &&
                  spectro_bands_lower_hz(b1, i) == spectro_bands_lower_hz(b2, i) &&
                  spectro_bands_upper_hz(b1, i) == spectro_bands_upper_hz(b2, i));
        CHECK(spectro_bands_levels(b1, db, 4, l1, NULL) == SPECTRO_OK);
        CHECK(spectro_bands_levels(b2, db, 4, l2, NULL) == SPECTRO_OK);
        CHECK_MSG(memcmp(l1, l2, 4 * nb * sizeof *l1) == 0, "weighting %s", bc.weighting);
        spectro_bands_destroy(b1);
        spectro_bands_destroy(b2);
    }
}

static void expect(int rc, const spectro_error *e, int code, const char *field)
{
    CHECK_MSG(rc == code && e->code == code && strstr(e->message, field) != NULL, "rc %d, \"%s\" (wanted %s)", rc,
              e->message, field);
}

/* Errors name the field; the window's coefficients are taken when given. */
static void test_errors(void)
{
    spectro_analyzer_config fc = frames_config(NULL);
    spectro_average_config ac = spectro_average_config_default();
    spectro_average *avg = NULL;
    spectro_bands *b = NULL;
    spectro_error e;
    float row[BINS] = {0}, *rect;
    double lo = 0, hi = 0;
    ac.modes = 1u << 7;
    expect(spectro_average_create(&fc, &ac, &avg, &e), &e, SPECTRO_EINVAL, "modes");
    ac = spectro_average_config_default();
    ac.time_constant_s = -1;
    expect(spectro_average_create(&fc, &ac, &avg, &e), &e, SPECTRO_EINVAL, "time_constant_s");
    ac = spectro_average_config_default();
    fc.fft_size = 1000;
    expect(spectro_average_create(&fc, &ac, &avg, &e), &e, SPECTRO_EINVAL, "fft_size");
    expect(spectro_bands_create_for(&fc, NULL, &b, &e), &e, SPECTRO_EINVAL, "fft_size");
    fc = frames_config("hanx");
    expect(spectro_average_create(&fc, &ac, &avg, &e), &e, SPECTRO_EINVAL, "window");
    fc = frames_config(NULL);
    fc.channel = SPECTRO_CHANNEL_MIX; /* one output channel */
    CHECK(spectro_average_create(&fc, NULL, &avg, NULL) == SPECTRO_OK);
    CHECK(spectro_average_channels(avg) == 1 && spectro_average_bins(avg) == BINS);
    CHECK_CLOSE(spectro_average_enbw_bins(avg), 1.5, 1e-9); /* hann */
    expect(spectro_average_add(avg, 1, row, 1, &e), &e, SPECTRO_EINVAL, "channel 1");
    expect(spectro_average_read(avg, 0, SPECTRO_AVERAGE_MAX, 0, row, &e), &e, SPECTRO_EINVAL, "mode 1");
    CHECK(spectro_average_frames(avg, 0, SPECTRO_AVERAGE_MAX) == 0);
    spectro_average_destroy(avg);
    spectro_average_destroy(NULL);
    rect = malloc(N * sizeof *rect);
    for (int i = 0; i < N; i++)
        rect[i] = 1.0f;
    ac.window_coefficients = rect; /* taken instead of the config's hann */
    CHECK(spectro_average_create(&fc, &ac, &avg, NULL) == SPECTRO_OK);
    CHECK_CLOSE(spectro_average_enbw_bins(avg), 1.0, 1e-9);
    spectro_average_destroy(avg);
    free(rect);
    CHECK(spectro_tone_band(-1, -1, RATE, &lo, &hi, NULL) == SPECTRO_OK && lo == 20.0 && hi == 20000.0);
    CHECK(spectro_tone_band(-1, -1, 16000, &lo, &hi, NULL) == SPECTRO_OK && lo == 20.0 && hi == 8000.0);
    CHECK(spectro_tone_band(500, 30000, RATE, &lo, &hi, NULL) == SPECTRO_OK && lo == 500.0 && hi == 24000.0);
    expect(spectro_tone_band(5000, 100, RATE, &lo, &hi, &e), &e, SPECTRO_EINVAL, "fmin");
}

int main(void)
{
    const double tau = 0.5;
    spectro_analyzer_config fc = frames_config(spectro_tone_window());
    spectro_average_config ac = spectro_average_config_default();
    spectro_analyzer *a = NULL;
    spectro_average *avg = NULL;
    float *x = make_signal(), *db;
    size_t frames;
    CHECK(spectro_analyzer_create(&fc, &a, NULL) == SPECTRO_OK);
    frames = (size_t)spectro_analyzer_frame_count(a, LEN);
    db = malloc((size_t)CH * frames * BINS * sizeof *db);
    CHECK(spectro_analyzer_spectrogram(a, x, LEN, db, frames, NULL) == SPECTRO_OK);
    ac.modes = ALL_MODES;
    ac.time_constant_s = tau;
    CHECK(spectro_average_create(&fc, &ac, &avg, NULL) == SPECTRO_OK);
    CHECK(spectro_average_channels(avg) == CH && spectro_average_bins(avg) == BINS);
    feed(avg, db, frames);
    test_modes(a, avg, db, frames);
    test_exponential(avg, db, frames, tau);
    test_tone(a, avg, db, frames);
    test_reset(a, avg, db, frames);
    test_bands(a, db);
    test_errors();
    spectro_average_destroy(avg);
    spectro_analyzer_destroy(a);
    free(db);
    free(x);
    return check_done("test_api_measure2");
}
