/* analyze: one analysis run from a source to the sinks.
 *
 *   reader thread: source_read -> ring (blocks while the ring is full: files lose nothing)
 *   calling thread: ring -> stft (frames, window, FFT backend, dB) -> dump / peaks
 *
 * Memory is bounded by the ring and the batch, whatever the input's length.
 */
#ifndef SPECTRO_ANALYZE_H
#define SPECTRO_ANALYZE_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>

#include "err.h"
#include "fft.h"
#include "source.h"
#include "window.h"

typedef struct {
    const char *input;     /* audio file */
    size_t n;              /* FFT size */
    size_t hop;            /* 0 = n/4 */
    window_spec window;
    int channel;           /* STFT_CHANNEL_MIX, STFT_CHANNEL_ALL, or an index */
    fft_backend_kind backend;
    const char *dump_path; /* NULL: no dump */
    int peaks;             /* print one peak line per frame to `out` */
    FILE *out;             /* peaks (and CSV on stdout) */
    int progress;          /* draw a progress bar on stderr */
    size_t batch;          /* frames per FFT call, 0 = chosen from n and the channels */
    volatile sig_atomic_t *stop; /* non-zero stops the run (SIGINT); may be NULL */
} analyze_config;

analyze_config analyze_config_default(void);

typedef struct {
    source_info info;
    char backend[16];
    char fallback[256];    /* why auto did not use the GPU ("" if it did or was not asked) */
    char window[64];
    size_t n, hop, batch;
    int out_channels;
    uint64_t frames;       /* per output channel */
    uint64_t samples;      /* per channel, as read */
    uint64_t nonfinite;
    int truncated;
    double seconds;        /* wall time of the run */
} analyze_result;

/* Runs the analysis. On failure nothing is left at dump_path. res is filled as far as
 * the run got (it may be NULL). */
int analyze_run(const analyze_config *cfg, analyze_result *res, sp_errinfo *ei);

/* Frames per FFT call for a file analysis: large enough to keep the backend busy, small
 * enough that buffers stay within a few tens of MB per run. */
size_t analyze_auto_batch(size_t n, size_t hop, int out_channels, int gpu);

#endif
