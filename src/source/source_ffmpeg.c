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
 * FFmpeg never sees a path: the module opens the named file itself and hands FFmpeg its own
 * I/O on the descriptor (ff_io), and refuses every further open a demuxer asks for (an HLS
 * playlist's segments, a concat script's files), so a file name like "pipe:0",
 * "concat:a|b" or "http://..." is that local file and nothing else. The same I/O reads a
 * pipe (standard input, a FIFO) after the bytes the pipe kind already took from it.
 *
 * This file is the shared module libspectro-ffmpeg.so (src/CMakeLists.txt): spectro loads it
 * (source_ffmpeg_load.c) only when a file needs it, so FFmpeg's ~100 libraries are not
 * loaded by every run. Its one exported symbol is spectro_ffmpeg_module. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "source.h"

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/opt.h>
#include <libswresample/swresample.h>

#define FF_IO_BUFFER 65536

/* The input as FFmpeg reads it: prefix[prefix_at..) first, then fd from `base` on (its
 * offset when handed over). Seekable when fd is a regular file, or when there is no fd
 * (the prefix is the whole input). */
typedef struct {
    int fd, own_fd;
    unsigned char *prefix;
    size_t prefix_len, prefix_at;
    int64_t base, size; /* size: -1 unknown (a pipe) */
    atomic_int *stop;
} ff_io;

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
    int in_format;               /* the converter's input: the sample format and layout */
    AVChannelLayout in_layout;
    int draining, at_end, ended_early, changed;
    int pipe;
    ff_io io;
    AVIOContext *avio;
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
    if (st->avio)
        av_freep(&st->avio->buffer);
    avio_context_free(&st->avio);
    av_channel_layout_uninit(&st->in_layout);
    if (st->io.own_fd)
        close(st->io.fd);
    free(st->io.prefix);
    free(st->pend);
    free(st);
}

/* The converter for st->frame's sample format and channel layout: the one in st->swr, or a
 * new one when the stream changed either part-way (a transport stream joined from two
 * encodings): a converter built for other samples reads past them. 0, or -1. */
static int ff_converter(ff_state *st)
{
    AVFrame *fr = st->frame;
    if (st->swr && fr->format == st->in_format && av_channel_layout_compare(&fr->ch_layout, &st->in_layout) == 0)
        return 0;
    swr_free(&st->swr);
    av_channel_layout_uninit(&st->in_layout);
    /* the same conversion as ffmpeg's own (its aresample filter): planar or integer
     * samples into packed float, no resampling, no dither */
    if (swr_alloc_set_opts2(&st->swr, &fr->ch_layout, AV_SAMPLE_FMT_FLT, fr->sample_rate, &fr->ch_layout,
                            (enum AVSampleFormat)fr->format, fr->sample_rate, 0, NULL) < 0 ||
        swr_init(st->swr) < 0 || av_channel_layout_copy(&st->in_layout, &fr->ch_layout) < 0) {
        swr_free(&st->swr);
        return -1;
    }
    st->in_format = fr->format;
    return 0;
}

/* The decoded frame in st->frame, converted into st->pend. 0, or -1 when the stream changed
 * its rate or channel count (spectro analyses one rate) or memory ran out. */
