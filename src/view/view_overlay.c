/* view_overlay: text in the window's font (cached), the status line, and what is drawn
 * over the picture: the cursor's read-out, a short message, the help. See
 * view_internal.h. */
#include "view_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "colormap.h"
#include "scale.h"

/* "A4 +3 ct" for 441 Hz (A4 = 440 Hz, equal temperament). */
void view_note_name(double hz, char *buf, size_t len)
{
    static const char *names[12] = {"C", "C\xe2\x99\xaf", "D", "D\xe2\x99\xaf", "E", "F",
                                    "F\xe2\x99\xaf", "G", "G\xe2\x99\xaf", "A", "A\xe2\x99\xaf", "B"};
    double midi;
    long n;
    int ct;
    if (!(hz >= 8.0) || !isfinite(hz)) {
        snprintf(buf, len, "\xe2\x80\x94");
        return;
    }
    midi = 69.0 + 12.0 * log2(hz / 440.0);
    n = lround(midi);
    ct = (int)lround((midi - (double)n) * 100.0);
    snprintf(buf, len, "%s%ld %s%d ct", names[((n % 12) + 12) % 12], n / 12 - 1, ct < 0 ? "\xe2\x88\x92" : "+",
             abs(ct));
}

int view_font(view *v, int px)
{
    if (v->font && v->font_px == px)
        return 1;
    canvas_ttf_lock();
    if (v->font)
        TTF_CloseFont(v->font);
    v->font = TTF_OpenFont(v->font_path, px);
    v->font_px = px;
    v->font_gen++;
    if (v->font) {
        TTF_SetFontHinting(v->font, TTF_HINTING_LIGHT);
        v->line_h = TTF_FontHeight(v->font);
    }
    canvas_ttf_unlock();
    return v->font != NULL;
}

/* v->font's rendering of s in colour col: from the cache, else rendered and kept there in
 * place of the entry drawn longest ago (NULL when it cannot be rendered). Strings too
 * long for an entry are rendered each time, into *own (the caller frees it). */
static SDL_Surface *text_surface(view *v, const char *s, rgb8 col, SDL_Surface **own)
{
    SDL_Color fg = {col.r, col.g, col.b, 255};
    text_entry *e = NULL;
    *own = NULL;
    if (strlen(s) >= sizeof v->texts[0].s) {
        canvas_ttf_lock();
        *own = TTF_RenderUTF8_Blended(v->font, s, fg);
        canvas_ttf_unlock();
        return *own;
    }
    for (int i = 0; i < TEXT_CACHE; i++) {
        text_entry *t = &v->texts[i];
        if (t->sf && t->font_gen == v->font_gen && t->col.r == col.r && t->col.g == col.g && t->col.b == col.b &&
            strcmp(t->s, s) == 0) {
            t->used = ++v->text_tick;
            return t->sf;
        }
        if (!e || !t->sf || (e->sf && t->used < e->used))
            e = t;
    }
    canvas_ttf_lock();
    SDL_FreeSurface(e->sf);
    e->sf = TTF_RenderUTF8_Blended(v->font, s, fg);
    canvas_ttf_unlock();
    if (!e->sf)
        return NULL;
    e->font_gen = v->font_gen;
    e->col = col;
    e->used = ++v->text_tick;
    snprintf(e->s, sizeof e->s, "%s", s);
    return e->sf;
}

/* Anti-aliased text in v->font with its box's top-left at x, y; returns the x after it. */
int view_text(view *v, const char *s, int x, int y, rgb8 col)
{
    SDL_Surface *own, *sf;
    if (!v->font || !s || !*s || !(sf = text_surface(v, s, col, &own)))
        return x;
    canvas_blit_text(&v->cv, sf, x, y, col, 0);
    x += sf->w;
    if (own) {
        canvas_ttf_lock();
        SDL_FreeSurface(own);
        canvas_ttf_unlock();
    }
    return x;
}

