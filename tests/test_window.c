/* test_window: every window against scipy's values (tests/data/windows_ref.txt, made by
 * tests/data/make_windows_ref.py), sums, parse/format round trips and parse errors.
 * Usage: test_window PATH/windows_ref.txt */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "window.h"

#define REF_MAX_N 4096

/* Reads one whitespace-separated token; returns 0 at end of file. */
static int read_token(FILE *f, char *buf, size_t len)
{
    int c;
    size_t i = 0;
    while ((c = fgetc(f)) != EOF && (c == ' ' || c == '\n' || c == '\t' || c == '\r'))
        ;
    while (c == '#') { /* comment line */
        while ((c = fgetc(f)) != EOF && c != '\n')
            ;
        while ((c = fgetc(f)) != EOF && (c == ' ' || c == '\n' || c == '\t' || c == '\r'))
            ;
    }
    if (c == EOF)
        return 0;
    while (c != EOF && c != ' ' && c != '\n' && c != '\t' && c != '\r') {
        if (i + 1 < len)
            buf[i++] = (char)c;
        c = fgetc(f);
    }
    buf[i] = 0;
    return 1;
}

static void test_reference(const char *path)
{
    static float w[REF_MAX_N];
    static double ref[REF_MAX_N];
    char tok[128], name[64];
    int rows = 0;
    int seen_kind[8] = {0};
    FILE *f = fopen(path, "r");

    CHECK_MSG(f != NULL, "cannot open %s", path);
    if (!f)
        return;
    while (read_token(f, name, sizeof name)) {
        size_t n;
        double ref_sum, sum = -1.0;
        window_spec spec;
        int ok = read_token(f, tok, sizeof tok);
        n = ok ? (size_t)strtoul(tok, NULL, 10) : 0;
        ok = ok && n >= 1 && n <= REF_MAX_N && read_token(f, tok, sizeof tok);
        CHECK_MSG(ok, "%s: malformed line for %s", path, name);
        if (!ok)
            break;
        ref_sum = strtod(tok, NULL);
        for (size_t i = 0; i < n; i++) {
            ok = read_token(f, tok, sizeof tok);
            ref[i] = ok ? strtod(tok, NULL) : NAN;
        }
        CHECK_MSG(ok, "%s: %s %zu: short line", path, name, n);

        CHECK_MSG(window_parse(name, &spec, NULL) == SP_OK, "%s", name);
        seen_kind[spec.kind] = 1;
        for (size_t i = 0; i < n; i++)
            w[i] = NAN;
        CHECK(window_fill(&spec, n, w, &sum) == SP_OK);
        double maxerr = 0.0, fsum = 0.0;
        size_t worst = 0;
        for (size_t i = 0; i < n; i++) {
            double e = fabs((double)w[i] - ref[i]);
            if (!(e <= maxerr)) { /* also catches NaN */
                maxerr = isnan(e) ? INFINITY : e;
                worst = i;
            }
            fsum += w[i];
        }
        CHECK_MSG(maxerr < 1e-6, "%s N=%zu: max abs err %.3g at %zu (got %.9g, scipy %.9g)", name, n,
                  maxerr, worst, (double)w[worst], ref[worst]);
        CHECK_MSG(fabs(sum - ref_sum) < 1e-6 * (double)n, "%s N=%zu: sum %.9g, scipy %.9g", name, n,
                  sum, ref_sum);
        CHECK_MSG(sum == fsum, "%s N=%zu: sum_out %.17g is not the sum of the floats %.17g", name, n,
                  sum, fsum);
        rows++;
    }
    fclose(f);
    CHECK_MSG(rows == 40, "%s: %d windows read, expected 40 (10 specs x 4 sizes)", path, rows);
    for (int k = 0; k < 8; k++)
        CHECK_MSG(seen_kind[k], "window kind %d has no reference", k);
}

static void test_fill_edges(void)
{
    window_spec s = window_spec_default();
    float w[4];
    double sum = 0.0;

    CHECK(s.kind == WINDOW_HANN);
    CHECK(window_fill(&s, 0, w, &sum) == SP_EINVAL);
    CHECK(window_fill(NULL, 4, w, &sum) == SP_EINVAL);
    CHECK(window_fill(&s, 4, NULL, &sum) == SP_EINVAL);
    CHECK(window_fill(&s, 4, w, NULL) == SP_OK); /* sum_out may be NULL */
    /* scipy: a one-point window is [1.0] whatever its kind */
    for (int k = WINDOW_HANN; k <= WINDOW_GAUSS; k++) {
        s.kind = (window_kind)k;
        s.param = k == WINDOW_KAISER ? 8.6 : 0.4;
        w[0] = NAN;
        CHECK(window_fill(&s, 1, w, &sum) == SP_OK);
        CHECK_MSG(w[0] == 1.0f && sum == 1.0, "kind %d: w[0] = %g", k, (double)w[0]);
    }
    s.kind = WINDOW_KAISER;
    s.param = -1.0;
    CHECK(window_fill(&s, 4, w, &sum) == SP_EINVAL);
    s.kind = WINDOW_GAUSS;
    s.param = 0.0;
    CHECK(window_fill(&s, 4, w, &sum) == SP_EINVAL);
}

