/* test_backend_choose: what --backend auto weighs (src/fft/fft_choose.c), with injected
 * rates: a grid of jobs (short file -> cpu, a huge dense job -> cuda when a device exists,
 * a live fast hop -> cuda, no device -> cpu with the reason), the estimates against the
 * formula, the crossover where the GPU's start pays, the device-node check on a fake tree
 * (and its speed), fft_config_choose's threads and pretence, a plan made by auto that
 * chose the cpu loading no CUDA driver, and the --verbose line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "check.h"
#include "fft.h"
#include "test_util.h"

/* The rates every grid case uses: round numbers near the measured ones. */
static fft_rates rates_of(int threads, int device)
{
    fft_rates r = fft_rates_default();
    r.cpu_core = 3e9;
    r.gpu_start = 0.35;
    r.gpu = 2e11;
    r.cpu_threads = threads;
    r.device = device;
    if (!device)
        snprintf(r.no_device, sizeof r.no_device, "no NVIDIA GPU device node (test)");
    return r;
}

static fft_job file_job(size_t n, size_t hop, int channels, double seconds, double rate)
{
    fft_job j;
    memset(&j, 0, sizeof j);
    j.n = n;
    j.hop = hop;
    j.channels = channels;
    j.rate = rate;
    j.frames = seconds > 0 ? (uint64_t)((seconds * rate - (double)n) / (double)hop) + 1 : 0;
    return j;
}

static double nlogn(size_t n)
{
    double l = 0;
    while (((size_t)1 << (int)l) < n)
        l++;
    return (double)n * l;
}

static fft_choice choose(const fft_job *j, const fft_rates *r)
{
    fft_choice c;
    memset(&c, 0x5a, sizeof c); /* every field is written */
    CHECK(fft_backend_choose(j, r, &c) == SP_OK);
    CHECK(c.made == 1);
    return c;
}

