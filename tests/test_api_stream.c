/* test_api_stream: a job's whole stream (include/spectro.h, API version 6) through
 * libspectro.so alone: the stream's description, the rows equal to the dump's, the samples
 * equal to the source's, the column maxima equal to the maxima of the dump's rows, the
 * complex frames equal to the levels up to one constant, the end, a callback's error, a
 * live run's capture time, and spectro_job_derive (the frames' settings kept, the rest
 * and the excepted ones not). The window is this section's client: every window test runs
 * through it too. */
#define _DEFAULT_SOURCE /* mkdtemp */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "spectro.h"

int check_failures, check_count; /* check.h's counters */

static char dir[] = "/tmp/spectro-stream-XXXXXX";

#define SYNTH "synth:rate=48000,sine=1000,noise=0.01,channels=2,duration=2"

typedef struct {
    spectro_stream_wants want;
    spectro_stream_info info;
    char window[64], backend[16];
    double coef_mid;
    int opened, finished, fail_open;
    float *rows;             /* [channel][frame][bin] as the dump lays them out */
    size_t frames[2], cap;
    float *maxima;           /* channel 0's rows of maxima, in order */
    size_t nmax;
    float *samples;          /* interleaved */
    uint64_t nsamples, sample_gaps;
    double *pz;              /* channel 0's |z|^2, [frame][bin] */
    size_t nz;
    spectro_stream_end end;
    double capture_seen;
} stream;

static int s_open(void *user, const spectro_stream_info *in, spectro_stream_wants *w, spectro_error *e)
{
    stream *s = user;
    s->opened++;
    s->info = *in;
    snprintf(s->window, sizeof s->window, "%s", in->window);
    snprintf(s->backend, sizeof s->backend, "%s", in->backend);
    s->coef_mid = in->window_coef ? in->window_coef[in->frames->fft_size / 2] : -1;
    s->cap = 1000;
    s->rows = calloc(2 * s->cap * in->frames->bins, sizeof *s->rows);
    *w = s->want;
    if (s->fail_open) {
        snprintf(e->message, sizeof e->message, "the test refuses the stream");
        return e->code = SPECTRO_EINVAL;
    }
    return SPECTRO_OK;
}

static int s_spectra(void *user, int ch, uint64_t first, size_t count, const float *rows, spectro_error *e)
{
    stream *s = user;
    size_t bins = s->info.frames->bins;
    (void)e;
    if (ch > 1 || first != s->frames[ch] || first + count > s->cap)
        return SPECTRO_EINVAL;
    memcpy(s->rows + ((size_t)ch * s->cap + first) * bins, rows, count * bins * sizeof *rows);
    s->frames[ch] += count;
    s->capture_seen = spectro_job_capture_time(NULL); /* NULL: 0, never a crash */
    return SPECTRO_OK;
}

static int s_maxima(void *user, int ch, uint64_t first, size_t count, uint64_t span, const float *rows,
                    spectro_error *e)
{
    stream *s = user;
    size_t bins = s->info.frames->bins, n = spectro_maxima_rows(span, first, count);
    (void)e;
    if (ch != 0)
        return SPECTRO_OK;
    s->maxima = realloc(s->maxima, (s->nmax + n) * bins * sizeof *s->maxima);
    /* a group cut by two calls: its first part's row, then the rest's: merge them */
    if (s->nmax && first % span != 0) {
        float *last = s->maxima + (s->nmax - 1) * bins;
        for (size_t k = 0; k < bins; k++)
            last[k] = fmaxf(last[k], rows[k]);
        rows += bins;
        n--;
    }
    memcpy(s->maxima + s->nmax * bins, rows, n * bins * sizeof *rows);
    s->nmax += n;
    s->frames[0] = first + count;
    return SPECTRO_OK;
}

