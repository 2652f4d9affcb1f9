/* test_measure: the measurements' arithmetic (sink/measure.h) and the spectrum plot
 * (picture/plot.h).
 *
 *   windows      ENBW against the closed forms (scipy's values), the main lobe's half-width
 *                K for each window, the same at every N
 *   accumulator  power mean / max / min hold of random dB frames against a double reference,
 *                reset, no frames = the floor, the PSD offset
 *   tone         real sines through the cpu FFT: a sine with -60/-70 dB harmonics and a
 *                known noise floor (THD, THD+N, SNR within 0.1 dB of the analytic values),
 *                --tone F picking a weaker tone, errors for an empty band or F outside it
 *   dump         one spectrum per channel: .npy shapes (bins,) and (channels, bins), CSV
 *                without the time column, the sidecar's extra members
 *   plot         the picture's size, the curve's highest pixel in the tone's column, the
 *                tone labelled, labels not overlapping, the same bytes twice; a real
 *                three-tone mean spectrum's labels: the --peaks refinement's figures, by
 *                prominence, a weaker tone near a stronger one labelled (renderer only)
 * The random seed is printed; SPECTRO_TEST_SEED=... repeats a run. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "colormap.h"
#include "dump.h"
#include "fft.h"
#include "measure.h"
#include "peaks.h"
#include "plot.h"
#include "test_util.h"
#include "window.h"

#define TEST_PI 3.14159265358979323846

/* ---- windows -------------------------------------------------------------------------------- */

static void test_windows(void)
{
    static const struct {
        const char *name;
        double enbw; /* N sum(w^2)/sum(w)^2 of the periodic window, large N (scipy) */
        int lobe;
    } cases[] = {
        {"rect", 1.0, 1},         {"hann", 1.5, 2},          {"hamming", 1.36283, 2},
        {"blackman", 1.72676, 3}, {"blackman-harris", 2.00435, 4}, {"flattop", 3.77016, 5},
        {"kaiser", 1.72137, 3},   {"kaiser:20", 2.56426, 7},
    };
    static const size_t sizes[] = {64, 1024, 4096, 65536};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        for (size_t j = 0; j < sizeof sizes / sizeof sizes[0]; j++) {
            size_t n = sizes[j];
            float *w = malloc(n * sizeof *w);
            window_spec ws;
            measure_window mw;
            CHECK(window_parse(cases[i].name, &ws, NULL) == SP_OK);
            CHECK(window_fill(&ws, n, w, NULL) == SP_OK);
            measure_window_of(w, n, &mw);
            /* ENBW moves with N by O(1/N) for the windows that do not vanish at the ends */
            CHECK_MSG(fabs(mw.enbw_bins - cases[i].enbw) < (n < 1024 ? 2e-2 : 2e-4), "%s N=%zu: ENBW %.6f, want %.5f",
                      cases[i].name, n, mw.enbw_bins, cases[i].enbw);
            CHECK_MSG(mw.lobe_bins == cases[i].lobe, "%s N=%zu: lobe +-%d bins (null at %.3f), want +-%d",
                      cases[i].name, n, mw.lobe_bins, mw.null_bins, cases[i].lobe);
            CHECK_CLOSE(measure_psd_offset_db(&mw, 10.0), -10.0 * log10(mw.enbw_bins * 10.0), 1e-12);
            free(w);
        }
}

/* ---- the accumulator -------------------------------------------------------------------------- */

