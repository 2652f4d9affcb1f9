/* cli: the command line. Parses argv into an analysis config plus the program's own
 * switches; never prints (main does). */
#ifndef SPECTRO_CLI_H
#define SPECTRO_CLI_H

#include <stdio.h>

#include "analyze.h"
#include "err.h"

typedef struct {
    analyze_config an;
    int help, version, verbose, quiet;
    int list_devices;
    int headless; /* an output was asked for (--dump, --peaks, --png): no window */
} cli_options;

/* SP_EINVAL with one line naming the option for anything it does not accept. */
int cli_parse(int argc, char **argv, cli_options *out, sp_errinfo *ei);

void cli_usage(FILE *f);

#endif
