/* The constant-Q's multirate parts (docs/transforms.md "Constant-Q (octave-wise
 * multirate)"): the halfband decimators' design, one decimation stage over a span, and the
 * kernels' dot products. Both loops run on 8-float vectors (GCC vector extensions), built
 * three times: for plain x86-64 (two SSE halves), for AVX (the same operations in the same
 * order: the same bits) and for AVX2 with FMA, chosen at run time. */
#include <math.h>
#include <string.h>
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#endif

#include "xform_internal.h"

typedef float vf8 __attribute__((vector_size(32)));
typedef int vi8 __attribute__((vector_size(32)));
typedef float vf8_u __attribute__((vector_size(32), may_alias, aligned(4)));

/* The Kaiser design's stopband attenuation (dB): the aliases of what a stage removes. */
#define HB_ATTEN 80.0
/* Outputs a stage makes a block (its inputs deinterleaved on the stack first). */
#define HB_BLOCK 512

/* I0, the modified Bessel function of order 0, by its series (Kaiser's window). */
static double bessel_i0(double x)
{
    double s = 1.0, t = 1.0;
    for (int k = 1; k < 60 && t > 1e-17 * s; k++) {
        t *= (x / (2.0 * k)) * (x / (2.0 * k));
        s += t;
    }
    return s;
}

int xform_halfband_design(xform_halfband *h, double fp)
{
    const double width = 0.5 - 2.0 * fp, beta = 0.1102 * (HB_ATTEN - 8.7);
    double taps, sum = 0.0, g[2 * XFORM_HB_MAX_PAIRS + 2];
    int pairs, half;
    memset(h, 0, sizeof *h);
    if (!(fp > 0.0) || width < 0.05)
        return SP_EINVAL;
    /* Kaiser's length for a transition `width` (of the input rate) at HB_ATTEN dB, as 4K+3
     * taps: the halfband's even taps other than the centre are zero. */
    taps = ceil((HB_ATTEN - 7.95) / (2.285 * 2.0 * XFORM_PI * width)) + 1.0;
    pairs = (int)ceil((taps - 3.0) / 4.0) + 1;
    pairs = pairs < 1 ? 1 : pairs;
    if (pairs > XFORM_HB_MAX_PAIRS)
        return SP_EINVAL;
    half = 2 * pairs - 1; /* the outermost odd tap's offset */
    g[0] = 0.5;
    sum = 0.5;
    for (int i = 0; i < pairs; i++) {
        double k = 2.0 * i + 1.0, r = k / half;
        g[i + 1] = sin(XFORM_PI * k / 2.0) / (XFORM_PI * k) * bessel_i0(beta * sqrt(1.0 - r * r)) / bessel_i0(beta);
        sum += 2.0 * g[i + 1];
    }
    h->pairs = pairs;
    h->centre = (float)(g[0] / sum); /* unit gain at 0 Hz */
    for (int i = 0; i < pairs; i++)
        h->g[i] = (float)(g[i + 1] / sum);
    return SP_OK;
}

/* A block of cnt <= HB_BLOCK outputs; in[2m] is output m's centre. Four vectors of outputs
 * at a time, so that their sums' additions overlap; each lane adds its terms in tap order. */