static void test_accum(void)
{
    const size_t bins = rng_range(3, 300);
    const int channels = (int)rng_range(1, 3);
    const size_t frames = rng_range(1, 400);
    float *db = malloc(frames * bins * sizeof *db), *out = malloc(bins * sizeof *out);
    double *p = malloc(bins * sizeof *p);
    measure_accum *acc[3] = {NULL, NULL, NULL};
    double worst = 0.0;
    for (size_t i = 0; i < frames * bins; i++)
        db[i] = (float)(-200.0 + 200.0 * rng_unit());
    for (int m = 0; m < 3; m++) {
        CHECK(measure_accum_create((measure_average)m, channels, bins, &acc[m]) == SP_OK);
        /* in uneven blocks, as the framer hands them over */
        for (size_t f = 0; acc[m] && f < frames;) {
            size_t take = rng_range(1, frames - f);
            measure_accum_add(acc[m], channels - 1, take, db + f * bins);
            f += take;
        }
    }
    for (size_t k = 0; acc[0] && acc[1] && acc[2] && k < bins; k++) {
        double sum = 0.0, hi = -1e9, lo = 1e9;
        for (size_t f = 0; f < frames; f++) {
            double v = db[f * bins + k];
            sum += pow(10.0, v / 10.0);
            hi = v > hi ? v : hi;
            lo = v < lo ? v : lo;
        }
        measure_accum_db(acc[0], channels - 1, 0.0, out);
        worst = fmax(worst, fabs(out[k] - 10.0 * log10(sum / (double)frames)));
        measure_accum_power(acc[0], channels - 1, p);
        CHECK_CLOSE(p[k] / (sum / (double)frames), 1.0, 1e-12);
        measure_accum_db(acc[1], channels - 1, -3.0, out);
        CHECK_CLOSE(out[k], hi - 3.0, 1e-4);
        measure_accum_db(acc[2], channels - 1, 0.0, out);
        CHECK_CLOSE(out[k], lo, 1e-4);
    }
    CHECK_MSG(worst < 2e-4, "power mean off by %.3g dB", worst);
    for (int m = 0; m < 3 && acc[m]; m++) {
        CHECK(measure_accum_frames(acc[m], channels - 1) == frames);
        /* the other channels saw nothing: the floor */
        if (channels > 1) {
            measure_accum_db(acc[m], 0, 0.0, out);
            CHECK(out[0] == FFT_DB_FLOOR && out[bins - 1] == FFT_DB_FLOOR);
        }
        measure_accum_reset(acc[m], channels - 1);
        CHECK(measure_accum_frames(acc[m], channels - 1) == 0);
        measure_accum_db(acc[m], channels - 1, 0.0, out);
        CHECK(out[bins / 2] == FFT_DB_FLOOR);
        measure_accum_destroy(acc[m]);
    }
    CHECK(measure_accum_create(MEASURE_MEAN, 0, 10, &acc[0]) == SP_EINVAL);
    measure_accum_destroy(NULL);
    free(db);
    free(out);
    free(p);
}

static void test_modes(void)
{
    measure_average m;
    CHECK(measure_average_count() == 3);
    CHECK(measure_average_parse("max", &m, NULL) == SP_OK && m == MEASURE_MAX);
    CHECK(measure_average_parse("MEAN", &m, NULL) == SP_OK && m == MEASURE_MEAN);
    CHECK(measure_average_parse("median", &m, NULL) == SP_EINVAL);
    CHECK(strcmp(measure_average_name(2), "min") == 0 && measure_average_name(3) == NULL);
}

/* ---- tone analysis ------------------------------------------------------------------------------ */

/* Gaussian noise of standard deviation 1 (Box-Muller on the run's generator). */
static double gauss(void)
{
    double u = rng_unit(), v = rng_unit();
    return sqrt(-2.0 * log(u > 1e-300 ? u : 1e-300)) * cos(2.0 * TEST_PI * v);
}

/* The power-mean spectrum of `frames` hops of a signal made by fill(t) through the cpu FFT
 * with window `win`; p and mw receive the spectrum and the window's part. */
typedef double (*signal_fn)(double t, const void *arg);

