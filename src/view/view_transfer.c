/* view_transfer: --transfer REF:MEAS in the window (docs/manual.md "Two signals in the window"). The
 * analysis hands the view every frame's windowed transforms (spectro_stream_wants.complex) instead of
 * spectra; the feed adds them to a spectro_transfer (spectro.h), the running H1 average
 * of the dump (every frame from the start: Sxx, Syy, Sxy). The window shows, in place of
 * the spectrogram, the magnitude (dB), the unwrapped phase (degrees; the d key takes the
 * measured delay out, as --remove-delay) and the coherence against log frequency, three
 * plots (plot.h) one above the other as --transfer --png draws them; beside them the
 * averages and the delay, and at the cursor the three values of its bin; the status line
 * says the same (view_overlay.c), the help lists the keys that act here (view_keys.c). The
 * values are computed again, from a copy of the sums taken under the feed's lock, and the
 * panels plotted, at most ten times a second while frames come in. See view_internal.h. */
#include "view_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"

#define XF_RECOMPUTE_S 0.1

void view_xfer_init(view *v)
{
    view_xfer_feed *xf = &v->sh.xf;
    pthread_mutex_init(&xf->mu, NULL);
    xf->on = v->user.transfer; /* a job with no output: the window's */
    xf->set = &v->user;
    v->xf.remove_delay = v->user.remove_delay;
}

void view_xfer_free(view *v)
{
    view_xfer_feed *xf = &v->sh.xf;
    spectro_transfer_destroy(xf->tf);
    free(xf->held);
    pthread_mutex_destroy(&xf->mu);
    for (int i = 0; i < XF_PANELS; i++)
        plot_destroy(v->xf.panel[i]);
    free(v->xf.val);
    spectro_transfer_destroy(v->xf.copy);
    memset(&v->xf, 0, sizeof v->xf);
}

/* ---- the feed: the analysis thread ---- */

int view_xfer_open(view_xfer_feed *xf, const spectro_stream_info *in, sp_errinfo *ei)
{
    spectro_transfer *tf;
    spectro_error e = {0, {0}};
    /* the channels asked for, checked as the --transfer output checks them */
    if (spectro_stream_check_transfer(in, xf->set->transfer_ref, xf->set->transfer_meas, xf->set->reference[0] != 0,
                                      &e) != SPECTRO_OK)
        return sp_fail(ei, e.code, "%s", e.message);
    if (spectro_transfer_create_size(in->frames->sample_rate, in->frames->fft_size, &tf, &e) != SPECTRO_OK)
        return sp_fail(ei, e.code, "%s", e.message); /* the codes are the engine's (spectro.h) */
    pthread_mutex_lock(&xf->mu);
    spectro_transfer_destroy(xf->tf);
    xf->tf = tf;
    xf->ref = xf->set->reference[0] ? 0 : xf->set->transfer_ref; /* a pair: REF, MEAS its 0, 1 */
    xf->meas = xf->set->reference[0] ? 1 : xf->set->transfer_meas;
    xf->rate = in->frames->sample_rate;
    xf->n = in->frames->fft_size;
    xf->bins = in->frames->bins;
    xf->aligned_s = in->aligned_s;
    xf->held_frames = 0;
    xf->gen++;
    pthread_mutex_unlock(&xf->mu);
    return SP_OK;
}

/* As the transfer kinds' sink: the lower channel's block kept until the higher one's. */
int view_xfer_add(view_xfer_feed *xf, int channel, uint64_t first, size_t nframes, const spectro_complex *z,
                  sp_errinfo *ei)
{
    int lo = xf->ref < xf->meas ? xf->ref : xf->meas, hi = xf->ref ^ xf->meas ^ lo, err = SP_OK;
    pthread_mutex_lock(&xf->mu);
    if (channel == lo) {
        if (nframes > xf->held_cap) {
            spectro_complex *h = realloc(xf->held, nframes * xf->bins * sizeof *h);
            if (!h) {
                err = sp_fail(ei, SP_ENOMEM, "out of memory for %zu frames' transforms", nframes);
                goto done;
            }
            xf->held = h;
            xf->held_cap = nframes;
        }
        memcpy(xf->held, z, nframes * xf->bins * sizeof *z);
        xf->held_first = first;
        xf->held_frames = nframes;
    } else if (channel == hi && xf->held_frames == nframes && xf->held_first == first) {
        if (lo == xf->ref)
            spectro_transfer_add(xf->tf, xf->held, z, nframes, NULL);
        else
            spectro_transfer_add(xf->tf, z, xf->held, nframes, NULL);
        xf->held_frames = 0;
    }
done:
    pthread_mutex_unlock(&xf->mu);
    return err;
}

