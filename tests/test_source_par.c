/* test_source_par: the file source's decoding ahead on threads (source_file_par.c) against
 * its serial read (readers 1), bit for bit: every container and sample format the threads
 * take that this libsndfile writes, 1 to 5 channels, NaN/Inf in float files (replaced and
 * counted the same), files of one chunk, a chunk and a frame, less than a chunk, many
 * chunks; seeks to odd frames and reads that stop part-way (--start, --duration); raw
 * samples; truncated files; a file replaced after it was opened (the threads must not
 * start: they would read another file) and one cut while the threads read; formats the
 * threads do not take (FLAC); a double file's samples beyond float's range (clamped, counted
 * the same). That the threads ran, and that none is left after close, is read from
 * /proc/self/status. The random seed is printed; SPECTRO_TEST_SEED repeats a run. */
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <sndfile.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "source.h"
#include "test_util.h"

/* What one reading of a file gave. */
typedef struct {
    float *x;        /* the frames read, interleaved */
    size_t frames;
    int channels;
    uint64_t nonfinite;
    uint64_t out_of_range; /* source_out_of_range */
    int truncated;   /* source_truncated after the end (-1: the read stopped before it) */
    int err;         /* opening, seeking or reading */
    int threads_reading; /* threads of this process after the first read, less those before */
    int threads_after;   /* ... after close (0: none left) */
    char msg[sizeof(sp_errinfo)];
} reading;

/* This process's threads (Threads: in /proc/self/status); -1 when unreadable. */
static int threads_now(void)
{
    char line[256];
    int n = -1;
    FILE *f = fopen("/proc/self/status", "r");
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "Threads: %d", &n) == 1)
            break;
    fclose(f);
    return n;
}

/* The threads less base, once it has settled at want (a joined thread may show for a moment
 * after pthread_join returns), or after a second. */
static int threads_settled(int base, int want)
{
    int n = threads_now() - base;
    for (int i = 0; i < 100 && n != want; i++) {
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
        n = threads_now() - base;
    }
    return n;
}

/* Writes frames x channels of noise (with a few NaN/Inf when nonfinite) in format; 0, or -1
 * when this libsndfile cannot write it. */
static int write_file(const char *path, int format, int channels, size_t frames, int nonfinite)
{
    size_t n = frames * (size_t)channels;
    float *x = malloc((n ? n : 1) * sizeof *x);
    int rc, rate = 8000 + (int)rng_range(0, 40000);
    if (!x)
        return -1;
    for (size_t i = 0; i < n; i++)
        x[i] = (float)(0.9 * rng_signed());
    for (int k = 0; nonfinite && n > 0 && k < 5; k++)
        x[rng_range(0, n - 1)] = k % 2 ? INFINITY : NAN;
    rc = tu_write_sndfile(path, format, rate, channels, x, frames);
    free(x);
    return rc;
}

static void reading_free(reading *r)
{
    free(r->x);
    memset(r, 0, sizeof *r);
}

/* Opens path with `readers` threads in chunks of `chunk` frames (raw: raw samples, or NULL),
 * seeks to `start`, reads up to `len` frames (< 0: to the end) in random blocks, closes. */
