#include "fft.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fft_backend.h"
#include "fft_cpu_internal.h" /* fft_cpu_frame, fft_cpu_power_db */
#include "fft_gpu_load.h"

/* The one list of backends: parsing, --help and plan creation read it. `get` gives the
 * backend's table (NULL for auto, chosen at plan creation): the GPU rows load it from the
 * GPU module on first use (fft_gpu_load.h), so that CPU runs never touch CUDA; `present`
 * is the check auto makes before that (NULL: always there). */
#ifdef SPECTRO_HAVE_CUDA
#define GPU_BUILT 1
#else
#define GPU_BUILT 0
#endif
#define NO_GPU_BUILD "this build has no GPU support (built without CUDA)"
typedef const fft_backend *(*backend_get)(const fft_tuning *t, sp_errinfo *ei);
static const fft_backend *get_cpu(const fft_tuning *t, sp_errinfo *ei);
static const fft_backend *get_cuda(const fft_tuning *t, sp_errinfo *ei);
static const fft_backend *get_cufft(const fft_tuning *t, sp_errinfo *ei);
static const struct {
    const char *name;
    fft_backend_kind kind;
    backend_get get;
    int built;                             /* this build has it */
    int (*present)(char *why, size_t len); /* milliseconds, no CUDA call (fft_choose.c) */
    const char *help;
} backends[] = {
    {.name = "auto", .kind = FFT_BACKEND_AUTO, .get = NULL, .built = 1, .present = NULL,
     .help = "cpu, or cuda when a GPU exists and the job pays for its start"},
    {.name = "cpu", .kind = FFT_BACKEND_CPU, .get = get_cpu, .built = 1, .present = NULL,
     .help = "radix-2 FFT in C, on every machine"},
    {.name = "cuda", .kind = FFT_BACKEND_CUDA, .get = get_cuda, .built = GPU_BUILT,
     .present = fft_gpu_present, .help = "the project's CUDA kernels"},
    {.name = "cufft", .kind = FFT_BACKEND_CUFFT, .get = get_cufft, .built = GPU_BUILT,
     .present = fft_gpu_present, .help = "NVIDIA cuFFT, for cross-checks"},
};
#define BACKEND_COUNT ((int)(sizeof backends / sizeof backends[0]))

#define CPU_THREADS_DEFAULT_MAX 8 /* as fft_cpu.c's thread_count: min(online CPUs, 8) */
#define CPU_POOL_MIN_POINTS 65536 /* fft_cpu.c: calls of fewer frames x n run on one thread */

struct fft_plan {
    const fft_backend *be;
    void *state;
    size_t n, max_batch;
    char fallback[sizeof(sp_errinfo)];
    fft_choice choice;
    sp_errinfo err;
    float *reduce_db; /* fft_stft_reduce's spectra when the backend has no reduction and the
                       * caller wants none: max_batch rows, made on first use */
    /* frames with huge samples, on a GPU backend: the CPU backend's, made on first use (see
     * split_huge); its config and window are kept for that */
    fft_config cfg;
    float *win;
    double wsum;
    void *huge_state;
    unsigned char *huge; /* max_batch flags: the frame holds a huge sample */
    int pending;         /* fft_stft_reduce_start begun in the backend, not yet waited for */
    int unit_bound;      /* fft_plan_set_unit_bound: no sample above 1, none to scan for */
};

/* Above this a sample may overflow a GPU backend's float FFT: X reaches n * 2^100 <= 2^122 for
 * n <= 2^22, and the kernels square |X| in a form that stays finite below 2^127 (tests). */
#define FFT_HUGE_SAMPLE 0x1p100f

fft_config fft_config_default(void)
{
    fft_config c;
    memset(&c, 0, sizeof c);
    c.backend = FFT_BACKEND_AUTO;
    c.n = FFT_DEFAULT_SIZE;
    c.hop = fft_default_hop(c.n);
    c.window = NULL;
    c.max_batch = 64;
    c.live = 0;
    return c;
}

int fft_is_pow2(size_t n)
{
    return n != 0 && (n & (n - 1)) == 0;
}

