#include "dump.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "outfile.h"

/* The .npy header is written with room for any shape and rewritten at commit, so the data
 * can stream out before the frame count is known. 128 bytes keep the data 64-byte aligned
 * as NumPy itself does. */
#define NPY_HEADER_BYTES 128

/* .npy data goes out through a writer thread, so that the kernel's copy of a large dump
 * (hundreds of MB for a long file) overlaps the next FFT batch instead of stalling it.
 * A bounded queue of WRITE_SLOTS buffers: the caller fills the slot after the last
 * filled one, the writer empties them in order. */
#define WRITE_SLOTS 3

typedef struct {
    FILE *f;
    char *data;
    size_t len, cap;
} write_job;

typedef struct {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    write_job slot[WRITE_SLOTS];
    int head, count; /* filled slots: head .. head+count-1 (mod WRITE_SLOTS) */
    int closing;
    int err;         /* errno of the first failed write, 0 if none */
} writer;

struct dump {
    dump_config cfg;
    writer *w;                       /* .npy only */
    dump_format fmt;
    char *final_path, *tmp_path;     /* data file */
    char *json_path, *json_tmp_path; /* sidecar */
    FILE *main;                      /* channel 0 (and the header) */
    FILE **spool;                    /* channels 1..channels-1, anonymous temp files */
    uint64_t *frames;                /* rows written per channel */
    char *line;                      /* CSV row buffer */
    size_t line_cap;
    int committed;
};

/* The one list of file formats, by extension: parsing, its message and --help read it.
 * "-" (CSV on standard output) is not a file and stays apart. */
