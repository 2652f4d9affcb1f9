/* test_mic: the microphone source through the real PortAudio -> ALSA capture path, with no
 * sound card. tests/alsa/asound.conf (ALSA_CONFIG_PATH) makes ALSA's default capture device
 * the `file` plugin reading raw FLOAT_LE mono from $SPECTRO_TEST_SINE; here that path is a
 * FIFO that a thread feeds with a phase-continuous 1 kHz (at 48 kHz) sine of amplitude 0.5.
 *
 * Usage: test_mic ALSA_CONF FIFO_PATH   (ctest passes both and sets the environment).
 * Exit 77 (skip) when the build has no PortAudio.
 *
 * The `null` PCM under the file plugin has no clock: capture runs as fast as the FIFO is
 * read, not at 48 kHz. The checks hold either way: they wait for data rather than time,
 * and the ring holds all the samples a check looks at, so they are contiguous. */
#define _GNU_SOURCE /* F_SETPIPE_SZ */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "ring.h"
#include "source.h"

#define RATE 48000
#define TONE_HZ 1000.0
#define AMP 0.5

/* ---- the FIFO feeder -------------------------------------------------------------------- */

static const char *fifo_path;
static atomic_int feeder_stop, feeder_done;
static pthread_t feeder;

/* Each reader (every open of the ALSA device opens the infile) gets the sine from phase 0,
 * written as fast as the pipe takes it, until it closes its end (EPIPE). */
static void *feeder_main(void *arg)
{
    static float period[48 * 256]; /* 1 kHz at 48 kHz: 48 samples a period */
    (void)arg;
    for (size_t i = 0; i < sizeof period / sizeof period[0]; i++)
        period[i] = (float)(AMP * sin(2.0 * M_PI * TONE_HZ * (double)i / RATE));
    while (!atomic_load(&feeder_stop)) {
        int fd = open(fifo_path, O_WRONLY); /* waits for a reader */
        size_t off = 0;
        if (fd < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
#ifdef F_SETPIPE_SZ
        fcntl(fd, F_SETPIPE_SZ, 1 << 18); /* a deep pipe: reads are never short */
#endif
        for (;;) {
            ssize_t w = write(fd, (const char *)period + off, sizeof period - off);
            if (w < 0) {
                if (errno == EINTR)
                    continue;
                break; /* EPIPE: the reader closed */
            }
            off = (off + (size_t)w) % sizeof period;
        }
        close(fd);
    }
    atomic_store(&feeder_done, 1);
    return NULL;
}

static int feeder_start(void)
{
    unlink(fifo_path);
    if (mkfifo(fifo_path, 0600) != 0) {
        fprintf(stderr, "test_mic: mkfifo %s: %s\n", fifo_path, strerror(errno));
        return -1;
    }
    return pthread_create(&feeder, NULL, feeder_main, NULL) == 0 ? 0 : -1;
}

static void feeder_finish(void)
{
    atomic_store(&feeder_stop, 1);
    while (!atomic_load(&feeder_done)) { /* unblock an open() or write() in the feeder */
        int fd = open(fifo_path, O_RDONLY | O_NONBLOCK);
        usleep(10000);
        if (fd >= 0)
            close(fd);
    }
    pthread_join(feeder, NULL);
    unlink(fifo_path);
}

/* ---- helpers ---------------------------------------------------------------------------- */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Waits until the ring holds n samples (or timeout_s passes); returns what it holds. */
static size_t wait_readable(ring *r, size_t n, double timeout_s)
{
    double end = now_s() + timeout_s;
    while (ring_readable(r) < n && now_s() < end)
        usleep(2000);
    return ring_readable(r);
}

/* Frequency from rising zero crossings, interpolated between samples. */
static double zc_freq(const float *x, size_t n, int stride, double rate)
{
    double first = -1, last = -1;
    int crossings = 0;
    for (size_t i = 1; i < n; i++) {
        double a = x[(i - 1) * (size_t)stride], b = x[i * (size_t)stride];
        if (a < 0 && b >= 0) {
            double t = (double)(i - 1) + a / (a - b);
            if (first < 0)
                first = t;
            last = t;
            crossings++;
        }
    }
    return crossings > 1 ? (crossings - 1) * rate / (last - first) : 0;
}

static double rms(const float *x, size_t n, int stride)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += (double)x[i * (size_t)stride] * x[i * (size_t)stride];
    return n ? sqrt(s / (double)n) : 0;
}

