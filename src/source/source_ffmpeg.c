/* FFmpeg source: the files libsndfile cannot read (AAC/M4A, video soundtracks, WMA, AC-3,
 * ...), decoded with libavformat + libavcodec and turned into interleaved float by
 * libswresample, at the file's own rate and channels: the samples that
 * `ffmpeg -i FILE -map 0:a:K -f f32le -` writes (the same libraries, the same conversion,
 * the decoder's own trimming of priming and padding). The file row of the source table
 * passes a format it does not know to this one (SOURCE_PASS).
 *
 * No seek op: --start decodes up to the start (source_seek), which keeps every sample
 * where a whole-file decode puts it.
 *
 * This file is the shared module libspectro-ffmpeg.so (src/CMakeLists.txt): spectro loads it
 * (source_ffmpeg_load.c) only when a file needs it, so FFmpeg's ~100 libraries are not
 * loaded by every run. Its one exported symbol is spectro_ffmpeg_module. */
#include <stdio.h>
#include <string.h>

#include "source.h"


#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/opt.h>
#include <libswresample/swresample.h>
#include <stdlib.h>

typedef struct {
    AVFormatContext *fmt;
    AVCodecContext *dec;
    SwrContext *swr;
    AVPacket *pkt;
    AVFrame *frame;
    int stream;                  /* index of the audio stream read, in fmt->streams */
    int rate, channels;          /* as the first decoded frame has them */
    float *pend;                 /* converted samples not yet handed out (interleaved) */
    size_t pend_frames, pend_at, pend_cap;
    int draining, at_end, ended_early, changed;
    char path[256];
} ff_state;

/* "libavformat 59.27.100, libavcodec 59.37.100, ..." of the libraries loaded */
static const char *ff_version(void)
{
    static char buf[160];
    unsigned f = avformat_version(), c = avcodec_version(), s = swresample_version(), u = avutil_version();
#define FF_V(v) (v) >> 16, ((v) >> 8) & 0xff, (v) & 0xff
    snprintf(buf, sizeof buf, "libavformat %u.%u.%u, libavcodec %u.%u.%u, libswresample %u.%u.%u, libavutil %u.%u.%u",
             FF_V(f), FF_V(c), FF_V(s), FF_V(u));
#undef FF_V
    return buf;
}

static void ff_close(void *state)
{
    ff_state *st = state;
    if (!st)
        return;
    swr_free(&st->swr);
    av_frame_free(&st->frame);
    av_packet_free(&st->pkt);
    avcodec_free_context(&st->dec);
    avformat_close_input(&st->fmt);
    free(st->pend);
    free(st);
}

/* The decoded frame in st->frame, converted into st->pend. 0, or -1 when the stream changed
 * its rate or channels (spectro analyses one rate) or memory ran out. */
static int ff_convert(ff_state *st)
{
    AVFrame *fr = st->frame;
    uint8_t *outp;
    int got;
    if (fr->sample_rate != st->rate || fr->ch_layout.nb_channels != st->channels) {
        st->changed = 1;
        return -1;
    }
    if (!st->swr) {
        /* the same conversion as ffmpeg's own (its aresample filter): planar or integer
         * samples into packed float, no resampling, no dither */
        if (swr_alloc_set_opts2(&st->swr, &fr->ch_layout, AV_SAMPLE_FMT_FLT, fr->sample_rate, &fr->ch_layout,
                                (enum AVSampleFormat)fr->format, fr->sample_rate, 0, NULL) < 0 ||
            swr_init(st->swr) < 0)
            return -1;
    }
    if ((size_t)fr->nb_samples > st->pend_cap) {
        float *p = realloc(st->pend, (size_t)fr->nb_samples * (size_t)st->channels * sizeof *p);
        if (!p)
            return -1;
        st->pend = p;
        st->pend_cap = (size_t)fr->nb_samples;
    }
    outp = (uint8_t *)st->pend;
    got = swr_convert(st->swr, &outp, fr->nb_samples, (const uint8_t **)fr->extended_data, fr->nb_samples);
    if (got < 0)
        return -1;
    st->pend_frames = (size_t)got;
    st->pend_at = 0;
    return 0;
}