static void test_parse_format(void)
{
    static const struct {
        const char *text, *canonical;
        window_kind kind;
        double param;
    } good[] = {
        {"hann", "hann", WINDOW_HANN, 0},
        {"hamming", "hamming", WINDOW_HAMMING, 0},
        {"blackman", "blackman", WINDOW_BLACKMAN, 0},
        {"blackman-harris", "blackman-harris", WINDOW_BLACKMAN_HARRIS, 0},
        {"flattop", "flattop", WINDOW_FLATTOP, 0},
        {"rect", "rect", WINDOW_RECT, 0},
        {"kaiser", "kaiser:8.6", WINDOW_KAISER, 8.6},
        {"kaiser:6", "kaiser:6", WINDOW_KAISER, 6.0},
        {"kaiser:0", "kaiser:0", WINDOW_KAISER, 0.0},
        {"kaiser:12.25", "kaiser:12.25", WINDOW_KAISER, 12.25},
        {"kaiser:20", "kaiser:20", WINDOW_KAISER, 20.0}, /* not printf's %.1g "kaiser:2e+01" */
        {"kaiser:2e1", "kaiser:20", WINDOW_KAISER, 20.0},
        {"kaiser:40", "kaiser:40", WINDOW_KAISER, 40.0},
        {"gauss:2", "gauss:2", WINDOW_GAUSS, 2.0},
        {"gauss", "gauss:0.4", WINDOW_GAUSS, 0.4},
        {"gauss:0.3", "gauss:0.3", WINDOW_GAUSS, 0.3},
        {"gauss:1e-3", "gauss:0.001", WINDOW_GAUSS, 0.001},
        {"gauss:0.123456789012", "gauss:0.123456789012", WINDOW_GAUSS, 0.123456789012},
    };
    static const char *bad[] = {
        "", "foo", "Hann", "hann ", "hann:", "hann:1", "rect:2", "kaiser:", "kaiser:-1",
        "kaiser:abc", "kaiser:6x", "kaiser:nan", "kaiser:inf", "kaiser:1e400", "kaiser:6:7",
        "gauss:0", "gauss:-0.1", "gauss:", "gauss:0.3junk", "gauss:inf", "blackmanharris", ":",
    };
    char buf[64];

    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        window_spec s, back;
        sp_errinfo ei = {{0}};
        CHECK_MSG(window_parse(good[i].text, &s, &ei) == SP_OK, "%s: %s", good[i].text, ei.msg);
        CHECK_MSG(s.kind == good[i].kind, "%s", good[i].text);
        if (good[i].kind == WINDOW_KAISER || good[i].kind == WINDOW_GAUSS)
            CHECK_MSG(s.param == good[i].param, "%s: param %.17g", good[i].text, s.param);
        window_format(&s, buf, sizeof buf);
        CHECK_MSG(strcmp(buf, good[i].canonical) == 0, "%s formats as '%s', expected '%s'",
                  good[i].text, buf, good[i].canonical);
        CHECK_MSG(window_parse(buf, &back, NULL) == SP_OK && back.kind == s.kind &&
                      (back.param == s.param || (s.kind != WINDOW_KAISER && s.kind != WINDOW_GAUSS)),
                  "round trip of %s through '%s'", good[i].text, buf);
    }
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        window_spec s = window_spec_default();
        sp_errinfo ei = {{0}};
        char prefix[80];
        snprintf(prefix, sizeof prefix, SP_FIELD("window") " %s: ", bad[i]);
        CHECK_MSG(window_parse(bad[i], &s, &ei) == SP_EINVAL, "'%s' was accepted", bad[i]);
        CHECK_MSG(strncmp(ei.msg, prefix, strlen(prefix)) == 0, "'%s': message '%s'", bad[i], ei.msg);
        CHECK_MSG(strstr(ei.msg, "(hann, hamming, blackman, blackman-harris, flattop, rect, "
                                 "kaiser[:beta], gauss[:sigma])") != NULL,
                  "'%s': message does not list the windows: '%s'", bad[i], ei.msg);
        CHECK_MSG(s.kind == WINDOW_HANN, "'%s' changed the output on failure", bad[i]);
    }
    {
        sp_errinfo ei = {{0}};
        window_spec s;
        CHECK(window_parse("foo", &s, &ei) == SP_EINVAL);
        CHECK_MSG(strcmp(ei.msg, SP_FIELD("window") " foo: unknown window (hann, hamming, blackman, "
                                 "blackman-harris, flattop, rect, kaiser[:beta], gauss[:sigma])") == 0,
                  "message '%s'", ei.msg);
        CHECK(window_parse(NULL, &s, NULL) == SP_EINVAL);
        CHECK(window_parse("hann", NULL, NULL) == SP_EINVAL);
    }
    /* format never overflows and always terminates */
    {
        window_spec s = {WINDOW_BLACKMAN_HARRIS, 0.0};
        char small[6];
        memset(small, 'x', sizeof small);
        window_format(&s, small, sizeof small);
        CHECK(strcmp(small, "black") == 0);
    }
}

/* Properties that hold for any n: symmetry about n/2 (periodic windows), peak 1 at the
 * centre for even n (all but flattop/rect are exactly 1 there up to float rounding). */
static void test_symmetry(void)
{
    static float w[1000];
    const char *specs[] = {"hann", "hamming", "blackman", "blackman-harris", "flattop", "kaiser",
                           "gauss", "kaiser:3"};
    for (size_t s = 0; s < sizeof specs / sizeof specs[0]; s++) {
        window_spec ws;
        CHECK(window_parse(specs[s], &ws, NULL) == SP_OK);
        for (size_t n = 2; n <= 1000; n += 333) {
            CHECK(window_fill(&ws, n, w, NULL) == SP_OK);
            double maxd = 0.0;
            for (size_t i = 1; i < n; i++)
                maxd = fmax(maxd, fabs((double)w[i] - (double)w[n - i]));
            CHECK_MSG(maxd < 1e-6, "%s n=%zu: w[i] != w[n-i] by %.3g", specs[s], n, maxd);
        }
    }
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s PATH/windows_ref.txt\n", argv[0]);
        return 2;
    }
    test_reference(argv[1]);
    test_fill_edges();
    test_parse_format();
    test_symmetry();
    return check_done("test_window");
}
