/* The window's keys: one table, which the help overlay (view_overlay.c) and the man page are
 * made from (e2e_docs checks docs/manual.md's key table against the man page). Built with or
 * without the window itself. */
#include "view.h"

static const char *const keys[][2] = {
    {"space", "pause / resume the display (file, once analysed: play / stop, as p)"},
    {"p", "play / stop: the selection, else from the cursor (file)"},
    {"s", "screenshot (spectro-YYYYmmdd-HHMMSS.png)"},
    {"c", "next colour map"},
    {"l", "next frequency scale (linear, log, mel)"},
    {"w", "next window (restarts the analysis)"},
    {"n", "next FFT size (restarts the analysis)"},
    {"\xe2\x86\x91 / \xe2\x86\x93", "dB range up / down (5 dB)"},
    {"] / [", "dB range wider / narrower (its low end, 10 dB)"},
    {"+ / \xe2\x88\x92", "gain up / down (3 dB)"},
    {"wheel", "time zoom (file: around the cursor)"},
    {"\xe2\x86\x90 / \xe2\x86\x92, drag", "scroll in time (file)"},
    {"Home / End", "start / end of the file"},
    {"shift+wheel, PgUp / PgDn", "frequency zoom"},
    {"0", "reset the zoom"},
    {"shift+drag", "select a time range (with a frequency zoom, its band too; file)"},
    {"a", "running average: off / exponential (\xcf\x84 1 s) / infinite (power mean)"},
    {"t", "tone analysis: harmonics marked, THD, THD+N, SNR"},
    {"e", "export the averaged spectrum (spectro-avg-YYYYmmdd-HHMMSS.csv)"},
    {"b", "band bars: off / octaves / third octaves (--bands, --weighting)"},
    {"m, right click", "mark a point / clear the mark: \xce\x94t, \xce\x94" "f, \xce\x94" "dB, interval"},
    {"h / ?", "this help"},
    {"q / Esc", "quit (Esc: clears the selection first, when there is one)"},
};

int view_key_count(void)
{
    return (int)(sizeof keys / sizeof keys[0]);
}

const char *view_key(int i)
{
    return i >= 0 && i < view_key_count() ? keys[i][0] : NULL;
}

const char *view_key_action(int i)
{
    return i >= 0 && i < view_key_count() ? keys[i][1] : NULL;
}
