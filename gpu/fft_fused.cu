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
 *   - between passes the points go through shared memory, re and im in separate float
 *     arrays at index i, XOR-swizzled (low 5 bits ^= top 5 bits, N >= 1024) so that both
 *     lane patterns hit 32 different banks; frames of a block are padded apart.
 *
 * Kinds of kernel (template KIND):
 *   K_ROW     frames contiguous in memory (c2c; r2c / stft read reals and untangle in shared
 *             memory before the store). Several frames a block when T < 256.
 *   K_COL1    four-step first half: FPB adjacent columns n2 of x viewed as N1 x N2
 *             (element n1 at n1*N2 + n2), lanes across the columns (FPB*8 contiguous
 *             bytes a row); stores Y[k1][n2] * W_N^(n2 k1) in the same layout.
 *   K_ROW2COL four-step second half: rows k1 of Y (contiguous), N2-point FFT, stored to
 *             X[k1 + N1*k2] with lanes across the FPB rows (the transpose happens in the
 *             shared-memory exchanges).
 * Twiddles come from one table in float made in double (fft_cuda.cu); L1 keeps it. */
#include "fft_fused.h"

#include <cuda_runtime.h>

#include <cstdint>

#include "gpu_plan.h"

static_assert(sizeof(cpx) == sizeof(float2), "cpx must have the layout of float2");