/* Decodes until a frame is in st->frame: 1, or 0 at the end (st->at_end). A packet the
 * decoder refuses is skipped, as ffmpeg does; any other failure ends the stream early. */
static int ff_next_frame(ff_state *st)
{
    for (;;) {
        int r = avcodec_receive_frame(st->dec, st->frame);
        if (r == 0)
            return 1;
        if (r != AVERROR(EAGAIN)) {
            st->ended_early = r != AVERROR_EOF;
            st->at_end = 1;
            return 0;
        }
        if (st->draining) { /* not reached: a draining decoder ends with EOF */
            st->at_end = 1;
            return 0;
        }
        r = av_read_frame(st->fmt, st->pkt);
        if (r < 0) {
            st->ended_early = r != AVERROR_EOF;
            st->draining = 1;
            avcodec_send_packet(st->dec, NULL);
            continue;
        }
        if (st->pkt->stream_index == st->stream)
            avcodec_send_packet(st->dec, st->pkt); /* an invalid packet: skipped */
        av_packet_unref(st->pkt);
    }
}

static int ff_read(void *state, float *dst, size_t max_frames, size_t *got, sp_errinfo *ei)
{
    ff_state *st = state;
    size_t done = 0, ch = (size_t)st->channels;
    while (done < max_frames) {
        size_t take;
        if (st->pend_at == st->pend_frames) {
            if (st->at_end || !ff_next_frame(st))
                break;
            if (ff_convert(st) != 0) {
                *got = done;
                if (st->changed)
                    return sp_fail(ei, SP_EINPUT, "%s: the audio changes its sample rate or channels part-way "
                                                  "(spectro analyses one)", st->path);
                return sp_fail(ei, SP_ENOMEM, "%s: cannot convert the decoded samples", st->path);
            }
            continue;
        }
        take = st->pend_frames - st->pend_at;
        if (take > max_frames - done)
            take = max_frames - done;
        memcpy(dst + done * ch, st->pend + st->pend_at * ch, take * ch * sizeof *dst);
        st->pend_at += take;
        done += take;
    }
    *got = done;
    return SP_OK;
}

static int ff_truncated(const void *state)
{
    const ff_state *st = state;
    return st->ended_early;
}

static const source_ops ff_ops = {"ffmpeg", ff_read, ff_truncated, ff_close, NULL, NULL, NULL, NULL, NULL, NULL};

/* The o->stream-th audio stream (in the file's order, as -map 0:a:K counts): its index,
 * or a failure naming what the file has. The others are not demuxed. */
static int ff_pick_stream(ff_state *st, int want, sp_errinfo *ei)
{
    int count = 0, found = -1;
    for (unsigned i = 0; i < st->fmt->nb_streams; i++) {
        AVStream *s = st->fmt->streams[i];
        if (s->codecpar->codec_type == AVMEDIA_TYPE_AUDIO && count++ == want)
            found = (int)i;
        else
            s->discard = AVDISCARD_ALL;
    }
    if (count == 0)
        return sp_fail(ei, SP_EINPUT, "%s: has no audio stream", st->path);
    if (found < 0)
        return sp_fail(ei, SP_EINVAL, "--stream %d: %s has %d audio stream%s (0 to %d)", want, st->path, count,
                       count == 1 ? "" : "s", count - 1);
    st->stream = found;
    return SP_OK;
}

static int ff_open_decoder(ff_state *st, sp_errinfo *ei)
{
    AVCodecParameters *par = st->fmt->streams[st->stream]->codecpar;
    const AVCodec *codec = avcodec_find_decoder(par->codec_id);
    if (!codec)
        return sp_fail(ei, SP_EINPUT, "%s: this FFmpeg has no decoder for its audio (%s)", st->path,
                       avcodec_get_name(par->codec_id));
    if (!(st->dec = avcodec_alloc_context3(codec)) || avcodec_parameters_to_context(st->dec, par) < 0)
        return sp_fail(ei, SP_ENOMEM, "%s: out of memory for the decoder", st->path);
    st->dec->pkt_timebase = st->fmt->streams[st->stream]->time_base;
    if (avcodec_open2(st->dec, codec, NULL) < 0)
        return sp_fail(ei, SP_EINPUT, "%s: cannot open the %s decoder", st->path, codec->name);
    if (!(st->pkt = av_packet_alloc()) || !(st->frame = av_frame_alloc()))
        return sp_fail(ei, SP_ENOMEM, "%s: out of memory", st->path);
    return SP_OK;
}

