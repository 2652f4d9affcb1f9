/* sink: where spectra go. Every output kind (the .npy/.csv dump, --peaks, the PNG picture,
 * the window) fills one sink_ops table; the pipeline (analyze_run) runs one source into a
 * list of sinks and calls each through it (sink_table.h lists the output kinds and the
 * order of the calls):
 *
 *   open     once, after the source is open and the FFT plan made, before the first frame;
 *            the sink says what it needs (sink_wants)
 *   spectra  every dB spectrum, in blocks of frames of one output channel   (wants.spectra)
 *   peaks    one peak record per frame and output channel                   (wants.peaks)
 *   complex  every frame's windowed transform, in blocks of frames of one   (wants.complex)
 *            output channel, the channels of a block one after another
 *   samples  the input's samples themselves, every source channel interleaved, in the
 *            order read and before any framing                             (wants.samples)
 *   settle   (optional) after the last frame, before finish: the framer's blocks are about
 *            to be freed; return once no thread of the sink reads one (needed by a sink
 *            that hands blocks to a thread of its own)
 *   finish   the run ended well: complete the output (rename it into place, flush ...)
 *   abort    the run failed, here or in another sink, before or after this sink's finish:
 *            leave nothing that looks finished
 *   destroy  free everything (after finish or abort; also when open was never called)
 *
 * What a sink needs is a declaration, not a callback of its own making: a reduction that a
 * sink declares (the peak of each frame, ...) is computed by the pipeline beside the FFT,
 * where the spectra are, so that a backend can compute it on the device and hand over only
 * the reduced records.
 *
 * Thread safety: all calls come from the analysis thread, one at a time. A sink may hand a
 * block of spectra to a thread of its own if, in its next call (settle included), it waits
 * until that thread is done with it (the framer keeps a block unchanged until the next call
 * returns).
 */
#ifndef SPECTRO_SINK_H
#define SPECTRO_SINK_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "fft.h"
#include "peaks.h"

/* What the run is: told to every sink at open. Strings live until destroy. */
typedef struct {
    const char *source;        /* the input's name: a path, "microphone", "synth:..." */
    const char *format;        /* e.g. "WAV 24-bit PCM" */
    const char *decoder;       /* "libsndfile", "ffmpeg"; "" when none (microphone, synth) */
    double start_s;            /* --start: where in the input the analysis began (0: at its
                                * start); time_first_s counts from the input's start */
    int rate;                  /* Hz */
    int source_channels;
    int channels;              /* output channels: 1, or source_channels (--channel all) */
    int channel;               /* the channel analysed, when channel_name is NULL */
    const char *channel_name;  /* "mix" or "all", else NULL */
    size_t n, hop, bins;       /* FFT size, frame step, n/2+1 */
    const char *window;        /* canonical text, e.g. "hann", "kaiser:8.6" */
    const float *window_coef;  /* its n coefficients, as the FFT uses them (for the
                                * measurements' ENBW and lobe width); valid during open */
    const char *backend;       /* the FFT backend running: "cpu", "cuda", "cufft" */
    double time_first_s;       /* frame f is at time_first_s + f*time_step_s (its centre) */
    double time_step_s;
    double bin_hz;
    int64_t source_frames;     /* samples per channel the source promises; -1 unknown */
    int64_t frames_expected;   /* per output channel within --duration; -1 unknown (live,
                                * or no length) */
    int64_t frames_hint;       /* as frames_expected, also in a live run (a file streamed
                                * with --realtime): what to size a picture for, no promise */
    const char *level_unit;    /* "dB SPL" (--spl-offset), NULL: dBFS */
    int live;                  /* microphone, --realtime or a pipe: no length known ahead;
                                * frames may be skipped (not from a pipe) */
    double aligned_s;          /* a pair of files (--reference): how much later the measured
                                * file was read from, to align it with the reference */
    /* A transform (docs/transforms.md): the rows are not spectra but `bins` columns of
     * `depth` values each (mel bands, MFCC coefficients ...). xform NULL: the linear spectrum. */
    const char *xform;         /* the transform's name: "mel", "mfcc", "chroma", "cqt", "reassign" */
    const char *xform_json;    /* its sidecar members: ",\n  \"transform\": {...} ..." */
    const double *col_hz;      /* bins values: the columns' frequencies (mfcc: the indices) */
    size_t depth;              /* values a column: 1 (0 reads as 1); reassign 3 (Hz, s, dB) */
    int xform_db;              /* the values are dB levels (a power mean averages them) */
} sink_stream;

