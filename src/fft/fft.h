/* fft: batched radix-2 FFT plans behind one interface, and the spectrum (dBFS) contract.
 *
 * A plan is made for one transform size n (a power of two, 16 ... 4194304) and, for the
 * short-time transform, one hop and one window. The backend is chosen at run time:
 *   cpu    radix-2 decimation in time in C (always present)
 *   cuda   the project's CUDA kernels (gpu/), when built with CUDA and a device exists
 *   cufft  NVIDIA cuFFT, for cross-checks
 *   auto   the one that finishes the job first (fft_backend_choose), weighed before any
 *          CUDA call
 *
 * Levels (docs/design.md "Levels (dBFS)"): for a window w with sum S, a_k = 2|X_k|/S for
 * 0 < k < n/2 and |X_k|/S for k = 0 and k = n/2; dB = 20*log10(max(a_k, 1e-10)), never NaN.
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
/* The transform size of every default (fft, stft, analyze, the command line). A plain
 * number: --help spells it with FFT_STR. */
#define FFT_DEFAULT_SIZE 4096
#define FFT_STR_(x) #x
#define FFT_STR(x) FFT_STR_(x)
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

/* What auto takes the device nodes to say: probe them, or (tests) pretend. */
typedef enum { FFT_AUTO_DEVICE_PROBE, FFT_AUTO_DEVICE_NONE, FFT_AUTO_DEVICE_PRESENT } fft_auto_device;

/* Tuning, all 0 = the defaults; the program takes it from the environment (app/env.h). */
typedef struct {
    int cpu_threads;     /* 0 or 1 .. FFT_CPU_THREADS_MAX; never more than max_batch */
    fft_cpu_simd cpu_simd;
    fft_cuda_path cuda_path;
    fft_cuda_stream cuda_stream;
    /* auto's rates (fft_rates), 0 = the measured constants; and its device check */
    double auto_cpu_core, auto_gpu_start, auto_gpu, auto_host;
    fft_auto_device auto_device;
    /* the GPU module (libspectro-cuda.so) to load, tried before the build tree's and the
     * loader's search; NULL = those only (the program passes the one installed beside it) */
    const char *gpu_module;
} fft_tuning;

/* A job for auto to weigh (fft_backend_choose). */
typedef struct {
    size_t n, hop;       /* transform size and frame step */
    int channels;        /* transforms a frame (output channels); 0 = no job described */
    uint64_t frames;     /* frames a channel the job analyses; 0 = unknown (a pipe, live) */
    double rate;         /* samples a second a channel (live load; a file of unknown length) */
    int live;            /* 1: a live run: the GPU only when the CPU cannot keep up */
    uint64_t host_bytes; /* bytes the host decodes and writes for the job (the inputs' size
                          * and the spectra an output writes); 0 = not weighed */
    int host_width;      /* the cpu path's sessions at once, sharing the host work (a batch
                          * on the cpu backend); the GPU's one session does it alone */
} fft_job;

typedef struct {
    fft_backend_kind backend;
    size_t n;            /* transform size, power of two in [FFT_MIN_SIZE, FFT_MAX_SIZE] */
    size_t hop;          /* frame step for fft_stft_db, >= 1 */
    const float *window; /* n coefficients for fft_stft_db, copied; NULL = rectangular */
    size_t max_batch;    /* most frames (or transforms) per call, >= 1 */
    int live;            /* 1: latency matters more than throughput (small batches) */
    fft_tuning tuning;
    fft_job job;         /* for auto: the job's size (its n, hop and live are the fields
                          * above); job.channels 0 = not described: the GPU when one exists */
} fft_config;

/* backend auto, n 4096, hop 1024, rectangular window, max_batch 64, not live, default
 * tuning, no job described. */
fft_config fft_config_default(void);

typedef struct fft_plan fft_plan;

/* Creates a plan. Fails with SP_EINVAL for a bad size, SP_EUNSUPPORTED when the build
 * lacks the backend asked for, SP_ENODEV when no GPU is usable, SP_EGPU/SP_ENOMEM when
 * allocation fails (the message names the size asked for). With FFT_BACKEND_AUTO the plan
 * takes fft_config_choose's choice (fft_plan_choice); a GPU that cannot be used is not an
 * error: the plan falls back to cpu and fft_plan_fallback_reason() says why. When auto
 * chooses the cpu, CUDA is not initialised at all. */
