#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bands.h"
#include "batch.h"
#include "colormap.h"
#include "dump.h"
#include "measure.h"
#include "numfmt.h"
#include "scale.h"
#include "stft.h"
#include "xform.h"

typedef enum {
    OPT_FFT_SIZE,
    OPT_HOP,
    OPT_WINDOW,
    OPT_CHANNEL,
    OPT_BACKEND,
    OPT_DUMP,
    OPT_PEAKS,
    OPT_QUIET,
    OPT_VERBOSE,
    OPT_HELP,
    OPT_VERSION,
    OPT_PNG,
    OPT_SIZE,
    OPT_SCALE,
    OPT_COLORMAP,
    OPT_DB_RANGE,
    OPT_FMIN,
    OPT_FMAX,
    OPT_REALTIME,
    OPT_DURATION,
    OPT_START,
    OPT_END,
    OPT_RAW_FORMAT,
    OPT_STREAM,
    OPT_LIST_DEVICES,
    OPT_DEVICE,
    OPT_OUTPUT_DEVICE,
    OPT_RATE,
    OPT_CHANNELS,
    OPT_AVERAGE,
    OPT_PSD,
    OPT_TONE,
    OPT_TONE_FORMAT,
    OPT_BANDS,
    OPT_WEIGHTING,
    OPT_VIEW,
    OPT_FILES_FROM,
    OPT_SHARD,
    OPT_MEL,
    OPT_MFCC,
    OPT_CHROMA,
    OPT_CQT,
    OPT_REASSIGN
} opt_id;

/* A list that --help reads from its module's table ("hann (default), hamming, ..."). */
typedef void (*list_fn)(char *buf, size_t len);
static void list_windows(char *buf, size_t len);
static void list_backends(char *buf, size_t len);
static void list_dump_formats(char *buf, size_t len);
static void list_scales(char *buf, size_t len);
static void list_colormaps(char *buf, size_t len);
static void list_averages(char *buf, size_t len);
static void list_tone_formats(char *buf, size_t len);
static void list_weightings(char *buf, size_t len);

#define TONE_KAISER_BETA 20.0 /* --tone's window unless --window is given */

/* --tone-format's names: the one list the parser, --help and completion read. */
static const char *const TONE_FORMATS[] = {"json", "text"};
#define TONE_FORMAT_COUNT ((int)(sizeof TONE_FORMATS / sizeof TONE_FORMATS[0]))
static void list_raw_encodings(char *buf, size_t len);

/* The one table of options: the parser and --help read it (and, later, the man page and
 * shell completion). In --help's order; `section` starts a group ("" = a blank line only).
 * The help text is `help`, then the list, then `help_after`; "\n" forces a line break,
 * other breaks come from wrapping at HELP_WIDTH. */
typedef struct {
    const char *longname;
    char shortname;
    const char *value; /* the value's name in --help; NULL: takes no value */
    opt_id id;
    const char *section;
    const char *help;
    list_fn list;
    const char *help_after;
} cli_option;

/* A value name in brackets ("[F]") is optional: "--x", "--x=V", or "--x V" when V reads as a
 * value (optional_value_at). */
#define OPTION_VALUE_OPTIONAL(o) ((o)->value && (o)->value[0] == '[')

