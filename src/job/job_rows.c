/* cli: the command line, as rows (cli_internal.h): each option's names, value type, field,
 * range, default and help are one row of job_rows; the parser below reads them, and so do
 * --help, the man page and the shell completion (cli_help.c). */
#include "job.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "bands.h"
#include "job_batch.h"
#include "job_internal.h"
#include "job_transfer.h"
#include "colormap.h"
#include "dump.h"
#include "measure.h"
#include "numfmt.h"
#include "scale.h"
#include "stft.h"
#include "xform.h"

#define TONE_KAISER_BETA 20.0 /* --tone's window unless --window is given */

/* The value's place in o that the row names. */
#define FIELD(o, off, type) ((type *)(void *)((char *)(o) + (off)))
#define AN(member) offsetof(job, an.member)
#define OWN(member) offsetof(job, member)

/* ---- values ---------------------------------------------------------------------------- */

/* Whole-string unsigned decimal in [lo, hi]. A hi from 2^40 up is a guard, not a limit anyone
 * meets: a value below lo is told only "at least lo". */
static int parse_size(const char *opt, const char *text, size_t lo, size_t hi, size_t *out, sp_errinfo *ei)
{
    char *end, a[SP_FMT_NUM_MAX], b[SP_FMT_NUM_MAX];
    unsigned long long v;
    if (!text || !*text || *text == '-' || *text == '+')
        return sp_fail(ei, SP_EINVAL, "%s %s: expected a positive integer", opt, text ? text : "");
    errno = 0;
    v = strtoull(text, &end, 10);
    if (errno || *end || end == text)
        return sp_fail(ei, SP_EINVAL, "%s %s: expected a positive integer", opt, text);
    if (v < lo && hi >= (size_t)1 << 40)
        return sp_fail(ei, SP_EINVAL, "%s %s: must be at least %s", opt, text, sp_fmt_num(a, (double)lo, 0));
    if (v < lo || v > hi)
        return sp_fail(ei, SP_EINVAL, "%s %s: must be from %s to %s", opt, text, sp_fmt_num(a, (double)lo, 0),
                       sp_fmt_num(b, (double)hi, 0));
    *out = (size_t)v;
    return SP_OK;
}

/* parse_size into an int (hi fits one). */
static int parse_int(const char *opt, const char *text, size_t lo, size_t hi, int *out, sp_errinfo *ei)
{
    size_t v = 0;
    int err = parse_size(opt, text, lo, hi, &v, ei);
    if (err == SP_OK)
        *out = (int)v;
    return err;
}

/* Whole-string finite decimal >= lo (and > lo when strict). */
static int parse_real(const char *opt, const char *text, double lo, int strict, double *out, sp_errinfo *ei)
{
    char *end;
    double v;
    errno = 0;
    v = strtod(text, &end);
    if (errno || end == text || *end || !(v == v) || v > 1e300 || v < -1e300)
        return sp_fail(ei, SP_EINVAL, "%s %s: expected a number", opt, text);
    if (v < lo || (strict && v == lo))
        return sp_fail(ei, SP_EINVAL, "%s %s: must be %s %g", opt, text, strict ? "above" : "at least", lo);
    *out = v;
    return SP_OK;
}

/* A time: seconds ("90", "1.5") or [h:]mm:ss[.fff] ("1:30", "1:02:03.5"), finite, >= 0
 * (> 0 when strict). The one parser of --start, --end and --duration. */
static int parse_time(const char *opt, const char *text, int strict, double *out, sp_errinfo *ei)
{
    double part[3], v = 0.0;
    int nparts = 0;
    const char *p = text;
    for (;;) {
        char *end;
        size_t len = strcspn(p, ":");
        if (nparts == 3 || len == 0 || ((*p < '0' || *p > '9') && *p != '.'))
            goto bad;
        errno = 0;
        part[nparts] = strtod(p, &end);
        if (errno || end != p + len || !isfinite(part[nparts]))
            goto bad;
        /* only the seconds may have a fraction; minutes and seconds after a colon < 60 */
        if (nparts > 0 && part[nparts] >= 60.0)
            goto bad;
        nparts++;
        if (!p[len])
            break;
        if (memchr(p, '.', len) || memchr(p, 'e', len) || memchr(p, 'E', len))
            goto bad;
        p += len + 1;
    }
    for (int i = 0; i < nparts; i++)
        v = v * 60.0 + part[i];
    if (v > 1e12)
        goto bad;
    if (strict && v == 0.0)
        return sp_fail(ei, SP_EINVAL, "%s %s: must be above 0", opt, text);
    *out = v;
    return SP_OK;
bad:
    return sp_fail(ei, SP_EINVAL, "%s %s: expected a time: seconds or [h:]mm:ss[.fff]", opt, text);
}

/* ---- the rows' own parsers (OPT_CUSTOM) ------------------------------------------------------ */

static int parse_fft_size(job *o, const job_row *row, const char *name, const char *val, sp_errinfo *ei)
{
    size_t *n = FIELD(o, row->field, size_t);
    int err = parse_size(name, val, 0, (size_t)-1, n, ei); /* 0 too: the power-of-two message */
    if (err != SP_OK)
        return err;
    if (!fft_size_valid(*n))
        return sp_fail(ei, SP_EINVAL, "%s %s: must be a power of two from %u to %u", name, val, FFT_MIN_SIZE,
                       FFT_MAX_SIZE);
    return SP_OK;
}

static int parse_window(job *o, const job_row *row, const char *name, const char *val, sp_errinfo *ei)
{
    (void)name;
    return window_parse(val, FIELD(o, row->field, window_spec), ei);
}

static int parse_channel(job *o, const job_row *row, const char *name, const char *val, sp_errinfo *ei)
{
    int *channel = FIELD(o, row->field, int);
    size_t k;
    if (strcmp(val, "mix") == 0) {
        *channel = STFT_CHANNEL_MIX;
    } else if (strcmp(val, "all") == 0) {
        *channel = STFT_CHANNEL_ALL;
    } else {
        if (parse_size(name, val, 0, 1 << 20, &k, ei) != SP_OK)
            return sp_fail(ei, SP_EINVAL, "%s %s: expected mix, all, or a channel index from 0", name, val);
        *channel = (int)k;
    }
    return SP_OK;
}

static int parse_backend(job *o, const job_row *row, const char *name, const char *val, sp_errinfo *ei)
{
    char list[128];
    if (fft_backend_parse(val, FIELD(o, row->field, fft_backend_kind)) == SP_OK)
        return SP_OK;
    job_backend_names(list, sizeof list);
    return sp_fail(ei, SP_EINVAL, "%s %s: unknown backend (%s)", name, val, list);
}

/* A directory (DIR/ = DIR/{stem}.npy) has no extension to check. */
static int parse_dump(job *o, const job_row *row, const char *name, const char *val, sp_errinfo *ei)
{
    dump_format fmt;
    int err = *val && batch_output_is_dir(val) ? SP_OK : dump_format_from_path(val, &fmt, ei);
    (void)name;
    return err != SP_OK ? err : analyze_set_output(&o->an, row->output, val, ei);
}

