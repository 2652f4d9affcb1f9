/* view_check: for the tests, as view_config asks. verify: every live picture drawn in
 * parts is compared with a whole redraw from the same snapshot, and what the renderer
 * shows is read back and compared with the window expected. stats_path: frames drawn,
 * fps, latency percentiles and the checks' counts, as one JSON object, when the window
 * closes. See view_internal.h. */
#include "view_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

/* The check's line for a pixel (x, y) that differs, a (drawn in parts) against b (the whole
 * redraw): both colours, the panels and labels of the first and last channel, and whether
 * that column's entry has data in them, so that a failure seen once under load says where. */
static void describe_mismatch(const view *v, const layout *L, const render *ref, const uint8_t *a, const uint8_t *b,
                              int x, int y, char *msg, size_t len)
{
    const picture *p = &v->pic;
    int last = p->channels - 1;
    render_rect p0 = render_plot_rect(ref, 0), p1 = render_plot_rect(ref, last);
    render_rect b0 = render_label_rect(ref, 0), b1 = render_label_rect(ref, last);
    size_t i = (size_t)(x > p0.x ? x - p0.x : 0) % (p->count ? p->count : 1); /* one entry a column */
    const int16_t *snap = v->ver.snap;
    snprintf(msg, len,
             "pixel (%d, %d) differs from a whole redraw: %02x%02x%02x vs %02x%02x%02x; panels %d,%d %dx%d .. %d,%d "
             "%dx%d, labels %d,%d %dx%d .. %d,%d %dx%d; count %zu rot %zu; no data in channel 0: %d, %d: %d; "
             "picture %dx%d",
             x, y, a[0], a[1], a[2], b[0], b[1], b[2], p0.x, p0.y, p0.w, p0.h, p1.x, p1.y, p1.w, p1.h, b0.x, b0.y,
             b0.w, b0.h, b1.x, b1.y, b1.w, b1.h, p->count, p->rot, snap[i * p->bins] == VIEW_STORE_NODATA, last,
             snap[((size_t)last * p->count + i) * p->bins] == VIEW_STORE_NODATA, L->pic_w, L->pic_h);
}

/* view_config.verify: the picture area of the canvas and the spectra kept against a
 * whole picture drawn the old way from v->ver.snap (the same snapshot). */
void view_verify_live(view *v, const layout *L, const render_config *rc)
{
    picture *p = &v->pic;
    verify *vf = &v->ver;
    render *ref = NULL;
    sp_errinfo ei = {{0}};
    size_t row = (size_t)L->pic_w * 4;
    char msg[600] = "";
    vf->frames++;
    if (!view_grow((void **)&vf->px, &vf->px_cap, row * (size_t)L->pic_h, 1) ||
        view_full_picture(v, rc, vf->snap, vf->px, 1, &ref, &ei) != SP_OK)
        snprintf(msg, sizeof msg, "cannot draw the reference: %.200s", ei.msg);
    for (int y = 0; !msg[0] && y < L->pic_h; y++) {
        const uint8_t *a = v->cv.px + (size_t)y * (size_t)v->cv.w * 4, *b = vf->px + (size_t)y * row;
        if (memcmp(a, b, row) != 0) {
            size_t x = 0;
            while (a[x] == b[x])
                x++;
            describe_mismatch(v, L, ref, a + x / 4 * 4, b + x / 4 * 4, (int)(x / 4), y, msg, sizeof msg);
        }
    }
    for (int c = 0; !msg[0] && c < p->channels; c++)
        for (size_t i = 0; !msg[0] && i < p->count; i++)
            if (memcmp(view_snap_entry(p, c, i), vf->snap + ((size_t)c * p->count + i) * p->bins,
                       p->bins * sizeof *vf->snap) != 0)
                snprintf(msg, sizeof msg, "spectrum %zu of channel %d differs from the store's", i, c);
    if (msg[0] && vf->mismatched++ == 0 && vf->shown_mismatched == 0)
        snprintf(vf->first, sizeof vf->first, "frame %llu: %s", (unsigned long long)vf->frames, msg);
    render_destroy(ref);
}

/* A difference seen in what was shown counts unless the window turned out to be in the
 * middle of a resize then (view.c's fit_drawable drops it): the GL drawable changes size under
 * that frame. */
