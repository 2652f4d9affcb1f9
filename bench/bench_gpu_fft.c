/* bench_gpu_fft: the project's kernels (cuda backend: fused path and per-level path)
 * against cuFFT, side by side, with the targets of issue 5 and whether each is met.
 *
 * All timings are device-side (CUDA events), the median of warm runs, on device data (no
 * host transfers) except the live row. The device-to-device copy bandwidth (cudaMemcpy of
 * 1 GiB, bytes read + written) is measured in the same run; "%cp" is a path's effective
 * bandwidth (bytes it must read + write once) as a fraction of it.
 *   C2C    N = 2^8..2^21, forward, out of place, batches of 2^26 points as in issue 5's own
 *          figures (the 4th argument changes that); 16 bytes a point.
 *          target: fused >= 0.95x cuFFT throughput up to 8192, >= 1.2x for 16384..65536.
 *          A second table shows the per-level kernels' GB/s and GFLOP/s (5 N log2 N / time)
 *          beside cuFFT's, as the seed papers report them.
 *   R2C    n = 2^8..2^14, n floats in, n/2+1 bins out; target >= 0.95x cuFFT R2C.
 *   STFT   n = 4096, hop 1024, one hour of 48 kHz (172.8M samples, device-resident) to dB:
 *          fused kernel vs the cufft backend's framing + cufftExecR2C + dB kernels;
 *          target >= 5x faster, and within 2x of the copy floor (signal read once + levels
 *          written once at the copy bandwidth).
 *   live   one frame n = 4096 through fft_stft_db (copy in, compute, copy out), host wall
 *          time per hop; target <= 30 us.
 *   error  relative L2 against a double-precision FFT of the same frames, every path.
 *
 * usage: bench_gpu_fft [reps (default 15)] [all | c2c,r2c,stft,live] [log2 N: C2C at that size only, 0: all]
 *                      [log2 points a C2C / R2C batch, 20..27 (default 26)]
 * (a section list and one size are for profiling one kernel, e.g. under ncu) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "job.h"
#include "err.h"
#include "fft.h"
#include "fft_fused.h"
#include "fft_gpu.h"
#include "gpu_time.h"

enum { P_FUSED, P_PERLEVEL, P_CUFFT, P_COUNT };
static const char *pname[P_COUNT] = {"fused", "perlevel", "cufft"};

/* The settings from the environment (SPECTRO_CUDA_STREAM ...), read once in main. */
static fft_config env_cfg;

/* A config for path p: the environment's tuning, the path's backend and kernels. */
static fft_config path_config(int p)
{
    fft_config cfg = env_cfg;
    cfg.backend = p == P_CUFFT ? FFT_BACKEND_CUFFT : FFT_BACKEND_CUDA;
    cfg.tuning.cuda_path = p == P_PERLEVEL ? FFT_CUDA_PATH_PERLEVEL : FFT_CUDA_PATH_FUSED;
    return cfg;
}

/* A plan driven on device data (gpu_time.h); NULL with ei on failure. */
static gpu_plan *create(int p, size_t n, size_t hop, size_t max_batch, const float *win, double wsum,
                        sp_errinfo *ei)
{
    fft_config cfg = path_config(p);
    gpu_plan *gp = NULL;
    cfg.n = n;
    cfg.hop = hop;
    cfg.max_batch = max_batch;
    if (fft_gpu_plan_create(&cfg, win, wsum, &gp, ei) != SP_OK)
        return NULL;
    return gp;
}

/* iterative radix-2 FFT in double (the reference) */
static void fft_double(double *re, double *im, size_t n)
{
    for (size_t i = 1, j = 0; i < n; i++) {
        size_t bit = n >> 1;
        for (; j & bit; bit >>= 1)
            j ^= bit;
        j ^= bit;
        if (i < j) {
            double t = re[i];
            re[i] = re[j];
            re[j] = t;
            t = im[i];
            im[i] = im[j];
            im[j] = t;
        }
    }
    for (size_t m = 2; m <= n; m <<= 1) {
        for (size_t k = 0; k < m / 2; k++) {
            double a = -2.0 * 3.14159265358979323846 * (double)k / (double)m;
            double wr = cos(a), wi = sin(a);
            for (size_t s = 0; s < n; s += m) {
                size_t u = s + k, v = s + k + m / 2;
                double xr = re[v] * wr - im[v] * wi, xi = re[v] * wi + im[v] * wr;
                re[v] = re[u] - xr;
                im[v] = im[u] - xi;
                re[u] += xr;
                im[u] += xi;
            }
        }
    }
}

