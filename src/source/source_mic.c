/* Microphone source: PortAudio capture, float32 interleaved, pushed into the caller's ring.
 *
 * The stream is opened in source_open_mic() (so a busy device or a refused rate is reported
 * there) and started/stopped by source_start()/source_stop(). The audio callback copies
 * whole frames into the ring with ring_write() and counts, with relaxed atomics, what did
 * not fit and the overflows PortAudio flags, and notes where each loss falls in a
 * lock-free queue the consumer reads (source_take_gaps): no malloc, lock, printf or I/O
 * in it.
 *
 * PortAudio is initialised on first use (open or list) and terminated when the last user
 * goes away; file analysis never touches it. Before the first Pa_Initialize the chatter of
 * the audio stack is silenced (see quiet_audio_stack()) and, on ALSA systems, the ALSA
 * configuration is checked first: PortAudio 19.6 aborts on `devIdx < numDeviceNames` when
 * ALSA has no configuration or one that names no device at all. */
#include "source.h"
#include "source_pa.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef SPECTRO_HAVE_PORTAUDIO

source_mic_config source_mic_config_default(void)
{
    source_mic_config c;
    memset(&c, 0, sizeof c);
    return c;
}

int source_open_mic(const source_mic_config *cfg, source **out, sp_errinfo *ei)
{
    (void)cfg;
    if (out)
        *out = NULL;
    return sp_fail(ei, SP_EUNSUPPORTED,
                   "microphone input is not built in (PortAudio was not found at configure "
                   "time: apt-get install portaudio19-dev and rebuild)");
}

int source_list_devices(source_device_info *out, int max, int *count, sp_errinfo *ei)
{
    (void)out;
    (void)max;
    if (count)
        *count = 0;
    return sp_fail(ei, SP_EUNSUPPORTED,
                   "microphone input is not built in (PortAudio was not found at configure "
                   "time: apt-get install portaudio19-dev and rebuild)");
}

int source_pa_acquire(sp_errinfo *ei)
{
    return sp_fail(ei, SP_EUNSUPPORTED, "no audio: PortAudio was not found at configure time");
}

void source_pa_release(void)
{
}

int source_pa_find_device(const char *want, int output, source_device_info *out, sp_errinfo *ei)
{
    (void)want, (void)output, (void)out;
    return source_pa_acquire(ei);
}

#else /* SPECTRO_HAVE_PORTAUDIO */

#include <ctype.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <portaudio.h>
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

#ifdef SPECTRO_HAVE_ALSA
#include <alsa/asoundlib.h>
#endif

#include "ring.h"

#define MIC_STALL_NS 2000000000ull /* no callback for this long while running: device lost */
#define MIC_GAPS 64 /* gaps published and not yet taken; a power of two */

/* ---- PortAudio lifetime ----------------------------------------------------------------- */

static pthread_mutex_t pa_lock = PTHREAD_MUTEX_INITIALIZER;
static int pa_users;
static pthread_once_t quiet_once = PTHREAD_ONCE_INIT;

#ifdef SPECTRO_HAVE_ALSA
static void alsa_silent(const char *file, int line, const char *function, int err, const char *fmt,
                        ...)
{
    (void)file;
    (void)line;
    (void)function;
    (void)err;
    (void)fmt;
}
#endif

static void jack_silent(const char *msg)
{
    (void)msg;
}

/* Replaces the audio libraries' stderr printing by no-ops, once per process. libjack is not
 * linked: when PortAudio was built with JACK it is already loaded and we find it by name. */
static void quiet_audio_stack(void)
{
    typedef void (*jack_msg_fn)(void (*)(const char *));
    static const char *const names[] = {"jack_set_error_function", "jack_set_info_function"};
    void *jack;

#ifdef SPECTRO_HAVE_ALSA
    snd_lib_error_set_handler(alsa_silent);
#endif
    setenv("JACK_NO_START_SERVER", "1", 0);
    jack = dlopen("libjack.so.0", RTLD_LAZY | RTLD_LOCAL);
    if (!jack)
        return;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        void *sym = dlsym(jack, names[i]);
        jack_msg_fn fn;
        if (!sym)
            continue;
        memcpy(&fn, &sym, sizeof fn); /* object pointer -> function pointer (POSIX) */
        fn(jack_silent);
    }
    /* the handle stays open: libjack keeps pointers to our functions */
}

