/* The pipeline's parts, shared by its files (not a public header):
 *
 *   input.c   starts and stops the source: a push source writes into the ring from its
 *             own callback, a pull source gets a reader thread (pipe_input)
 *   sinks.c   the list of sinks of one run: built from the config's requests through the
 *             sink table, plus the caller's; the reductions they declared go to the
 *             framer (computed by the FFT backend); its callback fans each block out to
 *             them (pipe_sinks)
 *   analyze.c the run: set-up, the loop (ring -> framer, live catch-up), the end
 *   session.c what the runs of a session share: the FFT plan and the framer (made once for
 *             all inputs of the same shape), two feeds (source, ring, reader) so that the
 *             next input is opened and read while the current one is analysed, the
 *             batch's progress bar
 */
#ifndef SPECTRO_PIPELINE_INTERNAL_H
#define SPECTRO_PIPELINE_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "analyze.h"
#include "peaks.h"
#include "progress.h"
#include "ring.h"
#include "sink.h"
#include "source.h"

/* ---- input.c ---------------------------------------------------------------------------- */

typedef struct {
    source *src;
    ring *r;
    int channels;
    int paced;                  /* --realtime: write at the file's own rate, never wait */
    double rate;
    atomic_int *stop;
    atomic_int quit;            /* consumer is finished: reader leaves */
    atomic_int done;            /* reader finished (end of file or error) */
    atomic_ullong dropped;      /* paced: frames that did not fit */
    int err;                    /* valid once done */
    sp_errinfo ei;
} pipe_reader;

typedef struct {
    source *src;
    int pushing;                /* a push source delivering */
    int reading;                /* the reader thread running */
    pthread_t thread;
    pipe_reader rd;
} pipe_input;

/* Starts src delivering into r; paced: a pull source at its own rate (dropping what does
 * not fit, like a microphone). `stop` (may be NULL) makes a waiting reader leave. */
int pipe_input_start(pipe_input *in, source *src, ring *r, int paced, atomic_int *stop, sp_errinfo *ei);
/* A pull source's reader has ended (read before the ring: then the ring holds all it gave). */
int pipe_input_finished(pipe_input *in);
/* Samples per channel a paced reader could not store. */
uint64_t pipe_input_dropped(pipe_input *in);
/* A push source's failure so far (SP_OK for a pull source). */
int pipe_input_status(pipe_input *in, sp_errinfo *ei);
/* Stops delivery (idempotent); the reader's error, if it had one, with its message in ei. */
int pipe_input_stop(pipe_input *in, sp_errinfo *ei);

/* ---- sinks.c ---------------------------------------------------------------------------- */

/* A distinct peak search: computed once per block, whoever declared it. */
typedef struct {
    size_t kmin, kmax;
    peak *pk;                   /* one record per frame of the block */
} pipe_reduction;

typedef struct {
    sink *s;                    /* the caller's sinks, then the kinds' in the table's order */
    sink_wants *wants;
    int *reduction;             /* per sink: its index in red, or -1 */
    int count, own_from;        /* s[own_from..count) were made here and are destroyed here */
    int opened;                 /* s[0..opened) were opened: finish or abort them */
    pipe_reduction *red;
    int nred;                   /* distinct peak searches, <= FFT_PEAK_RANGES_MAX */
    int spectra;                /* some sink wants the spectra themselves */
    int complex;                /* some sink wants the frames' transforms (sink.h) */
    int samples;                /* some sink wants the samples (sink_wants.samples) */
    struct calib *cal;          /* --calibration, or NULL */
    double spl_offset;          /* --spl-offset */
    float *level_off;           /* per bin: what every level gets added (calib_offsets); NULL: none */
    float *leveled;             /* a block's spectra or maxima with level_off added */
    double bin_hz;
    size_t leveled_cap;         /* floats leveled holds */
    uint64_t span;              /* > 0: sinks with maxima_span get column maxima (pipe_sinks_attach) */
    int test_maxima;            /* the config's test.maxima (ANALYZE_TEST_MAXIMA_*) */
    size_t pk_cap;              /* frames each red[].pk holds */
    size_t n, bins;
    double rate;
    const float *win;           /* the window's n coefficients (borrowed), set before open */
    peaks_window *pw;           /* its transform, for the peak searches (made at open) */
    sp_errinfo *ei;             /* where the framer's callback reports */
    xform *xf;                  /* a transform (docs/transforms.md): its rows go to the sinks */
    float *xrows;               /* xcap rows of its width */
    size_t xcap;
    size_t xhop;                /* the frame step: the GPU plan's bank runs at it (xform_use_plan) */
    double t0, dt;              /* frame 0's time and the frame step (s) */
    struct pipe_defer *defer;   /* rows after the last frame (sinks_defer.c), or NULL */
    char *xjson;                /* with defer: the sidecar's members the sinks read,
                                 * rewritten at the flush */
} pipe_sinks;

