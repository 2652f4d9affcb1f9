/* test_memory_source: the fuzz target's way in. source_open_memory against source_open_file
 * on the same bytes (WAV written here, FLAC and Ogg Vorbis from assets/, which seek):
 * the same description and the same samples; its errors (empty, not audio, zero channels,
 * absurd rates) with their codes and the name in the message; a truncated file found short.
 * analyze_run_source against analyze_run: the same .npy, byte for byte; and its guards.
 *   test_memory_source ASSETS_DIR */
#include <sndfile.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze.h"
#include "check.h"
#include "source.h"
#include "test_util.h"

static unsigned char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    unsigned char *buf = NULL;
    long n;
    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (buf = malloc((size_t)n)) != NULL) {
        if (fread(buf, 1, (size_t)n, f) == (size_t)n) {
            *len = (size_t)n;
        } else {
            free(buf);
            buf = NULL;
        }
    }
    fclose(f);
    return buf;
}

/* Reads the whole source; the frames read, samples in *out (malloc'd). */
static size_t read_all(source *s, float **out)
{
    size_t ch = (size_t)source_get_info(s)->channels, total = 0, cap = 4096, got;
    float *buf = malloc(cap * ch * sizeof *buf);
    for (;;) {
        if (total + 777 > cap) {
            cap *= 2;
            buf = realloc(buf, cap * ch * sizeof *buf);
        }
        /* an odd block size, so that reads end inside the codec's blocks */
        if (!buf || source_read(s, buf + total * ch, 777, &got, NULL) != SP_OK || got == 0)
            break;
        total += got;
    }
    *out = buf;
    return total;
}

/* The file at path through both sources: the same info and samples. */
static void same_as_file(const char *path)
{
    size_t len = 0, n_file, n_mem;
    unsigned char *bytes = slurp(path, &len);
    source *sf = NULL, *sm = NULL;
    float *a = NULL, *b = NULL;
    sp_errinfo ei = {{0}};
    CHECK_MSG(bytes != NULL, "cannot read %s", path);
    if (!bytes)
        return;
    CHECK_MSG(source_open_file(path, &sf, &ei) == SP_OK, "%s: %s", path, ei.msg);
    CHECK_MSG(source_open_memory(bytes, len, path, &sm, &ei) == SP_OK, "%s: %s", path, ei.msg);
    if (sf && sm) {
        const source_info *fi = source_get_info(sf), *mi = source_get_info(sm);
        CHECK(fi->rate == mi->rate && fi->channels == mi->channels);
        CHECK_MSG(fi->samples_hint == mi->samples_hint, "%s: samples %lld vs %lld", path, (long long)fi->samples_hint,
                  (long long)mi->samples_hint);
        CHECK_MSG(strcmp(fi->format, mi->format) == 0, "%s: %s vs %s", path, fi->format, mi->format);
        CHECK(strcmp(mi->name, path) == 0);
        n_file = read_all(sf, &a);
        n_mem = read_all(sm, &b);
        CHECK_MSG(n_file == n_mem && n_file > 0, "%s: %zu frames from the file, %zu from memory", path, n_file, n_mem);
        if (a && b && n_file == n_mem)
            CHECK_MSG(memcmp(a, b, n_file * (size_t)fi->channels * sizeof *a) == 0, "%s: samples differ", path);
        CHECK(source_truncated(sf) == source_truncated(sm));
        CHECK_MSG(source_nonfinite(sf) == source_nonfinite(sm) && source_out_of_range(sf) == source_out_of_range(sm),
                  "%s: NaN/Inf %llu / %llu, out of range %llu / %llu (file / memory)", path,
                  (unsigned long long)source_nonfinite(sf), (unsigned long long)source_nonfinite(sm),
                  (unsigned long long)source_out_of_range(sf), (unsigned long long)source_out_of_range(sm));
    }
    source_close(sf);
    source_close(sm);
    free(a);
    free(b);
    free(bytes);
}

static void expect_error(const void *data, size_t len, int want, const char *what)
{
    source *s = (source *)0x1;
    sp_errinfo ei = {{0}};
    int err = source_open_memory(data, len, "the-name", &s, &ei);
    CHECK_MSG(err == want, "%s: got %d, expected %d (%s)", what, err, want, ei.msg);
    CHECK_MSG(want == SP_EINVAL || strstr(ei.msg, "the-name") != NULL, "%s: \"%s\" does not name the input", what,
              ei.msg);
    CHECK_MSG(s == NULL, "%s: *out not cleared", what);
    if (err == SP_OK && s && s != (source *)0x1)
        source_close(s);
}

/* A WAV written here, loaded into memory. */
static unsigned char *wav_bytes(const char *name, int fmt, int channels, int rate, const void *data,
                                size_t data_len, size_t declared, size_t *len)
{
    char path[512];
    tu_path(path, sizeof path, name);
    CHECK(tu_write_wav(path, fmt, channels, rate, data, data_len, declared) == 0);
    return slurp(path, len);
}