/* ---- stderr capture: nothing of the audio stack may reach it ---------------------------- */

static int saved_stderr = -1;
static char capture_path[] = "/tmp/test_mic_stderr_XXXXXX";

static void capture_begin(void)
{
    int fd = mkstemp(capture_path);
    fflush(stderr);
    saved_stderr = dup(2);
    dup2(fd, 2);
    close(fd);
}

/* Restores stderr, echoes what was captured, and returns the lines that our own CHECKs did
 * not write (the audio stack's chatter). */
static int capture_end(void)
{
    char line[1024];
    int foreign = 0;
    FILE *f;
    fflush(stderr);
    dup2(saved_stderr, 2);
    close(saved_stderr);
    if (!(f = fopen(capture_path, "r")))
        return -1;
    while (fgets(line, sizeof line, f)) {
        fputs(line, stderr);
        if (!strstr(line, "test_mic.c:") && !strstr(line, "test_mic:")) {
            foreign++;
            fprintf(stderr, "  ^ chatter from the audio stack\n");
        }
    }
    fclose(f);
    unlink(capture_path);
    return foreign;
}

/* ---- child-process checks (before any thread exists) ------------------------------------ */

/* Runs fn in a child with stderr sent to a file; returns the child's exit status (or 128 +
 * signal) and copies its stderr into err. */
static int in_child(int (*fn)(void), char *err, size_t errlen)
{
    char path[] = "/tmp/test_mic_child_XXXXXX";
    int fd = mkstemp(path), status = 0;
    ssize_t got;
    pid_t pid;
    fflush(NULL);
    pid = fork();
    if (pid == 0) {
        dup2(fd, 2);
        _exit(fn());
    }
    waitpid(pid, &status, 0);
    lseek(fd, 0, SEEK_SET);
    got = read(fd, err, errlen - 1);
    err[got > 0 ? got : 0] = 0;
    close(fd);
    unlink(path);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* The machine's own ALSA configuration (here: no sound card, no JACK server, plugins for
 * PulseAudio/OSS/...): listing devices and opening the default input must print nothing. */
static int child_system_config(void)
{
    source_device_info dev[16];
    int count = -1;
    source *s = NULL;
    sp_errinfo ei = {{0}};
    unsetenv("ALSA_CONFIG_PATH");
    source_list_devices(dev, 16, &count, &ei);
    source_open_mic(NULL, &s, &ei);
    source_close(s);
    return 0;
}

static int child_missing_config(void)
{
    source *s = NULL;
    sp_errinfo ei = {{0}};
    int err;
    setenv("ALSA_CONFIG_PATH", "/nonexistent/spectro-alsa.conf", 1);
    err = source_open_mic(NULL, &s, &ei);
    printf("%s\n", ei.msg);
    return err == SP_ENODEV && strstr(ei.msg, "/nonexistent/spectro-alsa.conf") ? 0 : 1;
}

static char empty_conf[] = "/tmp/test_mic_empty_XXXXXX";

/* A configuration that names no PCM PortAudio would list: PortAudio 19.6 would abort. */
static int child_empty_config(void)
{
    source *s = NULL;
    sp_errinfo ei = {{0}};
    int err;
    setenv("ALSA_CONFIG_PATH", empty_conf, 1);
    err = source_open_mic(NULL, &s, &ei);
    printf("%s\n", ei.msg);
    return err == SP_ENODEV && strstr(ei.msg, "no audio input device found") ? 0 : 1;
}

static void test_children(void)
{
    char err[4096];
    int rc, fd;

    rc = in_child(child_system_config, err, sizeof err);
    CHECK_MSG(rc == 0, "list/open with the system ALSA configuration: exit %d", rc);
    CHECK_MSG(err[0] == 0, "stderr not silent with the system configuration:\n%s", err);

    rc = in_child(child_missing_config, err, sizeof err);
    CHECK_MSG(rc == 0, "missing ALSA configuration: exit %d (134 = PortAudio's abort)", rc);
    CHECK_MSG(err[0] == 0, "stderr: %s", err);

    fd = mkstemp(empty_conf);
    if (fd >= 0) {
        static const char conf[] = "pcm.null { type null }\n";
        CHECK(write(fd, conf, sizeof conf - 1) == (ssize_t)(sizeof conf - 1));
        close(fd);
        rc = in_child(child_empty_config, err, sizeof err);
        CHECK_MSG(rc == 0, "deviceless ALSA configuration: exit %d (134 = PortAudio's abort)", rc);
        CHECK_MSG(err[0] == 0, "stderr: %s", err);
        unlink(empty_conf);
    }
}