static reading read_file(const char *path, const source_raw_format *raw, int readers, int64_t chunk, int64_t start,
                         int64_t len)
{
    source_file_options o = source_file_options_default();
    reading r;
    source *s = NULL;
    sp_errinfo ei = {{0}};
    size_t cap = 0;
    int base = threads_now();
    memset(&r, 0, sizeof r);
    r.truncated = -1;
    o.readers = readers;
    o.read_chunk = chunk;
    if (raw)
        o.raw = *raw;
    r.err = source_open_file_opts(path, &o, &s, &ei);
    if (r.err == SP_OK && start > 0) {
        int64_t reached = 0;
        r.err = source_seek(s, start, NULL, &reached, &ei);
        if (r.err == SP_OK && reached != start)
            r.err = -200;
    }
    if (r.err == SP_OK) {
        r.channels = source_get_info(s)->channels;
        for (;;) {
            size_t want = rng_range(1, 3000), got = 0;
            if (len >= 0 && (int64_t)r.frames + (int64_t)want > len)
                want = (size_t)(len - (int64_t)r.frames);
            if (want == 0)
                break;
            if (r.frames + want > cap) {
                float *x;
                cap = 2 * (r.frames + want);
                if (!(x = realloc(r.x, cap * (size_t)r.channels * sizeof *x))) {
                    r.err = SP_ENOMEM;
                    break;
                }
                r.x = x;
            }
            r.err = source_read(s, r.x + r.frames * (size_t)r.channels, want, &got, &ei);
            if (r.frames == 0)
                r.threads_reading = threads_now() - base;
            if (r.err != SP_OK || got == 0)
                break;
            if (got > want) {
                r.err = -100;
                break;
            }
            r.frames += got;
        }
        if (len < 0 || (int64_t)r.frames < len)
            r.truncated = source_truncated(s);
        r.nonfinite = source_nonfinite(s);
        r.out_of_range = source_out_of_range(s);
    }
    snprintf(r.msg, sizeof r.msg, "%s", ei.msg);
    source_close(s);
    r.threads_after = threads_settled(base, 0);
    return r;
}

/* The threads' reading of a file against the serial one: the same frames, bits, counts.
 * threads: the decoders expected to run (0: the file is not one they take). */
static void compare(const char *what, const char *path, const source_raw_format *raw, int threads, int64_t chunk,
                    int64_t start, int64_t len)
{
    reading a = read_file(path, raw, 1, chunk, start, len);
    reading b = read_file(path, raw, threads ? threads : 3, chunk, start, len);
    CHECK_MSG(a.err == SP_OK && b.err == SP_OK, "%s: serial %d (%s), threads %d (%s)", what, a.err, a.msg, b.err,
              b.msg);
    CHECK_MSG(a.frames == b.frames && a.channels == b.channels, "%s: %zu frames serial, %zu with threads", what,
              a.frames, b.frames);
    CHECK_MSG(a.frames == b.frames && (a.frames == 0 || memcmp(a.x, b.x, a.frames * (size_t)a.channels * 4) == 0),
              "%s: the samples differ", what);
    CHECK_MSG(a.nonfinite == b.nonfinite && a.truncated == b.truncated && a.out_of_range == b.out_of_range,
              "%s: non-finite %llu / %llu, out of range %llu / %llu, truncated %d / %d (serial / threads)", what,
              (unsigned long long)a.nonfinite, (unsigned long long)b.nonfinite, (unsigned long long)a.out_of_range,
              (unsigned long long)b.out_of_range, a.truncated, b.truncated);
    CHECK_MSG(a.threads_reading == 0, "%s: the serial read ran %d threads", what, a.threads_reading);
    /* the threads run from the first read on; the reader has taken at most one chunk then,
     * and a thread stops only once every chunk is taken: all live while there are more
     * chunks than 1 + the slots (2 a thread) */
    if (threads && chunk > 0 && (int64_t)a.frames > (2 * threads + 1) * chunk)
        CHECK_MSG(b.threads_reading == threads, "%s: %d threads running, want %d", what, b.threads_reading, threads);
    if (!threads)
        CHECK_MSG(b.threads_reading == 0, "%s: %d threads for a format they do not take", what, b.threads_reading);
    CHECK_MSG(a.threads_after == 0 && b.threads_after == 0, "%s: %d / %d threads left after close", what,
              a.threads_after, b.threads_after);
    reading_free(&a);
    reading_free(&b);
}

static const struct {
    const char *name;
    int type;
} CONTAINERS[] = {
    {"wav", SF_FORMAT_WAV},   {"wavex", SF_FORMAT_WAVEX}, {"w64", SF_FORMAT_W64}, {"rf64", SF_FORMAT_RF64},
    {"aiff", SF_FORMAT_AIFF}, {"au", SF_FORMAT_AU},       {"caf", SF_FORMAT_CAF},
};

