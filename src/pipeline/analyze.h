/* analyze: one analysis run from a source to the sinks.
 *
 *   file, synth: reader thread: source_read -> ring (blocks while the ring is full: files
 *               never lose a sample)
 *   microphone: PortAudio's callback -> ring (never blocks; what does not fit is counted)
 *   --realtime: reader thread paced at the file's own rate -> ring (like a microphone)
 *   then, on the calling thread: ring -> stft (frames, window, FFT backend, dB) -> sinks
 *   (dump, peaks, PNG renderer, and a caller's sink such as the window).
 *
 * Live runs (microphone, --realtime, a pipe) use small batches and analyse every complete
 * frame at once. When the analysis falls behind, the microphone and --realtime skip to
 * fresh audio and count what they skipped, so the display stays live; a pipe is never
 * skipped (its writer waits for us), so it gives the same spectra as the file would.
 * Memory is bounded by the ring and the batch.
 *
 * A time range (--start, --end or --duration) seeks where the source can and reads up to
 * the start where it cannot; frame times stay absolute (the first is at start + N/2/rate).
 */
#ifndef SPECTRO_ANALYZE_H
#define SPECTRO_ANALYZE_H

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

#include "err.h"
#include "fft.h"
#include "progress.h"
#include "render.h"
#include "sink.h"
#include "sink_table.h"
#include "source.h"
#include "stft.h"
#include "window.h"
#include "xform.h"

struct analyze_result_s;

#define ANALYZE_MAX_OUTPUTS 8
#define ANALYZE_MAX_UNRESOLVED 128 /* more than any range has bands (1/12 octave, 20 Hz-20 kHz: 120) */

/* What one run computes: the user's settings (the command line's rows fill it, the window
 * copies it), nothing of how the run is driven (analyze_context). Plain values and borrowed
 * strings: a copy is a complete config. */
typedef struct {
    const char *input;     /* a file path ("-" too), "synth:..." (source_synth_parse); NULL =
                            * the microphone: the source kinds' table picks by the form */
    const char *device;    /* microphone: index or name substring, NULL = default */
    int rate, channels;    /* microphone: 0 = the device's defaults */
    int realtime;          /* stream the file through the live path at its own rate */
    double duration;       /* seconds of audio to analyse; 0 = all of it / until stopped */
    double start;          /* seconds into the input where the analysis begins (not the
                            * microphone); rounded to the nearest sample */
    double end;            /* seconds into the input where it stops, 0 = none (not with
                            * duration); past the end of the audio: SP_EINVAL */
    source_file_options file; /* files and pipes: --raw-format, --stream */
    size_t n;              /* FFT size */
    size_t hop;            /* 0 = n/4 */
    window_spec window;
    xform_spec xform;      /* a transform of the spectra (docs/transforms.md); kind
                            * XFORM_NONE: the linear spectrum */
    int channel;           /* STFT_CHANNEL_MIX, STFT_CHANNEL_ALL, or an index */
    fft_backend_kind backend;
    fft_tuning fft_tuning; /* the backends' tuning (fft.h), 0 = defaults */
    /* The outputs, one per kind at most (analyze_set_output): {"dump", path}, {"png",
     * path}, {"peaks", NULL}; sink_table.h lists the kinds. Paths are borrowed. */
    sink_request outputs[ANALYZE_MAX_OUTPUTS];
    int n_outputs;
    double peak_fmin, peak_fmax; /* Hz range searched for peaks; 0 = whole spectrum */
    sink_measure measure;  /* --average, --psd, --tone: the "average", "average-png" and
                            * "tone" outputs read it (sink_table.h) */
    render_config render;  /* the picture (--png, the window); title NULL = made from the
                            * source and the settings */
    size_t batch;          /* frames per FFT call, 0 = chosen from n and the channels */
} analyze_config;

/* How one run is driven, apart from what it computes: where text goes, who may stop it, the
 * caller's own sinks, the bar, and the tests' hooks. The caller's; borrowed for the run.
 * NULL where a function takes one: analyze_context_default(). */
