/* gpu_plan: the framing / dB / reduction kernels and the sub-batch pipeline shared by the
 * cuda and cufft backends (see gpu_plan.h); the plan's buffers, its creation and the probe
 * are in gpu_plan_setup.cu. */
#include "gpu_plan_internal.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cfloat>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

static_assert(sizeof(cpx) == sizeof(float2), "cpx must have the layout of float2");
static_assert(sizeof(fft_peak_raw) == 16, "fft_peak_raw must be 16 bytes");

#define GPU_BLOCK 256
#define PEAK_BLOCK 256 /* threads of peak_reduce_kernel: one block a frame and range */



/* ---- kernels -------------------------------------------------------------------------- */

/* d_frames[f*n + i] = d_sig[f*hop + i] * d_win[i]: cuts nframes overlapping frames. */
__global__ void frame_window_kernel(const float *__restrict__ d_sig, const float *__restrict__ d_win,
                                    float *__restrict__ d_frames, unsigned log2n, size_t hop,
                                    size_t total)
{
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= total)
        return;
    size_t f = t >> log2n;
    size_t i = t & (((size_t)1 << log2n) - 1);
    d_frames[t] = d_sig[f * hop + i] * d_win[i];
}

/* Level in dBFS of each bin: a = |X| * (2/S inside, 1/S at 0 and n/2);
 * 20*log10(max(a, 1e-10)), NaN -> floor (the comparisons are false for NaN). Where |X|^2
 * overflows (|X| past 1.8e19: samples of 1e30) the level is taken from |X 2^-64| and
 * 20 log10(2^64) added back, as fft_fused.cu's level_db does, so that the per-level and the
 * fused paths agree for every finite X; the common path pays one compare a bin. */
__global__ void amp_db_kernel(const float2 *__restrict__ d_spec, float *__restrict__ d_db,
                              size_t bins, size_t total, float scale_mid, float scale_edge)
{
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= total)
        return;
    size_t k = t % bins;
    float2 x = d_spec[t];
    float s = (k == 0 || k == bins - 1) ? scale_edge : scale_mid;
    float q = x.x * x.x + x.y * x.y;
    if (q <= FLT_MAX) {
        float a = sqrtf(q) * s;
        d_db[t] = (a > 1e-10f) ? 20.0f * log10f(a) : FFT_DB_FLOOR;
    } else {
        const float u = x.x * 0x1p-64f, v = x.y * 0x1p-64f;
        float a = sqrtf(u * u + v * v) * s; /* NaN stays NaN and reads the floor */
        d_db[t] = (a > 0.0f) ? 20.0f * log10f(a) + 385.318394f : FFT_DB_FLOOR;
    }
}

/* The ranges of a peak search, by value into the kernel (and into a captured graph). */
struct peak_ranges {
    unsigned nranges;
    unsigned kmin[FFT_PEAK_RANGES_MAX], kmax[FFT_PEAK_RANGES_MAX];
};

/* (v, i) wins over (bv, bi): stronger, or as strong at a lower bin; i == UINT_MAX is no
 * candidate. Keeps the first of equal maxima, as the host scan's `>` does. */
__device__ __forceinline__ bool peak_better(float v, unsigned i, float bv, unsigned bi)
{
    return i != UINT_MAX && (bi == UINT_MAX || v > bv || (v == bv && i < bi));
}

/* The peak record of one frame's dB row (blockIdx.x) in one range (blockIdx.y): each thread
 * keeps the first maximum of its bins k0+t, k0+t+PEAK_BLOCK, ... (`>`), then the threads'
 * winners compete (warp shuffles, then the warps' winners), ties going to the lower bin:
 * the bin fft_peak_scan finds for every row without NaN (dB rows hold none). Rows are
 * d_db[f*bins ...]; the record goes to d_out[f*nranges + range]. */
__global__ void __launch_bounds__(PEAK_BLOCK) peak_reduce_kernel(const float *__restrict__ d_db, size_t bins,
                                                                 peak_ranges pr, fft_peak_raw *__restrict__ d_out)
{
    __shared__ float s_v[PEAK_BLOCK / 32];
    __shared__ unsigned s_i[PEAK_BLOCK / 32];
    const float *row = d_db + (size_t)blockIdx.x * bins;
    const unsigned k0 = pr.kmin[blockIdx.y], k1 = pr.kmax[blockIdx.y];
    const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    unsigned bi = UINT_MAX;
    float bv = 0.0f;
    for (unsigned k = k0 + threadIdx.x; k <= k1; k += PEAK_BLOCK) {
        float v = row[k];
        if (bi == UINT_MAX || v > bv) {
            bv = v;
            bi = k;
        }
    }
    for (int off = 16; off > 0; off >>= 1) {
        float v = __shfl_down_sync(0xffffffffu, bv, off);
        unsigned i = __shfl_down_sync(0xffffffffu, bi, off);
        if (peak_better(v, i, bv, bi)) {
            bv = v;
            bi = i;
        }
    }
    if (lane == 0) {
        s_v[warp] = bv;
        s_i[warp] = bi;
    }
    __syncthreads();
    if (warp != 0)
        return;
    bv = lane < PEAK_BLOCK / 32 ? s_v[lane] : 0.0f;
    bi = lane < PEAK_BLOCK / 32 ? s_i[lane] : UINT_MAX;
    for (int off = 16; off > 0; off >>= 1) {
        float v = __shfl_down_sync(0xffffffffu, bv, off);
        unsigned i = __shfl_down_sync(0xffffffffu, bi, off);
        if (peak_better(v, i, bv, bi)) {
            bv = v;
            bi = i;
        }
    }
    if (lane == 0) {
        fft_peak_raw o;
        o.bin = bi;
        o.l = row[bi - 1];
        o.c = row[bi];
        o.r = row[bi + 1];
        d_out[(size_t)blockIdx.x * pr.nranges + blockIdx.y] = o;
    }
}