const char *view_level_unit(const view *v)
{
    return v->w.cfg.render.level_unit ? v->w.cfg.render.level_unit : "dBFS";
}

void view_toast(view *v, const char *msg)
{
    snprintf(v->ui.toast, sizeof v->ui.toast, "%s", msg);
    sp_render_fields(v->ui.toast, sizeof v->ui.toast); /* an engine's line names options */
    v->ui.toast_until = sp_now() + TOAST_S;
}

/* One field of the status line: its text, its group (fields of one group are set apart by
 * two spaces, groups by a dot) and its rank (a narrow window drops the lowest first). */
typedef struct {
    char s[160];
    int group, rank;
} status_field;

#define STATUS_SEP "  \xc2\xb7  "

static void add_field(status_field *f, int *n, int group, int rank, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static void add_field(status_field *f, int *n, int group, int rank, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f[*n].s, sizeof f[*n].s, fmt, ap);
    va_end(ap);
    f[*n].group = group;
    f[*n].rank = rank;
    (*n)++;
}

/* The kept fields (rank >= min_rank) joined: "a  b  ·  c". */
static void join_fields(const status_field *f, int n, int min_rank, char *buf, size_t len)
{
    size_t at = 0;
    int prev = -1;
    buf[0] = '\0';
    for (int i = 0; i < n && at < len; i++) {
        if (f[i].rank < min_rank)
            continue;
        at += (size_t)snprintf(buf + at, len - at, "%s%s", prev < 0 ? "" : prev == f[i].group ? "  " : STATUS_SEP,
                               f[i].s);
        prev = f[i].group;
    }
}

static const char *minus_sign(double x)
{
    return x < 0 ? "\xe2\x88\x92" : "";
}

/* The settings' fields (left) and the run's (right) of the status line. */
static void status_fields(view *v, const view_stream *info, double latency, status_field *lf, int *nl,
                          status_field *rf, int *nr)
{
    const char *name = info->name, *slash = strrchr(name, '/');
    char sel[160], play[64];
    uint64_t dropped;
    pthread_mutex_lock(&v->sh.mu);
    dropped = v->sh.finished ? v->sh.end.dropped_samples : v->sh.skipped * info->hop;
    pthread_mutex_unlock(&v->sh.mu);
    *nl = *nr = 0;
    add_field(lf, nl, 0, 11, "%s", slash ? slash + 1 : name);
    add_field(lf, nl, 1, 6, "%d Hz", info->rate);
    add_field(lf, nl, 2, 12, "N=%zu", info->n);
    add_field(lf, nl, 2, 5, "hop=%zu", info->hop);
    add_field(lf, nl, 2, 1, "%s", info->window);
    add_field(lf, nl, 3, 0, "%s", info->backend);
    if (v->sh.xf.on) { /* the transfer view: what its curves are made of (view_transfer.c) */
        const view_xfer *x = &v->xf;
        add_field(lf, nl, 4, 10, "%llu averages", (unsigned long long)x->averages);
        add_field(lf, nl, 4, 9, "delay %s%.3f ms", minus_sign(x->delay_s), fabs(1e3 * x->delay_s));
        add_field(lf, nl, 4, 8, "%s", x->remove_delay ? "delay removed" : "delay kept");
        if (x->cur_on)
            add_field(lf, nl, 5, 11, "cursor %.1f Hz", x->cur_hz);
    } else {
        add_field(lf, nl, 4, 1, "%s  %s", colormap_name(v->ui.cmap), scale_name(v->ui.scale));
        add_field(lf, nl, 4, 10, "%s%g \xe2\x80\xa6 %s%g dB", minus_sign(v->ui.db_lo), fabs((double)v->ui.db_lo),
                  minus_sign(v->ui.db_hi), fabs((double)v->ui.db_hi));
        add_field(lf, nl, 4, 9, "gain %s%g dB", v->ui.gain < 0 ? "\xe2\x88\x92" : "+", fabs((double)v->ui.gain));
    }
    if (view_select_status(v, sel, sizeof sel)) /* the selection (view_select.c) */
        add_field(lf, nl, 5, 11, "%s", sel);
    if (info->live && !v->sh.xf.on) {
        if (latency > 0)
            add_field(rf, nr, 0, 7, "latency %.0f ms", latency * 1e3);
        else
            add_field(rf, nr, 0, 7, "latency \xe2\x80\x94");
        add_field(rf, nr, 1, 8, "dropped %llu", (unsigned long long)dropped);
        add_field(rf, nr, 2, 2, "%.0f fps", v->fps);
    } else if (info->live) { /* the transfer view: no picture of the newest frame */
        add_field(rf, nr, 1, 8, "dropped %llu", (unsigned long long)dropped);
    } else if (!v->finished) { /* a still picture is redrawn on demand only: no rate */
        add_field(rf, nr, 2, 2, "%.0f fps", v->fps);
    }
    if (view_play_status(v, play, sizeof play)) /* playback (view_play.c) */
        add_field(rf, nr, 3, 11, "%s", play);
    add_field(rf, nr, 3, 3, "h: help");
}