/* "1920x1080" -> width (the row's field), height (also[0]); RENDER_MIN_WIDTH x
 * RENDER_MIN_HEIGHT .. RENDER_MAX_SIZE. */
static int parse_picture_size(job *o, const job_row *row, const char *name, const char *text,
                              sp_errinfo *ei)
{
    char *end;
    long a, b;
    if (!*text)
        return sp_fail(ei, SP_EINVAL, "%s: expected WxH, e.g. 1920x1080", name);
    a = strtol(text, &end, 10);
    if (end == text || (*end != 'x' && *end != 'X') || end[1] < '0' || end[1] > '9')
        return sp_fail(ei, SP_EINVAL, "%s %s: expected WxH, e.g. 1920x1080", name, text);
    b = strtol(end + 1, &end, 10);
    if (*end)
        return sp_fail(ei, SP_EINVAL, "%s %s: expected WxH, e.g. 1920x1080", name, text);
    if (a < RENDER_MIN_WIDTH || a > RENDER_MAX_SIZE || b < RENDER_MIN_HEIGHT || b > RENDER_MAX_SIZE)
        return sp_fail(ei, SP_EINVAL, "%s %s: width must be %d .. %d and height %d .. %d pixels", name, text,
                       RENDER_MIN_WIDTH, RENDER_MAX_SIZE, RENDER_MIN_HEIGHT, RENDER_MAX_SIZE);
    *FIELD(o, row->field, int) = (int)a;
    *FIELD(o, row->also[0], int) = (int)b;
    return SP_OK;
}

static int parse_scale(job *o, const job_row *row, const char *name, const char *val, sp_errinfo *ei)
{
    (void)name;
    return scale_parse(val, FIELD(o, row->field, freq_scale), ei);
}

static int parse_colormap(job *o, const job_row *row, const char *name, const char *val, sp_errinfo *ei)
{
    (void)name;
    return colormap_parse(val, FIELD(o, row->field, int), ei);
}

/* "-120:0" -> lo (the row's field), hi (also[0]); lo < hi, finite. */
static int parse_db_range(job *o, const job_row *row, const char *name, const char *text, sp_errinfo *ei)
{
    char *end;
    double a, b;
    if (!*text)
        return sp_fail(ei, SP_EINVAL, "%s: expected LO:HI in dB, e.g. -120:0", name);
    a = strtod(text, &end);
    if (end == text || *end != ':')
        return sp_fail(ei, SP_EINVAL, "%s %s: expected LO:HI in dB, e.g. -120:0", name, text);
    b = strtod(end + 1, &end);
    if (end == text || *end || !isfinite(a) || !isfinite(b) || fabs(a) > 1e4 || fabs(b) > 1e4)
        return sp_fail(ei, SP_EINVAL, "%s %s: expected LO:HI in dB, e.g. -120:0", name, text);
    if (!(a < b))
        return sp_fail(ei, SP_EINVAL, "%s %s: LO must be below HI", name, text);
    *FIELD(o, row->field, float) = (float)a;
    *FIELD(o, row->also[0], float) = (float)b;
    return SP_OK;
}

static int parse_raw_format(job *o, const job_row *row, const char *name, const char *val, sp_errinfo *ei)
{
    (void)name;
    return source_raw_parse(val, FIELD(o, row->field, source_raw_format), ei);
}

/* "K/N": 0 <= K < N, into shard_k (the row's field) and shard_n (also[0]). */
static int parse_shard(job *o, const job_row *row, const char *name, const char *val, sp_errinfo *ei)
{
    char *end;
    unsigned long long k, n;
    errno = 0;
    k = strtoull(val, &end, 10);
    if (errno || end == val || *val < '0' || *val > '9' || *end != '/' || end[1] < '0' || end[1] > '9')
        return sp_fail(ei, SP_EINVAL, "%s %s: expected K/N, e.g. 0/4 (K from 0 to N-1)", name, val);
    n = strtoull(end + 1, &end, 10);
    if (errno || *end)
        return sp_fail(ei, SP_EINVAL, "%s %s: expected K/N, e.g. 0/4 (K from 0 to N-1)", name, val);
    if (n < 1 || n > 1000000000ull || k >= n)
        return sp_fail(ei, SP_EINVAL, "%s %s: K must be from 0 to N-1 and N from 1 to 1000000000", name, val);
    *FIELD(o, row->field, int) = (int)k;
    *FIELD(o, row->also[0], int) = (int)n;
    return SP_OK;
}

static int parse_average(job *o, const job_row *row, const char *name, const char *val, sp_errinfo *ei)
{
    (void)name;
    return measure_average_parse(val, FIELD(o, row->field, measure_average), ei);
}

/* A finite number of dB within +-1000. */
static int parse_spl_offset(job *o, const job_row *row, const char *name, const char *val, sp_errinfo *ei)
{
    double *v = FIELD(o, row->field, double);
    int err = parse_real(name, val, -1000.0, 0, v, ei);
    if (err == SP_OK && *v > 1000.0)
        return sp_fail(ei, SP_EINVAL, "%s %s: must be from -1000 to 1000 dB", name, val);
    return err;
}

/* "94@1000": the calibrator's level (dB SPL, finite) and frequency (Hz, > 0); the tone
 * output measures the tone at FREQ. */
static int parse_calibrate(job *o, const job_row *row, const char *name, const char *val,
                           sp_errinfo *ei)
{
    char level[64];
    const char *at = strchr(val, '@');
    int err;
    if (!at || (size_t)(at - val) >= sizeof level || at == val)
        return sp_fail(ei, SP_EINVAL, "%s %s: expected LEVEL@FREQ, e.g. 94@1000 (dB SPL at Hz)", name, val);
    memcpy(level, val, (size_t)(at - val));
    level[at - val] = 0;
    if ((err = parse_real(name, level, -1000.0, 0, FIELD(o, row->field, double), ei)) != SP_OK ||
        (err = parse_real(name, at + 1, 0.0, 1, &o->an.measure.tone_hz, ei)) != SP_OK)
        return err;
    o->an.measure.calibrate = 1;
    return analyze_set_output(&o->an, "tone", NULL, ei);
}

/* --tone, --tone=auto: the strongest tone; --tone=F, --tone F: the tone at F Hz. */
static int parse_tone(job *o, const job_row *row, const char *name, const char *val, sp_errinfo *ei)
{
    double *hz = FIELD(o, row->field, double);
    int err;
    *hz = 0.0;
    if (val && strcmp(val, "auto") != 0 && (err = parse_real(name, val, 0.0, 1, hz, ei)) != SP_OK)
        return err;
    return analyze_set_output(&o->an, row->output, NULL, ei);
}

static int parse_tone_format(job *o, const job_row *row, const char *name, const char *val,
                             sp_errinfo *ei)
{
    for (int i = 0; i < JOB_TONE_FORMAT_COUNT; i++)
        if (strcmp(val, job_tone_formats[i]) == 0) {
            *FIELD(o, row->field, int) = i == 1;
            return SP_OK;
        }
    return sp_fail(ei, SP_EINVAL, "%s %s: unknown format (json, text)", name, val);
}