int fft_plan_create(const fft_config *cfg, fft_plan **out, sp_errinfo *ei);
void fft_plan_destroy(fft_plan *plan); /* NULL is a no-op */
/* fft_plan_destroy for the process's last plan: a GPU backend's device goes with it (the
 * CUDA context; its teardown took ~0.06 s of the ~0.1 s a GPU process spent exiting on the
 * lent H100), so a caller may let it go on a thread of its own while other work finishes.
 * No other plan of the backend may exist then, nor be made after it (the cuda backend keeps
 * per-process state, its kernels' shared-memory settings, that the device's reset drops). */
void fft_plan_destroy_last(fft_plan *plan);

/* "cpu", "cuda" or "cufft": the backend actually running. */
const char *fft_plan_backend_name(const fft_plan *plan);
/* Why auto could not use the GPU: no device, no GPU in this build, or its start failed
 * ("" when it ran on the GPU, when the cpu was the faster choice, or a backend was named). */
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

/* One real frame for the host's transforms (src/xform), on a cpu plan only (else
 * SP_EUNSUPPORTED): X = FFT(frame times window; window NULL: none), frame and window n
 * floats. fft_r2c_split: X_k = re[k] + i im[k], k = 0..n/2 (fft_r2c's values, split).
 * fft_r2c_power: p[k] = |X_k|^2 scale2[k], k = 0..n/2, in the operations fft_stft_db uses
 * before its dB. Not thread-safe on one plan (its scratch). */
int fft_r2c_split(fft_plan *plan, const float *frame, const float *window, float *re, float *im);
int fft_r2c_power(fft_plan *plan, const float *frame, const float *window, const float *scale2, float *p);
/* v[i] = 10 log10(v[i]) in place, fft_stft_db's conversion of powers to dBFS (within 1e-4
 * dB of the exact value): FFT_DB_FLOOR at or below 1e-20 (and for NaN: +inf, the mark
 * of an overflow, as for +inf). A cpu plan's vector width; SP_EUNSUPPORTED on others. */
int fft_power_db(fft_plan *plan, float *v, size_t count);

/* Short-time spectrum: frame f (0 <= f < nframes) is signal[f*hop .. f*hop+n-1] times the
 * window; db[f*(n/2+1) + k] receives its level in dBFS (contract above). signal holds at
 * least (nframes-1)*hop + n samples. nframes <= max_batch. */
int fft_stft_db(fft_plan *plan, const float *signal, size_t nframes, float *db);

/* fft_stft_db for device memory: d_signal and d_db are CUDA pointers of the current device
 * (the GPU backends' plans; any nframes, not bound by max_batch), for `clips` signals
 * clip_stride floats apart, nframes frames each: clip c's spectra at d_db + c*nframes*(n/2+1).
 * Returns once d_db is written. SP_EUNSUPPORTED for a backend without it (cpu); huge
 * samples are not looked for (fft_plan_set_unit_bound's pass), so a sample beyond the float
 * FFT's range reads as it comes out of the GPU. Detail of a failure in fft_plan_last_error. */
int fft_stft_db_device(fft_plan *plan, const float *d_signal, size_t clips, size_t clip_stride, size_t nframes,
                       float *d_db);
/* fft_stft_db_device queued on the CUDA stream `stream` (a cudaStream_t of the current
 * device; NULL: its default stream) without waiting: d_db is written when the stream gets
 * there, and a launch error is the only failure seen now (fft_backend.h). */
int fft_stft_db_device_async(fft_plan *plan, const float *d_signal, size_t clips, size_t clip_stride,
                             size_t nframes, float *d_db, void *stream);

/* ---- reductions beside the FFT ------------------------------------------------------------
 *
 * A peak search over bins [kmin, kmax] of each frame's dB spectrum: the strongest bin (the
 * first of equal maxima, as a scan with `>` finds it) and the levels at bin-1, bin, bin+1,
 * from which the host refines frequency and level (sink/peaks.h, peaks_refine). Up to
 * FFT_PEAK_RANGES_MAX ranges are searched in one call. A GPU backend computes the records
 * where the spectra are, so that only they cross the bus. */
#define FFT_PEAK_RANGES_MAX 4

typedef struct {
    size_t nranges;                    /* 0 .. FFT_PEAK_RANGES_MAX (0: maxima only) */
    size_t kmin[FFT_PEAK_RANGES_MAX];  /* 1 <= kmin[r] <= kmax[r] <= n/2 - 1 */
    size_t kmax[FFT_PEAK_RANGES_MAX];
    /* Column maxima (a picture's pixel columns, sink.h maxima_span): span > 0 asks for the
     * per-bin maximum of the dB spectra over aligned groups of span frames of the stream,
     * group g holding frames [g*span, (g+1)*span); `first` is the stream's index of the
     * call's frame 0. colmax receives one row of n/2+1 values for each group the call's
     * frames touch, in order (fft_colmax_rows of them; the first and last may be partial:
     * the maximum of the call's frames in them). A GPU backend with reduces_columns copies
     * only these rows back; another computes the spectra and reduces them on the calling
     * thread. */
    uint64_t span, first;
    float *colmax;
} fft_peak_req;

