/* test_analyze: analyze_run end to end on WAV files written here (two tones, on bins):
 * frames, samples, backend, the .npy (shape, tone levels) and its sidecar, peaks lines,
 * --channel all; failures leave nothing behind (bad channel: SP_EINVAL, dump into a
 * missing directory: SP_EIO); analyze_auto_batch stays >= 1 and bounded.
 * The random seed is printed; SPECTRO_TEST_SEED=... repeats a run. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze.h"
#include "check.h"
#include "peaks.h"
#include "stft.h"
#include "test_util.h"
#include "window.h"

#define TEST_PI 3.14159265358979323846

/* Files the analysis made, by name in the scratch directory. */
static void remove_in_tmp(const char *name)
{
    char p[512];
    tu_path(p, sizeof p, name);
    unlink(p);
}

/* An interleaved float WAV of `frames` frames. */
static int write_float_wav(const char *path, int channels, int rate, const float *data, size_t frames)
{
    size_t bytes = frames * (size_t)channels * sizeof *data;
    return tu_write_wav(path, 3, channels, rate, data, bytes, bytes);
}

/* Reads an .npy written by spectro: returns the data and its shape (ndim 2 or 3). */
static float *read_npy(const char *path, size_t shape[3], int *ndim)
{
    FILE *f = fopen(path, "rb");
    unsigned char pre[10];
    char hdr[1024];
    size_t hlen, count = 1;
    float *data = NULL;
    const char *p;
    *ndim = 0;
    if (!f)
        return NULL;
    if (fread(pre, 1, 10, f) != 10 || memcmp(pre, "\x93NUMPY\x01\x00", 8) != 0)
        goto out;
    hlen = (size_t)pre[8] | ((size_t)pre[9] << 8);
    if (hlen >= sizeof hdr || fread(hdr, 1, hlen, f) != hlen)
        goto out;
    hdr[hlen] = 0;
    if (!strstr(hdr, "'descr': '<f4'") || !(p = strstr(hdr, "'shape': (")))
        goto out;
    p += 10;
    while (*ndim < 3 && *p >= '0' && *p <= '9') {
        char *end;
        shape[*ndim] = strtoull(p, &end, 10);
        count *= shape[*ndim];
        (*ndim)++;
        p = end;
        while (*p == ',' || *p == ' ')
            p++;
    }
    data = malloc(count * sizeof *data + 1);
    if (data && fread(data, sizeof *data, count, f) != count) {
        free(data);
        data = NULL;
    }
out:
    fclose(f);
    return data;
}

/* ---- the runs ------------------------------------------------------------------------------- */

/* Two tones on bins 32 and 128 (n 1024 at 48 kHz: 1500 Hz and 6000 Hz), amplitudes 0.25 and
 * 0.5: -12.04 dBFS and -6.02 dBFS with any window. Stereo: the right channel carries only
 * the first tone. */
#define RATE 48000
#define N 1024

