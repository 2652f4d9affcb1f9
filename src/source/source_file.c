/* File source: libsndfile, every format the library reads, streamed block by block so
 * memory does not grow with the file's length. The header's frame count is a hint: we
 * read until the library returns 0. The pipe kind (source_stdin.c) reads through the same
 * code, from a descriptor.
 *
 * Truncation is what the container promised against what the file holds: fewer frames
 * read than the header declared (FLAC, MP3, CAF ...), or, where libsndfile computes the
 * frame count from the file's size itself (WAV, AIFF, AU, W64, RF64 ...), a size in its
 * log that the file falls short of ("  SSND : 672008 (should be 335960)"), or an Ogg
 * stream whose last page is not its end-of-stream page (libsndfile's log is no guide there:
 * a whole Ogg file too logs "ended unexpectedly" once its last page has been read). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sndfile.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "source_internal.h"

/* A short CAF read through virtual I/O (open_short_caf): the file, and the length it
 * claims (where its data chunk should end). */
typedef struct {
    FILE *f;
    int64_t len;
} caf_vio;

typedef struct {
    SNDFILE *sf;
    caf_vio *vio;     /* a short CAF's virtual I/O, else NULL */
    int64_t promised; /* frames the header declared (before libsndfile clamped it) */
    int at_end;       /* a read returned nothing: the end of the data (or a decode error) */
    int64_t read;
    int header_truncated; /* libsndfile's log says the data chunk is shorter than declared */
    int format, channels; /* SF_INFO's */
    uint64_t *clamped;    /* the source's out-of-range count (file_readf) */
    int ended_early;
    size_t pipe_block;    /* a pipe: frames per read at most (libsndfile waits for all it
                           * asks for); 0 for a file */
    int pipe_fd;          /* a pipe: its descriptor, polled so that a stop is seen */
    size_t frame_bytes;   /* a pipe: bytes per frame as stored, 0 when not fixed */
    atomic_int *stop;
    char path[256];
    /* decoding ahead on several threads (source_file_par.c): started at the first read
     * when par_threads > 1, from the frame reached (a seek's) */
    file_par *par;
    int par_threads;
    int64_t par_chunk;
    SF_INFO par_info;     /* the stream as opened, which the decoders' handles must match */
    struct stat par_stat; /* the file as opened */
} file_state;

/* How a regular file may be decoded ahead: the decoder threads (> 1 to do it), the chunk. */
typedef struct {
    int threads;
    int64_t chunk;
    struct stat sb;
} par_plan;

/* file_read's path once the decoders run. */
static size_t par_read(file_state *st, float *dst, size_t max_frames)
{
    int failed = 0;
    size_t n = file_par_read(st->par, dst, max_frames, &failed, st->clamped);
    if (failed)
        st->ended_early = 1; /* as a serial read ending with libsndfile's error */
    return n;
}

static int file_read(void *state, float *dst, size_t max_frames, size_t *got, sp_errinfo *ei)
{
    file_state *st = state;
    sf_count_t n;
    if (st->par_threads > 1 && !st->at_end) {
        /* once: from here on the decoders read, or (they could not start) this thread */
        st->par = file_par_start(st->path, &st->par_stat, &st->par_info, st->read, st->par_threads,
                                 st->par_chunk);
        st->par_threads = 0;
    }
    if (st->par) {
        n = (sf_count_t)par_read(st, dst, max_frames);
        goto done;
    }
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
    n = file_readf(st->sf, st->format, st->channels, dst, (sf_count_t)max_frames, st->clamped);
    if (n < 0)
        n = 0;
    if (n == 0 && sf_error(st->sf) != SF_ERR_NO_ERROR) {
        /* A decode error part-way (a cut FLAC/Ogg stream): keep what was read, report it
         * as truncation rather than failing the whole analysis. */
        st->ended_early = 1;
    }
done:
    if (n == 0)
        st->at_end = 1;
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
    file_par_close(st->par);
    if (st->sf)
        sf_close(st->sf);
    if (st->vio) {
        fclose(st->vio->f);
        free(st->vio);
    }
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
    /* seeks come before the first read; one after it goes on serially from there */
    file_par_close(st->par);
    st->par = NULL;
    st->read = frame;
    return SP_OK;
}

static const source_ops file_ops = {
    .kind = "file", .read = file_read, .truncated = file_truncated, .close = file_close, .seek = file_seek,
};

/* One log line "NAME : DECLARED (should be PRESENT)", indented or not: the header
 * declares more bytes than the file holds. One byte short is a missing pad byte, which
 * costs no sample. */
static int line_says_short(const char *line, const char *should)
{
    const char *colon = memchr(line, ':', (size_t)(should - line));
    long long declared, present;
    if (!colon || sscanf(colon + 1, "%lld", &declared) != 1 ||
        sscanf(should + strlen("should be"), "%lld", &present) != 1)
        return 0;
    return declared > present + 1;
}

