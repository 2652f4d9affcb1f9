/* File source: libsndfile, every format the library reads, streamed block by block so
 * memory does not grow with the file's length. The header's frame count is a hint: we
 * read until the library returns 0. The pipe kind (source_stdin.c) reads through the same
 * code, from a descriptor. */
#include <errno.h>
#include <poll.h>
#include <sndfile.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>

#include "source_internal.h"

typedef struct {
    SNDFILE *sf;
    int64_t promised; /* frames the header declared (before libsndfile clamped it) */
    int at_end;       /* a read returned nothing: the end of the data (or a decode error) */
    int64_t read;
    int header_truncated; /* libsndfile's log says the data chunk is shorter than declared */
    int ended_early;
    size_t pipe_block;    /* a pipe: frames per read at most (libsndfile waits for all it
                           * asks for); 0 for a file */
    int pipe_fd;          /* a pipe: its descriptor, polled so that a stop is seen */
    size_t frame_bytes;   /* a pipe: bytes per frame as stored, 0 when not fixed */
    atomic_int *stop;
    char path[256];
} file_state;

static int file_read(void *state, float *dst, size_t max_frames, size_t *got, sp_errinfo *ei)
{
    file_state *st = state;
    sf_count_t n;
    if (st->pipe_block && max_frames > st->pipe_block)
        max_frames = st->pipe_block;
    /* a pipe whose writer is silent would hold the reader in read() past a stop (SIGTERM
     * to spectro alone): wait for data in 100 ms steps, and end on the stop */
    while (st->pipe_block && st->stop && !atomic_load(st->stop)) {
        struct pollfd pfd = {st->pipe_fd, POLLIN, 0};
        int r = poll(&pfd, 1, 100);
        if (r > 0 || (r < 0 && errno != EINTR))
            break; /* data, the writer gone (POLLHUP), or an error read() will report */
    }
    if (st->pipe_block && st->stop && atomic_load(st->stop)) {
        *got = 0;
        return SP_OK;
    }
    if (st->pipe_block && st->frame_bytes) {
        /* libsndfile waits for every frame asked for: ask for what the pipe holds, so that
         * a writer pausing mid-block does not hold back what it sent (nor a stop) */
        int avail = 0;
        if (ioctl(st->pipe_fd, FIONREAD, &avail) == 0 && avail > 0 &&
            (size_t)avail / st->frame_bytes < max_frames)
            max_frames = (size_t)avail / st->frame_bytes > 0 ? (size_t)avail / st->frame_bytes : 1;
    }
    n = sf_readf_float(st->sf, dst, (sf_count_t)max_frames);
    if (n < 0)
        n = 0;
    if (n == 0)
        st->at_end = 1;
    if (n == 0 && sf_error(st->sf) != SF_ERR_NO_ERROR) {
        /* A decode error part-way (a cut FLAC/Ogg stream): keep what was read, report it
         * as truncation rather than failing the whole analysis. */
        st->ended_early = 1;
    }
    (void)ei;
    st->read += n;
    *got = (size_t)n;
    return SP_OK;
}

static int file_truncated(const void *state)
{
    const file_state *st = state;
    /* fewer frames than promised counts only once the data ran out: a run that stopped
     * reading on purpose (--duration, Ctrl-C) did not find the file short */
    return st->header_truncated || st->ended_early ||
           (st->at_end && st->promised > 0 && st->read < st->promised);
}

static void file_close(void *state)
{
    file_state *st = state;
    if (!st)
        return;
    if (st->sf)
        sf_close(st->sf);
    free(st);
}

/* sf_seek is sample-exact for the formats libsndfile decodes itself; a pipe cannot seek. */
static int file_seek(void *state, int64_t frame, sp_errinfo *ei)
{
    file_state *st = state;
    if (st->pipe_block)
        return SP_EUNSUPPORTED;
    if (st->promised >= 0 && frame >= st->promised)
        return sp_fail(ei, SP_EINPUT, "%s: the start is past the end", st->path);
    if (sf_seek(st->sf, (sf_count_t)frame, SEEK_SET) != (sf_count_t)frame)
        return SP_EUNSUPPORTED; /* read up to it instead */
    st->read = frame;
    return SP_OK;
}

static const source_ops file_ops = {"file", file_read, file_truncated, file_close, NULL,
                                    NULL,   NULL,      NULL,           NULL,       file_seek};

/* libsndfile clamps a data chunk that runs past the end of the file and notes it in its
 * log as "data : 96000 (should be 20000)". */
static int log_says_truncated(SNDFILE *sf)
{
    char log[8192];
    const char *p;
    sf_command(sf, SFC_GET_LOG_INFO, log, sizeof log);
    for (p = log; (p = strstr(p, "should be")) != NULL; p++) {
        const char *line = p;
        while (line > log && line[-1] != '\n')
            line--;
        if (strncmp(line, "data", 4) == 0 || strncmp(line, "SSND", 4) == 0)
            return 1;
    }
    return 0;
}

/* Bytes a sample takes in the stream, 0 when it is not fixed (compressed). */
static size_t sample_bytes(int format)
{
    switch (format & SF_FORMAT_SUBMASK) {
    case SF_FORMAT_PCM_S8: case SF_FORMAT_PCM_U8: case SF_FORMAT_ULAW: case SF_FORMAT_ALAW: return 1;
    case SF_FORMAT_PCM_16: return 2;
    case SF_FORMAT_PCM_24: return 3;
    case SF_FORMAT_PCM_32: case SF_FORMAT_FLOAT: return 4;
    case SF_FORMAT_DOUBLE: return 8;
    default: return 0;
    }
}

