/* test_bands: fractional-octave bands and weightings (bands.h) against the standards' numbers:
 * the exact base-10 mid frequencies near IEC 61260-1's nominal labels, contiguous edges a
 * band ratio of G^(1/b) apart, IEC 61672-1's A and C weightings at the table's frequencies
 * (Table 3, to the 0.1 dB it prints), and the level a steady sine reads in its band: its
 * amplitude level within 0.1 dB at mid-band and off it, for every window but rect (whose
 * sidelobes leak past any band), weighted or not; the resolution limit (bands too narrow
 * for the FFT read NaN); bad arguments. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bands.h"
#include "check.h"
#include "measure.h"
#include "test_util.h"
#include "window.h"

#define G10 1.9952623149688795

static void test_mid_frequencies(void)
{
    static const double third[] = {25,   31.5, 40,   50,   63,   80,   100,  125,  160,   200,   250,   315,
                                   400,  500,  630,  800,  1000, 1250, 1600, 2000, 2500,  3150,  4000,  5000,
                                   6300, 8000, 10000, 12500, 16000, 20000};
    static const double octave[] = {31.5, 63, 125, 250, 500, 1000, 2000, 4000, 8000, 16000};
    bands_config c = {3, BANDS_WEIGHT_Z, 25.0, 20000.0, 48000.0, 65536, 1.5, 2};
    bands *b = NULL;
    sp_errinfo ei = {{0}};
    CHECK_MSG(bands_create(&c, &b, &ei) == SP_OK, "%s", ei.msg);
    if (!b)
        return;
    CHECK_MSG(bands_count(b) == sizeof third / sizeof third[0], "%zu third-octave bands", bands_count(b));
    for (size_t i = 0; i < bands_count(b) && i < sizeof third / sizeof third[0]; i++) {
        double m = bands_mid_hz(b, i);
        CHECK_MSG(fabs(m / third[i] - 1.0) < 0.02, "band %zu: %.4f Hz, nominal %g", i, m, third[i]);
        CHECK_CLOSE(bands_upper_hz(b, i) / bands_lower_hz(b, i), pow(G10, 1.0 / 3.0), 1e-12);
        CHECK_CLOSE(bands_lower_hz(b, i) * bands_upper_hz(b, i), m * m, m * m * 1e-12);
        if (i > 0)
            CHECK_CLOSE(bands_lower_hz(b, i), bands_upper_hz(b, i - 1), 1e-9 * m);
    }
    CHECK_CLOSE(bands_mid_hz(b, 16), 1000.0, 1e-9); /* 1 kHz is a mid frequency */
    bands_destroy(b);
    c.fraction = 1;
    c.lo = 31.5;
    c.hi = 16000.0;
    CHECK(bands_create(&c, &b, &ei) == SP_OK);
    CHECK_MSG(b && bands_count(b) == sizeof octave / sizeof octave[0], "%zu octave bands", bands_count(b));
    for (size_t i = 0; b && i < bands_count(b) && i < sizeof octave / sizeof octave[0]; i++)
        CHECK_MSG(fabs(bands_mid_hz(b, i) / octave[i] - 1.0) < 0.02, "octave %zu: %.4f Hz", i, bands_mid_hz(b, i));
    bands_destroy(b);
    c.fraction = 12; /* even b: mid frequencies between, 1 kHz an edge */
    c.lo = 900.0;
    c.hi = 1100.0;
    CHECK(bands_create(&c, &b, &ei) == SP_OK);
    for (size_t i = 0; b && i < bands_count(b); i++) {
        double x = 24.0 * log10(bands_mid_hz(b, i) / 1000.0) / log10(G10);
        CHECK_MSG(fabs(x - round(x)) < 1e-9 && ((long)round(x)) % 2 != 0, "1/12 band at %.4f Hz", bands_mid_hz(b, i));
    }
    bands_destroy(b);
}

static void test_weightings(void)
{
    /* IEC 61672-1 Table 3 at f = 1000 * 10^(k/10): nominal Hz, A, C (dB, to 0.1) */
    static const double table[][3] = {{31.5, -39.4, -3.0}, {63, -26.2, -0.8}, {100, -19.1, -0.3},
                                      {125, -16.1, -0.2},  {250, -8.6, 0.0},  {500, -3.2, 0.0},
                                      {1000, 0.0, 0.0},    {2000, 1.2, -0.2}, {4000, 1.0, -0.8},
                                      {8000, -1.1, -3.0},  {16000, -6.6, -8.5}};
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        double f = 1000.0 * pow(10.0, round(10.0 * log10(table[i][0] / 1000.0)) / 10.0);
        CHECK_MSG(fabs(bands_weight_db(BANDS_WEIGHT_A, f) - table[i][1]) <= 0.051, "A(%g) = %.3f, table %.1f", f,
                  bands_weight_db(BANDS_WEIGHT_A, f), table[i][1]);
        CHECK_MSG(fabs(bands_weight_db(BANDS_WEIGHT_C, f) - table[i][2]) <= 0.051, "C(%g) = %.3f, table %.1f", f,
                  bands_weight_db(BANDS_WEIGHT_C, f), table[i][2]);
        CHECK(bands_weight_db(BANDS_WEIGHT_Z, f) == 0.0);
    }
    CHECK_CLOSE(bands_weight_db(BANDS_WEIGHT_A, 1000.0), 0.0, 1e-12);
    CHECK_CLOSE(bands_weight_db(BANDS_WEIGHT_A, 100.0), -19.143, 0.001); /* 0 dB at 1 kHz exactly */
}