static const cli_option options[] = {
    {.longname = "fft-size", .shortname = 'n', .value = "N", .id = OPT_FFT_SIZE, .section = "analysis",
     .help = "FFT size, a power of two from 16 to 4194304 (default " FFT_STR(FFT_DEFAULT_SIZE) ")"},
    {.longname = "hop", .value = "H", .id = OPT_HOP, .help = "frame step in samples, >= 1 (default N/4)"},
    {.longname = "window", .shortname = 'w', .value = "NAME[:P]", .id = OPT_WINDOW, .help = "", .list = list_windows},
    {.longname = "channel", .shortname = 'c', .value = "C", .id = OPT_CHANNEL,
     .help = "mix (default: the mean of all channels), all, or an index from 0"},
    {.longname = "backend", .shortname = 'b', .value = "B", .id = OPT_BACKEND, .help = "", .list = list_backends},
    {.longname = "dump", .shortname = 'o', .value = "OUT", .id = OPT_DUMP, .section = "output",
     .help = "write the spectra in dBFS: ", .list = list_dump_formats,
     .help_after = ", with the metadata in OUT.json beside it; - writes CSV to standard output. With several "
                   "files OUT is a pattern ({stem}: the input's name without extension, {name}: with it, {dir}: "
                   "its directory) or a directory (DIR/ = DIR/{stem}.npy); the same for --png"},
    {.longname = "peaks", .id = OPT_PEAKS,
     .help = "print one line per frame: time_s<TAB>freq_hz<TAB>db\n(with --channel all: channel<TAB>time_s<TAB>freq_hz<TAB>db;"
             "\nover several files: the file first)"},
    {.longname = "png", .value = "OUT", .id = OPT_PNG, .section = "",
     .help = "draw the spectrogram picture to OUT (PNG; - = standard output), no window"},
    {.longname = "average", .value = "MODE", .id = OPT_AVERAGE, .section = "measurement",
     .help = "with --dump or --png: one spectrum per channel kept over all frames instead of every frame (--png: a "
             "spectrum plot, its strongest peaks labelled): ", .list = list_averages},
    {.longname = "psd", .id = OPT_PSD,
     .help = "with --average: write the power spectral density in dBFS/Hz, the level less 10*log10(ENBW * bin width)"},
    {.longname = "tone", .value = "[F]", .id = OPT_TONE,
     .help = "tone analysis of the strongest tone in the band (--fmin/--fmax, default 20 Hz to 20 kHz), or of the tone at F "
             "Hz (--tone=F, or --tone F when F is a number): fundamental, harmonics 2-10, THD, THD+N, SNR, SINAD, ENOB, "
             "noise, from the power-mean spectrum; one JSON object a line on standard output, each second when live; the "
             "window is kaiser:20 unless --window is given"},
    {.longname = "tone-format", .value = "FMT", .id = OPT_TONE_FORMAT, .help = "--tone's output: ",
     .list = list_tone_formats},
    {.longname = "bands", .value = "B", .id = OPT_BANDS,
     .help = "with --dump: fractional-octave band levels in dBFS (1/B octave: 1, 3, 6 or 12; IEC 61260-1 base-10 mid "
             "frequencies within --fmin/--fmax, default 20 Hz to 20 kHz), per frame, or averaged with --average"},
    {.longname = "weighting", .value = "W", .id = OPT_WEIGHTING,
     .help = "with --bands: frequency weighting (IEC 61672-1): ", .list = list_weightings},
    {.longname = "view", .id = OPT_VIEW,
     .help = "with --tone or --average mean: open the window instead, with its tone analysis on (harmonics marked, THD, "
             "THD+N, SNR) or its running average in infinite mode"},
    {.longname = "mel", .value = "B", .id = OPT_MEL, .section = "transforms (docs/transforms.md; with --dump)",
     .help = "B mel bands (Slaney scale, area-normalised) between --fmin and --fmax (default 0 Hz and Nyquist), in "
             "dBFS"},
    {.longname = "mfcc", .value = "K", .id = OPT_MFCC,
     .help = "K mel-frequency cepstral coefficients: the orthonormal DCT-II of the mel dB bands (--mel, default 128)"},
    {.longname = "chroma", .id = OPT_CHROMA,
     .help = "12 pitch classes from C (A4 = 440 Hz), each frame divided by its maximum"},
    {.longname = "cqt", .value = "B", .id = OPT_CQT,
     .help = "constant-Q levels in dBFS, B bins per octave from --fmin (default C1 = 32.70 Hz) to --fmax (default the "
             "highest bin below Nyquist); the lowest bin's kernel must fit in N"},
    {.longname = "reassign", .id = OPT_REASSIGN,
     .help = "the reassigned spectrogram: each bin's frequency (Hz), time (s) and level (dBFS), a dump of (frames, "
             "bins, 3)"},
    {.longname = "size", .value = "WxH", .id = OPT_SIZE, .section = "picture and window",
     .help = "picture size in pixels (default 1920x1080)"},
    {.longname = "scale", .value = "S", .id = OPT_SCALE, .help = "frequency axis: ", .list = list_scales},
    {.longname = "colormap", .value = "C", .id = OPT_COLORMAP, .help = "", .list = list_colormaps},
    {.longname = "db-range", .value = "LO:HI", .id = OPT_DB_RANGE, .help = "colour range in dBFS (default -120:0)"},
    {.longname = "fmin", .value = "HZ", .id = OPT_FMIN, .help = "lowest frequency shown (and searched by --peaks)"},
    {.longname = "fmax", .value = "HZ", .id = OPT_FMAX, .help = "highest frequency shown (and searched by --peaks)"},
    {.longname = "realtime", .id = OPT_REALTIME, .section = "input",
     .help = "stream FILE through the live path at its own rate"},
    {.longname = "duration", .value = "T", .id = OPT_DURATION,
     .help = "stop after T of audio (microphone, file, pipe); a time is seconds or [h:]mm:ss[.fff]"},
    {.longname = "start", .value = "T", .id = OPT_START,
     .help = "begin T into FILE (seeking where the format allows); frame times stay "
             "those of the whole file"},
    {.longname = "end", .value = "T", .id = OPT_END, .help = "stop T into FILE (not with --duration)"},
    {.longname = "raw-format", .value = "ENC,RATE,CH", .id = OPT_RAW_FORMAT,
     .help = "read FILE or - as headerless samples: ENC ", .list = list_raw_encodings,
     .help_after = " (little-endian, interleaved), e.g. f32le,48000,1"},
    {.longname = "stream", .value = "K", .id = OPT_STREAM,
     .help = "the K-th audio stream of a file that FFmpeg reads (0 = the first, as ffmpeg -map 0:a:K)"},
    {.longname = "files-from", .value = "LIST", .id = OPT_FILES_FROM,
     .help = "analyse the files LIST names, one path a line (- = standard input; blank lines and lines starting "
             "with # skipped), or NUL-separated as find -print0 writes them (found by the NUL byte)"},
    {.longname = "shard", .value = "K/N", .id = OPT_SHARD,
     .help = "analyse only the inputs i (from 0, in list order) with i % N == K: one of N jobs (K from 0)"},
    {.longname = "list-devices", .id = OPT_LIST_DEVICES,
     .help = "list the audio devices, inputs and outputs (direction in, out or in+out), and exit"},
    {.longname = "device", .value = "D", .id = OPT_DEVICE,
     .help = "microphone: an index or part of a name from --list-devices"},
    {.longname = "output-device", .value = "D", .id = OPT_OUTPUT_DEVICE,
     .help = "the window's playback (p): an output's index or part of its name from --list-devices (default: the "
             "default output)"},
    {.longname = "rate", .value = "R", .id = OPT_RATE, .help = "microphone: sample rate in Hz (default: the device's)"},
    {.longname = "channels", .value = "C", .id = OPT_CHANNELS, .help = "microphone: channels to capture (default 1)"},
    {.longname = "quiet", .shortname = 'q', .id = OPT_QUIET, .section = "",
     .help = "no progress bar, notes or warnings"},
    {.longname = "verbose", .shortname = 'v', .id = OPT_VERBOSE, .help = "say what was chosen and how fast it ran"},
    {.longname = "help", .shortname = 'h', .id = OPT_HELP, .help = "this text"},
    {.longname = "version", .shortname = 'V', .id = OPT_VERSION, .help = "the version"},
};
#define OPTION_COUNT (sizeof options / sizeof options[0])