static int s_samples(void *user, uint64_t first, size_t count, const float *x, spectro_error *e)
{
    stream *s = user;
    int ch = s->info.source_channels;
    (void)e;
    s->sample_gaps += first != s->nsamples;
    s->samples = realloc(s->samples, (s->nsamples + count) * (size_t)ch * sizeof *s->samples);
    memcpy(s->samples + s->nsamples * (size_t)ch, x, count * (size_t)ch * sizeof *x);
    s->nsamples += count;
    return SPECTRO_OK;
}

static int s_complex(void *user, int ch, uint64_t first, size_t count, const spectro_complex *z, spectro_error *e)
{
    stream *s = user;
    size_t bins = s->info.frames->bins;
    (void)e;
    if (ch != 0)
        return SPECTRO_OK;
    if (first != s->nz / bins)
        return SPECTRO_EINVAL;
    s->pz = realloc(s->pz, (s->nz + count * bins) * sizeof *s->pz);
    for (size_t i = 0; i < count * bins; i++)
        s->pz[s->nz + i] = (double)z[i].re * z[i].re + (double)z[i].im * z[i].im;
    s->nz += count * bins;
    return SPECTRO_OK;
}

static int s_finish(void *user, const spectro_stream_end *end, spectro_error *e)
{
    stream *s = user;
    (void)e;
    s->finished++;
    s->end = *end;
    return SPECTRO_OK;
}

static const spectro_stream_ops OPS = {
    .size = sizeof(spectro_stream_ops),
    .open = s_open, .spectra = s_spectra, .maxima = s_maxima, .samples = s_samples, .complex = s_complex,
    .finish = s_finish,
};

static void stream_free(stream *s)
{
    free(s->rows);
    free(s->maxima);
    free(s->samples);
    free(s->pz);
}

static long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

static float *read_npy(const char *path, size_t *floats)
{
    FILE *f = fopen(path, "rb");
    long size = file_size(path);
    float *v = size > 128 ? malloc((size_t)size - 128) : NULL;
    *floats = 0;
    if (f && v && fseek(f, 128, SEEK_SET) == 0 && fread(v, 1, (size_t)size - 128, f) == (size_t)size - 128)
        *floats = ((size_t)size - 128) / sizeof *v;
    if (f)
        fclose(f);
    return v;
}

/* A job on SYNTH, channel all, fft 1024 cpu, its dump to out (NULL: none), with the stream
 * to s (NULL: none). */
static spectro_job *stream_job(stream *s, const char *out)
{
    spectro_job *j = NULL;
    spectro_error e = {0, ""};
    CHECK(spectro_job_create(&j, &e) == SPECTRO_OK);
    CHECK(spectro_job_set(j, "fft_size", "1024", &e) == SPECTRO_OK);
    CHECK(spectro_job_set(j, "backend", "cpu", &e) == SPECTRO_OK);
    CHECK(spectro_job_set(j, "channel", "all", &e) == SPECTRO_OK);
    if (out)
        CHECK(spectro_job_set(j, "dump", out, &e) == SPECTRO_OK);
    CHECK(spectro_job_add_input(j, SYNTH, &e) == SPECTRO_OK);
    if (s)
        spectro_job_set_stream(j, &OPS, s);
    return j;
}

/* The rows and samples asked for: the rows are the dump's, bit for bit; the samples the
 * source's; the description and the end say what the run was. */