static const struct {
    const char *name;
    int sub;
} SUBFORMATS[] = {
    {"s8", SF_FORMAT_PCM_S8},  {"u8", SF_FORMAT_PCM_U8},   {"s16", SF_FORMAT_PCM_16},
    {"s24", SF_FORMAT_PCM_24}, {"s32", SF_FORMAT_PCM_32},  {"float", SF_FORMAT_FLOAT},
    {"double", SF_FORMAT_DOUBLE}, {"ulaw", SF_FORMAT_ULAW}, {"alaw", SF_FORMAT_ALAW},
};

/* Every container x sample format this libsndfile writes: several chunks, odd sizes. */
static void test_formats(void)
{
    int tested = 0;
    for (size_t c = 0; c < sizeof CONTAINERS / sizeof CONTAINERS[0]; c++) {
        for (size_t f = 0; f < sizeof SUBFORMATS / sizeof SUBFORMATS[0]; f++) {
            char path[512], what[128];
            int ch = (int)rng_range(1, 5), threads = (int)rng_range(2, 4), flt;
            int64_t chunk = (int64_t)rng_range(50, 700);
            size_t frames = (size_t)chunk * rng_range(2 * (size_t)threads + 2, 14) + rng_range(0, (size_t)chunk - 1);
            flt = SUBFORMATS[f].sub == SF_FORMAT_FLOAT || SUBFORMATS[f].sub == SF_FORMAT_DOUBLE;
            snprintf(what, sizeof what, "%s %s, %d channels, %zu frames, chunk %lld, %d threads",
                     CONTAINERS[c].name, SUBFORMATS[f].name, ch, frames, (long long)chunk, threads);
            snprintf(path, sizeof path, "%s/f.%s", tu_tmpdir(), CONTAINERS[c].name);
            if (write_file(path, CONTAINERS[c].type | SUBFORMATS[f].sub, ch, frames, flt) != 0)
                continue; /* a combination libsndfile does not write (WAV s8, AU u8, ...) */
            tested++;
            compare(what, path, NULL, threads, chunk, 0, -1);
            remove(path);
        }
    }
    printf("test_source_par: %d container/format pairs\n", tested);
    CHECK(tested >= 40); /* a libsndfile without most of them would test nothing */
}

/* Sizes about a chunk: one, one and a frame, one less a frame, one frame, many; with the
 * default chunk (2 MB of samples) once. */
static void test_sizes(void)
{
    static const int64_t sizes[][2] = {
        /* chunk, frames */
        {1000, 1000}, {1000, 1001}, {1000, 999}, {1000, 1}, {1, 37}, {7, 7 * 9 + 3}, {1000, 2000}, {1000, 6001},
    };
    char path[512], what[128];
    snprintf(path, sizeof path, "%s/size.wav", tu_tmpdir());
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        int ch = (int)rng_range(1, 3);
        snprintf(what, sizeof what, "chunk %lld, %lld frames, %d channels", (long long)sizes[i][0],
                 (long long)sizes[i][1], ch);
        CHECK(write_file(path, SF_FORMAT_WAV | SF_FORMAT_PCM_16, ch, (size_t)sizes[i][1], 0) == 0);
        compare(what, path, NULL, 2, sizes[i][0], 0, -1);
    }
    /* the default chunk: 2^19 samples, 2^18 stereo frames */
    for (int64_t extra = -1; extra <= 1; extra++) {
        size_t frames = ((size_t)1 << 18) * (extra == 1 ? 5 : 1) + (size_t)(extra == 0);
        snprintf(what, sizeof what, "default chunk, %zu stereo frames", frames);
        CHECK(write_file(path, SF_FORMAT_WAV | SF_FORMAT_FLOAT, 2, frames, 1) == 0);
        compare(what, path, NULL, 2, 0, 0, -1);
    }
    remove(path);
}

