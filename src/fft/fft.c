#include "fft.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fft_backend.h"

/* The one list of backends: parsing, --help and plan creation read it. `be` is NULL for
 * auto (chosen at plan creation) and for a backend this build lacks. */
#ifdef SPECTRO_HAVE_CUDA
#define GPU_BACKEND(b) (&(b))
#else
#define GPU_BACKEND(b) NULL
#endif
static const struct {
    const char *name;
    fft_backend_kind kind;
    const fft_backend *be;
    const char *help;
} backends[] = {
    {"auto", FFT_BACKEND_AUTO, NULL, "cuda when a GPU is usable, else cpu"},
    {"cpu", FFT_BACKEND_CPU, &fft_backend_cpu, "radix-2 FFT in C, on every machine"},
    {"cuda", FFT_BACKEND_CUDA, GPU_BACKEND(fft_backend_cuda), "the project's CUDA kernels"},
    {"cufft", FFT_BACKEND_CUFFT, GPU_BACKEND(fft_backend_cufft), "NVIDIA cuFFT, for cross-checks"},
};
#define BACKEND_COUNT ((int)(sizeof backends / sizeof backends[0]))

struct fft_plan {
    const fft_backend *be;
    void *state;
    size_t n, max_batch;
    char fallback[sizeof(sp_errinfo)];
    sp_errinfo err;
    float *reduce_db; /* fft_stft_reduce's spectra when the backend has no reduction and the
                       * caller wants none: max_batch rows, made on first use */
};

fft_config fft_config_default(void)
{
    fft_config c;
    memset(&c, 0, sizeof c);
    c.backend = FFT_BACKEND_AUTO;
    c.n = 4096;
    c.hop = 1024;
    c.window = NULL;
    c.max_batch = 64;
    c.live = 0;
    return c;
}

int fft_is_pow2(size_t n)
{
    return n != 0 && (n & (n - 1)) == 0;
}

float fft_amp_to_db(float a)
{
    /* !(a > floor) also catches NaN */
    if (!(a > 1e-10f))
        return FFT_DB_FLOOR;
    return 20.0f * log10f(a);
}

/* The table of a built backend, NULL for auto and for one this build lacks. */
static const fft_backend *backend_of(fft_backend_kind kind)
{
    for (int i = 0; i < BACKEND_COUNT; i++)
        if (backends[i].kind == kind)
            return backends[i].be;
    return NULL;
}

fft_backend_kind fft_backend_resolve(fft_backend_kind kind)
{
    const fft_backend *gpu = backend_of(FFT_BACKEND_CUDA);
    if (kind != FFT_BACKEND_AUTO)
        return kind;
    if (gpu && gpu->probe(NULL) == SP_OK)
        return FFT_BACKEND_CUDA;
    return FFT_BACKEND_CPU;
}

int fft_backend_count(void)
{
    return BACKEND_COUNT;
}

const char *fft_backend_name(int i)
{
    return i >= 0 && i < BACKEND_COUNT ? backends[i].name : NULL;
}

const char *fft_backend_help(int i)
{
    return i >= 0 && i < BACKEND_COUNT ? backends[i].help : NULL;
}

int fft_backend_parse(const char *text, fft_backend_kind *out)
{
    if (!text || !out)
        return SP_EINVAL;
    for (int i = 0; i < BACKEND_COUNT; i++) {
        if (strcmp(text, backends[i].name) == 0) {
            *out = backends[i].kind;
            return SP_OK;
        }
    }
    return SP_EINVAL;
}

/* The named backend's table, or NULL with why (this build lacks it). */
static const fft_backend *backend_for(fft_backend_kind kind, sp_errinfo *ei, int *err)
{
    for (int i = 0; i < BACKEND_COUNT; i++) {
        if (backends[i].kind != kind || kind == FFT_BACKEND_AUTO)
            continue;
        if (backends[i].be) {
            *err = SP_OK;
            return backends[i].be;
        }
        *err = sp_fail(ei, SP_EUNSUPPORTED,
                       "--backend %s: this build of spectro has no GPU support (built without CUDA)",
                       backends[i].name);
        return NULL;
    }
    *err = sp_fail(ei, SP_EINVAL, "fft_plan_create: unknown backend %d", (int)kind);
    return NULL;
}