/* ---- --help ------------------------------------------------------------------------ */

#define HELP_WIDTH 90  /* the longest line --help prints */
#define HELP_INDENT 25 /* where the help text starts, after "  -w, --window NAME[:P]  " */

/* Appends to buf (at *at) what the format makes, truncating at len. */
static void list_add(char *buf, size_t len, size_t *at, const char *sep, const char *item, const char *note)
{
    int w;
    if (*at >= len)
        return;
    w = snprintf(buf + *at, len - *at, "%s%s%s%s%s", sep, item, note ? " (" : "", note ? note : "", note ? ")" : "");
    if (w > 0)
        *at += (size_t)w;
}

static void list_windows(char *buf, size_t len)
{
    window_spec def = window_spec_default();
    size_t at = 0;
    buf[0] = 0;
    for (int i = 0; i < window_count(); i++) {
        char item[96];
        window_help(i, item, sizeof item);
        list_add(buf, len, &at, i ? ", " : "", item, window_spec_at(i).kind == def.kind ? "default" : NULL);
    }
}

/* The default backend's note says what it picks: "auto (default: cuda when ...)". */
static void list_backends(char *buf, size_t len)
{
    fft_backend_kind def = fft_config_default().backend, kind;
    size_t at = 0;
    buf[0] = 0;
    for (int i = 0; i < fft_backend_count(); i++) {
        char note[128];
        int is_def = fft_backend_parse(fft_backend_name(i), &kind) == SP_OK && kind == def;
        snprintf(note, sizeof note, "default: %s", fft_backend_help(i));
        list_add(buf, len, &at, i ? ", " : "", fft_backend_name(i), is_def ? note : NULL);
    }
}

/* "OUT.npy (NumPy) or OUT.csv" */
static void list_dump_formats(char *buf, size_t len)
{
    size_t at = 0;
    int n = dump_format_count();
    buf[0] = 0;
    for (int i = 0; i < n; i++) {
        char item[32];
        snprintf(item, sizeof item, "OUT%s", dump_format_ext(i));
        list_add(buf, len, &at, i == 0 ? "" : i + 1 < n ? ", " : " or ", item, dump_format_help(i));
    }
}

static void list_scales(char *buf, size_t len)
{
    freq_scale def = render_config_default().scale;
    size_t at = 0;
    buf[0] = 0;
    for (int i = 0; i < scale_count(); i++)
        list_add(buf, len, &at, i ? ", " : "", scale_name((freq_scale)i), i == (int)def ? "default" : NULL);
}

static void list_averages(char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = 0;
    for (int i = 0; i < measure_average_count(); i++)
        list_add(buf, len, &at, i ? ", " : "", measure_average_name(i), measure_average_help(i));
}

static void list_tone_formats(char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = 0;
    for (int i = 0; i < TONE_FORMAT_COUNT; i++)
        list_add(buf, len, &at, i ? ", " : "", TONE_FORMATS[i], i == 0 ? "default" : NULL);
}

static void list_weightings(char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = 0;
    for (int i = 0; i < BANDS_WEIGHT_COUNT; i++)
        list_add(buf, len, &at, i ? ", " : "", bands_weighting_name((bands_weighting)i), i == 0 ? "default: none" : NULL);
}

static void list_colormaps(char *buf, size_t len)
{
    int def = render_config_default().colormap;
    size_t at = 0;
    buf[0] = 0;
    for (int i = 0; i < colormap_count(); i++)
        list_add(buf, len, &at, i ? ", " : "", colormap_name(i), i == def ? "default" : NULL);
}

static void list_raw_encodings(char *buf, size_t len)
{
    size_t at = 0;
    int n = source_raw_count();
    buf[0] = 0;
    for (int i = 0; i < n; i++)
        list_add(buf, len, &at, i == 0 ? "" : i + 1 < n ? ", " : " or ", source_raw_name(i), NULL);
}

