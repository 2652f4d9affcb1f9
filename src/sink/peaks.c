#include "peaks.h"

#include <math.h>
#include <stdlib.h>

#include "fft.h" /* FFT_DB_FLOOR */

#define PW_STEP 256   /* table points per bin: Catmull-Rom between them is within 1e-8 */
#define PW_SPAN 2     /* offsets 0 .. 2 bins: the peak bin and both neighbours */
#define PW_DECIM 4096 /* the most coefficients the table is computed from */
#define PW_POINTS (PW_SPAN * PW_STEP + 4)
#define PW_PI 3.14159265358979323846

/* The statistic that gives the offset d from the three linear levels l, c, r (below, b is
 * the larger neighbour):
 *   PW_THREE  |r - l| / (l + c + r)   every window with a main lobe wider than +-1 bin;
 *   PW_TWO    b / (c + b)             rect, whose neighbours both vanish on the bin (the
 *                                     three-point ratio grows as d^2 there).
 * Each table picks the one that moves most with d. */
enum { PW_THREE, PW_TWO };

#define PW_INV 512 /* the statistic tabled at offsets 0 .. 1/2 in PW_INV steps, to start the search */

struct peaks_window {
    double g[PW_POINTS]; /* g[j + 1] = |W(j / PW_STEP)| / W(0), j = -1 .. PW_SPAN*PW_STEP+2 */
    int stat;
    double st[PW_INV + 1]; /* st[i] = stat_at(i / (2 PW_INV)) */
};

/* |sum w_i e^(-2 pi i x i/m)| for m coefficients w taken every `stride` of the window: the
 * rotation is a recurrence in double (error ~ m eps). */
static double transform_at(const float *w, size_t m, size_t stride, double x)
{
    double c = cos(2.0 * PW_PI * x / (double)m), s = -sin(2.0 * PW_PI * x / (double)m);
    double er = 1.0, ei = 0.0, sr = 0.0, si = 0.0;
    for (size_t i = 0; i < m; i++) {
        double v = w[i * stride], t;
        sr += v * er;
        si += v * ei;
        t = er * c - ei * s;
        ei = er * s + ei * c;
        er = t;
    }
    return sqrt(sr * sr + si * si);
}

/* g(x) for 0 <= x <= PW_SPAN, Catmull-Rom through the table (|W| is even in x for the
 * symmetric windows of window.h, so g[0] holds g(1/PW_STEP)). */
static double g_at(const peaks_window *pw, double x)
{
    double u = x * PW_STEP;
    size_t j = (size_t)u;
    if (j > PW_SPAN * PW_STEP)
        j = PW_SPAN * PW_STEP;
    double t = u - (double)j;
    const double *p = pw->g + j; /* p[0..3] = g at (j-1 .. j+2)/PW_STEP */
    return p[1] + 0.5 * t * (p[2] - p[0] + t * (2.0 * p[0] - 5.0 * p[1] + 4.0 * p[2] - p[3] +
                                                t * (3.0 * (p[1] - p[2]) + p[3] - p[0])));
}

/* The statistic of a tone at offset d, 0 <= d <= 1/2 (increasing in d). */
static double stat_at(const peaks_window *pw, int stat, double d)
{
    double c = g_at(pw, d), b = g_at(pw, 1.0 - d), o = g_at(pw, 1.0 + d);
    return stat == PW_TWO ? b / (c + b) : (b - o) / (o + c + b);
}

/* The smallest slope of a statistic over 0 .. 1/2: how well it tells offsets apart. */
static double min_slope(const peaks_window *pw, int stat)
{
    double lo = INFINITY, prev = stat_at(pw, stat, 0.0);
    for (int i = 1; i <= 64; i++) {
        double s = stat_at(pw, stat, i / 128.0);
        lo = fmin(lo, (s - prev) * 128.0);
        prev = s;
    }
    return lo;
}

int peaks_window_create(const float *w, size_t n, peaks_window **out, sp_errinfo *ei)
{
    peaks_window *pw;
    size_t m = n > PW_DECIM && n % PW_DECIM == 0 ? PW_DECIM : n, stride = n / m;
    double w0;
    if (!w || !out || n < 4)
        return sp_fail(ei, SP_EINVAL, "peaks_window_create: no window");
    *out = NULL;
    if (!(w0 = transform_at(w, m, stride, 0.0)) || !isfinite(w0))
        return sp_fail(ei, SP_EINVAL, "peaks_window_create: the window sums to 0");
    if (!(pw = malloc(sizeof *pw)))
        return sp_fail(ei, SP_ENOMEM, "out of memory for the peak search's window table");
    for (int j = 0; j < PW_POINTS; j++)
        pw->g[j] = transform_at(w, m, stride, fabs((double)(j - 1) / PW_STEP)) / w0;
    pw->stat = min_slope(pw, PW_TWO) > min_slope(pw, PW_THREE) ? PW_TWO : PW_THREE;
    for (int i = 0; i <= PW_INV; i++)
        pw->st[i] = stat_at(pw, pw->stat, i / (2.0 * PW_INV));
    *out = pw;
    return SP_OK;
}

