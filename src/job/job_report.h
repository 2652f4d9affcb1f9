/* job_report: what a run says through the job's `say` when it went well: notes and warnings
 * about its input (one run of a batch, or the one run), and, when verbose, what was chosen
 * and where the time went; and what decides how one that did not ends (a stop, a reader
 * gone). */
#ifndef SPECTRO_JOB_REPORT_H
#define SPECTRO_JOB_REPORT_H

#include <stdio.h>

#include "analyze.h"
#include "job.h"

/* The warnings of a run (the file ended early, NaN/Inf replaced or samples clamped, samples
 * dropped) and its notes (bands too narrow for the FFT, left out). */
void job_report_warnings(const job *j, const analyze_result *res);

/* --verbose: --fmax above the input's Nyquist frequency, clipped to it (one line, none
 * when it was not). Part of job_report_verbose; a batch says it per file. */
void job_report_clipped(const job *j, const analyze_result *res);

/* Why auto ran on the cpu (res->fallback), as a note, once per process (*noted set), when
 * verbose, or when a GPU was there and chosen but did not start; a machine or a build
 * without one is the usual case and says nothing unless asked (-v). */
void job_report_fallback(const job *j, const analyze_result *res, int verbose, int *noted);

/* --verbose: the input, the settings, frames analysed (skips apart), speed; auto's choice;
 * --fmax clipped; where the time went. */
void job_report_verbose(const job *j, const analyze_result *res);

/* 1 when a signal asked the run to stop (ctx->stop is set): a run that fails then was
 * stopped by it, whatever error the stop caused on its way out (EINTR). */
int job_stop_asked(const analyze_context *ctx);

/* The line of a failure: ei's message (its fields still marked), or the code's generic text. */
const char *job_message(int err, const sp_errinfo *ei);

/* out (NULL: stdout) is a pipe or socket whose reader has gone (`spectro --peaks f | head -1`):
 * poll reports POLLERR on a pipe without readers (POLLHUP on a socket). */
int job_reader_gone(FILE *out);

#endif
