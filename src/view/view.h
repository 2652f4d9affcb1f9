/* view: the SDL2 window. A scrolling spectrogram with a live spectrum curve (microphone,
 * --realtime), or a whole file's spectrogram with zoom and scroll; axes, colour bar,
 * cursor read-out, key bindings, status line. Draws with the renderer's code (render.h,
 * canvas.h).
 *
 * view_run runs the analysis (a job derived from the caller's) on a worker thread, the view
 * taking its stream, and the window's event loop on the calling thread (SDL wants the main
 * thread). It returns when the user closes the window (or presses q/Esc), or on an error.
 * With no display: SP_ENODEV with a message that suggests --png / --dump.
 */
#ifndef SPECTRO_VIEW_H
#define SPECTRO_VIEW_H

#include "err.h"
#include "spectro.h"

/* The window's settings from outside the command line: the environment's
 * (view_config_from_env) and the job's (view_window). */
typedef struct {
    /* where the display is: DISPLAY (X11) and WAYLAND_DISPLAY; NULL or "" both, and no
     * video_driver_set: there is none, and view_run says so without trying */
    const char *display, *wayland_display;
    int video_driver_set;   /* SDL_VIDEODRIVER names SDL's driver: take the one SDL opens */
    /* for the tests: set only in a build with the test hooks (docs/developer.md "Test
     * hooks"; verify too), acted on only there */
    const char *stats_path; /* SPECTRO_VIEW_STATS: frames drawn, fps, latency (JSON) written
                             * there when the window closes; NULL or "": none */
    const char *shot_path;  /* SPECTRO_VIEW_SHOT: a file's picture, once its analysis is over
                             * and drawn, written there as the s key writes it; then the
                             * window closes (a test's screenshot without keys: SDL's
                             * offscreen driver); NULL or "": none */
    const char *output_device; /* --output-device: playback's output (index or part of a
                             * name); NULL = the default output */
    const char *keys;       /* SPECTRO_VIEW_KEYS: keys pressed once the window is up, their
                             * SDL names apart by spaces ("v o f"; a benchmark's keys where
                             * no X server takes xdotool's); NULL or "": none */
    int verify;             /* SPECTRO_VIEW_VERIFY: every live picture drawn in parts is also
                             * drawn whole and compared, and what is shown read back (slow) */
} view_config;

/* The keys the window takes, in the order its help lists them: view_key(i) names the key
 * or keys in UTF-8 ("h / ?", arrows as U+2190..U+2193), view_key_action(i) says what they
 * do; NULL out of range. */
int view_key_count(void);
const char *view_key(int i);
const char *view_key_action(int i);
/* What key i does in the transfer view (--transfer), which the help lists there; NULL
 * where it does nothing there (or i is out of range). */
const char *view_key_transfer(int i);

/* No display, no statistics, no checks. */
view_config view_config_default(void);

/* The window's variables of the environment into vc (view_env.c): where the display is,
 * and in a build with the test hooks theirs. */
void view_config_from_env(view_config *vc);

/* The window on the public job `pub`'s input, prepared (spectro_job_prepare, as
 * spectro_job_run has it): its settings read back by name (view_settings.h), its analyses
 * jobs derived from pub (spectro_job_derive: its frames' settings, the window's FFT size,
 * window and transform) whose stream the window takes (spectro_job_set_stream). A stop asked
 * of pub (spectro_job_stop: SIGINT) closes the window. vcfg may be NULL
 * (view_config_default()). Each analysis says its own notes and warnings. */
int view_run(spectro_job *pub, const view_config *vcfg, spectro_stream_end *last, sp_errinfo *ei);

/* What view_window tells the caller that gave it (its user pointer). */
typedef struct {
    int ran;                 /* the window ran: the job asked for no output */
    spectro_stream_end last; /* how its last analysis ended (interrupted: a live run that a
                              * stop ended; a file's finished run is not), when it ended */
} view_outcome;

/* The window as a job's (a spectro_window_fn for spectro_job_set_window; user: a
 * view_outcome to fill, or NULL): its settings from the environment (view_config_from_env)
 * and from the job (the playback's output), then view_run on the job. The spectro program
 * gives it to every job it runs. */
int view_window(void *user, spectro_job *job, spectro_error *err);

/* How the window's own lines (its toasts, its errors) name settings: as
 * spectro_set_field_namer has the library's (the window's drawing toolkit is the program's
 * copy, apart from the library's). Once, before a window opens. */
void view_set_field_namer(const char *(*namer)(const char *field));

#endif
