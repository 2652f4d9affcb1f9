/* The --png output kind: the picture, drawn while the run goes and written at finish.
 *
 * render_add (or render_add_max, for a GPU's column maxima) runs on a thread of its own, so
 * that drawing one block overlaps the FFT of the next. No copy: the framer keeps a block
 * unchanged until the sink's next call returns (sink.h), and drawer_add waits there until
 * the previous block is drawn.
 *
 * The reassigned spectrogram (--reassign: rows of points, not levels) is gathered back onto
 * the frame x bin grid (reassign_grid.h) and drawn as a linear spectrogram of those cells;
 * its runs of complete frames alternate between two buffers, as the drawer holds the one it
 * draws until the next hand-over.
 *
 * MFCC rows (values with no range of their own) are kept as they come and drawn at the end,
 * when their range is known: the colours span it unless --db-range says otherwise. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "outfile.h"
#include "reassign_grid.h"
#include "render.h"
#include "sink_table.h"

typedef struct {
    render *r;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    const float *db; /* the block being handed over or drawn; NULL = idle */
    int channel;
    uint64_t first;
    size_t nframes;
    uint64_t span; /* 0: db holds nframes spectra; else the maxima of each span frames */
    int quit, err, started;
} drawer;

typedef struct {
    const char *path;
    render_config rc;
    render *r;
    drawer draw;
    int written;
    reassign_grid *grid;   /* --reassign: its points onto the grid; NULL: rows are levels */
    float *run[2];         /* the grid's runs handed to the drawer, by turns */
    size_t run_cap[2];     /* floats */
    int turn;
    size_t bins;
    /* MFCC: the picture made again at the end over the values' range, from the blocks kept */
    int keep;
    struct kept_block {
        int channel;
        uint64_t first;
        size_t nframes;
        float *rows;
    } *kept;
    size_t nkept, kept_cap;
    double *coef;          /* the coefficients' numbers: the axis' columns */
    char title[512];
    double rate, t0, dt;
    size_t n;
    int channels;
    int64_t frames_hint;
    int kept_drawn;
} png_sink;

static void *drawer_main(void *arg)
{
    drawer *d = arg;
    pthread_mutex_lock(&d->mu);
    for (;;) {
        while (!d->db && !d->quit)
            pthread_cond_wait(&d->cv, &d->mu);
        if (!d->db)
            break; /* quit with nothing left */
        int skip = d->err != SP_OK; /* after an error the rest is only drained */
        pthread_mutex_unlock(&d->mu);
        int err = skip          ? SP_OK
                  : d->span == 0 ? render_add(d->r, d->channel, d->first, d->nframes, d->db)
                                 : render_add_max_rows(d->r, d->channel, d->first, d->nframes, d->span, d->db);
        pthread_mutex_lock(&d->mu);
        if (err != SP_OK && !d->err)
            d->err = err;
        d->db = NULL;
        pthread_cond_broadcast(&d->cv);
    }
    pthread_mutex_unlock(&d->mu);
    return NULL;
}

static int drawer_start(drawer *d, render *r, sp_errinfo *ei)
{
    memset(d, 0, sizeof *d);
    d->r = r;
    pthread_mutex_init(&d->mu, NULL);
    pthread_cond_init(&d->cv, NULL);
    if (pthread_create(&d->thread, NULL, drawer_main, d) != 0) {
        pthread_cond_destroy(&d->cv);
        pthread_mutex_destroy(&d->mu);
        return sp_fail(ei, SP_ENOMEM, "cannot start the drawing thread");
    }
    d->started = 1;
    return SP_OK;
}

/* Waits until the previous block is drawn, then hands this one over. */
static int drawer_add(drawer *d, int channel, uint64_t first, size_t nframes, uint64_t span, const float *db)
{
    int err;
    pthread_mutex_lock(&d->mu);
    while (d->db)
        pthread_cond_wait(&d->cv, &d->mu);
    err = d->err;
    if (err == SP_OK) {
        d->db = db;
        d->channel = channel;
        d->first = first;
        d->nframes = nframes;
        d->span = span;
        pthread_cond_broadcast(&d->cv);
    }
    pthread_mutex_unlock(&d->mu);
    return err;
}

