/* test_fft: the cpu FFT backend against a double-precision brute-force DFT (the O(N^2)
 * "brute force" transform of the seed paper), on fresh random inputs with the output
 * poisoned with NaN first; plus the algebra an FFT must satisfy (inverse, Parseval, the
 * convolution theorem), batches, the dBFS contract of stft_db, threads and errors; the peak
 * reduction beside the FFT (fft_stft_reduce) against stft_db + the host scan, bit for bit.
 *
 * The seed comes from the clock and is printed; SPECTRO_TEST_SEED=<n> replays a run. */
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fft.h"
#include "fft_backend.h"
#include "test_util.h"
#include "window.h"

#define TEST_PI 3.14159265358979323846
#define REL_TOL 1e-5
#define ORACLE_FULL_MAX 4096 /* above this the oracle checks a subset of bins */
#define ORACLE_SUBSET 64

/* ---- random numbers ---------------------------------------------------------------------- */

/* uniform in [-1, 1), 24 bits: exact in float */
static float rng_float(void)
{
    return (float)((double)(rng_next() >> 40) / (double)(1ull << 23) - 1.0);
}

static size_t rng_below(size_t n)
{
    return rng_range(0, n - 1);
}

/* ---- the oracle: test_util's brute-force DFT ------------------------------------------ */

/* Relative L2 error of got (complex, nbins) against the oracle over the bins listed (all
 * bins when bins == NULL). */
static double rel_err_vs_oracle(const cpx *x, size_t n, const cpx *got, size_t nbins,
                                const size_t *bins, size_t nlist, const tu_dcpx *tab, int inverse)
{
    double num = 0.0, den = 0.0;
    size_t count = bins ? nlist : nbins;
    for (size_t b = 0; b < count; b++) {
        size_t k = bins ? bins[b] : b;
        tu_dcpx r = tu_dft_bin(&x[0].re, &x[0].im, 2, n, k, tab, inverse);
        double dr = (double)got[k].re - r.re, di = (double)got[k].im - r.im;
        num += dr * dr + di * di;
        den += r.re * r.re + r.im * r.im;
    }
    return den > 0.0 ? sqrt(num / den) : sqrt(num);
}

static double rel_err_real_vs_oracle(const float *x, size_t n, const cpx *got, const size_t *bins,
                                     size_t nlist, const tu_dcpx *tab)
{
    double num = 0.0, den = 0.0;
    size_t count = bins ? nlist : n / 2 + 1;
    for (size_t b = 0; b < count; b++) {
        size_t k = bins ? bins[b] : b;
        tu_dcpx r = tu_dft_bin(x, NULL, 1, n, k, tab, 0);
        double dr = (double)got[k].re - r.re, di = (double)got[k].im - r.im;
        num += dr * dr + di * di;
        den += r.re * r.re + r.im * r.im;
    }
    return sqrt(num / den);
}

static double rel_err_cpx(const cpx *a, const cpx *ref, size_t n)
{
    double num = 0.0, den = 0.0;
    for (size_t i = 0; i < n; i++) {
        double dr = (double)a[i].re - ref[i].re, di = (double)a[i].im - ref[i].im;
        num += dr * dr + di * di;
        den += (double)ref[i].re * ref[i].re + (double)ref[i].im * ref[i].im;
    }
    return sqrt(num / den);
}

static int any_nan(const float *f, size_t count)
{
    for (size_t i = 0; i < count; i++)
        if (isnan(f[i]))
            return 1;
    return 0;
}

/* The tuning make_plan gives its plans (the 4-wide path, a thread count). */
static fft_tuning tuning;

static fft_plan *make_plan(size_t n, size_t hop, const float *window, size_t max_batch)
{
    return tu_plan_tuned(FFT_BACKEND_CPU, &tuning, n, hop, window, max_batch);
}

/* ---- c2c / r2c against the oracle, every size 2^4 .. 2^16 ---------------------------- */

