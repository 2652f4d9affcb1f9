/* cli_transfer: the command line's options of two signals (docs/manual.md "Measurements"):
 * --transfer REF:MEAS's parser (a row's OPT_CUSTOM parser, cli_internal.h), and the checks of
 * --transfer, --remove-delay, --reference and --compare against the rest of the command line,
 * in one function. Part of cli.c's parser; their rows are in cli.c's cli_rows. */
#ifndef SPECTRO_CLI_TRANSFER_H
#define SPECTRO_CLI_TRANSFER_H

#include "cli_internal.h"

/* --transfer REF:MEAS: two channel indices into the row's field (REF) and also[0] (MEAS). */
int cli_transfer_parse(cli_options *o, const cli_option *row, const char *name, const char *val, sp_errinfo *ei);

/* The options together: --transfer turns --dump and --png into the transfer function's kinds
 * (sink_kind.transferred) and reads every channel; without an output the window shows it
 * (measure.transfer); anything else that writes levels, --channel, --average, --bands, --view
 * is refused, as is REF = MEAS (without --reference), --remove-delay with --dump alone,
 * --reference without --transfer. --compare A B makes the two FILEs a pair (A the reference,
 * B the input) and --png, or --average MODE with --dump, its kinds (sink_kind.compared): one
 * run, not a batch; without an output the window shows the pair. */
int cli_transfer_check(cli_options *o, sp_errinfo *ei);

#endif