static void test_run(void)
{
    char wav[512], npy[512], json[560], names[512];
    const size_t frames_in = 40000 + rng_range(0, 20000);
    const size_t hop = rng_range(100, 700);
    const double a1 = 0.25, a2 = 0.5, f1 = 32.0 * RATE / N, f2 = 128.0 * RATE / N;
    const double ph1 = 2 * TEST_PI * rng_unit(), ph2 = 2 * TEST_PI * rng_unit();
    float *pcm = malloc(frames_in * 2 * sizeof *pcm);
    analyze_config cfg = analyze_config_default();
    analyze_context ctx = analyze_context_default();
    analyze_result res;
    sp_errinfo ei = {{0}};
    const size_t want_frames = (frames_in - N) / hop + 1, bins = N / 2 + 1;
    int err;

    for (size_t i = 0; i < frames_in; i++) {
        double t = (double)i / RATE;
        double s1 = a1 * sin(2 * TEST_PI * f1 * t + ph1), s2 = a2 * sin(2 * TEST_PI * f2 * t + ph2);
        pcm[2 * i] = (float)(s1 + s2);
        pcm[2 * i + 1] = (float)s1;
    }
    tu_path(wav, sizeof wav, "tones.wav");
    CHECK(write_float_wav(wav, 2, RATE, pcm, frames_in) == 0);
    tu_path(npy, sizeof npy, "out.npy");
    snprintf(json, sizeof json, "%s.json", npy);

    /* channel 0, dump */
    cfg.input = wav;
    cfg.n = N;
    cfg.hop = hop;
    cfg.channel = 0;
    cfg.backend = FFT_BACKEND_CPU;
    CHECK(analyze_set_output(&cfg, "dump", npy, &ei) == SP_OK);
    memset(&res, 0, sizeof res);
    err = analyze_run(&cfg, &ctx, &res, &ei);
    CHECK_MSG(err == SP_OK, "analyze_run: %d %s", err, ei.msg);
    CHECK_MSG(res.frames == want_frames, "frames %llu, expected %zu", (unsigned long long)res.frames, want_frames);
    CHECK_MSG(res.samples == frames_in, "samples %llu, expected %zu", (unsigned long long)res.samples, frames_in);
    CHECK_MSG(strcmp(res.backend, "cpu") == 0, "backend \"%s\"", res.backend);
    CHECK(res.info.rate == RATE && res.info.channels == 2);
    CHECK(res.n == N && res.hop == hop && res.out_channels == 1 && res.batch >= 1);
    CHECK(res.nonfinite == 0 && res.truncated == 0);
    CHECK_MSG(tu_exists(npy) && tu_exists(json), "missing %s or %s", npy, json);
    CHECK_MSG(tu_tmpdir_count("tones.wav", names, sizeof names) == 2, "the directory holds: %s", names);
    {
        size_t shape[3] = {0, 0, 0};
        int ndim;
        float *db = read_npy(npy, shape, &ndim);
        CHECK_MSG(db && ndim == 2 && shape[0] == want_frames && shape[1] == bins, "npy shape (%zu, %zu) ndim %d",
                  shape[0], shape[1], ndim);
        if (db && ndim == 2 && shape[0] == want_frames && shape[1] == bins) {
            int bad = 0;
            for (size_t f = 0; f < want_frames; f++) {
                const float *row = db + f * bins;
                int ok = fabs(row[128] - 20 * log10(a2)) <= 0.05 && fabs(row[32] - 20 * log10(a1)) <= 0.05;
                /* on-bin tones through hann touch only their bin and its two neighbours */
                for (size_t k = 0; k < bins; k++)
                    if ((k < 31 || k > 33) && (k < 127 || k > 129) && row[k] > -80.0f)
                        ok = 0;
                if (!ok)
                    bad++;
            }
            CHECK_MSG(bad == 0, "%d frames: not the tones at bins 128 (%.2f dB) and 32 (%.2f dB) alone", bad,
                      20 * log10(a2), 20 * log10(a1));
        }
        free(db);
    }
    remove_in_tmp("out.npy");
    remove_in_tmp("out.npy.json");

    /* --channel all, peaks on a stream */
    {
        FILE *out = tmpfile();
        char line[256];
        size_t lines = 0, bad = 0;
        tu_path(npy, sizeof npy, "all.npy");
        cfg.channel = STFT_CHANNEL_ALL;
        CHECK(analyze_set_output(&cfg, "dump", npy, &ei) == SP_OK);
        CHECK(analyze_set_output(&cfg, "peaks", NULL, &ei) == SP_OK);
        ctx.out = out;
        cfg.batch = 3;
        err = analyze_run(&cfg, &ctx, &res, &ei);
        CHECK_MSG(err == SP_OK, "analyze_run (all): %d %s", err, ei.msg);
        CHECK(res.out_channels == 2 && res.frames == want_frames && res.batch == 3);
        {
            size_t shape[3] = {0, 0, 0};
            int ndim;
            float *db = read_npy(npy, shape, &ndim);
            CHECK_MSG(db && ndim == 3 && shape[0] == 2 && shape[1] == want_frames && shape[2] == bins,
                      "all: npy shape (%zu, %zu, %zu) ndim %d", shape[0], shape[1], shape[2], ndim);
            if (db && ndim == 3 && shape[1] == want_frames && shape[2] == bins) {
                /* channel 1 holds the first tone only */
                const float *ch1 = db + want_frames * bins;
                CHECK(fabs(ch1[32] - 20 * log10(a1)) < 0.05 && ch1[128] < -60.0f);
            }
            free(db);
        }
        /* peaks: "channel\ttime\tfreq\tdB" per frame and channel, the stronger tone */
        rewind(out);
        while (out && fgets(line, sizeof line, out)) {
            int ch;
            double t, hz, level;
            lines++;
            if (sscanf(line, "%d %lf %lf %lf", &ch, &t, &hz, &level) != 4 || fabs(hz - (ch == 0 ? f2 : f1)) > 1.0)
                bad++;
        }
        CHECK_MSG(lines == 2 * want_frames, "%zu peak lines, expected %zu", lines, 2 * want_frames);
        CHECK_MSG(bad == 0, "%zu peak lines wrong", bad);
        if (out)
            fclose(out);
        remove_in_tmp("all.npy");
        remove_in_tmp("all.npy.json");
        cfg.n_outputs = 0; /* no peaks (and the dump is asked for again below) */
        ctx.out = stdout;
        cfg.batch = 0;
    }

    /* a bad channel index: SP_EINVAL, no output */
    tu_path(npy, sizeof npy, "bad.npy");
    CHECK(analyze_set_output(&cfg, "dump", npy, &ei) == SP_OK);
    cfg.channel = 2;
    err = analyze_run(&cfg, &ctx, &res, &ei);
    CHECK_MSG(err == SP_EINVAL, "channel 2 of a stereo file: %d, expected SP_EINVAL", err);
    CHECK_MSG(strstr(ei.msg, "channel") != NULL, "message \"%s\"", ei.msg);
    CHECK_MSG(tu_tmpdir_count("tones.wav", names, sizeof names) == 0, "bad channel left: %s", names);

    /* dump into a missing directory: SP_EIO, nothing left */
    tu_path(npy, sizeof npy, "missing-dir/out.npy");
    cfg.channel = STFT_CHANNEL_MIX;
    ei.msg[0] = 0;
    err = analyze_run(&cfg, &ctx, &res, &ei);
    CHECK_MSG(err == SP_EIO, "dump into a missing directory: %d, expected SP_EIO", err);
    CHECK_MSG(strstr(ei.msg, npy) != NULL, "message \"%s\" does not name %s", ei.msg, npy);
    CHECK_MSG(tu_tmpdir_count("tones.wav", names, sizeof names) == 0, "missing dir left: %s", names);

    /* stopped (SIGINT) part-way, after the dump was opened: SP_EINTERRUPTED, nothing left */
    {
        atomic_int stop = 1;
        tu_path(npy, sizeof npy, "stopped.npy");
        CHECK(analyze_set_output(&cfg, "dump", npy, &ei) == SP_OK);
        ctx.stop = &stop;
        err = analyze_run(&cfg, &ctx, &res, &ei);
        CHECK_MSG(err == SP_EINTERRUPTED, "stopped file run: %d, expected SP_EINTERRUPTED", err);
        CHECK_MSG(tu_tmpdir_count("tones.wav", names, sizeof names) == 0, "stopped run left: %s", names);
        ctx.stop = NULL;
    }

    /* a missing input: SP_EINPUT, nothing left */
    {
        char missing[512];
        tu_path(missing, sizeof missing, "nope.wav");
        tu_path(npy, sizeof npy, "nope.npy");
        cfg.input = missing;
        err = analyze_run(&cfg, &ctx, &res, &ei);
        CHECK_MSG(err == SP_EINPUT, "missing input: %d", err);
        CHECK_MSG(tu_tmpdir_count("tones.wav", names, sizeof names) == 0, "missing input left: %s", names);
    }
    remove_in_tmp("tones.wav");
    free(pcm);
}