/* rel L2 of path p's forward c2c of 2 random frames of size n against fft_double */
static double c2c_error(int p, size_t n)
{
    size_t b = 2;
    fft_config cfg = path_config(p);
    fft_plan *pl = NULL;
    sp_errinfo ei = {{0}};
    cpx *x = malloc(n * b * sizeof *x), *y = malloc(n * b * sizeof *y);
    double *re = malloc(n * sizeof *re), *im = malloc(n * sizeof *im);
    double e2 = 0, r2 = 0;
    cfg.n = n;
    cfg.hop = n;
    cfg.max_batch = b;
    srand(12345);
    for (size_t i = 0; i < n * b; i++) {
        x[i].re = (float)rand() / (float)RAND_MAX * 2.0f - 1.0f;
        x[i].im = (float)rand() / (float)RAND_MAX * 2.0f - 1.0f;
    }
    if (!x || !y || !re || !im || fft_plan_create(&cfg, &pl, &ei) != SP_OK || fft_c2c(pl, x, y, b, 0) != SP_OK) {
        e2 = INFINITY;
        goto done;
    }
    for (size_t f = 0; f < b; f++) {
        for (size_t i = 0; i < n; i++) {
            re[i] = x[f * n + i].re;
            im[i] = x[f * n + i].im;
        }
        fft_double(re, im, n);
        for (size_t i = 0; i < n; i++) {
            double dr = y[f * n + i].re - re[i], di = y[f * n + i].im - im[i];
            e2 += dr * dr + di * di;
            r2 += re[i] * re[i] + im[i] * im[i];
        }
    }
done:
    fft_plan_destroy(pl);
    free(x);
    free(y);
    free(re);
    free(im);
    return isfinite(e2) && r2 > 0 ? sqrt(e2 / r2) : INFINITY;
}

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* What every section of the benchmark reads. */
typedef struct {
    int reps, lpoints, lone;
    size_t run_bytes;
    const float *win;
    double copy_gbs;
} bench_ctx;

/* C2C: measured once, shown as two tables (the fused kernels and the per-level design
 * against cuFFT). 1 when the targets are met, 0 when not, -1 on an error. */
