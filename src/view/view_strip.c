/* view_strip: the spectrum strip's boxes: the legend of what it shows (the spectrum's
 * curve, the hold's, the average's or the selection's, the band bars) at the top of the
 * last panel, the tone's figures under it (the top of each panel), and the harmonics'
 * numbers at the strip's right edge. Every box lies inside the strip, left of the
 * harmonics' ticks; none covers another, a number that would is left out (its tick stays),
 * and the band bars keep out of the boxes' rows (view_strip_keepout). A line too wide for
 * the strip goes on two lines, else is cut with an ellipsis.
 *
 * The boxes are laid out once before the bars are drawn (view_strip_layout: where the bars
 * must not go) and drawn after them (view_strip_draw), by one function that measures or
 * draws. See view_internal.h. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "view_internal.h"

#define LINES_MAX 8 /* a box's lines: the tone's five, three of them split */

/* One box's content: up to LINES_MAX lines, the first with a swatch (a legend entry). */
typedef struct {
    char line[LINES_MAX][256];
    rgb8 col[LINES_MAX];
    int n;
    int swatch;       /* 0 none, 1 a curve's line, 2 a bar's block */
    rgb8 swatch_col;
    char label[96];   /* the stats' name of the box */
} box_text;

/* The strip's columns: boxes from left to right (the harmonics' tick column beyond it). */
static void columns(const view *v, const layout *L, int *left, int *right, int *tick_x)
{
    int fs = L->fs, x0 = L->side_x + fs / 2, pw = v->cv.w - (int)lround(fs * 1.4) - x0;
    *left = L->side_x + fs / 4;
    *tick_x = x0 + pw - fs;
    *right = *tick_x - 2;
}

/* s cut (at a UTF-8 boundary) with an ellipsis until it fits `room` pixels. */
static void cut_to_fit(view *v, char *s, size_t len, int room)
{
    size_t n = strlen(s);
    while (n > 0 && canvas_text_width(v->font, s) > room) {
        do
            n--;
        while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80);
        snprintf(s + n, len - n, "\xe2\x80\xa6");
    }
}

/* head, sep and tail as one line of t when it fits `room`, else head and tail on two
 * (each cut to fit); tail NULL: head alone. */
static void add_line(view *v, box_text *t, const char *head, const char *sep, const char *tail, rgb8 col, int room)
{
    char one[256];
    if (t->n >= LINES_MAX)
        return;
    snprintf(one, sizeof one, "%s%s%s", head, tail ? sep : "", tail ? tail : "");
    if (!tail || canvas_text_width(v->font, one) <= room || t->n + 1 >= LINES_MAX) {
        snprintf(t->line[t->n], sizeof t->line[0], "%s", one);
        cut_to_fit(v, t->line[t->n], sizeof t->line[0], room);
        t->col[t->n++] = col;
        return;
    }
    add_line(v, t, head, "", NULL, col, room);
    add_line(v, t, tail, "", NULL, col, room);
}

/* The box's size for its text: the swatch's column, then the lines. */
static void box_size(view *v, const layout *L, const box_text *t, int *w, int *h)
{
    int fs = L->fs, tw = 0, indent = t->swatch ? fs + fs / 3 : 0;
    for (int i = 0; i < t->n; i++) {
        int lw = canvas_text_width(v->font, t->line[i]);
        tw = lw > tw ? lw : tw;
    }
    *w = fs / 3 + indent + tw + fs / 3;
    *h = t->n * v->line_h + fs / 3;
}

/* Draws the box at (x, y) (w x h, box_size's) and notes it for the stats. */
static void draw_box(view *v, const layout *L, const box_text *t, int x, int y, int w, int h)
{
    int fs = L->fs, tx = x + fs / 3 + (t->swatch ? fs + fs / 3 : 0), ty = y + fs / 6;
    canvas_blend(&v->cv, x, y, w, h, COL_BLACK, 200);
    if (t->swatch == 1) {
        canvas_fill(&v->cv, x + fs / 3, ty + v->line_h / 2, fs, 2, t->swatch_col);
    } else if (t->swatch == 2) {
        canvas_blend(&v->cv, x + fs / 3, ty + v->line_h / 4, fs, v->line_h / 2, t->swatch_col, 120);
        canvas_fill(&v->cv, x + fs / 3 + fs - 2, ty + v->line_h / 4, 2, v->line_h / 2, t->swatch_col);
    }
    for (int i = 0; i < t->n; i++)
        view_text(v, t->line[i], tx, ty + i * v->line_h, t->col[i]);
    view_note_box(v, t->label, x, y, w, h);
}