static void test_grid(void)
{
    fft_rates gpu8 = rates_of(8, 1), none8 = rates_of(8, 0), gpu2 = rates_of(2, 1);
    fft_job j;
    fft_choice c;
    double units;

    /* a short file: the cpu, well under the GPU's start */
    j = file_job(4096, 1024, 1, 10.0, 48000);
    c = choose(&j, &gpu8);
    CHECK(c.kind == FFT_BACKEND_CPU && c.basis == FFT_CHOICE_JOB);
    units = (double)j.frames * nlogn(4096);
    CHECK_CLOSE(c.cpu_s, units / (3e9 * 8), 1e-12);
    CHECK_CLOSE(c.gpu_s, 0.35 + units / 2e11, 1e-12);
    CHECK(c.cpu_threads == 8 && c.device == 1 && c.no_device[0] == 0);

    /* the everyday job of issue 16 (10 minutes, default N and hop): the cpu on the GPU host */
    j = file_job(4096, 1024, 1, 600.0, 48000);
    c = choose(&j, &gpu8);
    CHECK_MSG(c.kind == FFT_BACKEND_CPU, "10-minute dump: cpu %.3f s, gpu %.3f s", c.cpu_s, c.gpu_s);

    /* the dense job (N 16384, hop 64, 10 minutes): the GPU when one exists */
    j = file_job(16384, 64, 1, 600.0, 48000);
    c = choose(&j, &gpu8);
    CHECK_MSG(c.kind == FFT_BACKEND_CUDA, "dense job: cpu %.3f s, gpu %.3f s", c.cpu_s, c.gpu_s);
    CHECK(c.cpu_s > 3.0 && c.gpu_s < 1.0);
    /* ... and the cpu, saying why, when none does */
    c = choose(&j, &none8);
    CHECK(c.kind == FFT_BACKEND_CPU && c.device == 0);
    CHECK(strstr(c.no_device, "no NVIDIA GPU device node") != NULL);
    CHECK(c.cpu_s > 3.0); /* still weighed: -v shows it */

    /* many channels multiply the work: an hour of 32 channels goes to the GPU */
    j = file_job(4096, 1024, 32, 3600.0, 48000);
    c = choose(&j, &gpu8);
    CHECK(c.kind == FFT_BACKEND_CUDA);
    j.channels = 1;
    c = choose(&j, &gpu8);
    CHECK(c.kind == FFT_BACKEND_CPU);
    /* fewer cpu threads: the same hour pays for the GPU's start on 2 cores */
    c = choose(&j, &gpu2);
    CHECK_MSG(c.kind == FFT_BACKEND_CUDA, "an hour on 2 threads: cpu %.3f s, gpu %.3f s", c.cpu_s, c.gpu_s);

    /* a batch: the host's decoding and writing, shared by the cpu's sessions, done by the
     * GPU's one session alone (issue 27: 1000 x 10-s files, 4.8 GB of WAV in and .npy out) */
    j = file_job(4096, 1024, 1, 10000, 48000);
    c = choose(&j, &gpu8);
    CHECK(c.host_s == 0 && c.kind == FFT_BACKEND_CUDA); /* not weighed: the FFT alone decides */
    j.host_bytes = 4800000000u;
    j.host_width = 16;
    c = choose(&j, &gpu8);
    CHECK(gpu8.host > 1e9 && gpu8.host < 1e10); /* fft_choose.c: measured */
    CHECK_CLOSE(c.host_s, 4.8e9 / gpu8.host, 1e-9);
    CHECK_CLOSE(c.cpu_s, (double)j.frames * nlogn(4096) / (3e9 * 8) + c.host_s / 16, 1e-9);
    CHECK_CLOSE(c.gpu_s, 0.35 + (double)j.frames * nlogn(4096) / 2e11 + c.host_s, 1e-9);
    CHECK_MSG(c.kind == FFT_BACKEND_CPU, "1000 files: cpu %.3f s, gpu %.3f s", c.cpu_s, c.gpu_s);
    j.host_width = 1; /* one session either way: the host's work weighs the same */
    CHECK(choose(&j, &gpu8).kind == FFT_BACKEND_CUDA);

    /* live, a fast hop on many channels: the cpu cannot keep up -> the GPU */
    j = file_job(4096, 8, 32, 0, 96000);
    j.live = 1;
    c = choose(&j, &gpu8);
    CHECK(c.basis == FFT_CHOICE_LIVE);
    CHECK_CLOSE(c.cpu_s, 96000.0 / 8 * 32 * nlogn(4096) / (3e9 * 8), 1e-9);
    CHECK_MSG(c.kind == FFT_BACKEND_CUDA && c.cpu_s > FFT_LIVE_CPU_MAX_LOAD, "live load %.3f", c.cpu_s);
    c = choose(&j, &none8); /* no device: the cpu does what it can */
    CHECK(c.kind == FFT_BACKEND_CPU && c.no_device[0] != 0);
    /* live, the everyday microphone: the cpu, idle most of the time */
    j = file_job(4096, 1024, 1, 0, 48000);
    j.live = 1;
    c = choose(&j, &gpu8);
    CHECK(c.kind == FFT_BACKEND_CPU && c.cpu_s < 0.01);
    /* live, just over the margin: the GPU; just under: the cpu (the margin is what decides) */
    j = file_job(4096, 256, 1, 0, 48000);
    j.live = 1;
    {
        fft_rates r = gpu8;
        double load1 = 48000.0 / 256 * nlogn(4096); /* units a second */
        r.cpu_threads = 1;
        r.cpu_core = load1 / (FFT_LIVE_CPU_MAX_LOAD * 1.01); /* busy 50.5 % */
        CHECK(choose(&j, &r).kind == FFT_BACKEND_CUDA);
        r.cpu_core = load1 / (FFT_LIVE_CPU_MAX_LOAD * 0.99); /* busy 49.5 % */
        CHECK(choose(&j, &r).kind == FFT_BACKEND_CPU);
    }

    /* a file of unknown length: weighed as a minute; the cpu for everyday work, the GPU when
     * a second of audio is a lot of work */
    j = file_job(4096, 1024, 2, 0, 48000);
    c = choose(&j, &gpu8);
    CHECK(c.basis == FFT_CHOICE_MINUTE && c.kind == FFT_BACKEND_CPU);
    CHECK_CLOSE(c.cpu_s, (floor(60.0 * 48000 / 1024) + 1) * 2 * nlogn(4096) / (3e9 * 8), 1e-6);
    j = file_job(65536, 16, 8, 0, 96000);
    c = choose(&j, &gpu8);
    CHECK(c.basis == FFT_CHOICE_MINUTE && c.kind == FFT_BACKEND_CUDA);

    /* no job described: the GPU when one exists (what a plan made without a job did) */
    memset(&j, 0, sizeof j);
    j.n = 4096;
    j.hop = 1024;
    c = choose(&j, &gpu8);
    CHECK(c.basis == FFT_CHOICE_NONE && c.kind == FFT_BACKEND_CUDA);
    c = choose(&j, &none8);
    CHECK(c.basis == FFT_CHOICE_NONE && c.kind == FFT_BACKEND_CPU && c.no_device[0] != 0);

    CHECK(fft_backend_choose(NULL, &gpu8, &c) == SP_EINVAL);
    CHECK(fft_backend_choose(&j, NULL, &c) == SP_EINVAL);
    CHECK(fft_backend_choose(&j, &gpu8, NULL) == SP_EINVAL);
}

