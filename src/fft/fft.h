/* fft: batched radix-2 FFT plans behind one interface, and the spectrum (dBFS) contract.
 *
 * A plan is made for one transform size n (a power of two, 16 ... 4194304) and, for the
 * short-time transform, one hop and one window. The backend is chosen at run time:
 *   cpu    radix-2 decimation in time in C (always present)
 *   cuda   the project's CUDA kernels (gpu/), when built with CUDA and a device exists
 *   cufft  NVIDIA cuFFT, for cross-checks
 *   auto   cuda when usable, else cpu
 *
 * Levels (DESIGN.md): for a window w with sum S, a_k = 2|X_k|/S for 0 < k < n/2 and
 * |X_k|/S for k = 0 and k = n/2; dB = 20*log10(max(a_k, 1e-10)), never NaN.
 *
 * Thread safety: a plan is used by one thread at a time; different plans are independent.
 */
#ifndef SPECTRO_FFT_H
#define SPECTRO_FFT_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Interleaved complex float, the layout of CUDA's float2 and of fftwf_complex. */
typedef struct {
    float re, im;
} cpx;
#ifndef __cplusplus
_Static_assert(sizeof(cpx) == 2 * sizeof(float), "cpx must be two packed floats");
#endif

#define FFT_MIN_SIZE 16u
#define FFT_MAX_SIZE 4194304u
#define FFT_DB_FLOOR (-200.0f)

typedef enum { FFT_BACKEND_AUTO, FFT_BACKEND_CPU, FFT_BACKEND_CUDA, FFT_BACKEND_CUFFT } fft_backend_kind;

/* The cpu backend's threads for one plan: 1 .. FFT_CPU_THREADS_MAX (0 in the config: the
 * default, min(online CPUs, 8)). */
#define FFT_CPU_THREADS_MAX 256

/* The cpu backend's vector width: FFT_CPU_SIMD_SSE2 keeps the 4-wide path where the CPU
 * also has AVX (the tests compare both). */
typedef enum { FFT_CPU_SIMD_AUTO, FFT_CPU_SIMD_SSE2 } fft_cpu_simd;

/* The cuda backend's kernels: fused (the fast path), portable (the fused kernels a build
 * for GPUs before sm_90 runs, so that a Hopper tests them too) or perlevel (the reference
 * kernels, one launch a level). */
typedef enum { FFT_CUDA_PATH_FUSED, FFT_CUDA_PATH_PORTABLE, FFT_CUDA_PATH_PERLEVEL } fft_cuda_path;

/* The cuda backend's C2C 16384 kernel: the device's choice, or forced one-block or streamed. */
typedef enum { FFT_CUDA_STREAM_AUTO, FFT_CUDA_STREAM_OFF, FFT_CUDA_STREAM_ON } fft_cuda_stream;

/* Tuning, all 0 = the defaults; the program takes it from the environment (app/env.h). */
typedef struct {
    int cpu_threads;     /* 0 or 1 .. FFT_CPU_THREADS_MAX; never more than max_batch */
    fft_cpu_simd cpu_simd;
    fft_cuda_path cuda_path;
    fft_cuda_stream cuda_stream;
} fft_tuning;

typedef struct {
    fft_backend_kind backend;
    size_t n;            /* transform size, power of two in [FFT_MIN_SIZE, FFT_MAX_SIZE] */
    size_t hop;          /* frame step for fft_stft_db, >= 1 */
    const float *window; /* n coefficients for fft_stft_db, copied; NULL = rectangular */
    size_t max_batch;    /* most frames (or transforms) per call, >= 1 */
    int live;            /* 1: latency matters more than throughput (small batches) */
    fft_tuning tuning;
} fft_config;

/* backend auto, n 4096, hop 1024, rectangular window, max_batch 64, not live, default
 * tuning. */
fft_config fft_config_default(void);

typedef struct fft_plan fft_plan;

/* Creates a plan. Fails with SP_EINVAL for a bad size, SP_EUNSUPPORTED when the build
 * lacks the backend asked for, SP_ENODEV when no GPU is usable, SP_EGPU/SP_ENOMEM when
 * allocation fails (the message names the size asked for). With FFT_BACKEND_AUTO a GPU
 * that cannot be used is not an error: the plan falls back to cpu and
 * fft_plan_fallback_reason() says why. */
int fft_plan_create(const fft_config *cfg, fft_plan **out, sp_errinfo *ei);
void fft_plan_destroy(fft_plan *plan); /* NULL is a no-op */

/* "cpu", "cuda" or "cufft": the backend actually running. */
const char *fft_plan_backend_name(const fft_plan *plan);
/* Why auto did not pick the GPU ("" when it did, or when a backend was named). */
const char *fft_plan_fallback_reason(const fft_plan *plan);
size_t fft_plan_size(const fft_plan *plan);
size_t fft_plan_max_batch(const fft_plan *plan);
/* Detail of the last failed call on this plan ("" if none). */
const char *fft_plan_last_error(const fft_plan *plan);

