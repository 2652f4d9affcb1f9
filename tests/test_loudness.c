/* test_loudness: the loudness meter's per-step levels (loudness_meter_keep_levels), the
 * window's level meters' source (docs/measurements.md "Level meters"): against the samples'
 * own peak and mean square per 100 ms step, the true peak against the sine's crest, and
 * the whole-input results unchanged by keeping them. The BS.1770 figures themselves are
 * e2e_loudness.py's. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "loudness.h"

#define RATE 48000
#define SECONDS 2
#define PI 3.14159265358979323846

/* A tone at fs/4 whose samples fall 45 degrees off its crest (3 dB under it), amplitude
 * 0.5 in the first second and 0.25 in the second (where the whole input's true peak is
 * out of reach: the per-step search must still run). */
static float *make_signal(size_t n)
{
    float *x = malloc(n * sizeof *x);
    for (size_t i = 0; x && i < n; i++)
        x[i] = (float)((i < RATE ? 0.5 : 0.25) * sin(2 * PI * 12000.0 * (double)i / RATE + PI / 4));
    return x;
}

static void check_steps(const loudness_meter *m, const float *x)
{
    loudness_step_levels lv;
    sp_errinfo ei = {{0}};
    CHECK(loudness_meter_steps(m) == SECONDS * 10);
    for (size_t k = 0; k < loudness_meter_steps(m); k++) {
        size_t a = k * RATE / 10, b = (k + 1) * RATE / 10;
        /* step 10's first interpolated points still see the louder samples before it */
        double pk = 0.0, sq = 0.0, crest = k <= 10 ? 0.5 : 0.25;
        for (size_t i = a; i < b; i++) {
            pk = fabs(x[i]) > pk ? fabs(x[i]) : pk;
            sq += (double)x[i] * x[i];
        }
        CHECK(loudness_meter_step_levels(m, k, &lv, &ei) == SP_OK);
        CHECK_CLOSE(lv.sample_peak, pk, 1e-7);
        CHECK_CLOSE(lv.mean_square, sq / (double)(b - a), 1e-9);
        /* the interpolation finds the crest the samples miss (Tech 3341's +0.2 / -0.4 dB) */
        CHECK_MSG(lv.true_peak >= pk && 20 * log10(lv.true_peak / crest) < 0.2 &&
                      20 * log10(lv.true_peak / crest) > -0.4, "step %zu: %g vs crest %g", k,
                  lv.true_peak, crest);
        CHECK(pk < crest * 0.75);
    }
    CHECK(loudness_meter_step_levels(m, SECONDS * 10, &lv, &ei) == SP_EINVAL);
}

int main(void)
{
    size_t n = SECONDS * RATE;
    float *x = make_signal(n);
    loudness_meter *kept = NULL, *plain = NULL;
    loudness_result rk, rp;
    loudness_step_levels lv;
    sp_errinfo ei = {{0}};
    CHECK(x != NULL);
    CHECK(loudness_meter_create(RATE, 1, NULL, &kept, &ei) == SP_OK);
    CHECK(loudness_meter_create(RATE, 1, NULL, &plain, &ei) == SP_OK);
    CHECK(loudness_meter_step_levels(plain, 0, &lv, &ei) == SP_EINVAL); /* not kept */
    CHECK(loudness_meter_keep_levels(kept, &ei) == SP_OK);
    for (size_t i = 0; i < n; i += 4799) {
        size_t len = n - i < 4799 ? n - i : 4799;
        CHECK(loudness_meter_add(kept, x + i, len, &ei) == SP_OK);
        CHECK(loudness_meter_add(plain, x + i, len, &ei) == SP_OK);
    }
    CHECK(loudness_meter_keep_levels(kept, &ei) == SP_EINVAL); /* samples already taken */
    check_steps(kept, x);
    CHECK(loudness_meter_result(kept, &rk, &ei) == SP_OK);
    CHECK(loudness_meter_result(plain, &rp, &ei) == SP_OK);
    CHECK(memcmp(&rk, &rp, sizeof rk) == 0); /* keeping the levels changes no result */
    loudness_meter_destroy(kept);
    loudness_meter_destroy(plain);
    free(x);
    return check_done("test_loudness");
}
