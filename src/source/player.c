/* player: a stretch of an input through PortAudio's output (see player.h). */
#include "player.h"

#include <stdlib.h>
#include <string.h>

player_config player_config_default(void)
{
    player_config c;
    memset(&c, 0, sizeof c);
    c.end = -1;
    c.channel = PLAYER_MIX;
    return c;
}

#ifndef SPECTRO_HAVE_PORTAUDIO

int player_start(const player_config *cfg, player **out, sp_errinfo *ei)
{
    (void)cfg;
    if (out)
        *out = NULL;
    return sp_fail(ei, SP_EUNSUPPORTED, "no audio output: PortAudio was not found at configure time");
}

void player_get_clock(player *p, player_clock *out)
{
    (void)p;
    memset(out, 0, sizeof *out);
}

void player_stop(player *p)
{
    (void)p;
}

#else /* SPECTRO_HAVE_PORTAUDIO */

#include <portaudio.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>

#include "ring.h"
#include "source_pa.h"

#define DECODE_FRAMES 4096
#define PREFILL_WAIT_S 5.0 /* the ring's first filling may take this long (a slow decoder) */

struct player {
    player_config cfg;
    source *src;
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

static void mix(player *p, size_t frames)
{
    const int ch = p->in_channels;
    if (p->cfg.channel >= 0) {
        for (size_t i = 0; i < frames; i++)
            p->mono[i] = p->in[i * (size_t)ch + (size_t)p->cfg.channel];
        return;
    }
    /* as the analysis mixes (stft.c): the float sum in channel order, times 1/C */
    if (ch == 1) {
        memcpy(p->mono, p->in, frames * sizeof *p->mono);
        return;
    }
    const float inv = 1.0f / (float)ch;
    for (size_t i = 0; i < frames; i++)
        p->mono[i] = p->in[i * (size_t)ch];
    for (int c = 1; c < ch; c++)
        for (size_t i = 0; i < frames; i++)
            p->mono[i] += p->in[i * (size_t)ch + (size_t)c];
    for (size_t i = 0; i < frames; i++)
        p->mono[i] *= inv;
}

static void pause_ms(long ms)
{
    struct timespec ts = {0, ms * 1000000L};
    nanosleep(&ts, NULL);
}

static void *decode_main(void *arg)
{
    player *p = arg;
    int64_t at = p->cfg.first;
    sp_errinfo ei = {{0}};
    while (!atomic_load(&p->stop) && (p->cfg.end < 0 || at < p->cfg.end)) {
        size_t want = DECODE_FRAMES, got = 0, done = 0;
        if (p->cfg.end >= 0 && (int64_t)want > p->cfg.end - at)
            want = (size_t)(p->cfg.end - at);
        if (source_read(p->src, p->in, want, &got, &ei) != SP_OK || got == 0)
            break; /* a read error ends the stretch early: what was read plays */
        mix(p, got);
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

static void publish(player *p, double dac, uint64_t idx)
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
    player *p = user;
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
    player *p = user;
    atomic_store_explicit(&p->finished, 1, memory_order_release);
}

/* ---- open, start, stop ---- */

static int open_input(player *p, sp_errinfo *ei)
{
    const source_info *info;
    int64_t reached = 0;
    int err;
    if (!p->cfg.req.input || source_is_pipe_path(p->cfg.req.input))
        return sp_fail(ei, SP_EUNSUPPORTED, "playback reads its input again: not a pipe or the microphone");
    p->cfg.req.file.readers = 1; /* real time needs no decoding ahead on threads */
    if ((err = source_open_request(&p->cfg.req, &p->src, ei)) != SP_OK)
        return err;
    if (source_is_push(p->src))
        return sp_fail(ei, SP_EUNSUPPORTED, "playback reads its input again: not the microphone");
    info = source_get_info(p->src);
    p->in_channels = info->channels;
    p->rate = info->rate;
    if (p->cfg.channel >= p->in_channels || p->cfg.channel < PLAYER_MIX)
        return sp_fail(ei, SP_EINVAL, "playback: %s has no channel %d", info->name, p->cfg.channel);
    if (p->cfg.first < 0 || (p->cfg.end >= 0 && p->cfg.end <= p->cfg.first))
        return sp_fail(ei, SP_EINVAL, "playback: an empty stretch");
    if ((err = source_seek(p->src, p->cfg.first, &p->stop, &reached, ei)) != SP_OK)
        return err;
    if (reached < p->cfg.first)
        return sp_fail(ei, SP_EINVAL, "playback: %s ends before sample %lld", info->name, (long long)p->cfg.first);
    return SP_OK;
}

static int open_output(player *p, sp_errinfo *ei)
{
    PaStreamParameters out;
    const PaDeviceInfo *d;
    PaError pe = paInvalidChannelCount;
    int dev = -1, err, mute;
    if ((err = source_pa_find_output(p->cfg.device, &dev, ei)) != SP_OK)
        return err;
    d = Pa_GetDeviceInfo(dev);
    snprintf(p->device, sizeof p->device, "%s", d->name);
    memset(&out, 0, sizeof out);
    out.device = dev;
    out.sampleFormat = paFloat32;
    out.suggestedLatency = d->defaultLowOutputLatency;
    mute = source_pa_mute();
    for (int ch = 1; ch <= 2 && pe == paInvalidChannelCount; ch++) {
        out.channelCount = p->out_channels = ch;
        pe = Pa_OpenStream(&p->stream, NULL, &out, p->rate, paFramesPerBufferUnspecified,
                           paClipOff | paPrimeOutputBuffersUsingStreamCallback, play_callback, p);
    }
    source_pa_unmute(mute);
    if (pe != paNoError) {
        p->stream = NULL;
        if (pe == paUnanticipatedHostError && Pa_GetLastHostErrorInfo()->errorText)
            return sp_fail(ei, SP_EAUDIO, "cannot open audio output %s at %d Hz: %s", d->name, p->rate,
                           Pa_GetLastHostErrorInfo()->errorText);
        return sp_fail(ei, SP_EAUDIO, "cannot open audio output %s at %d Hz: %s", d->name, p->rate,
                       Pa_GetErrorText(pe));
    }
    Pa_SetStreamFinishedCallback(p->stream, play_finished);
    return SP_OK;
}

/* Until the ring is full or the stretch all in it. */
static void prefill(player *p)
{
    for (int i = 0; i < (int)(PREFILL_WAIT_S * 1000 / 2); i++) {
        if (atomic_load_explicit(&p->eof, memory_order_acquire) || ring_writable(&p->rb) < DECODE_FRAMES)
            return;
        pause_ms(2);
    }
}

int player_start(const player_config *cfg, player **out, sp_errinfo *ei)
{
    player *p;
    PaError pe;
    int err, mute;
    if (!cfg || !out)
        return sp_fail(ei, SP_EINVAL, "player_start: NULL argument");
    *out = NULL;
    if (!(p = calloc(1, sizeof *p)))
        return sp_fail(ei, SP_ENOMEM, "out of memory");
    p->cfg = *cfg;
    if ((err = source_pa_acquire(ei)) != SP_OK) {
        free(p);
        return err;
    }
    if ((err = open_input(p, ei)) != SP_OK || (err = open_output(p, ei)) != SP_OK)
        goto fail;
    p->storage = malloc(PLAYER_RING_SAMPLES * sizeof *p->storage);
    p->in = malloc((size_t)DECODE_FRAMES * (size_t)p->in_channels * sizeof *p->in);
    p->mono = malloc((size_t)DECODE_FRAMES * sizeof *p->mono);
    if (!p->storage || !p->in || !p->mono || ring_init(&p->rb, p->storage, PLAYER_RING_SAMPLES) != SP_OK) {
        err = sp_fail(ei, SP_ENOMEM, "out of memory for playback");
        goto fail;
    }
    if (pthread_create(&p->th, NULL, decode_main, p) != 0) {
        err = sp_fail(ei, SP_ENOMEM, "cannot start the playback's decoder");
        goto fail;
    }
    p->th_running = 1;
    prefill(p);
    mute = source_pa_mute();
    pe = Pa_StartStream(p->stream);
    source_pa_unmute(mute);
    if (pe != paNoError) {
        err = sp_fail(ei, SP_EAUDIO, "cannot start audio output %s: %s", p->device, Pa_GetErrorText(pe));
        goto fail;
    }
    *out = p;
    return SP_OK;
fail:
    player_stop(p);
    return err;
}

void player_get_clock(player *p, player_clock *c)
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

void player_stop(player *p)
{
    if (!p)
        return;
    atomic_store(&p->stop, 1);
    if (p->stream) {
        int mute = source_pa_mute();
        if (Pa_IsStreamStopped(p->stream) == 0)
            Pa_AbortStream(p->stream);
        Pa_CloseStream(p->stream);
        source_pa_unmute(mute);
    }
    if (p->th_running)
        pthread_join(p->th, NULL);
    source_close(p->src);
    source_pa_release();
    free(p->storage);
    free(p->in);
    free(p->mono);
    free(p);
}

#endif /* SPECTRO_HAVE_PORTAUDIO */
