/* view_live: the live picture, scrolled a little at a time, and the textures that show it:
 * the canvas where it changed, the panels from a ring of pixel columns. See
 * view_internal.h. */
#include "view_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int same_config(const render_config *a, const render_config *b)
{
    return a->width == b->width && a->height == b->height && a->scale == b->scale && a->colormap == b->colormap &&
           a->db_lo == b->db_lo && a->db_hi == b->db_hi && a->fmin == b->fmin && a->fmax == b->fmax &&
           a->font == b->font && strcmp(a->title ? a->title : "", b->title ? b->title : "") == 0;
}

/* x, y, w, h clipped to the canvas; 0 when nothing is left. */
static int clip_rect(const view *v, int x, int y, int w, int h, SDL_Rect *out)
{
    int x1 = x + w < v->cv.w ? x + w : v->cv.w, y1 = y + h < v->cv.h ? y + h : v->cv.h;
    out->x = x > 0 ? x : 0;
    out->y = y > 0 ? y : 0;
    out->w = x1 - out->x;
    out->h = y1 - out->y;
    return out->w > 0 && out->h > 0;
}

/* Marks a part of the canvas for the texture; the canvas holds the whole picture there.
 * A full list takes all of the canvas, which the live panels' frames (ring_panels) never
 * need: they have at most DIRECT_MAX_CHANNELS labels and a few overlays. */
void view_damage(view *v, int x, int y, int w, int h)
{
    SDL_Rect r;
    if (!clip_rect(v, x, y, w, h, &r))
        return;
    if (v->ndmg == (int)(sizeof v->dmg / sizeof v->dmg[0]))
        v->dmg_all = 1;
    else
        v->dmg[v->ndmg++] = r;
}

/* The ring's columns into the canvas, for the panel pixels inside `area`: screen column
 * i of a panel is slot (i + rot) % count, so a row is at most two copies. */
static void compose_panels(view *v, render_rect area)
{
    picture *p = &v->pic;
    scroll *sc = &v->scr;
    size_t count = p->count, pitch = (size_t)v->cv.w * 4;
    for (int c = 0; c < p->channels; c++) {
        render_rect pr = render_plot_rect(p->r, c);
        int x0 = area.x > pr.x ? area.x : pr.x, x1 = area.x + area.w < pr.x + pr.w ? area.x + area.w : pr.x + pr.w;
        int y0 = area.y > pr.y ? area.y : pr.y, y1 = area.y + area.h < pr.y + pr.h ? area.y + area.h : pr.y + pr.h;
        for (int y = y0; y < y1; y++) {
            const uint8_t *ring = sc->ring + ((size_t)c * (size_t)sc->panel_h + (size_t)(y - pr.y)) * count * 4;
            uint8_t *dst = v->cv.px + (size_t)y * pitch;
            for (int x = x0; x < x1;) {
                size_t j = ((size_t)(x - pr.x) + p->rot) % count;
                int run = x1 - x < (int)(count - j) ? x1 - x : (int)(count - j);
                memcpy(dst + (size_t)x * 4, ring + j * 4, (size_t)run * 4);
                x += run;
            }
        }
    }
}

/* The part of channel c's label (several channels) that lies on its panel. */
static render_rect label_area(const view *v, int c)
{
    render_rect box = render_label_rect(v->pic.r, c), pc = render_plot_rect(v->pic.r, c), on;
    int x1 = box.x + box.w < pc.x + pc.w ? box.x + box.w : pc.x + pc.w;
    int y1 = box.y + box.h < pc.y + pc.h ? box.y + box.h : pc.y + pc.h;
    on.x = box.x > pc.x ? box.x : pc.x;
    on.y = box.y > pc.y ? box.y : pc.y;
    on.w = x1 - on.x > 0 ? x1 - on.x : 0;
    on.h = y1 - on.y > 0 ? y1 - on.y : 0;
    return on;
}

