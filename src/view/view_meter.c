/* view_meter: the samples' state (view_sig.h: open, the samples call, clear), the keys of
 * the signal views, the instrument column beside the picture and its level meters
 * (docs/measurements.md "Level meters"): per channel the peak, RMS and true peak of the
 * last 400 ms, the momentary (400 ms) and short-term (3 s) loudness of BS.1770-4 by the
 * library's meter (spectro.h's spectro_loudness with its step levels, one single-channel
 * meter a channel) and the peak hold (the highest peak of the last 3 s). Live they read the
 * newest 100 ms step; a file's read the step under the playhead, else the cursor, else the
 * end of the view. */
#include "view_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

#define METER_DB_LO (-60.0) /* the bars' scale, dBFS */
#define METER_MOM_STEPS 4   /* 400 ms: the peak, RMS and true peak as the momentary loudness */

static const rgb8 COL_METER_RMS = {0x2f, 0x9e, 0x5c};
static const rgb8 COL_METER_PEAK = {0x7c, 0xe8, 0x8e};
static const rgb8 COL_METER_HOT = {0xff, 0x4d, 0x4d}; /* the peak above -1 dBFS */

/* ---- the analysis thread's side ---- */

/* A library call's failure as the window's: spectro.h's codes are err.h's. */
_Static_assert(SPECTRO_ENOMEM == SP_ENOMEM && SPECTRO_EINVAL == SP_EINVAL, "spectro.h's codes are err.h's");
static int api_failed(sp_errinfo *ei, const spectro_error *e)
{
    return sp_fail(ei, e->code, "%s", e->message[0] ? e->message : spectro_strerror(e->code));
}

void view_sig_clear(view_sig *s)
{
    for (int c = 0; c < SIG_METER_CH; c++) {
        spectro_loudness_destroy(s->lm[c]);
        s->lm[c] = NULL;
    }
    spectro_pitch_tracker_destroy(s->yin);
    free(s->deint);
    free(s->mono);
    free(s->f0);
    free(s->bmin);
    free(s->bmax);
    free(s->gmin);
    free(s->gmax);
    free(s->scope);
    s->yin = NULL;
    s->deint = s->mono = s->f0 = s->bmin = s->bmax = s->gmin = s->gmax = s->scope = NULL;
    s->nlm = 0;
    s->open = 0;
}

static void meters_stop(view_sig *s)
{
    for (int c = 0; c < s->nlm; c++) {
        spectro_loudness_destroy(s->lm[c]);
        s->lm[c] = NULL;
    }
    s->nlm = 0;
    s->meters_from_start = 0;
}

/* The meters from sample `first` on (SP_OK and none for a rate the meter cannot weigh). */
static int meters_start(view_sig *s, uint64_t first, sp_errinfo *ei)
{
    int n = s->channels < SIG_METER_CH ? s->channels : SIG_METER_CH, err;
    double one = 1.0;
    spectro_error e = {0, ""};
    for (int c = 0; c < n; c++) {
        if ((err = spectro_loudness_create(s->rate, 1, &one, &s->lm[c], &e)) != SPECTRO_OK ||
            (err = spectro_loudness_keep_levels(s->lm[c], &e)) != SPECTRO_OK)
            return err == SPECTRO_EINVAL ? SP_OK : api_failed(ei, &e);
    }
    s->nlm = n;
    s->meter_first = first;
    return SP_OK;
}

/* The pitch's estimator from sample `first` on; 0 when it cannot be made (*pei says why). */
static int pitch_start(view_sig *s, uint64_t first, sp_errinfo *pei)
{
    spectro_error e = {0, ""};
    if (spectro_pitch_tracker_create(s->rate, s->n, 0.0, 0.0, &s->yin, &e) != SPECTRO_OK) {
        api_failed(pei, &e);
        return 0;
    }
    if (!(s->mono = malloc(2 * s->n * sizeof *s->mono))) {
        spectro_pitch_tracker_destroy(s->yin);
        s->yin = NULL;
        return 0;
    }
    s->have = 0;
    s->mono_end = first;
    s->pf_first = first / s->hop; /* frames before it are never estimated: NaN */
    return 1;
}

