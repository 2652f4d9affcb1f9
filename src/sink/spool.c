#define _GNU_SOURCE /* fallocate's FALLOC_FL_PUNCH_HOLE */
#include "spool.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "outfile.h"

#define SPOOL_EXTENT_FIRST ((uint64_t)64 << 10)
#define SPOOL_ALIGN ((uint64_t)4096) /* extents start on filesystem blocks: punching frees whole ones */

typedef struct {
    uint64_t off, cap, used;
} extent;

typedef struct {
    extent *e;
    int count, alloc;
    uint64_t bytes;
} chan;

struct spool {
    int fd;
    int channels;
    int punch;      /* FALLOC_FL_PUNCH_HOLE works on this file */
    uint64_t end;   /* the next free offset */
    chan *ch;
};

static int punch(int fd, uint64_t off, uint64_t len)
{
#ifdef FALLOC_FL_PUNCH_HOLE
    return fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)off, (off_t)len);
#else
    (void)fd;
    (void)off;
    (void)len;
    errno = EOPNOTSUPP;
    return -1;
#endif
}

int spool_create(const char *path, int channels, spool **out, sp_errinfo *ei)
{
    spool *s;
    int err;
    if (!path || channels < 1 || !out)
        return sp_fail(ei, SP_EINVAL, "spool_create: bad arguments");
    *out = NULL;
    if (!(s = calloc(1, sizeof *s)) || !(s->ch = calloc((size_t)channels, sizeof *s->ch))) {
        free(s);
        return sp_fail(ei, SP_ENOMEM, "out of memory");
    }
    s->channels = channels;
    if ((err = outfile_scratch(path, 0, &s->fd, ei)) != SP_OK) {
        free(s->ch);
        free(s);
        return err;
    }
    s->punch = punch(s->fd, 0, SPOOL_ALIGN) == 0; /* an empty range: only asks whether it works */
    *out = s;
    return SP_OK;
}

/* A new extent for channel c with room for at least len bytes. */
static int add_extent(spool *s, chan *c, size_t len)
{
    uint64_t cap = c->count ? c->e[c->count - 1].cap * 2 : SPOOL_EXTENT_FIRST;
    if (cap > SPOOL_EXTENT_MAX)
        cap = SPOOL_EXTENT_MAX;
    if (cap < len)
        cap = len;
    cap = (cap + SPOOL_ALIGN - 1) / SPOOL_ALIGN * SPOOL_ALIGN;
    if (c->count == c->alloc) {
        int n = c->alloc ? c->alloc * 2 : 8;
        extent *e = realloc(c->e, (size_t)n * sizeof *e);
        if (!e)
            return ENOMEM;
        c->e = e;
        c->alloc = n;
    }
    c->e[c->count].off = s->end;
    c->e[c->count].cap = cap;
    c->e[c->count].used = 0;
    c->count++;
    s->end += cap;
    return 0;
}

static int pwrite_all(int fd, const char *p, size_t len, uint64_t off)
{
    while (len > 0) {
        ssize_t n = pwrite(fd, p, len, (off_t)off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return n < 0 ? errno : EIO;
        p += n;
        len -= (size_t)n;
        off += (uint64_t)n;
    }
    return 0;
}

int spool_write(spool *s, int channel, const void *data, size_t len)
{
    const char *p = data;
    chan *c;
    if (!s || channel < 0 || channel >= s->channels)
        return EINVAL;
    c = &s->ch[channel];
    while (len > 0) {
        extent *e;
        size_t n;
        int err;
        if ((c->count == 0 || c->e[c->count - 1].used == c->e[c->count - 1].cap) && (err = add_extent(s, c, len)))
            return err;
        e = &c->e[c->count - 1];
        n = e->cap - e->used < len ? (size_t)(e->cap - e->used) : len;
        if ((err = pwrite_all(s->fd, p, n, e->off + e->used)))
            return err;
        e->used += n;
        c->bytes += n;
        p += n;
        len -= n;
    }
    return 0;
}

uint64_t spool_bytes(const spool *s, int channel)
{
    return s && channel >= 0 && channel < s->channels ? s->ch[channel].bytes : 0;
}

uint64_t spool_total(const spool *s)
{
    uint64_t t = 0;
    for (int c = 0; s && c < s->channels; c++)
        t += s->ch[c].bytes;
    return t;
}

int spool_frees_as_it_copies(const spool *s)
{
    return s && s->punch;
}

/* Copies n bytes at off to `to` in pieces, punching each piece once written. */
static int copy_range(spool *s, uint64_t off, uint64_t n, char *buf, FILE *to)
{
    while (n > 0) {
        size_t want = n < SPOOL_COPY_PIECE ? (size_t)n : SPOOL_COPY_PIECE;
        ssize_t got = pread(s->fd, buf, want, (off_t)off);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return got < 0 ? errno : EIO;
        if (fwrite(buf, 1, (size_t)got, to) != (size_t)got)
            return errno ? errno : EIO;
        if (s->punch)
            punch(s->fd, off, (uint64_t)got); /* a failure only keeps the space longer */
        off += (uint64_t)got;
        n -= (uint64_t)got;
    }
    return 0;
}

int spool_copy(spool *s, int channel, uint64_t len, FILE *to)
{
    char *buf;
    int err = 0;
    if (!s || channel < 0 || channel >= s->channels || !to)
        return EINVAL;
    if (!(buf = malloc(SPOOL_COPY_PIECE)))
        return ENOMEM;
    for (int i = 0; i < s->ch[channel].count && len > 0 && !err; i++) {
        const extent *e = &s->ch[channel].e[i];
        uint64_t n = e->used < len ? e->used : len;
        err = copy_range(s, e->off, n, buf, to);
        len -= n;
    }
    free(buf);
    return err;
}

void spool_destroy(spool *s)
{
    if (!s)
        return;
    close(s->fd);
    for (int c = 0; c < s->channels; c++)
        free(s->ch[c].e);
    free(s->ch);
    free(s);
}
