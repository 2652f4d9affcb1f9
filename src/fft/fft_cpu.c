/* fft_cpu: the cpu backend, radix-2 decimation in time in C (the structure of the GPU
 * design: a bit-reverse permutation, then one radix-2 level after another).
 *
 * Data layout. A transform works on split complex scratch (re[], im[], m floats each, m =
 * n for c2c and n/2 for real input) so that every butterfly loop is unit-stride and maps
 * onto 4-wide vectors:
 *   1. the bit-reverse gather from the caller's interleaved input also does the first two
 *      levels (h = 1, 2: twiddles 1, -i) as one radix-2x2 step, and h = 4 from 32 points;
 *   2. the remaining levels run two at a time (h and 2h fused in registers, which halves
 *      the passes over memory), with one single level first when their count is odd;
 *   3. the result goes back interleaved (c2c), through the real-input post-processing
 *      (r2c) or straight to dB (stft_db), so the caller's input may alias the output.
 *
 * Twiddles. The level with half-span h uses w_h[j] = e^{-i pi j/h}, j < h, stored at
 * tw[h + j]: one table of n floats serves every level of both the n- and the n/2-point
 * transform, and each level's slice is contiguous. All twiddles are computed in double
 * and stored as float; the inverse uses its own conjugated imaginary table.
 *
 * Vectors. 4-wide GCC/Clang generic vectors (SSE2 on x86-64, NEON), a scalar fallback
 * elsewhere; on x86-64 GCC builds the levels with h >= 16 also have 8-wide AVX versions
 * picked at run time when the CPU has AVX (fft_config.cpu_simd can keep the 4-wide path).
 * No FMA and no -ffast-math: both paths give the same bits.
 *
 * Reductions. stft_reduce is stft_db plus the peak search of each frame's dB row, run by
 * the thread that made the row right after making it (8-wide with AVX2, like the dB
 * conversion); without the caller's db the row is the thread's own scratch.
 *
 * Threads. stft_db and stft_reduce split their frames over a pool of threads
 * (fft_cpu_pool.c); fft_cpu_internal.h holds the state both files share.
 * Nothing is allocated after create(). */
#include "fft_cpu_internal.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#if defined(__GNUC__) && (defined(__SSE2__) || defined(__ARM_NEON) || defined(__ALTIVEC__))
/* GCC/Clang generic vectors: SSE2/NEON registers, no -ffast-math needed. The _u type may
 * alias float and sit on any float boundary (the same trick as emmintrin's __m128_u). */
typedef float vf __attribute__((vector_size(16)));
typedef float vf_u __attribute__((vector_size(16), may_alias, aligned(4)));
typedef int32_t vi __attribute__((vector_size(16)));
#define VW 4
#define CPU_VECTOR_DB 1
#if defined(__x86_64__) && !defined(__clang__)
#define CPU_AVX_DISPATCH 1
#endif
static inline vf vld(const float *p)
{
    return *(const vf_u *)p;
}
static inline void vst(float *p, vf v)
{
    *(vf_u *)p = v;
}
#else
typedef float vf;
#define VW 1
static inline vf vld(const float *p)
{
    return *p;
}
static inline void vst(float *p, vf v)
{
    *p = v;
}
#endif

#define CPU_PI 3.14159265358979323846 /* M_PI is not in ISO C */

static unsigned ilog2(size_t n)
{
    unsigned l = 0;
    while ((size_t)1 << l < n)
        l++;
    return l;
}

static uint32_t bit_reverse(uint32_t v, unsigned bits)
{
    uint32_t r = 0;
    for (unsigned b = 0; b < bits; b++) {
        r = (r << 1) | (v & 1u);
        v >>= 1;
    }
    return r;
}

/* ---- the radix-2 levels on split data ------------------------------------------------ */

/* The level bodies are macros so that one text serves each vector width: V the vector
 * type, W its width (h >= W), LD/ST its unaligned load and store. */

/* One level: butterflies (base+j, base+j+h) with w_h[j]. */
#define LEVEL_SINGLE_BODY(V, W, LD, ST)                                                     \
    const float *wr = twr + h, *wi = twi + h;                                             \
    for (size_t base = 0; base < m; base += 2 * h) {                                      \
        float *ar = re + base, *ai = im + base, *br = ar + h, *bi = ai + h;               \
        for (size_t j = 0; j < h; j += W) {                                               \
            V c = LD(wr + j), s = LD(wi + j);                                             \
            V xr = LD(br + j), xi = LD(bi + j);                                           \
            V tr = xr * c - xi * s, ti = xr * s + xi * c;                                 \
            V ur = LD(ar + j), ui = LD(ai + j);                                           \
            ST(ar + j, ur + tr);                                                          \
            ST(ai + j, ui + ti);                                                          \
            ST(br + j, ur - tr);                                                          \
            ST(bi + j, ui - ti);                                                          \
        }                                                                                 \
    }

/* Two levels, h and 2h, in one pass over blocks of 4h: quarter k of a block holds the
 * points base + k*h + j. Level h pairs quarters (0,1) and (2,3) with w_h[j]; level 2h
 * pairs (0,2) with w_2h[j] and (1,3) with w_2h[j+h]. Still radix-2 DIT, just half the
 * loads and stores. */
