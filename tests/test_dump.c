/* test_dump: the .npy writer parsed back in C (magic, version 1.0, '<f4', fortran_order,
 * shape 2-D and 3-D, 64-byte aligned data, the bytes written, channel-major), the JSON
 * sidecar, the CSV header and rows, atomic commit (nothing at the final path before
 * dump_commit, no temporary left after dump_destroy), SP_EIO for a missing directory and
 * dump_format_from_path; 300 channels under a limit of 64 descriptors (one spool file, not
 * one per channel); a .npy and a CSV into a FIFO (final header first, no sidecar); a job
 * larger than the free space refused at open; the same bytes whether a small .npy goes out
 * on the caller's thread or through the writer's. The random seed is printed;
 * SPECTRO_TEST_SEED=... repeats a run. */
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "dump.h"
#include "sink_table.h"
#include "stft.h"
#include "test_util.h"

static float rng_db(void) /* a dB-like value in [-200, 0) */
{
    return (float)(rng_unit() * -200.0);
}

static unsigned char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    unsigned char *buf = NULL;
    long size;
    *len = 0;
    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
        buf = malloc((size_t)size + 1);
        if (buf && fread(buf, 1, (size_t)size, f) == (size_t)size) {
            buf[size] = 0;
            *len = (size_t)size;
        } else {
            free(buf);
            buf = NULL;
        }
    }
    fclose(f);
    return buf;
}

static dump_meta make_meta(int channels, size_t bins, uint64_t frames)
{
    dump_meta m;
    memset(&m, 0, sizeof m);
    m.source = "in \"quoted\".wav";
    m.sample_rate = 48000;
    m.source_channels = channels > 1 ? channels : 2;
    m.channel_name = channels > 1 ? "all" : "mix";
    m.channels = channels;
    m.fft_size = (bins - 1) * 2;
    m.hop = m.fft_size / 4;
    m.bins = bins;
    m.window = "hann";
    m.frames = frames;
    m.time_first_s = (double)(m.fft_size / 2) / 48000.0;
    m.time_step_s = (double)m.hop / 48000.0;
    m.bin_hz = 48000.0 / (double)m.fft_size;
    m.backend = "cpu";
    return m;
}

/* ---- npy --------------------------------------------------------------------------------- */

/* Writes `channels` x frames x bins random values in several calls per channel (the way
 * the framer does: for each batch, every channel in turn), commits and parses the file.
 * expect: the frames the run promises (dump_config.frames_expected): EXPECT_NONE (the
 * writer's thread), EXPECT_EXACT or EXPECT_FEWER than written (a small job: written on the
 * caller's thread, also when more frames come than promised). */