static int parse_bands(job *o, const job_row *row, const char *name, const char *val, sp_errinfo *ei)
{
    int b = 0, err = parse_int(name, val, 1, 12, &b, ei);
    if (err != SP_OK)
        return err;
    if (b != 1 && b != 3 && b != 6 && b != 12)
        return sp_fail(ei, SP_EINVAL, "%s %s: one of 1, 3, 6, 12 (1/B octave)", name, val);
    *FIELD(o, row->field, int) = b;
    return SP_OK;
}

static int parse_weighting(job *o, const job_row *row, const char *name, const char *val, sp_errinfo *ei)
{
    bands_weighting w = BANDS_WEIGHT_Z;
    int err = bands_weighting_parse(val, &w, ei);
    (void)name;
    *FIELD(o, row->field, int) = (int)w;
    return err;
}

/* tuning: "auto" (estimated from the frames: xform_tuning_estimate), or semitones from
 * A4 = 440 Hz in -0.5 .. 0.5. */
static int parse_tuning(job *o, const job_row *row, const char *name, const char *val, sp_errinfo *ei)
{
    char *end;
    double t;
    *FIELD(o, row->also[0], int) = strcmp(val, "auto") == 0;
    if (strcmp(val, "auto") == 0) {
        *FIELD(o, row->field, double) = 0.0;
        return SP_OK;
    }
    t = strtod(val, &end);
    if (end == val || *end || !(fabs(t) <= 0.5))
        return sp_fail(ei, SP_EINVAL, "%s %s: give auto or semitones from A4 = 440 Hz in -0.5 .. 0.5", name, val);
    *FIELD(o, row->field, double) = t;
    return SP_OK;
}

/* ---- the rows ---------------------------------------------------------------------------------- */

/* In --help's order; `section` starts a group. The help text is `help`, then the list, then
 * `help_after`, then "(default DEF)"; "\n" forces a line break, other breaks come from
 * wrapping. */
