/* fft_fused: radix-2 decimation in time, several levels per kernel (see fft_fused.h).
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
#include "fft_fused.h"

#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <atomic>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "gpu_plan.h"

static_assert(sizeof(cpx) == sizeof(float2), "cpx must have the layout of float2");

namespace {

enum { K_ROW = 0, K_COL1 = 1, K_ROW2COL = 2 };
/* O_R2CZ: real input as the complex frame (x, 0), N-point c2c, bins 0..N/2 stored. Used
 * for r2c n = 256: there the packed N/2-point FFT runs 8 threads a frame and its untangle's
 * extra shared-memory round trip made it MIO-bound (0.92x cuFFT on an H100); twice the
 * arithmetic, no untangle, ran at cuFFT's speed (0.1056 -> 0.0965 ms, same binary). */
enum { O_C2C = 0, O_R2C = 1, O_STFT = 2, O_R2CZ = 3 };

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
    float scale;
    /* stft: level of bin k from q = |2 X_k|^2: q > thr ? 10 log10(2) log2(q) + off : floor */
    float thr_mid, thr_edge, off_mid, off_edge;
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
    if constexpr (KIND == K_ROW && OP == O_STFT)
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

template <int L, int RL, int FPB, int KIND, int OP, bool S2>
__device__ __forceinline__ void fused_fft_body(const FArgs &A)
{
    using C = Cfg<L, RL, FPB, KIND, S2>;
    constexpr bool CINV = OP == O_C2C;
    constexpr int R = C::R, T = C::T, NP = C::NP, N = C::N;
    constexpr int LOGFPB = FPB >= 256 ? 8 : FPB >= 128 ? 7 : FPB >= 64 ? 6 : FPB >= 32 ? 5
                           : FPB >= 16 ? 4 : FPB >= 8 ? 3 : FPB >= 4 ? 2 : FPB >= 2 ? 1 : 0;
    extern __shared__ float smem[];
    float *s_re = smem, *s_im = smem + FPB * C::FS; /* (S2: s_re is the float2 array) */
    const unsigned tid = threadIdx.x;
    float2 v[R];

    /* ---- pass 0: load (bit reversal folded in) and the first levels ---- */
    {
        unsigned f, t;
        thread_ft<T, FPB, C::modeF(0)>(tid, f, t);
        const unsigned ti = scatter<L, RL, 0>(t);
        if constexpr (KIND == K_ROW) {
            const size_t g = (size_t)blockIdx.x * FPB + f;
            if constexpr (FPB == 1) {
                if (g >= A.batch)
                    return; /* the whole block: no barrier waits for it */
            }
            const bool ok = FPB == 1 || g < A.batch;
            if constexpr (OP == O_R2CZ) {
                const float *src = A.sig + g * A.hop + ti;
                unroll<R>([&](auto E) {
                    constexpr int e = SP_CI(E);
                    v[e] = make_float2(ok ? __ldg(src + ELEM<L, RL, 0, e>) : 0.f, 0.f);
                });
            } else if constexpr (OP == O_C2C) {
                /* disjoint bits: base + constant, the constant an immediate offset */
                const float2 *src = A.in + (g << L) + ti;
                unroll<R>([&](auto E) {
                    constexpr int e = SP_CI(E);
                    v[e] = ok ? src[ELEM<L, RL, 0, e>] : make_float2(0.f, 0.f);
                });
            } else {
                /* real frame: z_i = x_2i + i x_2i+1 (times the window) */
                const size_t off = g * A.hop;
                const float *src = A.sig + off;
                if (!ok) {
#pragma unroll
                    for (int e = 0; e < R; e++)
                        v[e] = make_float2(0.f, 0.f);
                } else if ((reinterpret_cast<uintptr_t>(src) & 7) == 0) {
                    /* 8-byte aligned pairs: an even offset into the plan's buffers; a
                     * caller's device clip may start anywhere */
                    const float2 *src2 = reinterpret_cast<const float2 *>(src) + ti;
                    unroll<R>([&](auto E) {
                        constexpr int e = SP_CI(E);
                        v[e] = __ldg(src2 + ELEM<L, RL, 0, e>);
                    });
                } else {
                    unroll<R>([&](auto E) {
                        constexpr int e = SP_CI(E);
                        unsigned i = ti | ELEM<L, RL, 0, e>;
                        v[e] = make_float2(__ldg(src + 2 * i), __ldg(src + 2 * i + 1));
                    });
                }
                if constexpr (OP == O_STFT) {
                    const float2 *win2 = reinterpret_cast<const float2 *>(A.win) + ti;
                    unroll<R>([&](auto E) {
                        constexpr int e = SP_CI(E);
                        float2 wv = __ldg(win2 + ELEM<L, RL, 0, e>);
                        v[e].x *= wv.x;
                        v[e].y *= wv.y;
                    });
                }
            }
        } else if constexpr (KIND == K_COL1) {
            const unsigned pl = A.log2_other - LOGFPB; /* log2 blocks a transform */
            const size_t b = blockIdx.x >> pl;
            const size_t n2 = ((size_t)(blockIdx.x & ((1u << pl) - 1u)) << LOGFPB) + f;
            const float2 *src = A.in + (b << A.log2_full) + n2;
            unroll<R>([&](auto E) {
                constexpr int e = SP_CI(E);
                v[e] = src[(size_t)(ti | ELEM<L, RL, 0, e>) << A.log2_other];
            });
        } else {
            const unsigned pl = A.log2_other - LOGFPB;
            const size_t b = blockIdx.x >> pl;
            const size_t k1 = ((size_t)(blockIdx.x & ((1u << pl) - 1u)) << LOGFPB) + f;
            const float2 *src = A.in + (b << A.log2_full) + (k1 << L) + ti;
            unroll<R>([&](auto E) {
                constexpr int e = SP_CI(E);
                v[e] = src[ELEM<L, RL, 0, e>];
            });
        }
        levels<L, RL, 0>(v, ti, A.tw, A.tws, CINV ? A.inverse : 0, ti);
    }

    /* ---- passes 1 .. NP-1 through shared memory ---- */
    exchange_passes<L, RL, FPB, KIND, S2, OP, 1>(v, s_re, s_im, tid, A);

    /* ---- store (positions p = rev(i) are the output bins) ---- */
    unsigned f, t;
    thread_ft<T, FPB, C::modeF(NP - 1)>(tid, f, t);
    const unsigned ti = scatter<L, RL, NP - 1>(t);
    const unsigned pt = rev_var<L>(ti);
    if constexpr (KIND == K_ROW && OP == O_C2C) {
        const size_t g = (size_t)blockIdx.x * FPB + f;
        if (g < A.batch) {
            float2 *dst = A.out + (g << L) + pt;
            unroll<R>([&](auto E) {
                constexpr int e = SP_CI(E);
                dst[RELEM<L, RL, NP - 1, e>] = make_float2(v[e].x * A.scale, v[e].y * A.scale);
            });
        }
    } else if constexpr (KIND == K_ROW && OP == O_R2CZ) {
        const size_t g = (size_t)blockIdx.x * FPB + f;
        if (g < A.batch) {
            float2 *dst = A.spec + g * ((size_t)N / 2 + 1) + pt;
            unroll<R>([&](auto E) {
                constexpr int e = SP_CI(E);
                constexpr unsigned rp = RELEM<L, RL, NP - 1, e>;
                if constexpr (rp < N / 2) {
                    dst[rp] = v[e];
                } else if constexpr (rp == N / 2) {
                    if (pt == 0) /* bin N/2 */
                        dst[rp] = v[e];
                }
            });
        }
    } else if constexpr (KIND == K_ROW) {
        /* real input: bins k and N-k together from Z_k and Z_{N-k}: E = (Z_k + conj Z_{N-k})/2,
         * O = (Z_k - conj Z_{N-k})/2i, X_k = E + W_2N^k O, X_{N-k} = conj(E - W_2N^k O) */
        const size_t g = (size_t)blockIdx.x * FPB + f;
        const size_t ostride = (size_t)N + 1;
        using OutT = std::conditional_t<OP == O_STFT, float, float2>;
        OutT *out0;
        if constexpr (OP == O_STFT)
            out0 = A.db + g * ostride;
        else
            out0 = A.spec + g * ostride;
        float qmax = 0.0f; /* stft: the largest |2X|^2 (see level_db) */
        const unsigned ts = A.tws - 1; /* W_2N^k = tw[k << ts] */
        const float2 *twt = A.tw + (t << ts);
        const float2 wt = __ldg(twt); /* W_2N^t */
        /* bins k and N-k from a = Z_k, b = Z_{N-k}, w = W_2N^k to *pk and *pn (k0: k = 0,
         * bins 0 and N, from a alone; no pn where k = N/2) */
        auto out_pair = [&](auto BIG, float2 a, float2 b, float2 w, bool k0, OutT *pk, OutT *pn, auto HAS_N) {
            float2 x0, x1;
            if constexpr (OP == O_R2C) {
                if (k0) {
                    x0 = make_float2(a.x + a.y, 0.0f);
                    x1 = make_float2(a.x - a.y, 0.0f);
                } else {
                    float2 ev = make_float2(0.5f * (a.x + b.x), 0.5f * (a.y - b.y));
                    float2 od = make_float2(0.5f * (a.y + b.y), -0.5f * (a.x - b.x));
                    float2 wo = cmul(w, od);
                    x0 = make_float2(ev.x + wo.x, ev.y + wo.y);
                    x1 = make_float2(ev.x - wo.x, -(ev.y - wo.y));
                }
                *pk = x0;
                if constexpr (SP_CI(HAS_N))
                    *pn = x1;
            } else {
                /* 2 X_k = E' + W O', E' = a + conj b, O' = (a - conj b)/i; the level only
                 * needs |2 X_k|^2 (the factor 4 is in thr and off) */
                if (k0) {
                    x0 = make_float2(2.0f * (a.x + a.y), 0.0f);
                    x1 = make_float2(2.0f * (a.x - a.y), 0.0f);
                } else {
                    x0 = make_float2(a.x + b.x, a.y - b.y); /* E' */
                    x1 = make_float2(a.y + b.y, b.x - a.x); /* O' */
                    bfly_fma(x0, x1, w);
                }
                /* k0: bins 0 and N */
                const float thr = k0 ? A.thr_edge : A.thr_mid, off = k0 ? A.off_edge : A.off_mid;
                *pk = level_db<SP_CI(BIG)>(x0, thr, off, qmax);
                if constexpr (SP_CI(HAS_N))
                    *pn = level_db<SP_CI(BIG)>(x1, thr, off, qmax);
            }
        };
        OutT *const pk = out0 + t, *const pn = out0 + (N - t);
        if constexpr (mirror_last<L, RL, FPB, KIND, OP>()) {
            /* Z_k and Z_{N-k} in this thread's registers (mirror_last): group 0 holds Z at
             * t + m 2^LO, group 1 at t' + 2^(LO-1) + m 2^LO, m < W */
            constexpr int LO = PG<L, RL, NP - 1>::lo, W = R / 2;
            if (FPB > 1 && g >= A.batch)
                return; /* no barrier follows */
            const bool t0 = t == 0;
            /* thread 0's second half of jobs: bins 2^(LO-1) (2m - W + 1), D below t + m 2^LO */
            const unsigned D = t0 ? (1u << (LO - 1)) * (W - 1) : 0u;
            OutT *const pk_hi = pk - D, *const pn_hi = pn + D;
            auto jobs = [&](auto BIG) {
                unroll<W>([&](auto Mi) {
                    constexpr int m = SP_CI(Mi), c = m << LO;
                    constexpr int g0m = elem_at<L, RL, NP - 1>((unsigned)c);
                    constexpr int g1r = elem_at<L, RL, NP - 1>((1u << (LO - 1)) + ((unsigned)(W - 1 - m) << LO));
                    static_assert(g0m >= 0 && g1r >= 0, "mirror layout");
                    /* t > 0: k = t + m 2^LO, Z_{N-k} = group 1's element W-1-m; W_2N^k = W_2N^t W_R^m */
                    if constexpr (m == 0) {
                        out_pair(BIG, v[g0m], v[g1r], wt, t0, pk, pn, std::true_type{});
                    } else if constexpr (m < W / 2) {
                        /* thread 0: k = m 2^LO, Z_{N-k} = group 0's element W-m */
                        constexpr int g0n = elem_at<L, RL, NP - 1>((unsigned)(W - m) << LO);
                        static_assert(g0n >= 0, "mirror layout");
                        const float2 b = t0 ? v[g0n] : v[g1r];
                        out_pair(BIG, v[g0m], b, mul_wconst<RL, m>(wt, 0), false, pk + c, pn - c, std::true_type{});
                    } else {
                        /* thread 0: k = 2^(LO-1) + (m - W/2) 2^LO from group 1, its mirror
                         * too; W_2N^k = W_2R^(2m - W + 1) */
                        constexpr int ha = elem_at<L, RL, NP - 1>((1u << (LO - 1)) + ((unsigned)(m - W / 2) << LO));
                        constexpr int hb = elem_at<L, RL, NP - 1>((1u << (LO - 1)) + ((unsigned)(3 * W / 2 - 1 - m) << LO));
                        static_assert(ha >= 0 && hb >= 0, "mirror layout");
                        const float2 a = t0 ? v[ha] : v[g0m], b = t0 ? v[hb] : v[g1r];
                        const float2 w0 = mul_wconst<RL + 1, 2 * m - W + 1>(make_float2(1.0f, 0.0f), 0);
                        const float2 w = t0 ? w0 : mul_wconst<RL, m>(wt, 0);
                        out_pair(BIG, a, b, w, false, pk_hi + c, pn_hi - c, std::true_type{});
                    }
                });
                if (t0) { /* k = N/2, its own mirror: W_2N^k = -i */
                    constexpr int e = elem_at<L, RL, NP - 1>((unsigned)(W / 2) << LO);
                    static_assert(e >= 0, "mirror layout");
                    out_pair(BIG, v[e], v[e], make_float2(0.0f, -1.0f), false, pk + N / 2, pn, std::false_type{});
                }
            };
            /* stft: Z's parts all under 2^61 in magnitude keep every |2X|^2 finite; past that
             * (or NaN, inf) the checked levels. (Checked after, as the other path does, Z had
             * to stay in registers for a second round: it spilled.) */
            bool big = false;
            if constexpr (OP == O_STFT) {
                float mx[R];
                unroll<R>([&](auto E) { mx[SP_CI(E)] = fmaxf(fabsf(v[SP_CI(E)].x), fabsf(v[SP_CI(E)].y)); });
                unroll<RL>([&](auto S) { /* a tree: R - 1 more maxima */
                    constexpr int h = R >> (SP_CI(S) + 1);
                    unroll<h>([&](auto I) { mx[SP_CI(I)] = fmaxf(mx[SP_CI(I)], mx[SP_CI(I) + h]); });
                });
                big = !(mx[0] < 0x1p61f);
            }
            if (big)
                jobs(std::true_type{});
            else
                jobs(std::false_type{});
        } else {
            /* Z_k to shared memory in natural order, then the pairs */
            float *pr = s_re + f * C::FS, *pi = s_im + f * C::FS;
            float2 *pc = reinterpret_cast<float2 *>(s_re) + f * N;
            if (NP > 1)
                __syncthreads();
            unroll<R>([&](auto E) {
                constexpr int e = SP_CI(E);
                const unsigned p = pt + RELEM<L, RL, NP - 1, e>; /* lanes on low bits of p */
                if constexpr (S2) {
                    pc[p] = v[e];
                } else {
                    pr[p] = v[e].x;
                    pi[p] = v[e].y;
                }
            });
            __syncthreads();
            if (g >= A.batch)
                return; /* no barrier follows */
            /* pair j: k = t + j T and N - k. Base pointers at t and N - t make every address
             * of the unrolled pairs the base plus a constant; j = 0, t = 0 is bins 0 and N (the
             * mirror at index 0), j = NFULL only t = 0: k = N/2, its own mirror */
            constexpr int NFULL = (N / 2) / T;
            static_assert(NFULL * T == N / 2, "T divides N/2");
            const unsigned tn = N - t;
            auto at = [&](unsigned base) { /* a pointer at point base */
                if constexpr (S2)
                    return [p = pc + base](int c) { return p[c]; };
                else
                    return [r = pr + base, i = pi + base](int c) { return make_float2(r[c], i[c]); };
            };
            const auto at_t = at(t), at_n = at(tn);
            auto pairs = [&](auto BIG) {
                auto pair = [&](auto J) {
                    constexpr int j = SP_CI(J), c = j * T;
                    const bool k0 = j == 0 && t == 0;
                    const float2 a = at_t(c);
                    const float2 b = j == 0 ? at(tn & (N - 1))(0) : at_n(-c);
                    /* W_2N^(t + jT) = W_2N^t W_2R^j, W_2R^j an immediate where 2R <= 32 */
                    float2 w;
                    if constexpr (RL <= 4)
                        w = mul_wconst<RL + 1, j>(wt, 0);
                    else
                        w = __ldg(twt + ((unsigned)c << ts));
                    out_pair(BIG, a, b, w, k0, pk + c, pn - c, std::bool_constant<(j < NFULL)>{});
                };
                unroll<NFULL>(pair);
                if (t == 0)
                    pair(std::integral_constant<int, NFULL>{});
            };
            pairs(std::false_type{});
            if constexpr (OP == O_STFT) {
                if (qmax > FLT_MAX) { /* a bin overflowed: again, from Z still in shared memory */
                    asm volatile("" ::: "memory"); /* read it again (kept in registers, it spilled) */
                    pairs(std::true_type{});
                }
            }
        }
    } else if constexpr (KIND == K_COL1) {
        /* Y[k1][n2] * W_N^(n2 k1), same layout as the input */
        const unsigned pl = A.log2_other - LOGFPB;
        const size_t b = blockIdx.x >> pl;
        const unsigned n2 = ((blockIdx.x & ((1u << pl) - 1u)) << LOGFPB) + f;
        float2 *dst = A.out + (b << A.log2_full) + n2;
        put_twiddled<L, RL, NP - 1>(v, A, n2, pt, [&](auto E, float2 x) {
            const unsigned k1 = pt | RELEM<L, RL, NP - 1, SP_CI(E)>;
            dst[(size_t)k1 << A.log2_other] = x;
        });
    } else {
        /* X[k1 + N1*k2] */
        const unsigned pl = A.log2_other - LOGFPB;
        const size_t b = blockIdx.x >> pl;
        const size_t k1 = ((size_t)(blockIdx.x & ((1u << pl) - 1u)) << LOGFPB) + f;
        float2 *dst = A.out + (b << A.log2_full) + k1;
        unroll<R>([&](auto E) {
            constexpr int e = SP_CI(E);
            unsigned k2 = pt | RELEM<L, RL, NP - 1, e>;
            dst[(size_t)k2 << A.log2_other] = make_float2(v[e].x * A.scale, v[e].y * A.scale);
        });
    }
}