enum { EXPECT_NONE, EXPECT_EXACT, EXPECT_FEWER };
static void test_npy(int channels, int stacked, int expect)
{
    char path[512], json[560], shape[128], names[512];
    const size_t bins = rng_range(5, 70), frames = rng_range(20, 300);
    float *data = malloc((size_t)channels * frames * bins * sizeof *data);
    dump_config dc;
    dump *d = NULL;
    sp_errinfo ei = {{0}};
    dump_meta meta = make_meta(channels, bins, frames);
    unsigned char *file = NULL;
    size_t len = 0;
    int err;

    for (size_t i = 0; i < (size_t)channels * frames * bins; i++)
        data[i] = rng_db();
    const int axis = stacked || channels > 1; /* a channel axis */
    tu_path(path, sizeof path, axis ? "out3.npy" : "out.npy");
    snprintf(json, sizeof json, "%s.json", path);
    memset(&dc, 0, sizeof dc);
    dc.path = path;
    dc.channels = channels;
    dc.stacked = stacked;
    dc.bins = bins;
    dc.bin_hz = meta.bin_hz;
    dc.time_first = meta.time_first_s;
    dc.time_step = meta.time_step_s;
    dc.frames_expected = expect == EXPECT_EXACT ? frames : expect == EXPECT_FEWER ? frames / 2 : 0;
    err = dump_open(&dc, &d, &ei);
    if (channels > 1 && !stacked && err == SP_EINVAL)
        goto out; /* refusing several channels without a channel axis is fine too */
    CHECK_MSG(err == SP_OK, "dump_open %s: %d %s", path, err, ei.msg);
    if (!d)
        goto out;
    for (size_t f = 0; f < frames;) {
        size_t take = rng_range(1, 37);
        if (take > frames - f)
            take = frames - f;
        for (int c = 0; c < channels; c++) {
            err = dump_write(d, c, f, take, data + ((size_t)c * frames + f) * bins, &ei);
            CHECK_MSG(err == SP_OK, "dump_write: %d %s", err, ei.msg);
        }
        f += take;
    }
    CHECK_MSG(!tu_exists(path), "%s exists before dump_commit", path);
    CHECK_MSG(!tu_exists(json), "%s exists before dump_commit", json);
    err = dump_commit(d, &meta, &ei);
    CHECK_MSG(err == SP_OK, "dump_commit: %d %s", err, ei.msg);
    dump_destroy(d);
    CHECK_MSG(tu_exists(path) && tu_exists(json), "after commit: %s %s", tu_exists(path) ? "" : path, tu_exists(json) ? "" : json);
    CHECK_MSG(tu_tmpdir_count(NULL, names, sizeof names) == 2, "after commit the directory holds: %s", names);

    file = slurp(path, &len);
    CHECK(file != NULL);
    if (!file)
        goto out;
    CHECK_MSG(len >= 10 && memcmp(file, "\x93NUMPY", 6) == 0, "bad magic");
    if (len < 10)
        goto out;
    CHECK_MSG(file[6] == 1 && file[7] == 0, "version %d.%d, expected 1.0", file[6], file[7]);
    {
        size_t hlen = (size_t)file[8] | ((size_t)file[9] << 8), data_at = 10 + hlen;
        size_t data_bytes = (size_t)channels * frames * bins * sizeof(float);
        char *hdr;
        CHECK_MSG(data_at % 64 == 0, "data starts at %zu, not a multiple of 64", data_at);
        CHECK_MSG(data_at <= len, "header length %zu past the end", hlen);
        if (data_at > len)
            goto out;
        hdr = malloc(hlen + 1);
        memcpy(hdr, file + 10, hlen);
        hdr[hlen] = 0;
        CHECK_MSG(hlen > 0 && hdr[hlen - 1] == '\n', "header does not end with a newline");
        CHECK_MSG(hdr[0] == '{', "header \"%s\" is not a dict", hdr);
        CHECK_MSG(strstr(hdr, "'descr': '<f4'") != NULL, "header \"%s\"", hdr);
        CHECK_MSG(strstr(hdr, "'fortran_order': False") != NULL, "header \"%s\"", hdr);
        if (axis)
            snprintf(shape, sizeof shape, "'shape': (%d, %zu, %zu)", channels, frames, bins);
        else
            snprintf(shape, sizeof shape, "'shape': (%zu, %zu)", frames, bins);
        CHECK_MSG(strstr(hdr, shape) != NULL, "channels %d stacked %d: header \"%s\" lacks %s", channels, stacked,
                  hdr, shape);
        for (size_t i = 0; i + 1 < hlen; i++)
            if (hdr[i] == '\n' || (unsigned char)hdr[i] < 0x20) {
                CHECK_MSG(0, "control character in the header at %zu", i);
                break;
            }
        free(hdr);
        CHECK_MSG(len == data_at + data_bytes, "file holds %zu bytes, expected %zu", len, data_at + data_bytes);
        if (len == data_at + data_bytes)
            CHECK_MSG(memcmp(file + data_at, data, data_bytes) == 0, "data bytes differ from what was written%s",
                      channels > 1 ? " (channel-major)" : "");
    }
    free(file);

    /* the sidecar */
    file = slurp(json, &len);
    CHECK(file != NULL);
    if (file) {
        const char *keys[] = {"\"source\"", "\"sample_rate\"", "\"fft_size\"", "\"hop\"", "\"window\"",
                              "\"channels\"", "\"frames\"", "\"bins\"", "\"time_first_s\"", "\"time_step_s\"",
                              "\"bin_hz\"", "\"backend\""};
        char want[128];
        const char *t = (const char *)file;
        CHECK_MSG(t[0] == '{' && strrchr(t, '}') != NULL, "sidecar is not an object: %s", t);
        for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
            CHECK_MSG(strstr(t, keys[k]) != NULL, "sidecar lacks %s", keys[k]);
        snprintf(want, sizeof want, "\"frames\": %zu", frames);
        CHECK_MSG(strstr(t, want) != NULL, "sidecar lacks %s", want);
        snprintf(want, sizeof want, "\"bins\": %zu", bins);
        CHECK_MSG(strstr(t, want) != NULL, "sidecar lacks %s", want);
        snprintf(want, sizeof want, "\"channels\": %d", channels);
        CHECK_MSG(strstr(t, want) != NULL, "sidecar lacks %s", want);
        snprintf(want, sizeof want, "\"fft_size\": %zu", meta.fft_size);
        CHECK_MSG(strstr(t, want) != NULL, "sidecar lacks %s", want);
        CHECK(strstr(t, "\"sample_rate\": 48000") != NULL);
        CHECK(strstr(t, "\"backend\": \"cpu\"") != NULL);
        CHECK(strstr(t, "\"window\": \"hann\"") != NULL);
        CHECK_MSG(strstr(t, "\"in \\\"quoted\\\".wav\"") != NULL, "source not escaped: %s", t);
        {
            const char *p = strstr(t, "\"bin_hz\":");
            CHECK(p && fabs(strtod(p + 9, NULL) - meta.bin_hz) <= 1e-12 * meta.bin_hz);
            p = strstr(t, "\"time_step_s\":");
            CHECK(p && fabs(strtod(p + 14, NULL) - meta.time_step_s) <= 1e-12 * meta.time_step_s);
        }
        free(file);
    }
out:
    free(data);
    tu_tmpdir_empty();
}