const job_row job_rows[] = {
    {.longname = "fft-size", .frames = 1, .value = "N", .type = OPT_CUSTOM, .parse = parse_fft_size,
     .format = job_format_fft_size,
     .field = AN(n), .def = FFT_STR(FFT_DEFAULT_SIZE), .def_parses = 1, .section = "analysis",
     .help = "FFT size, a power of two from 16 to 4194304"},
    {.longname = "hop", .frames = 1, .value = "H", .type = OPT_SIZE, .field = AN(hop), .min = 1, .max = 1099511627776.0,
     .def = "N/4", .help = "frame step in samples, >= 1"},
    {.longname = "window", .frames = 1, .value = "NAME[:P]", .type = OPT_CUSTOM, .parse = parse_window,
     .format = job_format_window, .field = AN(window), .help = "", .list = job_list_windows},
    {.longname = "channel", .frames = 1, .value = "C", .type = OPT_CUSTOM, .parse = parse_channel,
     .format = job_format_channel, .field = AN(channel), .list = job_list_channels,
     .help = "mix (default: the mean of all channels), all, or an index from 0"},
    {.longname = "backend", .frames = 1, .value = "B", .type = OPT_CUSTOM, .parse = parse_backend,
     .format = job_format_backend, .field = AN(backend), .help = "", .list = job_list_backends},
    {.longname = "dump", .value = "OUT", .type = OPT_CUSTOM, .parse = parse_dump, .format = job_format_output,
     .output = "dump", .kind = 'f', .section = "output", .help = "write the spectra in dBFS: ",
     .list = job_list_dump_formats,
     .help_after = ", with the metadata in OUT.json beside it; - writes CSV to standard output. With several "
                   "files OUT is a pattern ({stem}: the input's name without extension, {name}: with it, {dir}: "
                   "its directory) or a directory (DIR/ = DIR/{stem}.npy); the same for " SP_FIELD("png")},
    {.longname = "peaks", .type = OPT_OUTPUT, .output = "peaks",
     .help = "print one line per frame: time_s<TAB>freq_hz<TAB>db\n(with " SP_FIELD("channel") " all: "
             "channel<TAB>time_s<TAB>freq_hz<TAB>db;"
             "\nover several files: the file first)"},
    {.longname = "png", .value = "OUT", .type = OPT_OUTPUT, .output = "png",
     .empty = SP_FIELD("png") ": missing output path", .kind = 'f', .section = "",
     .help = "draw the spectrogram picture to OUT (PNG; - = standard output), no window"},
    {.longname = "average", .name = "mode", .value = "MODE", .type = OPT_CUSTOM, .parse = parse_average,
     .format = job_format_average, .unset_empty = 1, .field = AN(measure.average), .section = "measurement",
     .help = "with " SP_FIELD("dump") " or " SP_FIELD("png") ": one spectrum per channel kept over all frames instead "
             "of every frame (" SP_FIELD("png") ": a "
             "spectrum plot, its strongest peaks labelled): ", .list = job_list_averages},
    {.longname = "psd", .type = OPT_SWITCH, .field = AN(measure.psd),
     .help = "with " SP_FIELD("average") ": write the power spectral density in dBFS/Hz, the level less 10*log10(ENBW "
             "* bin width)"},
    {.longname = "tone", .name = "fundamental_hz", .value = "[F]", .type = OPT_CUSTOM, .parse = parse_tone,
     .format = job_format_tone, .unset_empty = 1, .field = AN(measure.tone_hz), .output = "tone",
     .help = "tone analysis of the strongest tone in the band (" SP_FIELD("fmin") "/" SP_FIELD("fmax") ", default 20 "
             "Hz to 20 kHz), or of the tone at F "
             "Hz (" SP_FIELD("tone") "=F, or " SP_FIELD("tone") " F when F is a number): fundamental, harmonics 2-10, "
             "THD, THD+N, SNR, SINAD, ENOB, "
             "noise, from the power-mean spectrum; one JSON object a line on standard output, each second when live; "
             "the "
             "window is kaiser:20 unless " SP_FIELD("window") " is given"},
    {.longname = "tone-format", .value = "FMT", .type = OPT_CUSTOM, .parse = parse_tone_format,
     .format = job_format_tone_format, .unset_empty = 1,
     .field = AN(measure.tone_text), .help = SP_FIELD("tone") "'s output: ", .list = job_list_tone_formats},
    {.longname = "loudness", .type = OPT_OUTPUT, .output = "loudness",
     .help = "loudness per ITU-R BS.1770-4 / EBU R128 of every channel: integrated (LUFS), loudness range (LU), "
             "momentary and short-term maxima, true peak (dBTP), sample peak; one JSON object a line per input, each "
             "second when live; with " SP_FIELD("dump") ": the 100 ms momentary and short-term series"},
    {.longname = "pitch", .type = OPT_OUTPUT, .output = "pitch",
     .help = "the fundamental of each frame (YIN): time_s<TAB>f0_hz<TAB>confidence per frame, 0 Hz when unvoiced; "
             "searched within " SP_FIELD("fmin") "/" SP_FIELD("fmax") " (default 50 to 2000 Hz)"},
    {.longname = "bandwidth", .type = OPT_OUTPUT, .output = "bandwidth",
     .help = "where the long-term spectrum falls off for good (a lossy codec's low-pass): one JSON object per input "
             "with cutoff_hz, a verdict (full-band, or low-passed at F kHz with the encoders that typically cut "
             "there) and the levels below and above; with " SP_FIELD("png") " OUT, the long-term spectrum drawn there "
             "with the "
             "cut-off marked (instead of the spectrogram)"},
    {.longname = "calibration", .value = "FILE", .type = OPT_TEXT, .field = AN(measure.calibration), .kind = 'f',
     .frames = 1, .empty = SP_FIELD("calibration") ": empty path",
     .help = "a microphone's calibration file (REW/miniDSP text: rows freq_hz dB [phase], an optional \"Sens Factor "
             "=X dB\" line): its response, interpolated on log frequency, is subtracted from every level of every "
             "output"},
    {.longname = "spl-offset", .frames = 1, .value = "DB", .type = OPT_CUSTOM, .parse = parse_spl_offset,
     .format = job_format_real, .unset_empty = 1, .field = AN(measure.spl_offset),
     .help = "add DB to every level of every output, so that levels read dB SPL (" SP_FIELD("calibrate") " measures "
             "it)"},
    {.longname = "calibrate", .value = "LEVEL@FREQ", .type = OPT_CUSTOM, .parse = parse_calibrate,
     .format = job_format_calibrate, .unset_empty = 1, .field = AN(measure.calibrate_level),
     .help = "measure a calibrator's tone of LEVEL dB SPL at FREQ Hz in the input (e.g. 94@1000) and print the "
             SP_FIELD("spl_offset") " that makes it read LEVEL, as JSON"},
    {.longname = "bands", .name = "fraction", .value = "B", .type = OPT_CUSTOM, .parse = parse_bands,
     .format = job_format_bands, .field = AN(measure.bands),
     .help = "with " SP_FIELD("dump") ": fractional-octave band levels in dBFS (1/B octave: 1, 3, 6 or 12; IEC "
             "61260-1 base-10 mid "
             "frequencies within " SP_FIELD("fmin") "/" SP_FIELD("fmax") ", default 20 Hz to 20 kHz), per frame, or "
             "averaged with " SP_FIELD("average")},
    {.longname = "weighting", .value = "W", .type = OPT_CUSTOM, .parse = parse_weighting,
     .format = job_format_weighting, .unset_empty = 1,
     .field = AN(measure.weighting), .help = "with " SP_FIELD("bands") ": frequency weighting (IEC 61672-1): ",
     .list = job_list_weightings},
    {.longname = "transfer", .frames = 1, .value = "REF:MEAS", .type = OPT_CUSTOM, .parse = job_transfer_parse,
     .format = job_format_transfer, .unset_empty = 1,
     .field = AN(measure.transfer_ref), .also = {AN(measure.transfer_meas)},
     .help = "with " SP_FIELD("dump") " or " SP_FIELD("png") ": the transfer function of channel MEAS from channel "
             "REF (H1, averaged over the "
             "frames): magnitude, phase, coherence; the sidecar holds the delay of MEAS after REF; without an "
             "output, the window shows the three and the delay"},
    {.longname = "remove-delay", .type = OPT_SWITCH, .field = AN(measure.remove_delay),
     .help = "with " SP_FIELD("transfer") " and " SP_FIELD("png") " (or the window): draw the phase with the "
             "measured delay taken out"},
    {.longname = "reference", .value = "FILE", .type = OPT_TEXT, .field = AN(measure.reference), .kind = 'f',
     .frames = 1, .empty = SP_FIELD("reference") ": empty path",
     .help = "with " SP_FIELD("transfer") ": REF is a channel of FILE, MEAS of the input, read from where the two "
             "align"},
    {.longname = "compare", .frames = 1, .type = OPT_SWITCH, .field = AN(measure.compare),
     .help = "two FILEs A and B: the window shows A over B (d: B-A); with " SP_FIELD("png") " the spectrograms of A and B and their difference B-A; with "
             SP_FIELD("average") " "
             "MODE and " SP_FIELD("dump") " the averaged spectra of A, B and B-A, shape (3, bins)"},
    {.longname = "resample", .frames = 1, .type = OPT_SWITCH, .field = AN(measure.resample),
     .help = "with " SP_FIELD("compare") ": B resampled to A's rate where the two differ"},
    {.longname = "view", .type = OPT_SWITCH, .field = OWN(view),
     .help = "with " SP_FIELD("tone") " or " SP_FIELD("average") " mean: open the window instead, with its tone "
             "analysis on (harmonics marked, THD, "
             "THD+N, SNR) or its running average in infinite mode"},
    {.longname = "mel", .frames = 1, .value = "B", .type = OPT_INT, .field = OWN(mel), .min = 1, .max = XFORM_MAX_BANDS,
     .section = "transforms (docs/transforms.md; with " SP_FIELD("dump") " or " SP_FIELD("png") ")",
     .help = "B mel bands (Slaney scale, area-normalised) between " SP_FIELD("fmin") " and " SP_FIELD("fmax") " "
             "(default 0 Hz and Nyquist), in "
             "dBFS"},
    {.longname = "mfcc", .value = "K", .type = OPT_INT, .field = OWN(mfcc), .min = 1, .max = XFORM_MAX_BANDS,
     .frames = 1,
     .help = "K mel-frequency cepstral coefficients: the orthonormal DCT-II of the mel dB bands (" SP_FIELD("mel") ", "
             "default 128)"},
    {.longname = "chroma", .frames = 1, .type = OPT_SWITCH, .field = OWN(chroma),
     .help = "12 pitch classes from C (A4 = 440 Hz, or as " SP_FIELD("tuning") " says), each frame divided by its "
             "maximum"},
    {.longname = "tuning", .value = "T", .type = OPT_CUSTOM, .parse = parse_tuning, .field = AN(xform.tuning),
     .format = job_format_tuning, .unset_empty = 1,
     .frames = 1, .also = {AN(xform.tuning_auto)}, .def = "0", .def_parses = 1,
     .help = "with " SP_FIELD("chroma") ": the tuning in semitones from A4 = 440 Hz (-0.5 .. 0.5), or auto: estimated "
             "from the spectral peaks of all the frames (librosa's estimate_tuning; the rows come after the last "
             "frame)"},
    {.longname = "cqt", .value = "B", .type = OPT_INT, .field = OWN(cqt), .min = 1, .max = XFORM_CQT_MAX_BPO,
     .frames = 1,
     .help = "constant-Q levels in dBFS, B bins per octave from " SP_FIELD("fmin") " (default C1 = 32.70 Hz) to "
             SP_FIELD("fmax") " (default the "
             "highest bin below Nyquist); the lowest bin's kernel must fit in N"},
    {.longname = "reassign", .frames = 1, .type = OPT_SWITCH, .field = OWN(reassign),
     .help = "the reassigned spectrogram: each bin's frequency (Hz), time (s) and level (dBFS), a dump of (frames, "
             "bins, 3)"},
    {.longname = "size", .value = "WxH", .type = OPT_CUSTOM, .parse = parse_picture_size, .field = AN(render.width),
     .format = job_format_picture_size,
     .also = {AN(render.height)}, .def = "1920x1080", .def_parses = 1, .section = "picture and window",
     .help = "picture size in pixels"},
    {.longname = "scale", .value = "S", .type = OPT_CUSTOM, .parse = parse_scale, .field = AN(render.scale),
     .format = job_format_scale, .help = "frequency axis: ", .list = job_list_scales},
    {.longname = "colormap", .value = "C", .type = OPT_CUSTOM, .parse = parse_colormap, .field = AN(render.colormap),
     .format = job_format_colormap, .help = "", .list = job_list_colormaps},
    {.longname = "db-range", .value = "LO:HI", .type = OPT_CUSTOM, .parse = parse_db_range, .field = AN(render.db_lo),
     .format = job_format_db_range,
     .also = {AN(render.db_hi)}, .def = "-120:0", .def_parses = 1, .help = "colour range in dBFS"},
    {.longname = "fmin", .frames = 1, .unset_empty = 1, .value = "HZ", .type = OPT_REAL, .field = AN(render.fmin),
     .also = {AN(peak_fmin), AN(measure.band_lo)}, .help = "lowest frequency shown (and searched by "
                                                           SP_FIELD("peaks") ")"},
    {.longname = "fmax", .frames = 1, .value = "HZ", .type = OPT_REAL, .strict = 1, .field = AN(render.fmax),
     .also = {AN(peak_fmax), AN(measure.band_hi)}, .help = "highest frequency shown (and searched by "
                                                           SP_FIELD("peaks") ")"},
    {.longname = "realtime", .frames = 1, .type = OPT_SWITCH, .field = AN(realtime), .section = "input",
     .help = "stream FILE through the live path at its own rate"},
    {.longname = "duration", .frames = 1, .value = "T", .type = OPT_TIME, .strict = 1, .field = AN(duration),
     .help = "stop after T of audio (microphone, file, pipe); a time is seconds or [h:]mm:ss[.fff]"},
    {.longname = "start", .frames = 1, .value = "T", .type = OPT_TIME, .field = AN(start),
     .help = "begin T into FILE (seeking where the format allows); frame times stay those of the whole file"},
    {.longname = "end", .frames = 1, .value = "T", .type = OPT_TIME, .strict = 1, .field = AN(end),
     .help = "stop T into FILE (not with " SP_FIELD("duration") ")"},
    {.longname = "raw-format", .frames = 1, .value = "ENC,RATE,CH", .type = OPT_CUSTOM, .parse = parse_raw_format,
     .format = job_format_raw_format,
     .field = AN(file.raw), .help = "read FILE or - as headerless samples: ENC ", .list = job_list_raw_encodings,
     .help_after = " (little-endian, interleaved), e.g. f32le,48000,1"},
    {.longname = "stream", .value = "K", .type = OPT_INT, .field = AN(file.stream), .min = 0, .max = 1 << 20,
     .frames = 1, .help = "the K-th audio stream of a file that FFmpeg reads (0 = the first, as ffmpeg -map 0:a:K)"},
    {.longname = "files-from", .value = "LIST", .type = OPT_TEXT, .field = OWN(files_from),
     .empty = SP_FIELD("files_from") ": empty path",
     .help = "analyse the files LIST names, one path a line (- = standard input; blank lines and lines starting "
             "with # skipped), or NUL-separated as find -print0 writes them (found by the NUL byte)"},
    {.longname = "shard", .value = "K/N", .type = OPT_CUSTOM, .parse = parse_shard, .field = OWN(shard_k),
     .format = job_format_shard, .also = {OWN(shard_n)},
     .help = "analyse only the inputs i (from 0, in list order) with i % N == K: one of N jobs (K from 0)"},
    {.longname = "device", .frames = 1, .value = "D", .type = OPT_TEXT, .field = AN(device), .kind = 'd',
     .empty = SP_FIELD("device") ": empty device name", .help = "microphone: an index or part of a name from "
                       SP_FIELD("list_devices")},
    {.longname = "output-device", .value = "D", .type = OPT_TEXT, .field = OWN(output_device), .kind = 'd',
     .empty = SP_FIELD("output_device") ": empty device name",
     .help = "the window's playback (p): an output's index or part of its name from " SP_FIELD("list_devices") " "
             "(default: the "
             "default output)"},
    {.longname = "rate", .value = "R", .type = OPT_INT, .field = AN(rate), .min = 1, .max = SOURCE_MAX_RATE,
     .frames = 1, .help = "microphone: sample rate in Hz (default: the device's)"},
    {.longname = "channels", .frames = 1, .value = "C", .type = OPT_INT, .field = AN(channels), .min = 1,
     .max = SOURCE_MAX_CHANNELS, .help = "microphone: channels to capture (default 1)"},
    {.longname = "quiet", .frames = 1, .type = OPT_SWITCH, .field = OWN(quiet), .section = "",
     .help = "no progress bar, notes or warnings"},
    {.longname = "verbose", .frames = 1, .type = OPT_SWITCH, .field = OWN(verbose),
     .help = "say what was chosen and how fast it ran"},
};
const int job_row_count = (int)(sizeof job_rows / sizeof job_rows[0]);
_Static_assert(sizeof job_rows / sizeof job_rows[0] <= JOB_MAX_ROWS, "job.given holds every row");