/* (with a second __launch_bounds__ argument, even 1, ptxas allocated 114 instead of 79
 * registers at N=4096: hence two kernels) */
template <int L, int RL, int FPB, int KIND, int OP, bool S2>
__global__ void __launch_bounds__(Cfg<L, RL, FPB, KIND, S2>::THREADS) fused_fft_kernel(const FArgs A)
{
    fused_fft_body<L, RL, FPB, KIND, OP, S2>(A);
}

template <int L, int RL, int FPB, int KIND, int OP, bool S2, int MINB>
__global__ void __launch_bounds__(Cfg<L, RL, FPB, KIND, S2>::THREADS, MINB)
    fused_fft_kernel_mb(const FArgs A)
{
    fused_fft_body<L, RL, FPB, KIND, OP, S2>(A);
}

/* kern<<<nblocks, threads, smem>>>(A), in clusters of `cluster` blocks when > 1. Past 48 KB
 * the kernel's shared-memory limit is raised first, once per kernel (raised is the kernel's
 * own flag; one device per process, plans on several threads). The carveout is left to the
 * driver: forcing the largest one cost 10-30% (less L1 for the twiddle table). */
int launch_kernel(void (*kern)(const FArgs), std::atomic<bool> &raised, size_t smem, int threads,
                  size_t nblocks, const FArgs &A, cudaStream_t st, sp_errinfo *ei, const char *what,
                  unsigned cluster = 1)
{
    if (smem > 48 * 1024 && !raised) {
        cudaError_t e = cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
        if (e != cudaSuccess)
            return gpu_fail_cuda(ei, (int)e, "cudaFuncSetAttribute(shared memory)");
        raised = true;
    }
    if (nblocks == 0)
        return SP_OK;
    if (nblocks > 0x7fffffffu)
        return sp_fail(ei, SP_EINVAL, "fused FFT: %zu blocks exceed the grid limit", nblocks);
    if (cluster > 1) {
        cudaLaunchConfig_t cfg = {};
        cudaLaunchAttribute at[1];
        at[0].id = cudaLaunchAttributeClusterDimension;
        at[0].val.clusterDim.x = cluster;
        at[0].val.clusterDim.y = 1;
        at[0].val.clusterDim.z = 1;
        cfg.gridDim = dim3((unsigned)nblocks);
        cfg.blockDim = dim3((unsigned)threads);
        cfg.dynamicSmemBytes = smem;
        cfg.stream = st;
        cfg.attrs = at;
        cfg.numAttrs = 1;
        cudaError_t e = cudaLaunchKernelEx(&cfg, kern, A);
        if (e != cudaSuccess)
            return gpu_fail_cuda(ei, (int)e, what);
    } else {
        kern<<<(unsigned)nblocks, threads, smem, st>>>(A);
    }
    return gpu_check_launch(ei, what);
}

