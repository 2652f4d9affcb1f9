/* spectro_transform: the engine's transforms (src/xform/, docs/transforms.md) behind the
 * public API; the rows of a whole array come from api_analyzer_transform. */
#include <stdlib.h>
#include <string.h>

#include "api_internal.h"
#include "xform.h"

struct spectro_transform {
    xform *x;
    size_t n;
    int rate;
};

#define TRANSFORM_CONFIG_V2 (offsetof(spectro_transform_config, fmax) + sizeof(double))
#define MFCC_DEFAULT_COEFFICIENTS 20
#define CQT_DEFAULT_BPO 12

spectro_transform_config spectro_transform_config_default(void)
{
    spectro_transform_config c;
    memset(&c, 0, sizeof c);
    c.size = sizeof c;
    c.kind = "mel";
    c.fmin = -1.0;
    return c;
}

static int kind_of(const char *name, xform_kind *out)
{
    static const xform_kind kinds[] = {XFORM_MEL, XFORM_MFCC, XFORM_CHROMA, XFORM_CQT, XFORM_REASSIGN};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (strcmp(name, xform_kind_name(kinds[i])) == 0) {
            *out = kinds[i];
            return 1;
        }
    return 0;
}

int spectro_transform_create(const spectro_analyzer *a, const spectro_transform_config *cfg,
                             spectro_transform **out, spectro_error *err)
{
    spectro_transform_config c = spectro_transform_config_default();
    xform_spec spec = xform_spec_default();
    api_frame_shape sh;
    sp_errinfo ei = {{0}};
    spectro_transform *t;
    int rc;
    if (!a || !out)
        return api_fail(err, SPECTRO_EINVAL, "spectro_transform_create: %s is NULL", !a ? "the analyzer" : "out");
    *out = NULL;
    if (cfg) { /* no member beyond the caller's size is read (docs/api-c.md, ABI policy) */
        if ((rc = api_check_size(cfg->size, TRANSFORM_CONFIG_V2, "spectro_transform_config", err)) != SPECTRO_OK)
            return rc;
        memcpy(&c, cfg, cfg->size < sizeof c ? cfg->size : sizeof c);
    }
    if (!c.kind || !kind_of(c.kind, &spec.kind))
        return api_fail(err, SPECTRO_EINVAL, "kind \"%s\": one of mel, mfcc, chroma, cqt, reassign",
                        c.kind ? c.kind : "(null)");
    spec.bands = c.bands ? c.bands : spec.kind == XFORM_CQT ? CQT_DEFAULT_BPO : 0;
    spec.coeffs = spec.kind == XFORM_MFCC && c.coefficients == 0 ? MFCC_DEFAULT_COEFFICIENTS : c.coefficients;
    spec.fmin = c.fmin;
    spec.fmax = c.fmax;
    if (c.bands < 0 || c.coefficients < 0 || !(c.fmax >= 0))
        return api_fail(err, SPECTRO_EINVAL, "%s: must be at least 0",
                        c.bands < 0 ? "bands" : c.coefficients < 0 ? "coefficients" : "fmax");
    api_analyzer_shape(a, &sh);
    if (!(t = calloc(1, sizeof *t)))
        return api_fail(err, SPECTRO_ENOMEM, "out of memory");
    if ((rc = xform_create(&spec, sh.n, (double)sh.rate, sh.win, &t->x, &ei)) != SP_OK) {
        free(t);
        return api_from_engine(err, rc, &ei);
    }
    t->n = sh.n;
    t->rate = sh.rate;
    *out = t;
    return SPECTRO_OK;
}

void spectro_transform_destroy(spectro_transform *t)
{
    if (!t)
        return;
    xform_destroy(t->x);
    free(t);
}

size_t spectro_transform_columns(const spectro_transform *t)
{
    return t ? xform_width(t->x) / xform_depth(t->x) : 0;
}

size_t spectro_transform_depth(const spectro_transform *t)
{
    return t ? xform_depth(t->x) : 0;
}

double spectro_transform_freq_hz(const spectro_transform *t, size_t i)
{
    return t && i < spectro_transform_columns(t) ? xform_freqs(t->x)[i] : 0.0;
}

int spectro_transform_compute(spectro_transform *t, spectro_analyzer *a, const float *samples, size_t count,
                              float *out, size_t out_frames, spectro_error *err)
{
    api_frame_shape sh;
    if (!t || !a || !samples || !out)
        return api_fail(err, SPECTRO_EINVAL, "%s is NULL",
                        !t ? "the transform" : !a ? "the analyzer" : !samples ? "samples" : "out");
    api_analyzer_shape(a, &sh);
    if (sh.n != t->n || sh.rate != t->rate)
        return api_fail(err, SPECTRO_EINVAL, "the analyzer (fft_size %zu, %d Hz) is not the transform's (%zu, %d Hz)",
                        sh.n, sh.rate, t->n, t->rate);
    return api_analyzer_transform(a, t->x, samples, count, out, out_frames, err);
}