/* Prints text from column `col` (the cursor is there), wrapping at HELP_WIDTH onto lines
 * indented to HELP_INDENT; "\n" in text breaks the line. */
static void help_wrap(FILE *f, const char *text, size_t col)
{
    const char *p = text;
    int line_start = 1;
    while (*p) {
        size_t word = strcspn(p, " \n");
        if (!line_start && col + 1 + word > HELP_WIDTH) {
            fprintf(f, "\n%*s", HELP_INDENT, "");
            col = HELP_INDENT;
            line_start = 1;
        }
        if (!line_start) {
            fputc(' ', f);
            col++;
        }
        fprintf(f, "%.*s", (int)word, p);
        col += word;
        line_start = 0;
        p += word;
        if (*p == '\n') {
            fprintf(f, "\n%*s", HELP_INDENT, "");
            col = HELP_INDENT;
            line_start = 1;
        }
        if (*p)
            p++;
    }
    fputc('\n', f);
}

static void help_option(FILE *f, const cli_option *opt)
{
    char head[64], text[1024], list[512] = "";
    int w;
    if (opt->shortname)
        w = snprintf(head, sizeof head, "  -%c, --%s%s%s", opt->shortname, opt->longname, opt->value ? " " : "",
                     opt->value ? opt->value : "");
    else
        w = snprintf(head, sizeof head, "      --%s%s%s", opt->longname, opt->value ? " " : "",
                     opt->value ? opt->value : "");
    if (opt->list)
        opt->list(list, sizeof list);
    snprintf(text, sizeof text, "%s%s%s", opt->help, list, opt->help_after ? opt->help_after : "");
    if (w >= HELP_INDENT) /* a long head ("--raw-format ENC,RATE,CH"): the text goes below */
        fprintf(f, "%s\n%*s", head, HELP_INDENT, "");
    else
        fprintf(f, "%-*s", HELP_INDENT, head);
    help_wrap(f, text, HELP_INDENT);
}

/* ---- the table as data (man page, completion) --------------------------------------- */

/* The bare names of a list option's table, space-separated. */
static void list_names(list_fn list, char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = 0;
    if (list == list_windows)
        for (int i = 0; i < window_count(); i++)
            list_add(buf, len, &at, i ? " " : "", window_name(i), NULL);
    else if (list == list_backends)
        for (int i = 0; i < fft_backend_count(); i++)
            list_add(buf, len, &at, i ? " " : "", fft_backend_name(i), NULL);
    else if (list == list_scales)
        for (int i = 0; i < scale_count(); i++)
            list_add(buf, len, &at, i ? " " : "", scale_name((freq_scale)i), NULL);
    else if (list == list_colormaps)
        for (int i = 0; i < colormap_count(); i++)
            list_add(buf, len, &at, i ? " " : "", colormap_name(i), NULL);
    else if (list == list_averages)
        for (int i = 0; i < measure_average_count(); i++)
            list_add(buf, len, &at, i ? " " : "", measure_average_name(i), NULL);
    else if (list == list_tone_formats)
        for (int i = 0; i < TONE_FORMAT_COUNT; i++)
            list_add(buf, len, &at, i ? " " : "", TONE_FORMATS[i], NULL);
    else if (list == list_weightings)
        for (int i = 0; i < BANDS_WEIGHT_COUNT; i++)
            list_add(buf, len, &at, i ? " " : "", bands_weighting_name((bands_weighting)i), NULL);
}

int cli_option_count(void)
{
    return (int)OPTION_COUNT;
}

int cli_option_doc_at(int i, cli_option_doc *out)
{
    const cli_option *o;
    char list[512] = "";
    if (i < 0 || i >= (int)OPTION_COUNT || !out)
        return SP_EINVAL;
    o = &options[i];
    memset(out, 0, sizeof *out);
    out->longname = o->longname;
    out->shortname = o->shortname;
    out->value = o->value;
    out->section = o->section;
    if (o->list)
        o->list(list, sizeof list);
    snprintf(out->text, sizeof out->text, "%s%s%s", o->help, list, o->help_after ? o->help_after : "");
    out->kind = 'n';
    if (o->list && o->list != list_dump_formats && o->list != list_raw_encodings) {
        out->kind = 'l';
        list_names(o->list, out->values, sizeof out->values);
    } else if (o->id == OPT_CHANNEL) {
        out->kind = 'l';
        snprintf(out->values, sizeof out->values, "mix all");
    } else if (o->id == OPT_DEVICE || o->id == OPT_OUTPUT_DEVICE) {
        out->kind = 'd';
    } else if (o->value && strcmp(o->value, "OUT") == 0) {
        out->kind = 'f';
    }
    return SP_OK;
}