/* ---- the window ---- */

int view_xfer_key(view *v, SDL_Keycode sym)
{
    if (v->sh.xf.on && sym == SDLK_x) { /* the transforms' rows are not transforms of frames */
        view_toast(v, "no transforms in the transfer view");
        return 1;
    }
    if (!v->sh.xf.on || sym != SDLK_d)
        return 0;
    v->xf.remove_delay = !v->xf.remove_delay;
    v->xf.ok = 0; /* the phase again */
    view_toast(v, v->xf.remove_delay ? "phase: the delay taken out" : "phase: the delay kept");
    return 1;
}

/* The values from the engine, when frames came in since (at most every XF_RECOMPUTE_S while
 * the analysis runs): its sums copied under the feed's lock (O(bins)), the values and the
 * delay (transforms of n points) computed from the copy, so that the analysis thread, which
 * adds to the sums under that lock, never waits for them. */
static void compute(view *v)
{
    view_xfer_feed *xf = &v->sh.xf;
    view_xfer *x = &v->xf;
    double now = sp_now(), delay = 0.0, aligned;
    uint64_t av;
    pthread_mutex_lock(&xf->mu);
    av = xf->tf ? spectro_transfer_averages(xf->tf) : 0;
    if (!xf->tf || (v->ui.paused && x->ok && x->gen == xf->gen) || /* space: the curves held */
        (x->ok && x->gen == xf->gen && x->averages == av) ||
        (x->ok && x->gen == xf->gen && !v->finished && now - x->computed_at < XF_RECOMPUTE_S) ||
        !view_grow((void **)&x->val, &x->val_cap, XF_PANELS * xf->bins, sizeof *x->val)) {
        pthread_mutex_unlock(&xf->mu);
        return;
    }
    if (x->copy && spectro_transfer_bins(x->copy) != xf->bins) {
        spectro_transfer_destroy(x->copy);
        x->copy = NULL;
    }
    if ((!x->copy && spectro_transfer_create_size(xf->rate, xf->n, &x->copy, NULL) != SPECTRO_OK) ||
        spectro_transfer_copy(x->copy, xf->tf, NULL) != SPECTRO_OK) {
        pthread_mutex_unlock(&xf->mu);
        return;
    }
    x->bins = xf->bins;
    x->n = xf->n;
    x->rate = xf->rate;
    x->gen = xf->gen;
    x->averages = av;
    aligned = xf->aligned_s;
    pthread_mutex_unlock(&xf->mu);
    if (sp_now() - now > x->held_max_s)
        x->held_max_s = sp_now() - now;
    /* the delay: the transfer function's and a pair's alignment; the phase holds only what
     * is left after the alignment (as --transfer --png) */
    spectro_transfer_values(x->copy, x->val, x->val + x->bins, x->val + 2 * x->bins,
                            x->remove_delay ? SPECTRO_TRANSFER_REMOVE_DELAY : SPECTRO_TRANSFER_UNWRAP, &delay, NULL);
    x->delay_s = delay + aligned;
    x->computed_at = now;
    x->ok = 1;
}

/* [lo, hi] of a panel: `step` steps around the coherent bins' values (coherence >= 0.5; all
 * bins when none is), `span` wide at least, `most` at most (0: any). */
static void panel_range(const float *val, const float *coh, size_t bins, float step, float span, float most,
                        float *lo, float *hi)
{
    int any = 0;
    float a = 0.0f, b = 0.0f;
    for (int pass = 0; pass < 2 && !any; pass++)
        for (size_t k = 1; k + 1 < bins; k++)
            if (pass == 1 || coh[k] >= 0.5f) {
                a = any && a < val[k] ? a : val[k];
                b = any && b > val[k] ? b : val[k];
                any = 1;
            }
    *hi = step * ceilf(b / step + 0.01f);
    *lo = step * floorf(a / step - 0.01f);
    if (*lo > *hi - span)
        *lo = *hi - span;
    if (most > 0 && *lo < *hi - most)
        *lo = *hi - most;
}

