/* spectro: the program. Parses the command line, runs the analysis (headless) or the
 * window, and is the only place that prints errors and picks the exit code (0 ok,
 * 1 runtime failure, 2 bad usage or input). */
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze.h"
#include "batch.h"
#include "cli.h"
#include "env.h"
#include "source.h"
#include "view.h"

/* set from the signal handler: a lock-free atomic, which C11 allows there */
_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "atomic_int must be lock-free");
static atomic_int stop_requested;

static void on_signal(int sig)
{
    (void)sig;
    atomic_store(&stop_requested, 1);
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

static int fail(int err, const sp_errinfo *ei)
{
    fprintf(stderr, "spectro: %s\n", ei->msg[0] ? ei->msg : sp_strerror(err));
    return sp_exit_code(err);
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
        fprintf(stderr, "spectro: no audio input device found\n");
        return 1;
    }
    printf("%5s  %-40s %-10s %8s %10s\n", "index", "name", "host API", "channels", "rate");
    for (int i = 0; i < count && i < MAX_DEVICES; i++)
        printf("%5d  %-40s %-10s %8d %10.0f%s\n", dev[i].index, dev[i].name, dev[i].host_api,
               dev[i].max_input_channels, dev[i].default_rate, dev[i].is_default ? "  (default)" : "");
    return 0;
}

/* SPECTRO_TEST_STALL=AT:FOR makes the analysis sleep FOR seconds once after AT seconds of
 * audio: the tests' way to stall the consumer of a live run. */
static void test_hooks(analyze_config *an)
{
    const char *stall = getenv("SPECTRO_TEST_STALL");
    if (stall && sscanf(stall, "%lf:%lf", &an->test.stall_at, &an->test.stall_for) != 2)
        an->test.stall_at = an->test.stall_for = 0;
}

int main(int argc, char **argv)
{
    cli_options o;
    analyze_result res;
    sp_errinfo ei = {{0}};
    int err = cli_parse(argc, argv, &o, &ei);

    if (err != SP_OK)
        return fail(err, &ei);
    if (o.help) {
        cli_usage(stdout);
        return 0;
    }
    if (o.version) {
        printf("spectro %s\n", SPECTRO_VERSION);
        return 0;
    }
    if (o.list_devices)
        return list_devices();
    if ((err = app_env_read(&o.an, &ei)) != SP_OK)
        return fail(err, &ei);
    install_signals();
    test_hooks(&o.an);
    o.an.stop = &stop_requested;
    o.an.out = stdout;
    o.an.progress = !o.quiet && isatty(STDERR_FILENO);
    if (o.batch)
        return batch_main(&o);
    if ((err = batch_expand_single(&o, &ei)) != SP_OK)
        return fail(err, &ei);

    err = o.headless ? analyze_run(&o.an, &res, &ei) : view_run(&o.an, &res, &ei);
    if (err != SP_OK)
        return fail(err, &ei);
    if (!o.quiet) {
        if (res.fallback[0])
            fprintf(stderr, "spectro: note: using the cpu backend: %s\n", res.fallback);
        if (res.truncated)
            fprintf(stderr, "spectro: warning: %s: the file ends early (truncated?); analysed the %llu samples present\n",
                    res.info.name, (unsigned long long)res.samples);
        if (res.nonfinite)
            fprintf(stderr, "spectro: warning: %s: %llu NaN/Inf samples replaced by 0\n", res.info.name,
                    (unsigned long long)res.nonfinite);
        if (res.dropped)
            fprintf(stderr, "spectro: warning: %s: %llu samples per channel dropped (the analysis fell behind)\n",
                    res.info.name, (unsigned long long)res.dropped);
    }
    if (o.verbose)
        fprintf(stderr,
                "spectro: %s: %s, %d Hz, %d channel%s; N=%zu hop=%zu window=%s backend=%s batch=%zu; "
                "%llu frames in %.3f s (%.1fx real time)\n",
                res.info.name, res.info.format, res.info.rate, res.info.channels, res.info.channels == 1 ? "" : "s",
                res.n, res.hop, res.window, res.backend, res.batch, (unsigned long long)res.frames, res.seconds,
                res.seconds > 0 ? (double)res.samples / res.info.rate / res.seconds : 0.0);
    if (o.verbose)
        fprintf(stderr, "spectro: time: %.3f s making the %s plan, %.3f s in FFT calls, %.3f s in output, "
                        "%.3f s waiting for input\n",
                res.plan_s, res.backend, res.fft_s, res.sink_s, res.wait_s);
    return 0;
}
