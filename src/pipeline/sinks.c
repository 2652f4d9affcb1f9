#include <stdlib.h>
#include <string.h>

#include "calib.h"
#include "par.h"
#include "pipeline_internal.h"
#include "sink_table.h"

static int fan_out(pipe_sinks *l, int channel, uint64_t first, size_t nframes, const float *db,
                   const float *colmax);

/* Frames a part of the peak refinement gets at least (a dense run's 0.5 us each on the GPU
 * host's cores: below this the pool's wake-up costs more than it saves). */
#define REFINE_PART_MIN 64

void pipe_refine_peaks(const peaks_window *pw, const fft_peak_raw *raw, size_t nframes, size_t nranges,
                       size_t range, size_t n, double rate, peak *out)
{
    for (size_t i = 0; i < nframes; i++) {
        const fft_peak_raw *p = &raw[i * nranges + range];
        out[i] = peaks_refine(pw, p->bin, p->l, p->c, p->r, n, rate);
    }
}

/* The request of `kind` in the config, NULL when it asks for none. */
static const sink_request *request_of(const analyze_config *cfg, const char *kind)
{
    for (int i = 0; i < cfg->n_outputs; i++)
        if (strcmp(cfg->outputs[i].kind, kind) == 0)
            return &cfg->outputs[i];
    return NULL;
}

int pipe_sinks_reduce_only(const analyze_config *cfg, const analyze_context *ctx)
{
    if (ctx->n_extra_sinks > 0 || cfg->n_outputs == 0)
        return 0;
    for (int i = 0; i < cfg->n_outputs; i++) {
        const sink_kind *k = sink_kind_find(cfg->outputs[i].kind);
        if (!k || !k->reduces)
            return 0;
    }
    return 1;
}

int pipe_sinks_samples_only(const analyze_config *cfg, const analyze_context *ctx)
{
    if (ctx->n_extra_sinks > 0 || cfg->n_outputs == 0)
        return 0;
    for (int i = 0; i < cfg->n_outputs; i++) {
        const sink_kind *k = sink_kind_find(cfg->outputs[i].kind);
        if (!k || !k->samples_only)
            return 0;
    }
    return 1;
}

int pipe_sinks_samples(pipe_sinks *l, uint64_t first, size_t nframes, const float *x, sp_errinfo *ei)
{
    int err;
    if (!l->samples)
        return SP_OK;
    for (int i = 0; i < l->opened; i++) {
        const sink *s = &l->s[i];
        if (l->wants[i].samples && s->ops->samples &&
            (err = s->ops->samples(s->self, first, nframes, x, ei)) != SP_OK)
            return err;
    }
    return SP_OK;
}

int pipe_sinks_build(pipe_sinks *l, const analyze_config *cfg, const analyze_context *ctx, sp_errinfo *ei)
{
    sink_options opt;
    int total = ctx->n_extra_sinks + sink_kind_count(), err;
    memset(l, 0, sizeof *l);
    for (int i = 0; i < cfg->n_outputs; i++)
        if (!sink_kind_find(cfg->outputs[i].kind))
            return sp_fail(ei, SP_EINVAL, "unknown output kind \"%s\"", cfg->outputs[i].kind);
    /* before any work: two outputs on standard output, a file that cannot be written (a
     * picture written at the end would find it out only then) */
    if ((err = sink_requests_check_stdout(cfg->outputs, cfg->n_outputs, ei)) != SP_OK ||
        (err = sink_requests_check_paths(cfg->outputs, cfg->n_outputs, ei)) != SP_OK)
        return err;
    l->s = calloc((size_t)total, sizeof *l->s);
    l->wants = calloc((size_t)total, sizeof *l->wants);
    l->reduction = calloc((size_t)total, sizeof *l->reduction);
    l->red = calloc((size_t)total, sizeof *l->red);
    if (!l->s || !l->wants || !l->reduction || !l->red)
        return sp_fail(ei, SP_ENOMEM, "out of memory");
    for (int i = 0; i < ctx->n_extra_sinks; i++)
        l->s[l->count++] = ctx->extra_sinks[i];
    l->own_from = l->count;
    l->spl_offset = cfg->measure.spl_offset;
    if (cfg->measure.calibration && (err = calib_load(cfg->measure.calibration, &l->cal, ei)) != SP_OK)
        return err;
    l->test_maxima = ctx->test.maxima;
    opt.render = &cfg->render;
    opt.peak_fmin = cfg->peak_fmin;
    opt.peak_fmax = cfg->peak_fmax;
    opt.out = ctx->out ? ctx->out : stdout;
    opt.measure = cfg->measure;
    opt.peaks_label_source = ctx->label_inputs;
    for (int i = 0; i < sink_kind_count(); i++) {
        const sink_kind *k = sink_kind_at(i);
        const sink_request *q = request_of(cfg, k->name);
        if (q) {
            if ((err = k->create(q->path, &opt, &l->s[l->count], ei)) != SP_OK)
                return err;
            l->count++;
        }
    }
    return SP_OK;
}

