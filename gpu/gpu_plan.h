/* gpu_plan: what the two GPU backends (cuda, cufft) share, behind a plain C interface.
 *
 * A gpu_plan owns, for one transform size n, hop and window:
 *   - two slots, each with a CUDA stream, device buffers for `chunk` frames and pinned host
 *     staging buffers (chunk = ceil(max_batch / 2)), allocated once: the device buffers in
 *     create(), the staging buffers on the first call that needs them (callers whose
 *     buffers come from gpu_plan_host_alloc need none);
 *   - the device copy of the window and the level scales (2/S inside, 1/S at 0 and n/2);
 *   - the pipeline that splits a call into sub-batches of at most `chunk` frames and runs
 *     them on alternating slots, so that the copies and host staging of one sub-batch
 *     overlap the kernels of the other;
 *   - the framing+window, magnitude->dBFS and scaling kernels, and the peak search of each
 *     frame's dB row (fft_stft_reduce: only the records cross the bus).
 * The backend supplies the transforms themselves (gpu_xform), queued on a slot's stream.
 *
 * Device pointers (d_) and streams cross this header as void* / cpx* / float*: no CUDA
 * type appears here. The functions with a void *state first argument fit the fft_backend
 * table directly (state is the gpu_plan*).
 *
 * Errors: every CUDA call is checked; a failure returns SP_EGPU (SP_ENOMEM when device or
 * pinned memory runs out, naming the bytes asked for) with cudaGetErrorString's text in ei.
 * Live plans (fft_config.live) run a call that fits one sub-batch as a CUDA graph (copy in,
 * kernels, copy out: one launch), captured on the second call with the same shape.
 *
 * After any GPU error during a call the plan is marked broken and every later call on it
 * fails with SP_EGPU (a sticky error such as an illegal address leaves the context unusable
 * anyway). Thread safety: one thread at a time per plan. */
#ifndef SPECTRO_GPU_PLAN_H
#define SPECTRO_GPU_PLAN_H

#include <stddef.h>

#include "fft_backend.h"
#include "fft_fused.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GPU_NSLOTS 2

/* The transforms a GPU backend provides. Each call queues work on the stream of `slot`
 * (gpu_plan_stream) and returns without waiting; device pointers point into that slot's
 * buffers (or, for timing, into the other slot's). */
typedef struct gpu_xform {
    /* batch complex n-point transforms d_in -> d_out (d_in == d_out allowed); the inverse
     * is scaled by 1/n. */
    int (*c2c)(void *ctx, int slot, const cpx *d_in, cpx *d_out, size_t batch, int inverse,
               sp_errinfo *ei);
    /* batch real n-point transforms: d_in (n floats a frame, may be overwritten) ->
     * d_out (n/2+1 bins a frame). d_in and d_out do not overlap. */
    int (*r2c)(void *ctx, int slot, float *d_in, cpx *d_out, size_t batch, sp_errinfo *ei);
    void (*destroy)(void *ctx); /* frees ctx; the streams are still alive when it runs */
    /* Optional (NULL: not offered): short-time levels in one go from a device signal,
     * frame f = d_sig[f*hop ...] * d_win -> d_db[f*(n/2+1) ...] (the contract of
     * fft_stft_db); any nframes. SP_EUNSUPPORTED: not for this plan, and the plan uses its
     * framing + r2c + dB kernels instead. Queued on `stream` (a slot's, or the caller's of
     * gpu_plan_stft_db_device_async): it reads d_win and the backend's constant tables and
     * writes d_db only, so that calls on several streams may run at once. */
    int (*stft_db)(void *ctx, void *stream, const float *d_sig, size_t hop, const float *d_win,
                   float scale_mid, float scale_edge, size_t nframes, float *d_db, sp_errinfo *ei);
    /* Optional: stft_db over clips in one go: nframes = clips x clip_frames, clip c's
     * samples from d_sig + c*clip_stride (fused_stft_db_clips); SP_EUNSUPPORTED as stft_db. */
    int (*stft_db_clips)(void *ctx, void *stream, const float *d_sig, size_t hop, size_t clip_frames,
                         size_t clip_stride, const float *d_win, float scale_mid, float scale_edge, size_t nframes,
                         float *d_db, sp_errinfo *ei);
    /* Optional: a filter bank's rows of the short-time power in one go (fused_stft_bank),
     * for gpu_bank.cu; SP_EUNSUPPORTED: not for this plan or bank (the transforms then stay
     * on the host). nframes 0 launches nothing and says whether it would run. */
    int (*stft_bank)(void *ctx, void *stream, const float *d_sig, size_t hop, const float *d_win, float scale_mid,
                     float scale_edge, size_t nframes, const fused_bank *bank, float *d_rows, sp_errinfo *ei);
} gpu_xform;