/* As a file grows, the choice turns from cpu to cuda once, where the GPU's start is paid
 * for: frames* = start / (units/(core*threads) - units/gpu); and injected rates move it. */
static void test_crossover(void)
{
    fft_rates r = rates_of(8, 1);
    fft_job j = file_job(4096, 1024, 1, 1.0, 48000);
    double per = nlogn(4096), cross = r.gpu_start / (per / (r.cpu_core * 8) - per / r.gpu);
    uint64_t first_gpu = 0;
    for (uint64_t f = 1; f < ((uint64_t)1 << 26); f += f / 64 + 1) {
        j.frames = f;
        if (choose(&j, &r).kind == FFT_BACKEND_CUDA) {
            if (!first_gpu)
                first_gpu = f;
        } else {
            CHECK_MSG(first_gpu == 0, "cpu again at %llu frames after cuda at %llu", (unsigned long long)f,
                      (unsigned long long)first_gpu);
        }
    }
    CHECK_MSG(first_gpu > 0 && (double)first_gpu >= cross && (double)first_gpu <= cross * 1.02 + 2,
              "first cuda at %llu frames, break-even %.0f", (unsigned long long)first_gpu, cross);
    /* a GPU that starts ten times slower moves the crossover ten times later (cpu there) */
    j.frames = (uint64_t)(cross * 2);
    CHECK(choose(&j, &r).kind == FFT_BACKEND_CUDA);
    r.gpu_start *= 10;
    CHECK(choose(&j, &r).kind == FFT_BACKEND_CPU);
    /* a faster cpu core: the cpu again */
    r = rates_of(8, 1);
    r.cpu_core *= 4;
    CHECK(choose(&j, &r).kind == FFT_BACKEND_CPU);
}

/* Makes `rel` under the scratch directory: a directory when it ends in '/', else an empty
 * file. */
static void make(const char *rel)
{
    char p[4096];
    size_t len;
    tu_path(p, sizeof p, rel);
    len = strlen(p);
    if (len && p[len - 1] == '/') {
        p[len - 1] = 0;
        CHECK_MSG(mkdir(p, 0700) == 0, "cannot make %s", p);
    } else {
        FILE *f = fopen(p, "w");
        CHECK_MSG(f != NULL, "cannot make %s", p);
        if (f)
            fclose(f);
    }
}

static int present_in(const char *sub, char *why, size_t len)
{
    char root[4096];
    tu_path(root, sizeof root, sub);
    return fft_gpu_present_under(root, why, len);
}

/* The device nodes, on fake trees: only a GPU's node (or the driver's /proc entry, or
 * WSL's /dev/dxg) counts; the control node or nvidia-uvm alone do not. */
