/* test_api: the public C API (include/spectro.h) through libspectro.so, using nothing else
 * of the project (only check.h's macros). The comparisons with the program's outputs
 * (--dump, --peaks, --tone, --bands, --average) are tests/e2e/e2e_api.py's, through
 * tests/api_tool.c; here: any chunking of a stream gives the one-shot result byte for byte,
 * channel modes, short and empty streams, the complex frames' scale, the sources and their
 * time ranges, and errors that name the field at fault. */
#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "spectro.h"

int check_failures, check_count; /* check.h's counters (no test_util: nothing but the API) */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint32_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 16);
}

/* A test signal: a sine per channel (different frequencies) plus a little noise. */
static float *make_signal(size_t frames, int channels, int rate)
{
    float *x = malloc(frames * (size_t)channels * sizeof *x);
    for (size_t i = 0; i < frames; i++)
        for (int c = 0; c < channels; c++)
            x[i * (size_t)channels + (size_t)c] =
                (float)(0.5 * sin(2.0 * 3.14159265358979 * (440.0 + 250.0 * c) * (double)i / rate) +
                        1e-3 * ((double)rng() / 4294967296.0 - 0.5));
    return x;
}

static spectro_analyzer *make(int channels, int channel, size_t n, size_t hop, const char *window)
{
    spectro_analyzer_config cfg = spectro_analyzer_config_default();
    spectro_analyzer *a = NULL;
    spectro_error err;
    cfg.channels = channels;
    cfg.channel = channel;
    cfg.fft_size = n;
    cfg.hop = hop;
    cfg.window = window;
    cfg.backend = "cpu";
    if (spectro_analyzer_create(&cfg, &a, &err) != SPECTRO_OK)
        fprintf(stderr, "create: %s\n", err.message);
    return a;
}

static size_t outs_of(const spectro_analyzer *a)
{
    spectro_analyzer_info info;
    info.size = sizeof info;
    spectro_analyzer_get_info(a, &info);
    return (size_t)info.out_channels;
}

/* The stream of x in random pieces, read at random moments in random amounts, into out
 * ([channel][frame][bin] over `frames`); the frames a channel it gave. */
static size_t stream_random(spectro_analyzer *a, int output, const float *x, size_t len, int channels, void *out,
                            size_t frames, size_t elem)
{
    size_t at = 0, got_total = 0, outs = outs_of(a), ready = 0;
    unsigned char *buf = malloc((frames + 1) * outs * elem + 1);
    CHECK(spectro_analyzer_reset(a, output, NULL) == SPECTRO_OK);
    while (at < len || ready) {
        size_t piece = rng() % 4 == 0 ? 0 : 1 + rng() % (rng() % 2 ? 7 : 9000), got = 0;
        if (piece > len - at)
            piece = len - at;
        CHECK(spectro_analyzer_push(a, x + at * (size_t)channels, piece, &ready, NULL) == SPECTRO_OK);
        at += piece;
        if (at == len && spectro_analyzer_finish(a, &ready, NULL) != SPECTRO_OK)
            break;
        if (rng() % 3 == 0 || at == len) {
            size_t want = at == len ? ready : rng() % (ready + 1);
            int rc = output == SPECTRO_OUTPUT_DB
                         ? spectro_analyzer_read(a, (float *)buf, want, &got, NULL)
                         : spectro_analyzer_read_complex(a, (spectro_complex *)buf, want, &got, NULL);
            CHECK(rc == SPECTRO_OK);
            CHECK(got == want);
            CHECK(spectro_analyzer_position(a) == got_total + got);
            for (size_t c = 0; c < outs && got_total + got <= frames; c++)
                memcpy((unsigned char *)out + (c * frames + got_total) * elem, buf + c * got * elem, got * elem);
            got_total += got;
            ready = spectro_analyzer_ready(a);
        }
        if (at == len && ready == 0)
            break;
    }
    free(buf);
    return got_total;
}