typedef struct {
    FILE *out;             /* peaks, tone lines; NULL = stdout */
    int label_inputs;      /* peaks: the input as a first column (a run over several files) */
    int progress;          /* draw a progress bar on stderr */
    int last_run;          /* the process analyses nothing after this run (spectro's one
                            * headless run): once the last frames are out, the framer and
                            * the FFT plan, with a GPU's device (fft_plan_destroy_last), go
                            * on a thread of their own while the outputs finish; a reduction-
                            * only GPU run of many calls makes bigger ones. No run may follow
                            * it in the process. */
    atomic_int *stop;      /* non-zero stops the run (a signal handler or another thread
                            * sets it); may be NULL */
    /* Sinks of the caller's own (the window), called before those made from the outputs and
     * finished after them: borrowed (the caller destroys them); the run calls open,
     * spectra/peaks, and finish or abort (sink.h). */
    const sink *extra_sinks;
    int n_extra_sinks;
    /* When not NULL, receives (before the first sink call) the monotonic time, in
     * sp_now() seconds, at which sample 0 was captured: sample i was captured at
     * *capture_anchor + i/rate. Live runs only; the window measures capture-to-pixel
     * latency with it. Written and read on the analysis thread (in the sink). */
    double *capture_anchor;
    /* Hooks for the tests, not settings (main sets them from SPECTRO_TEST_*): after
     * `stall_at` seconds of audio, the analysis sleeps `stall_for` seconds once (a stalled
     * consumer: the live path must count drops and catch up). maxima: ANALYZE_TEST_MAXIMA_*,
     * which backends give the sinks that take them column maxima (sink.h maxima_span). */
    struct {
        double stall_at, stall_for;
        int maxima;
    } test;
} analyze_context;

/* analyze_context.test.maxima: column maxima from a backend that reduces columns (a GPU's),
 * from any backend (made on the host where it does not: that path without a GPU), or
 * never (every sink gets the spectra: the reduction off, to compare with). */
enum { ANALYZE_TEST_MAXIMA_DEVICE, ANALYZE_TEST_MAXIMA_HOST, ANALYZE_TEST_MAXIMA_OFF };

analyze_config analyze_config_default(void);
analyze_context analyze_context_default(void);

/* Asks for an output of `kind` (a row of sink_table.h) at `path`, replacing the one of that
 * kind asked for before (the command line's last --dump wins). SP_EINVAL for an unknown
 * kind or a full list. */
int analyze_set_output(analyze_config *c, const char *kind, const char *path, sp_errinfo *ei);

typedef struct analyze_result_s {
    source_info info;
    char backend[16];
    uint64_t maxima_span;  /* > 0: the backend reduced the picture's spectra to the maxima of
                            * groups of this many frames beside the FFT (sink.h maxima_span) */
    char fallback[512];    /* why auto could not use the GPU ("" if it did, if the cpu was
                            * the faster choice, or if a backend was named) */
    fft_choice choice;     /* --backend auto: what it weighed and chose (fft_choice_format);
                            * choice.made 0 for a named backend */
    char window[64];
    size_t n, hop, batch;
    int out_channels;
    int live;              /* microphone, --realtime or a pipe */
    double start_s;        /* where the analysis began in the input (the sample's time) */
    int start_sought;      /* --start: reached by the input's own seek (else read up to it) */
    uint64_t frames;       /* per output channel (frame index reached, skips included) */
    uint64_t frames_skipped; /* of those, indices a skip-ahead passed over (never analysed) */
    uint64_t samples;      /* per channel, as read */
    uint64_t short_samples; /* > 0: the input was known to hold this many samples, fewer than
                             * n: one zero-padded frame, windowed over them (the L-point
                             * window), its time their centre. 0 otherwise */
    uint64_t nonfinite;
    uint64_t out_of_range; /* finite samples beyond float's range, clamped to +-FLT_MAX */
    uint64_t dropped;      /* live: samples per channel lost (device overflow + skipped) */
    /* a bands output: the bands too narrow for the FFT, not reported (sink_bands_unresolved):
     * how many, and the mid frequencies of the first ANALYZE_MAX_UNRESOLVED, rising */
    size_t bands_unresolved;
    double bands_unresolved_hz[ANALYZE_MAX_UNRESOLVED];
    int bands_fraction;    /* the bands' 1/b octave, for the message */
    int truncated;
    double fmax_clipped;   /* > 0: the top of a frequency range asked for (render.fmax,
                            * peak_fmax, measure.band_hi) lay above the Nyquist frequency
                            * (info.rate / 2), where every output clipped it: that top */
    int interrupted;       /* a live run stopped by a signal (a normal end) */
    double seconds;        /* wall time of the run */
    /* where the analysis thread's time went (--verbose): making the FFT plan (a GPU's
     * start-up included), FFT calls, the sinks (dump, peaks, picture), waiting for input */
    double plan_s, fft_s, sink_s, wait_s;
} analyze_result;