static void test_sizes(void)
{
    for (unsigned l = 4; l <= 16; l++) {
        const size_t n = (size_t)1 << l;
        const int full = n <= ORACLE_FULL_MAX;
        size_t bins[ORACLE_SUBSET];
        cpx *x = malloc(n * sizeof *x), *X = malloc(n * sizeof *X), *y = malloc(n * sizeof *y);
        cpx *Xr = malloc((n / 2 + 1) * sizeof *Xr);
        float *xr = malloc(n * sizeof *xr);
        tu_dcpx *tab = tu_dft_table(n);
        fft_plan *p = make_plan(n, 1, NULL, 1);
        CHECK(x && X && y && Xr && xr && tab);
        if (!x || !X || !y || !Xr || !xr || !tab || !p)
            goto next;

        bins[0] = 0;
        bins[1] = n / 2;
        bins[2] = n - 1;
        for (size_t b = 3; b < ORACLE_SUBSET; b++)
            bins[b] = rng_below(n);
        for (size_t i = 0; i < n; i++) {
            x[i].re = rng_float();
            x[i].im = rng_float();
            xr[i] = rng_float();
        }

        /* forward */
        tu_poison(X, 2 * n);
        CHECK(fft_c2c(p, x, X, 1, 0) == SP_OK);
        CHECK_MSG(!any_nan(&X[0].re, 2 * n), "n=%zu: forward left NaN", n);
        double e = rel_err_vs_oracle(x, n, X, n, full ? NULL : bins, ORACLE_SUBSET, tab, 0);
        CHECK_MSG(e < REL_TOL, "n=%zu: forward rel L2 err %.3g", n, e);

        /* Parseval: sum |x|^2 = sum |X|^2 / n */
        double ex = 0.0, eX = 0.0;
        for (size_t i = 0; i < n; i++) {
            ex += (double)x[i].re * x[i].re + (double)x[i].im * x[i].im;
            eX += (double)X[i].re * X[i].re + (double)X[i].im * X[i].im;
        }
        CHECK_MSG(fabs(eX / (double)n - ex) < REL_TOL * ex, "n=%zu: Parseval %.9g vs %.9g", n,
                  eX / (double)n, ex);

        /* inverse of random data against the oracle inverse */
        tu_poison(y, 2 * n);
        CHECK(fft_c2c(p, x, y, 1, 1) == SP_OK);
        CHECK_MSG(!any_nan(&y[0].re, 2 * n), "n=%zu: inverse left NaN", n);
        e = rel_err_vs_oracle(x, n, y, n, full ? NULL : bins, ORACLE_SUBSET, tab, 1);
        CHECK_MSG(e < REL_TOL, "n=%zu: inverse rel L2 err %.3g", n, e);

        /* inverse(forward(x)) == x, in place (in == out) */
        memcpy(y, X, n * sizeof *y);
        CHECK(fft_c2c(p, y, y, 1, 1) == SP_OK);
        e = rel_err_cpx(y, x, n);
        CHECK_MSG(e < REL_TOL, "n=%zu: inverse(forward(x)) rel err %.3g", n, e);

        /* in place gives what out of place gives, bit for bit */
        memcpy(y, x, n * sizeof *y);
        CHECK(fft_c2c(p, y, y, 1, 0) == SP_OK);
        CHECK_MSG(memcmp(y, X, n * sizeof *y) == 0, "n=%zu: in-place forward differs", n);

        /* real input */
        tu_poison(Xr, 2 * (n / 2 + 1));
        CHECK(fft_r2c(p, xr, Xr, 1) == SP_OK);
        CHECK_MSG(!any_nan(&Xr[0].re, 2 * (n / 2 + 1)), "n=%zu: r2c left NaN", n);
        for (size_t b = 0; b < ORACLE_SUBSET; b++)
            bins[b] = b < 2 ? b * (n / 2) : rng_below(n / 2 + 1);
        e = rel_err_real_vs_oracle(xr, n, Xr, full ? NULL : bins, ORACLE_SUBSET, tab);
        CHECK_MSG(e < REL_TOL, "n=%zu: r2c rel L2 err %.3g", n, e);
        CHECK_MSG(Xr[0].im == 0.0f && Xr[n / 2].im == 0.0f, "n=%zu: DC/Nyquist not real", n);

        /* the 4-wide path (FFT_CPU_SIMD_SSE2) agrees with the default (8-wide where the
         * CPU has AVX), which was just checked against the oracle */
        tuning.cpu_simd = FFT_CPU_SIMD_SSE2;
        fft_plan *p4 = make_plan(n, 1, NULL, 1);
        tuning.cpu_simd = FFT_CPU_SIMD_AUTO;
        if (p4) {
            tu_poison(y, 2 * n);
            CHECK(fft_c2c(p4, x, y, 1, 0) == SP_OK);
            e = rel_err_cpx(y, X, n);
            CHECK_MSG(e < 1e-6, "n=%zu: sse2 path differs from the default by %.3g", n, e);
            tu_poison(y, 2 * n);
            CHECK(fft_r2c(p4, xr, y, 1) == SP_OK);
            e = rel_err_cpx(y, Xr, n / 2 + 1);
            CHECK_MSG(e < 1e-6, "n=%zu: sse2 r2c differs from the default by %.3g", n, e);
            fft_plan_destroy(p4);
        }

    next:
        fft_plan_destroy(p);
        free(x);
        free(X);
        free(y);
        free(Xr);
        free(xr);
        free(tab);
    }
}

/* The largest plan works: a round trip and a few oracle bins at n = 2^22. */
static void test_largest(void)
{
    const size_t n = FFT_MAX_SIZE;
    cpx *x = malloc(n * sizeof *x), *X = malloc(n * sizeof *X);
    tu_dcpx *tab = tu_dft_table(n);
    fft_plan *p = make_plan(n, n, NULL, 2);
    size_t bins[4] = {0, 1, n / 2 + 7, n - 1};

    CHECK(x && X && tab);
    if (x && X && tab && p) {
        for (size_t i = 0; i < n; i++) {
            x[i].re = rng_float();
            x[i].im = rng_float();
        }
        tu_poison(X, 2 * n);
        CHECK(fft_c2c(p, x, X, 1, 0) == SP_OK);
        double e = rel_err_vs_oracle(x, n, X, n, bins, 4, tab, 0);
        CHECK_MSG(e < REL_TOL, "n=2^22: forward rel L2 err %.3g on 4 bins", e);
        CHECK(fft_c2c(p, X, X, 1, 1) == SP_OK);
        e = rel_err_cpx(X, x, n);
        CHECK_MSG(e < REL_TOL, "n=2^22: round trip rel err %.3g", e);
    }
    fft_plan_destroy(p);
    free(x);
    free(X);
    free(tab);
}

/* ---- the convolution theorem: FFT polynomial multiplication is exact ----------------- */

static void test_convolution(void)
{
    for (size_t n = 16; n <= 2048; n *= 8) {
        const size_t len = n / 2; /* two polys of len coefficients: product fits in n */
        cpx *a = calloc(n, sizeof *a), *b = calloc(n, sizeof *b);
        long long *pa = calloc(len, sizeof *pa), *pb = calloc(len, sizeof *pb);
        long long *direct = calloc(n, sizeof *direct);
        fft_plan *p = make_plan(n, 1, NULL, 1);
        CHECK(a && b && pa && pb && direct);
        if (!a || !b || !pa || !pb || !direct || !p)
            goto next;

        for (size_t i = 0; i < len; i++) {
            pa[i] = (long long)rng_below(10);
            pb[i] = (long long)rng_below(10);
            a[i].re = (float)pa[i];
            b[i].re = (float)pb[i];
        }
        for (size_t i = 0; i < len; i++)
            for (size_t j = 0; j < len; j++)
                direct[i + j] += pa[i] * pb[j];

        CHECK(fft_c2c(p, a, a, 1, 0) == SP_OK);
        CHECK(fft_c2c(p, b, b, 1, 0) == SP_OK);
        for (size_t k = 0; k < n; k++) {
            float re = a[k].re * b[k].re - a[k].im * b[k].im;
            float im = a[k].re * b[k].im + a[k].im * b[k].re;
            a[k].re = re;
            a[k].im = im;
        }
        CHECK(fft_c2c(p, a, a, 1, 1) == SP_OK);
        size_t wrong = 0;
        double worst = 0.0;
        for (size_t k = 0; k < n; k++) {
            double r = (double)a[k].re;
            worst = fmax(worst, fabs(r - (double)direct[k]));
            if (llround(r) != direct[k])
                wrong++;
        }
        CHECK_MSG(wrong == 0, "n=%zu: %zu coefficients of the product differ (worst %.3g)", n,
                  wrong, worst);
    next:
        fft_plan_destroy(p);
        free(a);
        free(b);
        free(pa);
        free(pb);
        free(direct);
    }
}

