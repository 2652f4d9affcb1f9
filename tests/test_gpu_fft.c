/* test_gpu_fft: the GPU backends (cuda: the project's kernels, cufft: cuFFT) against a
 * double-precision brute-force DFT, against each other and against the CPU backend.
 *
 * The cuda backend is checked on its paths (fft_config.tuning.cuda_path: fused, the default,
 * perlevel, and from 2^15 points, where its kernels differ, portable: the fused kernels
 * without the sm_90 ones, as a build for older GPUs runs them): make_plan() gives its plans
 * the path of the last set_path().
 *
 * The peak reduction and column maxima (fft_stft_reduce): test_gpu_reduce.c.
 *
 * Fresh random inputs every run (the seed is printed; SPECTRO_TEST_SEED=... repeats one),
 * outputs poisoned with NaN before each call. Exits 77 when no CUDA device is usable.
 * SPECTRO_GPU_TEST_QUICK=1 runs smaller sizes (for compute-sanitizer). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "gpu_test.h"
#include "fft.h"
#include "fft_backend.h"
#include "fft_gpu.h"
#include "stft.h"
#include "test_util.h"
#include "window.h"

static int quick;

static void fill_cpx(cpx *x, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        x[i].re = (float)rng_signed();
        x[i].im = (float)rng_signed();
    }
}

static void fill_real(float *x, size_t count)
{
    for (size_t i = 0; i < count; i++)
        x[i] = (float)rng_signed();
}

static int all_finite(const float *x, size_t floats)
{
    for (size_t i = 0; i < floats; i++)
        if (!isfinite(x[i]))
            return 0;
    return 1;
}

/* Relative L2 error, accumulated in double. */
typedef struct {
    double err2, ref2;
} l2acc;

static void l2_add(l2acc *a, double gr, double gi, double rr, double ri)
{
    a->err2 += (gr - rr) * (gr - rr) + (gi - ri) * (gi - ri);
    a->ref2 += rr * rr + ri * ri;
}

static double l2_rel(const l2acc *a)
{
    if (isnan(a->err2))
        return INFINITY;
    return a->ref2 > 0 ? sqrt(a->err2 / a->ref2) : sqrt(a->err2);
}

static double rel_l2_cpx(const cpx *got, const cpx *ref, size_t count)
{
    l2acc a = {0, 0};
    for (size_t i = 0; i < count; i++)
        l2_add(&a, got[i].re, got[i].im, ref[i].re, ref[i].im);
    return l2_rel(&a);
}

/* test_util's DFT reference, its table taken as xmalloc takes memory: the run stops
 * without it. */
static tu_dcpx *dft_table(size_t n)
{
    tu_dcpx *t = tu_dft_table(n);
    if (!t) {
        fprintf(stderr, "test_gpu_fft: out of host memory (a DFT table of %zu points)\n", n);
        exit(1);
    }
    return t;
}

/* Brute-force DFT bin k of one complex frame, in double. */
static void dft_bin(const cpx *x, size_t n, size_t k, int inverse, const tu_dcpx *tab, double *re, double *im)
{
    tu_dcpx r = tu_dft_bin(&x[0].re, &x[0].im, 2, n, k, tab, inverse);
    *re = r.re;
    *im = r.im;
}

/* Bins checked for frame size n: all up to 1024, else 0, 1, n/2, n-1 and 44 random ones. */
static size_t pick_bins(size_t n, size_t limit, size_t *bins)
{
    size_t c = 0;
    if (limit <= 1024) {
        for (size_t k = 0; k < limit; k++)
            bins[c++] = k;
        return c;
    }
    bins[c++] = 0;
    bins[c++] = 1;
    bins[c++] = n / 2 < limit ? n / 2 : limit - 1;
    bins[c++] = limit - 1;
    while (c < 48)
        bins[c++] = (size_t)((rng_signed() + 1.0) * 0.5 * (double)limit) % limit;
    return c;
}

/* Frames checked against the DFT: all of a small batch, else first, last and 4 random. */
static size_t pick_frames(size_t batch, size_t *frames)
{
    size_t c = 0;
    if (batch <= 8) {
        for (size_t f = 0; f < batch; f++)
            frames[c++] = f;
        return c;
    }
    frames[c++] = 0;
    frames[c++] = batch - 1;
    while (c < 6)
        frames[c++] = (size_t)((rng_signed() + 1.0) * 0.5 * (double)batch) % batch;
    return c;
}

/* c2c forward against the DFT, inverse(forward) against x, in == out. Returns the forward
 * output (caller frees) for the cross-backend comparison. */
