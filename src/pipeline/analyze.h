/* analyze: one analysis run from a source to the sinks.
 *
 *   file, synth: reader thread: source_read -> ring (blocks while the ring is full: files
 *               never lose a sample)
 *   microphone: PortAudio's callback -> ring (never blocks; what does not fit is counted)
 *   --realtime: reader thread paced at the file's own rate -> ring (like a microphone)
 *   then, on the calling thread: ring -> stft (frames, window, FFT backend, dB) -> sinks
 *   (dump, peaks, PNG renderer, and a caller's sink such as the window).
 *
 * Live runs (microphone, --realtime) use small batches and analyse every complete frame at
 * once; when the analysis falls behind it skips to fresh audio and counts what it skipped,
 * so the display stays live. Memory is bounded by the ring and the batch.
 */
#ifndef SPECTRO_ANALYZE_H
#define SPECTRO_ANALYZE_H

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

#include "err.h"
#include "fft.h"
#include "render.h"
#include "sink.h"
#include "sink_table.h"
#include "source.h"
#include "stft.h"
#include "window.h"

struct analyze_result_s;

#define ANALYZE_MAX_OUTPUTS 8

typedef struct {
    const char *input;     /* a file path ("-" too), "synth:..." (source_synth_parse); NULL =
                            * the microphone: the source kinds' table picks by the form */
    const char *device;    /* microphone: index or name substring, NULL = default */
    int rate, channels;    /* microphone: 0 = the device's defaults */
    int realtime;          /* stream the file through the live path at its own rate */
    double duration;       /* seconds of audio to analyse; 0 = all of it / until stopped */
    size_t n;              /* FFT size */
    size_t hop;            /* 0 = n/4 */
    window_spec window;
    int channel;           /* STFT_CHANNEL_MIX, STFT_CHANNEL_ALL, or an index */
    fft_backend_kind backend;
    fft_tuning fft_tuning; /* the backends' tuning (fft.h), 0 = defaults */
    /* The outputs, one per kind at most (analyze_set_output): {"dump", path}, {"png",
     * path}, {"peaks", NULL}; sink_table.h lists the kinds. Paths are borrowed. */
    sink_request outputs[ANALYZE_MAX_OUTPUTS];
    int n_outputs;
    double peak_fmin, peak_fmax; /* Hz range searched for peaks; 0 = whole spectrum */
    render_config render;  /* the picture (--png, the window); title NULL = made from the
                            * source and the settings */
    FILE *out;             /* peaks */
    int progress;          /* draw a progress bar on stderr */
    size_t batch;          /* frames per FFT call, 0 = chosen from n and the channels */
    atomic_int *stop;      /* non-zero stops the run (a signal handler or another thread
                            * sets it); may be NULL */
    /* Sinks of the caller's own (the window), called before those made from outputs[] and
     * finished after them: borrowed (the caller destroys them); the run calls open,
     * spectra/peaks, and finish or abort (sink.h). */
    const sink *extra_sinks;
    int n_extra_sinks;
    /* When not NULL, receives (before the first sink call) the monotonic time, in
     * sp_now() seconds, at which sample 0 was captured: sample i was captured at
     * *capture_anchor + i/rate. Live runs only; the window measures capture-to-pixel
     * latency with it. Written and read on the analysis thread (in the sink). */
    double *capture_anchor;
    const char *png_path;  /* obsolete and ignored: outputs[] holds the picture; kept until
                            * view.c, which clears it, no longer names it */
    /* Hooks for the tests, not settings (main sets them from SPECTRO_TEST_*): after
     * `stall_at` seconds of audio, the analysis sleeps `stall_for` seconds once (a stalled
     * consumer: the live path must count drops and catch up). */
    struct {
        double stall_at, stall_for;
    } test;
} analyze_config;

analyze_config analyze_config_default(void);

/* Asks for an output of `kind` (a row of sink_table.h) at `path`, replacing the one of that
 * kind asked for before (the command line's last --dump wins). SP_EINVAL for an unknown
 * kind or a full list. */
int analyze_set_output(analyze_config *c, const char *kind, const char *path, sp_errinfo *ei);

typedef struct analyze_result_s {
    source_info info;
    char backend[16];
    char fallback[512];    /* why auto did not use the GPU ("" if it did or was not asked) */
    char window[64];
    size_t n, hop, batch;
    int out_channels;
    int live;
    uint64_t frames;       /* per output channel (frame index reached, skips included) */
    uint64_t samples;      /* per channel, as read */
    uint64_t nonfinite;
    uint64_t dropped;      /* live: samples per channel lost (device overflow + skipped) */
    int truncated;
    int interrupted;       /* a live run stopped by a signal (a normal end) */
    double seconds;        /* wall time of the run */
    /* where the analysis thread's time went (--verbose): making the FFT plan (a GPU's
     * start-up included), FFT calls, the sinks (dump, peaks, picture), waiting for input */
    double plan_s, fft_s, sink_s, wait_s;
} analyze_result;

/* Runs the analysis. On failure no output is left that looks finished. res is filled as far as
 * the run got (it may be NULL). */
int analyze_run(const analyze_config *cfg, analyze_result *res, sp_errinfo *ei);

/* The same run on a source already open (cfg->input, device, rate and channels are not
 * read): the fuzz target's way in, with a file held in memory (source_open_memory). The
 * run takes src and closes it, also on failure. */
int analyze_run_source(const analyze_config *cfg, source *src, analyze_result *res, sp_errinfo *ei);

/* Frames per FFT call for a file analysis: large enough to keep the backend busy, small
 * enough that buffers stay within a few tens of MB per run. */
size_t analyze_auto_batch(size_t n, size_t hop, int out_channels, int gpu);

#endif