/* Stream = one shot, byte for byte, for dB and complex output, in several random chunkings. */
static void test_stream_equals_whole(int channels, int channel, size_t len, size_t n, size_t hop)
{
    spectro_analyzer *a = make(channels, channel, n, hop, "hann");
    float *x = make_signal(len, channels, 48000);
    size_t outs, bins = n / 2 + 1, frames;
    float *whole, *streamed;
    spectro_complex *zw, *zs;
    CHECK(a != NULL);
    if (!a)
        return;
    outs = outs_of(a);
    frames = (size_t)spectro_analyzer_frame_count(a, len);
    whole = malloc(outs * frames * bins * sizeof *whole);
    streamed = malloc(outs * frames * bins * sizeof *streamed);
    zw = malloc(outs * frames * bins * sizeof *zw);
    zs = malloc(outs * frames * bins * sizeof *zs);
    CHECK(spectro_analyzer_spectrogram(a, x, len, whole, frames, NULL) == SPECTRO_OK);
    CHECK(spectro_analyzer_stft(a, x, len, zw, frames, NULL) == SPECTRO_OK);
    for (int round = 0; round < 3; round++) {
        memset(streamed, 0xff, outs * frames * bins * sizeof *streamed); /* poisoned */
        memset(zs, 0xff, outs * frames * bins * sizeof *zs);
        CHECK(stream_random(a, SPECTRO_OUTPUT_DB, x, len, channels, streamed, frames, bins * sizeof(float)) == frames);
        CHECK_MSG(memcmp(whole, streamed, outs * frames * bins * sizeof *whole) == 0,
                  "dB stream != whole: channels %d channel %d len %zu n %zu hop %zu", channels, channel, len, n, hop);
        CHECK(stream_random(a, SPECTRO_OUTPUT_COMPLEX, x, len, channels, zs, frames, bins * sizeof(spectro_complex)) ==
              frames);
        CHECK_MSG(memcmp(zw, zs, outs * frames * bins * sizeof *zw) == 0,
                  "complex stream != whole: channels %d channel %d len %zu", channels, channel, len);
    }
    /* channel all: channel c's block is what channel c alone gives */
    if (channel == SPECTRO_CHANNEL_ALL)
        for (int c = 0; c < channels; c++) {
            spectro_analyzer *one = make(channels, c, n, hop, "hann");
            float *mine = malloc(frames * bins * sizeof *mine);
            CHECK(spectro_analyzer_spectrogram(one, x, len, mine, frames, NULL) == SPECTRO_OK);
            CHECK(memcmp(mine, whole + (size_t)c * frames * bins, frames * bins * sizeof *mine) == 0);
            free(mine);
            spectro_analyzer_destroy(one);
        }
    free(whole);
    free(streamed);
    free(zw);
    free(zs);
    free(x);
    spectro_analyzer_destroy(a);
}

/* |Z_k| is the level's amplitude: 20 log10 |Z_k| = the spectrogram's dB (plus 0). */
static void test_complex_scale(const char *window)
{
    size_t n = 1024, len = 6000, bins = n / 2 + 1, frames;
    spectro_analyzer *a = make(1, SPECTRO_CHANNEL_MIX, n, 0, window);
    float *x = make_signal(len, 1, 48000), *db;
    spectro_complex *z;
    double worst = 0.0;
    frames = (size_t)spectro_analyzer_frame_count(a, len);
    db = malloc(frames * bins * sizeof *db);
    z = malloc(frames * bins * sizeof *z);
    CHECK(spectro_analyzer_spectrogram(a, x, len, db, frames, NULL) == SPECTRO_OK);
    CHECK(spectro_analyzer_stft(a, x, len, z, frames, NULL) == SPECTRO_OK);
    for (size_t i = 0; i < frames * bins; i++) {
        double p = (double)z[i].re * z[i].re + (double)z[i].im * z[i].im;
        double level = 10.0 * log10(p > 1e-20 ? p : 1e-20);
        if (db[i] > -120.0 && fabs(level - db[i]) > worst)
            worst = fabs(level - db[i]);
    }
    CHECK_MSG(worst < 1e-3, "%s: |Z|^2 in dB differs from the spectrogram by %.3g dB", window, worst);
    /* a full-scale sine on bin 64 reads |Z| = 1 there */
    for (size_t i = 0; i < len; i++)
        x[i] = (float)sin(2.0 * 3.14159265358979 * 64.0 * (double)i / (double)n);
    CHECK(spectro_analyzer_stft(a, x, len, z, frames, NULL) == SPECTRO_OK);
    CHECK_CLOSE(hypot(z[64].re, z[64].im), 1.0, 1e-4);
    free(db);
    free(z);
    free(x);
    spectro_analyzer_destroy(a);
}

/* Fewer samples L than N: one zero-padded frame windowed by the L-point window (zeros
 * after), so a sine reads its level (the N-point window cut at L read -9 dB for -6), timed
 * at the centre of the L samples; the same from a stream; none: no frame. */
static void test_short_and_empty(void)
{
    size_t n = 512, ready = 99, got = 0;
    spectro_analyzer *a = make(1, SPECTRO_CHANNEL_MIX, n, 0, "hann");
    float *x = make_signal(300, 1, 48000), sine[300], padded[512], one[257], ref[257];
    spectro_error err;
    CHECK(spectro_analyzer_frame_count(a, 300) == 1);
    CHECK(spectro_analyzer_frame_count(a, 0) == 0);
    CHECK(spectro_frame_count(4096, 4096, 0) == 1 && spectro_frame_count(4097 + 1023, 4096, 0) == 2);
    for (int i = 0; i < 300; i++) /* 1500 Hz: bin 16 of 512 at 48 kHz */
        sine[i] = (float)(0.5 * sin(2.0 * 3.14159265358979323846 * 1500.0 * i / 48000.0));
    CHECK(spectro_analyzer_spectrogram(a, sine, 300, one, 1, NULL) == SPECTRO_OK);
    CHECK_MSG(fabs(one[16] - 20.0 * log10(0.5)) < 0.02, "a short sine reads %.3f dB", one[16]);
    CHECK_CLOSE(spectro_analyzer_input_frame_time(a, 300, 0), 150.0 / 48000, 1e-15);
    CHECK_CLOSE(spectro_analyzer_input_frame_time(a, 600, 0), 256.0 / 48000, 1e-15);
    memset(padded, 0, sizeof padded);
    memcpy(padded, sine, 300 * sizeof *sine);
    CHECK(spectro_analyzer_spectrogram(a, padded, n, ref, 1, NULL) == SPECTRO_OK);
    CHECK(ref[16] < one[16] - 1.0); /* the 512-point window over 300 samples reads low */
    CHECK(spectro_analyzer_spectrogram(a, x, 300, one, 1, NULL) == SPECTRO_OK);
    /* an empty stream ends with no frame */
    CHECK(spectro_analyzer_reset(a, SPECTRO_OUTPUT_DB, NULL) == SPECTRO_OK);
    CHECK(spectro_analyzer_finish(a, &ready, NULL) == SPECTRO_OK);
    CHECK(ready == 0);
    CHECK(spectro_analyzer_read(a, one, 1, &got, NULL) == SPECTRO_OK && got == 0);
    /* a finished stream takes no more samples until reset; the wrong read is refused */
    CHECK(spectro_analyzer_push(a, x, 10, NULL, &err) == SPECTRO_EINVAL && strstr(err.message, "reset"));
    CHECK(spectro_analyzer_read_complex(a, NULL, 0, &got, &err) == SPECTRO_EINVAL);
    CHECK(spectro_analyzer_spectrogram(a, x, 0, one, 1, &err) == SPECTRO_EINVAL && strstr(err.message, "count"));
    CHECK(spectro_analyzer_spectrogram(a, x, 3000, one, 1, &err) == SPECTRO_EINVAL &&
          strstr(err.message, "out_frames"));
    free(x);
    spectro_analyzer_destroy(a);
}