/* Column maxima (fft_peak_req.span): row blockIdx.x is group first/span + blockIdx.x, the
 * per-bin maximum of its frames among the sub-batch's cnt dB rows (frame first+f is row f);
 * `>` as the host's reduction, so the same value comes out. Threads run along the bins:
 * each frame's row is read coalesced. */
__global__ void colmax_kernel(const float *__restrict__ d_db, size_t bins, size_t cnt, unsigned long long first,
                              unsigned long long span, float *__restrict__ d_out)
{
    size_t k = (size_t)blockIdx.y * blockDim.x + threadIdx.x;
    if (k >= bins)
        return;
    unsigned long long a = (first / span + blockIdx.x) * span, b = a + span;
    a = a < first ? first : a;
    b = b > first + cnt ? first + cnt : b;
    const float *p = d_db + (size_t)(a - first) * bins + k;
    float m = *p;
    for (unsigned long long f = a + 1; f < b; f++) {
        p += bins;
        float v = *p;
        m = v > m ? v : m;
    }
    d_out[(size_t)blockIdx.x * bins + k] = m;
}

/* Groups the frames first .. first+cnt-1 touch (fft_colmax_rows). */
static size_t colmax_rows(unsigned long long span, unsigned long long first, size_t cnt)
{
    return cnt ? (size_t)((first + cnt - 1) / span - first / span + 1) : 0;
}

__global__ void scale_kernel(float2 *d_data, size_t count, float s)
{
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= count)
        return;
    float2 v = d_data[t];
    d_data[t] = make_float2(v.x * s, v.y * s);
}

static unsigned ilog2(size_t n)
{
    unsigned l = 0;
    while (((size_t)1 << l) < n)
        l++;
    return l;
}

static unsigned blocks_for(size_t total)
{
    return (unsigned)((total + GPU_BLOCK - 1) / GPU_BLOCK);
}

int gpu_scale(void *stream, cpx *d_data, size_t count, float s, sp_errinfo *ei)
{
    scale_kernel<<<blocks_for(count), GPU_BLOCK, 0, (cudaStream_t)stream>>>((float2 *)d_data,
                                                                             count, s);
    return gpu_check_launch(ei, "scale_kernel");
}

/* ---- the pipeline --------------------------------------------------------------------- */

enum { OP_C2C, OP_R2C, OP_STFT };

typedef struct {
    int op, inverse;
    const unsigned char *h_in; /* user input */
    unsigned char *h_out;      /* user output; NULL for a reduction without the spectra */
    size_t batch;
    const fft_peak_req *req;   /* OP_STFT with reductions (peak searches, column maxima), else NULL */
    unsigned char *h_pk;       /* with req: the user's records, f*nranges + range */
} job;

static int job_peaks(const job *j)
{
    return j->req && j->req->nranges > 0;
}

static int job_colmax(const job *j)
{
    return j->req && j->req->span > 0;
}

/* Where frames [f0, f0+cnt) of a job lie in the user's buffers. */
typedef struct {
    size_t in_off, in_bytes, out_off, out_bytes, pk_off, pk_bytes;
} extent;

static extent job_extent(const gpu_plan *gp, const job *j, size_t f0, size_t cnt)
{
    size_t bins = gp->n / 2 + 1, rec = j->req ? j->req->nranges * sizeof(fft_peak_raw) : 0;
    extent e;
    switch (j->op) {
    case OP_C2C:
        e.in_off = f0 * gp->work_bytes;
        e.in_bytes = cnt * gp->work_bytes;
        e.out_off = e.in_off;
        e.out_bytes = e.in_bytes;
        break;
    case OP_R2C:
        e.in_off = f0 * gp->n * sizeof(float);
        e.in_bytes = cnt * gp->n * sizeof(float);
        e.out_off = f0 * gp->spec_bytes;
        e.out_bytes = cnt * gp->spec_bytes;
        break;
    default: /* OP_STFT */
        e.in_off = f0 * gp->hop * sizeof(float);
        e.in_bytes = ((cnt - 1) * gp->hop + gp->n) * sizeof(float);
        e.out_off = f0 * bins * sizeof(float);
        e.out_bytes = cnt * bins * sizeof(float);
        break;
    }
    e.pk_off = f0 * rec;
    e.pk_bytes = cnt * rec;
    return e;
}