/* ---- csv --------------------------------------------------------------------------------- */

/* Several channels are written stacked ("channel,time_s,..."), as --channel all does. */
/* late: frames a day into a recording, one sample apart at 48 kHz (times must keep
 * microseconds there) */
static void test_csv(int channels, int late)
{
    char path[512];
    const size_t bins = rng_range(3, 40), frames = rng_range(5, 120);
    const double bin_hz = 5.0 + (double)rng_range(0, 1000) / 7.0,
                 t0 = (late ? 86400.0 : 0.0) + 0.01 * (double)rng_range(1, 100),
                 dt = late ? 1.0 / 48000.0 : 0.001 * (double)rng_range(1, 100);
    float *data = malloc((size_t)channels * frames * bins * sizeof *data);
    dump_config dc;
    dump *d = NULL;
    sp_errinfo ei = {{0}};
    dump_meta meta = make_meta(channels, bins, frames);
    unsigned char *file;
    size_t len;
    int err;

    for (size_t i = 0; i < (size_t)channels * frames * bins; i++)
        data[i] = rng_db();
    tu_path(path, sizeof path, "out.csv");
    memset(&dc, 0, sizeof dc);
    dc.path = path;
    dc.channels = channels;
    dc.stacked = channels > 1;
    dc.bins = bins;
    dc.bin_hz = bin_hz;
    dc.time_first = t0;
    dc.time_step = dt;
    CHECK(dump_open(&dc, &d, &ei) == SP_OK);
    if (!d)
        goto out;
    for (size_t f = 0; f < frames;) {
        size_t take = rng_range(1, 11);
        if (take > frames - f)
            take = frames - f;
        for (int c = 0; c < channels; c++)
            CHECK(dump_write(d, c, f, take, data + ((size_t)c * frames + f) * bins, &ei) == SP_OK);
        f += take;
    }
    CHECK_MSG(!tu_exists(path), "%s exists before dump_commit", path);
    err = dump_commit(d, &meta, &ei);
    CHECK_MSG(err == SP_OK, "dump_commit: %d %s", err, ei.msg);
    dump_destroy(d);

    file = slurp(path, &len);
    CHECK(file != NULL);
    if (file) {
        char *save = NULL, *line = strtok_r((char *)file, "\n", &save);
        size_t rows = 0, bad_fields = 0, bad_time = 0, bad_value = 0, bad_channel = 0;
        const char *prefix = channels > 1 ? "channel,time_s," : "time_s,";
        CHECK_MSG(line && strncmp(line, prefix, strlen(prefix)) == 0, "header row \"%s\"", line ? line : "");
        if (line && strncmp(line, prefix, strlen(prefix)) == 0) {
            char *p = line + strlen(prefix), *end;
            size_t k = 0;
            for (;;) {
                double hz = strtod(p, &end);
                if (end == p)
                    break;
                CHECK_MSG(fabs(hz - (double)k * bin_hz) <= 1e-8 * (1.0 + (double)k * bin_hz),
                          "header bin %zu reads %.10g, expected %.10g", k, hz, (double)k * bin_hz);
                k++;
                if (*end != ',')
                    break;
                p = end + 1;
            }
            CHECK_MSG(*end == 0, "header row has trailing text \"%s\"", end);
            CHECK_MSG(k == bins, "header has %zu bin columns, expected %zu", k, bins);
        }
        while ((line = strtok_r(NULL, "\n", &save)) != NULL) {
            size_t c = rows / frames, f = rows % frames, k = 0;
            char *p = line, *end;
            double v;
            if (channels > 1) {
                if (strtol(p, &end, 10) != (long)c || *end != ',')
                    bad_channel++;
                p = end + 1;
            }
            v = strtod(p, &end);
            if (fabs(v - (t0 + (double)f * dt)) > 1e-6)
                bad_time++;
            p = end;
            while (*p == ',') {
                v = strtod(p + 1, &end);
                if (k < bins && c < (size_t)channels && f < frames &&
                    fabs(v - (double)data[(c * frames + f) * bins + k]) > 0.6e-4)
                    bad_value++;
                k++;
                p = end;
            }
            if (k != bins || *p)
                bad_fields++;
            rows++;
        }
        CHECK_MSG(rows == (size_t)channels * frames, "%zu rows, expected %zu", rows, (size_t)channels * frames);
        CHECK_MSG(bad_fields == 0, "%zu rows with the wrong number of fields", bad_fields);
        CHECK_MSG(bad_time == 0, "%zu rows with the wrong time", bad_time);
        CHECK_MSG(bad_value == 0, "%zu values differ", bad_value);
        CHECK_MSG(bad_channel == 0, "%zu rows with the wrong channel (channel-major order)", bad_channel);
        free(file);
    }
    {
        char json[560];
        snprintf(json, sizeof json, "%s.json", path);
        CHECK_MSG(tu_exists(json), "no sidecar %s", json);
    }
out:
    free(data);
    tu_tmpdir_empty();
}

