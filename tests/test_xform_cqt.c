/* test_xform_cqt: the constant-Q's multirate parts (src/xform/xform_cqt_dec.c,
 * docs/transforms.md "Constant-Q (octave-wise multirate)"):
 * - each halfband decimator the design makes for a passband to fp (of its input rate) is
 *   flat there within 0.005 dB (peak to peak), has unit gain at 0 Hz and stops from 1/2 - fp
 *   at -78 dB or below (its response evaluated in double on a fine grid); a passband that
 *   leaves too narrow a transition is refused;
 * - a stage's outputs are the formula's (centre x[2m] + sum g_i (x[2m-2i-1] + x[2m+2i+1]))
 *   evaluated in double, within float rounding, on fresh random input; the plain and AVX
 *   versions give the same bits;
 * - the two-frame dot products are each frame's sums in double within float rounding, the
 *   same as the frame with another partner;
 * - the vector dB is 10 log10(max(p, 1e-20)) within 2e-5 dB from 1e-30 to 1e30. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "xform_internal.h"

/* |H(f)| of the stage, f in cycles a sample of its input */
static double response(const xform_halfband *h, double f)
{
    double s = h->centre;
    for (int i = 0; i < h->pairs; i++)
        s += 2.0 * h->g[i] * cos(2.0 * XFORM_PI * f * (2.0 * i + 1.0));
    return fabs(s);
}

static void test_design(void)
{
    const double fps[] = {0.05, 0.092, 0.12, 0.15, 0.184, 0.1875};
    xform_halfband h;
    for (size_t t = 0; t < sizeof fps / sizeof fps[0]; t++) {
        double fp = fps[t], lo = 1e9, hi = -1e9, stop = -1e9;
        CHECK(xform_halfband_design(&h, fp) == SP_OK);
        CHECK(h.pairs >= 1 && h.pairs <= XFORM_HB_MAX_PAIRS);
        for (int k = 0; k <= 4000; k++) {
            double f = 0.5 * k / 4000.0, db = 20.0 * log10(response(&h, f) + 1e-300);
            if (f <= fp) {
                lo = db < lo ? db : lo;
                hi = db > hi ? db : hi;
            } else if (f >= 0.5 - fp) {
                stop = db > stop ? db : stop;
            }
        }
        CHECK_MSG(hi - lo < 0.005, "fp %g: ripple %.5f dB", fp, hi - lo);
        CHECK_CLOSE(response(&h, 0.0), 1.0, 1e-6);
        CHECK_MSG(stop <= -78.0, "fp %g: stopband %.2f dB", fp, stop);
    }
    CHECK(xform_halfband_design(&h, 0.24) == SP_EINVAL);
    CHECK(xform_halfband_design(&h, 0.0) == SP_EINVAL);
}

static float frand(void)
{
    return (float)rand() / (float)RAND_MAX - 0.5f;
}

static void test_stage(void)
{
    enum { COUNT = 1500, PAD = 64 };
    static float in[2 * COUNT + 2 * PAD], out[3][COUNT];
    const int avx = xform_cqt_avx();
    xform_halfband h;
    double worst = 0.0;
    CHECK(xform_halfband_design(&h, 0.184) == SP_OK);
    for (size_t i = 0; i < sizeof in / sizeof in[0]; i++)
        in[i] = frand();
    for (int v = 0; v <= avx; v++) {
        memset(out[v], 0xff, sizeof out[v]); /* NaN: every output must be written */
        xform_halfband_run(&h, in + PAD, out[v], COUNT, v);
    }
    for (size_t m = 0; m < COUNT; m++) {
        const float *c = in + PAD + 2 * m;
        double s = (double)h.centre * c[0];
        for (int i = 0; i < h.pairs; i++)
            s += (double)h.g[i] * ((double)c[-2 * i - 1] + (double)c[2 * i + 1]);
        for (int v = 0; v <= avx; v++)
            worst = fmax(worst, fabs(out[v][m] - s));
    }
    CHECK_MSG(worst < 1e-6, "stage outputs %.3g from the formula", worst);
    if (avx >= 1)
        CHECK(memcmp(out[0], out[1], sizeof out[0]) == 0);
}

static void test_dot_db(void)
{
    enum { LEN = 208 };
    static float y0[LEN], y1[LEN], y2[LEN], wr[LEN], wi[LEN];
    const int avx = xform_cqt_avx();
    float a[4], b[4], p[64], db[64];
    double r0 = 0, i0 = 0, r1 = 0, i1 = 0;
    for (int i = 0; i < LEN; i++) {
        y0[i] = frand();
        y1[i] = frand();
        y2[i] = frand();
        wr[i] = frand();
        wi[i] = frand();
        r0 += (double)y0[i] * wr[i];
        i0 += (double)y0[i] * wi[i];
        r1 += (double)y1[i] * wr[i];
        i1 += (double)y1[i] * wi[i];
    }
    xform_cqt_dot2(y0, y1, wr, wi, LEN, a, avx);
    xform_cqt_dot2(y0, y2, wr, wi, LEN, b, avx);
    CHECK_CLOSE(a[0], r0, 1e-5);
    CHECK_CLOSE(a[1], i0, 1e-5);
    CHECK_CLOSE(a[2], r1, 1e-5);
    CHECK_CLOSE(a[3], i1, 1e-5);
    CHECK(memcmp(a, b, 2 * sizeof a[0]) == 0); /* frame 0's sums whatever its partner */
    for (int i = 0; i < 64; i++)
        p[i] = (float)pow(10.0, -30.0 + 60.0 * i / 63.0) * (1.0f + 0.3f * frand());
    p[0] = 0.0f;
    xform_cqt_db(p, db, 64, avx);
    for (int i = 0; i < 64; i++) {
        double want = 10.0 * log10(p[i] > 1e-20 ? (double)p[i] : 1e-20);
        CHECK_MSG(fabs(db[i] - want) < 2e-5, "p %g: %.7f dB, not %.7f", (double)p[i], db[i], want);
    }
}

int main(void)
{
    srand(29);
    test_design();
    test_stage();
    test_dot_db();
    return check_done("test_xform_cqt");
}