/* ---- batches: 1, 3, 37 transforms with different data -------------------------------- */

static void test_batches(void)
{
    static const size_t sizes[] = {16, 256, 1024};
    static const size_t batches[] = {1, 3, 37};
    for (size_t si = 0; si < 3; si++) {
        const size_t n = sizes[si], bins = n / 2 + 1;
        fft_plan *p = make_plan(n, 1, NULL, 37);
        cpx *x = malloc(37 * n * sizeof *x), *X = malloc(37 * n * sizeof *X);
        float *xr = malloc(37 * n * sizeof *xr);
        cpx *Xr = malloc(37 * bins * sizeof *Xr);
        tu_dcpx *tab = tu_dft_table(n);
        CHECK(x && X && xr && Xr && tab);
        if (!p || !x || !X || !xr || !Xr || !tab)
            goto next;
        for (size_t bi = 0; bi < 3; bi++) {
            const size_t batch = batches[bi];
            for (size_t i = 0; i < batch * n; i++) {
                x[i].re = rng_float();
                x[i].im = rng_float();
                xr[i] = rng_float();
            }
            tu_poison(X, 2 * 37 * n);
            tu_poison(Xr, 2 * 37 * bins);
            CHECK(fft_c2c(p, x, X, batch, 0) == SP_OK);
            CHECK(fft_r2c(p, xr, Xr, batch) == SP_OK);
            for (size_t b = 0; b < batch; b++) {
                double e = rel_err_vs_oracle(x + b * n, n, X + b * n, n, NULL, 0, tab, 0);
                CHECK_MSG(e < REL_TOL, "n=%zu batch=%zu: transform %zu rel err %.3g", n, batch, b, e);
                e = rel_err_real_vs_oracle(xr + b * n, n, Xr + b * bins, NULL, 0, tab);
                CHECK_MSG(e < REL_TOL, "n=%zu batch=%zu: r2c %zu rel err %.3g", n, batch, b, e);
            }
            /* nothing written past the batch */
            CHECK_MSG(batch == 37 || isnan(X[batch * n].re), "n=%zu: c2c wrote past batch %zu", n,
                      batch);
            CHECK_MSG(batch == 37 || isnan(Xr[batch * bins].re), "n=%zu: r2c wrote past batch %zu",
                      n, batch);
        }
        CHECK(fft_c2c(p, x, X, 38, 0) == SP_EINVAL); /* more than max_batch */
        CHECK(fft_c2c(p, x, X, 0, 0) == SP_OK);
    next:
        fft_plan_destroy(p);
        free(x);
        free(X);
        free(xr);
        free(Xr);
        free(tab);
    }
}

/* ---- stft_db ------------------------------------------------------------------------- */

/* A full-scale sine centred on bin k reads 0.00 +- 0.01 dBFS at bin k in every frame,
 * whatever the window; silence reads exactly the floor. */
static void test_stft_levels(void)
{
    static const char *windows[] = {"hann", "hamming", "blackman", "blackman-harris",
                                    "flattop", "rect", "kaiser", "gauss"};
    const size_t n = 1024, hop = 300, frames = 9, bins = n / 2 + 1;
    const size_t len = (frames - 1) * hop + n;
    float *w = malloc(n * sizeof *w), *sig = malloc(len * sizeof *sig);
    float *db = malloc(frames * bins * sizeof *db);
    CHECK(w && sig && db);
    if (!w || !sig || !db)
        goto out;

    for (size_t wi = 0; wi < sizeof windows / sizeof windows[0]; wi++) {
        window_spec spec;
        CHECK(window_parse(windows[wi], &spec, NULL) == SP_OK);
        CHECK(window_fill(&spec, n, w, NULL) == SP_OK);
        fft_plan *p = make_plan(n, hop, w, frames);
        if (!p)
            continue;
        for (size_t t = 0; t < 3; t++) {
            /* at least 8 bins from 0 and n/2: nearer, the mirror image at -k (or n-k) is
             * inside the main lobe of the wider windows (flattop, gauss) and adds to bin k */
            const size_t k = t == 0 ? 8 + rng_below(n / 2 - 15) : t == 1 ? 37 : n / 2 - 8;
            const double phase = 2.0 * TEST_PI * (double)rng_below(1000) / 1000.0;
            for (size_t i = 0; i < len; i++)
                sig[i] = (float)sin(2.0 * TEST_PI * (double)k * (double)i / (double)n + phase);
            tu_poison(db, frames * bins);
            CHECK(fft_stft_db(p, sig, frames, db) == SP_OK);
            CHECK_MSG(!any_nan(db, frames * bins), "%s: NaN in the output", windows[wi]);
            for (size_t f = 0; f < frames; f++) {
                float v = db[f * bins + k];
                CHECK_MSG(fabsf(v) <= 0.01f, "%s: sine on bin %zu reads %.4f dBFS in frame %zu",
                          windows[wi], k, (double)v, f);
            }
        }
        memset(sig, 0, len * sizeof *sig);
        tu_poison(db, frames * bins);
        CHECK(fft_stft_db(p, sig, frames, db) == SP_OK);
        size_t off = 0;
        for (size_t i = 0; i < frames * bins; i++)
            off += db[i] != FFT_DB_FLOOR;
        CHECK_MSG(off == 0, "%s: silence: %zu values are not exactly %g dB", windows[wi], off,
                  (double)FFT_DB_FLOOR);
        fft_plan_destroy(p);
    }
out:
    free(w);
    free(sig);
    free(db);
}

