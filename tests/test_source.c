/* test_source: the synthetic source against sin() in double, the file source on WAV files
 * written here by hand (PCM16 mono, float stereo, NaN/Inf, truncated), and the errors
 * (missing path, a directory, an empty file, a text file) with their codes and messages;
 * truncation in every container libsndfile writes; seeking (the seek op and reading up to
 * the start) against a whole read, raw samples (--raw-format), a FIFO read as a stream by
 * the pipe kind, the table's hand-over from libsndfile to FFmpeg. The random seed is
 * printed; SPECTRO_TEST_SEED=... repeats a run. */
#include <dlfcn.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <sndfile.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "check.h"
#include "source.h"
#include "test_util.h"

#define TEST_PI 3.14159265358979323846

/* Reads the whole source in random block sizes; returns frames read (buffer of cap frames). */
static size_t read_all(source *s, float *dst, size_t cap_frames, int *err_out)
{
    int ch = source_get_info(s)->channels;
    size_t total = 0, got;
    sp_errinfo ei = {{0}};
    float *tmp = malloc(sizeof(float) * (size_t)ch * 1000);
    *err_out = SP_OK;
    for (;;) {
        size_t want = rng_range(1, 1000);
        int err = source_read(s, tmp, want, &got, &ei);
        if (err != SP_OK) {
            *err_out = err;
            break;
        }
        if (got == 0)
            break;
        if (got > want) {
            *err_out = -100;
            break;
        }
        if (total + got <= cap_frames)
            memcpy(dst + total * (size_t)ch, tmp, got * (size_t)ch * sizeof *tmp);
        total += got;
    }
    free(tmp);
    return total;
}

/* ---- synth ------------------------------------------------------------------------------ */

static void test_synth(void)
{
    source_synth_config c = source_synth_config_default();
    source *s = NULL;
    sp_errinfo ei = {{0}};
    const size_t frames = 20000 + rng_range(0, 5000);
    float *buf;
    int err;
    size_t got;
    double maxerr = 0.0;

    c.rate = 8000 + (int)rng_range(0, 88000);
    c.channels = (int)rng_range(1, 3);
    c.frames = (int64_t)frames;
    c.ntones = 3;
    for (int k = 0; k < c.ntones; k++) {
        c.freq[k] = 20.0 + rng_unit() * 0.4 * c.rate;
        c.amp[k] = 0.05 + 0.25 * rng_unit();
    }
    c.channel_step_hz = 10.0 + 100.0 * rng_unit();
    c.noise = 0.0;
    CHECK(source_open_synth(&c, &s, &ei) == SP_OK);
    if (!s)
        return;
    CHECK(source_get_info(s)->rate == c.rate);
    CHECK(source_get_info(s)->channels == c.channels);
    CHECK(source_get_info(s)->samples_hint == (int64_t)frames);
    buf = malloc(sizeof(float) * (size_t)c.channels * (frames + 1000));
    got = read_all(s, buf, frames + 1000, &err);
    CHECK(err == SP_OK);
    CHECK_MSG(got == frames, "synth gave %zu frames, configured %zu", got, frames);
    for (size_t i = 0; i < got && i < frames; i++) {
        for (int ch = 0; ch < c.channels; ch++) {
            double v = 0.0;
            for (int k = 0; k < c.ntones; k++)
                v += c.amp[k] * sin(2.0 * TEST_PI * (c.freq[k] + ch * c.channel_step_hz) * (double)i / c.rate);
            double e = fabs(v - (double)buf[i * (size_t)c.channels + (size_t)ch]);
            if (e > maxerr)
                maxerr = e;
        }
    }
    /* float rounding of a sum below 1.0 is < 6e-8; the phase reduction adds ~1e-12 */
    CHECK_MSG(maxerr < 1e-6, "synth differs from sin() by %.3g", maxerr);
    CHECK(source_read(s, buf, 10, &got, &ei) == SP_OK && got == 0);
    CHECK(source_nonfinite(s) == 0);
    CHECK(source_truncated(s) == 0);
    source_close(s);
    free(buf);

    /* noise: bounded by its amplitude around the tone, repeatable for a seed */
    {
        source *a = NULL, *b = NULL;
        float x[4096], y[4096];
        int differ = 0, out_of_range = 0, same = 1;
        c = source_synth_config_default();
        c.frames = 4096;
        c.noise = 0.25;
        c.seed = (uint32_t)(rng_next() | 1);
        CHECK(source_open_synth(&c, &a, &ei) == SP_OK);
        CHECK(source_open_synth(&c, &b, &ei) == SP_OK);
        if (a && b) {
            CHECK(read_all(a, x, 4096, &err) == 4096);
            CHECK(read_all(b, y, 4096, &err) == 4096);
            for (size_t i = 0; i < 4096; i++) {
                double tone = c.amp[0] * sin(2.0 * TEST_PI * c.freq[0] * (double)i / c.rate);
                if (x[i] != y[i])
                    same = 0;
                if (fabs(x[i] - tone) > c.noise + 1e-6)
                    out_of_range++;
                if (fabs(x[i] - tone) > 1e-3)
                    differ++;
            }
            CHECK_MSG(same, "two synth sources with one seed differ");
            CHECK_MSG(out_of_range == 0, "%d noisy samples beyond the noise amplitude", out_of_range);
            CHECK_MSG(differ > 3000, "noise missing: only %d of 4096 samples differ from the tone", differ);
        }
        source_close(a);
        source_close(b);
    }

    /* bad configurations */
    c = source_synth_config_default();
    c.channels = 0;
    s = NULL;
    CHECK(source_open_synth(&c, &s, &ei) == SP_EINVAL && s == NULL);
    c = source_synth_config_default();
    c.rate = 0;
    CHECK(source_open_synth(&c, &s, &ei) == SP_EINVAL);
    c = source_synth_config_default();
    c.ntones = SOURCE_SYNTH_MAX_TONES + 1;
    CHECK(source_open_synth(&c, &s, &ei) == SP_EINVAL);
}

