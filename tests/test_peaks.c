/* test_peaks: the parabola (no window table) on exact parabolas (vertex frequency and
 * level), DC and Nyquist never chosen, and real off-bin sines through fft_stft_db with
 * every window, N = 1024 .. 16384, random frequencies, phases and amplitudes: the level
 * within 0.02 dB of the truth, the frequency within 0.01 bin (docs/design.md "Peaks"). The
 * random seed is printed; SPECTRO_TEST_SEED=... repeats a run. The split into the scan
 * (fft_peak_scan, the backends' reference) and peaks_refine keeps every bit of the
 * one-piece parabola search. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fft.h"
#include "peaks.h"
#include "test_util.h"
#include "window.h"

#define TEST_PI 3.14159265358979323846

/* A parabola y(x) = A + c (x - (k + d))^2 sampled at k-1, k, k+1. With d = m/64,
 * c = -j/4 and an integer A the three samples are exact in float, so the interpolation
 * must give k + d and A exactly (up to the last bits of double). Other bins get lower
 * random values. */
static void test_parabola(void)
{
    int bad_freq = 0, bad_level = 0, bad_bin = 0;
    double worst_f = 0.0, worst_l = 0.0;
    for (int trial = 0; trial < 2000; trial++) {
        const size_t n = (size_t)16 << rng_range(0, 10);
        const size_t half = n / 2;
        const size_t k = rng_range(1, half - 1);
        const double rate = trial % 2 ? (double)rng_range(8000, 192000) : 1000.0 + 1e5 * rng_unit();
        const double d = ((double)rng_range(0, 62) - 31.0) / 64.0; /* (-0.5, 0.5) */
        const double c = -(double)rng_range(2, 48) / 4.0;
        const double A = -(double)rng_range(0, 100);
        float *db = malloc((half + 1) * sizeof *db);
        const double floor_level = A + c * 2.25 - 1.0; /* below every parabola sample */
        peak p;
        for (size_t i = 0; i <= half; i++)
            db[i] = (float)(floor_level - 100.0 * rng_unit());
        for (int j = -1; j <= 1; j++) {
            double x = (double)j - d;
            db[(size_t)((ptrdiff_t)k + j)] = (float)(A + c * x * x); /* exact in float */
        }
        /* DC and Nyquist larger than the peak must not matter */
        if (trial % 3 == 0) {
            db[0] = (float)(A + 30.0);
            db[half] = (float)(A + 20.0);
            /* ... unless the peak bin's neighbour is DC / Nyquist: its value is used then */
            if (k == 1 || k == half - 1) {
                free(db);
                continue;
            }
        }
        p = peaks_find(NULL, db, n, rate);
        if (p.bin != k)
            bad_bin++;
        {
            double want = ((double)k + d) * rate / (double)n;
            double ef = fabs(p.freq_hz - want) / want, el = fabs(p.db - A);
            if (ef > worst_f)
                worst_f = ef;
            if (el > worst_l)
                worst_l = el;
            if (ef > 1e-9)
                bad_freq++;
            if (el > 1e-9 * (1.0 + fabs(A)))
                bad_level++;
        }
        free(db);
    }
    CHECK_MSG(bad_bin == 0, "%d parabolas: wrong bin", bad_bin);
    CHECK_MSG(bad_freq == 0, "%d parabolas: vertex frequency off (worst relative %.3g)", bad_freq, worst_f);
    CHECK_MSG(bad_level == 0, "%d parabolas: vertex level off (worst %.3g dB)", bad_level, worst_l);
}

/* DC and Nyquist are excluded even when they are the largest. */
static void test_edges(void)
{
    for (int trial = 0; trial < 200; trial++) {
        const size_t n = (size_t)16 << rng_range(0, 8), half = n / 2;
        float *db = malloc((half + 1) * sizeof *db);
        size_t k = rng_range(1, half - 1);
        peak p;
        for (size_t i = 0; i <= half; i++)
            db[i] = (float)(-150.0 + 50.0 * rng_unit());
        db[k] = -10.0f;
        db[0] = 0.0f;
        db[half] = (float)(5.0 * rng_unit());
        p = peaks_find(NULL, db, n, 48000.0);
        CHECK_MSG(p.bin == k, "n %zu: bin %zu chosen, the strongest inside is %zu", n, p.bin, k);
        CHECK(p.freq_hz > 0.0 && p.freq_hz < 24000.0);
        /* everything flat: a bin inside, never 0 or n/2 */
        for (size_t i = 0; i <= half; i++)
            db[i] = -200.0f;
        p = peaks_find(NULL, db, n, 48000.0);
        CHECK_MSG(p.bin >= 1 && p.bin <= half - 1, "flat spectrum: bin %zu", p.bin);
        CHECK(isfinite(p.freq_hz) && isfinite(p.db));
        free(db);
    }
}