int view_sig_open(view_sig *s, pthread_mutex_t *mu, const spectro_stream_info *in, int want_meters, int want_pitch,
                  sp_errinfo *ei)
{
    int err;
    memset(s, 0, sizeof *s);
    s->mu = mu;
    s->rate = in->frames->sample_rate;
    s->channels = in->source_channels > 0 ? in->source_channels : 1;
    s->live = in->frames->live;
    s->n = in->frames->fft_size;
    s->hop = in->frames->hop;
    s->start_s = in->start_s;
    s->want_meters = want_meters;
    s->want_pitch = want_pitch;
    if (want_meters && (err = meters_start(s, 0, ei)) != SP_OK)
        goto fail;
    s->meters_from_start = s->nlm > 0;
    if (want_pitch) {
        sp_errinfo pei = {{0}};
        s->pitch_from_start = pitch_start(s, 0, &pei);
        snprintf(s->pitch_err, sizeof s->pitch_err, "%s", pei.msg);
    }
    if (s->live ? !(s->scope = calloc(SIG_SCOPE_LEN, sizeof *s->scope)) : !view_wave_grow(s)) {
        err = sp_fail(ei, SP_ENOMEM, "out of memory");
        goto fail;
    }
    s->cur_min = INFINITY;
    s->cur_max = -INFINITY;
    s->open = 1;
    return SP_OK;
fail:
    view_sig_clear(s);
    return err;
}

/* The meters' share of a block: each channel's samples apart, into its meter. */
static int meters_add(view_sig *s, const float *x, size_t nframes, sp_errinfo *ei)
{
    spectro_error e = {0, ""};
    if (nframes > s->deint_cap) {
        float *d = realloc(s->deint, nframes * sizeof *d);
        if (!d)
            return sp_fail(ei, SP_ENOMEM, "out of memory");
        s->deint = d;
        s->deint_cap = nframes;
    }
    for (int c = 0; c < s->nlm; c++) {
        for (size_t i = 0; i < nframes; i++)
            s->deint[i] = x[i * (size_t)s->channels + (size_t)c];
        if (spectro_loudness_add(s->lm[c], s->deint, nframes, &e) != SPECTRO_OK)
            return api_failed(ei, &e);
    }
    return SP_OK;
}

int view_sig_samples(view_sig *s, uint64_t first, size_t nframes, const float *x, sp_errinfo *ei)
{
    int err = SP_OK, want_m, want_p, jump;
    pthread_mutex_lock(s->mu);
    want_m = s->want_meters;
    want_p = s->want_pitch;
    jump = first != s->pos;
    pthread_mutex_unlock(s->mu);
    /* the pitch's estimator is the analysis thread's: its FFTs outside the lock */
    if (want_p && !s->yin && !s->pitch_err[0]) {
        sp_errinfo pei = {{0}};
        if (!pitch_start(s, first, &pei)) {
            pthread_mutex_lock(s->mu);
            snprintf(s->pitch_err, sizeof s->pitch_err, "%s", pei.msg[0] ? pei.msg : "out of memory");
            pthread_mutex_unlock(s->mu);
        }
    }
    if (s->yin && want_p)
        view_pitch_samples(s, first, nframes, x);
    pthread_mutex_lock(s->mu);
    /* live: the meters start over after a gap (turned off, or input skipped); a file's
     * turned off miss samples: turned on again, the file is analysed again */
    if (s->nlm > 0 && (s->live ? !want_m || jump : !want_m))
        meters_stop(s);
    if (!want_p && s->yin)
        s->pitch_from_start = 0;
    if (want_m && s->nlm == 0 && s->live)
        err = meters_start(s, first, ei);
    if (err == SP_OK && want_m && s->nlm > 0)
        err = meters_add(s, x, nframes, ei);
    if (s->live)
        view_scope_samples(s, x, nframes);
    else
        view_wave_samples(s, x, nframes);
    s->pos = first + nframes;
    pthread_mutex_unlock(s->mu);
    return err;
}