/* ---- files ------------------------------------------------------------------------------ */

static void test_pcm16_mono(void)
{
    char path[512];
    const size_t frames = 3000 + rng_range(0, 4000);
    const int rate = 8000 + (int)rng_range(0, 40000);
    int16_t *pcm = malloc(frames * sizeof *pcm);
    float *got = malloc((frames + 16) * sizeof *got);
    source *s = NULL;
    sp_errinfo ei = {{0}};
    size_t n, bad = 0;
    int err;

    tu_path(path, sizeof path, "mono16.wav");
    for (size_t i = 0; i < frames; i++)
        pcm[i] = (int16_t)((int)rng_range(0, 65535) - 32768);
    pcm[0] = -32768;
    pcm[1] = 32767;
    CHECK(tu_write_wav(path, 1, 1, rate, pcm, frames * 2, frames * 2) == 0);
    err = source_open_file(path, &s, &ei);
    CHECK_MSG(err == SP_OK, "%s: %d %s", path, err, ei.msg);
    if (!s)
        goto out;
    {
        const source_info *in = source_get_info(s);
        CHECK(in->rate == rate);
        CHECK(in->channels == 1);
        CHECK_MSG(in->samples_hint == (int64_t)frames, "samples_hint %lld, wrote %zu", (long long)in->samples_hint,
                  frames);
        CHECK_MSG(strstr(in->format, "WAV") != NULL && strstr(in->format, "16") != NULL, "format \"%s\"",
                  in->format);
        CHECK_MSG(strcmp(in->name, path) == 0, "name \"%s\"", in->name);
    }
    n = read_all(s, got, frames + 16, &err);
    CHECK(err == SP_OK);
    CHECK_MSG(n == frames, "read %zu of %zu frames", n, frames);
    for (size_t i = 0; i < n && i < frames; i++)
        if (got[i] != (float)pcm[i] / 32768.0f)
            bad++;
    CHECK_MSG(bad == 0, "%zu PCM16 samples differ from value/32768", bad);
    CHECK(source_nonfinite(s) == 0);
    CHECK_MSG(source_truncated(s) == 0, "an intact file reported truncated");
out:
    source_close(s);
    free(pcm);
    free(got);
}