static void test_rows_samples_and_description(void)
{
    stream s;
    spectro_error e = {0, ""};
    char out[256];
    size_t floats = 0, bins, got = 0;
    float *dump, *src;
    spectro_source *in = NULL;
    spectro_source_config sc = spectro_source_config_default();
    memset(&s, 0, sizeof s);
    s.want.spectra = s.want.samples = 1;
    snprintf(out, sizeof out, "%s/rows.npy", dir);
    spectro_job *j = stream_job(&s, out);
    CHECK_MSG(spectro_job_run(j, &e) == SPECTRO_OK, "%s", e.message);
    bins = s.info.frames->bins;
    CHECK(s.opened == 1 && s.finished == 1 && s.info.size == sizeof s.info);
    CHECK(s.info.frames->channels == 2 && s.info.source_channels == 2 && bins == 513 && s.info.frames->hop == 256);
    CHECK_MSG(strcmp(s.window, "hann") == 0 && strcmp(s.backend, "cpu") == 0, "%s %s", s.window, s.backend);
    CHECK(fabs(s.coef_mid - 1.0) < 1e-6); /* the periodic hann's middle */
    CHECK(fabs(s.info.bin_hz - 48000.0 / 1024) < 1e-12 && s.info.source_frames == 96000);
    CHECK(s.info.channel_name && strcmp(s.info.channel_name, "all") == 0 && !s.info.frames->live);
    CHECK_MSG(s.info.frames_expected == (int64_t)s.frames[0] && s.frames[0] == s.frames[1] &&
                  s.end.frames == s.frames[0] && s.end.samples == 96000 && !s.end.interrupted,
              "expected %lld, got %zu/%zu, end %llu", (long long)s.info.frames_expected, s.frames[0], s.frames[1],
              (unsigned long long)s.end.frames);
    dump = read_npy(out, &floats);
    CHECK_MSG(floats == 2 * s.frames[0] * bins, "%zu floats", floats);
    for (int ch = 0; ch < 2 && dump && floats == 2 * s.frames[0] * bins; ch++)
        CHECK(memcmp(dump + (size_t)ch * s.frames[0] * bins, s.rows + (size_t)ch * s.cap * bins,
                     s.frames[0] * bins * sizeof *dump) == 0);
    /* the samples: the source's own, in order, none missing */
    CHECK(s.nsamples == 96000 && s.sample_gaps == 0);
    CHECK(spectro_source_open(SYNTH, &sc, &in, &e) == SPECTRO_OK);
    src = malloc(96000 * 2 * sizeof *src);
    CHECK(src && spectro_source_read(in, src, 96000, &got, &e) == SPECTRO_OK && got == 96000);
    CHECK(s.samples && got == 96000 && memcmp(src, s.samples, 96000 * 2 * sizeof *src) == 0);
    spectro_source_close(in);
    free(src);
    free(dump);
    stream_free(&s);
    spectro_job_destroy(j);
}

/* The dump of the same job alone (a run gives its sinks either rows or maxima, and
 * complex frames only without levels). */
static float *reference_dump(const char *out, size_t *floats)
{
    spectro_job *j = stream_job(NULL, out);
    spectro_error e = {0, ""};
    CHECK_MSG(spectro_job_run(j, &e) == SPECTRO_OK, "%s", e.message);
    spectro_job_destroy(j);
    return read_npy(out, floats);
}

/* Column maxima of groups of 8 frames instead of the rows: each the maximum of the dump's
 * rows of its group, exactly; the complex frames: |z|^2 in dB is the level plus one
 * constant. */