/* Rows fft_stft_reduce writes to req->colmax for nframes frames from `first`. */
size_t fft_colmax_rows(uint64_t span, uint64_t first, size_t nframes);

/* yes = 1: the caller promises that every sample it hands the plan from now on lies within
 * [-1, 1] (a source of integer PCM), so a GPU backend skips its pass over each batch looking
 * for samples too large for a float FFT (fft_stft_db; ~0.05 s of an hour's analysis on the
 * H100 host). 0 (a new plan's): the pass is made. */
void fft_plan_set_unit_bound(fft_plan *plan, int yes);

/* 1 when the plan's backend computes column maxima itself (only the rows cross the bus). */
int fft_plan_reduces_columns(const fft_plan *plan);

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
 * records), and the column maxima of req likewise. SP_EINVAL for a range outside
 * 1 .. n/2-1, kmin > kmax, nranges above FFT_PEAK_RANGES_MAX, or no reduction asked for. */
int fft_stft_reduce(fft_plan *plan, const float *signal, size_t nframes, float *db, const fft_peak_req *req,
                    fft_peak_raw *peaks);

/* fft_stft_reduce in two halves, so that the caller prepares its next batch while the
 * device computes this one: _start begins it and _wait returns once every result is
 * written (db, peaks, req->colmax), with the call's error. In between the caller keeps
 * signal, db, peaks and req->colmax unchanged (req itself may change) and makes no other
 * call on the plan (SP_EINVAL). Where the backend cannot (fft_plan_overlaps 0: the cpu
 * backend, which works on the caller's thread and its own) or a batch holds samples that
 * only the cpu backend computes (fft_stft_reduce's huge samples), _start runs the whole
 * call and _wait has nothing left to do. */
int fft_stft_reduce_start(fft_plan *plan, const float *signal, size_t nframes, float *db, const fft_peak_req *req,
                          fft_peak_raw *peaks);
int fft_stft_reduce_wait(fft_plan *plan);
/* 1 when fft_stft_reduce_start returns while the device works (a GPU backend's plan that is
 * not live). */
int fft_plan_overlaps(const fft_plan *plan);

/* The host scan of one dB spectrum row: the record of range [kmin, kmax] (valid bins as
 * above). The reference every backend's reduction matches. */
fft_peak_raw fft_peak_scan(const float *db, size_t kmin, size_t kmax);

/* ---- transform reductions beside the FFT (docs/transforms.md "Where it runs") ----------
 *
 * A filter bank: each frame's power spectrum p_k = max(a_k^2, 1e-20) (the plan's window
 * and levels, docs/design.md "Levels (dBFS)") reduced to `rows` sums s_r = sum_i w[off[r]+i]
 * p[k0[r]+i], i < len[r] (each row a run of bins: mel bands, chroma classes), then `post`:
 *   FFT_BANK_DB       10 log10(max(s_r, 1e-20))                  (mel)
 *   FFT_BANK_DB_DCT   c_q = sum_r dct[q*rows + r] * dB_r, q < coeffs (MFCC)
 *   FFT_BANK_MAXNORM  s_r / max_r s_r, 0 when that is 0          (chroma)
 *   FFT_BANK_CQT_OCT  the octave-wise multirate constant-Q (xform_cqt.c), no FFT: the
 *                     frames' signal through `stages` halfband decimators (stage i's
 *                     FFT_BANK_HB_FLOATS floats at hb[(i-1)*FFT_BANK_HB_FLOATS]: pairs,
 *                     centre, g_0 .. g_{pairs-1}; y_i[m] = centre y_{i-1}[2m] + sum_p g_p
 *                     (y_{i-1}[2m-2p-1] + y_{i-1}[2m+2p+1]) where both sides exist, from each
 *                     frame's first sample, y_0 the frame), row r from level[r]:
 *                     c_r = sum_i w[off[r]+i] y_d[lo_d + k0[r] + i] (complex weights, lo_d
 *                     the first sample level d has), 10 log10(max(|c_r|^2, 1e-20))
 *   FFT_BANK_REASSIGN no rows (rows 0): `window` is three windows of n (h, t h, dh/dt),
 *                     each frame's row 3 (n/2 + 1) wide: bin k's reassigned frequency (Hz,
 *                     `rate`), time offset from the frame's time (s) and level (dBFS), as
 *                     xform_reassign.c's rows                          (reassignment)
 * computed where the spectra are: on a GPU only the rows cross the bus. The weights are the
 * host's (src/xform builds them, one truth); the backend copies them at bank creation. */