#define LEVEL_PAIR_BODY(V, W, LD, ST)                                                       \
    const float *w1r = twr + h, *w1i = twi + h;                                           \
    const float *w2r = twr + 2 * h, *w2i = twi + 2 * h;                                   \
    const float *w3r = w2r + h, *w3i = w2i + h;                                           \
    for (size_t base = 0; base < m; base += 4 * h) {                                      \
        float *r0 = re + base, *r1 = r0 + h, *r2 = r1 + h, *r3 = r2 + h;                  \
        float *i0 = im + base, *i1 = i0 + h, *i2 = i1 + h, *i3 = i2 + h;                  \
        for (size_t j = 0; j < h; j += W) {                                               \
            V c1 = LD(w1r + j), s1 = LD(w1i + j);                                         \
            V ar = LD(r0 + j), ai = LD(i0 + j);                                           \
            V br = LD(r1 + j), bi = LD(i1 + j);                                           \
            V cr = LD(r2 + j), ci = LD(i2 + j);                                           \
            V dr = LD(r3 + j), di = LD(i3 + j);                                           \
            V tr = br * c1 - bi * s1, ti = br * s1 + bi * c1;                             \
            br = ar - tr;                                                                 \
            bi = ai - ti;                                                                 \
            ar = ar + tr;                                                                 \
            ai = ai + ti;                                                                 \
            tr = dr * c1 - di * s1;                                                       \
            ti = dr * s1 + di * c1;                                                       \
            dr = cr - tr;                                                                 \
            di = ci - ti;                                                                 \
            cr = cr + tr;                                                                 \
            ci = ci + ti;                                                                 \
            V c2 = LD(w2r + j), s2 = LD(w2i + j);                                         \
            tr = cr * c2 - ci * s2;                                                       \
            ti = cr * s2 + ci * c2;                                                       \
            ST(r0 + j, ar + tr);                                                          \
            ST(i0 + j, ai + ti);                                                          \
            ST(r2 + j, ar - tr);                                                          \
            ST(i2 + j, ai - ti);                                                          \
            V c3 = LD(w3r + j), s3 = LD(w3i + j);                                         \
            tr = dr * c3 - di * s3;                                                       \
            ti = dr * s3 + di * c3;                                                       \
            ST(r1 + j, br + tr);                                                          \
            ST(i1 + j, bi + ti);                                                          \
            ST(r3 + j, br - tr);                                                          \
            ST(i3 + j, bi - ti);                                                          \
        }                                                                                 \
    }

#define LEVEL_ARGS                                                                          \
    float *restrict re, float *restrict im, size_t m, size_t h, const float *restrict twr, \
        const float *restrict twi

static void level_single(LEVEL_ARGS)
{
    LEVEL_SINGLE_BODY(vf, VW, vld, vst)
}

static void level_pair(LEVEL_ARGS)
{
    LEVEL_PAIR_BODY(vf, VW, vld, vst)
}

#ifdef CPU_AVX_DISPATCH
/* 8-wide AVX versions for levels with h >= 8, chosen at run time (the build targets plain
 * x86-64; FFTW does the same). AVX alone adds no FMA, so results match the SSE path. */
typedef float vf8 __attribute__((vector_size(32)));
typedef float vf8_u __attribute__((vector_size(32), may_alias, aligned(4)));
#define AVX_FN __attribute__((target("avx")))
AVX_FN static inline vf8 vld8(const float *p)
{
    return *(const vf8_u *)p;
}
AVX_FN static inline void vst8(float *p, vf8 v)
{
    *(vf8_u *)p = v;
}
AVX_FN static void level_pair_avx(LEVEL_ARGS)
{
    LEVEL_PAIR_BODY(vf8, 8, vld8, vst8)
}
#endif

/* Levels h = 2^done .. m/2 of an m-point transform whose first `done` levels the gather
 * did: one single level first when their count is odd, then pairs (8 wide from h = 8). */
static void levels_rest(float *re, float *im, size_t m, unsigned log2m, unsigned done, const float *twr,
                        const float *twi, int avx)
{
    unsigned left = log2m - done;
    size_t h = (size_t)1 << done;
    if (left & 1u) {
        level_single(re, im, m, h, twr, twi);
        h *= 2;
        left--;
    }
    for (; left; left -= 2, h *= 4) {
#ifdef CPU_AVX_DISPATCH
        if (avx && h >= 8) {
            level_pair_avx(re, im, m, h, twr, twi);
            continue;
        }
#endif
        level_pair(re, im, m, h, twr, twi);
    }
    (void)avx;
}

/* The 4-point step after the gather: levels h = 1 (twiddle 1) and h = 2 (twiddles 1 and
 * -i forward, +i inverse: sgn = +1 / -1), for points x0..x3 already in bit-reversed
 * order. */
#define RADIX2X2(x0r, x0i, x1r, x1i, x2r, x2i, x3r, x3i, sgn, dr, di, k)                  \
    do {                                                                                  \
        float y0r = x0r + x1r, y0i = x0i + x1i, y1r = x0r - x1r, y1i = x0i - x1i;         \
        float y2r = x2r + x3r, y2i = x2i + x3i, y3r = x2r - x3r, y3i = x2i - x3i;         \
        float tr = (sgn) * y3i, ti = -(sgn) * y3r;                                        \
        dr[k] = y0r + y2r;                                                                \
        di[k] = y0i + y2i;                                                                \
        dr[k + 2] = y0r - y2r;                                                            \
        di[k + 2] = y0i - y2i;                                                            \
        dr[k + 1] = y1r + tr;                                                             \
        di[k + 1] = y1i + ti;                                                             \
        dr[k + 3] = y1r - tr;                                                             \
        di[k + 3] = y1i - ti;                                                             \
    } while (0)

#ifdef __SSE2__
/* RADIX2X2 on four groups' points xr[t] + i xi[t] (a group a lane), each group's four
 * results put in a row (a 4x4 transpose), then level h = 4 between groups 0 and 1, 2 and 3
 * (level_single's operations, twiddles tw4r/tw4i: w_4[0..3]), stored at dr, di. */