#ifdef SPECTRO_HAVE_ALSA
/* The names PortAudio 19.6 skips when it walks the "pcm" section (IgnorePlugin). */
static int pa_ignores_pcm(const char *id)
{
    static const char *const ignored[] = {"hw",   "plughw", "plug", "dsnoop", "tee",
                                          "file", "null",   "shm",  "cards",  "rate_convert"};
    for (size_t i = 0; i < sizeof ignored / sizeof ignored[0]; i++)
        if (strcmp(id, ignored[i]) == 0)
            return 1;
    return 0;
}

/* What PortAudio's ALSA host API would need not to abort: a readable configuration and at
 * least one sound card or PCM definition. */
static int alsa_preflight(sp_errinfo *ei)
{
    const char *env = getenv("ALSA_CONFIG_PATH");
    char path[1024];
    snd_config_t *pcms;
    snd_config_iterator_t it, next;
    int card = -1, names = 0, rc;

    if (env && *env) {
        const char *p = env;
        while (*p) {
            size_t len = strcspn(p, ": ");
            if (len > 0) {
                snprintf(path, sizeof path, "%.*s", (int)len, p);
                if (access(path, R_OK) != 0)
                    return sp_fail(ei, SP_ENODEV,
                                   "no audio input: ALSA configuration %s (ALSA_CONFIG_PATH) "
                                   "cannot be read",
                                   path);
            }
            p += len;
            while (*p == ':' || *p == ' ')
                p++;
        }
    } else {
        const char *dir = getenv("ALSA_CONFIG_DIR");
        snprintf(path, sizeof path, "%s/alsa.conf", dir && *dir ? dir : "/usr/share/alsa");
        if (access(path, R_OK) != 0)
            return sp_fail(ei, SP_ENODEV,
                           "no audio input: ALSA configuration %s is missing (apt-get install "
                           "libasound2-data, or set ALSA_CONFIG_PATH)",
                           path);
    }
    if ((rc = snd_config_update()) < 0)
        return sp_fail(ei, SP_ENODEV, "no audio input: the ALSA configuration cannot be loaded (%s)",
                       snd_strerror(rc));
    if (snd_card_next(&card) == 0 && card >= 0)
        return SP_OK;
    if (snd_config && snd_config_search(snd_config, "pcm", &pcms) >= 0) {
        snd_config_for_each(it, next, pcms)
        {
            const char *id;
            if (snd_config_get_id(snd_config_iterator_entry(it), &id) >= 0 && !pa_ignores_pcm(id))
                names++;
        }
    }
    if (names == 0)
        return sp_fail(ei, SP_ENODEV,
                       "no audio input device found (no sound card, and the ALSA configuration "
                       "defines no PCM device)");
    return SP_OK;
}
#endif

static int pa_acquire(sp_errinfo *ei)
{
    int err = SP_OK;
    PaError pe;
    pthread_once(&quiet_once, quiet_audio_stack);
    pthread_mutex_lock(&pa_lock);
    if (pa_users == 0) {
#ifdef SPECTRO_HAVE_ALSA
        if ((err = alsa_preflight(ei)) != SP_OK)
            goto out;
#endif
        if ((pe = Pa_Initialize()) != paNoError) {
            err = sp_fail(ei, SP_EAUDIO, "cannot initialise PortAudio: %s", Pa_GetErrorText(pe));
            goto out;
        }
    }
    pa_users++;
out:
    pthread_mutex_unlock(&pa_lock);
    return err;
}

static void pa_release(void)
{
    pthread_mutex_lock(&pa_lock);
    if (pa_users > 0 && --pa_users == 0)
        Pa_Terminate();
    pthread_mutex_unlock(&pa_lock);
}

/* ---- the stream ------------------------------------------------------------------------- */

/* Audio that went missing: `len` frames between the at-th and the (at+1)-th frame written
 * to the ring since start. */
typedef struct {
    uint64_t at, len;
} mic_gap;

