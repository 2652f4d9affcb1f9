/* spectro: the program. Parses the command line, runs the analysis (headless) or the
 * window, and is the only place that prints errors and picks the exit code (0 ok,
 * 1 runtime failure, 2 bad usage or input, 130/143 interrupted by SIGINT/SIGTERM). */
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze.h"
#include "batch.h"
#include "checks.h"
#include "cli.h"
#include "env.h"
#include "report.h"
#include "source.h"
#include "version.h"
#include "view.h"

/* set from the signal handler: a lock-free atomic, which C11 allows there */
_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "atomic_int must be lock-free");
static atomic_int stop_requested; /* the number of the signal that asked (app_interrupted_code) */

static void on_signal(int sig)
{
    atomic_store(&stop_requested, sig);
}

/* SIGINT and SIGTERM ask the run to stop (it cleans up, then exits 128 + the signal).
 * SIGPIPE is ignored: a closed standard output becomes EPIPE on the write, which ends the
 * run through its normal error path (see app_reader_gone). */
static void install_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sa.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &sa, NULL);
}

/* What the run put on standard output went out: flushed, no write of it failed (a full
 * disk, /dev/full). 0, or one line and 1. (A reader that left ended the process by SIGPIPE:
 * --help and --version come before install_signals.) */
static int stdout_written(void)
{
    errno = 0;
    if (fflush(stdout) == 0 && !ferror(stdout))
        return 0;
    fprintf(stderr, "spectro: writing to standard output failed: %s\n", strerror(errno ? errno : EIO));
    return 1;
}

/* What names the input in a message: the path, "synth:...", or "microphone". */
static const char *input_name(const analyze_config *an)
{
    return an->input ? an->input : "microphone";
}

/* One line on stderr. Generic lines from deep down ("out of memory", "interrupted",
 * "cannot start the reader thread") get the input's name in front, so that every line
 * names what it is about. */
static int fail_run(int err, const sp_errinfo *ei, const cli_options *o)
{
    char msg[sizeof ei->msg];
    const char *name = input_name(&o->an);
    int generic;
    app_message(err, ei, msg, sizeof msg);
    generic = err == SP_ENOMEM || err == SP_EINTERRUPTED || strncmp(msg, "cannot start", 12) == 0;
    if (err == SP_EINTERRUPTED) {
        fprintf(stderr, "spectro: %s: interrupted\n", name);
        return app_interrupted_code(&o->run);
    }
    if (generic && !strstr(msg, name))
        fprintf(stderr, "spectro: %s: %s\n", name, msg);
    else
        fprintf(stderr, "spectro: %s\n", msg);
    return sp_exit_code(err);
}

static int fail(int err, const sp_errinfo *ei)
{
    char msg[sizeof ei->msg];
    fprintf(stderr, "spectro: %s\n", app_message(err, ei, msg, sizeof msg));
    return sp_exit_code(err);
}

/* The window's run decides "no display" itself; a missing or unreadable input is the
 * user's first problem, so it is found first (exit 2, naming the file). Files and synth:
 * specs are opened and closed again; the microphone and standard input are left alone
 * (opening them takes the device or consumes the stream). */
static int check_input(const analyze_config *an, sp_errinfo *ei)
{
    source_request req = {an->input, an->device, an->rate, an->channels, an->file, NULL};
    source *src = NULL;
    int err;
    /* opening a pipe would take what its writer sends: the run opens it once */
    if (!an->input || source_is_pipe_path(an->input))
        return SP_OK;
    err = source_open_request(&req, &src, ei);
    source_close(src);
    return err;
}

static int list_devices(void)
{
    enum { MAX_DEVICES = 256 };
    static source_device_info dev[MAX_DEVICES];
    sp_errinfo ei = {{0}};
    int count = 0, err = source_list_devices(dev, MAX_DEVICES, &count, &ei);
    if (err != SP_OK)
        return fail(err, &ei);
    if (count == 0) {
        fprintf(stderr, "spectro: no audio device found\n");
        return 1;
    }
    /* channels: the input's, the output's for an output only */
    printf("%5s  %-40s %-10s %-6s %8s %10s\n", "index", "name", "host API", "dir", "channels", "rate");
    for (int i = 0; i < count && i < MAX_DEVICES; i++) {
        const source_device_info *d = &dev[i];
        int in = d->max_input_channels > 0, out = d->max_output_channels > 0;
        char def[40];
        snprintf(def, sizeof def, "%s%s%s", d->is_default || d->is_default_output ? "  (default" : "",
                 d->is_default && d->is_default_output ? "" : d->is_default ? " input" : d->is_default_output ? " output" : "",
                 d->is_default || d->is_default_output ? ")" : "");
        printf("%5d  %-40s %-10s %-6s %8d %10.0f%s\n", d->index, d->name, d->host_api,
               in && out ? "in+out" : in ? "in" : "out", in ? d->max_input_channels : d->max_output_channels,
               d->default_rate, def);
    }
    return stdout_written();
}

int main(int argc, char **argv)
{
    cli_options o;
    analyze_result res;
    sp_errinfo ei = {{0}};
    int err;

    sp_set_field_namer(cli_field_option); /* the engine's fields, as options in messages */
    err = cli_parse(argc, argv, &o, &ei);

    if (err != SP_OK)
        return fail(err, &ei);
    if (o.help) {
        cli_usage(stdout);
        return stdout_written();
    }
    if (o.version) {
        app_print_version(stdout);
        return stdout_written();
    }
    if (o.list_devices)
        return list_devices();
    if ((err = app_env_read(&o.an, &o.run, &ei)) != SP_OK)
        return fail(err, &ei);
    install_signals();
    o.run.stop = &stop_requested;
    o.run.out = stdout;
    o.run.progress = !o.quiet && isatty(STDERR_FILENO);
    if (o.batch)
        return batch_main(&o);
    if ((err = batch_expand_single(&o, &ei)) != SP_OK || (err = app_check_files(&o.an, &ei)) != SP_OK)
        return fail(err, &ei);

    if (!o.headless && (err = check_input(&o.an, &ei)) != SP_OK)
        return fail(err, &ei);
    if (o.headless) {
        o.run.last_run = 1;
        err = analyze_run(&o.an, &o.run, &res, &ei);
    } else {
        view_config vc = view_config_default();
        app_env_view(&vc);
        vc.tone = o.view_tone;
        vc.average = o.view_average;
        vc.bands = o.view_bands;
        vc.bands_weighting = o.an.measure.weighting;
        vc.output_device = o.output_device;
        err = view_run(&o.an, &o.run, &vc, &res, &ei);
    }
    if (err != SP_OK && app_stop_asked(&o.run))
        err = SP_EINTERRUPTED;
    if (err != SP_OK && err != SP_EINTERRUPTED && app_reader_gone())
        return 0; /* the reader took what it wanted (| head): quiet, as `yes | head` */
    if (err != SP_OK)
        return fail_run(err, &ei, &o);
    if (!o.quiet) {
        int noted = 0;
        app_report_fallback(&res, o.verbose, &noted);
        app_report_warnings(&res);
    }
    if (o.verbose)
        app_report_verbose(&res);
    /* a live run that a signal ended kept its outputs, and still says it was stopped (the
     * window's own quit stops it the same way, but no signal came: 0) */
    return res.interrupted && atomic_load(&stop_requested) ? app_interrupted_code(&o.run) : 0;
}
