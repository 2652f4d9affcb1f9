/* The filter bank of the O_STFTB kernels (fft_fused.h fused_stft_bank), after their store
 * has left each frame's power row p[0 .. N] in shared memory past the FFT's own (bank_pow).
 * Included by fft_fused.cu only. */
#ifndef SPECTRO_FFT_FUSED_BANK_CUH
#define SPECTRO_FFT_FUSED_BANK_CUH

#include "fft_fused_internal.cuh"

namespace fused {

/* Frame f's power row in a block's shared memory: after the FFT's C::SMEM bytes, FPB rows of
 * N + 1 floats, then FPB x rows sums (bank_epilogue) */
template <int L, int RL, int FPB, bool S2> __device__ __forceinline__ float *bank_pow(float *smem, unsigned f)
{
    using C = Cfg<L, RL, FPB, K_ROW, S2>;
    return reinterpret_cast<float *>(reinterpret_cast<char *>(smem) + C::SMEM) + (size_t)f * (C::N + 1);
}

/* 10 log10(max(s, 1e-20)), as xform_db (docs/design.md "Levels (dBFS)") */
__device__ __forceinline__ float bank_db(float s)
{
    const double d = s;
    return (float)(10.0 * log10(d > 1e-20 ? d : 1e-20));
}

/* The bank over the block's frames: each row's sum (a thread a row, summing in the host's
 * order with no fused multiply-adds, as xform_melbank_db; or a warp a row, a shuffle tree),
 * then the post step, into A.db rows of A.bank.width. Every thread of the block calls it. */
template <int L, int RL, int FPB, bool S2> __device__ __forceinline__ void bank_epilogue(const FArgs &A, float *smem)
{
    using C = Cfg<L, RL, FPB, K_ROW, S2>;
    constexpr unsigned TH = C::THREADS, NW = TH / 32, BINS = C::N + 1;
    static_assert(TH % 32 == 0, "whole warps");
    const fused_bank &B = A.bank;
    const unsigned tid = threadIdx.x, rows = B.rows, lane = tid & 31u;
    float *pow0 = bank_pow<L, RL, FPB, S2>(smem, 0), *val = pow0 + FPB * BINS;
    __syncthreads(); /* the power rows are in */
    if (!B.warp) {
        for (unsigned i = tid; i < FPB * rows; i += TH) {
            const unsigned f = i / rows, r = i - f * rows, len = __ldg(B.len + r);
            const float *w = B.w + __ldg(B.off + r), *p = pow0 + f * BINS + __ldg(B.k0 + r);
            float s = 0.0f;
#pragma unroll 8
            for (unsigned k = 0; k < len; k++) /* the loads run ahead; the sum keeps its order */
                s = __fadd_rn(s, __fmul_rn(__ldg(w + k), p[k]));
            val[i] = s;
        }
    } else {
        for (unsigned i = tid >> 5; i < FPB * rows; i += NW) {
            const unsigned f = i / rows, r = i - f * rows, len = __ldg(B.len + r);
            const float *w = B.w + __ldg(B.off + r), *p = pow0 + f * BINS + __ldg(B.k0 + r);
            float s = 0.0f;
#pragma unroll 4
            for (unsigned k = lane; k < len; k += 32)
                s = fmaf(__ldg(w + k), p[k], s);
            for (int o = 16; o > 0; o >>= 1)
                s += __shfl_xor_sync(0xffffffffu, s, o);
            if (lane == 0)
                val[i] = s;
        }
    }
    __syncthreads();
    const size_t g0 = (size_t)blockIdx.x * FPB;
    if (B.post == FFT_BANK_DB_DCT) {
        for (unsigned i = tid; i < FPB * rows; i += TH)
            val[i] = bank_db(val[i]);
        __syncthreads();
        /* coefficient c of frame f by `split` neighbouring lanes (each every split-th
         * row), their sums added by shuffles: split chains of rows/split DADDs each */
        unsigned split = 1;
        while (split < 8 && FPB * B.coeffs * split * 2 <= TH)
            split *= 2;
        const unsigned total = FPB * B.coeffs * split;
        for (unsigned base = 0; base < total; base += TH) { /* whole warps: the shuffles */
            const unsigned i = base + tid, q = i / split, part = i - q * split;
            const unsigned f = q / B.coeffs, c = q - f * B.coeffs;
            double s = 0.0; /* as mfcc_row: float products, summed in double */
            if (i < total) {
                const float *d = B.dct + (size_t)c * rows, *m = val + f * rows;
#pragma unroll 8
                for (unsigned r = part; r < rows; r += split)
                    s = __dadd_rn(s, (double)__fmul_rn(__ldg(d + r), m[r]));
            }
            for (unsigned o = 1; o < split; o <<= 1)
                s += __shfl_xor_sync(0xffffffffu, s, o);
            if (i < total && part == 0 && g0 + f < A.batch)
                A.db[(g0 + f) * B.width + c] = (float)s;
        }
        return;
    }
    for (unsigned i = tid; i < FPB * rows; i += TH) {
        const unsigned f = i / rows;
        float o;
        if (g0 + f >= A.batch)
            continue;
        if (B.post == FFT_BANK_DB) {
            o = bank_db(val[i]);
        } else { /* FFT_BANK_MAXNORM: the frame's maximum (a few rows: chroma's 12) */
            float top = 0.0f;
            for (unsigned r = 0; r < rows; r++)
                top = fmaxf(top, val[f * rows + r]);
            o = top > 0.0f ? val[i] / top : 0.0f;
        }
        A.db[(g0 + f) * B.width + (i - f * rows)] = o;
    }
}

/* 10 log10(max(|c|^2, 1e-20)) of a complex sum, as cqt_row */
__device__ __forceinline__ float bank_db_c(float re, float im)
{
    const double p = (double)re * re + (double)im * im;
    return (float)(10.0 * log10(p > 1e-20 ? p : 1e-20));
}

/* The constant-Q rows of O_STFTC: X_0 .. X_N in place of the FFT's points (float2, natural
 * order; one frame a block, S2), row r = sum_i w[off[r]+i] X[k0[r]+i] (complex weights),
 * a thread a row in cqt_row's order where rows are short, else a warp a row. */
template <int L, int RL, int FPB, bool S2>
__device__ __forceinline__ void bank_cqt_epilogue(const FArgs &A, float *smem)
{
    if constexpr (FPB == 1 && S2) { /* launch() refuses the other shapes */
        using C = Cfg<L, RL, FPB, K_ROW, S2>;
        constexpr unsigned TH = C::THREADS, NW = TH / 32;
        const fused_bank &B = A.bank;
        const float2 *X = reinterpret_cast<const float2 *>(smem), *W = reinterpret_cast<const float2 *>(B.w);
        const unsigned tid = threadIdx.x, lane = tid & 31u;
        float *out = A.db + (size_t)blockIdx.x * B.width;
        __syncthreads(); /* X is in */
        if (!B.warp) {
            for (unsigned r = tid; r < B.rows; r += TH) {
                const unsigned len = __ldg(B.len + r);
                const float2 *z = X + __ldg(B.k0 + r), *c = W + __ldg(B.off + r);
                float re = 0.0f, im = 0.0f;
#pragma unroll 4
                for (unsigned i = 0; i < len; i++) {
                    const float2 zi = z[i], ci = __ldg(c + i);
                    re = __fadd_rn(re, __fsub_rn(__fmul_rn(zi.x, ci.x), __fmul_rn(zi.y, ci.y)));
                    im = __fadd_rn(im, __fadd_rn(__fmul_rn(zi.x, ci.y), __fmul_rn(zi.y, ci.x)));
                }
                out[r] = bank_db_c(re, im);
            }
        } else {
            for (unsigned r = tid >> 5; r < B.rows; r += NW) {
                const unsigned len = __ldg(B.len + r);
                const float2 *z = X + __ldg(B.k0 + r), *c = W + __ldg(B.off + r);
                float re = 0.0f, im = 0.0f;
#pragma unroll 4
                for (unsigned i = lane; i < len; i += 32) {
                    const float2 zi = z[i], ci = __ldg(c + i);
                    re = fmaf(zi.x, ci.x, fmaf(-zi.y, ci.y, re));
                    im = fmaf(zi.x, ci.y, fmaf(zi.y, ci.x, im));
                }
                for (int o = 16; o > 0; o >>= 1) {
                    re += __shfl_xor_sync(0xffffffffu, re, o);
                    im += __shfl_xor_sync(0xffffffffu, im, o);
                }
                if (lane == 0)
                    out[r] = bank_db_c(re, im);
            }
        }
    }
}

} // namespace fused

#endif