static cpx *check_c2c(fft_backend_kind kind, size_t n, size_t batch, size_t max_batch,
                      const cpx *x, const tu_dcpx *tab)
{
    fft_plan *p = make_plan(kind, n, n, NULL, max_batch);
    cpx *y = xmalloc(n * batch * sizeof *y);
    cpx *z = xmalloc(n * batch * sizeof *z);
    size_t *bins = xmalloc((n < 1024 ? n : 1024) * sizeof *bins);
    size_t frames[8];
    tu_poison((float *)y, 2 * n * batch);
    if (!p) {
        free(z);
        free(bins);
        return y;
    }
    CHECK(strncmp(kind_name(kind), fft_plan_backend_name(p), strlen(fft_plan_backend_name(p))) == 0);
    int err = fft_c2c(p, x, y, batch, 0);
    CHECK_MSG(err == SP_OK, "%s c2c n=%zu batch=%zu: %s", kind_name(kind), n, batch,
              fft_plan_last_error(p));
    CHECK_MSG(all_finite((const float *)y, 2 * n * batch), "%s c2c n=%zu batch=%zu: output not all written",
              kind_name(kind), n, batch);

    /* forward vs DFT */
    l2acc fwd = {0, 0};
    size_t nf = pick_frames(batch, frames);
    for (size_t a = 0; a < nf; a++) {
        size_t f = frames[a];
        size_t nb = pick_bins(n, n, bins);
        for (size_t b = 0; b < nb; b++) {
            double rr, ri;
            dft_bin(x + f * n, n, bins[b], 0, tab, &rr, &ri);
            l2_add(&fwd, y[f * n + bins[b]].re, y[f * n + bins[b]].im, rr, ri);
        }
    }
    double e = l2_rel(&fwd);
    CHECK_MSG(e < 1e-5, "%s c2c forward n=%zu batch=%zu: rel L2 vs DFT %.3g", kind_name(kind), n,
              batch, e);

    /* inverse vs DFT (a few bins) and inverse(forward(x)) == x */
    tu_poison((float *)z, 2 * n * batch);
    err = fft_c2c(p, y, z, batch, 1);
    CHECK_MSG(err == SP_OK, "%s inverse: %s", kind_name(kind), fft_plan_last_error(p));
    e = rel_l2_cpx(z, x, n * batch);
    CHECK_MSG(e < 1e-5, "%s inverse(forward(x)) n=%zu batch=%zu: rel L2 %.3g", kind_name(kind), n,
              batch, e);
    /* inverse of x itself against the inverse DFT (frame 0, a few bins) */
    tu_poison((float *)z, 2 * n * batch);
    CHECK(fft_c2c(p, x, z, batch, 1) == SP_OK);
    l2acc inv = {0, 0};
    for (int b = 0; b < 8; b++) {
        size_t k = b == 0 ? 0 : (size_t)((rng_signed() + 1.0) * 0.5 * (double)n) % n;
        double rr, ri;
        dft_bin(x, n, k, 1, tab, &rr, &ri);
        l2_add(&inv, z[k].re, z[k].im, rr, ri);
    }
    e = l2_rel(&inv);
    CHECK_MSG(e < 1e-5, "%s c2c inverse n=%zu batch=%zu: rel L2 vs inverse DFT %.3g", kind_name(kind),
              n, batch, e);

    /* in == out: forward in place must equal the out-of-place result */
    memcpy(z, x, n * batch * sizeof *z);
    err = fft_c2c(p, z, z, batch, 0);
    CHECK(err == SP_OK);
    e = rel_l2_cpx(z, y, n * batch);
    CHECK_MSG(e < 1e-6, "%s c2c in place n=%zu batch=%zu differs: %.3g", kind_name(kind), n, batch, e);

    fft_plan_destroy(p);
    free(z);
    free(bins);
    return y;
}

/* r2c against the DFT of the real frames (bins 0..n/2). */
static cpx *check_r2c(fft_backend_kind kind, size_t n, size_t batch, size_t max_batch,
                      const float *xr, const tu_dcpx *tab)
{
    size_t nb = n / 2 + 1;
    fft_plan *p = make_plan(kind, n, n, NULL, max_batch);
    cpx *y = xmalloc(nb * batch * sizeof *y);
    cpx *frame = xmalloc(n * sizeof *frame);
    size_t *bins = xmalloc((nb < 1024 ? nb : 1024) * sizeof *bins);
    size_t frames[8];
    tu_poison((float *)y, 2 * nb * batch);
    if (!p)
        goto done;
    int err = fft_r2c(p, xr, y, batch);
    CHECK_MSG(err == SP_OK, "%s r2c n=%zu batch=%zu: %s", kind_name(kind), n, batch,
              fft_plan_last_error(p));
    CHECK_MSG(all_finite((const float *)y, 2 * nb * batch), "%s r2c n=%zu batch=%zu: output not all written",
              kind_name(kind), n, batch);
    l2acc acc = {0, 0};
    size_t nf = pick_frames(batch, frames);
    for (size_t a = 0; a < nf; a++) {
        size_t f = frames[a];
        for (size_t i = 0; i < n; i++) {
            frame[i].re = xr[f * n + i];
            frame[i].im = 0;
        }
        size_t cnt = pick_bins(n, nb, bins);
        for (size_t b = 0; b < cnt; b++) {
            double rr, ri;
            dft_bin(frame, n, bins[b], 0, tab, &rr, &ri);
            l2_add(&acc, y[f * nb + bins[b]].re, y[f * nb + bins[b]].im, rr, ri);
        }
        /* bins 0 and n/2 of a real signal are real */
        CHECK(y[f * nb].im == 0.0f && y[f * nb + n / 2].im == 0.0f);
    }
    double e = l2_rel(&acc);
    CHECK_MSG(e < 1e-5, "%s r2c n=%zu batch=%zu: rel L2 vs DFT %.3g", kind_name(kind), n, batch, e);
    fft_plan_destroy(p);
done:
    free(frame);
    free(bins);
    return y;
}

