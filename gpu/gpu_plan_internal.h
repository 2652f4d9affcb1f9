/* gpu_plan's state, shared by its two files: gpu_plan_setup.cu (errors, the probe, the
 * plan's buffers: create, destroy, pinned host memory) and gpu_plan.cu (the kernels and the
 * sub-batch pipeline). Not for the backends: they see gpu_plan.h. */
#ifndef SPECTRO_GPU_PLAN_INTERNAL_H
#define SPECTRO_GPU_PLAN_INTERNAL_H

#include <cuda_runtime.h>

#include "gpu_plan.h"

#define GPU_NGRAPHS 16
#define GPU_NPINNED 12

/* Returns from the enclosing function (which has an `sp_errinfo *ei`) on a CUDA error. */
#define GPU_CK(call)                                                                       \
    do {                                                                                   \
        cudaError_t e_ = (call);                                                           \
        if (e_ != cudaSuccess)                                                             \
            return gpu_fail_cuda(ei, (int)e_, #call);                                      \
    } while (0)

struct gpu_plan {
    size_t n, hop, max_batch, chunk;
    size_t work_bytes; /* n complex a frame: c2c data, r2c input, dB output */
    size_t spec_bytes; /* n/2+1 complex a frame */
    size_t sig_bytes;  /* signal for `chunk` frames: (chunk-1)*hop + n floats */
    size_t hin_bytes, hout_bytes;
    size_t pk_bytes;   /* peak records for `chunk` frames, every range */
    float scale_mid, scale_edge;
    float *d_window;
    cudaStream_t stream[GPU_NSLOTS];
    void *d_work[GPU_NSLOTS];
    cpx *d_spec[GPU_NSLOTS];
    float *d_sig[GPU_NSLOTS];
    fft_peak_raw *d_pk[GPU_NSLOTS]; /* the records of a reduction (pk_bytes) */
    float *d_cm[GPU_NSLOTS];        /* column maxima of a sub-batch: chunk + 1 rows, made on first use */
    unsigned char *h_cm[GPU_NSLOTS]; /* their pinned staging (the host merges split groups) */
    size_t cm_bytes;
    unsigned char *h_in[GPU_NSLOTS], *h_out[GPU_NSLOTS], *h_pk[GPU_NSLOTS]; /* pinned staging,
                                                                      * made when first needed */
    /* pinned memory handed out by gpu_plan_host_alloc: copies to and from it go straight
     * to the device, without staging */
    struct {
        unsigned char *p;
        size_t bytes;
    } pinned[GPU_NPINNED];
    const gpu_xform *xf;
    void *ctx;
    /* live plans: graphs of whole one-sub-batch calls (slot 0), keyed by op, direction,
     * frame count and, for a reduction, its ranges and whether the spectra come back too;
     * `seen` marks a shape met once (captured the second time) */
    int live;
    struct {
        int op, inverse, state; /* state 0 empty, 1 seen, 2 graph ready */
        size_t cnt;
        int reduce, want_db;
        fft_peak_req req; /* zeroed past nranges, so that memcmp compares */
        cudaGraphExec_t exec;
    } graph[GPU_NGRAPHS];
    int graphs_off; /* a capture failed: run live calls without graphs */
    int direct_out[GPU_NSLOTS]; /* the slot's sub-batch lands in the caller's memory */
    int direct_pk[GPU_NSLOTS];  /* the same for its peak records */
    int broken;
    /* gpu_plan_stft_db_device_async: the events that join slot 0's stream to the caller's
     * (made on first use), and whether work may still be queued on a caller's stream */
    cudaEvent_t ev_in, ev_out;
    int async_used;
    char why[sizeof(((sp_errinfo *)0)->msg)];
    /* a reduction begun (gpu_plan_stft_reduce_start) and not yet waited for: its job, with
     * its own copy of the request, and the sub-batches already finished */
    struct {
        int on;
        int op, inverse;
        const unsigned char *h_in;
        unsigned char *h_out, *h_pk;
        size_t batch, done, nsub;
        fft_peak_req req;
    } pend;
};

/* The octave-wise multirate constant-Q (gpu_cqt.cu; fft.h FFT_BANK_CQT_OCT): the bank's
 * decimators and weights on the device; its rows from device or host signal on the plan's
 * slot 0 stream (the caller waits for it). */
struct gpu_cqt;
int gpu_cqt_create(const gpu_plan *gp, const fft_bank *fb, gpu_cqt **out, sp_errinfo *ei);
void gpu_cqt_destroy(gpu_cqt *c);
int gpu_cqt_rows_device(gpu_plan *gp, gpu_cqt *c, const float *d_sig, size_t nframes, float *d_rows, sp_errinfo *ei);
int gpu_cqt_rows(gpu_plan *gp, gpu_cqt *c, const float *sig, size_t nframes, float *rows, sp_errinfo *ei);

/* cudaHostAlloc'd memory for `what` into *h_ptr (SP_ENOMEM / SP_EGPU naming the bytes). */
int gpu_host_alloc_pinned(unsigned char **h_ptr, size_t bytes, const char *what, sp_errinfo *ei);
/* The block of gpu_plan_host_alloc's pinned memory that holds [p, p+bytes), or NULL. */
const unsigned char *gpu_pinned_range(const gpu_plan *gp, const unsigned char *p, size_t bytes);

#endif