/* The levels of cnt frames of slot s's signal into the slot's work buffer: the backend's
 * fused kernel when it has one for this plan, else framing + r2c + dB. */
static int queue_levels(gpu_plan *gp, int s, size_t cnt, sp_errinfo *ei)
{
    cudaStream_t st = gp->stream[s];
    size_t bins = gp->n / 2 + 1, total = cnt * gp->n;
    int err;
    if (gp->xf->stft_db &&
        (err = gp->xf->stft_db(gp->ctx, st, gp->d_sig[s], gp->hop, gp->d_window, gp->scale_mid, gp->scale_edge, cnt,
                               (float *)gp->d_work[s], ei)) != SP_EUNSUPPORTED)
        return err; /* the backend's fused kernel: signal in, levels out */
    frame_window_kernel<<<blocks_for(total), GPU_BLOCK, 0, st>>>(gp->d_sig[s], gp->d_window, (float *)gp->d_work[s],
                                                                  ilog2(gp->n), gp->hop, total);
    if ((err = gpu_check_launch(ei, "frame_window_kernel")) != SP_OK)
        return err;
    if ((err = gp->xf->r2c(gp->ctx, s, (float *)gp->d_work[s], gp->d_spec[s], cnt, ei)) != SP_OK)
        return err;
    /* the work buffer is free again after r2c: the levels land there */
    total = cnt * bins;
    amp_db_kernel<<<blocks_for(total), GPU_BLOCK, 0, st>>>((const float2 *)gp->d_spec[s], (float *)gp->d_work[s], bins,
                                                            total, gp->scale_mid, gp->scale_edge);
    return gpu_check_launch(ei, "amp_db_kernel");
}

/* The peak records of the cnt dB rows in slot s's work buffer into its d_pk. */
static int queue_peaks(gpu_plan *gp, int s, size_t cnt, const fft_peak_req *req, sp_errinfo *ei)
{
    peak_ranges pr;
    memset(&pr, 0, sizeof pr);
    pr.nranges = (unsigned)req->nranges;
    for (size_t r = 0; r < req->nranges; r++) {
        pr.kmin[r] = (unsigned)req->kmin[r];
        pr.kmax[r] = (unsigned)req->kmax[r];
    }
    dim3 grid((unsigned)cnt, pr.nranges);
    peak_reduce_kernel<<<grid, PEAK_BLOCK, 0, gp->stream[s]>>>((const float *)gp->d_work[s], gp->n / 2 + 1, pr,
                                                                gp->d_pk[s]);
    return gpu_check_launch(ei, "peak_reduce_kernel");
}

/* Queues H2D from `src`, the kernels and D2H to `dst` (the results; NULL: a reduction's
 * spectra stay on the device) and to `dst_pk` (a reduction's records) of one sub-batch on
 * slot s, in pinned host memory: the slot's staging buffers or the caller's own pinned
 * blocks. Nothing here reads or writes host data: a live plan captures it as a graph. */
/* The column maxima of the cnt dB rows in slot s's work buffer (frames first ..) into its
 * d_cm, and back to its staging h_cm. */
static int queue_colmax(gpu_plan *gp, int s, size_t cnt, unsigned long long first, unsigned long long span,
                        sp_errinfo *ei)
{
    size_t bins = gp->n / 2 + 1, rows = colmax_rows(span, first, cnt);
    int err;
    if (!gp->d_cm[s] && (err = gpu_malloc((void **)&gp->d_cm[s], gp->cm_bytes, "column maxima", ei)) != SP_OK)
        return err;
    if (!gp->h_cm[s] && (err = gpu_host_alloc_pinned(&gp->h_cm[s], gp->cm_bytes, "column maxima staging", ei)) != SP_OK)
        return err;
    dim3 grid((unsigned)rows, (unsigned)((bins + GPU_BLOCK - 1) / GPU_BLOCK));
    colmax_kernel<<<grid, GPU_BLOCK, 0, gp->stream[s]>>>((const float *)gp->d_work[s], bins, cnt, first, span,
                                                          gp->d_cm[s]);
    if ((err = gpu_check_launch(ei, "colmax_kernel")) != SP_OK)
        return err;
    GPU_CK(cudaMemcpyAsync(gp->h_cm[s], gp->d_cm[s], rows * bins * sizeof(float), cudaMemcpyDeviceToHost,
                           gp->stream[s]));
    return SP_OK;
}