static void test_float_stereo(void)
{
    char path[512];
    const size_t frames = 2000 + rng_range(0, 3000);
    const int rate = 44100;
    float *data = malloc(frames * 2 * sizeof *data);
    float *got = malloc((frames + 16) * 2 * sizeof *got);
    source *s = NULL;
    sp_errinfo ei = {{0}};
    size_t n, bad = 0, nonfinite_written = 0;
    int err;

    tu_path(path, sizeof path, "stereo_float.wav");
    for (size_t i = 0; i < frames * 2; i++)
        data[i] = (float)(2.0 * rng_unit() - 1.0);
    /* some NaN and infinities at random places, counted */
    for (int k = 0; k < 25; k++) {
        size_t at = rng_range(0, frames * 2 - 1);
        if (!isfinite(data[at]))
            continue;
        data[at] = k % 3 == 0 ? NAN : (k % 3 == 1 ? INFINITY : -INFINITY);
        nonfinite_written++;
    }
    CHECK(tu_write_wav(path, 3, 2, rate, data, frames * 8, frames * 8) == 0);
    err = source_open_file(path, &s, &ei);
    CHECK_MSG(err == SP_OK, "%s: %d %s", path, err, ei.msg);
    if (!s)
        goto out;
    {
        const source_info *in = source_get_info(s);
        CHECK(in->rate == rate);
        CHECK(in->channels == 2);
        CHECK(in->samples_hint == (int64_t)frames);
        CHECK_MSG(strstr(in->format, "WAV") != NULL && strstr(in->format, "float") != NULL, "format \"%s\"",
                  in->format);
    }
    n = read_all(s, got, frames + 16, &err);
    CHECK(err == SP_OK);
    CHECK_MSG(n == frames, "read %zu of %zu frames", n, frames);
    for (size_t i = 0; i < 2 * n && i < 2 * frames; i++) {
        float want = isfinite(data[i]) ? data[i] : 0.0f;
        if (memcmp(&got[i], &want, sizeof want) != 0) /* -0.0 vs 0.0 counts */
            bad++;
    }
    CHECK_MSG(bad == 0, "%zu float samples differ (non-finite must read as 0)", bad);
    CHECK_MSG(source_nonfinite(s) == nonfinite_written, "source_nonfinite %llu, wrote %zu",
              (unsigned long long)source_nonfinite(s), nonfinite_written);
    CHECK(source_truncated(s) == 0);
out:
    source_close(s);
    free(data);
    free(got);
}

static void test_truncated(void)
{
    char path[512];
    const size_t frames = 4000 + rng_range(0, 4000), present = frames / 2 + rng_range(0, frames / 4);
    int16_t *pcm = malloc(frames * 2 * sizeof *pcm);
    float *got = malloc((frames + 16) * 2 * sizeof *got);
    source *s = NULL;
    sp_errinfo ei = {{0}};
    size_t n, bad = 0;
    int err;

    tu_path(path, sizeof path, "truncated.wav");
    for (size_t i = 0; i < frames * 2; i++)
        pcm[i] = (int16_t)((int)rng_range(0, 65535) - 32768);
    /* stereo PCM16; the header promises `frames`, only `present` are there */
    CHECK(tu_write_wav(path, 1, 2, 22050, pcm, present * 4, frames * 4) == 0);
    err = source_open_file(path, &s, &ei);
    CHECK_MSG(err == SP_OK, "%s: %d %s", path, err, ei.msg);
    if (!s)
        goto out;
    n = read_all(s, got, frames + 16, &err);
    CHECK(err == SP_OK);
    CHECK_MSG(n == present, "read %zu frames of a file holding %zu", n, present);
    for (size_t i = 0; i < 2 * n && i < 2 * present; i++)
        if (got[i] != (float)pcm[i] / 32768.0f)
            bad++;
    CHECK_MSG(bad == 0, "%zu samples of the truncated file differ", bad);
    CHECK_MSG(source_truncated(s) == 1, "source_truncated() = %d for a cut file", source_truncated(s));
out:
    source_close(s);
    free(pcm);
    free(got);
}

/* ---- truncation in every container (issue 17, item 4) ------------------------------------ */

/* Writes `frames` of a noisy sine in `format` with libsndfile; 0, or -1 when this libsndfile
 * cannot write the format (Opus, MP3 are optional in its builds). */
static int write_with_sndfile(const char *path, int format, size_t frames)
{
    float *x = malloc((frames ? frames : 1) * sizeof *x);
    int rc;
    if (!x)
        return -1;
    for (size_t i = 0; i < frames; i++)
        x[i] = 0.3f * (float)sin(0.1 * (double)i) + 0.2f * (float)(rng_unit() - 0.5);
    rc = tu_write_sndfile(path, format, 48000, 1, x, frames);
    free(x);
    return rc;
}

/* The source's reading of path: 0 when it opens, with frames read and the truncation flag. */
static int read_file_source(const char *path, size_t *frames, int *truncated, sp_errinfo *ei)
{
    source *s = NULL;
    int err = source_open_file(path, &s, ei);
    float *buf = malloc(sizeof(float) * 600000);
    *frames = 0;
    *truncated = -1;
    if (err == SP_OK && buf) {
        *frames = read_all(s, buf, 600000, &err);
        *truncated = source_truncated(s);
    }
    source_close(s);
    free(buf);
    return err;
}

