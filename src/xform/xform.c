/* The transform object and the table of transforms (docs/transforms.md). */
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "par.h"
#include "xform_internal.h"

/* The one list of transforms: xform_create, the names and the command line read it. */
static const xform_ops *const TABLE[] = {
    &xform_mel_ops, &xform_mfcc_ops, &xform_chroma_ops, &xform_cqt_ops, &xform_reassign_ops,
};
#define TABLE_COUNT ((int)(sizeof TABLE / sizeof TABLE[0]))

/* Frames a part of xform_rows gets at least; frames it takes at a time. */
#define ROWS_PART_MIN 16
#define ROWS_CHUNK 16

xform_spec xform_spec_default(void)
{
    xform_spec s;
    memset(&s, 0, sizeof s);
    s.kind = XFORM_NONE;
    s.fmin = -1.0;
    return s;
}

int xform_count(void)
{
    return TABLE_COUNT;
}

const char *xform_kind_name(xform_kind kind)
{
    for (int i = 0; i < TABLE_COUNT; i++)
        if (TABLE[i]->kind == kind)
            return TABLE[i]->name;
    return NULL;
}

int xform_kind_banked(xform_kind kind)
{
    for (int i = 0; i < TABLE_COUNT; i++)
        if (TABLE[i]->kind == kind)
            return TABLE[i]->bank != NULL;
    return 0;
}

float xform_db(double p)
{
    return (float)(10.0 * log10(p > XFORM_POWER_FLOOR ? p : XFORM_POWER_FLOOR));
}

/* The sidecar's members: the transform's name and parameters, the columns' frequencies. */
static int make_json(xform *x, sp_errinfo *ei)
{
    size_t cols = x->width / x->depth, cap = 256 + strlen(x->params) + cols * 28, at = 0;
    const char *what = x->spec.kind == XFORM_MFCC ? "coefficients" : "freqs_hz";
    if (!(x->json = malloc(cap)))
        return sp_fail(ei, SP_ENOMEM, "out of memory");
    at += (size_t)snprintf(x->json + at, cap - at, ",\n  \"transform\": {\"name\": \"%s\"%s},\n  \"%s\": [",
                           x->ops->name, x->params, what);
    for (size_t i = 0; i < cols; i++)
        at += (size_t)snprintf(x->json + at, cap - at, "%s%.10g", i ? ", " : "", x->freqs[i]);
    snprintf(x->json + at, cap - at, "]");
    return SP_OK;
}

int xform_create(const xform_spec *spec, size_t n, double rate, const float *window, xform **out, sp_errinfo *ei)
{
    xform *x;
    double wsum = 0.0;
    int err = SP_ENOMEM;
    *out = NULL;
    if (!spec || !window || n < 2 || !(rate > 0))
        return sp_fail(ei, SP_EINVAL, "xform_create: bad argument");
    if (!(x = calloc(1, sizeof *x)))
        return sp_fail(ei, SP_ENOMEM, "out of memory");
    for (int i = 0; i < TABLE_COUNT; i++)
        if (TABLE[i]->kind == spec->kind)
            x->ops = TABLE[i];
    if (!x->ops) {
        free(x);
        return sp_fail(ei, SP_EINVAL, "no such transform (%d)", (int)spec->kind);
    }
    x->spec = *spec;
    x->n = n;
    x->bins = n / 2 + 1;
    x->rate = rate;
    x->bin_hz = rate / (double)n;
    x->depth = 1;
    x->nwin = 1;
    if (!(x->scale = malloc(x->bins * sizeof *x->scale)) || !(x->scale2 = malloc(x->bins * sizeof *x->scale2)) ||
        !(x->wins[0] = malloc(n * sizeof *x->wins[0])))
        goto fail;
    for (size_t i = 0; i < n; i++) {
        x->wins[0][i] = window[i];
        wsum += window[i];
    }
    for (size_t k = 0; k < x->bins; k++) {
        double sc = fft_level_scale(n, k, wsum);
        x->scale[k] = (float)sc;
        x->scale2[k] = (float)(sc * sc);
    }
    if ((err = x->ops->init(x, ei)) != SP_OK || (err = make_json(x, ei)) != SP_OK)
        goto fail;
    *out = x;
    return SP_OK;
fail:
    if (err == SP_ENOMEM)
        sp_fail(ei, SP_ENOMEM, "out of memory");
    xform_destroy(x);
    return err;
}