/* Draws what was handed over and stops the thread (idempotent); the first render_add error. */
static int drawer_finish(drawer *d)
{
    if (d->started) {
        pthread_mutex_lock(&d->mu);
        d->quit = 1;
        pthread_cond_broadcast(&d->cv);
        pthread_mutex_unlock(&d->mu);
        pthread_join(d->thread, NULL);
        pthread_cond_destroy(&d->cv);
        pthread_mutex_destroy(&d->mu);
        d->started = 0;
    }
    return d->err;
}

/* A run of the grid's complete frames, copied into this turn's buffer and handed over. */
static int grid_emit(void *user, int channel, uint64_t first, size_t count, const float *rows, sp_errinfo *ei)
{
    png_sink *s = user;
    size_t n = count * s->bins;
    int t = s->turn, err;
    if (n > s->run_cap[t]) {
        float *grown = realloc(s->run[t], n * sizeof *grown);
        if (!grown)
            return sp_fail(ei, SP_ENOMEM, "out of memory for the reassigned picture");
        s->run[t] = grown;
        s->run_cap[t] = n;
    }
    memcpy(s->run[t], rows, n * sizeof *rows);
    s->turn = !t; /* drawer_add returns once the other buffer's block is drawn */
    err = drawer_add(&s->draw, channel, first, count, 0, s->run[t]);
    return err == SP_OK ? SP_OK : sp_fail(ei, err, "drawing the picture failed");
}

/* --reassign: a linear spectrogram of its points' grid; a point lands within half a window
 * (n/2 samples) of its frame. */
static int open_grid(png_sink *s, const sink_stream *st, sp_errinfo *ei)
{
    size_t reach = (st->n / 2 + st->hop - 1) / st->hop + 1;
    s->bins = st->n / 2 + 1;
    return reassign_grid_create(st->channels, s->bins, st->bin_hz, st->time_first_s, st->time_step_s, reach,
                                &s->grid, ei);
}

/* MFCC: rows numbered by coefficient, the values' colours chosen at the end (keep_draw);
 * the picture made now only checks the settings (size, fonts) before any work. */
static int open_kept(png_sink *s, const sink_stream *st, render_config *rc, sp_errinfo *ei)
{
    if (!(s->coef = malloc(st->bins * sizeof *s->coef)))
        return sp_fail(ei, SP_ENOMEM, "out of memory");
    for (size_t i = 0; i < st->bins; i++)
        s->coef[i] = (double)i;
    rc->columns = st->bins;
    rc->col_hz = s->coef;
    rc->col_notes = 3;
    rc->caption = "";
    s->keep = 1;
    s->bins = st->bins;
    s->rate = st->rate;
    s->n = st->n;
    s->t0 = st->time_first_s;
    s->dt = st->time_step_s;
    s->channels = st->channels;
    s->frames_hint = st->frames_hint;
    snprintf(s->title, sizeof s->title, "%s", rc->title ? rc->title : "");
    s->rc = *rc;
    s->rc.title = s->title;
    return SP_OK;
}

static int keep_rows(png_sink *s, int channel, uint64_t first, size_t nframes, const float *rows, sp_errinfo *ei)
{
    struct kept_block *b;
    if (s->nkept == s->kept_cap) {
        size_t cap = s->kept_cap ? 2 * s->kept_cap : 64;
        struct kept_block *p = realloc(s->kept, cap * sizeof *p);
        if (!p)
            return sp_fail(ei, SP_ENOMEM, "out of memory for the MFCC picture");
        s->kept = p;
        s->kept_cap = cap;
    }
    b = &s->kept[s->nkept];
    if (!(b->rows = malloc(nframes * s->bins * sizeof *b->rows)))
        return sp_fail(ei, SP_ENOMEM, "out of memory for the MFCC picture");
    memcpy(b->rows, rows, nframes * s->bins * sizeof *b->rows);
    b->channel = channel;
    b->first = first;
    b->nframes = nframes;
    s->nkept++;
    return SP_OK;
}

/* The kept rows drawn (once): the colours over their range (min .. max of the values of
 * coefficients 1 .. K-1; c0 with them only when alone: it is far larger and is drawn
 * clipped) unless --db-range was given, on a picture made again with it. */
