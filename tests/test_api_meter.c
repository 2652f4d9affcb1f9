/* test_api_meter: the window's meters and pitch trace through libspectro.so (include/spectro.h,
 * API version 6): spectro_loudness's kept step levels and spectro_pitch_tracker against the
 * engine's own loudness meter (src/sink/loudness.h) and YIN estimator (src/sink/pitch.h),
 * linked here statically beside the library, on the same signals; the levels against the
 * samples' own peak and mean square of each 100 ms step (at a rate whose steps are not all
 * alike), the tracker against spectro_pitch's frames and a known tone's pitch; the errors,
 * naming the field. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "loudness.h"
#include "pitch.h"
#include "spectro.h"

int check_failures, check_count; /* check.h's counters */

#define PI 3.14159265358979323846

/* Two channels of `frames` at `rate`: a 997 Hz tone whose level steps up and down every
 * 0.7 s, and noise (a fixed LCG) with a burst; a NaN and an infinity in channel 1. */
static float *stereo(int rate, size_t frames)
{
    float *x = malloc(2 * frames * sizeof *x);
    uint32_t s = 12345u;
    for (size_t i = 0; x && i < frames; i++) {
        double t = (double)i / rate, g = (int)(t / 0.7) % 2 ? 0.6 : 0.15;
        s = s * 1664525u + 1013904223u;
        x[2 * i] = (float)(g * sin(2 * PI * 997.0 * t + 0.3));
        x[2 * i + 1] = (float)(((double)(s >> 8) / 16777216.0 - 0.5) * (t > 1.0 && t < 1.3 ? 1.2 : 0.1));
    }
    if (x && frames > 5000) {
        x[2 * 4000 + 1] = NAN;
        x[2 * 4321 + 1] = INFINITY;
    }
    return x;
}

/* The library's meter against the engine's, both fed the same uneven chunks: every step's
 * levels and loudness equal, and equal to the samples' own figures. */
static void test_levels_equal_the_engine(int rate, double seconds)
{
    size_t frames = (size_t)(seconds * rate), chunks[] = {1, 4409, 1237, 100000};
    const double w[2] = {1.0, 0.5};
    float *x = stereo(rate, frames);
    spectro_loudness *m = NULL;
    loudness_meter *e = NULL;
    spectro_error err = {0, ""};
    CHECK(x != NULL);
    CHECK_MSG(spectro_loudness_create(rate, 2, w, &m, &err) == SPECTRO_OK, "%s", err.message);
    CHECK_MSG(spectro_loudness_keep_levels(m, &err) == SPECTRO_OK, "%s", err.message);
    CHECK(loudness_meter_create(rate, 2, w, &e, NULL) == SP_OK && loudness_meter_keep_levels(e, NULL) == SP_OK);
    if (!x || !m || !e)
        goto done;
    for (size_t at = 0, c = 0; at < frames; c++) {
        size_t n = chunks[c % 4] < frames - at ? chunks[c % 4] : frames - at;
        CHECK(spectro_loudness_add(m, x + 2 * at, n, &err) == SPECTRO_OK);
        CHECK(loudness_meter_add(e, x + 2 * at, n, NULL) == SP_OK);
        at += n;
    }
    CHECK(spectro_loudness_steps(m) == loudness_meter_steps(e));
    CHECK(spectro_loudness_steps(m) == (uint64_t)(frames * SPECTRO_LOUDNESS_STEPS_PER_S / (size_t)rate));
    for (uint64_t k = 0; k < spectro_loudness_steps(m); k++) {
        spectro_loudness_levels lv = {sizeof lv, -1.0, -1.0, -1.0};
        loudness_step_levels el;
        /* step k's samples, as spectro.h states them */
        size_t a = (size_t)(k * (uint64_t)rate / SPECTRO_LOUDNESS_STEPS_PER_S);
        size_t b = (size_t)((k + 1) * (uint64_t)rate / SPECTRO_LOUDNESS_STEPS_PER_S);
        double pk = 0.0, sq = 0.0;
        for (size_t i = a; i < b; i++)
            for (int c = 0; c < 2; c++) {
                double v = isfinite(x[2 * i + c]) ? x[2 * i + c] : 0.0;
                pk = fabs(v) > pk ? fabs(v) : pk;
                sq += w[c] * v * v;
            }
        CHECK(spectro_loudness_get_levels(m, k, &lv, &err) == SPECTRO_OK);
        CHECK(loudness_meter_step_levels(e, (size_t)k, &el, NULL) == SP_OK);
        CHECK_MSG(lv.sample_peak == el.sample_peak && lv.true_peak == el.true_peak &&
                      lv.mean_square == el.mean_square,
                  "step %llu: %.9g %.9g %.9g vs the engine's %.9g %.9g %.9g", (unsigned long long)k,
                  lv.sample_peak, lv.true_peak, lv.mean_square, el.sample_peak, el.true_peak, el.mean_square);
        CHECK_MSG(lv.sample_peak == (double)(float)pk, "step %llu: peak %.9g, the samples' %.9g",
                  (unsigned long long)k, lv.sample_peak, pk);
        CHECK_MSG(fabs(lv.mean_square - sq / (double)(b - a)) <= 1e-9 * (sq / (double)(b - a)),
                  "step %llu: mean square %.12g, the samples' %.12g", (unsigned long long)k, lv.mean_square,
                  sq / (double)(b - a));
        CHECK(lv.true_peak >= lv.sample_peak); /* above: noise's overs, and the filter's memory of a louder step */
        CHECK(spectro_loudness_momentary(m, k) == loudness_meter_momentary(e, (size_t)k) ||
              (isnan(spectro_loudness_momentary(m, k)) && isnan(loudness_meter_momentary(e, (size_t)k))));
        CHECK(spectro_loudness_short_term(m, k) == loudness_meter_short_term(e, (size_t)k) ||
              (isnan(spectro_loudness_short_term(m, k)) && isnan(loudness_meter_short_term(e, (size_t)k))));
    }
done:
    spectro_loudness_destroy(m);
    loudness_meter_destroy(e);
    free(x);
}

