/* bench_fft_cpu: how fast the cpu backend is, measured in one run on this machine.
 *   1. the seed paper's table: a brute-force double-precision DFT vs this FFT, N = 1024..8192;
 *   2. single-thread throughput, c2c and r2c, N = 256 .. 65536, batched, median of several
 *      runs; with FFTW3f (built with HAVE_FFTW3F) FFTW's single-precision one-thread time
 *      (FFTW_MEASURE plans) and the ratio ours/FFTW;
 *   3. stft_db over a 10-minute 48 kHz signal (N 4096, hop 1024) with the default threads,
 *      and the rate --backend auto's cost model takes for the cpu (fft_choose.c);
 *   4. the dense --peaks case (N 16384, hop 64): stft_db, stft_db + the host scan (the
 *      pipeline before the reduction), stft_reduce with and without the spectra, and the
 *      scan's share of each.
 * Usage: bench_fft_cpu [--quick] [--peaks (table 4 alone)] */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "job.h"
#include "fft.h"
#include "window.h"

#ifdef HAVE_FFTW3F
#include <fftw3.h>
#endif

#define BENCH_PI 3.14159265358979323846
#define BENCH_POINTS ((size_t)1 << 18) /* points per batched call (2 MiB of complex input) */

static int quick;
/* SPECTRO_CPU_THREADS and SPECTRO_CPU_SIMD, read in main as the program reads them */
static fft_tuning env_tuning;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void cpu_model(char *buf, size_t len)
{
    char line[512];
    FILE *f = fopen("/proc/cpuinfo", "r");
    snprintf(buf, len, "unknown CPU");
    if (!f)
        return;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) == 0) {
            char *colon = strchr(line, ':');
            if (colon) {
                colon++;
                while (*colon == ' ' || *colon == '\t')
                    colon++;
                colon[strcspn(colon, "\n")] = 0;
                snprintf(buf, len, "%s", colon);
            }
            break;
        }
    }
    fclose(f);
}

static float frand(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (float)((double)(*s >> 40) / (double)(1ull << 23) - 1.0);
}

/* The benchmark runner: calls fn(ctx) 'reps' times per run, takes the median over runs of
 * the time per call. reps is grown until one run lasts >= min_s. */
typedef void (*bench_fn)(void *ctx);

static double median_time(bench_fn fn, void *ctx, int runs, double min_s)
{
    double t[32];
    size_t reps = 1;
    fn(ctx); /* warm up caches and pages */
    for (;;) {
        double t0 = now_s();
        for (size_t r = 0; r < reps; r++)
            fn(ctx);
        double dt = now_s() - t0;
        if (dt >= min_s || reps > (1u << 24))
            break;
        reps = dt <= 0 ? reps * 16 : (size_t)((double)reps * 1.5 * min_s / dt) + 1;
    }
    if (runs > 32)
        runs = 32;
    for (int i = 0; i < runs; i++) {
        double t0 = now_s();
        for (size_t r = 0; r < reps; r++)
            fn(ctx);
        t[i] = (now_s() - t0) / (double)reps;
    }
    qsort(t, (size_t)runs, sizeof t[0], cmp_double);
    return t[runs / 2];
}

/* ---- 1. brute force vs FFT ----------------------------------------------------------- */

typedef struct {
    size_t n;
    const double *xr, *xi, *twr, *twi;
    double *yr, *yi;
} brute_ctx;

/* The brute-force transform: X_k = sum_i x_i e^{-2 pi i ik/n}, double precision, with a
 * table of the n twiddles (no sin/cos in the loop). */
static void brute_run(void *arg)
{
    brute_ctx *c = arg;
    const size_t n = c->n;
    for (size_t k = 0; k < n; k++) {
        double sr = 0.0, si = 0.0;
        size_t t = 0;
        for (size_t i = 0; i < n; i++) {
            sr += c->xr[i] * c->twr[t] - c->xi[i] * c->twi[t];
            si += c->xr[i] * c->twi[t] + c->xi[i] * c->twr[t];
            t = (t + k) & (n - 1);
        }
        c->yr[k] = sr;
        c->yi[k] = si;
    }
}

