/* cli_help: --help, and the rows as data for the man page and shell completion (app/gendoc.c),
 * both made from cli's rows (cli_internal.h) and from the modules' own tables (windows,
 * backends, scales, ...), so that a new window or backend shows up in all of them. */
#include <stdio.h>
#include <string.h>

#include "bands.h"
#include "cli_internal.h"
#include "colormap.h"
#include "dump.h"
#include "fft.h"
#include "measure.h"
#include "render.h"
#include "scale.h"
#include "source.h"
#include "window.h"

#define HELP_WIDTH 90  /* the longest line --help prints */
#define HELP_INDENT 25 /* where the help text starts, after "  -w, --window NAME[:P]  " */

/* ---- lists --------------------------------------------------------------------------------- */

/* Appends an item to buf (at *at), with its note in parentheses, truncating at len. */
static void list_add(char *buf, size_t len, size_t *at, const char *sep, const char *item, const char *note)
{
    int w;
    if (*at >= len)
        return;
    w = snprintf(buf + *at, len - *at, "%s%s%s%s%s", sep, item, note ? " (" : "", note ? note : "", note ? ")" : "");
    if (w > 0)
        *at += (size_t)w;
}

/* A list of `count` names: bare ("a b c"), or for --help ("a (default), b, c"). */
typedef const char *(*name_at_fn)(int i, char *note, size_t note_len);

static void list_of(char *buf, size_t len, int bare, int count, name_at_fn name_at)
{
    size_t at = 0;
    buf[0] = 0;
    for (int i = 0; i < count; i++) {
        char note[128] = "";
        const char *name = name_at(i, note, sizeof note);
        list_add(buf, len, &at, i == 0 ? "" : bare ? " " : ", ", name, bare || !note[0] ? NULL : note);
    }
}

static const char *window_at(int i, char *note, size_t len)
{
    static char item[96];
    window_help(i, item, sizeof item);
    if (window_spec_at(i).kind == window_spec_default().kind)
        snprintf(note, len, "default");
    return item;
}

void cli_list_windows(char *buf, size_t len, int bare)
{
    if (bare) {
        size_t at = 0;
        buf[0] = 0;
        for (int i = 0; i < window_count(); i++)
            list_add(buf, len, &at, i ? " " : "", window_name(i), NULL);
        return;
    }
    list_of(buf, len, 0, window_count(), window_at);
}

/* The default backend's note says what it picks: "auto (default: cuda when ...)". */
static const char *backend_at(int i, char *note, size_t len)
{
    fft_backend_kind kind;
    if (fft_backend_parse(fft_backend_name(i), &kind) == SP_OK && kind == fft_config_default().backend)
        snprintf(note, len, "default: %s", fft_backend_help(i));
    return fft_backend_name(i);
}

void cli_list_backends(char *buf, size_t len, int bare)
{
    list_of(buf, len, bare, fft_backend_count(), backend_at);
}

void cli_backend_names(char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = 0;
    for (int i = 0; i < fft_backend_count(); i++)
        list_add(buf, len, &at, i ? ", " : "", fft_backend_name(i), NULL);
}

/* "OUT.npy (NumPy) or OUT.csv": not names to complete (bare: empty) */
void cli_list_dump_formats(char *buf, size_t len, int bare)
{
    size_t at = 0;
    int n = dump_format_count();
    buf[0] = 0;
    for (int i = 0; i < n && !bare; i++) {
        char item[32];
        snprintf(item, sizeof item, "OUT%s", dump_format_ext(i));
        list_add(buf, len, &at, i == 0 ? "" : i + 1 < n ? ", " : " or ", item, dump_format_help(i));
    }
}

static const char *scale_at(int i, char *note, size_t len)
{
    if (i == (int)render_config_default().scale)
        snprintf(note, len, "default");
    return scale_name((freq_scale)i);
}

void cli_list_scales(char *buf, size_t len, int bare)
{
    list_of(buf, len, bare, scale_count(), scale_at);
}

static const char *colormap_at(int i, char *note, size_t len)
{
    if (i == render_config_default().colormap)
        snprintf(note, len, "default");
    return colormap_name(i);
}

void cli_list_colormaps(char *buf, size_t len, int bare)
{
    list_of(buf, len, bare, colormap_count(), colormap_at);
}

static const char *average_at(int i, char *note, size_t len)
{
    snprintf(note, len, "%s", measure_average_help(i));
    return measure_average_name(i);
}