/* A panel's height: a third of the picture, never below the renderer's least (a small
 * window shows the coherence's panel in part). */
static int panel_h(const layout *L)
{
    return L->pic_h / XF_PANELS > RENDER_MIN_HEIGHT ? L->pic_h / XF_PANELS : RENDER_MIN_HEIGHT;
}

/* Panel i's plot for the picture's size and its range, made again when either changed. */
static int panel_plot(view *v, const layout *L, int i, float lo, float hi, sp_errinfo *ei)
{
    static const char *const ylabels[XF_PANELS] = {"Magnitude (dB)", "Phase (deg)", "Coherence"};
    view_xfer *x = &v->xf;
    plot_config pc;
    memset(&pc, 0, sizeof pc);
    pc.rc = v->user.render;
    pc.rc.width = L->pic_w;
    pc.rc.height = panel_h(L);
    pc.rc.title = i == 0 ? x->title : "";
    pc.rc.scale = FREQ_SCALE_LOG;
    pc.rc.db_lo = lo;
    pc.rc.db_hi = hi;
    pc.rate = x->rate;
    pc.n = x->n;
    pc.channels = 1;
    pc.ylabel = ylabels[i];
    pc.no_labels = 1;
    if (x->panel[i] && x->pc[i].rc.width == pc.rc.width && x->pc[i].rc.height == pc.rc.height &&
        x->pc[i].rc.db_lo == lo && x->pc[i].rc.db_hi == hi && x->pc[i].rate == pc.rate && x->pc[i].n == pc.n)
        return SP_OK;
    plot_destroy(x->panel[i]);
    x->panel[i] = NULL;
    x->pc[i] = pc;
    return plot_create(&pc, &x->panel[i], ei);
}

/* The three panels into pic_px, then into the canvas. */
static int draw_panels(view *v, const layout *L, sp_errinfo *ei)
{
    view_xfer *x = &v->xf;
    const float *coh = x->val + 2 * x->bins;
    int ph = panel_h(L), err = SP_OK;
    float lo[XF_PANELS], hi[XF_PANELS];
    char name[256];
    const char *slash;
    if (x->plotted_at == x->computed_at && x->plotted_w == L->pic_w && x->plotted_h == L->pic_h)
        goto copy; /* the values plotted already: at most every XF_RECOMPUTE_S (compute) */
    x->plotted_at = -1.0;
    pthread_mutex_lock(&v->sh.mu);
    snprintf(name, sizeof name, "%s", v->sh.info.name);
    pthread_mutex_unlock(&v->sh.mu);
    slash = strrchr(name, '/');
    /* as --transfer --png's panels */
    panel_range(x->val, coh, x->bins, 10.0f, 40.0f, 200.0f, &lo[XF_MAG], &hi[XF_MAG]);
    panel_range(x->val + x->bins, coh, x->bins, 90.0f, 360.0f, 0.0f, &lo[XF_PHASE], &hi[XF_PHASE]);
    lo[XF_COH] = 0.0f;
    hi[XF_COH] = 1.0f;
    snprintf(x->title, sizeof x->title, "%s  \xe2\x80\x94  H1 ch %d / ch %d", slash ? slash + 1 : name,
             v->user.transfer_meas, v->user.transfer_ref);
    if (!view_grow((void **)&v->pic_px, &v->pic_cap, (size_t)L->pic_w * (size_t)ph * XF_PANELS * 4, 1))
        return sp_fail(ei, SP_ENOMEM, "out of memory");
    for (int i = 0; i < XF_PANELS && err == SP_OK; i++) {
        const float *row = x->val + (size_t)i * x->bins;
        if ((err = panel_plot(v, L, i, lo[i], hi[i], ei)) == SP_OK)
            err = plot_draw(x->panel[i], &row, v->pic_px + (size_t)i * (size_t)ph * (size_t)L->pic_w * 4, ei);
    }
    if (err != SP_OK)
        return err;
    x->plotted_at = x->computed_at;
    x->plotted_w = L->pic_w;
    x->plotted_h = L->pic_h;
    x->plots++;
copy:
    for (int y = 0; err == SP_OK && y < ph * XF_PANELS && y < L->pic_h && y < v->cv.h; y++)
        memcpy(v->cv.px + (size_t)y * (size_t)v->cv.w * 4, v->pic_px + (size_t)y * (size_t)L->pic_w * 4,
               (size_t)(L->pic_w < v->cv.w ? L->pic_w : v->cv.w) * 4);
    return err;
}

