/* dump: headless output of spectra for scripts and tests.
 *
 *   OUT.npy  NumPy format 1.0, '<f4', C order, shape (frames, bins) or, stacked (every
 *            channel kept: --channel all), (channels, frames, bins)
 *   OUT.csv  header "time_s,<Hz of each bin>", one row per frame; stacked,
 *            "channel,time_s,..." and rows in channel-major order
 *   -        the CSV on stdout
 * Beside a file goes OUT.json (out.npy -> out.npy.json) with the analysis metadata.
 *
 * Everything is written under temporary names in the output's directory and renamed into
 * place by dump_commit(); dump_destroy() without a commit removes them, so a failed run
 * never leaves a file that looks finished. Memory stays constant with the stream length:
 * channels after the first are spooled to temporary files and appended at commit.
 */
#ifndef SPECTRO_DUMP_H
#define SPECTRO_DUMP_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"

typedef enum { DUMP_NPY, DUMP_CSV, DUMP_CSV_STDOUT } dump_format;

/* Format from the path's extension (.npy, .csv, or "-"); SP_EINVAL names the option. */
int dump_format_from_path(const char *path, dump_format *out, sp_errinfo *ei);
/* The table of file formats: ids 0 .. dump_format_count()-1 in --help's order;
 * dump_format_ext(i) is the extension (".npy"), dump_format_help(i) a note for --help
 * ("NumPy") or NULL; both NULL out of range. */
int dump_format_count(void);
const char *dump_format_ext(int i);
const char *dump_format_help(int i);

typedef struct {
    const char *path;
    int channels;      /* output channels */
    int stacked;       /* keep a channel axis even for one channel (--channel all); implied
                        * by channels > 1 */
    size_t bins;
    double bin_hz;     /* CSV header */
    double time_first; /* CSV time column: time_first + f * time_step */
    double time_step;
} dump_config;

/* The sidecar's content. */
typedef struct {
    const char *source;
    const char *decoder;      /* "libsndfile", "ffmpeg"; NULL or "": none (JSON null) */
    double start_s;           /* where in the source the analysis began */
    int sample_rate;
    int source_channels;
    int channel;       /* the channel analysed, when channel_name is NULL */
    const char *channel_name; /* "mix" or "all", else NULL */
    int channels;
    size_t fft_size, hop, bins;
    const char *window;
    uint64_t frames;
    double time_first_s, time_step_s, bin_hz;
    const char *backend;
    uint64_t nonfinite_samples;
    uint64_t dropped_samples; /* live input lost per channel */
    int truncated;
} dump_meta;

typedef struct dump dump;

/* Creates the temporary files. SP_EIO (naming the path) when the directory is not
 * writable or missing. */
int dump_open(const dump_config *cfg, dump **out, sp_errinfo *ei);

/* Appends nframes rows of channel `channel`; frames of one channel arrive in order. */
int dump_write(dump *d, int channel, uint64_t first, size_t nframes, const float *db, sp_errinfo *ei);

/* Finishes the files (the .npy header gets its final shape), writes the sidecar and
 * renames everything into place. */
int dump_commit(dump *d, const dump_meta *meta, sp_errinfo *ei);

/* Closes, and removes the temporary files unless committed. NULL is a no-op. */
void dump_destroy(dump *d);

#endif