typedef struct {
    PaStream *stream;
    ring *ring;            /* set while stopped, read by the callback while running */
    int channels;
    double latency_s;
    int started;           /* by source_start(), cleared by source_stop() */
    _Atomic uint64_t dropped;   /* samples: ring full + overflow estimates */
    _Atomic uint64_t overflows; /* callbacks flagged paInputOverflow */
    _Atomic uint64_t callbacks;
    _Atomic uint64_t last_cb_ns; /* CLOCK_MONOTONIC of the latest callback */
    _Atomic int finished;        /* PortAudio's stream-finished notification */
    /* Where the drops fall, for mic_take_gaps: a single-producer single-consumer queue. A
     * gap is published before any frame after it enters the ring, so a consumer that has
     * seen a frame also sees the gaps before it. */
    mic_gap gaps[MIC_GAPS];
    _Atomic uint64_t gaps_head;  /* published (the callback) */
    _Atomic uint64_t gaps_tail;  /* taken (the consumer) */
    uint64_t written;            /* callback only: frames written since start */
    mic_gap pending;             /* callback only: the newest gap, still growing (len 0: none) */
    char name[128];
} mic_state;

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Callback side: `frames` frames are lost here (after st->written frames). Consecutive
 * losses with nothing written between them are one gap. */
static void mic_lose(mic_state *st, uint64_t frames)
{
    if (st->pending.len == 0)
        st->pending.at = st->written;
    st->pending.len += frames;
    atomic_fetch_add_explicit(&st->dropped, frames, memory_order_relaxed);
}

/* Callback side: publishes the pending gap before frames after it are written; 0 when the
 * queue is full (the caller then writes nothing, so the gap just grows). */
static int mic_publish(mic_state *st)
{
    uint64_t head = atomic_load_explicit(&st->gaps_head, memory_order_relaxed);
    if (st->pending.len == 0)
        return 1;
    if (head - atomic_load_explicit(&st->gaps_tail, memory_order_acquire) >= MIC_GAPS)
        return 0;
    st->gaps[head % MIC_GAPS] = st->pending;
    atomic_store_explicit(&st->gaps_head, head + 1, memory_order_release);
    st->pending.len = 0;
    return 1;
}

/* Real-time: copy, count, return. clock_gettime(CLOCK_MONOTONIC) is a vDSO read. */
static int mic_callback(const void *input, void *output, unsigned long frames,
                        const PaStreamCallbackTimeInfo *time_info, PaStreamCallbackFlags flags,
                        void *user)
{
    mic_state *st = user;
    size_t want = (size_t)frames * (size_t)st->channels, fit = 0;
    (void)output;
    (void)time_info;
    atomic_store_explicit(&st->last_cb_ns, now_ns(), memory_order_relaxed);
    atomic_fetch_add_explicit(&st->callbacks, 1, memory_order_relaxed);
    if (flags & paInputOverflow) {
        /* the device lost audio before this input; how much is not known: one buffer's
         * worth is the estimate */
        atomic_fetch_add_explicit(&st->overflows, 1, memory_order_relaxed);
        mic_lose(st, frames);
    }
    if (input && st->ring) {
        size_t room = ring_writable(st->ring);
        room -= room % (size_t)st->channels; /* whole frames only: channels stay aligned */
        if (room > 0 && mic_publish(st)) {
            fit = ring_write(st->ring, input, want < room ? want : room);
            st->written += fit / (size_t)st->channels;
        }
    }
    if (fit < want)
        mic_lose(st, (want - fit) / (size_t)st->channels);
    return paContinue;
}

static void mic_finished(void *user)
{
    mic_state *st = user;
    atomic_store_explicit(&st->finished, 1, memory_order_release);
}