static int queue_device(gpu_plan *gp, const job *j, int s, size_t f0, size_t cnt, const void *src, void *dst,
                        void *dst_pk, sp_errinfo *ei)
{
    extent e = job_extent(gp, j, 0, cnt);
    cudaStream_t st = gp->stream[s];
    int err;

    void *d_dst = j->op == OP_STFT ? (void *)gp->d_sig[s] : gp->d_work[s];
    GPU_CK(cudaMemcpyAsync(d_dst, src, e.in_bytes, cudaMemcpyHostToDevice, st));

    const void *d_res;
    if (j->op == OP_C2C) {
        cpx *d = (cpx *)gp->d_work[s];
        if ((err = gp->xf->c2c(gp->ctx, s, d, d, cnt, j->inverse, ei)) != SP_OK)
            return err;
        d_res = d;
    } else if (j->op == OP_R2C) {
        if ((err = gp->xf->r2c(gp->ctx, s, (float *)gp->d_work[s], gp->d_spec[s], cnt, ei)) != SP_OK)
            return err;
        d_res = gp->d_spec[s];
    } else {
        if ((err = queue_levels(gp, s, cnt, ei)) != SP_OK)
            return err;
        d_res = gp->d_work[s];
    }
    if (job_peaks(j)) {
        if ((err = queue_peaks(gp, s, cnt, j->req, ei)) != SP_OK)
            return err;
        GPU_CK(cudaMemcpyAsync(dst_pk, gp->d_pk[s], e.pk_bytes, cudaMemcpyDeviceToHost, st));
    }
    if (job_colmax(j) && (err = queue_colmax(gp, s, cnt, j->req->first + f0, j->req->span, ei)) != SP_OK)
        return err;
    if (dst)
        GPU_CK(cudaMemcpyAsync(dst, d_res, e.out_bytes, cudaMemcpyDeviceToHost, st));
    return SP_OK;
}

/* The graph slot of a job's shape: same op, direction, frame count and, for a reduction,
 * ranges and spectra wanted or not. */
static int graph_matches(const gpu_plan *gp, int g, const job *j, size_t cnt)
{
    if (!gp->graph[g].state || gp->graph[g].op != j->op || gp->graph[g].inverse != j->inverse ||
        gp->graph[g].cnt != cnt || gp->graph[g].reduce != (j->req != NULL))
        return 0;
    if (!j->req)
        return 1;
    const fft_peak_req *q = &gp->graph[g].req;
    if (gp->graph[g].want_db != (j->h_out != NULL) || q->nranges != j->req->nranges)
        return 0;
    for (size_t r = 0; r < q->nranges; r++)
        if (q->kmin[r] != j->req->kmin[r] || q->kmax[r] != j->req->kmax[r])
            return 0;
    return 1;
}

static void graph_remember(gpu_plan *gp, int g, const job *j, size_t cnt)
{
    gp->graph[g].op = j->op;
    gp->graph[g].inverse = j->inverse;
    gp->graph[g].cnt = cnt;
    gp->graph[g].reduce = j->req != NULL;
    gp->graph[g].want_db = j->h_out != NULL;
    memset(&gp->graph[g].req, 0, sizeof gp->graph[g].req);
    if (j->req)
        gp->graph[g].req = *j->req;
    gp->graph[g].state = 1;
}

/* Live plans: the whole sub-batch as one graph launch once its shape was seen before
 * (the first call also makes any per-shape state, e.g. cuFFT's plan for that batch, so
 * that nothing synchronises during the capture). Reductions too: their ranges are part of
 * the shape, and the records come back through the slot's staging buffer like the levels.
 * Returns 1 when it did not apply. */
static int queue_graph(gpu_plan *gp, const job *j, size_t cnt, sp_errinfo *ei)
{
    cudaStream_t st = gp->stream[0];
    int g, free_g = -1;
    /* the cuda backend only (the one with stft_db): cuFFT may remake a plan, and synchronise,
     * when the batch changes, which a capture does not allow */
    if (!gp->live || gp->graphs_off || !gp->xf->stft_db)
        return 1;
    for (g = 0; g < GPU_NGRAPHS; g++) {
        if (graph_matches(gp, g, j, cnt))
            break;
        if (!gp->graph[g].state && free_g < 0)
            free_g = g;
    }
    if (g == GPU_NGRAPHS) { /* first time: remember the shape, run it plainly */
        if (free_g >= 0)
            graph_remember(gp, free_g, j, cnt);
        return 1;
    }
    if (gp->graph[g].state == 1) {
        cudaGraph_t graph = NULL;
        GPU_CK(cudaStreamBeginCapture(st, cudaStreamCaptureModeThreadLocal));
        int err = queue_device(gp, j, 0, 0, cnt, gp->h_in[0], j->h_out ? gp->h_out[0] : NULL,
                               job_peaks(j) ? gp->h_pk[0] : NULL, ei);
        cudaError_t e = cudaStreamEndCapture(st, &graph);
        if (err != SP_OK) {
            if (graph)
                cudaGraphDestroy(graph);
            return err;
        }
        if (e != cudaSuccess) { /* not capturable here: no graphs for this plan */
            (void)cudaGetLastError();
            gp->graphs_off = 1;
            return 1;
        }
        e = cudaGraphInstantiate(&gp->graph[g].exec, graph, 0);
        cudaGraphDestroy(graph);
        if (e != cudaSuccess)
            return gpu_fail_cuda(ei, (int)e, "cudaGraphInstantiate");
        gp->graph[g].state = 2;
    }
    GPU_CK(cudaGraphLaunch(gp->graph[g].exec, st));
    return SP_OK;
}