typedef struct {
    fft_plan *plan;
    const cpx *in;
    cpx *out;
    const float *rin;
    size_t batch;
} ours_ctx;

static void ours_c2c(void *arg)
{
    ours_ctx *c = arg;
    fft_c2c(c->plan, c->in, c->out, c->batch, 0);
}

static void ours_r2c(void *arg)
{
    ours_ctx *c = arg;
    fft_r2c(c->plan, c->rin, c->out, c->batch);
}

static fft_plan *plan_cpu(size_t n, size_t max_batch)
{
    fft_config cfg = fft_config_default();
    fft_plan *p = NULL;
    sp_errinfo ei = {{0}};
    cfg.backend = FFT_BACKEND_CPU;
    cfg.tuning = env_tuning;
    cfg.n = n;
    cfg.hop = n;
    cfg.max_batch = max_batch;
    if (fft_plan_create(&cfg, &p, &ei) != SP_OK) {
        fprintf(stderr, "bench_fft_cpu: n=%zu: %s\n", n, ei.msg);
        return NULL;
    }
    return p;
}

static int table_brute(void)
{
    uint64_t seed = 1;
    printf("1. brute-force DFT (double, O(N^2)) vs this radix-2 FFT (float), one transform\n");
    printf("%8s %16s %16s %12s\n", "N", "brute us", "fft us", "speed-up");
    for (size_t n = 1024; n <= 8192; n *= 2) {
        double *buf = malloc(6 * n * sizeof *buf);
        cpx *in = malloc(n * sizeof *in), *out = malloc(n * sizeof *out);
        fft_plan *p = plan_cpu(n, 1);
        if (!buf || !in || !out || !p) {
            free(buf);
            free(in);
            free(out);
            fft_plan_destroy(p);
            return 1;
        }
        brute_ctx b = {n, buf, buf + n, buf + 2 * n, buf + 3 * n, buf + 4 * n, buf + 5 * n};
        for (size_t i = 0; i < n; i++) {
            in[i].re = frand(&seed);
            in[i].im = frand(&seed);
            buf[i] = in[i].re;
            buf[n + i] = in[i].im;
            buf[2 * n + i] = cos(2.0 * BENCH_PI * (double)i / (double)n);
            buf[3 * n + i] = -sin(2.0 * BENCH_PI * (double)i / (double)n);
        }
        ours_ctx o = {p, in, out, NULL, 1};
        double tb = median_time(brute_run, &b, quick ? 1 : 3, quick ? 0.01 : 0.1);
        double tf = median_time(ours_c2c, &o, quick ? 3 : 9, quick ? 0.01 : 0.05);
        printf("%8zu %16.1f %16.3f %11.0fx\n", n, tb * 1e6, tf * 1e6, tb / tf);
        fft_plan_destroy(p);
        free(buf);
        free(in);
        free(out);
    }
    return 0;
}

/* ---- 2. throughput vs FFTW ----------------------------------------------------------- */

#ifdef HAVE_FFTW3F
static void fftw_run(void *arg)
{
    fftwf_execute((fftwf_plan)arg);
}
#endif

