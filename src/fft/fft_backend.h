/* fft_backend: the table of function pointers each FFT backend fills in (Redis aeApi*,
 * chosen at run time). Internal to spectro_core and gpu/; users go through fft.h.
 *
 * create() receives the validated config (n is a power of two in range, hop >= 1,
 * max_batch >= 1) plus the window already filled (n floats, never NULL: all ones for
 * rect) and its sum in double. Backends copy what they keep. Every function returns SP_OK
 * or a negative sp_err and, on failure, writes one line into ei. */
#ifndef SPECTRO_FFT_BACKEND_H
#define SPECTRO_FFT_BACKEND_H

#include "fft.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fft_backend {
    const char *name;
    /* SP_OK when the backend can run here (a device exists ...), else why not. */
    int (*probe)(sp_errinfo *ei);
    int (*create)(const fft_config *cfg, const float *window, double window_sum, void **state,
                  sp_errinfo *ei);
    void (*destroy)(void *state);
    int (*c2c)(void *state, const cpx *in, cpx *out, size_t batch, int inverse, sp_errinfo *ei);
    int (*r2c)(void *state, const float *in, cpx *out, size_t batch, sp_errinfo *ei);
    int (*stft_db)(void *state, const float *signal, size_t nframes, float *db, sp_errinfo *ei);
    /* Optional (NULL: malloc/free): host memory that this backend moves fastest. */
    void *(*host_alloc)(void *state, size_t bytes);
    void (*host_free)(void *state, void *p);
    /* Optional (NULL: stft_db, then fft_peak_scan on the caller's thread): stft_db with the
     * peak search of req beside it (fft_stft_reduce; req validated, db may be NULL). */
    int (*stft_reduce)(void *state, const float *signal, size_t nframes, float *db, const fft_peak_req *req,
                       fft_peak_raw *peaks, sp_errinfo *ei);
    /* 1: stft_reduce computes req's column maxima too (req->span); 0: it gets requests
     * without them (fft.c reduces the spectra on the caller's thread) */
    int reduces_columns;
    /* Optional (NULL: stft_reduce runs whole): stft_reduce in two halves, so that the
     * caller prepares the next batch while this one runs. _start begins it; by the time
     * _wait returns, the results are written (db, peaks, req->colmax). In between the caller
     * keeps signal, db, peaks and req->colmax unchanged and makes no other call on the
     * state; req itself may change (the backend keeps a copy). */
    int (*stft_reduce_start)(void *state, const float *signal, size_t nframes, float *db, const fft_peak_req *req,
                             fft_peak_raw *peaks, sp_errinfo *ei);
    int (*stft_reduce_wait)(void *state, sp_errinfo *ei);
    /* Optional: the process is done with the backend's device (no state of it is left, none
     * is made after): let go of what it holds for the whole process (a CUDA context) now, on
     * the caller's thread, rather than at the process's exit. */
    void (*release)(void);
    /* Optional (NULL: not offered): stft_db on device memory, d_signal and d_db CUDA
     * pointers of the current device, for `clips` signals clip_stride floats apart, nframes
     * frames each (any nframes; the window, hop and levels of the plan): clip c's spectra at
     * d_db + c*nframes*(n/2+1). Returns once d_db is written. No check for huge samples
     * (fft.c's split_huge). */
    int (*stft_db_device)(void *state, const float *d_signal, size_t clips, size_t clip_stride, size_t nframes,
                          float *d_db, sp_errinfo *ei);
    /* Optional (NULL: not offered): stft_db_device queued on `stream` (a cudaStream_t of the
     * current device, NULL its default stream), returning without waiting: d_db is written
     * when the stream reaches the work. The state may be used again at once (its buffers are
     * ordered, gpu_plan.h). */
    int (*stft_db_device_async)(void *state, const float *d_signal, size_t clips, size_t clip_stride,
                                size_t nframes, float *d_db, void *stream, sp_errinfo *ei);
    /* Optional (NULL: the transforms run on the host): fft.h's filter banks. bank_create
     * uploads b (copied) and returns SP_EUNSUPPORTED where the plan cannot run it (its size,
     * the backend's kernels); bank_rows takes host memory (any nframes, at the plan's hop
     * and window), bank_rows_device device memory; both return once the rows are written. */
    int (*bank_create)(void *state, const fft_bank *b, void **bank, sp_errinfo *ei);
    void (*bank_destroy)(void *state, void *bank);
    int (*bank_rows)(void *state, void *bank, const float *signal, size_t nframes, float *rows, sp_errinfo *ei);
    int (*bank_rows_device)(void *state, void *bank, const float *d_signal, size_t nframes, float *d_rows,
                            sp_errinfo *ei);
} fft_backend;

/* What the program and the GPU module it loads (gpu/gpu_module.cu) must agree on: a module
 * built against another version is refused. FFT_BACKEND_ABI_VERSION is bumped by hand on
 * every incompatible change (a member's meaning or order, a calling rule); the sizes of
 * what crosses the boundary catch the changes someone forgot to bump it for. The version
 * takes bits 16-23, the sizes bits 0-15 (fft_gpu_load.c asserts they fit). */
#define FFT_BACKEND_ABI_VERSION 3u
#define FFT_BACKEND_ABI_SIZES (sizeof(fft_backend) + sizeof(fft_peak_req) + sizeof(fft_config) + sizeof(fft_bank))
#define FFT_BACKEND_ABI ((0x53u << 24) | (FFT_BACKEND_ABI_VERSION << 16) | (unsigned)FFT_BACKEND_ABI_SIZES)

extern const fft_backend fft_backend_cpu;   /* src/fft/fft_cpu.c */
/* gpu/fft_cuda.cu and gpu/fft_cufft.cu, in the GPU module (fft_gpu_load.h: the program
 * loads them from it; the GPU tests and benchmarks link them directly) */
extern const fft_backend fft_backend_cuda;
extern const fft_backend fft_backend_cufft;

#ifdef __cplusplus
}
#endif
#endif
