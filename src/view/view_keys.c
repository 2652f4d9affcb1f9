/* The window's keys: one table, which the help overlay (view_overlay.c) and the man page are
 * made from (e2e_docs checks docs/manual.md's key table against the man page). Built with or
 * without the window itself. */
#include "view.h"

static const struct {
    const char *key, *does;
} keys[] = {
    {.key = "space", .does = "pause / resume the display (file, once analysed: play / stop, as p)"},
    {.key = "p", .does = "play / stop: the selection, else from the cursor (file)"},
    {.key = "s", .does = "screenshot (spectro-YYYYmmdd-HHMMSS.png)"},
    {.key = "c", .does = "next colour map"},
    {.key = "l", .does = "next frequency scale (linear, log, mel)"},
    {.key = "w", .does = "next window (restarts the analysis)"},
    {.key = "n", .does = "next FFT size (restarts the analysis)"},
    {.key = "x", .does = "next transform: linear / mel / CQT / chroma / reassigned"},
    {.key = "\xe2\x86\x91 / \xe2\x86\x93", .does = "dB range up / down (5 dB)"},
    {.key = "] / [", .does = "dB range wider / narrower (its low end, 10 dB)"},
    {.key = "+ / \xe2\x88\x92", .does = "gain up / down (3 dB)"},
    {.key = "wheel", .does = "time zoom (file: around the cursor)"},
    {.key = "\xe2\x86\x90 / \xe2\x86\x92, drag", .does = "scroll in time (file)"},
    {.key = "Home / End", .does = "start / end of the file"},
    {.key = "shift+wheel, PgUp / PgDn", .does = "frequency zoom"},
    {.key = "0", .does = "reset the zoom"},
    {.key = "shift+drag", .does = "select a time range (with a frequency zoom, its band too; file)"},
    {.key = "a", .does = "running average: off / exponential (\xcf\x84 1 s) / infinite (power mean)"},
    {.key = "t", .does = "tone analysis: harmonics marked, THD, THD+N, SNR"},
    {.key = "e", .does = "export the averaged spectrum (spectro-avg-YYYYmmdd-HHMMSS.csv)"},
    {.key = "b", .does = "band bars: off / octaves / third octaves (--bands, --weighting)"},
    {.key = "d", .does = "B \xe2\x88\x92 A / A over B (--compare); phase less the delay (--transfer)"},
    {.key = "m, right click",
     .does = "mark a point / clear the mark: \xce\x94t, \xce\x94" "f, \xce\x94" "dB, interval"},
    {.key = "v / f / r / o", .does = "level meters / pitch trace / waveform (file) / scope (live)"},
    {.key = "h / ?", .does = "this help"},
    {.key = "q / Esc", .does = "quit (Esc: clears the selection first, when there is one)"},
};

int view_key_count(void)
{
    return (int)(sizeof keys / sizeof keys[0]);
}

const char *view_key(int i)
{
    return i >= 0 && i < view_key_count() ? keys[i].key : NULL;
}

const char *view_key_action(int i)
{
    return i >= 0 && i < view_key_count() ? keys[i].does : NULL;
}
