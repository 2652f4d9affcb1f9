/* job: a job's life (job.h): made with every default, its settings set by name (job_rows.c),
 * then run: a batch (job_batch.c), or one input with its outputs, or the caller's window. */
#include "job.h"

#include <stdlib.h>
#include <string.h>

#include "job_batch.h"
#include "job_files.h"
#include "job_internal.h"
#include "job_report.h"
#include "source.h"

int job_create(job **out, sp_errinfo *ei)
{
    job *j = calloc(1, sizeof *j);
    *out = NULL;
    if (!j)
        return sp_fail(ei, SP_ENOMEM, "out of memory");
    j->an = analyze_config_default();
    j->run = analyze_context_default();
    atomic_init(&j->stopped, 0);
    j->run.stop = &j->stopped;
    *out = j;
    return SP_OK;
}

void job_destroy(job *j)
{
    if (!j)
        return;
    for (int i = 0; i < j->n_texts; i++)
        free(j->texts[i]);
    free(j->texts);
    free(j->inputs);
    free(j);
}

void job_stop(job *j, int sig)
{
    atomic_store(&j->stopped, sig > 0 ? sig : 1);
}

void job_say(const job *j, int level, const char *fmt, ...)
{
    char line[2048];
    va_list ap;
    if (!j->say)
        return;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    sp_render_fields(line, sizeof line);
    j->say(j->say_user, level, line);
}

/* The window's run decides "no display" itself; a missing or unreadable input is the
 * user's first problem, so it is found first (exit 2, naming the file). Files and synth:
 * specs are opened and closed again; the microphone and standard input are left alone
 * (opening them takes the device or consumes the stream). */
static int check_input(const analyze_config *an, sp_errinfo *ei)
{
    source_request req = {an->input, an->device, an->rate, an->channels, an->file, NULL, NULL, 0, 0, 0, 0};
    source *src = NULL;
    int err;
    /* opening a pipe would take what its writer sends: the run opens it once */
    if (!an->input || source_is_pipe_path(an->input))
        return SP_OK;
    err = source_open_request(&req, &src, ei);
    source_close(src);
    return err;
}

/* One input: its outputs, or the window. */
static int run_one(job *j, analyze_result *res, sp_errinfo *ei)
{
    int err;
    if ((err = batch_expand_single(j, ei)) != SP_OK || (err = job_check_files(&j->an, ei)) != SP_OK)
        return err;
    if (!j->headless && (err = check_input(&j->an, ei)) != SP_OK)
        return err;
    if (j->headless) {
        j->run.last_run = 1;
        j->run.extra_sinks = j->frames;
        j->run.n_extra_sinks = j->frames != NULL;
        return analyze_run(&j->an, &j->run, res, ei);
    }
    if (!j->window) /* the library has none of its own: the spectro program gives its */
        return sp_fail(ei, SP_EINVAL,
                       "no output asked for (" SP_FIELD("dump") ", " SP_FIELD("png") ", " SP_FIELD("peaks") ", ...) "
                       "and no window to show the input in");
    err = j->window(j->window_user, ei);
    /* the window's analyses are jobs of their own: a stop asked of this one (a signal)
     * closed it, as a live run's stop ends that run (spectro_job_stopped) */
    res->interrupted = err == SP_OK && atomic_load(&j->stopped) != 0;
    return err;
}

void job_unprepare(job *j)
{
    if (!j->prepared)
        return;
    j->an = j->given_an;
    memcpy(j->given, j->given_rows, sizeof j->given);
    j->view_bands = 0;
    j->batch = j->headless = 0;
    j->prepared = 0;
}

/* From the settings as given every time: the checks change what they read (the outputs'
 * kinds, the colour range with spl_offset, compare's channel), so a second pass over their
 * own result would not be the same run. */
int job_prepare(job *j, sp_errinfo *ei)
{
    int err;
    job_unprepare(j);
    j->given_an = j->an;
    memcpy(j->given_rows, j->given, sizeof j->given);
    j->prepared = 1;
    if ((err = job_prepare_checks(j, ei)) != SP_OK)
        job_unprepare(j);
    return err;
}

void job_set_frames(job *j, const sink *s)
{
    j->frames = s;
}

int job_run(job *j, analyze_result *res, sp_errinfo *ei)
{
    analyze_result own;
    sp_errinfo own_ei = {{0}};
    int err;
    if (!ei)
        ei = &own_ei;
    if (!res)
        res = &own;
    memset(res, 0, sizeof *res);
    if ((err = job_prepare(j, ei)) != SP_OK)
        return err;
    if (j->batch) {
        err = job_batch_run(j, ei);
        j->said = err != SP_OK && !ei->msg[0];
        return err;
    }
    err = run_one(j, res, ei);
    if (err != SP_OK && job_stop_asked(&j->run))
        return SP_EINTERRUPTED;
    if (err != SP_OK)
        return err;
    if (!j->headless) /* the window's runs are jobs of their own, which said their lines */
        return SP_OK;
    if (!j->quiet) {
        int noted = 0;
        job_report_fallback(j, res, j->verbose, &noted);
        job_report_warnings(j, res);
    }
    if (j->verbose)
        job_report_verbose(j, res);
    return SP_OK;
}
