/* cli_help: --help, made from the options as data (cli.c: the library's settings and the
 * program's own rows). */
#include <stdio.h>
#include <string.h>

#include "cli.h"

#define HELP_WIDTH 90  /* the longest line --help prints */
#define HELP_INDENT 25 /* where the help text starts, after "  -w, --window NAME[:P]  " */

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

static void help_option(FILE *f, const cli_option_doc *opt)
{
    char head[64];
    int w;
    if (opt->shortname)
        w = snprintf(head, sizeof head, "  -%c, --%s%s%s", opt->shortname, opt->longname, opt->value ? " " : "",
                     opt->value ? opt->value : "");
    else
        w = snprintf(head, sizeof head, "      --%s%s%s", opt->longname, opt->value ? " " : "",
                     opt->value ? opt->value : "");
    if (w >= HELP_INDENT) /* a long head ("--raw-format ENC,RATE,CH"): the text goes below */
        fprintf(f, "%s\n%*s", head, HELP_INDENT, "");
    else
        fprintf(f, "%-*s", HELP_INDENT, head);
    help_wrap(f, opt->text, HELP_INDENT);
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
    for (int i = 0; i < cli_option_count(); i++) {
        cli_option_doc d;
        if (cli_option_doc_at(i, &d) != SPECTRO_OK)
            continue;
        if (d.group)
            fprintf(f, "\n%s%s", d.section, *d.section ? ":\n" : "");
        help_option(f, &d);
    }
    fputs("\n"
          "Levels are dBFS: a full-scale sine on a bin reads 0 dB with any window; the floor is -200.\n"
          "Exit status: 0 success, 1 runtime failure (I/O, device, any file of several), 2 bad usage\n"
          "or bad input, 130 / 143 interrupted by SIGINT / SIGTERM.\n",
          f);
}

