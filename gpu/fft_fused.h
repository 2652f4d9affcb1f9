/* fft_fused: the fast path of the cuda backend (plain C header, no CUDA types).
 *
 * The same radix-2 decimation-in-time algorithm as the per-level kernels (bit reversal, then
 * levels of span 2, 4, ..., N with the twiddles W_N^j of one table), but several levels per
 * kernel: each thread keeps R = 2^r points in registers and runs r levels there; threads
 * exchange through shared memory between such passes; the bit-reverse permutation is folded
 * into the first load. See fft_fused.cu for the data layout.
 *
 *   N <= 16384          one kernel, one pass over device memory (several frames a block for
 *                       small N; at 16384 on some devices one block an SM that streams the
 *                       frames in by bulk copies, see fused_stream_pays());
 *   N = 2^15 .. 2^17    one kernel, one pass, a transform across a cluster of 8 blocks:
 *                       four-step (N1-point column FFTs, the W_N twiddle multiply, N2-point
 *                       row FFTs) with the transpose through distributed shared memory;
 *   N >= 2^18           four-step in two kernels: the column FFTs with the twiddle multiply
 *                       fused into their store, then row FFTs whose store transposes into
 *                       natural order (needs a scratch buffer).
 *
 * Twiddles: d_tw is one table W_M^k = exp(-2 pi i k / M), k < M/2, M = 2^log2tw >= N, made on
 * the host in double; every twiddle of a size-N transform is W_N^j = d_tw[j * M/N].
 *
 * All functions queue work on `stream` (a cudaStream_t) and return without waiting; errors
 * (launch failures) are SP_EGPU with cudaGetErrorString's text, SP_EUNSUPPORTED where the
 * fused kernel does not cover the size (the caller then takes another path). */
#ifndef SPECTRO_FFT_FUSED_H
#define SPECTRO_FFT_FUSED_H

#include <stddef.h>

#include "fft.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Largest log2 N done in one pass by one block (its shared memory holds the frame), and by
 * a cluster of blocks where the sm_90 kernels are used. */
#define FUSED_MAX_ONEPASS_LOG2 14u
#define FUSED_MAX_CLUSTER_LOG2 17u

/* 1 when the sm_90 kernels (thread-block clusters, bulk copies) can run here: code for
 * sm_90 or later was chosen for the current device. Else 0, and fused_c2c() takes the
 * kernels that every architecture has (sizes up to FUSED_MAX_CLUSTER_LOG2 then take the
 * four-step). */
int fused_sm90_ok(void);

/* 1 when, at N = 2^14, the streamed kernel (one block an SM, each frame brought into shared
 * memory by bulk copies while the previous one computes) beats the one-block-a-frame kernel
 * here: an sm_90 device whose memory is fast for its SMs (>= 16 bytes a cycle an SM at peak:
 * an H200, not an H100). fft_config.cuda_stream overrides it in the cuda backend. */
int fused_stream_pays(void);

/* fused_c2c flags */
#define FUSED_SM90 1u   /* use the sm_90 kernels where fused_sm90_ok() (else the portable ones) */
#define FUSED_STREAM 2u /* N = 2^14 by the streamed kernel (with FUSED_SM90) */

/* batch N-point complex transforms, N = 2^log2N, 4 <= log2N <= 22; out = scale * FFT(in)
 * (inverse: conjugate twiddles). d_in == d_out is allowed. flags: FUSED_*. d_tmp (batch*N
 * points) is used when log2N > FUSED_MAX_CLUSTER_LOG2 (FUSED_MAX_ONEPASS_LOG2 without the
 * sm_90 kernels) and may be NULL otherwise. */
int fused_c2c(void *stream, const cpx *d_tw, unsigned log2tw, const cpx *d_in, cpx *d_out,
              cpx *d_tmp, unsigned log2N, size_t batch, int inverse, float scale, unsigned flags,
              sp_errinfo *ei);

/* batch real n-point transforms (n = 2^log2n, 16 <= n <= 2^(FUSED_MAX_ONEPASS_LOG2+1)):
 * frame f is d_in[f*n ...]; bins 0..n/2 land at d_out[f*(n/2+1) ...]. One kernel: n/2-point
 * complex FFT of the even/odd packing, untangled in shared memory (n = 256: the n-point
 * complex FFT of (x, 0), faster there). SP_EUNSUPPORTED above. */
