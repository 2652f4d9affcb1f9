/* The public API's own thin layer (src/api/): what its files share. Not a public header:
 * users include spectro.h only.
 *
 *   api.c           versions, errors (the engine's lines, options turned into the API's
 *                   field names), the name tables, where the loadable modules are
 *   api_source.c    spectro_source: a source of the engine's table with a time range
 *   api_analyzer.c  spectro_analyzer: an FFT plan and a framer (stft) kept across calls,
 *                   whole arrays and streams
 *   api_reduce.c    peaks, averages, tone analysis and bands of the analyzer's spectra
 *   api_average.c   spectro_average: running averages of spectra and their tone analysis
 *   api_transfer.c  the transfer function of two channels' complex frames, its values,
 *                   delay and snapshots
 *   api_reassign.c  spectro_reassign_grid: the reassigned points onto the frame x bin grid
 *                   (src/sink/reassign_grid.h)
 *   api_dump.c      spectro_dump: the program's --dump writer (src/sink/dump.h) for the
 *                   caller's spectra
 *   api_loudness.c  spectro_loudness: the loudness meter (src/sink/loudness.h), its step levels
 *   api_pitch.c     spectro_pitch_tracker: YIN a frame at a time (src/sink/pitch.h)
 *   api_job.c       spectro_job: the program's run (src/job/job.h); the settings as data,
 *                   the audio devices, the build's features
 */
#ifndef SPECTRO_API_INTERNAL_H
#define SPECTRO_API_INTERNAL_H

#include "err.h"
#include "fft.h"
#include "measure.h"
#include "peaks.h"
#include "sink.h"
#include "spectro.h"
#include "window.h"

/* Fills err (when not NULL) with code and the formatted line; returns code. */
int api_fail(spectro_error *err, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* The engine's failure (code, ei) as the API's: the line with every command-line option
 * name replaced by the field that sets it ("--hop 0: ..." -> "hop 0: ..."). Returns code. */
int api_from_engine(spectro_error *err, int code, const sp_errinfo *ei);

/* The loadable modules for this library: the build tree's (NULL: the engine's default)
 * when the library runs from there, else the ones installed beside it. */
const char *api_gpu_module(void);
const char *api_ffmpeg_module(void);
/* The label font installed with the library (share/spectro/fonts), or NULL from the build
 * tree (the renderer then finds the source tree's). Kept by the caller: a static buffer. */
const char *api_font(void);

/* A config struct's size as the caller gave it: SPECTRO_EINVAL unless it holds at least
 * the members of the first API version (min). */
int api_check_size(size_t size, size_t min, const char *what, spectro_error *err);

/* What the reductions read from an analyzer (api_analyzer.c). */
typedef struct {
    size_t n, bins;
    int rate;
    const float *win;       /* the window's n coefficients */
} api_frame_shape;

void api_analyzer_shape(const spectro_analyzer *a, api_frame_shape *out);
/* The rows of transform x (xform.h, made for the analyzer's n and rate) of a whole array:
 * out[channel][frame][width], out_frames a channel (api_xform.c's compute). */
struct xform;
int api_analyzer_transform(spectro_analyzer *a, struct xform *x, const float *samples, size_t count,
                           float *out, size_t out_frames, spectro_error *err);
/* Checks an analyzer config as spectro_analyzer_create does (the messages name its fields),
 * giving its window and backend. */
int api_analyzer_check_config(const spectro_analyzer_config *cfg, window_spec *w, fft_backend_kind *backend,
                              spectro_error *err);

/* What reductions made without an analyzer read from an analyzer config (api_average.c):
 * its output channels and the window's n coefficients (win: the caller's to free; the
 * given ones copied when coef is not NULL). */
typedef struct {
    int outs;
    size_t n, bins, hop;
    int rate;
    float *win;
} api_spectrum_shape;
int api_spectrum_shape_make(const spectro_analyzer_config *cfg, const float *coef, api_spectrum_shape *out,
                            spectro_error *err);

/* The tone analysis of one averaged power spectrum of an n-point FFT (api_reduce.c): cfg's
 * checks (NULL: the default), its band, measure_tone_analyze, out filled with frames. */
int api_tone(const double *power, size_t n, int rate, const measure_window *mw, const spectro_tone_config *cfg,
             uint64_t frames, spectro_tone *out, spectro_error *err);

/* The peak search's table of the analyzer's window, made on first use. */
int api_analyzer_peaks_window(spectro_analyzer *a, const peaks_window **out, spectro_error *err);

/* A job's frames callback as a sink of its run (api_frames.c): set (fn NULL: none) hands the
 * sink to the job; free releases what a run left (the linear bins' frequencies). */
struct job;
typedef struct {
    spectro_frames_fn fn;
    void *user;
    struct job *j;
    spectro_frames_info info;
    double *freqs;
    sink s;
} api_frames;
void api_frames_set(api_frames *f, struct job *j, spectro_frames_fn fn, void *user);
void api_frames_free(api_frames *f);
/* The frames' description of a run's stream (the column frequencies kept in f). */
int api_frames_describe(api_frames *f, const sink_stream *st, spectro_frames_info *in, sp_errinfo *ei);

/* A job's whole stream to the caller's ops as a sink of its run (api_stream.c): set (ops
 * NULL: none) hands the sink to the job in place of a frames callback. */
typedef struct {
    spectro_stream_ops ops;
    void *user;
    spectro_stream_info info;
    api_frames frames; /* the frames' description and its column frequencies */
    sink s;
} api_stream;
void api_stream_set(api_stream *s, struct job *j, const spectro_stream_ops *ops, void *user);
void api_stream_free(api_stream *s);

#endif