void cli_usage(FILE *f)
{
    fputs("usage: spectro [options] [FILE...]\n"
          "\n"
          "A spectrum analyzer. With FILE (WAV, FLAC, Ogg, AIFF, MP3, ... anything libsndfile\n"
          "reads, and with FFmpeg AAC/M4A, video soundtracks, WMA, AC-3, ...) it analyses the\n"
          "file; without, the microphone. FILE - (or a FIFO) reads a stream: WAV, AU, or raw\n"
          "samples with --raw-format. With no output option it opens a window: a scrolling\n"
          "spectrogram (microphone, --realtime, a pipe) or the whole file.\n"
          "FILE may also be a generated signal, synth:KEY=VALUE,... with the keys rate, channels,\n"
          "sine=FREQ[@AMP] (up to 8), noise=AMP, step=HZ (per channel), duration=S|inf, seed=N,\n"
          "e.g. synth:channels=2,sine=1000,sine=5000@0.1,noise=0.01,duration=10\n"
          "Several files (or --files-from) are analysed in one run into the outputs' patterns.\n",
          f);
    for (size_t i = 0; i < OPTION_COUNT; i++) {
        if (options[i].section)
            fprintf(f, "\n%s%s", options[i].section, *options[i].section ? ":\n" : "");
        help_option(f, &options[i]);
    }
    fputs("\n"
          "Levels are dBFS: a full-scale sine on a bin reads 0 dB with any window; the floor is -200.\n"
          "Exit status: 0 success, 1 runtime failure (I/O, device, any file of several), 2 bad usage\n"
          "or bad input, 130 / 143 interrupted by SIGINT / SIGTERM.\n",
          f);
}

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

static int parse_raw_format(const char *val, source_file_options *f, sp_errinfo *ei)
{
    return source_raw_parse(val, &f->raw, ei);
}

static int parse_fft_size(const char *name, const char *val, size_t *n, sp_errinfo *ei)
{
    int err = parse_size(name, val, 0, (size_t)-1, n, ei); /* 0 too: the power-of-two message */
    if (err != SP_OK)
        return err;
    if (!fft_size_valid(*n))
        return sp_fail(ei, SP_EINVAL, "%s %s: must be a power of two from %u to %u", name, val, FFT_MIN_SIZE,
                       FFT_MAX_SIZE);
    return SP_OK;
}

static int parse_channel(const char *name, const char *val, int *channel, sp_errinfo *ei)
{
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

static int parse_backend(const char *name, const char *val, fft_backend_kind *kind, sp_errinfo *ei)
{
    char list[128];
    size_t at = 0;
    if (fft_backend_parse(val, kind) == SP_OK)
        return SP_OK;
    list[0] = 0;
    for (int i = 0; i < fft_backend_count(); i++)
        list_add(list, sizeof list, &at, i ? ", " : "", fft_backend_name(i), NULL);
    return sp_fail(ei, SP_EINVAL, "%s %s: unknown backend (%s)", name, val, list);
}

/* "1920x1080" -> 1920, 1080; RENDER_MIN_WIDTH x RENDER_MIN_HEIGHT .. RENDER_MAX_SIZE. */
static int parse_picture_size(const char *text, int *w, int *h, sp_errinfo *ei)
{
    char *end;
    long a, b;
    if (!text || !*text)
        return sp_fail(ei, SP_EINVAL, "--size: expected WxH, e.g. 1920x1080");
    a = strtol(text, &end, 10);
    if (end == text || (*end != 'x' && *end != 'X') || end[1] < '0' || end[1] > '9')
        return sp_fail(ei, SP_EINVAL, "--size %s: expected WxH, e.g. 1920x1080", text);
    b = strtol(end + 1, &end, 10);
    if (*end)
        return sp_fail(ei, SP_EINVAL, "--size %s: expected WxH, e.g. 1920x1080", text);
    if (a < RENDER_MIN_WIDTH || a > RENDER_MAX_SIZE || b < RENDER_MIN_HEIGHT || b > RENDER_MAX_SIZE)
        return sp_fail(ei, SP_EINVAL, "--size %s: width must be %d .. %d and height %d .. %d pixels", text,
                       RENDER_MIN_WIDTH, RENDER_MAX_SIZE, RENDER_MIN_HEIGHT, RENDER_MAX_SIZE);
    *w = (int)a;
    *h = (int)b;
    return SP_OK;
}

/* "-120:0" -> -120, 0 (lo < hi, finite). */
static int parse_db_range(const char *text, float *lo, float *hi, sp_errinfo *ei)
{
    char *end;
    double a, b;
    if (!text || !*text)
        return sp_fail(ei, SP_EINVAL, "--db-range: expected LO:HI in dB, e.g. -120:0");
    a = strtod(text, &end);
    if (end == text || *end != ':')
        return sp_fail(ei, SP_EINVAL, "--db-range %s: expected LO:HI in dB, e.g. -120:0", text);
    b = strtod(end + 1, &end);
    if (end == text || *end || !isfinite(a) || !isfinite(b) || fabs(a) > 1e4 || fabs(b) > 1e4)
        return sp_fail(ei, SP_EINVAL, "--db-range %s: expected LO:HI in dB, e.g. -120:0", text);
    if (!(a < b))
        return sp_fail(ei, SP_EINVAL, "--db-range %s: LO must be below HI", text);
    *lo = (float)a;
    *hi = (float)b;
    return SP_OK;
}

/* A non-empty path or name: *out = val. */
static int parse_nonempty(const char *what, const char *val, const char **out, sp_errinfo *ei)
{
    if (!*val)
        return sp_fail(ei, SP_EINVAL, "%s", what);
    *out = val;
    return SP_OK;
}

/* --fmin / --fmax: the picture's range, and the range the peaks are searched in. */
static int parse_freq(const char *name, const char *val, int strict, double *render_f, double *peak_f,
                      sp_errinfo *ei)
{
    int err = parse_real(name, val, 0.0, strict, render_f, ei);
    if (err == SP_OK)
        *peak_f = *render_f;
    return err;
}

/* A directory (DIR/ = DIR/{stem}.npy) has no extension to check. */
static int parse_dump(analyze_config *a, const char *val, sp_errinfo *ei)
{
    dump_format fmt;
    int err = *val && batch_output_is_dir(val) ? SP_OK : dump_format_from_path(val, &fmt, ei);
    return err != SP_OK ? err : analyze_set_output(a, "dump", val, ei);
}

/* "K/N": 0 <= K < N. */
static int parse_shard(cli_options *o, const char *name, const char *val, sp_errinfo *ei)
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
    o->shard_k = (int)k;
    o->shard_n = (int)n;
    return SP_OK;
}

