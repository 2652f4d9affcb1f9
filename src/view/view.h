/* view: the SDL2 window. A scrolling spectrogram with a live spectrum curve (microphone,
 * --realtime), or a whole file's spectrogram with zoom and scroll; axes, colour bar,
 * cursor read-out, key bindings, status line. Draws with the renderer's code (render.h).
 *
 * view_run runs the analysis (analyze_run) on a worker thread, with the view as its sink,
 * and the window's event loop on the calling thread (SDL wants the main thread). It
 * returns when the user closes the window (or presses q/Esc), or on an error.
 * With no display: SP_ENODEV with a message that suggests --png / --dump.
 */
#ifndef SPECTRO_VIEW_H
#define SPECTRO_VIEW_H

#include "analyze.h"
#include "err.h"

/* cfg's sink, on_start and capture_anchor belong to the view; cfg->stop is honoured
 * (SIGINT closes the window). res receives the analysis result (may be NULL). */
int view_run(const analyze_config *cfg, analyze_result *res, sp_errinfo *ei);

#endif
