/* window: periodic (DFT-even) analysis windows as scipy.signal.get_window(name, N) makes
 * them. A periodic window of length N is the symmetric one of length N+1 without its last
 * point, so the cosine sums use the phase 2 pi i / N and kaiser/gauss are centred on N/2.
 * Everything is computed in double and rounded once to float. */
#include "window.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "numfmt.h"

#define WIN_PI 3.14159265358979323846 /* M_PI is not in ISO C */
#define WIN_KAISER_BETA 8.6
#define WIN_GAUSS_SIGMA 0.4
#define WIN_KAISER_BETA_MAX 500.0 /* I0(beta) stays finite in double far beyond this */

/* The one list of windows: parsing, formatting, --help and the window's `w` key read it. */
static const struct {
    const char *name;
    window_kind kind;
    const char *param;  /* the parameter's name in --help, NULL: none */
    double param_default;
    const char *param_unit; /* after the default in --help, NULL: none */
} win_names[] = {
    {.name = "hann", .kind = WINDOW_HANN},
    {.name = "hamming", .kind = WINDOW_HAMMING},
    {.name = "blackman", .kind = WINDOW_BLACKMAN},
    {.name = "blackman-harris", .kind = WINDOW_BLACKMAN_HARRIS},
    {.name = "flattop", .kind = WINDOW_FLATTOP},
    {.name = "rect", .kind = WINDOW_RECT},
    {.name = "kaiser", .kind = WINDOW_KAISER, .param = "beta", .param_default = WIN_KAISER_BETA},
    {.name = "gauss", .kind = WINDOW_GAUSS, .param = "sigma", .param_default = WIN_GAUSS_SIGMA,
     .param_unit = "of N/2"},
};
#define WIN_NAME_COUNT (sizeof win_names / sizeof win_names[0])

int window_count(void)
{
    return (int)WIN_NAME_COUNT;
}

const char *window_name(int i)
{
    return i >= 0 && i < (int)WIN_NAME_COUNT ? win_names[i].name : NULL;
}

window_spec window_spec_at(int i)
{
    window_spec s = window_spec_default();
    if (i >= 0 && i < (int)WIN_NAME_COUNT) {
        s.kind = win_names[i].kind;
        s.param = win_names[i].param_default;
    }
    return s;
}

void window_names(char *buf, size_t len)
{
    size_t at = 0;
    if (!buf || len == 0)
        return;
    buf[0] = 0;
    for (size_t i = 0; i < WIN_NAME_COUNT && at < len; i++) {
        int w = snprintf(buf + at, len - at, "%s%s%s%s%s", i ? ", " : "", win_names[i].name,
                         win_names[i].param ? "[:" : "", win_names[i].param ? win_names[i].param : "",
                         win_names[i].param ? "]" : "");
        if (w < 0)
            break;
        at += (size_t)w;
    }
}

void window_help(int i, char *buf, size_t len)
{
    if (!buf || len == 0)
        return;
    buf[0] = 0;
    if (i < 0 || i >= (int)WIN_NAME_COUNT)
        return;
    if (!win_names[i].param) {
        snprintf(buf, len, "%s", win_names[i].name);
        return;
    }
    snprintf(buf, len, "%s[:%s] (%s %g%s%s)", win_names[i].name, win_names[i].param, win_names[i].param,
             win_names[i].param_default, win_names[i].param_unit ? " " : "",
             win_names[i].param_unit ? win_names[i].param_unit : "");
}

window_spec window_spec_default(void)
{
    window_spec s;
    s.kind = WINDOW_HANN;
    s.param = 0.0;
    return s;
}

static int param_ok(window_kind kind, double p)
{
    if (!isfinite(p))
        return 0;
    if (kind == WINDOW_KAISER)
        return p >= 0.0 && p <= WIN_KAISER_BETA_MAX;
    if (kind == WINDOW_GAUSS)
        return p > 0.0;
    return 1;
}

int window_parse(const char *text, window_spec *out, sp_errinfo *ei)
{
    char names[160];
    window_names(names, sizeof names);
    if (!text || !out)
        return sp_fail(ei, SP_EINVAL, SP_FIELD("window") ": missing value (%s)", names);

    const char *colon = strchr(text, ':');
    size_t len = colon ? (size_t)(colon - text) : strlen(text);
    size_t i;
    for (i = 0; i < WIN_NAME_COUNT; i++) {
        if (strlen(win_names[i].name) == len && strncmp(text, win_names[i].name, len) == 0)
            break;
    }
    if (i == WIN_NAME_COUNT)
        return sp_fail(ei, SP_EINVAL, SP_FIELD("window") " %s: unknown window (%s)", text, names);

    window_spec s;
    s.kind = win_names[i].kind;
    s.param = win_names[i].param_default;
    if (colon) {
        const char *num = colon + 1;
        char *end = NULL;
        if (!win_names[i].param)
            return sp_fail(ei, SP_EINVAL, SP_FIELD("window") " %s: %s takes no parameter (%s)", text, win_names[i].name,
                           names);
        errno = 0;
        double v = strtod(num, &end);
        if (*num == 0 || end == num || *end != 0 || errno == ERANGE || !param_ok(s.kind, v)) {
            if (s.kind == WINDOW_KAISER)
                return sp_fail(ei, SP_EINVAL, SP_FIELD("window") " %s: kaiser beta must be a number from 0 to %g (%s)",
                               text, WIN_KAISER_BETA_MAX, names);
            return sp_fail(ei, SP_EINVAL, SP_FIELD("window") " %s: gauss sigma must be a number above 0 (%s)", text,
                           names);
        }
        s.param = v;
    }
    *out = s;
    return SP_OK;
}