/* Both GPU backends (every cuda path) for one size and batch: against the DFT, and
 * against each other. */
static void check_size(size_t n, size_t batch, size_t max_batch)
{
    tu_dcpx *tab = dft_table(n);
    cpx *x = xmalloc(n * batch * sizeof *x);
    float *xr = xmalloc(n * batch * sizeof *xr);
    fill_cpx(x, n * batch);
    fill_real(xr, n * batch);

    cpx *b = check_c2c(FFT_BACKEND_CUFFT, n, batch, max_batch, x, tab);
    cpx *br = check_r2c(FFT_BACKEND_CUFFT, n, batch, max_batch, xr, tab);
    for (int path = 0; path < PATH_COUNT; path++) {
        if (path == PATH_PORTABLE && n < PORTABLE_FROM)
            continue;
        set_path(path);
        cpx *a = check_c2c(FFT_BACKEND_CUDA, n, batch, max_batch, x, tab);
        double e = rel_l2_cpx(a, b, n * batch);
        CHECK_MSG(e < 1e-5, "c2c %s vs cufft n=%zu batch=%zu: rel L2 %.3g", kind_name(FFT_BACKEND_CUDA),
                  n, batch, e);
        free(a);
        a = check_r2c(FFT_BACKEND_CUDA, n, batch, max_batch, xr, tab);
        e = rel_l2_cpx(a, br, (n / 2 + 1) * batch);
        CHECK_MSG(e < 1e-5, "r2c %s vs cufft n=%zu batch=%zu: rel L2 %.3g", kind_name(FFT_BACKEND_CUDA),
                  n, batch, e);
        free(a);
    }
    set_path(0);
    free(b);
    free(br);
    free(x);
    free(xr);
    free(tab);
}

/* Large sizes: the GPU backends against the CPU backend (and a few bins of the DFT). */
static void check_large(size_t n, size_t batch)
{
    size_t nb = n / 2 + 1;
    cpx *x = xmalloc(n * batch * sizeof *x);
    float *xr = xmalloc(n * batch * sizeof *xr);
    cpx *ref = xmalloc(n * batch * sizeof *ref);
    cpx *rref = xmalloc(nb * batch * sizeof *rref);
    cpx *y = xmalloc(n * batch * sizeof *y);
    tu_dcpx *tab = dft_table(n);
    fill_cpx(x, n * batch);
    fill_real(xr, n * batch);

    fft_plan *cpu = make_plan(FFT_BACKEND_CPU, n, n, NULL, batch);
    if (cpu) {
        CHECK(fft_c2c(cpu, x, ref, batch, 0) == SP_OK);
        CHECK(fft_r2c(cpu, xr, rref, batch) == SP_OK);
        fft_plan_destroy(cpu);
    }
    fft_backend_kind kinds[PATH_COUNT + 1] = {FFT_BACKEND_CUDA, FFT_BACKEND_CUDA, FFT_BACKEND_CUDA,
                                              FFT_BACKEND_CUFFT};
    for (int k = 0; k <= PATH_COUNT; k++) {
        if (k == PATH_PORTABLE && n > PORTABLE_TO)
            continue;
        set_path(k < PATH_COUNT ? k : PATH_FUSED);
        fft_plan *p = make_plan(kinds[k], n, n, NULL, batch);
        if (!p)
            continue;
        tu_poison((float *)y, 2 * n * batch);
        CHECK(fft_c2c(p, x, y, batch, 0) == SP_OK);
        double e = rel_l2_cpx(y, ref, n * batch);
        CHECK_MSG(e < 1e-5, "%s c2c n=%zu: rel L2 vs cpu %.3g", kind_name(kinds[k]), n, e);
        l2acc acc = {0, 0};
        for (int b = 0; b < 6; b++) {
            size_t bin = b == 0 ? 0 : (size_t)((rng_signed() + 1.0) * 0.5 * (double)n) % n;
            double rr, ri;
            dft_bin(x, n, bin, 0, tab, &rr, &ri);
            l2_add(&acc, y[bin].re, y[bin].im, rr, ri);
        }
        e = l2_rel(&acc);
        CHECK_MSG(e < 1e-5, "%s c2c n=%zu: rel L2 vs DFT (6 bins) %.3g", kind_name(kinds[k]), n, e);
        tu_poison((float *)y, 2 * nb * batch);
        CHECK(fft_r2c(p, xr, y, batch) == SP_OK);
        e = rel_l2_cpx(y, rref, nb * batch);
        CHECK_MSG(e < 1e-5, "%s r2c n=%zu: rel L2 vs cpu %.3g", kind_name(kinds[k]), n, e);
        printf("  n=%zu batch=%zu %s: c2c and r2c vs cpu ok\n", n, batch, kind_name(kinds[k]));
        fft_plan_destroy(p);
    }
    set_path(0);
    free(x);
    free(xr);
    free(ref);
    free(rref);
    free(y);
    free(tab);
}

