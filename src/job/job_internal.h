/* A job's rows, shared by job_set (job_rows.c) and the documentation made from them
 * (job_help.c: the settings as data, from which the program makes --help, its man page and
 * shell completion).
 *
 * Every setting is one row, as FFmpeg's AVOption: its name, the type of its value, where the
 * value goes (an offset into the job), its range, its default as help shows it, and its help.
 * The rows make the parser (values of the common types are parsed and range-checked from the
 * row; a setting whose value is a small language of its own, such as size WxH, names its
 * parser) and the help (the defaults and the lists of names read from each module's table).
 * What no single setting can check (settings together) is job_prepare's. */
#ifndef SPECTRO_JOB_INTERNAL_H
#define SPECTRO_JOB_INTERNAL_H

#include <stddef.h>

#include "job.h"

typedef enum {
    OPT_SWITCH, /* takes no value: the int at .field becomes 1 */
    OPT_SIZE,   /* a size_t: whole decimal in [min, max] */
    OPT_INT,    /* an int: whole decimal in [min, max] */
    OPT_REAL,   /* a double: finite, >= min (> min with .strict); also copied to .also[] */
    OPT_TIME,   /* a double in seconds: "90", "1.5" or [h:]mm:ss[.fff], >= 0 (> 0 with .strict) */
    OPT_TEXT,   /* a const char *: not empty (.empty is the message) */
    OPT_OUTPUT, /* asks for the output .output at the value (or none: a switch) */
    OPT_CUSTOM  /* parsed by .parse */
} job_row_type;

typedef struct job_row job_row;

/* A row's own parser: the value (NULL for none) into o; `name` is the option as given ("-n"). */
typedef int (*job_parse_fn)(job *o, const job_row *row, const char *name, const char *val,
                            sp_errinfo *ei);

/* A row's value as text that its parser takes into buf (len bytes, NUL-terminated, cut
 * where too long); "" where it is not set. Returns the length the whole text takes. */
typedef size_t (*job_format_fn)(const job *o, const job_row *row, char *buf, size_t len);

/* A list that --help reads from its module's table ("hann (default), hamming, ..."), and the
 * bare names for completion ("hann hamming ..."). */
typedef void (*job_list_fn)(char *buf, size_t len, int bare);

struct job_row {
    const char *longname;   /* "fft-size": the setting's name (job_set takes "fft_size" too),
                             * and the program's option (--fft-size) */
    const char *name;       /* the engine's name of the setting, which its messages use
                             * (SP_FIELD); NULL: the long name with '_' for '-' ("fft_size") */
    const char *value;      /* the value's name in --help ("N"); NULL: a switch; "[F]": optional */
    job_row_type type;
    size_t field;           /* offsetof(job, ...): where the value goes */
    size_t also[2];         /* OPT_REAL: further fields that take the same value (0: none) */
    double min, max;        /* OPT_SIZE, OPT_INT: the range; OPT_REAL, OPT_TIME: min */
    int strict;             /* OPT_REAL, OPT_TIME: the value must be above min */
    const char *def;        /* the default as --help writes it ("4096"); NULL: none written */
    int def_parses;         /* def is a value the option takes, and parsing it changes nothing
                             * (tests/test_cli.c holds the rows to it) */
    job_parse_fn parse;     /* OPT_CUSTOM */
    job_format_fn format;   /* OPT_CUSTOM (and a row whose value needs more than its type's
                             * text): the value as `parse` takes it (job_get) */
    int unset_empty;        /* being given changes the run beyond the value (job_given is
                             * read: average, tone, ...): job_get says "" until it is given */
    const char *output;     /* OPT_OUTPUT: the sink kind (sink_table.h) */
    const char *empty;      /* OPT_TEXT, OPT_OUTPUT with a value: the message for "" */
    char kind;              /* completion: 'f' a file, 'd' an audio device; 0: from the type */
    int frames;             /* the setting shapes the frames a run makes (the input, its range,
                             * the FFT, window, channel, backend, a transform, calibration):
                             * what a job derived for another run of the stream takes over
                             * (job_setting_shapes_frames) */
    const char *section;    /* a group starts here ("analysis"); "": a blank line only */
    const char *help;       /* the text, then the list, then help_after, then the default */
    job_list_fn list;
    const char *help_after;
};