/* An analyzer config that fails; the message names `field`. */
static void expect_bad(spectro_analyzer_config cfg, int code, const char *field)
{
    spectro_analyzer *a = (spectro_analyzer *)&cfg; /* poisoned: must come back NULL */
    spectro_error err;
    memset(&err, 0, sizeof err);
    CHECK_MSG(spectro_analyzer_create(&cfg, &a, &err) == code, "%s: %s", field, err.message);
    CHECK(a == NULL);
    CHECK(err.code == code);
    CHECK_MSG(strncmp(err.message, field, strlen(field)) == 0, "want a line naming %s: \"%s\"", field, err.message);
    CHECK_MSG(!strstr(err.message, "--"), "an option name in \"%s\"", err.message);
}

static void test_errors(void)
{
    spectro_analyzer_config cfg = spectro_analyzer_config_default(), c;
    spectro_analyzer_info info;
    spectro_analyzer *a = NULL;
    c = cfg, c.fft_size = 1000, expect_bad(c, SPECTRO_EINVAL, "fft_size 1000");
    c = cfg, c.fft_size = 8, expect_bad(c, SPECTRO_EINVAL, "fft_size 8");
    c = cfg, c.window = "hanx", expect_bad(c, SPECTRO_EINVAL, "window hanx");
    c = cfg, c.window = "hann:3", expect_bad(c, SPECTRO_EINVAL, "window hann:3");
    c = cfg, c.channels = 2, c.channel = 2, expect_bad(c, SPECTRO_EINVAL, "channel 2");
    c = cfg, c.channel = -3, expect_bad(c, SPECTRO_EINVAL, "channel -3");
    c = cfg, c.backend = "gpu", expect_bad(c, SPECTRO_EINVAL, "backend \"gpu\"");
    c = cfg, c.sample_rate = 0, expect_bad(c, SPECTRO_EINVAL, "sample_rate 0");
    c = cfg, c.channels = 0, expect_bad(c, SPECTRO_EINVAL, "channels 0");
    c = cfg, c.cpu_threads = -1, expect_bad(c, SPECTRO_EINVAL, "cpu_threads -1");
    c = cfg, c.size = 0, expect_bad(c, SPECTRO_EINVAL, "spectro_analyzer_config.size");
    /* hop 0 is the default, N/4; the default N is the program's */
    CHECK(spectro_analyzer_create(&cfg, &a, NULL) == SPECTRO_OK);
    info.size = sizeof info;
    CHECK(spectro_analyzer_get_info(a, &info) == SPECTRO_OK);
    CHECK(info.fft_size == 4096 && info.hop == 1024 && info.bins == 2049);
    /* no job size to weigh: the GPU where one exists (many calls pay its start once) */
    CHECK(strcmp(info.window, "hann") == 0 &&
          (strcmp(info.backend, "cpu") == 0 || strcmp(info.backend, "cuda") == 0));
    CHECK_CLOSE(info.time_first_s, 2048.0 / 48000, 1e-15);
    spectro_analyzer_destroy(a);
    spectro_analyzer_destroy(NULL);
    CHECK(strcmp(spectro_strerror(SPECTRO_EINVAL), spectro_strerror(SPECTRO_EIO)) != 0);
    CHECK(spectro_version()[0] != 0 && spectro_api_version() == SPECTRO_API_VERSION);
#ifdef SPECTRO_TEST_VERSION
    CHECK(strcmp(spectro_version(), SPECTRO_TEST_VERSION) == 0);
#endif
    CHECK(spectro_window_count() >= 8 && strcmp(spectro_window_name(0), "hann") == 0);
    CHECK(spectro_window_name(-1) == NULL && spectro_backend_name(spectro_backend_count()) == NULL);
    CHECK(strcmp(spectro_average_name(SPECTRO_AVERAGE_MAX), "max") == 0);
}