/* name and key are the same setting: equal with '-' and '_' the same. */
static int same_name(const char *name, const char *key)
{
    for (; *name && *key; name++, key++)
        if (*name != *key && !((*name == '-' || *name == '_') && (*key == '-' || *key == '_')))
            return 0;
    return !*name && !*key;
}

const job_row *job_row_find(const char *name)
{
    for (int i = 0; i < job_row_count; i++)
        if (same_name(name, job_rows[i].longname) || (job_rows[i].name && strcmp(name, job_rows[i].name) == 0))
            return &job_rows[i];
    return NULL;
}

int job_given(const job *o, const char *name)
{
    const job_row *row = job_row_find(name);
    return row && o->given[row - job_rows];
}

/* One setting's value (NULL for none) into o, as its row says; name is the field, marked. */
int job_apply(job *o, const job_row *row, const char *name, const char *val, sp_errinfo *ei)
{
    int err = SP_OK;
    o->given[row - job_rows] = 1;
    switch (row->type) {
    case OPT_SWITCH: *FIELD(o, row->field, int) = 1; break;
    case OPT_SIZE: err = parse_size(name, val, (size_t)row->min, (size_t)row->max, FIELD(o, row->field, size_t), ei); break;
    case OPT_INT: err = parse_int(name, val, (size_t)row->min, (size_t)row->max, FIELD(o, row->field, int), ei); break;
    case OPT_REAL: err = parse_real(name, val, row->min, row->strict, FIELD(o, row->field, double), ei); break;
    case OPT_TIME: err = parse_time(name, val, row->strict, FIELD(o, row->field, double), ei); break;
    case OPT_TEXT:
        if (!*val)
            return sp_fail(ei, SP_EINVAL, "%s", row->empty);
        *FIELD(o, row->field, const char *) = val;
        break;
    case OPT_OUTPUT:
        if (val && !*val)
            return sp_fail(ei, SP_EINVAL, "%s", row->empty);
        return analyze_set_output(&o->an, row->output, val, ei);
    case OPT_CUSTOM: return row->parse(o, row, name, val, ei);
    }
    for (int k = 0; err == SP_OK && row->type == OPT_REAL && k < 2 && row->also[k]; k++)
        *FIELD(o, row->also[k], double) = *FIELD(o, row->field, double);
    return err;
}