/* The status line: the state, then the settings at the left and the run's figures at the
 * right. Where they do not fit, whole fields go, the least important first: a number is
 * never cut. */
void view_draw_status(view *v, const layout *L, const view_stream *info, double latency)
{
    canvas *cv = &v->cv;
    char st[64], left[768], right[256];
    int fs = L->fs, y, x = fs, nl, nr, min_rank = 0, rw;
    rgb8 st_col = RENDER_COL_TICK;
    status_field lf[12], rf[6];
    shared *sh = &v->sh;
    view_font(v, fs);
    canvas_fill(cv, 0, L->status_y, cv->w, L->status_h, COL_STATUS_BG);
    canvas_fill(cv, 0, L->status_y, cv->w, 1, COL_GRID);
    y = L->status_y + (L->status_h - v->line_h) / 2;
    if (info->live) {
        snprintf(st, sizeof st, "%s", v->ui.paused ? "\xe2\x9d\x9a\xe2\x9d\x9a PAUSED   "
                                      : v->finished ? "\xe2\x96\xa0 ENDED   " : "\xe2\x97\x8f LIVE   ");
        st_col = v->ui.paused ? COL_PAUSED : v->finished ? RENDER_COL_TICK : COL_LIVE;
    } else {
        uint64_t total = view_expected_frames(info), have;
        pthread_mutex_lock(&sh->mu);
        have = view_store_frames(sh->store);
        pthread_mutex_unlock(&sh->mu);
        if (v->finished)
            snprintf(st, sizeof st, "%s", v->ui.paused ? "\xe2\x9d\x9a\xe2\x9d\x9a PAUSED   " : "");
        else
            snprintf(st, sizeof st, "analysing %.0f%%   ", total ? 100.0 * (double)have / (double)total : 0.0);
        st_col = v->ui.paused ? COL_PAUSED : COL_HOLD;
    }
    status_fields(v, info, latency, lf, &nl, rf, &nr);
    x += canvas_text_width(v->font, st);
    for (;; min_rank++) {
        join_fields(lf, nl, min_rank, left, sizeof left);
        join_fields(rf, nr, min_rank, right, sizeof right);
        rw = canvas_text_width(v->font, right);
        if (x + canvas_text_width(v->font, left) + (right[0] ? 2 * fs + rw : 0) + fs <= cv->w || min_rank > 12)
            break;
    }
    view_text(v, st, fs, y, st_col);
    view_text(v, left, x, y, RENDER_COL_LABEL);
    view_text(v, right, cv->w - fs - rw, y, RENDER_COL_TICK);
    snprintf(v->shown_status, sizeof v->shown_status, "%s%s | %s", st, left, right);
}