typedef enum {
    FFT_BANK_DB,
    FFT_BANK_DB_DCT,
    FFT_BANK_MAXNORM,
    FFT_BANK_REASSIGN,
    FFT_BANK_CQT_OCT
} fft_bank_post;

#define FFT_BANK_HB_PAIRS 24 /* FFT_BANK_CQT_OCT: a decimator's most odd taps a side */
#define FFT_BANK_HB_FLOATS (2 + FFT_BANK_HB_PAIRS)

typedef struct {
    size_t rows;
    const uint32_t *k0, *len, *off; /* rows each */
    const float *w;                 /* nw weights (FFT_BANK_CQT_OCT: nw complex, re and im) */
    size_t nw;
    const float *window;            /* n floats the frames are windowed with; NULL: the plan's */
    fft_bank_post post;
    size_t coeffs;                  /* FFT_BANK_DB_DCT: 1 .. rows */
    const float *dct;               /* FFT_BANK_DB_DCT: coeffs x rows */
    double rate;                    /* FFT_BANK_REASSIGN: the sample rate */
    size_t stages;                  /* FFT_BANK_CQT_OCT: the decimators, */
    const float *hb;                /* ... their taps (stages x FFT_BANK_HB_FLOATS) */
    const uint32_t *level;          /* ... and each row's level, 0 .. stages */
} fft_bank;

typedef struct fft_bank_handle fft_bank_handle;

/* The bank on the plan's device; SP_EUNSUPPORTED (a message in fft_plan_last_error) where
 * the backend has none for this plan (the cpu backend: the transforms run their own
 * threads), SP_EINVAL for a bank whose runs leave the spectrum, SP_ENOMEM / SP_EGPU. */
int fft_bank_create(fft_plan *plan, const fft_bank *b, fft_bank_handle **out);
/* Destroy before the plan; NULL is a no-op. */
void fft_bank_destroy(fft_plan *plan, fft_bank_handle *h);
/* nframes frames (any number) of signal at the plan's hop -> rows[f*width ..], width =
 * coeffs (FFT_BANK_DB_DCT) or rows. Returns once the rows are written. */
int fft_bank_rows(fft_plan *plan, fft_bank_handle *h, const float *signal, size_t nframes, float *rows);
/* The same on device memory (CUDA pointers of the current device). */
int fft_bank_rows_device(fft_plan *plan, fft_bank_handle *h, const float *d_signal, size_t nframes, float *d_rows);

/* Host memory that the plan's backend moves fastest: pinned memory for the GPU backends
 * (calls whose input or output lies in it skip a staging copy), plain malloc otherwise.
 * NULL when out of memory. Free with fft_plan_host_free on the same plan, before the plan
 * is destroyed; NULL is a no-op. */
void *fft_plan_host_alloc(fft_plan *plan, size_t bytes);
void fft_plan_host_free(fft_plan *plan, void *p);

/* Helpers shared by every backend (and the tests). */
int fft_is_pow2(size_t n);
/* n is a transform size a plan takes: a power of two in [FFT_MIN_SIZE, FFT_MAX_SIZE]. */
int fft_size_valid(size_t n);
/* The hop when none is given: a quarter of the frame (75 % overlap). */
size_t fft_default_hop(size_t n);
/* Level scale for bin k of an n-point transform with window sum S: 2/S inside, 1/S at
 * k = 0 and k = n/2. Inline: the GPU backends use it without linking this library. */
static inline float fft_level_scale(size_t n, size_t k, double window_sum)
{
    double s = (k == 0 || k == n / 2) ? 1.0 : 2.0;
    return (float)(s / window_sum);
}
/* 20*log10(max(a, 1e-10)) with NaN mapped to the floor. */
float fft_amp_to_db(float a);
/* What FFT_BACKEND_AUTO picks for a plan with no job described: FFT_BACKEND_CUDA when the
 * build has CUDA and a device node exists (fft_gpu_present; no CUDA call), else
 * FFT_BACKEND_CPU. Other kinds are returned unchanged. */
fft_backend_kind fft_backend_resolve(fft_backend_kind kind);

/* ---- auto's choice (fft_choose.c) ----------------------------------------------------- */