/* The slot's pinned staging buffers that a sub-batch needs, made on first use (callers
 * whose data lives in gpu_plan_host_alloc memory never need them). */
static int staging(gpu_plan *gp, int s, int in, int out, int pk, sp_errinfo *ei)
{
    int err = SP_OK;
    if (in && !gp->h_in[s] && (err = gpu_host_alloc_pinned(&gp->h_in[s], gp->hin_bytes, "input staging", ei)) != SP_OK)
        return err;
    if (out && !gp->h_out[s] && (err = gpu_host_alloc_pinned(&gp->h_out[s], gp->hout_bytes, "output staging", ei)) != SP_OK)
        return err;
    if (pk && !gp->h_pk[s])
        err = gpu_host_alloc_pinned(&gp->h_pk[s], gp->pk_bytes, "peak record staging", ei);
    return err;
}

/* Queues sub-batch [f0, f0+cnt) of the job on slot s (as a graph for a live single
 * sub-batch). Input in the caller's pinned memory goes to the device from there, else it
 * is staged into the slot's buffer first; the same for the outputs (finish). */
static int enqueue(gpu_plan *gp, const job *j, int s, size_t f0, size_t cnt, int single, sp_errinfo *ei)
{
    extent e = job_extent(gp, j, f0, cnt);
    const void *src;
    void *dst = NULL, *dst_pk = NULL;
    /* column maxima are merged on the host after each sub-batch: no graph for them */
    int err, graph = single && s == 0 && gp->live && !job_colmax(j);
    /* graphs keep the pointers they were captured with: the staging buffers */
    src = graph ? NULL : gpu_pinned_range(gp, j->h_in + e.in_off, e.in_bytes);
    gp->direct_out[s] = j->h_out && !graph && gpu_pinned_range(gp, j->h_out + e.out_off, e.out_bytes);
    gp->direct_pk[s] = job_peaks(j) && !graph && gpu_pinned_range(gp, j->h_pk + e.pk_off, e.pk_bytes);
    if ((err = staging(gp, s, !src, j->h_out && !gp->direct_out[s], job_peaks(j) && !gp->direct_pk[s], ei)) != SP_OK)
        return err;
    if (src) {
        src = j->h_in + e.in_off;
    } else {
        /* host staging: the slot's pinned buffer is idle (its last sub-batch was finished) */
        memcpy(gp->h_in[s], j->h_in + e.in_off, e.in_bytes);
        src = gp->h_in[s];
    }
    if (j->h_out)
        dst = gp->direct_out[s] ? (void *)(j->h_out + e.out_off) : (void *)gp->h_out[s];
    if (job_peaks(j))
        dst_pk = gp->direct_pk[s] ? (void *)(j->h_pk + e.pk_off) : (void *)gp->h_pk[s];
    if (graph) {
        int r = queue_graph(gp, j, cnt, ei);
        if (r <= 0)
            return r;
    }
    return queue_device(gp, j, s, f0, cnt, src, dst, dst_pk, ei);
}

/* Waits for slot s's sub-batch and copies its results out of the staging buffers. */
static int finish(gpu_plan *gp, const job *j, int s, size_t f0, size_t cnt, sp_errinfo *ei)
{
    extent e = job_extent(gp, j, f0, cnt);
    GPU_CK(cudaStreamSynchronize(gp->stream[s]));
    if (j->h_out && !gp->direct_out[s])
        memcpy(j->h_out + e.out_off, gp->h_out[s], e.out_bytes);
    if (job_peaks(j) && !gp->direct_pk[s])
        memcpy(j->h_pk + e.pk_off, gp->h_pk[s], e.pk_bytes);
    if (job_colmax(j)) { /* rows into the caller's; a group split with the sub-batch before: the max of both */
        const fft_peak_req *q = j->req;
        size_t bins = gp->n / 2 + 1, rows = colmax_rows(q->span, q->first + f0, cnt);
        float *out = q->colmax + (size_t)((q->first + f0) / q->span - q->first / q->span) * bins;
        const float *in = (const float *)gp->h_cm[s];
        size_t r0 = 0;
        if (f0 > 0 && (q->first + f0) % q->span != 0) {
            for (size_t k = 0; k < bins; k++)
                out[k] = in[k] > out[k] ? in[k] : out[k];
            r0 = 1;
        }
        memcpy(out + r0 * bins, in + r0 * bins, (rows - r0) * bins * sizeof(float));
    }
    return SP_OK;
}

/* Waits for sub-batch c of the job and stages its results out (finish, on its slot). */
static int finish_sub(gpu_plan *gp, const job *j, size_t c, sp_errinfo *ei)
{
    size_t f0 = c * gp->chunk;
    return finish(gp, j, (int)(c % GPU_NSLOTS), f0, std::min(gp->chunk, j->batch - f0), ei);
}