/* Levels over the whole range: a bin-centred sine of amplitude 10^(L/20) reads L dBFS for
 * L from -190 to +150 (the dB conversion is the plan's own, not log10f), and below the
 * floor it reads exactly the floor. */
static void test_stft_range(void)
{
    const size_t n = 256, k = 19, bins = n / 2 + 1;
    float sig[256], db[129];
    fft_plan *p = make_plan(n, 1, NULL, 1);
    if (!p)
        return;
    double worst = 0.0, worst_level = 0.0;
    for (double level = -190.0; level <= 150.0; level += 0.37) {
        double amp = pow(10.0, level / 20.0);
        for (size_t i = 0; i < n; i++)
            sig[i] = (float)(amp * cos(2.0 * TEST_PI * (double)(k * i) / (double)n));
        tu_poison(db, bins);
        CHECK(fft_stft_db(p, sig, 1, db) == SP_OK);
        double ref = fft_amp_to_db((float)amp);
        if (!(fabs(db[k] - ref) <= worst)) {
            worst = isnan(db[k]) ? INFINITY : fabs(db[k] - ref);
            worst_level = level;
        }
    }
    CHECK_MSG(worst < 1e-3, "level %.2f dBFS reads %.4g dB off", worst_level, worst);
    for (size_t i = 0; i < n; i++)
        sig[i] = (float)(1e-11 * cos(2.0 * TEST_PI * (double)(k * i) / (double)n));
    CHECK(fft_stft_db(p, sig, 1, db) == SP_OK);
    CHECK_MSG(db[k] == FFT_DB_FLOOR, "a sine at -220 dBFS reads %g", (double)db[k]);
    fft_plan_destroy(p);
}

/* Huge finite samples (issue 17, item 3): a bin-centred sine of amplitude 1e20 .. 3e38
 * (whose |X|^2, or X itself, overflows float) reads 20 log10(amp) dBFS, every level is
 * finite, and the whole spectrum is the one of the same signal scaled by 2^-100, plus
 * 602.06 dB. Random sizes 1024 .. 16384, windows, a few frames. */
static void test_stft_huge(void)
{
    static const double amps[] = {1e20, 1e30, 1e36, 3e38};
    const double shift_db = 20.0 * 100.0 * log10(2.0);
    for (int t = 0; t < 8; t++) {
        const size_t n = (size_t)1024 << rng_below(5), hop = n / 2, nf = 3, len = (nf - 1) * hop + n;
        const size_t bins = n / 2 + 1, k = 16 + rng_below(n / 2 - 32); /* away from the images at 0, n/2 */
        const double amp = amps[t % 4];
        window_spec ws = window_spec_at((int)rng_below((size_t)window_count()));
        float *w = malloc(n * sizeof *w), *sig = malloc(len * sizeof *sig), *small = malloc(len * sizeof *small);
        float *db = malloc(nf * bins * sizeof *db), *ref = malloc(nf * bins * sizeof *ref);
        fft_plan *p = NULL;
        double worst = 0.0;
        size_t nonfinite = 0;
        char wname[32];
        if (!w || !sig || !small || !db || !ref || window_fill(&ws, n, w, NULL) != SP_OK ||
            !(p = make_plan(n, hop, w, nf)))
            goto next;
        for (size_t i = 0; i < len; i++) {
            double v = cos(2.0 * TEST_PI * (double)(k * (i % n)) / (double)n);
            sig[i] = (float)(amp * v);
            small[i] = ldexpf(sig[i], -100);
        }
        tu_poison(db, nf * bins);
        CHECK(fft_stft_db(p, sig, nf, db) == SP_OK);
        CHECK(fft_stft_db(p, small, nf, ref) == SP_OK);
        for (size_t i = 0; i < nf * bins; i++) {
            nonfinite += !isfinite(db[i]);
            if (ref[i] > -150.0f && !(fabs(db[i] - (ref[i] + shift_db)) <= worst))
                worst = isfinite(db[i]) ? fabs(db[i] - (ref[i] + shift_db)) : INFINITY;
        }
        window_format(&ws, wname, sizeof wname);
        CHECK_MSG(nonfinite == 0, "amp %g, n %zu, %s: %zu levels not finite", amp, n, wname, nonfinite);
        CHECK_MSG(worst < 1e-3, "amp %g, n %zu: %.3g dB from the scaled spectrum + 602.06 dB", amp, n, worst);
        for (size_t f = 0; f < nf; f++)
            CHECK_MSG(fabs(db[f * bins + k] - 20.0 * log10(amp)) < 0.01, "amp %g, n %zu, frame %zu: %.4f dBFS, want %.4f",
                      amp, n, f, (double)db[f * bins + k], 20.0 * log10(amp));
    next:
        fft_plan_destroy(p);
        free(w);
        free(sig);
        free(small);
        free(db);
        free(ref);
    }
}

/* stft_db is the r2c of the windowed frame, scaled and converted as fft.h says, for sizes
 * whose split runs on the vector loops, the scalar tail or both; the 4-wide path
 * (FFT_CPU_SIMD_SSE2) gives the same bits as the default (8-wide where the CPU has
 * AVX2). Also: NaN and infinite samples never give NaN. */
