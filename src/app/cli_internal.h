/* cli's rows, shared by the parser (cli.c) and the documentation made from them (cli_help.c:
 * --help, and the man page and shell completion through cli_option_doc_at).
 *
 * Every option is one row, as FFmpeg's AVOption: its names, the type of its value, where the
 * value goes (an offset into cli_options), its range, its default as help shows it, and its
 * help. The rows generate the parser (values of the common types are parsed and range-checked
 * from the row; an option whose value is a small language of its own, such as --size WxH, names
 * its parser), --help (the defaults and the lists of names read from each module's table), and
 * the man page and completion. What no single option can check (options together) is in
 * cli.c's check_* functions. */
#ifndef SPECTRO_CLI_INTERNAL_H
#define SPECTRO_CLI_INTERNAL_H

#include <stddef.h>

#include "cli.h"

typedef enum {
    OPT_SWITCH, /* takes no value: the int at .field becomes 1 */
    OPT_SIZE,   /* a size_t: whole decimal in [min, max] */
    OPT_INT,    /* an int: whole decimal in [min, max] */
    OPT_REAL,   /* a double: finite, >= min (> min with .strict); also copied to .also[] */
    OPT_TIME,   /* a double in seconds: "90", "1.5" or [h:]mm:ss[.fff], >= 0 (> 0 with .strict) */
    OPT_TEXT,   /* a const char *: not empty (.empty is the message) */
    OPT_OUTPUT, /* asks for the output .output at the value (or none: a switch) */
    OPT_CUSTOM  /* parsed by .parse */
} cli_opt_type;

typedef struct cli_option cli_option;

/* A row's own parser: the value (NULL for none) into o; `name` is the option as given ("-n"). */
typedef int (*cli_parse_fn)(cli_options *o, const cli_option *row, const char *name, const char *val,
                            sp_errinfo *ei);

/* A list that --help reads from its module's table ("hann (default), hamming, ..."), and the
 * bare names for completion ("hann hamming ..."). */
typedef void (*cli_list_fn)(char *buf, size_t len, int bare);

struct cli_option {
    const char *longname;   /* "fft-size" */
    const char *name;       /* the engine's name of the setting, which its messages use
                             * (SP_FIELD); NULL: the long name with '_' for '-' ("fft_size") */
    char shortname;         /* 'n', or 0 */
    const char *value;      /* the value's name in --help ("N"); NULL: a switch; "[F]": optional */
    cli_opt_type type;
    size_t field;           /* offsetof(cli_options, ...): where the value goes */
    size_t also[2];         /* OPT_REAL: further fields that take the same value (0: none) */
    double min, max;        /* OPT_SIZE, OPT_INT: the range; OPT_REAL, OPT_TIME: min */
    int strict;             /* OPT_REAL, OPT_TIME: the value must be above min */
    const char *def;        /* the default as --help writes it ("4096"); NULL: none written */
    int def_parses;         /* def is a value the option takes, and parsing it changes nothing
                             * (tests/test_cli.c holds the rows to it) */
    cli_parse_fn parse;     /* OPT_CUSTOM */
    const char *output;     /* OPT_OUTPUT: the sink kind (sink_table.h) */
    const char *empty;      /* OPT_TEXT, OPT_OUTPUT with a value: the message for "" */
    char kind;              /* completion: 'f' a file, 'd' an audio device; 0: from the type */
    const char *section;    /* a group starts here ("analysis"); "": a blank line only */
    const char *help;       /* the text, then the list, then help_after, then the default */
    cli_list_fn list;
    const char *help_after;
};

extern const cli_option cli_rows[];
extern const int cli_row_count;

/* One option's value (NULL for none) into o, as its row says, marking it given; `name` is the
 * option as written ("-n"), for messages. */
int cli_apply(cli_options *o, const cli_option *row, const char *name, const char *val, sp_errinfo *ei);

/* The row of a long name ("window"), or NULL. */
const cli_option *cli_row_find(const char *longname);

/* --tone-format's names (json, text): the parser and the lists read them. */
extern const char *const cli_tone_formats[];
#define CLI_TONE_FORMAT_COUNT 2

/* The lists of cli_help.c, named by the rows. */
void cli_list_windows(char *buf, size_t len, int bare);
void cli_list_backends(char *buf, size_t len, int bare);
void cli_list_dump_formats(char *buf, size_t len, int bare);
void cli_list_scales(char *buf, size_t len, int bare);
void cli_list_colormaps(char *buf, size_t len, int bare);
void cli_list_averages(char *buf, size_t len, int bare);
void cli_list_tone_formats(char *buf, size_t len, int bare);
void cli_list_weightings(char *buf, size_t len, int bare);
void cli_list_raw_encodings(char *buf, size_t len, int bare);
void cli_list_channels(char *buf, size_t len, int bare);

/* "auto, cpu, cuda, cufft": the backends' names, for messages. */
void cli_backend_names(char *buf, size_t len);

#endif
