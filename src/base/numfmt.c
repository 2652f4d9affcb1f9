/* numfmt: see numfmt.h.
 *
 * v·10^d is computed in double: the product is within half an ulp of the true scaled value,
 * so rounding it to the nearest integer gives printf's digits unless the true value may lie
 * on the other side of a half (a tie, which printf rounds to even on the exact binary value,
 * or a product that rounded across the half). Those, and values too large for the integer
 * path, go to snprintf; so do NaN and the infinities. */
#include "numfmt.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const double pow10_tab[10] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9};

size_t sp_fmt_fixed(char *out, double v, int decimals)
{
    if (decimals < 0 || decimals > 9 || !isfinite(v))
        return (size_t)snprintf(out, SP_FMT_FIXED_MAX, "%.*f", decimals < 0 ? 0 : decimals, v);
    double a = fabs(v) * pow10_tab[decimals];
    if (a >= 0x1p50)
        return (size_t)snprintf(out, SP_FMT_FIXED_MAX, "%.*f", decimals, v);
    double fl = floor(a);
    double frac = a - fl;   /* exact: a < 2^50 */
    double slack = a * 0x1p-51 + 0x1p-60; /* half an ulp of a, and the product's rounding */
    if (fabs(frac - 0.5) <= slack)
        return (size_t)snprintf(out, SP_FMT_FIXED_MAX, "%.*f", decimals, v);
    uint64_t q = (uint64_t)fl + (frac > 0.5);
    char tmp[32];
    int n = 0;
    for (int i = 0; i < decimals; i++) { /* the fraction's digits, last first */
        tmp[n++] = (char)('0' + q % 10);
        q /= 10;
    }
    if (decimals > 0)
        tmp[n++] = '.';
    do {
        tmp[n++] = (char)('0' + q % 10);
        q /= 10;
    } while (q);
    size_t len = 0;
    if (signbit(v)) /* printf keeps the sign of a negative value that rounds to zero: "-0.00" */
        out[len++] = '-';
    while (n > 0)
        out[len++] = tmp[--n];
    out[len] = '\0';
    return len;
}

/* sp_fmt_num: printf's "%.*e" gives the rounded digits and the exponent; they are laid out
 * again in positional notation. */
const char *sp_fmt_num(char *out, double v, int digits)
{
    char e[40], mant[24];
    int exp10, nd = 0, len = 0;
    if (!isfinite(v)) {
        snprintf(out, SP_FMT_NUM_MAX, "%s", isnan(v) ? "nan" : v > 0 ? "inf" : "-inf");
        return out;
    }
    if (v == 0.0) {
        snprintf(out, SP_FMT_NUM_MAX, "0");
        return out;
    }
    if (digits > 17)
        digits = 17;
    if (digits < 1) {
        for (digits = 1; digits < 17; digits++) {
            snprintf(e, sizeof e, "%.*e", digits - 1, v);
            if (strtod(e, NULL) == v)
                break;
        }
    }
    snprintf(e, sizeof e, "%.*e", digits - 1, v); /* [-]d.ddde[+-]xx */
    for (const char *c = e; *c && *c != 'e'; c++)
        if (*c >= '0' && *c <= '9')
            mant[nd++] = *c;
    exp10 = atoi(strchr(e, 'e') + 1);
    while (nd > 1 && mant[nd - 1] == '0')
        nd--;
    mant[nd] = '\0';
    if (exp10 >= 21 || exp10 < -7) {
        snprintf(out, SP_FMT_NUM_MAX, "%s%c%s%se%+03d", v < 0 ? "-" : "", mant[0], nd > 1 ? "." : "", mant + 1, exp10);
        return out;
    }
    if (v < 0)
        out[len++] = '-';
    if (exp10 < 0) {
        out[len++] = '0';
        out[len++] = '.';
        for (int i = -1; i > exp10; i--)
            out[len++] = '0';
        for (int i = 0; i < nd; i++)
            out[len++] = mant[i];
    } else {
        for (int i = 0; i <= exp10; i++) /* the integer part, zeros past the digits */
            out[len++] = i < nd ? mant[i] : '0';
        if (nd > exp10 + 1) {
            out[len++] = '.';
            for (int i = exp10 + 1; i < nd; i++)
                out[len++] = mant[i];
        }
    }
    out[len] = '\0';
    return out;
}
