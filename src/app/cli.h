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
    /* The inputs: the FILEs of the command line (an.input is the first), then the paths
     * that --files-from lists (read by the batch driver, batch.h). */
    const char *const *inputs;
    int n_inputs;
    const char *files_from;  /* a path, "-" = standard input; NULL: none */
    int shard_k, shard_n;    /* --shard K/N: inputs i with i % N == K; shard_n 0: all */
    int batch;               /* several inputs, --files-from or --shard: batch_main runs them */
} cli_options;

/* SP_EINVAL with one line naming the option for anything it does not accept. The slots of
 * argv are reordered (as getopt does): the FILEs end up in argv[1 .. n_inputs], in order. */
int cli_parse(int argc, char **argv, cli_options *out, sp_errinfo *ei);

void cli_usage(FILE *f);

#endif