int fft_size_valid(size_t n)
{
    return fft_is_pow2(n) && n >= FFT_MIN_SIZE && n <= FFT_MAX_SIZE;
}

size_t fft_default_hop(size_t n)
{
    return n / 4;
}

float fft_amp_to_db(float a)
{
    /* !(a > floor) also catches NaN */
    if (!(a > 1e-10f))
        return FFT_DB_FLOOR;
    return 20.0f * log10f(a);
}

/* The table's row of a kind, -1 for none. */
static int row_of(fft_backend_kind kind)
{
    for (int i = 0; i < BACKEND_COUNT; i++)
        if (backends[i].kind == kind)
            return i;
    return -1;
}

static const fft_backend *get_cpu(const fft_tuning *t, sp_errinfo *ei)
{
    (void)t;
    (void)ei;
    return &fft_backend_cpu;
}

/* A GPU backend from the module; NULL with why (not built, not installed, not loadable). */
static const fft_backend *get_gpu(const fft_tuning *t, int cufft, sp_errinfo *ei)
{
    const fft_backend *cuda = NULL, *cufft_be = NULL;
    if (!GPU_BUILT) {
        sp_fail(ei, SP_EUNSUPPORTED, NO_GPU_BUILD);
        return NULL;
    }
    if (fft_gpu_backends(t ? t->gpu_module : NULL, &cuda, &cufft_be, ei) != SP_OK)
        return NULL;
    return cufft ? cufft_be : cuda;
}

static const fft_backend *get_cuda(const fft_tuning *t, sp_errinfo *ei)
{
    return get_gpu(t, 0, ei);
}

static const fft_backend *get_cufft(const fft_tuning *t, sp_errinfo *ei)
{
    return get_gpu(t, 1, ei);
}

/* Whether the GPU backend can be tried here, from the build and the device nodes (or the
 * tuning's pretence), without a call into it; when not, why into why[len]. */
static int gpu_device(const fft_tuning *t, char *why, size_t len)
{
    int i = row_of(FFT_BACKEND_CUDA);
    if (t && t->auto_device == FFT_AUTO_DEVICE_PRESENT)
        return 1;
    if (t && t->auto_device == FFT_AUTO_DEVICE_NONE) {
        snprintf(why, len, "no GPU device (the tuning says none)");
        return 0;
    }
    if (i < 0 || !backends[i].built) {
        snprintf(why, len, NO_GPU_BUILD);
        return 0;
    }
    return !backends[i].present || backends[i].present(why, len);
}

fft_backend_kind fft_backend_resolve(fft_backend_kind kind)
{
    char why[96];
    if (kind != FFT_BACKEND_AUTO)
        return kind;
    return gpu_device(NULL, why, sizeof why) ? FFT_BACKEND_CUDA : FFT_BACKEND_CPU;
}

/* The cpu backend's threads for this config, as fft_cpu.c counts them. */
static int cpu_threads_for(const fft_config *cfg)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    size_t t = cpus < 1 ? 1 : (size_t)cpus;
    if (t > CPU_THREADS_DEFAULT_MAX)
        t = CPU_THREADS_DEFAULT_MAX;
    if (cfg->tuning.cpu_threads > 0)
        t = (size_t)cfg->tuning.cpu_threads;
    if (t > cfg->max_batch)
        t = cfg->max_batch;
    if (cfg->max_batch * cfg->n < CPU_POOL_MIN_POINTS)
        t = 1; /* even a full call runs on the caller alone */
    return t < 1 ? 1 : (int)t;
}