/* The chrome into the canvas where an overlay was: its part around the panels. */
static void restore_chrome(view *v, const layout *L, SDL_Rect a)
{
    picture *p = &v->pic;
    render_rect p0 = render_plot_rect(p->r, 0), last = render_plot_rect(p->r, p->channels - 1);
    int stride = p->channels > 1 ? render_plot_rect(p->r, 1).y - p0.y : p0.h; /* panel + gap */
    int x1 = a.x + a.w < L->pic_w ? a.x + a.w : L->pic_w, y1 = a.y + a.h < L->pic_h ? a.y + a.h : L->pic_h;
    for (int y = a.y; y < y1; y++) {
        const uint8_t *src = v->scr.chrome + (size_t)y * (size_t)L->pic_w * 4;
        uint8_t *dst = v->cv.px + (size_t)y * (size_t)v->cv.w * 4;
        int in = y >= p0.y && y < last.y + last.h && (y - p0.y) % stride < p0.h;
        int l1 = in && p0.x < x1 ? p0.x : x1, r0 = in && p0.x + p0.w > a.x ? p0.x + p0.w : a.x;
        if (l1 > a.x)
            memcpy(dst + (size_t)a.x * 4, src + (size_t)a.x * 4, (size_t)(l1 - a.x) * 4);
        if (x1 > r0)
            memcpy(dst + (size_t)r0 * 4, src + (size_t)r0 * 4, (size_t)(x1 - r0) * 4);
    }
}

/* An overlay is about to be drawn over x, y, w, h: under it the canvas must hold the
 * whole picture (the live panels too), the texture takes the area, and the next frame
 * puts the picture back there. */
void view_overlay_area(view *v, int x, int y, int w, int h)
{
    SDL_Rect r;
    render_rect a = {x, y, w, h};
    if (!clip_rect(v, x, y, w, h, &r))
        return;
    if (v->ring_panels) {
        /* the panels there, and the labels on them again */
        compose_panels(v, a);
        for (int c = 0; v->pic.channels > 1 && c < v->pic.channels; c++) {
            render_rect on = label_area(v, c);
            int x0 = on.x > a.x ? on.x : a.x, y0 = on.y > a.y ? on.y : a.y;
            int x1 = on.x + on.w < a.x + a.w ? on.x + on.w : a.x + a.w;
            int y1 = on.y + on.h < a.y + a.h ? on.y + on.h : a.y + a.h;
            render_rect both = {x0, y0, x1 - x0, y1 - y0};
            if (both.w > 0 && both.h > 0)
                render_draw_area(v->pic.r, v->cv.px, (size_t)v->cv.w * 4, both, 1, NULL);
        }
        view_pitch_over(v, &r); /* the live pitch trace there again (view_pitch.c) */
    }
    view_damage(v, r.x, r.y, r.w, r.h);
    if (v->ncovered == (int)(sizeof v->covered / sizeof v->covered[0]))
        v->scr.canvas_ok = 0;
    else
        v->covered[v->ncovered++] = r;
}

/* The chrome into the canvas, around the panels. */
static void copy_chrome(view *v, const layout *L)
{
    picture *p = &v->pic;
    render_rect p0 = render_plot_rect(p->r, 0), last = render_plot_rect(p->r, p->channels - 1);
    int stride = p->channels > 1 ? render_plot_rect(p->r, 1).y - p0.y : p0.h; /* panel + gap */
    size_t row = (size_t)L->pic_w * 4, right = (size_t)(p0.x + p0.w) * 4;
    for (int y = 0; y < L->pic_h; y++) {
        const uint8_t *src = v->scr.chrome + (size_t)y * row;
        uint8_t *dst = v->cv.px + (size_t)y * (size_t)v->cv.w * 4;
        if (y >= p0.y && y < last.y + last.h && (y - p0.y) % stride < p0.h) {
            memcpy(dst, src, (size_t)p0.x * 4);
            memcpy(dst + right, src + right, row - right);
        } else {
            memcpy(dst, src, row);
        }
    }
}

