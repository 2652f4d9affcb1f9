/* cli: the command line, as rows (cli_internal.h): each option's names, value type, field,
 * range, default and help are one row of cli_rows; the parser below reads them, and so do
 * --help, the man page and the shell completion (cli_help.c). */
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "bands.h"
#include "batch.h"
#include "cli_internal.h"
#include "cli_transfer.h"
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
#define AN(member) offsetof(cli_options, an.member)
#define OWN(member) offsetof(cli_options, member)

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
    size_t v;
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

static int parse_fft_size(cli_options *o, const cli_option *row, const char *name, const char *val, sp_errinfo *ei)
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

static int parse_window(cli_options *o, const cli_option *row, const char *name, const char *val, sp_errinfo *ei)
{
    (void)name;
    return window_parse(val, FIELD(o, row->field, window_spec), ei);
}

static int parse_channel(cli_options *o, const cli_option *row, const char *name, const char *val, sp_errinfo *ei)
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

static int parse_backend(cli_options *o, const cli_option *row, const char *name, const char *val, sp_errinfo *ei)
{
    char list[128];
    if (fft_backend_parse(val, FIELD(o, row->field, fft_backend_kind)) == SP_OK)
        return SP_OK;
    cli_backend_names(list, sizeof list);
    return sp_fail(ei, SP_EINVAL, "%s %s: unknown backend (%s)", name, val, list);
}

/* A directory (DIR/ = DIR/{stem}.npy) has no extension to check. */
static int parse_dump(cli_options *o, const cli_option *row, const char *name, const char *val, sp_errinfo *ei)
{
    dump_format fmt;
    int err = *val && batch_output_is_dir(val) ? SP_OK : dump_format_from_path(val, &fmt, ei);
    (void)name;
    return err != SP_OK ? err : analyze_set_output(&o->an, row->output, val, ei);
}

/* "1920x1080" -> width (the row's field), height (also[0]); RENDER_MIN_WIDTH x
 * RENDER_MIN_HEIGHT .. RENDER_MAX_SIZE. */
