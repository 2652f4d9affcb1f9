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

/* Frames a part of xform_rows gets at least. */
#define ROWS_PART_MIN 16

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

float xform_db(double p)
{
    return (float)(10.0 * log10(p > XFORM_POWER_FLOOR ? p : XFORM_POWER_FLOOR));
}

void xform_power(const xform *x, const cpx *z, float *p)
{
    for (size_t k = 0; k < x->bins; k++) {
        float re = z[k].re * x->scale[k], im = z[k].im * x->scale[k], q = re * re + im * im;
        p[k] = q > (float)XFORM_POWER_FLOOR ? q : (float)XFORM_POWER_FLOOR; /* the dB floor's power */
    }
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
    if (!(x->scale = malloc(x->bins * sizeof *x->scale)) || !(x->wins[0] = malloc(n * sizeof *x->wins[0])))
        goto fail;
    for (size_t i = 0; i < n; i++) {
        x->wins[0][i] = window[i];
        wsum += window[i];
    }
    for (size_t k = 0; k < x->bins; k++)
        x->scale[k] = fft_level_scale(n, k, wsum);
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

void xform_destroy(xform *x)
{
    if (!x)
        return;
    if (x->ops && x->ops->fini)
        x->ops->fini(x);
    for (int i = 0; i < XFORM_MAX_WINDOWS; i++)
        free(x->wins[i]);
    free(x->scale);
    free(x->freqs);
    free(x->json);
    free(x);
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

int xform_windows(const xform *x)
{
    return x->nwin;
}

const float *xform_window(const xform *x, int i)
{
    return i >= 0 && i < x->nwin ? x->wins[i] : NULL;
}

typedef struct {
    const xform *x;
    const cpx *z;
    size_t nframes;
    double t0, dt;
    float *out;
    atomic_int failed;
} rows_job;

static void rows_part(void *ctx, int part, int parts)
{
    rows_job *j = ctx;
    const xform *x = j->x;
    size_t a, b, sc = x->ops->scratch_floats ? x->ops->scratch_floats(x) : 0;
    float *scratch = sc ? malloc(sc * sizeof *scratch) : NULL;
    sp_par_share(j->nframes, part, parts, &a, &b);
    if (sc && !scratch) {
        atomic_store(&j->failed, 1);
        return;
    }
    for (size_t f = a; f < b; f++) {
        xform_frame fr;
        for (int w = 0; w < x->nwin; w++)
            fr.z[w] = j->z + ((size_t)w * j->nframes + f) * x->bins;
        fr.t = j->t0 + (double)f * j->dt;
        x->ops->row(x, &fr, j->out + f * x->width, scratch);
    }
    free(scratch);
}

int xform_rows(const xform *x, const cpx *z, size_t nframes, double t0, double dt, float *out)
{
    rows_job j = {.x = x, .z = z, .nframes = nframes, .t0 = t0, .dt = dt, .out = out};
    atomic_init(&j.failed, 0);
    if (nframes == 0)
        return SP_OK;
    sp_par_run(rows_part, &j, sp_par_parts(nframes, ROWS_PART_MIN));
    return atomic_load(&j.failed) ? SP_ENOMEM : SP_OK;
}
