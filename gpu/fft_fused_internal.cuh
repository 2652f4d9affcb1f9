/* fft_fused_internal: what the .cu files of fft_fused share, as KISS FFT's _kiss_fft_guts.h
 * (not a public header): the kernels' arguments, their layout and their device-side
 * building blocks (passes, levels, twiddles, levels in dB), and the host-side launch helpers.
 * fft_fused.cu holds the one-pass kernels by kind and the entry points, fft_fused_sm90.cu the
 * kernels that need sm_90.
 *
 * Radix-2 decimation in time, several levels per kernel (see fft_fused.h).
 *
 * Layout. Call p the position of a point in the per-level algorithm's array (after the
 * bit reversal) and i = rev(p) its input index. Level s pairs p and p + 2^(s-1) with the
 * twiddle W_{2^s}^(p mod 2^(s-1)): the same pairs and twiddles as butterfly_kernel.
 * A kernel of an N = 2^L point transform runs T = N/R threads a frame, R = 2^r points each,
 * in passes q = 0, 1, ...: pass q does levels q*r+1 .. q*r+w (w = r, the last may be less).
 * In pass q a thread holds the R points whose positions differ only in bits [q*r, q*r+w) of
 * p (and, in a short last pass, in r-w further bits), so those levels need no exchange.
 * The other bits of i come from the thread index; which thread bits go where ("slots") is
 * chosen per pass so that the 32 lanes of a warp vary the lowest free bits of i first, then
 * the highest ones:
 *   - pass 0 reads i = t + T*rev(e): the bit-reverse permutation is the load itself,
 *     coalesced (lanes on consecutive i);
 *   - the last pass writes p = rev(i) with lanes on the low bits of p: coalesced;
 *   - between passes the points go through shared memory. Row kernels with a half warp
 *     inside one frame (T >= 16, N >= 256): float2 at index i + (i >> (L-4)) (swz2), so
 *     each half warp's 64-bit accesses hit 16 different bank pairs. Otherwise re and im in
 *     separate float arrays at index i + (i >> (L-5)) (swz, N >= 1024) so that both lane
 *     patterns hit 32 different banks; frames of a block are padded apart. The skew is an add, not an
 *     XOR: a thread's points differ from its base in bits the base lacks, so every access
 *     is the base plus a constant (an immediate offset, no address arithmetic).
 * Twiddles of the first 5 levels of a pass, W_{2^k}^e (k <= 5), are immediates (w32_re/im,
 * the same floats as the table); a pass with lo > 0 loads one W_{2^s}^pg a level and
 * multiplies. Butterflies with a twiddle take 6 FMAs (bfly_fma). The stft store computes
 * levels from q = |2 X_k|^2 with the MUFU's log2 (the 0.5 of the untangle, the sqrt and
 * the window scale folded into per-launch constants).
 *
 * Kinds of kernel (template KIND):
 *   K_ROW     frames contiguous in memory (c2c; r2c / stft read reals and untangle in shared
 *             memory before the store; r2c n = 256 a complex FFT of (x, 0), see O_R2CZ).
 *             Several frames a block when T < 256.
 *   K_COL1    four-step first half: FPB adjacent columns n2 of x viewed as N1 x N2
 *             (element n1 at n1*N2 + n2), lanes across the columns (FPB*8 contiguous
 *             bytes a row); stores Y[k1][n2] * W_N^(n2 k1) in the same layout.
 *   K_ROW2COL four-step second half: rows k1 of Y (contiguous), N2-point FFT, stored to
 *             X[k1 + N1*k2] with lanes across the FPB rows (the transpose happens in the
 *             shared-memory exchanges).
 *   cluster_fft_kernel: both halves in one kernel, a transform across a cluster of blocks,
 *             Y passed through distributed shared memory (N = 2^15 .. 2^17).
 * Twiddles come from one table in float made in double (fft_cuda.cu); L1 keeps the parts
 * the levels use; the four-step's W_N^(n2 k1) are built from a few lookups (put_twiddled).
 * Every unrolled index is a template constant (unroll<>), so that the layout arithmetic
 * above is done by the compiler. */