static int bench_c2c(const bench_ctx *b)
{
    sp_errinfo ei = {{0}};
    const int reps = b->reps, lpoints = b->lpoints, lone = b->lone;
    const size_t run_bytes = b->run_bytes;
    const float *win = b->win;
    const double copy_gbs = b->copy_gbs;
    int met_all = 1;
    enum { LMIN = 8, LMAX = 21, NL = LMAX - LMIN + 1 };
    double ct[NL][P_COUNT], cerr[NL][P_COUNT];
    size_t cbatch[NL];
    const int lmin = lone ? lone : LMIN, lmax = lone ? lone : LMAX;
    for (int l = lmin; l <= lmax; l++) {
        size_t n = (size_t)1 << l, batch = run_bytes / (16 * n);
        cbatch[l - LMIN] = batch;
        for (int p = 0; p < P_COUNT; p++) {
            gpu_plan *gp = create(p, n, n, 2 * batch, win, (double)n, &ei);
            if (!gp || gpu_time_forward(gp, 0, batch, reps, &ct[l - LMIN][p], &ei) != SP_OK) {
                fprintf(stderr, "bench_gpu_fft: c2c N=%zu %s: %s\n", n, pname[p], ei.msg);
                return -1;
            }
            gpu_plan_destroy(gp);
            cerr[l - LMIN][p] = c2c_error(p, n);
        }
    }

    /* the fused kernels against cuFFT, with the targets (issue 5) */
    if (lmin <= lmax) {
        printf("\nC2C forward, out of place, device data (2^%d points a run), median of %d; "
               "speed = cufft_ms / fused_ms; %%cp = effective bandwidth / copy bandwidth\n", lpoints, reps);
        printf("%8s %6s %9s %9s %6s %6s %6s %9s %9s %7s %4s\n", "N", "batch", "fused_ms", "cufft_ms", "fu%cp",
               "cf%cp", "speed", "err_fused", "err_cufft", "target", "met");
    }
    for (int l = lmin; l <= lmax; l++) {
        const double *t = ct[l - LMIN], *err = cerr[l - LMIN];
        size_t n = (size_t)1 << l, batch = cbatch[l - LMIN];
        double bytes = 16.0 * (double)n * (double)batch, speed = t[P_CUFFT] / t[P_FUSED];
        char target[16] = "-";
        int met = err[P_FUSED] < 1e-5;
        if (l <= 16) { /* the targets stop at 65536 */
            double want = l <= 13 ? 0.95 : 1.2;
            snprintf(target, sizeof target, "%.2fx", want);
            met &= speed >= want;
            met_all &= met;
        }
        printf("%8zu %6zu %9.4f %9.4f %6.2f %6.2f %6.2f %9.2e %9.2e %7s %4s\n", n, batch, t[P_FUSED],
               t[P_CUFFT], bytes / (t[P_FUSED] * 1e-3) / 1e9 / copy_gbs, bytes / (t[P_CUFFT] * 1e-3) / 1e9 / copy_gbs,
               speed, err[P_FUSED], err[P_CUFFT], target, l <= 16 ? (met ? "yes" : "NO") : "-");
    }

    /* the per-level design (bit-reverse + one kernel per level) against cuFFT (issue 3) */
    if (lmin <= lmax) {
        printf("\nC2C per-level kernels against cuFFT, same runs: GB/s = (bytes read + written once) / time, "
               "GFLOP/s = 5 N log2(N) batch / time; slower = perlv_ms / cufft_ms\n");
        printf("%8s %6s %9s %9s %8s %8s %8s %8s %7s %9s\n", "N", "batch", "perlv_ms", "cufft_ms", "pl_GB/s",
               "pl_GF/s", "cf_GB/s", "cf_GF/s", "slower", "err_perlv");
    }
    for (int l = lmin; l <= lmax; l++) {
        const double *t = ct[l - LMIN], *err = cerr[l - LMIN];
        size_t n = (size_t)1 << l, batch = cbatch[l - LMIN];
        double bytes = 16.0 * (double)n * (double)batch, flops = 5.0 * (double)n * l * (double)batch;
        if (l <= 16)
            met_all &= err[P_PERLEVEL] < 1e-5;
        printf("%8zu %6zu %9.4f %9.4f %8.0f %8.0f %8.0f %8.0f %7.2f %9.2e\n", n, batch, t[P_PERLEVEL],
               t[P_CUFFT], bytes / (t[P_PERLEVEL] * 1e-3) / 1e9, flops / (t[P_PERLEVEL] * 1e-3) / 1e9,
               bytes / (t[P_CUFFT] * 1e-3) / 1e9, flops / (t[P_CUFFT] * 1e-3) / 1e9, t[P_PERLEVEL] / t[P_CUFFT],
               err[P_PERLEVEL]);
    }
    fflush(stdout);

    return met_all;
}

/* R2C forward against cuFFT. 1 when the targets are met, 0 when not, -1 on an error. */
static int bench_r2c(const bench_ctx *b)
{
    sp_errinfo ei = {{0}};
    const int reps = b->reps;
    const size_t run_bytes = b->run_bytes;
    const float *win = b->win;
    const double copy_gbs = b->copy_gbs;
    int met_all = 1;
    printf("\nR2C forward, device data (4n bytes in, 8(n/2+1) out a frame), median of %d\n", reps);
    printf("%6s %6s %9s %9s %9s %6s %6s %6s %7s %4s\n", "n", "batch", "fused_ms", "perlv_ms",
           "cufft_ms", "fu%cp", "cf%cp", "speed", "target", "met");
    for (int l = 8; l <= 14; l++) {
        size_t n = (size_t)1 << l, batch = run_bytes / (8 * n);
        double t[P_COUNT];
        for (int p = 0; p < P_COUNT; p++) {
            gpu_plan *gp = create(p, n, n, 2 * batch, win, (double)n, &ei);
            if (!gp || gpu_time_forward(gp, 1, batch, reps, &t[p], &ei) != SP_OK) {
                fprintf(stderr, "bench_gpu_fft: r2c n=%zu %s: %s\n", n, pname[p], ei.msg);
                return -1;
            }
            gpu_plan_destroy(gp);
        }
        double bytes = (4.0 * (double)n + 8.0 * (double)(n / 2 + 1)) * (double)batch;
        double speed = t[P_CUFFT] / t[P_FUSED];
        int met = speed >= 0.95;
        met_all &= met;
        printf("%6zu %6zu %9.4f %9.4f %9.4f %6.2f %6.2f %6.2f %6.2fx %4s\n", n, batch, t[P_FUSED],
               t[P_PERLEVEL], t[P_CUFFT], bytes / (t[P_FUSED] * 1e-3) / 1e9 / copy_gbs,
               bytes / (t[P_CUFFT] * 1e-3) / 1e9 / copy_gbs, speed, 0.95, met ? "yes" : "NO");
        fflush(stdout);
    }
    return met_all;
}

