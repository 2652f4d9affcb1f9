/* view_scope: the oscilloscope of a live input (the o key), in the instrument column: the
 * channels' mean over SCOPE_SPAN_S, triggered on a rising zero crossing (the newest one
 * that leaves the whole span drawn; none within the samples kept: free-running, the newest
 * span), full scale at the box's edges. */
#include "view_internal.h"

#include <math.h>
#include <stdlib.h>

#define SCOPE_SPAN_S 0.02 /* the time base: 20 ms across the box */

static const rgb8 COL_SCOPE = {0x7c, 0xe8, 0x8e};

void view_scope_samples(view_sig *s, const float *x, size_t nframes)
{
    size_t ch = (size_t)s->channels;
    for (size_t i = 0; i < nframes; i++) {
        float m = 0.0f;
        for (size_t c = 0; c < ch; c++)
            m += x[i * ch + c];
        s->scope[s->scope_n++ & (SIG_SCOPE_LEN - 1)] = isfinite(m) ? m / (float)ch : 0.0f;
    }
}

void view_scope_draw(view *v, const layout *L, int x, int y, int w, int h)
{
    view_sig *s = &v->sh.sig;
    view_sig_ui *u = &v->sg;
    float *buf;
    size_t span, have, start, top;
    int mid, bh, by = y + v->line_h + L->fs / 4, prev_y = -1;
    (void)L;
    u->scope_w = 0;
    view_text(v, "Oscilloscope (20 ms, mix)", x, y, RENDER_COL_LABEL);
    bh = h - (by - y) - L->fs / 2;
    if (bh < 8 || w < 8 || !(buf = malloc(SIG_SCOPE_LEN * sizeof *buf)))
        return;
    pthread_mutex_lock(s->mu);
    span = s->rate > 0 ? (size_t)lround(SCOPE_SPAN_S * s->rate) : 0;
    have = s->scope && s->scope_n < SIG_SCOPE_LEN ? (size_t)s->scope_n : s->scope ? SIG_SCOPE_LEN : 0;
    for (size_t i = 0; i < have; i++) /* oldest first */
        buf[i] = s->scope[(s->scope_n - have + i) & (SIG_SCOPE_LEN - 1)];
    pthread_mutex_unlock(s->mu);
    if (span < 2 || span > SIG_SCOPE_LEN / 2 || have < span + 1) {
        free(buf);
        return;
    }
    /* the newest rising zero crossing with a whole span after it */
    u->scope_trig = 0;
    start = have - span;
    for (size_t i = have - span; i >= 1; i--)
        if (buf[i - 1] < 0.0f && buf[i] >= 0.0f) {
            start = i;
            u->scope_trig = 1;
            break;
        }
    canvas_fill(&v->cv, x, by, w, bh, COL_PANEL_BG);
    mid = by + bh / 2;
    canvas_fill(&v->cv, x, mid, w, 1, COL_GRID);
    canvas_fill(&v->cv, x + w / 2, by, 1, bh, COL_GRID);
    u->scope_peak = 0.0;
    top = start + span;
    for (int c = 0; c < w; c++) {
        size_t a = start + (size_t)c * span / (size_t)w, b = start + ((size_t)c + 1) * span / (size_t)w;
        float lo = buf[a], hi = buf[a];
        int ya, yb;
        for (size_t i = a; i <= b && i < top; i++) {
            lo = buf[i] < lo ? buf[i] : lo;
            hi = buf[i] > hi ? buf[i] : hi;
        }
        u->scope_peak = fmax(u->scope_peak, fmax(fabs(lo), fabs(hi)));
        lo = lo < -1.0f ? -1.0f : lo;
        hi = hi > 1.0f ? 1.0f : hi;
        ya = mid - (int)lround(hi * (bh / 2 - 1));
        yb = mid - (int)lround(lo * (bh / 2 - 1));
        if (prev_y >= 0) { /* joined to the last column */
            ya = prev_y < ya ? prev_y : ya;
            yb = prev_y > yb ? prev_y : yb;
        }
        canvas_fill(&v->cv, x + c, ya, 1, yb - ya + 1, COL_SCOPE);
        prev_y = mid - (int)lround(buf[b < top ? b : top - 1] * (bh / 2 - 1));
    }
    canvas_outline(&v->cv, x - 1, by - 1, w + 2, bh + 2, RENDER_COL_FRAME);
    u->scope_start = buf[start];
    u->scope_next = buf[start + 1];
    u->scope_x = x;
    u->scope_y = by;
    u->scope_w = w;
    u->scope_h = bh;
    free(buf);
}