/* stft_db against the CPU backend: dB within 0.01 where the CPU level is above -100 dBFS. */
static void check_stft(size_t n, size_t hop, size_t max_batch, size_t total_frames)
{
    size_t nb = n / 2 + 1;
    size_t len = (total_frames - 1) * hop + n;
    float *sig = xmalloc(len * sizeof *sig);
    float *win = xmalloc(n * sizeof *win);
    float *ref = xmalloc(total_frames * nb * sizeof *ref);
    float *got = xmalloc(total_frames * nb * sizeof *got);
    window_spec ws = window_spec_default(); /* hann */
    double wsum = 0;
    CHECK(window_fill(&ws, n, win, &wsum) == SP_OK);
    /* a sine centred on bin n/8 at -6 dBFS plus white noise (uniform, +-0.2), whose floor
     * sits within 60 dB of the peak for most bins */
    for (size_t i = 0; i < len; i++)
        sig[i] = (float)(0.5 * sin(2.0 * 3.14159265358979323846 * (double)(n / 8) * (double)i / (double)n) +
                         0.2 * rng_signed());

    fft_backend_kind kinds[4] = {FFT_BACKEND_CPU, FFT_BACKEND_CUDA, FFT_BACKEND_CUDA, FFT_BACKEND_CUFFT};
    for (int k = 0; k < 4; k++) {
        set_path(k == 2);
        fft_plan *p = make_plan(kinds[k], n, hop, win, max_batch);
        if (!p)
            continue;
        float *out = k == 0 ? ref : got;
        tu_poison(out, total_frames * nb);
        /* calls of up to max_batch frames, like the pipeline; one odd-sized call in between */
        size_t f = 0, call = 0;
        while (f < total_frames) {
            size_t cnt = call++ == 1 ? 1 : max_batch;
            if (cnt > total_frames - f)
                cnt = total_frames - f;
            int err = fft_stft_db(p, sig + f * hop, cnt, out + f * nb);
            CHECK_MSG(err == SP_OK, "%s stft_db: %s", kind_name(kinds[k]), fft_plan_last_error(p));
            f += cnt;
        }
        fft_plan_destroy(p);
        CHECK_MSG(all_finite(out, total_frames * nb), "%s stft_db n=%zu: output not all written / NaN",
                  kind_name(kinds[k]), n);
        if (k == 0)
            continue;
        /* dB within 0.01 where the CPU level is above -100 dBFS and within 60 dB of the
         * frame's peak. Deeper bins (the Rayleigh dips of the noise) carry float32 round-off
         * of the whole frame, about 1e-7 of its energy, whatever the backend: there the
         * amplitudes must agree within 1e-5 of the frame's peak amplitude (-100 dB). */
        size_t bad = 0, compared = 0, deep = 0;
        double worst = 0;
        for (size_t fr = 0; fr < total_frames; fr++) {
            const float *r = ref + fr * nb, *g = got + fr * nb;
            float peak = FFT_DB_FLOOR;
            for (size_t i = 0; i < nb; i++)
                if (r[i] > peak)
                    peak = r[i];
            double apeak = pow(10.0, peak / 20.0);
            for (size_t i = 0; i < nb; i++) {
                if (!(r[i] > -100.0f))
                    continue;
                compared++;
                if (r[i] >= peak - 60.0f) {
                    double d = fabs((double)g[i] - (double)r[i]);
                    if (d > worst)
                        worst = d;
                    if (d > 0.01)
                        bad++;
                } else {
                    deep++;
                    double da = fabs(pow(10.0, g[i] / 20.0) - pow(10.0, r[i] / 20.0));
                    if (da > 1e-5 * apeak)
                        bad++;
                }
            }
        }
        CHECK_MSG(bad == 0 && compared > 0, "%s stft_db n=%zu hop=%zu: %zu of %zu bins off (worst %.4f dB)",
                  kind_name(kinds[k]), n, hop, bad, compared, worst);
        printf("  stft_db %s n=%zu hop=%zu frames=%zu: %zu bins compared (%zu > 60 dB under the "
               "frame peak), worst %.5f dB\n", kind_name(kinds[k]), n, hop, total_frames, compared,
               deep, worst);
    }
    set_path(0);
    free(sig);
    free(win);
    free(ref);
    free(got);
}

/* Buffers from fft_plan_host_alloc (pinned: the plan copies straight between them and the
 * device) give the same bits as malloc'd ones (staged through the plan's own buffers), at
 * the start of the blocks and at offsets inside them, over two sub-batches. */