/* The legend's entries, in the order the strip draws them; returns how many. */
static int legend_texts(view *v, int room, box_text *e)
{
    const panel_state *pn = &v->pn;
    const view_strip *sn = &v->sn;
    char tail[48];
    int n = 0;
    memset(e, 0, 4 * sizeof *e);
    if (sn->curve) {
        snprintf(e[n].label, sizeof e[n].label, "%s", v->live ? "newest" : "cursor");
        add_line(v, &e[n], e[n].label, "", NULL, RENDER_COL_LABEL, room);
        e[n].swatch = 1;
        e[n++].swatch_col = COL_CURVE;
    }
    if (sn->hold) {
        snprintf(e[n].label, sizeof e[n].label, "%s", v->live ? "peak hold" : "max of view");
        add_line(v, &e[n], e[n].label, "", NULL, RENDER_COL_LABEL, room);
        e[n].swatch = 1;
        e[n++].swatch_col = COL_HOLD;
    }
    if (pn->show_src != PANEL_SRC_NONE) {
        const char *head = pn->show_src == PANEL_SRC_SEL   ? "selection: mean"
                           : pn->show_src == PANEL_SRC_EXP ? "average: exponential"
                                                           : "average: mean";
        if (pn->show_src == PANEL_SRC_SEL && !pn->show_frames)
            snprintf(tail, sizeof tail, "(reading\xe2\x80\xa6)");
        else if (pn->show_src == PANEL_SRC_EXP)
            snprintf(tail, sizeof tail, "\xcf\x84 %g s", AVG_TAU_S);
        else
            snprintf(tail, sizeof tail, "of %llu frames", (unsigned long long)pn->show_frames);
        snprintf(e[n].label, sizeof e[n].label, "%s %s", head, tail);
        add_line(v, &e[n], head, " ", tail, RENDER_COL_LABEL, room);
        e[n].swatch = 1;
        e[n++].swatch_col = COL_AVG;
    }
    if (v->bd.fraction) { /* the bars, drawn after the layout */
        int f = v->bd.fraction;
        char head[32];
        if (f == 1)
            snprintf(head, sizeof head, "octave");
        else if (f == 3)
            snprintf(head, sizeof head, "third-octave");
        else
            snprintf(head, sizeof head, "1/%d-octave", f);
        if (v->bd.weighting)
            snprintf(tail, sizeof tail, "bands, %s-weighted", spectro_bands_weighting_name(v->bd.weighting));
        else
            snprintf(tail, sizeof tail, "bands");
        snprintf(e[n].label, sizeof e[n].label, "%s %s", head, tail);
        add_line(v, &e[n], head, " ", tail, RENDER_COL_LABEL, room);
        e[n].swatch = 2;
        e[n++].swatch_col = COL_BAR;
    }
    return n;
}

static void fmt_db(char *buf, size_t len, const char *name, double db)
{
    snprintf(buf, len, "%s %s%.1f dB", name, db < 0 ? "\xe2\x88\x92" : "", fabs(db));
}

/* Channel c's tone figures (or, when the analysis failed, its message). */
static void tone_text(view *v, int c, int room, box_text *t)
{
    const panel_state *pn = &v->pn;
    const spectro_tone *m = &pn->tone[c];
    char a[96], b[96];
    memset(t, 0, sizeof *t);
    snprintf(t->label, sizeof t->label, "tone");
    if (!pn->tone_ok) {
        add_line(v, t, pn->tone_msg, "", NULL, COL_TONE, room);
        return;
    }
    snprintf(a, sizeof a, "f0 %.1f Hz", m->fundamental_hz);
    snprintf(b, sizeof b, "%s%.1f %s", m->fundamental_dbfs < 0 ? "\xe2\x88\x92" : "", fabs(m->fundamental_dbfs),
             view_level_unit(v));
    add_line(v, t, a, "  ", b, COL_TONE, room);
    fmt_db(a, sizeof a, "THD", m->thd_db);
    snprintf(b, sizeof b, "%#.3g %%", m->thd_percent);
    add_line(v, t, a, "  ", b, COL_TONE, room);
    fmt_db(a, sizeof a, "THD+N", m->thdn_db);
    add_line(v, t, a, "", NULL, COL_TONE, room);
    fmt_db(a, sizeof a, "SNR", m->snr_db);
    add_line(v, t, a, "", NULL, COL_TONE, room);
    add_line(v, t, "of the", " ",
             pn->tone_src == PANEL_SRC_SEL ? "selection" : pn->tone_src == PANEL_SRC_EXP ? "exponential average" : "mean",
             RENDER_COL_LABEL, room);
}

/* A box at the next free place of panel pr (from *y down): kept, and drawn when `draw`;
 * 0 when it does not fit the panel (the rest then does not either). */
