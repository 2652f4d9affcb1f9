#include "job_report.h"

#include <poll.h>
#include <stdio.h>
#include <unistd.h>

/* "--bands 3: 2 bands too narrow for -n 4096 left out ...: 19.95, 25.12 Hz", or their
 * range when they are many: what a sidecar lists, for a run whose sidecar is not read (or
 * not written: --dump -). */
static void report_unresolved(const job *j, const analyze_result *res)
{
    enum { LIST_MAX = 16 };
    size_t n = res->bands_unresolved, listed = n < ANALYZE_MAX_UNRESOLVED ? n : ANALYZE_MAX_UNRESOLVED, at = 0;
    char list[LIST_MAX * 16 + 32];
    if (listed > LIST_MAX)
        snprintf(list, sizeof list, " %.4g to %.4g", res->bands_unresolved_hz[0], res->bands_unresolved_hz[listed - 1]);
    for (size_t i = 0; listed <= LIST_MAX && i < listed && at < sizeof list; i++)
        at += (size_t)snprintf(list + at, sizeof list - at, "%s %.4g", i ? "," : "", res->bands_unresolved_hz[i]);
    job_say(j, JOB_SAY_NOTE,
            "note: %s: " SP_FIELD("fraction") " %d: %zu band%s too narrow for " SP_FIELD("fft_size") " %zu left out (a "
            "larger " SP_FIELD("fft_size") " resolves %s):%s Hz",
            res->info.name, res->bands_fraction, n, n == 1 ? "" : "s", res->n, n == 1 ? "it" : "them",
            listed ? list : "");
}

/* An input shorter than N: one zero-padded frame. Known ahead, its window was the L-point
 * one (analyze.h short_samples); found only at its end (a pipe), it had the n-point window
 * cut short, whose levels read low: the note says which, and the -n that fits. */
static void report_short(const job *j, const analyze_result *res)
{
    size_t fit = 1;
    while (fit * 2 <= res->samples)
        fit *= 2;
    if (res->short_samples)
        job_say(j, JOB_SAY_NOTE,
                "note: %s: %llu samples, fewer than " SP_FIELD("fft_size") " %zu: one frame, zero-padded, windowed "
                "over the "
                "samples present, at %.6g s",
                res->info.name, (unsigned long long)res->short_samples, res->n,
                res->start_s + (double)res->short_samples / 2.0 / res->info.rate);
    else if (fit >= 16) /* FFT_MIN_SIZE */
        job_say(j, JOB_SAY_NOTE,
                "note: %s: %llu samples, fewer than " SP_FIELD("fft_size") " %zu, known only at its end: one frame, "
                "zero-padded "
                "with the %zu-point window cut short, whose levels read low (" SP_FIELD("fft_size") " %zu analyses it "
                "whole)",
                res->info.name, (unsigned long long)res->samples, res->n, res->n, fit);
    else
        job_say(j, JOB_SAY_NOTE,
                "note: %s: %llu samples, fewer than " SP_FIELD("fft_size") " %zu, known only at its end: one frame, "
                "zero-padded "
                "with the %zu-point window cut short, whose levels read low",
                res->info.name, (unsigned long long)res->samples, res->n, res->n);
}

void job_report_warnings(const job *j, const analyze_result *res)
{
    if (res->short_samples || (res->samples > 0 && res->samples < res->n && (!res->live || res->info.pipe)))
        report_short(j, res);
    if (res->bands_unresolved)
        report_unresolved(j, res);
    if (res->truncated)
        job_say(j, JOB_SAY_WARNING, "warning: %s: the file ends early (truncated?); analysed the %llu samples present",
                res->info.name, (unsigned long long)res->samples);
    if (res->nonfinite)
        job_say(j, JOB_SAY_WARNING, "warning: %s: %llu NaN/Inf samples replaced by 0", res->info.name,
                (unsigned long long)res->nonfinite);
    if (res->out_of_range)
        job_say(j, JOB_SAY_WARNING,
                "warning: %s: %llu samples out of range (finite, beyond a float's 3.4e38) clamped to it",
                res->info.name, (unsigned long long)res->out_of_range);
    if (res->dropped)
        job_say(j, JOB_SAY_WARNING, "warning: %s: %llu samples per channel dropped (the analysis fell behind)",
                res->info.name, (unsigned long long)res->dropped);
}

void job_report_clipped(const job *j, const analyze_result *res)
{
    if (res->fmax_clipped > 0)
        job_say(j, JOB_SAY_INFO, "%s: " SP_FIELD("fmax") " %g Hz is above the Nyquist frequency: clipped to %g Hz",
                res->info.name, res->fmax_clipped, res->info.rate / 2.0);
}

void job_report_fallback(const job *j, const analyze_result *res, int verbose, int *noted)
{
    int gpu_failed = res->choice.made && res->choice.kind == FFT_BACKEND_CUDA && res->choice.device;
    if (!res->fallback[0] || *noted || !(verbose || gpu_failed))
        return;
    job_say(j, JOB_SAY_NOTE, "note: using the cpu backend: %s", res->fallback);
    *noted = 1;
}

void job_report_verbose(const job *j, const analyze_result *res)
{
    /* frames analysed; what a skip-ahead passed over is counted apart (res->frames is the
     * index reached, skips included) */
    char skipped[64] = "";
    if (res->frames_skipped)
        snprintf(skipped, sizeof skipped, " (%llu skipped)", (unsigned long long)res->frames_skipped);
    job_say(j, JOB_SAY_INFO,
            "%s: %s, %d Hz, %d channel%s; N=%zu hop=%zu window=%s backend=%s batch=%zu; "
            "%llu frames%s in %.3f s (%.1fx real time)",
            res->info.name, res->info.format, res->info.rate, res->info.channels, res->info.channels == 1 ? "" : "s",
            res->n, res->hop, res->window, res->backend, res->batch,
            (unsigned long long)(res->frames - res->frames_skipped), skipped, res->seconds,
            res->seconds > 0 ? (double)res->samples / res->info.rate / res->seconds : 0.0);
    if (res->choice.made) {
        char line[320];
        fft_choice_format(&res->choice, line, sizeof line);
        job_say(j, JOB_SAY_INFO, "backend: %s", line);
    }
    if (res->start_s > 0)
        job_say(j, JOB_SAY_INFO, SP_FIELD("start") ": %.6f s, %s", res->start_s,
                res->start_sought ? "sought (the input's own seek)" : "read up to it from the start");
    if (res->maxima_span)
        job_say(j, JOB_SAY_INFO, "picture: the maxima of every %llu frames computed beside the FFT (%s)",
                (unsigned long long)res->maxima_span, res->backend);
    job_report_clipped(j, res);
    job_say(j, JOB_SAY_INFO, "time: %.3f s making the %s plan, %.3f s in FFT calls, %.3f s in output, "
                    "%.3f s waiting for input",
            res->plan_s, res->backend, res->fft_s, res->sink_s, res->wait_s);
}

int job_stop_asked(const analyze_context *ctx)
{
    return ctx->stop && atomic_load(ctx->stop) != 0;
}

const char *job_message(int err, const sp_errinfo *ei)
{
    return ei && ei->msg[0] ? ei->msg : sp_strerror(err);
}

int job_reader_gone(FILE *out)
{
    struct pollfd p = {fileno(out ? out : stdout), 0, 0};
    return poll(&p, 1, 0) == 1 && (p.revents & (POLLERR | POLLHUP)) != 0;
}