static void stft_manual_case(size_t n)
{
    const size_t hop = n / 4, frames = 11, bins = n / 2 + 1;
    const size_t len = (frames - 1) * hop + n;
    float *w = malloc(n * sizeof *w), *sig = malloc(len * sizeof *sig);
    float *frame = malloc(n * sizeof *frame), *db = malloc(frames * bins * sizeof *db);
    float *db4 = malloc(frames * bins * sizeof *db4);
    cpx *X = malloc(bins * sizeof *X);
    window_spec spec = {WINDOW_BLACKMAN_HARRIS, 0.0};
    double wsum = 0.0;
    fft_plan *p = NULL, *p4 = NULL, *pr = NULL;
    CHECK(w && sig && frame && db && db4 && X);
    if (!w || !sig || !frame || !db || !db4 || !X)
        goto out;
    CHECK(window_fill(&spec, n, w, &wsum) == SP_OK);
    p = make_plan(n, hop, w, frames);
    tuning.cpu_simd = FFT_CPU_SIMD_SSE2;
    p4 = make_plan(n, hop, w, frames);
    tuning.cpu_simd = FFT_CPU_SIMD_AUTO;
    pr = make_plan(n, 1, NULL, 1);
    if (!p || !p4 || !pr)
        goto out;
    for (size_t i = 0; i < len; i++)
        sig[i] = rng_float() * (i % 97 == 0 ? 1e-6f : 1.0f);
    for (size_t i = 0; i < n / 8; i++) /* some bins near or at the floor */
        sig[i] = 0.0f;
    tu_poison(db, frames * bins);
    CHECK(fft_stft_db(p, sig, frames, db) == SP_OK);
    double worst = 0.0;
    for (size_t f = 0; f < frames; f++) {
        for (size_t i = 0; i < n; i++)
            frame[i] = sig[f * hop + i] * w[i];
        CHECK(fft_r2c(pr, frame, X, 1) == SP_OK);
        for (size_t k = 0; k < bins; k++) {
            float a = sqrtf(X[k].re * X[k].re + X[k].im * X[k].im) * fft_level_scale(n, k, wsum);
            float ref = fft_amp_to_db(a);
            worst = fmax(worst, fabs((double)db[f * bins + k] - (double)ref));
        }
    }
    CHECK_MSG(worst < 1e-4, "n=%zu: stft_db differs from r2c + level scale + dB by %.3g dB", n,
              worst);
    tu_poison(db4, frames * bins);
    CHECK(fft_stft_db(p4, sig, frames, db4) == SP_OK);
    CHECK_MSG(memcmp(db, db4, frames * bins * sizeof *db) == 0,
              "n=%zu: stft_db's sse2 path differs from the default", n);

    sig[hop + 3] = NAN;
    sig[5 * hop + 1] = INFINITY;
    sig[9 * hop + 1] = -INFINITY;
    tu_poison(db, frames * bins);
    CHECK(fft_stft_db(p, sig, frames, db) == SP_OK);
    CHECK_MSG(!any_nan(db, frames * bins), "n=%zu: NaN/Inf input gave NaN output", n);
    CHECK(fft_stft_db(p, sig, frames + 1, db) == SP_EINVAL); /* more than max_batch */
out:
    fft_plan_destroy(p);
    fft_plan_destroy(p4);
    fft_plan_destroy(pr);
    free(w);
    free(sig);
    free(frame);
    free(db);
    free(db4);
    free(X);
}

static void test_stft_manual(void)
{
    static const size_t sizes[] = {16, 32, 64, 512, 4096};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        stft_manual_case(sizes[i]);
}

/* The thread pool gives the same numbers as one thread, for frame counts that split
 * evenly and not, and for calls too small to be split. */
static void test_stft_threads(void)
{
    const size_t n = 2048, hop = 512, maxf = 67, bins = n / 2 + 1;
    const size_t len = (maxf - 1) * hop + n;
    float *sig = malloc(len * sizeof *sig), *w = malloc(n * sizeof *w);
    float *db1 = malloc(maxf * bins * sizeof *db1), *dbt = malloc(maxf * bins * sizeof *dbt);
    window_spec spec = {WINDOW_HANN, 0.0};
    fft_plan *p1 = NULL, *pt = NULL;
    fft_config cfg = fft_config_default();
    sp_errinfo ei = {{0}};

    CHECK(sig && w && db1 && dbt);
    if (!sig || !w || !db1 || !dbt)
        goto out;
    CHECK(window_fill(&spec, n, w, NULL) == SP_OK);
    for (size_t i = 0; i < len; i++)
        sig[i] = rng_float();

    tuning.cpu_threads = 1;
    p1 = make_plan(n, hop, w, maxf);
    tuning.cpu_threads = 5;
    pt = make_plan(n, hop, w, maxf);
    tuning.cpu_threads = 0;
    if (!p1 || !pt)
        goto out;
    static const size_t counts[] = {67, 64, 33, 7, 2, 1};
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
        for (int rep = 0; rep < 2; rep++) { /* the pool is reused call after call */
            tu_poison(db1, maxf * bins);
            tu_poison(dbt, maxf * bins);
            CHECK(fft_stft_db(p1, sig, counts[c], db1) == SP_OK);
            CHECK(fft_stft_db(pt, sig, counts[c], dbt) == SP_OK);
            CHECK_MSG(memcmp(db1, dbt, counts[c] * bins * sizeof *db1) == 0,
                      "%zu frames: threaded output differs from one thread", counts[c]);
            CHECK_MSG(counts[c] == maxf || isnan(dbt[counts[c] * bins]),
                      "%zu frames: wrote past the last frame", counts[c]);
        }
    }

    /* a count out of range is refused (a bad SPECTRO_CPU_THREADS: e2e_cli.py) */
    cfg.backend = FFT_BACKEND_CPU;
    cfg.tuning.cpu_threads = FFT_CPU_THREADS_MAX + 1;
    fft_plan *bad = NULL;
    CHECK(fft_plan_create(&cfg, &bad, &ei) == SP_EINVAL && bad == NULL);
    CHECK_MSG(strstr(ei.msg, "threads") != NULL, "message '%s'", ei.msg);