/* What a sink needs, filled by its open. */
typedef struct {
    int spectra;               /* every dB spectrum */
    int peaks;                 /* the peak of each frame, searched in bins [peak_kmin, peak_kmax] */
    size_t peak_kmin, peak_kmax;
    /* with spectra: the sink also takes, instead of them, the per-bin maximum of aligned
     * groups of maxima_span frames (ops->maxima), which a GPU backend computes where the
     * spectra are (a picture's columns: only those rows cross the bus). The pipeline sends
     * one or the other, the same for every such sink of the run. 0: spectra only. */
    uint64_t maxima_span;
    /* every frame's windowed transform instead of its levels (ops->complex: the transfer
     * function, which needs two channels' phases): the framer's complex path, so a run
     * with such a sink has no other sink that wants spectra or peaks */
    int complex;
    /* the time-domain samples (a loudness meter): ops->samples gets every block read, all
     * source channels, whatever --channel picks for the spectra. A run whose sinks want
     * neither spectra nor peaks computes no FFT (docs/design.md "Data flow"). */
    int samples;
} sink_wants;

/* How the run ended: told to finish. */
typedef struct {
    uint64_t frames;           /* per output channel: the frame index reached, skips included */
    uint64_t samples;          /* per source channel, as read */
    uint64_t nonfinite_samples;
    uint64_t dropped_samples;  /* live input lost per channel */
    int truncated;             /* the file ended before its header said */
    int interrupted;           /* a live run stopped by a signal (a normal end) */
} sink_end;

typedef struct {
    const char *name;          /* "dump", "peaks", "png", "window": for messages */
    int (*open)(void *self, const sink_stream *st, sink_wants *wants, sp_errinfo *ei);
    /* nframes spectra of output channel `channel`, frames first .. first+nframes-1,
     * row-major db[f*bins + k]. In a live run, frame indices may jump (skipped frames). */
    int (*spectra)(void *self, int channel, uint64_t first, size_t nframes, const float *db, sp_errinfo *ei);
    /* the peaks of the same frames (NULL when the sink does not want them) */
    int (*peaks)(void *self, int channel, uint64_t first, size_t nframes, const peak *pk, sp_errinfo *ei);
    int (*finish)(void *self, const sink_end *end, sp_errinfo *ei);
    void (*abort)(void *self);
    void (*destroy)(void *self);
    /* instead of spectra, when the sink asked for maxima_span and the pipeline chose them:
     * rows[i*bins + k] is the maximum of bin k over the frames of group first/span + i that
     * lie in first .. first+nframes-1 (group g: frames [g*span, (g+1)*span); the first and
     * last row may be partial, the rest of their group coming in the neighbouring calls) */
    int (*maxima)(void *self, int channel, uint64_t first, size_t nframes, uint64_t span, const float *rows,
                  sp_errinfo *ei);
    int (*settle)(void *self, sp_errinfo *ei);
    /* with wants.complex: nframes transforms of output channel `channel`, frames first ..
     * first+nframes-1, z[f*bins + k] = sum_i w_i x_i e^(-2 pi i ik/n) (unscaled: the
     * framer's stft_complex_fn); a block's channels come in order, each in the same buffer,
     * which the next call overwrites */
    int (*complex)(void *self, int channel, uint64_t first, size_t nframes, const cpx *z, sp_errinfo *ei);
    /* nframes frames of source_channels interleaved samples, the first at sample `first`
     * of the stream (counted like frame times, from --start: a live run's skipped samples
     * make it jump) */
    int (*samples)(void *self, uint64_t first, size_t nframes, const float *x, sp_errinfo *ei);
} sink_ops;

/* A sink: its table and its state. */
typedef struct {
    const sink_ops *ops;
    void *self;
} sink;

#endif