static inline void r2x2_store(const __m128 *xr, const __m128 *xi, float sgn, const float *tw4r,
                              const float *tw4i, float *dr, float *di)
{
    const __m128 sg = _mm_set1_ps(sgn), nsg = _mm_set1_ps(-sgn);
    __m128 y0r = _mm_add_ps(xr[0], xr[1]), y0i = _mm_add_ps(xi[0], xi[1]);
    __m128 y1r = _mm_sub_ps(xr[0], xr[1]), y1i = _mm_sub_ps(xi[0], xi[1]);
    __m128 y2r = _mm_add_ps(xr[2], xr[3]), y2i = _mm_add_ps(xi[2], xi[3]);
    __m128 y3r = _mm_sub_ps(xr[2], xr[3]), y3i = _mm_sub_ps(xi[2], xi[3]);
    __m128 tr = _mm_mul_ps(sg, y3i), ti = _mm_mul_ps(nsg, y3r);
    __m128 a0 = _mm_add_ps(y0r, y2r), a1 = _mm_add_ps(y1r, tr);
    __m128 a2 = _mm_sub_ps(y0r, y2r), a3 = _mm_sub_ps(y1r, tr);
    __m128 b0 = _mm_add_ps(y0i, y2i), b1 = _mm_add_ps(y1i, ti);
    __m128 b2 = _mm_sub_ps(y0i, y2i), b3 = _mm_sub_ps(y1i, ti);
    _MM_TRANSPOSE4_PS(a0, a1, a2, a3);
    _MM_TRANSPOSE4_PS(b0, b1, b2, b3);
    const __m128 c = _mm_loadu_ps(tw4r), s = _mm_loadu_ps(tw4i);
    tr = _mm_sub_ps(_mm_mul_ps(a1, c), _mm_mul_ps(b1, s));
    ti = _mm_add_ps(_mm_mul_ps(a1, s), _mm_mul_ps(b1, c));
    a1 = _mm_sub_ps(a0, tr);
    b1 = _mm_sub_ps(b0, ti);
    a0 = _mm_add_ps(a0, tr);
    b0 = _mm_add_ps(b0, ti);
    tr = _mm_sub_ps(_mm_mul_ps(a3, c), _mm_mul_ps(b3, s));
    ti = _mm_add_ps(_mm_mul_ps(a3, s), _mm_mul_ps(b3, c));
    a3 = _mm_sub_ps(a2, tr);
    b3 = _mm_sub_ps(b2, ti);
    a2 = _mm_add_ps(a2, tr);
    b2 = _mm_add_ps(b2, ti);
    _mm_storeu_ps(dr, a0);
    _mm_storeu_ps(dr + 4, a1);
    _mm_storeu_ps(dr + 8, a2);
    _mm_storeu_ps(dr + 12, a3);
    _mm_storeu_ps(di, b0);
    _mm_storeu_ps(di + 4, b1);
    _mm_storeu_ps(di + 8, b2);
    _mm_storeu_ps(di + 12, b3);
}

/* The gather + radix-2x2 step (+ level 4) eight groups at a time, on interleaved (re, im)
 * pairs x (times w's when w is not NULL; points 1..3 of a group m, m/2, 3m/2 floats on):
 * groups q .. q+3 and their partners q + m/8 .. (q < m/8, m >= 32). 4q + m/2 reverses to
 * rev4[q] + 1: one 128-bit load takes a point of a group and of its partner, and a 4x4
 * transpose of four groups' loads gives the vectors of both. Same operations as RADIX2X2
 * and level_single, so the same results. */
static void gather_sse_paired(const float *restrict x, const float *restrict w, float *restrict re,
                              float *restrict im, size_t m, const uint32_t *restrict rev4, float sgn,
                              const float *twr, const float *twi)
{
    const size_t off[4] = {0, m, m / 2, 3 * (m / 2)}, half = m / 8;
    for (size_t q = 0; q + 4 <= half; q += 4) {
        const size_t r0 = 2 * (size_t)rev4[q], r1 = 2 * (size_t)rev4[q + 1];
        const size_t r2 = 2 * (size_t)rev4[q + 2], r3 = 2 * (size_t)rev4[q + 3];
        __m128 xr[4], xi[4], yr[4], yi[4];
        for (int t = 0; t < 4; t++) {
            const size_t o = off[t];
            __m128 a0 = _mm_loadu_ps(x + r0 + o), a1 = _mm_loadu_ps(x + r1 + o);
            __m128 a2 = _mm_loadu_ps(x + r2 + o), a3 = _mm_loadu_ps(x + r3 + o);
            if (w) {
                a0 = _mm_mul_ps(a0, _mm_loadu_ps(w + r0 + o));
                a1 = _mm_mul_ps(a1, _mm_loadu_ps(w + r1 + o));
                a2 = _mm_mul_ps(a2, _mm_loadu_ps(w + r2 + o));
                a3 = _mm_mul_ps(a3, _mm_loadu_ps(w + r3 + o));
            }
            _MM_TRANSPOSE4_PS(a0, a1, a2, a3);
            xr[t] = a0;
            xi[t] = a1;
            yr[t] = a2;
            yi[t] = a3;
        }
        r2x2_store(xr, xi, sgn, twr + 4, twi + 4, re + 4 * q, im + 4 * q);
        r2x2_store(yr, yi, sgn, twr + 4, twi + 4, re + 4 * (q + half), im + 4 * (q + half));
    }
}

/* gather_sse_paired (levels 1-3) for m >= 32: 1, else 0 (the scalar loops do levels 1-2) */
static int gather_sse(const float *restrict x, const float *restrict w, float *restrict re, float *restrict im,
                      size_t m, const uint32_t *restrict rev4, float sgn, const float *twr, const float *twi)
{
    if (m < 32)
        return 0;
    gather_sse_paired(x, w, re, im, m, rev4, sgn, twr, twi);
    return 1;
}
#endif

/* Gather interleaved complex x in bit-reversed order into re/im and do levels 1-2 (and 3
 * with SSE2 from 32 points): the levels done. rev4[q] = bitrev(4q); bitrev(4q + 1, 2, 3) =
 * rev4[q] + m/2, + m/4, + 3m/4. */
static unsigned gather_complex(const cpx *restrict x, float *restrict re, float *restrict im, size_t m,
                               const uint32_t *restrict rev4, float sgn, const float *twr, const float *twi)
{
    const size_t o1 = m / 2, o2 = m / 4, o3 = 3 * (m / 4);
#ifdef __SSE2__
    if (gather_sse(&x[0].re, NULL, re, im, m, rev4, sgn, twr, twi))
        return 3;
#else
    (void)twr;
    (void)twi;
#endif
    for (size_t q = 0; q < m / 4; q++) {
        const cpx *p = x + rev4[q];
        RADIX2X2(p[0].re, p[0].im, p[o1].re, p[o1].im, p[o2].re, p[o2].im, p[o3].re, p[o3].im,
                 sgn, re, im, 4 * q);
    }
    return 2;
}

/* The same for real samples packed as z[i] = x[2i] + i x[2i+1], times the window when
 * w is not NULL (the frame is never copied). */
