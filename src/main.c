/* spectro: the program. Parses the command line, runs the analysis, and is the only place
 * that prints errors and picks the exit code (0 ok, 1 runtime failure, 2 bad usage/input). */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "analyze.h"
#include "cli.h"

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
    (void)sig;
    stop_requested = 1;
}

static void install_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

int main(int argc, char **argv)
{
    cli_options o;
    analyze_result res;
    sp_errinfo ei = {{0}};
    int err = cli_parse(argc, argv, &o, &ei);

    if (err != SP_OK) {
        fprintf(stderr, "spectro: %s\n", ei.msg[0] ? ei.msg : sp_strerror(err));
        return sp_exit_code(err);
    }
    if (o.help) {
        cli_usage(stdout);
        return 0;
    }
    if (o.version) {
        printf("spectro %s\n", SPECTRO_VERSION);
        return 0;
    }
    install_signals();
    o.an.stop = &stop_requested;
    o.an.out = stdout;
    o.an.progress = !o.quiet && isatty(STDERR_FILENO);

    err = analyze_run(&o.an, &res, &ei);
    if (err != SP_OK) {
        fprintf(stderr, "spectro: %s\n", ei.msg[0] ? ei.msg : sp_strerror(err));
        return sp_exit_code(err);
    }
    if (!o.quiet) {
        if (res.fallback[0])
            fprintf(stderr, "spectro: note: using the cpu backend: %s\n", res.fallback);
        if (res.truncated)
            fprintf(stderr, "spectro: warning: %s: the file ends early (truncated?); analysed the %llu frames present\n",
                    res.info.name, (unsigned long long)res.samples);
        if (res.nonfinite)
            fprintf(stderr, "spectro: warning: %s: %llu NaN/Inf samples replaced by 0\n", res.info.name,
                    (unsigned long long)res.nonfinite);
    }
    if (o.verbose)
        fprintf(stderr,
                "spectro: %s: %s, %d Hz, %d channel%s; N=%zu hop=%zu window=%s backend=%s batch=%zu; "
                "%llu frames in %.3f s (%.1fx real time)\n",
                res.info.name, res.info.format, res.info.rate, res.info.channels, res.info.channels == 1 ? "" : "s",
                res.n, res.hop, res.window, res.backend, res.batch, (unsigned long long)res.frames, res.seconds,
                res.seconds > 0 ? (double)res.samples / res.info.rate / res.seconds : 0.0);
    return 0;
}