/* The loudness meter: EBU Tech 3341 case 1 (a -23 dBFS 1 kHz sine on both channels, 20 s)
 * reads -23.0 LUFS; any chunking gives the same numbers bit for bit; the series; a short
 * input, bad arguments and an old result struct are refused naming the field. */
static void test_loudness(void)
{
    const int rate = 48000;
    const size_t frames = (size_t)rate * 20;
    float *x = malloc(frames * 2 * sizeof *x);
    spectro_loudness *a = NULL, *b = NULL;
    spectro_loudness_result ra, rb, old;
    spectro_error e;
    double w[2] = {1.0, -1.0};
    memset(&ra, 0, sizeof ra);
    memset(&rb, 0, sizeof rb);
    memset(&old, 0, sizeof old);
    ra.size = rb.size = sizeof ra;
    old.size = offsetof(spectro_loudness_result, frames); /* a struct before frames: too old */
    for (size_t i = 0; i < frames; i++)
        x[2 * i] = x[2 * i + 1] = (float)(pow(10.0, -23.0 / 20.0) * sin(2.0 * 3.14159265358979 * 1000.0 * i / rate));
    CHECK(spectro_loudness_create(rate, 2, NULL, &a, NULL) == SPECTRO_OK);
    CHECK(spectro_loudness_create(rate, 2, NULL, &b, NULL) == SPECTRO_OK);
    CHECK(spectro_loudness_add(a, x, frames, NULL) == SPECTRO_OK);
    for (size_t at = 0, step = 1; at < frames; at += step, step = step * 3 % 9973 + 1)
        CHECK(spectro_loudness_add(b, x + 2 * at, at + step <= frames ? step : frames - at, NULL) == SPECTRO_OK);
    CHECK(spectro_loudness_get_result(a, &ra, NULL) == SPECTRO_OK && spectro_loudness_get_result(b, &rb, NULL) == SPECTRO_OK);
    CHECK(fabs(ra.integrated_lufs + 23.0) < 0.1 && fabs(ra.momentary_max_lufs + 23.0) < 0.1);
    CHECK(memcmp(&ra, &rb, sizeof ra) == 0);
    CHECK(ra.frames == frames && ra.steps == 200 && spectro_loudness_steps(a) == 200);
    CHECK(isnan(spectro_loudness_momentary(a, 2)) && fabs(spectro_loudness_momentary(a, 3) + 23.0) < 0.1);
    CHECK(isnan(spectro_loudness_short_term(a, 28)) && fabs(spectro_loudness_short_term(a, 29) + 23.0) < 0.1);
    CHECK(isnan(spectro_loudness_momentary(a, 200)));
    CHECK(spectro_loudness_get_result(a, &old, &e) == SPECTRO_EINVAL && strstr(e.message, "spectro_loudness_result"));
    spectro_loudness_destroy(a);
    spectro_loudness_destroy(b);
    spectro_loudness_destroy(NULL);
    CHECK(spectro_loudness_create(rate, 2, NULL, &a, NULL) == SPECTRO_OK);
    CHECK(spectro_loudness_add(a, x, (size_t)rate * 3 / 10, NULL) == SPECTRO_OK); /* 300 ms */
    CHECK(spectro_loudness_get_result(a, &ra, &e) == SPECTRO_EINPUT && strstr(e.message, "0.4 s"));
    spectro_loudness_destroy(a);
    a = NULL;
    CHECK(spectro_loudness_create(100, 2, NULL, &a, &e) == SPECTRO_EINVAL && strstr(e.message, "sample_rate 100"));
    CHECK(spectro_loudness_create(rate, 0, NULL, &a, &e) == SPECTRO_EINVAL && strstr(e.message, "channels 0"));
    CHECK(spectro_loudness_create(rate, 2, w, &a, &e) == SPECTRO_EINVAL && strstr(e.message, "weights[1]"));
    CHECK(a == NULL);
    free(x);
}