/* A 1 kHz sine of amplitude 0.5 at 48 kHz whose samples fall 3.75 degrees (half a sample)
 * off its crest: the levels read -6.02 dBFS of true peak above the samples' peak and -9.03
 * dBFS of mean square (a sine's A^2 / 2, 100 whole periods a step). */
static void test_levels_of_a_sine(void)
{
    enum { RATE = 48000, N = RATE };
    float *x = malloc(N * sizeof *x);
    spectro_loudness *m = NULL;
    CHECK(x != NULL && spectro_loudness_create(RATE, 1, NULL, &m, NULL) == SPECTRO_OK);
    if (!x || !m)
        goto done;
    for (int i = 0; i < N; i++)
        x[i] = (float)(0.5 * sin(2 * PI * 1000.0 * i / RATE + PI / 48));
    CHECK(spectro_loudness_keep_levels(m, NULL) == SPECTRO_OK);
    CHECK(spectro_loudness_add(m, x, N, NULL) == SPECTRO_OK);
    for (uint64_t k = 1; k < spectro_loudness_steps(m); k++) {
        spectro_loudness_levels lv = {sizeof lv, 0, 0, 0};
        CHECK(spectro_loudness_get_levels(m, k, &lv, NULL) == SPECTRO_OK);
        CHECK_CLOSE(20 * log10(lv.true_peak), 20 * log10(0.5), 0.1);
        CHECK_CLOSE(10 * log10(lv.mean_square), 10 * log10(0.125), 0.001);
        CHECK(lv.sample_peak < lv.true_peak);
    }
done:
    spectro_loudness_destroy(m);
    free(x);
}

static void test_levels_refused(void)
{
    spectro_loudness *m = NULL;
    spectro_loudness_levels lv = {sizeof lv, 7.0, 7.0, 7.0};
    spectro_error err = {0, ""};
    float x[4800] = {0};
    CHECK(spectro_loudness_create(48000, 1, NULL, &m, NULL) == SPECTRO_OK);
    CHECK(spectro_loudness_add(m, x, 4800, NULL) == SPECTRO_OK);
    /* not kept: asked too late, and nothing to read */
    CHECK(spectro_loudness_keep_levels(m, &err) == SPECTRO_EINVAL && err.code == SPECTRO_EINVAL);
    CHECK_MSG(strstr(err.message, "keep_levels") && strstr(err.message, "added"), "%s", err.message);
    CHECK(spectro_loudness_get_levels(m, 0, &lv, &err) == SPECTRO_EINVAL && strstr(err.message, "not kept"));
    CHECK(lv.sample_peak == 7.0 && lv.true_peak == 7.0 && lv.mean_square == 7.0); /* left as it was */
    spectro_loudness_destroy(m);
    m = NULL;
    CHECK(spectro_loudness_create(48000, 1, NULL, &m, NULL) == SPECTRO_OK);
    CHECK(spectro_loudness_keep_levels(m, NULL) == SPECTRO_OK);
    CHECK(spectro_loudness_add(m, x, 4800, NULL) == SPECTRO_OK);
    CHECK(spectro_loudness_get_levels(m, 0, &lv, &err) == SPECTRO_OK && lv.sample_peak == 0.0);
    CHECK(spectro_loudness_get_levels(m, 1, &lv, &err) == SPECTRO_EINVAL);
    CHECK_MSG(strcmp(err.message, "step 1: out of range (1 complete steps)") == 0, "%s", err.message);
    lv.size = 0;
    CHECK(spectro_loudness_get_levels(m, 0, &lv, &err) == SPECTRO_EINVAL && strstr(err.message, ".size"));
    CHECK(spectro_loudness_get_levels(m, 0, NULL, &err) == SPECTRO_EINVAL);
    CHECK(spectro_loudness_get_levels(NULL, 0, &lv, &err) == SPECTRO_EINVAL);
    CHECK(spectro_loudness_keep_levels(NULL, &err) == SPECTRO_EINVAL);
    spectro_loudness_destroy(m);
}