static unsigned gather_real(const float *restrict x, const float *restrict w, float *restrict re,
                            float *restrict im, size_t m, const uint32_t *restrict rev4, const float *twr,
                            const float *twi)
{
    const size_t o1 = m, o2 = m / 2, o3 = 3 * (m / 2); /* offsets in floats */
    size_t q = 0;
#ifdef __SSE2__
    if (gather_sse(x, w, re, im, m, rev4, 1.0f, twr, twi))
        return 3;
#else
    (void)twr;
    (void)twi;
#endif
    if (w) {
        for (; q < m / 4; q++) {
            size_t r = 2 * (size_t)rev4[q];
            const float *p = x + r, *v = w + r;
            RADIX2X2(p[0] * v[0], p[1] * v[1], p[o1] * v[o1], p[o1 + 1] * v[o1 + 1],
                     p[o2] * v[o2], p[o2 + 1] * v[o2 + 1], p[o3] * v[o3], p[o3 + 1] * v[o3 + 1],
                     1.0f, re, im, 4 * q);
        }
    } else {
        for (; q < m / 4; q++) {
            const float *p = x + 2 * (size_t)rev4[q];
            RADIX2X2(p[0], p[1], p[o1], p[o1 + 1], p[o2], p[o2 + 1], p[o3], p[o3 + 1], 1.0f, re,
                     im, 4 * q);
        }
    }
    return 2;
}

/* ---- real-input post-processing ------------------------------------------------------ */

/* Z = FFT_m(z), m = n/2. For 0 < k <= m/2 and j = m - k:
 *   Fe = (Z_k + conj Z_j)/2,  Fo = (Z_k - conj Z_j)/(2i),  W = e^{-2 pi i k/n}
 *   X_k = Fe + W Fo,  X_j = conj(Fe - W Fo),  X_0 = Re Z_0 + Im Z_0,  X_m = Re Z_0 - Im Z_0 */
#define REAL_SPLIT(re, im, rtwr, rtwi, k, j, xkr, xki, xjr, xji)                          \
    float zkr = re[k], zki = im[k], zjr = re[j], zji = im[j];                             \
    float fer = 0.5f * (zkr + zjr), fei = 0.5f * (zki - zji);                             \
    float for_ = 0.5f * (zki + zji), foi = -0.5f * (zkr - zjr);                           \
    float wr = rtwr[k], wi = rtwi[k];                                                     \
    float tr = wr * for_ - wi * foi, ti = wr * foi + wi * for_;                           \
    float xkr = fer + tr, xki = fei + ti, xjr = fer - tr, xji = ti - fei

static void real_post(const float *restrict re, const float *restrict im, size_t m,
                      const float *restrict rtwr, const float *restrict rtwi, cpx *restrict out)
{
    out[0].re = re[0] + im[0];
    out[0].im = 0.0f;
    out[m].re = re[0] - im[0];
    out[m].im = 0.0f;
    for (size_t k = 1; k <= m / 2; k++) {
        size_t j = m - k;
        REAL_SPLIT(re, im, rtwr, rtwi, k, j, xkr, xki, xjr, xji);
        out[k].re = xkr;
        out[k].im = xki;
        out[j].re = xjr;
        out[j].im = xji;
    }
}

/* dB from power p = a^2: 10 log10(p) = 20 log10(a), with fft_amp_to_db's floor (a <= 1e-10,
 * i.e. p <= 1e-20, and NaN read FFT_DB_FLOOR). The vector path replaces glibc's log10f
 * (two thirds of stft_db's time otherwise) by the Cephes logf polynomial (about 1 ulp):
 * it agrees with fft_amp_to_db within 1e-4 dB for every a up to 1e19, reads exactly 0 dB
 * for a = 1, and +inf for p = +inf or NaN: the mark of a frame whose FFT or power
 * overflowed, which stft_range then does again scaled down (frame_big); ACC (VI) gathers
 * the marks, one OR a vector. V holds W floats, VI as many int32. */
#define POWER_DB_BODY(V, VI, W, LD, ST, ACC)                                              \
    for (; k + (W) <= count; k += (W)) {                                                  \
        V p = LD(v + k);                                                                  \
        VI bits = (VI)p;                                                                  \
        VI e = ((bits >> 23) & 0xff) - 127;                                               \
        V mt = (V)((bits & 0x007fffff) | 0x3f800000); /* mantissa in [1, 2) */            \
        VI big = mt > 1.41421356f;                   /* -1 where mt > sqrt 2 */           \
        mt = (V)(((VI)(mt * 0.5f) & big) | ((VI)mt & ~big)); /* in (sqrt 1/2, sqrt 2] */  \
        e -= big;                                                                         \
        V ef = __builtin_convertvector(e, V);                                             \
        V x = mt - 1.0f, z = x * x;                                                       \
        V y = 7.0376836292e-2f * x - 1.1514610310e-1f;                                    \
        y = y * x + 1.1676998740e-1f;                                                     \
        y = y * x - 1.2420140846e-1f;                                                     \
        y = y * x + 1.4249322787e-1f;                                                     \
        y = y * x - 1.6668057665e-1f;                                                     \
        y = y * x + 2.0000714765e-1f;                                                     \
        y = y * x - 2.4999993993e-1f;                                                     \
        y = y * x + 3.3333331174e-1f;                                                     \
        y = y * x * z;                                                                    \
        y = y - 2.12194440e-4f * ef; /* ln 2 = 0.693359375 - 2.12194440e-4, split */      \
        y = y - 0.5f * z;                                                                 \
        V ln = x + y + 0.693359375f * ef;                                                 \
        V d = 4.34294481903251828f * ln; /* 10 / ln 10 */                                 \
        VI ok = p > 1e-20f;              /* false for NaN */                              \
        VI inf = ~(p <= 3.40282347e38f); /* inf, or NaN from an overflowed FFT */        \
        V lo = (V){0} + FFT_DB_FLOOR, hi = (V){0} + INFINITY;                             \
        d = (V)(((VI)d & ok) | ((VI)lo & ~ok));                                           \
        d = (V)(((VI)hi & inf) | ((VI)d & ~inf));                                         \
        ACC |= inf;                                                                       \
        ST(v + k, d);                                                                     \
    }

/* Z = FFT_m(z) in re/im -> power |X_k|^2 scale_k^2 in db[], the real-input split (see
 * REAL_SPLIT) W bins from each end at a time: k = k0 .. k0+W-1 and j = m-k, loaded as the
 * ascending block ending at m-k0 and reversed (REV). Every bin gets the scalar loop's
 * operations, so all widths give the same bits; where the two ends meet (k = j = m/2)
 * the j value is stored last, as in the scalar loop. */