static int place(view *v, const layout *L, const render_rect *pr, const box_text *t, int *y, int draw)
{
    view_strip *sn = &v->sn;
    int left, right, tick_x, w, h;
    columns(v, L, &left, &right, &tick_x);
    box_size(v, L, t, &w, &h);
    if (w > right - left)
        w = right - left;
    if (*y + h > pr->y + pr->h || (!draw && sn->nbox >= VIEW_STRIP_BOXES))
        return 0;
    if (draw)
        draw_box(v, L, t, left, *y, w, h);
    else
        sn->box[sn->nbox++] = (SDL_Rect){left, *y, w, h};
    *y += h + L->fs / 4;
    return 1;
}

/* The harmonics' ticks at the strip's right edge, numbered where the number covers no
 * box and no number above it. */
static void draw_harmonics(view *v, const layout *L, int c)
{
    const spectro_tone *t = &v->pn.tone[c];
    const scale_map *map = render_scale(v->pic.r);
    render_rect pr = render_plot_rect(v->pic.r, c);
    int fs = L->fs, left, right, tick_x, last_y = -100000;
    char num[16], name[48];
    columns(v, L, &left, &right, &tick_x);
    for (int h = 0; h <= t->harmonics; h++) {
        double hz = h == 0 ? t->fundamental_hz : t->harmonic[h - 1].hz, u = scale_to_unit(map, hz);
        int y = pr.y + (int)lround((1.0 - u) * pr.h), tw, covered = 0;
        SDL_Rect r;
        if (!(u >= 0.0 && u <= 1.0) || y >= pr.y + pr.h)
            continue;
        canvas_fill(&v->cv, tick_x, y, fs + fs / 3, 1, COL_TONE);
        snprintf(num, sizeof num, "%d", h + 1);
        tw = canvas_text_width(v->font, num);
        r = (SDL_Rect){tick_x - tw - fs / 3, y - v->line_h / 2, tw + fs / 4, v->line_h};
        for (int i = 0; i < v->sn.nbox; i++)
            covered |= SDL_HasIntersection(&r, &v->sn.box[i]);
        if (covered || abs(y - last_y) < v->line_h) /* crowded (high harmonics on a log scale): tick only */
            continue;
        canvas_blend(&v->cv, r.x, r.y, r.w, r.h, COL_BLACK, 160);
        view_text(v, num, tick_x - tw - fs / 4, r.y, COL_TONE);
        snprintf(name, sizeof name, "harmonic %d", h + 1);
        view_note_box(v, name, r.x, r.y, r.w, r.h);
        last_y = y;
    }
}

/* The boxes: laid out (draw 0: sn->box) or drawn (1) at the places the layout gave. */
static void strip_boxes(view *v, const layout *L, int draw)
{
    picture *p = &v->pic;
    panel_state *pn = &v->pn;
    box_text e[4];
    int left, right, tick_x, last = p->channels - 1, room, n, y;
    render_rect pr;
    columns(v, L, &left, &right, &tick_x);
    room = right - left - L->fs;
    if (!draw)
        v->sn.nbox = 0;
    if (room < 2 * L->fs || !p->r)
        return;
    view_font(v, L->fs);
    pr = render_plot_rect(p->r, last);
    y = pr.y + L->fs / 4;
    n = legend_texts(v, room - L->fs - L->fs / 3, e);
    for (int i = 0; i < n && place(v, L, &pr, &e[i], &y, draw); i++)
        ;
    if (!pn->tone_on || (!pn->tone_ok && !pn->tone_msg[0]))
        return;
    for (int c = 0; c < p->channels && c < PANEL_TONE_CHANNELS; c++) {
        box_text t;
        int yc;
        render_rect pc = render_plot_rect(p->r, c);
        if (!pn->tone_ok && c > 0)
            break; /* the message once */
        yc = c == last ? y : pc.y + L->fs / 4;
        tone_text(v, c, room, &t);
        place(v, L, &pc, &t, &yc, draw);
        if (draw && pn->tone_ok)
            draw_harmonics(v, L, c);
    }
}

void view_strip_layout(view *v, const layout *L)
{
    strip_boxes(v, L, 0);
}

void view_strip_draw(view *v, const layout *L)
{
    strip_boxes(v, L, 1);
}

int view_strip_keepout(const view *v, int x, int w, int y, int *y_end)
{
    int free_to = *y_end;
    for (int i = 0; i < v->sn.nbox; i++) {
        const SDL_Rect *b = &v->sn.box[i];
        if (b->x >= x + w || x >= b->x + b->w || y >= b->y + b->h || b->y >= *y_end)
            continue;
        if (b->y <= y) { /* y is under this box: skip to its bottom */
            *y_end = b->y + b->h;
            return 1;
        }
        free_to = b->y < free_to ? b->y : free_to;
    }
    *y_end = free_to;
    return 0;
}