/* libsndfile clamps a chunk that runs past the end of the file and notes it in its log,
 * indented by nesting ("data : 96000 (should be 20000)", " SSND : ...", "  Data Size :
 * ...", W64's "riff : ..."). */
static int log_says_truncated(SNDFILE *sf)
{
    char log[8192];
    const char *p;
    log[0] = 0;
    sf_command(sf, SFC_GET_LOG_INFO, log, sizeof log);
    for (p = log; (p = strstr(p, "should be")) != NULL; p++) {
        const char *line = p;
        while (line > log && line[-1] != '\n')
            line--;
        if (line_says_short(line, p))
            return 1;
    }
    return 0;
}

/* ---- an Ogg stream cut short -----------------------------------------------------------
 * An Ogg stream says where it ends: its last page carries the end-of-stream flag. A file
 * whose last page lacks it, or is itself cut, was truncated. */

/* 1 when the Ogg file f's last page is incomplete or not marked end-of-stream. */
static int ogg_missing_eos(FILE *f, off_t size)
{
    enum { TAIL = 65536 + 27 + 255 }; /* a page is at most 65307 bytes */
    unsigned char *buf;
    size_t len = size < TAIL ? (size_t)size : TAIL;
    int missing = 1;
    if (!(buf = malloc(len)))
        return 0;
    if (fseeko(f, size - (off_t)len, SEEK_SET) == 0 && fread(buf, 1, len, f) == len) {
        for (size_t at = len >= 27 ? len - 26 : 0; at-- > 0;) {
            size_t nseg, body = 0;
            if (memcmp(buf + at, "OggS", 4) != 0 || buf[at + 4] != 0)
                continue;
            nseg = buf[at + 26];
            if (at + 27 + nseg > len)
                continue;
            for (size_t i = 0; i < nseg; i++)
                body += buf[at + 27 + i];
            if (at + 27 + nseg + body > len)
                continue; /* a capture pattern inside a page, or the cut page itself */
            missing = !(buf[at + 5] & 0x04) || at + 27 + nseg + body < len;
            break;
        }
    }
    free(buf);
    return missing;
}

/* ---- a CAF cut short ------------------------------------------------------------------
 * libsndfile refuses a CAF whose data chunk runs past the end of the file ("malformed").
 * Read through virtual I/O that claims the length the header promised: the reads then
 * stop where the bytes do, and the frames read fall short of the frames declared. */

static uint64_t be64(const unsigned char *b)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = v << 8 | b[i];
    return v;
}

/* Where the data chunk of the CAF in f should end; 0 when f is not a CAF or says nothing
 * (a data size of -1 means "to the end of the file"). */
static int64_t caf_promised_end(FILE *f)
{
    unsigned char h[12];
    int64_t at = 8;
    if (fseeko(f, 0, SEEK_SET) != 0 || fread(h, 1, 8, f) != 8 || memcmp(h, "caff", 4) != 0)
        return 0;
    for (int chunks = 0; chunks < 64; chunks++) {
        uint64_t size;
        if (fseeko(f, at, SEEK_SET) != 0 || fread(h, 1, 12, f) != 12)
            return 0;
        size = be64(h + 4);
        if (size > (uint64_t)INT64_MAX / 2)
            return 0;
        if (memcmp(h, "data", 4) == 0)
            return at + 12 + (int64_t)size;
        at += 12 + (int64_t)size;
    }
    return 0;
}

static sf_count_t vio_len(void *user)
{
    return ((caf_vio *)user)->len;
}

static sf_count_t vio_seek(sf_count_t off, int whence, void *user)
{
    caf_vio *v = user;
    if (whence == SEEK_END) {
        off += v->len;
        whence = SEEK_SET;
    }
    if (fseeko(v->f, (off_t)off, whence) != 0)
        return -1;
    return (sf_count_t)ftello(v->f);
}

static sf_count_t vio_read(void *ptr, sf_count_t count, void *user)
{
    return (sf_count_t)fread(ptr, 1, (size_t)count, ((caf_vio *)user)->f);
}

static sf_count_t vio_tell(void *user)
{
    return (sf_count_t)ftello(((caf_vio *)user)->f);
}

/* After sf_open said "malformed": the file opened through virtual I/O when path is a CAF
 * cut short (*vio then holds its state, owned by the caller), else NULL. */
static SNDFILE *open_short_caf(const char *path, off_t size, SF_INFO *in, caf_vio **vio)
{
    static SF_VIRTUAL_IO io = {vio_len, vio_seek, vio_read, NULL, vio_tell};
    caf_vio *v = calloc(1, sizeof *v);
    SNDFILE *sf = NULL;
    *vio = NULL;
    if (!v || !(v->f = fopen(path, "rb"))) {
        free(v);
        return NULL;
    }
    v->len = caf_promised_end(v->f);
    if (v->len > (int64_t)size && fseeko(v->f, 0, SEEK_SET) == 0) {
        memset(in, 0, sizeof *in);
        sf = sf_open_virtual(&io, SFM_READ, in, v);
    }
    if (!sf) {
        fclose(v->f);
        free(v);
        return NULL;
    }
    *vio = v;
    return sf;
}

