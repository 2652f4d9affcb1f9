/* The window's keys: one table, which the help overlay (view_overlay.c), the man page and
 * the README's key table are made from. Built with or without the window itself. */
#include "view.h"

static const char *const keys[][2] = {
    {"space", "pause / resume the display"},
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
    {"h / ?", "this help"},
    {"q / Esc", "quit"},
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