static void work_free(struct xform_work *w);
static int rows_host(xform *x, const float *sig, size_t hop, size_t nframes, double t0, double dt, float *out);

void xform_destroy(xform *x)
{
    if (!x)
        return;
    if (x->ops && x->ops->fini)
        x->ops->fini(x);
    for (int i = 0; i < XFORM_MAX_WINDOWS; i++)
        free(x->wins[i]);
    for (int i = 0; i < XFORM_PARTS_MAX; i++)
        work_free(x->work[i]);
    fft_bank_destroy(x->plan, x->bank);
    free(x->scale);
    free(x->scale2);
    free(x->freqs);
    free(x->json);
    free(x);
}

void xform_drop_plan(xform *x)
{
    if (!x || !x->bank)
        return;
    fft_bank_destroy(x->plan, x->bank);
    x->bank = NULL;
    x->plan = NULL;
}

const char *xform_name(const xform *x)
{
    return x->ops->name;
}

size_t xform_width(const xform *x)
{
    return x->width;
}

size_t xform_depth(const xform *x)
{
    return x->depth;
}

const double *xform_freqs(const xform *x)
{
    return x->freqs;
}

int xform_is_db(const xform *x)
{
    return x->ops->db;
}

const char *xform_json(const xform *x)
{
    return x->json;
}

/* ---- rows: the parts' own plans and buffers ------------------------------------------------ */

struct xform_work {
    fft_plan *plan;              /* cpu, one thread, a frame a call (frame_row) */
    float *scratch;
};

static void work_free(struct xform_work *w)
{
    if (!w)
        return;
    fft_plan_destroy(w->plan);
    free(w->scratch);
    free(w);
}

static struct xform_work *work_make(const xform *x)
{
    struct xform_work *w = calloc(1, sizeof *w);
    fft_config fc = fft_config_default();
    size_t sc = x->ops->scratch_floats ? x->ops->scratch_floats(x) : 0;
    fc.backend = FFT_BACKEND_CPU;
    fc.n = x->n;
    fc.max_batch = 1;
    fc.tuning.cpu_threads = 1;
    if (!w || fft_plan_create(&fc, &w->plan, NULL) != SP_OK ||
        (sc && !(w->scratch = malloc(sc * sizeof *w->scratch)))) {
        work_free(w);
        return NULL;
    }
    return w;
}

typedef struct {
    xform *x;
    const float *sig;
    size_t hop, nframes;
    double t0, dt;
    float *out;
    atomic_int failed;
    atomic_size_t next;          /* the first frame no part has taken */
} rows_job;

/* Frames [a, b), a frame at a time, in the part's cache from FFT to row (frame_row). */
static void rows_range(const xform *x, struct xform_work *w, const rows_job *j, size_t a, size_t b)
{
    for (size_t f = a; f < b; f++) {
        /* the next frame's new samples, which the FFT's bit-reversed first pass would
         * otherwise miss one at a time */
        size_t fresh = j->hop < x->n ? j->hop : x->n;
        const char *next = (const char *)(j->sig + (f + 1) * j->hop + x->n - fresh);
        for (size_t i = 0; f + 1 < j->nframes && i < fresh * sizeof(float); i += 64)
            __builtin_prefetch(next + i);
        x->ops->frame_row(x, w->plan, j->sig + f * j->hop, j->t0 + (double)f * j->dt, j->out + f * x->width,
                          w->scratch);
    }
}

/* The parts take ROWS_CHUNK frames at a time, in turn: a part whose thread the machine holds
 * up leaves the frames it has not taken to the others (the rows do not depend on which part
 * makes them). */