static int parse_png(analyze_config *a, const char *val, sp_errinfo *ei)
{
    if (!*val)
        return sp_fail(ei, SP_EINVAL, "--png: missing output path");
    return analyze_set_output(a, "png", val, ei);
}

/* --fmin / --fmax also bound --tone's band (where a value given, even 0, replaces the default). */
static int parse_band(const char *name, const char *val, int strict, double *render_f, double *peak_f, double *band_f,
                      sp_errinfo *ei)
{
    int err = parse_freq(name, val, strict, render_f, peak_f, ei);
    if (err == SP_OK)
        *band_f = *render_f;
    return err;
}

static int parse_average(cli_options *o, const char *val, sp_errinfo *ei)
{
    o->average = 1;
    return measure_average_parse(val, &o->an.measure.average, ei);
}

/* --tone, --tone=auto: the strongest tone; --tone=F, --tone F: the tone at F Hz. */
static int parse_tone(analyze_config *a, const char *name, const char *val, sp_errinfo *ei)
{
    int err;
    a->measure.tone_hz = 0.0;
    if (val && strcmp(val, "auto") != 0 && (err = parse_real(name, val, 0.0, 1, &a->measure.tone_hz, ei)) != SP_OK)
        return err;
    return analyze_set_output(a, "tone", NULL, ei);
}

static int parse_tone_format(cli_options *o, const char *name, const char *val, sp_errinfo *ei)
{
    for (int i = 0; i < TONE_FORMAT_COUNT; i++)
        if (strcmp(val, TONE_FORMATS[i]) == 0) {
            o->an.measure.tone_text = i == 1;
            o->tone_format = 1;
            return SP_OK;
        }
    return sp_fail(ei, SP_EINVAL, "%s %s: unknown format (json, text)", name, val);
}

static int parse_bands(cli_options *o, const char *name, const char *val, sp_errinfo *ei)
{
    int b = 0, err = parse_int(name, val, 1, 12, &b, ei);
    if (err != SP_OK)
        return err;
    if (b != 1 && b != 3 && b != 6 && b != 12)
        return sp_fail(ei, SP_EINVAL, "%s %s: one of 1, 3, 6, 12 (1/B octave)", name, val);
    o->an.measure.bands = b;
    return SP_OK;
}

static int parse_weighting(cli_options *o, const char *val, sp_errinfo *ei)
{
    bands_weighting w;
    int err = bands_weighting_parse(val, &w, ei);
    o->weighting = 1;
    o->an.measure.weighting = (int)w;
    return err;
}

/* ---- the command line ------------------------------------------------------------------ */

static int set_flag(int *flag)
{
    *flag = 1;
    return SP_OK;
}