template <int L, int RL, int FPB, int KIND, int OP, bool S2 = false, int MINB = 0>
int launch(const FArgs &A, size_t nblocks, cudaStream_t st, sp_errinfo *ei)
{
    using C = Cfg<L, RL, FPB, KIND, S2>;
    void (*kern)(const FArgs);
    if constexpr (MINB > 0)
        kern = fused_fft_kernel_mb<L, RL, FPB, KIND, OP, S2, MINB>;
    else
        kern = fused_fft_kernel<L, RL, FPB, KIND, OP, S2>;
    static std::atomic<bool> raised{false};
    return launch_kernel(kern, raised, C::SMEM, C::THREADS, nblocks, A, st, ei, "fused_fft_kernel");
}

/* points a thread (log2) for the row kernels: 16 (r = 4), 8 where that splits the levels
 * into fewer or even passes */
constexpr int row_rl(int L)
{
    return L == 3 ? 3 : L == 4 ? 4 : L <= 6 ? 3 : L <= 8 ? 4 : L == 9 ? 3 : L <= 13 ? 4 : 5;
}

template <int OP, int L, int RL, int THR, int MINB>
int launch_row_cfg(const FArgs &A, cudaStream_t st, sp_errinfo *ei)
{
    constexpr int T = (1 << L) >> RL;
    constexpr int FPB = T >= THR ? 1 : THR / T;
    constexpr bool S2 = T >= 16 && L >= 8;
    return launch<L, RL, FPB, K_ROW, OP, S2, MINB>(A, (A.batch + FPB - 1) / FPB, st, ei);
}