static void test_nodes(void)
{
    static const char *const tree[] = {
        "a/", "a/dev/", "a/dev/nvidiactl", "a/dev/nvidia-uvm", "a/dev/nvidia-modeset", "a/dev/nvidia",
        "b/", "b/dev/", "b/dev/nvidiactl", "b/dev/nvidia0", "c/", "c/dev/", "c/dev/nvidia3",
        "d/", "d/proc/", "d/proc/driver/", "d/proc/driver/nvidia/", "d/proc/driver/nvidia/gpus/",
        "e/", "e/proc/", "e/proc/driver/", "e/proc/driver/nvidia/", "e/proc/driver/nvidia/gpus/",
        "e/proc/driver/nvidia/gpus/0000:01:00.0/", "f/", "f/dev/", "f/dev/dxg", "g/"};
    char why[128] = "";
    struct timespec t0, t1;
    double ms;
    int present;

    for (size_t i = 0; i < sizeof tree / sizeof tree[0]; i++)
        make(tree[i]);
    CHECK(present_in("g", why, sizeof why) == 0); /* nothing at all */
    CHECK(strstr(why, "/dev/nvidia0") != NULL);
    CHECK(present_in("a", NULL, 0) == 0); /* the driver's nodes, no GPU's */
    CHECK(present_in("b", NULL, 0) == 1);
    CHECK(present_in("c", NULL, 0) == 0); /* a GPU's node without the control node */
    CHECK(present_in("d", NULL, 0) == 0); /* a driver that sees no GPU */
    CHECK(present_in("e", NULL, 0) == 1); /* nodes made on first use (nvidia-modprobe) */
    CHECK(present_in("f", NULL, 0) == 1); /* WSL2 */
    for (size_t i = sizeof tree / sizeof tree[0]; i-- > 0;) { /* children first */
        char p[4096];
        tu_path(p, sizeof p, tree[i]);
        CHECK_MSG(remove(p) == 0, "cannot remove %s", p);
    }

    /* this machine's nodes: milliseconds at most (a thousand checks well under a second) */
    clock_gettime(CLOCK_MONOTONIC, &t0);
    present = fft_gpu_present(why, sizeof why);
    for (int i = 0; i < 999; i++)
        CHECK(fft_gpu_present(NULL, 0) == present);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
    CHECK_MSG(ms < 1000.0, "1000 device checks took %.1f ms", ms);
    printf("test_backend_choose: this machine: %s (%.3f ms a check)\n", present ? "a GPU device node" : why,
           ms / 1000);
}

/* Whether the CUDA driver library is mapped into this process. */
static int cuda_driver_loaded(void)
{
    char line[1024];
    int found = 0;
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f)
        return 0;
    while (!found && fgets(line, sizeof line, f))
        found = strstr(line, "libcuda.so") != NULL;
    fclose(f);
    return found;
}

/* fft_config_choose: the tuning's rates and pretence, the threads a config runs, a named
 * backend; and a plan whose auto chose the cpu touches no CUDA. */
