#include "png_write.h"

#include <errno.h>
#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "outfile.h"
#include "par.h"

/* libpng reports through callbacks; errors longjmp back to encode(). Library code never
 * prints, so warnings are dropped and the error text is kept for the message. */
typedef struct {
    char msg[200];
} png_ctx;

static void on_png_error(png_structp png, png_const_charp msg)
{
    png_ctx *ctx = png_get_error_ptr(png);
    snprintf(ctx->msg, sizeof ctx->msg, "%s", msg ? msg : "libpng error");
    png_longjmp(png, 1);
}

static void on_png_warning(png_structp png, png_const_charp msg)
{
    (void)png;
    (void)msg;
}

static int all_opaque(const uint8_t *rgba, size_t pixels)
{
    for (size_t i = 0; i < pixels; i++)
        if (rgba[i * 4 + 3] != 255)
            return 0;
    return 1;
}

/* ---- the image data, deflated in strips at once ------------------------------------------
 *
 * One zlib stream (RFC 1950) made of independently deflated strips of rows, as pigz does:
 * each strip is raw deflate ending on a byte boundary (Z_SYNC_FLUSH; the last one Z_FINISH),
 * the strips are concatenated after the stream's header, and the check value is the strips'
 * Adler-32 combined. A decoder sees one ordinary stream. Strips are a fixed number of rows,
 * so the file's bytes do not depend on the machine's core count. Spectrograms are runs of
 * colour-map entries: no filter at zlib level 2 is both the smallest and the fastest
 * (1920x1080 of noisy spectrogram: 1.6 MB, against 1.9 MB in 0.8 s with libpng's default
 * adaptive filters at level 6); one thread took 0.05-0.11 s for it, a third of a GPU run on an
 * hour of audio. */
#define STRIP_ROWS 64
#define ZLEVEL 2
#define IDAT_BYTES ((size_t)1 << 20) /* the data in chunks of at most 1 MB */

typedef struct {
    unsigned char *out;
    size_t len;
    uLong adler, raw_len;
    int failed;
} strip;

typedef struct {
    const uint8_t *rgba;
    int w, h, bpp, nstrips;
    strip *s;
} deflate_job;