/* Block shape, measured on an H100 (variants swept in one binary): real input (r2c, stft)
 * at 2^7..2^13 complex points does best with 128-thread blocks (or one frame of T > 128
 * threads) and registers capped at 64 (no spills); c2c with 256 threads uncapped. 8 points a
 * thread or 512-thread blocks were slower or no better. C2C 2^13: 32 points a thread (one
 * 256-thread block a frame), two blocks an SM: 1.00x cuFFT on an H100 as the 16-point
 * kernel, 1.01x on an H200 where that one made 0.93x (2^26 points a run). R2C n = 1024 and
 * 2048 (2^9, 2^10 complex points): one frame a block (32 and 64 threads), 16 points a
 * thread, as cuFFT's kernels there: on an H200 0.96-1.00x cuFFT in three runs, where
 * 128-thread blocks of 2 frames made 0.92-0.99x (n = 1024 with 8 points a thread:
 * 0.94-0.99x). */
template <int OP, int L> int launch_row_L(const FArgs &A, cudaStream_t st, sp_errinfo *ei)
{
    constexpr int RL = OP == O_C2C && L == 13 ? 5 : row_rl(L);
    constexpr int T = (1 << L) >> RL;
    constexpr int TH = T >= 128 ? T : 128;
    constexpr int MINB = 65536 / (TH * 64) > 0 ? 65536 / (TH * 64) : 1;
    if constexpr (OP == O_R2C && (L == 9 || L == 10))
        return launch_row_cfg<OP, L, 4, (1 << L) / 16, 65536 / ((1 << L) / 16 * 64)>(A, st, ei);
    else if constexpr (OP == O_C2C && L == 13)
        return launch_row_cfg<OP, L, RL, 128, 2>(A, st, ei);
    else if constexpr (L >= 7 && L <= 13 && OP != O_C2C)
        return launch_row_cfg<OP, L, RL, 128, MINB>(A, st, ei);
    else
        return launch_row_cfg<OP, L, RL, 256, 0>(A, st, ei);
}