/* Rate, channels and length: from the first decoded frame where there is one (a header's
 * rate can be the core rate of an HE-AAC stream, which decodes at twice it). */
static int ff_fill_info(ff_state *st, source_info *info, sp_errinfo *ei)
{
    AVStream *s = st->fmt->streams[st->stream];
    int have = ff_next_frame(st);
    st->rate = have ? st->frame->sample_rate : st->dec->sample_rate;
    st->channels = have ? st->frame->ch_layout.nb_channels : st->dec->ch_layout.nb_channels;
    if (st->channels < 1 || st->channels > SOURCE_MAX_CHANNELS)
        return sp_fail(ei, SP_EINPUT, "%s: %d channels (spectro reads 1 to %d)", st->path, st->channels,
                       SOURCE_MAX_CHANNELS);
    if (st->rate < 1 || st->rate > SOURCE_MAX_RATE)
        return sp_fail(ei, SP_EINPUT, "%s: sample rate %d Hz is not usable (1 Hz to %d Hz)", st->path, st->rate,
                       SOURCE_MAX_RATE);
    if (have && ff_convert(st) != 0)
        return sp_fail(ei, SP_EINPUT, "%s: cannot convert the decoded samples to float", st->path);
    memset(info, 0, sizeof *info);
    info->rate = st->rate;
    info->channels = st->channels;
    info->frames_hint = -1;
    if (s->duration != AV_NOPTS_VALUE && s->duration > 0)
        info->frames_hint = av_rescale_q(s->duration, s->time_base, (AVRational){1, st->rate});
    else if (st->fmt->duration != AV_NOPTS_VALUE && st->fmt->duration > 0)
        info->frames_hint = av_rescale_q(st->fmt->duration, AV_TIME_BASE_Q, (AVRational){1, st->rate});
    snprintf(info->name, sizeof info->name, "%s", st->path);
    snprintf(info->format, sizeof info->format, "%s, %s", st->fmt->iformat->name,
             avcodec_get_name(s->codecpar->codec_id));
    snprintf(info->decoder, sizeof info->decoder, "ffmpeg");
    return SP_OK;
}

static int ff_open(const char *path, const source_file_options *o, source **out, sp_errinfo *ei)
{
    ff_state *st;
    source_info info;
    int err, r;
    char why[128];

    if (!path || !o || !out)
        return sp_fail(ei, SP_EINVAL, "source_open_ffmpeg: NULL argument");
    *out = NULL;
    av_log_set_level(AV_LOG_QUIET); /* library code never prints: errors come back here */
    if (!(st = calloc(1, sizeof *st)))
        return sp_fail(ei, SP_ENOMEM, "out of memory opening %s", path);
    snprintf(st->path, sizeof st->path, "%s", path);
    if ((r = avformat_open_input(&st->fmt, path, NULL, NULL)) < 0 ||
        (r = avformat_find_stream_info(st->fmt, NULL)) < 0) {
        av_strerror(r, why, sizeof why);
        err = sp_fail(ei, SP_EINPUT, "%s: not a readable audio file (neither libsndfile nor FFmpeg reads it: %s)",
                      path, why);
        goto fail;
    }
    if ((err = ff_pick_stream(st, o->stream, ei)) != SP_OK || (err = ff_open_decoder(st, ei)) != SP_OK ||
        (err = ff_fill_info(st, &info, ei)) != SP_OK)
        goto fail;
    return source_create(&ff_ops, st, &info, out, ei);

fail:
    ff_close(st);
    return err;
}

__attribute__((visibility("default"))) int spectro_ffmpeg_module(unsigned abi, source_ffmpeg_open_fn *open,
                                                                  source_ffmpeg_version_fn *version);

int spectro_ffmpeg_module(unsigned abi, source_ffmpeg_open_fn *open, source_ffmpeg_version_fn *version)
{
    if (abi != SOURCE_FFMPEG_ABI || !open || !version)
        return SP_EUNSUPPORTED; /* built against another spectro */
    *open = ff_open;
    *version = ff_version;
    return SP_OK;
}