static void test_config(void)
{
    fft_config cfg = fft_config_default();
    fft_choice c;
    fft_plan *p = NULL;
    sp_errinfo ei = {{0}};

    cfg.n = 4096;
    cfg.hop = 1024;
    cfg.max_batch = 255;
    cfg.job.channels = 1;
    cfg.job.rate = 48000;
    cfg.job.frames = 28122; /* 10 minutes */
    cfg.tuning.cpu_threads = 8;
    cfg.tuning.auto_device = FFT_AUTO_DEVICE_PRESENT;
    CHECK(fft_config_choose(&cfg, &c) == SP_OK);
    CHECK(c.made && c.kind == FFT_BACKEND_CPU && c.device == 1 && c.cpu_threads == 8);
    /* the measured constants unless the tuning says otherwise */
    CHECK_CLOSE(c.gpu_start_s, fft_rates_default().gpu_start, 1e-12);
    CHECK_CLOSE(c.cpu_s, 28122.0 * nlogn(4096) / (fft_rates_default().cpu_core * 8), 1e-9);
    cfg.tuning.auto_gpu_start = 1e-6;
    cfg.tuning.auto_gpu = 1e15;
    CHECK(fft_config_choose(&cfg, &c) == SP_OK);
    CHECK(c.kind == FFT_BACKEND_CUDA && c.gpu_start_s == 1e-6);
    cfg.tuning.auto_cpu_core = 1e20; /* an absurdly fast cpu wins again */
    CHECK(fft_config_choose(&cfg, &c) == SP_OK && c.kind == FFT_BACKEND_CPU);
    cfg.tuning.auto_cpu_core = 0;
    /* no device (pretended): the cpu, and why */
    cfg.tuning.auto_device = FFT_AUTO_DEVICE_NONE;
    CHECK(fft_config_choose(&cfg, &c) == SP_OK);
    CHECK(c.kind == FFT_BACKEND_CPU && c.device == 0 && c.no_device[0] != 0);
    /* the threads: never more than a call's frames; one when a full call is below the
     * cpu pool's threshold */
    cfg.tuning.auto_device = FFT_AUTO_DEVICE_PRESENT;
    cfg.tuning.cpu_threads = 32;
    cfg.max_batch = 16;
    CHECK(fft_config_choose(&cfg, &c) == SP_OK && c.cpu_threads == 16);
    cfg.max_batch = 8;
    cfg.n = 1024;
    CHECK(fft_config_choose(&cfg, &c) == SP_OK && c.cpu_threads == 1);
    cfg.n = 4096;
    cfg.max_batch = 255;
    /* a named backend weighs nothing */
    cfg.backend = FFT_BACKEND_CPU;
    CHECK(fft_config_choose(&cfg, &c) == SP_OK && c.made == 0 && c.kind == FFT_BACKEND_CPU);
    cfg.backend = FFT_BACKEND_AUTO;
    CHECK(fft_config_choose(NULL, &c) == SP_EINVAL && fft_config_choose(&cfg, NULL) == SP_EINVAL);

    /* a plan whose auto chose the cpu with a device "present": cpu, no note, no CUDA */
    cfg.tuning.auto_gpu_start = 0;
    cfg.tuning.auto_gpu = 0;
    CHECK(fft_plan_create(&cfg, &p, &ei) == SP_OK);
    if (p) {
        CHECK(strcmp(fft_plan_backend_name(p), "cpu") == 0);
        CHECK(fft_plan_fallback_reason(p)[0] == 0);
        CHECK(fft_plan_choice(p)->made && fft_plan_choice(p)->kind == FFT_BACKEND_CPU);
        CHECK_MSG(!cuda_driver_loaded(), "libcuda.so is mapped after a plan that chose the cpu");
        fft_plan_destroy(p);
        p = NULL;
    }
    /* no device (pretended): the cpu with the reason as the fallback note, no CUDA */
    cfg.tuning.auto_device = FFT_AUTO_DEVICE_NONE;
    cfg.job.frames = 1u << 30;
    CHECK(fft_plan_create(&cfg, &p, &ei) == SP_OK);
    if (p) {
        CHECK(strcmp(fft_plan_backend_name(p), "cpu") == 0);
        CHECK(strcmp(fft_plan_fallback_reason(p), fft_plan_choice(p)->no_device) == 0);
        CHECK(fft_plan_fallback_reason(p)[0] != 0);
        CHECK_MSG(!cuda_driver_loaded(), "libcuda.so is mapped after a plan without a device");
        fft_plan_destroy(p);
        p = NULL;
    }
#ifndef SPECTRO_HAVE_CUDA
    /* cuda chosen (a device pretended) but this build has none: the fallback note says so */
    cfg.tuning.auto_device = FFT_AUTO_DEVICE_PRESENT;
    CHECK(fft_plan_create(&cfg, &p, &ei) == SP_OK);
    if (p) {
        CHECK(fft_plan_choice(p)->kind == FFT_BACKEND_CUDA);
        CHECK(strcmp(fft_plan_backend_name(p), "cpu") == 0);
        CHECK(strstr(fft_plan_fallback_reason(p), "built without CUDA") != NULL);
        fft_plan_destroy(p);
        p = NULL;
    }
    CHECK(fft_backend_resolve(FFT_BACKEND_AUTO) == FFT_BACKEND_CPU);
#endif
    CHECK(fft_backend_resolve(FFT_BACKEND_CUFFT) == FFT_BACKEND_CUFFT);
    CHECK(fft_plan_choice(NULL)->made == 0);
}

