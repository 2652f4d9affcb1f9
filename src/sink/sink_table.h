/* sink_table: the output kinds a run can be asked for, one row each. A new output kind is
 * one file (its create function, filling a sink from sink.h) and one row in sink_table.c.
 *
 * The pipeline builds its sinks in the table's order and calls them in that order (open,
 * spectra, peaks); it finishes them in the reverse order, so the first kind (the dump,
 * whose commit puts the result in place) finishes last, after everything else succeeded.
 */
#ifndef SPECTRO_SINK_TABLE_H
#define SPECTRO_SINK_TABLE_H

#include <stdio.h>

#include "dump.h"
#include "err.h"
#include "measure.h"
#include "render.h"
#include "sink.h"

/* One output asked for: a kind of the table and its path ("-" for standard output where
 * the kind allows it; NULL for a kind without one, such as peaks). */
typedef struct {
    const char *kind;
    const char *path;
} sink_request;

/* The measurements' settings (--average, --psd, --tone, --tone-format). */
typedef struct {
    measure_average average;   /* average, average-png: what is kept over the frames */
    int psd;                   /* average: write dBFS/Hz (the level less 10 log10(ENBW * bin_hz)) */
    double tone_hz;            /* tone: the fundamental; 0 = the strongest tone of the band */
    int tone_text;             /* tone: lines for people instead of JSON */
    double band_lo, band_hi;   /* tone: the band in Hz; negative = 20 Hz, 20 kHz (clipped to
                                * Nyquist); bands: the mid frequencies kept, the same defaults */
    int bands;                 /* bands: 1/b octave (1, 3, 6, 12); 0 = no --bands */
    int weighting;             /* bands: bands_weighting (Z, A, C) */
    int bands_average;         /* bands: --average given: one row per channel (average's mode) */
    int transfer_ref;          /* transfer: the reference channel (an index of the input) */
    int transfer_meas;         /* transfer: the measured channel */
    int transfer;              /* --transfer given (the window's transfer view without an output) */
    int compare;               /* --compare: the input is a pair of files A, B (reference,
                                * compared) read side by side, each the mix of its channels */
    int resample;              /* --compare --resample: B at A's rate */
    int remove_delay;          /* transfer-png: the phase drawn with the delay taken out */
    const char *reference;     /* transfer: the reference's file (--reference): the input is
                                * then the pair of source_open_pair, REF its channel 0 and MEAS
                                * its channel 1; NULL: both are channels of the input;
                                * compare: file A */
    const char *compared;      /* compare: file B (the input) */
    /* every level of every output (the pipeline applies them to the spectra, the column
     * maxima and the peaks): the calibration file's response subtracted, spl_offset added
     * (docs/measurements.md "Calibration and SPL") */
    const char *calibration;   /* a path, NULL: none */
    double spl_offset;         /* dB; levels then read dB SPL */
    int calibrate;             /* tone: --calibrate LEVEL@FREQ (tone_hz): print the offset */
    double calibrate_level;    /* its LEVEL in dB SPL */
} sink_measure;

/* The defaults: mean, no --psd, the strongest tone, JSON, the default band. */
sink_measure sink_measure_default(void);

/* Settings of particular kinds, shared by all: each kind reads what concerns it. Borrowed
 * for the sinks' life. */
typedef struct {
    const render_config *render; /* png: the picture (title NULL = made from the stream) */
    double peak_fmin, peak_fmax; /* peaks: Hz range searched; 0 = the whole spectrum */
    FILE *out;                   /* peaks, tone: where the lines go */
    sink_measure measure;        /* average, average-png, tone */
    int peaks_label_source;      /* peaks: the source's name as a first column */
} sink_options;

typedef struct {
    const char *name;            /* sink_request.kind */
    const char *option;          /* the setting that asks for it, for messages: SP_FIELD("dump"),
                                  * shown as the program's option (err.h) */
    /* Makes the sink (no file is touched before open). */
    int (*create)(const char *path, const sink_options *opt, sink *out, sp_errinfo *ei);
    /* 1 when a request of this kind writes to standard output */
    int (*writes_stdout)(const char *path);
    /* 1 when the kind takes the backend's reductions (column maxima, peak records) in place
     * of the spectra once a run is long: a GPU run of such kinds only makes bigger calls */
    int reduces;
    /* 1 when the kind writes every spectrum out (a dump): the host's work grows with them */
    int writes_spectra;
    /* 1 when the kind takes only the samples (sink_wants.samples): a run of such kinds alone
     * makes no FFT */
    int samples_only;
    /* the kind --loudness makes of this one (--dump: the loudness series); NULL: none */
    const char *loudness;
    /* 1 when a file of the kind gets the metadata sidecar beside it (dump_sidecar_path) */
    int sidecar;
    /* what an output named by a directory gets for each input: DIR/{stem}<dir_ext> */
    const char *dir_ext;
    /* checks an output's name before any work (SP_EINVAL naming it); NULL: any name */
    int (*check_path)(const char *path, sp_errinfo *ei);
    /* the kind --average makes of this one (itself when it averages on its own), and the
     * kind --bands makes of it; NULL: none */
    const char *averaged;
    const char *banded;
    /* the kind --transfer makes of this one (the transfer function's table or plot); NULL:
     * none, the kind does not go with --transfer */
    const char *transferred;
    /* the kind --compare makes of this one (with --average for a dump); NULL: none */
    const char *compared;
} sink_kind;

int sink_kind_count(void);
const sink_kind *sink_kind_at(int i);          /* NULL out of range */
const sink_kind *sink_kind_find(const char *name); /* NULL when unknown */

