/* cli: the command line onto a job of the library (spectro.h). Every option but the
 * program's own three (--help, --version, --list-devices) is a setting of the job, spelled
 * with '-' for '_' (--fft-size is fft_size), a few with a short form (-n); the FILEs are its
 * inputs. Never prints (main does). --help, the man page and the shell completion are made
 * from the library's settings table (spectro_setting_info_at) and these few rows. */
#ifndef SPECTRO_CLI_H
#define SPECTRO_CLI_H

#include <stdio.h>

#include "spectro.h"

/* What the command line asks of the program itself. */
typedef struct {
    int help, version, list_devices;
    int quiet, verbose;  /* also set on the job: main's progress bar and notes follow them */
    int n_inputs;        /* the FILEs given */
    int batch;           /* several FILEs, --files-from or --shard */
    const char *input;   /* the first FILE, NULL: the microphone */
} cli_program;

/* SPECTRO_EINVAL with one line naming the option for anything the job does not take. */
int cli_parse(int argc, char **argv, spectro_job *job, cli_program *p, spectro_error *err);

void cli_usage(FILE *f);

/* The option that sets the library's field `field` ("fft_size" -> "--fft-size"; an alias
 * too: "mode" -> "--average"), or NULL: the namer of the library's messages
 * (spectro_set_field_namer). Thread-safe. */
const char *cli_field_option(const char *field);

/* The options as data, for the documentation made from them at build time (the man page,
 * shell completion: app/gendoc.c). */
typedef struct {
    const char *longname;  /* "fft-size" */
    char shortname;        /* 'n', or 0 */
    const char *value;     /* the value's name ("N"), or NULL: a switch */
    int group;             /* a group starts here, titled section ("analysis"; "": none) */
    char section[128];
    char text[1024];       /* the help text with its list, unwrapped; "\n" is a line break */
    char kind;             /* the value: 'l' one of `values`, 'f' a file name, 'd' an audio
                            * device (spectro --list-devices), 'n' anything else or none */
    char values[512];      /* kind 'l': the names it takes, space-separated */
} cli_option_doc;

int cli_option_count(void);
/* SPECTRO_EINVAL when i is out of range. */
int cli_option_doc_at(int i, cli_option_doc *out);

#endif