/* A sine of amplitude amp at f through an n-point CPU FFT with window w, its band levels. */
static void sine_bands(const window_spec *ws, size_t n, double f, double amp, const bands_config *bc, float *out)
{
    const double rate = bc->rate;
    float *w = malloc(n * sizeof *w), *x = malloc(n * sizeof *x), *db = malloc((n / 2 + 1) * sizeof *db);
    bands *b = NULL;
    sp_errinfo ei = {{0}};
    CHECK(w && x && db && window_fill(ws, n, w, NULL) == SP_OK);
    for (size_t i = 0; i < n; i++)
        x[i] = (float)(amp * sin(2.0 * 3.14159265358979323846 * f * (double)i / rate + 0.3));
    fft_plan *p = tu_plan(FFT_BACKEND_CPU, n, n, w, 1);
    CHECK(p && fft_stft_db(p, x, 1, db) == SP_OK);
    CHECK_MSG(bands_create(bc, &b, &ei) == SP_OK, "%s", ei.msg);
    if (b)
        bands_levels(b, db, out);
    bands_destroy(b);
    fft_plan_destroy(p);
    free(w);
    free(x);
    free(db);
}

static void test_sine_levels(void)
{
    const size_t n = 16384;
    for (int wi = 0; window_name(wi); wi++) {
        window_spec ws = window_spec_at(wi);
        if (ws.kind == WINDOW_RECT)
            continue; /* sidelobes at -13 dB: a band holds only part of a tone's power */
        float *w = malloc(n * sizeof *w);
        measure_window mw;
        CHECK(w && window_fill(&ws, n, w, NULL) == SP_OK);
        measure_window_of(w, n, &mw);
        free(w);
        for (int weighted = 0; weighted < 2; weighted++) {
            bands_config bc = {3, weighted ? BANDS_WEIGHT_A : BANDS_WEIGHT_Z, 200.0, 16000.0, 48000.0, n,
                               mw.enbw_bins, mw.lobe_bins};
            const double mids[] = {1000.0, 1000.0 * pow(G10, 5.0 / 3.0), 1000.0 * pow(G10, 10.0 / 3.0)};
            for (int t = 0; t < 3; t++)
                for (int off = 0; off < 2; off++) { /* at mid-band, and 3 % above it */
                    double f = mids[t] * (off ? 1.03 : 1.0), amp = 0.25, want = 20.0 * log10(amp);
                    float lv[64];
                    sine_bands(&ws, n, f, amp, &bc, lv);
                    size_t band = (size_t)round(3.0 * log10(mids[t] / 200.0) / log10(G10)); /* from 200 Hz */
                    want += weighted ? bands_weight_db(BANDS_WEIGHT_A, f) : 0.0;
                    CHECK_MSG(fabs(lv[band] - want) <= 0.1, "%s%s: %.1f Hz reads %.3f dBFS, want %.3f",
                              window_name(wi), weighted ? " A" : "", f, lv[band], want);
                }
        }
    }
}

static void test_resolution_and_errors(void)
{
    bands_config bc = {3, BANDS_WEIGHT_Z, 20.0, 20000.0, 48000.0, 1024, 1.5, 2};
    bands *b = NULL;
    sp_errinfo ei = {{0}};
    const double bin = 48000.0 / 1024.0, r = 1.0 - pow(G10, -1.0 / 6.0);
    CHECK(bands_create(&bc, &b, &ei) == SP_OK);
    /* reported: the resolved bands (the lobe and a bin inside); listed: the rest of the range */
    CHECK(b && bands_count(b) + bands_unresolved_count(b) == 31 && bands_unresolved_count(b) > 0);
    for (size_t i = 0; b && i < bands_count(b); i++)
        CHECK_MSG(bands_mid_hz(b, i) * r >= 3.0 * bin, "band %.1f Hz reported", bands_mid_hz(b, i));
    for (size_t i = 0; b && i < bands_unresolved_count(b); i++)
        CHECK_MSG(bands_unresolved_hz(b, i) * r < 3.0 * bin, "band %.1f Hz not reported", bands_unresolved_hz(b, i));
    CHECK(b && bands_unresolved_hz(b, bands_unresolved_count(b) - 1) < bands_mid_hz(b, 0));
    float db[513], lv[64];
    for (size_t k = 0; k < 513; k++)
        db[k] = -60.0f;
    if (b) {
        bands_levels(b, db, lv);
        for (size_t i = 0; i < bands_count(b); i++)
            CHECK(isfinite(lv[i]) && lv[i] > -60.0f);
    }
    bands_destroy(b);
    bc.lo = 20.0; /* nothing resolved: the message says which FFT size would do */
    bc.hi = 40.0;
    CHECK(bands_create(&bc, &b, &ei) == SP_EINVAL && b == NULL && strstr(ei.msg, SP_FIELD("fft_size") " ") != NULL);
    bc.hi = 20000.0;
    bc.fraction = 5;
    CHECK(bands_create(&bc, &b, &ei) == SP_EINVAL && b == NULL);
    bc.fraction = 3;
    bc.lo = 30000.0;
    bc.hi = 40000.0;
    CHECK(bands_create(&bc, &b, &ei) == SP_EINVAL);
    bands_weighting w;
    CHECK(bands_weighting_parse("a", &w, &ei) == SP_OK && w == BANDS_WEIGHT_A);
    CHECK(bands_weighting_parse("B", &w, &ei) == SP_EINVAL);
}

int main(void)
{
    tu_seed("test_bands");
    test_mid_frequencies();
    test_weightings();
    test_sine_levels();
    test_resolution_and_errors();
    return check_done("test_bands");
}