static void check_pinned(fft_backend_kind kind)
{
    const size_t n = 1024, hop = 256, max_batch = 64, nb = n / 2 + 1, len = (max_batch + 8) * hop + n;
    float *win = xmalloc(n * sizeof *win);
    window_spec ws = window_spec_default();
    double wsum = 0;
    CHECK(window_fill(&ws, n, win, &wsum) == SP_OK);
    fft_plan *p = make_plan(kind, n, hop, win, max_batch);
    if (!p) {
        free(win);
        return;
    }
    float *sig = xmalloc(len * sizeof *sig), *ref = xmalloc((max_batch + 3) * nb * sizeof *ref);
    float *psig = fft_plan_host_alloc(p, len * sizeof *psig);
    float *pout = fft_plan_host_alloc(p, (max_batch + 3) * nb * sizeof *pout);
    cpx *cin = xmalloc(max_batch * n * sizeof *cin), *cref = xmalloc(max_batch * n * sizeof *cref);
    cpx *pcin = fft_plan_host_alloc(p, max_batch * n * sizeof *pcin);
    cpx *pcout = fft_plan_host_alloc(p, max_batch * n * sizeof *pcout);
    CHECK(psig && pout && pcin && pcout);
    if (psig && pout && pcin && pcout) {
        fill_real(sig, len);
        memcpy(psig, sig, len * sizeof *sig);
        for (size_t off = 0; off <= 5; off += 5) { /* frames into the signal and the output */
            tu_poison(ref, (max_batch + 3) * nb);
            tu_poison(pout, (max_batch + 3) * nb);
            CHECK(fft_stft_db(p, sig + off * hop, max_batch, ref + (off ? 3 : 0) * nb) == SP_OK);
            CHECK(fft_stft_db(p, psig + off * hop, max_batch, pout + (off ? 3 : 0) * nb) == SP_OK);
            CHECK_MSG(memcmp(ref + (off ? 3 : 0) * nb, pout + (off ? 3 : 0) * nb, max_batch * nb * sizeof *ref) == 0,
                      "%s stft_db: pinned buffers (offset %zu frames) differ from malloc'd ones", kind_name(kind), off);
        }
        fill_cpx(cin, max_batch * n);
        memcpy(pcin, cin, max_batch * n * sizeof *cin);
        tu_poison((float *)cref, 2 * max_batch * n);
        tu_poison((float *)pcout, 2 * max_batch * n);
        CHECK(fft_c2c(p, cin, cref, max_batch, 0) == SP_OK);
        CHECK(fft_c2c(p, pcin, pcout, max_batch, 0) == SP_OK);
        CHECK_MSG(memcmp(cref, pcout, max_batch * n * sizeof *cref) == 0,
                  "%s c2c: pinned buffers differ from malloc'd ones", kind_name(kind));
        /* in place in pinned memory */
        CHECK(fft_c2c(p, pcin, pcin, max_batch, 0) == SP_OK);
        CHECK_MSG(memcmp(cref, pcin, max_batch * n * sizeof *cref) == 0,
                  "%s c2c: in place in pinned memory differs", kind_name(kind));
        printf("  %s: pinned host buffers (direct copies) give the same bits as staged ones\n", kind_name(kind));
    }
    fft_plan_host_free(p, psig);
    fft_plan_host_free(p, pout);
    fft_plan_host_free(p, pcin);
    fft_plan_host_free(p, pcout);
    fft_plan_destroy(p);
    free(sig);
    free(ref);
    free(cin);
    free(cref);
    free(win);
}

/* A full-scale sine centred on a bin reads 0 dBFS there (Hann window), in every frame. */
static void check_full_scale(fft_backend_kind kind)
{
    size_t n = 1024, hop = 300, nf = 10, nb = n / 2 + 1, len = (nf - 1) * hop + n;
    float win[1024], *sig = xmalloc(len * sizeof *sig), *db = xmalloc(nf * nb * sizeof *db);
    window_spec ws = window_spec_default();
    CHECK(window_fill(&ws, n, win, NULL) == SP_OK);
    for (size_t i = 0; i < len; i++)
        sig[i] = (float)cos(2.0 * 3.14159265358979323846 * 100.0 * (double)i / (double)n + 0.3);
    fft_plan *p = make_plan(kind, n, hop, win, nf);
    if (p) {
        tu_poison(db, nf * nb);
        CHECK(fft_stft_db(p, sig, nf, db) == SP_OK);
        for (size_t f = 0; f < nf; f++)
            CHECK_CLOSE(db[f * nb + 100], 0.0, 0.001);
        fft_plan_destroy(p);
    }
    free(sig);
    free(db);
}

/* A sine of amplitude 1e30 (|X|^2 past float range: the kernel's checked path) reads 600
 * dBFS at its bin, and every bin a finite level; n = 4096 pairs Z_k with Z_(N-k) in
 * registers, n = 1024 through shared memory. Every path agrees with the CPU backend
 * (its own overflow path) within 0.01 dB where the level is within 100 dB of the tone. */
static void check_loud(fft_backend_kind kind, size_t n)
{
    size_t hop = n / 4, nf = 6, nb = n / 2 + 1, len = (nf - 1) * hop + n, kb = n / 10;
    float *win = xmalloc(n * sizeof *win), *sig = xmalloc(len * sizeof *sig), *db = xmalloc(nf * nb * sizeof *db);
    window_spec ws = window_spec_default();
    CHECK(window_fill(&ws, n, win, NULL) == SP_OK);
    for (size_t i = 0; i < len; i++)
        sig[i] = (float)(1e30 * cos(2.0 * 3.14159265358979323846 * (double)kb * (double)i / (double)n));
    float *ref = xmalloc(nf * nb * sizeof *ref);
    fft_plan *p = make_plan(kind, n, hop, win, nf), *cpu = make_plan(FFT_BACKEND_CPU, n, hop, win, nf);
    if (p && cpu) {
        double worst = 0.0;
        tu_poison(db, nf * nb);
        CHECK(fft_stft_db(p, sig, nf, db) == SP_OK);
        CHECK(fft_stft_db(cpu, sig, nf, ref) == SP_OK);
        CHECK_MSG(all_finite(db, nf * nb), "%s stft_db n=%zu, amplitude 1e30: a level not finite", kind_name(kind), n);
        CHECK_MSG(all_finite(ref, nf * nb), "cpu stft_db n=%zu, amplitude 1e30: a level not finite", n);
        for (size_t f = 0; f < nf; f++) {
            CHECK_CLOSE(db[f * nb + kb], 600.0, 0.01);
            CHECK_CLOSE(ref[f * nb + kb], 600.0, 0.01);
        }
        for (size_t i = 0; i < nf * nb; i++)
            if (ref[i] > 500.0f && !(fabs(db[i] - ref[i]) <= worst))
                worst = isfinite(db[i]) ? fabs(db[i] - ref[i]) : INFINITY;
        CHECK_MSG(worst < 0.01, "%s stft_db n=%zu, amplitude 1e30: %.3g dB from the cpu backend", kind_name(kind), n,
                  worst);
    }
    fft_plan_destroy(p);
    fft_plan_destroy(cpu);
    free(win);
    free(sig);
    free(db);
    free(ref);
}

