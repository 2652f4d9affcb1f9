/* The pipeline's parts, shared by its files (not a public header):
 *
 *   input.c   starts and stops the source: a push source writes into the ring from its
 *             own callback, a pull source gets a reader thread (pipe_input)
 *   sinks.c   the list of sinks of one run: built from the config's requests through the
 *             sink table, plus the caller's; the reductions they declared go to the
 *             framer (computed by the FFT backend); its callback fans each block out to
 *             them (pipe_sinks)
 *   analyze.c the run: set-up, the loop (ring -> framer, live catch-up), the end
 */
#ifndef SPECTRO_PIPELINE_INTERNAL_H
#define SPECTRO_PIPELINE_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "analyze.h"
#include "peaks.h"
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
    size_t pk_cap;              /* frames each red[].pk holds */
    size_t n, bins;
    double rate;
    const float *win;           /* the window's n coefficients (borrowed), set before open */
    peaks_window *pw;           /* its transform, for the peak searches (made at open) */
    sp_errinfo *ei;             /* where the framer's callback reports */
} pipe_sinks;

/* Makes the sinks the config asks for (no file is touched) and checks that at most one
 * writes to standard output. */
int pipe_sinks_build(pipe_sinks *l, const analyze_config *cfg, sp_errinfo *ei);
int pipe_sinks_open(pipe_sinks *l, const sink_stream *ss, sp_errinfo *ei);
/* After open: when some sink declared a peak search, the framer runs the searches beside
 * its FFT (stft_set_reduce) and calls pipe_sinks_reduced; without a sink that wants the
 * spectra they never reach host memory. Else nothing changes (pipe_sinks_frames). */
int pipe_sinks_attach(pipe_sinks *l, stft *st, sp_errinfo *ei);
/* The framer's callbacks (stft_sink_fn, stft_reduce_fn): user is the pipe_sinks. */
int pipe_sinks_frames(void *user, int channel, uint64_t first, size_t nframes, const float *db);
int pipe_sinks_reduced(void *user, int channel, uint64_t first, size_t nframes, const float *db,
                       const fft_peak_raw *raw);
/* Finishes in reverse order; on a failure the caller aborts. */
int pipe_sinks_finish(pipe_sinks *l, const sink_end *end, sp_errinfo *ei);
/* Aborts every opened sink, finished or not (reverse order). */
void pipe_sinks_abort(pipe_sinks *l);
void pipe_sinks_free(pipe_sinks *l);

/* The per-frame peaks of range `range` of the records raw[f*nranges + range] that the FFT
 * backend found beside its transform (fft_stft_reduce): the one place they become peaks
 * (peaks_refine, by the window's own transform when pw is not NULL). */
void pipe_refine_peaks(const peaks_window *pw, const fft_peak_raw *raw, size_t nframes, size_t nranges,
                       size_t range, size_t n, double rate, peak *out);

#endif