static int mic_start(void *state, struct ring_s *r, sp_errinfo *ei)
{
    mic_state *st = state;
    PaError pe;
    if (st->started)
        return sp_fail(ei, SP_EINVAL, "%s: already started", st->name);
    st->ring = r; /* the callback does not run while the stream is stopped */
    st->written = 0;
    st->pending.len = 0;
    atomic_store(&st->gaps_head, 0);
    atomic_store(&st->gaps_tail, 0);
    atomic_store(&st->finished, 0);
    atomic_store(&st->last_cb_ns, now_ns());
    if ((pe = Pa_StartStream(st->stream)) != paNoError) {
        if (pe == paUnanticipatedHostError && Pa_GetLastHostErrorInfo()->errorText)
            return sp_fail(ei, SP_EAUDIO, "cannot start audio input %s: %s", st->name,
                           Pa_GetLastHostErrorInfo()->errorText);
        return sp_fail(ei, SP_EAUDIO, "cannot start audio input %s: %s", st->name,
                       Pa_GetErrorText(pe));
    }
    st->started = 1;
    return SP_OK;
}

static int mic_stop(void *state)
{
    mic_state *st = state;
    PaError pe = paNoError;
    if (!st->started)
        return SP_OK;
    st->started = 0;
    if (Pa_IsStreamStopped(st->stream) == 0)
        pe = Pa_StopStream(st->stream);
    return pe == paNoError ? SP_OK : SP_EAUDIO;
}

static uint64_t mic_dropped(const void *state)
{
    const mic_state *st = state;
    return atomic_load_explicit(&((mic_state *)st)->dropped, memory_order_relaxed);
}

static uint64_t mic_take_gaps(void *state, uint64_t upto, uint64_t *next_at)
{
    mic_state *st = state;
    uint64_t tail = atomic_load_explicit(&st->gaps_tail, memory_order_relaxed);
    uint64_t head = atomic_load_explicit(&st->gaps_head, memory_order_acquire), sum = 0;
    for (; tail < head && st->gaps[tail % MIC_GAPS].at <= upto; tail++)
        sum += st->gaps[tail % MIC_GAPS].len;
    *next_at = tail < head ? st->gaps[tail % MIC_GAPS].at : UINT64_MAX;
    atomic_store_explicit(&st->gaps_tail, tail, memory_order_release);
    return sum;
}

static int mic_status(const void *state, sp_errinfo *ei)
{
    mic_state *st = (mic_state *)state; /* only atomics are read */
    uint64_t last, now;
    PaError active;
    if (!st->started)
        return SP_OK;
    active = Pa_IsStreamActive(st->stream);
    if (atomic_load_explicit(&st->finished, memory_order_acquire) || active == 0)
        return sp_fail(ei, SP_EAUDIO, "audio device lost: %s stopped delivering audio", st->name);
    if (active < 0)
        return sp_fail(ei, SP_EAUDIO, "audio device lost: %s: %s", st->name,
                       Pa_GetErrorText(active));
    last = atomic_load_explicit(&st->last_cb_ns, memory_order_relaxed);
    now = now_ns();
    if (now > last && now - last > MIC_STALL_NS && (double)(now - last) > 20e9 * st->latency_s)
        return sp_fail(ei, SP_EAUDIO, "audio device lost: no audio from %s for %.1f s", st->name,
                       (double)(now - last) / 1e9);
    return SP_OK;
}

static void mic_close(void *state)
{
    mic_state *st = state;
    if (!st)
        return;
    if (st->stream) {
        mic_stop(st);
        Pa_CloseStream(st->stream);
        pa_release();
    }
    free(st);
}

static const source_ops mic_ops = {
    .kind = "mic", .close = mic_close, .start = mic_start, .stop = mic_stop, .dropped = mic_dropped,
    .status = mic_status, .take_gaps = mic_take_gaps,
};

/* ---- device choice ---------------------------------------------------------------------- */

static int ci_contains(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; *hay; hay++) {
        size_t i = 0;
        while (i < n && hay[i] &&
               tolower((unsigned char)hay[i]) == tolower((unsigned char)needle[i]))
            i++;
        if (i == n)
            return 1;
    }
    return n == 0;
}

static int ci_equal(const char *a, const char *b)
{
    for (; *a && *b; a++, b++)
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
            return 0;
    return *a == *b;
}

static int has_dir(const PaDeviceInfo *d, int output)
{
    return d && (output ? d->maxOutputChannels : d->maxInputChannels) > 0;
}