static void describe_format(const SF_INFO *in, char *buf, size_t len)
{
    SF_FORMAT_INFO major = {0}, sub = {0};
    major.format = in->format & SF_FORMAT_TYPEMASK;
    sub.format = in->format & SF_FORMAT_SUBMASK;
    if (sf_command(NULL, SFC_GET_FORMAT_INFO, &major, sizeof major) != 0)
        major.name = "unknown";
    if (sf_command(NULL, SFC_GET_FORMAT_INFO, &sub, sizeof sub) != 0)
        sub.name = "unknown";
    snprintf(buf, len, "%s, %s", major.name, sub.name);
}

int source_sndfile_unknown_format(int sf_code)
{
    /* not a container libsndfile knows, or one whose codec it lacks (a WAV of MP3 ...) */
    return sf_code == SF_ERR_UNRECOGNISED_FORMAT || sf_code == SF_ERR_UNSUPPORTED_ENCODING;
}

int source_sndfile_adopt(SNDFILE *sf, const SF_INFO *in, const char *name, int pipe_fd, atomic_int *stop,
                         source **out, sp_errinfo *ei)
{
    int pipe = pipe_fd >= 0;
    file_state *st = NULL;
    source_info info;
    int err;

    if (!(st = calloc(1, sizeof *st))) {
        sf_close(sf);
        return sp_fail(ei, SP_ENOMEM, "out of memory opening %s", name);
    }
    st->sf = sf;
    snprintf(st->path, sizeof st->path, "%s", name);
    if (in->channels < 1 || in->channels > SOURCE_MAX_CHANNELS) {
        err = sp_fail(ei, SP_EINPUT, "%s: %d channels (spectro reads 1 to %d)", name, in->channels,
                      SOURCE_MAX_CHANNELS);
        goto fail;
    }
    if (in->samplerate < 1 || in->samplerate > SOURCE_MAX_RATE) {
        err = sp_fail(ei, SP_EINPUT, "%s: sample rate %d Hz is not usable (1 Hz to %d Hz)", name,
                      in->samplerate, SOURCE_MAX_RATE);
        goto fail;
    }
    st->header_truncated = log_says_truncated(st->sf);
    st->promised = in->frames;
    /* 20 ms a read: a live writer (arecord) is followed closely, a fast one (cat) costs
     * one call per 20 ms of audio */
    st->pipe_block = pipe ? (size_t)in->samplerate / 50 + 1 : 0;
    st->pipe_fd = pipe_fd;
    st->stop = stop;
    st->frame_bytes = pipe ? sample_bytes(in->format) * (size_t)in->channels : 0;

    memset(&info, 0, sizeof info);
    info.rate = in->samplerate;
    info.channels = in->channels;
    /* libsndfile reports SF_COUNT_MAX for streams of unknown length; a pipe has none */
    info.frames_hint = (!pipe && in->frames > 0 && in->frames < INT64_MAX / 2) ? in->frames : -1;
    if (in->frames <= 0 || in->frames >= INT64_MAX / 2)
        st->promised = -1;
    if (pipe) {
        /* a pipe ends when its writer stops; streaming writers (arecord, sox) put a
         * placeholder length in the header, and raw samples have none: no "ends early" */
        st->promised = -1;
        st->header_truncated = 0;
    }
    info.pipe = pipe;
    snprintf(info.name, sizeof info.name, "%s", name);
    snprintf(info.decoder, sizeof info.decoder, "libsndfile");
    describe_format(in, info.format, sizeof info.format);
    return source_create(&file_ops, st, &info, out, ei);

fail:
    file_close(st);
    return err;
}

source_file_options source_file_options_default(void)
{
    source_file_options o;
    memset(&o, 0, sizeof o);
    o.raw = source_raw_none();
    return o;
}

int source_open_file(const char *path, source **out, sp_errinfo *ei)
{
    source_file_options o = source_file_options_default();
    int err = source_open_file_opts(path, &o, out, ei);
    return err == SOURCE_PASS ? SP_EINPUT : err;
}

int source_open_file_opts(const char *path, const source_file_options *o, source **out, sp_errinfo *ei)
{
    struct stat sb;
    SF_INFO in;
    SNDFILE *sf;
    int err;

    if (!path || !o || !out)
        return sp_fail(ei, SP_EINVAL, "source_open_file: NULL argument");
    *out = NULL;
    if (stat(path, &sb) != 0) {
        if (errno == ENOENT || errno == ENOTDIR)
            return sp_fail(ei, SP_EINPUT, "%s: no such file", path);
        return sp_fail(ei, SP_EIO, "%s: %s", path, strerror(errno));
    }
    if (S_ISDIR(sb.st_mode))
        return sp_fail(ei, SP_EINPUT, "%s: is a directory, not an audio file", path);
    if (S_ISREG(sb.st_mode) && sb.st_size == 0)
        return sp_fail(ei, SP_EINPUT, "%s: empty file", path);

    source_raw_sfinfo(&o->raw, &in);
    if (!(sf = sf_open(path, SFM_READ, &in))) {
        int code = sf_error(NULL);
        if (code == SF_ERR_SYSTEM)
            return sp_fail(ei, SP_EIO, "%s: cannot open: %s", path, sf_strerror(NULL));
        err = sp_fail(ei, SP_EINPUT, "%s: not a readable audio file (%s)", path, sf_strerror(NULL));
        /* FFmpeg's turn: a format libsndfile does not know, read as a file (not raw) */
        return o->raw.encoding < 0 && source_sndfile_unknown_format(code) ? SOURCE_PASS : err;
    }
    if (o->stream > 0) {
        sf_close(sf);
        return sp_fail(ei, SP_EINVAL, "--stream %d: %s has one audio stream (--stream 0)", o->stream, path);
    }
    return source_sndfile_adopt(sf, &in, path, -1, NULL, out, ei);
}