/* --bands turns --dump into the band levels (per frame, or averaged with --average). */
static int check_bands(job *o, sp_errinfo *ei)
{
    analyze_config *a = &o->an;
    int dumps = 0;
    if (job_given(o, "weighting") && !a->measure.bands)
        return sp_fail(ei, SP_EINVAL, SP_FIELD("weighting") ": only with " SP_FIELD("bands") " (it weights the band "
                                               "levels)");
    if (!a->measure.bands)
        return SP_OK;
    if (a->measure.psd)
        return sp_fail(ei, SP_EINVAL, SP_FIELD("psd") ": not with " SP_FIELD("bands") " (band levels are powers, not "
                                               "densities)");
    for (int i = 0; i < a->n_outputs; i++) {
        const char *banded = sink_kind_find(a->outputs[i].kind)->banded;
        if (banded) {
            a->outputs[i].kind = sink_kind_find(banded)->name;
            dumps++;
        }
    }
    if (!dumps && job_windowed(o) && !job_given(o, "average")) { /* the window: its band bars start on */
        o->view_bands = a->measure.bands;
        a->measure.bands = 0;
        return SP_OK;
    }
    if (!dumps)
        return sp_fail(ei, SP_EINVAL, SP_FIELD("bands") ": give " SP_FIELD("dump") " for the band levels (or no "
                                               "output: the window's band "
                                      "bars)");
    a->measure.bands_average = job_given(o, "average");
    return SP_OK;
}

/* --spl-offset: levels read dB SPL (labels, sidecars), the colour range moves with them
 * unless given; --calibrate is --tone's measurement printing an offset: not with --tone or
 * its format. */
static int check_calibrate(job *o, sp_errinfo *ei)
{
    if (job_given(o, "spl-offset")) {
        o->an.render.level_unit = "dB SPL";
        if (!job_given(o, "db-range")) {
            o->an.render.db_lo += (float)o->an.measure.spl_offset;
            o->an.render.db_hi += (float)o->an.measure.spl_offset;
        }
    }
    if (!job_given(o, "calibrate"))
        return SP_OK;
    if (job_given(o, "tone") || job_given(o, "tone-format") || job_given(o, "view"))
        return sp_fail(ei, SP_EINVAL, SP_FIELD("calibrate") ": not with %s (it prints the offset as JSON)",
                       job_given(o, "tone")   ? SP_FIELD("tone")
                       : job_given(o, "view") ? SP_FIELD("view")
                                              : SP_FIELD("tone_format"));
    return SP_OK;
}

/* --loudness turns --dump into the loudness series (its kind's loudness column), which then
 * prints the JSON lines too. */
static int check_loudness(job *o, sp_errinfo *ei)
{
    analyze_config *a = &o->an;
    int at = -1, turned = 0;
    for (int i = 0; i < a->n_outputs; i++)
        if (strcmp(a->outputs[i].kind, "loudness") == 0)
            at = i;
    if (at < 0)
        return SP_OK;
    if (job_given(o, "average") || a->measure.bands)
        return sp_fail(ei, SP_EINVAL, "%s: not with " SP_FIELD("loudness") " (its " SP_FIELD("dump") " holds the "
                                      "loudness series)",
                       job_given(o, "average") ? SP_FIELD("average") : SP_FIELD("bands"));
    for (int i = 0; i < a->n_outputs; i++) {
        const char *kind = sink_kind_find(a->outputs[i].kind)->loudness;
        if (kind) {
            a->outputs[i].kind = sink_kind_find(kind)->name;
            turned = 1;
        }
    }
    for (int i = at; turned && i + 1 < a->n_outputs; i++)
        a->outputs[i] = a->outputs[i + 1];
    a->n_outputs -= turned;
    return SP_OK;
}

/* --bandwidth with --png: the picture is the long-term spectrum with the cut-off marked
 * (the bandwidth output takes the picture's path), not the spectrogram. */
static int check_bandwidth(job *o, sp_errinfo *ei)
{
    analyze_config *a = &o->an;
    int bw = -1, png = -1;
    for (int i = 0; i < a->n_outputs; i++) {
        if (strcmp(a->outputs[i].kind, "bandwidth") == 0)
            bw = i;
        else if (strcmp(a->outputs[i].kind, "png") == 0)
            png = i;
    }
    if (bw < 0 || png < 0)
        return SP_OK;
    if (job_given(o, "average"))
        return sp_fail(ei, SP_EINVAL, SP_FIELD("average") ": not with " SP_FIELD("bandwidth") " and "
                                               SP_FIELD("png") " (its picture is the long-term "
                                      "spectrum)");
    if (strcmp(a->outputs[png].path, "-") == 0)
        return sp_fail(ei, SP_EINVAL, SP_FIELD("png") " -: not with " SP_FIELD("bandwidth") ", whose line goes to "
                                               "standard output");
    a->outputs[bw].path = a->outputs[png].path;
    for (int i = png; i + 1 < a->n_outputs; i++)
        a->outputs[i] = a->outputs[i + 1];
    a->n_outputs--;
    return SP_OK;
}

/* --average turns --dump and --png into their averaged kinds; --tone picks its window. */
static int check_measure(job *o, sp_errinfo *ei)
{
    analyze_config *a = &o->an;
    int averaged = 0, err;
    if ((err = check_calibrate(o, ei)) != SP_OK || (err = check_loudness(o, ei)) != SP_OK ||
        (err = check_bandwidth(o, ei)) != SP_OK || (err = check_bands(o, ei)) != SP_OK)
        return err;
    if (o->an.measure.psd && !job_given(o, "average"))
        return sp_fail(ei, SP_EINVAL, SP_FIELD("psd") ": only with " SP_FIELD("average") " (it converts the averaged "
                                               "spectrum)");
    for (int i = 0; job_given(o, "average") && i < a->n_outputs; i++) {
        /* bands averages its own levels: its averaged kind is itself */
        const char *kind = sink_kind_find(a->outputs[i].kind)->averaged;
        if (kind) {
            a->outputs[i].kind = sink_kind_find(kind)->name;
            averaged++;
        }
    }
    if (job_given(o, "average") && !averaged && !o->view)
        return sp_fail(ei, SP_EINVAL, SP_FIELD("average") ": give " SP_FIELD("dump") " or " SP_FIELD("png") " for the "
                                               "averaged spectrum");
    for (int i = 0; i < a->n_outputs; i++)
        if (strcmp(a->outputs[i].kind, "tone") == 0) {
            /* the window's sidelobes leak the fundamental into the noise: kaiser:20's
             * (-160 dB) measure a 16-bit sine at any frequency; blackman-harris's (-92 dB)
             * stop near 86 dB SNR off a bin, hann's near 35 */
            if (!job_given(o, "window")) {
                a->window.kind = WINDOW_KAISER;
                a->window.param = TONE_KAISER_BETA;
            }
            return SP_OK;
        }
    if (job_given(o, "tone-format"))
        return sp_fail(ei, SP_EINVAL, SP_FIELD("tone_format") ": only with " SP_FIELD("tone"));
    return SP_OK;
}