/* "0 name, 1 name, ..." of the input (or output) devices, cut to fit. */
static void describe_devices(char *buf, size_t len, int output)
{
    int n = Pa_GetDeviceCount(), shown = 0;
    size_t at = 0;
    buf[0] = 0;
    for (int i = 0; i < n && at + 1 < len; i++) {
        const PaDeviceInfo *d = Pa_GetDeviceInfo(i);
        int w;
        if (!has_dir(d, output))
            continue;
        w = snprintf(buf + at, len - at, "%s%d \"%s\"", shown ? ", " : "", i, d->name);
        if (w < 0 || (size_t)w >= len - at) {
            if (len > 4)
                memcpy(buf + len - 4, "...", 4);
            return;
        }
        at += (size_t)w;
        shown++;
    }
    if (!shown)
        snprintf(buf, len, "none");
}

static int is_index(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (!isdigit((unsigned char)*s))
            return 0;
    return 1;
}

static int find_device(const char *want, int output, PaDeviceIndex *out, sp_errinfo *ei)
{
    char list[300];
    const char *dir = output ? "output" : "input";
    int n = Pa_GetDeviceCount();
    PaDeviceIndex sub = paNoDevice;

    if (!want) {
        *out = output ? Pa_GetDefaultOutputDevice() : Pa_GetDefaultInputDevice();
        if (*out == paNoDevice)
            return sp_fail(ei, SP_ENODEV, "no audio %s device found (try " SP_FIELD("list_devices") ")", dir);
        return SP_OK;
    }
    if (is_index(want)) {
        long idx = strtol(want, NULL, 10);
        const PaDeviceInfo *d = idx < n ? Pa_GetDeviceInfo((PaDeviceIndex)idx) : NULL;
        if (has_dir(d, output)) {
            *out = (PaDeviceIndex)idx;
            return SP_OK;
        }
        describe_devices(list, sizeof list, output);
        return sp_fail(ei, SP_ENODEV, "audio %s device %s not found (%ss: %s)", dir, want, dir, list);
    }
    for (int i = 0; i < n; i++) {
        const PaDeviceInfo *d = Pa_GetDeviceInfo(i);
        if (!has_dir(d, output))
            continue;
        if (ci_equal(d->name, want)) {
            *out = i;
            return SP_OK;
        }
        if (sub == paNoDevice && ci_contains(d->name, want))
            sub = i;
    }
    if (sub != paNoDevice) {
        *out = sub;
        return SP_OK;
    }
    describe_devices(list, sizeof list, output);
    return sp_fail(ei, SP_ENODEV, "no audio %s device matches \"%s\" (%ss: %s)", dir, want, dir, list);
}

/* PortAudio 19.6 prints its ALSA host API's internal failures on stderr ("Expression 'ret'
 * failed in 'src/hostapi/alsa/pa_linux_alsa.c'...", PaUtil_DebugPrint), with no exported
 * way to turn that off: stderr points at /dev/null around the calls that print it (a busy
 * device: up to a second of PortAudio's retries), sp_stderr_mute (err.h). The redirection
 * is process-wide; while a device is being opened no other thread of spectro writes to
 * stderr (the window's thread waits for the analysis to start). */

static void supported_rates(const PaStreamParameters *in, char *buf, size_t len)
{
    static const int rates[] = {8000,  16000, 22050, 32000,  44100,
                                48000, 88200, 96000, 176400, 192000};
    size_t at = 0;
    buf[0] = 0;
    for (size_t i = 0; i < sizeof rates / sizeof rates[0]; i++) {
        int mute = sp_stderr_mute();
        PaError pe = Pa_IsFormatSupported(in, NULL, rates[i]);
        sp_stderr_unmute(mute);
        if (pe != paFormatIsSupported)
            continue;
        int w = snprintf(buf + at, len - at, "%s%d", at ? ", " : "", rates[i]);
        if (w < 0 || (size_t)w >= len - at)
            break;
        at += (size_t)w;
    }
    if (!at)
        snprintf(buf, len, "none of the standard rates");
}

/* 1 when rate is among the standard rates listed in buf by supported_rates(). */
static int rate_listed(const char *buf, int rate)
{
    char want[16];
    size_t n = (size_t)snprintf(want, sizeof want, "%d", rate);
    for (const char *p = buf; (p = strstr(p, want)) != NULL; p += n)
        if ((p == buf || p[-1] == ' ') && (p[n] == ',' || p[n] == 0))
            return 1;
    return 0;
}

