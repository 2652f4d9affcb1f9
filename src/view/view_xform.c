/* view_xform: the window's transforms (docs/transforms.md, the x key): linear, mel, CQT,
 * chroma and the reassigned spectrogram, each analysed from the start (the engine's
 * transform, as --dump and --png have it).
 *
 *   mel, cqt, chroma  the rows go into the store as they are (chroma's 0 .. 1 as dB, 0 at
 *                     the frame's strongest class), drawn by the renderer's columns
 *                     (render.h: the mel axis in Hz, the CQT's Cs as notes, pitch classes)
 *   reassign          its points gathered onto the frame x bin grid (spectro.h's
 *                     spectro_reassign_grid, as --png draws them), which the store takes as
 *                     linear spectra
 *
 * The strip's curve and the read-out follow the columns; the measurement panel, which reads
 * a linear spectrum, is refused while a transform is shown. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "view_internal.h"

#define MEL_BANDS 128
#define CQT_BPO 12

/* The x key's cycle: VIEW_XF_NONE first. */
static const view_xf_kind CYCLE[] = {VIEW_XF_NONE, VIEW_XF_MEL, VIEW_XF_CQT, VIEW_XF_CHROMA, VIEW_XF_REASSIGN};
#define CYCLE_COUNT ((int)(sizeof CYCLE / sizeof CYCLE[0]))

/* f0 (or C1 when not above 0) raised by octaves until its kernel at bpo bins an octave
 * (Q rate/f samples) fits in n samples at `rate`: the lowest C at this N, or the user's
 * fmin at the same note. */
static double cqt_fmin(double f0, int bpo, size_t n, double rate)
{
    double q = 1.0 / (pow(2.0, 1.0 / bpo) - 1.0), need = q * rate / (double)n * 1.0001;
    double f = f0 > 0 ? f0 : VIEW_CQT_DEFAULT_FMIN;
    while (f < need)
        f *= 2.0;
    return f;
}

void view_xform_spec(view *v)
{
    view_xf *x = &v->w.cfg.xform;
    double rate;
    pthread_mutex_lock(&v->sh.mu);
    rate = v->sh.info.rate > 0 ? v->sh.info.rate : 48000.0;
    pthread_mutex_unlock(&v->sh.mu);
    *x = view_xf_none();
    x->kind = CYCLE[v->xf_idx];
    if (x->kind != VIEW_XF_NONE && x->kind == v->xf_user.kind) /* the command line's, kept */
        *x = v->xf_user;
    else if (x->kind == VIEW_XF_MEL)
        x->bands = MEL_BANDS;
    else if (x->kind == VIEW_XF_CQT)
        x->bands = CQT_BPO;
    if (x->kind == VIEW_XF_CQT)
        x->fmin = cqt_fmin(x->fmin, x->bands, v->w.cfg.n, rate);
}

/* The panel reads a linear spectrum: its averages, tone, marks, band bars and the selection
 * go while a transform is shown. */
static void panel_off(view *v)
{
    v->pn.avg_mode = VIEW_AVG_OFF;
    v->pn.tone_on = 0;
    v->pn.mark_on = 0;
    v->bd.fraction = 0;
    view_select_clear(v);
}

void view_xform_init(view *v)
{
    v->xf_user = v->w.cfg.xform;
    for (int i = 1; i < CYCLE_COUNT; i++)
        if (CYCLE[i] == v->xf_user.kind)
            v->xf_idx = i;
    if (v->xf_idx)
        panel_off(v);
}

int view_xform_key(view *v, int *err, sp_errinfo *ei)
{
    char msg[128];
    const view_xf *x = &v->w.cfg.xform;
    view_worker_stop(&v->w); /* the run of the settings before; the next is derived anew */
    v->xf_idx = (v->xf_idx + 1) % CYCLE_COUNT;
    view_xform_spec(v);
    if (x->kind == VIEW_XF_NONE)
        snprintf(msg, sizeof msg, "linear spectrogram");
    else if (x->kind == VIEW_XF_CQT)
        snprintf(msg, sizeof msg, "constant-Q, %d bins an octave from %.1f Hz", x->bands, x->fmin);
    else if (x->kind == VIEW_XF_MEL)
        snprintf(msg, sizeof msg, "mel, %d bands", x->bands);
    else
        snprintf(msg, sizeof msg, "%s", x->kind == VIEW_XF_CHROMA ? "chroma" : "reassigned spectrogram");
    if (x->kind != VIEW_XF_NONE)
        panel_off(v);
    view_toast(v, msg);
    v->ui.zf_lo = v->ui.zf_hi = 0;
    return (*err = view_restart(v, 0, ei)) != SP_OK;
}