/* Several inputs (or a list of them): outputs, not the window nor the live path. */
static int check_batch(const job *o, sp_errinfo *ei)
{
    if (!o->batch)
        return SP_OK;
    if (o->n_inputs == 0 && !o->files_from)
        return sp_fail(ei, SP_EINVAL, SP_FIELD("shard") ": give the inputs (FILE... or " SP_FIELD("files_from") " "
                                               "LIST)");
    if (o->an.n_outputs == 0 && !o->an.measure.compare) /* compare A B: the window shows the pair */
        return sp_fail(ei, SP_EINVAL, "%s: several inputs need an output: " SP_FIELD("dump") ", " SP_FIELD("png") " "
                                      "or " SP_FIELD("peaks") " (the window "
                                      "shows one file)",
                       o->files_from ? SP_FIELD("files_from") : o->shard_n ? SP_FIELD("shard") : o->inputs[1]);
    if (o->an.realtime)
        return sp_fail(ei, SP_EINVAL, SP_FIELD("realtime") " streams one file, not several (FILE..., "
                                               SP_FIELD("files_from") ", " SP_FIELD("shard") ")");
    return SP_OK;
}

/* The transform's field in a message, its name the argument ("mel"). */
#define XFORM_FIELD SP_FIELD_MARK "%s" SP_FIELD_MARK

/* The transform the options ask for (--mel, --mfcc, --chroma, --cqt, --reassign), and what
 * has no meaning with one. Its checks at the input's rate and N are xform_create's. */
static int check_xform(job *o, sp_errinfo *ei)
{
    xform_spec *x = &o->an.xform;
    int kinds = (o->mel || o->mfcc) + o->chroma + (o->cqt > 0) + o->reassign, average = job_given(o, "average");
    const char *name;
    if (job_given(o, "tuning") && !o->chroma)
        return sp_fail(ei, SP_EINVAL, SP_FIELD("tuning") ": only with " SP_FIELD("chroma"));
    if (kinds == 0)
        return SP_OK;
    if (kinds > 1)
        return sp_fail(ei, SP_EINVAL, "%s: one transform at a time (" SP_FIELD("mel") "/" SP_FIELD("mfcc") ", "
                                      SP_FIELD("chroma") ", " SP_FIELD("cqt") ", " SP_FIELD("reassign") ")",
                       o->chroma ? SP_FIELD("chroma") : o->cqt ? SP_FIELD("cqt") : SP_FIELD("reassign"));
    x->kind = o->mfcc ? XFORM_MFCC : o->mel ? XFORM_MEL : o->chroma ? XFORM_CHROMA : o->cqt ? XFORM_CQT : XFORM_REASSIGN;
    x->bands = o->cqt ? o->cqt : o->mel;
    x->coeffs = o->mfcc;
    x->fmin = job_given(o, "fmin") ? o->an.render.fmin : -1.0;
    x->fmax = o->an.render.fmax;
    name = xform_kind_name(x->kind);
    if (o->mfcc && o->mfcc > (o->mel ? o->mel : XFORM_MEL_DEFAULT_BANDS))
        return sp_fail(ei, SP_EINVAL, SP_FIELD("mfcc") " %d: more than the %d mel bands (" SP_FIELD("mel") ")", o->mfcc,
                       o->mel ? o->mel : XFORM_MEL_DEFAULT_BANDS);
    if (o->an.measure.bands)
        return sp_fail(ei, SP_EINVAL, XFORM_FIELD ": not with " SP_FIELD("bands") " (both reduce the spectrum to "
                       "bands)", name);
    if (o->an.measure.psd)
        return sp_fail(ei, SP_EINVAL, SP_FIELD("psd") ": not with " XFORM_FIELD " (its values are no spectrum density)",
                       name);
    if (average && x->kind == XFORM_REASSIGN)
        return sp_fail(ei, SP_EINVAL, SP_FIELD("average") ": not with " XFORM_FIELD " (reassigned points have no "
                       "average)", name);
    if (o->view)
        return sp_fail(ei, SP_EINVAL, SP_FIELD("view") ": not with " XFORM_FIELD " (the window's panel reads a linear "
                       "spectrum; without " SP_FIELD("view") " it opens on the transform)", name);
    for (int i = 0; i < o->an.n_outputs; i++) {
        const char *kind = o->an.outputs[i].kind;
        int png = strcmp(kind, "png") == 0;
        if (png && average && x->kind != XFORM_MEL && x->kind != XFORM_CQT)
            return sp_fail(ei, SP_EINVAL, SP_FIELD("png") ": no picture of " XFORM_FIELD " " SP_FIELD("average")
                           " yet (give " SP_FIELD("dump") ")", name);
        if (strcmp(kind, "dump") != 0 && !png)
            return sp_fail(ei, SP_EINVAL, XFORM_FIELD ": not with %s (give " SP_FIELD("dump") ")", name,
                           sink_kind_find(kind)->option);
    }
    if (job_windowed(o) && (x->kind == XFORM_MFCC || average || x->tuning_auto))
        return sp_fail(ei, SP_EINVAL, XFORM_FIELD ": give " SP_FIELD("dump") " or " SP_FIELD("png") " (the window "
                       "shows mel, CQT, chroma and the reassigned spectrogram, %s)", name,
                       x->kind == XFORM_MFCC ? "not MFCC" : average ? "no average of them" : "at a given tuning");
    return SP_OK; /* no output: the window opens on the transform */
}

/* What no single option can check: the options together. */
static int check_together(job *o, sp_errinfo *ei)
{
    int err;
    if (o->an.render.fmax > 0 && o->an.render.fmin >= o->an.render.fmax)
        return sp_fail(ei, SP_EINVAL, SP_FIELD("fmin") " %g: must be below " SP_FIELD("fmax") " "
                                               "%g", o->an.render.fmin, o->an.render.fmax);
    if ((err = check_batch(o, ei)) != SP_OK || (err = check_xform(o, ei)) != SP_OK)
        return err;
    if (o->an.realtime && !o->an.input)
        return sp_fail(ei, SP_EINVAL, SP_FIELD("realtime") " streams a file: give a FILE");
    if (o->an.end > 0 && o->an.duration > 0)
        return sp_fail(ei, SP_EINVAL, SP_FIELD("end") " %g: give " SP_FIELD("end") " or " SP_FIELD("duration") ", not "
                                               "both", o->an.end);
    if (o->an.end > 0 && o->an.end <= o->an.start)
        return sp_fail(ei, SP_EINVAL, SP_FIELD("end") " %g: must be after " SP_FIELD("start") " "
                                               "%g", o->an.end, o->an.start);
    if (!o->an.input && (o->an.start > 0 || o->an.end > 0))
        return sp_fail(ei, SP_EINVAL, "%s: a time range needs a FILE (or -), not the microphone",
                       o->an.start > 0 ? SP_FIELD("start") : SP_FIELD("end"));
    if ((!o->an.input || strncmp(o->an.input, "synth:", 6) == 0) &&
        (o->an.file.raw.encoding >= 0 || o->an.file.stream > 0))
        return sp_fail(ei, SP_EINVAL, "%s: reads a FILE or -, not %s",
                       o->an.file.raw.encoding >= 0 ? SP_FIELD("raw_format") : SP_FIELD("stream"),
                       o->an.input ? "a generated signal" : "the microphone");
    if (o->an.file.raw.encoding >= 0 && o->an.file.stream > 0)
        return sp_fail(ei, SP_EINVAL, SP_FIELD("stream") " %d: raw samples hold one stream", o->an.file.stream);
    if ((o->an.input || o->files_from) && (o->an.device || o->an.rate || o->an.channels))
        return sp_fail(ei, SP_EINVAL, "%s: " SP_FIELD("device") ", " SP_FIELD("rate") " and " SP_FIELD("channels") " "
                                      "are for the microphone, not a file",
                       o->an.device ? SP_FIELD("device") : o->an.rate ? SP_FIELD("rate") : SP_FIELD("channels"));
    if ((err = job_transfer_check(o, ei)) != SP_OK)
        return err;
    return check_measure(o, ei);
}

