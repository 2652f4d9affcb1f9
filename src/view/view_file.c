/* view_file: what a picture shows (its entries, their snapshot, the renderer's config),
 * the whole-file picture drawn from scratch, and its zoom and scroll in time. See
 * view_internal.h. */
#include "view_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int view_grow(void **p, size_t *cap, size_t want, size_t elem)
{
    void *q;
    if (want <= *cap)
        return 1;
    if (!(q = realloc(*p, want * elem)))
        return 0;
    *p = q;
    *cap = want;
    return 1;
}

uint64_t view_expected_frames(const view_stream *info)
{
    int64_t hint = info->source_frames;
    if (hint < 0)
        return 0;
    if ((uint64_t)hint < info->n)
        return 1;
    return ((uint64_t)hint - info->n) / info->hop + 1;
}

/* Frame time (centre) and the time at the left edge of frame f's slot. */
double view_frame_time(const picture *p, double f)
{
    return p->t_first + f * (double)p->hop / p->rate;
}

/* Resolves the frequency range of the base scale (before zoom). */
void view_base_range(const view *v, double rate, size_t n, double *lo, double *hi)
{
    double fmin = v->user.render.fmin, fmax = v->user.render.fmax;
    if (fmax <= 0 || fmax > rate / 2)
        fmax = rate / 2;
    if (v->ui.scale == FREQ_SCALE_LOG && fmin <= 0)
        fmin = scale_log_default_fmin(rate, n);
    if (fmin >= fmax)
        fmin = 0;
    *lo = fmin;
    *hi = fmax;
}

static void make_title(const view *v, const view_stream *info, char *buf, size_t len)
{
    const char *name = info->name, *slash = strrchr(name, '/');
    if (!v->user.input)
        snprintf(buf, len, "Live \xe2\x80\x94 %s", name);
    else if (v->user.realtime)
        snprintf(buf, len, "%s  (real time)", slash ? slash + 1 : name);
    else
        snprintf(buf, len, "%s", slash ? slash + 1 : name);
}

/* The renderer's config for the picture as the settings are now (its title written into
 * `title`), and the stream's fields of the picture. */
render_config view_picture_config(view *v, const layout *L, const view_stream *info, char *title, size_t len)
{
    picture *p = &v->pic;
    render_config rc = v->user.render;
    double lo, hi;

    p->channels = info->channels;
    p->bins = info->bins; /* n/2+1, or a transform's columns */
    p->n = info->n;
    p->hop = info->hop;
    p->rate = info->rate;
    p->t_first = info->time_first_s;
    view_base_range(v, p->rate, p->n, &lo, &hi);
    rc.width = L->pic_w;
    rc.height = L->pic_h;
    rc.scale = v->ui.scale;
    rc.colormap = v->ui.cmap;
    /* the gain moves the range the colours span, not the levels: the colour bar's labels
     * then say which dBFS each colour means */
    rc.db_lo = v->ui.db_lo - v->ui.gain;
    rc.db_hi = v->ui.db_hi - v->ui.gain;
    v->shown_bar[0] = rc.db_lo;
    v->shown_bar[1] = rc.db_hi;
    rc.fmin = v->ui.zf_lo > 0 ? v->ui.zf_lo : lo;
    rc.fmax = v->ui.zf_hi > 0 ? v->ui.zf_hi : hi;
    if (rc.scale != FREQ_SCALE_LOG && rc.fmin == 0 && lo == 0)
        rc.fmin = 0;
    make_title(v, info, title, len);
    rc.title = title;
    view_xform_picture(v, info, &rc, title, len); /* a transform's columns, its name */
    rc.top_gap = view_wave_height(v, L) > 0 ? view_wave_height(v, L) + L->fs / 2 : 0; /* the waveform strip */
    return rc;
}

/* File view: the frames in view (v->ui.v0, v1: the whole file until a zoom or a scroll
 * sets them, then kept inside `total` frames) as entries for plot_w pixel columns: the
 * first entry's frame, frames per entry, entries. What the next picture draws, from the
 * view as it stands: the mouse's frame (view_frame_at_x) reads it too, so that clicks
 * taken before a picture is drawn act as they would with a picture between them. Under mu. */
