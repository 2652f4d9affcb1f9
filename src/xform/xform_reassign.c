/* reassignment (docs/transforms.md "Reassignment"). */
#include "xform_internal.h"

static int reassign_init(xform *x, sp_errinfo *ei)
{
    (void)x;
    return sp_fail(ei, SP_EUNSUPPORTED, "reassign: not yet");
}

static void reassign_row(const xform *x, const xform_frame *fr, float *out, float *scratch)
{
    (void)x, (void)fr, (void)out, (void)scratch;
}

const xform_ops xform_reassign_ops = {
    .kind = XFORM_REASSIGN, .name = "reassign", .init = reassign_init, .row = reassign_row,
};