static void mean_spectrum(const char *win, size_t n, size_t frames, double rate, signal_fn fn, const void *arg,
                          double *p, measure_window *mw)
{
    const size_t hop = n / 2, len = (frames - 1) * hop + n;
    float *w = malloc(n * sizeof *w), *sig = malloc(len * sizeof *sig), *db = malloc(frames * (n / 2 + 1) * sizeof *db);
    window_spec ws;
    fft_plan *plan;
    measure_accum *acc = NULL;
    CHECK(window_parse(win, &ws, NULL) == SP_OK);
    CHECK(window_fill(&ws, n, w, NULL) == SP_OK);
    measure_window_of(w, n, mw);
    for (size_t i = 0; i < len; i++)
        sig[i] = (float)fn((double)i / rate, arg);
    plan = tu_plan(FFT_BACKEND_CPU, n, hop, w, frames);
    CHECK(measure_accum_create(MEASURE_MEAN, 1, n / 2 + 1, &acc) == SP_OK);
    if (plan && acc) {
        CHECK(fft_stft_db(plan, sig, frames, db) == SP_OK);
        measure_accum_add(acc, 0, frames, db);
        measure_accum_power(acc, 0, p);
    }
    measure_accum_destroy(acc);
    fft_plan_destroy(plan);
    free(w);
    free(sig);
    free(db);
}

typedef struct {
    double f0, a1, a2, a3, sigma, f_other, a_other;
} tone_signal;

static double tone_at(double t, const void *arg)
{
    const tone_signal *s = arg;
    return s->a1 * sin(2 * TEST_PI * s->f0 * t) + s->a2 * sin(2 * TEST_PI * 2 * s->f0 * t + 0.3) +
           s->a3 * sin(2 * TEST_PI * 3 * s->f0 * t + 1.1) + s->a_other * sin(2 * TEST_PI * s->f_other * t) +
           s->sigma * gauss();
}

/* The band's width in bins (DC and Nyquist count half), as measure.h counts it. */
static double band_bins(size_t n, double rate, double lo, double hi)
{
    double w = 0.0;
    for (size_t k = 0; k <= n / 2; k++) {
        double f = (double)k * rate / (double)n;
        if (f >= lo - 1e-9 && f <= hi + 1e-9)
            w += k == 0 || k == n / 2 ? 0.5 : 1.0;
    }
    return w;
}

static void test_tone_analytic(void)
{
    const size_t n = 8192, frames = 120;
    const double rate = 48000.0;
    const char *wins[] = {"kaiser:20", "blackman-harris", "hann"};
    double *p = malloc((n / 2 + 1) * sizeof *p);
    for (size_t i = 0; i < sizeof wins / sizeof wins[0]; i++) {
        /* on a bin, so that no window's sidelobes leak: harmonics -60 and -70 dB, SNR ~75 dB */
        tone_signal s = {171.0 * rate / (double)n, 0.5, 0.5e-3, 0.5 * pow(10, -70.0 / 20), 6.9e-5, 0.0, 0.0};
        measure_window mw;
        measure_tone t;
        double lo, hi, frac, noise, thd, thdn, snr;
        mean_spectrum(wins[i], n, frames, rate, tone_at, &s, p, &mw);
        CHECK(measure_tone_band(-1, -1, rate, &lo, &hi, NULL) == SP_OK && lo == 20.0 && hi == 20000.0);
        CHECK(measure_tone_analyze(p, n, rate, &mw, lo, hi, 0.0, &t, NULL) == SP_OK);
        frac = band_bins(n, rate, lo, hi) / (double)(n / 2);
        noise = 2.0 * s.sigma * s.sigma * frac; /* in the peak-squared units of measure.h */
        thd = 10 * log10((s.a2 * s.a2 + s.a3 * s.a3) / (s.a1 * s.a1));
        thdn = 10 * log10((s.a2 * s.a2 + s.a3 * s.a3 + noise) / (s.a1 * s.a1));
        snr = 10 * log10(s.a1 * s.a1 / noise);
        printf("tone %s: THD %.3f (%.3f) THD+N %.3f (%.3f) SNR %.3f (%.3f)\n", wins[i], t.thd_db, thd, t.thdn_db,
               thdn, t.snr_db, snr);
        CHECK_CLOSE(t.fundamental_hz, s.f0, 1e-3);
        CHECK_CLOSE(t.fundamental_dbfs, 20 * log10(s.a1), 0.01);
        CHECK_CLOSE(t.thd_db, thd, 0.1);
        CHECK_CLOSE(t.thdn_db, thdn, 0.1);
        CHECK_CLOSE(t.snr_db, snr, 0.1);
        CHECK_CLOSE(t.sinad_db, -t.thdn_db, 1e-12);
        CHECK_CLOSE(t.enob_bits, (t.sinad_db - 1.76) / 6.02, 1e-12);
        CHECK_CLOSE(t.noise_dbfs, t.fundamental_dbfs - t.snr_db, 1e-9);
        CHECK_CLOSE(t.thd_percent, 100.0 * pow(10.0, t.thd_db / 20.0), 1e-9);
        CHECK(t.harmonics == 9 && t.harmonic[0].n == 2 && t.harmonic[8].n == 10);
        CHECK_CLOSE(t.harmonic[0].dbfs, 20 * log10(s.a2), 0.05);
        CHECK_CLOSE(t.harmonic[1].dbfs, 20 * log10(s.a3), 0.05);
        CHECK_CLOSE(t.harmonic[1].hz, 3.0 * t.fundamental_hz, 1e-9);
    }
    free(p);
}