int fft_plan_create(const fft_config *cfg, fft_plan **out, sp_errinfo *ei)
{
    fft_plan *p = NULL;
    float *win = NULL;
    double wsum = 0.0;
    int err;

    if (!cfg || !out)
        return sp_fail(ei, SP_EINVAL, "fft_plan_create: NULL argument");
    *out = NULL;
    if (!fft_is_pow2(cfg->n) || cfg->n < FFT_MIN_SIZE || cfg->n > FFT_MAX_SIZE)
        return sp_fail(ei, SP_EINVAL, "--fft-size %zu: must be a power of two from %u to %u", cfg->n,
                       FFT_MIN_SIZE, FFT_MAX_SIZE);
    if (cfg->hop < 1)
        return sp_fail(ei, SP_EINVAL, "--hop %zu: must be at least 1", cfg->hop);
    if (cfg->max_batch < 1)
        return sp_fail(ei, SP_EINVAL, "fft_plan_create: max_batch must be at least 1");

    p = calloc(1, sizeof *p);
    win = malloc(cfg->n * sizeof *win);
    if (!p || !win) {
        err = sp_fail(ei, SP_ENOMEM, "out of memory for an FFT plan of size %zu", cfg->n);
        goto fail;
    }
    for (size_t i = 0; i < cfg->n; i++) {
        win[i] = cfg->window ? cfg->window[i] : 1.0f;
        wsum += win[i];
    }
    p->n = cfg->n;
    p->max_batch = cfg->max_batch;

    if (cfg->backend == FFT_BACKEND_AUTO) {
        const fft_backend *gpu = backend_of(FFT_BACKEND_CUDA);
        sp_errinfo why = {{0}};
        if (!gpu) {
            snprintf(p->fallback, sizeof p->fallback, "this build has no GPU support (built without CUDA)");
        } else if (gpu->probe(&why) == SP_OK && gpu->create(cfg, win, wsum, &p->state, &why) == SP_OK) {
            p->be = gpu;
        } else {
            snprintf(p->fallback, sizeof p->fallback, "%s", why.msg[0] ? why.msg : "no usable CUDA device");
        }
        if (!p->be) {
            p->be = &fft_backend_cpu;
            if ((err = p->be->create(cfg, win, wsum, &p->state, ei)) != SP_OK)
                goto fail;
        }
    } else {
        p->be = backend_for(cfg->backend, ei, &err);
        if (!p->be)
            goto fail;
        if (p->be->probe && (err = p->be->probe(ei)) != SP_OK) {
            if (ei) { /* the line names the option at fault */
                char why[sizeof ei->msg];
                snprintf(why, sizeof why, "%s", ei->msg);
                sp_fail(ei, err, "--backend %s: %s", p->be->name, why);
            }
            goto fail;
        }
        if ((err = p->be->create(cfg, win, wsum, &p->state, ei)) != SP_OK)
            goto fail;
    }
    free(win);
    *out = p;
    return SP_OK;

fail:
    free(win);
    free(p);
    return err;
}

void fft_plan_destroy(fft_plan *p)
{
    if (!p)
        return;
    if (p->be && p->state)
        p->be->destroy(p->state);
    free(p->reduce_db);
    free(p);
}

const char *fft_plan_backend_name(const fft_plan *p)
{
    return p ? p->be->name : "";
}

const char *fft_plan_fallback_reason(const fft_plan *p)
{
    return p ? p->fallback : "";
}

size_t fft_plan_size(const fft_plan *p)
{
    return p ? p->n : 0;
}

size_t fft_plan_max_batch(const fft_plan *p)
{
    return p ? p->max_batch : 0;
}

const char *fft_plan_last_error(const fft_plan *p)
{
    return p ? p->err.msg : "";
}

