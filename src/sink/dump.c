#include "dump.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "json.h"
#include "outfile.h"
#include "spool.h"

/* The .npy header is written with room for any shape and rewritten at commit, so the data
 * can stream out before the frame count is known. 128 bytes keep the data 64-byte aligned
 * as NumPy itself does. */
#define NPY_HEADER_BYTES 128

/* .npy data goes out through a writer thread, so that the kernel's copy of a large dump
 * (hundreds of MB for a long file) overlaps the next FFT batch instead of stalling it (a
 * small one goes straight out: DUMP_DIRECT_MAX).
 * A bounded queue of WRITE_SLOTS buffers: the caller fills the slot after the last
 * filled one, the writer empties them in order. */
#define WRITE_SLOTS 3

/* A .npy whose data is known to stay below this is written on the caller's thread, straight
 * from its buffer: for a small file (a batch of short ones) the writer's thread, its slots
 * (fresh memory the copy faults in page by page: ~950 faults for 10 s of audio at N 4096)
 * and the copy itself cost more than the overlap gains. */
#define DUMP_DIRECT_MAX ((uint64_t)16 << 20)

/* What the commit still needs on the filesystem besides the data: the sidecar and the
 * filesystem's own blocks, and the data in flight that the free space does not show yet
 * (outfile's 1 MiB stream buffer; the writer's queue is counted apart). */
#define DUMP_RESERVE ((uint64_t)256 << 10)
#define DUMP_STREAM_BUF ((uint64_t)1 << 20)

/* CSV rows of spooled channels are gathered up to this before one spool_write. */
#define CSV_BLOCK ((size_t)1 << 20)

typedef struct {
    int channel;
    char *data;
    size_t len, cap;
} write_job;

typedef struct {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    dump *d;
    write_job slot[WRITE_SLOTS];
    int head, count; /* filled slots: head .. head+count-1 (mod WRITE_SLOTS) */
    int closing;
    int err;         /* errno of the first failed write, 0 if none */
} writer;

struct dump {
    dump_config cfg;
    writer *w;                       /* .npy only */
    dump_format fmt;
    outfile *out;                    /* the data file; NULL for stdout */
    FILE *main;                      /* out's stream, or stdout */
    int direct;                      /* main cannot seek back: stdout, a FIFO, a device */
    int ch0_main;                    /* channel 0 goes straight into main; the rest waits
                                      * in the spool */
    spool *sp;                       /* NULL when every channel goes into main */
    uint64_t *frames;                /* rows written per channel */
    char *line;                      /* CSV row buffer */
    size_t line_cap;
    char *blk;                       /* CSV rows gathered for the spool */
    size_t blk_len;
    uint64_t row_bytes;              /* .npy: exact; CSV: an estimate, for the space checks */
    int stopped;                     /* refused a block for want of space */
    int committed;
};

/* The one list of file formats, by extension: parsing, its message and --help read it.
 * "-" (CSV on standard output) is not a file and stays apart. */
static const struct {
    const char *ext;
    dump_format format;
    const char *help; /* after the name in --help, NULL: none */
} dump_formats[] = {
    {.ext = DUMP_DEFAULT_EXT, .format = DUMP_NPY, .help = "NumPy"},
    {.ext = ".csv", .format = DUMP_CSV, .help = NULL},
};
#define DUMP_FORMAT_COUNT ((int)(sizeof dump_formats / sizeof dump_formats[0]))

int dump_format_count(void)
{
    return DUMP_FORMAT_COUNT;
}

const char *dump_format_ext(int i)
{
    return i >= 0 && i < DUMP_FORMAT_COUNT ? dump_formats[i].ext : NULL;
}

const char *dump_format_help(int i)
{
    return i >= 0 && i < DUMP_FORMAT_COUNT ? dump_formats[i].help : NULL;
}

uint64_t dump_bytes(dump_format fmt, size_t bins, uint64_t rows)
{
    /* a CSV value is ",-12.3456" or so: 8 bytes is on the low side, so that an estimate
     * never refuses a job that fits */
    return rows * (fmt == DUMP_NPY ? bins * sizeof(float) : 16 + bins * 8);
}