/* fft_plan_set_unit_bound: a caller that promises samples within [-1, 1] (integer PCM) spares
 * the pass looking for huge ones. Broken on purpose here (a tone at 3e38, which the pass
 * sends to the cpu backend; cuFFT's float FFT still holds a tone at 1e36 of 1024 points, at
 * 3e38 none does): with the promise the device computes it and overflows, so its
 * level is not the cpu backend's, without it the level is; a promise taken back counts. */
static void check_unit_bound(fft_backend_kind kind)
{
    size_t n = 1024, hop = 256, nf = 4, nb = n / 2 + 1, len = (nf - 1) * hop + n, kb = n / 10;
    float *win = xmalloc(n * sizeof *win), *sig = xmalloc(len * sizeof *sig);
    float *db = xmalloc(nf * nb * sizeof *db), *ref = xmalloc(nf * nb * sizeof *ref);
    window_spec ws = window_spec_default();
    fft_plan *p = NULL;
    CHECK(window_fill(&ws, n, win, NULL) == SP_OK);
    for (size_t i = 0; i < len; i++)
        sig[i] = (float)(3e38 * cos(2.0 * 3.14159265358979323846 * (double)kb * (double)i / (double)n));
    if ((p = make_plan(kind, n, hop, win, nf))) {
        CHECK(fft_stft_db(p, sig, nf, ref) == SP_OK); /* scanned: the cpu backend's levels */
        CHECK_MSG(isfinite(ref[kb]) && ref[kb] > 700.0f, "%s: %g dB", kind_name(kind), ref[kb]);
        fft_plan_set_unit_bound(p, 1);
        CHECK(fft_stft_db(p, sig, nf, db) == SP_OK);
        CHECK_MSG(!(fabsf(db[kb] - ref[kb]) < 1.0f), "%s: the promise of samples within 1 changed nothing (%g dB)",
                  kind_name(kind), db[kb]);
        fft_plan_set_unit_bound(p, 0);
        CHECK(fft_stft_db(p, sig, nf, db) == SP_OK);
        CHECK(memcmp(db, ref, nf * nb * sizeof *db) == 0);
    }
    fft_plan_destroy(p);
    free(win), free(sig), free(db), free(ref);
}

/* NaN in the signal never gives NaN out: the bins read the floor. */
static void check_nan_input(fft_backend_kind kind)
{
    size_t n = 256, nb = n / 2 + 1;
    float sig[256], db[129];
    fft_plan *p = make_plan(kind, n, 64, NULL, 4);
    if (!p)
        return;
    fill_real(sig, n);
    sig[17] = NAN;
    tu_poison(db, nb);
    CHECK(fft_stft_db(p, sig, 1, db) == SP_OK);
    int ok = 1;
    for (size_t k = 0; k < nb; k++)
        ok &= db[k] == FFT_DB_FLOOR;
    CHECK_MSG(ok, "%s: NaN input must read %g dB everywhere", kind_name(kind), FFT_DB_FLOOR);
    /* silence reads the floor too */
    memset(sig, 0, sizeof sig);
    CHECK(fft_stft_db(p, sig, 1, db) == SP_OK);
    CHECK(db[0] == FFT_DB_FLOOR && db[nb - 1] == FFT_DB_FLOOR);
    fft_plan_destroy(p);
}

/* tuning out of range: the plan is refused (a bad SPECTRO_CUDA_PATH or SPECTRO_CUDA_STREAM
 * is the program's to refuse: e2e_cli.py) */
static void check_tuning_errors(void)
{
    static const int cases[][2] = {{FFT_CUDA_PATH_PERLEVEL + 1, FFT_CUDA_STREAM_AUTO},
                                   {FFT_CUDA_PATH_FUSED, FFT_CUDA_STREAM_ON + 1}, {-1, FFT_CUDA_STREAM_AUTO}};
    fft_config cfg = fft_config_default();
    float win[64];
    for (int i = 0; i < 64; i++)
        win[i] = 1.0f;
    cfg.n = 64;
    cfg.hop = 64;
    cfg.max_batch = 4;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        sp_errinfo ei = {{0}};
        void *st = NULL;
        cfg.tuning.cuda_path = (fft_cuda_path)cases[c][0];
        cfg.tuning.cuda_stream = (fft_cuda_stream)cases[c][1];
        int err = fft_backend_cuda.create(&cfg, win, 64.0, &st, &ei);
        CHECK_MSG(err == SP_EINVAL && st == NULL, "path %d stream %d: create gave %d", cases[c][0], cases[c][1],
                  err);
        if (err == SP_OK)
            fft_backend_cuda.destroy(st);
    }
}