static void file_entries(view *v, uint64_t total, size_t plot_w, int64_t *a0, uint64_t *span, size_t *count)
{
    double a, b;
    if (!v->ui.file_view_set) {
        v->ui.v0 = 0;
        v->ui.v1 = (double)total;
    }
    if (v->ui.v1 > (double)total && v->ui.file_view_set) {
        double w = v->ui.v1 - v->ui.v0;
        v->ui.v1 = (double)total;
        v->ui.v0 = fmax(0.0, v->ui.v1 - w);
    }
    if (!(v->ui.v1 > v->ui.v0) || !isfinite(v->ui.v0) || !isfinite(v->ui.v1)) {
        v->ui.v0 = 0;
        v->ui.v1 = (double)total;
    }
    a = v->ui.v0;
    b = v->ui.v1;
    *span = view_store_span(v->sh.store, (uint64_t)ceil(b - a), plot_w);
    *a0 = (int64_t)(floor(a / (double)*span) * (double)*span);
    *count = (size_t)ceil((b - (double)*a0) / (double)*span);
    if (*count < 1)
        *count = 1;
}

/* A file's frames as the picture counts them: those expected, or those in (more), >= 1.
 * Under mu. */
static uint64_t file_total(const view *v, const view_stream *info)
{
    uint64_t total = view_expected_frames(info), frames = view_store_frames(v->sh.store);
    if (total < frames)
        total = frames;
    return total > 0 ? total : 1;
}

/* The entries the picture shows with plot_w pixel columns (p->a0, span, count) and the
 * newest frame it shows (*newest). Under mu. */
void view_picture_range(view *v, const view_stream *info, size_t plot_w, uint64_t *newest)
{
    picture *p = &v->pic;
    uint64_t frames = view_store_frames(v->sh.store);
    if (info->live) {
        uint64_t end = v->ui.paused ? v->ui.paused_frames : frames;
        uint64_t cap = view_store_capacity(v->sh.store), zmax = 1;
        while (zmax * 2 * plot_w <= cap)
            zmax *= 2;
        if (v->ui.live_zoom > zmax)
            v->ui.live_zoom = zmax;
        p->span = v->ui.live_zoom;
        p->count = plot_w;
        p->a0 = (int64_t)end - (int64_t)(p->span * plot_w);
        /* columns stay put as the picture scrolls: entry edges on multiples of span */
        p->a0 = p->a0 >= 0 ? p->a0 / (int64_t)p->span * (int64_t)p->span
                           : -((-p->a0 + (int64_t)p->span - 1) / (int64_t)p->span) * (int64_t)p->span;
        *newest = end;
    } else {
        file_entries(v, file_total(v, info), plot_w, &p->a0, &p->span, &p->count);
        *newest = frames;
    }
}

/* Entry i of channel c in p->snap. */
const int16_t *view_snap_entry(const picture *p, int c, size_t i)
{
    return p->snap + ((size_t)c * p->count + (i + p->rot) % p->count) * p->bins;
}

/* One entry as the renderer's input: dBFS (the gain is in the render's range). */
void view_entry_db(const view *v, const int16_t *s, float *db)
{
    for (size_t k = 0; k < v->pic.bins; k++)
        db[k] = (float)s[k] * 0.01f;
}

void view_hatch_column(uint8_t *px, size_t pitch, int h, size_t slot)
{
    for (int y = 0; y < h; y++, px += pitch) {
        uint8_t g = (slot + (size_t)y) % 6 == 0 ? 0x4a : 0x2a; /* diagonal lines on dark grey */
        px[0] = px[1] = px[2] = g;
        px[3] = 255;
    }
}

/* Hatches channel c's columns whose entry (snap: the channel's count entries) has no data,
 * and draws the channel's label again over them only: elsewhere it is drawn already, and a
 * second blend would change its pixels (the live picture draws it once over its columns). */