/* Whether an NVIDIA GPU exists, from the driver's device nodes, in microseconds and
 * without a CUDA call: /dev/nvidiactl with /dev/nvidia0.., an entry of /proc/driver/nvidia/gpus, or
 * WSL's /dev/dxg. 1 or 0; when 0, `why` (may be NULL) says what was missing. A node is not
 * proof that CUDA works: the GPU backend's own probe decides that, once it is chosen. */
int fft_gpu_present(char *why, size_t len);
/* The same under another root directory ("/tmp/x" looks at /tmp/x/dev/...): the tests'. */
int fft_gpu_present_under(const char *root, char *why, size_t len);

/* This machine for auto: rates in units of one frame's N*log2(N), and what it has. */
typedef struct {
    double cpu_core;     /* units a second on one of the cpu backend's threads */
    double gpu_start;    /* seconds the GPU costs a process before (and after) any work */
    double gpu;          /* units a second on the GPU, copies to and from the host included */
    double host;         /* bytes a second one session decodes and writes (fft_job.host_bytes) */
    int cpu_threads;     /* the cpu backend's threads for the job */
    int device;          /* 1: the build has a GPU backend and a device node exists */
    char no_device[96];  /* device 0: why ("no NVIDIA device node ...") */
} fft_rates;

/* The measured constants (FFT_RATE_* in fft_choose.c, which says where each came from). */
fft_rates fft_rates_default(void);

/* What auto weighed and chose. Estimates are seconds of work for the job (basis JOB), for
 * one minute of audio (MINUTE: a file of unknown length), or the seconds of work a second
 * of audio brings (LIVE: the load, 1 = a thread's whole time on every thread). */
typedef enum { FFT_CHOICE_NONE, FFT_CHOICE_JOB, FFT_CHOICE_MINUTE, FFT_CHOICE_LIVE } fft_choice_basis;
typedef struct {
    int made;            /* 1: auto chose (0: a backend was named, nothing weighed) */
    fft_backend_kind kind; /* FFT_BACKEND_CPU or FFT_BACKEND_CUDA */
    fft_choice_basis basis;
    double cpu_s, gpu_s; /* the estimates; gpu_s includes gpu_start_s (JOB, MINUTE) */
    double gpu_start_s;
    double host_s;       /* the host's work in both (JOB): all of it in gpu_s, a share of
                          * it in cpu_s when the cpu path runs several sessions */
    int cpu_threads;
    int device;
    char no_device[96];
} fft_choice;

/* Live: the cpu when it keeps up using at most this share of its threads, else the GPU. */
#define FFT_LIVE_CPU_MAX_LOAD 0.5

/* Weighs the job on this machine: the cpu's time, frames x N*log2(N) x channels at
 * cpu_core a thread on cpu_threads threads, against the GPU's start plus its rate; both plus
 * the host's decoding and writing (job->host_bytes at rates->host), which the cpu path
 * shares over job->host_width sessions and the GPU's one session does alone.
 *   files, length known: the faster one; unknown length: as if a minute of audio;
 *   live: the GPU when the cpu would be busier than FFT_LIVE_CPU_MAX_LOAD, else the cpu;
 *   no job described (channels 0): the GPU when a device exists;
 *   no device: the cpu, and out->no_device says why.
 * A pure function: no probing, no CUDA. SP_EINVAL for a NULL argument. */
int fft_backend_choose(const fft_job *job, const fft_rates *rates, fft_choice *out);

/* fft_backend_choose for a plan's config: its job (n, hop, live from the config), the
 * constants with the tuning's overrides, the cpu threads that config would run (the
 * tuning's or min(online CPUs, 8), no more than max_batch), the device nodes (or the
 * tuning's pretence). What fft_plan_create does for FFT_BACKEND_AUTO, without a CUDA call;
 * out->made is 0 for a named backend. */
int fft_config_choose(const fft_config *cfg, fft_choice *out);

/* One line for --verbose, e.g. "auto chose cpu: cpu ~0.06 s (8 threads), cuda ~0.36 s
 * (0.35 s start)"; "" when nothing was chosen. */
void fft_choice_format(const fft_choice *c, char *buf, size_t len);

/* What auto weighed and chose for this plan (made 0 when a backend was named). */
const fft_choice *fft_plan_choice(const fft_plan *plan);

/* fft_plan_create where the caller has made auto's choice for cfg already (fft_config_choose,
 * once a run: the batch it sizes follows the choice): the plan takes *choice as it is and
 * does not weigh the job again. NULL: it chooses, as fft_plan_create. Ignored unless
 * cfg->backend is FFT_BACKEND_AUTO. */
int fft_plan_create_chosen(const fft_config *cfg, const fft_choice *choice, fft_plan **out, sp_errinfo *ei);

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