namespace {

enum { K_ROW = 0, K_COL1 = 1, K_ROW2COL = 2 };
enum { O_C2C = 0, O_R2C = 1, O_STFT = 2 };

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
    float scale, scale_mid, scale_edge;
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

template <int L, int RL, int FPB, int KIND> struct Cfg {
    static constexpr int N = 1 << L, R = 1 << RL, T = N / R, NP = (L + RL - 1) / RL;
    /* frame stride in shared memory: pads frames apart so that lanes of different frames
     * fall in different banks */
    static constexpr int PADF = KIND == K_ROW ? (T < 32 ? T : 0) : (FPB >= 32 ? 1 : 32 / FPB);
    static constexpr int FS = N + PADF;
    static constexpr int THREADS = T * FPB;
    static constexpr size_t SMEM = 2u * (size_t)FPB * FS * sizeof(float);
    /* blocks an SM should hold. ncu on N = 4096: 79 registers allow 3 blocks (37%
     * occupancy); capping at 64 registers (SPECTRO_FUSED_REG_CAP=1, measured against the
     * default) spills 40-300 bytes a thread to local memory. */
#if defined(SPECTRO_FUSED_REG_CAP) && SPECTRO_FUSED_REG_CAP
    static constexpr int MINB = RL >= 5 ? 1 : THREADS <= 256 ? 4 : THREADS <= 512 ? 2 : 1;
#endif
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

template <int L, int RL, int Q> __device__ __forceinline__ unsigned scatter(unsigned t)
{
    unsigned r = 0;
#pragma unroll
    for (int k = 0; k < L - RL; k++)
        r |= ((t >> k) & 1u) << PG<L, RL, Q>::slot(k);
    return r;
}

template <int L> __device__ __forceinline__ unsigned swz(unsigned i)
{
    if constexpr (L >= 10)
        return i ^ ((i >> (L - 5)) & 31u);
    else
        return i;
}

template <int L> __device__ __forceinline__ unsigned rev_var(unsigned x)
{
    return __brev(x) >> (32 - L);
}

__device__ __forceinline__ float2 cmul(float2 a, float2 b)
{
    return make_float2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

/* Levels lo+1 .. lo+w of pass Q on the thread's points; ti = the thread's i bits. */
template <int L, int RL, int Q>
__device__ __forceinline__ void levels(float2 (&v)[1 << RL], unsigned ti, const float2 *__restrict__ tw,
                                       unsigned tws, int inv)
{
    using G = PG<L, RL, Q>;
    constexpr int R = 1 << RL, W = 1 << G::w;
    const unsigned pt = G::lo > 0 ? rev_var<L>(ti) : 0u;
#pragma unroll
    for (int h = 0; h < R / W; h++) {
        unsigned pg = 0; /* p bits [0, lo) of this group: the twiddle's low bits */
        if (G::lo > 0)
            pg = (pt | crev(G::elem(h * W), L)) & ((1u << G::lo) - 1u);
#pragma unroll
        for (int k = 1; k <= G::w; k++) {
            const int half = 1 << (k - 1);
            const unsigned sh = (unsigned)(L - (G::lo + k)) + tws;
            /* twiddle of j = pg + e' 2^lo at level s = lo + k: W_{2^s}^pg * W_{2^k}^e'. One
             * load a level at a thread-dependent address (W^pg); the W_{2^k}^e' are the same
             * for every lane (broadcast loads, L1 hits). */
            float2 wb = make_float2(1.0f, 0.0f);
            if (G::lo > 0) {
                wb = __ldg(tw + (pg << sh));
                if (inv)
                    wb.y = -wb.y;
            }
#pragma unroll
            for (int e = 0; e < W; e++) {
                if (e & half)
                    continue;
                const int ep = e & (half - 1);
                float2 x0 = v[h * W + e], x1 = v[h * W + e + half];
                if (!(G::lo == 0 && ep == 0)) { /* else W^0 = 1 */
                    float2 wv = wb;
                    if (ep != 0) {
                        float2 c = __ldg(tw + ((unsigned)ep << ((unsigned)(L - k) + tws)));
                        if (inv)
                            c.y = -c.y;
                        wv = G::lo > 0 ? cmul(wb, c) : c;
                    }
                    x1 = cmul(x1, wv);
                }
                v[h * W + e] = make_float2(x0.x + x1.x, x0.y + x1.y);
                v[h * W + e + half] = make_float2(x0.x - x1.x, x0.y - x1.y);
            }
        }
    }
}

/* Pass Q >= 1: pass Q-1's points to shared memory, pass Q's points back, its levels. */
template <int L, int RL, int FPB, int KIND, int Q>
__device__ __forceinline__ void exchange_passes(float2 (&v)[1 << RL], float *s_re, float *s_im,
                                                unsigned tid, const FArgs &A)
{
    using C = Cfg<L, RL, FPB, KIND>;
    if constexpr (Q < C::NP) {
        {
            unsigned f, t;
            thread_ft<C::T, FPB, C::modeF(Q - 1)>(tid, f, t);
            const unsigned ti = scatter<L, RL, Q - 1>(t);
            float *pr = s_re + f * C::FS, *pi = s_im + f * C::FS;
            /* swz is linear over XOR and ti, elem(e) have disjoint bits: one LOP a point */
            const unsigned sti = swz<L>(ti);
            if (Q > 1)
                __syncthreads(); /* everyone has read pass Q-1's input */
#pragma unroll
            for (int e = 0; e < C::R; e++) {
                unsigned a = sti ^ swz<L>(PG<L, RL, Q - 1>::elem(e));
                pr[a] = v[e].x;
                pi[a] = v[e].y;
            }
        }
        __syncthreads();
        {
            unsigned f, t;
            thread_ft<C::T, FPB, C::modeF(Q)>(tid, f, t);
            const unsigned ti = scatter<L, RL, Q>(t);
            const float *pr = s_re + f * C::FS, *pi = s_im + f * C::FS;
            const unsigned sti = swz<L>(ti);
#pragma unroll
            for (int e = 0; e < C::R; e++) {
                unsigned a = sti ^ swz<L>(PG<L, RL, Q>::elem(e));
                v[e] = make_float2(pr[a], pi[a]);
            }
            levels<L, RL, Q>(v, ti, A.tw, A.tws, A.inverse);
        }
        exchange_passes<L, RL, FPB, KIND, Q + 1>(v, s_re, s_im, tid, A);
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

template <int L, int RL, int FPB, int KIND, int OP>
__global__ void
#if defined(SPECTRO_FUSED_REG_CAP) && SPECTRO_FUSED_REG_CAP
__launch_bounds__(Cfg<L, RL, FPB, KIND>::THREADS, Cfg<L, RL, FPB, KIND>::MINB)
#else
/* (with a second argument, even 1, ptxas allocated 114 instead of 79 registers at N=4096) */
__launch_bounds__(Cfg<L, RL, FPB, KIND>::THREADS)
#endif
    fused_fft_kernel(const FArgs A)
{
    using C = Cfg<L, RL, FPB, KIND>;
    constexpr int R = C::R, T = C::T, NP = C::NP, N = C::N;
    constexpr int LOGFPB = FPB >= 256 ? 8 : FPB >= 128 ? 7 : FPB >= 64 ? 6 : FPB >= 32 ? 5
                           : FPB >= 16 ? 4 : FPB >= 8 ? 3 : FPB >= 4 ? 2 : FPB >= 2 ? 1 : 0;
    extern __shared__ float smem[];
    float *s_re = smem, *s_im = smem + FPB * C::FS;
    const unsigned tid = threadIdx.x;
    float2 v[R];

    /* ---- pass 0: load (bit reversal folded in) and the first levels ---- */
    {
        unsigned f, t;
        thread_ft<T, FPB, C::modeF(0)>(tid, f, t);
        const unsigned ti = scatter<L, RL, 0>(t);
        if constexpr (KIND == K_ROW) {
            const size_t g = (size_t)blockIdx.x * FPB + f;
            const bool ok = g < A.batch;
            if constexpr (OP == O_C2C) {
                /* disjoint bits: base + constant, the constant an immediate offset */
                const float2 *src = A.in + (g << L) + ti;
#pragma unroll
                for (int e = 0; e < R; e++)
                    v[e] = ok ? src[PG<L, RL, 0>::elem(e)] : make_float2(0.f, 0.f);
            } else {
                /* real frame: z_i = x_2i + i x_2i+1 (times the window) */
                const size_t off = g * A.hop;
                const float *src = A.sig + off;
                if (!ok) {
#pragma unroll
                    for (int e = 0; e < R; e++)
                        v[e] = make_float2(0.f, 0.f);
                } else if ((off & 1) == 0) { /* 8-byte aligned pairs */
                    const float2 *src2 = reinterpret_cast<const float2 *>(src) + ti;
#pragma unroll
                    for (int e = 0; e < R; e++)
                        v[e] = __ldg(src2 + PG<L, RL, 0>::elem(e));
                } else {
#pragma unroll
                    for (int e = 0; e < R; e++) {
                        unsigned i = ti | PG<L, RL, 0>::elem(e);
                        v[e] = make_float2(__ldg(src + 2 * i), __ldg(src + 2 * i + 1));
                    }
                }
                if constexpr (OP == O_STFT) {
                    const float2 *win2 = reinterpret_cast<const float2 *>(A.win) + ti;
#pragma unroll
                    for (int e = 0; e < R; e++) {
                        float2 wv = __ldg(win2 + PG<L, RL, 0>::elem(e));
                        v[e].x *= wv.x;
                        v[e].y *= wv.y;
                    }
                }
            }
        } else if constexpr (KIND == K_COL1) {
            const unsigned pl = A.log2_other - LOGFPB; /* log2 blocks a transform */
            const size_t b = blockIdx.x >> pl;
            const size_t n2 = ((size_t)(blockIdx.x & ((1u << pl) - 1u)) << LOGFPB) + f;
            const float2 *src = A.in + (b << A.log2_full) + n2;
#pragma unroll
            for (int e = 0; e < R; e++)
                v[e] = src[(size_t)(ti | PG<L, RL, 0>::elem(e)) << A.log2_other];
        } else {
            const unsigned pl = A.log2_other - LOGFPB;
            const size_t b = blockIdx.x >> pl;
            const size_t k1 = ((size_t)(blockIdx.x & ((1u << pl) - 1u)) << LOGFPB) + f;
            const float2 *src = A.in + (b << A.log2_full) + (k1 << L) + ti;
#pragma unroll
            for (int e = 0; e < R; e++)
                v[e] = src[PG<L, RL, 0>::elem(e)];
        }
        levels<L, RL, 0>(v, ti, A.tw, A.tws, A.inverse);
    }

    /* ---- passes 1 .. NP-1 through shared memory ---- */
    exchange_passes<L, RL, FPB, KIND, 1>(v, s_re, s_im, tid, A);

    /* ---- store (positions p = rev(i) are the output bins) ---- */
    using GL = PG<L, RL, NP - 1>;
    unsigned f, t;
    thread_ft<T, FPB, C::modeF(NP - 1)>(tid, f, t);
    const unsigned ti = scatter<L, RL, NP - 1>(t);
    const unsigned pt = rev_var<L>(ti);
    if constexpr (KIND == K_ROW && OP == O_C2C) {
        const size_t g = (size_t)blockIdx.x * FPB + f;
        if (g < A.batch) {
            float2 *dst = A.out + (g << L) + pt;
#pragma unroll
            for (int e = 0; e < R; e++)
                dst[crev(GL::elem(e), L)] = make_float2(v[e].x * A.scale, v[e].y * A.scale);
        }
    } else if constexpr (KIND == K_ROW) {
        /* real input: Z_k to shared memory in natural order, then bins k and N-k together:
         * E = (Z_k + conj Z_{N-k})/2, O = (Z_k - conj Z_{N-k})/2i, X_k = E + W_2N^k O,
         * X_{N-k} = conj(E - W_2N^k O) */
        float *pr = s_re + f * C::FS, *pi = s_im + f * C::FS;
        if (NP > 1)
            __syncthreads();
        float *pr0 = pr + pt, *pi0 = pi + pt;
#pragma unroll
        for (int e = 0; e < R; e++) {
            pr0[crev(GL::elem(e), L)] = v[e].x;
            pi0[crev(GL::elem(e), L)] = v[e].y;
        }
        __syncthreads();
        const size_t g = (size_t)blockIdx.x * FPB + f;
        if (g >= A.batch)
            return; /* no barrier follows */
        const size_t ostride = (size_t)N + 1;
#pragma unroll 2
        for (unsigned k = t; k <= (unsigned)N / 2; k += T) {
            const unsigned km = (N - k) & (N - 1);
            float2 a = make_float2(pr[k], pi[k]), b = make_float2(pr[km], pi[km]);
            float2 x0, x1;
            if (k == 0) {
                x0 = make_float2(a.x + a.y, 0.0f);
                x1 = make_float2(a.x - a.y, 0.0f);
            } else {
                float2 ev = make_float2(0.5f * (a.x + b.x), 0.5f * (a.y - b.y));
                float2 od = make_float2(0.5f * (a.y + b.y), -0.5f * (a.x - b.x));
                float2 w = __ldg(A.tw + ((size_t)k << (A.tws - 1)));
                float2 wo = cmul(w, od);
                x0 = make_float2(ev.x + wo.x, ev.y + wo.y);
                x1 = make_float2(ev.x - wo.x, -(ev.y - wo.y));
            }
            const unsigned k1 = N - k; /* k = 0 -> bin N; k = N/2 -> the same bin */
            if constexpr (OP == O_R2C) {
                float2 *dst = A.spec + g * ostride;
                dst[k] = x0;
                if (k1 != k)
                    dst[k1] = x1;
            } else {
                float *dst = A.db + g * ostride;
                float s0 = (k == 0) ? A.scale_edge : A.scale_mid;
                float s1 = (k == 0) ? A.scale_edge : A.scale_mid; /* bin N when k == 0 */
                float a0 = sqrtf(x0.x * x0.x + x0.y * x0.y) * s0;
                dst[k] = (a0 > 1e-10f) ? 20.0f * log10f(a0) : FFT_DB_FLOOR;
                if (k1 != k) {
                    float a1 = sqrtf(x1.x * x1.x + x1.y * x1.y) * s1;
                    dst[k1] = (a1 > 1e-10f) ? 20.0f * log10f(a1) : FFT_DB_FLOOR;
                }
            }
        }
    } else if constexpr (KIND == K_COL1) {
        /* Y[k1][n2] * W_N^(n2 k1), same layout as the input */
        const unsigned pl = A.log2_other - LOGFPB;
        const size_t b = blockIdx.x >> pl;
        const unsigned n2 = ((blockIdx.x & ((1u << pl) - 1u)) << LOGFPB) + f;
        float2 *dst = A.out + (b << A.log2_full) + n2;
#pragma unroll
        for (int e = 0; e < R; e++) {
            unsigned k1 = pt | crev(GL::elem(e), L);
            dst[(size_t)k1 << A.log2_other] = cmul(v[e], twiddle_full(A, n2 * k1));
        }
    } else {
        /* X[k1 + N1*k2] */
        const unsigned pl = A.log2_other - LOGFPB;
        const size_t b = blockIdx.x >> pl;
        const size_t k1 = ((size_t)(blockIdx.x & ((1u << pl) - 1u)) << LOGFPB) + f;
        float2 *dst = A.out + (b << A.log2_full) + k1;
#pragma unroll
        for (int e = 0; e < R; e++) {
            unsigned k2 = pt | crev(GL::elem(e), L);
            dst[(size_t)k2 << A.log2_other] = make_float2(v[e].x * A.scale, v[e].y * A.scale);
        }
    }
}

template <int L, int RL, int FPB, int KIND, int OP>
int launch(const FArgs &A, size_t nblocks, cudaStream_t st, sp_errinfo *ei)
{
    using C = Cfg<L, RL, FPB, KIND>;
    auto kern = fused_fft_kernel<L, RL, FPB, KIND, OP>;
    if (C::SMEM > 48 * 1024) {
        /* per kernel, once (one device per process). The shared-memory carveout is left to
         * the driver: forcing the largest one cost 10-30% (less L1 for the twiddle table). */
        static bool raised = false;
        if (!raised) {
            cudaError_t e = cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                 (int)C::SMEM);
            if (e != cudaSuccess)
                return gpu_fail_cuda(ei, (int)e, "cudaFuncSetAttribute(shared memory)");
            raised = true;
        }
    }
    if (nblocks == 0)
        return SP_OK;
    if (nblocks > 0x7fffffffu)
        return sp_fail(ei, SP_EINVAL, "fused FFT: %zu blocks exceed the grid limit", nblocks);
    kern<<<(unsigned)nblocks, C::THREADS, C::SMEM, st>>>(A);
    return gpu_check_launch(ei, "fused_fft_kernel");
}

/* points a thread (log2) for the row kernels: 16 (r = 4), 8 where that splits the levels
 * into fewer or even passes */
template <int OP> int launch_row(unsigned L, const FArgs &A, cudaStream_t st, sp_errinfo *ei)
{
#define SP_ROW(LL, RLL)                                                                        \
    case LL: {                                                                                 \
        constexpr int T_ = (1 << LL) >> RLL;                                                   \
        constexpr int FPB_ = T_ >= 256 ? 1 : 256 / T_;                                         \
        return launch<LL, RLL, FPB_, K_ROW, OP>(A, (A.batch + FPB_ - 1) / FPB_, st, ei);       \
    }
    switch (L) {
        SP_ROW(3, 3)
        SP_ROW(4, 4)
        SP_ROW(5, 3)
        SP_ROW(6, 3)
        SP_ROW(7, 4)
        SP_ROW(8, 4)
        SP_ROW(9, 3)
        SP_ROW(10, 4)
        SP_ROW(11, 4)
        SP_ROW(12, 4)
        SP_ROW(13, 4)
        SP_ROW(14, 5)
    default:
        break;
    }
#undef SP_ROW
    return sp_fail(ei, SP_EUNSUPPORTED, "fused FFT: no one-pass kernel for 2^%u points", L);
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

extern "C" int fused_c2c(void *stream, const cpx *d_tw, unsigned log2tw, const cpx *d_in, cpx *d_out,
                         cpx *d_tmp, unsigned log2N, size_t batch, int inverse, float scale,
                         sp_errinfo *ei)
{
    if (log2N < 4 || log2N > 22 || log2N > log2tw)
        return sp_fail(ei, SP_EUNSUPPORTED, "fused FFT: 2^%u points not covered", log2N);
    FArgs A = args_base(d_tw, log2tw, log2N, batch);
    A.inverse = inverse;
    A.scale = scale;
    cudaStream_t st = (cudaStream_t)stream;
    if (log2N <= FUSED_MAX_ONEPASS_LOG2) {
        A.in = (const float2 *)d_in;
        A.out = (float2 *)d_out;
        return launch_row<O_C2C>(log2N, A, st, ei);
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
    A.scale_mid = scale_mid;
    A.scale_edge = scale_edge;
    return launch_row<O_STFT>(log2n - 1, A, (cudaStream_t)stream, ei);
}
