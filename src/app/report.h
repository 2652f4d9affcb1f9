/* report: what a run says on stderr when it went well: notes and warnings about its input
 * (one run of a batch, or the one run), and, for --verbose, what was chosen and where the
 * time went; and what decides how one that did not ends (a signal, a reader gone). */
#ifndef SPECTRO_REPORT_H
#define SPECTRO_REPORT_H

#include "analyze.h"

/* The warnings of a run (the file ended early, NaN/Inf replaced or samples clamped, samples
 * dropped) and its notes (bands too narrow for the FFT, left out). */
void app_report_warnings(const analyze_result *res);

/* --verbose: --fmax above the input's Nyquist frequency, clipped to it (one line, none
 * when it was not). Part of app_report_verbose; a batch says it per file. */
void app_report_clipped(const analyze_result *res);

/* Why auto ran on the cpu (res->fallback), as a note, once per process (*noted set), when
 * verbose, or when a GPU was there and chosen but did not start; a machine or a build
 * without one is the usual case and says nothing unless asked (-v). */
void app_report_fallback(const analyze_result *res, int verbose, int *noted);

/* --verbose: the input, the settings, frames analysed (skips apart), speed; auto's choice;
 * --fmax clipped; where the time went. */
void app_report_verbose(const analyze_result *res);

/* 1 when a signal asked the run to stop (ctx->stop is set): a run that fails then was
 * stopped by it, whatever error the stop caused on its way out (EINTR). */
int app_stop_asked(const analyze_context *ctx);

/* 128 + the signal whose number the stop flag (ctx->stop) holds: 130 for SIGINT, 143 for
 * SIGTERM, as a shell reports a command that the signal ended; 130 when it holds none. */
int app_interrupted_code(const analyze_context *ctx);

/* The line to show for err: ei's message with the engine's fields named as the options that
 * set them (sp_render_fields), or the code's generic text; into buf, which it returns. */
const char *app_message(int err, const sp_errinfo *ei, char *buf, size_t len);

/* Standard output is a pipe or socket whose reader has gone (`spectro --peaks f | head -1`):
 * poll reports POLLERR on a pipe without readers (POLLHUP on a socket). */
int app_reader_gone(void);

#endif