static void test_truncated_formats(void)
{
    static const struct {
        const char *name;
        int format;
    } fmts[] = {
        {"aiff", SF_FORMAT_AIFF | SF_FORMAT_PCM_16}, {"au", SF_FORMAT_AU | SF_FORMAT_PCM_16},
        {"w64", SF_FORMAT_W64 | SF_FORMAT_PCM_16},   {"caf", SF_FORMAT_CAF | SF_FORMAT_PCM_16},
        {"ogg", SF_FORMAT_OGG | SF_FORMAT_VORBIS},    {"opus", SF_FORMAT_OGG | SF_FORMAT_OPUS},
        {"wav", SF_FORMAT_WAV | SF_FORMAT_PCM_16},    {"flac", SF_FORMAT_FLAC | SF_FORMAT_PCM_16},
        {"rf64", SF_FORMAT_RF64 | SF_FORMAT_PCM_16},  {"aifc", SF_FORMAT_AIFF | SF_FORMAT_FLOAT},
        {"mp3", SF_FORMAT_MPEG | SF_FORMAT_MPEG_LAYER_III},
    };
    const size_t frames = 480000; /* 10 s: half an Ogg/Opus file still holds data pages */
    for (size_t i = 0; i < sizeof fmts / sizeof fmts[0]; i++) {
        char path[512], name[64];
        struct stat sb;
        sp_errinfo ei = {{0}};
        size_t n;
        int trunc, err;
        snprintf(name, sizeof name, "whole.%s", fmts[i].name);
        tu_path(path, sizeof path, name);
        if (write_with_sndfile(path, fmts[i].format, frames) != 0) {
            printf("test_source: this libsndfile cannot write %s: not tested\n", fmts[i].name);
            continue;
        }
        err = read_file_source(path, &n, &trunc, &ei);
        CHECK_MSG(err == SP_OK && n == frames && trunc == 0, "%s whole: err %d (%s), %zu of %zu frames, truncated %d",
                  fmts[i].name, err, ei.msg, n, frames, trunc);
        CHECK(stat(path, &sb) == 0 && truncate(path, sb.st_size / 2) == 0);
        err = read_file_source(path, &n, &trunc, &ei);
        CHECK_MSG(err == SP_OK && n > frames / 4 && n < frames && trunc == 1,
                  "%s halved: err %d (%s), %zu of %zu frames, truncated %d", fmts[i].name, err, ei.msg, n, frames,
                  trunc);
        remove(path);
    }
}

static void expect_input_error(const char *path, const char *what)
{
    source *s = (source *)0x1;
    sp_errinfo ei;
    int err;
    memset(&ei, 0, sizeof ei);
    err = source_open_file(path, &s, &ei);
    CHECK_MSG(err == SP_EINPUT, "%s: got %d, expected SP_EINPUT (%s)", what, err, ei.msg);
    CHECK_MSG(strstr(ei.msg, path) != NULL, "%s: message \"%s\" does not name %s", what, ei.msg, path);
    CHECK_MSG(s == NULL, "%s: *out not cleared", what);
    if (err == SP_OK && s && s != (source *)0x1)
        source_close(s);
}

static void test_errors(void)
{
    char path[512];
    FILE *f;

    tu_path(path, sizeof path, "does-not-exist.wav");
    expect_input_error(path, "missing file");
    tu_path(path, sizeof path, "no-such-dir/x.wav");
    expect_input_error(path, "missing directory");

    tu_path(path, sizeof path, "a-directory.wav");
    CHECK(mkdir(path, 0700) == 0);
    expect_input_error(path, "directory");

    tu_path(path, sizeof path, "empty.wav");
    f = fopen(path, "wb");
    CHECK(f != NULL);
    if (f)
        fclose(f);
    expect_input_error(path, "empty file");

    tu_path(path, sizeof path, "text.wav");
    f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) {
        for (int i = 0; i < 50; i++)
            fprintf(f, "this is a text file, line %d, not audio at all\n", i);
        fclose(f);
    }
    expect_input_error(path, "text file");

    tu_path(path, sizeof path, "header-only.wav");
    CHECK(tu_write_wav(path, 1, 0, 44100, "", 0, 0) == 0); /* zero channels */
    expect_input_error(path, "zero channels");
}