void cli_list_averages(char *buf, size_t len, int bare)
{
    list_of(buf, len, bare, measure_average_count(), average_at);
}

const char *const cli_tone_formats[CLI_TONE_FORMAT_COUNT] = {"json", "text"};

static const char *tone_format_at(int i, char *note, size_t len)
{
    if (i == 0)
        snprintf(note, len, "default");
    return cli_tone_formats[i];
}

void cli_list_tone_formats(char *buf, size_t len, int bare)
{
    list_of(buf, len, bare, CLI_TONE_FORMAT_COUNT, tone_format_at);
}

static const char *weighting_at(int i, char *note, size_t len)
{
    if (i == 0)
        snprintf(note, len, "default: none");
    return bands_weighting_name((bands_weighting)i);
}

void cli_list_weightings(char *buf, size_t len, int bare)
{
    list_of(buf, len, bare, BANDS_WEIGHT_COUNT, weighting_at);
}

/* "f32le, s16le, ... or u8": not names to complete alone (ENC,RATE,CH; bare: empty) */
void cli_list_raw_encodings(char *buf, size_t len, int bare)
{
    size_t at = 0;
    int n = source_raw_count();
    buf[0] = 0;
    for (int i = 0; i < n && !bare; i++)
        list_add(buf, len, &at, i == 0 ? "" : i + 1 < n ? ", " : " or ", source_raw_name(i), NULL);
}

/* --channel: its words (an index is a number): completion only, --help spells them out */
void cli_list_channels(char *buf, size_t len, int bare)
{
    snprintf(buf, len, "%s", bare ? "mix all" : "");
}

/* ---- --help --------------------------------------------------------------------------------- */

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

/* A row's whole help: the text, its list, what follows the list, and its default. */
static void row_text(const cli_option *o, char *text, size_t len)
{
    char list[512] = "", def[96] = "";
    if (o->list)
        o->list(list, sizeof list, 0);
    if (o->def)
        snprintf(def, sizeof def, " (default %s)", o->def);
    snprintf(text, len, "%s%s%s%s", o->help, list, o->help_after ? o->help_after : "", def);
}

static void help_option(FILE *f, const cli_option *opt)
{
    char head[64], text[1024];
    int w;
    if (opt->shortname)
        w = snprintf(head, sizeof head, "  -%c, --%s%s%s", opt->shortname, opt->longname, opt->value ? " " : "",
                     opt->value ? opt->value : "");
    else
        w = snprintf(head, sizeof head, "      --%s%s%s", opt->longname, opt->value ? " " : "",
                     opt->value ? opt->value : "");
    row_text(opt, text, sizeof text);
    if (w >= HELP_INDENT) /* a long head ("--raw-format ENC,RATE,CH"): the text goes below */
        fprintf(f, "%s\n%*s", head, HELP_INDENT, "");
    else
        fprintf(f, "%-*s", HELP_INDENT, head);
    help_wrap(f, text, HELP_INDENT);
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
    for (int i = 0; i < cli_row_count; i++) {
        if (cli_rows[i].section)
            fprintf(f, "\n%s%s", cli_rows[i].section, *cli_rows[i].section ? ":\n" : "");
        help_option(f, &cli_rows[i]);
    }
    fputs("\n"
          "Levels are dBFS: a full-scale sine on a bin reads 0 dB with any window; the floor is -200.\n"
          "Exit status: 0 success, 1 runtime failure (I/O, device, any file of several), 2 bad usage\n"
          "or bad input, 130 / 143 interrupted by SIGINT / SIGTERM.\n",
          f);
}

/* ---- the rows as data (man page, completion) ------------------------------------------------ */

int cli_option_count(void)
{
    return cli_row_count;
}

int cli_option_doc_at(int i, cli_option_doc *out)
{
    const cli_option *o;
    if (i < 0 || i >= cli_row_count || !out)
        return SP_EINVAL;
    o = &cli_rows[i];
    memset(out, 0, sizeof *out);
    out->longname = o->longname;
    out->shortname = o->shortname;
    out->value = o->value;
    out->section = o->section;
    row_text(o, out->text, sizeof out->text);
    out->kind = o->kind ? o->kind : 'n';
    if (o->list)
        o->list(out->values, sizeof out->values, 1);
    if (out->values[0])
        out->kind = 'l';
    return SP_OK;
}
