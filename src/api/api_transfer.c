/* spectro_transfer: the transfer function of two channels' complex frames (sink/transfer.h,
 * which the program's --transfer sink uses too). The analyzer's frames are scaled by c_k
 * (spectro_analyzer_stft), alike in both channels, so H1 and the coherence are those of the
 * unscaled transforms. */
#include <stdlib.h>

#include "api_internal.h"
#include "transfer.h"

_Static_assert(sizeof(spectro_complex) == sizeof(cpx), "spectro_complex is the engine's cpx");

struct spectro_transfer {
    transfer *tf;
    int rate;
    size_t n;               /* fft_size */
};

int spectro_transfer_create(const spectro_analyzer *a, spectro_transfer **out, spectro_error *err)
{
    api_frame_shape sh;
    spectro_transfer *t;
    sp_errinfo ei = {{0}};
    int rc;
    if (!a || !out)
        return api_fail(err, SPECTRO_EINVAL, "%s is NULL", !a ? "the analyzer" : "out");
    *out = NULL;
    api_analyzer_shape(a, &sh);
    if (!(t = calloc(1, sizeof *t)))
        return api_fail(err, SPECTRO_ENOMEM, "out of memory");
    if ((rc = transfer_create(sh.n, &t->tf, &ei)) != SP_OK) {
        free(t);
        return api_from_engine(err, rc, &ei);
    }
    t->rate = sh.rate;
    t->n = sh.n;
    *out = t;
    return SPECTRO_OK;
}

void spectro_transfer_destroy(spectro_transfer *t)
{
    if (!t)
        return;
    transfer_destroy(t->tf);
    free(t);
}

int spectro_transfer_add(spectro_transfer *t, const spectro_complex *ref, const spectro_complex *meas,
                         size_t frames, spectro_error *err)
{
    if (!t || ((!ref || !meas) && frames))
        return api_fail(err, SPECTRO_EINVAL, "%s is NULL", !t ? "the transfer" : !ref ? "ref" : "meas");
    transfer_add(t->tf, (const cpx *)ref, (const cpx *)meas, frames);
    return SPECTRO_OK;
}

uint64_t spectro_transfer_averages(const spectro_transfer *t)
{
    return t ? transfer_averages(t->tf) : 0;
}

int spectro_transfer_table(spectro_transfer *t, float *out, double *delay_s, spectro_error *err)
{
    sp_errinfo ei = {{0}};
    double d = 0.0;
    int rc;
    if (!t || !out)
        return api_fail(err, SPECTRO_EINVAL, "%s is NULL", !t ? "the transfer" : "out");
    transfer_table(t->tf, t->rate, out);
    if ((rc = transfer_delay(t->tf, &d, &ei)) != SP_OK)
        return api_from_engine(err, rc, &ei);
    if (delay_s)
        *delay_s = d / t->rate;
    return SPECTRO_OK;
}

int spectro_transfer_create_size(int sample_rate, size_t fft_size, spectro_transfer **out, spectro_error *err)
{
    spectro_transfer *t;
    sp_errinfo ei = {{0}};
    int rc;
    if (!out)
        return api_fail(err, SPECTRO_EINVAL, "out is NULL");
    *out = NULL;
    if (sample_rate <= 0)
        return api_fail(err, SPECTRO_EINVAL, "sample_rate must be positive (got %d)", sample_rate);
    if (!(t = calloc(1, sizeof *t)))
        return api_fail(err, SPECTRO_ENOMEM, "out of memory");
    if ((rc = transfer_create(fft_size, &t->tf, &ei)) != SP_OK) {
        free(t);
        return api_from_engine(err, rc, &ei);
    }
    t->rate = sample_rate;
    t->n = fft_size;
    *out = t;
    return SPECTRO_OK;
}

size_t spectro_transfer_bins(const spectro_transfer *t)
{
    return t ? transfer_bins(t->tf) : 0;
}

int spectro_transfer_copy(spectro_transfer *dst, const spectro_transfer *src, spectro_error *err)
{
    if (!dst || !src)
        return api_fail(err, SPECTRO_EINVAL, "%s is NULL", !dst ? "dst" : "src");
    if (transfer_copy(dst->tf, src->tf) != SP_OK)
        return api_fail(err, SPECTRO_EINVAL, "fft_size: %zu bins copied into %zu", transfer_bins(src->tf),
                        transfer_bins(dst->tf));
    dst->rate = src->rate;
    dst->n = src->n;
    return SPECTRO_OK;
}

void spectro_transfer_reset(spectro_transfer *t)
{
    if (t)
        transfer_reset(t->tf);
}

int spectro_transfer_delay(const spectro_transfer *t, double *delay_s, spectro_error *err)
{
    sp_errinfo ei = {{0}};
    double d = 0.0;
    int rc;
    if (!t || !delay_s)
        return api_fail(err, SPECTRO_EINVAL, "%s is NULL", !t ? "the transfer" : "delay_s");
    if ((rc = transfer_delay(t->tf, &d, &ei)) != SP_OK)
        return api_from_engine(err, rc, &ei);
    *delay_s = d / t->rate;
    return SPECTRO_OK;
}

int spectro_transfer_values(const spectro_transfer *t, float *magnitude_db, float *phase_deg, float *coherence,
                            unsigned flags, double *delay_s, spectro_error *err)
{
    double d = 0.0;
    int rc = SPECTRO_OK;
    if (!t)
        return api_fail(err, SPECTRO_EINVAL, "the transfer is NULL");
    if (flags & ~(unsigned)(SPECTRO_TRANSFER_UNWRAP | SPECTRO_TRANSFER_REMOVE_DELAY))
        return api_fail(err, SPECTRO_EINVAL, "flags: 0x%x is not a SPECTRO_TRANSFER_ flag",
                        flags & ~(unsigned)(SPECTRO_TRANSFER_UNWRAP | SPECTRO_TRANSFER_REMOVE_DELAY));
    transfer_result(t->tf, magnitude_db, phase_deg, coherence);
    if ((delay_s || (flags & SPECTRO_TRANSFER_REMOVE_DELAY)) && (rc = spectro_transfer_delay(t, &d, err)) != SPECTRO_OK)
        d = 0.0; /* the phase unwrapped all the same, the delay left in */
    if (phase_deg && flags)
        transfer_unwrap(phase_deg, transfer_bins(t->tf), (double)t->rate / (double)t->n,
                        rc == SPECTRO_OK && (flags & SPECTRO_TRANSFER_REMOVE_DELAY), d);
    if (delay_s)
        *delay_s = d;
    return rc;
}
