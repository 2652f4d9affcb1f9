#include "progress.h"

#include "clock.h"

void progress_begin(progress *p, FILE *out, int enabled, double rate, int64_t total)
{
    p->out = out;
    p->enabled = enabled;
    p->drawn = 0;
    p->rate = rate;
    p->total = total;
    p->start = p->last = sp_now();
}

void progress_update(progress *p, int64_t done)
{
    enum { WIDTH = 30 };
    char bar[WIDTH + 1];
    double now, elapsed, frac, speed;
    if (!p->enabled)
        return;
    now = sp_now();
    /* start drawing after half a second: short runs stay silent */
    if (now - p->last < 0.1 || now - p->start < 0.5)
        return;
    p->last = now;
    elapsed = now - p->start;
    frac = p->total > 0 ? (double)done / (double)p->total : 0.0;
    if (frac > 1.0)
        frac = 1.0;
    speed = elapsed > 0 ? ((double)done / p->rate) / elapsed : 0.0;
    for (int i = 0; i < WIDTH; i++)
        bar[i] = i < (int)(frac * WIDTH) ? '#' : '.';
    bar[WIDTH] = 0;
    if (p->total > 0)
        fprintf(p->out, "\r[%s] %5.1f%%  %6.1fs  %7.1fx real time ", bar, 100.0 * frac, elapsed, speed);
    else
        fprintf(p->out, "\r%8.1fs of audio  %6.1fs  %7.1fx real time ", (double)done / p->rate,
                elapsed, speed);
    fflush(p->out);
    p->drawn = 1;
}

void progress_end(progress *p)
{
    if (p->enabled && p->drawn) {
        fprintf(p->out, "\r\033[K");
        fflush(p->out);
    }
    p->drawn = 0;
}
