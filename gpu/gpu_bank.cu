/* gpu_bank: the transforms' filter banks beside the FFT (fft.h "transform reductions",
 * docs/transforms.md "Where it runs"): mel, MFCC and chroma on the device.
 *
 * One kernel does it all (fused_stft_bank, fft_fused_bank.cuh): each frame windowed from the
 * signal, its real FFT, the power p_k = max(a_k^2, 1e-20) kept in shared memory, the bank's
 * rows summed there and their post step (dB; dB and the DCT-II; division by the frame's
 * maximum). Only the rows are written to device memory, and only they cross the bus.
 *
 * The weights are the host's (src/xform builds them: one truth), uploaded once. Real banks
 * go up in equal chunks (fft_fused.h fused_bank, bank_chunks below): the non-zero weights
 * in row order cut into as many pieces as the kernel has threads, so that the long rows
 * (mel's top bands, 120 bins at N 4096) no longer hold up a block while its other threads
 * wait; the complex (constant-Q) rows go up as runs, a warp a row. The octave-wise
 * multirate constant-Q (FFT_BANK_CQT_OCT) has no FFT: gpu_cqt.cu runs it. */
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "gpu_plan_internal.h"

struct bank_dev {
    fused_bank fb;             /* device pointers */
    unsigned *d_runs;          /* slot0, rslot */
    float *d_w, *d_dct;        /* the chunks' weights; the DCT */
    unsigned short *d_ck;      /* real banks: the chunks' bins and ends */
    float *d_win;              /* the bank's own window (constant-Q: rectangular), or NULL */
    float *d_rows[GPU_NSLOTS]; /* host path: a sub-batch's rows, chunk x width */
    gpu_cqt *cqt;              /* the multirate constant-Q (gpu_cqt.cu): none of the above */
};