/* --start and --duration: seeks to odd frames (inside a chunk, on its edge, the last frame),
 * reads that stop inside, on and after a chunk's edge. */
static void test_ranges(void)
{
    char path[512], what[160];
    const int64_t chunk = 1000, frames = 9 * chunk + 321;
    snprintf(path, sizeof path, "%s/range.aiff", tu_tmpdir());
    CHECK(write_file(path, SF_FORMAT_AIFF | SF_FORMAT_PCM_24, 3, (size_t)frames, 0) == 0);
    for (int t = 0; t < 14; t++) {
        int64_t start = t == 0 ? chunk : t == 1 ? chunk - 1 : t == 2 ? frames - 1 : (int64_t)rng_range(1, (size_t)frames - 2);
        int64_t len = t == 3 ? chunk : t == 4 ? chunk + 1 : t == 5 ? 1 : t % 2 ? -1 : (int64_t)rng_range(1, (size_t)frames);
        snprintf(what, sizeof what, "start %lld, %lld frames of %lld", (long long)start, (long long)len,
                 (long long)frames);
        compare(what, path, NULL, (int)rng_range(2, 4), chunk, start, len);
    }
    remove(path);
}

/* Raw samples (--raw-format), little-endian. */
static void test_raw(void)
{
    static const char *specs[] = {"s16le,44100,2", "f32le,8000,3", "u8,48000,1", "s24le,96000,2"};
    static const int subs[] = {SF_FORMAT_PCM_16, SF_FORMAT_FLOAT, SF_FORMAT_PCM_U8, SF_FORMAT_PCM_24};
    static const int chans[] = {2, 3, 1, 2};
    char path[512];
    snprintf(path, sizeof path, "%s/raw.bin", tu_tmpdir());
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        source_raw_format raw;
        sp_errinfo ei = {{0}};
        CHECK(source_raw_parse(specs[i], &raw, &ei) == SP_OK);
        CHECK(write_file(path, SF_FORMAT_RAW | SF_ENDIAN_LITTLE | subs[i], chans[i], 5432, subs[i] == SF_FORMAT_FLOAT) ==
              0);
        compare(specs[i], path, &raw, 2, 500, i == 0 ? 0 : 777, -1);
    }
    remove(path);
}

/* A file whose header promises more than it holds: what is there, flagged the same. */
static void test_truncated(void)
{
    char path[512], what[128];
    for (size_t c = 0; c < sizeof CONTAINERS / sizeof CONTAINERS[0]; c++) {
        struct stat sb;
        snprintf(path, sizeof path, "%s/cut.%s", tu_tmpdir(), CONTAINERS[c].name);
        snprintf(what, sizeof what, "%s cut short", CONTAINERS[c].name);
        CHECK(write_file(path, CONTAINERS[c].type | SF_FORMAT_PCM_16, 2, 20000, 0) == 0);
        CHECK(stat(path, &sb) == 0 && truncate(path, sb.st_size * 3 / 5 + 1) == 0);
        /* a CAF cut short is read through virtual I/O: not by the threads */
        compare(what, path, NULL, CONTAINERS[c].type == SF_FORMAT_CAF ? 0 : 2, 1000, 0, -1);
        remove(path);
    }
}

/* Formats the threads do not take (state from frame to frame): read serially, the same. */
static void test_not_taken(void)
{
    char path[512];
    snprintf(path, sizeof path, "%s/x.flac", tu_tmpdir());
    if (write_file(path, SF_FORMAT_FLAC | SF_FORMAT_PCM_16, 2, 30000, 0) == 0)
        compare("flac", path, NULL, 0, 1000, 0, -1);
    snprintf(path, sizeof path, "%s/x.wav", tu_tmpdir());
    if (write_file(path, SF_FORMAT_WAV | SF_FORMAT_IMA_ADPCM, 1, 30000, 0) == 0)
        compare("ima adpcm", path, NULL, 0, 1000, 0, -1);
    remove(path);
}