/* The ring's texture at the ring's size (a new one is all stale); 0 when there is none. */
static int fit_ring_texture(view *v)
{
    int w = (int)v->pic.count, h = v->pic.channels * v->scr.panel_h;
    if (v->ring_tex && v->ring_tex_w == w && v->ring_tex_h == h)
        return 1;
    if (v->ring_tex)
        SDL_DestroyTexture(v->ring_tex);
    v->ring_tex = SDL_CreateTexture(v->ren, SDL_PIXELFORMAT_RGBA32, SDL_TEXTUREACCESS_STREAMING, w, h);
    if (!v->ring_tex)
        return 0;
    SDL_SetTextureBlendMode(v->ring_tex, SDL_BLENDMODE_NONE);
    v->ring_tex_w = w;
    v->ring_tex_h = h;
    v->ring_tex_stale = 1;
    return 1;
}

/* The slots drawn this frame into the ring's texture: runs of columns, every channel. */
static void upload_ring(view *v)
{
    size_t count = v->pic.count, rp = count * 4;
    int C = v->pic.channels;
    for (size_t j = 0; j < count;) {
        size_t j1 = j;
        for (;; j1++) {
            int fresh = v->ring_tex_stale;
            for (int c = 0; !fresh && j1 < count && c < C; c++)
                fresh = v->scr.slot_new[(size_t)c * count + j1];
            if (j1 == count || !fresh)
                break;
        }
        if (j1 > j) {
            SDL_Rect r = {(int)j, 0, (int)(j1 - j), v->ring_tex_h};
            SDL_UpdateTexture(v->ring_tex, &r, v->scr.ring + j * 4, (int)rp);
        }
        j = j1 + 1;
    }
    v->ring_tex_stale = 0;
}

/* Whether a and b overlap. */
static int meet(const SDL_Rect *a, const SDL_Rect *b)
{
    return a->x < b->x + b->w && b->x < a->x + a->w && a->y < b->y + b->h && b->y < a->y + a->h;
}

/* The frame's changes into the textures, and the textures onto the renderer's output:
 * the canvas whole, or (ring_panels) the canvas around the panels, the panels from the
 * ring's texture, oldest entry at the left (two copies a panel), the pitch trace over
 * them, and the canvas again where something lies on them. The texture covers the whole
 * output: no clear. */
void view_present(view *v)
{
    picture *p = &v->pic;
    size_t pitch = (size_t)v->cv.w * 4;
    int W = v->cv.w, H = v->cv.h, C = p->channels;
    render_rect p0, last;
    if (v->ring_live)
        upload_ring(v);
    if (v->dmg_all)
        SDL_UpdateTexture(v->tex, NULL, v->cv.px, (int)pitch);
    else
        for (int i = 0; i < v->ndmg; i++)
            SDL_UpdateTexture(v->tex, &v->dmg[i], v->cv.px + (size_t)v->dmg[i].y * pitch + (size_t)v->dmg[i].x * 4,
                              (int)pitch);
    if (!v->ring_panels) {
        SDL_RenderCopy(v->ren, v->tex, NULL, NULL);
        return;
    }
    p0 = render_plot_rect(p->r, 0);
    last = render_plot_rect(p->r, C - 1);
    {
        SDL_Rect top = {0, 0, W, p0.y}, bottom = {0, last.y + last.h, W, H - (last.y + last.h)};
        SDL_RenderCopy(v->ren, v->tex, &top, &top);
        SDL_RenderCopy(v->ren, v->tex, &bottom, &bottom);
    }
    for (int c = 0; c < C; c++) {
        render_rect pr = render_plot_rect(p->r, c);
        int cut = (int)(p->count - p->rot);
        SDL_Rect left = {0, pr.y, pr.x, pr.h}, right = {pr.x + pr.w, pr.y, W - (pr.x + pr.w), pr.h};
        SDL_Rect old_src = {(int)p->rot, c * pr.h, cut, pr.h}, old_dst = {pr.x, pr.y, cut, pr.h};
        SDL_Rect new_src = {0, c * pr.h, (int)p->rot, pr.h}, new_dst = {pr.x + cut, pr.y, (int)p->rot, pr.h};
        SDL_RenderCopy(v->ren, v->tex, &left, &left);
        SDL_RenderCopy(v->ren, v->tex, &right, &right);
        SDL_RenderCopy(v->ren, v->ring_tex, &old_src, &old_dst);
        if (p->rot > 0)
            SDL_RenderCopy(v->ren, v->ring_tex, &new_src, &new_dst);
        if (c + 1 < C) { /* the gap below */
            render_rect next = render_plot_rect(p->r, c + 1);
            SDL_Rect gap = {0, pr.y + pr.h, W, next.y - (pr.y + pr.h)};
            SDL_RenderCopy(v->ren, v->tex, &gap, &gap);
        }
    }
    view_pitch_present(v); /* the pitch trace over them, under what lies on them */
    for (int i = 0; i < v->ndmg; i++)
        for (int c = 0; c < C; c++) {
            render_rect pr = render_plot_rect(p->r, c);
            SDL_Rect panel = {pr.x, pr.y, pr.w, pr.h};
            if (meet(&v->dmg[i], &panel)) {
                SDL_RenderCopy(v->ren, v->tex, &v->dmg[i], &v->dmg[i]);
                break;
            }
        }
}