#define REAL_POST_DB_BODY(V, W, LD, ST, REV)                                              \
    for (; k + (W) - 1 <= m / 2; k += (W)) {                                              \
        size_t jb = m - k - ((W) - 1);                                                    \
        V zkr = LD(re + k), zki = LD(im + k);                                             \
        V zjr = REV(LD(re + jb)), zji = REV(LD(im + jb));                                 \
        V fer = 0.5f * (zkr + zjr), fei = 0.5f * (zki - zji);                             \
        V for_ = 0.5f * (zki + zji), foi = -0.5f * (zkr - zjr);                           \
        V wr = LD(rtwr + k), wi = LD(rtwi + k);                                           \
        V tr = wr * for_ - wi * foi, ti = wr * foi + wi * for_;                           \
        V xkr = fer + tr, xki = fei + ti, xjr = fer - tr, xji = ti - fei;                 \
        ST(db + k, (xkr * xkr + xki * xki) * LD(scale2 + k));                             \
        ST(db + jb, REV(xjr * xjr + xji * xji) * LD(scale2 + jb));                        \
    }

#ifdef CPU_VECTOR_DB
static inline vf vrev(vf v)
{
#ifdef __clang__
    return __builtin_shufflevector(v, v, 3, 2, 1, 0);
#else
    return __builtin_shuffle(v, (vi){3, 2, 1, 0}); /* GCC < 12 has no __builtin_shufflevector */
#endif
}
#endif

/* Returns 1 when a power overflowed (a level marked +inf). */
static int power_to_db(float *restrict v, size_t count)
{
    size_t k = 0;
    int any = 0;
#ifdef CPU_VECTOR_DB
    vi acc = {0};
    POWER_DB_BODY(vf, vi, VW, vld, vst, acc)
    for (int i = 0; i < VW; i++)
        any |= acc[i] != 0;
#endif
    for (; k < count; k++) {
        int big = !(v[k] <= FLT_MAX);
        v[k] = big ? INFINITY : fft_amp_to_db(sqrtf(v[k]));
        any |= big;
    }
    return any;
}

/* Levels of one frame: the real-input split of real_post, then |X_k|^2 scale_k^2 in db[]
 * (a unit-stride array the dB conversion can vectorise over). Bins 1 .. k-1 and their
 * mirrors are done by the caller's vector loop; this finishes the rest. */
static void real_post_db_tail(const float *restrict re, const float *restrict im, size_t m,
                              const float *restrict rtwr, const float *restrict rtwi,
                              const float *restrict scale2, float *restrict db, size_t k)
{
    float a0 = re[0] + im[0], am = re[0] - im[0];
    db[0] = a0 * a0 * scale2[0];
    db[m] = am * am * scale2[m];
    for (; k <= m / 2; k++) {
        size_t j = m - k;
        REAL_SPLIT(re, im, rtwr, rtwi, k, j, xkr, xki, xjr, xji);
        db[k] = (xkr * xkr + xki * xki) * scale2[k];
        db[j] = (xjr * xjr + xji * xji) * scale2[j];
    }
}

/* Returns 1 when the frame overflowed (see power_to_db). */
static int real_post_db(const float *restrict re, const float *restrict im, size_t m,
                        const float *restrict rtwr, const float *restrict rtwi,
                        const float *restrict scale2, float *restrict db)
{
    size_t k = 1;
#ifdef CPU_VECTOR_DB
    REAL_POST_DB_BODY(vf, VW, vld, vst, vrev)
#endif
    real_post_db_tail(re, im, m, rtwr, rtwi, scale2, db, k);
    return power_to_db(db, m + 1);
}

#ifdef CPU_AVX_DISPATCH
/* The same 8 wide (AVX2 for the 256-bit integer operations; still no FMA: same bits). */
typedef int32_t vi8 __attribute__((vector_size(32)));
#define AVX2_FN __attribute__((target("avx2")))
AVX2_FN static inline vf8 vrev8(vf8 v)
{
    return __builtin_shuffle(v, (vi8){7, 6, 5, 4, 3, 2, 1, 0});
}
/* REAL_POST_DB_BODY's bins (the bin it stopped at) and POWER_DB_BODY 8 wide */
AVX2_FN static size_t real_post_power_avx2(const float *restrict re, const float *restrict im, size_t m,
                                           const float *restrict rtwr, const float *restrict rtwi,
                                           const float *restrict scale2, float *restrict db)
{
    size_t k = 1;
    REAL_POST_DB_BODY(vf8, 8, vld8, vst8, vrev8)
    return k;
}

AVX2_FN static int power_to_db_avx2(float *restrict v, size_t count)
{
    size_t k = 0;
    vi8 acc = {0};
    int any = 0;
    POWER_DB_BODY(vf8, vi8, 8, vld8, vst8, acc)
    for (int i = 0; i < 8; i++)
        any |= acc[i] != 0;
    return any | power_to_db(v + k, count - k);
}

static int real_post_db_avx2(const float *restrict re, const float *restrict im, size_t m,
                             const float *restrict rtwr, const float *restrict rtwi,
                             const float *restrict scale2, float *restrict db)
{
    size_t k = real_post_power_avx2(re, im, m, rtwr, rtwi, scale2, db);
    real_post_db_tail(re, im, m, rtwr, rtwi, scale2, db, k);
    return power_to_db_avx2(db, m + 1);
}
#endif

/* ---- the peak search of one dB row (stft_reduce) -------------------------------------- */

/* The first strongest bin of v[k0 .. k1] (at least W bins), as fft_peak_scan finds it:
 * each lane keeps the first maximum of its own bins (`>`), then the lanes' winners
 * compete with ties going to the lower bin, then the bins after the last whole vector
 * follow with `>` (they are above every bin before). The same bin as the scalar scan for
 * every row without NaN, which dB rows never hold. One pass, in cache right after the row
 * was written. IOTA is {0, 1, .., W-1}. */
