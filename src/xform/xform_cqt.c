/* constant-Q (docs/transforms.md "Constant-Q (spectral kernels)"). */
#include "xform_internal.h"

static int cqt_init(xform *x, sp_errinfo *ei)
{
    (void)x;
    return sp_fail(ei, SP_EUNSUPPORTED, "cqt: not yet");
}

static void cqt_row(const xform *x, const xform_frame *fr, float *out, float *scratch)
{
    (void)x, (void)fr, (void)out, (void)scratch;
}

const xform_ops xform_cqt_ops = {
    .kind = XFORM_CQT, .name = "cqt", .init = cqt_init, .row = cqt_row, .db = 1,
};