void window_format(const window_spec *spec, char *buf, size_t len)
{
    const char *name = "?";
    if (!buf || len == 0)
        return;
    if (!spec) {
        buf[0] = 0;
        return;
    }
    for (size_t i = 0; i < WIN_NAME_COUNT; i++) {
        if (win_names[i].kind == spec->kind)
            name = win_names[i].name;
    }
    if (spec->kind != WINDOW_KAISER && spec->kind != WINDOW_GAUSS) {
        snprintf(buf, len, "%s", name);
        return;
    }
    /* the fewest digits that read back as the same double, so format/parse round-trips,
     * written as people do ("kaiser:20", not "kaiser:2e+01") */
    char num[SP_FMT_NUM_MAX];
    snprintf(buf, len, "%s:%s", name, sp_fmt_num(num, spec->param, 0));
}

/* Modified Bessel function of the first kind, order 0: sum_k ((x/2)^k / k!)^2. Every term
 * is positive, so the series is summed until a term no longer changes the sum. */
static double bessel_i0(double x)
{
    double q = 0.25 * x * x, term = 1.0, sum = 1.0;
    for (int k = 1; k < 10000; k++) {
        term *= q / ((double)k * (double)k);
        sum += term;
        if (term < sum * 1e-17)
            break;
    }
    return sum;
}

/* sum_k (-1)^k a_k cos(2 pi k i / n), as scipy's general_cosine with sym=False. */
static double cosine_sum(const double *a, int terms, size_t i, size_t n)
{
    double x = 2.0 * WIN_PI * (double)i / (double)n, w = 0.0;
    for (int k = 0; k < terms; k++)
        w += (k & 1 ? -a[k] : a[k]) * cos((double)k * x);
    return w;
}

int window_fill(const window_spec *spec, size_t n, float *w, double *sum_out)
{
    static const double hann[] = {0.5, 0.5};
    static const double hamming[] = {0.54, 0.46};
    static const double blackman[] = {0.42, 0.50, 0.08};
    static const double bh[] = {0.35875, 0.48829, 0.14128, 0.01168};
    static const double flattop[] = {0.21557895, 0.41663158, 0.277263158, 0.083578947, 0.006947368};
    const double *a = NULL;
    int terms = 0;
    double sum = 0.0;

    if (!spec || !w || n == 0 || !param_ok(spec->kind, spec->param))
        return SP_EINVAL;
    switch (spec->kind) {
    case WINDOW_HANN: a = hann, terms = 2; break;
    case WINDOW_HAMMING: a = hamming, terms = 2; break;
    case WINDOW_BLACKMAN: a = blackman, terms = 3; break;
    case WINDOW_BLACKMAN_HARRIS: a = bh, terms = 4; break;
    case WINDOW_FLATTOP: a = flattop, terms = 5; break;
    case WINDOW_RECT:
    case WINDOW_KAISER:
    case WINDOW_GAUSS: break;
    default: return SP_EINVAL;
    }

    /* scipy returns ones for a window of one point, whatever its kind */
    const double centre = 0.5 * (double)n;
    const double i0_beta = spec->kind == WINDOW_KAISER ? bessel_i0(spec->param) : 1.0;
    const double sigma = spec->param * centre;
    for (size_t i = 0; i < n; i++) {
        double v;
        if (n == 1 || spec->kind == WINDOW_RECT) {
            v = 1.0;
        } else if (a) {
            v = cosine_sum(a, terms, i, n);
        } else if (spec->kind == WINDOW_KAISER) {
            double r = ((double)i - centre) / centre;
            v = bessel_i0(spec->param * sqrt(1.0 - r * r)) / i0_beta;
        } else {
            double d = (double)i - centre;
            v = exp(-(d * d) / (2.0 * sigma * sigma));
        }
        w[i] = (float)v;
        sum += (double)w[i];
    }
    if (sum_out)
        *sum_out = sum;
    return SP_OK;
}