template <int OP> int launch_row(unsigned L, const FArgs &A, cudaStream_t st, sp_errinfo *ei)
{
    switch (L) {
    case 3: return launch_row_L<OP, 3>(A, st, ei);
    case 4: return launch_row_L<OP, 4>(A, st, ei);
    case 5: return launch_row_L<OP, 5>(A, st, ei);
    case 6: return launch_row_L<OP, 6>(A, st, ei);
    case 7: return launch_row_L<OP, 7>(A, st, ei);
    case 8: return launch_row_L<OP, 8>(A, st, ei);
    case 9: return launch_row_L<OP, 9>(A, st, ei);
    case 10: return launch_row_L<OP, 10>(A, st, ei);
    case 11: return launch_row_L<OP, 11>(A, st, ei);
    case 12: return launch_row_L<OP, 12>(A, st, ei);
    case 13: return launch_row_L<OP, 13>(A, st, ei);
    case 14: return launch_row_L<OP, 14>(A, st, ei);
    default:
        break;
    }
    return sp_fail(ei, SP_EUNSUPPORTED, "fused FFT: no one-pass kernel for 2^%u points", L);
}

/* ---- one block an SM, frames streamed in by the copy engine (sm_90) ----
 * The one-block kernel at N = 2^14 holds a whole frame on an SM (128 KB of shared memory,
 * the registers of 512 threads), so an SM alternates between loading, computing and
 * storing, and its loads are 8-byte LDGs that fill the load queue. Here a persistent block
 * loops over frames g = blockIdx.x, + gridDim.x, ...: the frame arrives in shared memory by
 * bulk copies (cp.async.bulk, counted on an mbarrier), pass 0 reads it from there (the bit
 * reversal is the read pattern, lanes on consecutive points: no bank conflict), and as soon
 * as the last exchange has been read the next frame's copy starts, so it flies while the
 * last pass computes and stores. It pays where memory is fast for the SMs: at 2^26 points a
 * run it reached 0.85 of copy speed on an H200 (the one-block kernel 0.78), but 0.90 on an
 * H100 (one-block 0.96), where pass 0's extra shared-memory read costs more than the
 * overlap wins (fused_stream_pays() chooses). */
template <int L, int RL> struct SCfg {
    using C = Cfg<L, RL, 1, K_ROW, true>;
    static constexpr int CHUNKS = 8; /* bulk copies a frame */
    static constexpr unsigned FRAME_BYTES = (1u << L) * 8u, CHUNK_BYTES = FRAME_BYTES / CHUNKS;
    static constexpr size_t BAR_OFF = (size_t)C::FS2 * sizeof(float2); /* the mbarrier after the points */
    static constexpr size_t SMEM = BAR_OFF + 16;
    static_assert(CHUNK_BYTES % 16 == 0 && BAR_OFF % 8 == 0, "bulk copy and mbarrier alignment");
};

template <int L, int RL>
__global__ void __launch_bounds__(Cfg<L, RL, 1, K_ROW, true>::THREADS, 1) stream_c2c_kernel(const FArgs A)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    using K = SCfg<L, RL>;
    using C = typename K::C;
    constexpr int R = C::R;
    extern __shared__ __align__(128) float smem[];
    float2 *s_c = reinterpret_cast<float2 *>(smem);
    auto smem_addr = [](const void *p) { return (unsigned)__cvta_generic_to_shared(p); };
    const unsigned bar = smem_addr(reinterpret_cast<char *>(smem) + K::BAR_OFF);
    const unsigned tid = threadIdx.x;
    /* thread 0: the copies of frame g, completing on the mbarrier's current phase */
    auto fetch = [&](size_t g) {
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(K::FRAME_BYTES)
                     : "memory");
        const char *src = reinterpret_cast<const char *>(A.in + (g << L));
        for (int c = 0; c < K::CHUNKS; c++)
            asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                         ::"r"(smem_addr(s_c) + c * K::CHUNK_BYTES), "l"(src + (size_t)c * K::CHUNK_BYTES),
                         "r"(K::CHUNK_BYTES), "r"(bar)
                         : "memory");
    };
    if (tid == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar) : "memory");
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); /* the copy engine sees it */
        if (blockIdx.x < A.batch)
            fetch(blockIdx.x);
    }
    __syncthreads();
    unsigned phase = 0;
    for (size_t g = blockIdx.x; g < A.batch; g += gridDim.x) {
        asm volatile("{\n\t.reg .pred p;\n\tWAIT:\n\t"
                     "mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n\t"
                     "@!p bra WAIT;\n\t}" ::"r"(bar), "r"(phase)
                     : "memory");
        phase ^= 1u;
        float2 v[R];
        {
            const unsigned ti = scatter<L, RL, 0>(tid);
            const float2 *src = s_c + ti;
            unroll<R>([&](auto E) {
                constexpr int e = SP_CI(E);
                v[e] = src[ELEM<L, RL, 0, e>];
            });
            levels<L, RL, 0>(v, ti, A.tw, A.tws, A.inverse, ti);
        }
        __syncthreads(); /* pass 0 has read the frame before the exchange overwrites it */
        const size_t next = g + gridDim.x;
        exchange_passes<L, RL, 1, K_ROW, true, O_C2C, 1>(v, smem, smem, tid, A, [&]() {
            /* every thread's shared-memory accesses are done and ordered before the copy
             * engine writes there */
            asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
            __syncthreads();
            if (tid == 0 && next < A.batch)
                fetch(next);
        });
        const unsigned pt = rev_var<L>(scatter<L, RL, C::NP - 1>(tid));
        float2 *dst = A.out + (g << L) + pt;
        unroll<R>([&](auto E) {
            constexpr int e = SP_CI(E);
            dst[RELEM<L, RL, C::NP - 1, e>] = make_float2(v[e].x * A.scale, v[e].y * A.scale);
        });
    }