/* One line for a PortAudio failure opening input `in` of the device called name.
 * PortAudio's ALSA host API reports some refused rates as paBadIODeviceCombination, not
 * paInvalidSampleRate, so any other failure at a rate outside the device's standard rates
 * is reported as a rate problem too. */
static int pa_open_error(PaError pe, const PaStreamParameters *in, const char *name, int rate,
                         sp_errinfo *ei)
{
    char rates[160];
    const PaHostErrorInfo *h;
    if (pe == paDeviceUnavailable)
        return sp_fail(ei, SP_EAUDIO, "audio input %s is busy (in use by another program?)", name);
    if (pe == paInvalidChannelCount)
        return sp_fail(ei, SP_EINVAL, "audio input %s cannot record %d channels (it has %d)",
                       name, in->channelCount, Pa_GetDeviceInfo(in->device)->maxInputChannels);
    supported_rates(in, rates, sizeof rates);
    if (pe == paInvalidSampleRate || (isdigit((unsigned char)rates[0]) && !rate_listed(rates, rate)))
        return sp_fail(ei, SP_EINVAL, "audio input %s does not support %d Hz (supported: %s)",
                       name, rate, rates);
    h = Pa_GetLastHostErrorInfo();
    if (pe == paUnanticipatedHostError && h && h->errorText && h->errorText[0])
        return sp_fail(ei, SP_EAUDIO, "cannot open audio input %s: %s", name, h->errorText);
    return sp_fail(ei, SP_EAUDIO, "cannot open audio input %s: %s", name, Pa_GetErrorText(pe));
}

/* ---- public ----------------------------------------------------------------------------- */

source_mic_config source_mic_config_default(void)
{
    source_mic_config c;
    memset(&c, 0, sizeof c);
    return c;
}

int source_open_mic(const source_mic_config *cfg, source **out, sp_errinfo *ei)
{
    source_mic_config c = cfg ? *cfg : source_mic_config_default();
    const PaDeviceInfo *d;
    const PaHostApiInfo *api;
    PaStreamParameters in;
    PaDeviceIndex dev;
    PaError pe;
    mic_state *st;
    source_info info;
    int err, rate, mute;

    if (!out)
        return sp_fail(ei, SP_EINVAL, "source_open_mic: NULL argument");
    *out = NULL;
    if (c.rate < 0 || c.rate > SOURCE_MAX_RATE)
        return sp_fail(ei, SP_EINVAL, "audio input rate %d Hz is not usable", c.rate);
    if (c.channels < 0 || c.channels > SOURCE_MAX_CHANNELS)
        return sp_fail(ei, SP_EINVAL, "audio input: %d channels (spectro reads 1 to %d)",
                       c.channels, SOURCE_MAX_CHANNELS);
    if (!(c.latency_s >= 0 && c.latency_s <= 10))
        return sp_fail(ei, SP_EINVAL, "audio input latency %g s is not usable (0 to 10 s)",
                       c.latency_s);

    if ((err = pa_acquire(ei)) != SP_OK)
        return err;
    if ((err = find_device(c.device, 0, &dev, ei)) != SP_OK)
        goto fail_pa;
    d = Pa_GetDeviceInfo(dev);
    api = Pa_GetHostApiInfo(d->hostApi);

    memset(&in, 0, sizeof in);
    in.device = dev;
    in.channelCount = c.channels ? c.channels : 1;
    in.sampleFormat = paFloat32;
    in.suggestedLatency = c.latency_s > 0 ? c.latency_s : d->defaultLowInputLatency;
    rate = c.rate ? c.rate : (int)(d->defaultSampleRate + 0.5);
    if (in.channelCount > d->maxInputChannels) {
        err = sp_fail(ei, SP_EINVAL, "audio input %s cannot record %d channels (it has %d)",
                      d->name, in.channelCount, d->maxInputChannels);
        goto fail_pa;
    }
    if (rate < 1) {
        err = sp_fail(ei, SP_EINVAL, "audio input %s reports no default rate: give one", d->name);
        goto fail_pa;
    }
    mute = sp_stderr_mute();
    pe = Pa_IsFormatSupported(&in, NULL, rate);
    sp_stderr_unmute(mute);
    if (pe != paFormatIsSupported) {
        err = pa_open_error(pe, &in, d->name, rate, ei);
        goto fail_pa;
    }

    if (!(st = calloc(1, sizeof *st))) {
        err = sp_fail(ei, SP_ENOMEM, "out of memory opening audio input %s", d->name);
        goto fail_pa;
    }
    st->channels = in.channelCount;
    snprintf(st->name, sizeof st->name, "%s", d->name);
    mute = sp_stderr_mute();
    pe = Pa_OpenStream(&st->stream, &in, NULL, rate, paFramesPerBufferUnspecified, paNoFlag,
                       mic_callback, st);
    sp_stderr_unmute(mute);
    if (pe != paNoError) {
        st->stream = NULL;
        err = pa_open_error(pe, &in, d->name, rate, ei);
        free(st);
        goto fail_pa;
    }
    st->latency_s = Pa_GetStreamInfo(st->stream) ? Pa_GetStreamInfo(st->stream)->inputLatency
                                                   : in.suggestedLatency;
    Pa_SetStreamFinishedCallback(st->stream, mic_finished);

    memset(&info, 0, sizeof info);
    info.rate = rate;
    info.channels = in.channelCount;
    info.samples_hint = -1;
    snprintf(info.name, sizeof info.name, "%s", d->name);
    snprintf(info.format, sizeof info.format, "PortAudio %s", api ? api->name : "?");
    return source_create(&mic_ops, st, &info, out, ei); /* closes st (and releases) on failure */

fail_pa:
    pa_release();
    return err;
}