int fft_config_choose(const fft_config *cfg, fft_choice *out)
{
    fft_rates rates = fft_rates_default();
    fft_job job;
    if (!cfg || !out)
        return SP_EINVAL;
    if (cfg->backend != FFT_BACKEND_AUTO) {
        memset(out, 0, sizeof *out);
        out->kind = cfg->backend;
        return SP_OK;
    }
    job = cfg->job;
    job.n = cfg->n;
    job.hop = cfg->hop;
    job.live = cfg->live;
    if (cfg->tuning.auto_cpu_core > 0)
        rates.cpu_core = cfg->tuning.auto_cpu_core;
    if (cfg->tuning.auto_gpu_start > 0)
        rates.gpu_start = cfg->tuning.auto_gpu_start;
    if (cfg->tuning.auto_gpu > 0)
        rates.gpu = cfg->tuning.auto_gpu;
    if (cfg->tuning.auto_host > 0)
        rates.host = cfg->tuning.auto_host;
    rates.cpu_threads = cpu_threads_for(cfg);
    rates.device = gpu_device(&cfg->tuning, rates.no_device, sizeof rates.no_device);
    return fft_backend_choose(&job, &rates, out);
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

/* The named backend's table, or NULL with why (this build lacks it, or its module is
 * missing), the line naming the option. */
static const fft_backend *backend_for(const fft_config *cfg, sp_errinfo *ei, int *err)
{
    for (int i = 0; i < BACKEND_COUNT; i++) {
        sp_errinfo why = {{0}};
        const fft_backend *be;
        if (backends[i].kind != cfg->backend || cfg->backend == FFT_BACKEND_AUTO)
            continue;
        if ((be = backends[i].get(&cfg->tuning, &why)) != NULL) {
            *err = SP_OK;
            return be;
        }
        *err = sp_fail(ei, SP_EUNSUPPORTED, SP_FIELD("backend") " %s: %s", backends[i].name,
                       strcmp(why.msg, NO_GPU_BUILD) == 0 ? "this build of spectro has no GPU support (built without CUDA)"
                                                          : why.msg);
        return NULL;
    }
    *err = sp_fail(ei, SP_EINVAL, "fft_plan_create: unknown backend %d", (int)cfg->backend);
    return NULL;
}

/* auto: the choice (the caller's, else made here; no CUDA call), then the GPU if it won
 * and starts, else the cpu. A GPU that was chosen but does not start, or that is missing,
 * leaves p->fallback saying why; one that lost to the cpu leaves it empty (the choice says
 * so). */
static int plan_auto(fft_plan *p, const fft_config *cfg, const fft_choice *choice, const float *win, double wsum,
                     sp_errinfo *ei)
{
    if (choice)
        p->choice = *choice;
    else
        fft_config_choose(cfg, &p->choice);
    if (p->choice.kind == FFT_BACKEND_CUDA) {
        sp_errinfo why = {{0}};
        const fft_backend *gpu = get_cuda(&cfg->tuning, &why);
        if (!gpu)
            snprintf(p->fallback, sizeof p->fallback, "%s", why.msg);
        else if (gpu->probe(&why) == SP_OK && gpu->create(cfg, win, wsum, &p->state, &why) == SP_OK)
            p->be = gpu;
        else
            snprintf(p->fallback, sizeof p->fallback, "%s", why.msg[0] ? why.msg : "no usable CUDA device");
    } else if (!p->choice.device) {
        snprintf(p->fallback, sizeof p->fallback, "%s", p->choice.no_device);
    }
    if (p->be)
        return SP_OK;
    p->be = &fft_backend_cpu;
    return p->be->create(cfg, win, wsum, &p->state, ei);
}

int fft_plan_create(const fft_config *cfg, fft_plan **out, sp_errinfo *ei)
{
    return fft_plan_create_chosen(cfg, NULL, out, ei);
}

int fft_plan_create_chosen(const fft_config *cfg, const fft_choice *choice, fft_plan **out, sp_errinfo *ei)
{
    fft_plan *p = NULL;
    float *win = NULL;
    double wsum = 0.0;
    int err;

    if (!cfg || !out)
        return sp_fail(ei, SP_EINVAL, "fft_plan_create: NULL argument");
    *out = NULL;
    if (!fft_size_valid(cfg->n))
        return sp_fail(ei, SP_EINVAL, SP_FIELD("fft_size") " %zu: must be a power of two from %u to %u", cfg->n,
                       FFT_MIN_SIZE, FFT_MAX_SIZE);
    if (cfg->hop < 1)
        return sp_fail(ei, SP_EINVAL, SP_FIELD("hop") " %zu: must be at least 1", cfg->hop);
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
        if ((err = plan_auto(p, cfg, choice, win, wsum, ei)) != SP_OK)
            goto fail;
    } else {
        p->be = backend_for(cfg, ei, &err);
        if (!p->be)
            goto fail;
        if (p->be->probe && (err = p->be->probe(ei)) != SP_OK) {
            if (ei) { /* the line names the option at fault */
                char why[sizeof ei->msg];
                snprintf(why, sizeof why, "%s", ei->msg);
                sp_fail(ei, err, SP_FIELD("backend") " %s: %s", p->be->name, why);
            }
            goto fail;
        }
        if ((err = p->be->create(cfg, win, wsum, &p->state, ei)) != SP_OK)
            goto fail;
    }
    p->cfg = *cfg;
    p->cfg.window = win;
    p->win = win; /* the CPU backend's for frames with huge samples (split_huge) */
    p->wsum = wsum;
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
    if (p->huge_state)
        fft_backend_cpu.destroy(p->huge_state);
    free(p->huge);
    free(p->win);
    free(p->reduce_db);
    free(p);
}