static int keep_draw(png_sink *s, sp_errinfo *ei)
{
    render_config rc = s->rc;
    float lo = 0.0f, hi = 0.0f;
    int any = 0, err;
    if (!s->keep || s->kept_drawn)
        return SP_OK;
    s->kept_drawn = 1;
    for (size_t i = 0; i < s->nkept; i++)
        for (size_t j = 0; j < s->kept[i].nframes * s->bins; j++) {
            float v = s->kept[i].rows[j];
            if (s->bins > 1 && j % s->bins == 0)
                continue; /* c0, the frame's log energy, would take the whole range */
            if (v == v && v - v == 0.0f) { /* finite */
                lo = any && lo < v ? lo : v;
                hi = any && hi > v ? hi : v;
                any = 1;
            }
        }
    if (rc.db_lo == render_config_default().db_lo && rc.db_hi == render_config_default().db_hi && any) {
        rc.db_lo = lo;
        rc.db_hi = hi > lo ? hi : lo + 1.0f;
    }
    rc.col_hz = s->coef;
    drawer_finish(&s->draw);
    render_destroy(s->r);
    s->r = NULL;
    if ((err = render_create(&rc, s->rate, s->n, s->t0, s->dt, s->channels, s->frames_hint, &s->r, ei)) != SP_OK ||
        (err = drawer_start(&s->draw, s->r, ei)) != SP_OK)
        return err;
    for (size_t i = 0; i < s->nkept; i++) /* the blocks stay until destroy: the drawer reads them */
        if ((err = drawer_add(&s->draw, s->kept[i].channel, s->kept[i].first, s->kept[i].nframes, 0,
                              s->kept[i].rows)) != SP_OK)
            return sp_fail(ei, err, "drawing the picture failed");
    return SP_OK;
}

static int png_sink_open(void *self, const sink_stream *st, sink_wants *wants, sp_errinfo *ei)
{
    png_sink *s = self;
    render_config rc = s->rc;
    char title[512];
    const char *slash = strrchr(st->source, '/');
    int err;
    if (!rc.title) {
        snprintf(title, sizeof title, "%s  \xe2\x80\x94  %s%s%d Hz, N=%zu, hop=%zu, %s, %s",
                 slash ? slash + 1 : st->source, st->xform ? st->xform : "", st->xform ? ", " : "", st->rate, st->n,
                 st->hop, st->window, st->backend);
        rc.title = title;
    }
    if (st->xform && st->depth == 3 && strcmp(st->xform, "reassign") == 0) {
        if ((err = open_grid(s, st, ei)) != SP_OK)
            return err;
    } else if (st->xform && strcmp(st->xform, "mfcc") == 0) {
        if ((err = open_kept(s, st, &rc, ei)) != SP_OK)
            return err;
    } else if (st->xform) { /* a transform's rows (sink.h): its columns on the axis */
        if (st->depth > 1 || !st->col_hz)
            return sp_fail(ei, SP_EINVAL, SP_FIELD("png") ": no picture of %s yet", st->xform);
        rc.columns = st->bins;
        rc.col_hz = st->col_hz;
        rc.col_notes = strcmp(st->xform, "cqt") == 0 ? 1 : strcmp(st->xform, "chroma") == 0 ? 2 : 0;
        if (!st->xform_db) { /* values 0 .. 1 (chroma): the colours span them unless asked */
            rc.caption = "";
            if (rc.db_lo == render_config_default().db_lo && rc.db_hi == render_config_default().db_hi) {
                rc.db_lo = 0.0f;
                rc.db_hi = 1.0f;
            }
        }
    }
    if ((err = render_create(&rc, st->rate, st->n, st->time_first_s, st->time_step_s, st->channels,
                             st->frames_hint, &s->r, ei)) != SP_OK ||
        (err = drawer_start(&s->draw, s->r, ei)) != SP_OK)
        return err;
    wants->spectra = 1;
    /* a GPU may hand over each column's maximum instead (only those rows cross the bus) */
    wants->maxima_span =
        !s->grid && !s->keep && render_frames_per_column(s->r) > 1 ? render_frames_per_column(s->r) : 0;
    return SP_OK;
}