/* The frequency at column mx of the panels (the plot's axis, by bisection). */
static double hz_at(const plot *p, double mx, double top)
{
    double a = 1e-3, b = top;
    for (int it = 0; it < 60; it++) {
        double m = sqrt(a * b);
        if (plot_x_of_hz(p, m) < mx)
            a = m;
        else
            b = m;
    }
    return sqrt(a * b);
}

/* The cursor: a line across the panels at its frequency, and its bin's three values in a box. */
static void draw_cursor(view *v, const layout *L)
{
    view_xfer *x = &v->xf;
    render_rect a = plot_area(x->panel[XF_MAG]);
    int fs = L->fs, mx = v->ui.mx, my = v->ui.my, ph = panel_h(L), bw = 0, bx, by;
    char line[4][72];
    double hz;
    x->cur_on = 0;
    if (!v->ui.mouse_in || mx < a.x || mx >= a.x + a.w || my < 0 || my >= ph * XF_PANELS || my >= L->pic_h)
        return;
    hz = hz_at(x->panel[XF_MAG], mx + 0.5, 0.5 * x->rate);
    x->cur_k = (size_t)lround(hz * (double)x->n / x->rate);
    x->cur_k = x->cur_k < 1 ? 1 : x->cur_k >= x->bins ? x->bins - 1 : x->cur_k;
    x->cur_hz = (double)x->cur_k * x->rate / (double)x->n;
    x->cur_mag = x->val[x->cur_k];
    x->cur_ph = x->val[x->bins + x->cur_k];
    x->cur_coh = x->val[2 * x->bins + x->cur_k];
    x->cur_on = 1;
    snprintf(line[0], sizeof line[0], "%.1f Hz (bin %zu)", x->cur_hz, x->cur_k);
    snprintf(line[1], sizeof line[1], "magnitude %s%.2f dB", x->cur_mag < 0 ? "\xe2\x88\x92" : "", fabs(x->cur_mag));
    snprintf(line[2], sizeof line[2], "phase %s%.1f\xc2\xb0", x->cur_ph < 0 ? "\xe2\x88\x92" : "", fabs(x->cur_ph));
    snprintf(line[3], sizeof line[3], "coherence %.3f", x->cur_coh);
    snprintf(v->shown_readout, sizeof v->shown_readout, "%s | %s | %s | %s", line[0], line[1], line[2], line[3]);
    view_font(v, fs);
    for (int i = 0; i < 4; i++)
        bw = canvas_text_width(v->font, line[i]) > bw ? canvas_text_width(v->font, line[i]) : bw;
    bw += fs;
    bx = mx + fs + bw > L->pic_w ? mx - fs - bw : mx + fs;
    by = my + fs + 4 * v->line_h + fs / 2 > L->pic_h ? my - fs - 4 * v->line_h - fs / 2 : my + fs;
    for (int i = 0; i < XF_PANELS; i++) { /* each panel's axis has its own left edge */
        render_rect r = plot_area(x->panel[i]);
        int y0 = i * ph + r.y, h = y0 + r.h < L->pic_h ? r.h : L->pic_h - y0;
        if (h > 0)
            canvas_blend(&v->cv, (int)floor(plot_x_of_hz(x->panel[i], hz)), y0, 1, h, COL_WHITE, 90);
    }
    canvas_blend(&v->cv, bx, by, bw, 4 * v->line_h + fs / 2, COL_BLACK, 200);
    canvas_outline(&v->cv, bx, by, bw, 4 * v->line_h + fs / 2, RENDER_COL_FRAME);
    for (int i = 0; i < 4; i++)
        view_text(v, line[i], bx + fs / 2, by + fs / 4 + i * v->line_h, RENDER_COL_TITLE);
}