#define HB_BODY(vld, vst, MAC, SMAC)                                                                   \
    float e[HB_BLOCK], o[HB_BLOCK + 2 * XFORM_HB_MAX_PAIRS];                               \
    vf8 gv[XFORM_HB_MAX_PAIRS];                                                             \
    const int k = h->pairs;                                                                 \
    const vf8 cv = (vf8){0} + h->centre;                                                    \
    size_t m = 0;                                                                           \
    for (int i = 0; i < k; i++)                                                             \
        gv[i] = (vf8){0} + h->g[i];                                                         \
    for (size_t j = 0; j < cnt; j++)                                                        \
        e[j] = in[2 * j];                                                                   \
    for (size_t j = 0; j + 1 < cnt + 2 * (size_t)k; j++) /* o[j] = in[2(j - k) + 1] */   \
        o[j] = in[2 * ((long)j - k) + 1];                                                  \
    for (; m + 32 <= cnt; m += 32) {                                                        \
        const float *p = o + m + k;                                                         \
        vf8 a0 = cv * vld(e + m), a1 = cv * vld(e + m + 8), a2 = cv * vld(e + m + 16),      \
            a3 = cv * vld(e + m + 24);                                                      \
        for (int i = 0; i < k; i++) {                                                       \
            MAC(a0, gv[i], vld(p - i - 1) + vld(p + i));                                    \
            MAC(a1, gv[i], vld(p + 8 - i - 1) + vld(p + 8 + i));                            \
            MAC(a2, gv[i], vld(p + 16 - i - 1) + vld(p + 16 + i));                          \
            MAC(a3, gv[i], vld(p + 24 - i - 1) + vld(p + 24 + i));                          \
        }                                                                                   \
        vst(out + m, a0);                                                                   \
        vst(out + m + 8, a1);                                                               \
        vst(out + m + 16, a2);                                                              \
        vst(out + m + 24, a3);                                                              \
    }                                                                                       \
    for (; m + 8 <= cnt; m += 8) {                                                          \
        vf8 acc = cv * vld(e + m);                                                          \
        for (int i = 0; i < k; i++)                                                         \
            MAC(acc, gv[i], vld(o + m + k - i - 1) + vld(o + m + k + i));                   \
        vst(out + m, acc);                                                                  \
    }                                                                                       \
    for (; m < cnt; m++) { /* the lanes' operations, one at a time */                     \
        float acc = h->centre * e[m];                                                       \
        for (int i = 0; i < k; i++)                                                         \
            SMAC(acc, h->g[i], o[m + k - i - 1] + o[m + k + i]);                            \
        out[m] = acc;                                                                       \
    }

/* Two frames' sums at once (y0, y1), each weight loaded once for both; each frame's lanes
 * do the operations of a frame alone, so a row's bits do not depend on its partner. */
#define DOT_BODY(vld, MAC)                                                                       \
    vf8 r0 = {0}, r1 = {0}, i0 = {0}, i1 = {0}, s0 = {0}, s1 = {0}, j0 = {0}, j1 = {0};     \
    for (size_t j = 0; j < len; j += 16) {                                                  \
        const vf8 wr0 = vld(wr + j), wr1 = vld(wr + j + 8), wi0 = vld(wi + j), wi1 = vld(wi + j + 8); \
        const vf8 a = vld(y0 + j), b = vld(y0 + j + 8), c = vld(y1 + j), d = vld(y1 + j + 8); \
        MAC(r0, a, wr0);                                                                      \
        MAC(i0, a, wi0);                                                                      \
        MAC(r1, b, wr1);                                                                      \
        MAC(i1, b, wi1);                                                                      \
        MAC(s0, c, wr0);                                                                      \
        MAC(j0, c, wi0);                                                                      \
        MAC(s1, d, wr1);                                                                      \
        MAC(j1, d, wi1);                                                                      \
    }                                                                                       \
    r0 += r1;                                                                               \
    i0 += i1;                                                                               \
    s0 += s1;                                                                               \
    j0 += j1;                                                                               \
    out[0] = ((r0[0] + r0[4]) + (r0[1] + r0[5])) + ((r0[2] + r0[6]) + (r0[3] + r0[7]));     \
    out[1] = ((i0[0] + i0[4]) + (i0[1] + i0[5])) + ((i0[2] + i0[6]) + (i0[3] + i0[7]));     \
    out[2] = ((s0[0] + s0[4]) + (s0[1] + s0[5])) + ((s0[2] + s0[6]) + (s0[3] + s0[7]));     \
    out[3] = ((j0[0] + j0[4]) + (j0[1] + j0[5])) + ((j0[2] + j0[6]) + (j0[3] + j0[7]));

/* Unaligned loads and stores as macros: a function returning vf8 would change its ABI
 * between the builds. */
#define vld(p) (*(const vf8_u *)(p))
#define vst(p, v) (*(vf8_u *)(p) = (v))
#define MAC(acc, a, b) ((acc) += (a) * (b))
#define SMAC(acc, a, b) ((acc) += (a) * (b))

/* 10 log10(max(p, 1e-20)) of 8 powers: p = 2^e m with m in [1/sqrt 2, sqrt 2), ln m by
 * 2 atanh((m - 1)/(m + 1)) to the 9th power (its next term is below 4e-10): within a few
 * float roundings of the float log10. */