/* ---- the window's side ---- */

static double db_of(double lin)
{
    return lin > 0.0 ? 20.0 * log10(lin) : -INFINITY;
}

enum { AT_NEWEST, AT_PLAYHEAD, AT_CURSOR, AT_END };
static const char *const AT_TITLE[] = {"Levels", "Levels (playhead)", "Levels (cursor)", "Levels (end of view)"};

/* The sample (from the analysis' start) the meters read, and which it is (*at); NaN for
 * the newest (live). */
static double meter_sample(view *v, int *at)
{
    picture *p = &v->pic;
    double f;
    *at = AT_NEWEST;
    if (v->live || !p->r || !p->ok)
        return NAN;
    if (v->play.pl && isfinite(v->play.head_f)) {
        *at = AT_PLAYHEAD;
        f = v->play.head_f;
    } else {
        render_rect pr = render_plot_rect(p->r, 0);
        int in = v->ui.mouse_in && v->ui.mx >= pr.x && v->ui.mx < pr.x + pr.w;
        double x = in ? v->ui.mx - pr.x + 0.5 : pr.w;
        *at = in ? AT_CURSOR : AT_END;
        f = (double)p->a0 + x / pr.w * (double)p->count * (double)p->span;
    }
    return f * (double)p->hop + 0.5 * (double)p->n;
}

/* Channel c's figures at step k (of its meter) into the ui's slot; under the lock. */
static void meter_read(view_sig *s, view_sig_ui *u, int c, uint64_t k)
{
    const spectro_loudness *m = s->lm[c];
    spectro_loudness_levels lv = {sizeof lv, 0.0, 0.0, 0.0};
    double pk = 0.0, tp = 0.0, sq = 0.0, hold = 0.0;
    size_t nsq = 0;
    for (uint64_t j = k + 1 > SIG_HOLD_STEPS ? k + 1 - SIG_HOLD_STEPS : 0; j <= k; j++) {
        if (spectro_loudness_get_levels(m, j, &lv, NULL) != SPECTRO_OK)
            continue;
        hold = lv.sample_peak > hold ? lv.sample_peak : hold;
        if (j + METER_MOM_STEPS <= k)
            continue;
        pk = lv.sample_peak > pk ? lv.sample_peak : pk;
        tp = lv.true_peak > tp ? lv.true_peak : tp;
        sq += lv.mean_square;
        nsq++;
    }
    u->meter[c].peak = db_of(pk);
    u->meter[c].true_peak = db_of(tp);
    u->meter[c].rms = nsq ? 10.0 * log10(sq / (double)nsq) : NAN;
    u->meter[c].hold = db_of(hold);
    u->meter[c].momentary = spectro_loudness_momentary(m, k);
    u->meter[c].short_term = spectro_loudness_short_term(m, k);
}

/* The meters' figures of this frame into v->sg (nmeter 0: none yet); which sample they
 * read (AT_*) is returned. */
static int meters_fetch(view *v)
{
    view_sig *s = &v->sh.sig;
    view_sig_ui *u = &v->sg;
    int which;
    double at = meter_sample(v, &which);
    u->nmeter = 0;
    u->meter_t = NAN;
    pthread_mutex_lock(s->mu);
    if (s->open && s->nlm > 0) {
        uint64_t steps = spectro_loudness_steps(s->lm[0]), k;
        double rel = isfinite(at) ? at - (double)s->meter_first
                                  : (double)steps * s->rate / (double)SPECTRO_LOUDNESS_STEPS_PER_S - 1.0;
        if (steps > 0 && rel >= 0.0) {
            k = (uint64_t)floor(rel * SPECTRO_LOUDNESS_STEPS_PER_S / s->rate);
            if (k >= steps)
                k = steps - 1;
            for (int c = 0; c < s->nlm; c++)
                meter_read(s, u, c, k);
            u->nmeter = s->nlm;
            u->meter_t = s->start_s + ((double)s->meter_first +
                                       (double)(k + 1) * s->rate / (double)SPECTRO_LOUDNESS_STEPS_PER_S) /
                                          s->rate;
        }
    }
    pthread_mutex_unlock(s->mu);
    return which;
}