int dump_format_from_path(const char *path, dump_format *out, sp_errinfo *ei)
{
    char list[128];
    size_t len, at = 0;
    if (!path || !*path)
        return sp_fail(ei, SP_EINVAL, SP_FIELD("dump") ": missing output path");
    if (strcmp(path, "-") == 0) {
        *out = DUMP_CSV_STDOUT;
        return SP_OK;
    }
    len = strlen(path);
    for (int i = 0; i < DUMP_FORMAT_COUNT; i++) {
        size_t el = strlen(dump_formats[i].ext);
        if (len > el && strcmp(path + len - el, dump_formats[i].ext) == 0) {
            *out = dump_formats[i].format;
            return SP_OK;
        }
    }
    list[0] = 0;
    for (int i = 0; i < DUMP_FORMAT_COUNT && at < sizeof list; i++)
        at += (size_t)snprintf(list + at, sizeof list - at, "%s, ", dump_formats[i].ext);
    if (at >= 2 && at < sizeof list)
        list[at - 2] = 0;
    return sp_fail(ei, SP_EINVAL, SP_FIELD("dump") " %s: unknown output type (use %s or - for CSV on stdout)", path,
                   list);
}

static char *str_printf(const char *a, const char *b)
{
    size_t n = strlen(a) + strlen(b) + 1;
    char *s = malloc(n);
    if (s)
        snprintf(s, n, "%s%s", a, b);
    return s;
}

char *dump_sidecar_path(const char *path)
{
    return str_printf(path, ".json");
}

int dump_sidecar_for(const char *path, char **out)
{
    *out = NULL;
    if (!path || !*path || strcmp(path, "-") == 0 || outfile_path_direct(path))
        return SP_OK;
    return (*out = dump_sidecar_path(path)) ? SP_OK : SP_ENOMEM;
}

/* The row's shape: "bins", or "columns, depth" (dump_config.depth). */
static void row_shape(const dump *d, char *buf, size_t len)
{
    size_t depth = d->cfg.depth > 1 ? d->cfg.depth : 1;
    if (depth > 1)
        snprintf(buf, len, "%zu, %zu", d->cfg.bins / depth, depth);
    else
        snprintf(buf, len, "%zu", d->cfg.bins);
}

static int write_npy_header(FILE *f, const dump *d, uint64_t frames)
{
    char hdr[NPY_HEADER_BYTES];
    char dict[NPY_HEADER_BYTES];
    char row[64];
    int len;
    row_shape(d, row, sizeof row);
    if (d->cfg.single && d->cfg.stacked)
        len = snprintf(dict, sizeof dict, "{'descr': '<f4', 'fortran_order': False, 'shape': (%d, %s), }",
                       d->cfg.channels, row);
    else if (d->cfg.single) /* a 1-tuple keeps its comma: (bins,) */
        len = snprintf(dict, sizeof dict, "{'descr': '<f4', 'fortran_order': False, 'shape': (%s,), }", row);
    else if (d->cfg.stacked)
        len = snprintf(dict, sizeof dict, "{'descr': '<f4', 'fortran_order': False, 'shape': (%d, %llu, %s), }",
                       d->cfg.channels, (unsigned long long)frames, row);
    else
        len = snprintf(dict, sizeof dict, "{'descr': '<f4', 'fortran_order': False, 'shape': (%llu, %s), }",
                       (unsigned long long)frames, row);
    if (len < 0 || len > NPY_HEADER_BYTES - 11)
        return SP_EIO;
    memcpy(hdr, "\x93NUMPY\x01\x00", 8);
    hdr[8] = (char)((NPY_HEADER_BYTES - 10) & 0xff);
    hdr[9] = (char)((NPY_HEADER_BYTES - 10) >> 8);
    memset(hdr + 10, ' ', NPY_HEADER_BYTES - 10);
    memcpy(hdr + 10, dict, (size_t)len);
    hdr[NPY_HEADER_BYTES - 1] = '\n';
    return fwrite(hdr, 1, sizeof hdr, f) == sizeof hdr ? SP_OK : SP_EIO;
}