static int ff_convert(ff_state *st)
{
    AVFrame *fr = st->frame;
    uint8_t *outp;
    int got;
    if (fr->sample_rate != st->rate || fr->ch_layout.nb_channels != st->channels) {
        st->changed = 1;
        return -1;
    }
    if (ff_converter(st) != 0)
        return -1;
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

static const source_ops ff_ops = {
    .kind = "ffmpeg", .read = ff_read, .truncated = ff_truncated, .close = ff_close,
};

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
        return sp_fail(ei, SP_EINVAL, SP_FIELD("stream") " %d: %s has %d audio stream%s (0 to %d)", want, st->path,
                       count, count == 1 ? "" : "s", count - 1);
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
    info->samples_hint = -1;
    if (s->duration != AV_NOPTS_VALUE && s->duration > 0)
        info->samples_hint = av_rescale_q(s->duration, s->time_base, (AVRational){1, st->rate});
    else if (st->fmt->duration != AV_NOPTS_VALUE && st->fmt->duration > 0)
        info->samples_hint = av_rescale_q(st->fmt->duration, AV_TIME_BASE_Q, (AVRational){1, st->rate});
    snprintf(info->name, sizeof info->name, "%s", st->path);
    snprintf(info->format, sizeof info->format, "%s, %s", st->fmt->iformat->name,
             avcodec_get_name(s->codecpar->codec_id));
    snprintf(info->decoder, sizeof info->decoder, "ffmpeg");
    return SP_OK;
}

/* ---- the module's own I/O (see the top): exactly the one input ------------------------- */

/* Waits until fd has bytes or the stop is set (a pipe whose writer is silent): 1 readable. */
static int io_wait(ff_io *io)
{
    while (!atomic_load(io->stop)) {
        struct pollfd pfd = {io->fd, POLLIN, 0};
        int r = poll(&pfd, 1, 100);
        if (r > 0)
            return 1;
        if (r < 0 && errno != EINTR)
            return 1; /* read() says what is wrong */
    }
    return 0;
}

static int io_read(void *opaque, uint8_t *buf, int size)
{
    ff_io *io = opaque;
    if (io->prefix_at < io->prefix_len) {
        size_t n = io->prefix_len - io->prefix_at;
        if (n > (size_t)size)
            n = (size_t)size;
        memcpy(buf, io->prefix + io->prefix_at, n);
        io->prefix_at += n;
        return (int)n;
    }
    if (io->fd < 0)
        return AVERROR_EOF;
    for (;;) {
        ssize_t n;
        if (io->stop && io->size < 0 && !io_wait(io))
            return AVERROR_EOF;
        n = read(io->fd, buf, (size_t)size);
        if (n > 0)
            return (int)n;
        if (n == 0)
            return AVERROR_EOF;
        if (errno != EINTR)
            return AVERROR(errno);
    }
}

/* Seeks within a regular file (offsets from `base`) or within a prefix that is the whole
 * input; a pipe cannot. */
static int64_t io_seek(void *opaque, int64_t offset, int whence)
{
    ff_io *io = opaque;
    int64_t at;
    if (io->size < 0)
        return AVERROR(ESPIPE);
    if (whence == AVSEEK_SIZE)
        return io->size;
    whence &= ~AVSEEK_FORCE;
    if (io->fd < 0) {
        at = whence == SEEK_SET ? offset : whence == SEEK_CUR ? (int64_t)io->prefix_at + offset : io->size + offset;
        if (at < 0 || at > io->size)
            return AVERROR(EINVAL);
        io->prefix_at = (size_t)at;
        return at;
    }
    if (whence == SEEK_SET)
        offset += io->base;
    at = lseek(io->fd, (off_t)offset, whence);
    return at < 0 ? AVERROR(errno) : at - io->base;
}

/* A demuxer asking to open another file or URL (HLS segments, concat's list, image
 * sequences): refused, so an input reads nothing but itself. */
static int io_refuse(struct AVFormatContext *s, AVIOContext **pb, const char *url, int flags, AVDictionary **opts)
{
    (void)s, (void)url, (void)flags, (void)opts;
    *pb = NULL;
    return AVERROR(EPERM);
}

/* st->io from the input: a path opened here (exactly that file), or a descriptor and the
 * bytes already read from it. */
