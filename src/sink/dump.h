/* dump: headless output of spectra for scripts and tests.
 *
 *   OUT.npy  NumPy format 1.0, '<f4', C order, shape (frames, bins) or, stacked (every
 *            channel kept: --channel all), (channels, frames, bins)
 *   OUT.csv  header "time_s,<Hz of each bin>", one row per frame; stacked,
 *            "channel,time_s,..." and rows in channel-major order
 *   -        the CSV on stdout
 * A single spectrum per channel (dump_config.single, --average) drops the frame axis:
 * shape (bins,) or (channels, bins), CSV rows without the time column. 
 * Beside a file goes OUT.json (out.npy -> out.npy.json) with the analysis metadata.
 *
 * Files go through outfile (outfile.h): written under unnamed temporaries in the output's
 * directory and put in place by dump_commit(); dump_destroy() without a commit leaves
 * nothing, so a failed run never leaves a file that looks finished. A FIFO, a device or a
 * descriptor of ours (/dev/fd/N) is written straight through and gets no sidecar; as it
 * cannot seek back to the .npy header, a .npy there is spooled whole and goes out, final
 * header first, at the commit (a CSV streams).
 *
 * Memory stays constant with the stream length: channels after the first (all of them for
 * a .npy written straight through) wait in ONE spool file on the output's filesystem
 * (spool.h), appended at commit; a bounded number of files whatever the channel count.
 *
 * Space: with frames_expected known, dump_open refuses a job larger than the free space of
 * the output's filesystem ("--dump x.npy: needs 206 TB, 53 GB free on /work", SP_EIO).
 * While running, each block of frames is refused, and the dump stops (dump_stopped), when
 * writing it would leave less than a reserve (what the commit still needs: the sidecar, the
 * buffers in flight, the spool's copy); dump_commit then still makes a complete file of
 * the frames written so far, which is what a live run keeps.
 */
#ifndef SPECTRO_DUMP_H
#define SPECTRO_DUMP_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"

typedef enum { DUMP_NPY, DUMP_CSV, DUMP_CSV_STDOUT } dump_format;

/* The first format's extension: what a dump named by a directory gets (DIR/{stem}.npy). */
#define DUMP_DEFAULT_EXT ".npy"

/* Format from the path's extension (.npy, .csv, or "-"); SP_EINVAL names the option. */
int dump_format_from_path(const char *path, dump_format *out, sp_errinfo *ei);
/* Bytes `rows` rows of `bins` values take in the format (CSV on the low side: 8 a value). */
uint64_t dump_bytes(dump_format fmt, size_t bins, uint64_t rows);
/* The table of file formats: ids 0 .. dump_format_count()-1 in --help's order;
 * dump_format_ext(i) is the extension (".npy"), dump_format_help(i) a note for --help
 * ("NumPy") or NULL; both NULL out of range. */
int dump_format_count(void);
const char *dump_format_ext(int i);
const char *dump_format_help(int i);

/* The name of the metadata sidecar beside a dump written to path: path + ".json"
 * ("out.npy" -> "out.npy.json"), malloc'd; NULL when out of memory. Whether one is written
 * is dump_sidecar_for's rule. */
char *dump_sidecar_path(const char *path);
/* The sidecar a dump written to path gets, the one rule for every caller (the outputs'
 * checks, a batch's collisions; the dump itself applies it to the file it opened): its name
 * in *out (malloc'd), or NULL when it gets none: "-" (standard output) and a path written
 * straight through (a FIFO, a device, a descriptor of ours: outfile_path_direct).
 * SP_ENOMEM (with *out NULL) when out of memory. */
int dump_sidecar_for(const char *path, char **out);

typedef struct {
    const char *path;
    int channels;      /* output channels */
    int stacked;       /* keep a channel axis even for one channel (--channel all); implied
                        * by channels > 1 */
    int single;        /* one spectrum per channel, no frame axis (--average): shape (bins,)
                        * or (channels, bins); CSV rows without the time column */
    size_t bins;       /* values a row */
    size_t depth;      /* > 1: each column holds depth of the row's values: the .npy's row
                        * is (bins/depth, depth) (a transform's, docs/transforms.md) */
    double bin_hz;     /* CSV header: column k is at k * bin_hz Hz ... */
    const double *col_hz; /* ... or at col_hz[k] (bins/depth values, borrowed until dump_open returns;
                           * --bands: the mid-band frequencies); NULL: k * bin_hz */
    const char *const *columns; /* a table (--transfer): each row holds `bins` values under
                                 * these names, which the CSV header gives, with no time
                                 * column; shape (frames, bins). NULL: spectra */
    const char *const *col_names; /* ... or named (bins names, borrowed for the dump's life;
                                   * --loudness: its series); NULL: numbers */
    double time_first; /* CSV time column: time_first + f * time_step */
    double time_step;
    uint64_t frames_expected; /* frames per channel the run promises, 0 = unknown: the
                               * space check at open */
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
    const char *level_unit; /* "dB SPL" with --spl-offset; NULL: dBFS (not written) */
    const char *extra; /* more members of the sidecar, written as given before its closing
                        * brace: ",\n  \"key\": value" ...; NULL: none */
} dump_meta;

typedef struct dump dump;

/* Creates the temporary files. SP_EIO (naming the path) when the directory is not
 * writable or missing. */
int dump_open(const dump_config *cfg, dump **out, sp_errinfo *ei);

/* Appends nframes rows of channel `channel`; frames of one channel arrive in order, and
 * the channels of one block in channel order (the space check is made on channel 0's, for
 * all of them). SP_EIO naming the path when the data cannot be written, or when the
 * filesystem is nearly full: then the dump stops (dump_stopped) and refuses more. */
int dump_write(dump *d, int channel, uint64_t first, size_t nframes, const float *db, sp_errinfo *ei);

/* 1 once the dump stopped for want of space: it can still be committed. */
int dump_stopped(const dump *d);

/* Finishes the files (the .npy header gets its final shape: the frames every channel
 * has, which the sidecar's "frames" also says), writes the sidecar and puts both in place
 * as a pair (outfile_commit_pair: concurrent runs on one path leave one run's pair). */
int dump_commit(dump *d, const dump_meta *meta, sp_errinfo *ei);

/* Closes, and removes the temporary files unless committed. NULL is a no-op. */
void dump_destroy(dump *d);

/* The abort of an output that is a dump or a picture written at its end (--average,
 * --transfer, --compare): a picture already published is taken back (never a FIFO, a
 * device or standard output), an unfinished dump dropped (*d NULL after); *done cleared
 * for a picture. */
void dump_or_picture_abort(int png, int *done, const char *path, dump **d);

#endif