static void check_errors(const fft_backend *be)
{
    sp_errinfo ei = {{0}};
    fft_config cfg = fft_config_default();
    float *win = xmalloc(4194304 * sizeof *win);
    void *st = NULL;
    cpx buf[64 * 16];
    for (size_t i = 0; i < 4194304; i++)
        win[i] = 1.0f;

    /* more frames than max_batch: refused by the backend itself, and through fft.h */
    cfg.n = 16;
    cfg.hop = 16;
    cfg.max_batch = 4;
    int err = be->create(&cfg, win, 16.0, &st, &ei);
    CHECK_MSG(err == SP_OK, "%s create: %s", be->name, ei.msg);
    if (err == SP_OK) {
        fill_cpx(buf, 64);
        ei.msg[0] = 0;
        CHECK(be->c2c(st, buf, buf, 5, 0, &ei) == SP_EINVAL);
        CHECK(strstr(ei.msg, "max_batch") != NULL);
        CHECK(be->stft_db(st, (float *)buf, 5, (float *)buf, &ei) == SP_EINVAL);
        /* the plan still works after a refused call */
        CHECK(be->c2c(st, buf, buf, 4, 0, &ei) == SP_OK);
        be->destroy(st);
    }
    be->destroy(NULL);
    fft_plan *p = make_plan(be == &fft_backend_cuda ? FFT_BACKEND_CUDA : FFT_BACKEND_CUFFT, 16, 16,
                            NULL, 2);
    if (p) {
        CHECK(fft_c2c(p, buf, buf, 3, 0) == SP_EINVAL);
        fft_plan_destroy(p);
    }

    /* far more device memory than any GPU has: SP_ENOMEM naming the bytes, and nothing sticky.
     * Not in quick mode: compute-sanitizer counts the (expected) cudaMalloc failure. */
    if (quick)
        goto after_oom;
    cfg.n = 4194304;
    cfg.hop = 4194304;
    cfg.max_batch = (size_t)1 << 20;
    st = NULL;
    ei.msg[0] = 0;
    err = be->create(&cfg, win, 4194304.0, &st, &ei);
    CHECK_MSG(err == SP_ENOMEM || err == SP_EGPU, "%s huge plan: %d", be->name, err);
    CHECK_MSG(strstr(ei.msg, "bytes") != NULL, "%s huge plan message: %s", be->name, ei.msg);
    CHECK(st == NULL);
    printf("  %s huge plan: %s: %s\n", be->name, sp_strerror(err), ei.msg);
    /* sizes that overflow */
    cfg.max_batch = SIZE_MAX / 2;
    ei.msg[0] = 0;
    err = be->create(&cfg, win, 4194304.0, &st, &ei);
    CHECK(err == SP_ENOMEM || err == SP_EGPU || err == SP_EINVAL);
    CHECK(ei.msg[0] != 0);
after_oom:
    /* a normal plan afterwards */
    cfg.n = 1024;
    cfg.hop = 256;
    cfg.max_batch = 8;
    st = NULL;
    err = be->create(&cfg, win, 1024.0, &st, &ei);
    CHECK_MSG(err == SP_OK, "%s create after out-of-memory: %s", be->name, ei.msg);
    if (err == SP_OK) {
        float *sig = xmalloc((7 * 256 + 1024) * sizeof *sig), *db = xmalloc(8 * 513 * sizeof *db);
        fill_real(sig, 7 * 256 + 1024);
        CHECK(be->stft_db(st, sig, 8, db, &ei) == SP_OK);
        free(sig);
        free(db);
        be->destroy(st);
    }
    free(win);
}

/* auto with a job described: a device node exists here, so a dense job goes to the GPU
 * and a tiny one to the cpu, without a fallback note (test_backend_choose has the grid). */
static void test_auto_weighs(void)
{
    static const struct {
        size_t n, hop;
        uint64_t frames;
        const char *expect;
    } jobs[] = {{16384, 64, 450000, "cuda"}, {4096, 1024, 43, "cpu"}};
    char why[128];
    CHECK_MSG(fft_gpu_present(why, sizeof why) == 1, "CUDA runs but no device node: %s", why);
    for (size_t i = 0; i < sizeof jobs / sizeof jobs[0]; i++) {
        fft_config cfg = fft_config_default();
        fft_plan *p = NULL;
        sp_errinfo ei = {{0}};
        cfg.n = jobs[i].n;
        cfg.hop = jobs[i].hop;
        cfg.max_batch = 64;
        cfg.job.channels = 1;
        cfg.job.rate = 48000;
        cfg.job.frames = jobs[i].frames;
        CHECK(fft_plan_create(&cfg, &p, &ei) == SP_OK);
        if (!p)
            continue;
        CHECK_MSG(strcmp(fft_plan_backend_name(p), jobs[i].expect) == 0, "auto, N %zu hop %zu: %s", jobs[i].n,
                  jobs[i].hop, fft_plan_backend_name(p));
        CHECK(fft_plan_fallback_reason(p)[0] == 0);
        CHECK(fft_plan_choice(p)->made && fft_plan_choice(p)->device == 1);
        fft_plan_destroy(p);
    }
}