/* One option's value (NULL for a switch) into o; name is the option as given ("-n"). */
static int apply(cli_options *o, opt_id id, const char *name, const char *val, sp_errinfo *ei)
{
    analyze_config *a = &o->an;
    render_config *r = &a->render;
    switch (id) {
    case OPT_FFT_SIZE: return parse_fft_size(name, val, &a->n, ei);
    case OPT_HOP: return parse_size(name, val, 1, (size_t)1 << 40, &a->hop, ei);
    case OPT_WINDOW: o->window = 1; return window_parse(val, &a->window, ei);
    case OPT_CHANNEL: return parse_channel(name, val, &a->channel, ei);
    case OPT_BACKEND: return parse_backend(name, val, &a->backend, ei);
    case OPT_DUMP: return parse_dump(a, val, ei);
    case OPT_PEAKS: return analyze_set_output(a, "peaks", NULL, ei);
    case OPT_PNG: return parse_png(a, val, ei);
    case OPT_SIZE: return parse_picture_size(val, &r->width, &r->height, ei);
    case OPT_SCALE: return scale_parse(val, &r->scale, ei);
    case OPT_COLORMAP: return colormap_parse(val, &r->colormap, ei);
    case OPT_DB_RANGE: return parse_db_range(val, &r->db_lo, &r->db_hi, ei);
    case OPT_FMIN: o->fmin = 1; return parse_band(name, val, 0, &r->fmin, &a->peak_fmin, &a->measure.band_lo, ei);
    case OPT_FMAX: return parse_band(name, val, 1, &r->fmax, &a->peak_fmax, &a->measure.band_hi, ei);
    case OPT_REALTIME: return set_flag(&a->realtime);
    case OPT_DURATION: return parse_time(name, val, 1, &a->duration, ei);
    case OPT_START: return parse_time(name, val, 0, &a->start, ei);
    case OPT_END: return parse_time(name, val, 1, &a->end, ei);
    case OPT_RAW_FORMAT: return parse_raw_format(val, &a->file, ei);
    case OPT_STREAM: return parse_int(name, val, 0, 1 << 20, &a->file.stream, ei);
    case OPT_LIST_DEVICES: return set_flag(&o->list_devices);
    case OPT_DEVICE: return parse_nonempty("--device: empty device name", val, &a->device, ei);
    case OPT_OUTPUT_DEVICE: return parse_nonempty("--output-device: empty device name", val, &o->output_device, ei);
    case OPT_RATE: return parse_int(name, val, 1, SOURCE_MAX_RATE, &a->rate, ei);
    case OPT_CHANNELS: return parse_int(name, val, 1, SOURCE_MAX_CHANNELS, &a->channels, ei);
    case OPT_FILES_FROM: return parse_nonempty("--files-from: empty path", val, &o->files_from, ei);
    case OPT_SHARD: return parse_shard(o, name, val, ei);
    case OPT_QUIET: return set_flag(&o->quiet);
    case OPT_VERBOSE: return set_flag(&o->verbose);
    case OPT_HELP: return set_flag(&o->help);
    case OPT_VERSION: return set_flag(&o->version);
    case OPT_AVERAGE: return parse_average(o, val, ei);
    case OPT_PSD: return set_flag(&a->measure.psd);
    case OPT_TONE: return parse_tone(a, name, val, ei);
    case OPT_TONE_FORMAT: return parse_tone_format(o, name, val, ei);
    case OPT_BANDS: return parse_bands(o, name, val, ei);
    case OPT_WEIGHTING: return parse_weighting(o, val, ei);
    case OPT_VIEW: return set_flag(&o->view);
    case OPT_MEL: return parse_int(name, val, 1, XFORM_MAX_BANDS, &o->mel, ei);
    case OPT_MFCC: return parse_int(name, val, 1, XFORM_MAX_BANDS, &o->mfcc, ei);
    case OPT_CHROMA: return set_flag(&o->chroma);
    case OPT_CQT: return parse_int(name, val, 1, XFORM_CQT_MAX_BPO, &o->cqt, ei);
    case OPT_REASSIGN: return set_flag(&o->reassign);
    }
    return SP_EINVAL;
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
        for (j = 0; j < OPTION_COUNT; j++)
            if (strlen(options[j].longname) == len && strncmp(arg + 2, options[j].longname, len) == 0)
                break;
        snprintf(name, name_len, "--%.*s", (int)(len < 40 ? len : 40), arg + 2);
        if (j == OPTION_COUNT)
            return sp_fail(ei, SP_EINVAL, "%s: unknown option (see spectro --help)", name);
        if (eq && !options[j].value)
            return sp_fail(ei, SP_EINVAL, "%s: takes no value", name);
        *val = eq ? eq + 1 : NULL;
    } else {
        for (j = 0; j < OPTION_COUNT; j++)
            if (options[j].shortname && options[j].shortname == arg[1])
                break;
        snprintf(name, name_len, "-%c", arg[1]);
        if (j == OPTION_COUNT || (arg[2] && !options[j].value))
            return sp_fail(ei, SP_EINVAL, "%s: unknown option (see spectro --help)", arg);
        if (arg[2])
            *val = arg + 2;
    }
    if (OPTION_VALUE_OPTIONAL(&options[j]) && !*val) {
        if (*i + 1 < argc && optional_value_at(argv[*i + 1]))
            *val = argv[++*i];
    } else if (options[j].value && !*val) {
        if (*i + 1 >= argc)
            return sp_fail(ei, SP_EINVAL, "%s: missing value", name);
        *val = argv[++*i];
    }
    *opt = &options[j];
    return SP_OK;
}

/* --bands turns --dump into the band levels (per frame, or averaged with --average). */
static int check_bands(cli_options *o, sp_errinfo *ei)
{
    analyze_config *a = &o->an;
    int dumps = 0;
    if (o->weighting && !a->measure.bands)
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
    if (!dumps && a->n_outputs == 0 && !o->average) { /* the window: its band bars start on */
        o->view_bands = a->measure.bands;
        a->measure.bands = 0;
        return SP_OK;
    }
    if (!dumps)
        return sp_fail(ei, SP_EINVAL, "--bands: give --dump for the band levels (or no output: the window's band "
                                      "bars)");
    a->measure.bands_average = o->average;
    return SP_OK;
}