/* The synth: spec and the source kinds' table. */
static void test_synth_spec(void)
{
    source_synth_config c;
    sp_errinfo ei = {{0}};
    source *s = NULL;
    static const char *bad[] = {"synth:foo=1",       "synth:rate=abc",   "synth:rate=0",  "synth:channels=2000",
                                "synth:sine=1000@",  "synth:sine=-5",    "synth:noise=x", "synth:duration=0",
                                "synth:duration=-1", "synth:rate",       "synth:,",       "synth:seed=1.5",
                                "synth:rate=48000x", "synth:channels=1.5", "synth:rate=1",
                                "synth:rate=999",    "synth:sine=30000", "synth:sine=24000", "synth:rate=1000",
                                "synth:rate=8000,sine=3000,step=500,channels=3"};
    const char *spec = "synth:channels=32,rate=96000,sine=1000,noise=0.01,duration=10";
    CHECK_MSG(source_synth_parse(spec, &c, &ei) == SP_OK, "%s: %s", spec, ei.msg);
    CHECK(c.channels == 32 && c.rate == 96000 && c.ntones == 1 && c.freq[0] == 1000.0 && c.amp[0] == 0.5);
    CHECK(c.noise == 0.01 && c.frames == 960000 && strcmp(c.name, spec) == 0);
    CHECK(source_synth_parse("synth:", &c, &ei) == SP_OK && c.rate == 48000 && c.channels == 1 && c.frames == 48000 &&
          c.ntones == 1);
    CHECK(source_synth_parse("synth:sine=100@0.25,sine=200,step=5,seed=7,duration=inf", &c, &ei) == SP_OK);
    CHECK(c.ntones == 2 && c.freq[0] == 100.0 && c.amp[0] == 0.25 && c.freq[1] == 200.0 && c.amp[1] == 0.5);
    CHECK(c.channel_step_hz == 5.0 && c.seed == 7 && c.frames == -1);
    /* the rate may follow the sines it allows; the highest channel's sine just below half the rate */
    CHECK_MSG(source_synth_parse("synth:sine=30000,rate=96000", &c, &ei) == SP_OK, "%s", ei.msg);
    CHECK_MSG(source_synth_parse("synth:rate=8000,sine=3000,step=499,channels=3", &c, &ei) == SP_OK, "%s", ei.msg);
    CHECK_MSG(source_synth_parse("synth:rate=1000,sine=499", &c, &ei) == SP_OK, "%s", ei.msg);
    CHECK(source_synth_parse("synth:sine=1,sine=2,sine=3,sine=4,sine=5,sine=6,sine=7,sine=8,sine=9", &c, &ei) ==
          SP_EINVAL);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ei.msg[0] = 0;
        CHECK_MSG(source_synth_parse(bad[i], &c, &ei) == SP_EINVAL && strstr(ei.msg, bad[i]) &&
                      !strchr(ei.msg, '\n'),
                  "%s: \"%s\"", bad[i], ei.msg);
    }

    /* the table picks by the input's form: NULL the microphone, synth: the generator, "-"
     * (or a FIFO: test_pipe) a stream, anything else a path */
    CHECK(strcmp(source_kind_for(NULL)->name, "microphone") == 0);
    CHECK(strcmp(source_kind_for("synth:rate=8000")->name, "synth") == 0);
    CHECK(strcmp(source_kind_for("-")->name, "stdin") == 0);
    CHECK(strcmp(source_kind_for("synth.wav")->name, "file") == 0);
    {
        source_request req = {"synth:rate=8000,channels=3,duration=0.5", NULL, 0, 0,
                              source_file_options_default(), NULL};
        CHECK_MSG(source_open_request(&req, &s, &ei) == SP_OK, "%s", ei.msg);
        if (s) {
            const source_info *info = source_get_info(s);
            CHECK(info->rate == 8000 && info->channels == 3 && info->samples_hint == 4000 &&
                  strcmp(info->name, req.input) == 0 && !source_is_push(s));
            source_close(s);
        }
        req.input = "synth:bogus=1";
        s = NULL;
        CHECK(source_open_request(&req, &s, &ei) == SP_EINVAL && s == NULL);
    }
}

/* ---- time ranges: seeking --------------------------------------------------------------- */

/* Opens path (NULL: spec as a synth) and seeks to k; the frames read after it, into dst
 * (cap frames); -1 when the seek failed. *reached: where the seek got. */
static long seek_then_read(const char *path, const char *spec, int64_t k, float *dst, size_t cap, int64_t *reached,
                           int *seek_err)
{
    source *s = NULL;
    sp_errinfo ei = {{0}};
    source_synth_config c;
    int err;
    long n = -1;
    if (path)
        err = source_open_file(path, &s, &ei);
    else
        err = source_synth_parse(spec, &c, &ei) == SP_OK ? source_open_synth(&c, &s, &ei) : SP_EINVAL;
    CHECK_MSG(err == SP_OK, "%s: %s", path ? path : spec, ei.msg);
    if (!s)
        return -1;
    *seek_err = source_seek(s, k, NULL, reached, &ei);
    if (*seek_err == SP_OK) {
        n = (long)read_all(s, dst, cap, &err);
        CHECK(err == SP_OK);
    }
    source_close(s);
    return n;
}

/* A WAV: seeking to k and reading gives the whole file's frames from k on; at or past
 * the end the seek says so (SP_EINPUT). */