/* batch complex transforms of n points, contiguous: in[b*n + i] -> out[b*n + k].
 * Forward: X_k = sum x_i e^{-2 pi i ik/n}. Inverse: x_i = (1/n) sum X_k e^{+2 pi i ik/n},
 * so inverse(forward(x)) == x. in == out is allowed. batch <= max_batch. */
int fft_c2c(fft_plan *plan, const cpx *in, cpx *out, size_t batch, int inverse);

/* batch real transforms: in[b*n + i] -> out[b*(n/2+1) + k], k = 0..n/2 (forward). */
int fft_r2c(fft_plan *plan, const float *in, cpx *out, size_t batch);

/* Short-time spectrum: frame f (0 <= f < nframes) is signal[f*hop .. f*hop+n-1] times the
 * window; db[f*(n/2+1) + k] receives its level in dBFS (contract above). signal holds at
 * least (nframes-1)*hop + n samples. nframes <= max_batch. */
int fft_stft_db(fft_plan *plan, const float *signal, size_t nframes, float *db);

/* ---- reductions beside the FFT ------------------------------------------------------------
 *
 * A peak search over bins [kmin, kmax] of each frame's dB spectrum: the strongest bin (the
 * first of equal maxima, as a scan with `>` finds it) and the levels at bin-1, bin, bin+1,
 * from which the host refines frequency and level (sink/peaks.h, peaks_refine). Up to
 * FFT_PEAK_RANGES_MAX ranges are searched in one call. A GPU backend computes the records
 * where the spectra are, so that only they cross the bus. */
#define FFT_PEAK_RANGES_MAX 4

typedef struct {
    size_t nranges;                    /* 1 .. FFT_PEAK_RANGES_MAX */
    size_t kmin[FFT_PEAK_RANGES_MAX];  /* 1 <= kmin[r] <= kmax[r] <= n/2 - 1 */
    size_t kmax[FFT_PEAK_RANGES_MAX];
} fft_peak_req;

/* What a device finds for one frame and range: 16 bytes. */
typedef struct {
    uint32_t bin;      /* the strongest bin in [kmin, kmax] */
    float l, c, r;     /* its level and its neighbours' (dBFS): db[bin-1], db[bin], db[bin+1] */
} fft_peak_raw;
#ifndef __cplusplus
_Static_assert(sizeof(fft_peak_raw) == 16, "fft_peak_raw must be 16 bytes");
#endif

/* fft_stft_db plus the peak search of req on every frame: peaks[f*req->nranges + r] for
 * frame f and range r. db receives the spectra as fft_stft_db writes them, or is NULL when
 * they are not wanted (a GPU backend then copies only the records back). A backend without
 * its own reduction computes the spectra and scans them on the calling thread (the same
 * records). SP_EINVAL for a range outside 1 .. n/2-1, kmin > kmax, or nranges out of
 * 1 .. FFT_PEAK_RANGES_MAX. */
int fft_stft_reduce(fft_plan *plan, const float *signal, size_t nframes, float *db, const fft_peak_req *req,
                    fft_peak_raw *peaks);

/* The host scan of one dB spectrum row: the record of range [kmin, kmax] (valid bins as
 * above). The reference every backend's reduction matches. */
fft_peak_raw fft_peak_scan(const float *db, size_t kmin, size_t kmax);

/* Host memory that the plan's backend moves fastest: pinned memory for the GPU backends
 * (calls whose input or output lies in it skip a staging copy), plain malloc otherwise.
 * NULL when out of memory. Free with fft_plan_host_free on the same plan, before the plan
 * is destroyed; NULL is a no-op. */
void *fft_plan_host_alloc(fft_plan *plan, size_t bytes);
void fft_plan_host_free(fft_plan *plan, void *p);

/* Helpers shared by every backend (and the tests). */
int fft_is_pow2(size_t n);
/* Level scale for bin k of an n-point transform with window sum S: 2/S inside, 1/S at
 * k = 0 and k = n/2. Inline: the GPU backends use it without linking this library. */
static inline float fft_level_scale(size_t n, size_t k, double window_sum)
{
    double s = (k == 0 || k == n / 2) ? 1.0 : 2.0;
    return (float)(s / window_sum);
}
/* 20*log10(max(a, 1e-10)) with NaN mapped to the floor. */
float fft_amp_to_db(float a);
/* What FFT_BACKEND_AUTO would pick here: FFT_BACKEND_CUDA when the build has CUDA and a
 * device is usable, else FFT_BACKEND_CPU. Other kinds are returned unchanged. */
fft_backend_kind fft_backend_resolve(fft_backend_kind kind);

/* The table of backends, in the order --help lists them: ids 0 .. fft_backend_count()-1.
 * fft_backend_name(i) is the name fft_backend_parse takes ("auto", "cpu", "cuda",
 * "cufft"), fft_backend_help(i) one line about it (for --help, a man page); both NULL out
 * of range. Backends that this build lacks are listed too: a plan for one fails with
 * SP_EUNSUPPORTED, saying so. */
int fft_backend_count(void);
const char *fft_backend_name(int i);
const char *fft_backend_help(int i);

/* Backend name -> kind; SP_EINVAL otherwise. */
int fft_backend_parse(const char *text, fft_backend_kind *out);

#ifdef __cplusplus
}
#endif
#endif