/* ---- tests over the file-plugin device --------------------------------------------------- */

static void test_list(void)
{
    source_device_info dev[16];
    int count = -1, defaults = 0, err;
    sp_errinfo ei = {{0}};
    err = source_list_devices(dev, 16, &count, &ei);
    CHECK_MSG(err == SP_OK, "%s", ei.msg);
    CHECK_MSG(count >= 1, "count %d", count);
    for (int i = 0; i < count && i < 16; i++) {
        printf("  device %d: %s [%s] %d ch, %.0f Hz%s\n", dev[i].index, dev[i].name,
               dev[i].host_api, dev[i].max_input_channels, dev[i].default_rate,
               dev[i].is_default ? " (default)" : "");
        CHECK(dev[i].max_input_channels >= 1 || dev[i].max_output_channels >= 1);
        defaults += dev[i].is_default;
    }
    CHECK(defaults == 1);
    err = source_list_devices(NULL, 0, &count, &ei); /* count only */
    CHECK(err == SP_OK && count >= 1);
}

static void test_sine(void)
{
    enum { CAP = 1 << 16, N = RATE };
    static float store[CAP], x[N];
    source *s = NULL;
    sp_errinfo ei = {{0}};
    ring r;
    const source_info *info;
    source_mic_config cfg = source_mic_config_default();
    double f, a;
    int err;

    /* rate 0: the device's own default rate */
    err = source_open_mic(NULL, &s, &ei);
    CHECK_MSG(err == SP_OK, "open default: %s", ei.msg);
    if (err == SP_OK) {
        printf("  default device at its default rate: %d Hz, %d ch, %s\n",
               source_get_info(s)->rate, source_get_info(s)->channels, source_get_info(s)->format);
        CHECK(source_get_info(s)->rate >= 8000);
        CHECK(source_get_info(s)->channels == 1);
        source_close(s);
        s = NULL;
    }
    cfg.rate = RATE; /* the FIFO's sine is 1 kHz at 48 kHz */
    err = source_open_mic(&cfg, &s, &ei);
    CHECK_MSG(err == SP_OK, "open default at 48 kHz: %s", ei.msg);
    if (err)
        return;
    CHECK(source_is_push(s));
    info = source_get_info(s);
    CHECK(info->rate == RATE);
    CHECK(info->channels == 1);
    CHECK(info->samples_hint == -1);
    CHECK(strcmp(info->name, "default") == 0);
    CHECK_MSG(strcmp(info->format, "PortAudio ALSA") == 0, "format %s", info->format);
    CHECK(source_status(s, &ei) == SP_OK); /* not started: nothing to report */

    ring_init(&r, store, CAP);
    err = source_start(s, &r, &ei);
    CHECK_MSG(err == SP_OK, "start: %s", ei.msg);
    CHECK(wait_readable(&r, N, 10.0) >= N);
    CHECK(source_status(s, &ei) == SP_OK);
    CHECK(ring_read(&r, x, N) == N);
    CHECK(source_stop(s) == SP_OK);
    CHECK(source_status(s, &ei) == SP_OK); /* stopped by us: not a lost device */

    f = zc_freq(x, N, 1, RATE);
    a = rms(x, N, 1);
    printf("  1 s captured: %.4f Hz, rms %.4f (sine 0.5: %.4f)\n", f, a, AMP / sqrt(2.0));
    CHECK_CLOSE(f, TONE_HZ, 1.0);
    CHECK_CLOSE(a, AMP / sqrt(2.0), 0.01);

    /* a second start on the same source works (stop + start) */
    ring_init(&r, store, CAP);
    CHECK(source_start(s, &r, &ei) == SP_OK);
    CHECK(wait_readable(&r, 4800, 10.0) >= 4800);
    source_close(s); /* closes a running stream */
}