/* The sink's peak search joins an equal one or becomes a new reduction; -1 when the
 * backends' request has no room for another range. */
static int add_reduction(pipe_sinks *l, int i)
{
    const sink_wants *w = &l->wants[i];
    int r;
    for (r = 0; r < l->nred; r++)
        if (l->red[r].kmin == w->peak_kmin && l->red[r].kmax == w->peak_kmax)
            break;
    if (r == l->nred) {
        if (r == FFT_PEAK_RANGES_MAX)
            return -1;
        l->red[r].kmin = w->peak_kmin;
        l->red[r].kmax = w->peak_kmax;
        l->nred++;
    }
    return r;
}

void pipe_sinks_unresolved(const analyze_config *cfg, const sink_stream *ss, analyze_result *res)
{
    if (!request_of(cfg, "bands"))
        return;
    res->bands_fraction = cfg->measure.bands;
    res->bands_unresolved = sink_bands_unresolved(&cfg->measure, ss, res->bands_unresolved_hz, ANALYZE_MAX_UNRESOLVED);
}

int pipe_sinks_open(pipe_sinks *l, const sink_stream *ss, sp_errinfo *ei)
{
    int err;
    l->n = ss->n;
    l->bins = ss->bins;
    l->rate = ss->rate;
    l->ei = ei;
    for (int i = 0; i < l->count; i++) {
        memset(&l->wants[i], 0, sizeof l->wants[i]);
        if ((err = l->s[i].ops->open(l->s[i].self, ss, &l->wants[i], ei)) != SP_OK)
            return err; /* not opened: destroy alone cleans it up */
        l->opened = i + 1;
        l->reduction[i] = -1;
        if (l->wants[i].peaks && l->s[i].ops->peaks && (l->reduction[i] = add_reduction(l, i)) < 0)
            return sp_fail(ei, SP_EINVAL, "%s: more than %d different peak searches in one run", l->s[i].ops->name,
                           FFT_PEAK_RANGES_MAX);
        l->spectra |= l->wants[i].spectra && l->s[i].ops->spectra;
        l->complex |= l->wants[i].complex && l->s[i].ops->complex;
        l->samples |= l->wants[i].samples && l->s[i].ops->samples;
    }
    if (l->complex && (l->spectra || l->nred > 0))
        return sp_fail(ei, SP_EINVAL, "the transfer function takes the frames' transforms: not with outputs of "
                                      "levels or peaks in the same run");
    if (l->nred > 0 && l->win && (err = peaks_window_create(l->win, l->n, &l->pw, ei)) != SP_OK)
        return err;
    if (l->cal || l->spl_offset != 0.0) {
        if (!(l->level_off = malloc(l->bins * sizeof *l->level_off)))
            return sp_fail(ei, SP_ENOMEM, "out of memory");
        calib_offsets(l->cal, l->spl_offset, ss->bin_hz, l->bins, l->level_off);
        l->bin_hz = ss->bin_hz;
    }
    return SP_OK;
}

/* The span all spectra-wanting sinks take column maxima of, or 0 when one of them takes
 * only spectra or two spans differ. */