/* The STFT of one hour of 48 kHz, device-resident, against the cuFFT pipeline and the copy
 * floor. 1 when the targets are met, 0 when not, -1 on an error. */
static int bench_stft(const bench_ctx *b)
{
    sp_errinfo ei = {{0}};
    const int reps = b->reps;
    const float *win = b->win;
    const double copy_gbs = b->copy_gbs;
    int met_all = 1;
    size_t n = 4096, hop = 1024, nsamp = (size_t)48000 * 3600, nf = 0;
    int sreps = reps < 5 ? reps : 5;
    double t[P_COUNT];
    for (int p = 0; p < P_COUNT; p++) {
        gpu_plan *gp = create(p, n, hop, 16384, win, (double)n, &ei);
        if (!gp || gpu_time_stft(gp, nsamp, sreps, &t[p], &nf, &ei) != SP_OK) {
            fprintf(stderr, "bench_gpu_fft: stft %s: %s\n", pname[p], ei.msg);
            return -1;
        }
        gpu_plan_destroy(gp);
    }
    double bytes = 4.0 * (double)nsamp + 4.0 * (double)nf * (double)(n / 2 + 1);
    double floor_ms = bytes / (copy_gbs * 1e9) * 1e3;
    double speed = t[P_CUFFT] / t[P_FUSED], vs_floor = t[P_FUSED] / floor_ms;
    int met1 = speed >= 5.0, met2 = vs_floor <= 2.0;
    met_all &= met1 & met2;
    printf("\nSTFT n=%zu hop=%zu, %zu samples (1 h at 48 kHz) -> %zu frames x %zu bins dB, "
           "device-resident, median of %d\n", n, hop, nsamp, nf, n / 2 + 1, sreps);
    printf("  fused %.3f ms, perlevel pipeline %.3f ms, cufft pipeline %.3f ms; copy floor %.3f ms "
           "(%.2f GB read once + written once)\n", t[P_FUSED], t[P_PERLEVEL], t[P_CUFFT], floor_ms,
           bytes / 1e9);
    printf("  speed vs cufft pipeline %.2fx (target >= 5x: %s); fused / floor %.2f (%.0f%% of copy "
           "bandwidth; target <= 2: %s)\n", speed, met1 ? "yes" : "NO", vs_floor, 100.0 / vs_floor,
           met2 ? "yes" : "NO");
    return met_all;
}

/* live: one frame per call, host to host. 1 when the fused path meets its target, 0 when
 * not, -1 on an error. */
static int bench_live(void)
{
    sp_errinfo ei = {{0}};
    int met_all = 1;
    printf("\nlive: one frame n=4096 per fft_stft_db call (copy in + compute + copy out), host wall "
           "time, median of 2000 after 100 warm-up\n");
    for (int p = 0; p < P_COUNT; p++) {
        fft_config cfg = path_config(p);
        fft_plan *pl = NULL;
        size_t n = 4096, nb = n / 2 + 1, runs = 2000;
        float *sig = malloc(n * sizeof *sig), *db = malloc(nb * sizeof *db);
        double *us = malloc(runs * sizeof *us);
        cfg.n = n;
        cfg.hop = 1024;
        cfg.max_batch = 1;
        cfg.live = 1;
        if (!sig || !db || !us || fft_plan_create(&cfg, &pl, &ei) != SP_OK) {
            fprintf(stderr, "bench_gpu_fft: live %s: %s\n", pname[p], ei.msg);
            return -1;
        }
        for (size_t i = 0; i < n; i++)
            sig[i] = (float)sin(0.01 * (double)i);
        for (int w = 0; w < 100; w++)
            fft_stft_db(pl, sig, 1, db);
        for (size_t r = 0; r < runs; r++) {
            double t0 = now_us();
            if (fft_stft_db(pl, sig, 1, db) != SP_OK) {
                fprintf(stderr, "bench_gpu_fft: live %s: %s\n", pname[p], fft_plan_last_error(pl));
                return -1;
            }
            us[r] = now_us() - t0;
        }
        qsort(us, runs, sizeof *us, cmp_double);
        int met = us[runs / 2] <= 30.0;
        if (p == P_FUSED)
            met_all &= met;
        printf("  %-8s median %.1f us, p90 %.1f us, p99 %.1f us per hop  (target <= 30 us: %s)\n",
               pname[p], us[runs / 2], us[runs * 9 / 10], us[runs * 99 / 100], met ? "yes" : "NO");
        fft_plan_destroy(pl);
        free(sig);
        free(db);
        free(us);
    }
    return met_all;
}