/* Makes the sinks the config asks for (no file is touched) and checks that at most one
 * writes to standard output. */
int pipe_sinks_build(pipe_sinks *l, const analyze_config *cfg, const analyze_context *ctx, sp_errinfo *ei);
/* 1 when the config's outputs are all of kinds that take a GPU's reductions in place of the
 * spectra (sink_kind.reduces) and no caller's sink is added: known before the plan. */
int pipe_sinks_reduce_only(const analyze_config *cfg, const analyze_context *ctx);
/* 1 when the config's outputs are all of kinds that take samples only (sink_kind.samples_only)
 * and no caller's sink is added: the run needs no FFT, known before the plan. */
int pipe_sinks_samples_only(const analyze_config *cfg, const analyze_context *ctx);
/* Hands a block of interleaved source frames to the sinks that want samples (in order). */
int pipe_sinks_samples(pipe_sinks *l, uint64_t first, size_t nframes, const float *x, sp_errinfo *ei);
int pipe_sinks_open(pipe_sinks *l, const sink_stream *ss, sp_errinfo *ei);
/* A bands output's unresolved bands into res (sink_bands_unresolved), while ss's window is valid. */
void pipe_sinks_unresolved(const analyze_config *cfg, const sink_stream *ss, analyze_result *res);
/* Before open: the config's transform (none: nothing changes) made for the stream, which
 * then describes its rows (sink_stream.xform ...): SP_EINVAL with the transform's message
 * for one that has no meaning at this N and rate, or with sinks that need a spectrum. */
int pipe_sinks_xform(pipe_sinks *l, const analyze_config *cfg, sink_stream *ss, const float *win, sp_errinfo *ei);
/* After open: when some sink declared a peak search, or the plan's backend reduces columns
 * and every sink that wants spectra takes column maxima of one span, the framer runs those
 * reductions beside its FFT (stft_set_reduce) and calls pipe_sinks_reduced; without a sink
 * that wants the spectra themselves they never reach host memory. Else nothing changes
 * (pipe_sinks_frames). */
int pipe_sinks_attach(pipe_sinks *l, stft *st, fft_plan *plan, sp_errinfo *ei);
/* The framer's callbacks (stft_sink_fn, stft_reduce_fn, stft_complex_fn): user is the
 * pipe_sinks. */
int pipe_sinks_frames(void *user, int channel, uint64_t first, size_t nframes, const float *db);
int pipe_sinks_complex(void *user, int channel, uint64_t first, size_t nframes, const cpx *z);
int pipe_sinks_reduced(void *user, int channel, uint64_t first, size_t nframes, const float *db,
                       const fft_peak_raw *raw, const float *colmax);
/* After the last frame: every opened sink lets go of the framer's blocks (sink.h settle). */
int pipe_sinks_settle(pipe_sinks *l, sp_errinfo *ei);
/* Finishes in reverse order; on a failure the caller aborts. */
int pipe_sinks_finish(pipe_sinks *l, const sink_end *end, sp_errinfo *ei);
/* Aborts every opened sink, finished or not (reverse order). */
void pipe_sinks_abort(pipe_sinks *l);
void pipe_sinks_free(pipe_sinks *l);

/* ---- sinks_defer.c: a transform's rows after the last frame (chroma's --tuning auto) ---- */