/* A glide 110 -> 440 Hz with two harmonics, voiceless noise after it. */
static float *glide(int rate, size_t n)
{
    float *x = malloc(n * sizeof *x);
    double ph = 0.0;
    uint32_t s = 99u;
    for (size_t i = 0; x && i < n; i++) {
        double t = (double)i / rate, f = 110.0 * pow(2.0, 2.0 * t / 1.5);
        s = s * 1664525u + 1013904223u;
        ph += 2 * PI * f / rate;
        x[i] = t < 1.5 ? (float)(0.3 * sin(ph) + 0.15 * sin(2 * ph) + 0.05 * sin(3 * ph))
                       : (float)(((double)(s >> 8) / 16777216.0 - 0.5) * 0.5);
    }
    return x;
}

/* The tracker frame by frame equals the engine's estimator and spectro_pitch, frame for
 * frame (f0 and confidence bit for bit). */
static void test_tracker_equals_the_engine(void)
{
    enum { RATE = 44100, N = 2048, HOP = 512 };
    size_t len = (size_t)(2.0 * RATE), frames = (len - N) / HOP + 1, got = 0, voiced = 0;
    float *x = glide(RATE, len);
    double *f0 = malloc(frames * sizeof *f0), *conf = malloc(frames * sizeof *conf);
    spectro_pitch_tracker *t = NULL;
    pitch_yin *y = NULL;
    spectro_error err = {0, ""};
    CHECK(x && f0 && conf);
    CHECK_MSG(spectro_pitch_tracker_create(RATE, N, 60.0, 1000.0, &t, &err) == SPECTRO_OK, "%s", err.message);
    CHECK(pitch_yin_create(RATE, N, 60.0, 1000.0, &y, NULL) == SP_OK);
    if (!x || !f0 || !conf || !t || !y)
        goto done;
    CHECK(spectro_pitch(x, len, 1, RATE, N, HOP, 60.0, 1000.0, f0, conf, frames, &got, &err) == SPECTRO_OK &&
          got == frames);
    for (size_t f = 0; f < frames; f++) {
        double a = -1, ac = -1, b = -1, bc = -1;
        CHECK(spectro_pitch_tracker_estimate(t, x + f * HOP, &a, &ac, &err) == SPECTRO_OK);
        pitch_yin_estimate(y, x + f * HOP, &b, &bc);
        CHECK_MSG(a == b && ac == bc, "frame %zu: %.9g (%.6f) vs the engine's %.9g (%.6f)", f, a, ac, b, bc);
        CHECK_MSG(a == f0[f] && ac == conf[f], "frame %zu: %.9g vs spectro_pitch's %.9g", f, a, f0[f]);
        voiced += a > 0;
    }
    /* the glide voiced, the noise not: a trace, not a constant */
    CHECK_MSG(voiced > frames / 2 && voiced < frames, "%zu of %zu voiced", voiced, frames);
done:
    spectro_pitch_tracker_destroy(t);
    pitch_yin_destroy(y);
    free(x);
    free(f0);
    free(conf);
}

/* A 440 Hz tone reads 440 Hz, confidently; its octave below too; silence is unvoiced; a
 * frame with NaN reads as the frame with 0 there. */