/* A file shorter than one frame: one zero-padded frame. */
static void test_short(void)
{
    char wav[512], npy[512], names[512];
    float pcm[300];
    analyze_config cfg = analyze_config_default();
    analyze_context ctx = analyze_context_default();
    analyze_result res;
    sp_errinfo ei = {{0}};
    int err;
    for (size_t i = 0; i < 300; i++)
        pcm[i] = (float)(0.5 * sin(2 * TEST_PI * 0.05 * (double)i));
    tu_path(wav, sizeof wav, "short.wav");
    tu_path(npy, sizeof npy, "short.npy");
    CHECK(write_float_wav(wav, 1, 8000, pcm, 300) == 0);
    cfg.input = wav;
    cfg.n = N;
    cfg.backend = FFT_BACKEND_CPU;
    CHECK(analyze_set_output(&cfg, "dump", npy, &ei) == SP_OK);
    err = analyze_run(&cfg, &ctx, &res, &ei);
    CHECK_MSG(err == SP_OK, "short: %d %s", err, ei.msg);
    CHECK_MSG(res.frames == 1 && res.samples == 300, "short: %llu frames, %llu samples",
              (unsigned long long)res.frames, (unsigned long long)res.samples);
    CHECK(res.hop == N / 4);
    remove_in_tmp("short.npy");
    remove_in_tmp("short.npy.json");

    /* --channel all on a mono file keeps the channel axis: (1, 1, bins) */
    cfg.channel = STFT_CHANNEL_ALL;
    err = analyze_run(&cfg, &ctx, &res, &ei);
    CHECK_MSG(err == SP_OK, "short, all: %d %s", err, ei.msg);
    {
        size_t shape[3] = {0, 0, 0};
        int ndim;
        float *db = read_npy(npy, shape, &ndim);
        CHECK_MSG(db && ndim == 3 && shape[0] == 1 && shape[1] == 1 && shape[2] == N / 2 + 1,
                  "mono, --channel all: shape (%zu, %zu, %zu) ndim %d", shape[0], shape[1], shape[2], ndim);
        free(db);
    }
    remove_in_tmp("short.wav");
    remove_in_tmp("short.npy");
    remove_in_tmp("short.npy.json");
    CHECK_MSG(tu_tmpdir_count(NULL, names, sizeof names) == 0, "left: %s", names);

    /* a WAV without a single sample: bad input, nothing left */
    CHECK(write_float_wav(wav, 1, 8000, pcm, 0) == 0);
    cfg.channel = STFT_CHANNEL_MIX;
    err = analyze_run(&cfg, &ctx, &res, &ei);
    CHECK_MSG(err == SP_EINPUT, "no samples: %d, expected SP_EINPUT", err);
    CHECK_MSG(strstr(ei.msg, wav) != NULL, "message \"%s\" does not name %s", ei.msg, wav);
    remove_in_tmp("short.wav");
    CHECK_MSG(tu_tmpdir_count(NULL, names, sizeof names) == 0, "no samples: left %s", names);
}

