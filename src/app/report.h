/* report: what a run says on stderr when it went well: notes and warnings about its input
 * (one run of a batch, or the one run), and, for --verbose, what was chosen and where the
 * time went. */
#ifndef SPECTRO_REPORT_H
#define SPECTRO_REPORT_H

#include "analyze.h"

/* The warnings of a run (the file ended early, NaN/Inf replaced or samples clamped, samples
 * dropped) and its notes (bands too narrow for the FFT, left out). */
void app_report_warnings(const analyze_result *res);

/* --verbose: the input, the settings, frames analysed (skips apart), speed; auto's choice;
 * where the time went. */
void app_report_verbose(const analyze_result *res);

#endif