static int ff_io_open(ff_state *st, const source_ffmpeg_input *in, sp_errinfo *ei)
{
    ff_io *io = &st->io;
    struct stat sb;
    io->fd = in->fd;
    io->own_fd = in->own_fd;
    io->stop = in->stop;
    if (in->path) {
        if ((io->fd = open(in->path, O_RDONLY | O_CLOEXEC)) < 0)
            return sp_fail(ei, errno == ENOENT ? SP_EINPUT : SP_EIO, "%s: cannot open: %s", st->path,
                           strerror(errno));
        io->own_fd = 1;
    }
    if (in->prefix_len) {
        if (!(io->prefix = malloc(in->prefix_len)))
            return sp_fail(ei, SP_ENOMEM, "%s: out of memory", st->path);
        memcpy(io->prefix, in->prefix, in->prefix_len);
        io->prefix_len = in->prefix_len;
    }
    io->size = io->fd < 0 ? (int64_t)io->prefix_len : -1;
    if (io->fd >= 0 && fstat(io->fd, &sb) == 0 && S_ISREG(sb.st_mode) && io->prefix_len == 0 &&
        (io->base = lseek(io->fd, 0, SEEK_CUR)) >= 0)
        io->size = (int64_t)sb.st_size - io->base;
    st->pipe = io->size < 0;
    return SP_OK;
}

static int ff_open_format(ff_state *st, sp_errinfo *ei)
{
    unsigned char *buf = av_malloc(FF_IO_BUFFER);
    AVDictionary *opts = NULL;
    char why[128];
    int r;
    if (!buf || !(st->avio = avio_alloc_context(buf, FF_IO_BUFFER, 0, &st->io, io_read, NULL, io_seek))) {
        av_free(buf);
        return sp_fail(ei, SP_ENOMEM, "%s: out of memory", st->path);
    }
    st->avio->seekable = st->io.size < 0 ? 0 : AVIO_SEEKABLE_NORMAL;
    if (!(st->fmt = avformat_alloc_context()))
        return sp_fail(ei, SP_ENOMEM, "%s: out of memory", st->path);
    st->fmt->pb = st->avio;
    st->fmt->flags |= AVFMT_FLAG_CUSTOM_IO;
    st->fmt->io_open = io_refuse;
    /* and for a demuxer that opens by protocol rather than through io_open: none allowed */
    av_dict_set(&opts, "protocol_whitelist", "none", 0);
    r = avformat_open_input(&st->fmt, st->path, NULL, &opts);
    av_dict_free(&opts);
    if (r >= 0)
        r = avformat_find_stream_info(st->fmt, NULL);
    if (r < 0) {
        av_strerror(r, why, sizeof why);
        return sp_fail(ei, SP_EINPUT, "%s: not a readable audio file (neither libsndfile nor FFmpeg reads it: %s)",
                       st->path, why);
    }
    return SP_OK;
}

static int ff_open(const source_ffmpeg_input *in, const source_file_options *o, source **out, sp_errinfo *ei)
{
    ff_state *st;
    source_info info;
    int err;

    if (!in || !in->name || (!in->path && in->fd < 0 && !in->prefix_len) || !o || !out) {
        if (in && in->own_fd && in->fd >= 0)
            close(in->fd);
        return sp_fail(ei, SP_EINVAL, "source_open_ffmpeg: NULL argument");
    }
    *out = NULL;
    av_log_set_level(AV_LOG_QUIET); /* library code never prints: errors come back here */
    if (!(st = calloc(1, sizeof *st))) {
        if (in->own_fd && in->fd >= 0)
            close(in->fd);
        return sp_fail(ei, SP_ENOMEM, "out of memory opening %s", in->name);
    }
    st->io.fd = -1;
    snprintf(st->path, sizeof st->path, "%s", in->name);
    if ((err = ff_io_open(st, in, ei)) != SP_OK || (err = ff_open_format(st, ei)) != SP_OK ||
        (err = ff_pick_stream(st, o->stream, ei)) != SP_OK || (err = ff_open_decoder(st, ei)) != SP_OK ||
        (err = ff_fill_info(st, &info, ei)) != SP_OK)
        goto fail;
    info.pipe = st->pipe;
    if (st->pipe)
        info.samples_hint = -1; /* a pipe has no length (source.h) */
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