static void test_auto_batch(void)
{
    int bad = 0;
    for (size_t n = FFT_MIN_SIZE; n <= FFT_MAX_SIZE; n *= 2) {
        const size_t hops[] = {1, n / 8 ? n / 8 : 1, n / 4, n, 10 * n, (size_t)1 << 40};
        const int chans[] = {1, 2, 7, 64, SOURCE_MAX_CHANNELS};
        for (size_t h = 0; h < sizeof hops / sizeof hops[0]; h++)
            for (size_t c = 0; c < sizeof chans / sizeof chans[0]; c++)
                for (int mode = 0; mode < 3; mode++) {
                    int gpu = mode > 0, reduced = mode == 2;
                    size_t b = analyze_auto_batch(n, hops[h], chans[c], gpu, reduced);
                    /* output values and signal samples held per call, across channels */
                    double out_values = (double)b * (double)(n / 2 + 1) * chans[c];
                    double span = ((double)(b - 1) * (double)hops[h] + (double)n) * chans[c];
                    if (b < 1 || b > 65536 ||
                        (b > 1 && (out_values > 64.0 * 1024 * 1024 || span > 64.0 * 1024 * 1024))) {
                        if (bad++ < 5)
                            fprintf(stderr, "analyze_auto_batch(%zu, %zu, %d, %d, %d) = %zu\n", n, hops[h],
                                    chans[c], gpu, reduced, b);
                    }
                }
    }
    CHECK_MSG(bad == 0, "%d auto batch sizes out of bounds (>= 1, <= 64M floats per call)", bad);
    CHECK(analyze_auto_batch(4096, 1024, 1, 0, 0) > 1); /* a file analysis does batch */
    /* a GPU run that takes only reductions makes bigger calls than one that takes spectra */
    CHECK(analyze_auto_batch(4096, 256, 1, 1, 1) > analyze_auto_batch(4096, 256, 1, 1, 0));
}

/* A caller's sink that records what it got: it declares spectra and a peak search, checks
 * every peak record against the spectra it came with, and can fail at its n-th spectra. */
typedef struct {
    size_t kmin, kmax, n, bins;
    double rate;
    int fail_at;        /* fail the fail_at-th spectra call (1-based); 0 never */
    int calls, opened, finished, aborted, bad_peaks;
    int settled, settled_at_call, settled_by_finish; /* settle: how often, after which spectra call */
    uint64_t peak_frames;
    const float *last_db; /* the block of the last spectra call: its peaks come next */
    peaks_window *pw;     /* the run's window's transform, made from its name at open */
} rec_sink;