void peaks_window_destroy(peaks_window *pw)
{
    free(pw);
}

/* The offset d in [0, 1/2] whose statistic is s (the statistic increases): the table's cell
 * that holds s, then regula falsi (Illinois) inside it, to 1e-12 bin. A dense --peaks run
 * refines every frame's peak on one thread: this takes a tenth of a 32-step bisection. */
static double offset_of(const peaks_window *pw, double s)
{
    const double *st = pw->st;
    if (!(s > st[0]))
        return 0.0;
    if (s >= st[PW_INV])
        return 0.5;
    size_t lo = 0, hi = PW_INV; /* st[lo] < s <= st[hi] */
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (st[mid] < s)
            lo = mid;
        else
            hi = mid;
    }
    double a = lo / (2.0 * PW_INV), b = hi / (2.0 * PW_INV);
    double fa = st[lo] - s, fb = st[hi] - s; /* fa < 0 <= fb */
    int side = 0;
    for (int i = 0; i < 40 && b - a > 1e-12; i++) {
        double x = fb - fa > 0.0 ? b - fb * (b - a) / (fb - fa) : 0.5 * (a + b);
        if (!(x > a && x < b))
            x = 0.5 * (a + b);
        double fx = stat_at(pw, pw->stat, x) - s;
        if (fx == 0.0)
            return x;
        if (fx < 0.0) {
            a = x, fa = fx;
            if (side == -1)
                fb *= 0.5;
            side = -1;
        } else {
            b = x, fb = fx;
            if (side == 1)
                fa *= 0.5;
            side = 1;
        }
    }
    return 0.5 * (a + b);
}

static peak refine_parabola(size_t bin, double l, double c, double r, size_t n, double rate)
{
    peak p;
    double den = l - 2.0 * c + r, d = 0.0;
    /* den < 0 at a true maximum; a flat top (den == 0) stays on the bin */
    if (den < 0.0) {
        d = 0.5 * (l - r) / den;
        if (d > 0.5)
            d = 0.5;
        if (d < -0.5)
            d = -0.5;
    }
    p.bin = bin;
    p.freq_hz = ((double)bin + d) * rate / (double)n;
    p.db = c - 0.25 * (l - r) * d;
    return p;
}

peak peaks_refine(const peaks_window *pw, size_t bin, float l, float c, float r, size_t n, double rate)
{
    peak p;
    double al, ac, ar, b, s, d;
    if (!pw)
        return refine_parabola(bin, l, c, r, n, rate);
    if (!(c > FFT_DB_FLOOR)) /* silence: nothing to locate, and no level to raise */
        return refine_parabola(bin, c, c, c, n, rate);
    /* linear levels relative to the peak bin's (so that no level overflows) */
    al = pow(10.0, ((double)l - c) / 20.0);
    ar = pow(10.0, ((double)r - c) / 20.0);
    ac = 1.0;
    b = fmax(al, ar);
    s = pw->stat == PW_TWO ? b / (ac + b) : fabs(ar - al) / (al + ac + ar);
    d = offset_of(pw, s);
    if (ar < al)
        d = -d;
    p.bin = bin;
    p.freq_hz = ((double)bin + d) * rate / (double)n;
    p.db = (double)c - 20.0 * log10(g_at(pw, fabs(d)));
    return p;
}

peak peaks_find(const peaks_window *pw, const float *db, size_t n, double rate)
{
    return peaks_find_range(pw, db, n, rate, 1, n / 2 - 1);
}

peak peaks_find_range(const peaks_window *pw, const float *db, size_t n, double rate, size_t kmin, size_t kmax)
{
    fft_peak_raw raw;
    if (kmin < 1)
        kmin = 1;
    if (kmin > n / 2 - 1)
        kmin = n / 2 - 1; /* bin+1 must stay within the n/2+1 bins */
    if (kmax > n / 2 - 1)
        kmax = n / 2 - 1;
    if (kmax < kmin)
        kmax = kmin;
    raw = fft_peak_scan(db, kmin, kmax); /* the scan every backend's reduction matches */
    return peaks_refine(pw, raw.bin, raw.l, raw.c, raw.r, n, rate);
}

int peaks_bin_range(double fmin, double fmax, double bin_hz, size_t n, size_t *kmin, size_t *kmax)
{
    double lo = fmin > 0 ? fmin / bin_hz : 1.0;
    double hi = fmax > 0 ? fmax / bin_hz : (double)(n / 2 - 1);
    if (lo > (double)(n / 2)) /* beyond the last bin (and no overflow below) */
        lo = (double)(n / 2);
    *kmin = lo < 1.0 ? 1 : (size_t)(lo + 0.5);
    *kmax = hi > (double)(n / 2 - 1) ? n / 2 - 1 : (size_t)(hi + 0.5);
    return *kmax >= *kmin;
}
