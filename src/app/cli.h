/* cli: the command line. Parses argv into an analysis config plus the program's own
 * switches; never prints (main does). Each option is a row (cli_internal.h) that the parser,
 * --help, the man page and the shell completion read. */
#ifndef SPECTRO_CLI_H
#define SPECTRO_CLI_H

#include <stdio.h>

#include "analyze.h"
#include "err.h"

#define CLI_MAX_OPTIONS 64

typedef struct {
    analyze_config an;
    analyze_context run; /* how the run is driven (stop flag, bar, hooks): main and env fill it,
                          * not the command line */
    int help, version, verbose, quiet;
    int list_devices;
    const char *output_device; /* --output-device: the window's playback; NULL = default */
    int headless; /* an output was asked for (--dump, --peaks, --png, --tone): no window */
    unsigned char given[CLI_MAX_OPTIONS]; /* by row: the option was on the command line */
    int mel, mfcc, cqt;               /* --mel B, --mfcc K, --cqt B (0: not given) */
    int chroma, reassign;             /* --chroma, --reassign */
    int view_bands;                   /* --bands with no output: the window's band bars (1/B) */
    int view, view_tone, view_average; /* --view, and what it hands the window: --tone,
                                        * --average mean (their outputs are not made) */
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

/* The option that sets the engine's field `field` ("fft_size" -> "--fft-size"), or NULL: the
 * program's namer of the engine's messages (sp_set_field_namer). Thread-safe. */
const char *cli_field_option(const char *field);

/* The option `longname` ("window") was on the command line. */
int cli_given(const cli_options *o, const char *longname);

/* o with every default and nothing given: what cli_parse starts from. */
void cli_defaults(cli_options *o);

/* The options table as data, for the documentation made from it at build time (the man
 * page, shell completion: app/gendoc.c). */
typedef struct {
    const char *longname;  /* "fft-size" */
    char shortname;        /* 'n', or 0 */
    const char *value;     /* the value's name ("N"), or NULL: a switch */
    const char *section;   /* a group starts here ("analysis"); "" or NULL: none */
    char text[1024];       /* the help text with its list, unwrapped; "\n" is a line break */
    char kind;             /* the value: 'l' one of `values`, 'f' a file name, 'd' an audio
                            * device (spectro --list-devices), 'n' anything else or none */
    char values[512];      /* kind 'l': the names it takes, space-separated */
} cli_option_doc;

int cli_option_count(void);
/* SP_EINVAL when i is out of range. */
int cli_option_doc_at(int i, cli_option_doc *out);

#endif