static uint64_t common_span(const pipe_sinks *l)
{
    uint64_t span = 0;
    for (int i = 0; i < l->count; i++) {
        const sink_wants *w = &l->wants[i];
        if (!w->spectra || !l->s[i].ops->spectra)
            continue;
        if (!w->maxima_span || !l->s[i].ops->maxima || (span && w->maxima_span != span))
            return 0;
        span = w->maxima_span;
    }
    return span;
}

/* The output kinds a transform's rows go to: the dump, its average and the picture. */
static int xform_takes(const pipe_sinks *l, const analyze_config *cfg, sp_errinfo *ei)
{
    const char *name = xform_name(l->xf);
    for (int i = 0; i < cfg->n_outputs; i++) {
        const char *kind = cfg->outputs[i].kind;
        if (strcmp(kind, "dump") == 0)
            continue;
        if (strcmp(kind, "average") == 0 && xform_depth(l->xf) == 1)
            continue; /* levels: their power mean; plain values (MFCC, chroma): their mean */
        if (strcmp(kind, "png") == 0 || (strcmp(kind, "average-png") == 0 && xform_is_db(l->xf)))
            continue; /* the picture's axis: mel, cqt, chroma (render.h columns), MFCC's
                       * coefficients; the reassigned points gathered onto the linear grid
                       * (sink_png.c); mel and CQT levels averaged: a spectrum plot */
        if (strcmp(kind, "average") == 0)
            return sp_fail(ei, SP_EINVAL, "%s: no average (reassigned points have none)", name);
        return sp_fail(ei, SP_EINVAL, "%s: not with %s (it reads the linear spectrum)", name,
                       sink_kind_find(kind)->option);
    }
    return SP_OK;
}

int pipe_sinks_xform(pipe_sinks *l, const analyze_config *cfg, sink_stream *ss, const float *win, sp_errinfo *ei)
{
    int err;
    if (cfg->xform.kind == XFORM_NONE)
        return SP_OK;
    if ((err = xform_create(&cfg->xform, ss->n, (double)ss->rate, win, &l->xf, ei)) != SP_OK ||
        (err = xform_takes(l, cfg, ei)) != SP_OK)
        return err;
    ss->xform = xform_name(l->xf);
    ss->xform_json = xform_json(l->xf);
    ss->depth = xform_depth(l->xf);
    ss->bins = xform_width(l->xf) / ss->depth;
    ss->col_hz = xform_freqs(l->xf);
    if (cfg->xform.kind == XFORM_CHROMA && cfg->xform.tuning_auto && /* its rows after the estimate */
        (err = pipe_defer_make(l, &cfg->xform, ss->n, (double)ss->rate, win, ss, ei)) != SP_OK)
        return err;
    ss->xform_db = xform_is_db(l->xf);
    l->t0 = ss->time_first_s;
    l->dt = ss->time_step_s;
    l->xhop = ss->hop;
    return SP_OK;
}

/* The framer's frames for a transform: the rows to the sinks. */
static int xform_frames(void *user, int channel, uint64_t first, size_t nframes, const float *sig, size_t hop)
{
    pipe_sinks *l = user;
    size_t width = xform_width(l->xf);
    if (l->defer)
        return pipe_defer_keep(l, channel, first, nframes, sig, hop);
    if (nframes > l->xcap) {
        float *p = realloc(l->xrows, nframes * width * sizeof *p);
        if (!p)
            return sp_fail(l->ei, SP_ENOMEM, "out of memory for %zu rows", nframes);
        l->xrows = p;
        l->xcap = nframes;
    }
    int err = xform_rows(l->xf, sig, hop, nframes, l->t0 + (double)first * l->dt, l->dt, l->xrows);
    if (err != SP_OK)
        return sp_fail(l->ei, err, "%s: %s", xform_name(l->xf), xform_error(l->xf));
    return fan_out(l, channel, first, nframes, l->xrows, NULL);
}