static void verify_commit(view *v)
{
    verify *vf = &v->ver;
    if (!vf->pending[0])
        return;
    if (vf->shown_mismatched++ == 0 && vf->mismatched == 0)
        snprintf(vf->first, sizeof vf->first, "%s", vf->pending);
    vf->pending[0] = 0;
}

/* view_config.verify: what the renderer is about to show, read back, against the window
 * expected (view_verify_overlays): the textures' updates in parts are checked. */
void view_verify_shown(view *v)
{
    verify *vf = &v->ver;
    size_t row = (size_t)v->cv.w * 4;
    char msg[256] = "";
    verify_commit(v);
    vf->shown++;
    if (!vf->ref_ok || !view_grow((void **)&vf->px, &vf->px_cap, row * (size_t)v->cv.h, 1) ||
        SDL_RenderReadPixels(v->ren, NULL, SDL_PIXELFORMAT_RGBA32, vf->px, (int)row) != 0)
        snprintf(msg, sizeof msg, "cannot read the window back: %.160s", SDL_GetError());
    for (int y = 0; !msg[0] && y < v->cv.h; y++)
        for (int x = 0; x < v->cv.w; x++) {
            size_t o = (size_t)y * row + (size_t)x * 4;
            const uint8_t *a = vf->ref + o, *b = vf->px + o;
            if (a[0] != b[0] || a[1] != b[1] || a[2] != b[2]) {
                snprintf(msg, sizeof msg, "shown pixel (%d, %d) differs from the window expected", x, y);
                break;
            }
        }
    if (msg[0])
        snprintf(vf->pending, sizeof vf->pending, "shown frame %llu: %s", (unsigned long long)vf->shown, msg);
}

/* view_config.verify: the expected window for verify_shown: the canvas before the overlays
 * (whole then: the check composes every panel) with the overlays drawn straight onto it,
 * none of the areas they claim (view_overlay_area) composed again. */
void view_verify_overlays(view *v, const layout *L, int after)
{
    verify *vf = &v->ver;
    size_t n = (size_t)v->cv.w * (size_t)v->cv.h * 4;
    uint8_t *px;
    if (!vf->on)
        return;
    if (!after) {
        vf->ref_ok = view_grow((void **)&vf->ref, &vf->ref_cap, n, 1);
        if (vf->ref_ok)
            memcpy(vf->ref, v->cv.px, n);
        return;
    }
    if (!vf->ref_ok)
        return;
    px = v->cv.px;
    v->cv.px = vf->ref;
    view_draw_toast(v, L, 1);
    view_draw_mark(v, L, 1);
    view_draw_readout(v, L, 1);
    if (v->ui.help)
        view_draw_help(v, L, 1);
    v->cv.px = px;
}

/* A number, or null where it is not finite. */
static void json_num(FILE *f, const char *key, double x)
{
    if (isfinite(x))
        fprintf(f, "\"%s\": %.10g", key, x);
    else
        fprintf(f, "\"%s\": null", key);
}

/* The band bars (view_bands.c) as last drawn: channel 0's. */
static void bands_stats(view *v, FILE *f)
{
    const view_bands *bd = &v->bd;
    fprintf(f, ", \"bands\": {\"fraction\": %d, \"weighting\": \"%s\", \"shown\": %d", bd->fraction,
            spectro_bands_weighting_name(bd->weighting), bd->shown);
    if (bd->shown && bd->b) {
        fprintf(f, ", \"hz\": [");
        for (size_t i = 0; i < spectro_bands_count(bd->b); i++)
            fprintf(f, "%s%.10g", i ? ", " : "", spectro_bands_mid_hz(bd->b, i));
        fprintf(f, "], \"dbfs\": [");
        for (size_t i = 0; i < spectro_bands_count(bd->b); i++)
            fprintf(f, "%s%.4f", i ? ", " : "", (double)bd->lv[i]);
        fputc(']', f);
    }
    fputc('}', f);
}

