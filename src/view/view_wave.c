/* view_wave: the waveform strip above the file view's spectrogram (the r key): per pixel
 * column the smallest and largest sample of every channel in the column's time (the
 * envelope), on the picture's time axis, so that it zooms and scrolls with it. The
 * analysis thread keeps the min/max of blocks of SIG_WAVE_BLOCK samples and of groups of
 * SIG_WAVE_GROUP blocks (8 bytes a block: 7 MB an hour of 48 kHz); a column reads the
 * groups it covers whole and the blocks at its ends. */
#include "view_internal.h"

#include <math.h>
#include <stdlib.h>

static const rgb8 COL_WAVE = {0x8c, 0xc8, 0xff};

/* Room for one more block and one more group; 0: out of memory. */
int view_wave_grow(view_sig *s)
{
    if (s->nb == s->b_cap) {
        size_t cap = s->b_cap ? 2 * s->b_cap : 4096;
        float *a = realloc(s->bmin, cap * sizeof *a), *b;
        if (a)
            s->bmin = a;
        if (!a || !(b = realloc(s->bmax, cap * sizeof *b)))
            return 0;
        s->bmax = b;
        s->b_cap = cap;
    }
    if (s->ng == s->g_cap) {
        size_t cap = s->g_cap ? 2 * s->g_cap : 256;
        float *a = realloc(s->gmin, cap * sizeof *a), *b;
        if (a)
            s->gmin = a;
        if (!a || !(b = realloc(s->gmax, cap * sizeof *b)))
            return 0;
        s->gmax = b;
        s->g_cap = cap;
    }
    return 1;
}

/* Under the lock: the block being filled is closed, and a group with it when complete. */
static void close_block(view_sig *s)
{
    if (!view_wave_grow(s))
        return; /* out of memory: the strip ends here */
    s->bmin[s->nb] = s->cur_min;
    s->bmax[s->nb] = s->cur_max;
    s->nb++;
    if (s->nb % SIG_WAVE_GROUP == 0) {
        float lo = INFINITY, hi = -INFINITY;
        for (size_t i = s->nb - SIG_WAVE_GROUP; i < s->nb; i++) {
            lo = s->bmin[i] < lo ? s->bmin[i] : lo;
            hi = s->bmax[i] > hi ? s->bmax[i] : hi;
        }
        s->gmin[s->ng] = lo;
        s->gmax[s->ng] = hi;
        s->ng++;
    }
    s->cur_min = INFINITY;
    s->cur_max = -INFINITY;
    s->cur_n = 0;
}

void view_wave_samples(view_sig *s, const float *x, size_t nframes)
{
    size_t ch = (size_t)s->channels;
    for (size_t i = 0; i < nframes; i++) {
        for (size_t c = 0; c < ch; c++) {
            float v = x[i * ch + c];
            if (!isfinite(v))
                continue;
            s->cur_min = v < s->cur_min ? v : s->cur_min;
            s->cur_max = v > s->cur_max ? v : s->cur_max;
        }
        if (++s->cur_n == SIG_WAVE_BLOCK)
            close_block(s);
    }
}

/* The envelope of samples [a, b) (complete blocks only; under the lock): 0 when none. */
static int envelope(const view_sig *s, double a, double b, float *lo, float *hi)
{
    size_t b0, b1;
    a = a < 0 ? 0 : a;
    if (b <= a)
        return 0;
    b0 = (size_t)(a / SIG_WAVE_BLOCK);
    b1 = (size_t)ceil(b / SIG_WAVE_BLOCK);
    b1 = b1 > s->nb ? s->nb : b1;
    if (b1 <= b0)
        return 0;
    *lo = INFINITY;
    *hi = -INFINITY;
    for (size_t i = b0; i < b1;) {
        if (i % SIG_WAVE_GROUP == 0 && i + SIG_WAVE_GROUP <= b1 && i / SIG_WAVE_GROUP < s->ng) {
            size_t g = i / SIG_WAVE_GROUP;
            *lo = s->gmin[g] < *lo ? s->gmin[g] : *lo;
            *hi = s->gmax[g] > *hi ? s->gmax[g] : *hi;
            i += SIG_WAVE_GROUP;
            continue;
        }
        *lo = s->bmin[i] < *lo ? s->bmin[i] : *lo;
        *hi = s->bmax[i] > *hi ? s->bmax[i] : *hi;
        i++;
    }
    return *lo <= *hi;
}

/* The strip's height (the rows the picture leaves above its panels: render_config.top_gap). */
int view_wave_height(const view *v, const layout *L)
{
    return v->sg.wave && !v->live ? 4 * L->fs : 0;
}

/* The strip over the first panel's columns, from the frames each column shows: frame f's
 * centre is sample f*hop + n/2 (docs/design.md "Frames"). */
void view_wave_draw(view *v, const layout *L)
{
    picture *p = &v->pic;
    view_sig *s = &v->sh.sig;
    view_sig_ui *u = &v->sg;
    render_rect pr;
    int h = view_wave_height(v, L), y, mid;
    double per;
    u->wave_w = 0;
    if (h <= 0 || !p->r || !p->ok)
        return;
    pr = render_plot_rect(p->r, 0);
    y = pr.y - h - L->fs / 2;
    if (y < 0 || !view_grow((void **)&u->wave_lo, &u->wave_cap, (size_t)pr.w, sizeof *u->wave_lo) ||
        !(u->wave_hi = realloc(u->wave_hi, u->wave_cap * sizeof *u->wave_hi)))
        return;
    canvas_fill(&v->cv, pr.x, y, pr.w, h, COL_PANEL_BG);
    mid = y + h / 2;
    canvas_fill(&v->cv, pr.x, mid, pr.w, 1, COL_GRID);
    per = (double)p->count * (double)p->span / pr.w; /* frames a column */
    pthread_mutex_lock(s->mu);
    for (int x = 0; x < pr.w; x++) {
        double f0 = (double)p->a0 + x * per, f1 = f0 + per;
        float lo, hi;
        int ya, yb;
        u->wave_lo[x] = u->wave_hi[x] = NAN;
        if (!envelope(s, f0 * (double)p->hop + 0.5 * (double)p->n, f1 * (double)p->hop + 0.5 * (double)p->n, &lo,
                      &hi))
            continue;
        u->wave_lo[x] = lo;
        u->wave_hi[x] = hi;
        lo = lo < -1.0f ? -1.0f : lo;
        hi = hi > 1.0f ? 1.0f : hi;
        ya = mid - (int)lround(hi * (h / 2 - 1));
        yb = mid - (int)lround(lo * (h / 2 - 1));
        canvas_fill(&v->cv, pr.x + x, ya, 1, yb - ya + 1, COL_WAVE);
    }
    pthread_mutex_unlock(s->mu);
    canvas_outline(&v->cv, pr.x - 1, y - 1, pr.w + 2, h + 2, RENDER_COL_FRAME);
    u->wave_x = pr.x;
    u->wave_y = y;
    u->wave_w = pr.w;
    u->wave_h = h;
}