/* ---- failures ------------------------------------------------------------------------------ */

static void test_abandon(const char *name, int channels)
{
    char path[512], names[512];
    dump_config dc;
    dump *d = NULL;
    sp_errinfo ei = {{0}};
    float row[40];
    for (size_t k = 0; k < 40; k++)
        row[k] = rng_db();
    tu_path(path, sizeof path, name);
    memset(&dc, 0, sizeof dc);
    dc.path = path;
    dc.channels = channels;
    dc.stacked = channels > 1;
    dc.bins = 40;
    dc.bin_hz = 10.0;
    dc.time_step = 0.1;
    CHECK(dump_open(&dc, &d, &ei) == SP_OK);
    if (!d)
        return;
    for (int c = 0; c < channels; c++)
        CHECK(dump_write(d, c, 0, 1, row, &ei) == SP_OK);
    CHECK(!tu_exists(path));
    dump_destroy(d);
    CHECK_MSG(tu_tmpdir_count(NULL, names, sizeof names) == 0, "%s: left behind after dump_destroy: %s", name, names);
    tu_tmpdir_empty();
}

static void test_unwritable(void)
{
    char path[512];
    dump_config dc;
    dump *d = (dump *)0x1;
    sp_errinfo ei = {{0}};
    int err;
    tu_path(path, sizeof path, "missing-dir/out.npy");
    memset(&dc, 0, sizeof dc);
    dc.path = path;
    dc.channels = 1;
    dc.bins = 9;
    err = dump_open(&dc, &d, &ei);
    CHECK_MSG(err == SP_EIO, "dump_open into a missing directory: %d, expected SP_EIO", err);
    CHECK_MSG(strstr(ei.msg, path) != NULL, "message \"%s\" does not name %s", ei.msg, path);
    CHECK(d == NULL);
    CHECK(tu_tmpdir_count(NULL, NULL, 0) == 0);
}

