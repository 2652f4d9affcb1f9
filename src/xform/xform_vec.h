/* Four floats at a time for the transforms' rows on the host (not a public header): GCC and
 * Clang generic vectors (SSE2 on x86-64, NEON), as src/fft/fft_cpu.c uses them; without
 * them XFORM_VW is undefined and the rows run their scalar loops alone. Plain IEEE
 * operations, no FMA: the vector and the scalar loops give the same bits. */
#ifndef SPECTRO_XFORM_VEC_H
#define SPECTRO_XFORM_VEC_H

#include <stdint.h>
#ifdef __SSE__
#include <xmmintrin.h>
#endif

#if defined(__GNUC__) && (defined(__SSE2__) || defined(__ARM_NEON))
#define XFORM_VW 4
typedef float xv __attribute__((vector_size(16)));
typedef float xv_u __attribute__((vector_size(16), may_alias, aligned(4)));
typedef int32_t xvi __attribute__((vector_size(16)));
typedef double xvd __attribute__((vector_size(16)));
typedef float xv2 __attribute__((vector_size(8)));

/* lanes i, j, k, l of the 8 lanes of a then b */
#ifdef __clang__
#define XV_SHUFFLE2(a, b, i, j, k, l) __builtin_shufflevector(a, b, i, j, k, l)
#else
#define XV_SHUFFLE2(a, b, i, j, k, l) __builtin_shuffle(a, b, (xvi){i, j, k, l})
#endif

static inline xv xv_ld(const float *p)
{
    return *(const xv_u *)p;
}

static inline void xv_st(float *p, xv v)
{
    *(xv_u *)p = v;
}

/* a > b ? a : b lane by lane (b where a is NaN) */
static inline xv xv_max(xv a, xv b)
{
#ifdef __SSE__
    return (xv)_mm_max_ps((__m128)a, (__m128)b);
#else
    return (xv)(((xvi)a & (a > b)) | ((xvi)b & ~(a > b)));
#endif
}

/* m ? a : b lane by lane, m from a comparison (-1 or 0) */
static inline xv xv_pick(xvi m, xv a, xv b)
{
    return (xv)(((xvi)a & m) | ((xvi)b & ~m));
}
#endif

#endif