#define ARGMAX_BODY(V, VI, W, LD, IOTA)                                                     \
    size_t k = k0;                                                                        \
    V best = LD(v + k);                                                                   \
    VI idx = (VI)IOTA + (int32_t)k, bidx = idx;                                           \
    for (k += (W); k + (W) <= k1 + 1; k += (W)) {                                         \
        V x = LD(v + k);                                                                  \
        VI gt = x > best;                                                                 \
        idx += (W);                                                                       \
        best = (V)(((VI)x & gt) | ((VI)best & ~gt));                                      \
        bidx = (idx & gt) | (bidx & ~gt);                                                 \
    }                                                                                     \
    size_t b = (size_t)bidx[0];                                                           \
    float bv = best[0];                                                                   \
    for (int l = 1; l < (W); l++)                                                         \
        if (best[l] > bv || (best[l] == bv && (size_t)bidx[l] < b)) {                     \
            bv = best[l];                                                                 \
            b = (size_t)bidx[l];                                                          \
        }                                                                                 \
    for (; k <= k1; k++)                                                                  \
        if (v[k] > bv) {                                                                  \
            bv = v[k];                                                                    \
            b = k;                                                                        \
        }                                                                                 \
    return b;

static size_t argmax_row(const float *restrict v, size_t k0, size_t k1)
{
#ifdef CPU_VECTOR_DB
    if (k1 - k0 + 1 >= VW) {
        ARGMAX_BODY(vf, vi, VW, vld, ((vi){0, 1, 2, 3}))
    }
#endif
    return (size_t)fft_peak_scan(v, k0, k1).bin;
}

#ifdef CPU_AVX_DISPATCH
AVX2_FN static size_t argmax_row_avx2(const float *restrict v, size_t k0, size_t k1)
{
    if (k1 - k0 + 1 >= 8) {
        ARGMAX_BODY(vf8, vi8, 8, vld8, ((vi8){0, 1, 2, 3, 4, 5, 6, 7}))
    }
    return (size_t)fft_peak_scan(v, k0, k1).bin;
}
#endif

/* The records of every range of req for one frame's row. */
static void reduce_row(const cpu_state *st, const float *row, const fft_peak_req *req, fft_peak_raw *out)
{
    (void)st; /* only the AVX2 dispatch reads it */
    for (size_t r = 0; r < req->nranges; r++) {
        size_t b;
#ifdef CPU_AVX_DISPATCH
        if (st->avx2)
            b = argmax_row_avx2(row, req->kmin[r], req->kmax[r]);
        else
#endif
            b = argmax_row(row, req->kmin[r], req->kmax[r]);
        out[r].bin = (uint32_t)b;
        out[r].l = row[b - 1];
        out[r].c = row[b];
        out[r].r = row[b + 1];
    }
}

/* ---- frames of the host's transforms (src/xform: fft_r2c_split, fft_r2c_power) --------- */

/* REAL_POST_DB_BODY's split kept complex: X_k into xr/xi, W bins from each end at a time,
 * the j value stored last where the ends meet, as in real_post. */
#define REAL_POST_SPLIT_BODY(V, W, LD, ST, REV)                                           \
    for (; k + (W) - 1 <= m / 2; k += (W)) {                                              \
        size_t jb = m - k - ((W) - 1);                                                    \
        V zkr = LD(re + k), zki = LD(im + k);                                             \
        V zjr = REV(LD(re + jb)), zji = REV(LD(im + jb));                                 \
        V fer = 0.5f * (zkr + zjr), fei = 0.5f * (zki - zji);                             \
        V for_ = 0.5f * (zki + zji), foi = -0.5f * (zkr - zjr);                           \
        V wr = LD(rtwr + k), wi = LD(rtwi + k);                                           \
        V tr = wr * for_ - wi * foi, ti = wr * foi + wi * for_;                           \
        ST(xr + k, fer + tr);                                                             \
        ST(xi + k, fei + ti);                                                             \
        ST(xr + jb, REV(fer - tr));                                                       \
        ST(xi + jb, REV(ti - fei));                                                       \
    }

static void real_post_split(const float *restrict re, const float *restrict im, size_t m,
                            const float *restrict rtwr, const float *restrict rtwi, float *restrict xr,
                            float *restrict xi, size_t k)
{
#ifdef CPU_VECTOR_DB
    REAL_POST_SPLIT_BODY(vf, VW, vld, vst, vrev)
#endif
    xr[0] = re[0] + im[0];
    xi[0] = 0.0f;
    xr[m] = re[0] - im[0];
    xi[m] = 0.0f;
    for (; k <= m / 2; k++) {
        size_t j = m - k;
        REAL_SPLIT(re, im, rtwr, rtwi, k, j, xkr, xki, xjr, xji);
        xr[k] = xkr;
        xi[k] = xki;
        xr[j] = xjr;
        xi[j] = xji;
    }
}

#ifdef CPU_AVX_DISPATCH
AVX2_FN static size_t real_post_split_avx2(const float *restrict re, const float *restrict im, size_t m,
                                           const float *restrict rtwr, const float *restrict rtwi,
                                           float *restrict xr, float *restrict xi)
{
    size_t k = 1;
    REAL_POST_SPLIT_BODY(vf8, 8, vld8, vst8, vrev8)
    return k;
}
#endif

void fft_cpu_frame(void *state, const float *x, const float *w, const float *scale2, float *xr, float *xi)
{
    cpu_state *st = state;
    const size_t m = st->half;
    size_t k = 1;
    levels_rest(st->re, st->im, m, st->log2n - 1, gather_real(x, w, st->re, st->im, m, st->rev4_half, st->twr, st->twi),
                st->twr, st->twi, st->avx);
    if (scale2) { /* the power: real_post_db's, without the dB */
        const float *restrict re = st->re, *restrict im = st->im, *restrict rtwr = st->rtwr,
                              *restrict rtwi = st->rtwi;
        float *restrict db = xr;
#ifdef CPU_AVX_DISPATCH
        if (st->avx2)
            k = real_post_power_avx2(re, im, m, rtwr, rtwi, scale2, db);
#endif
#ifdef CPU_VECTOR_DB
        REAL_POST_DB_BODY(vf, VW, vld, vst, vrev)
#endif
        real_post_db_tail(re, im, m, rtwr, rtwi, scale2, db, k);
        return;
    }
#ifdef CPU_AVX_DISPATCH
    if (st->avx2)
        k = real_post_split_avx2(st->re, st->im, m, st->rtwr, st->rtwi, xr, xi);
#endif
    real_post_split(st->re, st->im, m, st->rtwr, st->rtwi, xr, xi, k);
}