/* Sources: a synth spec's info and samples, time ranges, errors naming the file or field. */
static void test_source(void)
{
    spectro_source_config cfg = spectro_source_config_default();
    spectro_source_info info;
    spectro_source *s = NULL, *r = NULL;
    spectro_error err;
    float whole[2 * 4800], part[2 * 4800];
    size_t got = 0, total = 0;
    CHECK(spectro_source_open("synth:rate=8000,channels=2,sine=1000,duration=0.6", NULL, &s, &err) == SPECTRO_OK);
    info.size = sizeof info;
    CHECK(spectro_source_get_info(s, &info) == SPECTRO_OK);
    CHECK(info.sample_rate == 8000 && info.channels == 2 && info.length == 4800 && info.source_length == 4800);
    CHECK(spectro_source_read(s, whole, 4800, &got, NULL) == SPECTRO_OK && got == 4800);
    CHECK(spectro_source_read(s, whole, 10, &got, NULL) == SPECTRO_OK && got == 0);
    cfg.start = 0.1;
    cfg.end = 0.35;
    CHECK(spectro_source_open("synth:rate=8000,channels=2,sine=1000,duration=0.6", &cfg, &r, &err) == SPECTRO_OK);
    CHECK(spectro_source_get_info(r, &info) == SPECTRO_OK);
    CHECK(info.start_sample == 800 && info.length == 2000 && info.start_s == 0.1);
    while (spectro_source_read(r, part + total * 2, 333, &got, NULL) == SPECTRO_OK && got)
        total += got;
    CHECK(total == 2000);
    CHECK(memcmp(part, whole + 2 * 800, 2 * 2000 * sizeof *part) == 0);
    spectro_source_close(r);
    spectro_source_close(s);
    spectro_source_close(NULL);
    /* errors: the file, or the field */
    CHECK(spectro_source_open("/nonexistent/x.wav", NULL, &s, &err) == SPECTRO_EINPUT);
    CHECK(s == NULL && strstr(err.message, "/nonexistent/x.wav"));
    CHECK(spectro_source_open("/nonexistent/--x.wav", NULL, &s, &err) == SPECTRO_EINPUT);
    CHECK_MSG(strstr(err.message, "/nonexistent/--x.wav") != NULL, "a path is not an option: %s", err.message);
    cfg.start = 0.5, cfg.end = 0.2;
    CHECK(spectro_source_open("synth:duration=1", &cfg, &s, &err) == SPECTRO_EINVAL);
    CHECK_MSG(strncmp(err.message, "end 0.2 must be after start 0.5", 31) == 0, "%s", err.message);
    cfg.start = 5, cfg.end = 0;
    CHECK(spectro_source_open("synth:duration=1", &cfg, &s, &err) == SPECTRO_EINVAL);
    CHECK_MSG(strstr(err.message, "start 5 s is past the end") != NULL, "%s", err.message);
    cfg.start = 0, cfg.end = 2;
    CHECK(spectro_source_open("synth:rate=8000,duration=1", &cfg, &s, &err) == SPECTRO_OK);
    while (spectro_source_read(s, whole, 4800, &got, &err) == SPECTRO_OK && got)
        ;
    CHECK_MSG(err.code == SPECTRO_EINVAL && strstr(err.message, "end 2 s is past the end"), "%s", err.message);
    spectro_source_close(s);
    cfg = spectro_source_config_default();
    cfg.raw_format = "f32le,48000";
    CHECK(spectro_source_open("-", &cfg, &s, &err) == SPECTRO_EINVAL);
    CHECK_MSG(strncmp(err.message, "raw_format", 10) == 0 && !strstr(err.message, "--"), "%s", err.message);
    cfg = spectro_source_config_default();
    cfg.stream = 2;
    CHECK(spectro_source_open("synth:duration=1", &cfg, &s, NULL) == SPECTRO_OK);
    spectro_source_close(s);
    CHECK(spectro_source_open(NULL, NULL, &s, &err) == SPECTRO_EINVAL && strncmp(err.message, "input", 5) == 0);
}