static void test_maxima_and_complex(void)
{
    stream s;
    spectro_error e = {0, ""};
    char out[256];
    size_t floats = 0, bins, frames, groups;
    float *dump;
    double lo = 1e9, hi = -1e9;
    memset(&s, 0, sizeof s);
    s.want.spectra = 1;
    s.want.maxima_span = 8;
    snprintf(out, sizeof out, "%s/max.npy", dir);
    dump = reference_dump(out, &floats);
    spectro_job *j = stream_job(&s, NULL);
    /* a GPU backend reduces the columns; the host does it here by the test hook (the tests'
     * builds have them) */
    setenv("SPECTRO_TEST_MAXIMA", "host", 1);
    CHECK_MSG(spectro_job_read_environment(j, &e) == SPECTRO_OK, "%s", e.message);
    unsetenv("SPECTRO_TEST_MAXIMA");
    CHECK_MSG(spectro_job_run(j, &e) == SPECTRO_OK, "%s", e.message);
    bins = s.info.frames->bins;
    frames = floats / 2 / bins;
    groups = (frames + 7) / 8;
    CHECK_MSG(frames > 300 && s.nmax == groups, "%zu frames, %zu maxima rows", frames, s.nmax);
    for (size_t g = 0; g < groups && s.nmax == groups && dump; g++) {
        int same = 1;
        for (size_t k = 0; k < bins; k++) {
            float m = -INFINITY;
            for (size_t f = g * 8; f < frames && f < g * 8 + 8; f++)
                m = fmaxf(m, dump[f * bins + k]);
            same &= m == s.maxima[g * bins + k];
        }
        CHECK_MSG(same, "group %zu differs", g);
    }
    stream_free(&s);
    spectro_job_destroy(j);

    memset(&s, 0, sizeof s);
    s.want.complex = 1;
    j = stream_job(&s, NULL);
    CHECK_MSG(spectro_job_run(j, &e) == SPECTRO_OK, "%s", e.message);
    bins = s.info.frames->bins;
    frames = floats / 2 / bins;
    CHECK_MSG(s.nz == frames * bins && s.frames[0] == 0, "%zu values for %zu frames", s.nz, frames);
    for (size_t i = 0; i < s.nz && s.nz == frames * bins && dump; i++) {
        double d = 10.0 * log10(s.pz[i] + 1e-300) - dump[i];
        size_t k = i % bins;
        /* levels near the floor are rounded by the float dB; DC and Nyquist are not doubled
         * as one-sided levels are */
        if (dump[i] < -90 || k == 0 || k == bins - 1)
            continue;
        lo = fmin(lo, d);
        hi = fmax(hi, d);
    }
    CHECK_MSG(hi - lo < 2e-3, "the offset spans %.5f .. %.5f dB", lo, hi);
    free(dump);
    stream_free(&s);
    spectro_job_destroy(j);
}

/* An open that fails ends the run with its code and line; no output is left. */
static void test_callback_error_ends_the_run(void)
{
    stream s;
    spectro_error e = {0, ""};
    char out[256];
    memset(&s, 0, sizeof s);
    s.fail_open = 1;
    snprintf(out, sizeof out, "%s/refused.npy", dir);
    spectro_job *j = stream_job(&s, out);
    CHECK(spectro_job_run(j, &e) == SPECTRO_EINVAL);
    CHECK_MSG(strstr(e.message, "the test refuses the stream") != NULL, "%s", e.message);
    CHECK(file_size(out) < 0 && s.finished == 0);
    stream_free(&s);
    spectro_job_destroy(j);
}