static int table_throughput(void)
{
    const size_t nmax = 65536;
    const size_t cap = BENCH_POINTS > nmax ? BENCH_POINTS : nmax;
    uint64_t seed = 2;
    int err = 0;
    float *rin = malloc(cap * sizeof *rin);
    cpx *in = malloc(cap * sizeof *in), *out = malloc(cap * sizeof *out);

    printf("\n2. single-thread throughput, batched (batch x N = %zu points), median of %d runs\n",
           (size_t)BENCH_POINTS, quick ? 3 : 9);
    printf("   GF/s = flops per transform / time: 5 N log2 N for c2c, 2.5 N log2 N for r2c"
           " (FFTW's convention)\n");
#ifdef HAVE_FFTW3F
    printf("   FFTW %s, single precision, one thread, FFTW_MEASURE plans, same buffers\n",
           fftwf_version);
    printf("%-4s %7s %6s %11s %8s %11s %8s %9s\n", "", "N", "batch", "ours us", "GF/s", "FFTW us",
           "GF/s", "ours/FFTW");
#else
    printf("   (built without FFTW3f: no comparison)\n");
    printf("%-4s %7s %6s %11s %8s\n", "", "N", "batch", "ours us", "GF/s");
#endif
    if (!rin || !in || !out) {
        err = 1;
        goto out;
    }
    for (size_t i = 0; i < cap; i++) {
        in[i].re = frand(&seed);
        in[i].im = frand(&seed);
        rin[i] = frand(&seed);
    }
    for (int real = 0; real <= 1; real++) {
        for (size_t n = 256; n <= nmax; n *= 2) {
            if (quick && n != 256 && n != 1024 && n != 4096 && n != 8192 && n != 65536)
                continue;
            const size_t batch = n >= BENCH_POINTS ? 1 : BENCH_POINTS / n;
            const double flops = (real ? 2.5 : 5.0) * (double)n * log2((double)n);
            fft_plan *p = plan_cpu(n, batch);
            if (!p) {
                err = 1;
                goto out;
            }
            ours_ctx o = {p, in, out, rin, batch};
            double t = median_time(real ? ours_r2c : ours_c2c, &o, quick ? 3 : 9,
                                   quick ? 0.005 : 0.03) / (double)batch;
            fft_plan_destroy(p);
            printf("%-4s %7zu %6zu %11.3f %8.2f", real ? "r2c" : "c2c", n, batch, t * 1e6,
                   flops / t * 1e-9);
#ifdef HAVE_FFTW3F
            int nn = (int)n;
            fftwf_complex *fo = fftwf_malloc(cap * sizeof *fo);
            fftwf_complex *fi = real ? NULL : fftwf_malloc(cap * sizeof *fi);
            float *fr = real ? fftwf_malloc(cap * sizeof *fr) : NULL;
            fftwf_plan fp =
                real ? fftwf_plan_many_dft_r2c(1, &nn, (int)batch, fr, NULL, 1, nn, fo, NULL, 1,
                                               nn / 2 + 1, FFTW_MEASURE)
                     : fftwf_plan_many_dft(1, &nn, (int)batch, fi, NULL, 1, nn, fo, NULL, 1, nn,
                                           FFTW_FORWARD, FFTW_MEASURE);
            if (!fp || !fo || (!fi && !fr)) {
                printf("  (FFTW plan failed)\n");
            } else {
                /* FFTW_MEASURE scribbled on the buffers: fill them after planning */
                for (size_t i = 0; i < cap; i++) {
                    if (real)
                        fr[i] = rin[i];
                    else {
                        fi[i][0] = in[i].re;
                        fi[i][1] = in[i].im;
                    }
                }
                double tw = median_time(fftw_run, fp, quick ? 3 : 9, quick ? 0.005 : 0.03) /
                            (double)batch;
                printf(" %11.3f %8.2f %8.2fx", tw * 1e6, flops / tw * 1e-9, tw / t);
            }
            if (fp)
                fftwf_destroy_plan(fp);
            fftwf_free(fo);
            fftwf_free(fi);
            fftwf_free(fr);
#endif
            printf("\n");
        }
    }
out:
    free(rin);
    free(in);
    free(out);
    return err;
}

/* ---- 3. a 10-minute file through stft_db --------------------------------------------- */