namespace {

template <class T> int upload(T **d, const T *h, size_t count, const char *what, sp_errinfo *ei)
{
    int err = gpu_malloc((void **)d, std::max<size_t>(count, 1) * sizeof(T), what, ei);
    if (err != SP_OK)
        return err;
    GPU_CK(cudaMemcpy(*d, h, count * sizeof(T), cudaMemcpyHostToDevice));
    return SP_OK;
}

/* A real bank's chunks (fft_fused.h fused_bank) for a kernel of `threads` threads a block:
 * host arrays w, k (steps x chunks) and runs (chunks slot0, then rows + 1 rslot), freed by
 * the caller; d's counts set. */
struct bank_chunks_host {
    float *w;
    unsigned short *k;
    unsigned *runs;
};

int bank_chunks(const fft_bank *fb, unsigned threads, fused_bank *d, bank_chunks_host *h)
{
    const size_t rows = fb->rows, P = threads;
    size_t nnz = 0, steps, j = 0, slot = 0;
    for (size_t r = 0; r < rows; r++)
        for (size_t i = 0; i < fb->len[r]; i++)
            nnz += fb->w[fb->off[r] + i] != 0.0f;
    steps = (nnz + P - 1) / P;
    h->w = (float *)calloc(std::max<size_t>(steps * P, 1), sizeof *h->w);
    h->k = (unsigned short *)calloc(std::max<size_t>(steps * P, 1), sizeof *h->k);
    h->runs = (unsigned *)calloc(P + rows + 1, sizeof *h->runs);
    if (!h->w || !h->k || !h->runs)
        return SP_ENOMEM;
    unsigned *slot0 = h->runs, *rslot = h->runs + P;
    for (size_t r = 0; r < rows; r++) {
        size_t end = fb->len[r]; /* past the row's last non-zero weight */
        while (end > 0 && fb->w[fb->off[r] + end - 1] == 0.0f)
            end--;
        rslot[r] = (unsigned)slot;
        for (size_t i = 0; i < end; i++) {
            const float w = fb->w[fb->off[r] + i];
            if (w == 0.0f) /* adds nothing: 0 p = 0, p finite */
                continue;
            const size_t c = j / steps, at = (j % steps) * P + c;
            const bool last = i + 1 == end;
            if (j % steps == 0)
                slot0[c] = (unsigned)slot;
            h->w[at] = w;
            h->k[at] = (unsigned short)(fb->k0[r] + i);
            if (last || (j + 1) % steps == 0) { /* the row ends, or the chunk */
                h->k[at] |= (unsigned short)CHUNK_END;
                slot++;
            }
            j++;
        }
    }
    rslot[rows] = (unsigned)slot;
    d->chunks = (unsigned)P;
    d->steps = (unsigned)steps;
    d->slots = (unsigned)slot;
    return SP_OK;
}

int bank_run(gpu_plan *gp, const bank_dev *b, int s, const float *d_sig, size_t cnt, float *d_rows, sp_errinfo *ei)
{
    return gp->xf->stft_bank(gp->ctx, gp->stream[s], d_sig, gp->hop, b->d_win ? b->d_win : gp->d_window,
                             gp->scale_mid, gp->scale_edge, cnt, &b->fb, d_rows, ei);
}

/* The end of a call: both slots' work waited for; a device failure marks the plan broken. */
int bank_finish(gpu_plan *gp, int err, sp_errinfo *ei)
{
    for (int s = 0; s < GPU_NSLOTS; s++) {
        cudaError_t e = cudaStreamSynchronize(gp->stream[s]);
        if (e != cudaSuccess && err == SP_OK)
            err = gpu_fail_cuda(ei, (int)e, "cudaStreamSynchronize(filter bank)");
    }
    if (err != SP_OK && err != SP_EINVAL && err != SP_EUNSUPPORTED) {
        gp->broken = 1;
        snprintf(gp->why, sizeof gp->why, "%s", ei ? ei->msg : "filter bank failed");
    }
    return err;
}

int bank_check(const gpu_plan *gp, const void *bank, sp_errinfo *ei)
{
    if (!gp || !bank)
        return sp_fail(ei, SP_EINVAL, "filter bank: NULL argument");
    if (gp->broken)
        return sp_fail(ei, SP_EGPU, "GPU plan unusable after an earlier error: %s", gp->why);
    if (gp->pend.on)
        return sp_fail(ei, SP_EINVAL, "gpu plan: a call is pending (fft_stft_reduce_wait first)");
    return SP_OK;
}

/* A real bank's chunks on the device */
int bank_upload_chunks(gpu_plan *gp, bank_dev *b, const fft_bank *fb, sp_errinfo *ei)
{
    unsigned log2n = 0, threads;
    bank_chunks_host h = {};
    int err;
    while (((size_t)1 << log2n) < gp->n)
        log2n++;
    if (!(threads = fused_stft_bank_threads(log2n)))
        return sp_fail(ei, SP_EUNSUPPORTED, "fused STFT bank: no kernel at %zu points", gp->n);
    if ((err = bank_chunks(fb, threads, &b->fb, &h)) != SP_OK)
        err = sp_fail(ei, err, "out of memory");
    else if ((err = upload(&b->d_w, h.w, (size_t)b->fb.steps * threads, "filter bank weights", ei)) == SP_OK &&
             (err = upload(&b->d_ck, h.k, (size_t)b->fb.steps * threads, "filter bank bins", ei)) == SP_OK)
        err = upload(&b->d_runs, h.runs, threads + fb->rows + 1, "filter bank", ei);
    free(h.w);
    free(h.k);
    free(h.runs);
    if (err != SP_OK)
        return err;
    b->fb.cw = b->d_w;
    b->fb.ck = b->d_ck;
    b->fb.slot0 = b->d_runs;
    b->fb.rslot = b->d_runs + threads;
    return SP_OK;
}

} // namespace

void gpu_plan_bank_destroy(void *state, void *bank)
{
    bank_dev *b = (bank_dev *)bank;
    (void)state;
    if (!b)
        return;
    cudaFree(b->d_runs);
    cudaFree(b->d_w);
    cudaFree(b->d_dct);
    cudaFree(b->d_ck);
    cudaFree(b->d_win);
    for (int s = 0; s < GPU_NSLOTS; s++)
        cudaFree(b->d_rows[s]);
    gpu_cqt_destroy(b->cqt);
    free(b);
}

