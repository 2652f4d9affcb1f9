/* test_numfmt: sp_fmt_fixed writes what printf's "%.*f" writes, byte for byte: random values
 * over 30 decades of both signs, exact ties (k/8, k/1024: printf rounds them to even), values
 * one ulp either side of a tie, the sizes where the integer path gives way to snprintf,
 * negative values that round to zero ("-0.00"), -0.0, NaN and the infinities. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "numfmt.h"
#include "test_util.h"

static int mismatches;

static void same(double v, int d)
{
    char want[SP_FMT_FIXED_MAX], got[SP_FMT_FIXED_MAX];
    int wn = snprintf(want, sizeof want, "%.*f", d, v);
    size_t gn = sp_fmt_fixed(got, v, d);
    int ok = (size_t)wn == gn && strcmp(want, got) == 0;
    if (!ok && mismatches++ < 10)
        fprintf(stderr, "%.17g with %d decimals: printf \"%s\", sp_fmt_fixed \"%s\" (length %zu)\n", v, d, want,
                got, gn);
    CHECK(ok);
}

int main(void)
{
    tu_seed("test_numfmt");
    for (int i = 0; i < 2000000; i++) {
        double mag = pow(10.0, rng_unit() * 30.0 - 14.0);
        double v = rng_signed() * mag;
        same(v, (int)rng_range(0, 9));
    }
    for (int k = -4096; k <= 4096; k++) /* exact ties at every decimal count */
        for (int d = 0; d <= 9; d++) {
            double t = k / 8.0, u = k / 1024.0;
            same(t, d);
            same(u, d);
            same(nextafter(u, INFINITY), d);
            same(nextafter(u, -INFINITY), d);
        }
    for (int i = 0; i < 200000; i++) { /* decimal ties, which no double holds: the nearest doubles,
                                        * whose products with 10^d round onto the half */
        int d = (int)rng_range(1, 9);
        double t = ((double)rng_range(0, 100000000) + 0.5) / pow(10.0, d);
        same(t, d);
        same(nextafter(t, INFINITY), d);
        same(nextafter(t, 0.0), d);
        same(-t, d);
    }
    for (int d = 0; d <= 9; d++) { /* around the integer path's end, 2^50 / 10^d */
        double edge = ldexp(1.0, 50) / pow(10.0, d);
        for (double v = edge * 0.999; v < edge * 1.001; v += edge * 1e-4) {
            same(v, d);
            same(-v, d);
        }
        double specials[] = {0.0, -0.0, -0.001, -0.004999, -0.005, 0.005, 0.015, 0.025, 1e-300, -1e-300, 0.5,
                             1.5, 2.5, -2.5, 999999.9999999, 1e15, 123456.789, NAN, INFINITY, -INFINITY, DBL_MAX};
        for (size_t i = 0; i < sizeof specials / sizeof specials[0]; i++)
            same(specials[i], d);
    }
    return check_done("test_numfmt");
}
