/* spectro_busy: an ALSA capture device that another program takes right after it was found.
 *
 * For e2e_live's test of spectro's "audio input NAME is busy" line through the real
 * PortAudio and alsa-lib: ALSA's file and null plugins never answer EBUSY, and a really busy
 * device needs a sound card. alsa-lib loads this external plugin (ioplug API) for
 * `type spectro_busy` in tests/alsa/busy.conf.in, which CMake completes with its path.
 *
 * The rule: the first `free_opens` capture opens in the process succeed, every later one
 * fails with -EBUSY. PortAudio 19.6's ALSA host API opens capture devices
 *   1. in Pa_Initialize, listing the devices (FillInDevInfo: non-blocking, no retry; a device
 *      that fails there is left out of the list, so one busy from the start would only give
 *      "no audio input device found");
 *   2. in Pa_IsFormatSupported and 3. in Pa_OpenStream (both through AlsaOpen, which retries
 *      EBUSY every 10 ms for about a second and then reports paDeviceUnavailable).
 * So free_opens 1 (the default) makes the device busy from spectro's format check on, and
 * free_opens 2 between that check and the stream's open. A count, unlike a time, does not
 * depend on the machine's speed. It is a static of this library, which is linked with
 * -z nodelete so that alsa-lib unloading plugins cannot reset it.
 *
 * Playback opens fail with -ENOENT and are not counted: the device is capture only. The
 * capture PCMs that do open are complete, so that PortAudio's probing (and arecord) work:
 * interleaved FLOAT_LE or S16_LE, 1 or 2 channels, 8 to 192 kHz, read or mmap access,
 * silence clocked by CLOCK_MONOTONIC, with a timerfd ticking once a period for poll().
 *
 *   pcm.NAME {
 *       type spectro_busy
 *       free_opens N   # capture opens that succeed (default 1); an integer or a string
 *                      # of digits, so that @func getenv can set it
 *       log PATH       # optional: one line per open appended to PATH ("" = no log)
 *   }
 *   pcm_type.spectro_busy { lib "/path/to/libasound_module_pcm_spectro_busy.so" }
 */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include <alsa/asoundlib.h>
#include <alsa/pcm_external.h>

/* defined by SND_PCM_PLUGIN_DEFINE_FUNC below; declared for -Wmissing-prototypes */
int SND_PCM_PLUGIN_ENTRY(spectro_busy)(snd_pcm_t **pcmp, const char *name, snd_config_t *root,
                                       snd_config_t *conf, snd_pcm_stream_t stream, int mode);

static atomic_uint capture_opens; /* in this process, whatever alsa-lib loads and unloads */