/* Beside the panels: what the estimate is made of, and the delay. */
static void draw_strip(view *v, const layout *L)
{
    view_xfer *x = &v->xf;
    char s[4][96];
    int fs = L->fs;
    snprintf(s[0], sizeof s[0], "H1 ch %d / ch %d", v->user.transfer_meas, v->user.transfer_ref);
    snprintf(s[1], sizeof s[1], "%llu averages", (unsigned long long)x->averages);
    snprintf(s[2], sizeof s[2], "delay %.3f ms", 1e3 * x->delay_s);
    snprintf(s[3], sizeof s[3], "(%.1f samples)", x->delay_s * x->rate);
    view_font(v, fs);
    for (int i = 0; i < 4; i++)
        view_text(v, s[i], L->side_x + fs, fs * 2 + i * v->line_h, i == 2 ? COL_HOLD : RENDER_COL_LABEL);
    view_text(v, x->remove_delay ? "d: phase less the delay" : "d: phase with the delay", L->side_x + fs,
              fs * 2 + 5 * v->line_h, RENDER_COL_LABEL);
}

void view_xfer_draw(view *v, const layout *L, int started)
{
    sp_errinfo ei = {{0}};
    const char *msg = NULL;
    v->dmg_all = 1;
    v->scr.canvas_ok = 0;
    v->ncovered = 0;
    canvas_fill(&v->cv, 0, 0, v->cv.w, v->cv.h, RENDER_COL_BG);
    if (started)
        compute(v);
    if (!started || !v->xf.ok || v->xf.averages == 0)
        msg = !started ? "starting\xe2\x80\xa6" : "waiting for frames\xe2\x80\xa6";
    else if (draw_panels(v, L, &ei) != SP_OK) {
        sp_render_fields(ei.msg, sizeof ei.msg);
        msg = ei.msg;
    }
    view_font(v, L->fs);
    if (msg) {
        view_text(v, msg, L->fs * 2, L->fs * 2, RENDER_COL_LABEL);
        return;
    }
    draw_strip(v, L);
    draw_cursor(v, L);
}

#ifdef SPECTRO_TEST_HOOKS
static void json_num(FILE *f, const char *key, double x)
{
    fprintf(f, isfinite(x) ? "\"%s\": %.10g" : "\"%s\": null", key, x);
}

void view_xfer_stats(view *v, FILE *f)
{
    view_xfer *x = &v->xf;
    if (!v->sh.xf.on)
        return;
    fprintf(f, ", \"transfer\": {\"averages\": %llu, ", (unsigned long long)x->averages);
    json_num(f, "delay_s", x->delay_s);
    fprintf(f, ", \"remove_delay\": %d, \"plots\": %llu, \"lock_ms_max\": %.3f, \"panels\": [", x->remove_delay,
            (unsigned long long)x->plots, 1e3 * x->held_max_s);
    for (int i = 0; i < XF_PANELS && x->panel[i]; i++) {
        render_rect a = plot_area(x->panel[i]);
        int top = i * (x->pc[0].rc.height);
        fprintf(f, "%s{\"area\": [%d, %d, %d, %d], \"lo\": %g, \"hi\": %g, \"hz_left\": %.10g, \"hz_right\": %.10g}",
                i ? ", " : "", a.x, top + a.y, a.w, a.h, (double)x->pc[i].rc.db_lo, (double)x->pc[i].rc.db_hi,
                hz_at(x->panel[i], a.x, 0.5 * x->rate), hz_at(x->panel[i], a.x + a.w, 0.5 * x->rate));
    }
    fprintf(f, "], \"cursor\": ");
    if (!x->cur_on) {
        fprintf(f, "null}");
        return;
    }
    fprintf(f, "{\"bin\": %zu, ", x->cur_k);
    json_num(f, "hz", x->cur_hz);
    fputs(", ", f);
    json_num(f, "magnitude_db", x->cur_mag);
    fputs(", ", f);
    json_num(f, "phase_deg", x->cur_ph);
    fputs(", ", f);
    json_num(f, "coherence", x->cur_coh);
    fputs("}}", f);
}
#endif