/* A level as the read-out writes it: one decimal, a real minus, "−∞" for silence and "—"
 * before the first block. */
static void level_text(double d, char *buf, size_t len)
{
    if (isnan(d))
        snprintf(buf, len, "\xe2\x80\x94");
    else if (d == -INFINITY || d < -199.95)
        snprintf(buf, len, "\xe2\x88\x92\xe2\x88\x9e");
    else
        snprintf(buf, len, "%s%.1f", d < -0.05 ? "\xe2\x88\x92" : "", fabs(d));
}

static int meter_row(double db, int y, int h)
{
    double t = isfinite(db) ? (db - METER_DB_LO) / -METER_DB_LO : db > 0 ? 1.0 : 0.0;
    t = t < 0.0 ? 0.0 : t > 1.0 ? 1.0 : t;
    return y + h - (int)lround(t * h);
}

/* The read-out under the bars: a row per figure, a column per channel. */
static void meters_table(view *v, int x, int y, int w, int col_w, int label_w)
{
    static const char *rows[5] = {"peak dBFS", "RMS dBFS", "TP dBTP", "M LUFS", "S LUFS"};
    view_sig_ui *u = &v->sg;
    char buf[32];
    (void)w;
    for (int r = 0; r < 5; r++) {
        int yy = y + r * v->line_h;
        view_text(v, rows[r], x, yy, RENDER_COL_LABEL);
        for (int c = 0; c < u->nmeter; c++) {
            double d = r == 0 ? u->meter[c].peak : r == 1 ? u->meter[c].rms : r == 2 ? u->meter[c].true_peak
                     : r == 3 ? u->meter[c].momentary : u->meter[c].short_term;
            int tw;
            level_text(d, buf, sizeof buf);
            tw = canvas_text_width(v->font, buf);
            view_text(v, buf, x + label_w + (c + 1) * col_w - tw, yy, RENDER_COL_TITLE);
        }
    }
}

/* The meters in the rectangle: the dB scale, a bar per channel (RMS, peak above it, the
 * hold's line), the table under them with its units. */