/* Two channels (channel 1 = half of channel 0) through a ring that overflows: frames stay
 * whole, so the channel relation holds for every frame read, before and after drops. */
static void test_stereo(void)
{
    enum { CAP = 1 << 12, FR = 1024 };
    static float store[CAP], x[2 * FR];
    source_mic_config cfg = source_mic_config_default();
    source *s = NULL;
    sp_errinfo ei = {{0}};
    ring r;
    int err, bad = 0;
    cfg.channels = 2;
    cfg.rate = RATE;
    cfg.device = "SPECTRO_STEREO"; /* case-insensitive exact name */
    err = source_open_mic(&cfg, &s, &ei);
    CHECK_MSG(err == SP_OK, "open stereo: %s", ei.msg);
    if (err)
        return;
    CHECK(source_get_info(s)->channels == 2);
    CHECK(strcmp(source_get_info(s)->name, "spectro_stereo") == 0);
    ring_init(&r, store, CAP);
    CHECK(source_start(s, &r, &ei) == SP_OK);
    for (int round = 0; round < 20; round++) {
        usleep(5000); /* the ring fills and drops */
        ring_skip(&r, round & 1 ? 2 * FR - 1 : 2 * FR); /* odd skips too */
        if (ring_readable(&r) % 2) /* re-align the consumer after an odd skip */
            ring_skip(&r, 1);
        CHECK(wait_readable(&r, 2 * FR, 10.0) >= 2 * FR);
        CHECK(ring_read(&r, x, 2 * FR) == 2 * FR);
        for (int i = 0; i < FR; i++)
            bad += x[2 * i + 1] != 0.5f * x[2 * i];
        ring_skip(&r, ring_readable(&r) & ~(size_t)1);
    }
    CHECK_MSG(bad == 0, "%d frames where channel 1 != channel 0 / 2", bad);
    CHECK(source_dropped(s) > 0);
    CHECK(source_dropped(s) % 2 == 0); /* whole frames */
    CHECK(rms(x, FR, 2) > 0.1); /* not silence (the route path is not continuous: no rms) */
    source_close(s);
}

static void test_dropped(void)
{
    enum { CAP = 1 << 12, N = 2048 };
    static float store[CAP], x[N];
    source_mic_config cfg = source_mic_config_default();
    source *s = NULL;
    sp_errinfo ei = {{0}};
    ring r;
    uint64_t d1, d2;
    int err;
    cfg.device = "EFAUL"; /* a case-insensitive substring of "default" */
    cfg.rate = RATE;
    err = source_open_mic(&cfg, &s, &ei);
    CHECK_MSG(err == SP_OK, "open: %s", ei.msg);
    if (err)
        return;
    ring_init(&r, store, CAP);
    CHECK(source_dropped(s) == 0);
    CHECK(source_start(s, &r, &ei) == SP_OK);
    usleep(300000); /* > CAP samples even at a real 48 kHz; the consumer does not read */
    d1 = source_dropped(s);
    printf("  dropped after 0.3 s without reading: %llu samples\n", (unsigned long long)d1);
    CHECK(d1 > 0);
    CHECK(ring_readable(&r) > CAP - 1024);
    CHECK(source_status(s, &ei) == SP_OK);

    /* the consumer catches up: skip the stale audio, fresh audio follows */
    ring_skip(&r, CAP);
    CHECK(wait_readable(&r, N, 10.0) >= N);
    CHECK(ring_read(&r, x, N) == N);
    d2 = source_dropped(s);
    CHECK(d2 >= d1);
    CHECK_CLOSE(zc_freq(x, N, 1, RATE), TONE_HZ, 1.0);
    CHECK_CLOSE(rms(x, N, 1), AMP / sqrt(2.0), 0.02);
    CHECK(source_stop(s) == SP_OK);
    source_close(s);
}

/* ---- where the drops fall --------------------------------------------------------------- */

/* The capture for test_gaps: every sample is its frame number (float32, exact below 2^24),
 * so a sample says which frame of the device's stream it is. */
typedef struct {
    source *s;
    ring r;
    float x[1 << 12];
    double first;                   /* the first sample's frame number; -1 before it */
    uint64_t taken, placed, gaps, bad;
} gap_reader;