/* A 64-bit float file with finite samples beyond float's range (1e300): clamped to +-FLT_MAX
 * and counted as out of range, not made infinite (and then counted as NaN/Inf and zeroed);
 * its true infinities and NaN are still those. Serial and threads alike. */
static void test_out_of_range(void)
{
    enum { FRAMES = 30000, CH = 2 };
    static double x[FRAMES * CH];
    static const size_t huge[] = {0, 7, 999, 20001, 59999}, inf_at = 4242, nan_at = 31337;
    char path[512];
    SF_INFO in = {0, 48000, CH, SF_FORMAT_WAV | SF_FORMAT_DOUBLE, 0, 0};
    SNDFILE *sf;
    reading r;
    for (size_t i = 0; i < FRAMES * CH; i++)
        x[i] = 0.9 * rng_signed();
    for (size_t k = 0; k < sizeof huge / sizeof huge[0]; k++)
        x[huge[k]] = k % 2 ? -1e300 : 1e300;
    x[inf_at] = -INFINITY;
    x[nan_at] = NAN;
    snprintf(path, sizeof path, "%s/huge.wav", tu_tmpdir());
    CHECK((sf = sf_open(path, SFM_WRITE, &in)) != NULL);
    CHECK(sf && sf_writef_double(sf, x, FRAMES) == FRAMES);
    sf_close(sf);
    compare("double, out of range", path, NULL, 3, 1000, 0, -1);
    r = read_file(path, NULL, 1, 0, 0, -1);
    CHECK_MSG(r.err == SP_OK && r.frames == FRAMES, "%d %s", r.err, r.msg);
    CHECK_MSG(r.out_of_range == 5 && r.nonfinite == 2, "out of range %llu (want 5), non-finite %llu (want 2)",
              (unsigned long long)r.out_of_range, (unsigned long long)r.nonfinite);
    for (size_t k = 0; r.frames == FRAMES && k < sizeof huge / sizeof huge[0]; k++)
        CHECK_MSG(r.x[huge[k]] == (k % 2 ? -FLT_MAX : FLT_MAX), "sample %zu: %g", huge[k], r.x[huge[k]]);
    CHECK(r.frames == FRAMES && r.x[inf_at] == 0.0f && r.x[nan_at] == 0.0f && r.x[1] == (float)x[1]);
    reading_free(&r);
    remove(path);
}

/* A file replaced (renamed over) between the open and the first read: the source reads the
 * file it opened; threads opening the path would read the new one, so they must not start. */
static void test_replaced(void)
{
    char path[512], other[512];
    source_file_options o = source_file_options_default();
    source *s = NULL, *ref = NULL;
    sp_errinfo ei = {{0}};
    float *a = malloc(sizeof(float) * 2 * 20000), *b = malloc(sizeof(float) * 2 * 20000);
    size_t na = 0, nb = 0, got;
    int base = threads_now(), running = -1;
    snprintf(path, sizeof path, "%s/first.wav", tu_tmpdir());
    snprintf(other, sizeof other, "%s/second.wav", tu_tmpdir());
    CHECK(write_file(path, SF_FORMAT_WAV | SF_FORMAT_PCM_16, 2, 20000, 0) == 0);
    CHECK(write_file(other, SF_FORMAT_WAV | SF_FORMAT_PCM_16, 2, 20000, 0) == 0);
    o.readers = 1;
    CHECK(source_open_file_opts(path, &o, &ref, &ei) == SP_OK);
    o.readers = 3;
    o.read_chunk = 500;
    CHECK(source_open_file_opts(path, &o, &s, &ei) == SP_OK);
    CHECK(rename(other, path) == 0);
    while (ref && source_read(ref, a + 2 * na, 20000 - na, &got, &ei) == SP_OK && got > 0)
        na += got;
    while (s && source_read(s, b + 2 * nb, 20000 - nb, &got, &ei) == SP_OK && got > 0) {
        if (running < 0)
            running = threads_now() - base;
        nb += got;
    }
    CHECK_MSG(na == 20000 && nb == na && memcmp(a, b, na * 2 * sizeof *a) == 0,
              "replaced file: %zu frames, %zu from the source with threads, the same: %d", na, nb,
              nb == na && memcmp(a, b, na * 2 * sizeof *a) == 0);
    CHECK_MSG(running == 0, "replaced file: %d threads started", running);
    source_close(s);
    source_close(ref);
    remove(path);
    free(a);
    free(b);
}