int view_xform_refuses(view *v, SDL_Keycode sym)
{
    if (CYCLE[v->xf_idx] == VIEW_XF_NONE ||
        (sym != SDLK_a && sym != SDLK_t && sym != SDLK_e && sym != SDLK_b && sym != SDLK_m))
        return 0;
    view_toast(v, "not with a transform: x back to the linear spectrogram");
    return 1;
}

/* ---- the analysis thread's side (the view's sink) ------------------------------------------ */

int view_xform_open(shared *sh, const spectro_stream_info *in, view_stream *info, sp_errinfo *ei)
{
    view_xf_run *xr = &sh->xr;
    const spectro_frames_info *f = in->frames;
    const char *t = f->transform;
    spectro_error e = {0, {0}};
    spectro_reassign_grid_destroy(xr->grid); /* a run stopped before its end */
    memset(xr, 0, sizeof *xr);
    info->xform = VIEW_XF_NONE;
    info->cols = 0;
    if (!t)
        return SP_OK;
    if (strcmp(t, "reassign") == 0) { /* a linear spectrogram of the points */
        size_t reach = (f->fft_size / 2 + f->hop - 1) / f->hop + 1;
        info->xform = VIEW_XF_REASSIGN;
        info->bins = f->fft_size / 2 + 1;
        xr->kind = VIEW_XF_REASSIGN;
        xr->bins = info->bins;
        if (spectro_reassign_grid_create(f->channels, info->bins, in->bin_hz, f->time_first_s, f->time_step_s, reach,
                                         &xr->grid, &e) != SPECTRO_OK)
            return sp_fail(ei, e.code, "%s", e.message); /* the codes are the engine's (spectro.h) */
        return SP_OK;
    }
    if (!f->freqs_hz || f->bins > VIEW_XFORM_MAX_COLS || f->depth > 1)
        return sp_fail(ei, SP_EINVAL, "the window shows no %s", t);
    info->xform = strcmp(t, "mel") == 0      ? VIEW_XF_MEL
                  : strcmp(t, "cqt") == 0    ? VIEW_XF_CQT
                  : strcmp(t, "chroma") == 0 ? VIEW_XF_CHROMA
                                             : VIEW_XF_MFCC;
    if (info->xform == VIEW_XF_MFCC)
        return sp_fail(ei, SP_EINVAL, "the window shows no %s", t);
    info->bins = info->cols = f->bins;
    memcpy(info->col_hz, f->freqs_hz, f->bins * sizeof *info->col_hz);
    xr->kind = info->xform;
    xr->bins = info->bins;
    return SP_OK;
}

typedef struct {
    shared *sh;
    view_rows_fn store;
    sp_errinfo *ei;         /* the store's message */
    int failed;             /* the store failed: ei holds its line */
} emit_ctx;

static int emit_rows(void *user, int channel, uint64_t first, size_t count, const float *rows)
{
    emit_ctx *e = user;
    int err = e->store(e->sh, channel, first, count, rows, e->ei);
    e->failed = err != SP_OK;
    return err;
}

/* A grid call's result: the store's failure as it was, or the grid's own line. */
static int grid_result(int rc, const emit_ctx *e, const spectro_error *se, sp_errinfo *ei)
{
    if (rc == SPECTRO_OK || e->failed)
        return rc;
    return sp_fail(ei, rc, "%s", se->message);
}

int view_xform_rows(shared *sh, int channel, uint64_t first, size_t nframes, const float *rows, view_rows_fn store,
                    sp_errinfo *ei)
{
    view_xf_run *xr = &sh->xr;
    emit_ctx e = {sh, store, ei, 0};
    spectro_error se = {0, {0}};
    if (xr->grid)
        return grid_result(spectro_reassign_grid_add(xr->grid, channel, first, nframes, rows, emit_rows, &e, &se), &e,
                           &se, ei);
    if (xr->kind != VIEW_XF_CHROMA)
        return store(sh, channel, first, nframes, rows, ei);
    if (nframes * xr->bins > xr->cap) { /* chroma: each class's share of the strongest, in dB */
        float *p = realloc(xr->buf, nframes * xr->bins * sizeof *p);
        if (!p)
            return sp_fail(ei, SP_ENOMEM, "out of memory");
        xr->buf = p;
        xr->cap = nframes * xr->bins;
    }
    for (size_t i = 0; i < nframes * xr->bins; i++)
        xr->buf[i] = (float)(10.0 * log10(rows[i] > 1e-20f ? (double)rows[i] : 1e-20));
    return store(sh, channel, first, nframes, xr->buf, ei);
}

