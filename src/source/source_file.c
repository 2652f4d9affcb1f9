/* File source: libsndfile, every format the library reads, streamed block by block so
 * memory does not grow with the file's length. The header's frame count is a hint: we
 * read until the library returns 0. */
#include <errno.h>
#include <sndfile.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "source.h"

typedef struct {
    SNDFILE *sf;
    int64_t promised; /* frames the header declared (before libsndfile clamped it) */
    int at_end;       /* a read returned nothing: the end of the data (or a decode error) */
    int64_t read;
    int header_truncated; /* libsndfile's log says the data chunk is shorter than declared */
    int ended_early;
    char path[256];
} file_state;

static int file_read(void *state, float *dst, size_t max_frames, size_t *got, sp_errinfo *ei)
{
    file_state *st = state;
    sf_count_t n = sf_readf_float(st->sf, dst, (sf_count_t)max_frames);
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

static const source_ops file_ops = {"file", file_read, file_truncated, file_close, NULL, NULL, NULL, NULL, NULL};

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

int source_open_file(const char *path, source **out, sp_errinfo *ei)
{
    struct stat sb;
    SF_INFO in;
    file_state *st = NULL;
    source_info info;
    int err;

    if (!path || !out)
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

    st = calloc(1, sizeof *st);
    if (!st)
        return sp_fail(ei, SP_ENOMEM, "out of memory opening %s", path);
    snprintf(st->path, sizeof st->path, "%s", path);
    memset(&in, 0, sizeof in);
    st->sf = sf_open(path, SFM_READ, &in);
    if (!st->sf) {
        int code = sf_error(NULL);
        if (code == SF_ERR_SYSTEM)
            err = sp_fail(ei, SP_EIO, "%s: cannot open: %s", path, sf_strerror(NULL));
        else
            err = sp_fail(ei, SP_EINPUT, "%s: not a readable audio file (%s)", path, sf_strerror(NULL));
        goto fail;
    }
    if (in.channels < 1 || in.channels > SOURCE_MAX_CHANNELS) {
        err = sp_fail(ei, SP_EINPUT, "%s: %d channels (spectro reads 1 to %d)", path, in.channels,
                      SOURCE_MAX_CHANNELS);
        goto fail;
    }
    if (in.samplerate < 1 || in.samplerate > SOURCE_MAX_RATE) {
        err = sp_fail(ei, SP_EINPUT, "%s: sample rate %d Hz is not usable (1 Hz to %d Hz)", path,
                      in.samplerate, SOURCE_MAX_RATE);
        goto fail;
    }
    st->header_truncated = log_says_truncated(st->sf);
    st->promised = in.frames;

    memset(&info, 0, sizeof info);
    info.rate = in.samplerate;
    info.channels = in.channels;
    /* libsndfile reports SF_COUNT_MAX for streams of unknown length */
    info.frames_hint = (in.frames > 0 && in.frames < INT64_MAX / 2) ? in.frames : -1;
    if (info.frames_hint < 0)
        st->promised = -1;
    snprintf(info.name, sizeof info.name, "%s", path);
    describe_format(&in, info.format, sizeof info.format);
    return source_create(&file_ops, st, &info, out, ei);

fail:
    file_close(st);
    return err;
}

/* ---- a file in memory (libsndfile's virtual I/O) ----------------------------------------
 * The file source's state comes first, so that file_ops (and file_close's free) take the
 * whole; the bytes are borrowed. */
typedef struct {
    file_state file;
    const unsigned char *data;
    sf_count_t len, at; /* `at` may lie past the end, as a file offset may: reads give 0 */
} mem_state;

static sf_count_t mem_filelen(void *user)
{
    return ((const mem_state *)user)->len;
}

/* lseek's rules: any offset at or after 0, even past the end; a negative one fails. */
static sf_count_t mem_seek(sf_count_t offset, int whence, void *user)
{
    mem_state *m = user;
    sf_count_t base;
    switch (whence) {
    case SEEK_SET: base = 0; break;
    case SEEK_CUR: base = m->at; break;
    case SEEK_END: base = m->len; break;
    default: return -1;
    }
    /* header fields reach here unchecked: no signed overflow, no position before 0 */
    if ((offset > 0 && base > INT64_MAX - offset) || (offset < 0 && offset < -base))
        return -1;
    m->at = base + offset;
    return m->at;
}

static sf_count_t mem_read(void *ptr, sf_count_t count, void *user)
{
    mem_state *m = user;
    if (count <= 0 || m->at >= m->len)
        return 0;
    if (count > m->len - m->at)
        count = m->len - m->at;
    memcpy(ptr, m->data + m->at, (size_t)count);
    m->at += count;
    return count;
}

static sf_count_t mem_tell(void *user)
{
    return ((const mem_state *)user)->at;
}

int source_open_memory(const void *data, size_t len, const char *name, source **out, sp_errinfo *ei)
{
    SF_VIRTUAL_IO vio = {mem_filelen, mem_seek, mem_read, NULL, mem_tell};
    SF_INFO in;
    mem_state *m = NULL;
    source_info info;
    int err;

    if (out)
        *out = NULL;
    if (!out || (!data && len > 0))
        return sp_fail(ei, SP_EINVAL, "source_open_memory: NULL argument");
    if (!name)
        name = "(memory)";
    if (len == 0)
        return sp_fail(ei, SP_EINPUT, "%s: empty file", name);
    if (len > (size_t)INT64_MAX)
        return sp_fail(ei, SP_EINPUT, "%s: too large", name);
    if (!(m = calloc(1, sizeof *m)))
        return sp_fail(ei, SP_ENOMEM, "out of memory opening %s", name);
    m->data = data;
    m->len = (sf_count_t)len;
    snprintf(m->file.path, sizeof m->file.path, "%s", name);
    memset(&in, 0, sizeof in);
    /* sf_open_virtual copies vio; m (its user data) lives as long as the SNDFILE */
    m->file.sf = sf_open_virtual(&vio, SFM_READ, &in, m);
    if (!m->file.sf) {
        err = sp_fail(ei, SP_EINPUT, "%s: not a readable audio file (%s)", name, sf_strerror(NULL));
        goto fail;
    }
    if (in.channels < 1 || in.channels > SOURCE_MAX_CHANNELS) {
        err = sp_fail(ei, SP_EINPUT, "%s: %d channels (spectro reads 1 to %d)", name, in.channels,
                      SOURCE_MAX_CHANNELS);
        goto fail;
    }
    if (in.samplerate < 1 || in.samplerate > SOURCE_MAX_RATE) {
        err = sp_fail(ei, SP_EINPUT, "%s: sample rate %d Hz is not usable (1 Hz to %d Hz)", name,
                      in.samplerate, SOURCE_MAX_RATE);
        goto fail;
    }
    m->file.header_truncated = log_says_truncated(m->file.sf);
    m->file.promised = in.frames;

    memset(&info, 0, sizeof info);
    info.rate = in.samplerate;
    info.channels = in.channels;
    info.frames_hint = (in.frames > 0 && in.frames < INT64_MAX / 2) ? in.frames : -1;
    if (info.frames_hint < 0)
        m->file.promised = -1;
    snprintf(info.name, sizeof info.name, "%s", name);
    describe_format(&in, info.format, sizeof info.format);
    return source_create(&file_ops, m, &info, out, ei);

fail:
    file_close(m);
    return err;
}
