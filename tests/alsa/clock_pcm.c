/* spectro_clock: an ALSA playback device that plays in real time and keeps nothing.
 *
 * For e2e_play's playhead test through the real PortAudio and alsa-lib: ALSA's `null` PCM
 * has no clock (a stream over it runs as fast as its callback fills it), and a real output
 * needs a sound card. alsa-lib loads this external plugin (ioplug API) for
 * `type spectro_clock`; the test puts ALSA's `file` plugin over it, so the bytes still land
 * in a file, at the pace of CLOCK_MONOTONIC: the samples played are elapsed time x rate,
 * a timerfd ticks once a period for poll(). Capture opens fail with -ENOENT.
 *
 *   pcm.NAME { type spectro_clock }
 *   pcm_type.spectro_clock { lib "/path/to/libasound_module_pcm_spectro_clock.so" }
 */
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include <alsa/asoundlib.h>
#include <alsa/pcm_external.h>

/* defined by SND_PCM_PLUGIN_DEFINE_FUNC below; declared for -Wmissing-prototypes */
int SND_PCM_PLUGIN_ENTRY(spectro_clock)(snd_pcm_t **pcmp, const char *name, snd_config_t *root,
                                        snd_config_t *conf, snd_pcm_stream_t stream, int mode);

typedef struct {
    snd_pcm_ioplug_t io; /* io.poll_fd: the timerfd */
    int running;
    uint64_t start_ns;         /* CLOCK_MONOTONIC at start */
    snd_pcm_uframes_t played;  /* frames played since start, as of the last pointer call */
} clock_pcm;

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int clock_start(snd_pcm_ioplug_t *io)
{
    clock_pcm *c = io->private_data;
    uint64_t period_ns = (uint64_t)io->period_size * 1000000000ull / io->rate;
    struct itimerspec its;
    if (period_ns == 0)
        period_ns = 1;
    its.it_interval.tv_sec = (time_t)(period_ns / 1000000000ull);
    its.it_interval.tv_nsec = (long)(period_ns % 1000000000ull);
    its.it_value = its.it_interval;
    if (timerfd_settime(io->poll_fd, 0, &its, NULL) < 0)
        return -errno;
    c->start_ns = now_ns();
    c->played = 0;
    c->running = 1;
    return 0;
}

static int clock_stop(snd_pcm_ioplug_t *io)
{
    clock_pcm *c = io->private_data;
    struct itimerspec off;
    memset(&off, 0, sizeof off);
    timerfd_settime(io->poll_fd, 0, &off, NULL);
    c->running = 0;
    return 0;
}

/* Position in the buffer from the frames the clock says were played. It never plays past
 * what the application wrote: a writer that falls behind (a loaded test machine) makes the
 * device wait, its clock slipping, rather than an underrun that PortAudio would fill with
 * silence (the test compares the bytes). */
static snd_pcm_sframes_t clock_pointer(snd_pcm_ioplug_t *io)
{
    clock_pcm *c = io->private_data;
    uint64_t ns, frames;
    snd_pcm_uframes_t queued;
    if (!c->running)
        return (snd_pcm_sframes_t)(c->played % io->buffer_size);
    ns = now_ns() - c->start_ns;
    frames = ns / 1000000000ull * io->rate + ns % 1000000000ull * io->rate / 1000000000ull;
    queued = io->buffer_size - snd_pcm_ioplug_avail(io, io->hw_ptr, io->appl_ptr);
    if (frames - c->played > queued) {
        c->start_ns += (frames - c->played - queued) * 1000000000ull / io->rate;
        frames = c->played + queued;
    }
    c->played = (snd_pcm_uframes_t)frames;
    return (snd_pcm_sframes_t)(c->played % io->buffer_size);
}

static snd_pcm_sframes_t clock_transfer(snd_pcm_ioplug_t *io, const snd_pcm_channel_area_t *areas,
                                        snd_pcm_uframes_t offset, snd_pcm_uframes_t size)
{
    (void)io, (void)areas, (void)offset;
    return (snd_pcm_sframes_t)size;
}

static int clock_prepare(snd_pcm_ioplug_t *io)
{
    clock_pcm *c = io->private_data;
    c->played = 0;
    return 0;
}

static int clock_poll_revents(snd_pcm_ioplug_t *io, struct pollfd *pfd, unsigned int nfds,
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
        *revents = POLLOUT;
    }
    return 0;
}

static int clock_close(snd_pcm_ioplug_t *io)
{
    clock_pcm *c = io->private_data;
    close(io->poll_fd);
    free(c);
    return 0;
}

static const snd_pcm_ioplug_callback_t clock_callbacks = {
    .start = clock_start,
    .stop = clock_stop,
    .pointer = clock_pointer,
    .transfer = clock_transfer,
    .close = clock_close,
    .prepare = clock_prepare,
    .poll_revents = clock_poll_revents,
};

static int clock_constraints(snd_pcm_ioplug_t *io)
{
    static const unsigned int access[] = {SND_PCM_ACCESS_RW_INTERLEAVED, SND_PCM_ACCESS_MMAP_INTERLEAVED};
    static const unsigned int formats[] = {SND_PCM_FORMAT_FLOAT_LE, SND_PCM_FORMAT_S16_LE};
    int err;
    if ((err = snd_pcm_ioplug_set_param_list(io, SND_PCM_IOPLUG_HW_ACCESS, 2, access)) < 0 ||
        (err = snd_pcm_ioplug_set_param_list(io, SND_PCM_IOPLUG_HW_FORMAT, 2, formats)) < 0 ||
        (err = snd_pcm_ioplug_set_param_minmax(io, SND_PCM_IOPLUG_HW_CHANNELS, 1, 2)) < 0 ||
        (err = snd_pcm_ioplug_set_param_minmax(io, SND_PCM_IOPLUG_HW_RATE, 8000, 192000)) < 0 ||
        (err = snd_pcm_ioplug_set_param_minmax(io, SND_PCM_IOPLUG_HW_PERIOD_BYTES, 64, 1u << 20)) < 0 ||
        (err = snd_pcm_ioplug_set_param_minmax(io, SND_PCM_IOPLUG_HW_PERIODS, 2, 64)) < 0 ||
        (err = snd_pcm_ioplug_set_param_minmax(io, SND_PCM_IOPLUG_HW_BUFFER_BYTES, 128, 1u << 22)) < 0)
        return err;
    return 0;
}

SND_PCM_PLUGIN_DEFINE_FUNC(spectro_clock)
{
    clock_pcm *c;
    int err;
    (void)root, (void)conf;
    if (stream != SND_PCM_STREAM_PLAYBACK)
        return -ENOENT;
    if (!(c = calloc(1, sizeof *c)))
        return -ENOMEM;
    c->io.version = SND_PCM_IOPLUG_VERSION;
    c->io.name = "spectro real-time playback (test)";
    c->io.callback = &clock_callbacks;
    c->io.private_data = c;
    c->io.poll_events = POLLIN;
    c->io.poll_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    if (c->io.poll_fd < 0) {
        err = -errno;
        free(c);
        return err;
    }
    if ((err = snd_pcm_ioplug_create(&c->io, name, stream, mode)) < 0) {
        close(c->io.poll_fd);
        free(c);
        return err;
    }
    if ((err = clock_constraints(&c->io)) < 0) {
        snd_pcm_ioplug_delete(&c->io);
        return err;
    }
    *pcmp = c->io.pcm;
    return 0;
}

SND_PCM_PLUGIN_SYMBOL(spectro_clock);