/* A file cut while the threads read it: the stream ends where the first short chunk does,
 * with no hole before (the frames read are the file's first ones), flagged truncated. */
static void test_cut_while_reading(void)
{
    char path[512];
    source_file_options o = source_file_options_default();
    source *s = NULL, *ref = NULL;
    sp_errinfo ei = {{0}};
    const size_t frames = 200000;
    float *a = malloc(sizeof(float) * frames), *b = malloc(sizeof(float) * frames);
    size_t na = 0, nb = 0, got;
    struct stat sb;
    snprintf(path, sizeof path, "%s/cut.wav", tu_tmpdir());
    CHECK(write_file(path, SF_FORMAT_WAV | SF_FORMAT_PCM_16, 1, frames, 0) == 0);
    o.readers = 1;
    CHECK(source_open_file_opts(path, &o, &ref, &ei) == SP_OK);
    while (ref && source_read(ref, a + na, frames - na, &got, &ei) == SP_OK && got > 0)
        na += got;
    o.readers = 2;
    o.read_chunk = 1000;
    CHECK(source_open_file_opts(path, &o, &s, &ei) == SP_OK);
    CHECK(s && source_read(s, b, 10, &nb, &ei) == SP_OK && nb == 10);
    CHECK(stat(path, &sb) == 0 && truncate(path, sb.st_size / 2) == 0);
    while (s && source_read(s, b + nb, frames - nb, &got, &ei) == SP_OK && got > 0)
        nb += got;
    CHECK_MSG(na == frames && nb > 10 && nb < frames && memcmp(a, b, nb * sizeof *a) == 0,
              "cut while reading: %zu frames of %zu, the file's first: %d", nb, frames,
              nb <= na && memcmp(a, b, nb * sizeof *a) == 0);
    CHECK(s && source_truncated(s) == 1);
    source_close(s);
    source_close(ref);
    remove(path);
    free(a);
    free(b);
}

/* Closed part-way, with the threads waiting for room or decoding: all joined. */
static void test_close_early(void)
{
    char path[512], what[64];
    snprintf(path, sizeof path, "%s/early.w64", tu_tmpdir());
    CHECK(write_file(path, SF_FORMAT_W64 | SF_FORMAT_PCM_32, 2, 50000, 0) == 0);
    for (int t = 0; t < 6; t++) {
        int64_t len = t == 0 ? 1 : (int64_t)rng_range(2, 50000);
        snprintf(what, sizeof what, "closed after %lld frames", (long long)len);
        compare(what, path, NULL, (int)rng_range(2, 4), (int64_t)rng_range(100, 3000), 0, len);
    }
    remove(path);
}

static void *nothing(void *arg)
{
    return arg;
}

int main(void)
{
    pthread_t t;
    int rc = tu_begin_files("test_source_par");
    if (rc != 0)
        return rc;
    /* a sanitizer's runtime starts a thread of its own with the first pthread_create: one
     * thread made and joined first keeps it out of the counts */
    if (pthread_create(&t, NULL, nothing, NULL) == 0)
        pthread_join(t, NULL);
    if (threads_now() < 1) {
        printf("test_source_par: /proc/self/status says no thread count: skipped\n");
        tu_tmpdir_remove();
        return 77;
    }
    test_formats();
    test_sizes();
    test_ranges();
    test_raw();
    test_truncated();
    test_not_taken();
    test_out_of_range();
    test_replaced();
    test_cut_while_reading();
    test_close_early();
    CHECK_MSG(tu_tmpdir_remove() == 0, "cannot remove %s", tu_tmpdir());
    return check_done("test_source_par");
}
