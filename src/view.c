/* Placeholder until the window lands: says so clearly. */
#include "view.h"

int view_run(const analyze_config *cfg, analyze_result *res, sp_errinfo *ei)
{
    (void)cfg;
    (void)res;
    return sp_fail(ei, SP_EUNSUPPORTED, "the window is not built yet: use --png OUT, --dump OUT or --peaks");
}
