/* view_env: what the window reads from the environment, its own door beside the library's
 * (src/job/job_env.c; docs/manual.md "Environment variables"):
 *
 *   DISPLAY, WAYLAND_DISPLAY, SDL_VIDEODRIVER   where the display is (SDL reads them itself;
 *                                        the window reads them to say there is none)
 *
 * and the window's test hooks, read only in a build configured with -DSPECTRO_TEST_HOOKS=ON
 * (docs/developer.md "Test hooks"), elsewhere ignored:
 *   SPECTRO_VIEW_STATS=FILE              the frame-rate and latency statistics written to
 *                                        FILE when the window closes
 *   SPECTRO_VIEW_VERIFY=1                drawing in parts checked against a whole redraw
 *   SPECTRO_VIEW_SHOT=FILE               the picture written once analysed, then the window
 *                                        closes
 *   SPECTRO_VIEW_KEYS="v o f"            keys the window presses itself once it is up
 * Unset or empty: the default. The labels' font is the job's (spectro_job_font: the
 * library's door reads SPECTRO_FONT and SPECTRO_TEST_FONTS). */
#include <stdlib.h>
#include <string.h>

#include "view.h"

#ifdef SPECTRO_TEST_HOOKS
/* name's value; NULL when unset or empty */
static const char *env_get(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}
#endif

view_config view_config_default(void)
{
    view_config c;
    memset(&c, 0, sizeof c); /* pointers NULL, switches off */
    return c;
}

void view_config_from_env(view_config *vc)
{
    vc->display = getenv("DISPLAY");
    vc->wayland_display = getenv("WAYLAND_DISPLAY");
    vc->video_driver_set = getenv("SDL_VIDEODRIVER") != NULL;
#ifdef SPECTRO_TEST_HOOKS
    const char *verify = env_get("SPECTRO_VIEW_VERIFY");
    vc->stats_path = env_get("SPECTRO_VIEW_STATS");
    vc->shot_path = env_get("SPECTRO_VIEW_SHOT");
    vc->keys = env_get("SPECTRO_VIEW_KEYS");
    vc->verify = verify && strcmp(verify, "0") != 0;
#endif
}