/* --tone F: a weaker tone at F is analysed although a stronger one is in the band; a band
 * cut at 7 kHz holds harmonics 2..6 of 1.1 kHz only; F outside the band and an empty band
 * are usage errors. */
static void test_tone_given(void)
{
    const size_t n = 4096;
    const double rate = 48000.0;
    double *p = malloc((n / 2 + 1) * sizeof *p), lo, hi;
    tone_signal s = {1100.0, 0.1, 0.0, 0.0, 1e-5, 5000.0, 0.9};
    measure_window mw;
    measure_tone t;
    sp_errinfo ei = {{0}};
    mean_spectrum("kaiser:20", n, 40, rate, tone_at, &s, p, &mw);
    CHECK(measure_tone_analyze(p, n, rate, &mw, 20.0, 20000.0, 0.0, &t, NULL) == SP_OK);
    CHECK_CLOSE(t.fundamental_hz, 5000.0, 0.01);
    CHECK(measure_tone_analyze(p, n, rate, &mw, 20.0, 7000.0, 1100.0, &t, NULL) == SP_OK);
    CHECK_CLOSE(t.fundamental_hz, 1100.0, 0.01);
    CHECK_CLOSE(t.fundamental_dbfs, 20.0 * log10(0.1), 0.01);
    CHECK(t.harmonics == 5 && t.harmonic[4].n == 6);
    /* the stronger tone at 5 kHz is not a harmonic of 1.1 kHz: it is noise and distortion */
    /* the stronger tone at 5 kHz is no harmonic of 1.1 kHz: it is noise and distortion, 19.08 dB
     * above the fundamental, and a little more where the noise per bin it raised fills the
     * fundamental's lobe (docs/measurements.md "Tone analysis") */
    CHECK_MSG(t.thdn_db > 19.08 && t.thdn_db < 19.5, "THD+N %.4f dB", t.thdn_db);
    CHECK(t.snr_db < -19.0);
    CHECK(measure_tone_analyze(p, n, rate, &mw, 20.0, 7000.0, 9000.0, &t, &ei) == SP_EINVAL);
    CHECK(strstr(ei.msg, SP_FIELD("fundamental_hz") " 9000") != NULL);
    CHECK(measure_tone_analyze(p, n, rate, &mw, 20.0, 40.0, 0.0, &t, &ei) == SP_EINVAL);
    CHECK(strstr(ei.msg, SP_FIELD("fmin") "/" SP_FIELD("fmax")) != NULL);
    CHECK(measure_tone_band(30000.0, -1, rate, &lo, &hi, &ei) == SP_EINVAL);
    CHECK(measure_tone_band(-1, 30000.0, 32000.0, &lo, &hi, NULL) == SP_OK && hi == 16000.0);
    free(p);
}

/* ---- the dump of one spectrum ------------------------------------------------------------------ */

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    long n;
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    rewind(f);
    buf = calloc((size_t)n + 1, 1);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    if (len)
        *len = (size_t)n;
    return buf;
}

