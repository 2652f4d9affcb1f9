/* cli_transfer: the command line's options of two signals: --transfer, --remove-delay,
 * --reference, --compare. The --transfer options (the transfer function of two channels,
 * docs/manual.md "Measurements"): each option's parsing, and their checks against the
 * rest of the command line in one function. Part of cli.c's parser. */
#ifndef SPECTRO_CLI_TRANSFER_H
#define SPECTRO_CLI_TRANSFER_H

#include "cli.h"

/* --transfer REF:MEAS: two different channel indices. */
int cli_transfer_parse(cli_options *o, const char *name, const char *val, sp_errinfo *ei);

/* --reference FILE: the reference channel comes from FILE. */
int cli_transfer_reference(cli_options *o, const char *val, sp_errinfo *ei);

/* The options together: --transfer turns --dump and --png into the transfer function's
 * kinds (sink_kind.transferred) and reads every channel; anything else that writes levels,
 * --channel, --average, --bands, --view is refused, as is --remove-delay without it. */
int cli_transfer_check(cli_options *o, sp_errinfo *ei);

/* --compare A B: the two FILEs read side by side (a pair: A the reference, B the input) into
 * the compare kinds (sink_kind.compared): --png, or --average MODE with --dump. One run, not
 * a batch. Called by cli_transfer_check. */
int cli_compare_check(cli_options *o, sp_errinfo *ei);

#endif