static int live_fail(picture *p, const char *msg)
{
    snprintf(p->render_err, sizeof p->render_err, "%s", msg);
    sp_render_fields(p->render_err, sizeof p->render_err);
    return 0;
}

/* The render and the chrome's key: kept while the config is. */
static int live_render(view *v, const render_config *rc, const char *title)
{
    picture *p = &v->pic;
    scroll *sc = &v->scr;
    sp_errinfo ei = {{0}};
    if (sc->valid && p->r && same_config(&sc->rc, rc) && sc->rate == p->rate && sc->n == p->n &&
        sc->channels == p->channels)
        return 1;
    render_destroy(p->r);
    p->r = NULL;
    p->drawn_ok = 0; /* the file's picture went with it */
    sc->valid = 0;
    if (render_create(rc, p->rate, p->n, 0.0, 1.0, p->channels, 1, &p->r, &ei) != SP_OK)
        return live_fail(p, ei.msg);
    sc->rc = *rc;
    snprintf(sc->title, sizeof sc->title, "%s", title);
    sc->rc.title = sc->title;
    sc->rate = p->rate;
    sc->n = p->n;
    sc->channels = p->channels;
    sc->count = 0; /* the slots start over */
    sc->chrome_ok = 0;
    sc->valid = 1;
    return 1;
}

static int live_buffers(view *v, size_t nslots, int ph)
{
    picture *p = &v->pic;
    scroll *sc = &v->scr;
    size_t bins = p->bins;
    if (!view_grow((void **)&p->snap, &p->snap_cap, nslots * bins, sizeof *p->snap) ||
        !view_grow((void **)&sc->slot_e, &sc->slot_e_cap, nslots, sizeof *sc->slot_e) ||
        !view_grow((void **)&sc->slot_st, &sc->slot_st_cap, nslots, 1) ||
        !view_grow((void **)&sc->slot_new, &sc->slot_new_cap, nslots, 1) ||
        !view_grow((void **)&sc->ring, &sc->ring_cap, nslots * (size_t)ph * 4, 1) ||
        !view_grow((void **)&p->fbuf, &p->fbuf_cap, bins, sizeof *p->fbuf) ||
        (v->ver.on && !view_grow((void **)&v->ver.snap, &v->ver.snap_cap, nslots * bins, sizeof *v->ver.snap)))
        return live_fail(p, "out of memory");
    return 1;
}

/* Under mu: the picture's entries, and the spectra of the slots that must be drawn
 * (slot_new): an entry that first shows, or that may have changed since. */