/* Queues every sub-batch of the job; *done of them (the first) are finished on return, the
 * rest (at most GPU_NSLOTS) still run. Sub-batch c runs on slot c%2 once c-2, the slot's
 * last, is finished (waited for, staged out): the GPU works on one sub-batch while the host
 * stages the one before it out and the next one in. */
static int start_job(gpu_plan *gp, const job *j, size_t *done, sp_errinfo *ei)
{
    size_t chunk = gp->chunk, nsub = (j->batch + chunk - 1) / chunk;
    int err = SP_OK;
    *done = 0;
    for (size_t c = 0; c < nsub && err == SP_OK; c++) {
        if (c >= GPU_NSLOTS && (err = finish_sub(gp, j, c - GPU_NSLOTS, ei)) == SP_OK)
            *done = c - GPU_NSLOTS + 1;
        if (err == SP_OK)
            err = enqueue(gp, j, (int)(c % GPU_NSLOTS), c * chunk, std::min(chunk, j->batch - c * chunk), nsub == 1, ei);
    }
    return err;
}

static int run_job(gpu_plan *gp, const job *j, sp_errinfo *ei)
{
    size_t nsub = (j->batch + gp->chunk - 1) / gp->chunk, c;
    int err = start_job(gp, j, &c, ei);
    for (; err == SP_OK && c < nsub; c++)
        err = finish_sub(gp, j, c, ei);
    return err;
}

/* A failed call: the other slot's copies may still run; the plan refuses every later call. */
static int latch(gpu_plan *gp, int err, const sp_errinfo *local, sp_errinfo *ei)
{
    for (int s = 0; s < GPU_NSLOTS; s++)
        (void)cudaStreamSynchronize(gp->stream[s]);
    gp->broken = 1;
    gp->pend.on = 0;
    memcpy(gp->why, local->msg, sizeof gp->why);
    if (ei)
        *ei = *local;
    return err;
}

/* The entry guard shared by the calls: SP_OK to run the job. */
static int check_job(gpu_plan *gp, const job *j, sp_errinfo *ei)
{
    if (!gp || !j->h_in || (!j->h_out && !j->req) || (job_peaks(j) && !j->h_pk) || (job_colmax(j) && !j->req->colmax))
        return sp_fail(ei, SP_EINVAL, "gpu plan: NULL argument");
    if (gp->broken)
        return sp_fail(ei, SP_EGPU, "GPU plan unusable after an earlier error: %s", gp->why);
    if (j->batch > gp->max_batch)
        return sp_fail(ei, SP_EINVAL, "batch of %zu frames exceeds the plan's max_batch %zu",
                       j->batch, gp->max_batch);
    if (j->req && (j->req->nranges > FFT_PEAK_RANGES_MAX || (j->req->nranges < 1 && !j->req->span)))
        return sp_fail(ei, SP_EINVAL, "gpu plan: %zu peak ranges", j->req->nranges);
    if (gp->pend.on)
        return sp_fail(ei, SP_EINVAL, "gpu plan: a call while a reduction is in flight");
    return SP_OK;
}

/* Runs a job whole, with the entry guard and the error latch. */
static int run_checked(gpu_plan *gp, const job *j, sp_errinfo *ei)
{
    sp_errinfo local;
    int err = check_job(gp, j, ei);
    if (err != SP_OK || j->batch == 0)
        return err;
    local.msg[0] = 0;
    err = run_job(gp, j, &local);
    return err == SP_OK ? SP_OK : latch(gp, err, &local, ei);
}

int gpu_plan_c2c(void *state, const cpx *in, cpx *out, size_t batch, int inverse, sp_errinfo *ei)
{
    job j = {OP_C2C, inverse, (const unsigned char *)in, (unsigned char *)out, batch, NULL, NULL};
    return run_checked((gpu_plan *)state, &j, ei);
}

int gpu_plan_r2c(void *state, const float *in, cpx *out, size_t batch, sp_errinfo *ei)
{
    job j = {OP_R2C, 0, (const unsigned char *)in, (unsigned char *)out, batch, NULL, NULL};
    return run_checked((gpu_plan *)state, &j, ei);
}

int gpu_plan_stft_db(void *state, const float *signal, size_t nframes, float *db, sp_errinfo *ei)
{
    job j = {OP_STFT, 0, (const unsigned char *)signal, (unsigned char *)db, nframes, NULL, NULL};
    return run_checked((gpu_plan *)state, &j, ei);
}

int gpu_plan_stft_reduce(void *state, const float *signal, size_t nframes, float *db, const fft_peak_req *req,
                         fft_peak_raw *peaks, sp_errinfo *ei)
{
    job j = {OP_STFT, 0, (const unsigned char *)signal, (unsigned char *)db, nframes, req, (unsigned char *)peaks};
    if (!req)
        return sp_fail(ei, SP_EINVAL, "gpu plan: NULL argument");
    return run_checked((gpu_plan *)state, &j, ei);
}