static int parse_picture_size(cli_options *o, const cli_option *row, const char *name, const char *text,
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

static int parse_scale(cli_options *o, const cli_option *row, const char *name, const char *val, sp_errinfo *ei)
{
    (void)name;
    return scale_parse(val, FIELD(o, row->field, freq_scale), ei);
}

static int parse_colormap(cli_options *o, const cli_option *row, const char *name, const char *val, sp_errinfo *ei)
{
    (void)name;
    return colormap_parse(val, FIELD(o, row->field, int), ei);
}

/* "-120:0" -> lo (the row's field), hi (also[0]); lo < hi, finite. */
static int parse_db_range(cli_options *o, const cli_option *row, const char *name, const char *text, sp_errinfo *ei)
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

static int parse_raw_format(cli_options *o, const cli_option *row, const char *name, const char *val, sp_errinfo *ei)
{
    (void)name;
    return source_raw_parse(val, FIELD(o, row->field, source_raw_format), ei);
}

/* "K/N": 0 <= K < N, into shard_k (the row's field) and shard_n (also[0]). */
static int parse_shard(cli_options *o, const cli_option *row, const char *name, const char *val, sp_errinfo *ei)
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

static int parse_average(cli_options *o, const cli_option *row, const char *name, const char *val, sp_errinfo *ei)
{
    (void)name;
    return measure_average_parse(val, FIELD(o, row->field, measure_average), ei);
}

/* A finite number of dB within +-1000. */
static int parse_spl_offset(cli_options *o, const cli_option *row, const char *name, const char *val, sp_errinfo *ei)
{
    double *v = FIELD(o, row->field, double);
    int err = parse_real(name, val, -1000.0, 0, v, ei);
    if (err == SP_OK && *v > 1000.0)
        return sp_fail(ei, SP_EINVAL, "%s %s: must be from -1000 to 1000 dB", name, val);
    return err;
}

/* "94@1000": the calibrator's level (dB SPL, finite) and frequency (Hz, > 0); the tone
 * output measures the tone at FREQ. */
static int parse_calibrate(cli_options *o, const cli_option *row, const char *name, const char *val,
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
static int parse_tone(cli_options *o, const cli_option *row, const char *name, const char *val, sp_errinfo *ei)
{
    double *hz = FIELD(o, row->field, double);
    int err;
    *hz = 0.0;
    if (val && strcmp(val, "auto") != 0 && (err = parse_real(name, val, 0.0, 1, hz, ei)) != SP_OK)
        return err;
    return analyze_set_output(&o->an, row->output, NULL, ei);
}

static int parse_tone_format(cli_options *o, const cli_option *row, const char *name, const char *val,
                             sp_errinfo *ei)
{
    for (int i = 0; i < CLI_TONE_FORMAT_COUNT; i++)
        if (strcmp(val, cli_tone_formats[i]) == 0) {
            *FIELD(o, row->field, int) = i == 1;
            return SP_OK;
        }
    return sp_fail(ei, SP_EINVAL, "%s %s: unknown format (json, text)", name, val);
}

static int parse_bands(cli_options *o, const cli_option *row, const char *name, const char *val, sp_errinfo *ei)
{
    int b = 0, err = parse_int(name, val, 1, 12, &b, ei);
    if (err != SP_OK)
        return err;
    if (b != 1 && b != 3 && b != 6 && b != 12)
        return sp_fail(ei, SP_EINVAL, "%s %s: one of 1, 3, 6, 12 (1/B octave)", name, val);
    *FIELD(o, row->field, int) = b;
    return SP_OK;
}

static int parse_weighting(cli_options *o, const cli_option *row, const char *name, const char *val, sp_errinfo *ei)
{
    bands_weighting w = BANDS_WEIGHT_Z;
    int err = bands_weighting_parse(val, &w, ei);
    (void)name;
    *FIELD(o, row->field, int) = (int)w;
    return err;
}

/* ---- the rows ---------------------------------------------------------------------------------- */

/* In --help's order; `section` starts a group. The help text is `help`, then the list, then
 * `help_after`, then "(default DEF)"; "\n" forces a line break, other breaks come from
 * wrapping. */
const cli_option cli_rows[] = {
    {.longname = "fft-size", .shortname = 'n', .value = "N", .type = OPT_CUSTOM, .parse = parse_fft_size,
     .field = AN(n), .def = FFT_STR(FFT_DEFAULT_SIZE), .def_parses = 1, .section = "analysis",
     .help = "FFT size, a power of two from 16 to 4194304"},
    {.longname = "hop", .value = "H", .type = OPT_SIZE, .field = AN(hop), .min = 1, .max = 1099511627776.0,
     .def = "N/4", .help = "frame step in samples, >= 1"},
    {.longname = "window", .shortname = 'w', .value = "NAME[:P]", .type = OPT_CUSTOM, .parse = parse_window,
     .field = AN(window), .help = "", .list = cli_list_windows},
    {.longname = "channel", .shortname = 'c', .value = "C", .type = OPT_CUSTOM, .parse = parse_channel,
     .field = AN(channel), .list = cli_list_channels,
     .help = "mix (default: the mean of all channels), all, or an index from 0"},
    {.longname = "backend", .shortname = 'b', .value = "B", .type = OPT_CUSTOM, .parse = parse_backend,
     .field = AN(backend), .help = "", .list = cli_list_backends},
    {.longname = "dump", .shortname = 'o', .value = "OUT", .type = OPT_CUSTOM, .parse = parse_dump,
     .output = "dump", .kind = 'f', .section = "output", .help = "write the spectra in dBFS: ",
     .list = cli_list_dump_formats,
     .help_after = ", with the metadata in OUT.json beside it; - writes CSV to standard output. With several "
                   "files OUT is a pattern ({stem}: the input's name without extension, {name}: with it, {dir}: "
                   "its directory) or a directory (DIR/ = DIR/{stem}.npy); the same for --png"},
    {.longname = "peaks", .type = OPT_OUTPUT, .output = "peaks",
     .help = "print one line per frame: time_s<TAB>freq_hz<TAB>db\n(with --channel all: channel<TAB>time_s<TAB>freq_hz<TAB>db;"
             "\nover several files: the file first)"},
    {.longname = "png", .value = "OUT", .type = OPT_OUTPUT, .output = "png", .empty = "--png: missing output path",
     .kind = 'f', .section = "", .help = "draw the spectrogram picture to OUT (PNG; - = standard output), no window"},
    {.longname = "average", .name = "mode", .value = "MODE", .type = OPT_CUSTOM, .parse = parse_average,
     .field = AN(measure.average), .section = "measurement",
     .help = "with --dump or --png: one spectrum per channel kept over all frames instead of every frame (--png: a "
             "spectrum plot, its strongest peaks labelled): ", .list = cli_list_averages},
    {.longname = "psd", .type = OPT_SWITCH, .field = AN(measure.psd),
     .help = "with --average: write the power spectral density in dBFS/Hz, the level less 10*log10(ENBW * bin width)"},
    {.longname = "tone", .name = "fundamental_hz", .value = "[F]", .type = OPT_CUSTOM, .parse = parse_tone,
     .field = AN(measure.tone_hz), .output = "tone",
     .help = "tone analysis of the strongest tone in the band (--fmin/--fmax, default 20 Hz to 20 kHz), or of the tone at F "
             "Hz (--tone=F, or --tone F when F is a number): fundamental, harmonics 2-10, THD, THD+N, SNR, SINAD, ENOB, "
             "noise, from the power-mean spectrum; one JSON object a line on standard output, each second when live; the "
             "window is kaiser:20 unless --window is given"},
    {.longname = "tone-format", .value = "FMT", .type = OPT_CUSTOM, .parse = parse_tone_format,
     .field = AN(measure.tone_text), .help = "--tone's output: ", .list = cli_list_tone_formats},
    {.longname = "loudness", .type = OPT_OUTPUT, .output = "loudness",
     .help = "loudness per ITU-R BS.1770-4 / EBU R128 of every channel: integrated (LUFS), loudness range (LU), "
             "momentary and short-term maxima, true peak (dBTP), sample peak; one JSON object a line per input, each "
             "second when live; with --dump: the 100 ms momentary and short-term series"},
    {.longname = "pitch", .type = OPT_OUTPUT, .output = "pitch",
     .help = "the fundamental of each frame (YIN): time_s<TAB>f0_hz<TAB>confidence per frame, 0 Hz when unvoiced; "
             "searched within --fmin/--fmax (default 50 to 2000 Hz)"},
    {.longname = "bandwidth", .type = OPT_OUTPUT, .output = "bandwidth",
     .help = "where the long-term spectrum falls off for good (a lossy codec's low-pass): one JSON object per input "
             "with cutoff_hz, a verdict (full-band, or low-passed at F kHz with the encoders that typically cut "
             "there) and the levels below and above; with --png OUT, the long-term spectrum drawn there with the "
             "cut-off marked (instead of the spectrogram)"},
    {.longname = "calibration", .value = "FILE", .type = OPT_TEXT, .field = AN(measure.calibration), .kind = 'f',
     .empty = "--calibration: empty path",
     .help = "a microphone's calibration file (REW/miniDSP text: rows freq_hz dB [phase], an optional \"Sens Factor "
             "=X dB\" line): its response, interpolated on log frequency, is subtracted from every level of every "
             "output"},
    {.longname = "spl-offset", .value = "DB", .type = OPT_CUSTOM, .parse = parse_spl_offset,
     .field = AN(measure.spl_offset),
     .help = "add DB to every level of every output, so that levels read dB SPL (--calibrate measures it)"},
    {.longname = "calibrate", .value = "LEVEL@FREQ", .type = OPT_CUSTOM, .parse = parse_calibrate,
     .field = AN(measure.calibrate_level),
     .help = "measure a calibrator's tone of LEVEL dB SPL at FREQ Hz in the input (e.g. 94@1000) and print the "
             "--spl-offset that makes it read LEVEL, as JSON"},
    {.longname = "bands", .name = "fraction", .value = "B", .type = OPT_CUSTOM, .parse = parse_bands,
     .field = AN(measure.bands),
     .help = "with --dump: fractional-octave band levels in dBFS (1/B octave: 1, 3, 6 or 12; IEC 61260-1 base-10 mid "
             "frequencies within --fmin/--fmax, default 20 Hz to 20 kHz), per frame, or averaged with --average"},
    {.longname = "weighting", .value = "W", .type = OPT_CUSTOM, .parse = parse_weighting,
     .field = AN(measure.weighting), .help = "with --bands: frequency weighting (IEC 61672-1): ",
     .list = cli_list_weightings},
    {.longname = "transfer", .value = "REF:MEAS", .type = OPT_CUSTOM, .parse = cli_transfer_parse,
     .field = AN(measure.transfer_ref), .also = {AN(measure.transfer_meas)},
     .help = "with --dump or --png: the transfer function of channel MEAS from channel REF (H1, averaged over the "
             "frames): magnitude, phase, coherence; the sidecar holds the delay of MEAS after REF; without an "
             "output, the window shows the three and the delay"},
    {.longname = "remove-delay", .type = OPT_SWITCH, .field = AN(measure.remove_delay),
     .help = "with --transfer and --png (or the window): draw the phase with the measured delay taken out"},
    {.longname = "reference", .value = "FILE", .type = OPT_TEXT, .field = AN(measure.reference), .kind = 'f',
     .empty = "--reference: empty path",
     .help = "with --transfer: REF is a channel of FILE, MEAS of the input, read from where the two align"},
    {.longname = "compare", .type = OPT_SWITCH, .field = AN(measure.compare),
     .help = "two FILEs A and B: the window shows A over B (d: B-A); with --png the spectrograms of A and B and "
             "their difference B-A; with --average MODE and --dump the averaged spectra of A, B and B-A, shape "
             "(3, bins)"},
    {.longname = "resample", .type = OPT_SWITCH, .field = AN(measure.resample),
     .help = "with --compare: B resampled to A's rate where the two differ"},
    {.longname = "view", .type = OPT_SWITCH, .field = OWN(view),
     .help = "with --tone or --average mean: open the window instead, with its tone analysis on (harmonics marked, THD, "
             "THD+N, SNR) or its running average in infinite mode"},
    {.longname = "mel", .value = "B", .type = OPT_INT, .field = OWN(mel), .min = 1, .max = XFORM_MAX_BANDS,
     .section = "transforms (docs/transforms.md; with --dump or --png)",
     .help = "B mel bands (Slaney scale, area-normalised) between --fmin and --fmax (default 0 Hz and Nyquist), in "
             "dBFS"},
    {.longname = "mfcc", .value = "K", .type = OPT_INT, .field = OWN(mfcc), .min = 1, .max = XFORM_MAX_BANDS,
     .help = "K mel-frequency cepstral coefficients: the orthonormal DCT-II of the mel dB bands (--mel, default 128)"},
    {.longname = "chroma", .type = OPT_SWITCH, .field = OWN(chroma),
     .help = "12 pitch classes from C (A4 = 440 Hz), each frame divided by its maximum"},
    {.longname = "cqt", .value = "B", .type = OPT_INT, .field = OWN(cqt), .min = 1, .max = XFORM_CQT_MAX_BPO,
     .help = "constant-Q levels in dBFS, B bins per octave from --fmin (default C1 = 32.70 Hz) to --fmax (default the "
             "highest bin below Nyquist); the lowest bin's kernel must fit in N"},
    {.longname = "reassign", .type = OPT_SWITCH, .field = OWN(reassign),
     .help = "the reassigned spectrogram: each bin's frequency (Hz), time (s) and level (dBFS), a dump of (frames, "
             "bins, 3)"},
    {.longname = "size", .value = "WxH", .type = OPT_CUSTOM, .parse = parse_picture_size, .field = AN(render.width),
     .also = {AN(render.height)}, .def = "1920x1080", .def_parses = 1, .section = "picture and window",
     .help = "picture size in pixels"},
    {.longname = "scale", .value = "S", .type = OPT_CUSTOM, .parse = parse_scale, .field = AN(render.scale),
     .help = "frequency axis: ", .list = cli_list_scales},
    {.longname = "colormap", .value = "C", .type = OPT_CUSTOM, .parse = parse_colormap, .field = AN(render.colormap),
     .help = "", .list = cli_list_colormaps},
    {.longname = "db-range", .value = "LO:HI", .type = OPT_CUSTOM, .parse = parse_db_range, .field = AN(render.db_lo),
     .also = {AN(render.db_hi)}, .def = "-120:0", .def_parses = 1, .help = "colour range in dBFS"},
    {.longname = "fmin", .value = "HZ", .type = OPT_REAL, .field = AN(render.fmin),
     .also = {AN(peak_fmin), AN(measure.band_lo)}, .help = "lowest frequency shown (and searched by --peaks)"},
    {.longname = "fmax", .value = "HZ", .type = OPT_REAL, .strict = 1, .field = AN(render.fmax),
     .also = {AN(peak_fmax), AN(measure.band_hi)}, .help = "highest frequency shown (and searched by --peaks)"},
    {.longname = "realtime", .type = OPT_SWITCH, .field = AN(realtime), .section = "input",
     .help = "stream FILE through the live path at its own rate"},
    {.longname = "duration", .value = "T", .type = OPT_TIME, .strict = 1, .field = AN(duration),
     .help = "stop after T of audio (microphone, file, pipe); a time is seconds or [h:]mm:ss[.fff]"},
    {.longname = "start", .value = "T", .type = OPT_TIME, .field = AN(start),
     .help = "begin T into FILE (seeking where the format allows); frame times stay those of the whole file"},
    {.longname = "end", .value = "T", .type = OPT_TIME, .strict = 1, .field = AN(end),
     .help = "stop T into FILE (not with --duration)"},
    {.longname = "raw-format", .value = "ENC,RATE,CH", .type = OPT_CUSTOM, .parse = parse_raw_format,
     .field = AN(file.raw), .help = "read FILE or - as headerless samples: ENC ", .list = cli_list_raw_encodings,
     .help_after = " (little-endian, interleaved), e.g. f32le,48000,1"},
    {.longname = "stream", .value = "K", .type = OPT_INT, .field = AN(file.stream), .min = 0, .max = 1 << 20,
     .help = "the K-th audio stream of a file that FFmpeg reads (0 = the first, as ffmpeg -map 0:a:K)"},
    {.longname = "files-from", .value = "LIST", .type = OPT_TEXT, .field = OWN(files_from),
     .empty = "--files-from: empty path",
     .help = "analyse the files LIST names, one path a line (- = standard input; blank lines and lines starting "
             "with # skipped), or NUL-separated as find -print0 writes them (found by the NUL byte)"},
    {.longname = "shard", .value = "K/N", .type = OPT_CUSTOM, .parse = parse_shard, .field = OWN(shard_k),
     .also = {OWN(shard_n)},
     .help = "analyse only the inputs i (from 0, in list order) with i % N == K: one of N jobs (K from 0)"},
    {.longname = "list-devices", .type = OPT_SWITCH, .field = OWN(list_devices),
     .help = "list the audio devices, inputs and outputs (direction in, out or in+out), and exit"},
    {.longname = "device", .value = "D", .type = OPT_TEXT, .field = AN(device), .kind = 'd',
     .empty = "--device: empty device name", .help = "microphone: an index or part of a name from --list-devices"},
    {.longname = "output-device", .value = "D", .type = OPT_TEXT, .field = OWN(output_device), .kind = 'd',
     .empty = "--output-device: empty device name",
     .help = "the window's playback (p): an output's index or part of its name from --list-devices (default: the "
             "default output)"},
    {.longname = "rate", .value = "R", .type = OPT_INT, .field = AN(rate), .min = 1, .max = SOURCE_MAX_RATE,
     .help = "microphone: sample rate in Hz (default: the device's)"},
    {.longname = "channels", .value = "C", .type = OPT_INT, .field = AN(channels), .min = 1,
     .max = SOURCE_MAX_CHANNELS, .help = "microphone: channels to capture (default 1)"},
    {.longname = "quiet", .shortname = 'q', .type = OPT_SWITCH, .field = OWN(quiet), .section = "",
     .help = "no progress bar, notes or warnings"},
    {.longname = "verbose", .shortname = 'v', .type = OPT_SWITCH, .field = OWN(verbose),
     .help = "say what was chosen and how fast it ran"},
    {.longname = "help", .shortname = 'h', .type = OPT_SWITCH, .field = OWN(help), .help = "this text"},
    {.longname = "version", .shortname = 'V', .type = OPT_SWITCH, .field = OWN(version), .help = "the version"},
};
const int cli_row_count = (int)(sizeof cli_rows / sizeof cli_rows[0]);
_Static_assert(sizeof cli_rows / sizeof cli_rows[0] <= CLI_MAX_OPTIONS, "cli_options.given holds every row");

const cli_option *cli_row_find(const char *longname)
{
    for (int i = 0; i < cli_row_count; i++)
        if (strcmp(cli_rows[i].longname, longname) == 0)
            return &cli_rows[i];
    return NULL;
}

/* "--fft-size" for each row, by index: what the engine's fields are shown as. */
static char spelled[CLI_MAX_OPTIONS][48];
static pthread_once_t spelled_once = PTHREAD_ONCE_INIT;

static void spell_rows(void)
{
    for (int i = 0; i < cli_row_count; i++)
        snprintf(spelled[i], sizeof spelled[i], "--%s", cli_rows[i].longname);
}

/* The row whose engine name (its .name, or its long name with '_' for '-') is field. */
static const cli_option *row_of_field(const char *field)
{
    for (int i = 0; i < cli_row_count; i++) {
        const cli_option *r = &cli_rows[i];
        const char *a = r->name ? r->name : r->longname, *b = field;
        if (r->name ? strcmp(a, b) == 0 : strlen(a) == strlen(b)) {
            while (!r->name && *a && (*a == *b || (*a == '-' && *b == '_'))) {
                a++;
                b++;
            }
            if (r->name || !*a)
                return r;
        }
    }
    return NULL;
}

const char *cli_field_option(const char *field)
{
    const cli_option *r = row_of_field(field);
    pthread_once(&spelled_once, spell_rows);
    return r ? spelled[r - cli_rows] : NULL;
}

int cli_given(const cli_options *o, const char *longname)
{
    const cli_option *row = cli_row_find(longname);
    return row && o->given[row - cli_rows];
}

/* One option's value (NULL for none) into o, as its row says; name is the option as given ("-n"). */
int cli_apply(cli_options *o, const cli_option *row, const char *name, const char *val, sp_errinfo *ei)
{
    int err = SP_OK;
    o->given[row - cli_rows] = 1;
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

void cli_defaults(cli_options *o)
{
    memset(o, 0, sizeof *o);
    o->an = analyze_config_default();
    o->run = analyze_context_default();
}

/* An optional value is taken from the next argument only when it reads as one: a number or
 * "auto" (a file named "1000" is then written ./1000). */
static int optional_value_at(const char *arg)
{
    char *end;
    double v;
    if (strcmp(arg, "auto") == 0)
        return 1;
    v = strtod(arg, &end);
    return end != arg && !*end && isfinite(v);
}

/* The option that argv[*i] names (with its value, from "--x=V", "-xV" or the next
 * argument, which *i then steps over), or SP_EINVAL naming it. */
static int find_option(int argc, char **argv, int *i, const cli_option **opt, char *name, size_t name_len,
                       const char **val, sp_errinfo *ei)
{
    const char *arg = argv[*i];
    size_t j;
    *val = NULL;
    if (arg[1] == '-') {
        const char *eq = strchr(arg + 2, '=');
        size_t len = eq ? (size_t)(eq - arg - 2) : strlen(arg + 2);
        for (j = 0; j < (size_t)cli_row_count; j++)
            if (strlen(cli_rows[j].longname) == len && strncmp(arg + 2, cli_rows[j].longname, len) == 0)
                break;
        snprintf(name, name_len, "--%.*s", (int)(len < 40 ? len : 40), arg + 2);
        if (j == (size_t)cli_row_count)
            return sp_fail(ei, SP_EINVAL, "%s: unknown option (see spectro --help)", name);
        if (eq && !cli_rows[j].value)
            return sp_fail(ei, SP_EINVAL, "%s: takes no value", name);
        *val = eq ? eq + 1 : NULL;
    } else {
        for (j = 0; j < (size_t)cli_row_count; j++)
            if (cli_rows[j].shortname && cli_rows[j].shortname == arg[1])
                break;
        snprintf(name, name_len, "-%c", arg[1]);
        if (j == (size_t)cli_row_count || (arg[2] && !cli_rows[j].value))
            return sp_fail(ei, SP_EINVAL, "%s: unknown option (see spectro --help)", arg);
        if (arg[2])
            *val = arg + 2;
    }
    if ((cli_rows[j].value && cli_rows[j].value[0] == '[') && !*val) {
        if (*i + 1 < argc && optional_value_at(argv[*i + 1]))
            *val = argv[++*i];
    } else if (cli_rows[j].value && !*val) {
        if (*i + 1 >= argc)
            return sp_fail(ei, SP_EINVAL, "%s: missing value", name);
        *val = argv[++*i];
    }
    *opt = &cli_rows[j];
    return SP_OK;
}

/* --bands turns --dump into the band levels (per frame, or averaged with --average). */
static int check_bands(cli_options *o, sp_errinfo *ei)
{
    analyze_config *a = &o->an;
    int dumps = 0;
    if (cli_given(o, "weighting") && !a->measure.bands)
        return sp_fail(ei, SP_EINVAL, "--weighting: only with --bands (it weights the band levels)");
    if (!a->measure.bands)
        return SP_OK;
    if (a->measure.psd)
        return sp_fail(ei, SP_EINVAL, "--psd: not with --bands (band levels are powers, not densities)");
    for (int i = 0; i < a->n_outputs; i++) {
        const char *banded = sink_kind_find(a->outputs[i].kind)->banded;
        if (banded) {
            a->outputs[i].kind = sink_kind_find(banded)->name;
            dumps++;
        }
    }
    if (!dumps && a->n_outputs == 0 && !cli_given(o, "average")) { /* the window: its band bars start on */
        o->view_bands = a->measure.bands;
        a->measure.bands = 0;
        return SP_OK;
    }
    if (!dumps)
        return sp_fail(ei, SP_EINVAL, "--bands: give --dump for the band levels (or no output: the window's band "
                                      "bars)");
    a->measure.bands_average = cli_given(o, "average");
    return SP_OK;
}

/* --spl-offset: levels read dB SPL (labels, sidecars), the colour range moves with them
 * unless given; --calibrate is --tone's measurement printing an offset: not with --tone or
 * its format. */
static int check_calibrate(cli_options *o, sp_errinfo *ei)
{
    if (cli_given(o, "spl-offset")) {
        o->an.render.level_unit = "dB SPL";
        if (!cli_given(o, "db-range")) {
            o->an.render.db_lo += (float)o->an.measure.spl_offset;
            o->an.render.db_hi += (float)o->an.measure.spl_offset;
        }
    }
    if (!cli_given(o, "calibrate"))
        return SP_OK;
    if (cli_given(o, "tone") || cli_given(o, "tone-format") || cli_given(o, "view"))
        return sp_fail(ei, SP_EINVAL, "--calibrate: not with %s (it prints the offset as JSON)",
                       cli_given(o, "tone") ? "--tone" : cli_given(o, "view") ? "--view" : "--tone-format");
    return SP_OK;
}

/* --loudness turns --dump into the loudness series (its kind's loudness column), which then
 * prints the JSON lines too. */
static int check_loudness(cli_options *o, sp_errinfo *ei)
{
    analyze_config *a = &o->an;
    int at = -1, turned = 0;
    for (int i = 0; i < a->n_outputs; i++)
        if (strcmp(a->outputs[i].kind, "loudness") == 0)
            at = i;
    if (at < 0)
        return SP_OK;
    if (cli_given(o, "average") || a->measure.bands)
        return sp_fail(ei, SP_EINVAL, "%s: not with --loudness (its --dump holds the loudness series)",
                       cli_given(o, "average") ? "--average" : "--bands");
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
static int check_bandwidth(cli_options *o, sp_errinfo *ei)
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
    if (cli_given(o, "average"))
        return sp_fail(ei, SP_EINVAL, "--average: not with --bandwidth and --png (its picture is the long-term "
                                      "spectrum)");
    if (strcmp(a->outputs[png].path, "-") == 0)
        return sp_fail(ei, SP_EINVAL, "--png -: not with --bandwidth, whose line goes to standard output");
    a->outputs[bw].path = a->outputs[png].path;
    for (int i = png; i + 1 < a->n_outputs; i++)
        a->outputs[i] = a->outputs[i + 1];
    a->n_outputs--;
    return SP_OK;
}

/* --average turns --dump and --png into their averaged kinds; --tone picks its window. */
static int check_measure(cli_options *o, sp_errinfo *ei)
{
    analyze_config *a = &o->an;
    int averaged = 0, err;
    if ((err = check_calibrate(o, ei)) != SP_OK || (err = check_loudness(o, ei)) != SP_OK ||
        (err = check_bandwidth(o, ei)) != SP_OK || (err = check_bands(o, ei)) != SP_OK)
        return err;
    if (o->an.measure.psd && !cli_given(o, "average"))
        return sp_fail(ei, SP_EINVAL, "--psd: only with --average (it converts the averaged spectrum)");
    for (int i = 0; cli_given(o, "average") && i < a->n_outputs; i++) {
        /* bands averages its own levels: its averaged kind is itself */
        const char *kind = sink_kind_find(a->outputs[i].kind)->averaged;
        if (kind) {
            a->outputs[i].kind = sink_kind_find(kind)->name;
            averaged++;
        }
    }
    if (cli_given(o, "average") && !averaged && !o->view)
        return sp_fail(ei, SP_EINVAL, "--average: give --dump or --png for the averaged spectrum");
    for (int i = 0; i < a->n_outputs; i++)
        if (strcmp(a->outputs[i].kind, "tone") == 0) {
            /* the window's sidelobes leak the fundamental into the noise: kaiser:20's
             * (-160 dB) measure a 16-bit sine at any frequency; blackman-harris's (-92 dB)
             * stop near 86 dB SNR off a bin, hann's near 35 */
            if (!cli_given(o, "window")) {
                a->window.kind = WINDOW_KAISER;
                a->window.param = TONE_KAISER_BETA;
            }
            return SP_OK;
        }
    if (cli_given(o, "tone-format"))
        return sp_fail(ei, SP_EINVAL, "--tone-format: only with --tone");
    return SP_OK;
}

/* Several inputs (or a list of them): outputs, not the window nor the live path. */
static int check_batch(const cli_options *o, sp_errinfo *ei)
{
    if (!o->batch)
        return SP_OK;
    if (o->n_inputs == 0 && !o->files_from)
        return sp_fail(ei, SP_EINVAL, "--shard: give the inputs (FILE... or --files-from LIST)");
    if (o->an.n_outputs == 0 && !o->an.measure.compare) /* --compare A B: the window shows the pair */
        return sp_fail(ei, SP_EINVAL, "%s: several inputs need an output: --dump, --png or --peaks (the window "
                                      "shows one file)",
                       o->files_from ? "--files-from" : o->shard_n ? "--shard" : o->inputs[1]);
    if (o->an.realtime)
        return sp_fail(ei, SP_EINVAL, "--realtime streams one file, not several (FILE..., --files-from, --shard)");
    return SP_OK;
}

/* The transform the options ask for (--mel, --mfcc, --chroma, --cqt, --reassign), and what
 * has no meaning with one. Its checks at the input's rate and N are xform_create's. */
static int check_xform(cli_options *o, sp_errinfo *ei)
{
    xform_spec *x = &o->an.xform;
    int kinds = (o->mel || o->mfcc) + o->chroma + (o->cqt > 0) + o->reassign, average = cli_given(o, "average");
    const char *name;
    if (kinds == 0)
        return SP_OK;
    if (kinds > 1)
        return sp_fail(ei, SP_EINVAL, "%s: one transform at a time (--mel/--mfcc, --chroma, --cqt, --reassign)",
                       o->chroma ? "--chroma" : o->cqt ? "--cqt" : "--reassign");
    x->kind = o->mfcc ? XFORM_MFCC : o->mel ? XFORM_MEL : o->chroma ? XFORM_CHROMA : o->cqt ? XFORM_CQT : XFORM_REASSIGN;
    x->bands = o->cqt ? o->cqt : o->mel;
    x->coeffs = o->mfcc;
    x->fmin = cli_given(o, "fmin") ? o->an.render.fmin : -1.0;
    x->fmax = o->an.render.fmax;
    name = xform_kind_name(x->kind);
    if (o->mfcc && o->mfcc > (o->mel ? o->mel : XFORM_MEL_DEFAULT_BANDS))
        return sp_fail(ei, SP_EINVAL, "--mfcc %d: more than the %d mel bands (--mel)", o->mfcc,
                       o->mel ? o->mel : XFORM_MEL_DEFAULT_BANDS);
    if (o->an.measure.bands)
        return sp_fail(ei, SP_EINVAL, "--%s: not with --bands (both reduce the spectrum to bands)", name);
    if (o->an.measure.psd)
        return sp_fail(ei, SP_EINVAL, "--psd: not with --%s (its values are no spectrum density)", name);
    if (average && x->kind == XFORM_REASSIGN)
        return sp_fail(ei, SP_EINVAL, "--average: not with --%s (reassigned points have no average)", name);
    if (o->view)
        return sp_fail(ei, SP_EINVAL, "--view: not with --%s (the window shows the linear spectrum)", name);
    for (int i = 0; i < o->an.n_outputs; i++) {
        const char *kind = o->an.outputs[i].kind;
        int png = strcmp(kind, "png") == 0;
        if (png && (x->kind == XFORM_MFCC || average))
            return sp_fail(ei, SP_EINVAL, "--png: no picture of --%s%s yet (give --dump)", name,
                           average ? " --average" : "");
        if (strcmp(kind, "dump") != 0 && !png)
            return sp_fail(ei, SP_EINVAL, "--%s: not with %s (give --dump)", name, sink_kind_find(kind)->option);
    }
    if (o->an.n_outputs == 0)
        return sp_fail(ei, SP_EINVAL, "--%s: give --dump or --png (the window shows the linear spectrum)", name);
    return SP_OK;
}

/* What no single option can check: the options together. */
static int check_together(cli_options *o, sp_errinfo *ei)
{
    int err;
    if (o->an.render.fmax > 0 && o->an.render.fmin >= o->an.render.fmax)
        return sp_fail(ei, SP_EINVAL, "--fmin %g: must be below --fmax %g", o->an.render.fmin, o->an.render.fmax);
    if ((err = check_batch(o, ei)) != SP_OK || (err = check_xform(o, ei)) != SP_OK)
        return err;
    if (o->an.realtime && !o->an.input)
        return sp_fail(ei, SP_EINVAL, "--realtime streams a file: give a FILE");
    if (o->an.end > 0 && o->an.duration > 0)
        return sp_fail(ei, SP_EINVAL, "--end %g: give --end or --duration, not both", o->an.end);
    if (o->an.end > 0 && o->an.end <= o->an.start)
        return sp_fail(ei, SP_EINVAL, "--end %g: must be after --start %g", o->an.end, o->an.start);
    if (!o->an.input && (o->an.start > 0 || o->an.end > 0))
        return sp_fail(ei, SP_EINVAL, "%s: a time range needs a FILE (or -), not the microphone",
                       o->an.start > 0 ? "--start" : "--end");
    if ((!o->an.input || strncmp(o->an.input, "synth:", 6) == 0) &&
        (o->an.file.raw.encoding >= 0 || o->an.file.stream > 0))
        return sp_fail(ei, SP_EINVAL, "%s: reads a FILE or -, not %s",
                       o->an.file.raw.encoding >= 0 ? "--raw-format" : "--stream",
                       o->an.input ? "a generated signal" : "the microphone");
    if (o->an.file.raw.encoding >= 0 && o->an.file.stream > 0)
        return sp_fail(ei, SP_EINVAL, "--stream %d: raw samples hold one stream", o->an.file.stream);
    if ((o->an.input || o->files_from) && (o->an.device || o->an.rate || o->an.channels))
        return sp_fail(ei, SP_EINVAL, "%s: --device, --rate and --channels are for the microphone, not a file",
                       o->an.device ? "--device" : o->an.rate ? "--rate" : "--channels");
    if ((err = cli_transfer_check(o, ei)) != SP_OK)
        return err;
    return check_measure(o, ei);
}

/* --view: the window takes --tone and --average mean (its panel's tone analysis and
 * infinite running average) in place of their outputs; nothing else is written. */
static int check_view(cli_options *o, sp_errinfo *ei)
{
    analyze_config *a = &o->an;
    if (!o->view)
        return SP_OK;
    if (o->batch)
        return sp_fail(ei, SP_EINVAL, "--view: the window shows one input");
    for (int i = 0; i < a->n_outputs; i++) {
        if (strcmp(a->outputs[i].kind, "tone") != 0)
            return sp_fail(ei, SP_EINVAL, "--view: not with %s (the window writes no output; --tone and --average "
                                          "mean go to the window)",
                           sink_kind_find(a->outputs[i].kind)->option);
        o->view_tone = 1;
    }
    if (cli_given(o, "tone-format"))
        return sp_fail(ei, SP_EINVAL, "--tone-format: not with --view (the window shows the tone analysis)");
    if (a->measure.psd)
        return sp_fail(ei, SP_EINVAL, "--psd: not with --view (the window shows levels in dBFS)");
    if (cli_given(o, "average") && a->measure.average != MEASURE_MEAN)
        return sp_fail(ei, SP_EINVAL, "--view: --average %s is not in the window (its running average is a mean)",
                       measure_average_name((int)a->measure.average));
    o->view_average = cli_given(o, "average");
    if (!o->view_tone && !o->view_average)
        return sp_fail(ei, SP_EINVAL, "--view: give --tone or --average mean (the window opens without --view)");
    a->n_outputs = 0;
    return SP_OK;
}

int cli_parse(int argc, char **argv, cli_options *o, sp_errinfo *ei)
{
    int only_files = 0, err, n_in = 0;
    cli_defaults(o);
    for (int i = 1; i < argc; i++) {
        char *arg = argv[i];
        const char *val = NULL;
        const cli_option *opt = NULL;
        char name[64];
        if (only_files || arg[0] != '-' || strcmp(arg, "-") == 0) {
            /* every slot before i has been read: the FILEs gather at the front */
            argv[1 + n_in++] = arg;
            continue;
        }
        if (strcmp(arg, "--") == 0) {
            only_files = 1;
            continue;
        }
        if ((err = find_option(argc, argv, &i, &opt, name, sizeof name, &val, ei)) != SP_OK ||
            (err = cli_apply(o, opt, name, val, ei)) != SP_OK)
            return err;
    }
    o->inputs = (const char *const *)argv + 1;
    o->n_inputs = n_in;
    o->an.input = n_in > 0 ? argv[1] : NULL;
    o->batch = n_in > 1 || o->files_from || o->shard_n > 0;
    if (o->help || o->version || o->list_devices)
        return SP_OK;
    if ((err = check_together(o, ei)) != SP_OK || (err = check_view(o, ei)) != SP_OK)
        return err;
    o->headless = o->an.n_outputs > 0;
    if (o->output_device && (o->headless || o->batch || !o->an.input))
        return sp_fail(ei, SP_EINVAL, "--output-device: playback is the window's, of a FILE (not with %s)",
                       o->headless ? "an output" : o->batch ? "several inputs" : "the microphone");
    if (o->an.hop == 0)
        o->an.hop = fft_default_hop(o->an.n);
    return SP_OK;
}