void fft_plan_destroy_last(fft_plan *p)
{
    const fft_backend *be = p ? p->be : NULL;
    fft_plan_destroy(p);
    if (be && be->release)
        be->release();
}

const char *fft_plan_backend_name(const fft_plan *p)
{
    return p ? p->be->name : "";
}

const char *fft_plan_fallback_reason(const fft_plan *p)
{
    return p ? p->fallback : "";
}

const fft_choice *fft_plan_choice(const fft_plan *p)
{
    static const fft_choice none;
    return p ? &p->choice : &none;
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

int fft_r2c_split(fft_plan *p, const float *frame, const float *window, float *re, float *im)
{
    if (!p || !frame || !re || !im)
        return SP_EINVAL;
    if (p->be != &fft_backend_cpu)
        return SP_EUNSUPPORTED;
    fft_cpu_frame(p->state, frame, window, NULL, re, im);
    return SP_OK;
}

int fft_r2c_power(fft_plan *p, const float *frame, const float *window, const float *scale2, float *pw)
{
    if (!p || !frame || !scale2 || !pw)
        return SP_EINVAL;
    if (p->be != &fft_backend_cpu)
        return SP_EUNSUPPORTED;
    fft_cpu_frame(p->state, frame, window, scale2, pw, NULL);
    return SP_OK;
}

int fft_power_db(fft_plan *p, float *v, size_t count)
{
    if (!p || (!v && count))
        return SP_EINVAL;
    if (p->be != &fft_backend_cpu)
        return SP_EUNSUPPORTED;
    fft_cpu_power_db(p->state, v, count);
    return SP_OK;
}

static void host_colmax(const float *db, size_t nframes, size_t bins, const fft_peak_req *req);

/* One backend call: the short-time levels (req NULL) or with the peak search. */
static int stft_call(fft_plan *p, const fft_backend *be, void *state, const float *signal, size_t nframes,
                     float *db, const fft_peak_req *req, fft_peak_raw *peaks)
{
    if (req)
        return be->stft_reduce(state, signal, nframes, db, req, peaks, &p->err);
    return be->stft_db(state, signal, nframes, db, &p->err);
}

/* A GPU backend's float FFT overflows for finite samples near the top of float's range
 * (1e36 at n = 4096: X = inf, then NaN): frames that hold a sample above FFT_HUGE_SAMPLE go
 * to the CPU backend, which handles any finite input (fft_cpu.c, "huge samples"), so the
 * backends agree there too. The scan costs a pass over the batch's samples, a few percent of
 * its FFT; the CPU state is made when the first such frame comes. */
static int any_huge(const float *x, size_t len)
{
    int any = 0;
    for (size_t i = 0; i < len; i++)
        any |= !(fabsf(x[i]) <= FFT_HUGE_SAMPLE); /* NaN too: the CPU's floor, as elsewhere */
    return any;
}

static int split_huge(fft_plan *p, const float *signal, size_t nframes, float *db, const fft_peak_req *req,
                      fft_peak_raw *peaks)
{
    const size_t n = p->n, hop = p->cfg.hop, bins = n / 2 + 1, len = (nframes - 1) * hop + n;
    const size_t stride = req ? req->nranges : 0;
    int err;
    if (p->be == &fft_backend_cpu)
        return stft_call(p, p->be, p->state, signal, nframes, db, req, peaks);
    if (p->unit_bound || !any_huge(signal, len))
        return stft_call(p, p->be, p->state, signal, nframes, db, req, peaks);
    if (req && req->span) { /* the CPU backend makes no maxima: the spectra, reduced here */
        fft_peak_req peaks_only = *req;
        float *spec = db;
        peaks_only.span = 0;
        peaks_only.colmax = NULL;
        if (!spec && !(spec = p->reduce_db) && !(spec = p->reduce_db = malloc(p->max_batch * bins * sizeof *spec)))
            return sp_fail(&p->err, SP_ENOMEM, "out of memory for the spectra of %zu frames", p->max_batch);
        if ((err = split_huge(p, signal, nframes, spec, req->nranges ? &peaks_only : NULL, peaks)) != SP_OK)
            return err;
        host_colmax(spec, nframes, bins, req);
        return SP_OK;
    }
    if (!p->huge && !(p->huge = malloc(p->max_batch)))
        return sp_fail(&p->err, SP_ENOMEM, "out of memory");
    if (!p->huge_state && (err = fft_backend_cpu.create(&p->cfg, p->win, p->wsum, &p->huge_state, &p->err)) != SP_OK)
        return err;
    for (size_t f = 0; f < nframes; f++) {
        const float *x = signal + f * hop;
        int h = 0;
        for (size_t i = 0; i < n; i++)
            h |= !(fabsf(x[i]) <= FFT_HUGE_SAMPLE);
        p->huge[f] = (unsigned char)h;
    }
    for (size_t f0 = 0, f1; f0 < nframes; f0 = f1) { /* runs of frames of one kind */
        for (f1 = f0 + 1; f1 < nframes && p->huge[f1] == p->huge[f0]; f1++)
            ;
        const fft_backend *be = p->huge[f0] ? &fft_backend_cpu : p->be;
        void *state = p->huge[f0] ? p->huge_state : p->state;
        if ((err = stft_call(p, be, state, signal + f0 * hop, f1 - f0, db ? db + f0 * bins : NULL, req,
                             peaks ? peaks + f0 * stride : NULL)) != SP_OK)
            return err;
    }
    return SP_OK;
}

int fft_stft_db(fft_plan *p, const float *signal, size_t nframes, float *db)
{
    if (!p || !signal || !db || nframes > p->max_batch)
        return SP_EINVAL;
    if (nframes == 0)
        return SP_OK;
    p->err.msg[0] = 0;
    return split_huge(p, signal, nframes, db, NULL, NULL);
}

int fft_stft_db_device(fft_plan *p, const float *d_signal, size_t clips, size_t clip_stride, size_t nframes,
                       float *d_db)
{
    if (!p || !d_signal || !d_db)
        return SP_EINVAL;
    p->err.msg[0] = 0;
    if (!p->be->stft_db_device)
        return sp_fail(&p->err, SP_EUNSUPPORTED, "the %s backend takes host memory only", p->be->name);
    if (p->pending)
        return sp_fail(&p->err, SP_EINVAL, "a call is pending (fft_stft_reduce_wait first)");
    return p->be->stft_db_device(p->state, d_signal, clips, clip_stride, nframes, d_db, &p->err);
}

int fft_stft_db_device_async(fft_plan *p, const float *d_signal, size_t clips, size_t clip_stride, size_t nframes,
                             float *d_db, void *stream)
{
    if (!p || !d_signal || !d_db)
        return SP_EINVAL;
    p->err.msg[0] = 0;
    if (!p->be->stft_db_device_async)
        return sp_fail(&p->err, SP_EUNSUPPORTED, "the %s backend takes host memory only", p->be->name);
    if (p->pending)
        return sp_fail(&p->err, SP_EINVAL, "a call is pending (fft_stft_reduce_wait first)");
    return p->be->stft_db_device_async(p->state, d_signal, clips, clip_stride, nframes, d_db, stream, &p->err);
}

int fft_bank_create(fft_plan *p, const fft_bank *b, fft_bank_handle **out)
{
    void *h = NULL;
    int err;
    if (!p || !b || !out)
        return SP_EINVAL;
    *out = NULL;
    p->err.msg[0] = 0;
    if (!p->be->bank_create)
        return sp_fail(&p->err, SP_EUNSUPPORTED, "the %s backend has no filter banks", p->be->name);
    if (p->pending)
        return sp_fail(&p->err, SP_EINVAL, "a call is pending (fft_stft_reduce_wait first)");
    for (size_t r = 0; r < b->rows; r++)
        if ((b->post != FFT_BANK_CQT_OCT && (size_t)b->k0[r] + b->len[r] > p->n / 2 + 1) ||
            (size_t)b->off[r] + b->len[r] > b->nw ||
            (b->post == FFT_BANK_CQT_OCT && (!b->level || b->level[r] > b->stages || (b->stages && !b->hb))))
            return sp_fail(&p->err, SP_EINVAL, "filter bank row %zu leaves the spectrum", r);
    if (b->post == FFT_BANK_REASSIGN) {
        if (b->rows != 0 || !b->window || !(b->rate > 0.0))
            return sp_fail(&p->err, SP_EINVAL, "reassignment bank: no rows, three windows and the rate");
    } else if (b->rows == 0 || (b->post == FFT_BANK_DB_DCT && (!b->dct || b->coeffs < 1 || b->coeffs > b->rows))) {
        return sp_fail(&p->err, SP_EINVAL, "filter bank: %zu rows, %zu coefficients", b->rows, b->coeffs);
    }
    if ((err = p->be->bank_create(p->state, b, &h, &p->err)) == SP_OK)
        *out = (fft_bank_handle *)h;
    return err;
}

void fft_bank_destroy(fft_plan *p, fft_bank_handle *h)
{
    if (p && h)
        p->be->bank_destroy(p->state, h);
}

int fft_bank_rows(fft_plan *p, fft_bank_handle *h, const float *signal, size_t nframes, float *rows)
{
    if (!p || !h || !signal || !rows)
        return SP_EINVAL;
    p->err.msg[0] = 0;
    if (p->pending)
        return sp_fail(&p->err, SP_EINVAL, "a call is pending (fft_stft_reduce_wait first)");
    return p->be->bank_rows(p->state, h, signal, nframes, rows, &p->err);
}

int fft_bank_rows_device(fft_plan *p, fft_bank_handle *h, const float *d_signal, size_t nframes, float *d_rows)
{
    if (!p || !h || !d_signal || !d_rows)
        return SP_EINVAL;
    p->err.msg[0] = 0;
    if (p->pending)
        return sp_fail(&p->err, SP_EINVAL, "a call is pending (fft_stft_reduce_wait first)");
    return p->be->bank_rows_device(p->state, h, d_signal, nframes, d_rows, &p->err);
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

/* The ranges fit an n-point spectrum's bins 1 .. n/2-1; something is asked for. */
static int peak_req_ok(const fft_peak_req *req, size_t n)
{
    if (req->nranges > FFT_PEAK_RANGES_MAX || (req->nranges == 0 && req->span == 0) || (req->span && !req->colmax))
        return 0;
    for (size_t r = 0; r < req->nranges; r++)
        if (req->kmin[r] < 1 || req->kmin[r] > req->kmax[r] || req->kmax[r] > n / 2 - 1)
            return 0;
    return 1;
}

size_t fft_colmax_rows(uint64_t span, uint64_t first, size_t nframes)
{
    if (!span || !nframes)
        return 0;
    return (size_t)((first + nframes - 1) / span - first / span + 1);
}

void fft_plan_set_unit_bound(fft_plan *p, int yes)
{
    if (p)
        p->unit_bound = yes != 0;
}

int fft_plan_reduces_columns(const fft_plan *p)
{
    return p && p->be->reduces_columns;
}

/* req's column maxima from nframes spectra on the calling thread (fft_peak_req). */
static void host_colmax(const float *db, size_t nframes, size_t bins, const fft_peak_req *req)
{
    const uint64_t g0 = req->first / req->span;
    for (size_t f = 0; f < nframes; f++) {
        const float *restrict s = db + f * bins;
        uint64_t g = (req->first + f) / req->span;
        float *restrict o = req->colmax + (size_t)(g - g0) * bins;
        if (f == 0 || (req->first + f) % req->span == 0)
            memcpy(o, s, bins * sizeof *o);
        else
            for (size_t k = 0; k < bins; k++)
                o[k] = s[k] > o[k] ? s[k] : o[k];
    }
}

int fft_plan_overlaps(const fft_plan *p)
{
    /* a live run wants each batch now (its plan runs one sub-batch, as a graph, whole) */
    return p && !p->cfg.live && p->be->stft_reduce_start && p->be->stft_reduce_wait && p->be->reduces_columns;
}

int fft_stft_reduce_start(fft_plan *p, const float *signal, size_t nframes, float *db, const fft_peak_req *req,
                          fft_peak_raw *peaks)
{
    int err;
    if (!p || !signal || !req || (req->nranges && !peaks) || nframes > p->max_batch || p->pending)
        return SP_EINVAL;
    /* all of it beside the FFT, and no sample the CPU backend must take (split_huge) */
    if (!fft_plan_overlaps(p) || nframes == 0 || !peak_req_ok(req, p->n) ||
        (!p->unit_bound && any_huge(signal, (nframes - 1) * p->cfg.hop + p->n)))
        return fft_stft_reduce(p, signal, nframes, db, req, peaks);
    p->err.msg[0] = 0;
    if ((err = p->be->stft_reduce_start(p->state, signal, nframes, db, req, peaks, &p->err)) == SP_OK)
        p->pending = 1;
    return err;
}

int fft_stft_reduce_wait(fft_plan *p)
{
    if (!p || !p->pending)
        return SP_OK;
    p->pending = 0;
    return p->be->stft_reduce_wait(p->state, &p->err);
}

int fft_stft_reduce(fft_plan *p, const float *signal, size_t nframes, float *db, const fft_peak_req *req,
                    fft_peak_raw *peaks)
{
    const size_t bins = p ? p->n / 2 + 1 : 0;
    int err;
    if (!p || !signal || !req || (req->nranges && !peaks) || nframes > p->max_batch || p->pending)
        return SP_EINVAL;
    if (!peak_req_ok(req, p->n))
        return sp_fail(&p->err, SP_EINVAL, "reduction: peak bins out of 1 .. %zu, more than %d ranges, or nothing asked",
                       p->n / 2 - 1, FFT_PEAK_RANGES_MAX);
    if (nframes == 0)
        return SP_OK;
    p->err.msg[0] = 0;
    if (p->be->stft_reduce && (!req->span || p->be->reduces_columns))
        return split_huge(p, signal, nframes, db, req, peaks); /* all of it beside the FFT */
    if (!db) {
        if (!p->reduce_db && !(p->reduce_db = malloc(p->max_batch * bins * sizeof *p->reduce_db)))
            return sp_fail(&p->err, SP_ENOMEM, "out of memory for the spectra of %zu frames", p->max_batch);
        db = p->reduce_db;
    }
    fft_peak_req peaks_only = *req; /* the spectra come back; the maxima are made here */
    peaks_only.span = 0;
    peaks_only.colmax = NULL;
    if (p->be->stft_reduce && req->nranges)
        err = split_huge(p, signal, nframes, db, &peaks_only, peaks);
    else
        err = split_huge(p, signal, nframes, db, NULL, NULL);
    if (err != SP_OK)
        return err;
    if (!p->be->stft_reduce)
        for (size_t f = 0; f < nframes; f++)
            for (size_t r = 0; r < req->nranges; r++)
                peaks[f * req->nranges + r] = fft_peak_scan(db + f * bins, req->kmin[r], req->kmax[r]);
    if (req->span)
        host_colmax(db, nframes, bins, req);
    return SP_OK;
}