static int table_stft(void)
{
    const size_t rate = 48000, n = 4096, hop = 1024, batch = 256;
    const size_t len = (quick ? 60 : 600) * rate;
    const size_t frames = (len - n) / hop + 1, bins = n / 2 + 1;
    float *sig = malloc(len * sizeof *sig), *w = malloc(n * sizeof *w);
    float *db = malloc(batch * bins * sizeof *db);
    window_spec spec = window_spec_default();
    fft_config cfg = fft_config_default();
    fft_plan *p = NULL;
    sp_errinfo ei = {{0}};
    uint64_t seed = 3;
    int err = 1;
    double best = 1e30;

    if (!sig || !w || !db)
        goto out;
    for (size_t i = 0; i < len; i++)
        sig[i] = 0.5f * (float)sin(2.0 * BENCH_PI * 1000.0 * (double)i / (double)rate) +
                 0.01f * frand(&seed);
    window_fill(&spec, n, w, NULL);
    cfg.backend = FFT_BACKEND_CPU;
    cfg.tuning = env_tuning;
    cfg.n = n;
    cfg.hop = hop;
    cfg.window = w;
    cfg.max_batch = batch;
    if (fft_plan_create(&cfg, &p, &ei) != SP_OK) {
        fprintf(stderr, "bench_fft_cpu: stft plan: %s\n", ei.msg);
        goto out;
    }
    for (int run = 0; run < (quick ? 1 : 3); run++) {
        double t0 = now_s();
        for (size_t f = 0; f < frames; f += batch) {
            size_t nf = frames - f < batch ? frames - f : batch;
            fft_stft_db(p, sig + f * hop, nf, db);
        }
        double dt = now_s() - t0;
        best = dt < best ? dt : best;
    }
    char threads[32] = "default (min(CPUs, 8))";
    if (env_tuning.cpu_threads > 0)
        snprintf(threads, sizeof threads, "%d", env_tuning.cpu_threads);
    printf("\n3. stft_db, %zu s of 48 kHz audio: N %zu, hop %zu, hann, %zu frames in batches of "
           "%zu, threads %s\n",
           len / rate, n, hop, frames, batch, threads);
    printf("   %.3f s (best of %d), %.2f us per frame, %.0fx real time\n", best, quick ? 1 : 3,
           best / (double)frames * 1e6, (double)len / (double)rate / best);
    {
        /* --backend auto's unit (fft_choose.c): one frame's N*log2(N), a second, a thread,
         * on the threads this plan ran (as auto counts them) */
        fft_config ac = cfg;
        fft_choice ch;
        ac.backend = FFT_BACKEND_AUTO;
        if (fft_config_choose(&ac, &ch) == SP_OK && ch.cpu_threads > 0)
            printf("   auto's cpu_core rate: %.2g N*log2(N) a second a thread (%d threads; "
                   "fft_choose.c's constant: %.2g)\n",
                   (double)frames * (double)n * log2((double)n) / best / ch.cpu_threads, ch.cpu_threads,
                   fft_rates_default().cpu_core);
    }
    err = 0;
out:
    fft_plan_destroy(p);
    free(sig);
    free(w);
    free(db);
    return err;
}

/* ---- 4. the dense --peaks case: N 16384, hop 64 ---------------------------------------- */

/* One pass over the signal's frames in calls of `batch`: mode 0 stft_db alone, 1 stft_db
 * then the host scan of every row on this thread (the pipeline before the reduction), 2
 * stft_reduce with the spectra, 3 stft_reduce without them (what --peaks alone runs). */
static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Returns the wall time; *cpu gets the process's CPU time (all threads), which a busy
 * shared machine disturbs less. */
static double peaks_pass(fft_plan *p, const float *sig, size_t frames, size_t hop, size_t batch, size_t bins,
                         float *db, fft_peak_raw *raw, const fft_peak_req *req, int mode, double *cpu)
{
    double t0 = now_s(), c0 = cpu_s();
    for (size_t f = 0; f < frames; f += batch) {
        size_t nf = frames - f < batch ? frames - f : batch;
        if (mode >= 2) {
            fft_stft_reduce(p, sig + f * hop, nf, mode == 2 ? db : NULL, req, raw);
            continue;
        }
        fft_stft_db(p, sig + f * hop, nf, db);
        for (size_t i = 0; mode == 1 && i < nf; i++)
            raw[i] = fft_peak_scan(db + i * bins, req->kmin[0], req->kmax[0]);
    }
    *cpu = cpu_s() - c0;
    return now_s() - t0;
}