out:
    fft_plan_destroy(p1);
    fft_plan_destroy(pt);
    free(sig);
    free(w);
    free(db1);
    free(dbt);
}

/* ---- the peak reduction beside the FFT (fft_stft_reduce) ------------------------------- */

/* Ranges that cover the vector paths' corners: the whole spectrum, single bins at both
 * ends, spans shorter than, equal to and longer than a vector (4 or 8) at odd offsets,
 * and random ones. */
static size_t reduce_ranges(size_t n, fft_peak_req *out, size_t max_out)
{
    const size_t top = n / 2 - 1;
    size_t lo[12], hi[12], cnt = 0, nreq = 0;
#define RANGE(a, b) (lo[cnt] = (a), hi[cnt] = (b) < top ? (b) : top, cnt++)
    RANGE(1, top);
    RANGE(1, 1);
    RANGE(top, top);
    RANGE(top > 7 ? top - 7 : 1, top);
    RANGE(3, 3 + 6); /* 7 bins */
    RANGE(2, 2 + 8); /* 9 bins */
    RANGE(5, 5 + 2); /* 3 bins */
#undef RANGE
    while (cnt < 12) {
        size_t a = rng_range(1, top), b = rng_range(1, top);
        lo[cnt] = a < b ? a : b;
        hi[cnt++] = a < b ? b : a;
    }
    /* requests of 1, 2, 3, 4, 1, ... ranges, through the list */
    for (size_t i = 0; i < cnt && nreq < max_out; nreq++) {
        fft_peak_req *q = &out[nreq];
        memset(q, 0, sizeof *q);
        for (q->nranges = 0; q->nranges < 1 + nreq % FFT_PEAK_RANGES_MAX && i < cnt; q->nranges++, i++) {
            q->kmin[q->nranges] = lo[i];
            q->kmax[q->nranges] = hi[i];
        }
    }
    return nreq;
}

static int raw_equal(const fft_peak_raw *a, const fft_peak_raw *b)
{
    return a->bin == b->bin && memcmp(&a->l, &b->l, 3 * sizeof(float)) == 0;
}

/* The signals: random, a loud sine between bins, a faint on-bin sine over the dB floor
 * (every other bin reads exactly -200: ties across all lanes), all zeros (a row of ties),
 * an impulse (rect: every inner bin the same level, ties again). */
static void reduce_signal(int kind, float *sig, size_t len, size_t n)
{
    for (size_t i = 0; i < len; i++) {
        double t = (double)i;
        switch (kind) {
        case 0:
            sig[i] = rng_float();
            break;
        case 1:
            sig[i] = (float)(0.8 * sin(2.0 * TEST_PI * t * ((double)n / 5.3 + 0.37) / (double)n));
            break;
        case 2:
            sig[i] = (float)(1e-6 * cos(2.0 * TEST_PI * t * (double)(n / 8) / (double)n));
            break;
        case 3:
            sig[i] = 0.0f;
            break;
        default:
            sig[i] = i % n == 0 ? 1.0f : 0.0f;
            break;
        }
    }
}

/* One plan: every request and frame count, db NULL and not, against fft_stft_db plus the
 * host scan (fft_peak_scan) bit for bit; returns the records that differ. */
static int reduce_plan_case(fft_plan *p, const float *sig, size_t n, size_t maxf, const fft_peak_req *reqs,
                            size_t nreq, const char *what)
{
    static const size_t counts[] = {67, 64, 33, 7, 2, 1};
    const size_t bins = n / 2 + 1;
    float *db_ref = malloc(maxf * bins * sizeof *db_ref), *db = malloc(maxf * bins * sizeof *db);
    fft_peak_raw *ref = malloc((maxf + 1) * FFT_PEAK_RANGES_MAX * sizeof *ref);
    fft_peak_raw *got = malloc((maxf + 1) * FFT_PEAK_RANGES_MAX * sizeof *got);
    int bad = 0;
    CHECK(db_ref && db && ref && got);
    if (!db_ref || !db || !ref || !got)
        goto out;
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
        size_t nf = counts[c] < maxf ? counts[c] : maxf;
        CHECK(fft_stft_db(p, sig, nf, db_ref) == SP_OK);
        for (size_t q = 0; q < nreq; q++) {
            const fft_peak_req *req = &reqs[q];
            size_t nr = req->nranges;
            for (size_t f = 0; f < nf; f++)
                for (size_t r = 0; r < nr; r++)
                    ref[f * nr + r] = fft_peak_scan(db_ref + f * bins, req->kmin[r], req->kmax[r]);
            for (int with_db = 0; with_db < 2; with_db++) {
                tu_poison(got, (maxf + 1) * FFT_PEAK_RANGES_MAX * 4);
                tu_poison(db, maxf * bins);
                CHECK(fft_stft_reduce(p, sig, nf, with_db ? db : NULL, req, got) == SP_OK);
                for (size_t i = 0; i < nf * nr; i++)
                    if (!raw_equal(&got[i], &ref[i])) {
                        if (bad++ < 5)
                            CHECK_MSG(0, "%s: %zu frames, range %zu..%zu, frame %zu: bin %u, host scan %u", what, nf,
                                      req->kmin[i % nr], req->kmax[i % nr], i / nr, got[i].bin, ref[i].bin);
                    }
                CHECK_MSG(isnan(got[nf * nr].c), "%s: wrote past the last record", what);
                if (with_db)
                    CHECK_MSG(memcmp(db, db_ref, nf * bins * sizeof *db) == 0, "%s: %zu frames: spectra differ", what,
                              nf);
                else
                    CHECK_MSG(isnan(db[0]) && isnan(db[nf * bins - 1]), "%s: db NULL wrote to db", what);
            }
        }
    }
out:
    free(db_ref);
    free(db);
    free(ref);
    free(got);
    return bad;
}