static int hatch_panel(render *r, uint8_t *rgba, size_t pitch, const int16_t *snap, const picture *p, int c,
                       sp_errinfo *ei)
{
    render_rect pr = render_plot_rect(r, c), box = render_label_rect(r, c);
    int y0 = box.y > pr.y ? box.y : pr.y, y1 = box.y + box.h < pr.y + pr.h ? box.y + box.h : pr.y + pr.h;
    for (int x = 0; x < pr.w && p->count > 0;) {
        int x1 = x;
        for (; x1 < pr.w; x1++) { /* a run of columns without data */
            size_t i = (size_t)x1 * p->count / (size_t)pr.w; /* live: one entry a column */
            if (snap[i * p->bins] != VIEW_STORE_NODATA)
                break;
            view_hatch_column(rgba + (size_t)pr.y * pitch + (size_t)(pr.x + x1) * 4, pitch, pr.h,
                              (i + p->rot) % p->count);
        }
        if (x1 > x && box.w > 0 && y1 > y0) { /* the label's part over the run */
            int a = pr.x + x > box.x ? pr.x + x : box.x, b = pr.x + x1 < box.x + box.w ? pr.x + x1 : box.x + box.w;
            render_rect area = {a, y0, b - a, y1 - y0};
            int err;
            if (b > a && (err = render_draw_area(r, rgba, pitch, area, 1, ei)) != SP_OK)
                return err;
        }
        x = x1 > x ? x1 : x + 1;
    }
    return SP_OK;
}

/* The whole picture from scratch: a render for the entries in snap (channels x count x
 * bins, in order), every entry added as the renderer's frame i (its time that of its
 * middle frame), drawn into rgba (the picture's size). *out receives the render. */
int view_full_picture(view *v, const render_config *rc, const int16_t *snap, uint8_t *rgba, int hatch,
                      render **out, sp_errinfo *ei)
{
    picture *p = &v->pic;
    double t0 = view_frame_time(p, (double)p->a0 + 0.5 * (double)(p->span - 1));
    double dt = (double)p->span * (double)p->hop / p->rate;
    int err;
    *out = NULL;
    if ((err = render_create(rc, p->rate, p->n, t0, dt, p->channels, (int64_t)p->count, out, ei)) != SP_OK)
        return err;
    if (!view_grow((void **)&p->fbuf, &p->fbuf_cap, p->bins, sizeof *p->fbuf))
        return sp_fail(ei, SP_ENOMEM, "out of memory");
    for (int c = 0; c < p->channels; c++)
        for (size_t i = 0; i < p->count; i++) {
            view_entry_db(v, snap + ((size_t)c * p->count + i) * p->bins, p->fbuf);
            render_add(*out, c, i, 1, p->fbuf);
        }
    if ((err = render_draw(*out, rgba, ei)) != SP_OK)
        return err;
    for (int c = 0; hatch && c < p->channels; c++)
        if ((err = hatch_panel(*out, rgba, (size_t)rc->width * 4, snap + (size_t)c * p->count * p->bins, p, c,
                               ei)) != SP_OK)
            return err;
    return SP_OK;
}

static int same_str(const char *a, const char *b)
{
    return strcmp(a ? a : "", b ? b : "") == 0;
}

/* The key of the picture the entries in p->snap make with rc on L (title: rc's). */
static void file_key_make(file_key *k, const picture *p, const render_config *rc, const layout *L)
{
    memset(k, 0, sizeof *k);
    k->rc = *rc;
    snprintf(k->title, sizeof k->title, "%s", rc->title ? rc->title : "");
    k->rc.title = k->title;
    snprintf(k->labels, sizeof k->labels, "%s", rc->panel_labels ? rc->panel_labels : "");
    k->rc.panel_labels = k->labels;
    k->pic_w = L->pic_w;
    k->pic_h = L->pic_h;
    k->channels = p->channels;
    k->a0 = p->a0;
    k->span = p->span;
    k->count = p->count;
    k->bins = p->bins;
    k->n = p->n;
    k->hop = p->hop;
    k->rate = p->rate;
    k->t_first = p->t_first;
}