int view_xform_flush(shared *sh, view_rows_fn store, sp_errinfo *ei)
{
    emit_ctx e = {sh, store, ei, 0};
    spectro_error se = {0, {0}};
    int err = sh->xr.grid ? grid_result(spectro_reassign_grid_flush(sh->xr.grid, emit_rows, &e, &se), &e, &se, ei)
                          : SP_OK;
    spectro_reassign_grid_destroy(sh->xr.grid);
    sh->xr.grid = NULL;
    return err;
}

void view_xform_free(shared *sh)
{
    spectro_reassign_grid_destroy(sh->xr.grid);
    free(sh->xr.buf);
    memset(&sh->xr, 0, sizeof sh->xr);
}

/* ---- the window's thread: picture, strip, read-out ------------------------------------------ */

void view_xform_picture(view *v, const view_stream *info, render_config *rc, char *title, size_t len)
{
    picture *p = &v->pic;
    size_t at = strlen(title);
    p->xform = info->xform;
    p->cols = info->cols;
    if (info->xform != VIEW_XF_NONE && at < len)
        snprintf(title + at, len - at, "  \xe2\x80\x94  %s", info->xform == VIEW_XF_MEL      ? "mel"
                                                              : info->xform == VIEW_XF_CQT    ? "constant-Q"
                                                              : info->xform == VIEW_XF_CHROMA ? "chroma"
                                                                                            : "reassigned");
    if (!info->cols)
        return;
    memcpy(p->col_hz, info->col_hz, info->cols * sizeof *p->col_hz);
    rc->columns = info->cols;
    rc->col_hz = p->col_hz;
    rc->col_notes = info->xform == VIEW_XF_CQT ? 1 : info->xform == VIEW_XF_CHROMA ? 2 : 0;
    if (info->xform == VIEW_XF_CHROMA)
        rc->caption = "dB re frame max";
}

/* The columns pixel row y of h shows (render.c's rule: those it overlaps). */
static void column_range(size_t cols, int y, int h, size_t *k0, size_t *k1)
{
    double lo = (1.0 - (y + 1) / (double)h) * (double)cols, hi = (1.0 - y / (double)h) * (double)cols;
    long a = (long)floor(lo + 1e-9), b = (long)ceil(hi - 1e-9) - 1;
    a = a < 0 ? 0 : a > (long)cols - 1 ? (long)cols - 1 : a;
    b = b < a ? a : b > (long)cols - 1 ? (long)cols - 1 : b;
    *k0 = (size_t)a;
    *k1 = (size_t)b;
}

float view_xform_strip_db(const view *v, const int16_t *s, int y, int h)
{
    size_t k0, k1;
    int16_t m;
    column_range(v->pic.cols, y, h, &k0, &k1);
    m = s[k0];
    for (size_t k = k0 + 1; k <= k1; k++)
        m = s[k] > m ? s[k] : m;
    return (float)m * 0.01f;
}

/* "A4" for f (A4 = 440 Hz), or the pitch class alone. */
static void note_of(double f, int octave, char *buf, size_t len)
{
    static const char *const names[] = {"C", "C#", "D", "D#", "E", "F", "F#", "G", "G#", "A", "A#", "B"};
    long midi = lround(12.0 * log2(f / 440.0) + 69.0), pc = ((midi % 12) + 12) % 12;
    if (octave)
        snprintf(buf, len, "%s%ld", names[pc], (midi - pc) / 12 - 1);
    else
        snprintf(buf, len, "%s", names[pc]);
}

int view_xform_readout(const view *v, double u, size_t *k, char *line, size_t len)
{
    const picture *p = &v->pic;
    char note[32];
    double f;
    if (!p->cols)
        return 0;
    *k = u <= 0 ? 0 : (size_t)(u * (double)p->cols);
    *k = *k >= p->cols ? p->cols - 1 : *k;
    f = p->col_hz[*k];
    if (p->xform == VIEW_XF_CHROMA) {
        note_of(f, 0, note, sizeof note);
        snprintf(line, len, "pitch class %s", note);
    } else if (p->xform == VIEW_XF_CQT) {
        note_of(f, 1, note, sizeof note);
        snprintf(line, len, "%s   %.1f Hz (CQT bin %zu)", note, f, *k);
    } else {
        snprintf(line, len, "mel band %zu   %.1f Hz", *k, f);
    }
    return 1;
}