static int rec_open(void *self, const sink_stream *st, sink_wants *w, sp_errinfo *ei)
{
    rec_sink *r = self;
    (void)ei;
    r->opened++;
    r->n = st->n;
    r->bins = st->bins;
    r->rate = st->rate;
    {
        window_spec ws;
        float *coef = malloc(st->n * sizeof *coef);
        peaks_window_destroy(r->pw);
        r->pw = NULL;
        if (!coef || window_parse(st->window, &ws, ei) != SP_OK || window_fill(&ws, st->n, coef, NULL) != SP_OK ||
            peaks_window_create(coef, st->n, &r->pw, ei) != SP_OK)
            r->bad_peaks++;
        free(coef);
    }
    w->spectra = 1;
    w->peaks = 1;
    w->peak_kmin = r->kmin;
    w->peak_kmax = r->kmax;
    return SP_OK;
}

static int rec_spectra(void *self, int channel, uint64_t first, size_t nframes, const float *db, sp_errinfo *ei)
{
    rec_sink *r = self;
    (void)channel, (void)first, (void)nframes;
    r->last_db = db;
    if (++r->calls == r->fail_at)
        return sp_fail(ei, SP_EIO, "rec: failing as asked");
    return SP_OK;
}

static int rec_peaks(void *self, int channel, uint64_t first, size_t nframes, const peak *pk, sp_errinfo *ei)
{
    rec_sink *r = self;
    (void)channel, (void)first, (void)ei;
    for (size_t i = 0; i < nframes; i++) {
        peak want = peaks_find_range(r->pw, r->last_db + i * r->bins, r->n, r->rate, r->kmin, r->kmax);
        if (pk[i].bin != want.bin || pk[i].db != want.db || pk[i].bin < r->kmin || pk[i].bin > r->kmax)
            r->bad_peaks++;
    }
    r->peak_frames += nframes;
    return SP_OK;
}

static int rec_finish(void *self, const sink_end *end, sp_errinfo *ei)
{
    rec_sink *r = self;
    (void)end, (void)ei;
    r->finished++;
    r->settled_by_finish = r->settled;
    peaks_window_destroy(r->pw);
    r->pw = NULL;
    return SP_OK;
}

/* The framer's blocks are still there (the last one is read back), and no later spectra come. */
static int rec_settle(void *self, sp_errinfo *ei)
{
    rec_sink *r = self;
    volatile float sum = 0.0f;
    (void)ei;
    for (size_t k = 0; r->last_db && k < r->bins; k++)
        sum += r->last_db[k];
    (void)sum;
    r->settled++;
    r->settled_at_call = r->calls;
    return SP_OK;
}

static void rec_abort(void *self)
{
    rec_sink *r = self;
    r->aborted++;
    peaks_window_destroy(r->pw);
    r->pw = NULL;
}

static const sink_ops rec_ops = {"rec", rec_open, rec_spectra, rec_peaks, rec_finish, rec_abort, NULL, NULL, rec_settle};

/* Several sinks in one run: the dump, the picture and a caller's sink, with its declared
 * peaks computed by the pipeline; then one failing part-way aborts the others. */