static void meters_draw(view *v, const layout *L, int x, int y, int w, int h)
{
    view_sig_ui *u = &v->sg;
    canvas *cv = &v->cv;
    int fs = L->fs, label_w, col_w, table_h = 6 * v->line_h, by, bh, bw;
    static const double ticks[] = {0, -6, -12, -20, -30, -40, -60};
    char buf[32];
    int at = meters_fetch(v);
    view_font(v, fs);
    view_text(v, AT_TITLE[at], x, y, RENDER_COL_LABEL);
    label_w = canvas_text_width(v->font, "peak dBFS") + fs / 2;
    col_w = u->nmeter > 0 ? (w - label_w) / u->nmeter : w - label_w;
    by = y + 2 * v->line_h;
    bh = h - (by - y) - table_h - fs;
    bw = col_w / 3 > fs / 2 ? col_w / 3 : fs / 2;
    if (bh < 2 * fs || u->nmeter == 0) {
        if (u->nmeter == 0)
            view_text(v, "no levels yet", x, by, RENDER_COL_LABEL);
        return;
    }
    for (size_t i = 0; i < sizeof ticks / sizeof ticks[0]; i++) {
        int ty = meter_row(ticks[i], by, bh);
        render_format_signed(ticks[i], 0, buf, sizeof buf);
        canvas_fill(cv, x + label_w - fs / 3, ty, fs / 4, 1, RENDER_COL_TICK);
        view_text(v, buf, x + label_w - fs / 2 - canvas_text_width(v->font, buf), ty - v->line_h / 2,
                  RENDER_COL_LABEL);
    }
    for (int c = 0; c < u->nmeter; c++) {
        int bx = x + label_w + c * col_w + (col_w - bw) / 2, ry = meter_row(u->meter[c].rms, by, bh);
        int py = meter_row(u->meter[c].peak, by, bh), hy = meter_row(u->meter[c].hold, by, bh);
        canvas_fill(cv, bx, by, bw, bh, COL_PANEL_BG);
        canvas_fill(cv, bx, py, bw, by + bh - py, u->meter[c].peak > -1.0 ? COL_METER_HOT : COL_METER_PEAK);
        canvas_fill(cv, bx, ry, bw, by + bh - ry, COL_METER_RMS);
        if (isfinite(u->meter[c].hold))
            canvas_fill(cv, bx, hy, bw, 2, COL_HOLD);
        canvas_outline(cv, bx - 1, by - 1, bw + 2, bh + 2, RENDER_COL_FRAME);
        snprintf(buf, sizeof buf, "%d", c + 1);
        view_text(v, buf, bx + (bw - canvas_text_width(v->font, buf)) / 2, by + bh + fs / 4, RENDER_COL_LABEL);
        u->meter[c].bar_x = bx;
        u->meter[c].bar_y = by;
        u->meter[c].bar_w = bw;
        u->meter[c].bar_h = bh;
        u->meter[c].peak_y = py;
    }
    meters_table(v, x, by + bh + fs / 4 + v->line_h, w, col_w, label_w);
}

/* ---- the instrument column, the keys ---- */

int view_sig_inst_em(view *v)
{
    int c, em = 0;
    pthread_mutex_lock(v->sh.sig.mu);
    c = v->sh.sig.channels > 0 ? v->sh.sig.channels : 1;
    pthread_mutex_unlock(v->sh.sig.mu);
    c = c < SIG_METER_CH ? c : SIG_METER_CH;
    if (v->sg.meters)
        em = 8 + 4 * c;
    if (v->live && (v->sg.scope || v->sg.pitch) && em < 14)
        em = 14;
    return em;
}

void view_sig_draw_column(view *v, const layout *L)
{
    int fs = L->fs, x = L->inst_x + fs / 2, w = L->inst_w - fs, y = fs / 2, h = L->pic_h - fs;
    int scope_h = v->sg.scope && v->live ? (v->sg.meters ? h * 2 / 5 : h) : 0;
    if (L->inst_w <= 0)
        return;
    canvas_fill(&v->cv, L->inst_x, 0, L->inst_w, L->pic_h, RENDER_COL_BG);
    view_damage(v, L->inst_x, 0, L->inst_w, L->pic_h);
    if (v->sg.pitch && v->live) {
        int ph = view_pitch_live(v, L, x, y);
        y += ph;
        h -= ph;
        scope_h = v->sg.scope ? (v->sg.meters ? h * 2 / 5 : h) : 0;
    }
    if (v->sg.meters)
        meters_draw(v, L, x, y, w, h - scope_h);
    if (scope_h > 0)
        view_scope_draw(v, L, x, y + h - scope_h, w, scope_h);
}

/* A switch that needs its figures from the analysis' start: a file analysed without them
 * is analysed again. */
static int want(view *v, int meters, int on, int *err, sp_errinfo *ei)
{
    view_sig *s = &v->sh.sig;
    int again;
    pthread_mutex_lock(s->mu);
    if (meters)
        s->want_meters = on;
    else
        s->want_pitch = on;
    again = on && !s->live && s->open && !(meters ? s->meters_from_start : s->pitch_from_start);
    pthread_mutex_unlock(s->mu);
    if (again) {
        view_toast(v, meters ? "analysing again for the level meters" : "analysing again for the pitch");
        *err = view_restart(v, 1, ei);
    }
    return 1;
}