/* At most one of the n requests writes to standard output (writes_stdout: "-",
 * /dev/stdout, /proc/self/fd/1, the file stdout was sent to ...): SP_EINVAL "--peaks and
 * --png /dev/stdout both write to standard output: pick one". Touches nothing. */
int sink_requests_check_stdout(const sink_request *req, int n, sp_errinfo *ei);

/* Every request's file could be written (outfile_check), before any work: SP_EIO
 * "--png o2/x.png: cannot write: No such file or directory" for the first that
 * could not. Standard output and special files are not tried. */
int sink_requests_check_paths(const sink_request *req, int n, sp_errinfo *ei);

/* The head of an output that writes a dump or, in its -png twin, a picture at its end
 * (average, compare, transfer): the first member of its sink. */
typedef struct {
    const char *path;
    int png;             /* the picture, not the dump */
    int done;            /* committed (dump) or written (png) */
    sink_measure m;
    render_config rc;    /* png */
    dump *d;
} sink_head;

/* A zeroed sink of `size` bytes whose head is filled from path, opt and png, as *out with
 * ops: SP_EINVAL "--png: missing output path" (or --dump), SP_ENOMEM. */
int sink_head_create(size_t size, const sink_ops *ops, const char *path, const sink_options *opt, int png,
                     sink *out, sp_errinfo *ei);
/* The end of a head's finish: done on SP_OK; returns err. */
int sink_head_finished(sink_head *h, int err);
/* The abort of such a sink: a picture already published is taken back, an unfinished dump
 * dropped, a committed one kept (dump_or_picture_abort). */
void sink_head_abort(void *self);

/* Destroys a sink made by a kind's create (NULL ops: no-op). */
void sink_destroy(sink *s);

/* The kinds (each in its own file). */
int sink_dump_create(const char *path, const sink_options *opt, sink *out, sp_errinfo *ei);
int sink_png_create(const char *path, const sink_options *opt, sink *out, sp_errinfo *ei);
int sink_peaks_create(const char *path, const sink_options *opt, sink *out, sp_errinfo *ei);
/* --average with --dump (sink_average.c): one averaged spectrum per channel */
int sink_average_create(const char *path, const sink_options *opt, sink *out, sp_errinfo *ei);
/* --average with --png (sink_average.c): the averaged spectrum plotted */
int sink_average_png_create(const char *path, const sink_options *opt, sink *out, sp_errinfo *ei);
/* The sidecar of a dump of the stream st that ended as `end` (sink_dump.c): every kind of
 * --dump (dump, average, bands) writes the same members, then its own (dump_meta.extra). */
dump_meta sink_dump_meta(const sink_stream *st, const sink_end *end);
/* --bands with --dump (sink_bands.c): fractional-octave band levels, per frame or averaged */
int sink_bands_create(const char *path, const sink_options *opt, sink *out, sp_errinfo *ei);
/* The bands m asks for that the stream st cannot resolve (too narrow for its FFT: bands.h),
 * which the bands sink lists in its sidecar but does not report: their count, the mid
 * frequencies of the first max into hz[]. For a caller that tells the user, as a sidecar
 * may not be there (--dump -). While st->window_coef is valid; 0 when m asks for no bands
 * or none of its bands is resolved (the sink's open refuses that itself). */
size_t sink_bands_unresolved(const sink_measure *m, const sink_stream *st, double *hz, size_t max);
/* --transfer with --dump (sink_transfer.c): the averaged H1 transfer function of two
 * channels, (bins, 4): freq_hz, magnitude_db, phase_deg, coherence; the sidecar adds the
 * delay, the averages and the channels */
int sink_transfer_create(const char *path, const sink_options *opt, sink *out, sp_errinfo *ei);
/* Whether a stream holds the two channels m's transfer function needs (REF and MEAS of the
 * input, every channel read; or a pair with m->reference): SP_EINVAL with the reason. The
 * transfer kinds' check, and the window's transfer view's. */
int sink_transfer_check(const sink_measure *m, const sink_stream *st, sp_errinfo *ei);
/* --transfer with --png (sink_transfer.c): magnitude, phase and coherence plotted */
int sink_transfer_png_create(const char *path, const sink_options *opt, sink *out, sp_errinfo *ei);
/* --compare with --average and --dump (sink_compare.c): the averaged spectra of files A and B
 * and their difference, (3, bins) */
int sink_compare_create(const char *path, const sink_options *opt, sink *out, sp_errinfo *ei);
/* --compare with --png (sink_compare.c): the spectrograms of A and B and their difference */
int sink_compare_png_create(const char *path, const sink_options *opt, sink *out, sp_errinfo *ei);
/* --pitch (sink_pitch.c): YIN f0 per frame, time_s<TAB>f0_hz<TAB>confidence */
int sink_pitch_create(const char *path, const sink_options *opt, sink *out, sp_errinfo *ei);
/* --bandwidth (sink_bandwidth.c): the long-term spectrum's cut-off and a codec verdict */
int sink_bandwidth_create(const char *path, const sink_options *opt, sink *out, sp_errinfo *ei);
/* --loudness (sink_loudness.c): BS.1770-4 / EBU R128 loudness and true peak of the samples,
 * one JSON line per input (each second live); with a path, the 100 ms series as a dump */
int sink_loudness_create(const char *path, const sink_options *opt, sink *out, sp_errinfo *ei);
/* --tone (sink_tone.c): THD, SNR ... of the averaged spectrum, at the end or each second live */
int sink_tone_create(const char *path, const sink_options *opt, sink *out, sp_errinfo *ei);

#endif