void *fft_plan_host_alloc(fft_plan *p, size_t bytes)
{
    if (p && p->be->host_alloc)
        return p->be->host_alloc(p->state, bytes);
    return malloc(bytes ? bytes : 1);
}

void fft_plan_host_free(fft_plan *p, void *mem)
{
    if (p && p->be->host_alloc)
        p->be->host_free(p->state, mem);
    else
        free(mem);
}

int fft_c2c(fft_plan *p, const cpx *in, cpx *out, size_t batch, int inverse)
{
    if (!p || !in || !out || batch > p->max_batch)
        return SP_EINVAL;
    if (batch == 0)
        return SP_OK;
    p->err.msg[0] = 0;
    return p->be->c2c(p->state, in, out, batch, inverse, &p->err);
}

int fft_r2c(fft_plan *p, const float *in, cpx *out, size_t batch)
{
    if (!p || !in || !out || batch > p->max_batch)
        return SP_EINVAL;
    if (batch == 0)
        return SP_OK;
    p->err.msg[0] = 0;
    return p->be->r2c(p->state, in, out, batch, &p->err);
}

int fft_stft_db(fft_plan *p, const float *signal, size_t nframes, float *db)
{
    if (!p || !signal || !db || nframes > p->max_batch)
        return SP_EINVAL;
    if (nframes == 0)
        return SP_OK;
    p->err.msg[0] = 0;
    return p->be->stft_db(p->state, signal, nframes, db, &p->err);
}

fft_peak_raw fft_peak_scan(const float *db, size_t kmin, size_t kmax)
{
    fft_peak_raw o;
    size_t b = kmin;
    for (size_t k = kmin + 1; k <= kmax; k++)
        if (db[k] > db[b]) /* the first of equal maxima stays */
            b = k;
    o.bin = (uint32_t)b;
    o.l = db[b - 1];
    o.c = db[b];
    o.r = db[b + 1];
    return o;
}

/* The ranges fit an n-point spectrum's bins 1 .. n/2-1. */
static int peak_req_ok(const fft_peak_req *req, size_t n)
{
    if (req->nranges < 1 || req->nranges > FFT_PEAK_RANGES_MAX)
        return 0;
    for (size_t r = 0; r < req->nranges; r++)
        if (req->kmin[r] < 1 || req->kmin[r] > req->kmax[r] || req->kmax[r] > n / 2 - 1)
            return 0;
    return 1;
}

int fft_stft_reduce(fft_plan *p, const float *signal, size_t nframes, float *db, const fft_peak_req *req,
                    fft_peak_raw *peaks)
{
    const size_t bins = p ? p->n / 2 + 1 : 0;
    int err;
    if (!p || !signal || !req || !peaks || nframes > p->max_batch)
        return SP_EINVAL;
    if (!peak_req_ok(req, p->n))
        return sp_fail(&p->err, SP_EINVAL, "peak search: bins out of 1 .. %zu or more than %d ranges", p->n / 2 - 1,
                       FFT_PEAK_RANGES_MAX);
    if (nframes == 0)
        return SP_OK;
    p->err.msg[0] = 0;
    if (p->be->stft_reduce)
        return p->be->stft_reduce(p->state, signal, nframes, db, req, peaks, &p->err);
    if (!db) {
        if (!p->reduce_db && !(p->reduce_db = malloc(p->max_batch * bins * sizeof *p->reduce_db)))
            return sp_fail(&p->err, SP_ENOMEM, "out of memory for the spectra of %zu frames", p->max_batch);
        db = p->reduce_db;
    }
    if ((err = p->be->stft_db(p->state, signal, nframes, db, &p->err)) != SP_OK)
        return err;
    for (size_t f = 0; f < nframes; f++)
        for (size_t r = 0; r < req->nranges; r++)
            peaks[f * req->nranges + r] = fft_peak_scan(db + f * bins, req->kmin[r], req->kmax[r]);
    return SP_OK;
}
