/* fft_fused: radix-2 decimation in time, several levels per kernel (see fft_fused.h; the
 * layout and the device-side building blocks are in fft_fused_internal.cuh). This file: the
 * one-pass kernels by kind (K_ROW, K_COL1, K_ROW2COL), their launches (rows, four-step) and
 * the entry points; the sm_90 kernels (streamed frames, clusters) are in fft_fused_sm90.cu. */
#include "fft_fused_bank.cuh"
#include "fft_fused_internal.cuh"

static_assert(sizeof(cpx) == sizeof(float2), "cpx must have the layout of float2");

namespace fused {
namespace {

/* ---- the one-pass kernels, by kind (fused_fft_body dispatches) ---- */

/* log2 FPB for the four-step kinds' block indexing */
__host__ __device__ constexpr int log2_fpb(int FPB)
{
    return FPB >= 256 ? 8 : FPB >= 128 ? 7 : FPB >= 64 ? 6 : FPB >= 32 ? 5
           : FPB >= 16 ? 4 : FPB >= 8 ? 3 : FPB >= 4 ? 2 : FPB >= 2 ? 1 : 0;
}

/* Pass 0's load of a K_ROW kernel, the bit reversal folded in: frame blockIdx.x FPB + f,
 * thread bits ti. False where a one-frame block has no frame: the whole block returns, so
 * no barrier waits for it. */
template <int L, int RL, int FPB, int OP>
__device__ __forceinline__ bool load_row(float2 (&v)[1 << RL], const FArgs &A, unsigned f, unsigned ti,
                                         const float *win)
{
    constexpr int R = 1 << RL;
    const size_t g = (size_t)blockIdx.x * FPB + f;
    if constexpr (FPB == 1) {
        if (g >= A.batch)
            return false;
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
        const size_t off = A.clip_frames ? (g / A.clip_frames) * A.clip_stride + (g % A.clip_frames) * A.hop
                                         : g * A.hop;
        const float *src = A.sig + off;
        if (!ok) {
#pragma unroll
            for (int e = 0; e < R; e++)
                v[e] = make_float2(0.f, 0.f);
        } else if ((reinterpret_cast<uintptr_t>(src) & 7) == 0) {
            /* 8-byte aligned pairs: an even offset into the plan's buffers; a caller's
             * device clip may start anywhere */
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
        if constexpr (is_stft(OP)) {
            const float2 *win2 = reinterpret_cast<const float2 *>(win) + ti;
            unroll<R>([&](auto E) {
                constexpr int e = SP_CI(E);
                float2 wv = __ldg(win2 + ELEM<L, RL, 0, e>);
                v[e].x *= wv.x;
                v[e].y *= wv.y;
            });
        }
    }
    return true;
}

/* Pass 0's load of a four-step half: K_COL1 column n2 (element n1 at n1 N2 + n2), K_ROW2COL
 * row k1 (contiguous); f the block's column or row, ti the thread bits */
template <int L, int RL, int FPB, int KIND>
__device__ __forceinline__ void load_fourstep(float2 (&v)[1 << RL], const FArgs &A, unsigned f, unsigned ti)
{
    constexpr int R = 1 << RL, LOGFPB = log2_fpb(FPB);
    const unsigned pl = A.log2_other - LOGFPB; /* log2 blocks a transform */
    const size_t b = blockIdx.x >> pl;
    if constexpr (KIND == K_COL1) {
        const size_t n2 = ((size_t)(blockIdx.x & ((1u << pl) - 1u)) << LOGFPB) + f;
        const float2 *src = A.in + (b << A.log2_full) + n2;
        unroll<R>([&](auto E) {
            constexpr int e = SP_CI(E);
            v[e] = src[(size_t)(ti | ELEM<L, RL, 0, e>) << A.log2_other];
        });
    } else {
        const size_t k1 = ((size_t)(blockIdx.x & ((1u << pl) - 1u)) << LOGFPB) + f;
        const float2 *src = A.in + (b << A.log2_full) + (k1 << L) + ti;
        unroll<R>([&](auto E) {
            constexpr int e = SP_CI(E);
            v[e] = src[ELEM<L, RL, 0, e>];
        });
    }
}

/* The store of a K_ROW kernel with complex output (c2c; r2c by O_R2CZ: bins 0 .. N/2);
 * pt = the thread's base position p */
template <int L, int RL, int FPB, int OP>
__device__ __forceinline__ void store_row_complex(const float2 (&v)[1 << RL], const FArgs &A, unsigned f,
                                                  unsigned pt)
{
    constexpr int R = 1 << RL, NP = (L + RL - 1) / RL, N = 1 << L;
    const size_t g = (size_t)blockIdx.x * FPB + f;
    if (g >= A.batch)
        return;
    if constexpr (OP == O_C2C) {
        float2 *dst = A.out + (g << L) + pt;
        unroll<R>([&](auto E) {
            constexpr int e = SP_CI(E);
            dst[RELEM<L, RL, NP - 1, e>] = make_float2(v[e].x * A.scale, v[e].y * A.scale);
        });
    } else {
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
}

/* Bins k and N-k of a real-input row (r2c: complex; stft: dB) from a = Z_k, b = Z_{N-k},
 * w = W_2N^k to *pk and *pn; k0: k = 0, bins 0 and N, from a alone; !HAS_N: k = N/2, no pn.
 * E = (Z_k + conj Z_{N-k})/2, O = (Z_k - conj Z_{N-k})/2i, X_k = E + W_2N^k O, X_{N-k} =
 * conj(E - W_2N^k O). stft: qmax as in level_db. */
template <int OP, bool BIG, bool HAS_N, class OutT>
__device__ __forceinline__ void out_pair(const FArgs &A, float2 a, float2 b, float2 w, bool k0, OutT *pk,
                                         OutT *pn, float &qmax)
{
    float2 x0, x1;
    if constexpr (OP == O_R2C || OP == O_STFTR) {
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
        if constexpr (HAS_N)
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
        if constexpr (OP == O_STFTB) { /* docs/design.md "Levels (dBFS)": a_k^2, its floor */
            const float pw = k0 ? A.pw_edge : A.pw_mid;
            *pk = fmaxf((x0.x * x0.x + x0.y * x0.y) * pw, 1e-20f);
            if constexpr (HAS_N)
                *pn = fmaxf((x1.x * x1.x + x1.y * x1.y) * pw, 1e-20f);
        } else {
            const float thr = k0 ? A.thr_edge : A.thr_mid, off = k0 ? A.off_edge : A.off_mid;
            *pk = level_db<BIG>(x0, thr, off, qmax);
            if constexpr (HAS_N)
                *pn = level_db<BIG>(x1, thr, off, qmax);
        }
    }
}

/* Where a real-input row's bins go: thread t writes bins t + c through pk and N - t - c
 * through pn; W_2N^(t + c) = twt[c << ts] */
template <class OutT> struct RowOut {
    size_t g;          /* the frame */
    OutT *pk, *pn;     /* bins t and N - t */
    const float2 *twt; /* W_2N^t in the table */
    unsigned ts;       /* W_2N^k = tw[k << ts] */
    float2 wt;         /* W_2N^t */
};

/* The real-input store where Z_k and Z_{N-k} are in this thread's registers (mirror_last):
 * group 0 holds Z at t + m 2^LO, group 1 at t' + 2^(LO-1) + m 2^LO, m < W */
template <int L, int RL, int FPB, int OP, class OutT>
__device__ __forceinline__ void store_real_mirror(const float2 (&v)[1 << RL], const FArgs &A, unsigned t,
                                                  const RowOut<OutT> &o)
{
    constexpr int R = 1 << RL, NP = (L + RL - 1) / RL, N = 1 << L;
    constexpr int LO = PG<L, RL, NP - 1>::lo, W = R / 2;
    if (FPB > 1 && o.g >= A.batch)
        return; /* no barrier follows */
    float qmax = 0.0f; /* written, never read: this path checks Z before (below) */
    const bool t0 = t == 0;
    const float2 wt = o.wt;
    OutT *const pk = o.pk, *const pn = o.pn;
    /* thread 0's second half of jobs: bins 2^(LO-1) (2m - W + 1), D below t + m 2^LO */
    const unsigned D = t0 ? (1u << (LO - 1)) * (W - 1) : 0u;
    OutT *const pk_hi = pk - D, *const pn_hi = pn + D;
    auto jobs = [&](auto BIG) {
        constexpr bool B = SP_CI(BIG);
        unroll<W>([&](auto Mi) {
            constexpr int m = SP_CI(Mi), c = m << LO;
            constexpr int g0m = elem_at<L, RL, NP - 1>((unsigned)c);
            constexpr int g1r = elem_at<L, RL, NP - 1>((1u << (LO - 1)) + ((unsigned)(W - 1 - m) << LO));
            static_assert(g0m >= 0 && g1r >= 0, "mirror layout");
            /* t > 0: k = t + m 2^LO, Z_{N-k} = group 1's element W-1-m; W_2N^k = W_2N^t W_R^m */
            if constexpr (m == 0) {
                out_pair<OP, B, true>(A, v[g0m], v[g1r], wt, t0, pk, pn, qmax);
            } else if constexpr (m < W / 2) {
                /* thread 0: k = m 2^LO, Z_{N-k} = group 0's element W-m */
                constexpr int g0n = elem_at<L, RL, NP - 1>((unsigned)(W - m) << LO);
                static_assert(g0n >= 0, "mirror layout");
                const float2 b = t0 ? v[g0n] : v[g1r];
                out_pair<OP, B, true>(A, v[g0m], b, mul_wconst<RL, m>(wt, 0), false, pk + c, pn - c, qmax);
            } else {
                /* thread 0: k = 2^(LO-1) + (m - W/2) 2^LO from group 1, its mirror
                 * too; W_2N^k = W_2R^(2m - W + 1) */
                constexpr int ha = elem_at<L, RL, NP - 1>((1u << (LO - 1)) + ((unsigned)(m - W / 2) << LO));
                constexpr int hb = elem_at<L, RL, NP - 1>((1u << (LO - 1)) + ((unsigned)(3 * W / 2 - 1 - m) << LO));
                static_assert(ha >= 0 && hb >= 0, "mirror layout");
                const float2 a = t0 ? v[ha] : v[g0m], b = t0 ? v[hb] : v[g1r];
                const float2 w0 = mul_wconst<RL + 1, 2 * m - W + 1>(make_float2(1.0f, 0.0f), 0);
                const float2 w = t0 ? w0 : mul_wconst<RL, m>(wt, 0);
                out_pair<OP, B, true>(A, a, b, w, false, pk_hi + c, pn_hi - c, qmax);
            }
        });
        if (t0) { /* k = N/2, its own mirror: W_2N^k = -i */
            constexpr int e = elem_at<L, RL, NP - 1>((unsigned)(W / 2) << LO);
            static_assert(e >= 0, "mirror layout");
            out_pair<OP, B, false>(A, v[e], v[e], make_float2(0.0f, -1.0f), false, pk + N / 2, pn, qmax);
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
}

/* The real-input store through shared memory: Z_k there in natural order, then the pairs */
template <int L, int RL, int FPB, int OP, bool S2, class OutT>
__device__ __forceinline__ void store_real_shared(const float2 (&v)[1 << RL], const FArgs &A, float *s_re,
                                                  float *s_im, unsigned f, unsigned t, unsigned pt,
                                                  const RowOut<OutT> &o)
{
    using C = Cfg<L, RL, FPB, K_ROW, S2>;
    constexpr int R = C::R, T = C::T, NP = C::NP, N = C::N;
    float qmax = 0.0f; /* stft: the largest |2X|^2 (see level_db) */
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
    if (o.g >= A.batch)
        return; /* no barrier follows */
    const float2 *const twt = o.twt;
    const unsigned ts = o.ts;
    const float2 wt = o.wt;
    OutT *const pk = o.pk, *const pn = o.pn;
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
            out_pair<OP, SP_CI(BIG), (j < NFULL)>(A, a, b, w, k0, pk + c, pn - c, qmax);
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

/* The store of a K_ROW kernel with real input (r2c, stft): bins k and N-k together from
 * Z_k and Z_{N-k} (out_pair), from registers (mirror_last) or through shared memory */
template <int L, int RL, int FPB, int OP, bool S2>
__device__ __forceinline__ void store_row_real(const float2 (&v)[1 << RL], const FArgs &A, float *s_re,
                                               float *s_im, unsigned f, unsigned t, unsigned pt, unsigned pass)
{
    constexpr int N = 1 << L;
    using OutT = std::conditional_t<OP == O_STFT || OP == O_STFTB, float, float2>;
    RowOut<OutT> o;
    o.g = (size_t)blockIdx.x * FPB + f;
    const size_t ostride = (size_t)N + 1;
    OutT *out0;
    if constexpr (OP == O_STFTB)
        out0 = bank_pow<L, RL, FPB, S2>(s_re, f); /* the bank reads it there */
    else if constexpr (OP == O_STFTR) /* past the FFT's, a row of N + 1 a window (FPB 1) */
        out0 = bank_x<L, RL, FPB, S2>(s_re, pass);
    else if constexpr (OP == O_STFT)
        out0 = A.db + o.g * ostride;
    else
        out0 = A.spec + o.g * ostride;
    o.ts = A.tws - 1;
    o.twt = A.tw + (t << o.ts);
    o.wt = __ldg(o.twt);
    o.pk = out0 + t;
    o.pn = out0 + (N - t);
    if constexpr (mirror_last<L, RL, FPB, K_ROW, OP>())
        store_real_mirror<L, RL, FPB, OP>(v, A, t, o);
    else
        store_real_shared<L, RL, FPB, OP, S2>(v, A, s_re, s_im, f, t, pt, o);
}

/* The store of a four-step half: K_COL1 Y[k1][n2] * W_N^(n2 k1) in the input's layout,
 * K_ROW2COL X[k1 + N1*k2] */
template <int L, int RL, int FPB, int KIND>
__device__ __forceinline__ void store_fourstep(const float2 (&v)[1 << RL], const FArgs &A, unsigned f,
                                               unsigned pt)
{
    constexpr int R = 1 << RL, NP = (L + RL - 1) / RL, LOGFPB = log2_fpb(FPB);
    const unsigned pl = A.log2_other - LOGFPB;
    const size_t b = blockIdx.x >> pl;
    if constexpr (KIND == K_COL1) {
        const unsigned n2 = ((blockIdx.x & ((1u << pl) - 1u)) << LOGFPB) + f;
        float2 *dst = A.out + (b << A.log2_full) + n2;
        put_twiddled<L, RL, NP - 1>(v, A, n2, pt, [&](auto E, float2 x) {
            const unsigned k1 = pt | RELEM<L, RL, NP - 1, SP_CI(E)>;
            dst[(size_t)k1 << A.log2_other] = x;
        });
    } else {
        const size_t k1 = ((size_t)(blockIdx.x & ((1u << pl) - 1u)) << LOGFPB) + f;
        float2 *dst = A.out + (b << A.log2_full) + k1;
        unroll<R>([&](auto E) {
            constexpr int e = SP_CI(E);
            unsigned k2 = pt | RELEM<L, RL, NP - 1, e>;
            dst[(size_t)k2 << A.log2_other] = make_float2(v[e].x * A.scale, v[e].y * A.scale);
        });
    }
}

/* One kernel of KIND: pass 0 (load, bit reversal folded in, first levels), passes 1 .. NP-1
 * through shared memory, the store (positions p = rev(i) are the output bins) */
template <int L, int RL, int FPB, int KIND, int OP, bool S2>
__device__ __forceinline__ void fused_fft_body(const FArgs &A)
{
    using C = Cfg<L, RL, FPB, KIND, S2>;
    constexpr bool CINV = OP == O_C2C;
    extern __shared__ float smem[];
    float *s_re = smem, *s_im = smem + FPB * C::FS; /* (S2: s_re is the float2 array) */
    const unsigned tid = threadIdx.x;
    /* O_STFTR: three windows of the same frame, a barrier between (the store of one, the
     * exchanges of the next) */
    constexpr unsigned PASSES = OP == O_STFTR ? 3u : 1u;
#pragma unroll 1
    for (unsigned pass = 0; pass < PASSES; pass++) {
        float2 v[C::R];
        if (pass > 0)
            __syncthreads();
        {
            unsigned f, t;
            thread_ft<C::T, FPB, C::modeF(0)>(tid, f, t);
            const unsigned ti = scatter<L, RL, 0>(t);
            if constexpr (KIND == K_ROW) {
                if (!load_row<L, RL, FPB, OP>(v, A, f, ti, A.win + ((size_t)pass << (L + 1))))
                    return;
            } else {
                load_fourstep<L, RL, FPB, KIND>(v, A, f, ti);
            }
            levels<L, RL, 0>(v, ti, A.tw, A.tws, CINV ? A.inverse : 0, ti);
        }
        exchange_passes<L, RL, FPB, KIND, S2, OP, 1>(v, s_re, s_im, tid, A);
        unsigned f, t;
        thread_ft<C::T, FPB, C::modeF(C::NP - 1)>(tid, f, t);
        const unsigned pt = rev_var<L>(scatter<L, RL, C::NP - 1>(t));
        if constexpr (KIND == K_ROW && (OP == O_C2C || OP == O_R2CZ))
            store_row_complex<L, RL, FPB, OP>(v, A, f, pt);
        else if constexpr (KIND == K_ROW)
            store_row_real<L, RL, FPB, OP, S2>(v, A, s_re, s_im, f, t, pt, pass);
        else
            store_fourstep<L, RL, FPB, KIND>(v, A, f, pt);
    }
    /* every thread of the block gets here (the stores return, the kernel does not) */
    if constexpr (KIND == K_ROW && OP == O_STFTB)
        bank_epilogue<L, RL, FPB, S2>(A, smem);
    else if constexpr (KIND == K_ROW && OP == O_STFTR)
        bank_reassign_epilogue<L, RL, FPB, S2>(A, smem);
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

} // namespace

/* kern<<<nblocks, threads, smem>>>(A), in clusters of `cluster` blocks when > 1. Past 48 KB
 * the kernel's shared-memory limit is raised first, once per kernel (raised is the kernel's
 * own flag; one device per process, plans on several threads). The carveout is left to the
 * driver: forcing the largest one cost 10-30% (less L1 for the twiddle table). */
int launch_kernel(void (*kern)(const FArgs), std::atomic<bool> &raised, size_t smem, int threads,
                  size_t nblocks, const FArgs &A, cudaStream_t st, sp_errinfo *ei, const char *what,
                  unsigned cluster)
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

namespace {

/* points a thread (log2) for the row kernels: 16 (r = 4), 8 where that splits the levels
 * into fewer or even passes */
constexpr int row_rl(int L)
{
    return L == 3 ? 3 : L == 4 ? 4 : L <= 6 ? 3 : L <= 8 ? 4 : L == 9 ? 3 : L <= 13 ? 4 : 5;
}

/* Threads a block of the filter-bank kernels at 2^7 .. 2^13 complex points (several frames
 * a block where a frame has fewer): the frames of a block share each weight's load. 256
 * (two frames a block at N 4096) against 128 on an H200, 1 h of audio (bench_gpu_xform,
 * 2026-11-26): mel 128 1.742 / 1.891 ms, MFCC 20 2.357 / 2.451, chroma 2.431 / 3.039. */
#ifndef SPECTRO_BANK_THR
#define SPECTRO_BANK_THR 256
#endif

/* The threads of the filter-bank row kernel of 2^L complex points (launch_row_L): blocks
 * of SPECTRO_BANK_THR threads at 2^7 .. 2^13, else 256, or one frame of more */
constexpr int bank_threads(int L)
{
    const int T = (1 << L) >> row_rl(L), THR = L >= 7 && L <= 13 ? SPECTRO_BANK_THR : 256;
    return T >= THR ? T : THR / T * T;
}

/* blocks an SM the filter-bank kernels' registers are capped for (64 a thread) */
constexpr int bank_minb(int L)
{
    return 65536 / (bank_threads(L) * 64) > 0 ? 65536 / (bank_threads(L) * 64) : 1;
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
    if constexpr (OP == O_STFTB || OP == O_STFTR) { /* the bank's rows and sums past the FFT's */
        if constexpr (OP == O_STFTR && (FPB != 1 || !S2))
            return sp_fail(ei, SP_EUNSUPPORTED, "fused STFT bank: no complex kernels at 2^%d points", L + 1);
        static_assert(OP != O_STFTB || C::THREADS == bank_threads(L), "fused_stft_bank_threads knows the shape");
        const size_t smem =
            C::SMEM + (size_t)FPB * (OP == O_STFTB ? ((size_t)1 << L) + 1 + A.bank.slots + A.bank.rows
                                     : OP == O_STFTR ? 6 * (((size_t)1 << L) + 1)
                                                     : 0) * sizeof(float);
        int dev = 0, optin = 0;
        if (cudaGetDevice(&dev) != cudaSuccess ||
            cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev) != cudaSuccess)
            return sp_fail(ei, SP_EGPU, "fused STFT bank: no device attributes");
        if (smem > (size_t)optin)
            return sp_fail(ei, SP_EUNSUPPORTED, "fused STFT bank: %zu bytes of shared memory a block, %d here", smem,
                           optin);
        std::atomic<bool> raised{false}; /* its size follows the bank: raised at every launch */
        return launch_kernel(kern, raised, smem, C::THREADS, nblocks, A, st, ei, "fused_fft_kernel(bank)");
    }
    static std::atomic<bool> raised{false};
    return launch_kernel(kern, raised, C::SMEM, C::THREADS, nblocks, A, st, ei, "fused_fft_kernel");
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
    else if constexpr (OP == O_STFTR && (T < 128 || L > 12)) /* one frame a block (bank_reassign_epilogue);
                                                                 * past 2^13 its rows fill a block's shared memory */
        return sp_fail(ei, SP_EUNSUPPORTED, "fused reassignment: not at 2^%d points", L + 1);
    else if constexpr (OP == O_STFTB && L >= 7 && L <= 13)
        return launch_row_cfg<OP, L, RL, SPECTRO_BANK_THR, bank_minb(L)>(A, st, ei);
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
} // namespace fused

using namespace fused;

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
            return launch_stream_L(14, A, st, ei);
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
    return fused_stft_db_clips(stream, d_tw, log2tw, d_sig, hop, d_win, scale_mid, scale_edge, log2n, nframes, 0, 0,
                               d_db, ei);
}

extern "C" int fused_stft_db_clips(void *stream, const cpx *d_tw, unsigned log2tw, const float *d_sig,
                                   size_t hop, const float *d_win, float scale_mid, float scale_edge,
                                   unsigned log2n, size_t nframes, size_t clip_frames, size_t clip_stride,
                                   float *d_db, sp_errinfo *ei)
{
    if (log2n < 4 || log2n > FUSED_MAX_ONEPASS_LOG2 + 1 || log2n > log2tw)
        return sp_fail(ei, SP_EUNSUPPORTED, "fused STFT: 2^%u points not covered", log2n);
    FArgs A = args_base(d_tw, log2tw, log2n - 1, nframes);
    A.sig = d_sig;
    A.hop = hop;
    A.clip_frames = clip_frames;
    A.clip_stride = clip_stride;
    A.win = d_win;
    A.db = d_db;
    db_consts(scale_mid, &A.thr_mid, &A.off_mid);
    db_consts(scale_edge, &A.thr_edge, &A.off_edge);
    return launch_row<O_STFT>(log2n - 1, A, (cudaStream_t)stream, ei);
}

extern "C" unsigned fused_stft_bank_threads(unsigned log2n)
{
    if (log2n < 4 || log2n > FUSED_MAX_ONEPASS_LOG2 + 1)
        return 0;
    return (unsigned)bank_threads((int)log2n - 1);
}

extern "C" int fused_stft_bank(void *stream, const cpx *d_tw, unsigned log2tw, const float *d_sig, size_t hop,
                               const float *d_win, float scale_mid, float scale_edge, unsigned log2n, size_t nframes,
                               const fused_bank *bank, float *d_rows, sp_errinfo *ei)
{
    if (log2n < 4 || log2n > FUSED_MAX_ONEPASS_LOG2 + 1 || log2n > log2tw)
        return sp_fail(ei, SP_EUNSUPPORTED, "fused STFT: 2^%u points not covered", log2n);
    FArgs A = args_base(d_tw, log2tw, log2n - 1, nframes);
    A.sig = d_sig;
    A.hop = hop;
    A.win = d_win;
    A.db = d_rows;
    /* q = |2X|^2: a^2 = q (s/2)^2 */
    A.pw_mid = (float)((double)scale_mid * scale_mid / 4.0);
    A.pw_edge = (float)((double)scale_edge * scale_edge / 4.0);
    A.bank = *bank;
    if (bank->post == FFT_BANK_REASSIGN) {
        A.pw_mid = scale_mid;
        A.pw_edge = scale_edge;
        return launch_row<O_STFTR>(log2n - 1, A, (cudaStream_t)stream, ei);
    }
    return launch_row<O_STFTB>(log2n - 1, A, (cudaStream_t)stream, ei);
}