int fused_r2c(void *stream, const cpx *d_tw, unsigned log2tw, const float *d_in, cpx *d_out,
              unsigned log2n, size_t batch, sp_errinfo *ei);

/* Short-time levels in one kernel: frame f = d_sig[f*hop .. f*hop+n-1] * d_win, real FFT,
 * a_k = |X_k| * (scale_edge at k = 0, n/2, else scale_mid), d_db[f*(n/2+1) + k] =
 * 20 log10(max(a_k, 1e-10)) (NaN -> floor). The signal is read once per frame, the levels
 * written once. Same sizes as fused_r2c. */
int fused_stft_db(void *stream, const cpx *d_tw, unsigned log2tw, const float *d_sig, size_t hop,
                  const float *d_win, float scale_mid, float scale_edge, unsigned log2n,
                  size_t nframes, float *d_db, sp_errinfo *ei);
/* The same over clips in one launch: nframes = clips x clip_frames, frame f of clip c
 * (output row c*clip_frames + f) at d_sig[c*clip_stride + f*hop]; clip_frames 0: one
 * signal (fused_stft_db). */
int fused_stft_db_clips(void *stream, const cpx *d_tw, unsigned log2tw, const float *d_sig, size_t hop,
                        const float *d_win, float scale_mid, float scale_edge, unsigned log2n,
                        size_t nframes, size_t clip_frames, size_t clip_stride, float *d_db, sp_errinfo *ei);

/* A filter bank for fused_stft_bank (fft.h fft_bank, on the device). Real banks (mel, MFCC,
 * chroma) in chunks: the rows' non-zero weights in row order (row r's run k0[r] .. k0[r] +
 * len[r], zero weights left out) cut into `chunks` pieces of `steps` each, a thread a piece:
 * weight i of piece c at cw[i * chunks + c] (a warp's loads side by side), its bin at
 * ck[i * chunks + c] & CHUNK_BIN, CHUNK_END set where a partial sum ends (the row's last
 * weight, or the piece's last where its row goes on in the next); padding: weight 0, bin 0,
 * no end. The partial sums are numbered in that order, piece c's first slot0[c]; row r's
 * are rslot[r] .. rslot[r + 1] - 1 of `slots`. Post FFT_BANK_*; dct coeffs x rows.
 * Complex banks (constant-Q) by runs: row r sums w[off[r] + i] X[k0[r] + i], i < len[r],
 * a warp a row. Reassignment (FFT_BANK_REASSIGN): no rows; the window is three (h, t h,
 * dh/dt), each frame's row 3 (n/2 + 1) wide. */
#define CHUNK_END 0x8000u
#define CHUNK_BIN 0x7fffu
typedef struct {
    const unsigned *k0, *len, *off; /* complex banks */
    const float *w, *dct;
    const float *cw;                /* real banks: steps x chunks */
    const unsigned short *ck;
    const unsigned *slot0, *rslot;  /* chunks; rows + 1 */
    unsigned chunks, steps, slots;
    float fs, ts, bin;              /* reassignment: rate / 2 pi, 1 / rate, rate / n */
    unsigned rows, coeffs, width; /* width: values a frame out (coeffs or rows) */
    int post;
} fused_bank;

/* Threads a block of fused_stft_bank's real-bank kernel at 2^log2n points (the chunks that
 * balance it), 0 where it has none. */
unsigned fused_stft_bank_threads(unsigned log2n);

/* Short-time filter-bank rows in one kernel: frame f = d_sig[f*hop ..] * d_win, real FFT,
 * the power p_k = max((|X_k| scale)^2, 1e-20) (scale_edge at k = 0, n/2, else scale_mid;
 * docs/design.md "Levels (dBFS)") in shared memory, the bank's rows and post step there:
 * d_rows[f*width ..]. Only the rows are written. Same sizes as fused_r2c; SP_EUNSUPPORTED
 * where a block's power rows and sums (beside the FFT's shared memory) exceed the device's
 * shared memory a block (nframes 0 finds out, launching nothing). */
int fused_stft_bank(void *stream, const cpx *d_tw, unsigned log2tw, const float *d_sig, size_t hop,
                    const float *d_win, float scale_mid, float scale_edge, unsigned log2n, size_t nframes,
                    const fused_bank *bank, float *d_rows, sp_errinfo *ei);

#ifdef __cplusplus
}
#endif
#endif
