#include "report.h"

#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

/* "--bands 3: 2 bands too narrow for -n 4096 left out ...: 19.95, 25.12 Hz", or their
 * range when they are many: what a sidecar lists, for a run whose sidecar is not read (or
 * not written: --dump -). */
static void report_unresolved(const analyze_result *res)
{
    enum { LIST_MAX = 16 };
    size_t n = res->bands_unresolved, listed = n < ANALYZE_MAX_UNRESOLVED ? n : ANALYZE_MAX_UNRESOLVED;
    fprintf(stderr, "spectro: note: %s: --bands %d: %zu band%s too narrow for -n %zu left out (a larger -n resolves "
                    "%s):", res->info.name, res->bands_fraction, n, n == 1 ? "" : "s", res->n, n == 1 ? "it" : "them");
    if (listed > LIST_MAX) {
        fprintf(stderr, " %.4g to %.4g Hz\n", res->bands_unresolved_hz[0], res->bands_unresolved_hz[listed - 1]);
        return;
    }
    for (size_t i = 0; i < listed; i++)
        fprintf(stderr, "%s %.4g", i ? "," : "", res->bands_unresolved_hz[i]);
    fprintf(stderr, " Hz\n");
}

/* An input shorter than N: one zero-padded frame. Known ahead, its window was the L-point
 * one (analyze.h short_samples); found only at its end (a pipe), it had the n-point window
 * cut short, whose levels read low: the note says which, and the -n that fits. */
static void report_short(const analyze_result *res)
{
    size_t fit = 1;
    while (fit * 2 <= res->samples)
        fit *= 2;
    if (res->short_samples)
        fprintf(stderr,
                "spectro: note: %s: %llu samples, fewer than -n %zu: one frame, zero-padded, windowed over the "
                "samples present, at %.6g s\n",
                res->info.name, (unsigned long long)res->short_samples, res->n,
                res->start_s + (double)res->short_samples / 2.0 / res->info.rate);
    else if (fit >= 16) /* FFT_MIN_SIZE */
        fprintf(stderr,
                "spectro: note: %s: %llu samples, fewer than -n %zu, known only at its end: one frame, zero-padded "
                "with the %zu-point window cut short, whose levels read low (-n %zu analyses it whole)\n",
                res->info.name, (unsigned long long)res->samples, res->n, res->n, fit);
    else
        fprintf(stderr,
                "spectro: note: %s: %llu samples, fewer than -n %zu, known only at its end: one frame, zero-padded "
                "with the %zu-point window cut short, whose levels read low\n",
                res->info.name, (unsigned long long)res->samples, res->n, res->n);
}

void app_report_warnings(const analyze_result *res)
{
    if (res->short_samples || (res->samples > 0 && res->samples < res->n && (!res->live || res->info.pipe)))
        report_short(res);
    if (res->bands_unresolved)
        report_unresolved(res);
    if (res->truncated)
        fprintf(stderr, "spectro: warning: %s: the file ends early (truncated?); analysed the %llu samples present\n",
                res->info.name, (unsigned long long)res->samples);
    if (res->nonfinite)
        fprintf(stderr, "spectro: warning: %s: %llu NaN/Inf samples replaced by 0\n", res->info.name,
                (unsigned long long)res->nonfinite);
    if (res->out_of_range)
        fprintf(stderr,
                "spectro: warning: %s: %llu samples out of range (finite, beyond a float's 3.4e38) clamped to it\n",
                res->info.name, (unsigned long long)res->out_of_range);
    if (res->dropped)
        fprintf(stderr, "spectro: warning: %s: %llu samples per channel dropped (the analysis fell behind)\n",
                res->info.name, (unsigned long long)res->dropped);
}

void app_report_clipped(const analyze_result *res)
{
    if (res->fmax_clipped > 0)
        fprintf(stderr, "spectro: %s: --fmax %g Hz is above the Nyquist frequency: clipped to %g Hz\n",
                res->info.name, res->fmax_clipped, res->info.rate / 2.0);
}

void app_report_fallback(const analyze_result *res, int verbose, int *noted)
{
    int gpu_failed = res->choice.made && res->choice.kind == FFT_BACKEND_CUDA && res->choice.device;
    if (!res->fallback[0] || *noted || !(verbose || gpu_failed))
        return;
    fprintf(stderr, "spectro: note: using the cpu backend: %s\n", res->fallback);
    *noted = 1;
}

void app_report_verbose(const analyze_result *res)
{
    /* frames analysed; what a skip-ahead passed over is counted apart (res->frames is the
     * index reached, skips included) */
    char skipped[64] = "";
    if (res->frames_skipped)
        snprintf(skipped, sizeof skipped, " (%llu skipped)", (unsigned long long)res->frames_skipped);
    fprintf(stderr,
            "spectro: %s: %s, %d Hz, %d channel%s; N=%zu hop=%zu window=%s backend=%s batch=%zu; "
            "%llu frames%s in %.3f s (%.1fx real time)\n",
            res->info.name, res->info.format, res->info.rate, res->info.channels, res->info.channels == 1 ? "" : "s",
            res->n, res->hop, res->window, res->backend, res->batch,
            (unsigned long long)(res->frames - res->frames_skipped), skipped, res->seconds,
            res->seconds > 0 ? (double)res->samples / res->info.rate / res->seconds : 0.0);
    if (res->choice.made) {
        char line[320];
        fft_choice_format(&res->choice, line, sizeof line);
        fprintf(stderr, "spectro: backend: %s\n", line);
    }
    if (res->start_s > 0)
        fprintf(stderr, "spectro: --start: %.6f s, %s\n", res->start_s,
                res->start_sought ? "sought (the input's own seek)" : "read up to it from the start");
    if (res->maxima_span)
        fprintf(stderr, "spectro: picture: the maxima of every %llu frames computed beside the FFT (%s)\n",
                (unsigned long long)res->maxima_span, res->backend);
    app_report_clipped(res);
    fprintf(stderr, "spectro: time: %.3f s making the %s plan, %.3f s in FFT calls, %.3f s in output, "
                    "%.3f s waiting for input\n",
            res->plan_s, res->backend, res->fft_s, res->sink_s, res->wait_s);
}

int app_stop_asked(const analyze_context *ctx)
{
    return ctx->stop && atomic_load(ctx->stop) != 0;
}

int app_interrupted_code(const analyze_context *ctx)
{
    int sig = ctx->stop ? atomic_load(ctx->stop) : 0;
    return 128 + (sig > 0 ? sig : SIGINT);
}

const char *app_message(int err, const sp_errinfo *ei, char *buf, size_t len)
{
    snprintf(buf, len, "%s", ei && ei->msg[0] ? ei->msg : sp_strerror(err));
    sp_render_fields(buf, len);
    return buf;
}

int app_reader_gone(void)
{
    struct pollfd p = {STDOUT_FILENO, 0, 0};
    return poll(&p, 1, 0) == 1 && (p.revents & (POLLERR | POLLHUP)) != 0;
}
