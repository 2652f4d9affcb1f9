/* report: what a run says on stderr when it went well: notes and warnings about its input
 * (one run of a batch, or the one run), and, for --verbose, what was chosen and where the
 * time went. */
#ifndef SPECTRO_REPORT_H
#define SPECTRO_REPORT_H

#include "analyze.h"

/* The warnings of a run: the file ended early, NaN/Inf replaced, samples dropped. */
void app_report_warnings(const analyze_result *res);

/* Why auto ran on the cpu (res->fallback), as a note, once per process (*noted set), when
 * verbose, or when a GPU was there and chosen but did not start; a machine or a build
 * without one is the usual case and says nothing unless asked (-v). */
void app_report_fallback(const analyze_result *res, int verbose, int *noted);

/* --verbose: the input, the settings, frames analysed (skips apart), speed; auto's choice;
 * where the time went. */
void app_report_verbose(const analyze_result *res);

#endif