/* Device i as source_list_devices gives it (def, def_out: the default input and output). */
static void describe_device(int i, PaDeviceIndex def, PaDeviceIndex def_out, source_device_info *o)
{
    const PaDeviceInfo *d = Pa_GetDeviceInfo(i);
    const PaHostApiInfo *api = Pa_GetHostApiInfo(d->hostApi);
    memset(o, 0, sizeof *o);
    o->index = i;
    snprintf(o->name, sizeof o->name, "%s", d->name);
    snprintf(o->host_api, sizeof o->host_api, "%s", api ? api->name : "?");
    o->max_input_channels = d->maxInputChannels;
    o->max_output_channels = d->maxOutputChannels;
    o->default_rate = d->defaultSampleRate;
    o->is_default = i == def;
    o->is_default_output = i == def_out;
}

int source_list_devices(source_device_info *out, int max, int *count, sp_errinfo *ei)
{
    int n, found = 0, err;
    PaDeviceIndex def, def_out;
    if (!count || max < 0 || (max > 0 && !out))
        return sp_fail(ei, SP_EINVAL, "source_list_devices: bad argument");
    *count = 0;
    if ((err = pa_acquire(ei)) != SP_OK)
        return err;
    n = Pa_GetDeviceCount();
    def = Pa_GetDefaultInputDevice();
    def_out = Pa_GetDefaultOutputDevice();
    for (int i = 0; i < n; i++) {
        const PaDeviceInfo *d = Pa_GetDeviceInfo(i);
        if (!has_dir(d, 0) && !has_dir(d, 1))
            continue;
        if (found < max)
            describe_device(i, def, def_out, &out[found]);
        found++;
    }
    *count = found;
    pa_release();
    return SP_OK;
}

/* ---- for a client that drives PortAudio itself (source_pa.h) --------------------------- */

int source_pa_acquire(sp_errinfo *ei)
{
    return pa_acquire(ei);
}

void source_pa_release(void)
{
    pa_release();
}

int source_pa_find_device(const char *want, int output, source_device_info *out, sp_errinfo *ei)
{
    PaDeviceIndex dev = paNoDevice;
    int err;
    if ((err = find_device(want, output, &dev, ei)) == SP_OK)
        describe_device(dev, Pa_GetDefaultInputDevice(), Pa_GetDefaultOutputDevice(), out);
    return err;
}

#endif /* SPECTRO_HAVE_PORTAUDIO */