static void dump_single(const char *name, int channels, int stacked, const char *want)
{
    char path[512], json[560];
    float row[5] = {0.0f, -1.5f, -3.0f, -200.0f, -6.25f};
    dump_config dc;
    dump_meta m;
    dump *d = NULL;
    char *text;
    size_t len = 0;
    tu_path(path, sizeof path, name);
    memset(&dc, 0, sizeof dc);
    dc.path = path;
    dc.channels = channels;
    dc.stacked = stacked;
    dc.single = 1;
    dc.bins = 5;
    dc.bin_hz = 100.0;
    CHECK(dump_open(&dc, &d, NULL) == SP_OK);
    for (int c = 0; d && c < channels; c++)
        CHECK(dump_write(d, c, 0, 1, row, NULL) == SP_OK);
    memset(&m, 0, sizeof m);
    m.source = "x";
    m.channel_name = "mix";
    m.window = "hann";
    m.backend = "cpu";
    m.extra = ",\n  \"average\": \"mean\"";
    CHECK(d && dump_commit(d, &m, NULL) == SP_OK);
    dump_destroy(d);
    text = slurp(path, &len);
    /* past the .npy magic, whose version bytes hold a NUL */
    CHECK_MSG(text && len > 10 && strstr(text + (strstr(name, ".npy") ? 10 : 0), want) != NULL,
              "%s: want %s in the header", name, want);
    if (text && strstr(name, ".npy"))
        CHECK(len == 128 + (size_t)channels * 5 * 4);
    free(text);
    snprintf(json, sizeof json, "%s.json", path);
    text = slurp(json, NULL);
    CHECK(text && strstr(text, "\"truncated\": false,\n  \"average\": \"mean\"\n}\n") != NULL);
    free(text);
}

static void test_dump_single(void)
{
    dump_single("one.npy", 1, 0, "'shape': (5,), }");
    dump_single("stacked.npy", 1, 1, "'shape': (1, 5), }");
    dump_single("two.npy", 2, 1, "'shape': (2, 5), }");
    dump_single("one.csv", 1, 0, "0,100,200,300,400\n0.0000,-1.5000,-3.0000,-200.0000,-6.2500\n");
    dump_single("two.csv", 2, 1, "channel,0,100,200,300,400\n0,0.0000,-1.5000,-3.0000,-200.0000,-6.2500\n1,0.0000,");
}

/* ---- the plot ------------------------------------------------------------------------------------- */

#ifdef SPECTRO_HAVE_RENDER
/* The topmost pixel of the curve's colour inside the area: its column. */
static int top_curve_column(const uint8_t *rgba, int width, render_rect a, const uint8_t col[3])
{
    for (int y = a.y; y < a.y + a.h; y++)
        for (int x = a.x; x < a.x + a.w; x++) {
            const uint8_t *px = rgba + ((size_t)y * (size_t)width + (size_t)x) * 4;
            if (px[0] == col[0] && px[1] == col[1] && px[2] == col[2])
                return x;
        }
    return -1;
}

typedef struct {
    const peaks_window *pw;
    size_t n;
    double rate;
} refine_ctx;

/* What sink_average hands the plot: peaks_refine with the spectra's window. */
static void refine_by_peaks(const void *ctx, size_t bin, float l, float c, float r, double *hz, double *db)
{
    const refine_ctx *rc = ctx;
    peak pk = peaks_refine(rc->pw, bin, l, c, r, rc->n, rc->rate);
    *hz = pk.freq_hz;
    *db = pk.db;
}