/* The reductions on a known signal; their exact agreement with the program is e2e_api.py's. */
static void test_reductions(void)
{
    size_t n = 4096, len = 48000, bins = n / 2 + 1, frames;
    spectro_analyzer *a = make(1, SPECTRO_CHANNEL_MIX, n, 0, "hann");
    float *x = malloc(len * sizeof *x), *db, avg[2049], *levels;
    spectro_peak *pk;
    spectro_tone tone;
    spectro_tone_config tc = spectro_tone_config_default();
    spectro_bands_config bc = spectro_bands_config_default();
    spectro_bands *b = NULL;
    spectro_error err;
    for (size_t i = 0; i < len; i++)
        x[i] = (float)(0.5 * sin(2 * 3.14159265358979 * 1000.0 * (double)i / 48000) +
                       0.005 * sin(2 * 3.14159265358979 * 2000.0 * (double)i / 48000));
    frames = (size_t)spectro_analyzer_frame_count(a, len);
    db = malloc(frames * bins * sizeof *db);
    pk = malloc(frames * sizeof *pk);
    CHECK(spectro_analyzer_spectrogram(a, x, len, db, frames, NULL) == SPECTRO_OK);
    CHECK(spectro_analyzer_peaks(a, db, frames, 0, 0, pk, NULL) == SPECTRO_OK);
    CHECK_CLOSE(pk[3].freq_hz, 1000.0, 0.1);
    CHECK_CLOSE(pk[3].db, 20 * log10(0.5), 0.05);
    CHECK(spectro_analyzer_peaks(a, db, frames, 1500, 2500, pk, NULL) == SPECTRO_OK);
    CHECK_CLOSE(pk[3].freq_hz, 2000.0, 0.1);
    CHECK(spectro_analyzer_peaks(a, db, frames, 30000, 0, pk, &err) == SPECTRO_EINVAL &&
          strncmp(err.message, "fmin/fmax", 9) == 0);
    CHECK(spectro_analyzer_average(a, db, frames, SPECTRO_AVERAGE_MAX, 0, avg, NULL) == SPECTRO_OK);
    CHECK(avg[85] > -7.0 && avg[85] < -6.0);
    CHECK(spectro_analyzer_average(a, db, frames, 7, 0, avg, &err) == SPECTRO_EINVAL &&
          strncmp(err.message, "mode 7", 6) == 0);
    tone.size = sizeof tone;
    CHECK(spectro_analyzer_tone(a, db, frames, NULL, &tone, NULL) == SPECTRO_OK);
    CHECK_CLOSE(tone.fundamental_hz, 1000.0, 0.1);
    CHECK_CLOSE(tone.thd_percent, 1.0, 0.05);
    CHECK(tone.frames_averaged == frames && tone.harmonics >= 1 && tone.harmonic[0].n == 2);
    tc.fundamental_hz = 30000;
    CHECK(spectro_analyzer_tone(a, db, frames, &tc, &tone, &err) == SPECTRO_EINVAL);
    CHECK_MSG(strncmp(err.message, "fundamental_hz", 14) == 0, "%s", err.message);
    tc = spectro_tone_config_default(), tc.fmin = 30000;
    CHECK(spectro_analyzer_tone(a, db, frames, &tc, &tone, &err) == SPECTRO_EINVAL);
    CHECK_MSG(strncmp(err.message, "fmin", 4) == 0, "%s", err.message);
    CHECK(spectro_bands_create(a, &bc, &b, NULL) == SPECTRO_OK);
    CHECK(spectro_bands_count(b) > 10 && spectro_bands_unresolved_count(b) > 0);
    levels = malloc(frames * spectro_bands_count(b) * sizeof *levels);
    CHECK(spectro_bands_levels(b, db, frames, levels, NULL) == SPECTRO_OK);
    for (size_t i = 0; i < spectro_bands_count(b); i++)
        if (spectro_bands_lower_hz(b, i) < 1000 && spectro_bands_upper_hz(b, i) > 1000)
            CHECK_CLOSE(levels[3 * spectro_bands_count(b) + i], 20 * log10(0.5), 0.1);
    CHECK(spectro_bands_average(b, db, frames, SPECTRO_AVERAGE_MEAN, levels, NULL) == SPECTRO_OK);
    spectro_bands_destroy(b);
    spectro_bands_destroy(NULL);
    bc.fraction = 5;
    CHECK(spectro_bands_create(a, &bc, &b, &err) == SPECTRO_EINVAL && strncmp(err.message, "fraction 5", 10) == 0);
    bc = spectro_bands_config_default(), bc.weighting = "B";
    CHECK(spectro_bands_create(a, &bc, &b, &err) == SPECTRO_EINVAL && strncmp(err.message, "weighting", 9) == 0);
    bc = spectro_bands_config_default(), bc.fmin = 20, bc.fmax = 40;
    CHECK(spectro_bands_create(a, &bc, &b, &err) == SPECTRO_EINVAL);
    CHECK_MSG(!strstr(err.message, "--") && strstr(err.message, "fft_size"), "%s", err.message);
    free(levels);
    free(pk);
    free(db);
    free(x);
    spectro_analyzer_destroy(a);
}

/* Analyzers on threads of their own (the header's rule: different handles are independent)
 * give what one thread gives, while the cpu backend's and the engine's shared pools serve
 * them all at once. */
typedef struct {
    const float *x;
    size_t len, frames;
    float *out;
    int rc;
} thread_job;

static void *thread_main(void *arg)
{
    thread_job *j = arg;
    spectro_analyzer *a = make(2, SPECTRO_CHANNEL_ALL, 1024, 256, "blackman");
    j->rc = SPECTRO_ENOMEM;
    for (int r = 0; a && r < 5; r++)
        j->rc = spectro_analyzer_spectrogram(a, j->x, j->len, j->out, j->frames, NULL);
    spectro_analyzer_destroy(a);
    return NULL;
}

static void test_threads(void)
{
    enum { THREADS = 4 };
    size_t len = 60000, bins = 513, frames;
    float *x = make_signal(len, 2, 48000), *ref;
    spectro_analyzer *a = make(2, SPECTRO_CHANNEL_ALL, 1024, 256, "blackman");
    thread_job jobs[THREADS];
    pthread_t th[THREADS];
    frames = (size_t)spectro_analyzer_frame_count(a, len);
    ref = malloc(2 * frames * bins * sizeof *ref);
    CHECK(spectro_analyzer_spectrogram(a, x, len, ref, frames, NULL) == SPECTRO_OK);
    for (int t = 0; t < THREADS; t++) {
        jobs[t].x = x;
        jobs[t].len = len;
        jobs[t].frames = frames;
        jobs[t].out = malloc(2 * frames * bins * sizeof *ref);
        CHECK(pthread_create(&th[t], NULL, thread_main, &jobs[t]) == 0);
    }
    for (int t = 0; t < THREADS; t++) {
        CHECK(pthread_join(th[t], NULL) == 0);
        CHECK(jobs[t].rc == SPECTRO_OK);
        CHECK(memcmp(jobs[t].out, ref, 2 * frames * bins * sizeof *ref) == 0);
        free(jobs[t].out);
    }
    free(ref);
    free(x);
    spectro_analyzer_destroy(a);
}

/* spectro_transfer: channel 1 is white noise on channel 0 delayed by 5 samples and halved: 20 log10 0.5 dB
 * wherever the frames overlap enough (a Hann frame of 1024 keeps coherence ~0.9995 at a delay
 * of 5), the phase that delay's, the delay 5 samples. */