int gpu_plan_bank_create(void *state, const fft_bank *fb, void **bank, sp_errinfo *ei)
{
    gpu_plan *gp = (gpu_plan *)state;
    bank_dev *b;
    int err;
    *bank = NULL;
    if (!gp->xf->stft_bank)
        return sp_fail(ei, SP_EUNSUPPORTED, "this GPU backend has no short-time filter-bank kernel");
    if (!(b = (bank_dev *)calloc(1, sizeof *b)))
        return sp_fail(ei, SP_ENOMEM, "out of memory");
    if (fb->post == FFT_BANK_CQT_OCT) {
        if ((err = gpu_cqt_create(gp, fb, &b->cqt, ei)) != SP_OK)
            goto fail;
        *bank = b;
        return SP_OK;
    }
    b->fb.rows = (unsigned)fb->rows;
    b->fb.post = (int)fb->post;
    b->fb.coeffs = fb->post == FFT_BANK_DB_DCT ? (unsigned)fb->coeffs : 0u;
    b->fb.width = b->fb.coeffs ? b->fb.coeffs : b->fb.rows;
    if (fb->post == FFT_BANK_REASSIGN) { /* rows of (f, dt, dB) a bin; three windows */
        b->fb.width = (unsigned)(3 * (gp->n / 2 + 1));
        b->fb.fs = (float)(fb->rate / (2.0 * 3.14159265358979323846));
        b->fb.ts = (float)(1.0 / fb->rate);
        b->fb.bin = (float)(fb->rate / (double)gp->n);
        err = SP_OK;
    } else {
        err = bank_upload_chunks(gp, b, fb, ei);
    }
    if (err != SP_OK ||
        (fb->window && (err = upload(&b->d_win, fb->window, gp->n * (fb->post == FFT_BANK_REASSIGN ? 3 : 1),
                                     "filter bank window", ei)) != SP_OK) ||
        (b->fb.coeffs && (err = upload(&b->d_dct, fb->dct, fb->coeffs * fb->rows, "DCT matrix", ei)) != SP_OK))
        goto fail;
    b->fb.dct = b->d_dct;
    for (int s = 0; s < GPU_NSLOTS; s++)
        if ((err = gpu_malloc((void **)&b->d_rows[s], gp->chunk * b->fb.width * sizeof(float), "filter bank rows",
                              ei)) != SP_OK)
            goto fail;
    /* no frames: SP_EUNSUPPORTED now (a size the kernel lacks, too little shared memory)
     * rather than at the first call */
    if ((err = bank_run(gp, b, 0, gp->d_sig[0], 0, b->d_rows[0], ei)) != SP_OK)
        goto fail;
    *bank = b;
    return SP_OK;
fail:
    gpu_plan_bank_destroy(state, b);
    return err;
}

/* Every frame in one launch on slot 0's stream. */
int gpu_plan_bank_rows_device(void *state, void *bank, const float *d_sig, size_t nframes, float *d_rows,
                              sp_errinfo *ei)
{
    gpu_plan *gp = (gpu_plan *)state;
    int err = bank_check(gp, bank, ei);
    if (err != SP_OK)
        return err;
    if (((const bank_dev *)bank)->cqt)
        return bank_finish(gp, gpu_cqt_rows_device(gp, ((const bank_dev *)bank)->cqt, d_sig, nframes, d_rows, ei), ei);
    return bank_finish(gp, bank_run(gp, (const bank_dev *)bank, 0, d_sig, nframes, d_rows, ei), ei);
}

/* The host's signal a sub-batch at a time into a slot's signal buffer, its rows back; the
 * slots alternate, so that one's copies overlap the other's kernel. */
int gpu_plan_bank_rows(void *state, void *bank, const float *signal, size_t nframes, float *rows, sp_errinfo *ei)
{
    gpu_plan *gp = (gpu_plan *)state;
    const bank_dev *b = (const bank_dev *)bank;
    int err = bank_check(gp, bank, ei), s = 0;
    if (err != SP_OK)
        return err;
    if (b->cqt)
        return bank_finish(gp, gpu_cqt_rows(gp, b->cqt, signal, nframes, rows, ei), ei);
    for (size_t f0 = 0; f0 < nframes && err == SP_OK; f0 += gp->chunk, s ^= 1) {
        size_t cnt = std::min(gp->chunk, nframes - f0), samples = (cnt - 1) * gp->hop + gp->n;
        cudaError_t e = cudaMemcpyAsync(gp->d_sig[s], signal + f0 * gp->hop, samples * sizeof(float),
                                        cudaMemcpyHostToDevice, gp->stream[s]);
        if (e != cudaSuccess) {
            err = gpu_fail_cuda(ei, (int)e, "cudaMemcpyAsync(signal)");
            break;
        }
        if ((err = bank_run(gp, b, s, gp->d_sig[s], cnt, b->d_rows[s], ei)) != SP_OK)
            break;
        e = cudaMemcpyAsync(rows + f0 * b->fb.width, b->d_rows[s], cnt * b->fb.width * sizeof(float),
                            cudaMemcpyDeviceToHost, gp->stream[s]);
        if (e != cudaSuccess)
            err = gpu_fail_cuda(ei, (int)e, "cudaMemcpyAsync(rows)");
    }
    return bank_finish(gp, err, ei);
}