static int png_sink_spectra(void *self, int channel, uint64_t first, size_t nframes, const float *db,
                            sp_errinfo *ei)
{
    png_sink *s = self;
    int err;
    if (s->grid)
        return reassign_grid_add(s->grid, channel, first, nframes, db, grid_emit, s, ei);
    if (s->keep)
        return keep_rows(s, channel, first, nframes, db, ei);
    err = drawer_add(&s->draw, channel, first, nframes, 0, db);
    return err == SP_OK ? SP_OK : sp_fail(ei, err, "drawing the picture failed");
}

/* Column maxima (sink.h): a row per group, folded in on the drawing thread too (an hour's
 * 13,500 rows of 2049 bins took 0.07-0.1 s of the analysis thread on the GPU host; whole
 * columns are mapped on the pool's threads there). */
static int png_sink_maxima(void *self, int channel, uint64_t first, size_t nframes, uint64_t span, const float *rows,
                           sp_errinfo *ei)
{
    png_sink *s = self;
    int err = span ? drawer_add(&s->draw, channel, first, nframes, span, rows) : SP_EINVAL;
    return err == SP_OK ? SP_OK : sp_fail(ei, err, "drawing the picture failed");
}

/* The last block drawn: the framer's buffers may go (the picture is then written while a
 * GPU is let go). */
static int png_sink_settle(void *self, sp_errinfo *ei)
{
    png_sink *s = self;
    int err;
    if (s->grid && (err = reassign_grid_flush(s->grid, grid_emit, s, ei)) != SP_OK)
        return err;
    if ((err = keep_draw(s, ei)) != SP_OK)
        return err;
    err = drawer_finish(&s->draw);
    return err == SP_OK ? SP_OK : sp_fail(ei, err, "drawing the picture failed");
}

static int png_sink_finish(void *self, const sink_end *end, sp_errinfo *ei)
{
    png_sink *s = self;
    int err;
    (void)end;
    if (s->grid && (err = reassign_grid_flush(s->grid, grid_emit, s, ei)) != SP_OK)
        return err;
    if ((err = keep_draw(s, ei)) != SP_OK)
        return err;
    if ((err = drawer_finish(&s->draw)) != SP_OK)
        return sp_fail(ei, err, "drawing the picture failed");
    if ((err = render_write_png(s->r, s->path, ei)) != SP_OK)
        return err;
    s->written = 1;
    return SP_OK;
}

/* Also after finish: an output that finishes later (the dump) failed, and no half of the
 * run's output may stay (a picture sent down a FIFO or to a device cannot be taken back). */
static void png_sink_abort(void *self)
{
    png_sink *s = self;
    drawer_finish(&s->draw);
    if (s->written)
        outfile_unpublish(s->path);
    s->written = 0;
}

static void png_sink_destroy(void *self)
{
    png_sink *s = self;
    if (!s)
        return;
    drawer_finish(&s->draw);
    render_destroy(s->r);
    reassign_grid_destroy(s->grid);
    free(s->run[0]);
    free(s->run[1]);
    for (size_t i = 0; i < s->nkept; i++)
        free(s->kept[i].rows);
    free(s->kept);
    free(s->coef);
    free(s);
}

static const sink_ops png_sink_ops = {
    .name = "png", .open = png_sink_open, .spectra = png_sink_spectra, .finish = png_sink_finish,
    .abort = png_sink_abort, .destroy = png_sink_destroy, .maxima = png_sink_maxima,
    .settle = png_sink_settle,
};

int sink_png_create(const char *path, const sink_options *opt, sink *out, sp_errinfo *ei)
{
    png_sink *s;
    if (!path || !*path || !opt || !opt->render || !out)
        return sp_fail(ei, SP_EINVAL, SP_FIELD("png") ": missing output path");
    if (!(s = calloc(1, sizeof *s)))
        return sp_fail(ei, SP_ENOMEM, "out of memory");
    s->path = path;
    s->rc = *opt->render;
    out->ops = &png_sink_ops;
    out->self = s;
    return SP_OK;
}