static int write_csv_header(FILE *f, const dump *d)
{
    if (d->cfg.columns) {
        for (size_t k = 0; k < d->cfg.bins; k++)
            fprintf(f, "%s%s", k ? "," : "", d->cfg.columns[k]);
        fputc('\n', f);
        return ferror(f) ? SP_EIO : SP_OK;
    }
    if (d->cfg.stacked)
        fputs("channel,", f);
    if (!d->cfg.single)
        fputs("time_s", f);
    for (size_t k = 0; k < d->cfg.bins; k++) { /* with a depth, each column's values share its Hz */
        size_t col = d->cfg.depth > 1 ? k / d->cfg.depth : k;
        if (d->cfg.col_names)
            fprintf(f, "%s%s", d->cfg.single && k == 0 ? "" : ",", d->cfg.col_names[k]);
        else
            fprintf(f, d->cfg.single && k == 0 ? "%.10g" : ",%.10g",
                    d->cfg.col_hz ? d->cfg.col_hz[col] : (double)col * d->cfg.bin_hz);
    }
    fputc('\n', f);
    return ferror(f) ? SP_EIO : SP_OK;
}

/* Bytes of one channel's data to where they go: main or the spool. 0 or an errno. */
static int put_bytes(dump *d, int channel, const void *data, size_t len)
{
    if (channel == 0 && d->ch0_main)
        return fwrite(data, 1, len, d->main) == len ? 0 : (errno ? errno : EIO);
    return spool_write(d->sp, channel, data, len);
}

