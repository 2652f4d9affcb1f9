/* view_player: a stretch of an input through PortAudio's output (see view_player.h). */
#include "view_player.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

view_player_config view_player_config_default(void)
{
    view_player_config c;
    memset(&c, 0, sizeof c);
    c.source = spectro_source_config_default();
    c.end = -1;
    c.channel = SPECTRO_CHANNEL_MIX;
    return c;
}

/* code, and its line into err */
static int fail(spectro_error *err, int code, const char *fmt, ...)
{
    va_list ap;
    if (err) {
        err->code = code;
        va_start(ap, fmt);
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
    }
    return code;
}

#ifndef SPECTRO_HAVE_PORTAUDIO

int view_player_start(const view_player_config *cfg, view_player **out, spectro_error *err)
{
    (void)cfg;
    if (out)
        *out = NULL;
    return fail(err, SPECTRO_EUNSUPPORTED, "no audio output: PortAudio was not found at configure time");
}

void view_player_get_clock(view_player *p, view_player_clock *out)
{
    (void)p;
    memset(out, 0, sizeof *out);
}

void view_player_stop(view_player *p)
{
    (void)p;
}

#else /* SPECTRO_HAVE_PORTAUDIO */

#include <portaudio.h>
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "err.h"
#include "ring.h"

#define DECODE_FRAMES 4096
#define PREFILL_WAIT_S 5.0 /* the ring's first filling may take this long (a slow decoder) */

struct view_player {
    view_player_config cfg;
    spectro_source *src;
    int audio;                     /* spectro_audio_acquire held */
    int in_channels, out_channels, rate;
    PaStream *stream;
    ring rb;
    float *storage;
    float *in, *mono;      /* the decoder's buffers: DECODE_FRAMES frames */
    pthread_t th;
    int th_running;
    atomic_int stop;
    _Atomic int eof;               /* the decoder wrote its last sample (or failed) */
    _Atomic int64_t decoded;       /* samples the decoder wrote */
    _Atomic int finished;          /* PortAudio's stream-finished notification */
    /* the clock, published by the callback under a sequence count (odd: being written) */
    _Atomic uint64_t seq;
    _Atomic double dac;
    _Atomic uint64_t idx, written, underruns;
    uint64_t played;               /* callback only: samples handed to the device */
    int complete;                  /* callback only: paComplete returned */
    char device[128];
};

/* ---- the decoder thread ---- */

static void pause_ms(long ms)
{
    struct timespec ts = {0, ms * 1000000L};
    nanosleep(&ts, NULL);
}

static void *decode_main(void *arg)
{
    view_player *p = arg;
    int64_t at = p->cfg.first;
    while (!atomic_load(&p->stop) && (p->cfg.end < 0 || at < p->cfg.end)) {
        size_t want = DECODE_FRAMES, got = 0, done = 0;
        if (p->cfg.end >= 0 && (int64_t)want > p->cfg.end - at)
            want = (size_t)(p->cfg.end - at);
        if (spectro_source_read(p->src, p->in, want, &got, NULL) != SPECTRO_OK || got == 0)
            break; /* a read error (or a range past the end) ends the stretch early: what
                    * was read plays */
        spectro_mix_channels(p->in, got, p->in_channels, p->cfg.channel, p->mono, NULL); /* checked at open */
        while (done < got && !atomic_load(&p->stop)) {
            size_t w = ring_write(&p->rb, p->mono + done, got - done);
            done += w;
            if (w == 0)
                pause_ms(2);
        }
        at += (int64_t)got;
        atomic_fetch_add(&p->decoded, (int64_t)done);
    }
    atomic_store_explicit(&p->eof, 1, memory_order_release);
    return NULL;
}

/* ---- the callback: copies, publishes the clock ---- */