static int file_key_same(const file_key *a, const file_key *b)
{
    const render_config *x = &a->rc, *y = &b->rc;
    return x->width == y->width && x->height == y->height && x->scale == y->scale && x->colormap == y->colormap &&
           x->db_lo == y->db_lo && x->db_hi == y->db_hi && x->fmin == y->fmin && x->fmax == y->fmax &&
           same_str(x->title, y->title) && same_str(x->panel_labels, y->panel_labels) && same_str(x->font, y->font) && same_str(x->font_search, y->font_search) &&
           same_str(x->font_bundled, y->font_bundled) && x->font_no_system == y->font_no_system &&
           x->top_gap == y->top_gap && a->pic_w == b->pic_w && a->pic_h == b->pic_h && a->channels == b->channels &&
           a->a0 == b->a0 &&
           a->span == b->span && a->count == b->count && a->bins == b->bins && a->n == b->n && a->hop == b->hop &&
           a->rate == b->rate && a->t_first == b->t_first;
}

/* Whether pic_px and p->r hold the picture of key k with the entries in p->snap (need
 * values): drawn from the same before, so the same pixels (a file playing redraws its
 * frame for the playhead only, the mouse for the strip and the read-out). */
static int file_picture_kept(const picture *p, const file_key *k, size_t need)
{
    return p->drawn_ok && p->r && file_key_same(&p->drawn, k) &&
           memcmp(p->drawn_snap, p->snap, need * sizeof *p->snap) == 0;
}

/* The picture of key k and p->snap is drawn: kept for the next time (not when memory
 * for its entries runs short). */
static void file_picture_note(picture *p, const file_key *k, size_t need)
{
    p->drawn_ok = 0;
    if (!view_grow((void **)&p->drawn_snap, &p->drawn_snap_cap, need, sizeof *p->drawn_snap))
        return;
    memcpy(p->drawn_snap, p->snap, need * sizeof *p->snap);
    p->drawn = *k;
    p->drawn.rc.title = p->drawn.title;
    p->drawn.rc.panel_labels = p->drawn.labels;
    p->drawn_ok = 1;
}

/* File view: builds pic->r and draws it into v->pic_px (L.pic_w x L.pic_h), all of it,
 * unless they hold that picture already (file_picture_kept). Returns 1 when drawn. */
int view_draw_spectrogram(view *v, const layout *L, const view_stream *info, uint64_t *newest_out)
{
    picture *p = &v->pic;
    char title[600];
    render_config rc = view_picture_config(v, L, info, title, sizeof title);
    sp_errinfo ei = {{0}};
    int C, err;
    size_t plot_w, need;
    render *probe = NULL;
    file_key key;

    view_compare_config(v, &rc); /* --compare: its title; the d key: one panel, B - A */
    C = p->channels;
    /* the plot's width comes from the layout, which does not depend on the time range:
     * measured once per layout (a probe), then the real picture with its time origin */
    if (p->plot_w > 0 && p->key.width == rc.width && p->key.height == rc.height && p->key.scale == rc.scale &&
        p->key.db_lo == rc.db_lo && p->key.db_hi == rc.db_hi && p->key.fmin == rc.fmin && p->key.fmax == rc.fmax &&
        p->key_rate == p->rate && p->key_n == p->n && p->key_channels == C) {
        plot_w = (size_t)p->plot_w;
    } else {
        if ((err = render_create(&rc, p->rate, p->n, 0.0, 1.0, C, 1, &probe, &ei)) != SP_OK) {
            snprintf(p->render_err, sizeof p->render_err, "%s", ei.msg);
            sp_render_fields(p->render_err, sizeof p->render_err);
            p->plot_w = 0;
            return 0;
        }
        plot_w = (size_t)render_plot_rect(probe, 0).w;
        render_destroy(probe);
        p->key = rc;
        p->key_rate = p->rate;
        p->key_n = p->n;
        p->key_channels = C;
        p->plot_w = (int)plot_w;
    }

    pthread_mutex_lock(&v->sh.mu);
    view_picture_range(v, info, plot_w, newest_out);
    need = (size_t)C * p->count * p->bins;
    if (!view_grow((void **)&p->snap, &p->snap_cap, need, sizeof *p->snap)) {
        pthread_mutex_unlock(&v->sh.mu);
        snprintf(p->render_err, sizeof p->render_err, "out of memory");
        return 0;
    }
    for (int c = 0; c < C; c++)
        view_store_get(v->sh.store, c, p->a0, p->span, p->count, p->snap + (size_t)c * p->count * p->bins);
    view_compare_snap(v);
    pthread_mutex_unlock(&v->sh.mu);
    p->rot = 0;
    file_key_make(&key, p, &rc, L);
    if (file_picture_kept(p, &key, need))
        return 1;

    p->drawn_ok = 0;
    render_destroy(p->r);
    p->r = NULL;
    v->scr.valid = 0; /* the live picture's render is gone */
    if (!view_grow((void **)&v->pic_px, &v->pic_cap, (size_t)L->pic_w * (size_t)L->pic_h * 4, 1))
        return 0;
    if (view_full_picture(v, &rc, p->snap, v->pic_px, !info->live, &p->r, &ei) != SP_OK) {
        snprintf(p->render_err, sizeof p->render_err, "%s", ei.msg);
        sp_render_fields(p->render_err, sizeof p->render_err);
        return 0;
    }
    file_picture_note(p, &key, need);
    p->render_err[0] = 0;
    return 1;
}