static void test_tracker_known_tones(void)
{
    enum { RATE = 48000, N = 4096 };
    static float x[N], z[N];
    spectro_pitch_tracker *t = NULL;
    double f0 = -1, conf = -1, f0z = -2, confz = -2;
    CHECK(spectro_pitch_tracker_create(RATE, N, 0, 0, &t, NULL) == SPECTRO_OK);
    if (!t)
        return;
    for (int i = 0; i < N; i++)
        x[i] = (float)(0.5 * sin(2 * PI * 440.0 * i / RATE + 1.0));
    CHECK(spectro_pitch_tracker_estimate(t, x, &f0, &conf, NULL) == SPECTRO_OK);
    CHECK_MSG(fabs(f0 - 440.0) < 0.5 && conf > 0.95, "440 Hz read %.3f Hz (confidence %.3f)", f0, conf);
    for (int i = 0; i < N; i++)
        x[i] = (float)(0.4 * sin(2 * PI * 220.0 * i / RATE) + 0.3 * sin(2 * PI * 440.0 * i / RATE + 0.5));
    CHECK(spectro_pitch_tracker_estimate(t, x, &f0, &conf, NULL) == SPECTRO_OK);
    CHECK_MSG(fabs(f0 - 220.0) < 0.5, "220 Hz with its octave read %.3f Hz", f0);
    CHECK(spectro_pitch_tracker_estimate(t, z, &f0, &conf, NULL) == SPECTRO_OK && f0 == 0.0);
    /* non-finite samples count as 0 */
    memcpy(z, x, sizeof z);
    x[100] = NAN;
    x[2000] = -INFINITY;
    z[100] = z[2000] = 0.0f;
    CHECK(spectro_pitch_tracker_estimate(t, x, &f0, &conf, NULL) == SPECTRO_OK);
    CHECK(spectro_pitch_tracker_estimate(t, z, &f0z, &confz, NULL) == SPECTRO_OK);
    CHECK_MSG(f0 == f0z && conf == confz && fabs(f0 - 220.0) < 1.0, "%.6f vs %.6f", f0, f0z);
    spectro_pitch_tracker_destroy(t);
}

static void test_tracker_refused(void)
{
    spectro_pitch_tracker *t = NULL;
    spectro_error err = {0, ""};
    double f0, conf;
    float x[16] = {0};
    CHECK(spectro_pitch_tracker_create(48000, 1024, 50.0, 0, &t, &err) == SPECTRO_EINVAL && !t);
    CHECK_MSG(strstr(err.message, "fmin 50") && strstr(err.message, "needs fft_size 2048 or more"), "%s",
              err.message);
    CHECK(spectro_pitch_tracker_create(48000, 4096, 900.0, 800.0, &t, &err) == SPECTRO_EINVAL);
    CHECK_MSG(strstr(err.message, "fmin 900 must be below fmax 800"), "%s", err.message);
    CHECK(spectro_pitch_tracker_create(0, 4096, 0, 0, &t, &err) == SPECTRO_EINVAL);
    CHECK_MSG(strcmp(err.message, "sample_rate 0: must be at least 1") == 0, "%s", err.message);
    CHECK(spectro_pitch_tracker_create(48000, 8, 0, 0, &t, &err) == SPECTRO_EINVAL &&
          strstr(err.message, "fft_size 8"));
    CHECK(spectro_pitch_tracker_create(48000, 4096, NAN, 0, &t, &err) == SPECTRO_EINVAL && strstr(err.message, "fmin"));
    CHECK(spectro_pitch_tracker_create(48000, 4096, 0, 0, NULL, &err) == SPECTRO_EINVAL);
    CHECK(spectro_pitch_tracker_estimate(NULL, x, &f0, &conf, &err) == SPECTRO_EINVAL);
    CHECK(spectro_pitch_tracker_create(48000, 4096, 0, 0, &t, &err) == SPECTRO_OK);
    CHECK(spectro_pitch_tracker_estimate(t, NULL, &f0, &conf, &err) == SPECTRO_EINVAL &&
          strcmp(err.message, "frame is NULL") == 0);
    CHECK(spectro_pitch_tracker_estimate(t, x, NULL, &conf, &err) == SPECTRO_EINVAL);
    spectro_pitch_tracker_destroy(t);
    spectro_pitch_tracker_destroy(NULL);
}

int main(void)
{
    test_levels_equal_the_engine(44100, 3.5);
    test_levels_equal_the_engine(11025, 2.0); /* steps of 1102 and 1103 samples */
    test_levels_of_a_sine();
    test_levels_refused();
    test_tracker_equals_the_engine();
    test_tracker_known_tones();
    test_tracker_refused();
    return check_done("test_api_meter");
}