#endif
}

/* SMs of the current device (one device per process) */
int sm_count()
{
    static std::atomic<int> n{0};
    if (n == 0) {
        int dev = 0, v = 0;
        if (cudaGetDevice(&dev) == cudaSuccess &&
            cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, dev) == cudaSuccess && v > 0)
            n = v;
        else
            (void)cudaGetLastError();
    }
    return n;
}

template <int L, int RL> int launch_stream(const FArgs &A, cudaStream_t st, sp_errinfo *ei)
{
    static_assert(SCfg<L, RL>::C::NP >= 2, "the next frame's copy starts in the last exchange");
    static std::atomic<bool> raised{false};
    const size_t nsm = (size_t)(sm_count() > 0 ? sm_count() : 1);
    return launch_kernel(stream_c2c_kernel<L, RL>, raised, SCfg<L, RL>::SMEM, SCfg<L, RL>::C::THREADS,
                         A.batch < nsm ? A.batch : nsm, A, st, ei, "stream_c2c_kernel");
}

/* ---- one pass across a thread-block cluster (distributed shared memory) ----
 * N = N1 N2 = 2^(L1+L2), a cluster of C = 2^LC blocks a transform, each block holding N/C
 * points. Block c does the N1-point FFTs of the columns n2 in [c N2/C, (c+1) N2/C) of x
 * viewed as N1 x N2 (K_COL1's passes, FPB1 = N2/C columns), multiplies W_N^(n2 k1), and
 * writes Y[k1][n2] into the shared memory of block k1 / (N1/C), row k1 mod (N1/C). After a
 * cluster barrier each block does the N2-point FFTs of its N1/C rows (K_ROW2COL's passes)
 * and stores X[k1 + N1 k2]. Device memory is read once and written once, as in the one-pass
 * kernel; the four-step's transpose crosses the cluster instead. */
template <int L1, int L2, int LC> struct CCfg {
    static constexpr int RL = 4, FPB1 = 1 << (L2 - LC), FPB2 = 1 << (L1 - LC);
    using C1 = Cfg<L1, RL, FPB1, K_COL1>;
    using C2 = Cfg<L2, RL, FPB2, K_ROW2COL>;
    static_assert(C1::THREADS == C2::THREADS, "both phases use every thread");
    static constexpr int THREADS = C1::THREADS, MINB = THREADS >= 1024 ? 1 : 1024 / THREADS;
    /* rows of the second phase; with T2 < 16 threads a row a half warp reads two rows, which
     * the pad puts on different banks */
    static constexpr int RS = (1 << L2) + (C2::T < 16 ? C2::T : 0);
    static constexpr size_t ROWS = (size_t)FPB2 * RS * sizeof(float2);
    static constexpr size_t SMEM = C1::SMEM > C2::SMEM ? (C1::SMEM > ROWS ? C1::SMEM : ROWS)
                                                       : (C2::SMEM > ROWS ? C2::SMEM : ROWS);
};

/* Launched with a cluster of 2^LC blocks (launch_kernel). Clusters need sm_90: built for an
 * older architecture the body is empty and fused_sm90_ok() says so, which keeps the
 * four-step for these sizes. */