int view_sig_key(view *v, SDL_Keycode sym, int live, int *err, sp_errinfo *ei)
{
    view_sig_ui *u = &v->sg;
    switch (sym) {
    case SDLK_v:
        u->meters = !u->meters;
        return want(v, 1, u->meters, err, ei);
    case SDLK_f:
        u->pitch = !u->pitch;
        return want(v, 0, u->pitch, err, ei);
    case SDLK_r:
        u->wave = !u->wave;
        if (live)
            view_toast(v, "the waveform strip is the file view's");
        return 1;
    case SDLK_o:
        u->scope = !u->scope;
        if (!live)
            view_toast(v, "the oscilloscope is for live input");
        return 1;
    default:
        return 0;
    }
}

void view_sig_free(view *v)
{
    view_sig_clear(&v->sh.sig);
    free(v->sg.wave_lo);
    free(v->sg.wave_hi);
    free(v->trace);
    free(v->trace_hz);
}

#ifdef SPECTRO_TEST_HOOKS
static void jnum(FILE *f, const char *pre, double x)
{
    if (isfinite(x))
        fprintf(f, "%s%.6g", pre, x);
    else
        fprintf(f, "%s%s", pre, isnan(x) ? "null" : x < 0 ? "\"-inf\"" : "\"inf\"");
}

/* The stats' members of the samples' views, as last drawn. */
void view_sig_stats(view *v, FILE *f)
{
    view_sig_ui *u = &v->sg;
    fprintf(f, ", \"meters\": {\"on\": %d", u->meters);
    jnum(f, ", \"t_s\": ", u->meter_t);
    fprintf(f, ", \"channels\": [");
    for (int c = 0; c < u->nmeter; c++) {
        fprintf(f, "%s{", c ? ", " : "");
        jnum(f, "\"peak\": ", u->meter[c].peak);
        jnum(f, ", \"rms\": ", u->meter[c].rms);
        jnum(f, ", \"true_peak\": ", u->meter[c].true_peak);
        jnum(f, ", \"momentary\": ", u->meter[c].momentary);
        jnum(f, ", \"short_term\": ", u->meter[c].short_term);
        jnum(f, ", \"hold\": ", u->meter[c].hold);
        fprintf(f, ", \"bar\": [%d, %d, %d, %d], \"peak_y\": %d}", u->meter[c].bar_x, u->meter[c].bar_y,
                u->meter[c].bar_w, u->meter[c].bar_h, u->meter[c].peak_y);
    }
    fprintf(f, "]}, \"pitch\": {\"on\": %d, \"points\": %d", u->pitch, u->pitch_points);
    jnum(f, ", \"median_hz\": ", u->pitch_med_hz);
    fprintf(f, ", \"median_y\": %d, \"readout\": ", u->pitch_med_y);
    sp_json_string(f, u->pitch_readout);
    fprintf(f, "}, \"wave\": {\"on\": %d, \"rect\": [%d, %d, %d, %d], \"lo\": [", u->wave, u->wave_x, u->wave_y,
            u->wave_w, u->wave_h);
    for (int i = 0; i < u->wave_w; i++)
        jnum(f, i ? ", " : "", u->wave_lo[i]);
    fprintf(f, "], \"hi\": [");
    for (int i = 0; i < u->wave_w; i++)
        jnum(f, i ? ", " : "", u->wave_hi[i]);
    fprintf(f, "]}, \"scope\": {\"on\": %d, \"rect\": [%d, %d, %d, %d], \"triggered\": %d", u->scope, u->scope_x,
            u->scope_y, u->scope_w, u->scope_h, u->scope_trig);
    jnum(f, ", \"start\": ", u->scope_start);
    jnum(f, ", \"next\": ", u->scope_next);
    jnum(f, ", \"peak\": ", u->scope_peak);
    fprintf(f, "}");
}
#endif