static void publish(view_player *p, double dac, uint64_t idx)
{
    uint64_t s = atomic_load_explicit(&p->seq, memory_order_relaxed);
    atomic_store_explicit(&p->seq, s + 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
    atomic_store_explicit(&p->dac, dac, memory_order_relaxed);
    atomic_store_explicit(&p->idx, idx, memory_order_relaxed);
    atomic_store_explicit(&p->written, p->played, memory_order_relaxed);
    atomic_store_explicit(&p->seq, s + 2, memory_order_release);
}

static int play_callback(const void *input, void *output, unsigned long frames,
                         const PaStreamCallbackTimeInfo *time_info, PaStreamCallbackFlags flags, void *user)
{
    view_player *p = user;
    float *out = output;
    int eof = atomic_load_explicit(&p->eof, memory_order_acquire); /* before the read: nothing follows it */
    size_t got = p->complete ? 0 : ring_read(&p->rb, out, frames);
    uint64_t idx = p->played;
    (void)input, (void)flags;
    if (got < frames) {
        memset(out + got, 0, (frames - got) * sizeof *out);
        if (eof)
            p->complete = 1;
        else
            atomic_fetch_add_explicit(&p->underruns, 1, memory_order_relaxed);
    }
    if (p->out_channels == 2) /* the same sample on both: from the end, in place */
        for (size_t i = frames; i-- > 0;)
            out[2 * i] = out[2 * i + 1] = out[i];
    p->played += got;
    publish(p, time_info->outputBufferDacTime, idx);
    return p->complete ? paComplete : paContinue;
}

static void play_finished(void *user)
{
    view_player *p = user;
    atomic_store_explicit(&p->finished, 1, memory_order_release);
}

/* ---- open, start, stop ---- */

/* The stretch's samples as seconds of the source's range: s / rate, which the source
 * rounds back to s (docs/design.md: a time is the nearest sample). */
static int open_input(view_player *p, spectro_error *err)
{
    spectro_source_config c = p->cfg.source;
    spectro_source_info info;
    int code;
    if (spectro_input_is_stream(p->cfg.input))
        return fail(err, SPECTRO_EUNSUPPORTED, "playback reads its input again: not a pipe or the microphone");
    if (p->cfg.rate <= 0)
        return fail(err, SPECTRO_EINVAL, "playback: rate %d", p->cfg.rate);
    if (p->cfg.first < 0 || (p->cfg.end >= 0 && p->cfg.end <= p->cfg.first))
        return fail(err, SPECTRO_EINVAL, "playback: an empty stretch");
    c.start = (double)p->cfg.first / p->cfg.rate;
    c.end = p->cfg.end >= 0 ? (double)p->cfg.end / p->cfg.rate : 0;
    if ((code = spectro_source_open(p->cfg.input, &c, &p->src, err)) != SPECTRO_OK)
        return code;
    memset(&info, 0, sizeof info);
    info.size = sizeof info;
    spectro_source_get_info(p->src, &info);
    p->in_channels = info.channels;
    p->rate = info.sample_rate;
    if (p->rate != p->cfg.rate)
        return fail(err, SPECTRO_EINVAL, "playback: %s is read at %d Hz, not the %d Hz analysed", info.name,
                    p->rate, p->cfg.rate);
    if (p->cfg.channel >= p->in_channels || p->cfg.channel < SPECTRO_CHANNEL_MIX)
        return fail(err, SPECTRO_EINVAL, "playback: %s has no channel %d", info.name, p->cfg.channel);
    return SPECTRO_OK;
}

static int open_output(view_player *p, spectro_error *err)
{
    PaStreamParameters out;
    spectro_device_info dev;
    const PaDeviceInfo *d;
    PaError pe = paInvalidChannelCount;
    int code, mute;
    if ((code = spectro_find_device(p->cfg.device, 1, &dev, err)) != SPECTRO_OK)
        return code;
    d = Pa_GetDeviceInfo(dev.index);
    snprintf(p->device, sizeof p->device, "%s", d->name);
    memset(&out, 0, sizeof out);
    out.device = dev.index;
    out.sampleFormat = paFloat32;
    out.suggestedLatency = d->defaultLowOutputLatency;
    mute = spectro_audio_quiet_begin();
    for (int ch = 1; ch <= 2 && pe == paInvalidChannelCount; ch++) {
        out.channelCount = p->out_channels = ch;
        pe = Pa_OpenStream(&p->stream, NULL, &out, p->rate, paFramesPerBufferUnspecified,
                           paClipOff | paPrimeOutputBuffersUsingStreamCallback, play_callback, p);
    }
    spectro_audio_quiet_end(mute);
    if (pe != paNoError) {
        p->stream = NULL;
        if (pe == paUnanticipatedHostError && Pa_GetLastHostErrorInfo()->errorText)
            return fail(err, SPECTRO_EAUDIO, "cannot open audio output %s at %d Hz: %s", d->name, p->rate,
                        Pa_GetLastHostErrorInfo()->errorText);
        return fail(err, SPECTRO_EAUDIO, "cannot open audio output %s at %d Hz: %s", d->name, p->rate,
                    Pa_GetErrorText(pe));
    }
    Pa_SetStreamFinishedCallback(p->stream, play_finished);
    return SPECTRO_OK;
}

/* Until the ring is full or the stretch all in it. */
static void prefill(view_player *p)
{
    for (int i = 0; i < (int)(PREFILL_WAIT_S * 1000 / 2); i++) {
        if (atomic_load_explicit(&p->eof, memory_order_acquire) || ring_writable(&p->rb) < DECODE_FRAMES)
            return;
        pause_ms(2);
    }
}

/* PortAudio held (spectro_audio_acquire: the library's start of it, its quirks and count),
 * the input and the output opened, the buffers. */
static int open_all(view_player *p, spectro_error *err)
{
    int code;
    if ((code = spectro_audio_acquire(err)) != SPECTRO_OK)
        return code;
    p->audio = 1;
    if ((code = open_input(p, err)) != SPECTRO_OK || (code = open_output(p, err)) != SPECTRO_OK)
        return code;
    p->storage = malloc(VIEW_PLAYER_RING_SAMPLES * sizeof *p->storage);
    p->in = malloc((size_t)DECODE_FRAMES * (size_t)p->in_channels * sizeof *p->in);
    p->mono = malloc((size_t)DECODE_FRAMES * sizeof *p->mono);
    if (!p->storage || !p->in || !p->mono || ring_init(&p->rb, p->storage, VIEW_PLAYER_RING_SAMPLES) != SP_OK)
        return fail(err, SPECTRO_ENOMEM, "out of memory for playback");
    return SPECTRO_OK;
}

int view_player_start(const view_player_config *cfg, view_player **out, spectro_error *err)
{
    view_player *p;
    PaError pe;
    int code, mute;
    if (!cfg || !out)
        return fail(err, SPECTRO_EINVAL, "view_player_start: NULL argument");
    *out = NULL;
    if (!(p = calloc(1, sizeof *p)))
        return fail(err, SPECTRO_ENOMEM, "out of memory");
    p->cfg = *cfg;
    if ((code = open_all(p, err)) != SPECTRO_OK)
        goto fail;
    if (pthread_create(&p->th, NULL, decode_main, p) != 0) {
        code = fail(err, SPECTRO_ENOMEM, "cannot start the playback's decoder");
        goto fail;
    }
    p->th_running = 1;
    prefill(p);
    mute = spectro_audio_quiet_begin();
    pe = Pa_StartStream(p->stream);
    spectro_audio_quiet_end(mute);
    if (pe != paNoError) {
        code = fail(err, SPECTRO_EAUDIO, "cannot start audio output %s: %s", p->device, Pa_GetErrorText(pe));
        goto fail;
    }
    *out = p;
    return SPECTRO_OK;
fail:
    view_player_stop(p);
    return code;
}

void view_player_get_clock(view_player *p, view_player_clock *c)
{
    uint64_t s0, s1;
    memset(c, 0, sizeof *c);
    if (!p)
        return;
    c->rate = p->rate;
    c->first = p->cfg.first;
    c->end = p->cfg.end;
    snprintf(c->device, sizeof c->device, "%s", p->device);
    do {
        s0 = atomic_load_explicit(&p->seq, memory_order_acquire);
        c->dac_time = atomic_load_explicit(&p->dac, memory_order_relaxed);
        c->buf_idx = atomic_load_explicit(&p->idx, memory_order_relaxed);
        c->written = atomic_load_explicit(&p->written, memory_order_relaxed);
        atomic_thread_fence(memory_order_acquire);
        s1 = atomic_load_explicit(&p->seq, memory_order_relaxed);
    } while ((s0 & 1) || s0 != s1);
    c->callbacks = s0 > 0;
    c->underruns = atomic_load_explicit(&p->underruns, memory_order_relaxed);
    c->done = atomic_load_explicit(&p->finished, memory_order_acquire);
    if (atomic_load_explicit(&p->eof, memory_order_acquire) && c->end < 0)
        c->end = p->cfg.first + atomic_load(&p->decoded);
    c->stream_time = p->stream ? Pa_GetStreamTime(p->stream) : 0.0;
    if (c->callbacks) {
        c->pos = (double)c->buf_idx + (c->stream_time - c->dac_time) * (double)p->rate;
        c->pos = c->pos < 0 ? 0 : c->pos > (double)c->written ? (double)c->written : c->pos;
    }
}

void view_player_stop(view_player *p)
{
    if (!p)
        return;
    atomic_store(&p->stop, 1);
    if (p->stream) {
        int mute = spectro_audio_quiet_begin();
        if (Pa_IsStreamStopped(p->stream) == 0)
            Pa_AbortStream(p->stream);
        Pa_CloseStream(p->stream);
        spectro_audio_quiet_end(mute);
    }
    if (p->th_running)
        pthread_join(p->th, NULL);
    spectro_source_close(p->src);
    if (p->audio)
        spectro_audio_release();
    free(p->storage);
    free(p->in);
    free(p->mono);
    free(p);
}

#endif /* SPECTRO_HAVE_PORTAUDIO */