template <int L1, int L2, int LC>
__global__ void __launch_bounds__(CCfg<L1, L2, LC>::THREADS, CCfg<L1, L2, LC>::MINB)
    cluster_fft_kernel(const FArgs A)
{
    using K = CCfg<L1, L2, LC>;
    constexpr int RL = K::RL, R = 1 << RL;
    constexpr int NP1 = K::C1::NP, NP2 = K::C2::NP;
    static_assert(NP1 >= 1 && NP2 >= 1 && R == 16, "16 points a thread, both phases");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    namespace cg = cooperative_groups;
    constexpr int L = L1 + L2;
    extern __shared__ float smem[];
    float2 *rows = reinterpret_cast<float2 *>(smem);
    cg::cluster_group cl = cg::this_cluster();
    const unsigned tid = threadIdx.x, c = cl.block_rank();
    const size_t b = blockIdx.x >> LC;
    float2 v[R];

    /* phase 1: columns (lanes across columns), A.tws for N1 */
    {
        unsigned f, t;
        thread_ft<K::C1::T, K::FPB1, true>(tid, f, t);
        const unsigned ti = scatter<L1, RL, 0>(t);
        const float2 *src = A.in + (b << L) + (c << (L2 - LC)) + f;
        unroll<R>([&](auto E) {
            constexpr int e = SP_CI(E);
            v[e] = src[(size_t)(ti | ELEM<L1, RL, 0, e>) << L2];
        });
        levels<L1, RL, 0>(v, ti, A.tw, A.tws, A.inverse, ti);
    }
    exchange_passes<L1, RL, K::FPB1, K_COL1, false, O_C2C, 1>(v, smem, smem + K::FPB1 * K::C1::FS, tid, A);
    cl.sync(); /* every block is done with its phase-1 shared memory */
    {
        unsigned f, t;
        thread_ft<K::C1::T, K::FPB1, true>(tid, f, t);
        const unsigned pt = rev_var<L1>(scatter<L1, RL, NP1 - 1>(t));
        const unsigned n2 = (c << (L2 - LC)) + f;
        put_twiddled<L1, RL, NP1 - 1>(v, A, n2, pt, [&](auto E, float2 x) {
            const unsigned k1 = pt | RELEM<L1, RL, NP1 - 1, SP_CI(E)>;
            float2 *dst = cl.map_shared_rank(rows, (int)(k1 >> (L1 - LC)));
            dst[(k1 & (K::FPB2 - 1)) * K::RS + n2] = x;
        });
    }
    cl.sync(); /* Y is in place */

    /* phase 2: rows of this block (lanes along a row, then across rows) */
    FArgs A2 = A;
    A2.tws = A.tws + L1 - L2;
    {
        unsigned f, t;
        thread_ft<K::C2::T, K::FPB2, false>(tid, f, t);
        const unsigned ti = scatter<L2, RL, 0>(t);
        const float2 *src = rows + f * K::RS + ti;
        unroll<R>([&](auto E) {
            constexpr int e = SP_CI(E);
            v[e] = src[ELEM<L2, RL, 0, e>];
        });
        levels<L2, RL, 0>(v, ti, A2.tw, A2.tws, A2.inverse, ti);
    }
    __syncthreads(); /* the rows are read before the exchange reuses the memory */
    exchange_passes<L2, RL, K::FPB2, K_ROW2COL, false, O_C2C, 1>(v, smem, smem + K::FPB2 * K::C2::FS, tid, A2);
    {
        unsigned f, t;
        thread_ft<K::C2::T, K::FPB2, K::C2::modeF(NP2 - 1)>(tid, f, t);
        const unsigned pt = rev_var<L2>(scatter<L2, RL, NP2 - 1>(t));
        float2 *dst = A.out + (b << L) + (c << (L1 - LC)) + f;
        unroll<R>([&](auto E) {
            constexpr int e = SP_CI(E);
            const unsigned k2 = pt | RELEM<L2, RL, NP2 - 1, e>;
            dst[(size_t)k2 << L1] = make_float2(v[e].x * A.scale, v[e].y * A.scale);
        });
    }
#endif
}

template <int L1, int L2, int LC>
int launch_cluster(const FArgs &base, cudaStream_t st, sp_errinfo *ei)
{
    using K = CCfg<L1, L2, LC>;
    FArgs A = base;
    A.log2_full = L1 + L2;
    A.full_shift = base.tws;
    A.tws = base.tws + L2; /* log2 M - L1 */
    static std::atomic<bool> raised{false};
    return launch_kernel(cluster_fft_kernel<L1, L2, LC>, raised, K::SMEM, K::THREADS, A.batch << LC, A, st,
                         ei, "cluster_fft_kernel", 1u << LC);
}

/* Clusters of 8 blocks (the portable maximum), measured on an H100 against 4 (and 2 at
 * 2^14, where the one-block kernel stays faster). */
int launch_cluster_L(unsigned L, const FArgs &A, cudaStream_t st, sp_errinfo *ei)
{
    switch (L) {
    case 15: return launch_cluster<7, 8, 3>(A, st, ei);
    case 16: return launch_cluster<8, 8, 3>(A, st, ei);
    case 17: return launch_cluster<8, 9, 3>(A, st, ei);
    default: break;
    }
    return sp_fail(ei, SP_EUNSUPPORTED, "fused FFT: no cluster kernel for 2^%u points", L);
}

/* four-step halves: FPB columns a block, FPB*N1 points of shared memory <= ~64 KB */
#define SP_COLS(LL) ((LL) <= 9 ? 16 : (1 << (13 - (LL))))

int launch_fourstep(unsigned L, const FArgs &base, const float2 *d_in, float2 *d_out,
                    float2 *d_tmp, cudaStream_t st, sp_errinfo *ei)
{
    const unsigned L1 = L / 2, L2 = L - L1;
    const unsigned log2M = base.tws + L;
    FArgs A = base;
    int err;
    A.log2_full = L;
    A.full_shift = log2M - L;

    A.in = d_in;
    A.out = d_tmp;
    A.log2_other = L2;
    A.tws = log2M - L1;
    switch (L1) {
#define SP_C1(LL)                                                                              \
    case LL: {                                                                                 \
        constexpr int F_ = SP_COLS(LL);                                                        \
        err = launch<LL, 4, F_, K_COL1, O_C2C>(A, A.batch << (L2 - __builtin_ctz(F_)), st, ei); \
        break;                                                                                 \
    }
        SP_C1(7)
        SP_C1(8)
        SP_C1(9)
        SP_C1(10)
        SP_C1(11)
#undef SP_C1
    default:
        return sp_fail(ei, SP_EUNSUPPORTED, "fused FFT: no four-step split for 2^%u points", L);
    }
    if (err != SP_OK)
        return err;

    A.in = d_tmp;
    A.out = d_out;
    A.log2_other = L1;
    A.tws = log2M - L2;
    switch (L2) {
#define SP_C2(LL)                                                                              \
    case LL: {                                                                                 \
        constexpr int F_ = SP_COLS(LL);                                                        \
        err = launch<LL, 4, F_, K_ROW2COL, O_C2C>(A, A.batch << (L1 - __builtin_ctz(F_)), st, ei); \
        break;                                                                                 \
    }
        SP_C2(8)
        SP_C2(9)
        SP_C2(10)
        SP_C2(11)
#undef SP_C2
    default:
        return sp_fail(ei, SP_EUNSUPPORTED, "fused FFT: no four-step split for 2^%u points", L);
    }
    return err;
}

/* a = |X| s > 1e-10 <=> q = |2X|^2 > 4e-20 / s^2; 20 log10 a = 10 log10 q + 20 log10(s/2).
 * s <= 0 or NaN: every level is the floor, as with a = |X| s. */