/* The measurement panel (view_measure.c, view_select.c) as last drawn. */
static void panel_stats(view *v, FILE *f)
{
    static const char *const modes[] = {"off", "exponential", "infinite"};
    panel_state *pn = &v->pn;
    uint64_t a, b;
    double t0, t1;
    fprintf(f, ", \"avg_mode\": \"%s\", \"panel_shown\": \"%s\", \"panel_frames\": %llu", modes[pn->avg_mode],
            view_panel_src_name(pn->show_src), (unsigned long long)pn->show_frames);
    fprintf(f, ", \"selection\": ");
    if (view_select_span(v, &t0, &t1)) {
        view_select_frames(v, &a, &b);
        fprintf(f, "{\"f0\": %.10g, \"f1\": %.10g, \"frames\": [%llu, %llu], \"start_s\": %.17g, \"end_s\": %.17g, "
                   "\"band_hz\": [%.10g, %.10g], \"ready\": %d, \"error\": ",
                v->ui.sel_f0, v->ui.sel_f1, (unsigned long long)a, (unsigned long long)b, t0, t1, pn->sel_hz0,
                pn->sel_hz1, view_select_ready(v));
        /* the reading thread writes err when it ends: not read before (view_select_ready joined it) */
        sp_json_string(f, !pn->job.running && pn->job.err != SP_OK ? pn->job.ei.msg : "");
        fputc('}', f);
    } else {
        fprintf(f, "null");
    }
    fprintf(f, ", \"tone\": {\"on\": %d, \"source\": \"%s\", \"ok\": %d, \"frames\": %llu, \"message\": ",
            pn->tone_on, view_panel_src_name(pn->tone_src), pn->tone_ok, (unsigned long long)pn->tone_frames);
    sp_json_string(f, pn->tone_msg);
    if (pn->tone_ok) {
        const spectro_tone *t = &pn->tone[0];
        fprintf(f, ", \"marked_hz\": [%.10g", t->fundamental_hz);
        for (int i = 0; i < t->harmonics; i++)
            fprintf(f, ", %.10g", t->harmonic[i].hz);
        fprintf(f, "], \"fundamental_dbfs\": %.10g, \"thd_db\": %.10g, \"thdn_db\": %.10g, \"snr_db\": %.10g",
                t->fundamental_dbfs, t->thd_db, t->thdn_db, t->snr_db);
    }
    fprintf(f, "}, \"mark\": ");
    if (pn->mark_on) {
        fprintf(f, "{\"channel\": %d, \"frame\": %.10g, \"hz\": %.10g, \"bin\": %zu, ", pn->mark_c, pn->mark_f,
                pn->mark_hz, pn->mark_k);
        json_num(f, "db", pn->mark_db);
        fputc('}', f);
    } else {
        fprintf(f, "null");
    }
    fprintf(f, ", \"delta\": ");
    if (pn->delta_on) {
        fprintf(f, "{\"frame\": %.10g, \"hz\": %.10g, ", pn->cur_f, pn->cur_hz);
        json_num(f, "db", pn->cur_db);
        fprintf(f, ", \"dt_s\": %.10g, \"df_hz\": %.10g, ", pn->d_t, pn->d_f);
        json_num(f, "ddb", pn->d_db);
        fputs(", ", f);
        json_num(f, "semitones", pn->d_st);
        fputc('}', f);
    } else {
        fprintf(f, "null");
    }
    fprintf(f, ", \"last_export\": ");
    sp_json_string(f, pn->last_export);
}

void view_note_reset(view *v)
{
    v->nshown_boxes = v->nshown_bars = 0;
}

void view_note_box(view *v, const char *label, int x, int y, int w, int h)
{
    if (v->nshown_boxes >= VIEW_SHOWN_BOXES)
        return;
    snprintf(v->shown_boxes[v->nshown_boxes].label, sizeof v->shown_boxes[0].label, "%s", label);
    v->shown_boxes[v->nshown_boxes++].r = (SDL_Rect){x, y, w, h};
}

void view_note_bar(view *v, int x, int y, int w, int h)
{
    if (v->nshown_bars < VIEW_SHOWN_BARS)
        v->shown_bars[v->nshown_bars++] = (SDL_Rect){x, y, w, h};
}

/* The stats' "layout": the window, the strip beside the picture, and the strip's boxes
 * and band bars as last drawn ([x, y, w, h] each), for the tests' overlap checks. */
static void layout_stats(view *v, FILE *f)
{
    layout L = view_layout(v->cv.w, v->cv.h, view_sig_inst_em(v));
    fprintf(f, ", \"layout\": {\"window\": [%d, %d], \"strip\": [%d, 0, %d, %d], \"boxes\": [", v->cv.w, v->cv.h,
            L.side_x, v->cv.w - L.side_x, L.pic_h);
    for (int i = 0; i < v->nshown_boxes; i++) {
        const SDL_Rect *r = &v->shown_boxes[i].r;
        fprintf(f, "%s{\"label\": ", i ? ", " : "");
        sp_json_string(f, v->shown_boxes[i].label);
        fprintf(f, ", \"rect\": [%d, %d, %d, %d]}", r->x, r->y, r->w, r->h);
    }
    fprintf(f, "], \"bars\": [");
    for (int i = 0; i < v->nshown_bars; i++)
        fprintf(f, "%s[%d, %d, %d, %d]", i ? ", " : "", v->shown_bars[i].x, v->shown_bars[i].y, v->shown_bars[i].w,
                v->shown_bars[i].h);
    fprintf(f, "]}");
}

