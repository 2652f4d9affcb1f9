/* job: the program's run as a library call (docs/api-c.md "Jobs"), what the public
 * spectro_job is. Its settings are rows (job_internal.h) set by name, each with its type,
 * range, default and help, as FFmpeg's AVOption: the program's command line, --help, man
 * page and completion are made from them; then inputs, outputs, and job_run: one input
 * (its outputs, or the window when none is asked for), or a batch over many (job_batch.h).
 * Its messages (notes, warnings, a batch's failed files) go to the job's `say`; it never
 * exits. */
#ifndef SPECTRO_JOB_H
#define SPECTRO_JOB_H

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>

#include "analyze.h"
#include "err.h"

#define JOB_MAX_ROWS 64

/* A line for whoever runs the job: JOB_SAY_ERROR a file of a batch failed (the batch goes
 * on), JOB_SAY_WARNING / JOB_SAY_NOTE about an input, JOB_SAY_INFO what --verbose says. The
 * line has no "spectro: " and no newline; its fields are rendered (sp_render_fields). */
enum { JOB_SAY_ERROR, JOB_SAY_WARNING, JOB_SAY_NOTE, JOB_SAY_INFO };
typedef void (*job_say_fn)(void *user, int level, const char *line);

/* The window: what the run of one input with no output runs (spectro_job_set_window's,
 * through the public job). SP_OK, or the error with its line in ei. */
typedef int (*job_window_fn)(void *user, sp_errinfo *ei);

struct spectro_job;

typedef struct job {
    analyze_config an;
    analyze_context run; /* how the run is driven: out, the progress bar, the stop flag (stop
                          * points at `stopped`), the test hooks */
    atomic_int stopped;  /* job_stop's: nonzero asks the run to end */
    job_say_fn say;
    void *say_user;
    job_window_fn window; /* the window, the caller's (NULL: none; a run without an output
                           * then fails) */
    void *window_user;
    struct spectro_job *api; /* the public job that owns this one: the window derives its runs
                              * from it (spectro_job_derive) */
    int verbose, quiet;
    int said;            /* job_run's failure was said through `say` already (a batch's) */
    int env_read;        /* job_read_environment ran */
    const char *output_device; /* --output-device: the window's playback; NULL = default */
    int headless; /* an output was asked for (--dump, --peaks, --png, --tone) or a frames
                   * sink: no window */
    const sink *frames; /* the caller's sink for every frame (spectro_job_set_frames), an
                         * output of its own; NULL: none */
    unsigned char given[JOB_MAX_ROWS]; /* by row: the setting was set (job_given) */
    int mel, mfcc, cqt;               /* --mel B, --mfcc K, --cqt B (0: not given) */
    int chroma, reassign;             /* --chroma, --reassign */
    int view_bands;                   /* --bands with no output: the window's band bars (1/B) */
    int view;                         /* --view: --tone and --average mean go to the window
                                       * (their outputs are not made; it reads them back) */
    /* The inputs: those added (an.input is the first), then the paths that files_from lists
     * (read by the batch driver, job_batch.h). */
    char **inputs;
    int n_inputs;
    char **texts; /* the values the job keeps (copies of what was set), freed with it */
    int n_texts;
    const char *files_from;  /* a path, "-" = standard input; NULL: none */
    int shard_k, shard_n;    /* --shard K/N: inputs i with i % N == K; shard_n 0: all */
    int batch;               /* several inputs, --files-from or --shard: job_batch_run runs them */
    /* job_prepare's: the settings as given (an, given) before it made them the run's, put
     * back before it runs again and before a setting changes (job_unprepare) */
    int prepared;
    analyze_config given_an;
    unsigned char given_rows[JOB_MAX_ROWS];
} job;

/* A job with every default and nothing given; SP_ENOMEM. */
int job_create(job **out, sp_errinfo *ei);
void job_destroy(job *j); /* NULL is a no-op */