static void test_transfer(void)
{
    size_t n = 1024, len = 40000, d = 5, bins = n / 2 + 1, frames;
    spectro_analyzer *a = make(2, SPECTRO_CHANNEL_ALL, n, 0, "hann");
    float *x = malloc((len + d) * sizeof *x), *xy = malloc(2 * len * sizeof *xy), *table;
    spectro_complex *z;
    spectro_transfer *t = NULL;
    spectro_error err = {0};
    double delay = 0.0;
    CHECK(x && xy);
    for (size_t i = 0; i < len + d; i++) /* white noise */
        x[i] = (float)((double)rng() / 4294967296.0 - 0.5);
    for (size_t i = 0; i < len; i++) {
        xy[2 * i] = x[i + d];
        xy[2 * i + 1] = 0.5f * x[i];
    }
    frames = (size_t)spectro_analyzer_frame_count(a, len);
    z = malloc(2 * frames * bins * sizeof *z);
    table = malloc(bins * SPECTRO_TRANSFER_COLUMNS * sizeof *table);
    CHECK(z && table);
    CHECK(spectro_analyzer_stft(a, xy, len, z, frames, &err) == SPECTRO_OK);
    CHECK_MSG(spectro_transfer_create(a, &t, &err) == SPECTRO_OK, "%s", err.message);
    CHECK(spectro_transfer_add(t, z, z + frames * bins, frames, &err) == SPECTRO_OK);
    CHECK(spectro_transfer_averages(t) == frames);
    CHECK(spectro_transfer_table(t, table, &delay, &err) == SPECTRO_OK);
    CHECK_MSG(fabs(delay * 48000 - (double)d) < 0.1, "delay %g samples", delay * 48000);
    for (size_t k = 1; k + 1 < bins; k++) {
        const float *row = table + k * SPECTRO_TRANSFER_COLUMNS;
        double ph = fmod(row[2] + 360.0 * row[0] * (double)d / 48000 + 540.0, 360.0) - 180.0;
        CHECK(fabsf(row[0] - (float)k * 48000.0f / (float)n) < 1e-3f);
        CHECK_MSG(row[3] > 0.99f && fabs(row[1] - 20 * log10(0.5)) < 0.05 && fabs(ph) < 1.0,
                  "bin %zu: %g dB %g deg coherence %g", k, row[1], ph, row[3]);
    }
    CHECK(spectro_transfer_add(NULL, z, z, 1, &err) == SPECTRO_EINVAL);
    CHECK(spectro_transfer_table(t, NULL, NULL, &err) == SPECTRO_EINVAL);
    spectro_transfer_destroy(t);
    spectro_transfer_destroy(NULL);
    spectro_analyzer_destroy(a);
    free(x);
    free(xy);
    free(z);
    free(table);
}

/* The transforms (API version 3): the columns and their frequencies, a stereo analysis of
 * [channel][frame][column], each channel's strongest mel band holding its sine (440 and
 * 690 Hz), the frames' count; errors that name the field; a transform kept for another
 * analyzer refused. */
static void test_transforms(void)
{
    const size_t len = 48000, n = 4096;
    spectro_analyzer *a = make(2, SPECTRO_CHANNEL_ALL, n, 0, "hann"), *other = make(1, SPECTRO_CHANNEL_MIX, 2048, 0,
                                                                                   "hann");
    spectro_transform_config cfg = spectro_transform_config_default();
    spectro_transform *t = NULL;
    spectro_error err;
    float *x = make_signal(len, 2, 48000), *out;
    size_t frames = (size_t)spectro_analyzer_frame_count(a, len);
    CHECK(spectro_api_version() >= 3);
    cfg.bands = 64;
    CHECK_MSG(spectro_transform_create(a, &cfg, &t, &err) == SPECTRO_OK, "%s", err.message);
    CHECK(spectro_transform_columns(t) == 64 && spectro_transform_depth(t) == 1);
    for (size_t i = 1; i < 64; i++)
        CHECK(spectro_transform_freq_hz(t, i) > spectro_transform_freq_hz(t, i - 1));
    out = malloc(2 * frames * 64 * sizeof *out);
    CHECK_MSG(spectro_transform_compute(t, a, x, len, out, frames, &err) == SPECTRO_OK, "%s", err.message);
    for (int c = 0; c < 2; c++) {
        const float *row = out + ((size_t)c * frames + frames / 2) * 64;
        size_t best = 0;
        double f = 440.0 + 250.0 * c;
        for (size_t i = 1; i < 64; i++)
            best = row[i] > row[best] ? i : best;
        CHECK_MSG(fabs(log2(spectro_transform_freq_hz(t, best) / f)) < 0.15, "channel %d: band %zu at %g Hz", c, best,
                  spectro_transform_freq_hz(t, best));
    }
    CHECK(spectro_transform_compute(t, a, x, 100, out, frames, &err) == SPECTRO_EINVAL &&
          strstr(err.message, "count 100"));
    CHECK(spectro_transform_compute(t, other, x, len, out, frames, &err) == SPECTRO_EINVAL &&
          strstr(err.message, "not the transform's"));
    spectro_transform_destroy(t);
    t = NULL;
    cfg.kind = "fourier";
    CHECK(spectro_transform_create(a, &cfg, &t, &err) == SPECTRO_EINVAL && strstr(err.message, "kind") && !t);
    cfg.kind = "cqt";
    cfg.bands = 12;
    CHECK(spectro_transform_create(a, &cfg, &t, &err) == SPECTRO_EINVAL && strstr(err.message, "needs N >= 32768"));
    cfg.kind = "reassign";
    CHECK(spectro_transform_create(a, &cfg, &t, &err) == SPECTRO_OK && spectro_transform_depth(t) == 3 &&
          spectro_transform_columns(t) == n / 2 + 1);
    spectro_transform_destroy(t);
    spectro_transform_destroy(NULL);
    free(out);
    free(x);
    spectro_analyzer_destroy(a);
    spectro_analyzer_destroy(other);
}