static void test_seek_file(void)
{
    char path[512];
    const size_t frames = 5000 + rng_range(0, 5000);
    int16_t *pcm = malloc(frames * 2 * sizeof *pcm);
    float *got = malloc((frames + 16) * 2 * sizeof *got);
    int64_t reached;
    int err;
    tu_path(path, sizeof path, "seek16.wav");
    for (size_t i = 0; i < frames * 2; i++)
        pcm[i] = (int16_t)((int)rng_range(0, 65535) - 32768);
    CHECK(tu_write_wav(path, 1, 2, 44100, pcm, frames * 4, frames * 4) == 0);
    for (int t = 0; t < 6; t++) {
        int64_t k = t == 0 ? 0 : t == 1 ? (int64_t)frames - 1 : (int64_t)rng_range(1, frames - 2);
        size_t bad = 0;
        long n = seek_then_read(path, NULL, k, got, frames + 16, &reached, &err);
        CHECK_MSG(err == SP_OK && reached == k, "seek to %lld: err %d, reached %lld", (long long)k, err,
                  (long long)reached);
        CHECK_MSG(n == (long)frames - k, "after seeking to %lld: %ld frames, want %lld", (long long)k, n,
                  (long long)frames - k);
        for (long i = 0; i < n * 2 && i + k * 2 < (long)frames * 2; i++)
            bad += got[i] != (float)pcm[i + k * 2] / 32768.0f;
        CHECK_MSG(bad == 0, "after seeking to %lld: %zu samples differ", (long long)k, bad);
    }
    seek_then_read(path, NULL, (int64_t)frames, got, frames + 16, &reached, &err);
    CHECK_MSG(err == SP_EINPUT, "seek to the end: %d", err);
    seek_then_read(path, NULL, (int64_t)frames + 100, got, frames + 16, &reached, &err);
    CHECK_MSG(err == SP_EINPUT, "seek past the end: %d", err);
    free(pcm);
    free(got);
}

/* The synth: a jump (the seek op) without noise, reading up to the start with it; both
 * equal the whole run's frames from k on. Reading past the end reaches the end. */
static void test_seek_synth(void)
{
    static const char *specs[] = {"synth:rate=8000,channels=2,sine=300,sine=1234@0.1,duration=1",
                                  "synth:rate=8000,channels=2,sine=300,noise=0.2,seed=5,duration=1"};
    float *whole = malloc(8100 * 2 * sizeof *whole), *part = malloc(8100 * 2 * sizeof *part);
    int64_t reached;
    int err;
    for (int i = 0; i < 2; i++) {
        long all = seek_then_read(NULL, specs[i], 0, whole, 8100, &reached, &err);
        int64_t k = (int64_t)rng_range(1, 7999);
        long n = seek_then_read(NULL, specs[i], k, part, 8100, &reached, &err);
        CHECK_MSG(all == 8000 && n == 8000 - k && reached == k, "%s: %ld, %ld after %lld", specs[i], all, n,
                  (long long)k);
        CHECK_MSG(n > 0 && memcmp(part, whole + k * 2, (size_t)n * 2 * sizeof *part) == 0,
                  "%s: the frames after seeking to %lld differ from the whole run's", specs[i], (long long)k);
        n = seek_then_read(NULL, specs[i], 9000, part, 8100, &reached, &err);
        CHECK_MSG(i == 0 ? err == SP_EINPUT : err == SP_OK && reached == 8000 && n == 0,
                  "%s: past the end: err %d reached %lld", specs[i], err, (long long)reached);
    }
    free(whole);
    free(part);
}

/* ---- raw samples ------------------------------------------------------------------------- */