/* Several hundred channels with 64 descriptors: the spool is one file, not one a channel. */
static void test_many_channels(void)
{
    struct rlimit old, low;
    CHECK(getrlimit(RLIMIT_NOFILE, &old) == 0);
    low = old;
    low.rlim_cur = 64;
    CHECK(setrlimit(RLIMIT_NOFILE, &low) == 0);
    test_npy(300, 1, EXPECT_NONE);
    test_npy(300, 1, EXPECT_EXACT);
    test_csv(300, 0);
    CHECK(setrlimit(RLIMIT_NOFILE, &old) == 0);
}

typedef struct {
    char path[512];
    unsigned char *got;
    size_t len;
} fifo_reader;

static void *read_fifo(void *arg)
{
    fifo_reader *r = arg;
    size_t cap = 1 << 16;
    ssize_t n;
    int fd = open(r->path, O_RDONLY);
    r->got = malloc(cap);
    if (fd < 0 || !r->got)
        return NULL;
    while ((n = read(fd, r->got + r->len, cap - r->len)) > 0) {
        r->len += (size_t)n;
        if (r->len == cap)
            r->got = realloc(r->got, cap *= 2);
    }
    close(fd);
    return NULL;
}

/* Through a FIFO: the .npy arrives whole with its final shape first (it cannot seek), the
 * channels in order; no sidecar beside it. */
static void test_fifo(int channels)
{
    fifo_reader r;
    pthread_t t;
    const size_t bins = 9, frames = rng_range(3, 40);
    float *data = malloc((size_t)channels * frames * bins * sizeof *data);
    char shape[96], names[256];
    dump_config dc;
    dump *d = NULL;
    sp_errinfo ei = {{0}};
    dump_meta meta = make_meta(channels, bins, frames);
    memset(&r, 0, sizeof r);
    tu_path(r.path, sizeof r.path, "p.npy");
    CHECK(mkfifo(r.path, 0600) == 0);
    CHECK(pthread_create(&t, NULL, read_fifo, &r) == 0);
    for (size_t i = 0; i < (size_t)channels * frames * bins; i++)
        data[i] = rng_db();
    memset(&dc, 0, sizeof dc);
    dc.path = r.path;
    dc.channels = channels;
    dc.stacked = channels > 1;
    dc.bins = bins;
    CHECK_MSG(dump_open(&dc, &d, &ei) == SP_OK, "%s", ei.msg);
    for (size_t f = 0; d && f < frames; f++)
        for (int c = 0; c < channels; c++)
            CHECK(dump_write(d, c, f, 1, data + ((size_t)c * frames + f) * bins, &ei) == SP_OK);
    if (d)
        CHECK_MSG(dump_commit(d, &meta, &ei) == SP_OK, "%s", ei.msg);
    dump_destroy(d);
    pthread_join(t, NULL);
    if (channels > 1)
        snprintf(shape, sizeof shape, "'shape': (%d, %zu, %zu)", channels, frames, bins);
    else
        snprintf(shape, sizeof shape, "'shape': (%zu, %zu)", frames, bins);
    CHECK_MSG(r.len == 128 + (size_t)channels * frames * bins * 4, "the reader got %zu bytes", r.len);
    if (r.len == 128 + (size_t)channels * frames * bins * 4) {
        r.got[127] = 0;
        CHECK_MSG(strstr((char *)r.got + 10, shape) != NULL, "header \"%s\" lacks %s", r.got + 10, shape);
        CHECK(memcmp(r.got + 128, data, (size_t)channels * frames * bins * 4) == 0);
    }
    CHECK_MSG(tu_tmpdir_count(NULL, names, sizeof names) == 1, "beside the FIFO: %s", names);
    free(r.got);
    free(data);
    tu_tmpdir_empty();
}