/* The stats' "labels": each panel's label as the last picture drew it, and its box. */
static void label_stats(view *v, FILE *f)
{
    fprintf(f, ", \"labels\": [");
    for (int c = 0; v->pic.r && v->pic.ok && c < v->pic.channels; c++) {
        char text[256];
        render_rect b = render_label_rect(v->pic.r, c);
        render_label_text(v->pic.r, c, text, sizeof text);
        fprintf(f, "%s{\"text\": ", c ? ", " : "");
        sp_json_string(f, text);
        fprintf(f, ", \"rect\": [%d, %d, %d, %d]}", b.x, b.y, b.w, b.h);
    }
    fputc(']', f);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

void view_write_stats(view *v, const char *path)
{
    stats *s = &v->st;
    FILE *f = fopen(path, "w");
    double fps = s->drawn > 1 && s->last > s->first ? (double)(s->drawn - 1) / (s->last - s->first) : 0;
    double p50 = -1, p95 = -1;
    size_t n = s->nlat < MAX_LAT_SAMPLES ? s->nlat : MAX_LAT_SAMPLES;
    if (!f)
        return;
    if (n > 0) {
        qsort(s->lat, n, sizeof *s->lat, cmp_double);
        p50 = s->lat[(n - 1) / 2];
        p95 = s->lat[(size_t)((double)(n - 1) * 0.95)];
    }
    fprintf(f,
            "{\"frames_drawn\": %llu, \"mean_fps\": %.2f, \"latency_p50_ms\": %.2f, \"latency_p95_ms\": %.2f, "
            "\"latency_samples\": %zu, \"draw_ms_mean\": %.2f, \"renderer\": \"%s\", \"vsync\": %d, "
            "\"width\": %d, \"height\": %d",
            (unsigned long long)s->drawn, fps, p50 >= 0 ? p50 * 1e3 : -1.0, p95 >= 0 ? p95 * 1e3 : -1.0, n,
            s->drawn ? s->draw_s * 1e3 / (double)s->drawn : 0.0, v->renderer_name, v->vsync, v->dw, v->dh);
    verify_commit(v);
    if (v->ver.on)
        fprintf(f,
                ", \"verify_frames\": %llu, \"verify_mismatches\": %llu, \"verify_shown\": %llu, "
                "\"verify_shown_mismatches\": %llu, \"verify_first\": \"%s\"",
                (unsigned long long)v->ver.frames, (unsigned long long)v->ver.mismatched,
                (unsigned long long)v->ver.shown, (unsigned long long)v->ver.shown_mismatched, v->ver.first);
    fprintf(f, ", \"status\": ");
    sp_json_string(f, v->shown_status);
    fprintf(f, ", \"readout\": ");
    sp_json_string(f, v->shown_readout);
    fprintf(f, ", \"help\": ");
    sp_json_string(f, v->shown_help);
    fprintf(f, ", \"colorbar_db\": [%g, %g]", (double)v->shown_bar[0], (double)v->shown_bar[1]);
    label_stats(v, f);
    pthread_mutex_lock(&v->sh.mu);
    fprintf(f, ", \"store\": {\"frames_per_entry\": %llu, \"maxima_span\": %llu, \"reanalysed\": %d}",
            (unsigned long long)(v->sh.store && !v->live ? view_store_capacity(v->sh.store) : 0),
            (unsigned long long)v->sh.maxima, v->pn.reanalysed);
    pthread_mutex_unlock(&v->sh.mu);
    panel_stats(v, f);
    bands_stats(v, f);
    layout_stats(v, f);
    view_play_stats(v, f);
    view_sig_stats(v, f);
    view_xfer_stats(v, f);
    fprintf(f, "}\n");
    fclose(f);
}


/* A frame was presented at t_present. */
void view_stats_frame(view *v, double t_present)
{
    v->st.drawn++;
    if (v->st.drawn == 1)
        v->st.first = t_present;
    v->st.last = t_present;
}
