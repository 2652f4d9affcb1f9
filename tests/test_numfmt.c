/* test_numfmt: sp_fmt_fixed writes what printf's "%.*f" writes, byte for byte: random values
 * over 30 decades of both signs, exact ties (k/8, k/1024: printf rounds them to even), values
 * one ulp either side of a tie, the sizes where the integer path gives way to snprintf,
 * negative values that round to zero ("-0.00"), -0.0, NaN and the infinities.
 * sp_fmt_num: numbers as people write them ("20", not printf's "%.1g" "2e+01"), the fewest
 * digits that read back as the value (random values over 40 decades), significant digits. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
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

static void num(double v, int digits, const char *want)
{
    char got[SP_FMT_NUM_MAX];
    sp_fmt_num(got, v, digits);
    CHECK_MSG(strcmp(got, want) == 0, "sp_fmt_num(%.17g, %d): \"%s\", want \"%s\"", v, digits, got, want);
}

/* The shortest text reads back as v, has no exponent in the positional range, and no
 * shorter %.*e does. */
static void num_roundtrip(double v)
{
    char got[SP_FMT_NUM_MAX], e[40];
    int n = 0, first = -1, last = -1, sig;
    sp_fmt_num(got, v, 0);
    CHECK_MSG(strtod(got, NULL) == v, "%.17g: \"%s\" reads back as %.17g", v, got, strtod(got, NULL));
    if (fabs(v) >= 1e-7 && fabs(v) < 1e21)
        CHECK_MSG(!strchr(got, 'e'), "%.17g: \"%s\"", v, got);
    for (const char *c = got; *c && *c != 'e'; c++) /* the significant digits: first to last non-zero */
        if (*c >= '0' && *c <= '9') {
            if (*c != '0') {
                if (first < 0)
                    first = n;
                last = n;
            }
            n++;
        }
    sig = first < 0 ? 0 : last - first + 1;
    if (sig > 1) {
        snprintf(e, sizeof e, "%.*e", sig - 2, v);
        CHECK_MSG(strtod(e, NULL) != v, "%.17g: \"%s\" but \"%s\" reads back too", v, got, e);
    }
}

static void test_num(void)
{
    num(20.0, 0, "20");
    num(8.6, 0, "8.6");
    num(0.5, 0, "0.5");
    num(-0.0, 0, "0");
    num(0.0, 3, "0");
    num(-2.5, 0, "-2.5");
    num(1099511627776.0, 0, "1099511627776");
    num(19952.623149688792, 4, "19950");
    num(19952.623149688792, 0, "19952.623149688792");
    num(9.9996, 4, "10");
    num(0.00125, 0, "0.00125");
    num(1e-7, 0, "0.0000001");
    num(1.25e-8, 0, "1.25e-08");
    num(1e21, 0, "1e+21");
    num(-1e300, 0, "-1e+300");
    num(123456789012345678901.0, 0, "123456789012345680000");
    num(1000.0, 2, "1000");
    num(0.1 + 0.2, 0, "0.30000000000000004");
    num(0.1 + 0.2, 6, "0.3");
    num(NAN, 0, "nan");
    num(INFINITY, 4, "inf");
    num(-INFINITY, 0, "-inf");
    for (int i = 0; i < 200000; i++)
        num_roundtrip(rng_signed() * pow(10.0, rng_unit() * 40.0 - 20.0));
    for (int k = 1; k <= 100000; k++) {
        num_roundtrip((double)k);
        num_roundtrip(k / 10.0);
    }
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
    test_num();
    return check_done("test_numfmt");
}