/* A short message (not in screenshots): at the top of the first panel, inside it, so that
 * it covers no axis, label or colour bar (above the status line without a picture). */
void view_draw_toast(view *v, const layout *L, int draw)
{
    canvas *cv = &v->cv;
    int fs = L->fs;
    view_font(v, fs);
    if (v->ui.toast_up) {
        int tw = canvas_text_width(v->font, v->ui.toast), bx = (cv->w - tw) / 2 - fs;
        int by = L->status_y - v->line_h * 2 - fs;
        if (v->pic.r && v->pic.ok) {
            render_rect pr = render_plot_rect(v->pic.r, 0);
            bx = pr.x + (pr.w - tw) / 2 - fs;
            by = pr.y + fs / 2;
            if (bx < pr.x)
                bx = pr.x;
        }
        if (!draw) {
            view_overlay_area(v, bx, by, tw + 2 * fs, v->line_h + fs);
            return;
        }
        canvas_blend(cv, bx, by, tw + 2 * fs, v->line_h + fs, COL_BLACK, 210);
        canvas_outline(cv, bx, by, tw + 2 * fs, v->line_h + fs, RENDER_COL_FRAME);
        view_text(v, v->ui.toast, bx + fs, by + fs / 2, RENDER_COL_TITLE);
    }
}

/* t as the time axis writes it (render.c's rule: h:mm:ss from an hour on, m:ss from a
 * minute, else seconds, by the axis's end), to the millisecond. */
void view_format_time(const picture *p, double t, char *buf, size_t len)
{
    double t0 = view_frame_time(p, (double)p->a0 + 0.5 * (double)(p->span - 1));
    double dt = (double)p->span * (double)p->hop / p->rate, tmax = t0 + ((double)p->count - 0.5) * dt;
    double a = floor(fabs(t) * 1000.0 + 0.5) / 1000.0;
    long long whole = (long long)floor(a), ms = (long long)floor((a - (double)whole) * 1000.0 + 0.5);
    const char *sign = t < 0 && a > 0 ? "\xe2\x88\x92" : "";
    if (tmax >= 3600)
        snprintf(buf, len, "%s%lld:%02lld:%02lld.%03lld", sign, whole / 3600, whole / 60 % 60, whole % 60, ms);
    else if (tmax >= 60)
        snprintf(buf, len, "%s%lld:%02lld.%03lld", sign, whole / 60, whole % 60, ms);
    else
        snprintf(buf, len, "%s%.3f s", t < 0 ? "\xe2\x88\x92" : "", fabs(t));
}