/* Off-bin sines with every window, through the cpu FFT: amplitude a in [0.01, 1], a random
 * phase, at a random fractional bin within the middle half of the band (nearer DC or
 * Nyquist the sine's own mirror image leaks in: for rect, whose sidelobes fall as 1/x,
 * 0.02 dB at 2 x 128 bins away). The contract: within 0.02 dB and 0.01 bin. */
static void check_window(const window_spec *ws, size_t n, int trials, double *worst_bin, double *worst_db)
{
    const size_t bins = n / 2 + 1;
    float *w = malloc(n * sizeof *w), *sig = malloc(n * sizeof *sig), *db = malloc(bins * sizeof *db);
    fft_plan *plan = NULL;
    peaks_window *pw = NULL;
    sp_errinfo ei = {{0}};
    char name[32];
    int bad = 0;
    window_format(ws, name, sizeof name);
    CHECK(w && sig && db && window_fill(ws, n, w, NULL) == SP_OK);
    CHECK_MSG(peaks_window_create(w, n, &pw, &ei) == SP_OK, "%s: %s", name, ei.msg);
    plan = tu_plan(FFT_BACKEND_CPU, n, n, w, 1);
    for (int trial = 0; plan && pw && trial < trials; trial++) {
        const double rate = trial % 2 ? 48000.0 : 44100.0;
        const double bin = (double)n / 8.0 + rng_unit() * (double)n / 4.0;
        const double a = pow(10.0, -2.0 * rng_unit()), phase = 2.0 * TEST_PI * rng_unit();
        peak p;
        double eb, ed;
        for (size_t i = 0; i < n; i++)
            sig[i] = (float)(a * sin(2.0 * TEST_PI * bin * (double)i / (double)n + phase));
        CHECK(fft_stft_db(plan, sig, 1, db) == SP_OK);
        p = peaks_find(pw, db, n, rate);
        eb = fabs(p.freq_hz * (double)n / rate - bin);
        ed = fabs(p.db - 20.0 * log10(a));
        *worst_bin = fmax(*worst_bin, eb);
        *worst_db = fmax(*worst_db, ed);
        if (!(eb <= 0.01 && ed <= 0.02) && bad++ < 3)
            CHECK_MSG(0, "%s, n %zu: a sine at bin %.4f, %.3f dBFS read at %.4f, %.3f dBFS", name, n, bin,
                      20.0 * log10(a), p.freq_hz * (double)n / rate, p.db);
    }
    CHECK_MSG(bad == 0, "%s, n %zu: %d of %d sines off", name, n, bad, trials);
    peaks_window_destroy(pw);
    fft_plan_destroy(plan);
    free(w);
    free(sig);
    free(db);
}

static void test_sines(void)
{
    for (int i = 0; i < window_count(); i++) {
        window_spec ws = window_spec_at(i);
        double worst_bin = 0.0, worst_db = 0.0;
        for (size_t n = 1024; n <= 16384; n *= 2)
            check_window(&ws, n, n >= 8192 ? 40 : 120, &worst_bin, &worst_db);
        printf("sines, %s: worst %.5f bin, %.5f dB\n", window_name(i), worst_bin, worst_db);
    }
    /* kaiser and gauss with other parameters than their defaults */
    {
        window_spec ws = {WINDOW_KAISER, 3.0};
        double wb = 0.0, wd = 0.0;
        check_window(&ws, 4096, 100, &wb, &wd);
        ws.kind = WINDOW_GAUSS;
        ws.param = 0.25;
        check_window(&ws, 2048, 100, &wb, &wd);
    }
}

