/* view_pitch: the pitch trace (the f key): the f0 of every frame of the spectra by the
 * --pitch estimator (spectro.h's spectro_pitch_tracker, YIN on the channels' mean, frames
 * of n samples every hop as the spectra's: docs/design.md "Frames"), drawn over the panels
 * at its frequency (the scale and the frequency zoom of the picture; none over a
 * transform's columns), the cursor's read-out naming its note (A4 = 440 Hz). The file view
 * draws it into its whole picture; the live view as an overlay of each frame
 * (view_pitch_draw's live part): its pixels are the picture's ring untouched, so the trace
 * costs O(columns) a frame whatever the picture holds. Live, the newest estimate also heads
 * the instrument column.
 */
#include "view_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "scale.h"

static const rgb8 COL_PITCH = {0x00, 0xff, 0xff};
/* live: the f0s kept (a frame's 4 bytes), more than a picture of the live store shows */
#define PITCH_LIVE_KEEP ((size_t)1 << 20)

/* f0 of frame f into the series (under the lock); gaps read NaN. */
static void pitch_put(view_sig *s, uint64_t f, double f0)
{
    size_t i;
    if (f < s->pf_first)
        return;
    i = (size_t)(f - s->pf_first);
    if (s->live && i >= s->nf0 && s->nf0 >= 2 * PITCH_LIVE_KEEP) { /* live: the oldest go */
        size_t drop = s->nf0 - PITCH_LIVE_KEEP;
        memmove(s->f0, s->f0 + drop, PITCH_LIVE_KEEP * sizeof *s->f0);
        s->nf0 = PITCH_LIVE_KEEP;
        s->pf_first += drop;
        i -= drop;
    }
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
            if (spectro_pitch_tracker_estimate(s->yin, s->mono + s->have - n, &f0, &conf, NULL) != SPECTRO_OK)
                continue; /* cannot happen: every argument is there */
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

/* The column x of panel pr: the f0 of the frame at its centre; its row into *y (0 when
 * there is none: unvoiced, not estimated, off the frequency range). Under the lock. */
static int trace_row(const view_sig *s, const picture *p, const scale_map *map, render_rect pr, int x, double *f0,
                     int *y)
{
    double f = (double)p->a0 + (x + 0.5) / pr.w * (double)p->count * (double)p->span - 0.5, un;
    *f0 = pitch_at(s, f);
    if (!(*f0 > 0) || (un = scale_to_unit(map, *f0)) < 0.0 || un > 1.0)
        return 0;
    *y = pr.y + (int)lround((1.0 - un) * pr.h - 0.5);
    return 1;
}

/* The stats' figures of the trace: its points in view and their median (seen: sorted). */
static void trace_note(view_sig_ui *u, const scale_map *map, render_rect pr, float *seen, int nseen)
{
    u->pitch_points = nseen;
    if (nseen > 0) {
        qsort(seen, (size_t)nseen, sizeof *seen, cmp_float);
        u->pitch_med_hz = seen[nseen / 2];
        u->pitch_med_y = pr.y + (int)lround((1.0 - scale_to_unit(map, u->pitch_med_hz)) * pr.h - 0.5);
    }
}

/* The file view: the trace over every panel, a dot per pixel column at the f0 of the
 * frame at its centre, joined to the last where they are close. */
static void trace_file(view *v, const layout *L, const scale_map *map)
{
    picture *p = &v->pic;
    view_sig *s = &v->sh.sig;
    float *seen = NULL;
    int nseen = 0, d = L->fs / 8 > 1 ? L->fs / 8 : 1;
    pthread_mutex_lock(s->mu);
    for (int c = 0; c < p->channels; c++) {
        render_rect pr = render_plot_rect(p->r, c);
        int prev = -1;
        if (c == 0 && !(seen = malloc((size_t)pr.w * sizeof *seen)))
            break;
        for (int x = 0; x < pr.w; x++) {
            double f0;
            int y;
            if (!trace_row(s, p, map, pr, x, &f0, &y)) {
                prev = -1;
                continue;
            }
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
    trace_note(&v->sg, map, render_plot_rect(p->r, 0), seen, nseen);
    free(seen);
}

/* The trace's rects into the canvas, on every panel, within clip (NULL: all). */
static void trace_fill(view *v, const SDL_Rect *clip)
{
    picture *p = &v->pic;
    int y0 = render_plot_rect(p->r, 0).y;
    for (int c = 0; c < p->channels; c++) {
        int dy = render_plot_rect(p->r, c).y - y0;
        for (int i = 0; i < v->ntrace; i++) {
            SDL_Rect r = v->trace[i], o;
            r.y += dy;
            if (!clip)
                canvas_fill(&v->cv, r.x, r.y, r.w, r.h, COL_PITCH);
            else if (SDL_IntersectRect(&r, clip, &o))
                canvas_fill(&v->cv, o.x, o.y, o.w, o.h, COL_PITCH);
        }
    }
}

/* Live: the same dots and joins as the file view's, one rect a pixel column (the dot and
 * the join to the last together; columns of the same rows make one), cut to the panel,
 * kept in v->trace. They go into the canvas (cheap: the rects' pixels), where the
 * overlays and the check (view_config.verify) find them; with the panels from the ring's
 * texture they are drawn again over it (view_pitch_present), and into the canvas where an
 * overlay's area is composed again (view_pitch_over). The ring's columns are never drawn
 * for the trace. */
static void trace_live(view *v, const layout *L, const scale_map *map)
{
    picture *p = &v->pic;
    view_sig *s = &v->sh.sig;
    render_rect pr = render_plot_rect(p->r, 0);
    int nseen = 0, prev = -1, d = L->fs / 8 > 1 ? L->fs / 8 : 1;
    if (pr.w <= 0 || !view_grow((void **)&v->trace, &v->trace_cap, (size_t)pr.w, sizeof *v->trace) ||
        !view_grow((void **)&v->trace_hz, &v->trace_hz_cap, (size_t)pr.w, sizeof *v->trace_hz))
        return;
    pthread_mutex_lock(s->mu);
    for (int x = 0; x < pr.w; x++) {
        double f0;
        int y, top, bot, x0, x1;
        if (!trace_row(s, p, map, pr, x, &f0, &y)) {
            prev = -1;
            continue;
        }
        top = y - d / 2;
        bot = top + d;
        if (prev >= 0 && abs(prev - y) < pr.h / 16) {
            top = prev < top ? prev : top;
            bot = prev > bot ? prev : bot;
        }
        x0 = pr.x + x - d / 2 > pr.x ? pr.x + x - d / 2 : pr.x;
        x1 = pr.x + x - d / 2 + d < pr.x + pr.w - 1 ? pr.x + x - d / 2 + d : pr.x + pr.w - 1;
        top = top > pr.y ? top : pr.y;
        bot = bot < pr.y + pr.h - 1 ? bot : pr.y + pr.h - 1;
        if (v->ntrace > 0 && v->trace[v->ntrace - 1].y == top && v->trace[v->ntrace - 1].h == bot - top + 1 &&
            x0 <= v->trace[v->ntrace - 1].x + v->trace[v->ntrace - 1].w) /* a steady f0: one rect */
            v->trace[v->ntrace - 1].w = x1 - v->trace[v->ntrace - 1].x + 1;
        else
            v->trace[v->ntrace++] = (SDL_Rect){x0, top, x1 - x0 + 1, bot - top + 1};
        v->trace_hz[nseen++] = (float)f0;
        prev = y;
    }
    pthread_mutex_unlock(s->mu);
    trace_fill(v, NULL);
    trace_note(&v->sg, map, pr, v->trace_hz, nseen);
}

void view_pitch_draw(view *v, const layout *L)
{
    picture *p = &v->pic;
    view_sig_ui *u = &v->sg;
    const scale_map *map;
    u->pitch_points = 0;
    u->pitch_med_hz = NAN;
    u->pitch_med_y = -1;
    v->ntrace = 0;
    /* not over a transform's columns (p->cols: mel, CQT ... rows are not a Hz axis) */
    if (!u->pitch || !p->r || !p->ok || p->cols || !(map = render_scale(p->r)))
        return;
    if (v->live)
        trace_live(v, L, map);
    else
        trace_file(v, L, map);
}

void view_pitch_present(view *v)
{
    picture *p = &v->pic;
    int y0;
    if (v->ntrace <= 0 || !p->r)
        return;
    y0 = render_plot_rect(p->r, 0).y;
    SDL_SetRenderDrawColor(v->ren, COL_PITCH.r, COL_PITCH.g, COL_PITCH.b, 0xff);
    for (int c = 0; c < p->channels; c++) {
        int dy = render_plot_rect(p->r, c).y - y0;
        for (int i = 0; dy && i < v->ntrace; i++)
            v->trace[i].y += dy;
        SDL_RenderFillRects(v->ren, v->trace, v->ntrace);
        for (int i = 0; dy && i < v->ntrace; i++)
            v->trace[i].y -= dy;
    }
}

void view_pitch_over(view *v, const SDL_Rect *a)
{
    if (v->ntrace > 0 && v->pic.r)
        trace_fill(v, a);
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