static void test_sink_list(void)
{
    char wav[512], npy[512], png[512], names[512];
    const size_t frames_in = 30000;
    float *pcm = malloc(frames_in * sizeof *pcm);
    analyze_config cfg = analyze_config_default();
    analyze_context ctx = analyze_context_default();
    analyze_result res;
    sp_errinfo ei = {{0}};
    rec_sink rec;
    sink s = {&rec_ops, &rec};
    int err;

    for (size_t i = 0; i < frames_in; i++)
        pcm[i] = (float)(0.5 * sin(2 * TEST_PI * 1000.0 * (double)i / RATE) + 0.1 * rng_unit());
    tu_path(wav, sizeof wav, "list.wav");
    tu_path(npy, sizeof npy, "list.npy");
    tu_path(png, sizeof png, "list.png");
    CHECK(write_float_wav(wav, 1, RATE, pcm, frames_in) == 0);
    cfg.input = wav;
    cfg.n = N;
    cfg.backend = FFT_BACKEND_CPU;
    cfg.batch = 7;
    ctx.extra_sinks = &s;
    ctx.n_extra_sinks = 1;
    CHECK(analyze_set_output(&cfg, "dump", npy, &ei) == SP_OK);
#ifdef SPECTRO_HAVE_RENDER
    CHECK(analyze_set_output(&cfg, "png", png, &ei) == SP_OK);
#endif
    CHECK(analyze_set_output(&cfg, "nope", npy, &ei) == SP_EINVAL && strstr(ei.msg, "nope"));
    CHECK(analyze_set_output(&cfg, "dump", npy, &ei) == SP_OK); /* again: replaces, one dump */
#ifdef SPECTRO_HAVE_RENDER
    CHECK(cfg.n_outputs == 2);
#else
    CHECK(cfg.n_outputs == 1);
#endif

    /* all well: every output in place, the caller's sink finished, its peaks right */
    memset(&rec, 0, sizeof rec);
    rec.kmin = 3;
    rec.kmax = 100;
    err = analyze_run(&cfg, &ctx, &res, &ei);
    CHECK_MSG(err == SP_OK, "sink list: %d %s", err, ei.msg);
    CHECK(rec.opened == 1 && rec.finished == 1 && rec.aborted == 0);
    CHECK_MSG(rec.peak_frames == res.frames && rec.bad_peaks == 0, "%llu peak records of %llu frames, %d wrong",
              (unsigned long long)rec.peak_frames, (unsigned long long)res.frames, rec.bad_peaks);
    CHECK(tu_exists(npy));
    CHECK(rec.settled == 0); /* not the process's last run: the framer stays */
#ifdef SPECTRO_HAVE_RENDER
    CHECK(tu_exists(png));
    remove_in_tmp("list.png");
#endif

    /* the process's last run: the sinks settle once, after the last frame and before their
     * finish, and the framer and plan go meanwhile; the outputs are the same */
    memset(&rec, 0, sizeof rec);
    rec.kmin = 3;
    rec.kmax = 100;
    ctx.last_run = 1;
    err = analyze_run(&cfg, &ctx, &res, &ei);
    ctx.last_run = 0;
    CHECK_MSG(err == SP_OK, "last run: %d %s", err, ei.msg);
    CHECK(rec.finished == 1 && rec.settled == 1 && rec.settled_by_finish == 1);
    CHECK_MSG(rec.calls > 1 && rec.settled_at_call == rec.calls, "settled after %d of %d spectra calls",
              rec.settled_at_call, rec.calls);
    CHECK(rec.peak_frames == res.frames && rec.bad_peaks == 0 && res.fft_s > 0.0);
    CHECK(tu_exists(npy));
#ifdef SPECTRO_HAVE_RENDER
    CHECK(tu_exists(png));
    remove_in_tmp("list.png");
#endif
    remove_in_tmp("list.npy");
    remove_in_tmp("list.npy.json");

    /* the caller's sink fails at its third block: the run fails with its error, every
     * other output is aborted and nothing is left */
    memset(&rec, 0, sizeof rec);
    rec.kmin = 1;
    rec.kmax = N / 2 - 1;
    rec.fail_at = 3;
    err = analyze_run(&cfg, &ctx, &res, &ei);
    CHECK_MSG(err == SP_EIO && strstr(ei.msg, "rec:"), "failing sink: %d %s", err, ei.msg);
    CHECK(rec.opened == 1 && rec.finished == 0 && rec.aborted == 1);
    CHECK_MSG(tu_tmpdir_count("list.wav", names, sizeof names) == 0, "a failed run left: %s", names);

    /* two outputs on standard output: refused before any work */
    cfg.n_outputs = 0;
    ctx.n_extra_sinks = 0;
    CHECK(analyze_set_output(&cfg, "dump", "-", &ei) == SP_OK);
    CHECK(analyze_set_output(&cfg, "peaks", NULL, &ei) == SP_OK);
    err = analyze_run(&cfg, &ctx, &res, &ei);
    /* the engine marks its settings (the program shows them as --dump, --peaks) */
    CHECK_MSG(err == SP_EINVAL &&
                  strcmp(ei.msg, SP_FIELD("dump") " - and " SP_FIELD("peaks") " both write to standard output: pick "
                                                  "one") == 0,
              "two on stdout: %d %s", err, ei.msg);
    remove_in_tmp("list.wav");
    free(pcm);
}

int main(void)
{
    int rc = tu_begin_files("test_analyze");
    if (rc != 0)
        return rc;
    test_run();
    test_short();
    test_auto_batch();
    test_sink_list();
    CHECK_MSG(rmdir(tu_tmpdir()) == 0, "cannot remove %s (not empty?)", tu_tmpdir());
    return check_done("test_analyze");
}