extern const job_row job_rows[];
extern const int job_row_count;

/* One setting's value (NULL for none) into o, as its row says, marking it given; `name` is
 * the field as messages show it (marked: SP_FIELD). */
int job_apply(job *o, const job_row *row, const char *name, const char *val, sp_errinfo *ei);

/* The row of a name ("fft_size", "fft-size", or its alias), or NULL. */
const job_row *job_row_find(const char *name);

/* The settings together, before a run: what no single row can check, and what they make
 * of each other (the averaged, banded, ... kinds of the outputs; the batch; the default hop).
 * SP_EINVAL with one line naming the fields (job.h declares it). Idempotent: it starts from
 * the settings as given (given_an), which it keeps. job_prepare_checks is its work on
 * them (job_rows.c). */
int job_prepare_checks(job *o, sp_errinfo *ei);

/* The rows' formats (job_format.c), named by the rows. */
size_t job_format_fft_size(const job *o, const job_row *row, char *buf, size_t len);
size_t job_format_window(const job *o, const job_row *row, char *buf, size_t len);
size_t job_format_channel(const job *o, const job_row *row, char *buf, size_t len);
size_t job_format_backend(const job *o, const job_row *row, char *buf, size_t len);
size_t job_format_output(const job *o, const job_row *row, char *buf, size_t len);
size_t job_format_picture_size(const job *o, const job_row *row, char *buf, size_t len);
size_t job_format_scale(const job *o, const job_row *row, char *buf, size_t len);
size_t job_format_colormap(const job *o, const job_row *row, char *buf, size_t len);
size_t job_format_db_range(const job *o, const job_row *row, char *buf, size_t len);
size_t job_format_raw_format(const job *o, const job_row *row, char *buf, size_t len);
size_t job_format_shard(const job *o, const job_row *row, char *buf, size_t len);
size_t job_format_average(const job *o, const job_row *row, char *buf, size_t len);
size_t job_format_real(const job *o, const job_row *row, char *buf, size_t len);
size_t job_format_calibrate(const job *o, const job_row *row, char *buf, size_t len);
size_t job_format_tone(const job *o, const job_row *row, char *buf, size_t len);
size_t job_format_tone_format(const job *o, const job_row *row, char *buf, size_t len);
size_t job_format_bands(const job *o, const job_row *row, char *buf, size_t len);
size_t job_format_weighting(const job *o, const job_row *row, char *buf, size_t len);
size_t job_format_tuning(const job *o, const job_row *row, char *buf, size_t len);
size_t job_format_transfer(const job *o, const job_row *row, char *buf, size_t len);

/* --tone-format's names (json, text): the parser and the lists read them. */
extern const char *const job_tone_formats[];
#define JOB_TONE_FORMAT_COUNT 2

/* The lists of job_help.c, named by the rows. */
void job_list_windows(char *buf, size_t len, int bare);
void job_list_backends(char *buf, size_t len, int bare);
void job_list_dump_formats(char *buf, size_t len, int bare);
void job_list_scales(char *buf, size_t len, int bare);
void job_list_colormaps(char *buf, size_t len, int bare);
void job_list_averages(char *buf, size_t len, int bare);
void job_list_tone_formats(char *buf, size_t len, int bare);
void job_list_weightings(char *buf, size_t len, int bare);
void job_list_raw_encodings(char *buf, size_t len, int bare);
void job_list_channels(char *buf, size_t len, int bare);

/* "auto, cpu, cuda, cufft": the backends' names, for messages. */
void job_backend_names(char *buf, size_t len);

/* No output and no frames sink: the run is the window's. */
static inline int job_windowed(const job *o)
{
    return o->an.n_outputs == 0 && !o->frames;
}

#endif