/* frames_expected known: a job larger than the filesystem's free space is refused at once,
 * naming the size and the free space; nothing is left. */
static void test_too_big(void)
{
    char path[512];
    dump_config dc;
    dump *d = NULL;
    sp_errinfo ei = {{0}};
    tu_path(path, sizeof path, "huge.npy");
    memset(&dc, 0, sizeof dc);
    dc.path = path;
    dc.channels = 2;
    dc.bins = 2049;
    dc.frames_expected = (uint64_t)1 << 40; /* 18 PB */
    CHECK(dump_open(&dc, &d, &ei) == SP_EIO && d == NULL);
    CHECK_MSG(strstr(ei.msg, "needs 18 PB") && strstr(ei.msg, "free on /") && strstr(ei.msg, path),
              "message \"%s\"", ei.msg);
    CHECK(tu_tmpdir_count(NULL, NULL, 0) == 0);
    dc.frames_expected = 10; /* small: fine */
    CHECK_MSG(dump_open(&dc, &d, &ei) == SP_OK, "%s", ei.msg);
    dump_destroy(d);
    CHECK(tu_tmpdir_count(NULL, NULL, 0) == 0);
}

static void test_format(void)
{
    dump_format f = DUMP_CSV_STDOUT;
    sp_errinfo ei = {{0}};
    const char *bad[] = {".wav", "x.wav", "", "x.np", "x.npyy", "x.NPZ", "out", "x.cs"};
    CHECK(dump_format_from_path("a/b.npy", &f, &ei) == SP_OK && f == DUMP_NPY);
    CHECK(dump_format_from_path("x.csv", &f, &ei) == SP_OK && f == DUMP_CSV);
    CHECK(dump_format_from_path("-", &f, &ei) == SP_OK && f == DUMP_CSV_STDOUT);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ei.msg[0] = 0;
        CHECK_MSG(dump_format_from_path(bad[i], &f, &ei) == SP_EINVAL, "\"%s\" accepted", bad[i]);
        CHECK_MSG(ei.msg[0] != 0, "\"%s\": no message", bad[i]);
        if (bad[i][0])
            CHECK_MSG(strstr(ei.msg, bad[i]) != NULL, "message \"%s\" does not name %s", ei.msg, bad[i]);
    }
    CHECK(dump_format_from_path(NULL, &f, &ei) == SP_EINVAL);
}

/* The sidecar's name is the path with ".json" added, whatever the extension. */
static void test_sidecar_path(void)
{
    const char *in[] = {"a/out.npy", "x.csv", "dir.d/x", ""};
    const char *out[] = {"a/out.npy.json", "x.csv.json", "dir.d/x.json", ".json"};
    for (size_t i = 0; i < sizeof in / sizeof in[0]; i++) {
        char *s = dump_sidecar_path(in[i]);
        CHECK_MSG(s && strcmp(s, out[i]) == 0, "sidecar of \"%s\": \"%s\"", in[i], s ? s : "(null)");
        free(s);
    }
}

/* dump_sidecar_for: a name beside a file (one that exists or not), none on standard output,
 * a FIFO or a device, as the dump itself decides when it commits (test_fifo). */
