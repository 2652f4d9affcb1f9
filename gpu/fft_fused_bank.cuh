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
            for (unsigned k = 0; k < len; k++)
                s = __fadd_rn(s, __fmul_rn(__ldg(w + k), p[k]));
            val[i] = s;
        }
    } else {
        for (unsigned i = tid >> 5; i < FPB * rows; i += NW) {
            const unsigned f = i / rows, r = i - f * rows, len = __ldg(B.len + r);
            const float *w = B.w + __ldg(B.off + r), *p = pow0 + f * BINS + __ldg(B.k0 + r);
            float s = 0.0f;
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
        for (unsigned i = tid; i < FPB * B.coeffs; i += TH) {
            const unsigned f = i / B.coeffs, c = i - f * B.coeffs;
            const float *d = B.dct + (size_t)c * rows, *m = val + f * rows;
            double s = 0.0; /* as mfcc_row: float products, summed in double */
            for (unsigned r = 0; r < rows; r++)
                s = __dadd_rn(s, (double)__fmul_rn(__ldg(d + r), m[r]));
            if (g0 + f < A.batch)
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

} // namespace fused

#endif