double view_total_frames(view *v)
{
    uint64_t total, have;
    pthread_mutex_lock(&v->sh.mu);
    total = v->sh.started ? view_expected_frames(&v->sh.info) : 0;
    have = view_store_frames(v->sh.store);
    pthread_mutex_unlock(&v->sh.mu);
    return (double)(total > have ? total : have > 0 ? have : 1);
}

/* File view: zoom by k (> 1 in) around frame position a (frames). */
void view_zoom_time(view *v, double a, double k)
{
    double total = view_total_frames(v), span;
    if (!(v->ui.v1 > v->ui.v0)) { /* no picture yet: the whole file */
        v->ui.v0 = 0;
        v->ui.v1 = total;
    }
    span = (v->ui.v1 - v->ui.v0) / k;
    if (span < 8)
        span = 8;
    if (span > total)
        span = total;
    v->ui.v0 = a - (a - v->ui.v0) * span / (v->ui.v1 - v->ui.v0);
    v->ui.v1 = v->ui.v0 + span;
    if (v->ui.v0 < 0) {
        v->ui.v1 -= v->ui.v0;
        v->ui.v0 = 0;
    }
    if (v->ui.v1 > total) {
        v->ui.v0 -= v->ui.v1 - total;
        v->ui.v1 = total;
    }
    v->ui.file_view_set = 1;
}

void view_scroll_time(view *v, double frames)
{
    double total = view_total_frames(v), span = v->ui.v1 - v->ui.v0;
    v->ui.v0 += frames;
    if (v->ui.v0 < 0)
        v->ui.v0 = 0;
    if (v->ui.v0 + span > total)
        v->ui.v0 = total - span;
    v->ui.v1 = v->ui.v0 + span;
    v->ui.file_view_set = 1;
}

/* Frame position under drawable x (file view): on the picture the view as it stands
 * draws (file_entries), which is the last one drawn unless a zoom or a scroll came since. */
double view_frame_at_x(view *v, int x)
{
    picture *p = &v->pic;
    render_rect pr;
    int64_t a0 = p->a0;
    uint64_t span = p->span;
    size_t count = p->count;
    if (!p->r)
        return 0.5 * (v->ui.v0 + v->ui.v1);
    pr = render_plot_rect(p->r, 0);
    if (!v->live && p->plot_w > 0) {
        pthread_mutex_lock(&v->sh.mu);
        if (v->sh.started && v->sh.store)
            file_entries(v, file_total(v, &v->sh.info), (size_t)p->plot_w, &a0, &span, &count);
        pthread_mutex_unlock(&v->sh.mu);
    }
    return (double)a0 + ((double)(x - pr.x) / pr.w) * (double)(count * span);
}
