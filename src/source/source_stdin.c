/* The pipe kind: standard input ("-") or a FIFO, read by libsndfile from a descriptor as a
 * stream: WAV, AU, or raw samples (--raw-format). Memory stays constant: libsndfile reads
 * a pipe block by block. A pipe has no length and cannot seek (--start reads up to the
 * start); standard input redirected from a regular file is that file, with both. */
#include <errno.h>
#include <fcntl.h>
#include <sndfile.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
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

int source_open_pipe(const char *path, const source_file_options *o, atomic_int *stop, source **out,
                     sp_errinfo *ei)
{
    int is_stdin, fd, pipe;
    const char *name;
    struct stat sb;
    SF_INFO in;
    SNDFILE *sf;

    if (!path || !o || !out)
        return sp_fail(ei, SP_EINVAL, "source_open_pipe: NULL argument");
    *out = NULL;
    is_stdin = strcmp(path, "-") == 0;
    name = is_stdin ? STDIN_NAME : path;
    if (o->stream > 0)
        return sp_fail(ei, SP_EINVAL, "--stream %d: %s is read by libsndfile, one audio stream (--stream 0)",
                       o->stream, name);
    /* a FIFO's open waits for its writer, as any reader of a FIFO does */
    fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY);
    if (fd < 0)
        return sp_fail(ei, SP_EIO, "%s: cannot open: %s", name, strerror(errno));
    if (fstat(fd, &sb) != 0) {
        int e = errno;
        if (!is_stdin)
            close(fd);
        return sp_fail(ei, SP_EIO, "%s: %s", name, strerror(e));
    }
    if (S_ISDIR(sb.st_mode)) {
        if (!is_stdin)
            close(fd);
        return sp_fail(ei, SP_EINPUT, "%s: is a directory, not audio", name);
    }
    /* what is not a regular file delivers at its writer's pace: a pipe (see source.h) */
    pipe = !S_ISREG(sb.st_mode);
    source_raw_sfinfo(&o->raw, &in);
    sf = sf_open_fd(fd, SFM_READ, &in, is_stdin ? SF_FALSE : SF_TRUE);
    if (!sf) {
        int code = sf_error(NULL);
        if (!is_stdin)
            close(fd); /* libsndfile closes it only once open */
        if (code == SF_ERR_SYSTEM)
            return sp_fail(ei, SP_EIO, "%s: cannot read: %s", name, sf_strerror(NULL));
        return sp_fail(ei, SP_EINPUT,
                       "%s: not audio that libsndfile reads from a %s: WAV, AU, or raw samples with "
                       "--raw-format ENCODING,RATE,CHANNELS (libsndfile: %s)",
                       name, pipe ? "pipe" : "file", sf_strerror(NULL));
    }
    return source_sndfile_adopt(sf, &in, name, pipe ? fd : -1, stop, out, ei);
}