/* Runs the analysis. On failure no output is left that looks finished. res is filled as far as
 * the run got (it may be NULL). */
int analyze_run(const analyze_config *cfg, const analyze_context *ctx, analyze_result *res, sp_errinfo *ei);

/* ---- sessions: many inputs, one plan -----------------------------------------------------
 *
 * A session runs the config's analysis over one input after another (a batch of files):
 * the FFT plan (on a GPU: the context, plans and device buffers) and the framer are made
 * for the first input and reused by every later one of the same shape (channels, live or
 * not), and the next input is opened and decoded on a reader thread while the current one
 * is analysed. analyze_run is a session of one run.
 *
 *   analyze_session_create(&cfg, &ctx, &s, &ei);
 *   for each input i:
 *       analyze_session_next(s, i + 1 < n ? input[i + 1] : NULL);   (read ahead: optional)
 *       err = analyze_session_run(s, input[i], outputs_of(i), n_outputs, &res, &ei);
 *   analyze_session_destroy(s);
 *
 * A run that fails leaves no output behind and does not end the session: the next run
 * starts afresh (the plan is kept). Thread safety: one thread drives a session. */
typedef struct analyze_session analyze_session;

/* Copies cfg and ctx (NULL: the defaults; their strings and sinks stay borrowed; input and
 * outputs are per run). */
int analyze_session_create(const analyze_config *cfg, const analyze_context *ctx, analyze_session **out,
                           sp_errinfo *ei);
void analyze_session_destroy(analyze_session *s); /* NULL is a no-op */

/* The runs update this bar (progress_begin_files), owned by the caller, instead of drawing
 * one per run: each run announces its file (progress_file) and ends it (progress_file_done). */
void analyze_session_set_progress(analyze_session *s, progress *pg);

/* The input the next run will analyse (borrowed until then; NULL = none): it is opened and
 * read ahead once the current run's input has been read. */
void analyze_session_next(analyze_session *s, const char *input);

/* Analyses `input` into the outputs (as analyze_config.outputs; paths borrowed for the run),
 * like analyze_run with the session's config. */
int analyze_session_run(analyze_session *s, const char *input, const sink_request *outputs, int n_outputs,
                        analyze_result *res, sp_errinfo *ei);

/* The same run on a source already open (cfg->input, device, rate and channels are not
 * read): the fuzz target's way in, with a file held in memory (source_open_memory). The
 * run takes src and closes it, also on failure. */
int analyze_run_source(const analyze_config *cfg, const analyze_context *ctx, source *src, analyze_result *res,
                       sp_errinfo *ei);

/* Frames per FFT call for a file analysis: large enough to keep the backend busy, small
 * enough that buffers stay within a few tens of MB per run. `reduced`: a GPU run whose
 * outputs all take the device's reductions (sink_kind.reduces), where few values a frame
 * come back and bigger calls pay (an hour's picture: 330 calls of 2047 frames took 0.12 s
 * after the decoding, 83 of 8192 0.05 s on the lent H100). */
size_t analyze_auto_batch(size_t n, size_t hop, int out_channels, int gpu, int reduced);
/* The batch of a run whose frames go to a transform on the host (the framer's frames, no
 * spectra: stft_set_frames): as many frames as a span of about 1M samples a channel holds
 * (the transform's rows are few; bigger calls share out over the pool's threads better and
 * copy less of the frames' overlap), at least 1. */
size_t analyze_frames_batch(size_t n, size_t hop, int out_channels);

#endif