static void test_sidecar_for(void)
{
    char file[4096], fifo[4096], want[4200];
    char *s = (char *)"poison";
    tu_path(file, sizeof file, "side.npy");
    tu_path(fifo, sizeof fifo, "side-fifo.npy");
    snprintf(want, sizeof want, "%s.json", file);
    CHECK(dump_sidecar_for(file, &s) == SP_OK && s && strcmp(s, want) == 0);
    free(s);
    FILE *f = fopen(file, "w");
    CHECK(f != NULL);
    if (f)
        fclose(f);
    s = (char *)"poison";
    CHECK(dump_sidecar_for(file, &s) == SP_OK && s && strcmp(s, want) == 0);
    free(s);
    unlink(file);
    CHECK(mkfifo(fifo, 0600) == 0);
    s = (char *)"poison";
    CHECK(dump_sidecar_for(fifo, &s) == SP_OK && s == NULL);
    unlink(fifo);
    s = (char *)"poison";
    CHECK(dump_sidecar_for("/dev/null", &s) == SP_OK && s == NULL);
    s = (char *)"poison";
    CHECK(dump_sidecar_for("-", &s) == SP_OK && s == NULL);
}

/* The output kinds' columns agree with their option: every kind of --dump has the sidecar,
 * the dump's extension for a directory and the dump's name check; --average and --bands
 * lead to kinds of the same option; no other kind has a sidecar. */
static void test_kind_columns(void)
{
    sp_errinfo ei = {{0}};
    int dumps = 0;
    for (int i = 0; i < sink_kind_count(); i++) {
        const sink_kind *k = sink_kind_at(i);
        int is_dump = strcmp(k->option, SP_FIELD("dump")) == 0;
        const char *next[] = {k->averaged, k->banded};
        dumps += is_dump;
        CHECK_MSG(k->sidecar == is_dump, "%s: sidecar %d", k->name, k->sidecar);
        CHECK_MSG(!is_dump || (k->dir_ext && strcmp(k->dir_ext, dump_format_ext(0)) == 0), "%s: dir_ext", k->name);
        CHECK_MSG(strcmp(k->option, SP_FIELD("png")) != 0 || (k->dir_ext && strcmp(k->dir_ext, ".png") == 0), "%s: dir_ext",
                  k->name);
        CHECK_MSG(!is_dump || (k->check_path && k->check_path("x.wav", &ei) == SP_EINVAL &&
                            k->check_path("x.csv", &ei) == SP_OK && k->check_path("-", &ei) == SP_OK),
                  "%s: check_path", k->name);
        for (int j = 0; j < 2; j++)
            CHECK_MSG(!next[j] || (sink_kind_find(next[j]) && strcmp(sink_kind_find(next[j])->option, k->option) == 0),
                      "%s: leads to %s", k->name, next[j]);
    }
    CHECK(dumps >= 3);
    CHECK(strcmp(sink_kind_find("dump")->averaged, "average") == 0);
    CHECK(strcmp(sink_kind_find("dump")->banded, "bands") == 0);
    CHECK(strcmp(sink_kind_find("png")->averaged, "average-png") == 0);
    CHECK(sink_kind_find("peaks")->dir_ext == NULL && !sink_kind_find("peaks")->check_path);
}

int main(void)
{
    int rc = tu_begin_files("test_dump");
    if (rc != 0)
        return rc;
    for (int i = 0; i < 3; i++) {
        test_npy(1, 0, i);
        test_npy(3, 1, i);
        test_npy(1, 1, i); /* --channel all on a mono input: shape (1, frames, bins) */
        test_csv(1, 0);
        test_csv(3, 0);
        test_csv(1, 1);
    }
    /* several channels without `stacked`: a channel axis anyway, or refused; never a 2-D
     * header over 3 channels of data */
    test_npy(3, 0, EXPECT_NONE);
    test_npy(3, 0, EXPECT_EXACT);
    test_abandon("gone.npy", 1);
    test_abandon("gone3.npy", 3);
    test_abandon("gone.csv", 2);
    test_unwritable();
    test_format();
    test_sidecar_path();
    test_sidecar_for();
    test_kind_columns();
    test_many_channels();
    test_fifo(1);
    test_fifo(3);
    test_too_big();
    CHECK_MSG(tu_tmpdir_remove() == 0, "cannot remove %s", tu_tmpdir());
    return check_done("test_dump");
}
