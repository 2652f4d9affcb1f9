/* The pipe kind: standard input ("-") or a FIFO, read from a descriptor as a stream. WAV,
 * AU and raw samples (--raw-format) go to libsndfile, every other format to FFmpeg's
 * demuxers (FLAC, MP3, Ogg, M4A ...), which read pipes too. Which one is decided by the
 * stream's first bytes, looked at without taking them (tee(2) into a pipe of our own), so
 * the reader chosen sees the whole stream. Memory stays constant: both read a pipe block by
 * block. A pipe has no length and cannot seek (--start reads up to the start); standard
 * input redirected from a regular file is that file, with both. */
#define _GNU_SOURCE /* tee */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sndfile.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "source_internal.h"

#define STDIN_NAME "standard input"

int source_is_pipe_path(const char *input)
{
    struct stat sb;
    if (!input)
        return 0;
    if (strcmp(input, "-") == 0)
        return 1;
    return stat(input, &sb) == 0 && S_ISFIFO(sb.st_mode);
}

#define MAGIC_BYTES 4

/* The stream's first MAGIC_BYTES bytes, copied without taking them from the pipe fd (tee
 * into a pipe of our own, drained here): *len of them (fewer when the writer ended
 * first), 0 when they cannot be looked at (not a pipe: a terminal, a socket) or a stop came
 * first. */
static int peek_pipe(int fd, atomic_int *stop, unsigned char *magic, size_t *len)
{
    int p[2], ok = 0;
    *len = 0;
    if (pipe2(p, O_CLOEXEC | O_NONBLOCK) != 0)
        return 0;
    for (;;) {
        struct pollfd pfd = {fd, POLLIN, 0};
        ssize_t n = tee(fd, p[1], MAGIC_BYTES, SPLICE_F_NONBLOCK);
        if (n > 0) {
            ssize_t r = read(p[0], magic, (size_t)n); /* the same bytes, from the start */
            *len = r > 0 ? (size_t)r : 0;
        }
        if (n < 0 && errno != EAGAIN)
            break; /* EINVAL: not a pipe */
        if (*len >= MAGIC_BYTES) {
            ok = 1;
            break;
        }
        if (stop && atomic_load(stop))
            break;
        /* wait for bytes; a writer that closed with fewer leaves POLLHUP and nothing new */
        if (poll(&pfd, 1, 100) > 0 && (pfd.revents & POLLHUP) && tee(fd, p[1], MAGIC_BYTES, SPLICE_F_NONBLOCK) <=
                                                                           (ssize_t)*len) {
            ok = 1;
            break;
        }
        if (n > 0 && (size_t)n < MAGIC_BYTES) {
            struct timespec ts = {0, 2000000}; /* a few bytes so far: the rest is on its way */
            nanosleep(&ts, NULL);
        }
    }
    close(p[0]);
    close(p[1]);
    return ok;
}

/* 1 when libsndfile reads this stream: raw samples, a WAV (RIFF, RIFX, RF64) or AU header. */
static int for_libsndfile(const unsigned char *m, size_t len)
{
    static const char *const heads[] = {"RIFF", "RIFX", "RF64", ".snd", "dns."};
    for (size_t i = 0; len >= MAGIC_BYTES && i < sizeof heads / sizeof heads[0]; i++)
        if (memcmp(m, heads[i], MAGIC_BYTES) == 0)
            return 1;
    return 0;
}

/* libsndfile reading fd; SOURCE_PASS when it does not know a regular file's format (FFmpeg
 * may). The descriptor is libsndfile's from here on: libsndfile 1.2 closes it when the open
 * fails too, even when told not to, so standard input goes to it as a duplicate (which
 * shares its offset). */