static void live_fetch(view *v, const view_stream *info, size_t count, int ph, uint64_t *newest_out)
{
    picture *p = &v->pic;
    scroll *sc = &v->scr;
    size_t bins = p->bins, nslots = (size_t)p->channels * count;
    int64_t e0;
    pthread_mutex_lock(&v->sh.mu);
    view_picture_range(v, info, count, newest_out);
    /* what every slot's pixels depend on besides their entry */
    if (sc->count != count || sc->span != p->span || sc->gen != v->sh.gen || sc->gain != v->ui.gain ||
        sc->panel_h != ph) {
        memset(sc->slot_st, VIEW_STORE_OPEN, nslots);
        sc->count = count;
        sc->span = p->span;
        sc->gen = v->sh.gen;
        sc->gain = v->ui.gain;
        sc->panel_h = ph;
    }
    e0 = p->a0 / (int64_t)p->span; /* a0 is a multiple of span */
    p->rot = (size_t)(((e0 % (int64_t)count) + (int64_t)count) % (int64_t)count);
    for (int c = 0; c < p->channels; c++)
        for (size_t i = 0; i < count; i++) {
            size_t k = (size_t)c * count + (i + p->rot) % count;
            int64_t e = e0 + (int64_t)i, a = e * (int64_t)p->span;
            int st = view_store_entry_state(v->sh.store, c, a, p->span);
            sc->slot_new[k] = 0;
            if (sc->slot_e[k] == e && sc->slot_st[k] == st && st != VIEW_STORE_OPEN)
                continue;
            view_store_get(v->sh.store, c, a, p->span, 1, p->snap + k * bins);
            sc->slot_e[k] = e;
            sc->slot_st[k] = (uint8_t)st;
            sc->slot_new[k] = 1;
        }
    if (v->ver.on)
        for (int c = 0; c < p->channels; c++)
            view_store_get(v->sh.store, c, p->a0, p->span, count, v->ver.snap + (size_t)c * count * bins);
    pthread_mutex_unlock(&v->sh.mu);
}

/* The render's picture less the panels, when the render is new. */
static int live_chrome(view *v, const layout *L)
{
    picture *p = &v->pic;
    scroll *sc = &v->scr;
    render_rect all = {0, 0, L->pic_w, L->pic_h};
    size_t size = (size_t)L->pic_w * (size_t)L->pic_h * 4;
    sp_errinfo ei = {{0}};
    if (sc->chrome_ok)
        return 1;
    if (!view_grow((void **)&sc->chrome, &sc->chrome_cap, size, 1))
        return live_fail(p, "out of memory");
    memset(sc->chrome, 0, size);
    if (render_draw_area(p->r, sc->chrome, (size_t)L->pic_w * 4, all, 1, &ei) != SP_OK)
        return live_fail(p, ei.msg);
    sc->chrome_ok = 1;
    sc->canvas_ok = 0;
    return 1;
}

/* The canvas: chrome around the panels (kept from the last frame when nothing drew over
 * it), the ring in them unless they are drawn from the ring's texture. Returns `direct`
 * as it can be honoured. */
static int live_canvas(view *v, const layout *L, int direct)
{
    scroll *sc = &v->scr;
    v->ring_live = fit_ring_texture(v); /* the slots drawn now go to it */
    direct = direct && v->ring_live;     /* else the panels go through the canvas */
    v->ring_panels = direct;
    if (!sc->canvas_ok) {
        copy_chrome(v, L);
        sc->canvas_ok = 1;
        v->dmg_all = 1;
    } else {
        for (int i = 0; i < v->ncovered; i++) {
            render_rect a = {v->covered[i].x, v->covered[i].y, v->covered[i].w, v->covered[i].h};
            restore_chrome(v, L, v->covered[i]);
            if (direct)
                compose_panels(v, a);
            view_damage(v, a.x, a.y, a.w, a.h);
        }
    }
    v->ncovered = 0;
    if (!direct || v->ver.on) { /* the check wants the whole picture in the canvas */
        render_rect all = {0, 0, L->pic_w, L->pic_h};
        compose_panels(v, all);
        v->dmg_all |= !direct;
    }
    return direct;
}

/* What moves or lies on the panels: the time axis (everything under the panels, as the
 * renderer draws it there) and the channel labels. */