/* --average turns --dump and --png into their averaged kinds; --tone picks its window. */
static int check_measure(cli_options *o, sp_errinfo *ei)
{
    analyze_config *a = &o->an;
    int averaged = 0, err;
    if ((err = check_bands(o, ei)) != SP_OK)
        return err;
    if (o->an.measure.psd && !o->average)
        return sp_fail(ei, SP_EINVAL, "--psd: only with --average (it converts the averaged spectrum)");
    for (int i = 0; o->average && i < a->n_outputs; i++) {
        /* bands averages its own levels: its averaged kind is itself */
        const char *kind = sink_kind_find(a->outputs[i].kind)->averaged;
        if (kind) {
            a->outputs[i].kind = sink_kind_find(kind)->name;
            averaged++;
        }
    }
    if (o->average && !averaged && !o->view)
        return sp_fail(ei, SP_EINVAL, "--average: give --dump or --png for the averaged spectrum");
    for (int i = 0; i < a->n_outputs; i++)
        if (strcmp(a->outputs[i].kind, "tone") == 0) {
            /* the window's sidelobes leak the fundamental into the noise: kaiser:20's
             * (-160 dB) measure a 16-bit sine at any frequency; blackman-harris's (-92 dB)
             * stop near 86 dB SNR off a bin, hann's near 35 */
            if (!o->window) {
                a->window.kind = WINDOW_KAISER;
                a->window.param = TONE_KAISER_BETA;
            }
            return SP_OK;
        }
    if (o->tone_format)
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
    if (o->an.n_outputs == 0)
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
    int kinds = (o->mel || o->mfcc) + o->chroma + (o->cqt > 0) + o->reassign;
    if (kinds == 0)
        return SP_OK;
    if (kinds > 1)
        return sp_fail(ei, SP_EINVAL, "%s: one transform at a time (--mel/--mfcc, --chroma, --cqt, --reassign)",
                       o->chroma ? "--chroma" : o->cqt ? "--cqt" : "--reassign");
    x->kind = o->mfcc ? XFORM_MFCC : o->mel ? XFORM_MEL : o->chroma ? XFORM_CHROMA : o->cqt ? XFORM_CQT : XFORM_REASSIGN;
    x->bands = o->cqt ? o->cqt : o->mel;
    x->coeffs = o->mfcc;
    x->fmin = o->fmin ? o->an.render.fmin : -1.0;
    x->fmax = o->an.render.fmax;
    const char *name = xform_kind_name(x->kind);
    if (o->mfcc && o->mfcc > (o->mel ? o->mel : XFORM_MEL_DEFAULT_BANDS))
        return sp_fail(ei, SP_EINVAL, "--mfcc %d: more than the %d mel bands (--mel)", o->mfcc,
                       o->mel ? o->mel : XFORM_MEL_DEFAULT_BANDS);
    if (o->an.measure.bands)
        return sp_fail(ei, SP_EINVAL, "--%s: not with --bands (both reduce the spectrum to bands)", name);
    if (o->an.measure.psd)
        return sp_fail(ei, SP_EINVAL, "--psd: not with --%s (its values are no spectrum density)", name);
    if (o->average && (x->kind == XFORM_REASSIGN || x->kind == XFORM_MFCC || x->kind == XFORM_CHROMA))
        return sp_fail(ei, SP_EINVAL, "--average: not with --%s (%s)", name,
                       x->kind == XFORM_REASSIGN ? "reassigned points have no average" : "its values are not levels");
    if (o->view)
        return sp_fail(ei, SP_EINVAL, "--view: not with --%s (the window shows the linear spectrum)", name);
    for (int i = 0; i < o->an.n_outputs; i++) {
        const char *kind = o->an.outputs[i].kind;
        int png = strcmp(kind, "png") == 0 || strcmp(kind, "average-png") == 0;
        if (png && (x->kind == XFORM_MFCC || x->kind == XFORM_REASSIGN || o->average))
            return sp_fail(ei, SP_EINVAL, "--png: no picture of --%s%s yet (give --dump)", name,
                           o->average ? " --average" : "");
        if (strcmp(kind, "dump") != 0 && strcmp(kind, "average") != 0 && !png)
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
    if (o->tone_format)
        return sp_fail(ei, SP_EINVAL, "--tone-format: not with --view (the window shows the tone analysis)");
    if (a->measure.psd)
        return sp_fail(ei, SP_EINVAL, "--psd: not with --view (the window shows levels in dBFS)");
    if (o->average && a->measure.average != MEASURE_MEAN)
        return sp_fail(ei, SP_EINVAL, "--view: --average %s is not in the window (its running average is a mean)",
                       measure_average_name((int)a->measure.average));
    o->view_average = o->average;
    if (!o->view_tone && !o->view_average)
        return sp_fail(ei, SP_EINVAL, "--view: give --tone or --average mean (the window opens without --view)");
    a->n_outputs = 0;
    return SP_OK;
}

int cli_parse(int argc, char **argv, cli_options *o, sp_errinfo *ei)
{
    int only_files = 0, err, n_in = 0;
    memset(o, 0, sizeof *o);
    o->an = analyze_config_default();
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
            (err = apply(o, opt->id, name, val, ei)) != SP_OK)
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