void fft_cpu_power_db(void *state, float *v, size_t count)
{
    const cpu_state *st = state;
#ifdef CPU_AVX_DISPATCH
    if (st->avx2) {
        power_to_db_avx2(v, count);
        return;
    }
#endif
    (void)st;
    power_to_db(v, count);
}

/* ---- huge samples ----------------------------------------------------------------------
 * Finite samples near the top of float (1e30, 3e38) overflow |X|^2, or X itself (inf - inf
 * = NaN in a butterfly); the dB conversion marks such bins +inf. The frame is then done
 * again with the window times 2^-BIG_SHIFT (exact: a power of two), which keeps X and
 * |X|^2 finite for any finite input up to N = 2^24, and the shift is added back in dB.
 * Samples that 2^-BIG_SHIFT pushes below float's range lie more than 600 dB under the
 * frame's largest: float's own round-off buries them anyway. */
#define BIG_SHIFT 100
#define BIG_DB 602.05999132796239 /* 20 log10(2^100) */

static void frame_big(const cpu_state *st, float *re, float *im, const float *x, float *db)
{
    const size_t m = st->half;
    levels_rest(re, im, m, st->log2n - 1, gather_real(x, st->win_small, re, im, m, st->rev4_half, st->twr, st->twi),
                st->twr, st->twi, st->avx);
    real_post_db_tail(re, im, m, st->rtwr, st->rtwi, st->scale2, db, 1);
    for (size_t k = 0; k <= m; k++) {
        /* !(p > 0) also catches NaN, from a NaN sample: the floor, as on the fast path */
        double level = db[k] > 0.0f ? 10.0 * log10((double)db[k]) + BIG_DB : FFT_DB_FLOOR;
        db[k] = level > FFT_DB_FLOOR ? (float)level : FFT_DB_FLOOR;
    }
}

/* ---- one frame range of stft_db / stft_reduce (caller or worker) ---------------------- */

void fft_cpu_range(const cpu_state *st, float *re, float *im, float *scratch, const cpu_job *j, size_t f0,
                    size_t f1)
{
    const size_t bins = st->half + 1;
    for (size_t f = f0; f < f1; f++) {
        float *row = j->db ? j->db + f * bins : scratch;
        const float *x = j->signal + f * st->hop;
        int big;
        unsigned done = gather_real(x, st->win, re, im, st->half, st->rev4_half, st->twr, st->twi);
        levels_rest(re, im, st->half, st->log2n - 1, done, st->twr, st->twi, st->avx);
#ifdef CPU_AVX_DISPATCH
        if (st->avx2)
            big = real_post_db_avx2(re, im, st->half, st->rtwr, st->rtwi, st->scale2, row);
        else
#endif
            big = real_post_db(re, im, st->half, st->rtwr, st->rtwi, st->scale2, row);
        if (big)
            frame_big(st, re, im, x, row);
        if (j->req)
            reduce_row(st, row, j->req, j->peaks + f * j->req->nranges);
    }
}

/* ---- the backend table --------------------------------------------------------------- */

static int cpu_probe(sp_errinfo *ei)
{
    (void)ei;
    return SP_OK;
}

static void cpu_destroy(void *state)
{
    cpu_state *st = state;
    if (!st)
        return;
    fft_cpu_pool_stop(st);
    free(st->twr);
    free(st->twi);
    free(st->twi_inv);
    free(st->rtwr);
    free(st->rtwi);
    free(st->rev4_full);
    free(st->rev4_half);
    free(st->win);
    free(st->win_small);
    free(st->scale2);
    free(st->re);
    free(st->im);
    free(st->row);
    free(st);
}

/* The plan's tables: twiddles of every level (slot h+j of level h), the real-input
 * untangle's, the bit reversals of the radix-4 first pass, the window and the squared
 * level scales. */
static int cpu_tables(cpu_state *st, const float *window, double window_sum, sp_errinfo *ei)
{
    const size_t n = st->n, half = st->half;
    st->twr = cpu_alloc(n, sizeof(float));
    st->twi = cpu_alloc(n, sizeof(float));
    st->twi_inv = cpu_alloc(n, sizeof(float));
    st->rtwr = cpu_alloc(n / 4 + 1, sizeof(float));
    st->rtwi = cpu_alloc(n / 4 + 1, sizeof(float));
    st->rev4_full = cpu_alloc(n / 4, sizeof(uint32_t));
    st->rev4_half = cpu_alloc(n / 8, sizeof(uint32_t));
    st->win = cpu_alloc(n, sizeof(float));
    st->win_small = cpu_alloc(n, sizeof(float));
    st->scale2 = cpu_alloc(half + 1, sizeof(float));
    st->re = cpu_alloc(n, sizeof(float));
    st->im = cpu_alloc(n, sizeof(float));
    st->row = cpu_alloc(half + 1, sizeof(float));
    if (!st->twr || !st->twi || !st->twi_inv || !st->rtwr || !st->rtwi || !st->rev4_full ||
        !st->rev4_half || !st->win || !st->win_small || !st->scale2 || !st->re || !st->im || !st->row)
        return sp_fail(ei, SP_ENOMEM, "out of memory for a CPU FFT plan of size %zu", n);

    st->twr[0] = 1.0f; /* slot 0 is never read; keep it defined */
    st->twi[0] = st->twi_inv[0] = 0.0f;
    for (size_t h = 1; h < n; h *= 2) {
        for (size_t j = 0; j < h; j++) {
            double a = CPU_PI * (double)j / (double)h;
            st->twr[h + j] = (float)cos(a);
            st->twi[h + j] = (float)-sin(a);
            st->twi_inv[h + j] = (float)sin(a);
        }
    }
    for (size_t k = 0; k <= n / 4; k++) {
        double a = 2.0 * CPU_PI * (double)k / (double)n;
        st->rtwr[k] = (float)cos(a);
        st->rtwi[k] = (float)-sin(a);
    }
    for (size_t q = 0; q < n / 4; q++)
        st->rev4_full[q] = bit_reverse((uint32_t)(4 * q), st->log2n);
    for (size_t q = 0; q < n / 8; q++)
        st->rev4_half[q] = bit_reverse((uint32_t)(4 * q), st->log2n - 1);
    memcpy(st->win, window, n * sizeof(float));
    for (size_t i = 0; i < n; i++)
        st->win_small[i] = ldexpf(window[i], -BIG_SHIFT);
    for (size_t k = 0; k <= half; k++) {
        double sc = fft_level_scale(n, k, window_sum);
        st->scale2[k] = (float)(sc * sc);
    }
    return SP_OK;
}

