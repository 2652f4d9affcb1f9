/* The filter bank of the O_STFTB kernels (fft_fused.h fused_stft_bank), after their store
 * has left each frame's power row p[0 .. N] in shared memory past the FFT's own (bank_pow).
 * Included by fft_fused.cu only. */
#ifndef SPECTRO_FFT_FUSED_BANK_CUH
#define SPECTRO_FFT_FUSED_BANK_CUH

#include "fft_fused_internal.cuh"

namespace fused {

/* Frame f's power row in a block's shared memory: after the FFT's C::SMEM bytes, FPB rows of
 * N + 1 floats, then FPB x slots partial sums and FPB x rows sums (bank_epilogue) */
template <int L, int RL, int FPB, bool S2> __device__ __forceinline__ float *bank_pow(float *smem, unsigned f)
{
    using C = Cfg<L, RL, FPB, K_ROW, S2>;
    return reinterpret_cast<float *>(reinterpret_cast<char *>(smem) + C::SMEM) + (size_t)f * (C::N + 1);
}

/* Window w's complex bins X_0 .. X_N of O_STFTR, past the FFT's shared memory (one frame a
 * block) */
template <int L, int RL, int FPB, bool S2> __device__ __forceinline__ float2 *bank_x(float *smem, unsigned w)
{
    using C = Cfg<L, RL, FPB, K_ROW, S2>;
    return reinterpret_cast<float2 *>(reinterpret_cast<char *>(smem) + C::SMEM) + (size_t)w * (C::N + 1);
}

/* 10 log10(max(s, 1e-20)), as xform_db (docs/design.md "Levels (dBFS)") */
__device__ __forceinline__ float bank_db(float s)
{
    const double d = s;
    return (float)(10.0 * log10(d > 1e-20 ? d : 1e-20));
}

/* Frames a thread takes through its chunk at once (their sums in registers) */
template <int FPB> __host__ __device__ constexpr unsigned bank_group()
{
    return FPB < 4 ? FPB : 4;
}

/* The partial sums of the bank's chunks (fft_fused.h fused_bank): a thread walks a chunk
 * for G frames at once, each weight and bin loaded once for them; a sum goes to its slot
 * where its run ends. The chunks are equal, so no thread holds up the block. */
template <int FPB, unsigned BINS>
__device__ __forceinline__ void bank_chunks(const fused_bank &B, const float *pow0, float *part, unsigned tid,
                                            unsigned threads)
{
    constexpr unsigned G = bank_group<FPB>(), NG = FPB / G;
    static_assert(FPB % G == 0, "whole groups");
    const unsigned P = B.chunks, S = B.slots, steps = B.steps;
    for (unsigned q = tid; q < P * NG; q += threads) {
        const unsigned c = q % P, f0 = q / P * G;
        const float *p = pow0 + f0 * BINS;
        float *out = part + f0 * S + __ldg(B.slot0 + c);
        float s[G];
#pragma unroll
        for (unsigned g = 0; g < G; g++)
            s[g] = 0.0f;
#pragma unroll 4
        for (unsigned i = 0; i < steps; i++) {
            const float w = __ldg(B.cw + (size_t)i * P + c);
            const unsigned kb = __ldg(B.ck + (size_t)i * P + c), k = kb & CHUNK_BIN;
#pragma unroll
            for (unsigned g = 0; g < G; g++)
                s[g] = fmaf(w, p[g * BINS + k], s[g]);
            if (kb & CHUNK_END) {
#pragma unroll
                for (unsigned g = 0; g < G; g++) {
                    out[g * S] = s[g];
                    s[g] = 0.0f;
                }
                out++;
            }
        }
    }
}

/* The DCT-II of each frame's dB rows m (MFCC): coefficient c a warp, its lanes along the
 * rows, float products summed in double (as mfcc_row), a shuffle tree */
template <int FPB>
__device__ __forceinline__ void bank_dct(const FArgs &A, const float *val, unsigned tid, unsigned threads)
{
    const fused_bank &B = A.bank;
    const unsigned lane = tid & 31u, rows = B.rows;
    const size_t g0 = (size_t)blockIdx.x * FPB;
    for (unsigned q = tid >> 5; q < FPB * B.coeffs; q += threads >> 5) {
        const unsigned f = q / B.coeffs, c = q - f * B.coeffs;
        const float *d = B.dct + (size_t)c * rows, *m = val + f * rows;
        double s = 0.0;
        for (unsigned r = lane; r < rows; r += 32)
            s += (double)__fmul_rn(__ldg(d + r), m[r]);
        for (int o = 16; o > 0; o >>= 1)
            s += __shfl_xor_sync(0xffffffffu, s, o);
        if (lane == 0 && g0 + f < A.batch)
            A.db[(g0 + f) * B.width + c] = (float)s;
    }
}

/* The bank over the block's frames: the chunks' partial sums (bank_chunks), each row's sum
 * of its partials in order, then the post step, into A.db rows of A.bank.width. Every
 * thread of the block calls it. */
template <int L, int RL, int FPB, bool S2> __device__ __forceinline__ void bank_epilogue(const FArgs &A, float *smem)
{
    using C = Cfg<L, RL, FPB, K_ROW, S2>;
    constexpr unsigned TH = C::THREADS, BINS = C::N + 1;
    static_assert(TH % 32 == 0, "whole warps");
    const fused_bank &B = A.bank;
    const unsigned tid = threadIdx.x, rows = B.rows;
    float *pow0 = bank_pow<L, RL, FPB, S2>(smem, 0), *part = pow0 + FPB * BINS, *val = part + FPB * B.slots;
    __syncthreads(); /* the power rows are in */
    bank_chunks<FPB, BINS>(B, pow0, part, tid, TH);
    __syncthreads();
    for (unsigned i = tid; i < FPB * rows; i += TH) {
        const unsigned f = i / rows, r = i - f * rows, e = __ldg(B.rslot + r + 1);
        const float *pf = part + f * B.slots;
        float s = 0.0f;
        for (unsigned j = __ldg(B.rslot + r); j < e; j++)
            s += pf[j];
        val[i] = B.post == FFT_BANK_MAXNORM ? s : bank_db(s);
    }
    __syncthreads();
    const size_t g0 = (size_t)blockIdx.x * FPB;
    if (B.post == FFT_BANK_DB_DCT) {
        bank_dct<FPB>(A, val, tid, TH);
        return;
    }
    for (unsigned i = tid; i < FPB * rows; i += TH) {
        const unsigned f = i / rows;
        float o = val[i];
        if (g0 + f >= A.batch)
            continue;
        if (B.post == FFT_BANK_MAXNORM) { /* the frame's maximum (a few rows: chroma's 12) */
            float top = 0.0f;
            for (unsigned r = 0; r < rows; r++)
                top = fmaxf(top, val[f * rows + r]);
            o = top > 0.0f ? o / top : 0.0f;
        }
        A.db[(g0 + f) * B.width + (i - f * rows)] = o;
    }
}

/* The reassigned points of O_STFTR (one frame a block, S2), as reassign_row, in its float
 * operations and order: bin k of the three transforms X_h, X_th, X_dh to (f Hz, dt s, level
 * dBFS), dt from the frame's time (the host adds that: xform_rows). */
template <int L, int RL, int FPB, bool S2>
__device__ __forceinline__ void bank_reassign_epilogue(const FArgs &A, float *smem)
{
    if constexpr (FPB == 1 && S2) { /* launch() refuses the other shapes */
        using C = Cfg<L, RL, FPB, K_ROW, S2>;
        constexpr unsigned TH = C::THREADS, BINS = C::N + 1;
        const fused_bank &B = A.bank;
        const float2 *xh = bank_x<L, RL, FPB, S2>(smem, 0), *xth = bank_x<L, RL, FPB, S2>(smem, 1),
                     *xdh = bank_x<L, RL, FPB, S2>(smem, 2);
        float *out = A.db + (size_t)blockIdx.x * B.width;
        __syncthreads(); /* the three rows are in */
        for (unsigned k = threadIdx.x; k < BINS; k += TH) {
            const float2 h = xh[k], th = xth[k], dh = xdh[k];
            const float s = k == 0 || k == BINS - 1 ? A.pw_edge : A.pw_mid;
            const float re = h.x, im = h.y, d = __fadd_rn(__fmul_rn(re, re), __fmul_rn(im, im));
            const float p = __fmul_rn(__fmul_rn(d, s), s);
            float f = __fmul_rn((float)k, B.bin), dt = 0.0f;
            if (d > 0.0f) {
                const float inv = __fdiv_rn(1.0f, d);
                f = __fsub_rn(f, __fmul_rn(__fmul_rn(__fsub_rn(__fmul_rn(dh.y, re), __fmul_rn(dh.x, im)), inv), B.fs));
                dt = __fmul_rn(__fmul_rn(__fadd_rn(__fmul_rn(th.x, re), __fmul_rn(th.y, im)), inv), B.ts);
            }
            out[3 * k] = f;
            out[3 * k + 1] = dt;
            out[3 * k + 2] = 10.0f * log10f(p > 1e-20f ? p : 1e-20f);
        }
    }
}

} // namespace fused

#endif