/* sf_open with standard error sent to /dev/null: libmpg123 (libsndfile's MP3 decoder)
 * prints its own warnings there ("Warning: Xing stream size off ..."), and we say what went
 * wrong in one line of our own. A batch opens its next files on other threads while it
 * reports: the redirection holds sp_stderr_lock, as its reports do. */
static SNDFILE *open_quietly(const char *path, SF_INFO *in)
{
    SNDFILE *sf;
    int saved, null;
    sp_stderr_lock();
    saved = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 0);
    null = open("/dev/null", O_WRONLY | O_CLOEXEC);
    fflush(stderr);
    if (saved >= 0 && null >= 0)
        dup2(null, STDERR_FILENO);
    sf = sf_open(path, SFM_READ, in);
    if (saved >= 0 && null >= 0)
        dup2(saved, STDERR_FILENO);
    if (saved >= 0)
        close(saved);
    if (null >= 0)
        close(null);
    sp_stderr_unlock();
    return sf;
}

/* An MP3 by its name or its first bytes (an ID3v2 tag or an MPEG audio frame sync). */
static int looks_like_mp3(const char *path)
{
    unsigned char b[3] = {0};
    size_t len = strlen(path);
    FILE *f;
    if (len >= 4 && strcasecmp(path + len - 4, ".mp3") == 0)
        return 1;
    if (!(f = fopen(path, "rb")))
        return 0;
    len = fread(b, 1, sizeof b, f);
    fclose(f);
    return len == 3 && (memcmp(b, "ID3", 3) == 0 || (b[0] == 0xff && (b[1] & 0xe6) == 0xe2));
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

/* Integer samples, which libsndfile scales into [-1, 1) (its default float normalisation). */
static int integer_pcm(int format)
{
    switch (format & SF_FORMAT_SUBMASK) {
    case SF_FORMAT_PCM_S8: case SF_FORMAT_PCM_U8: case SF_FORMAT_PCM_16: case SF_FORMAT_PCM_24:
    case SF_FORMAT_PCM_32: case SF_FORMAT_ULAW: case SF_FORMAT_ALAW:
        return 1;
    default:
        return 0;
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

/* source_sndfile_adopt, plus a short CAF's virtual I/O (owned from here on) and what the
 * caller found truncated already. */
static int adopt(SNDFILE *sf, const SF_INFO *in, const char *name, int pipe_fd, atomic_int *stop, caf_vio *vio,
                 int truncated, const par_plan *par, source **out, sp_errinfo *ei)
{
    int pipe = pipe_fd >= 0;
    file_state *st = NULL;
    source_info info;
    int err;

    if (!(st = calloc(1, sizeof *st))) {
        sf_close(sf);
        if (vio) {
            fclose(vio->f);
            free(vio);
        }
        return sp_fail(ei, SP_ENOMEM, "out of memory opening %s", name);
    }
    st->sf = sf;
    st->vio = vio;
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
    st->header_truncated = truncated || log_says_truncated(st->sf);
    st->format = in->format;
    st->channels = in->channels;
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
    info.samples_hint = (!pipe && in->frames > 0 && in->frames < INT64_MAX / 2) ? in->frames : -1;
    if (in->frames <= 0 || in->frames >= INT64_MAX / 2)
        st->promised = -1;
    if (pipe) {
        /* a pipe ends when its writer stops; streaming writers (arecord, sox) put a
         * placeholder length in the header, and raw samples have none: no "ends early" */
        st->promised = -1;
        st->header_truncated = 0;
    }
    if (par && par->threads > 1 && !pipe && !vio && st->promised > 0 && file_par_eligible(in->format)) {
        st->par_threads = par->threads;
        st->par_chunk = par->chunk;
        st->par_info = *in;
        st->par_stat = par->sb;
    }
    info.pipe = pipe;
    info.unit_bound = integer_pcm(in->format);
    snprintf(info.name, sizeof info.name, "%s", name);
    snprintf(info.decoder, sizeof info.decoder, "libsndfile");
    describe_format(in, info.format, sizeof info.format);
    if ((err = source_create(&file_ops, st, &info, out, ei)) == SP_OK)
        st->clamped = source_out_of_range_counter(*out);
    return err;

fail:
    file_close(st);
    return err;
}

int source_sndfile_adopt(SNDFILE *sf, const SF_INFO *in, const char *name, int pipe_fd, atomic_int *stop,
                         source **out, sp_errinfo *ei)
{
    return adopt(sf, in, name, pipe_fd, stop, NULL, 0, NULL, out, ei);
}

source_file_options source_file_options_default(void)
{
    source_file_options o;
    memset(&o, 0, sizeof o);
    o.raw = source_raw_none();
    o.readers = 0;
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
    caf_vio *vio = NULL;
    par_plan par;
    int err, truncated = 0;

    if (!path || !o || !out)
        return sp_fail(ei, SP_EINVAL, "source_open_file: NULL argument");
    *out = NULL;
    if (stat(path, &sb) != 0) {
        if (errno == ENOENT || errno == ENOTDIR)
            return sp_fail(ei, SP_EINPUT, "%s: no such file", path);
        /* a bad name, as a missing file is: usage, not a failure of the machine */
        if (errno == ELOOP)
            return sp_fail(ei, SP_EINPUT, "%s: a loop of symbolic links, no file at its end", path);
        if (errno == ENAMETOOLONG)
            return sp_fail(ei, SP_EINPUT, "%s: name too long", path);
        return sp_fail(ei, SP_EIO, "%s: %s", path, strerror(errno));
    }
    if (S_ISDIR(sb.st_mode))
        return sp_fail(ei, SP_EINPUT, "%s: is a directory, not an audio file", path);
    if (S_ISREG(sb.st_mode) && sb.st_size == 0)
        return sp_fail(ei, SP_EINPUT, "%s: empty file", path);

    source_raw_sfinfo(&o->raw, &in);
    sf = open_quietly(path, &in);
    if (!sf && sf_error(NULL) == SF_ERR_MALFORMED_FILE && S_ISREG(sb.st_mode))
        sf = open_short_caf(path, sb.st_size, &in, &vio);
    if (!sf) {
        int code = sf_error(NULL);
        if (S_ISREG(sb.st_mode) && looks_like_mp3(path))
            /* libsndfile says "File does not exist ..." of an MP3 without a whole frame */
            return sp_fail(ei, SP_EINPUT, "%s: a truncated or invalid MP3 file (no complete MPEG audio frame)",
                           path);
        if (code == SF_ERR_SYSTEM)
            return sp_fail(ei, SP_EIO, "%s: cannot open: %s", path, sf_strerror(NULL));
        err = sp_fail(ei, SP_EINPUT, "%s: not a readable audio file (%s)", path, sf_strerror(NULL));
        /* FFmpeg's turn: a format libsndfile does not know, read as a file (not raw) */
        return o->raw.encoding < 0 && source_sndfile_unknown_format(code) ? SOURCE_PASS : err;
    }
    if (o->stream > 0) {
        sf_close(sf);
        if (vio) {
            fclose(vio->f);
            free(vio);
        }
        return sp_fail(ei, SP_EINVAL, SP_FIELD("stream") " %d: %s has one audio stream (" SP_FIELD("stream") " 0)",
                       o->stream, path);
    }
    if ((in.format & SF_FORMAT_TYPEMASK) == SF_FORMAT_OGG && S_ISREG(sb.st_mode)) {
        FILE *f = fopen(path, "rb");
        if (f) {
            truncated = ogg_missing_eos(f, sb.st_size);
            fclose(f);
        }
    }
    par.threads = S_ISREG(sb.st_mode) ? file_par_threads(o->readers, sysconf(_SC_NPROCESSORS_ONLN)) : 1;
    par.chunk = o->read_chunk;
    par.sb = sb;
    return adopt(sf, &in, path, -1, NULL, vio, truncated || vio != NULL, &par, out, ei);
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
        int code = sf_error(NULL);
        err = sp_fail(ei, SP_EINPUT, "%s: not a readable audio file (%s)", name, sf_strerror(NULL));
        if (source_sndfile_unknown_format(code)) {
            /* FFmpeg's turn, as for a file on disk */
            source_ffmpeg_input ff = {.fd = -1, .prefix = data, .prefix_len = len, .name = name};
            source_file_options o = source_file_options_default();
            free(m);
            return source_open_ffmpeg_input(&ff, &o, out, ei);
        }
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
    m->file.format = in.format;
    m->file.channels = in.channels;

    memset(&info, 0, sizeof info);
    info.rate = in.samplerate;
    info.channels = in.channels;
    info.samples_hint = (in.frames > 0 && in.frames < INT64_MAX / 2) ? in.frames : -1;
    if (info.samples_hint < 0)
        m->file.promised = -1;
    info.unit_bound = integer_pcm(in.format);
    snprintf(info.name, sizeof info.name, "%s", name);
    describe_format(&in, info.format, sizeof info.format);
    if ((err = source_create(&file_ops, m, &info, out, ei)) == SP_OK)
        m->file.clamped = source_out_of_range_counter(*out);
    return err;

fail:
    file_close(m);
    return err;
}