void db_consts(float s, float *thr, float *off)
{
    if (!(s > 0.0f)) {
        *thr = INFINITY;
        *off = -INFINITY;
        return;
    }
    double sd = s;
    *thr = (float)(4e-20 / (sd * sd));
    *off = (float)(20.0 * log10(sd / 2.0));
}

FArgs args_base(const cpx *d_tw, unsigned log2tw, unsigned L, size_t batch)
{
    FArgs A = {};
    A.tw = (const float2 *)d_tw;
    A.batch = batch;
    A.scale = 1.0f;
    A.tws = log2tw - L;
    return A;
}

} // namespace

extern "C" int fused_sm90_ok(void)
{
    /* the architecture of the code chosen for this device: clusters from sm_90 */
    static std::atomic<int> ok{-1};
    if (ok < 0) {
        cudaFuncAttributes fa;
        if (cudaFuncGetAttributes(&fa, cluster_fft_kernel<8, 8, 3>) == cudaSuccess)
            ok = fa.binaryVersion >= 90;
        else
            (void)cudaGetLastError(); /* not sticky: no usable code, no clusters */
        if (ok < 0)
            ok = 0;
    }
    return ok;
}

extern "C" int fused_stream_pays(void)
{
    /* peak DRAM bytes per SM cycle, from the datasheets: H100 SXM 3.35 TB/s over 132 SMs at
     * 1.98 GHz = 12.8, H200 4.8 TB/s = 18.4 */
    static std::atomic<int> pays{-1};
    if (pays < 0) {
        int dev = 0, mem_khz = 0, bus_bits = 0, sm_khz = 0;
        const int sms = sm_count();
        int v = 0;
        if (fused_sm90_ok() && sms > 0 && cudaGetDevice(&dev) == cudaSuccess &&
            cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, dev) == cudaSuccess &&
            cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, dev) == cudaSuccess &&
            cudaDeviceGetAttribute(&sm_khz, cudaDevAttrClockRate, dev) == cudaSuccess && sm_khz > 0) {
            const double bytes_per_s = 2.0 * mem_khz * 1e3 * bus_bits / 8.0; /* double data rate */
            v = bytes_per_s / ((double)sms * sm_khz * 1e3) >= 16.0;
        } else {
            (void)cudaGetLastError();
        }
        pays = v;
    }
    return pays;
}

extern "C" int fused_c2c(void *stream, const cpx *d_tw, unsigned log2tw, const cpx *d_in, cpx *d_out,
                         cpx *d_tmp, unsigned log2N, size_t batch, int inverse, float scale,
                         unsigned flags, sp_errinfo *ei)
{
    const int sm90 = (flags & FUSED_SM90) && fused_sm90_ok();
    if (log2N < 4 || log2N > 22 || log2N > log2tw)
        return sp_fail(ei, SP_EUNSUPPORTED, "fused FFT: 2^%u points not covered", log2N);
    FArgs A = args_base(d_tw, log2tw, log2N, batch);
    A.inverse = inverse;
    A.scale = scale;
    cudaStream_t st = (cudaStream_t)stream;
    if (log2N <= FUSED_MAX_ONEPASS_LOG2 || (log2N <= FUSED_MAX_CLUSTER_LOG2 && sm90)) {
        A.in = (const float2 *)d_in;
        A.out = (float2 *)d_out;
        /* the bulk copies need 16-byte aligned frames */
        if (log2N == 14 && sm90 && (flags & FUSED_STREAM) && ((uintptr_t)d_in & 15) == 0)
            return launch_stream<14, 5>(A, st, ei);
        return log2N <= FUSED_MAX_ONEPASS_LOG2 ? launch_row<O_C2C>(log2N, A, st, ei)
                                               : launch_cluster_L(log2N, A, st, ei);
    }
    if (!d_tmp)
        return sp_fail(ei, SP_EINVAL, "fused FFT: four-step needs a scratch buffer");
    return launch_fourstep(log2N, A, (const float2 *)d_in, (float2 *)d_out, (float2 *)d_tmp, st, ei);
}

extern "C" int fused_r2c(void *stream, const cpx *d_tw, unsigned log2tw, const float *d_in, cpx *d_out,
                         unsigned log2n, size_t batch, sp_errinfo *ei)
{
    if (log2n < 4 || log2n > FUSED_MAX_ONEPASS_LOG2 + 1 || log2n > log2tw)
        return sp_fail(ei, SP_EUNSUPPORTED, "fused real FFT: 2^%u points not covered", log2n);
    if (log2n == 8) { /* see O_R2CZ */
        FArgs A = args_base(d_tw, log2tw, log2n, batch);
        A.sig = d_in;
        A.hop = (size_t)1 << log2n;
        A.spec = (float2 *)d_out;
        return launch_row_cfg<O_R2CZ, 8, 4, 128, 8>(A, (cudaStream_t)stream, ei);
    }
    FArgs A = args_base(d_tw, log2tw, log2n - 1, batch);
    A.sig = d_in;
    A.hop = (size_t)1 << log2n;
    A.spec = (float2 *)d_out;
    return launch_row<O_R2C>(log2n - 1, A, (cudaStream_t)stream, ei);
}

extern "C" int fused_stft_db(void *stream, const cpx *d_tw, unsigned log2tw, const float *d_sig,
                             size_t hop, const float *d_win, float scale_mid, float scale_edge,
                             unsigned log2n, size_t nframes, float *d_db, sp_errinfo *ei)
{
    if (log2n < 4 || log2n > FUSED_MAX_ONEPASS_LOG2 + 1 || log2n > log2tw)
        return sp_fail(ei, SP_EUNSUPPORTED, "fused STFT: 2^%u points not covered", log2n);
    FArgs A = args_base(d_tw, log2tw, log2n - 1, nframes);
    A.sig = d_sig;
    A.hop = hop;
    A.win = d_win;
    A.db = d_db;
    db_consts(scale_mid, &A.thr_mid, &A.off_mid);
    db_consts(scale_edge, &A.thr_edge, &A.off_edge);
    return launch_row<O_STFT>(log2n - 1, A, (cudaStream_t)stream, ei);
}