static void plot_case(freq_scale scale, double tone_bin)
{
    const size_t n = 4096, bins = n / 2 + 1;
    const double rate = 48000.0, bin_hz = rate / (double)n;
    float *db = malloc(bins * sizeof *db);
    const float *rows[1] = {db};
    plot_config pc;
    plot *p = NULL;
    uint8_t *a = NULL, *b = NULL, col[3];
    plot_label labels[PLOT_MAX_LABELS];
    int nl, found = 0;
    size_t c = (size_t)tone_bin;
    refine_ctx ctx = {NULL, n, rate};
    for (size_t k = 0; k < bins; k++) /* a floor with a little ripple, and one tone */
        db[k] = (float)(-100.0 + 3.0 * sin((double)k * 0.7));
    db[c - 1] = -12.0f;
    db[c] = -3.0f;
    db[c + 1] = -12.0f;
    memset(&pc, 0, sizeof pc);
    pc.rc = render_config_default();
    pc.rc.width = 1000;
    pc.rc.height = 600;
    pc.rc.scale = scale;
    pc.rc.title = "test";
    pc.rate = rate;
    pc.n = n;
    pc.channels = 1;
    pc.refine = refine_by_peaks; /* with no window: the peaks module's parabola */
    pc.refine_ctx = &ctx;
    CHECK(plot_create(&pc, &p, NULL) == SP_OK);
    a = malloc(1000 * 600 * 4);
    b = malloc(1000 * 600 * 4);
    if (p && a && b) {
        render_rect r = plot_area(p);
        int want = (int)floor(plot_x_of_hz(p, (double)c * bin_hz));
        CHECK(plot_draw(p, rows, a, NULL) == SP_OK);
        CHECK(plot_draw(p, rows, b, NULL) == SP_OK);
        CHECK(memcmp(a, b, 1000 * 600 * 4) == 0);
        CHECK(r.x > 0 && r.y > 0 && r.x + r.w < 1000 && r.y + r.h < 600);
        colormap_rgb(pc.rc.colormap, 0.85f, col);
        CHECK_MSG(top_curve_column(a, 1000, r, col) == want, "scale %d: the curve peaks in column %d, want %d",
                  (int)scale, top_curve_column(a, 1000, r, col), want);
        CHECK_CLOSE(plot_y_of_db(p, 0.0), r.y, 1e-9);
        nl = plot_labels(p, labels, PLOT_MAX_LABELS);
        CHECK(nl >= 1 && nl <= PLOT_MAX_LABELS);
        for (int i = 0; i < nl; i++) {
            if (fabs(labels[i].hz - (double)c * bin_hz) < 0.5 * bin_hz && fabs(labels[i].db + 3.0) < 0.01)
                found = 1;
            CHECK(labels[i].box.x >= r.x && labels[i].box.x + labels[i].box.w <= r.x + r.w);
            for (int j = 0; j < i; j++)
                CHECK(!(labels[i].box.x < labels[j].box.x + labels[j].box.w &&
                        labels[j].box.x < labels[i].box.x + labels[i].box.w &&
                        labels[i].box.y < labels[j].box.y + labels[j].box.h &&
                        labels[j].box.y < labels[i].box.y + labels[i].box.h));
        }
        CHECK_MSG(found && labels[0].x == want, "the tone's label (first of %d: %s at column %d)", nl,
                  nl ? labels[0].text : "", nl ? labels[0].x : -1);
    }
    plot_destroy(p);
    free(a);
    free(b);
    free(db);
}

typedef struct {
    double f[3], a[3], sigma;
} tones_signal;

static double tones_at(double t, const void *arg)
{
    const tones_signal *s = arg;
    double x = s->sigma * gauss();
    for (int i = 0; i < 3; i++)
        x += s->a[i] * sin(2 * TEST_PI * s->f[i] * t + 0.7 * i);
    return x;
}

/* The labels of a real mean spectrum (hann, N 4096, the default 1920x1080 picture): a sine
 * at -6.02 dB, one 15 dB below it and 500 Hz (37 pixels) up, one 40 dB below, and a noise
 * floor. The labels read the --peaks figures (within 0.02 dB and 0.01 bin, where the parabola
 * on dB read a 440 Hz sine "439.9 Hz -5.7 dB"), and come by prominence: the three tones,
 * strongest first (the -15 dB tone near the first got none, its marker too close), and
 * nothing of the noise. */