static int open_sndfile(int fd, int is_stdin, int pipe, const char *name, const source_file_options *o,
                        atomic_int *stop, source **out, sp_errinfo *ei)
{
    SF_INFO in;
    SNDFILE *sf;
    if (is_stdin && (fd = fcntl(fd, F_DUPFD_CLOEXEC, 3)) < 0)
        return sp_fail(ei, SP_EIO, "%s: %s", name, strerror(errno));
    source_raw_sfinfo(&o->raw, &in);
    sf = sf_open_fd(fd, SFM_READ, &in, SF_TRUE);
    if (!sf) {
        int code = sf_error(NULL);
        if (code == SF_ERR_SYSTEM)
            return sp_fail(ei, SP_EIO, "%s: cannot read: %s", name, sf_strerror(NULL));
        if (!pipe && o->raw.encoding < 0 && source_sndfile_unknown_format(code))
            return SOURCE_PASS;
        return sp_fail(ei, SP_EINPUT,
                       "%s: not audio that libsndfile reads from a %s: WAV, AU, or raw samples with "
                       SP_FIELD("raw_format") " ENCODING,RATE,CHANNELS (libsndfile: %s)",
                       name, pipe ? "pipe" : "file", sf_strerror(NULL));
    }
    if (o->stream > 0) {
        sf_close(sf);
        return sp_fail(ei, SP_EINVAL,
                       SP_FIELD("stream") " %d: %s is read by libsndfile, one audio stream (" SP_FIELD("stream") " 0)",
                       o->stream, name);
    }
    return source_sndfile_adopt(sf, &in, name, pipe ? fd : -1, stop, out, ei);
}

/* Who reads fd (open, not a directory): libsndfile or FFmpeg, as the top says. Only
 * standard input can be a regular file here (a path's is the file kind's). */
static int open_stream(int fd, int is_stdin, int pipe, const char *name, const source_file_options *o,
                       atomic_int *stop, source **out, sp_errinfo *ei)
{
    source_ffmpeg_input ff = {.fd = fd, .name = name, .stop = stop, .own_fd = !is_stdin};
    unsigned char magic[MAGIC_BYTES];
    size_t len = 0;
    off_t at;
    int err;
    if (o->raw.encoding >= 0)
        return open_sndfile(fd, is_stdin, pipe, name, o, stop, out, ei);
    if (pipe) {
        if (!peek_pipe(fd, stop, magic, &len) || len < MAGIC_BYTES || for_libsndfile(magic, len) ||
            !source_ffmpeg_version(o->ffmpeg_module))
            return open_sndfile(fd, is_stdin, pipe, name, o, stop, out, ei);
        return source_open_ffmpeg_input(&ff, o, out, ei);
    }
    /* standard input from a regular file: libsndfile first, as for a path; FFmpeg from the
     * same offset when libsndfile does not know the format */
    at = lseek(fd, 0, SEEK_CUR);
    if ((err = open_sndfile(fd, is_stdin, 0, name, o, stop, out, ei)) != SOURCE_PASS)
        return err;
    if (at < 0 || lseek(fd, at, SEEK_SET) != at)
        return sp_fail(ei, SP_EIO, "%s: cannot read: %s", name, strerror(errno));
    return source_open_ffmpeg_input(&ff, o, out, ei);
}

int source_open_pipe(const char *path, const source_file_options *o, atomic_int *stop, source **out,
                     sp_errinfo *ei)
{
    int is_stdin, fd, pipe;
    const char *name;
    struct stat sb;

    if (!path || !o || !out)
        return sp_fail(ei, SP_EINVAL, "source_open_pipe: NULL argument");
    *out = NULL;
    is_stdin = strcmp(path, "-") == 0;
    name = is_stdin ? STDIN_NAME : path;
    /* a FIFO's open waits for its writer, as any reader of a FIFO does */
    fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return sp_fail(ei, SP_EIO, "%s: cannot open: %s", name, strerror(errno));
    if (fstat(fd, &sb) != 0 || S_ISDIR(sb.st_mode)) {
        int e = errno, dir = S_ISDIR(sb.st_mode);
        if (!is_stdin)
            close(fd);
        return dir ? sp_fail(ei, SP_EINPUT, "%s: is a directory, not audio", name)
                   : sp_fail(ei, SP_EIO, "%s: %s", name, strerror(e));
    }
    /* what is not a regular file delivers at its writer's pace: a pipe (see source.h) */
    pipe = !S_ISREG(sb.st_mode);
    return open_stream(fd, is_stdin, pipe, name, o, stop, out, ei);
}
