/* test_fft_frame: the cpu plan's one-frame calls for the host's transforms (fft.h
 * fft_r2c_split, fft_r2c_power, fft_power_db) against fft_r2c of the frame windowed here
 * and against log10 in double: split bit for bit, power within float rounding, dB within
 * 1e-4 dB with the floor and the overflow marks of fft_stft_db; sizes whose untangle runs
 * on the vector loops, the scalar tail or both, on the default (8-wide where the CPU has
 * AVX2) and the 4-wide path; and the bad arguments.
 *
 * The seed comes from the clock and is printed; SPECTRO_TEST_SEED=<n> replays a run. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fft.h"
#include "test_util.h"
#include "window.h"

/* uniform in [-1, 1), 24 bits: exact in float */
static float rng_float(void)
{
    return (float)((double)(rng_next() >> 40) / (double)(1ull << 23) - 1.0);
}

static void frame_case(size_t n, int sse2)
{
    const size_t bins = n / 2 + 1;
    fft_tuning tuning = {0};
    float *x = malloc(n * sizeof *x), *w = malloc(n * sizeof *w), *xw = malloc(n * sizeof *xw);
    float *re = malloc(bins * sizeof *re), *im = malloc(bins * sizeof *im), *pw = malloc(bins * sizeof *pw);
    float *s2 = malloc(bins * sizeof *s2);
    cpx *X = malloc(bins * sizeof *X);
    window_spec spec = {WINDOW_HANN, 0.0};
    fft_plan *p = NULL, *pr = NULL;
    size_t bad = 0, far = 0;
    CHECK(x && w && xw && re && im && pw && s2 && X);
    if (!x || !w || !xw || !re || !im || !pw || !s2 || !X)
        goto out;
    tuning.cpu_simd = sse2 ? FFT_CPU_SIMD_SSE2 : FFT_CPU_SIMD_AUTO;
    CHECK(window_fill(&spec, n, w, NULL) == SP_OK);
    p = tu_plan_tuned(FFT_BACKEND_CPU, &tuning, n, n, NULL, 1);
    pr = tu_plan_tuned(FFT_BACKEND_CPU, &tuning, n, n, NULL, 1);
    if (!p || !pr)
        goto out;
    for (size_t i = 0; i < n; i++) {
        x[i] = rng_float();
        xw[i] = x[i] * w[i];
    }
    for (size_t k = 0; k < bins; k++)
        s2[k] = 0.5f + 0.25f * rng_float(); /* positive, as squared scales are */
    for (int windowed = 0; windowed < 2; windowed++) {
        tu_poison(re, bins);
        tu_poison(im, bins);
        CHECK(fft_r2c_split(p, x, windowed ? w : NULL, re, im) == SP_OK);
        CHECK(fft_r2c(pr, windowed ? xw : x, X, 1) == SP_OK);
        for (size_t k = 0; k < bins; k++)
            bad += memcmp(&re[k], &X[k].re, sizeof(float)) != 0 || memcmp(&im[k], &X[k].im, sizeof(float)) != 0;
        CHECK_MSG(bad == 0, "n=%zu%s%s: fft_r2c_split differs from fft_r2c in %zu bins", n, sse2 ? " sse2" : "",
                  windowed ? " windowed" : "", bad);
    }
    tu_poison(pw, bins);
    CHECK(fft_r2c_power(p, x, w, s2, pw) == SP_OK);
    for (size_t k = 0; k < bins; k++) {
        double ref = ((double)X[k].re * X[k].re + (double)X[k].im * X[k].im) * s2[k];
        far += !(fabs((double)pw[k] - ref) <= 1e-6 * ref + 1e-30);
    }
    CHECK_MSG(far == 0, "n=%zu%s: fft_r2c_power is not |X_k|^2 scale2_k in %zu bins", n, sse2 ? " sse2" : "", far);
out:
    fft_plan_destroy(p);
    fft_plan_destroy(pr);
    free(x);
    free(w);
    free(xw);
    free(re);
    free(im);
    free(pw);
    free(s2);
    free(X);
}

/* Powers over 1e-30 .. 1e38 and the edges, a count that leaves a tail for every width. */
static void db_case(int sse2)
{
    enum { COUNT = 1000 + 5 };
    fft_tuning tuning = {0};
    float v[COUNT], in[COUNT];
    double worst = 0.0;
    fft_plan *p;
    tuning.cpu_simd = sse2 ? FFT_CPU_SIMD_SSE2 : FFT_CPU_SIMD_AUTO;
    if (!(p = tu_plan_tuned(FFT_BACKEND_CPU, &tuning, 64, 64, NULL, 1)))
        return;
    for (int i = 0; i < COUNT - 5; i++)
        in[i] = (float)pow(10.0, -30.0 + 68.0 * (i + 0.5 * (rng_float() + 1.0)) / (COUNT - 5));
    in[COUNT - 5] = 0.0f;
    in[COUNT - 4] = 1e-20f;
    in[COUNT - 3] = 1.0f;
    in[COUNT - 2] = INFINITY;
    in[COUNT - 1] = NAN;
    memcpy(v, in, sizeof v);
    CHECK(fft_power_db(p, v, COUNT) == SP_OK);
    for (int i = 0; i < COUNT - 5; i++) {
        double ref = in[i] > 1e-20f ? 10.0 * log10((double)in[i]) : FFT_DB_FLOOR;
        worst = fmax(worst, fabs((double)v[i] - ref));
    }
    CHECK_MSG(worst < 1e-4, "%s: fft_power_db is %.3g dB from 10 log10", sse2 ? "sse2" : "default", worst);
    CHECK(v[COUNT - 5] == FFT_DB_FLOOR && v[COUNT - 4] == FFT_DB_FLOOR);
    CHECK_MSG(v[COUNT - 3] == 0.0f, "a power of 1 reads %g dB", (double)v[COUNT - 3]);
    CHECK(v[COUNT - 2] == INFINITY && v[COUNT - 1] == INFINITY); /* the overflow marks */
    CHECK(fft_power_db(p, v, 0) == SP_OK);
    fft_plan_destroy(p);
}

static void test_errors(void)
{
    float x[16] = {0}, y[16];
    fft_plan *p = tu_plan(FFT_BACKEND_CPU, 16, 16, NULL, 1);
    if (!p)
        return;
    CHECK(fft_r2c_split(NULL, x, NULL, y, y) == SP_EINVAL);
    CHECK(fft_r2c_split(p, NULL, NULL, y, y) == SP_EINVAL);
    CHECK(fft_r2c_split(p, x, NULL, y, NULL) == SP_EINVAL);
    CHECK(fft_r2c_power(p, x, NULL, NULL, y) == SP_EINVAL);
    CHECK(fft_r2c_power(p, x, NULL, x, NULL) == SP_EINVAL);
    CHECK(fft_power_db(NULL, y, 1) == SP_EINVAL);
    CHECK(fft_power_db(p, NULL, 1) == SP_EINVAL);
    fft_plan_destroy(p);
}

int main(void)
{
    static const size_t sizes[] = {16, 32, 64, 512, 4096};
    tu_seed("test_fft_frame");
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        for (int sse2 = 0; sse2 < 2; sse2++)
            frame_case(sizes[i], sse2);
    db_case(0);
    db_case(1);
    test_errors();
    return check_done("test_fft_frame");
}