int pipe_sinks_attach(pipe_sinks *l, stft *st, fft_plan *plan, sp_errinfo *ei)
{
    fft_peak_req req;
    int maxima = l->test_maxima == ANALYZE_TEST_MAXIMA_HOST ||
                 (l->test_maxima != ANALYZE_TEST_MAXIMA_OFF && fft_plan_reduces_columns(plan));
    if (l->complex) /* the transforms to the sinks, windowed as the levels would be */
        return stft_set_complex(st, l->win, pipe_sinks_complex, l, ei);
    if (l->xf) { /* the frames to the transform, its rows to every sink (no reductions);
                  * a GPU plan's device makes the rows where it can (docs/transforms.md) */
        int on = xform_use_plan(l->xf, plan, l->xhop, ei);
        l->span = 0;
        return on < 0 ? on : stft_set_frames(st, xform_frames, l, ei);
    }
    l->span = maxima ? common_span(l) : 0;
    if (l->span)
        l->spectra = 0; /* every sink that wanted them takes the maxima */
    if (l->nred == 0 && !l->span)
        return SP_OK; /* spectra only: the framer calls pipe_sinks_frames */
    memset(&req, 0, sizeof req);
    req.nranges = (size_t)l->nred;
    for (int r = 0; r < l->nred; r++) {
        req.kmin[r] = l->red[r].kmin;
        req.kmax[r] = l->red[r].kmax;
    }
    req.span = l->span;
    return stft_set_reduce(st, &req, l->spectra, pipe_sinks_reduced, l, ei);
}

/* Room for the reductions of a block of nframes. */
static int reserve_peaks(pipe_sinks *l, size_t nframes)
{
    if (nframes <= l->pk_cap)
        return SP_OK;
    for (int r = 0; r < l->nred; r++) {
        peak *p = realloc(l->red[r].pk, nframes * sizeof *p);
        if (!p)
            return sp_fail(l->ei, SP_ENOMEM, "out of memory for the peaks of %zu frames", nframes);
        l->red[r].pk = p;
    }
    l->pk_cap = nframes;
    return SP_OK;
}

/* rows rows of bins levels with level_off added, in l->leveled. */
static const float *leveled(pipe_sinks *l, const float *rows, size_t nrows)
{
    size_t need = nrows * l->bins;
    if (need > l->leveled_cap) {
        float *p = realloc(l->leveled, need * sizeof *p);
        if (!p)
            return NULL;
        l->leveled = p;
        l->leveled_cap = need;
    }
    for (size_t r = 0; r < nrows; r++)
        for (size_t k = 0; k < l->bins; k++)
            l->leveled[r * l->bins + k] = rows[r * l->bins + k] + l->level_off[k];
    return l->leveled;
}

/* The peaks' levels corrected at their own frequencies (between bins: linear). The peak is
 * the strongest of the uncorrected spectrum (docs/measurements.md "Calibration and SPL"). */
static void level_peaks(const pipe_sinks *l, peak *pk, size_t nframes)
{
    for (size_t i = 0; i < nframes; i++) {
        double k = pk[i].freq_hz / l->bin_hz, t;
        size_t k0 = k <= 0.0 ? 0 : (size_t)k;
        if (k0 + 1 >= l->bins) {
            pk[i].db += l->level_off[l->bins - 1];
            continue;
        }
        t = k - (double)k0;
        pk[i].db += (1.0 - t) * l->level_off[k0] + t * l->level_off[k0 + 1];
    }
}

/* Each sink gets what it declared: the spectra (db is NULL only when none wants them),
 * then the peaks of the same frames (red[].pk already filled). */
static int fan_out(pipe_sinks *l, int channel, uint64_t first, size_t nframes, const float *db,
                   const float *colmax)
{
    int err;
    if (l->level_off && colmax) {
        uint64_t g0 = first / l->span, g1 = (first + nframes - 1) / l->span;
        if (!(colmax = leveled(l, colmax, (size_t)(g1 - g0 + 1))))
            return sp_fail(l->ei, SP_ENOMEM, "out of memory");
    } else if (l->level_off && db && (!(db = leveled(l, db, nframes)))) {
        return sp_fail(l->ei, SP_ENOMEM, "out of memory");
    }
    for (int i = 0; i < l->count; i++) {
        const sink *s = &l->s[i];
        if (colmax && l->wants[i].spectra && s->ops->spectra &&
            (err = s->ops->maxima(s->self, channel, first, nframes, l->span, colmax, l->ei)) != SP_OK)
            return err;
        if (db && !colmax && l->wants[i].spectra && s->ops->spectra &&
            (err = s->ops->spectra(s->self, channel, first, nframes, db, l->ei)) != SP_OK)
            return err;
        if (l->reduction[i] >= 0 &&
            (err = s->ops->peaks(s->self, channel, first, nframes, l->red[l->reduction[i]].pk, l->ei)) != SP_OK)
            return err;
    }
    return SP_OK;
}

