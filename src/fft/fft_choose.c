/* fft_choose: what `auto` weighs before it pays for anything: whether a GPU exists (its
 * device nodes, no CUDA call) and which backend finishes the job first (a cost model over
 * measured rates). fft.c's table and fft_plan_create use it; see fft.h.
 *
 * The unit of work is one frame's N*log2(N) (a real-input frame of N points), so a job is
 * frames x channels x N*log2(N) units. The cpu backend spreads the frames of a call over
 * its threads, so its time is units / (FFT_RATE_CPU_CORE x threads); the GPU pays
 * FFT_RATE_GPU_START once a process (driver, context, pinned buffers, teardown) and then
 * runs units / FFT_RATE_GPU, copies included. The host's own work (decoding, writing the
 * output) is the same for one file on either; a batch on the cpu backend shares it over its
 * sessions, while a GPU batch runs one session that does all of it (FFT_RATE_HOST). */
#include "fft.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* The rates, where each came from (units of N*log2(N) a second):
 *
 * FFT_RATE_CPU_CORE 3.0e9 a thread: the cpu backend inside the pipeline on the H100 host
 *   (16 cores, 8 threads), `--verbose` of bench/bench_e2e.sh --backend cpu (docs/performance.md,
 *   2026-11-23): 10 minutes of 48 kHz, N 4096 hop 1024 (28,122 frames, 1.38e9 units) in
 *   0.060 s of FFT calls = 2.9e9 a thread; 60 minutes (8.29e9 units) in 0.34 s = 3.0e9.
 *   This dev machine (AMD EPYC, 2 cores), build/bench/bench_fft_cpu (its last line prints
 *   this rate): stft_db 0.090 s on 2 threads = 7.7e9 a thread (2026-11-24; performance.md's
 *   0.111-0.179 s: 3.9e9-6.2e9). Larger N run slower a unit (r2c 65536: 0.6x of 4096's), and
 *   8 threads share one memory. The choice only matters where a GPU exists, so the GPU
 *   host's figure: it errs towards the GPU on a job that is close.
 * FFT_RATE_GPU_START 0.35 s: `time build-gpu/bench/bench_cuda_start` (driver load,
 *   context, pinning 45 MB, teardown at exit): 0.329-0.372 s on the H100 host, 0.355 s on
 *   the H200 host (docs/performance.md, 2026-11-23/24).
 * FFT_RATE_GPU 2.2e11: the cuda backend on the H100 host, copies included: an hour of
 *   audio, N 4096 hop 1024 (8.29e9 units), in 0.038 s of FFT calls (docs/performance.md); the dense
 *   job of issue 16 (10 minutes, N 16384 hop 64: 1.03e11 units) in 0.32 s = 3.2e11. The
 *   lower one.
 * FFT_RATE_HOST 2.0e9 bytes a second: one session decoding 16-bit WAV and writing .npy
 *   spectra, from bench/bench_batch.sh on the H200 host (issue 27: 1000 x 10-s files,
 *   0.96 MB in and 3.84 MB out each, took 2.86-3.14 s on cuda's one session, of which
 *   ~0.35 s start and ~0.1 s FFT: ~2.5 ms a file, 4.8 MB, ~1.9e9 a second).
 * FFT_RATE_GPU_CALL 20 us: a live call of one frame, copies in and out (docs/performance.md: fused
 *   20.3 us on the H100, 22.4 us on the H200, median of 2000): what a live frame costs the
 *   GPU besides its units. */
#define FFT_RATE_CPU_CORE 3.0e9
#define FFT_RATE_GPU_START 0.35
#define FFT_RATE_GPU 2.2e11
#define FFT_RATE_GPU_CALL 20e-6
#define FFT_RATE_HOST 2.0e9

#define MINUTE_S 60.0       /* what a file of unknown length is weighed as */
#define DEFAULT_RATE 48000.0 /* a job that gives no sample rate */

fft_rates fft_rates_default(void)
{
    fft_rates r;
    memset(&r, 0, sizeof r);
    r.cpu_core = FFT_RATE_CPU_CORE;
    r.gpu_start = FFT_RATE_GPU_START;
    r.gpu = FFT_RATE_GPU;
    r.host = FFT_RATE_HOST;
    r.cpu_threads = 1;
    return r;
}

/* ---- the device nodes ----------------------------------------------------------------- */

static int exists(const char *root, const char *path)
{
    char p[4096];
    struct stat sb;
    snprintf(p, sizeof p, "%s%s", root, path);
    return stat(p, &sb) == 0;
}

/* An entry of dir whose name is `prefix` and then digits only (prefix "" : any entry). */
static int has_entry(const char *root, const char *dir, const char *prefix)
{
    char p[4096];
    size_t lp = strlen(prefix);
    int found = 0;
    DIR *d;
    struct dirent *e;
    snprintf(p, sizeof p, "%s%s", root, dir);
    if (!(d = opendir(p)))
        return 0;
    while (!found && (e = readdir(d)) != NULL) {
        const char *s = e->d_name;
        if (s[0] == '.' || strncmp(s, prefix, lp) != 0)
            continue;
        s += lp;
        if (lp == 0)
            found = 1;
        else if (*s)
            found = strspn(s, "0123456789") == strlen(s);
    }
    closedir(d);
    return found;
}

int fft_gpu_present_under(const char *root, char *why, size_t len)
{
    if (!root)
        root = "";
    /* the driver's control node and one per GPU; /proc alone: the nodes are made on first
     * use (nvidia-modprobe) where no udev rule makes them; WSL2 has /dev/dxg instead */
    if ((exists(root, "/dev/nvidiactl") && has_entry(root, "/dev", "nvidia")) ||
        has_entry(root, "/proc/driver/nvidia/gpus", "") || exists(root, "/dev/dxg"))
        return 1;
    if (why && len)
        snprintf(why, len, "no NVIDIA GPU device node (/dev/nvidia0, /proc/driver/nvidia/gpus)");
    return 0;
}

int fft_gpu_present(char *why, size_t len)
{
    return fft_gpu_present_under("", why, len);
}

/* ---- the cost model ------------------------------------------------------------------- */

int fft_backend_choose(const fft_job *job, const fft_rates *rates, fft_choice *out)
{
    double units, frames, rate, threads, cpu_rate;
    if (!job || !rates || !out)
        return SP_EINVAL;
    memset(out, 0, sizeof *out);
    out->made = 1;
    out->device = rates->device;
    out->cpu_threads = rates->cpu_threads > 0 ? rates->cpu_threads : 1;
    out->gpu_start_s = rates->gpu_start;
    if (!rates->device)
        snprintf(out->no_device, sizeof out->no_device, "%s", rates->no_device[0] ? rates->no_device : "no GPU");
    if (job->channels < 1 || job->n < 2 || job->hop < 1) {
        /* nothing to weigh: the GPU when one exists (a caller of many calls) */
        out->basis = FFT_CHOICE_NONE;
        out->kind = rates->device ? FFT_BACKEND_CUDA : FFT_BACKEND_CPU;
        return SP_OK;
    }
    threads = out->cpu_threads;
    cpu_rate = rates->cpu_core > 0 ? rates->cpu_core * threads : 1.0;
    units = (double)job->n * log2((double)job->n) * job->channels; /* one frame, every channel */
    rate = job->rate > 0 ? job->rate : DEFAULT_RATE;
    if (job->live) {
        /* a second of audio: its frames' work over a second of every thread */
        frames = rate / (double)job->hop;
        out->basis = FFT_CHOICE_LIVE;
        out->cpu_s = frames * units / cpu_rate;
        out->gpu_s = rates->gpu > 0 ? frames * (units / rates->gpu + FFT_RATE_GPU_CALL) : HUGE_VAL;
        out->kind = rates->device && out->cpu_s > FFT_LIVE_CPU_MAX_LOAD ? FFT_BACKEND_CUDA : FFT_BACKEND_CPU;
        return SP_OK;
    }
    if (job->frames > 0) {
        frames = (double)job->frames;
        out->basis = FFT_CHOICE_JOB;
    } else {
        frames = floor(MINUTE_S * rate / (double)job->hop) + 1;
        out->basis = FFT_CHOICE_MINUTE;
    }
    out->cpu_s = frames * units / cpu_rate;
    out->gpu_s = rates->gpu > 0 ? rates->gpu_start + frames * units / rates->gpu : HUGE_VAL;
    if (job->host_bytes > 0 && rates->host > 0) {
        out->host_s = (double)job->host_bytes / rates->host;
        out->cpu_s += out->host_s / (job->host_width > 1 ? job->host_width : 1);
        out->gpu_s += out->host_s;
    }
    out->kind = rates->device && out->gpu_s < out->cpu_s ? FFT_BACKEND_CUDA : FFT_BACKEND_CPU;
    return SP_OK;
}

/* "~0.06 s", or in ms / µs below 10 ms so that small jobs still show a figure. */
static void seconds(char *buf, size_t len, double s)
{
    if (s >= 0.01 || s <= 0)
        snprintf(buf, len, "~%.2f s", s);
    else
        snprintf(buf, len, "~%.2f ms", s * 1e3);
}

void fft_choice_format(const fft_choice *c, char *buf, size_t len)
{
    const char *name, *plural;
    char cs[32], gs[32], hs[32], gpu[160];
    if (!buf || !len)
        return;
    buf[0] = 0;
    if (!c || !c->made)
        return;
    name = c->kind == FFT_BACKEND_CUDA ? "cuda" : "cpu";
    plural = c->cpu_threads == 1 ? "" : "s";
    if (c->basis == FFT_CHOICE_NONE) {
        snprintf(buf, len, "auto chose %s: %s (no job size to weigh)", name,
                 c->device ? "a GPU exists" : c->no_device);
        return;
    }
    if (c->basis == FFT_CHOICE_LIVE) {
        if (c->device)
            snprintf(gpu, sizeof gpu, "cuda %.2g%%", 100.0 * c->gpu_s);
        else
            snprintf(gpu, sizeof gpu, "cuda: %s", c->no_device);
        snprintf(buf, len, "auto chose %s: live: cpu busy %.2g%% of %d thread%s (cuda above %.0f%%), %s", name,
                 100.0 * c->cpu_s, c->cpu_threads, plural, 100.0 * FFT_LIVE_CPU_MAX_LOAD, gpu);
        return;
    }
    seconds(cs, sizeof cs, c->cpu_s);
    seconds(gs, sizeof gs, c->gpu_s);
    if (c->device)
        snprintf(gpu, sizeof gpu, "cuda %s (%.2f s start)", gs, c->gpu_start_s);
    else
        snprintf(gpu, sizeof gpu, "cuda: %s", c->no_device);
    snprintf(buf, len, "auto chose %s: %scpu %s (%d thread%s), %s", name,
             c->basis == FFT_CHOICE_MINUTE ? "a minute of audio (length unknown): " : "", cs, c->cpu_threads,
             plural, gpu);
    if (c->host_s > 0) {
        size_t at = strlen(buf);
        seconds(hs, sizeof hs, c->host_s);
        snprintf(buf + at, len - at, "; both with %s of decoding and writing", hs);
    }
}
