/* view_compare: --compare A B in the window (docs/manual.md "Two signals in the window"). The analysis
 * reads the pair (source_open_pair with compare: channel 0 the mix of A, channel 1 the mix of
 * B, at one rate and length), so the file picture stacks A over B with one time axis: one
 * zoom, one scroll, one cursor. The read-out gives both levels at the cursor and their
 * difference, and the cursor's cross is drawn in the other panel too. The d key draws the
 * difference B - A instead, one panel in the diverging colour map rdbu over -R .. R dB, R the
 * dB range's width over 8 (as --compare --png's difference panel; a column shows the
 * difference of the entries, each the loudest of the frames it holds, and a pixel over
 * several columns the largest difference, + or -). See view_internal.h. */
#include "view_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "colormap.h"

void view_compare_init(view *v)
{
    v->cmp.on = v->user.compare;
}

void view_compare_free(view *v)
{
    free(v->cmp.ab);
    v->cmp.ab = NULL;
}

int view_compare_key(view *v, SDL_Keycode sym)
{
    if (!v->cmp.on || sym != SDLK_d)
        return 0;
    v->cmp.diff = !v->cmp.diff;
    view_toast(v, v->cmp.diff ? "the difference B \xe2\x88\x92 A" : "A over B");
    return 1;
}

static const char *base_name(const char *path)
{
    const char *slash = path ? strrchr(path, '/') : NULL;
    return slash ? slash + 1 : path ? path : "";
}

void view_compare_config(view *v, render_config *rc)
{
    const view_settings *m = &v->user;
    sp_errinfo ei = {{0}};
    float half = (v->ui.db_hi - v->ui.db_lo) / 8.0f;
    int map;
    if (!v->cmp.on)
        return;
    if (!v->cmp.diff) {
        snprintf(v->cmp.title, sizeof v->cmp.title, "A (top): %s, B: %s", base_name(m->compare_a),
                 base_name(m->compare_b));
        snprintf(v->cmp.labels, sizeof v->cmp.labels, "A: %s\nB: %s", base_name(m->compare_a),
                 base_name(m->compare_b));
        rc->title = v->cmp.title;
        rc->panel_labels = v->cmp.labels;
        return;
    }
    snprintf(v->cmp.title, sizeof v->cmp.title, "B \xe2\x88\x92 A (dB): %s \xe2\x88\x92 %s", base_name(m->compare_b),
             base_name(m->compare_a));
    snprintf(v->cmp.labels, sizeof v->cmp.labels, "B \xe2\x88\x92 A");
    rc->title = v->cmp.title;
    rc->panel_labels = v->cmp.labels;
    if (colormap_parse("rdbu", &map, &ei) == SP_OK)
        rc->colormap = map;
    rc->db_lo = -half;
    rc->db_hi = half;
    rc->fold_signed = 1; /* a pixel over several entries: the largest difference, + or - */
    rc->level_unit = "dB";
    v->shown_bar[0] = rc->db_lo;
    v->shown_bar[1] = rc->db_hi;
    v->pic.channels = 1;
}

/* Under mu, the entries of channel 0 fetched into pic.snap: A's and B's into ab, their
 * difference into pic.snap (no data where either has none). */
void view_compare_snap(view *v)
{
    picture *p = &v->pic;
    size_t per = p->count * p->bins;
    if (!v->cmp.on || !v->cmp.diff)
        return;
    if (!view_grow((void **)&v->cmp.ab, &v->cmp.ab_cap, 2 * per, sizeof *v->cmp.ab)) {
        for (size_t j = 0; j < per; j++)
            p->snap[j] = VIEW_STORE_NODATA;
        return;
    }
    for (int c = 0; c < 2; c++)
        view_store_get(v->sh.store, c, p->a0, p->span, p->count, v->cmp.ab + (size_t)c * per);
    for (size_t j = 0; j < per; j++) {
        int16_t a = v->cmp.ab[j], b = v->cmp.ab[per + j];
        int d = b - a;
        p->snap[j] = a == VIEW_STORE_NODATA || b == VIEW_STORE_NODATA ? VIEW_STORE_NODATA
                     : d < -32000                                     ? -32000
                     : d > 32000                                      ? 32000
                                                                      : (int16_t)d;
    }
}

/* One level for the read-out: "-20.0" (a minus sign), "<= -200", "no data". */
static void level_text(int16_t raw, char *buf, size_t len)
{
    double db = raw * 0.01;
    if (raw == VIEW_STORE_NODATA)
        snprintf(buf, len, "no data");
    else if (db <= -199.99)
        snprintf(buf, len, "\xe2\x89\xa4 \xe2\x88\x92" "200");
    else
        snprintf(buf, len, "%s%.1f", db < 0 ? "\xe2\x88\x92" : "", fabs(db));
}

void view_compare_readout(view *v, size_t i, size_t k, char *l3, size_t len)
{
    picture *p = &v->pic;
    const int16_t *a, *b;
    char ta[32], tb[32], td[32];
    if (!v->cmp.on)
        return;
    if (v->cmp.diff) {
        size_t per = p->count * p->bins;
        a = v->cmp.ab + i * p->bins;
        b = v->cmp.ab + per + i * p->bins;
    } else {
        a = view_snap_entry(p, 0, i);
        b = view_snap_entry(p, 1, i);
    }
    level_text(a[k], ta, sizeof ta);
    level_text(b[k], tb, sizeof tb);
    if (a[k] == VIEW_STORE_NODATA || b[k] == VIEW_STORE_NODATA)
        snprintf(td, sizeof td, "no data");
    else
        snprintf(td, sizeof td, "%s%.1f", b[k] < a[k] ? "\xe2\x88\x92" : "", fabs((b[k] - a[k]) * 0.01));
    snprintf(l3, len, "A %s  B %s %s  B\xe2\x88\x92" "A %s dB", ta, tb, view_level_unit(v), td);
}

void view_compare_cursor(view *v, int c, int my, int draw)
{
    picture *p = &v->pic;
    int mx = v->ui.mx;
    render_rect pr;
    if (!v->cmp.on || v->cmp.diff || p->channels != 2)
        return;
    pr = render_plot_rect(p->r, c);
    for (int o = 0; o < 2; o++) {
        render_rect q = render_plot_rect(p->r, o);
        int y = q.y + (my - pr.y) * q.h / (pr.h > 0 ? pr.h : 1), x = q.x + (mx - pr.x);
        if (o == c)
            continue;
        if (!draw) {
            view_overlay_area(v, q.x, y, q.w, 1);
            view_overlay_area(v, x, q.y, 1, q.h);
            continue;
        }
        canvas_blend(&v->cv, q.x, y, q.w, 1, COL_WHITE, 70);
        canvas_blend(&v->cv, x, q.y, 1, q.h, COL_WHITE, 70);
    }
}