typedef struct gpu_plan gpu_plan;

/* SP_OK when a CUDA device is present and usable (cudaFree(0) succeeds), else SP_ENODEV
 * with the reason (no device, driver too old ...). */
int gpu_probe(sp_errinfo *ei);
/* fft_backend.release: the primary context goes (cudaDeviceReset). */
void gpu_release(void);

/* Allocates everything for cfg (validated by fft.c: n a power of two in range, hop >= 1,
 * max_batch >= 1) with the window (n floats) and its sum. */
int gpu_plan_create(const fft_config *cfg, const float *window, double window_sum,
                    gpu_plan **out, sp_errinfo *ei);
/* Hands the backend's transforms to the plan; ctx is then owned by the plan (xf->destroy
 * runs in gpu_plan_destroy). */
void gpu_plan_set_xform(gpu_plan *gp, const gpu_xform *xf, void *ctx);
size_t gpu_plan_n(const gpu_plan *gp);
size_t gpu_plan_chunk(const gpu_plan *gp); /* frames per slot */
void *gpu_plan_stream(const gpu_plan *gp, int slot); /* the slot's cudaStream_t */

/* fft_backend entry points; state is a gpu_plan*. destroy(NULL) is a no-op. */
void gpu_plan_destroy(void *state);
int gpu_plan_c2c(void *state, const cpx *in, cpx *out, size_t batch, int inverse, sp_errinfo *ei);
int gpu_plan_r2c(void *state, const float *in, cpx *out, size_t batch, sp_errinfo *ei);
int gpu_plan_stft_db(void *state, const float *signal, size_t nframes, float *db, sp_errinfo *ei);
/* stft_db with the peak search of req beside it (fft_stft_reduce): a kernel reduces each
 * frame's dB row in device memory to its records (one block a frame and range), queued
 * on the slot's stream after the dB kernels; only the records come back when db is NULL,
 * both when it is not. Live plans run it as a graph too (the ranges are part of the
 * graph's shape). */
int gpu_plan_stft_reduce(void *state, const float *signal, size_t nframes, float *db, const fft_peak_req *req,
                         fft_peak_raw *peaks, sp_errinfo *ei);
/* gpu_plan_stft_reduce in two halves (fft_stft_reduce_start): _start queues the copies and
 * kernels of every sub-batch and returns while the last ones run (a live plan runs it
 * whole); _wait waits for them and stages their results out. In between the caller keeps
 * signal, db, peaks and req->colmax as they are and makes no other call on the plan (it is
 * refused); req itself is copied. */
int gpu_plan_stft_reduce_start(void *state, const float *signal, size_t nframes, float *db, const fft_peak_req *req,
                               fft_peak_raw *peaks, sp_errinfo *ei);
int gpu_plan_stft_reduce_wait(void *state, sp_errinfo *ei);
/* Host memory for the plan's callers: pinned (page-locked) while the plan has room for it
 * (GPU_NPINNED blocks), so that calls whose input or output lies in it copy straight
 * between it and the device, skipping the staging copy; plain malloc memory otherwise.
 * Never NULL unless malloc fails. Free with gpu_plan_host_free on the same plan. */