typedef struct {
    snd_pcm_ioplug_t io; /* io.poll_fd: the timerfd */
    int running;
    uint64_t start_ns;       /* CLOCK_MONOTONIC at start */
    snd_pcm_uframes_t taken; /* frames "recorded" since start, as of the last pointer call */
} busy_pcm;

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void log_line(const char *path, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void log_line(const char *path, const char *fmt, ...)
{
    va_list ap;
    FILE *f;
    if (!path || !*path || !(f = fopen(path, "a")))
        return;
    va_start(ap, fmt);
    vfprintf(f, fmt, ap);
    va_end(ap);
    fputc('\n', f);
    fclose(f);
}

/* ---- the capture device: silence at the configured rate -------------------------------- */

static int busy_start(snd_pcm_ioplug_t *io)
{
    busy_pcm *b = io->private_data;
    uint64_t period_ns = (uint64_t)io->period_size * 1000000000ull / io->rate;
    struct itimerspec its;
    if (period_ns == 0)
        period_ns = 1;
    its.it_interval.tv_sec = (time_t)(period_ns / 1000000000ull);
    its.it_interval.tv_nsec = (long)(period_ns % 1000000000ull);
    its.it_value = its.it_interval;
    if (timerfd_settime(io->poll_fd, 0, &its, NULL) < 0)
        return -errno;
    b->start_ns = now_ns();
    b->taken = 0;
    b->running = 1;
    return 0;
}

static int busy_stop(snd_pcm_ioplug_t *io)
{
    busy_pcm *b = io->private_data;
    struct itimerspec off;
    memset(&off, 0, sizeof off);
    timerfd_settime(io->poll_fd, 0, &off, NULL);
    b->running = 0;
    return 0;
}

/* Position in the buffer, from the frames the clock says were recorded. The position is
 * taken modulo the buffer, where full and empty look alike, so a full buffer is already an
 * overrun (-EPIPE). */
static snd_pcm_sframes_t busy_pointer(snd_pcm_ioplug_t *io)
{
    busy_pcm *b = io->private_data;
    uint64_t ns, frames;
    if (!b->running)
        return (snd_pcm_sframes_t)(b->taken % io->buffer_size);
    ns = now_ns() - b->start_ns;
    frames = ns / 1000000000ull * io->rate + ns % 1000000000ull * io->rate / 1000000000ull;
    if (snd_pcm_ioplug_avail(io, io->hw_ptr, io->appl_ptr) + (frames - b->taken) >= io->buffer_size)
        return -EPIPE;
    b->taken = (snd_pcm_uframes_t)frames;
    return (snd_pcm_sframes_t)(b->taken % io->buffer_size);
}

static snd_pcm_sframes_t busy_transfer(snd_pcm_ioplug_t *io, const snd_pcm_channel_area_t *areas,
                                       snd_pcm_uframes_t offset, snd_pcm_uframes_t size)
{
    snd_pcm_areas_silence(areas, offset, io->channels, size, io->format);
    return (snd_pcm_sframes_t)size;
}

static int busy_prepare(snd_pcm_ioplug_t *io)
{
    busy_pcm *b = io->private_data;
    b->taken = 0; /* ioplug restarts its own pointers from 0 too */
    return 0;
}

/* One tick a period: readable after it, until the tick is consumed here. */
static int busy_poll_revents(snd_pcm_ioplug_t *io, struct pollfd *pfd, unsigned int nfds,
                             unsigned short *revents)
{
    uint64_t ticks;
    (void)io;
    if (nfds != 1)
        return -EINVAL;
    *revents = 0;
    if (pfd[0].revents & POLLIN) {
        if (read(pfd[0].fd, &ticks, sizeof ticks) < 0 && errno != EAGAIN)
            return -errno;
        *revents = POLLIN;
    }
    return 0;
}

static int busy_close(snd_pcm_ioplug_t *io)
{
    busy_pcm *b = io->private_data;
    close(io->poll_fd);
    free(b);
    return 0;
}

static const snd_pcm_ioplug_callback_t busy_callbacks = {
    .start = busy_start,
    .stop = busy_stop,
    .pointer = busy_pointer,
    .transfer = busy_transfer,
    .close = busy_close,
    .prepare = busy_prepare,
    .poll_revents = busy_poll_revents,
};

/* What PortAudio probes: formats, channels and rates; periods and buffer in bytes, loose
 * enough for its 128/512-frame probes at 8 kHz mono S16 and up to 1 s at 192 kHz stereo. */
static int busy_constraints(snd_pcm_ioplug_t *io)
{
    static const unsigned int access[] = {SND_PCM_ACCESS_RW_INTERLEAVED,
                                          SND_PCM_ACCESS_MMAP_INTERLEAVED};
    static const unsigned int formats[] = {SND_PCM_FORMAT_FLOAT_LE, SND_PCM_FORMAT_S16_LE};
    int err;
    if ((err = snd_pcm_ioplug_set_param_list(io, SND_PCM_IOPLUG_HW_ACCESS, 2, access)) < 0 ||
        (err = snd_pcm_ioplug_set_param_list(io, SND_PCM_IOPLUG_HW_FORMAT, 2, formats)) < 0 ||
        (err = snd_pcm_ioplug_set_param_minmax(io, SND_PCM_IOPLUG_HW_CHANNELS, 1, 2)) < 0 ||
        (err = snd_pcm_ioplug_set_param_minmax(io, SND_PCM_IOPLUG_HW_RATE, 8000, 192000)) < 0 ||
        (err = snd_pcm_ioplug_set_param_minmax(io, SND_PCM_IOPLUG_HW_PERIOD_BYTES, 64,
                                               1u << 20)) < 0 ||
        (err = snd_pcm_ioplug_set_param_minmax(io, SND_PCM_IOPLUG_HW_PERIODS, 2, 64)) < 0 ||
        (err = snd_pcm_ioplug_set_param_minmax(io, SND_PCM_IOPLUG_HW_BUFFER_BYTES, 128,
                                               1u << 22)) < 0)
        return err;
    return 0;
}

/* ---- the plugin's entry --------------------------------------------------------------- */

/* free_opens as an integer, or as a string of digits (what @func getenv yields). */
static int config_count(snd_config_t *n, long *out)
{
    const char *s;
    char *end;
    if (snd_config_get_type(n) == SND_CONFIG_TYPE_INTEGER)
        return snd_config_get_integer(n, out);
    if (snd_config_get_string(n, &s) < 0 || !*s)
        return -EINVAL;
    errno = 0;
    *out = strtol(s, &end, 10);
    return errno || *end || *out < 0 ? -EINVAL : 0;
}

SND_PCM_PLUGIN_DEFINE_FUNC(spectro_busy)
{
    snd_config_iterator_t it, next;
    const char *log = NULL;
    long free_opens = 1;
    unsigned int nth;
    busy_pcm *b;
    int err;

    (void)root;
    snd_config_for_each(it, next, conf)
    {
        snd_config_t *n = snd_config_iterator_entry(it);
        const char *id;
        if (snd_config_get_id(n, &id) < 0)
            continue;
        if (strcmp(id, "comment") == 0 || strcmp(id, "type") == 0 || strcmp(id, "hint") == 0)
            continue;
        if (strcmp(id, "free_opens") == 0) {
            if (config_count(n, &free_opens) < 0) {
                SNDERR("spectro_busy: free_opens must be a count");
                return -EINVAL;
            }
            continue;
        }
        if (strcmp(id, "log") == 0) {
            if (snd_config_get_string(n, &log) < 0) {
                SNDERR("spectro_busy: log must be a path");
                return -EINVAL;
            }
            continue;
        }
        SNDERR("spectro_busy: unknown field %s", id);
        return -EINVAL;
    }

    if (stream != SND_PCM_STREAM_CAPTURE) {
        log_line(log, "%s playback open: refused (capture only)", name);
        return -ENOENT;
    }
    nth = atomic_fetch_add(&capture_opens, 1) + 1;
    if (nth > (unsigned long)free_opens) {
        log_line(log, "%s capture open %u: busy", name, nth);
        return -EBUSY;
    }

    if (!(b = calloc(1, sizeof *b)))
        return -ENOMEM;
    b->io.version = SND_PCM_IOPLUG_VERSION;
    b->io.name = "spectro busy-after-scan capture (test)";
    b->io.callback = &busy_callbacks;
    b->io.private_data = b;
    b->io.poll_events = POLLIN;
    b->io.poll_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    if (b->io.poll_fd < 0) {
        err = -errno;
        free(b);
        return err;
    }
    if ((err = snd_pcm_ioplug_create(&b->io, name, stream, mode)) < 0) {
        close(b->io.poll_fd);
        free(b);
        return err;
    }
    if ((err = busy_constraints(&b->io)) < 0) {
        snd_pcm_ioplug_delete(&b->io); /* calls busy_close */
        return err;
    }
    log_line(log, "%s capture open %u: ok (%s)", name, nth,
             mode & SND_PCM_NONBLOCK ? "non-blocking" : "blocking");
    *pcmp = b->io.pcm;
    return 0;
}

SND_PCM_PLUGIN_SYMBOL(spectro_busy);