#define DB_BODY(vld, vst)                                                                   \
    for (size_t j = 0; j < count; j += 8) {                                                 \
        vf8 v = vld(p + j);                                                                 \
        vi8 keep = v > ((vf8){0} + 1e-20f), big = v > ((vf8){0} + 3.0e38f);                 \
        vi8 u = ((vi8)v & keep) | ((vi8)((vf8){0} + 1e-20f) & ~keep);                       \
        u = (u & ~big) | ((vi8)((vf8){0} + 3.0e38f) & big);                                 \
        vi8 e = ((u >> 23) & 255) - 127, mb = (u & 0x7fffff) | 0x3f800000;                   \
        vi8 hi = (vf8)mb > ((vf8){0} + 1.41421356f);                                        \
        vf8 m = (vf8)((mb & ~hi) | ((mb - 0x00800000) & hi)); /* halved where above */     \
        e -= hi; /* hi is -1 there */                                                       \
        vf8 t = (m - 1.0f) / (m + 1.0f), t2 = t * t;                                        \
        vf8 ln = t * (2.0f + t2 * (2.0f / 3.0f + t2 * (0.4f + t2 * (2.0f / 7.0f + t2 * (2.0f / 9.0f))))); \
        vst(db + j, ((vf8){0} + 3.01029996f) * __builtin_convertvector(e, vf8) + ((vf8){0} + 4.34294482f) * ln); \
    }

static void hb_block(const xform_halfband *h, const float *in, float *out, size_t cnt)
{
    HB_BODY(vld, vst, MAC, SMAC)
}

static void db8(const float *p, float *db, size_t count)
{
    DB_BODY(vld, vst)
}

static void dot(const float *y0, const float *y1, const float *wr, const float *wi, size_t len, float *out)
{
    DOT_BODY(vld, MAC)
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define CQT_AVX __attribute__((target("avx")))
CQT_AVX static void hb_block_avx(const xform_halfband *h, const float *in, float *out, size_t cnt)
{
    HB_BODY(vld, vst, MAC, SMAC)
}

CQT_AVX static void db8_avx(const float *p, float *db, size_t count)
{
    DB_BODY(vld, vst)
}

CQT_AVX static void dot_avx(const float *y0, const float *y1, const float *wr, const float *wi, size_t len,
                            float *out)
{
    DOT_BODY(vld, MAC)
}

/* With FMA (AVX2 machines): a product and its sum rounded once, so these rows differ from
 * the others' in the last bits (the same on every such machine). */
#define CQT_FMA __attribute__((target("avx2,fma")))
#define MAC_FMA(acc, a, b) ((acc) = (vf8)_mm256_fmadd_ps((__m256)(a), (__m256)(b), (__m256)(acc)))
#define SMAC_FMA(acc, a, b) ((acc) = fmaf((a), (b), (acc)))
CQT_FMA static void hb_block_fma(const xform_halfband *h, const float *in, float *out, size_t cnt)
{
    HB_BODY(vld, vst, MAC_FMA, SMAC_FMA)
}

CQT_FMA static void dot_fma(const float *y0, const float *y1, const float *wr, const float *wi, size_t len,
                            float *out)
{
    DOT_BODY(vld, MAC_FMA)
}

int xform_cqt_avx(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? 2 : __builtin_cpu_supports("avx");
}
#else
#define hb_block_avx hb_block
#define db8_avx db8
#define dot_avx dot
#define hb_block_fma hb_block
#define dot_fma dot
int xform_cqt_avx(void)
{
    return 0;
}
#endif

void xform_halfband_run(const xform_halfband *h, const float *in, float *out, size_t count, int avx)
{
    for (size_t m = 0; m < count; m += HB_BLOCK) {
        size_t cnt = count - m < HB_BLOCK ? count - m : HB_BLOCK;
        (avx == 2 ? hb_block_fma : avx ? hb_block_avx : hb_block)(h, in + 2 * m, out + m, cnt);
    }
}

void xform_cqt_dot2(const float *y0, const float *y1, const float *wr, const float *wi, size_t len, float *out,
                    int avx)
{
    (avx == 2 ? dot_fma : avx ? dot_avx : dot)(y0, y1, wr, wi, len, out);
}

void xform_cqt_db(const float *p, float *db, size_t count, int avx)
{
    (avx ? db8_avx : db8)(p, db, count);
}
