/* job_transfer: a job's settings of two signals (docs/manual.md "Measurements"): transfer
 * REF:MEAS's parser (a row's OPT_CUSTOM parser, job_internal.h), and the checks of transfer,
 * remove_delay, reference and compare against the rest of the settings, in one function.
 * Part of job_prepare; their rows are in job_rows.c. */
#ifndef SPECTRO_JOB_TRANSFER_H
#define SPECTRO_JOB_TRANSFER_H

#include "job_internal.h"

/* --transfer REF:MEAS: two channel indices into the row's field (REF) and also[0] (MEAS). */
int job_transfer_parse(job *o, const job_row *row, const char *name, const char *val, sp_errinfo *ei);

/* The options together: --transfer turns --dump and --png into the transfer function's kinds
 * (sink_kind.transferred) and reads every channel; without an output the window shows it
 * (measure.transfer); anything else that writes levels, --channel, --average, --bands, --view
 * is refused, as is REF = MEAS (without --reference), --remove-delay with --dump alone,
 * --reference without --transfer. --compare A B makes the two FILEs a pair (A the reference,
 * B the input) and --png, or --average MODE with --dump, its kinds (sink_kind.compared): one
 * run, not a batch; without an output the window shows the pair. */
int job_transfer_check(job *o, sp_errinfo *ei);

#endif