/* The cpu backend's reduction (threads 1 and 5, 4- and 8-wide) against the host scan. */
static void test_stft_reduce(void)
{
    static const size_t sizes[] = {16, 64, 2048, 16384};
    const size_t maxf = 67;
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        const size_t n = sizes[si], hop = n / 4 + 3, len = (maxf - 1) * hop + n;
        float *sig = malloc(len * sizeof *sig), *w = malloc(n * sizeof *w);
        window_spec hann = {WINDOW_HANN, 0.0};
        fft_peak_req reqs[16];
        size_t nreq = reduce_ranges(n, reqs, 16);
        CHECK(sig && w);
        if (!sig || !w)
            goto next;
        CHECK(window_fill(&hann, n, w, NULL) == SP_OK);
        for (int kind = 0; kind < 5; kind++) {
            reduce_signal(kind, sig, len, n);
            for (int cfgi = 0; cfgi < 4; cfgi++) {
                char what[96];
                tuning.cpu_threads = cfgi & 1 ? 5 : 1;
                tuning.cpu_simd = cfgi & 2 ? FFT_CPU_SIMD_SSE2 : FFT_CPU_SIMD_AUTO;
                fft_plan *p = make_plan(n, hop, kind == 4 ? NULL : w, maxf);
                snprintf(what, sizeof what, "n=%zu signal %d threads %d%s", n, kind, tuning.cpu_threads,
                         cfgi & 2 ? " sse2" : "");
                if (p)
                    reduce_plan_case(p, sig, n, maxf, reqs, nreq, what);
                fft_plan_destroy(p);
            }
            tuning.cpu_threads = 0;
            tuning.cpu_simd = FFT_CPU_SIMD_AUTO;
        }
    next:
        free(sig);
        free(w);
    }
}

/* What the reduction finds on known spectra: the sine's bin, and the lowest bin of a row
 * of ties (zeros: every bin at the floor). Then the requests it refuses. */
static void test_stft_reduce_known(void)
{
    const size_t n = 1024, hop = 256, bins = n / 2 + 1;
    float sig[1024 + 3 * 256];
    fft_peak_raw got[4 * FFT_PEAK_RANGES_MAX];
    fft_peak_req req;
    fft_plan *p = make_plan(n, hop, NULL, 4);
    if (!p)
        return;
    memset(&req, 0, sizeof req);
    for (size_t i = 0; i < sizeof sig / sizeof sig[0]; i++)
        sig[i] = (float)(0.5 * cos(2.0 * TEST_PI * 100.0 * (double)i / (double)n));
    req.nranges = 3;
    req.kmin[0] = 1, req.kmax[0] = n / 2 - 1;
    req.kmin[1] = 101, req.kmax[1] = 200; /* the sine outside: its skirt's first bin */
    req.kmin[2] = 100, req.kmax[2] = 100;
    CHECK(fft_stft_reduce(p, sig, 4, NULL, &req, got) == SP_OK);
    for (size_t f = 0; f < 4; f++) {
        CHECK_MSG(got[f * 3].bin == 100, "frame %zu: bin %u", f, got[f * 3].bin);
        CHECK(fabsf(got[f * 3].c - 20.0f * log10f(0.5f)) < 1e-3f);
        CHECK(got[f * 3 + 2].bin == 100 && got[f * 3 + 2].c == got[f * 3].c);
        CHECK(got[f * 3 + 1].bin >= 101 && got[f * 3 + 1].bin <= 200);
    }
    memset(sig, 0, sizeof sig);
    req.kmin[1] = 9, req.kmax[1] = 300;
    req.kmin[2] = n / 2 - 1, req.kmax[2] = n / 2 - 1;
    CHECK(fft_stft_reduce(p, sig, 4, NULL, &req, got) == SP_OK);
    for (size_t f = 0; f < 4; f++) {
        CHECK_MSG(got[f * 3].bin == 1 && got[f * 3 + 1].bin == 9 && got[f * 3 + 2].bin == n / 2 - 1,
                  "ties: bins %u %u %u", got[f * 3].bin, got[f * 3 + 1].bin, got[f * 3 + 2].bin);
        CHECK(got[f * 3].l == FFT_DB_FLOOR && got[f * 3].c == FFT_DB_FLOOR && got[f * 3].r == FFT_DB_FLOOR);
    }
    (void)bins;
    /* refused: empty, reversed or out-of-range ranges, too many */
    req.nranges = 1;
    req.kmin[0] = 0, req.kmax[0] = 10;
    CHECK(fft_stft_reduce(p, sig, 4, NULL, &req, got) == SP_EINVAL);
    req.kmin[0] = 5, req.kmax[0] = n / 2;
    CHECK(fft_stft_reduce(p, sig, 4, NULL, &req, got) == SP_EINVAL);
    req.kmin[0] = 20, req.kmax[0] = 10;
    CHECK(fft_stft_reduce(p, sig, 4, NULL, &req, got) == SP_EINVAL);
    req.kmin[0] = 1, req.kmax[0] = 10;
    req.nranges = 0;
    CHECK(fft_stft_reduce(p, sig, 4, NULL, &req, got) == SP_EINVAL);
    req.nranges = FFT_PEAK_RANGES_MAX + 1;
    CHECK(fft_stft_reduce(p, sig, 4, NULL, &req, got) == SP_EINVAL);
    req.nranges = 1;
    CHECK(fft_stft_reduce(p, sig, 5, NULL, &req, got) == SP_EINVAL); /* over max_batch */
    CHECK(fft_stft_reduce(p, sig, 4, NULL, NULL, got) == SP_EINVAL);
    CHECK(fft_stft_reduce(p, sig, 4, NULL, &req, NULL) == SP_EINVAL);
    CHECK(fft_stft_reduce(p, sig, 0, NULL, &req, got) == SP_OK);
    fft_plan_destroy(p);
}

/* ---- errors -------------------------------------------------------------------------- */