#ifndef SPECTRO_FFT_FUSED_INTERNAL_CUH
#define SPECTRO_FFT_FUSED_INTERNAL_CUH

#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <atomic>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "fft_fused.h"
#include "gpu_plan.h"

namespace fused {

enum { K_ROW = 0, K_COL1 = 1, K_ROW2COL = 2 };
/* O_R2CZ: real input as the complex frame (x, 0), N-point c2c, bins 0..N/2 stored. Used
 * for r2c n = 256: there the packed N/2-point FFT runs 8 threads a frame and its untangle's
 * extra shared-memory round trip made it MIO-bound (0.92x cuFFT on an H100); twice the
 * arithmetic, no untangle, ran at cuFFT's speed (0.1056 -> 0.0965 ms, same binary). */
/* O_STFTB: O_STFT with the power p_k = max(a_k^2, 1e-20) instead of the level, kept in
 * shared memory and reduced there by a filter bank (fft_fused_bank.cuh): the transforms'
 * rows (gpu_bank.cu). The same layout, loads and block shapes as O_STFT. */
/* O_STFTR: reassignment: each frame transformed three times, windowed by h, t h and dh/dt
 * (A.win: three windows of 2N), the complex bins of each past the FFT's shared memory, then
 * the reassigned points (fft_fused_bank.cuh bank_reassign_epilogue). */
enum { O_C2C = 0, O_R2C = 1, O_STFT = 2, O_R2CZ = 3, O_STFTB = 4, O_STFTR = 6 };
/* the short-time kinds: frames windowed from a signal */
__host__ __device__ constexpr bool is_stft(int op)
{
    return op == O_STFT || op == O_STFTB || op == O_STFTR;
}

struct FArgs {
    const float2 *in; /* complex input (c2c, four-step halves) */
    float2 *out;      /* complex output */
    const float *sig; /* real input (r2c, stft) */
    float2 *spec;     /* r2c bins */
    float *db;        /* stft levels */
    const float2 *tw; /* W_M^k, k < M/2 */
    const float *win; /* stft window */
    size_t batch;     /* frames (K_ROW) or transforms (four-step) */
    size_t hop;       /* real input: frame step in samples */
    /* stft of clips: frame g is frame g % clip_frames of clip g / clip_frames, which starts
     * clip_stride samples after the one before; 0: one signal */
    size_t clip_frames, clip_stride;
    float scale;
    /* stft: level of bin k from q = |2 X_k|^2: q > thr ? 10 log10(2) log2(q) + off : floor */
    float thr_mid, thr_edge, off_mid, off_edge;
    /* stft bank (O_STFTB): p_k = max(q * pw, 1e-20), pw = (scale / 2)^2, then the bank;
     * O_STFTR: the scales themselves */
    float pw_mid, pw_edge;
    fused_bank bank;
    int inverse;
    unsigned tws;        /* log2 M - L: W_{2^s}^j = tw[j << (L - s + tws)] */
    unsigned log2_other; /* four-step: log2 of the other factor */
    unsigned log2_full;  /* four-step: log2 N of the whole transform */
    unsigned full_shift; /* four-step: W_N^m = tw[m << full_shift] for m < N/2 */
};

__host__ __device__ constexpr int cmin(int a, int b)
{
    return a < b ? a : b;
}

/* rev of the low L bits, for constants */
__host__ __device__ constexpr unsigned crev(unsigned x, int L)
{
    unsigned r = 0;
    for (int b = 0; b < L; b++)
        if ((x >> b) & 1u)
            r |= 1u << (L - 1 - b);
    return r;
}

/* Geometry of pass Q of an N = 2^L transform with R = 2^RL points a thread. */
template <int L, int RL, int Q> struct PG {
    static constexpr int lo = Q * RL;               /* first level - 1 */
    static constexpr int w = cmin(RL, L - lo);      /* levels in this pass */
    static constexpr int a = L - lo - w;            /* free i bits below the element field */
    static constexpr int l5 = cmin(a, 5);           /* lanes on low i bits */
    static constexpr int top5 = cmin(lo, 5 - l5);   /* lanes on top i bits */
    /* i bit of slot k (thread bits first, then the extra element bits of a short pass) */
    __host__ __device__ static constexpr int slot(int k)
    {
        return k < l5 ? k
               : k < l5 + top5 ? L - 1 - (k - l5)
               : k < a + top5 ? k - top5
               : L - 1 - top5 - (k - a - top5);
    }
    /* i bits of element e: e's low w bits are p bits [lo, lo+w), i.e. i bits reversed */
    __host__ __device__ static constexpr unsigned elem(int e)
    {
        unsigned r = 0;
        for (int b = 0; b < w; b++)
            if ((e >> b) & 1)
                r |= 1u << (a + w - 1 - b);
        for (int b = 0; b < RL - w; b++)
            if ((e >> (w + b)) & 1)
                r |= 1u << slot(L - RL + b);
        return r;
    }
};

template <int L, int RL, int FPB, int KIND, bool S2 = false> struct Cfg {
    static constexpr int N = 1 << L, R = 1 << RL, T = N / R, NP = (L + RL - 1) / RL;
    /* S2: shared memory holds float2 points (one 64-bit access a point instead of two
     * 32-bit ones); K_ROW with a half warp inside one frame (T >= 16) and L >= 8 only */
    static_assert(!S2 || (KIND == K_ROW && T >= 16 && L >= 8), "S2 layout not for this shape");
    /* frame stride in shared memory: pads frames apart so that lanes of different frames
     * fall in different banks */
    static constexpr int PADF = KIND == K_ROW ? (T < 32 ? T : 0) : (FPB >= 32 ? 1 : 32 / FPB);
    static constexpr int FS = N + (L >= 10 ? 32 : 0) + PADF; /* + the reach of swz */
    static constexpr int FS2 = N + 16;                       /* S2 frames: + swz2's reach */
    static constexpr int THREADS = T * FPB;
    static constexpr size_t SMEM = S2 ? (size_t)FPB * FS2 * sizeof(float2)
                                      : 2u * (size_t)FPB * FS * sizeof(float);
    /* lanes across frames (F) or across points (I) in pass q */
    __host__ __device__ static constexpr bool modeF(int q)
    {
        return KIND == K_COL1 ? true : KIND == K_ROW2COL ? q != 0 : false;
    }
};

template <int T, int FPB, bool MF> __device__ __forceinline__ void thread_ft(unsigned tid, unsigned &f, unsigned &t)
{
    if (MF) {
        f = tid % FPB;
        t = tid / FPB;
    } else {
        f = tid / T;
        t = tid % T;
    }
}

/* f(std::integral_constant<int, 0>{}) ... f(std::integral_constant<int, N - 1>{}): in f the
 * index is a constant expression, so the constexpr helpers of it (elem, crev, slot) are
 * evaluated at compile time. With "#pragma unroll" loops nvcc left some of them as run-time
 * loops (a third of the N = 4096 stft kernel's instructions). */
template <class F, int... I> __device__ __forceinline__ void unroll_seq(F &&f, std::integer_sequence<int, I...>)
{
    (f(std::integral_constant<int, I>{}), ...);
}
template <int N, class F> __device__ __forceinline__ void unroll(F &&f)
{
    unroll_seq(f, std::make_integer_sequence<int, N>{});
}
#define SP_CI(X) decltype(X)::value /* the int of an unroll index */

/* element e's i bits (ELEM) and their bit reversal (RELEM): compile-time constants */
template <int L, int RL, int Q, int E> constexpr unsigned ELEM = PG<L, RL, Q>::elem(E);
template <int L, int RL, int Q, int E> constexpr unsigned RELEM = crev(PG<L, RL, Q>::elem(E), L);

/* the element of pass Q that holds position p of the thread's base (-1: none) */
template <int L, int RL, int Q> __host__ __device__ constexpr int elem_at(unsigned p)
{
    for (int e = 0; e < (1 << RL); e++)
        if (crev(PG<L, RL, Q>::elem(e), L) == p)
            return e;
    return -1;
}

/* Mirror pairing of the last pass (stft). The untangle needs Z_k with Z_{N-k}. Where the
 * last pass has two groups of points a thread (w = RL - 1 levels) and the thread bits are
 * p bits 0 .. lo-2 with the extra element bit p bit lo-1, a thread t takes groups t and
 * t' + 2^(lo-1), t' = -t mod T, instead of t and t + 2^(lo-1): for t > 0 the second is the
 * mirror -t mod 2^lo of the first, and thread 0 holds groups 0 and 2^(lo-1), each its own
 * mirror. Z_k and Z_{N-k} are then in one thread's registers, and the untangle needs no
 * trip through shared memory: a third of the stft kernel's shared-memory traffic, and the
 * L1/shared data path bounds that kernel (Nsight Compute, H200: 95% busy, issue slots 64-72%).
 * n = 4096: 1.06 -> 0.93 ms an hour of audio on an H200. Not for r2c, which the memory
 * bounds: its n = 4096 measured 0.93-0.97x cuFFT this way, 0.98-0.99x without (two builds,
 * runs alternated). RL <= 4: the twiddles W_2R^j are immediates. */
template <int L, int RL> __host__ __device__ constexpr bool mirror_layout()
{
    constexpr int NP = (L + RL - 1) / RL;
    using G = PG<L, RL, NP - 1>;
    bool ok = RL <= 4 && NP >= 2 && G::w == RL - 1;
    for (int k = 0; ok && k < L - RL; k++)
        ok = G::slot(k) == L - 1 - k;
    return ok && crev(G::elem(1 << G::w), L) == 1u << (G::lo > 0 ? G::lo - 1 : 0);
}
template <int L, int RL, int FPB, int KIND, int OP> __host__ __device__ constexpr bool mirror_last()
{
    if constexpr (KIND == K_ROW && is_stft(OP))
        return mirror_layout<L, RL>();
    else
        return false;
}

template <int L, int RL, int Q> __device__ __forceinline__ unsigned scatter(unsigned t)
{
    unsigned r = 0;
    unroll<L - RL>([&](auto K) {
        constexpr int k = SP_CI(K), sl = PG<L, RL, Q>::slot(k);
        r |= ((t >> k) & 1u) << sl;
    });
    return r;
}

/* Skews of the exchange layouts. Both are additive over disjoint bits: swz(a | b) = swz(a) +
 * swz(b) when a & b = 0, so a point's address is the thread's base plus a constant.
 * float layout: the lanes of a warp vary l5 <= 5 low bits of i and 5 - l5 top bits (L-1,
 * L-2, ...); adding the top 5 bits puts top bit L-1-j at 2^(4-j) >= 2^l5, so the 32 lanes
 * hit 32 different banks (i + an offset of 0..31: reach N + 31). */
template <int L> __device__ __forceinline__ unsigned swz(unsigned i)
{
    if constexpr (L >= 10)
        return i + (i >> (L - 5));
    else
        return i;
}

/* S2 layout: 64-bit accesses go by half warps; the lanes of a half warp vary l4 <= 4 low
 * bits of i and 4 - l4 top bits; adding the top 4 bits, the 16 lanes hit 16 different
 * 8-byte bank pairs (reach N + 15). */
template <int L> __device__ __forceinline__ unsigned swz2(unsigned i)
{
    return i + (i >> (L - 4));
}

template <int L> __device__ __forceinline__ unsigned rev_var(unsigned x)
{
    return __brev(x) >> (32 - L);
}

__device__ __forceinline__ float2 cmul(float2 a, float2 b)
{
    return make_float2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

/* W_32^j = exp(-2 pi i j / 32), j < 16: the same floats as the table (float of the double
 * sincos, exact at j = 0, 8), as immediates instead of loads */
__host__ __device__ constexpr float w32_re(int j)
{
    /* a switch, not an array: a local array can end up on the stack */
    switch (j) {
    case 0: return 1.0f;
    case 1: return 0.980785251f;
    case 2: return 0.923879504f;
    case 3: return 0.831469595f;
    case 4: return 0.707106769f;
    case 5: return 0.555570245f;
    case 6: return 0.382683426f;
    case 7: return 0.195090324f;
    case 8: return 0.0f;
    case 9: return -0.195090324f;
    case 10: return -0.382683426f;
    case 11: return -0.555570245f;
    case 12: return -0.707106769f;
    case 13: return -0.831469595f;
    case 14: return -0.923879504f;
    default: return -0.980785251f;
    }
}
__host__ __device__ constexpr float w32_im(int j)
{
    /* a switch, not an array: a local array can end up on the stack */
    switch (j) {
    case 0: return -0.0f;
    case 1: return -0.195090324f;
    case 2: return -0.382683426f;
    case 3: return -0.555570245f;
    case 4: return -0.707106769f;
    case 5: return -0.831469595f;
    case 6: return -0.923879504f;
    case 7: return -0.980785251f;
    case 8: return -1.0f;
    case 9: return -0.980785251f;
    case 10: return -0.923879504f;
    case 11: return -0.831469595f;
    case 12: return -0.707106769f;
    case 13: return -0.555570245f;
    case 14: return -0.382683426f;
    default: return -0.195090324f;
    }
}

/* x * W_32^J (conjugate twiddle when inv), J < 16. W_32^(J+8) = -i W_32^J (the tables agree
 * to the bit), so J > 8 is J - 8's product turned by -i: where a level needs both, one
 * complex multiply serves the two (CSE), not two. */
template <int J> __device__ __forceinline__ float2 mul_w32(float2 x, int inv)
{
    if constexpr (J == 0) {
        return x;
    } else if constexpr (J >= 8) { /* -i (inverse: +i) */
        const float2 u = mul_w32<J - 8>(x, inv);
        return inv ? make_float2(-u.y, u.x) : make_float2(u.y, -u.x);
    } else {
        constexpr float c = w32_re(J), sn = w32_im(J);
        return cmul(x, make_float2(c, inv ? -sn : sn));
    }
}

/* x * W_{2^K}^EP (conjugate twiddle when inv), K <= 5 */
template <int K, int EP> __device__ __forceinline__ float2 mul_wconst(float2 x, int inv)
{
    return mul_w32<(EP << (5 - K))>(x, inv);
}

/* The butterfly x0 + w x1, x0 - w x1 in 6 FMAs instead of 4 multiplies and 4 adds (Linzer
 * and Feig): y0 = x0 + w x1, y1 = 2 x0 - y0. */
__device__ __forceinline__ void bfly_fma(float2 &x0, float2 &x1, float2 w)
{
    const float r = fmaf(-w.y, x1.y, fmaf(w.x, x1.x, x0.x));
    const float i = fmaf(w.y, x1.x, fmaf(w.x, x1.y, x0.y));
    x1 = make_float2(fmaf(2.0f, x0.x, -r), fmaf(2.0f, x0.y, -i));
    x0 = make_float2(r, i);
}

/* Levels lo+1 .. lo+w of pass Q on the thread's points; ti = the thread's i bits, ti2 those
 * of the groups after the first where they differ (mirror_last). */
template <int L, int RL, int Q>
__device__ __forceinline__ void levels(float2 (&v)[1 << RL], unsigned ti, const float2 *__restrict__ tw,
                                       unsigned tws, int inv, unsigned ti2)
{
    using G = PG<L, RL, Q>;
    constexpr int R = 1 << RL, W = 1 << G::w;
    const unsigned pt = G::lo > 0 ? rev_var<L>(ti) : 0u, pt2 = G::lo > 0 ? rev_var<L>(ti2) : 0u;
    unroll<R / W>([&](auto H) {
        constexpr int h = SP_CI(H);
        /* p bits [0, lo) of this group: the twiddle's low bits */
        [[maybe_unused]] const unsigned pg = ((h ? pt2 : pt) | RELEM<L, RL, Q, h * W>) & ((1u << G::lo) - 1u);
        unroll<G::w>([&](auto K1) {
            constexpr int k = SP_CI(K1) + 1, half = 1 << (k - 1);
            /* twiddle of j = pg + e' 2^lo at level s = lo + k: W_{2^s}^pg * W_{2^k}^e'. One
             * load a level at a thread-dependent address (W^pg); the W_{2^k}^e' are
             * immediates. */
            /* (no local array of the products: it stayed on the stack) */
            float2 wb = make_float2(1.0f, 0.0f);
            if constexpr (G::lo > 0) {
                const unsigned sh = (unsigned)(L - (G::lo + k)) + tws;
                wb = __ldg(tw + (pg << sh));
                if (inv)
                    wb.y = -wb.y;
            }
            unroll<W>([&](auto E) {
                constexpr int e = SP_CI(E), ep = e & (half - 1);
                if constexpr (!(e & half)) {
                    float2 &x0 = v[h * W + e], &x1 = v[h * W + e + half];
                    constexpr int j = ep << (5 - k);
                    if constexpr (G::lo == 0 && (j == 0 || j == 8)) {
                        x1 = mul_wconst<k, ep>(x1, inv); /* 1 or -i: no multiply */
                        const float2 a = x0;
                        x0 = make_float2(a.x + x1.x, a.y + x1.y);
                        x1 = make_float2(a.x - x1.x, a.y - x1.y);
                    } else if constexpr (G::lo == 0) {
                        bfly_fma(x0, x1, mul_wconst<k, ep>(make_float2(1.0f, 0.0f), inv));
                    } else {
                        bfly_fma(x0, x1, mul_wconst<k, ep>(wb, inv)); /* same ep: CSE */
                    }
                }
            });
        });
    });
}

struct NoHook {
    __device__ void operator()() const {}
};

/* Pass Q >= 1: pass Q-1's points to shared memory, pass Q's points back, its levels.
 * last_read() runs after the last pass has read its points, before its levels: the shared
 * memory is free from there (the prefetching kernel starts its next load there). */
template <int L, int RL, int FPB, int KIND, bool S2, int OP, int Q, class Hook = NoHook>
__device__ __forceinline__ void exchange_passes(float2 (&v)[1 << RL], float *s_re, float *s_im,
                                                unsigned tid, const FArgs &A, Hook last_read = Hook{})
{
    using C = Cfg<L, RL, FPB, KIND, S2>;
    constexpr bool CINV = OP == O_C2C; /* inverse only for c2c: else a constant 0 */
    constexpr bool MIR = Q == C::NP - 1 && mirror_last<L, RL, FPB, KIND, OP>();
    if constexpr (Q < C::NP && S2) {
        float2 *s_c = reinterpret_cast<float2 *>(s_re);
        {
            unsigned f, t;
            thread_ft<C::T, FPB, false>(tid, f, t);
            const unsigned sti = swz2<L>(scatter<L, RL, Q - 1>(t));
            float2 *pc = s_c + f * C::FS2;
            if (Q > 1)
                __syncthreads();
            unroll<C::R>([&](auto E) {
                constexpr int e = SP_CI(E);
                pc[sti + swz2<L>(ELEM<L, RL, Q - 1, e>)] = v[e];
            });
        }
        __syncthreads();
        {
            unsigned f, t;
            thread_ft<C::T, FPB, false>(tid, f, t);
            const unsigned ti = scatter<L, RL, Q>(t);
            const unsigned ti2 = MIR ? scatter<L, RL, Q>((0u - t) & (C::T - 1)) : ti;
            const unsigned sti = swz2<L>(ti), sti2 = swz2<L>(ti2);
            const float2 *pc = s_c + f * C::FS2;
            unroll<C::R>([&](auto E) {
                constexpr int e = SP_CI(E);
                v[e] = pc[(e < C::R / 2 ? sti : sti2) + swz2<L>(ELEM<L, RL, Q, e>)];
            });
            if constexpr (Q == C::NP - 1)
                last_read();
            levels<L, RL, Q>(v, ti, A.tw, A.tws, CINV ? A.inverse : 0, ti2);
        }
        exchange_passes<L, RL, FPB, KIND, S2, OP, Q + 1>(v, s_re, s_im, tid, A, last_read);
    } else if constexpr (Q < C::NP) {
        {
            unsigned f, t;
            thread_ft<C::T, FPB, C::modeF(Q - 1)>(tid, f, t);
            const unsigned ti = scatter<L, RL, Q - 1>(t);
            float *pr = s_re + f * C::FS, *pi = s_im + f * C::FS;
            const unsigned sti = swz<L>(ti);
            if (Q > 1)
                __syncthreads(); /* everyone has read pass Q-1's input */
            unroll<C::R>([&](auto E) {
                constexpr int e = SP_CI(E);
                unsigned a = sti + swz<L>(ELEM<L, RL, Q - 1, e>);
                pr[a] = v[e].x;
                pi[a] = v[e].y;
            });
        }
        __syncthreads();
        {
            unsigned f, t;
            thread_ft<C::T, FPB, C::modeF(Q)>(tid, f, t);
            const unsigned ti = scatter<L, RL, Q>(t);
            const unsigned ti2 = MIR ? scatter<L, RL, Q>((0u - t) & (C::T - 1)) : ti;
            const float *pr = s_re + f * C::FS, *pi = s_im + f * C::FS;
            const unsigned sti = swz<L>(ti), sti2 = swz<L>(ti2);
            unroll<C::R>([&](auto E) {
                constexpr int e = SP_CI(E);
                unsigned a = (e < C::R / 2 ? sti : sti2) + swz<L>(ELEM<L, RL, Q, e>);
                v[e] = make_float2(pr[a], pi[a]);
            });
            if constexpr (Q == C::NP - 1)
                last_read();
            levels<L, RL, Q>(v, ti, A.tw, A.tws, CINV ? A.inverse : 0, ti2);
        }
        exchange_passes<L, RL, FPB, KIND, S2, OP, Q + 1>(v, s_re, s_im, tid, A, last_read);
    }
}

/* W_N^m of the whole four-step transform, m < N */
__device__ __forceinline__ float2 twiddle_full(const FArgs &A, unsigned m)
{
    unsigned half = 1u << (A.log2_full - 1);
    float2 w;
    if (m < half) {
        w = __ldg(A.tw + ((size_t)m << A.full_shift));
    } else {
        w = __ldg(A.tw + ((size_t)(m - half) << A.full_shift));
        w.x = -w.x;
        w.y = -w.y;
    }
    if (A.inverse)
        w.y = -w.y;
    return w;
}

/* log2 x by the MUFU alone (lg2.approx.ftz: log2f is a 28-instruction polynomial, __log2f
 * adds subnormal handling). Its error, 2 ulp of the result, is under 1e-4 dB here; a
 * subnormal x reads -inf, which level_db never uses (q > thr, a normal float). */
__device__ __forceinline__ float lg2_mufu(float x)
{
    float r;
    asm("lg2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
    return r;
}

/* level in dB of a bin x2 = 2X from q = |2X|^2 (see FArgs). !BIG: log2 q by the MUFU,
 * right for every finite q, and the floor by a max: off puts the level of q = thr at the
 * floor, so q <= thr reads the floor, q = 0 and NaN too (fmaxf drops NaN); s <= 0 has off =
 * -inf. q = inf (|2X| past 2^64, never for audio) reads inf; qmax keeps the largest q, and
 * the caller, seeing inf there, does the frame's bins again with BIG (the register-paired
 * untangle checks Z before instead): q near or past overflow takes log2 q = log2 |x2
 * 2^-64|^2 + 128, and q > thr decides. (A check of every bin, by a call or predicated, cost
 * 5-8% of the stft kernel's instructions; a max a bin and a branch a frame, 1.5-3%.) */
template <bool BIG> __device__ __forceinline__ float level_db(float2 x2, float thr, float off, float &qmax)
{
    const float q = x2.x * x2.x + x2.y * x2.y;
    if constexpr (BIG) {
        const float a = x2.x * 0x1p-64f, b = x2.y * 0x1p-64f;
        const float lq = q >= 1e37f ? lg2_mufu(a * a + b * b) + 128.0f : lg2_mufu(q);
        return q > thr ? fmaf(3.01029995663981195f, lq, off) : FFT_DB_FLOOR;
    } else {
        qmax = fmaxf(qmax, q);
        return fmaxf(fmaf(3.01029995663981195f, lg2_mufu(q), off), FFT_DB_FLOOR);
    }
}

/* W_N^m, m < N, as W_N^(m - m mod 256) W_N^(m mod 256): two lookups among 2 x 256 entries
 * that stay in L1, where W_N^m itself is one scattered lookup in N/2 (L2 traffic) */
__device__ __forceinline__ float2 twiddle_2l(const FArgs &A, unsigned m)
{
    return cmul(twiddle_full(A, m & ~255u), twiddle_full(A, m & 255u));
}

/* apply(e, w0 * prod of u[b] over the set bits b < B+1 of e, with E0's bits above), for each
 * e: a depth-first tree, so every w is at most B+1 products from w0 */
template <int B, int E0, int RL, class F>
__device__ __forceinline__ void twiddle_tree(float2 w, const float2 (&u)[RL], F &&apply)
{
    if constexpr (B < 0) {
        apply(std::integral_constant<int, E0>{}, w);
    } else {
        twiddle_tree<B - 1, E0>(w, u, apply);
        twiddle_tree<B - 1, E0 | (1 << B)>(cmul(w, u[B]), u, apply);
    }
}

/* put(e, v[e] W_N^(n2 k1)) for the column store of a four-step first half, k1 = pt |
 * RELEM(e) (pass Q is the last). RELEM is linear in the bits of e, so the twiddle is W_N^(n2
 * pt) times u_b = W_N^(n2 RELEM(2^b)) for each set bit b of e: a tree of products (depth RL)
 * instead of a scattered lookup a point (whose L2 traffic exceeded the data's). u_b is
 * u_(b-1) squared where RELEM(2^b) = 2 RELEM(2^(b-1)), else a two-level lookup. */
template <int L, int RL, int Q, class F>
__device__ __forceinline__ void put_twiddled(const float2 (&v)[1 << RL], const FArgs &A, unsigned n2,
                                             unsigned pt, F &&put)
{
    float2 u[RL] = {};
    unroll<RL>([&](auto B) {
        constexpr int b = SP_CI(B);
        constexpr unsigned rb = RELEM<L, RL, Q, 1 << b>;
        if constexpr (b > 0 && rb == 2 * RELEM<L, RL, Q, (1 << b) / 2>)
            u[b] = cmul(u[b - 1], u[b - 1]);
        else
            u[b] = twiddle_2l(A, n2 * rb);
    });
    twiddle_tree<RL - 1, 0>(twiddle_2l(A, n2 * pt), u,
                            [&](auto E, float2 w) { put(E, cmul(v[SP_CI(E)], w)); });
}

/* ---- host side, shared by the .cu files of fft_fused ---- */

/* kern<<<nblocks, threads, smem>>>(A), in clusters of `cluster` blocks when > 1
 * (fft_fused.cu) */
int launch_kernel(void (*kern)(const FArgs), std::atomic<bool> &raised, size_t smem, int threads,
                  size_t nblocks, const FArgs &A, cudaStream_t st, sp_errinfo *ei, const char *what,
                  unsigned cluster = 1);
/* the sm_90 kernels (fft_fused_sm90.cu): c2c of 2^L points, frames streamed in by the copy
 * engine (L = 14), or a transform across a thread-block cluster (L = 15 .. 17) */
int launch_stream_L(unsigned L, const FArgs &A, cudaStream_t st, sp_errinfo *ei);
int launch_cluster_L(unsigned L, const FArgs &A, cudaStream_t st, sp_errinfo *ei);

} // namespace fused

#endif