/* --view: the window takes --tone and --average mean (its panel's tone analysis and
 * infinite running average) in place of their outputs; nothing else is written. */
static int check_view(job *o, sp_errinfo *ei)
{
    analyze_config *a = &o->an;
    int tone = 0;
    if (!o->view)
        return SP_OK;
    if (o->frames)
        return sp_fail(ei, SP_EINVAL, SP_FIELD("view") ": not with a frames callback (the window is the frames')");
    if (o->batch)
        return sp_fail(ei, SP_EINVAL, SP_FIELD("view") ": the window shows one input");
    for (int i = 0; i < a->n_outputs; i++) {
        if (strcmp(a->outputs[i].kind, "tone") != 0)
            return sp_fail(ei, SP_EINVAL, SP_FIELD("view") ": not with %s (the window writes no output; "
                                                   SP_FIELD("tone") " and " SP_FIELD("average") " "
                                          "mean go to the window)",
                           sink_kind_find(a->outputs[i].kind)->option);
        tone = 1;
    }
    if (job_given(o, "tone-format"))
        return sp_fail(ei, SP_EINVAL, SP_FIELD("tone_format") ": not with " SP_FIELD("view") " (the window shows the "
                                               "tone analysis)");
    if (a->measure.psd)
        return sp_fail(ei, SP_EINVAL, SP_FIELD("psd") ": not with " SP_FIELD("view") " (the window shows levels in "
                                               "dBFS)");
    if (job_given(o, "average") && a->measure.average != MEASURE_MEAN)
        return sp_fail(ei, SP_EINVAL, SP_FIELD("view") ": " SP_FIELD("average") " %s is not in the window (its "
                                               "running average is a mean)",
                       measure_average_name((int)a->measure.average));
    if (!tone && !job_given(o, "average"))
        return sp_fail(ei, SP_EINVAL, SP_FIELD("view") ": give " SP_FIELD("tone") " or " SP_FIELD("average") " mean "
                                               "(the window opens without " SP_FIELD("view") ")");
    a->n_outputs = 0;
    return SP_OK;
}

const char *job_keep(job *j, const char *text, sp_errinfo *ei)
{
    char **grown = realloc(j->texts, sizeof *grown * (size_t)(j->n_texts + 1));
    char *copy = strdup(text);
    if (grown)
        j->texts = grown;
    if (!grown || !copy) {
        free(copy);
        sp_fail(ei, SP_ENOMEM, "out of memory");
        return NULL;
    }
    j->texts[j->n_texts++] = copy;
    return copy;
}

/* A switch's text: none, or one that says yes or no. */
static int switch_value(const char *val, int *on)
{
    static const char *const yes[] = {"1", "true", "yes", "on"}, *const no[] = {"0", "false", "no", "off"};
    *on = 1;
    for (size_t i = 0; val && i < sizeof yes / sizeof yes[0]; i++)
        if (strcmp(val, yes[i]) == 0)
            return 1;
    for (size_t i = 0; val && i < sizeof no / sizeof no[0]; i++)
        if (strcmp(val, no[i]) == 0) {
            *on = 0;
            return 1;
        }
    return !val;
}

int job_setting_shapes_frames(const char *name)
{
    const job_row *row = name ? job_row_find(name) : NULL;
    return row ? row->frames : -1;
}

int job_setting_same(const char *a, const char *b)
{
    const job_row *row = a ? job_row_find(a) : NULL;
    return row && b && row == job_row_find(b);
}

int job_set(job *j, const char *name, const char *value, sp_errinfo *ei)
{
    const job_row *row = name ? job_row_find(name) : NULL;
    char field[64];
    int on;
    if (!row)
        return sp_fail(ei, SP_EINVAL, "%s: no such setting", name ? name : "(null)");
    job_unprepare(j); /* a setting changes the settings as given */
    snprintf(field, sizeof field, SP_FIELD_MARK "%s" SP_FIELD_MARK, row->name ? row->name : row->longname);
    for (char *p = field; *p; p++)
        *p = *p == '-' ? '_' : *p;
    if (!row->value) {
        if (!switch_value(value, &on))
            return sp_fail(ei, SP_EINVAL, "%s: takes no value", field);
        if (!on)
            return SP_OK;
        value = NULL;
    } else if (!value && row->value[0] != '[') {
        return sp_fail(ei, SP_EINVAL, "%s: missing value", field);
    }
    if (value && !(value = job_keep(j, value, ei)))
        return SP_ENOMEM;
    return job_apply(j, row, field, value, ei);
}

int job_add_input(job *j, const char *input, sp_errinfo *ei)
{
    char **grown;
    const char *copy;
    if (!input || !*input)
        return sp_fail(ei, SP_EINVAL, "an input is a path, - or synth:..., not empty");
    if (!(copy = job_keep(j, input, ei)))
        return SP_ENOMEM;
    job_unprepare(j);
    if (!(grown = realloc(j->inputs, sizeof *grown * (size_t)(j->n_inputs + 1))))
        return sp_fail(ei, SP_ENOMEM, "out of memory");
    j->inputs = grown;
    j->inputs[j->n_inputs++] = (char *)copy;
    j->an.input = j->inputs[0];
    return SP_OK;
}

int job_prepare_checks(job *o, sp_errinfo *ei)
{
    int err;
    o->batch = o->n_inputs > 1 || o->files_from || o->shard_n > 0;
    /* (a pair, compare or reference, is one input: its check below clears batch) */
    if (o->frames && o->batch && !o->an.measure.compare && !o->an.measure.reference)
        return sp_fail(ei, SP_EINVAL, "frames: one input at a time (a job's frames callback takes no batch)");
    if ((err = check_together(o, ei)) != SP_OK || (err = check_view(o, ei)) != SP_OK)
        return err;
    o->headless = !job_windowed(o);
    if (o->output_device && (o->headless || o->batch || !o->an.input))
        return sp_fail(ei, SP_EINVAL, SP_FIELD("output_device") ": playback is the window's, of a FILE (not with %s)",
                       o->headless ? "an output" : o->batch ? "several inputs" : "the microphone");
    if (o->an.hop == 0)
        o->an.hop = fft_default_hop(o->an.n);
    return SP_OK;
}
