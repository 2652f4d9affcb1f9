/* spectro: the program, a client of the library's public API (spectro.h): the command line
 * becomes a job (cli.c), which the library runs (headless, or a batch), or which runs the
 * program's window (src/view: the job's when it asks for no output). This is
 * the one place that prints errors and picks the exit code (0 ok, 1 runtime failure, 2 bad
 * usage or input, 130/143 interrupted by SIGINT/SIGTERM). */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "spectro.h"
#include "spectro_git.h"
#include "view.h"

/* set from the signal handler: a lock-free atomic, which C11 allows there */
_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "atomic_int must be lock-free");
static atomic_int stop_requested; /* the number of the signal that asked (interrupted_code) */
static spectro_job *the_job;

static void on_signal(int sig)
{
    atomic_store(&stop_requested, sig);
    spectro_job_stop(the_job, sig); /* one atomic store */
}

/* 128 + the signal that asked the run to stop: 130 for SIGINT, 143 for SIGTERM, as a shell
 * reports a command that the signal ended; 130 when none did. */
static int interrupted_code(void)
{
    int sig = atomic_load(&stop_requested);
    return 128 + (sig > 0 ? sig : SIGINT);
}

/* Standard output is a pipe or socket whose reader has gone (`spectro --peaks f | head -1`):
 * poll reports POLLERR on a pipe without readers (POLLHUP on a socket). */
static int reader_gone(void)
{
    struct pollfd p = {STDOUT_FILENO, 0, 0};
    return poll(&p, 1, 0) == 1 && (p.revents & (POLLERR | POLLHUP)) != 0;
}

/* The exit status of a failure (spectro.h's codes): 2 for what the user gave, 1 otherwise. */
static int exit_code(int code)
{
    return code == SPECTRO_EINVAL || code == SPECTRO_EINPUT ? 2 : code == SPECTRO_EINTERRUPTED ? interrupted_code() : 1;
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

/* One line on stderr. Generic lines from deep down ("out of memory", "interrupted",
 * "cannot start the reader thread") get the input's name in front, so that every line
 * names what it is about. A line said already (a batch's) is not said again. */
static int fail_run(const spectro_error *e, const cli_program *p)
{
    const char *name = p->input ? p->input : "microphone";
    const char *msg = e->message[0] ? e->message : spectro_strerror(e->code);
    int generic = e->code == SPECTRO_ENOMEM || strncmp(msg, "cannot start", 12) == 0;
    if (e->code == SPECTRO_EINTERRUPTED) {
        if (!p->batch)
            fprintf(stderr, "spectro: %s: interrupted\n", name);
        return interrupted_code();
    }
    if (!e->message[0] && p->batch)
        return exit_code(e->code);
    if (generic && !strstr(msg, name))
        fprintf(stderr, "spectro: %s: %s\n", name, msg);
    else
        fprintf(stderr, "spectro: %s\n", msg);
    return exit_code(e->code);
}

static int fail(const spectro_error *e)
{
    fprintf(stderr, "spectro: %s\n", e->message[0] ? e->message : spectro_strerror(e->code));
    return exit_code(e->code);
}

static int list_devices(void)
{
    enum { MAX_DEVICES = 256 };
    static spectro_device_info dev[MAX_DEVICES];
    spectro_error e = {0, ""};
    int count = 0;
    if (spectro_list_devices(dev, MAX_DEVICES, &count, &e) != SPECTRO_OK)
        return fail(&e);
    if (count == 0) {
        fprintf(stderr, "spectro: no audio device found\n");
        return 1;
    }
    /* channels: the input's, the output's for an output only */
    printf("%5s  %-40s %-10s %-6s %8s %10s\n", "index", "name", "host API", "dir", "channels", "rate");
    for (int i = 0; i < count && i < MAX_DEVICES; i++) {
        const spectro_device_info *d = &dev[i];
        int in = d->max_input_channels > 0, out = d->max_output_channels > 0;
        int di = d->is_default_input, dout = d->is_default_output;
        char def[40];
        snprintf(def, sizeof def, "%s%s%s", di || dout ? "  (default" : "",
                 di && dout ? "" : di ? " input" : dout ? " output" : "", di || dout ? ")" : "");
        printf("%5d  %-40s %-10s %-6s %8d %10.0f%s\n", d->index, d->name, d->host_api,
               in && out ? "in+out" : in ? "in" : "out", in ? d->max_input_channels : d->max_output_channels,
               d->default_rate, def);
    }
    return stdout_written();
}

/* The job's lines: "spectro: LINE" on stderr (the progress bar's line is the library's, and
 * it clears it first). */
static void say(void *user, int level, const char *line)
{
    (void)user;
    (void)level;
    fprintf(stderr, "spectro: %s\n", line);
}

static void print_version(void)
{
    printf("spectro %s (git %s)\nfeatures:\n%s", spectro_version(), SPECTRO_GIT_REV, spectro_features());
}

int main(int argc, char **argv)
{
    cli_program p;
    view_outcome shown = {0, {0, 0, 0, 0}}; /* what the window says of itself */
    spectro_error e = {0, ""};
    int code, rc;

    spectro_set_field_namer(cli_field_option); /* the library's fields, as options in messages */
    view_set_field_namer(cli_field_option);    /* and the window's own */
    if (spectro_job_create(&the_job, &e) != SPECTRO_OK)
        return fail(&e);
    if ((code = cli_parse(argc, argv, the_job, &p, &e)) != SPECTRO_OK) {
        rc = fail(&e);
    } else if (p.help) {
        cli_usage(stdout);
        rc = stdout_written();
    } else if (p.version) {
        print_version();
        rc = stdout_written();
    } else if (p.list_devices) {
        rc = list_devices();
    } else if (spectro_job_read_environment(the_job, &e) != SPECTRO_OK) {
        rc = fail(&e);
    } else {
        install_signals();
        spectro_job_set_messages(the_job, say, NULL);
        spectro_job_set_output(the_job, stdout);
        spectro_job_set_progress(the_job, !p.quiet && isatty(STDERR_FILENO));
        spectro_job_set_window(the_job, view_window, &shown); /* no output asked for: the window */
        code = spectro_job_run(the_job, &e);
        if (code != SPECTRO_OK && code != SPECTRO_EINTERRUPTED && atomic_load(&stop_requested))
            e.code = code = SPECTRO_EINTERRUPTED;
        if (code != SPECTRO_OK && code != SPECTRO_EINTERRUPTED && reader_gone())
            rc = 0; /* the reader took what it wanted (| head): quiet, as `yes | head` */
        else if (code != SPECTRO_OK)
            rc = fail_run(&e, &p);
        else if (shown.ran) /* closed by a signal: 128 + it where the signal stopped a live
                             * analysis, 0 where the file's was over */
            rc = shown.last.interrupted && atomic_load(&stop_requested) ? interrupted_code() : 0;
        else /* a live run that a signal ended kept its outputs, and still says it was
              * stopped (the window's own quit stops it the same way, but no signal came: 0) */
            rc = spectro_job_stopped(the_job) && atomic_load(&stop_requested) ? interrupted_code() : 0;
    }
    return rc;
}