/* Reads up to max frames (never across a gap) and checks each one against the first
 * frame's number + the frames taken + the gaps placed before it. Returns frames read. */
static size_t gap_read(gap_reader *g, size_t max)
{
    size_t avail = ring_readable(&g->r), n = max;
    uint64_t next, gone = source_take_gaps(g->s, g->taken, &next); /* after ring_readable */
    if (gone) {
        g->placed += gone;
        g->gaps++;
    }
    if (n > avail)
        n = avail;
    if (n > sizeof g->x / sizeof g->x[0])
        n = sizeof g->x / sizeof g->x[0];
    if (n > next - g->taken)
        n = (size_t)(next - g->taken);
    if (n == 0)
        return 0;
    ring_read(&g->r, g->x, n);
    if (g->first < 0)
        g->first = g->x[0];
    for (size_t i = 0; i < n; i++)
        g->bad += (double)g->x[i] != g->first + (double)(g->taken + g->placed + i);
    g->taken += n;
    return n;
}

static void gap_drain(gap_reader *g)
{
    while (gap_read(g, SIZE_MAX) > 0)
        ;
}

/* Waits up to timeout_s for the ring to hold at least n samples; 1 when it does. Polls
 * often: the device runs far faster than real time and drops all the while. */
static int gap_wait(gap_reader *g, size_t n, double timeout_s)
{
    double end = now_s() + timeout_s;
    while (ring_readable(&g->r) < n)
        if (now_s() > end)
            return 0;
        else
            usleep(20);
    return 1;
}

/* source_take_gaps against a capture of frame numbers. First the consumer reads in bursts
 * with pauses: the ring overflows, few long gaps. Then it frees 16 frames at a time from a
 * full ring, and the device refills them and drops the rest: a gap a read, all ahead of
 * the consumer. The 65th finds the queue full (64): the device writes nothing more and the
 * gap grows, so the ring stops refilling. Every sample read must be where the gaps say. */
static void test_gaps(void)
{
    enum { CAP = 1 << 12, TOTAL = 1 << 22, STEP = 16 };
    static float store[CAP];
    static gap_reader g;
    char path[] = "/tmp/test_mic_ramp_XXXXXX";
    const char *sine = getenv("SPECTRO_TEST_SINE");
    char saved[512];
    source_mic_config cfg = source_mic_config_default();
    sp_errinfo ei = {{0}};
    static float chunk[1 << 16];
    size_t full;
    int fd = mkstemp(path), err, refills = 0, ok = fd >= 0;
    for (uint32_t i = 0; ok && i < TOTAL; i += 1u << 16) {
        for (uint32_t j = 0; j < 1u << 16; j++)
            chunk[j] = (float)(i + j);
        ok = write(fd, chunk, sizeof chunk) == (ssize_t)sizeof chunk;
    }
    CHECK_MSG(ok, "writing %s: %s", path, strerror(errno));
    if (fd >= 0)
        close(fd);
    snprintf(saved, sizeof saved, "%s", sine ? sine : "");
    setenv("SPECTRO_TEST_SINE", path, 1); /* read when the device opens */
    cfg.rate = RATE;
    memset(&g, 0, sizeof g);
    g.first = -1;
    err = ok ? source_open_mic(&cfg, &g.s, &ei) : SP_EIO;
    setenv("SPECTRO_TEST_SINE", saved, 1);
    CHECK_MSG(err == SP_OK, "open: %s", ei.msg);
    if (err) {
        unlink(path);
        return;
    }
    ring_init(&g.r, store, CAP);
    CHECK(source_start(g.s, &g.r, &ei) == SP_OK);
    for (int round = 0; round < 3; round++) {
        /* faster than real time, the device soon overruns the ring */
        uint64_t d0 = source_dropped(g.s);
        double t_end = now_s() + 10.0;
        while (source_dropped(g.s) == d0 && now_s() < t_end)
            usleep(100);
        gap_drain(&g);
    }
    /* each round's gap is known once the device writes after it: by the next drain */
    CHECK(g.gaps >= 2);

    /* the queue: from a full ring, STEP frames out, wait for the device to put them back */
    CHECK(gap_wait(&g, CAP - 1, 10.0));
    full = ring_readable(&g.r);
    while (refills < 1000) {
        gap_read(&g, STEP);
        if (!gap_wait(&g, full, 1.0))
            break;
        refills++;
    }
    CHECK(source_stop(g.s) == SP_OK); /* before the drain: past the file, stale audio */
    gap_drain(&g);
    printf("  gaps: first frame %.0f (file: %d), %llu frames read, %llu gaps placed, %llu frames in them, %llu dropped; "
           "%d refills before the gap queue was full\n",
           g.first, TOTAL, (unsigned long long)g.taken, (unsigned long long)g.gaps, (unsigned long long)g.placed,
           (unsigned long long)source_dropped(g.s), refills);
    CHECK_MSG(g.bad == 0, "%llu samples are not the frame their position says", (unsigned long long)g.bad);
    CHECK(g.first >= 0 && g.first + (double)(g.taken + g.placed) < TOTAL); /* all within the file */
    CHECK_MSG(refills == 64, "the ring refilled %d times, not 64 (the gap queue's size)", refills);
    CHECK(source_dropped(g.s) >= g.placed); /* the stop may leave the last one untaken */
    source_close(g.s);
    unlink(path);
}