typedef struct pipe_defer pipe_defer;
/* In pipe_sinks_xform, l->xf made: the frames' samples are kept from now on; ss's sidecar
 * members become l's own copy, rewritten by the flush. */
int pipe_defer_make(pipe_sinks *l, const xform_spec *spec, size_t n, double rate, const float *win,
                    sink_stream *ss, sp_errinfo *ei);
/* The framer's frames (as stft_frames_fn gives them), kept. */
int pipe_defer_keep(pipe_sinks *l, int channel, uint64_t first, size_t nframes, const float *sig, size_t hop);
/* Once, after the last frame: the estimate, the transform made again, its rows to the sinks. */
int pipe_defer_flush(pipe_sinks *l, sp_errinfo *ei);
void pipe_defer_free(pipe_defer *d);

/* The per-frame peaks of range `range` of the records raw[f*nranges + range] that the FFT
 * backend found beside its transform (fft_stft_reduce): the one place they become peaks
 * (peaks_refine, by the window's own transform when pw is not NULL). */
void pipe_refine_peaks(const peaks_window *pw, const fft_peak_raw *raw, size_t nframes, size_t nranges,
                       size_t range, size_t n, double rate, peak *out);

/* ---- session.c --------------------------------------------------------------------------- */

#define FILE_RING_FLOATS (1u << 23) /* 32 MB of samples between reader and analysis */
#define GPU_RING_FLOATS (1u << 27)  /* 512 MB: a file read ahead while a GPU starts (analyze.c) */

/* One input's source, ring and reader. A session has two: while a run analyses one, the
 * next input is opened and read into the other (session_read_ahead). */
typedef struct {
    const char *input;          /* what it is for (borrowed) */
    source *src;                /* NULL: not open */
    int open_err;               /* a read-ahead that failed: its input's run reports it */
    sp_errinfo open_ei;
    float *ring_mem;            /* kept from input to input */
    size_t ring_floats;
    ring r;
    pipe_input in;
} pipe_feed;

/* The feed for the run of `input`: the one read ahead for it, or an idle one (nothing
 * open). A read-ahead of another input is dropped. */
pipe_feed *session_feed(analyze_session *s, const char *input);
/* The feed's ring, `floats` samples (reallocated only when the size changes), emptied. */
int pipe_feed_ring(pipe_feed *f, size_t floats, sp_errinfo *ei);
/* Stops the feed's reader and closes its source; keeps the ring's memory. */
void pipe_feed_release(pipe_feed *f);
/* Opens the next input (analyze_session_next) into the other feed and starts reading it,
 * once per run; a failure is kept for that input's run. Not for --realtime. */
void session_read_ahead(analyze_session *s);
/* A plan for fc: the session's when it was made for the same settings, else a new one
 * (the old one and its framer destroyed first) taking auto's choice (NULL: it chooses;
 * fft_plan_create_chosen). Owned by the session. */
int session_plan(analyze_session *s, const fft_config *fc, const fft_choice *choice, fft_plan **plan,
                 sp_errinfo *ei);
/* A framer for sc on plan, reset to the start, that feeds `sinks`: the session's when it
 * has the same shape, else a new one. Owned by the session. */
int session_stft(analyze_session *s, const stft_config *sc, fft_plan *plan, pipe_sinks *sinks, stft **out,
                 sp_errinfo *ei);
/* The last run's end (analyze_context.last_run): the framer and the plan, with a GPU's
 * device (fft_plan_destroy_last), are freed on a thread of their own, which the session's
 * destroy joins; the session keeps neither. Their users must be done with them (the sinks
 * settled). */
void session_release(analyze_session *s);
/* The batch's progress bar (analyze_session_set_progress), NULL for a bar per run. */
progress *session_progress(analyze_session *s);

/* The session's context (analyze_context): its runs' stop flag, sinks, hooks. */
const analyze_context *session_context(const analyze_session *s);

/* ---- analyze.c ---------------------------------------------------------------------------- */

/* One run of the session: cfg is the session's config with this run's input and outputs. */
int pipe_run(analyze_session *s, const analyze_config *cfg, source *src, analyze_result *res, sp_errinfo *ei);

#endif
