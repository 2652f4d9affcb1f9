/* view_pitch: the pitch trace (the f key): the f0 of every frame of the spectra by the
 * --pitch engine (pitch.h, YIN on the channels' mean, frames of n samples every hop as the
 * spectra's: docs/design.md "Frames"), drawn over the file view's panels at its frequency,
 * the cursor's read-out naming its note (A4 = 440 Hz); live, the newest one in the
 * instrument column. */
#include "view_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "scale.h"

static const rgb8 COL_PITCH = {0x00, 0xff, 0xff};

/* f0 of frame f into the series (under the lock); gaps read NaN. */
static void pitch_put(view_sig *s, uint64_t f, double f0)
{
    size_t i;
    if (f < s->pf_first)
        return;
    i = (size_t)(f - s->pf_first);
    if (i >= s->f0_cap) {
        size_t cap = s->f0_cap ? 2 * s->f0_cap : 4096;
        float *p;
        while (cap <= i)
            cap *= 2;
        if (!(p = realloc(s->f0, cap * sizeof *p)))
            return; /* out of memory: the trace stops here */
        s->f0 = p;
        s->f0_cap = cap;
    }
    while (s->nf0 < i)
        s->f0[s->nf0++] = NAN;
    s->f0[i] = (float)f0;
    if (i >= s->nf0)
        s->nf0 = i + 1;
}

void view_pitch_samples(view_sig *s, uint64_t first, size_t nframes, const float *x)
{
    size_t ch = (size_t)s->channels, n = s->n;
    if (first != s->mono_end) { /* skipped live input: frames start over after it */
        s->have = 0;
        s->mono_end = first;
    }
    for (size_t i = 0; i < nframes; i++) {
        float m = 0.0f;
        for (size_t c = 0; c < ch; c++)
            m += x[i * ch + c];
        if (s->have == 2 * n) {
            memmove(s->mono, s->mono + n, n * sizeof *s->mono);
            s->have = n;
        }
        s->mono[s->have++] = isfinite(m) ? m / (float)ch : 0.0f;
        s->mono_end++;
        if (s->have >= n && (s->mono_end - n) % s->hop == 0) {
            double f0, conf;
            pitch_yin_estimate(s->yin, s->mono + s->have - n, &f0, &conf);
            pthread_mutex_lock(s->mu);
            pitch_put(s, (s->mono_end - n) / s->hop, f0);
            pthread_mutex_unlock(s->mu);
        }
    }
}

/* f0 of frame f (under the lock): NaN when not estimated. */
static double pitch_at(const view_sig *s, double f)
{
    double i = floor(f + 0.5) - (double)s->pf_first;
    if (!s->f0 || i < 0 || i >= (double)s->nf0)
        return NAN;
    return s->f0[(size_t)i];
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* The trace over every panel of the file view: a dot per pixel column at the f0 of the
 * frame at its centre, joined to the last where they are close. */
void view_pitch_draw(view *v, const layout *L)
{
    picture *p = &v->pic;
    view_sig *s = &v->sh.sig;
    view_sig_ui *u = &v->sg;
    const scale_map *map;
    float *seen = NULL;
    int nseen = 0, d = L->fs / 8 > 1 ? L->fs / 8 : 1;
    u->pitch_points = 0;
    u->pitch_med_hz = NAN;
    u->pitch_med_y = -1;
    /* not over a transform's columns (p->cols: mel, CQT ... rows are not a Hz axis) */
    if (!u->pitch || v->live || !p->r || !p->ok || p->cols || !(map = render_scale(p->r)))
        return;
    pthread_mutex_lock(s->mu);
    for (int c = 0; c < p->channels; c++) {
        render_rect pr = render_plot_rect(p->r, c);
        int prev = -1;
        if (c == 0 && !(seen = malloc((size_t)pr.w * sizeof *seen)))
            break;
        for (int x = 0; x < pr.w; x++) {
            double f = (double)p->a0 + (x + 0.5) / pr.w * (double)p->count * (double)p->span - 0.5;
            double f0 = pitch_at(s, f), un;
            int y;
            if (!(f0 > 0) || (un = scale_to_unit(map, f0)) < 0.0 || un > 1.0) {
                prev = -1;
                continue;
            }
            y = pr.y + (int)lround((1.0 - un) * pr.h - 0.5);
            if (prev >= 0 && abs(prev - y) < pr.h / 16) {
                int a = prev < y ? prev : y, b = prev < y ? y : prev;
                canvas_fill(&v->cv, pr.x + x, a, 1, b - a + 1, COL_PITCH);
            }
            canvas_fill(&v->cv, pr.x + x - d / 2, y - d / 2, d + 1, d + 1, COL_PITCH);
            prev = y;
            if (c == 0)
                seen[nseen++] = (float)f0;
        }
    }
    pthread_mutex_unlock(s->mu);
    u->pitch_points = nseen;
    if (nseen > 0) {
        render_rect pr = render_plot_rect(p->r, 0);
        qsort(seen, (size_t)nseen, sizeof *seen, cmp_float);
        u->pitch_med_hz = seen[nseen / 2];
        u->pitch_med_y = pr.y + (int)lround((1.0 - scale_to_unit(map, u->pitch_med_hz)) * pr.h - 0.5);
    }
    free(seen);
}

/* The read-out's pitch line for the cursor at frame f: 0 when the trace is off. */
int view_pitch_readout(view *v, double f, char *buf, size_t len)
{
    view_sig *s = &v->sh.sig;
    double f0;
    char note[48];
    if (!v->sg.pitch)
        return 0;
    pthread_mutex_lock(s->mu);
    f0 = pitch_at(s, f);
    pthread_mutex_unlock(s->mu);
    if (isnan(f0))
        snprintf(buf, len, "pitch \xe2\x80\x94");
    else if (!(f0 > 0))
        snprintf(buf, len, "pitch: unvoiced");
    else {
        view_note_name(f0, note, sizeof note);
        snprintf(buf, len, "pitch %.1f Hz   %s", f0, note);
    }
    snprintf(v->sg.pitch_readout, sizeof v->sg.pitch_readout, "%s", buf);
    return 1;
}

/* Live: the newest estimate, a line at the top of the instrument column; returns its height. */
int view_pitch_live(view *v, const layout *L, int x, int y)
{
    view_sig *s = &v->sh.sig;
    double f0 = NAN;
    char line[600], note[48];
    int failed;
    if (!v->sg.pitch || !v->live)
        return 0;
    pthread_mutex_lock(s->mu);
    for (size_t i = s->nf0; i-- > 0 && s->nf0 - i < 4;) /* the newest estimated frame */
        if (!isnan(s->f0[i])) {
            f0 = s->f0[i];
            break;
        }
    failed = s->pitch_err[0] != 0;
    if (failed)
        snprintf(line, sizeof line, "pitch: %s", s->pitch_err);
    pthread_mutex_unlock(s->mu);
    view_font(v, L->fs);
    if (!failed) {
        view_note_name(f0, note, sizeof note);
        if (f0 > 0)
            snprintf(line, sizeof line, "pitch %.1f Hz  %s", f0, note);
        else
            snprintf(line, sizeof line, "pitch \xe2\x80\x94");
    }
    canvas_fit_text(v->font, line, L->inst_w - L->fs);
    view_text(v, line, x, y, COL_PITCH);
    snprintf(v->sg.pitch_readout, sizeof v->sg.pitch_readout, "%s", line);
    return v->line_h + L->fs / 2;
}