static const struct {
    const char *ext;
    dump_format format;
    const char *help; /* after the name in --help, NULL: none */
} dump_formats[] = {
    {".npy", DUMP_NPY, "NumPy"},
    {".csv", DUMP_CSV, NULL},
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

int dump_format_from_path(const char *path, dump_format *out, sp_errinfo *ei)
{
    char list[128];
    size_t len, at = 0;
    if (!path || !*path)
        return sp_fail(ei, SP_EINVAL, "--dump: missing output path");
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
    return sp_fail(ei, SP_EINVAL, "--dump %s: unknown output type (use %s or - for CSV on stdout)", path, list);
}

static char *str_printf(const char *a, const char *b)
{
    size_t n = strlen(a) + strlen(b) + 1;
    char *s = malloc(n);
    if (s)
        snprintf(s, n, "%s%s", a, b);
    return s;
}

static int write_npy_header(FILE *f, const dump *d)
{
    char hdr[NPY_HEADER_BYTES];
    char dict[NPY_HEADER_BYTES];
    int len;
    if (d->cfg.stacked)
        len = snprintf(dict, sizeof dict, "{'descr': '<f4', 'fortran_order': False, 'shape': (%d, %llu, %zu), }",
                       d->cfg.channels, (unsigned long long)d->frames[0], d->cfg.bins);
    else
        len = snprintf(dict, sizeof dict, "{'descr': '<f4', 'fortran_order': False, 'shape': (%llu, %zu), }",
                       (unsigned long long)d->frames[0], d->cfg.bins);
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
    if (d->cfg.stacked)
        fputs("channel,", f);
    fputs("time_s", f);
    for (size_t k = 0; k < d->cfg.bins; k++)
        fprintf(f, ",%.10g", (double)k * d->cfg.bin_hz);
    fputc('\n', f);
    return ferror(f) ? SP_EIO : SP_OK;
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
        if (!w->err && fwrite(j->data, 1, j->len, j->f) != j->len)
            failed = errno ? errno : EIO;
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

/* Queues len bytes for f; waits while every slot is full. Returns the writer's errno. */
static int writer_put(writer *w, FILE *f, const void *data, size_t len)
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
    j->f = f;
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
    err = SP_ENOMEM;
    d->spool = calloc((size_t)cfg->channels, sizeof *d->spool);
    d->frames = calloc((size_t)cfg->channels, sizeof *d->frames);
    d->line_cap = 32 + cfg->bins * 16;
    d->line = malloc(d->line_cap);
    if (!d->spool || !d->frames || !d->line)
        goto fail_msg;
    if (d->fmt == DUMP_CSV_STDOUT) {
        d->main = stdout;
    } else {
        d->final_path = str_printf(cfg->path, "");
        d->json_path = str_printf(cfg->path, ".json");
        if (!d->final_path || !d->json_path)
            goto fail_msg;
        if ((err = outfile_temp(d->final_path, &d->main, &d->tmp_path, ei)) != SP_OK)
            goto fail;
        setvbuf(d->main, NULL, _IOFBF, 1 << 20);
    }
    for (int c = 1; c < cfg->channels; c++) {
        if (!(d->spool[c] = tmpfile())) {
            err = sp_fail(ei, SP_EIO, "cannot create a temporary file for channel %d: %s", c, strerror(errno));
            goto fail;
        }
    }
    err = d->fmt == DUMP_NPY ? write_npy_header(d->main, d) : write_csv_header(d->main, d);
    if (err != SP_OK) {
        err = sp_fail(ei, SP_EIO, "%s: write failed: %s", cfg->path, strerror(errno));
        goto fail;
    }
    if (d->fmt == DUMP_NPY && writer_start(d) != SP_OK)
        goto fail_msg;
    *out = d;
    return SP_OK;

fail_msg:
    err = sp_fail(ei, SP_ENOMEM, "out of memory");
fail:
    dump_destroy(d);
    return err;
}

static int write_csv_rows(dump *d, FILE *f, int channel, uint64_t first, size_t nframes, const float *db)
{
    for (size_t i = 0; i < nframes; i++) {
        const float *row = db + i * d->cfg.bins;
        size_t pos = 0;
        if (d->cfg.stacked)
            pos += (size_t)snprintf(d->line, d->line_cap, "%d,", channel);
        /* 12 digits: microseconds a day into a recording */
        pos += (size_t)snprintf(d->line + pos, d->line_cap - pos, "%.12g",
                                d->cfg.time_first + (double)(first + i) * d->cfg.time_step);
        for (size_t k = 0; k < d->cfg.bins; k++)
            pos += (size_t)snprintf(d->line + pos, d->line_cap - pos, ",%.4f", (double)row[k]);
        d->line[pos++] = '\n';
        if (fwrite(d->line, 1, pos, f) != pos)
            return SP_EIO;
    }
    return SP_OK;
}

int dump_write(dump *d, int channel, uint64_t first, size_t nframes, const float *db, sp_errinfo *ei)
{
    FILE *f;
    int err;
    if (!d || channel < 0 || channel >= d->cfg.channels || !db)
        return sp_fail(ei, SP_EINVAL, "dump_write: bad arguments");
    f = channel == 0 ? d->main : d->spool[channel];
    if (d->fmt == DUMP_NPY) {
        int e = writer_put(d->w, f, db, nframes * d->cfg.bins * sizeof *db);
        if (e)
            return sp_fail(ei, e == ENOMEM ? SP_ENOMEM : SP_EIO, "%s: write failed: %s", d->cfg.path,
                           strerror(e));
    } else if ((err = write_csv_rows(d, f, channel, first, nframes, db)) != SP_OK) {
        return sp_fail(ei, SP_EIO, "%s: write failed: %s", d->cfg.path, strerror(errno));
    }
    d->frames[channel] += nframes;
    return SP_OK;
}

static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

static void write_json(FILE *f, const dump_meta *m)
{
    fputs("{\n  \"source\": ", f);
    json_string(f, m->source);
    fputs(",\n  \"decoder\": ", f);
    if (m->decoder && *m->decoder)
        json_string(f, m->decoder);
    else
        fputs("null", f);
    fprintf(f, ",\n  \"start_s\": %.17g", m->start_s);
    fprintf(f, ",\n  \"sample_rate\": %d,\n  \"source_channels\": %d,\n  \"channel\": ", m->sample_rate,
            m->source_channels);
    if (m->channel_name)
        json_string(f, m->channel_name);
    else
        fprintf(f, "%d", m->channel);
    fprintf(f, ",\n  \"channels\": %d,\n  \"fft_size\": %zu,\n  \"hop\": %zu,\n  \"window\": ", m->channels,
            m->fft_size, m->hop);
    json_string(f, m->window);
    fprintf(f,
            ",\n  \"frames\": %llu,\n  \"bins\": %zu,\n  \"time_first_s\": %.17g,\n  \"time_step_s\": %.17g,"
            "\n  \"bin_hz\": %.17g,\n  \"backend\": ",
            (unsigned long long)m->frames, m->bins, m->time_first_s, m->time_step_s, m->bin_hz);
    json_string(f, m->backend);
    fprintf(f, ",\n  \"nonfinite_samples\": %llu,\n  \"dropped_samples\": %llu,\n  \"truncated\": %s\n}\n",
            (unsigned long long)m->nonfinite_samples, (unsigned long long)m->dropped_samples,
            m->truncated ? "true" : "false");
}

/* Appends the spooled channels to the main file, in channel order. */
static int append_spools(dump *d)
{
    char buf[1 << 16];
    for (int c = 1; c < d->cfg.channels; c++) {
        size_t got;
        rewind(d->spool[c]);
        while ((got = fread(buf, 1, sizeof buf, d->spool[c])) > 0)
            if (fwrite(buf, 1, got, d->main) != got)
                return SP_EIO;
        if (ferror(d->spool[c]))
            return SP_EIO;
    }
    return SP_OK;
}

int dump_commit(dump *d, const dump_meta *meta, sp_errinfo *ei)
{
    FILE *jf = NULL;
    int err;
    if (!d || !meta)
        return sp_fail(ei, SP_EINVAL, "dump_commit: bad arguments");
    if ((errno = writer_stop(d)) != 0)
        goto io_fail;
    if (append_spools(d) != SP_OK)
        goto io_fail;
    if (d->fmt == DUMP_CSV_STDOUT) {
        if (fflush(stdout) != 0)
            goto io_fail;
        d->committed = 1;
        return SP_OK;
    }
    if (d->fmt == DUMP_NPY && (fseek(d->main, 0, SEEK_SET) != 0 || write_npy_header(d->main, d) != SP_OK))
        goto io_fail;
    if (fflush(d->main) != 0 || fclose(d->main) != 0) {
        d->main = NULL;
        goto io_fail;
    }
    d->main = NULL;
    if ((err = outfile_temp(d->json_path, &jf, &d->json_tmp_path, ei)) != SP_OK)
        return err;
    write_json(jf, meta);
    if (fclose(jf) != 0)
        goto io_fail;
    if (rename(d->tmp_path, d->final_path) != 0)
        goto io_fail;
    if (rename(d->json_tmp_path, d->json_path) != 0) {
        unlink(d->final_path);
        goto io_fail;
    }
    d->committed = 1;
    return SP_OK;

io_fail:
    return sp_fail(ei, SP_EIO, "%s: write failed: %s", d->cfg.path, strerror(errno));
}

void dump_destroy(dump *d)
{
    if (!d)
        return;
    writer_stop(d);
    if (d->main && d->main != stdout)
        fclose(d->main);
    if (d->spool)
        for (int c = 1; c < d->cfg.channels; c++)
            if (d->spool[c])
                fclose(d->spool[c]);
    if (!d->committed) {
        if (d->tmp_path)
            unlink(d->tmp_path);
        if (d->json_tmp_path)
            unlink(d->json_tmp_path);
    }
    free(d->final_path);
    free(d->tmp_path);
    free(d->json_path);
    free(d->json_tmp_path);
    free(d->spool);
    free(d->frames);
    free(d->line);
    free(d);
}