static double monotonic(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

typedef struct {
    spectro_job *j;
    double t;
    int calls;
} live;

static int live_rows(void *user, int ch, uint64_t first, size_t count, const float *rows, spectro_error *e)
{
    live *l = user;
    (void)ch, (void)first, (void)count, (void)rows, (void)e;
    l->t = spectro_job_capture_time(l->j);
    l->calls++;
    return SPECTRO_OK;
}

static int live_open(void *user, const spectro_stream_info *in, spectro_stream_wants *w, spectro_error *e)
{
    (void)user, (void)in, (void)e;
    w->spectra = 1;
    return SPECTRO_OK;
}

/* A live run (realtime): the capture time is the monotonic clock's, between the run's
 * start and its end; a file's is 0. */
static void test_capture_time(void)
{
    static const spectro_stream_ops ops = {.size = sizeof ops, .open = live_open, .spectra = live_rows};
    for (int realtime = 1; realtime >= 0; realtime--) {
        live l = {NULL, -1, 0};
        spectro_error e = {0, ""};
        double t0 = monotonic(), t1;
        CHECK(spectro_job_create(&l.j, &e) == SPECTRO_OK);
        if (realtime)
            CHECK(spectro_job_set(l.j, "realtime", NULL, &e) == SPECTRO_OK);
        CHECK(spectro_job_add_input(l.j, "synth:rate=48000,sine=440,duration=0.4", &e) == SPECTRO_OK);
        spectro_job_set_stream(l.j, &ops, &l);
        CHECK_MSG(spectro_job_run(l.j, &e) == SPECTRO_OK, "%s", e.message);
        t1 = monotonic();
        CHECK(l.calls > 0);
        if (realtime)
            CHECK_MSG(l.t > t0 - 1.0 && l.t < t1, "capture %.3f, run %.3f .. %.3f", l.t, t0, t1);
        else
            CHECK_MSG(l.t == 0, "a file's capture time %.3f", l.t);
        spectro_job_destroy(l.j);
    }
}

/* derive: the frames' settings and the input come along in order, the excepted ones and
 * every output do not; the derived job runs headless on the stream. */
static void test_derive(void)
{
    spectro_job *src = NULL, *d = NULL;
    spectro_error e = {0, ""};
    stream s;
    char out[256];
    const char *except[] = {"fft-size", "chroma", NULL};
    memset(&s, 0, sizeof s);
    s.want.spectra = 1;
    snprintf(out, sizeof out, "%s/derive.npy", dir);
    CHECK(spectro_setting_shapes_frames("fft_size") == 1 && spectro_setting_shapes_frames("window") == 1);
    CHECK(spectro_setting_shapes_frames("dump") == 0 && spectro_setting_shapes_frames("colormap") == 0);
    CHECK(spectro_setting_shapes_frames("tone") == 0 && spectro_setting_shapes_frames("bogus") == SPECTRO_EINVAL);
    CHECK(spectro_job_create(&src, &e) == SPECTRO_OK);
    CHECK(spectro_job_set(src, "fft_size", "1024", &e) == SPECTRO_OK);
    CHECK(spectro_job_set(src, "window", "hamming", &e) == SPECTRO_OK);
    CHECK(spectro_job_set(src, "start", "0.5", &e) == SPECTRO_OK);
    CHECK(spectro_job_set(src, "backend", "cpu", &e) == SPECTRO_OK);
    CHECK(spectro_job_set(src, "dump", out, &e) == SPECTRO_OK);
    CHECK(spectro_job_set(src, "chroma", NULL, &e) == SPECTRO_OK);
    CHECK(spectro_job_add_input(src, SYNTH, &e) == SPECTRO_OK);
    CHECK_MSG(spectro_job_derive(src, except, &d, &e) == SPECTRO_OK, "%s", e.message);
    /* chroma excepted: the derived job's transform is mel alone */
    CHECK(d && spectro_job_set(d, "fft_size", "2048", &e) == SPECTRO_OK && spectro_job_set(d, "mel", "40", &e) == 0);
    if (d) {
        spectro_job_set_stream(d, &OPS, &s);
        CHECK_MSG(spectro_job_run(d, &e) == SPECTRO_OK, "%s", e.message);
    }
    CHECK_MSG(s.info.frames->fft_size == 2048 && strcmp(s.window, "hamming") == 0 && s.info.start_s == 0.5,
              "fft %zu, window %s, start %g", s.info.frames->fft_size, s.window, s.info.start_s);
    CHECK(s.info.frames->transform && strcmp(s.info.frames->transform, "mel") == 0 && s.info.frames->bins == 40);
    CHECK(s.info.frames->channels == 1 && s.frames[0] > 0 && s.end.samples == 72000);
    CHECK(file_size(out) < 0); /* the dump is src's output, not the derived job's */
    stream_free(&s);
    spectro_job_destroy(d);
    /* src itself is untouched: it runs as it was set */
    spectro_job_set_output(src, fopen("/dev/null", "w"));
    CHECK_MSG(spectro_job_run(src, &e) == SPECTRO_OK, "%s", e.message);
    CHECK(file_size(out) > 128);
    spectro_job_destroy(src);
    CHECK(spectro_job_derive(NULL, NULL, &d, &e) == SPECTRO_EINVAL && d == NULL);
}

int main(void)
{
    char cmd[64];
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_rows_samples_and_description();
    test_maxima_and_complex();
    test_callback_error_ends_the_run();
    test_capture_time();
    test_derive();
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "test_api_stream: could not remove %s\n", dir);
    return check_done("test_api_stream");
}