static void rows_part(void *ctx, int part, int parts)
{
    rows_job *j = ctx;
    xform *x = j->x;
    (void)parts;
    /* part p's work is only ever touched by the thread running part p of this call */
    if (!x->work[part] && !(x->work[part] = work_make(x))) {
        atomic_store(&j->failed, 1);
        return;
    }
    for (;;) {
        size_t a = atomic_fetch_add(&j->next, ROWS_CHUNK), b = a + ROWS_CHUNK;
        if (a >= j->nframes)
            return;
        rows_range(x, x->work[part], j, a, b < j->nframes ? b : j->nframes);
    }
}

int xform_rows(xform *x, const float *sig, size_t hop, size_t nframes, double t0, double dt, float *out)
{
    if (x->bank && hop == x->plan_hop && nframes > 0) {
        int err = fft_bank_rows(x->plan, x->bank, sig, nframes, out);
        if (err == SP_OK && x->spec.kind == XFORM_REASSIGN) /* the frames' times, as rows_range */
            for (size_t f = 0; f < nframes; f++) {
                const double t = t0 + (double)f * dt;
                for (size_t k = 0; k < x->bins; k++)
                    out[f * x->width + 3 * k + 1] = (float)(t + (double)out[f * x->width + 3 * k + 1]);
            }
        return err;
    }
    if (x->ops->rows)
        return nframes ? x->ops->rows(x, sig, hop, nframes, out) : SP_OK;
    return rows_host(x, sig, hop, nframes, t0, dt, out);
}

int xform_bank_runs(fft_bank *b, size_t rows, void **mem)
{
    uint32_t *a = malloc(3 * rows * sizeof *a);
    memset(b, 0, sizeof *b);
    *mem = a;
    if (!a)
        return SP_ENOMEM;
    b->rows = rows;
    b->k0 = a;
    b->len = a + rows;
    b->off = a + 2 * rows;
    return SP_OK;
}

int xform_use_plan(xform *x, fft_plan *plan, size_t hop, sp_errinfo *ei)
{
    fft_bank b;
    void *mem = NULL;
    int err;
    if (!x->ops->bank || !plan || fft_plan_size(plan) != x->n)
        return 0;
    if ((err = x->ops->bank(x, &b, &mem)) != SP_OK) {
        free(mem);
        return sp_fail(ei, err, "out of memory");
    }
    err = fft_bank_create(plan, &b, &x->bank);
    free(mem);
    if (err == SP_EUNSUPPORTED)
        return 0; /* the host's threads make the rows */
    if (err != SP_OK)
        return sp_fail(ei, err, "%s on the GPU: %s", x->ops->name, fft_plan_last_error(plan));
    x->plan = plan;
    x->plan_hop = hop;
    return 1;
}

int xform_rows_device(xform *x, const float *d_sig, size_t nframes, float *d_out)
{
    if (!x->bank)
        return SP_EUNSUPPORTED;
    return nframes ? fft_bank_rows_device(x->plan, x->bank, d_sig, nframes, d_out) : SP_OK;
}

const char *xform_where(const xform *x)
{
    return x->bank ? "gpu" : "cpu";
}

const char *xform_error(const xform *x)
{
    return x->bank && fft_plan_last_error(x->plan)[0] ? fft_plan_last_error(x->plan) : "out of memory";
}

static int rows_host(xform *x, const float *sig, size_t hop, size_t nframes, double t0, double dt, float *out)
{
    rows_job j = {.x = x, .sig = sig, .hop = hop, .nframes = nframes, .t0 = t0, .dt = dt, .out = out};
    int parts = sp_par_parts(nframes, ROWS_PART_MIN);
    atomic_init(&j.failed, 0);
    atomic_init(&j.next, 0);
    if (nframes == 0)
        return SP_OK;
    sp_par_run(rows_part, &j, parts > XFORM_PARTS_MAX ? XFORM_PARTS_MAX : parts);
    return atomic_load(&j.failed) ? SP_ENOMEM : SP_OK;
}