static void test_raw(void)
{
    static const char *bad[] = {"f32le",        "f32le,48000",      "x,48000,1",       "f32le,0,1",
                                "f32le,48000,0", "f32le,48000,1,",  "f32le,-1,1",      "f32le,48000,2000",
                                "f32le,48k,1",   ",48000,1",        "f32le,,1",        "F32LE,48000,1"};
    source_raw_format r = source_raw_none();
    source_file_options o = source_file_options_default();
    sp_errinfo ei = {{0}};
    char path[512];
    const size_t frames = 1000 + rng_range(0, 3000);
    float *x = malloc(frames * 3 * sizeof *x), *got = malloc((frames + 16) * 3 * sizeof *got);
    source *s = NULL;
    FILE *f;
    int err;

    CHECK(r.encoding < 0 && o.raw.encoding < 0 && o.stream == 0);
    CHECK(source_raw_count() == 6 && strcmp(source_raw_name(0), "f32le") == 0 && source_raw_name(6) == NULL);
    CHECK(source_raw_parse("s16le,44100,2", &r, &ei) == SP_OK && r.rate == 44100 && r.channels == 2 &&
          strcmp(source_raw_name(r.encoding), "s16le") == 0);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ei.msg[0] = 0;
        CHECK_MSG(source_raw_parse(bad[i], &r, &ei) == SP_EINVAL && strstr(ei.msg, SP_FIELD("raw_format")) &&
                      strstr(ei.msg, bad[i]),
                  "%s: \"%s\"", bad[i], ei.msg);
    }
    /* a headerless file of f32le, 3 channels: the samples as written */
    tu_path(path, sizeof path, "samples.f32");
    for (size_t i = 0; i < frames * 3; i++)
        x[i] = (float)rng_signed();
    f = fopen(path, "wb");
    CHECK(f && fwrite(x, sizeof *x, frames * 3, f) == frames * 3);
    if (f)
        fclose(f);
    CHECK(source_raw_parse("f32le,22050,3", &o.raw, &ei) == SP_OK);
    err = source_open_file_opts(path, &o, &s, &ei);
    CHECK_MSG(err == SP_OK, "%s: %s", path, ei.msg);
    if (s) {
        const source_info *in = source_get_info(s);
        size_t n = read_all(s, got, frames + 16, &err);
        CHECK(in->rate == 22050 && in->channels == 3 && in->samples_hint == (int64_t)frames && !in->pipe &&
              strcmp(in->decoder, "libsndfile") == 0);
        CHECK_MSG(n == frames && memcmp(got, x, frames * 3 * sizeof *x) == 0, "raw f32le: %zu of %zu frames", n,
                  frames);
        source_close(s);
    }
    free(x);
    free(got);
}

/* ---- a FIFO, read as a stream ------------------------------------------------------------ */

typedef struct {
    const char *fifo;
    const unsigned char *bytes;
    size_t len;
} fifo_job;

/* Writes the bytes into the FIFO in random pieces, as a pipe's writer would. */
static void *fifo_writer(void *arg)
{
    fifo_job *j = arg;
    uint64_t rs = 0x9e3779b97f4a7c15ull ^ j->len;
    int fd = open(j->fifo, O_WRONLY);
    size_t at = 0;
    while (fd >= 0 && at < j->len) {
        size_t want = rng_range_at(&rs, 1, 5000);
        ssize_t w = write(fd, j->bytes + at, want < j->len - at ? want : j->len - at);
        if (w <= 0)
            break;
        at += (size_t)w;
    }
    if (fd >= 0)
        close(fd);
    return NULL;
}

static unsigned char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    unsigned char *buf = NULL;
    long n;
    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (buf = malloc((size_t)n)) && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    *len = buf ? (size_t)n : 0;
    fclose(f);
    return buf;
}

/* A WAV through a FIFO: the pipe kind claims it, it has no length and cannot seek (so
 * --start reads up to k), and the frames are the file's. */
static void test_pipe(void)
{
    char wav[512], fifo[512];
    const size_t frames = 20000 + rng_range(0, 20000);
    int16_t *pcm = malloc(frames * sizeof *pcm);
    float *got = malloc((frames + 16) * sizeof *got);
    source_file_options o = source_file_options_default();
    fifo_job job;
    pthread_t th;
    source *s = NULL;
    sp_errinfo ei = {{0}};
    int64_t k = (int64_t)rng_range(1, frames - 1), reached = -1;
    int err;

    tu_path(wav, sizeof wav, "piped.wav");
    tu_path(fifo, sizeof fifo, "pipe.fifo");
    for (size_t i = 0; i < frames; i++)
        pcm[i] = (int16_t)((int)rng_range(0, 65535) - 32768);
    CHECK(tu_write_wav(wav, 1, 1, 16000, pcm, frames * 2, frames * 2) == 0);
    CHECK(mkfifo(fifo, 0600) == 0);
    CHECK(source_is_pipe_path(fifo) && source_is_pipe_path("-") && !source_is_pipe_path(wav));
    CHECK(strcmp(source_kind_for(fifo)->name, "stdin") == 0);
    job.fifo = fifo;
    job.bytes = slurp(wav, &job.len);
    CHECK(job.bytes != NULL);
    if (!job.bytes || pthread_create(&th, NULL, fifo_writer, &job) != 0)
        goto out;
    err = source_open_pipe(fifo, &o, NULL, &s, &ei);
    CHECK_MSG(err == SP_OK, "%s: %s", fifo, ei.msg);
    if (s) {
        const source_info *in = source_get_info(s);
        size_t n, bad = 0;
        CHECK(in->pipe && in->samples_hint == -1 && in->rate == 16000 && in->channels == 1 &&
              strcmp(in->decoder, "libsndfile") == 0 && strcmp(in->name, fifo) == 0);
        CHECK_MSG(source_seek(s, k, NULL, &reached, &ei) == SP_OK && reached == k, "skip to %lld: %lld, %s",
                  (long long)k, (long long)reached, ei.msg);
        n = read_all(s, got, frames + 16, &err);
        CHECK_MSG(err == SP_OK && n == frames - (size_t)k, "%zu frames after %lld of %zu", n, (long long)k, frames);
        for (size_t i = 0; i < n && i + (size_t)k < frames; i++)
            bad += got[i] != (float)pcm[i + (size_t)k] / 32768.0f;
        CHECK_MSG(bad == 0, "%zu samples through the FIFO differ from the file's", bad);
        CHECK(source_truncated(s) == 0);
        source_close(s);
    } else {
        int fd = open(fifo, O_RDONLY | O_NONBLOCK); /* let the writer finish */
        if (fd >= 0)
            close(fd);
    }
    pthread_join(th, NULL);
out:
    free((void *)job.bytes);
    free(pcm);
    free(got);
}