static void test_errors(void)
{
    static const char text[] = "this is a text file, not audio at all, and long enough to be looked at\n";
    short pcm[64] = {0};
    unsigned char *b;
    size_t len = 0;
    source *s = NULL;

    expect_error("", 0, SP_EINPUT, "empty");
    expect_error(text, sizeof text - 1, SP_EINPUT, "text");
    expect_error(NULL, 10, SP_EINVAL, "NULL data");
    CHECK(source_open_memory(text, 4, "x", NULL, NULL) == SP_EINVAL);
    b = wav_bytes("zero-channels.wav", 1, 0, 8000, pcm, sizeof pcm, sizeof pcm, &len);
    if (b)
        expect_error(b, len, SP_EINPUT, "zero channels");
    free(b);
    b = wav_bytes("rate-20mhz.wav", 1, 1, 20000000, pcm, sizeof pcm, sizeof pcm, &len);
    if (b)
        expect_error(b, len, SP_EINPUT, "20 MHz");
    free(b);
    /* a name left out is still a name */
    b = wav_bytes("ok.wav", 1, 1, 8000, pcm, sizeof pcm, sizeof pcm, &len);
    CHECK(b && source_open_memory(b, len, NULL, &s, NULL) == SP_OK && s && source_get_info(s)->name[0] != 0);
    source_close(s);
    free(b);
}

/* A WAV whose header promises twice the data present: found short, as the file source does. */
static void test_truncated(void)
{
    short pcm[2000];
    char path[512];
    for (int i = 0; i < 2000; i++)
        pcm[i] = (short)(i * 7);
    tu_path(path, sizeof path, "truncated.wav");
    CHECK(tu_write_wav(path, 1, 1, 8000, pcm, sizeof pcm, 2 * sizeof pcm) == 0);
    same_as_file(path);
    {
        size_t len = 0;
        unsigned char *b = slurp(path, &len);
        source *s = NULL;
        float *x = NULL;
        CHECK(b && source_open_memory(b, len, path, &s, NULL) == SP_OK);
        if (s) {
            CHECK(read_all(s, &x) == 2000);
            CHECK(source_truncated(s) == 1);
        }
        source_close(s);
        free(x);
        free(b);
    }
}

/* analyze_run_source on a file in memory writes what analyze_run writes for the path. */
static void test_run_source(const char *path)
{
    analyze_config c = analyze_config_default();
    analyze_result r1, r2;
    char out1[512], out2[512];
    size_t len = 0, l1 = 0, l2 = 0;
    unsigned char *bytes = slurp(path, &len), *d1 = NULL, *d2 = NULL;
    source *s = NULL;
    sp_errinfo ei = {{0}};

    c.backend = FFT_BACKEND_CPU;
    c.n = 1024;
    c.channel = STFT_CHANNEL_ALL;
    c.input = path;
    tu_path(out1, sizeof out1, "by-path.npy");
    tu_path(out2, sizeof out2, "by-memory.npy");
    CHECK(analyze_set_output(&c, "dump", out1, NULL) == SP_OK);
    CHECK_MSG(analyze_run(&c, NULL, &r1, &ei) == SP_OK, "%s", ei.msg);
    CHECK(bytes && source_open_memory(bytes, len, path, &s, &ei) == SP_OK);
    c.input = "not-read"; /* the source given is the input */
    CHECK(analyze_set_output(&c, "dump", out2, NULL) == SP_OK);
    CHECK_MSG(analyze_run_source(&c, NULL, s, &r2, &ei) == SP_OK, "%s", ei.msg);
    CHECK(r1.frames == r2.frames && r1.frames > 0 && r1.samples == r2.samples && r1.out_channels == r2.out_channels);
    d1 = slurp(out1, &l1);
    d2 = slurp(out2, &l2);
    CHECK_MSG(d1 && d2 && l1 == l2 && memcmp(d1, d2, l1) == 0, "%s: the dumps differ (%zu and %zu bytes)", path, l1,
              l2);
    free(d1);
    free(d2);

    /* the guards: no source; no config (the source is closed all the same: ASan's leak check) */
    CHECK(analyze_run_source(&c, NULL, NULL, &r2, NULL) == SP_EINVAL);
    s = NULL;
    CHECK(source_open_memory(bytes, len, path, &s, NULL) == SP_OK);
    CHECK(analyze_run_source(NULL, NULL, s, NULL, NULL) == SP_EINVAL);
    free(bytes);
}

int main(int argc, char **argv)
{
    char path[1024];
    short pcm[3000];
    int rc = tu_begin_files("test_memory_source");
    if (rc)
        return rc;
    if (argc < 2) {
        fprintf(stderr, "usage: %s ASSETS_DIR\n", argv[0]);
        return 2;
    }
    for (int i = 0; i < 3000; i++)
        pcm[i] = (short)(10000 * ((i * 37) % 101 - 50) / 50);
    tu_path(path, sizeof path, "stereo.wav");
    CHECK(tu_write_wav(path, 1, 2, 44100, pcm, sizeof pcm, sizeof pcm) == 0);
    same_as_file(path);
    test_run_source(path);
    /* a double file's 1e300: clamped and counted from memory as from the file */
    tu_path(path, sizeof path, "huge_f64.wav");
    {
        static double x[2000];
        SF_INFO in = {0, 48000, 1, SF_FORMAT_WAV | SF_FORMAT_DOUBLE, 0, 0};
        SNDFILE *f = sf_open(path, SFM_WRITE, &in);
        for (int i = 0; i < 2000; i++)
            x[i] = i % 97 == 5 ? 1e300 : 0.25 * (i % 13);
        CHECK(f && sf_writef_double(f, x, 2000) == 2000);
        sf_close(f);
    }
    same_as_file(path);
    snprintf(path, sizeof path, "%s/two_tone_48k.flac", argv[1]);
    same_as_file(path);
    snprintf(path, sizeof path, "%s/two_tone_48k.ogg", argv[1]);
    same_as_file(path);
    test_errors();
    test_truncated();
    CHECK(tu_tmpdir_remove() == 0);
    return check_done("test_memory_source");
}