int main(int argc, char **argv)
{
    sp_errinfo ei = {{0}};
    int reps = argc > 1 ? atoi(argv[1]) : 15;
    char name[256];
    int sms = 0, met_all = 1, met;
    size_t mem = 0;
    double copy_ms = 0;
    const size_t copy_bytes = (size_t)1 << 30;
    const int lpoints = argc > 4 ? atoi(argv[4]) : 26;
    const size_t run_bytes = (size_t)16 << (lpoints < 0 || lpoints > 27 ? 0 : lpoints);
    const size_t nmax = (size_t)1 << 21;

    const char *only = argc > 2 && strcmp(argv[2], "all") != 0 ? argv[2] : NULL;
    int lone = argc > 3 ? atoi(argv[3]) : 0;
#define WANT(sec) (!only || strstr(only, sec))
    if (reps < 1 || (argc > 3 && lone != 0 && (lone < 8 || lone > 21)) || lpoints < 20 || lpoints > 27) {
        fprintf(stderr, "usage: bench_gpu_fft [reps >= 1] [all | c2c,r2c,stft,live] [log2 N, 8..21, 0: all] "
                        "[log2 points a batch, 20..27]\n");
        return 2;
    }
    env_cfg = fft_config_default();
    if (job_env_fft(&env_cfg.tuning, &ei) != SP_OK) {
        fprintf(stderr, "bench_gpu_fft: %s\n", ei.msg);
        return 2;
    }
    if (gpu_probe(&ei) != SP_OK) {
        fprintf(stderr, "bench_gpu_fft: %s\n", ei.msg);
        return 1;
    }
    if (gpu_time_device(name, sizeof name, &sms, &mem, &ei) != SP_OK ||
        gpu_time_d2d(copy_bytes, reps, &copy_ms, &ei) != SP_OK) {
        fprintf(stderr, "bench_gpu_fft: %s\n", ei.msg);
        return 1;
    }
    double copy_gbs = 2.0 * (double)copy_bytes / (copy_ms * 1e-3) / 1e9;
    printf("device: %s, %d SMs, %.1f GiB; C2C 16384 by the %s kernel%s\n", name, sms, (double)mem / (1 << 30),
           (fft_cuda_c2c_flags(&env_cfg) & FUSED_STREAM) ? "streamed" : "one-block",
           env_cfg.tuning.cuda_stream != FFT_CUDA_STREAM_AUTO ? " (SPECTRO_CUDA_STREAM)" : "");
    printf("copy: device-to-device cudaMemcpy of %zu MiB: %.3f ms, %.0f GB/s (read + write)\n",
           copy_bytes >> 20, copy_ms, copy_gbs);

    float *win = malloc(nmax * sizeof *win);
    if (!win)
        return 1;
    for (size_t i = 0; i < nmax; i++)
        win[i] = 1.0f;

    bench_ctx b = {.reps = reps, .lpoints = lpoints, .lone = lone, .run_bytes = run_bytes, .win = win,
                   .copy_gbs = copy_gbs};
    const char *sections[] = {"c2c", "r2c", "stft", "live"};
    int (*const run[])(const bench_ctx *) = {bench_c2c, bench_r2c, bench_stft, NULL};
    for (int i = 0; i < 4; i++) {
        if (!WANT(sections[i]))
            continue;
        if ((met = run[i] ? run[i](&b) : bench_live()) < 0)
            return 1;
        met_all &= met;
        fflush(stdout);
    }
    printf("\nall targets met: %s\n", met_all ? "yes" : "NO");
    free(win);
    return 0;
}