int pipe_sinks_frames(void *user, int channel, uint64_t first, size_t nframes, const float *db)
{
    return fan_out(user, channel, first, nframes, db, NULL);
}

int pipe_sinks_complex(void *user, int channel, uint64_t first, size_t nframes, const cpx *z)
{
    pipe_sinks *l = user;
    int err;
    for (int i = 0; i < l->count; i++) {
        const sink *s = &l->s[i];
        if (l->wants[i].complex && s->ops->complex &&
            (err = s->ops->complex(s->self, channel, first, nframes, z, l->ei)) != SP_OK)
            return err;
    }
    return SP_OK;
}

typedef struct {
    pipe_sinks *l;
    const fft_peak_raw *raw;
    size_t nframes;
} refine_job;

static void refine_part(void *ctx, int part, int parts)
{
    refine_job *j = ctx;
    pipe_sinks *l = j->l;
    size_t a, b;
    sp_par_share(j->nframes, part, parts, &a, &b);
    for (int r = 0; r < l->nred; r++)
        pipe_refine_peaks(l->pw, j->raw + a * (size_t)l->nred, b - a, (size_t)l->nred, (size_t)r, l->n, l->rate,
                          l->red[r].pk + a);
}

int pipe_sinks_reduced(void *user, int channel, uint64_t first, size_t nframes, const float *db,
                       const fft_peak_raw *raw, const float *colmax)
{
    pipe_sinks *l = user;
    refine_job j = {l, raw, nframes};
    int err;
    if ((err = reserve_peaks(l, nframes)) != SP_OK)
        return err;
    if (l->nred > 0) /* the frames' refinement on the pool's threads: a dense run's main cost */
        sp_par_run(refine_part, &j, sp_par_parts(nframes * (size_t)l->nred, REFINE_PART_MIN));
    for (int r = 0; l->level_off && r < l->nred; r++)
        level_peaks(l, l->red[r].pk, nframes);
    return fan_out(l, channel, first, nframes, db, colmax);
}

int pipe_sinks_settle(pipe_sinks *l, sp_errinfo *ei)
{
    int derr = pipe_defer_flush(l, ei); /* a transform's rows held back: out before the end */
    if (derr != SP_OK)
        return derr;
    for (int i = 0; i < l->opened; i++) {
        const sink *s = &l->s[i];
        int err = s->ops->settle ? s->ops->settle(s->self, ei) : SP_OK;
        if (err != SP_OK)
            return err;
    }
    return SP_OK;
}

int pipe_sinks_finish(pipe_sinks *l, const sink_end *end, sp_errinfo *ei)
{
    int err;
    if ((err = pipe_defer_flush(l, ei)) != SP_OK)
        return err;
    for (int i = l->opened - 1; i >= 0; i--)
        if (l->s[i].ops->finish && (err = l->s[i].ops->finish(l->s[i].self, end, ei)) != SP_OK)
            return err;
    return SP_OK;
}

void pipe_sinks_abort(pipe_sinks *l)
{
    for (int i = l->opened - 1; i >= 0; i--)
        if (l->s[i].ops->abort)
            l->s[i].ops->abort(l->s[i].self);
    l->opened = 0;
}

void pipe_sinks_free(pipe_sinks *l)
{
    for (int i = l->own_from; i < l->count; i++)
        sink_destroy(&l->s[i]);
    for (int r = 0; r < l->nred; r++)
        free(l->red[r].pk);
    peaks_window_destroy(l->pw);
    calib_destroy(l->cal);
    free(l->level_off);
    free(l->leveled);
    xform_destroy(l->xf);
    free(l->xrows);
    pipe_defer_free(l->defer);
    free(l->xjson);
    free(l->s);
    free(l->wants);
    free(l->reduction);
    free(l->red);
    memset(l, 0, sizeof *l);
}