static void plot_peaks_case(void)
{
    const size_t n = 4096, bins = n / 2 + 1, frames = 60;
    const double rate = 48000.0, bin_hz = rate / (double)n;
    const tones_signal s = {{1001.7, 1503.3, 5000.0}, {0.5, 0.5 * pow(10, -15 / 20.0), 0.5 * 0.01}, 3e-4};
    double *p = malloc(bins * sizeof *p);
    float *db = malloc(bins * sizeof *db), *w = malloc(n * sizeof *w);
    const float *rows[1] = {db};
    measure_window mw;
    window_spec ws = window_spec_default();
    peaks_window *pw = NULL;
    refine_ctx ctx;
    plot_config pc;
    plot *pl = NULL;
    uint8_t *rgba = malloc(1920 * 1080 * 4);
    plot_label labels[PLOT_MAX_LABELS];
    int nl = 0;
    mean_spectrum("hann", n, frames, rate, tones_at, &s, p, &mw);
    for (size_t k = 0; k < bins; k++)
        db[k] = (float)(10.0 * log10(p[k] > 1e-20 ? p[k] : 1e-20));
    CHECK(window_fill(&ws, n, w, NULL) == SP_OK);
    CHECK(peaks_window_create(w, n, &pw, NULL) == SP_OK);
    ctx.pw = pw;
    ctx.n = n;
    ctx.rate = rate;
    memset(&pc, 0, sizeof pc);
    pc.rc = render_config_default();
    pc.rc.width = 1920;
    pc.rc.height = 1080;
    pc.rc.title = "peaks";
    pc.rate = rate;
    pc.n = n;
    pc.channels = 1;
    pc.refine = refine_by_peaks;
    pc.refine_ctx = &ctx;
    CHECK(plot_create(&pc, &pl, NULL) == SP_OK);
    if (pl && rgba && pw) {
        CHECK(plot_draw(pl, rows, rgba, NULL) == SP_OK);
        nl = plot_labels(pl, labels, PLOT_MAX_LABELS);
        for (int i = 0; i < nl; i++)
            printf("plot label %d: %s (%.4f Hz, %.4f dB)\n", i, labels[i].text, labels[i].hz, labels[i].db);
        CHECK_MSG(nl == 3, "%d labels, want the three tones", nl);
        for (int i = 0; i < nl && i < 3; i++) {
            CHECK_MSG(fabs(labels[i].hz - s.f[i]) < 0.01 * bin_hz, "label %d at %.4f Hz, want %.4f", i, labels[i].hz,
                      s.f[i]);
            CHECK_MSG(fabs(labels[i].db - 20 * log10(s.a[i])) < 0.02, "label %d at %.4f dB, want %.4f", i,
                      labels[i].db, 20 * log10(s.a[i]));
        }
        if (nl >= 1)
            CHECK_MSG(strstr(labels[0].text, "1.002 kHz") && strstr(labels[0].text, "6.0 dB"), "%s", labels[0].text);
    }
    plot_destroy(pl);
    peaks_window_destroy(pw);
    free(rgba);
    free(w);
    free(db);
    free(p);
}

static void test_plot(void)
{
    plot_config pc;
    plot *p = NULL;
    sp_errinfo ei = {{0}};
    plot_case(FREQ_SCALE_LINEAR, 85.0);
    plot_case(FREQ_SCALE_LOG, 85.0);
    plot_case(FREQ_SCALE_MEL, 700.0);
    plot_peaks_case();
    memset(&pc, 0, sizeof pc);
    pc.rc = render_config_default();
    pc.rc.fmax = 30000.0;
    pc.rate = 48000.0;
    pc.n = 1024;
    pc.channels = 1;
    CHECK(plot_create(&pc, &p, &ei) == SP_EINVAL && p == NULL); /* no refinement */
    pc.refine = refine_by_peaks;
    /* above Nyquist: drawn up to Nyquist, as --png's spectrogram is */
    CHECK(plot_create(&pc, &p, &ei) == SP_OK && p != NULL);
    plot_destroy(p);
}
#else
static void test_plot(void)
{
    printf("plot: skipped (built without the renderer)\n");
}
#endif

int main(void)
{
    int rc = tu_begin_files("test_measure");
    if (rc)
        return rc;
    test_windows();
    test_modes();
    test_accum();
    test_tone_analytic();
    test_tone_given();
    test_dump_single();
    test_plot();
    tu_tmpdir_remove();
    return check_done("test_measure");
}