/* Cross-hair and a read-out box: time, frequency (and note), level. */
void view_draw_readout(view *v, const layout *L, int draw)
{
    picture *p = &v->pic;
    canvas *cv = &v->cv;
    int mx = v->ui.mx, my = v->ui.my, fs = L->fs;
    if (!v->ui.mouse_in || !p->r || !p->ok)
        return;
    for (int c = 0; c < p->channels; c++) {
        render_rect pr = render_plot_rect(p->r, c);
        const scale_map *map = render_scale(p->r);
        char l1[96], l2[96], l3[96], l4[96], l5[96], lp[96], note[48], hz[32];
        int nl, pl;
        double u, hzv, t;
        size_t i, k;
        float db;
        int16_t raw;
        int bw, bh, bx, by;
        if (mx < pr.x || mx >= pr.x + pr.w || my < pr.y || my >= pr.y + pr.h)
            continue;
        i = (size_t)(((double)(mx - pr.x) + 0.5) / pr.w * (double)p->count);
        if (i >= p->count)
            i = p->count - 1;
        u = 1.0 - ((double)(my - pr.y) + 0.5) / pr.h;
        hzv = scale_from_unit(map, u);
        k = (size_t)lround(hzv * (double)p->n / p->rate);
        if (k >= p->bins)
            k = p->bins - 1;
        raw = view_snap_entry(p, c, i)[k];
        db = (float)raw * 0.01f;
        t = view_frame_time(p, (double)p->a0 + (double)i * (double)p->span + 0.5 * (double)(p->span - 1));
        if (hzv >= 1000)
            snprintf(hz, sizeof hz, "%.3f kHz", hzv / 1000);
        else
            snprintf(hz, sizeof hz, "%.1f Hz", hzv);
        view_note_name(hzv, note, sizeof note);
        view_format_time(p, t, l1, sizeof l1);
        snprintf(l2, sizeof l2, "%s   %s", hz, note);
        if (view_xform_readout(v, u, &k, l2, sizeof l2)) /* a transform's column (view_xform.c) */
            raw = view_snap_entry(p, c, i)[k];
        db = (float)raw * 0.01f;
        {
            char ch[24] = "";
            if (p->channels > 1)
                snprintf(ch, sizeof ch, "   ch %d", c);
            if (raw == VIEW_STORE_NODATA) /* before the start, not yet analysed, skipped */
                snprintf(l3, sizeof l3, "no data%s", ch);
            else if (db <= -199.99f)
                snprintf(l3, sizeof l3, "\xe2\x89\xa4 \xe2\x88\x92" "200 %s%s", view_level_unit(v), ch);
            else
                snprintf(l3, sizeof l3, "%s%.1f %s%s", db < 0 ? "\xe2\x88\x92" : "", fabs((double)db),
                         view_level_unit(v), ch);
            view_compare_readout(v, i, k, l3, sizeof l3); /* --compare: A's, B's, B - A */
        }
        /* with a mark (view_select.c): the differences to it */
        nl = view_mark_readout(v, c, (double)p->a0 + (double)i * (double)p->span + 0.5 * (double)(p->span - 1), hzv,
                               raw == VIEW_STORE_NODATA ? NAN : (double)db, l4, l5, sizeof l4)
                 ? 5
                 : 3;
        /* with the pitch trace (view_pitch.c): its f0 at the cursor's frame, and the note */
        pl = view_pitch_readout(v, (double)p->a0 + ((double)i + 0.5) * (double)p->span - 0.5, lp, sizeof lp);
        view_font(v, fs);
        bw = canvas_text_width(v->font, l2);
        bw = canvas_text_width(v->font, l1) > bw ? canvas_text_width(v->font, l1) : bw;
        bw = canvas_text_width(v->font, l3) > bw ? canvas_text_width(v->font, l3) : bw;
        for (int j = 3; j < nl; j++)
            bw = canvas_text_width(v->font, j == 3 ? l4 : l5) > bw ? canvas_text_width(v->font, j == 3 ? l4 : l5) : bw;
        if (pl && canvas_text_width(v->font, lp) > bw)
            bw = canvas_text_width(v->font, lp);
        bw += fs;
        bh = (nl + pl) * v->line_h + fs / 2;
        bx = mx + fs;
        by = my + fs;
        if (bx + bw > pr.x + pr.w)
            bx = mx - fs - bw;
        if (by + bh > pr.y + pr.h)
            by = my - fs - bh;
        view_compare_cursor(v, c, my, draw); /* --compare: the cross in the other panel too */
        if (!draw) {
            view_overlay_area(v, pr.x, my, pr.w, 1);
            view_overlay_area(v, mx, pr.y, 1, pr.h);
            view_overlay_area(v, bx, by, bw, bh);
            continue;
        }
        canvas_blend(cv, pr.x, my, pr.w, 1, COL_WHITE, 70);
        canvas_blend(cv, mx, pr.y, 1, pr.h, COL_WHITE, 70);
        canvas_blend(cv, bx, by, bw, bh, COL_BLACK, 200);
        canvas_outline(cv, bx, by, bw, bh, RENDER_COL_FRAME);
        view_text(v, l1, bx + fs / 2, by + fs / 4, RENDER_COL_TITLE);
        view_text(v, l2, bx + fs / 2, by + fs / 4 + v->line_h, RENDER_COL_TITLE);
        view_text(v, l3, bx + fs / 2, by + fs / 4 + 2 * v->line_h, RENDER_COL_TITLE);
        snprintf(v->shown_readout, sizeof v->shown_readout, "%s | %s | %s", l1, l2, l3);
        if (nl == 5) {
            size_t at = strlen(v->shown_readout);
            view_text(v, l4, bx + fs / 2, by + fs / 4 + 3 * v->line_h, COL_HOLD);
            view_text(v, l5, bx + fs / 2, by + fs / 4 + 4 * v->line_h, COL_HOLD);
            snprintf(v->shown_readout + at, sizeof v->shown_readout - at, " | %s | %s", l4, l5);
        }
        if (pl) {
            size_t at = strlen(v->shown_readout);
            view_text(v, lp, bx + fs / 2, by + fs / 4 + nl * v->line_h, COL_TONE);
            snprintf(v->shown_readout + at, sizeof v->shown_readout - at, " | %s", lp);
        }
    }
}