static void test_errors(void)
{
    source_mic_config cfg = source_mic_config_default();
    source *s = NULL;
    sp_errinfo ei = {{0}};
    int err;

    cfg.device = "no-such-microphone";
    err = source_open_mic(&cfg, &s, &ei);
    printf("  %s\n", ei.msg);
    CHECK(err == SP_ENODEV || err == SP_EINVAL);
    CHECK(s == NULL);
    CHECK(strstr(ei.msg, "no-such-microphone") != NULL);
    CHECK(strstr(ei.msg, "default") != NULL); /* lists what exists */

    cfg.device = "99";
    err = source_open_mic(&cfg, &s, &ei);
    printf("  %s\n", ei.msg);
    CHECK(err == SP_ENODEV && strstr(ei.msg, "99") != NULL);

    cfg.device = NULL;
    cfg.rate = 1000000; /* ALSA's null PCM stops below 768 kHz */
    err = source_open_mic(&cfg, &s, &ei);
    printf("  %s\n", ei.msg);
    CHECK(err == SP_EINVAL);
    CHECK(strstr(ei.msg, "1000000 Hz") != NULL);
    CHECK(strstr(ei.msg, "supported: 8000, 16000, 22050, 32000, 44100, 48000, 88200, 96000, "
                         "176400, 192000") != NULL);

    cfg.rate = 0;
    cfg.channels = 4096;
    err = source_open_mic(&cfg, &s, &ei);
    printf("  %s\n", ei.msg);
    CHECK(err == SP_EINVAL && strstr(ei.msg, "channels") != NULL);
    cfg.channels = 1000; /* within spectro's limit, above the device's 128 */
    err = source_open_mic(&cfg, &s, &ei);
    printf("  %s\n", ei.msg);
    CHECK(err == SP_EINVAL && strstr(ei.msg, "channels") != NULL);

    CHECK(source_open_mic(NULL, NULL, &ei) == SP_EINVAL);
}

int main(int argc, char **argv)
{
    int chatter;
#ifndef SPECTRO_HAVE_PORTAUDIO
    {
        source *s = NULL;
        sp_errinfo ei = {{0}};
        CHECK(source_open_mic(NULL, &s, &ei) == SP_EUNSUPPORTED && ei.msg[0]);
        printf("test_mic: built without PortAudio: %s\n", ei.msg);
        return check_failures ? 1 : 77;
    }
#endif
    if (argc != 3) {
        fprintf(stderr, "usage: test_mic ALSA_CONF FIFO_PATH\n");
        return 2;
    }
    setenv("ALSA_CONFIG_PATH", argv[1], 1);
    setenv("SPECTRO_TEST_SINE", argv[2], 1);
    fifo_path = argv[2];
    signal(SIGPIPE, SIG_IGN);

    test_children(); /* forks: before any thread */
    if (feeder_start() != 0)
        return 1;
    capture_begin();
    test_list();
    test_sine();
    test_stereo();
    test_dropped();
    test_gaps();
    test_errors();
    chatter = capture_end();
    CHECK_MSG(chatter == 0, "%d lines of audio-stack chatter on stderr", chatter);
    feeder_finish();
    return check_done("test_mic");
}