void *gpu_plan_host_alloc(void *state, size_t bytes);
void gpu_plan_host_free(void *state, void *p);

/* Device-resident entry points, for code that drives a plan on device data without host
 * copies (the benchmarks, bench/gpu_time.cu, time them with CUDA events). They queue work
 * on slot 0's stream and return without waiting. */
size_t gpu_plan_hop(const gpu_plan *gp);
void *gpu_plan_work(const gpu_plan *gp, int slot); /* n complex a frame, `chunk` frames */
/* One forward transform of `batch` (1 .. chunk) frames: c2c from slot 0's work buffer into
 * slot 1's; real (r2c, which may overwrite its input) from slot 0's into slot 1's spectra. */
int gpu_plan_forward_device(gpu_plan *gp, int real, size_t batch, sp_errinfo *ei);
/* The short-time levels of the device signal d_sig (nframes frames at the plan's hop and
 * window) into d_db (nframes*(n/2+1) floats): the backend's fused kernel when it has one
 * for this plan, else the plan's framing + r2c + dB kernels over sub-batches of `chunk`. */
int gpu_plan_stft_device(gpu_plan *gp, const float *d_sig, size_t nframes, float *d_db, sp_errinfo *ei);

/* fft_backend.stft_db_device: every clip's frames in one launch where the transform offers
 * it (stft_db_clips), else gpu_plan_stft_device for each clip, queued one after another on
 * slot 0's stream and waited for once (the call returns once d_db is written); refused while
 * a gpu_plan_stft_reduce_start is pending. state is a gpu_plan*. */
int gpu_plan_stft_db_device(void *state, const float *d_sig, size_t clips, size_t clip_stride, size_t nframes,
                            float *d_db, sp_errinfo *ei);

/* fft_backend.stft_db_device_async: the same work queued on the caller's CUDA stream (a
 * cudaStream_t of the current device; NULL is the default stream), returning without
 * waiting. The backend's fused kernel runs on that stream itself (it reads only the plan's
 * constant tables: calls on several streams may overlap); the framing + r2c + dB path needs
 * slot 0's work buffers and runs on slot 0's stream, joined to the caller's by two events
 * (slot 0's stream waits for what was queued on the caller's before, the caller's waits for
 * slot 0's work), so that calls from any streams take the buffers in turn. Refused while a
 * gpu_plan_stft_reduce_start is pending. gpu_plan_destroy waits for the whole device once
 * this entry has been used (queued work reads the plan's tables). */
int gpu_plan_stft_db_device_async(void *state, const float *d_sig, size_t clips, size_t clip_stride, size_t nframes,
                                  float *d_db, void *stream, sp_errinfo *ei);

/* fft_backend's filter-bank entries (fft.h "Transform reductions", gpu_bank.cu); state is a
 * gpu_plan*. */
int gpu_plan_bank_create(void *state, const fft_bank *b, void **bank, sp_errinfo *ei);
void gpu_plan_bank_destroy(void *state, void *bank);
int gpu_plan_bank_rows(void *state, void *bank, const float *signal, size_t nframes, float *rows, sp_errinfo *ei);
int gpu_plan_bank_rows_device(void *state, void *bank, const float *d_signal, size_t nframes, float *d_rows,
                              sp_errinfo *ei);

/* Helpers for the gpu/ .cu files. cuda_err carries a cudaError_t. */
int gpu_fail_cuda(sp_errinfo *ei, int cuda_err, const char *what);
/* cudaGetLastError() after a launch; SP_OK or SP_EGPU naming the kernel. */
int gpu_check_launch(sp_errinfo *ei, const char *kernel);
/* cudaMalloc with the out-of-memory message (bytes asked for, what for). */
int gpu_malloc(void **d_ptr, size_t bytes, const char *what, sp_errinfo *ei);
/* d_data[i] *= s for i < count, on stream. */
int gpu_scale(void *stream, cpx *d_data, size_t count, float s, sp_errinfo *ei);

#ifdef __cplusplus
}
#endif
#endif