int gpu_plan_stft_reduce_start(void *state, const float *signal, size_t nframes, float *db, const fft_peak_req *req,
                               fft_peak_raw *peaks, sp_errinfo *ei)
{
    gpu_plan *gp = (gpu_plan *)state;
    job j = {OP_STFT, 0, (const unsigned char *)signal, (unsigned char *)db, nframes, req, (unsigned char *)peaks};
    sp_errinfo local;
    size_t done = 0;
    int err;
    if (!req)
        return sp_fail(ei, SP_EINVAL, "gpu plan: NULL argument");
    if ((err = check_job(gp, &j, ei)) != SP_OK || nframes == 0)
        return err;
    if (gp->live) /* one sub-batch, maybe a graph: nothing to gain, run it whole */
        return run_checked(gp, &j, ei);
    gp->pend.req = *req; /* the caller's request may change before the wait */
    j.req = &gp->pend.req;
    local.msg[0] = 0;
    if ((err = start_job(gp, &j, &done, &local)) != SP_OK)
        return latch(gp, err, &local, ei);
    gp->pend.op = j.op;
    gp->pend.inverse = j.inverse;
    gp->pend.h_in = j.h_in;
    gp->pend.h_out = j.h_out;
    gp->pend.h_pk = j.h_pk;
    gp->pend.batch = nframes;
    gp->pend.done = done;
    gp->pend.nsub = (nframes + gp->chunk - 1) / gp->chunk;
    gp->pend.on = 1;
    return SP_OK;
}

int gpu_plan_stft_reduce_wait(void *state, sp_errinfo *ei)
{
    gpu_plan *gp = (gpu_plan *)state;
    sp_errinfo local;
    int err = SP_OK;
    if (!gp || !gp->pend.on)
        return SP_OK;
    job j = {gp->pend.op, gp->pend.inverse, gp->pend.h_in, gp->pend.h_out, gp->pend.batch, &gp->pend.req,
             gp->pend.h_pk};
    local.msg[0] = 0;
    for (size_t c = gp->pend.done; err == SP_OK && c < gp->pend.nsub; c++)
        err = finish_sub(gp, &j, c, &local);
    gp->pend.on = 0;
    return err == SP_OK ? SP_OK : latch(gp, err, &local, ei);
}

/* ---- device-resident entry points (the benchmarks) ------------------------------------ */

size_t gpu_plan_hop(const gpu_plan *gp)
{
    return gp->hop;
}

void *gpu_plan_work(const gpu_plan *gp, int slot)
{
    return gp->d_work[slot];
}

int gpu_plan_forward_device(gpu_plan *gp, int real, size_t batch, sp_errinfo *ei)
{
    if (!gp || batch < 1 || batch > gp->chunk)
        return sp_fail(ei, SP_EINVAL, "gpu_plan_forward_device: batch %zu not in 1..%zu", batch,
                       gp ? gp->chunk : 0);
    if (gp->broken)
        return sp_fail(ei, SP_EGPU, "GPU plan unusable after an earlier error: %s", gp->why);
    if (real)
        return gp->xf->r2c(gp->ctx, 0, (float *)gp->d_work[0], gp->d_spec[1], batch, ei);
    return gp->xf->c2c(gp->ctx, 0, (const cpx *)gp->d_work[0], (cpx *)gp->d_work[1], batch, 0, ei);
}

int gpu_plan_stft_device(gpu_plan *gp, const float *d_sig, size_t nframes, float *d_db, sp_errinfo *ei)
{
    cudaStream_t st;
    size_t bins;
    int err;
    if (!gp || !d_sig || !d_db)
        return sp_fail(ei, SP_EINVAL, "gpu_plan_stft_device: NULL argument");
    if (gp->broken)
        return sp_fail(ei, SP_EGPU, "GPU plan unusable after an earlier error: %s", gp->why);
    st = gp->stream[0];
    bins = gp->n / 2 + 1;
    if (gp->xf->stft_db) {
        err = gp->xf->stft_db(gp->ctx, st, d_sig, gp->hop, gp->d_window, gp->scale_mid,
                              gp->scale_edge, nframes, d_db, ei);
        if (err != SP_EUNSUPPORTED)
            return err;
    }
    for (size_t f0 = 0; f0 < nframes; f0 += gp->chunk) {
        size_t cnt = std::min(gp->chunk, nframes - f0), total = cnt * gp->n;
        frame_window_kernel<<<blocks_for(total), GPU_BLOCK, 0, st>>>(
            d_sig + f0 * gp->hop, gp->d_window, (float *)gp->d_work[0], ilog2(gp->n), gp->hop, total);
        if ((err = gpu_check_launch(ei, "frame_window_kernel")) != SP_OK)
            return err;
        if ((err = gp->xf->r2c(gp->ctx, 0, (float *)gp->d_work[0], gp->d_spec[0], cnt, ei)) != SP_OK)
            return err;
        total = cnt * bins;
        amp_db_kernel<<<blocks_for(total), GPU_BLOCK, 0, st>>>(
            (const float2 *)gp->d_spec[0], d_db + f0 * bins, bins, total, gp->scale_mid,
            gp->scale_edge);
        if ((err = gpu_check_launch(ei, "amp_db_kernel")) != SP_OK)
            return err;
    }
    return SP_OK;
}

