#include "progress.h"

#include <string.h>

#include "clock.h"

#define BAR_WIDTH 30

void progress_begin(progress *p, FILE *out, int enabled, double rate, int64_t total)
{
    memset(p, 0, sizeof *p);
    p->out = out;
    p->enabled = enabled;
    p->rate = rate;
    p->total = total;
    p->start = p->last = sp_now();
}

void progress_begin_files(progress *p, FILE *out, int enabled, int files)
{
    progress_begin(p, out, enabled, 1.0, -1);
    p->files = files > 0 ? files : 1;
}

void progress_file(progress *p, double rate, int64_t total)
{
    p->rate = rate > 0 ? rate : 1.0;
    p->total = total;
}

void progress_publish_to(progress *p, progress_tap *tap)
{
    p->tap = tap;
    atomic_store(&tap->files_done, 0);
    atomic_store(&tap->files, 0.0);
    atomic_store(&tap->audio_s, 0.0);
}

void progress_watch(progress *p, const progress_tap *taps, int n)
{
    p->taps = taps;
    p->ntaps = n;
}

/* The current file's share of its expected length (0 when unknown). */
static double file_part(const progress *p, int64_t done)
{
    double part = p->total > 0 ? (double)done / (double)p->total : 0.0;
    return part > 1.0 ? 1.0 : part;
}

/* The count, for the thread that draws (relaxed is enough: a bar that lags by a draw). */
static void publish(progress *p, int64_t done)
{
    if (!p->tap)
        return;
    atomic_store_explicit(&p->tap->files_done, p->files_done, memory_order_relaxed);
    atomic_store_explicit(&p->tap->files, (double)p->files_done + file_part(p, done), memory_order_relaxed);
    atomic_store_explicit(&p->tap->audio_s, p->audio_done_s + (double)done / p->rate, memory_order_relaxed);
}

void progress_file_done(progress *p, int64_t samples)
{
    if (samples > 0)
        p->audio_done_s += (double)samples / p->rate;
    p->files_done++;
    p->total = -1;
    publish(p, 0);
}

static void draw_bar(char *bar, double frac)
{
    if (frac > 1.0)
        frac = 1.0;
    for (int i = 0; i < BAR_WIDTH; i++)
        bar[i] = i < (int)(frac * BAR_WIDTH) ? '#' : '.';
    bar[BAR_WIDTH] = 0;
}

/* "[####......]  12/1000 files  120.0 s of audio  3.2s  37.5x real time": the current
 * file counts by its share of its expected length. */
static void draw_files(progress *p, int64_t done, double elapsed)
{
    char bar[BAR_WIDTH + 1];
    double files = (double)p->files_done + file_part(p, done), audio = p->audio_done_s + (double)done / p->rate;
    int files_done = p->files_done;
    if (p->ntaps > 0) {
        files = audio = 0.0;
        files_done = 0;
        for (int i = 0; i < p->ntaps; i++) {
            files_done += atomic_load_explicit(&p->taps[i].files_done, memory_order_relaxed);
            files += atomic_load_explicit(&p->taps[i].files, memory_order_relaxed);
            audio += atomic_load_explicit(&p->taps[i].audio_s, memory_order_relaxed);
        }
    }
    draw_bar(bar, files / (double)p->files);
    fprintf(p->out, "\r[%s] %d/%d files  %9.1f s of audio  %6.1fs  %7.1fx real time ", bar, files_done, p->files,
            audio, elapsed, elapsed > 0 ? audio / elapsed : 0.0);
}

void progress_update(progress *p, int64_t done)
{
    char bar[BAR_WIDTH + 1];
    double now, elapsed, frac, speed;
    publish(p, done);
    if (!p->enabled)
        return;
    now = sp_now();
    /* start drawing after half a second: short runs stay silent */
    if (now - p->last < 0.1 || now - p->start < 0.5)
        return;
    p->last = now;
    elapsed = now - p->start;
    if (p->files > 0) {
        draw_files(p, done, elapsed);
    } else {
        frac = p->total > 0 ? (double)done / (double)p->total : 0.0;
        speed = elapsed > 0 ? ((double)done / p->rate) / elapsed : 0.0;
        draw_bar(bar, frac);
        if (p->total > 0)
            fprintf(p->out, "\r[%s] %5.1f%%  %6.1fs  %7.1fx real time ", bar, 100.0 * (frac > 1.0 ? 1.0 : frac),
                    elapsed, speed);
        else
            fprintf(p->out, "\r%8.1fs of audio  %6.1fs  %7.1fx real time ", (double)done / p->rate, elapsed,
                    speed);
    }
    fflush(p->out);
    p->drawn = 1;
}

void progress_clear(progress *p)
{
    if (p->enabled && p->drawn) {
        fprintf(p->out, "\r\033[K");
        fflush(p->out);
    }
    p->drawn = 0;
}

void progress_end(progress *p)
{
    progress_clear(p);
}