static void test_errors(void)
{
    static const size_t bad_sizes[] = {0, 24, 8, (size_t)1 << 23, 1000, 1};
    fft_config cfg = fft_config_default();
    fft_plan *p = (fft_plan *)&cfg; /* must be reset to NULL on failure */
    sp_errinfo ei;

    cfg.backend = FFT_BACKEND_CPU;
    for (size_t i = 0; i < sizeof bad_sizes / sizeof bad_sizes[0]; i++) {
        cfg.n = bad_sizes[i];
        ei.msg[0] = 0;
        p = (fft_plan *)&cfg;
        CHECK_MSG(fft_plan_create(&cfg, &p, &ei) == SP_EINVAL, "n=%zu accepted", bad_sizes[i]);
        CHECK(p == NULL);
        CHECK_MSG(strstr(ei.msg, SP_FIELD("fft_size")) != NULL, "n=%zu: message '%s'", bad_sizes[i], ei.msg);
    }
    cfg.n = 64;
    cfg.hop = 0;
    CHECK(fft_plan_create(&cfg, &p, &ei) == SP_EINVAL);
    cfg.hop = 16;
    cfg.max_batch = 0;
    CHECK(fft_plan_create(&cfg, &p, &ei) == SP_EINVAL);
    cfg.max_batch = 4;

#ifndef SPECTRO_HAVE_CUDA
    cfg.backend = FFT_BACKEND_CUDA;
    ei.msg[0] = 0;
    CHECK(fft_plan_create(&cfg, &p, &ei) == SP_EUNSUPPORTED);
    CHECK_MSG(strstr(ei.msg, SP_FIELD("backend") " cuda") != NULL, "message '%s'", ei.msg);
    cfg.backend = FFT_BACKEND_CUFFT;
    CHECK(fft_plan_create(&cfg, &p, &ei) == SP_EUNSUPPORTED);
    /* auto falls back to cpu and says why */
    cfg.backend = FFT_BACKEND_AUTO;
    CHECK(fft_plan_create(&cfg, &p, &ei) == SP_OK);
    if (p) {
        CHECK(strcmp(fft_plan_backend_name(p), "cpu") == 0);
        CHECK(fft_plan_fallback_reason(p)[0] != 0);
        fft_plan_destroy(p);
    }
#endif
    cfg.backend = FFT_BACKEND_CPU;
    p = NULL;
    CHECK(fft_plan_create(&cfg, &p, &ei) == SP_OK);
    if (p) {
        CHECK(strcmp(fft_plan_backend_name(p), "cpu") == 0);
        CHECK(fft_plan_size(p) == 64);
        CHECK(fft_plan_max_batch(p) == 4);
        CHECK(fft_plan_fallback_reason(p)[0] == 0);
    }
    fft_plan_destroy(p);
    fft_plan_destroy(NULL);

    /* a window that sums to zero cannot be levelled */
    float zeros[64] = {0};
    cfg.window = zeros;
    p = NULL;
    CHECK(fft_plan_create(&cfg, &p, &ei) == SP_EINVAL && p == NULL);
}

/* The sizes a plan takes and the default hop, as the CLI and the defaults use them. */
static void test_size_facts(void)
{
    fft_config c = fft_config_default();
    CHECK(c.n == FFT_DEFAULT_SIZE && c.hop == fft_default_hop(c.n) && c.hop == FFT_DEFAULT_SIZE / 4);
    CHECK(fft_default_hop(16) == 4 && fft_default_hop(FFT_MAX_SIZE) == FFT_MAX_SIZE / 4);
    CHECK(fft_size_valid(FFT_MIN_SIZE) && fft_size_valid(FFT_MAX_SIZE) && fft_size_valid(FFT_DEFAULT_SIZE));
    CHECK(!fft_size_valid(0) && !fft_size_valid(FFT_MIN_SIZE / 2) && !fft_size_valid((size_t)FFT_MAX_SIZE * 2));
    CHECK(!fft_size_valid(1000) && !fft_size_valid(FFT_DEFAULT_SIZE + 1) && !fft_size_valid(3 * FFT_MIN_SIZE));
}

/* The GPU module takes only its own ABI: another version with the same sizes, or other
 * sizes under the same version, is refused. Its entry makes no CUDA call, so this runs
 * without a GPU; a module that cannot load here (no CUDA libraries) is not tried. */
static void test_gpu_module_abi(void)
{
#ifdef SPECTRO_TEST_GPU_MODULE
    int (*entry)(unsigned, const fft_backend **, const fft_backend **) = NULL;
    const fft_backend *cuda = NULL, *cufft = NULL;
    void *h = dlopen(SPECTRO_TEST_GPU_MODULE, RTLD_NOW | RTLD_LOCAL);
    CHECK(((FFT_BACKEND_ABI >> 16) & 0xffu) == FFT_BACKEND_ABI_VERSION);
    if (!h) {
        printf("test_fft: GPU module not loaded (%s): its ABI check not tried\n", dlerror());
        return;
    }
    *(void **)&entry = dlsym(h, "spectro_gpu_module");
    CHECK(entry != NULL);
    if (entry) {
        CHECK(entry(FFT_BACKEND_ABI + (1u << 16), &cuda, &cufft) == SP_EUNSUPPORTED && !cuda);
        CHECK(entry(FFT_BACKEND_ABI - 1, &cuda, &cufft) == SP_EUNSUPPORTED);
        CHECK(entry(FFT_BACKEND_ABI, &cuda, &cufft) == SP_OK && cuda && cufft);
        CHECK(cuda && strcmp(cuda->name, "cuda") == 0 && cufft && strcmp(cufft->name, "cufft") == 0);
    }
    dlclose(h);
#endif
}

int main(void)
{
    tu_seed("test_fft");
    test_size_facts();
    test_gpu_module_abi();
    test_errors();
    test_sizes();
    test_largest();
    test_convolution();
    test_batches();
    test_stft_levels();
    test_stft_range();
    test_stft_huge();
    test_stft_manual();
    test_stft_threads();
    test_stft_reduce();
    test_stft_reduce_known();
    return check_done("test_fft");
}