/* The setting `name` ("fft_size" or "fft-size"; a row's alias too: "mode" for "average") set
 * from text: NULL for a switch (or an optional value left out). Parsed and range-checked as
 * its row says; SP_EINVAL with one line naming the field. A text the job keeps is copied. */
int job_set(job *j, const char *name, const char *value, sp_errinfo *ei);

/* A copy of text that the job keeps (freed with it); NULL (SP_ENOMEM in ei) when out of
 * memory. */
const char *job_keep(job *j, const char *text, sp_errinfo *ei);

/* Whether setting `name` shapes the frames of a run (its row's `frames`): 1, 0, -1 for no
 * such setting; and whether two names are one setting ("fft_size", "fft-size"). */
int job_setting_shapes_frames(const char *name);
int job_setting_same(const char *a, const char *b);

/* An input: a path, "-" (standard input), "synth:..."; the first makes the job's input. */
int job_add_input(job *j, const char *input, sp_errinfo *ei);

/* The settings as data, in --help's order (the man page and completion too). */
typedef struct {
    const char *name;      /* "fft_size" */
    const char *alias;     /* the name the engine's messages use, when not `name` ("mode") */
    const char *value;     /* the value's name ("N"); NULL: a switch; "[F]": optional */
    int group;             /* a group starts here: its title, section ("analysis"), or none ("") */
    char section[128];
    char text[1024];       /* the help with its list and default, unwrapped; "\n" breaks;
                            * fields named by the process's namer (sp_render_fields) */
    char kind;             /* 'l' one of `values`, 'f' a file name, 'd' an audio device,
                            * 'n' anything else or none */
    char values[512];      /* kind 'l': the names it takes, space-separated */
} job_setting_doc;

int job_setting_count(void);
int job_setting_doc_at(int i, job_setting_doc *out); /* SP_EINVAL out of range */

/* The setting `name` as text that job_set takes (set(name, get(name)) changes nothing), the
 * value the run takes: after job_prepare what it made of the settings together (the default
 * hop, --tone's window); "" for a setting not set whose value the run decides (no output,
 * no transform, the device's rate, the default hop before job_prepare). SP_EINVAL: no such
 * setting, or len too short for the value (the message says how long it is). */
int job_get(const job *j, const char *name, char *value, size_t len, sp_errinfo *ei);

/* The setting `name` was set (job_given of the settings as given: job_prepare's checks
 * may forget one, compare's average). */
int job_was_given(const job *j, const char *name);

/* Puts back the settings as given, undoing job_prepare (a no-op when not prepared). */
void job_unprepare(job *j);

/* The setting `name` was set. */
int job_given(const job *j, const char *name);

/* The settings together (job_internal.h job_prepare), idempotent: job_run does it again. */
int job_prepare(job *j, sp_errinfo *ei);

/* Checks the settings together and runs: one input (its outputs, or the window when none
 * was asked for), or a batch (several inputs, files_from, shard). SP_OK, or the error that
 * ended it: ei holds its line, or is empty when the lines went to `say` already (a batch's
 * failed files). A batch with a failed file is SP_EIO; a stop is SP_EINTERRUPTED. res (may
 * be NULL) receives a single run's result. */
int job_run(job *j, analyze_result *res, sp_errinfo *ei);

/* The run's frames also go to s (NULL: no longer), borrowed until the run ends: the job
 * then runs headless; one input (a batch is refused). */
void job_set_frames(job *j, const sink *s);

/* Asks a running job to stop (sig: what asked, e.g. a signal's number, > 0). One atomic
 * store: safe from a signal handler and any thread. */
void job_stop(job *j, int sig);

/* Says one line through j->say (printf-style; fields rendered). */
void job_say(const job *j, int level, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* The environment's settings (SPECTRO_CPU_THREADS, ..., the display's, and in a build with
 * the test hooks theirs: job_env.c lists them) into the job. SP_EINVAL with one line
 * naming the variable. */
int job_read_environment(job *j, sp_errinfo *ei);

/* The FFT backends' variables alone into *t (every field set; the benchmarks read them). */
int job_env_fft(fft_tuning *t, sp_errinfo *ei);

#endif