/* The table's errors: no window, a window summing to 0. */
static void test_window_errors(void)
{
    float zero[16] = {0};
    peaks_window *pw = (peaks_window *)0x1;
    sp_errinfo ei = {{0}};
    CHECK(peaks_window_create(NULL, 16, &pw, &ei) == SP_EINVAL);
    CHECK(peaks_window_create(zero, 16, &pw, &ei) == SP_EINVAL && pw == NULL);
    peaks_window_destroy(NULL);
    /* silence stays at the floor: no correction raises it */
    {
        const size_t n = 256;
        float w[256], db[129];
        window_spec ws = window_spec_default();
        peak p;
        CHECK(window_fill(&ws, n, w, NULL) == SP_OK && peaks_window_create(w, n, &pw, &ei) == SP_OK);
        for (size_t i = 0; i <= n / 2; i++)
            db[i] = FFT_DB_FLOOR;
        p = peaks_find(pw, db, n, 48000.0);
        CHECK_MSG(p.db == FFT_DB_FLOOR && isfinite(p.freq_hz), "silence: %g dB at %g Hz", p.db, p.freq_hz);
        peaks_window_destroy(pw);
    }
}

/* peaks_find_range before the split into the scan and peaks_refine, verbatim: without a
 * window table (the parabola) the split must keep every bit of its results. */
static peak find_range_before(const float *db, size_t n, double rate, size_t kmin, size_t kmax)
{
    peak p;
    if (kmin < 1)
        kmin = 1;
    if (kmax > n / 2 - 1)
        kmax = n / 2 - 1;
    if (kmax < kmin)
        kmax = kmin;
    p.bin = kmin;
    for (size_t k = kmin + 1; k <= kmax; k++)
        if (db[k] > db[p.bin])
            p.bin = k;
    {
        double l = db[p.bin - 1], c = db[p.bin], r = db[p.bin + 1];
        double den = l - 2.0 * c + r, d = 0.0;
        if (den < 0.0) {
            d = 0.5 * (l - r) / den;
            if (d > 0.5)
                d = 0.5;
            if (d < -0.5)
                d = -0.5;
        }
        p.freq_hz = ((double)p.bin + d) * rate / (double)n;
        p.db = c - 0.25 * (l - r) * d;
    }
    return p;
}

/* peaks_find_range (scan + peaks_refine) and peaks_refine on a backend's raw record
 * (fft_peak_scan's) give what the one-piece search gave, bit for bit: random rows with
 * coarse levels (many ties), ranges in and out of bounds, flat tops. */
static void test_refine_split(void)
{
    int bad = 0;
    for (int trial = 0; trial < 3000; trial++) {
        const size_t n = (size_t)16 << rng_range(0, 8), half = n / 2;
        const double rate = (double)rng_range(8000, 192000);
        float *db = malloc((half + 1) * sizeof *db);
        /* kmin below n/2: the old search read past the row beyond that */
        size_t kmin = rng_range(0, half - 1), kmax = rng_range(0, half + 2);
        for (size_t i = 0; i <= half; i++)
            db[i] = trial % 3 ? (float)(-200.0 + 200.0 * rng_unit()) : (float)-(double)rng_range(0, 6);
        peak want = find_range_before(db, n, rate, kmin, kmax);
        peak got = peaks_find_range(NULL, db, n, rate, kmin, kmax);
        size_t lo = kmin < 1 ? 1 : kmin, hi = kmax > half - 1 ? half - 1 : kmax;
        fft_peak_raw raw = fft_peak_scan(db, lo, hi < lo ? lo : hi);
        peak via_raw = peaks_refine(NULL, raw.bin, raw.l, raw.c, raw.r, n, rate);
        if (memcmp(&want, &got, sizeof want) != 0 || memcmp(&want, &via_raw, sizeof want) != 0) {
            if (bad++ < 5)
                CHECK_MSG(0, "n %zu range %zu..%zu: bin %zu / %zu, %.17g / %.17g Hz, %.17g / %.17g dB", n, kmin, kmax,
                          got.bin, want.bin, got.freq_hz, want.freq_hz, got.db, want.db);
        }
        free(db);
    }
    CHECK_MSG(bad == 0, "%d searches differ from the one-piece search", bad);
}

int main(void)
{
    tu_seed("test_peaks");
    test_parabola();
    test_edges();
    test_sines();
    test_window_errors();
    test_refine_split();
    return check_done("test_peaks");
}