/* Strip i: its rows filtered (type 0: none) and deflated into s->out. */
static void deflate_strip(const deflate_job *j, int i)
{
    strip *s = &j->s[i];
    int y0 = i * STRIP_ROWS, y1 = y0 + STRIP_ROWS < j->h ? y0 + STRIP_ROWS : j->h;
    size_t row = 1 + (size_t)j->w * (size_t)j->bpp, raw_len = row * (size_t)(y1 - y0);
    unsigned char *raw = malloc(raw_len);
    z_stream z;
    memset(&z, 0, sizeof z);
    s->failed = 1;
    if (!raw || deflateInit2(&z, ZLEVEL, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
        free(raw);
        return;
    }
    for (int y = y0; y < y1; y++) {
        unsigned char *d = raw + row * (size_t)(y - y0);
        const uint8_t *p = j->rgba + (size_t)y * (size_t)j->w * 4;
        d[0] = 0;
        if (j->bpp == 4)
            memcpy(d + 1, p, (size_t)j->w * 4);
        else
            for (int x = 0; x < j->w; x++)
                memcpy(d + 1 + 3 * (size_t)x, p + 4 * (size_t)x, 3);
    }
    s->raw_len = (uLong)raw_len;
    s->adler = adler32(adler32(0L, Z_NULL, 0), raw, (uInt)raw_len);
    size_t cap = deflateBound(&z, (uLong)raw_len) + 16; /* + the sync flush's empty block */
    if ((s->out = malloc(cap))) {
        z.next_in = raw;
        z.avail_in = (uInt)raw_len;
        z.next_out = s->out;
        z.avail_out = (uInt)cap;
        int r = deflate(&z, i == j->nstrips - 1 ? Z_FINISH : Z_SYNC_FLUSH);
        if ((r == Z_STREAM_END || r == Z_OK) && z.avail_in == 0) {
            s->len = cap - z.avail_out;
            s->failed = 0;
        }
    }
    deflateEnd(&z);
    free(raw);
}

static void deflate_part(void *ctx, int part, int parts)
{
    const deflate_job *j = ctx;
    size_t b, e;
    sp_par_share((size_t)j->nstrips, part, parts, &b, &e);
    for (size_t i = b; i < e; i++)
        deflate_strip(j, (int)i);
}

/* The zlib stream of the picture's rows in one malloc'd block (*out, *len); -1 when memory
 * ran out. */
static int deflate_image(const uint8_t *rgba, int w, int h, int bpp, unsigned char **out, size_t *len)
{
    deflate_job j = {rgba, w, h, bpp, (h + STRIP_ROWS - 1) / STRIP_ROWS, NULL};
    size_t total = 2 + 4;
    uLong adler = adler32(0L, Z_NULL, 0);
    int ok = (j.s = calloc((size_t)j.nstrips, sizeof *j.s)) != NULL;
    if (ok)
        sp_par_run(deflate_part, &j, sp_par_parts((size_t)j.nstrips, 1));
    for (int i = 0; ok && i < j.nstrips; i++) {
        ok = !j.s[i].failed;
        total += j.s[i].len;
    }
    unsigned char *p = ok ? malloc(total) : NULL;
    if (p) {
        size_t at = 2;
        p[0] = 0x78; /* deflate, 32K window */
        p[1] = 0x5e; /* FLEVEL 1 (a fast level), no dictionary; 0x785e is a multiple of 31 */
        for (int i = 0; i < j.nstrips; i++) {
            memcpy(p + at, j.s[i].out, j.s[i].len);
            at += j.s[i].len;
            adler = adler32_combine(adler, j.s[i].adler, (z_off_t)j.s[i].raw_len);
        }
        for (int k = 0; k < 4; k++)
            p[at + (size_t)k] = (unsigned char)(adler >> (24 - 8 * k));
        *out = p;
        *len = total;
    }
    for (int i = 0; j.s && i < j.nstrips; i++)
        free(j.s[i].out);
    free(j.s);
    return p ? 0 : -1;
}

/* Writes the file into f: libpng writes the signature, the header and the chunks with their
 * CRCs; the image data is deflate_image's stream. Only pointers set before setjmp are used
 * after a longjmp. */
static int write_chunks(FILE *f, png_uint_32 w, png_uint_32 h, int color, const unsigned char *idat,
                        size_t idat_len, png_ctx *ctx)
{
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, ctx, on_png_error, on_png_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!png || !info) {
        snprintf(ctx->msg, sizeof ctx->msg, "out of memory");
        png_destroy_write_struct(png ? &png : NULL, NULL);
        return -1;
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        return -1;
    }
    png_init_io(png, f);
    png_set_IHDR(png, info, w, h, 8, color, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
                 PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    for (size_t at = 0; at < idat_len; at += IDAT_BYTES) /* as libpng splits its own */
        png_write_chunk(png, (png_const_bytep) "IDAT", idat + at, idat_len - at < IDAT_BYTES ? idat_len - at : IDAT_BYTES);
    /* png_write_end wants the rows written through libpng: the end chunk is written as the
     * data was, and that is the whole file */
    png_write_chunk(png, (png_const_bytep) "IEND", NULL, 0);
    png_write_flush(png);
    png_destroy_write_struct(&png, &info);
    return 0;
}

static int encode(FILE *f, const uint8_t *rgba, int w, int h, png_ctx *ctx)
{
    int opaque = all_opaque(rgba, (size_t)w * (size_t)h), r = -1;
    unsigned char *idat = NULL;
    size_t idat_len = 0;
    if (deflate_image(rgba, w, h, opaque ? 3 : 4, &idat, &idat_len) != 0)
        snprintf(ctx->msg, sizeof ctx->msg, "out of memory");
    else
        r = write_chunks(f, (png_uint_32)w, (png_uint_32)h, opaque ? PNG_COLOR_TYPE_RGB : PNG_COLOR_TYPE_RGBA, idat,
                         idat_len, ctx);
    free(idat);
    return r;
}

int png_write_rgba(const char *path, const uint8_t *rgba, int w, int h, sp_errinfo *ei)
{
    outfile *o = NULL;
    int err;
    png_ctx ctx;

    if (!path || !*path || !rgba || w < 1 || h < 1 || w > 65535 || h > 65535)
        return sp_fail(ei, SP_EINVAL, "png_write_rgba: bad arguments");
    if ((err = outfile_open(path, 0, &o, ei)) != SP_OK)
        return err;
    ctx.msg[0] = 0;
    errno = 0;
    if (encode(outfile_stream(o), rgba, w, h, &ctx) != 0)
        err = sp_fail(ei, SP_EIO, "%s: write failed: %s", path, errno ? strerror(errno) : ctx.msg);
    else
        err = outfile_commit(o, ei);
    outfile_discard(o);
    return err;
}