/* The help's lines: the keys (view_keys.c) that act in this view, and what they do there. */
static int help_keys(const view *v, int *idx)
{
    int n = 0;
    for (int i = 0; i < view_key_count() && n < VIEW_HELP_MAX; i++)
        if (!v->sh.xf.on || view_key_transfer(i))
            idx[n++] = i;
    return n;
}

static const char *help_action(const view *v, int i)
{
    return v->sh.xf.on ? view_key_transfer(i) : view_key_action(i);
}

void view_draw_help(view *v, const layout *L, int draw)
{
    canvas *cv = &v->cv;
    int fs = L->fs, idx[VIEW_HELP_MAX], n = help_keys(v, idx), kw = 0, dw = 0, bw, bh, bx, by, lh, cols = 1, rows, cw;
    view_font(v, fs);
    lh = v->line_h + fs / 3;
    for (int j = 0; j < n; j++) {
        int i = idx[j];
        int a = canvas_text_width(v->font, view_key(i)), b = canvas_text_width(v->font, help_action(v, i));
        kw = a > kw ? a : kw;
        dw = b > dw ? b : dw;
    }
    cw = kw + dw + 4 * fs; /* one column of keys and actions */
    rows = n;
    if ((rows + 2) * lh + fs > cv->h && 2 * cw <= cv->w) { /* a low window: two columns */
        cols = 2;
        rows = (n + 1) / 2;
    }
    if ((rows + 2) * lh + fs > cv->h) /* still too low: lines closer together */
        lh = v->line_h;
    bw = cols * cw;
    bh = (rows + 2) * lh + fs;
    bx = (cv->w - bw) / 2;
    by = (cv->h - bh) / 2;
    if (!draw) {
        view_overlay_area(v, bx, by, bw, bh);
        return;
    }
    canvas_blend(cv, bx, by, bw, bh, COL_BLACK, 225);
    canvas_outline(cv, bx, by, bw, bh, RENDER_COL_FRAME);
    view_text(v, v->sh.xf.on ? "Keys (the transfer view)" : "Keys", bx + fs, by + fs / 2, RENDER_COL_TITLE);
    v->shown_help[0] = '\0';
    for (int j = 0; j < n; j++) {
        int i = idx[j], x = bx + (j / rows) * cw, y = by + fs / 2 + (j % rows + 1) * lh + lh / 2;
        size_t at = strlen(v->shown_help);
        view_text(v, view_key(i), x + fs + kw - canvas_text_width(v->font, view_key(i)), y, COL_HOLD);
        view_text(v, help_action(v, i), x + 3 * fs + kw, y, RENDER_COL_LABEL);
        snprintf(v->shown_help + at, sizeof v->shown_help - at, "%s%s: %s", j ? " | " : "", view_key(i),
                 help_action(v, i));
    }
}