static void *writer_main(void *arg)
{
    writer *w = arg;
    pthread_mutex_lock(&w->mu);
    for (;;) {
        write_job *j;
        int failed = 0;
        while (w->count == 0 && !w->closing)
            pthread_cond_wait(&w->cv, &w->mu);
        if (w->count == 0)
            break;
        j = &w->slot[w->head];
        pthread_mutex_unlock(&w->mu);
        if (!w->err)
            failed = put_bytes(w->d, j->channel, j->data, j->len);
        pthread_mutex_lock(&w->mu);
        if (failed && !w->err)
            w->err = failed;
        w->head = (w->head + 1) % WRITE_SLOTS;
        w->count--;
        pthread_cond_broadcast(&w->cv);
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

static int writer_start(dump *d)
{
    writer *w = calloc(1, sizeof *w);
    if (!w)
        return SP_ENOMEM;
    w->d = d;
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->cv, NULL);
    if (pthread_create(&w->thread, NULL, writer_main, w) != 0) {
        pthread_cond_destroy(&w->cv);
        pthread_mutex_destroy(&w->mu);
        free(w);
        return SP_ENOMEM;
    }
    d->w = w;
    return SP_OK;
}

/* Queues len bytes of channel; waits while every slot is full. Returns the writer's errno. */
static int writer_put(writer *w, int channel, const void *data, size_t len)
{
    write_job *j;
    int err;
    pthread_mutex_lock(&w->mu);
    while (w->count == WRITE_SLOTS)
        pthread_cond_wait(&w->cv, &w->mu);
    j = &w->slot[(w->head + w->count) % WRITE_SLOTS];
    err = w->err;
    pthread_mutex_unlock(&w->mu);
    if (err)
        return err;
    /* the slot is ours until count says otherwise */
    if (j->cap < len) {
        char *p = realloc(j->data, len);
        if (!p)
            return ENOMEM;
        j->data = p;
        j->cap = len;
    }
    memcpy(j->data, data, len);
    j->channel = channel;
    j->len = len;
    pthread_mutex_lock(&w->mu);
    w->count++;
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
    return 0;
}

/* Writes out everything queued, stops the thread, frees it; returns the first errno. */
static int writer_stop(dump *d)
{
    writer *w = d->w;
    int err;
    if (!w)
        return 0;
    pthread_mutex_lock(&w->mu);
    w->closing = 1;
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
    pthread_join(w->thread, NULL);
    err = w->err;
    for (int i = 0; i < WRITE_SLOTS; i++)
        free(w->slot[i].data);
    pthread_cond_destroy(&w->cv);
    pthread_mutex_destroy(&w->mu);
    free(w);
    d->w = NULL;
    return err;
}

/* What the commit still needs besides `round` more bytes: the reserve, the buffers in
 * flight (the stream's, the writer's queue of at most WRITE_SLOTS rounds), and the spool's
 * way into main: one piece where reading back frees space, all of it elsewhere. */
static uint64_t space_needed(const dump *d, uint64_t round)
{
    uint64_t need = DUMP_RESERVE + DUMP_STREAM_BUF + (d->w ? WRITE_SLOTS * round : 0);
    if (d->sp)
        need += spool_frees_as_it_copies(d->sp) ? SPOOL_COPY_PIECE : spool_total(d->sp);
    return need;
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* Up front: the whole job, and what its commit needs, against the free space. */
static int check_job_size(dump *d, sp_errinfo *ei)
{
    uint64_t free_b, size, need;
    char mount[256], need_s[32], free_s[32];
    const uint64_t frames = d->cfg.frames_expected, ch = (uint64_t)d->cfg.channels;
    if (frames == 0 || d->direct || outfile_free_space(d->cfg.path, &free_b, mount, sizeof mount) != 0)
        return SP_OK;
    /* saturating: an absurd job must not wrap round to a small one */
    size = frames > (UINT64_MAX - NPY_HEADER_BYTES) / d->row_bytes / ch ? UINT64_MAX
                                                                        : NPY_HEADER_BYTES + frames * d->row_bytes * ch;
    need = add_sat(size, DUMP_RESERVE + DUMP_STREAM_BUF);
    if (d->sp) /* the spooled channels are copied into the file at the end */
        need = add_sat(need, spool_frees_as_it_copies(d->sp) ? SPOOL_COPY_PIECE : size / ch * (ch - 1));
    if (need <= free_b)
        return SP_OK;
    outfile_format_bytes(size, need_s, sizeof need_s);
    outfile_format_bytes(free_b, free_s, sizeof free_s);
    return sp_fail(ei, SP_EIO, SP_FIELD("dump") " %s: needs %s%s, %s free on %s", d->cfg.path,
                   d->fmt == DUMP_NPY ? "" : "about ", need_s, free_s, mount);
}

/* While running: refuses (and stops) before a block would leave too little for the
 * commit. On channel 0's write, for the block's every channel. */
static int check_space(dump *d, size_t nframes, sp_errinfo *ei)
{
    uint64_t free_b, round = (uint64_t)nframes * d->row_bytes * (uint64_t)d->cfg.channels;
    char mount[256], free_s[32];
    if (d->direct || outfile_free_space(d->cfg.path, &free_b, NULL, 0) != 0 ||
        free_b >= round + space_needed(d, round))
        return SP_OK;
    d->stopped = 1;
    if (outfile_free_space(d->cfg.path, &free_b, mount, sizeof mount) != 0)
        snprintf(mount, sizeof mount, "its filesystem");
    outfile_format_bytes(free_b, free_s, sizeof free_s);
    return sp_fail(ei, SP_EIO, SP_FIELD("dump") " %s: stopped after %llu frames: %s free on %s, too little to go on",
                   d->cfg.path, (unsigned long long)d->frames[0], free_s, mount);
}

/* The data file: stdout, or an outfile; where each channel goes; the spool. */
static int open_files(dump *d, sp_errinfo *ei)
{
    int err;
    if (d->fmt == DUMP_CSV_STDOUT) {
        d->main = stdout;
        d->direct = 1;
    } else {
        if ((err = outfile_open(d->cfg.path, 0, &d->out, ei)) != SP_OK)
            return err;
        d->main = outfile_stream(d->out);
        d->direct = !outfile_seekable(d->out);
    }
    /* a .npy that cannot seek back to its header goes whole at the commit */
    d->ch0_main = !(d->fmt == DUMP_NPY && d->direct);
    if (d->cfg.channels > 1 || !d->ch0_main) {
        /* stdout's spool goes to /tmp, as for any output written straight through */
        if ((err = spool_create(d->fmt == DUMP_CSV_STDOUT ? "/dev/stdout" : d->cfg.path, d->cfg.channels, &d->sp,
                                ei)) != SP_OK)
            return err;
    }
    return SP_OK;
}

/* The whole .npy is known to be small (DUMP_DIRECT_MAX): no writer thread. */
static int small_job(const dump *d)
{
    const uint64_t frames = d->cfg.frames_expected, ch = (uint64_t)d->cfg.channels;
    return frames > 0 && frames <= DUMP_DIRECT_MAX / d->row_bytes / ch;
}

int dump_open(const dump_config *cfg, dump **out, sp_errinfo *ei)
{
    dump *d;
    int err = SP_ENOMEM;
    if (!cfg || !out || cfg->channels < 1 || cfg->bins < 1)
        return sp_fail(ei, SP_EINVAL, "dump_open: bad arguments");
    *out = NULL;
    d = calloc(1, sizeof *d);
    if (!d)
        return sp_fail(ei, SP_ENOMEM, "out of memory");
    d->cfg = *cfg;
    if (cfg->channels > 1)
        d->cfg.stacked = 1; /* several channels always need the channel axis */
    if ((err = dump_format_from_path(cfg->path, &d->fmt, ei)) != SP_OK)
        goto fail;
    d->frames = calloc((size_t)cfg->channels, sizeof *d->frames);
    d->line_cap = 32 + cfg->bins * 16;
    d->line = malloc(d->line_cap);
    d->row_bytes = (size_t)dump_bytes(d->fmt, cfg->bins, 1);
    if (!d->frames || !d->line)
        goto fail_msg;
    if ((err = open_files(d, ei)) != SP_OK || (err = check_job_size(d, ei)) != SP_OK)
        goto fail;
    if (d->fmt == DUMP_NPY && d->ch0_main)
        err = write_npy_header(d->main, d, 0);
    else if (d->fmt != DUMP_NPY)
        err = write_csv_header(d->main, d);
    if (err != SP_OK) {
        err = sp_fail(ei, SP_EIO, "%s: write failed: %s", cfg->path, strerror(errno));
        goto fail;
    }
    if (d->fmt == DUMP_NPY && !small_job(d) && writer_start(d) != SP_OK)
        goto fail_msg;
    *out = d;
    return SP_OK;

fail_msg:
    err = sp_fail(ei, SP_ENOMEM, "out of memory");
fail:
    dump_destroy(d);
    return err;
}

/* Spooled CSV rows: gathered into blk, written a block at a time. */
static int csv_flush(dump *d, int channel)
{
    int e = d->blk_len ? spool_write(d->sp, channel, d->blk, d->blk_len) : 0;
    d->blk_len = 0;
    return e;
}

static int csv_put(dump *d, int channel, const char *row, size_t len)
{
    int e;
    if (channel == 0 && d->ch0_main)
        return fwrite(row, 1, len, d->main) == len ? 0 : (errno ? errno : EIO);
    if (!d->blk && !(d->blk = malloc(CSV_BLOCK)))
        return ENOMEM;
    if (d->blk_len + len > CSV_BLOCK && (e = csv_flush(d, channel)) != 0)
        return e;
    if (len > CSV_BLOCK)
        return spool_write(d->sp, channel, row, len);
    memcpy(d->blk + d->blk_len, row, len);
    d->blk_len += len;
    return 0;
}

/* 0 or an errno. */
static int write_csv_rows(dump *d, int channel, uint64_t first, size_t nframes, const float *db)
{
    int e = 0;
    for (size_t i = 0; i < nframes && !e; i++) {
        const float *row = db + i * d->cfg.bins;
        size_t pos = 0;
        if (d->cfg.stacked)
            pos += (size_t)snprintf(d->line, d->line_cap, "%d,", channel);
        if (d->cfg.columns) { /* a table: every float's digits */
            for (size_t k = 0; k < d->cfg.bins; k++)
                pos += (size_t)snprintf(d->line + pos, d->line_cap - pos, k ? ",%.9g" : "%.9g", (double)row[k]);
            d->line[pos++] = '\n';
            e = csv_put(d, channel, d->line, pos);
            continue;
        }
        /* 12 digits: microseconds a day into a recording */
        if (!d->cfg.single)
            pos += (size_t)snprintf(d->line + pos, d->line_cap - pos, "%.12g",
                                    d->cfg.time_first + (double)(first + i) * d->cfg.time_step);
        for (size_t k = 0; k < d->cfg.bins; k++)
            pos += (size_t)snprintf(d->line + pos, d->line_cap - pos, d->cfg.single && k == 0 ? "%.4f" : ",%.4f",
                                    (double)row[k]);
        d->line[pos++] = '\n';
        e = csv_put(d, channel, d->line, pos);
    }
    return e ? e : csv_flush(d, channel);
}

int dump_write(dump *d, int channel, uint64_t first, size_t nframes, const float *db, sp_errinfo *ei)
{
    int err, e;
    if (!d || channel < 0 || channel >= d->cfg.channels || !db)
        return sp_fail(ei, SP_EINVAL, "dump_write: bad arguments");
    if (d->stopped)
        return sp_fail(ei, SP_EIO, SP_FIELD("dump") " %s: stopped for want of space", d->cfg.path);
    if (channel == 0 && (err = check_space(d, nframes, ei)) != SP_OK)
        return err;
    if (d->fmt == DUMP_NPY && d->w)
        e = writer_put(d->w, channel, db, nframes * d->cfg.bins * sizeof *db);
    else if (d->fmt == DUMP_NPY)
        e = put_bytes(d, channel, db, nframes * d->cfg.bins * sizeof *db);
    else
        e = write_csv_rows(d, channel, first, nframes, db);
    if (e)
        return sp_fail(ei, e == ENOMEM ? SP_ENOMEM : SP_EIO, "%s: write failed: %s", d->cfg.path, strerror(e));
    d->frames[channel] += nframes;
    return SP_OK;
}

int dump_stopped(const dump *d)
{
    return d && d->stopped;
}

static void write_json(FILE *f, const dump_meta *m)
{
    fputs("{\n  \"source\": ", f);
    sp_json_string(f, m->source);
    fputs(",\n  \"decoder\": ", f);
    if (m->decoder && *m->decoder)
        sp_json_string(f, m->decoder);
    else
        fputs("null", f);
    fprintf(f, ",\n  \"start_s\": %.17g", m->start_s);
    fprintf(f, ",\n  \"sample_rate\": %d,\n  \"source_channels\": %d,\n  \"channel\": ", m->sample_rate,
            m->source_channels);
    if (m->channel_name)
        sp_json_string(f, m->channel_name);
    else
        fprintf(f, "%d", m->channel);
    fprintf(f, ",\n  \"channels\": %d,\n  \"fft_size\": %zu,\n  \"hop\": %zu,\n  \"window\": ", m->channels,
            m->fft_size, m->hop);
    sp_json_string(f, m->window);
    fprintf(f,
            ",\n  \"frames\": %llu,\n  \"bins\": %zu,\n  \"time_first_s\": %.17g,\n  \"time_step_s\": %.17g,"
            "\n  \"bin_hz\": %.17g,\n  \"backend\": ",
            (unsigned long long)m->frames, m->bins, m->time_first_s, m->time_step_s, m->bin_hz);
    sp_json_string(f, m->backend);
    fprintf(f, ",\n  \"nonfinite_samples\": %llu,\n  \"dropped_samples\": %llu,\n  \"truncated\": %s",
            (unsigned long long)m->nonfinite_samples, (unsigned long long)m->dropped_samples,
            m->truncated ? "true" : "false");
    if (m->level_unit) { /* --spl-offset: levels in dB SPL (absent: dBFS) */
        fputs(",\n  \"level_unit\": ", f);
        sp_json_string(f, m->level_unit);
    }
    fprintf(f, "%s\n}\n", m->extra ? m->extra : "");
}

/* The frames every channel has: all of them, unless a stop came between channels. */
static uint64_t whole_frames(const dump *d)
{
    uint64_t f = d->frames[0];
    for (int c = 1; c < d->cfg.channels; c++)
        if (d->frames[c] < f)
            f = d->frames[c];
    return f;
}

/* The .npy: main holds the header and channel 0 (cut to `frames` rows), or, written
 * straight through, nothing yet: then the final header goes first. The spooled channels
 * follow, in order. 0 or an errno. */
static int finish_npy(dump *d, uint64_t frames)
{
    const uint64_t row = d->cfg.bins * sizeof(float);
    int e;
    if (d->ch0_main && d->frames[0] > frames) {
        off_t keep = (off_t)(NPY_HEADER_BYTES + frames * row);
        if (fflush(d->main) != 0 || ftruncate(fileno(d->main), keep) != 0 || fseeko(d->main, keep, SEEK_SET) != 0)
            return errno;
    }
    if (!d->ch0_main && write_npy_header(d->main, d, frames) != SP_OK)
        return errno ? errno : EIO;
    for (int c = d->ch0_main ? 1 : 0; c < d->cfg.channels; c++)
        if ((e = spool_copy(d->sp, c, frames * row, d->main)) != 0)
            return e;
    if (d->ch0_main && (fseek(d->main, 0, SEEK_SET) != 0 || write_npy_header(d->main, d, frames) != SP_OK))
        return errno ? errno : EIO;
    return 0;
}

static int finish_csv(dump *d)
{
    int e;
    for (int c = d->ch0_main ? 1 : 0; d->sp && c < d->cfg.channels; c++)
        if ((e = spool_copy(d->sp, c, spool_bytes(d->sp, c), d->main)) != 0)
            return e;
    return 0;
}

/* The sidecar, written under its temporary: committed with the data as a pair. */
static int open_sidecar(dump *d, const dump_meta *meta, outfile **j, sp_errinfo *ei)
{
    char *path = dump_sidecar_path(d->cfg.path);
    int err;
    if (!path)
        return sp_fail(ei, SP_ENOMEM, "out of memory");
    if ((err = outfile_open(path, 0, j, ei)) == SP_OK)
        write_json(outfile_stream(*j), meta);
    free(path);
    return err;
}

int dump_commit(dump *d, const dump_meta *meta, sp_errinfo *ei)
{
    dump_meta m;
    outfile *j = NULL;
    int e, err;
    if (!d || !meta)
        return sp_fail(ei, SP_EINVAL, "dump_commit: bad arguments");
    m = *meta;
    if (!d->cfg.columns) /* a table's rows are not frames: the sidecar keeps the run's */
        m.frames = whole_frames(d);
    if ((e = writer_stop(d)) != 0 || (e = d->fmt == DUMP_NPY ? finish_npy(d, whole_frames(d)) : finish_csv(d)) != 0)
        return sp_fail(ei, SP_EIO, "%s: write failed: %s", d->cfg.path, strerror(e));
    if (d->fmt == DUMP_CSV_STDOUT) {
        if (fflush(stdout) != 0)
            return sp_fail(ei, SP_EIO, "%s: write failed: %s", d->cfg.path, strerror(errno));
        d->committed = 1;
        return SP_OK;
    }
    /* no sidecar beside a FIFO or a device: its name means nothing there (dump_sidecar_for's
     * rule, decided here by the file opened rather than by its path). Otherwise the data
     * and its sidecar go in place together (a half never looks whole; runs writing the
     * same path at once never leave one's data beside another's sidecar). */
    if (d->direct)
        err = outfile_commit(d->out, ei);
    else if ((err = open_sidecar(d, &m, &j, ei)) == SP_OK)
        err = outfile_commit_pair(d->out, j, ei);
    outfile_discard(j);
    d->main = NULL;
    if (err != SP_OK)
        return err;
    d->committed = 1;
    return SP_OK;
}

void dump_destroy(dump *d)
{
    if (!d)
        return;
    writer_stop(d);
    outfile_discard(d->out); /* without a commit, the temporary goes */
    spool_destroy(d->sp);
    free(d->frames);
    free(d->line);
    free(d->blk);
    free(d);
}

void dump_or_picture_abort(int png, int *done, const char *path, dump **d)
{
    if (png) {
        if (*done)
            outfile_unpublish(path);
        *done = 0;
    } else if (!*done) {
        dump_destroy(*d);
        *d = NULL;
    }
}