int gpu_plan_stft_db_device(void *state, const float *d_sig, size_t clips, size_t clip_stride, size_t nframes,
                            float *d_db, sp_errinfo *ei)
{
    gpu_plan *gp = (gpu_plan *)state;
    int err;
    if (!gp)
        return sp_fail(ei, SP_EINVAL, "gpu_plan_stft_db_device: NULL argument");
    if (gp->pend.on)
        return sp_fail(ei, SP_EINVAL, "gpu plan: a call is pending (fft_stft_reduce_wait first)");
    if (nframes == 0)
        return SP_OK;
    if (clips > 1 && gp->xf->stft_db_clips && !gp->broken) {
        /* one launch for every clip's frames (a launch a clip cost ~7 us of 1000 clips' time) */
        err = gp->xf->stft_db_clips(gp->ctx, gp->stream[0], d_sig, gp->hop, nframes, clip_stride, gp->d_window, gp->scale_mid,
                                    gp->scale_edge, clips * nframes, d_db, ei);
        if (err != SP_EUNSUPPORTED) {
            if (err == SP_OK)
                GPU_CK(cudaStreamSynchronize(gp->stream[0]));
            return err;
        }
    }
    for (size_t c = 0; c < clips; c++)
        if ((err = gpu_plan_stft_device(gp, d_sig + c * clip_stride, nframes, d_db + c * nframes * (gp->n / 2 + 1),
                                        ei)) != SP_OK) {
            (void)cudaStreamSynchronize(gp->stream[0]); /* the clips queued before */
            return err;
        }
    GPU_CK(cudaStreamSynchronize(gp->stream[0]));
    return SP_OK;
}

/* Slot 0's stream joined to the caller's: the framing + r2c + dB kernels use slot 0's work
 * buffers, so they run there, after what the caller queued before and before what it
 * queues next (gpu_plan.h). */
static int stft_device_joined(gpu_plan *gp, const float *d_sig, size_t clips, size_t clip_stride, size_t nframes,
                              float *d_db, cudaStream_t st, sp_errinfo *ei)
{
    int err = SP_OK;
    if (!gp->ev_in) {
        GPU_CK(cudaEventCreateWithFlags(&gp->ev_in, cudaEventDisableTiming));
        cudaError_t e = cudaEventCreateWithFlags(&gp->ev_out, cudaEventDisableTiming);
        if (e != cudaSuccess) {
            cudaEventDestroy(gp->ev_in);
            gp->ev_in = gp->ev_out = NULL;
            return gpu_fail_cuda(ei, (int)e, "cudaEventCreateWithFlags");
        }
    }
    GPU_CK(cudaEventRecord(gp->ev_in, st));
    GPU_CK(cudaStreamWaitEvent(gp->stream[0], gp->ev_in, 0));
    for (size_t c = 0; c < clips && err == SP_OK; c++)
        err = gpu_plan_stft_device(gp, d_sig + c * clip_stride, nframes, d_db + c * nframes * (gp->n / 2 + 1), ei);
    /* joined back even after a failed launch: what the caller queues next waits for the rest */
    GPU_CK(cudaEventRecord(gp->ev_out, gp->stream[0]));
    GPU_CK(cudaStreamWaitEvent(st, gp->ev_out, 0));
    return err;
}

int gpu_plan_stft_db_device_async(void *state, const float *d_sig, size_t clips, size_t clip_stride, size_t nframes,
                                  float *d_db, void *stream, sp_errinfo *ei)
{
    gpu_plan *gp = (gpu_plan *)state;
    cudaStream_t st = (cudaStream_t)stream;
    int err;
    if (!gp || !d_sig || !d_db)
        return sp_fail(ei, SP_EINVAL, "gpu_plan_stft_db_device_async: NULL argument");
    if (gp->pend.on)
        return sp_fail(ei, SP_EINVAL, "gpu plan: a call is pending (fft_stft_reduce_wait first)");
    if (gp->broken)
        return sp_fail(ei, SP_EGPU, "GPU plan unusable after an earlier error: %s", gp->why);
    if (nframes == 0 || clips == 0)
        return SP_OK;
    gp->async_used = 1;
    /* the fused kernel on the caller's stream itself: one launch, nothing else queued */
    if (clips > 1 && gp->xf->stft_db_clips)
        err = gp->xf->stft_db_clips(gp->ctx, stream, d_sig, gp->hop, nframes, clip_stride, gp->d_window,
                                    gp->scale_mid, gp->scale_edge, clips * nframes, d_db, ei);
    else if (clips == 1 && gp->xf->stft_db)
        err = gp->xf->stft_db(gp->ctx, stream, d_sig, gp->hop, gp->d_window, gp->scale_mid, gp->scale_edge, nframes,
                              d_db, ei);
    else
        err = SP_EUNSUPPORTED;
    if (err != SP_EUNSUPPORTED)
        return err;
    return stft_device_joined(gp, d_sig, clips, clip_stride, nframes, d_db, st, ei);
}