static int live_moving(view *v, const layout *L, size_t count, int direct)
{
    picture *p = &v->pic;
    render_rect last = render_plot_rect(p->r, p->channels - 1);
    render_rect band = {0, last.y + last.h + 1, L->pic_w, L->pic_h - (last.y + last.h + 1)};
    double t0 = view_frame_time(p, (double)p->a0 + 0.5 * (double)(p->span - 1));
    double dt = (double)p->span * (double)p->hop / p->rate;
    size_t pitch = (size_t)v->cv.w * 4;
    sp_errinfo ei = {{0}};
    int err = render_set_time(p->r, t0, dt, (int64_t)count);
    if (err == SP_OK)
        err = render_draw_area(p->r, v->cv.px, pitch, band, 1, &ei);
    view_damage(v, band.x, band.y, band.w, band.h);
    for (int c = 0; err == SP_OK && p->channels > 1 && c < p->channels; c++) {
        render_rect on = label_area(v, c); /* its part off the panel is chrome */
        if (on.w <= 0 || on.h <= 0)
            continue;
        if (direct)
            compose_panels(v, on);
        err = render_draw_area(p->r, v->cv.px, pitch, on, 1, &ei);
        view_damage(v, on.x, on.y, on.w, on.h);
    }
    if (err != SP_OK)
        return live_fail(p, ei.msg[0] ? ei.msg : "cannot draw");
    return 1;
}

/* Live: the picture scrolls by whole entries, and an entry's pixels do not change while
 * it is HELD (view_store_entry_state), so most of a frame is the last one's. Kept in v->scr:
 *   - the render (fonts, layout, axes) and its picture less the panels (chrome), made
 *     again only when the layout or a setting changes;
 *   - the panels as a ring of pixel columns, one per entry at slot entry % count, with
 *     the spectra beside them (p->snap, same slots): an entry is fetched and drawn
 *     (render_draw_column) when it first shows, and again while it may still change.
 * A frame draws into the canvas only what moves: the time axis, the channel labels on
 * the panels, and it puts back the chrome that last frame's overlays covered. With
 * `direct` the panels stay out of the canvas: they are drawn from the ring's own texture,
 * which takes only the new columns (view_present), and from the canvas only where
 * something lies on them (labels, view_overlay_area); without, the ring is copied into
 * the canvas, all of which goes to the texture.
 * Cost per frame: O(new entries x (bins + rows)) and the panels' pixels copied once,
 * where a whole redraw costs O(entries x bins) and the renderer's every pixel and
 * label. The pixels are view_draw_spectrogram's (view_config.verify compares them).
 * Returns 1 when drawn. */
int view_draw_live(view *v, const layout *L, const view_stream *info, uint64_t *newest_out, int direct)
{
    picture *p = &v->pic;
    scroll *sc = &v->scr;
    char title[600];
    render_config rc = view_picture_config(v, L, info, title, sizeof title);
    size_t count, nslots;
    int ph;

    if (!live_render(v, &rc, title))
        return 0;
    ph = render_plot_rect(p->r, 0).h;
    count = (size_t)render_plot_rect(p->r, 0).w; /* one entry a pixel column (view_picture_range) */
    nslots = (size_t)p->channels * count;
    if (!live_buffers(v, nslots, ph))
        return 0;
    live_fetch(v, info, count, ph, newest_out);
    for (size_t k = 0; k < nslots; k++) /* the new columns */
        if (sc->slot_new[k]) {
            size_t c = k / count, j = k % count;
            view_entry_db(v, p->snap + k * p->bins, p->fbuf);
            render_draw_column(p->r, p->fbuf, sc->ring + (c * (size_t)ph * count + j) * 4, count * 4);
            if (p->snap[k * p->bins] == VIEW_STORE_NODATA)
                view_hatch_column(sc->ring + (c * (size_t)ph * count + j) * 4, count * 4, ph, j);
        }
    if (!live_chrome(v, L))
        return 0;
    direct = live_canvas(v, L, direct);
    if (!live_moving(v, L, count, direct))
        return 0;
    if (v->ver.on)
        view_verify_live(v, L, &rc);
    p->render_err[0] = 0;
    return 1;
}