static int table_peaks(void)
{
    static const char *names[4] = {"stft_db alone", "stft_db + host scan (before)",
                                   "stft_reduce, spectra too", "stft_reduce, no spectra (--peaks)"};
    const size_t rate = 48000, n = 16384, hop = 64, bins = n / 2 + 1;
    const size_t len = (quick ? 10 : 60) * rate, frames = (len - n) / hop + 1;
    const size_t batch = ((size_t)1 << 19) / bins; /* the program's batch on the cpu backend */
    float *sig = malloc(len * sizeof *sig), *w = malloc(n * sizeof *w);
    float *db = malloc(batch * bins * sizeof *db);
    fft_peak_raw *raw = malloc(batch * sizeof *raw);
    window_spec spec = window_spec_default();
    fft_config cfg = fft_config_default();
    fft_peak_req req = {.nranges = 1, .kmin = {1}, .kmax = {n / 2 - 1}};
    fft_plan *p = NULL;
    sp_errinfo ei = {{0}};
    uint64_t seed = 5;
    double best[4] = {1e30, 1e30, 1e30, 1e30}, cbest[4] = {1e30, 1e30, 1e30, 1e30};
    int err = 1;

    if (!sig || !w || !db || !raw)
        goto out;
    for (size_t i = 0; i < len; i++)
        sig[i] = 0.3f * (float)sin(2.0 * BENCH_PI * 440.0 * (double)i / (double)rate) + 0.01f * frand(&seed);
    window_fill(&spec, n, w, NULL);
    cfg.backend = FFT_BACKEND_CPU;
    cfg.tuning = env_tuning;
    cfg.n = n;
    cfg.hop = hop;
    cfg.window = w;
    cfg.max_batch = batch;
    if (fft_plan_create(&cfg, &p, &ei) != SP_OK) {
        fprintf(stderr, "bench_fft_cpu: peaks plan: %s\n", ei.msg);
        goto out;
    }
    for (int run = 0; run < (quick ? 1 : 3); run++) /* interleaved: drifts hit every mode alike */
        for (int m = 0; m < 4; m++) {
            double c, dt = peaks_pass(p, sig, frames, hop, batch, bins, db, raw, &req, m, &c);
            best[m] = dt < best[m] ? dt : best[m];
            cbest[m] = c < cbest[m] ? c : cbest[m];
        }
    printf("\n4. the dense --peaks case, %zu s of 48 kHz audio: N %zu, hop %zu, %zu frames in batches of %zu\n",
           len / rate, n, hop, frames, batch);
    printf("   %-36s %9s %9s %14s\n", "", "wall", "cpu", "cpu per frame");
    for (int m = 0; m < 4; m++)
        printf("   %-36s %7.3f s %7.3f s %9.2f us\n", names[m], best[m], cbest[m], cbest[m] / (double)frames * 1e6);
    /* the scan's cost is what a mode adds to stft_db alone; without the spectra nothing is
     * written out either, which may make the whole cheaper than stft_db alone */
    printf("   the scan: before %.3f s wall (%.1f %% of that run), with the reduction +%.3f s cpu over stft_db "
           "alone, no spectra %+.3f s cpu\n",
           best[1] - best[0], 100.0 * (best[1] - best[0]) / best[1], cbest[2] - cbest[0], cbest[3] - cbest[0]);
    err = 0;
out:
    fft_plan_destroy(p);
    free(sig);
    free(w);
    free(db);
    free(raw);
    return err;
}

int main(int argc, char **argv)
{
    char model[256];
    sp_errinfo ei = {{0}};
    if (job_env_fft(&env_tuning, &ei) != SP_OK) {
        fprintf(stderr, "bench_fft_cpu: %s\n", ei.msg);
        return 2;
    }
    int only_peaks = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) {
            quick = 1;
        } else if (strcmp(argv[i], "--peaks") == 0) {
            only_peaks = 1;
        } else {
            fprintf(stderr, "usage: %s [--quick] [--peaks]\n", argv[0]);
            return 2;
        }
    }
    cpu_model(model, sizeof model);
    printf("bench_fft_cpu: cpu backend, %s%s\n", model, quick ? " (--quick)" : "");
    if (only_peaks)
        return table_peaks();
    if (table_brute() || table_throughput() || table_stft() || table_peaks())
        return 1;
    return 0;
}