/* The --verbose line. */
static void test_format(void)
{
    fft_rates r = rates_of(16, 1);
    fft_job j = file_job(4096, 1024, 1, 600.0, 48000);
    fft_choice c = choose(&j, &r);
    char line[320];

    fft_choice_format(&c, line, sizeof line);
    CHECK_MSG(strncmp(line, "auto chose cpu: cpu ~0.03 s (16 threads), cuda ~0.36 s (0.35 s start)",
                      sizeof line) == 0, "'%s'", line);
    r = rates_of(1, 0);
    j = file_job(16384, 64, 1, 600.0, 48000);
    c = choose(&j, &r);
    fft_choice_format(&c, line, sizeof line);
    CHECK_MSG(strstr(line, "auto chose cpu: cpu ~") == line && strstr(line, "(1 thread), cuda: no NVIDIA") != NULL,
              "'%s'", line);
    j = file_job(4096, 1024, 1, 1.0, 48000);
    r = rates_of(8, 1);
    c = choose(&j, &r);
    fft_choice_format(&c, line, sizeof line);
    CHECK_MSG(strstr(line, "cpu ~0.09 ms (8 threads)") != NULL, "'%s'", line); /* small: in ms */
    j.frames = 0;
    c = choose(&j, &r);
    fft_choice_format(&c, line, sizeof line);
    CHECK_MSG(strstr(line, "auto chose cpu: a minute of audio (length unknown): cpu ~") == line, "'%s'", line);
    j = file_job(4096, 8, 32, 0, 96000);
    j.live = 1;
    c = choose(&j, &r);
    fft_choice_format(&c, line, sizeof line);
    CHECK_MSG(strstr(line, "auto chose cuda: live: cpu busy ") == line && strstr(line, "(cuda above 50%)") != NULL,
              "'%s'", line);
    c.made = 0;
    fft_choice_format(&c, line, sizeof line);
    CHECK(line[0] == 0);
    fft_choice_format(NULL, line, sizeof line);
    CHECK(line[0] == 0);
}

/* fft_plan_create_chosen: the plan takes the caller's choice as it is (the run weighs auto's
 * choice once and sizes its batch by it), and weighs the job itself only without one. */
static void test_plan_takes_choice(void)
{
    fft_config cfg = fft_config_default();
    fft_choice c, given;
    fft_plan *p = NULL;
    sp_errinfo ei = {{0}};
    cfg.n = 4096;
    cfg.hop = 1024;
    cfg.max_batch = 255;
    cfg.job.channels = 1;
    cfg.job.rate = 48000;
    cfg.job.frames = 28122;
    cfg.tuning.cpu_threads = 8;
    cfg.tuning.auto_device = FFT_AUTO_DEVICE_NONE; /* the cpu either way: no CUDA here */
    CHECK(fft_config_choose(&cfg, &c) == SP_OK && c.made && c.kind == FFT_BACKEND_CPU);
    given = c;
    given.cpu_s = 123.25; /* not what the plan would weigh */
    given.cpu_threads = 3;
    snprintf(given.no_device, sizeof given.no_device, "the caller's reason");
    CHECK(fft_plan_create_chosen(&cfg, &given, &p, &ei) == SP_OK);
    if (p) {
        const fft_choice *got = fft_plan_choice(p);
        CHECK(got->made && got->kind == FFT_BACKEND_CPU && got->cpu_s == 123.25 && got->cpu_threads == 3);
        CHECK(strcmp(fft_plan_fallback_reason(p), "the caller's reason") == 0);
        fft_plan_destroy(p);
        p = NULL;
    }
    CHECK(fft_plan_create_chosen(&cfg, NULL, &p, &ei) == SP_OK);
    if (p) {
        const fft_choice *got = fft_plan_choice(p);
        CHECK(got->made && got->cpu_s == c.cpu_s && got->cpu_threads == c.cpu_threads);
        CHECK(strcmp(fft_plan_fallback_reason(p), c.no_device) == 0);
        fft_plan_destroy(p);
        p = NULL;
    }
    /* a named backend: the choice is ignored, nothing weighed */
    cfg.backend = FFT_BACKEND_CPU;
    CHECK(fft_plan_create_chosen(&cfg, &given, &p, &ei) == SP_OK);
    if (p) {
        CHECK(fft_plan_choice(p)->made == 0 && fft_plan_fallback_reason(p)[0] == 0);
        fft_plan_destroy(p);
    }
}

int main(void)
{
    int rc = tu_begin_files("test_backend_choose");
    if (rc)
        return rc;
    test_grid();
    test_crossover();
    test_nodes();
    test_config();
    test_plan_takes_choice();
    test_format();
    tu_tmpdir_remove();
    return check_done("test_backend_choose");
}