/* spectro_pitch on a 220 Hz tone, spectro_analyzer_bandwidth on white noise (full-band) and
 * the same low-passed at 12 kHz; their errors name the field. */
static void test_measure(void)
{
    enum { RATE = 48000, LEN = RATE };
    float *x = malloc(LEN * sizeof *x), *db;
    double f0[64], conf[64];
    size_t frames = 0;
    spectro_error e = {0, ""};
    spectro_analyzer_config cfg = spectro_analyzer_config_default();
    spectro_analyzer *a = NULL;
    spectro_bandwidth_result r;
    uint64_t nf;
    for (size_t i = 0; i < LEN; i++)
        x[i] = (float)(0.4 * sin(2.0 * 3.14159265358979 * 220.0 * (double)i / RATE));
    CHECK(spectro_pitch(x, LEN, 1, RATE, 2048, 1024, 0, 0, f0, conf, 64, &frames, &e) == SPECTRO_OK);
    CHECK(frames == spectro_frame_count(LEN, 2048, 1024));
    for (size_t f = 0; f < frames; f++)
        CHECK_MSG(fabs(f0[f] - 220.0) < 0.5 && conf[f] > 0.9, "frame %zu: %g Hz (%g)", f, f0[f], conf[f]);
    CHECK(spectro_pitch(x, LEN, 1, RATE, 2048, 1024, 0, 0, f0, conf, 4, &frames, &e) == SPECTRO_EINVAL);
    CHECK(spectro_pitch(x, LEN, 1, RATE, 256, 64, 20, 0, f0, conf, 64, &frames, &e) == SPECTRO_EINVAL &&
          strstr(e.message, "fmin"));
    for (size_t i = 0; i < LEN; i++) /* white noise */
        x[i] = (float)(0.2 * ((double)rng() / 4294967296.0 - 0.5));
    cfg.sample_rate = RATE;
    cfg.fft_size = 4096;
    cfg.backend = "cpu";
    CHECK(spectro_analyzer_create(&cfg, &a, &e) == SPECTRO_OK);
    nf = spectro_analyzer_frame_count(a, LEN);
    db = malloc(nf * 2049 * sizeof *db);
    CHECK(spectro_analyzer_spectrogram(a, x, LEN, db, nf, &e) == SPECTRO_OK);
    CHECK(spectro_analyzer_bandwidth(a, db, nf, &r, &e) == SPECTRO_OK);
    CHECK_MSG(r.full_band && r.encoders == NULL && r.nyquist_hz == 24000.0, "noise: %g Hz", r.cutoff_hz);
    for (size_t f = 0; f < nf; f++) /* a brick wall at 12 kHz, 80 dB down above it */
        for (size_t k = 1024; k < 2049; k++)
            db[f * 2049 + k] -= 80.0f;
    CHECK(spectro_analyzer_bandwidth(a, db, nf, &r, &e) == SPECTRO_OK);
    CHECK_MSG(!r.full_band && fabs(r.cutoff_hz - 12000.0) < 300.0 && r.drop_db > 60.0, "cut %g Hz, drop %g",
              r.cutoff_hz, r.drop_db);
    CHECK(spectro_analyzer_bandwidth(a, db, nf, NULL, &e) == SPECTRO_EINVAL);
    spectro_analyzer_destroy(a);
    free(db);
    free(x);
}

int main(void)
{
    test_stream_equals_whole(1, SPECTRO_CHANNEL_MIX, 50000, 1024, 0);
    test_stream_equals_whole(1, SPECTRO_CHANNEL_MIX, 30000, 256, 300); /* hop not a divisor */
    test_stream_equals_whole(1, SPECTRO_CHANNEL_MIX, 9000, 64, 100);   /* hop > n */
    test_stream_equals_whole(3, SPECTRO_CHANNEL_MIX, 20000, 512, 0);
    test_stream_equals_whole(3, 1, 20000, 512, 128);
    test_stream_equals_whole(3, SPECTRO_CHANNEL_ALL, 20000, 512, 0);
    test_stream_equals_whole(2, SPECTRO_CHANNEL_ALL, 700, 1024, 0); /* short: one padded frame */
    test_complex_scale("hann");
    test_complex_scale("flattop");
    test_complex_scale("kaiser:6");
    test_short_and_empty();
    test_errors();
    test_source();
    test_reductions();
    test_transfer();
    test_threads();
    test_loudness();
    test_transforms();
    test_measure();
    return check_done("test_api");
}