int main(void)
{
    sp_errinfo ei = {{0}};
    const char *q = getenv("SPECTRO_GPU_TEST_QUICK");
    quick = q && *q && strcmp(q, "0") != 0;
    setvbuf(stdout, NULL, _IOLBF, 0); /* progress shows in a log even if a run is cut off */
    tu_seed(quick ? "test_gpu_fft (quick)" : "test_gpu_fft");

    if (fft_backend_cuda.probe(&ei) != SP_OK) {
        printf("test_gpu_fft: skipped: %s\n", ei.msg);
        return 77;
    }
    CHECK(fft_backend_cufft.probe(NULL) == SP_OK);

    /* auto picks the GPU when one is usable */
    fft_plan *p = make_plan(FFT_BACKEND_AUTO, 64, 16, NULL, 1);
    if (p) {
        CHECK(strcmp(fft_plan_backend_name(p), "cuda") == 0);
        CHECK(fft_plan_fallback_reason(p)[0] == 0);
        fft_plan_destroy(p);
    }
    test_auto_weighs();

    /* every size 2^4 .. 2^16 (2^12 when quick) against the DFT, batches 1 and 3; batch 1000
     * (two sub-batches of 500; 8000 threads a level, not a multiple of the 256-thread block),
     * 37 and a call smaller than max_batch at some sizes */
    unsigned top = quick ? 12 : 16;
    for (unsigned l = 4; l <= top; l++) {
        size_t n = (size_t)1 << l;
        /* 2^14 twice: the one-block-a-frame kernel and the streamed one (one block an SM,
         * several frames each at batch 1000), whichever this device picks by default */
        for (int stream = 0; stream < (l == 14 ? 2 : 1); stream++) {
            if (l == 14)
                tuning.cuda_stream = stream ? FFT_CUDA_STREAM_ON : FFT_CUDA_STREAM_OFF;
            check_size(n, 1, 1);
            check_size(n, 3, 3);
            if (l == 4 || (!quick && l == 10))
                check_size(n, 1000, 1000);
            if (l == 5 || l == 8 || l == 11)
                check_size(n, 37, 64);
            if (l == 7)
                check_size(n, 999, 1000);
            if (!quick && (l == 12 || l == 14 || l == 15))
                check_size(n, 1000, 1000);
        }
        tuning.cuda_stream = FFT_CUDA_STREAM_AUTO;
        printf("  n=%zu: c2c/r2c vs DFT, inverse, in place, cuda vs cufft done\n", n);
    }
    if (quick) { /* the streamed 2^14 kernel for the sanitizers: more frames than SMs */
        tuning.cuda_stream = FFT_CUDA_STREAM_ON;
        check_size(16384, 300, 300);
        tuning.cuda_stream = FFT_CUDA_STREAM_AUTO;
        printf("  n=16384 (streamed kernel): c2c vs DFT, inverse, in place, cuda vs cufft done\n");
    }

    /* big sizes against the CPU backend */
    if (quick) {
        check_large((size_t)1 << 17, 2); /* cluster kernel */
        check_large((size_t)1 << 18, 2); /* four-step */
    } else {
        check_large((size_t)1 << 17, 3);
        check_large((size_t)1 << 18, 5);
        check_large((size_t)1 << 19, 2);
        check_large((size_t)1 << 20, 2);
        check_large((size_t)1 << 22, 2);
    }

    check_stft(1024, 256, 64, 200);
    check_stft(16, 5, 7, 50);     /* odd hop: unaligned frame starts */
    check_stft(2048, 2048, 16, 40); /* hop = n */
    check_stft(512, 700, 33, 100); /* hop > n */
    /* the sizes whose untangle pairs bins in registers (2^5, 2^7, 2^11 complex points),
     * batches not a multiple of the frames a block, an odd hop */
    check_stft(64, 17, 20, 60);
    check_stft(256, 100, 37, 150);
    check_stft(4096, 1001, 16, 40);
    if (!quick) {
        check_stft(4096, 1024, 64, 300);
        check_stft(1024, 333, 1000, 1500); /* odd hop, big batch */
        check_stft(32768, 8192, 8, 20);    /* the largest fused short-time kernel */
        check_stft(65536, 16384, 16, 40);  /* past it: framing + cluster r2c (2^15) + dB */
    }
    for (int path = 0; path < 2; path++) {
        set_path(path);
        check_pinned(FFT_BACKEND_CUDA);
        check_full_scale(FFT_BACKEND_CUDA);
        check_loud(FFT_BACKEND_CUDA, 4096);
        check_loud(FFT_BACKEND_CUDA, 1024);
        check_nan_input(FFT_BACKEND_CUDA);
        check_errors(&fft_backend_cuda);
    }
    set_path(PATH_PORTABLE);
    check_loud(FFT_BACKEND_CUDA, 4096);
    set_path(0);
    check_tuning_errors();
    check_loud(FFT_BACKEND_CUFFT, 4096);
    check_unit_bound(FFT_BACKEND_CUDA);
    check_unit_bound(FFT_BACKEND_CUFFT);
    check_pinned(FFT_BACKEND_CUFFT);
    check_full_scale(FFT_BACKEND_CUFFT);
    check_nan_input(FFT_BACKEND_CUFFT);
    check_errors(&fft_backend_cufft);
    return check_done("test_gpu_fft");
}