static int cpu_create(const fft_config *cfg, const float *window, double window_sum, void **state,
                      sp_errinfo *ei)
{
    cpu_state *st = NULL;
    int err;

    if (!cfg || !window || !state)
        return sp_fail(ei, SP_EINVAL, "cpu FFT: NULL argument");
    *state = NULL;
    if (!fft_size_valid(cfg->n))
        return sp_fail(ei, SP_EINVAL, SP_FIELD("fft_size") " %zu: must be a power of two from %u to %u", cfg->n,
                       FFT_MIN_SIZE, FFT_MAX_SIZE);
    if (cfg->hop < 1 || cfg->max_batch < 1)
        return sp_fail(ei, SP_EINVAL, "cpu FFT: hop and max_batch must be at least 1");
    if (!(window_sum > 0.0) || !isfinite(window_sum))
        return sp_fail(ei, SP_EINVAL, "window: its sum (%g) must be positive and finite", window_sum);

    st = calloc(1, sizeof *st);
    if (!st)
        return sp_fail(ei, SP_ENOMEM, "out of memory for a CPU FFT plan of size %zu", cfg->n);
    st->n = cfg->n;
    st->half = cfg->n / 2;
    st->hop = cfg->hop;
    st->log2n = ilog2(cfg->n);
#ifdef CPU_AVX_DISPATCH
    {
        /* the tests cover both paths */
        int sse2_only = cfg->tuning.cpu_simd == FFT_CPU_SIMD_SSE2;
        __builtin_cpu_init();
        st->avx = __builtin_cpu_supports("avx") && !sse2_only;
        st->avx2 = __builtin_cpu_supports("avx2") && !sse2_only;
    }
#endif
    if ((err = fft_cpu_thread_count(cfg, &st->nthreads, ei)) != SP_OK ||
        (err = cpu_tables(st, window, window_sum, ei)) != SP_OK ||
        (st->nthreads > 1 && (err = fft_cpu_pool_start(st, ei)) != SP_OK))
        goto fail;
    *state = st;
    return SP_OK;

fail:
    cpu_destroy(st);
    return err;
}

/* Split re/im back to interleaved complex, times s. */
static void interleave(const float *restrict re, const float *restrict im, cpx *restrict out,
                       size_t n, float s)
{
    size_t k = 0;
#ifdef __SSE2__
    float *o = &out[0].re;
    const __m128 sv = _mm_set1_ps(s);
    for (; k + 4 <= n; k += 4) {
        __m128 r = _mm_mul_ps(_mm_loadu_ps(re + k), sv), i = _mm_mul_ps(_mm_loadu_ps(im + k), sv);
        _mm_storeu_ps(o + 2 * k, _mm_unpacklo_ps(r, i));
        _mm_storeu_ps(o + 2 * k + 4, _mm_unpackhi_ps(r, i));
    }
#endif
    for (; k < n; k++) {
        out[k].re = re[k] * s;
        out[k].im = im[k] * s;
    }
}

static int cpu_c2c(void *state, const cpx *in, cpx *out, size_t batch, int inverse, sp_errinfo *ei)
{
    cpu_state *st = state;
    if (!st || !in || !out)
        return sp_fail(ei, SP_EINVAL, "cpu FFT c2c: NULL argument");

    const size_t n = st->n;
    const float *twi = inverse ? st->twi_inv : st->twi;
    const float sgn = inverse ? -1.0f : 1.0f;
    const float s = inverse ? (float)(1.0 / (double)n) : 1.0f;
    float *restrict re = st->re, *restrict im = st->im;
    for (size_t b = 0; b < batch; b++) {
        unsigned done = gather_complex(in + b * n, re, im, n, st->rev4_full, sgn, st->twr, twi);
        levels_rest(re, im, n, st->log2n, done, st->twr, twi, st->avx);
        interleave(re, im, out + b * n, n, s);
    }
    return SP_OK;
}

static int cpu_r2c(void *state, const float *in, cpx *out, size_t batch, sp_errinfo *ei)
{
    cpu_state *st = state;
    if (!st || !in || !out)
        return sp_fail(ei, SP_EINVAL, "cpu FFT r2c: NULL argument");

    const size_t n = st->n, m = st->half;
    for (size_t b = 0; b < batch; b++) {
        unsigned done = gather_real(in + b * n, NULL, st->re, st->im, m, st->rev4_half, st->twr, st->twi);
        levels_rest(st->re, st->im, m, st->log2n - 1, done, st->twr, st->twi, st->avx);
        real_post(st->re, st->im, m, st->rtwr, st->rtwi, out + b * (m + 1));
    }
    return SP_OK;
}

static int cpu_stft_db(void *state, const float *signal, size_t nframes, float *db, sp_errinfo *ei)
{
    cpu_state *st = state;
    cpu_job j = {signal, db, NULL, NULL};
    if (!st || !signal || !db)
        return sp_fail(ei, SP_EINVAL, "cpu FFT stft: NULL argument");
    if (nframes > 0)
        fft_cpu_pool_run(st, &j, nframes);
    return SP_OK;
}

/* The peak search runs on each frame's row right after the row is made, on the thread
 * that made it (the row is still in its cache); without db the row is that thread's
 * scratch, and no spectrum is ever written out. */
static int cpu_stft_reduce(void *state, const float *signal, size_t nframes, float *db, const fft_peak_req *req,
                           fft_peak_raw *peaks, sp_errinfo *ei)
{
    cpu_state *st = state;
    cpu_job j = {signal, db, req, peaks};
    if (!st || !signal || !req || !peaks)
        return sp_fail(ei, SP_EINVAL, "cpu FFT stft_reduce: NULL argument");
    if (nframes > 0)
        fft_cpu_pool_run(st, &j, nframes);
    return SP_OK;
}

const fft_backend fft_backend_cpu = {
    .name = "cpu",
    .probe = cpu_probe,
    .create = cpu_create,
    .destroy = cpu_destroy,
    .c2c = cpu_c2c,
    .r2c = cpu_r2c,
    .stft_db = cpu_stft_db,
    .stft_reduce = cpu_stft_reduce,
};