/* A file libsndfile does not know goes on to the FFmpeg row, whose line says what this
 * build has; a raw file is not passed on. */
static void test_pass_to_ffmpeg(void)
{
    char path[512];
    source_request req = {NULL, NULL, 0, 0, source_file_options_default(), NULL};
    const source_kind *last = source_kind_at(source_kind_count() - 1);
    source *s = NULL;
    sp_errinfo ei = {{0}};
    FILE *f;
    int err;
    CHECK(last && strcmp(last->name, "ffmpeg") == 0);
    tu_path(path, sizeof path, "text.m4a");
    f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) {
        fputs("not audio in any format\n", f);
        fclose(f);
    }
    req.input = path;
    err = source_open_request(&req, &s, &ei);
    CHECK_MSG(err == SP_EINPUT && s == NULL && strstr(ei.msg, path) && !strchr(ei.msg, '\n'), "%d %s", err,
              ei.msg);
    if (source_ffmpeg_version(NULL))
        CHECK_MSG(strstr(ei.msg, "neither libsndfile nor FFmpeg") != NULL, "%s", ei.msg);
    else
        CHECK_MSG(strstr(ei.msg, "no FFmpeg support (built without libavformat)") != NULL, "%s", ei.msg);
    CHECK(source_open_file_opts(path, &req.file, &s, &ei) == SOURCE_PASS && s == NULL);
    CHECK(source_open_file(path, &s, &ei) == SP_EINPUT);
}

/* The FFmpeg module takes only its own ABI: another version with the same sizes, or other
 * sizes under the same version, is refused (the loader then says it is not this spectro's). */
static void test_ffmpeg_module_abi(void)
{
#ifdef SPECTRO_TEST_FFMPEG_MODULE
    int (*entry)(unsigned, source_ffmpeg_open_fn *, source_ffmpeg_version_fn *) = NULL;
    source_ffmpeg_open_fn open_fn = NULL;
    source_ffmpeg_version_fn version_fn = NULL;
    void *h = dlopen(SPECTRO_TEST_FFMPEG_MODULE, RTLD_NOW | RTLD_LOCAL); /* kept open, as the program does */
    CHECK_MSG(h != NULL, "%s: %s", SPECTRO_TEST_FFMPEG_MODULE, dlerror());
    if (h)
        *(void **)&entry = dlsym(h, "spectro_ffmpeg_module");
    CHECK(!h || entry);
    if (!entry)
        return;
    CHECK(((SOURCE_FFMPEG_ABI >> 16) & 0xffu) == SOURCE_FFMPEG_ABI_VERSION);
    CHECK(entry(SOURCE_FFMPEG_ABI + (1u << 16), &open_fn, &version_fn) == SP_EUNSUPPORTED && !open_fn);
    CHECK(entry(SOURCE_FFMPEG_ABI - 1, &open_fn, &version_fn) == SP_EUNSUPPORTED);
    CHECK(entry(SOURCE_FFMPEG_ABI, &open_fn, &version_fn) == SP_OK && open_fn && version_fn);
#endif
}

int main(void)
{
    int rc = tu_begin_files("test_source");
    if (rc != 0)
        return rc;
    test_synth();
    test_synth_spec();
    test_ffmpeg_module_abi();
    test_pcm16_mono();
    test_float_stereo();
    test_truncated();
    test_truncated_formats();
    test_errors();
    test_seek_file();
    test_seek_synth();
    test_raw();
    test_pipe();
    test_pass_to_ffmpeg();
    CHECK_MSG(tu_tmpdir_remove() == 0, "cannot remove %s", tu_tmpdir());
    return check_done("test_source");
}
