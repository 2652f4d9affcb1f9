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
