/* The --compare output kinds: two files A and B read side by side (a pair of sources,
 * source_open_pair with compare: channel 0 the mix of A, channel 1 the mix of B), their
 * spectra and the difference B - A in dB
 *
 *   "compare"      with --average MODE --dump: the averaged spectra of A and B and their
 *                  difference per bin, shape (3, bins) (rows A, B, B - A); the sidecar adds
 *                  the files, the rows and the average (docs/formats.md "Compared files")
 *   "compare-png"  with --png: the spectrograms of A and B and, below them, the difference of
 *                  each frame, B - A, in the diverging colour map rdbu over -R .. R dB, R
 *                  the --db-range's width over 8 (a picture column shows the largest
 *                  difference of the frames it holds, + or -: render_config.fold_signed)
 *
 * The framer hands over channel 0's block, then channel 1's: A's block is kept until B's
 * comes (the difference is made per frame). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "colormap.h"
#include "dump.h"
#include "json.h"
#include "outfile.h"
#include "png_write.h"
#include "sink_table.h"

typedef struct {
    sink_head h;            /* first (sink_table.h): path, png, done, m, rc, d */
    sink_stream st;
    measure_accum *acc;     /* dump: the averages of A and B */
    render *pair, *diff;    /* png: A and B, the difference */
    float *held;            /* png: A's block, until B's comes; then the difference */
    size_t held_cap;
    char extra[2 * 4096 + 512];
    char title[1024];       /* png: the spectrograms' */
} compare_sink;

/* The difference panel's share of the picture's height: a third. */
static int diff_height(const compare_sink *s)
{
    return s->h.rc.height / 3;
}

static int open_png(compare_sink *s, sp_errinfo *ei)
{
    const sink_stream *st = &s->st;
    render_config a = s->h.rc, d = s->h.rc;
    float half = (s->h.rc.db_hi - s->h.rc.db_lo) / 8.0f;
    int err;
    if (!a.title) {
        const char *sa = strrchr(s->h.m.reference, '/'), *sb = strrchr(s->h.m.compared, '/');
        snprintf(s->title, sizeof s->title, "A (top): %s, B: %s  \xe2\x80\x94  %d Hz, N=%zu, hop=%zu, %s",
                 sa ? sa + 1 : s->h.m.reference, sb ? sb + 1 : s->h.m.compared, st->rate, st->n, st->hop, st->window);
        a.title = s->title;
    }
    a.height = s->h.rc.height - diff_height(s);
    d.height = diff_height(s);
    d.title = "B \xe2\x88\x92 A (dB)";
    d.db_lo = -half;
    d.db_hi = half;
    d.fold_signed = 1; /* a pixel shows its frames' largest difference, either side */
    d.level_unit = "dB";
    a.panel_labels = "A\nB";
    if ((err = colormap_parse("rdbu", &d.colormap, ei)) != SP_OK ||
        (err = render_create(&a, st->rate, st->n, st->time_first_s, st->time_step_s, 2, st->frames_hint, &s->pair,
                             ei)) != SP_OK)
        return err;
    return render_create(&d, st->rate, st->n, st->time_first_s, st->time_step_s, 1, st->frames_hint, &s->diff, ei);
}

static int compare_open(void *self, const sink_stream *st, sink_wants *wants, sp_errinfo *ei)
{
    compare_sink *s = self;
    int err;
    s->st = *st;
    s->st.window_coef = NULL;
    if (st->channels != 2)
        return sp_fail(ei, SP_EINVAL, SP_FIELD("compare") ": needs two files read side by side");
    if (s->h.png) {
        if ((err = open_png(s, ei)) != SP_OK)
            return err;
    } else {
        dump_config dc;
        if (measure_accum_create(s->h.m.average, 2, st->bins, &s->acc) != SP_OK)
            return sp_fail(ei, SP_ENOMEM, "out of memory");
        memset(&dc, 0, sizeof dc);
        dc.path = s->h.path;
        dc.channels = 3;
        dc.stacked = 1;
        dc.single = 1;
        dc.bins = st->bins;
        dc.bin_hz = st->bin_hz;
        if ((err = dump_open(&dc, &s->h.d, ei)) != SP_OK)
            return err;
    }
    wants->spectra = 1;
    return SP_OK;
}

/* png: A's block kept, B's made the difference B - A and drawn. */
static int add_png(compare_sink *s, int channel, uint64_t first, size_t nframes, const float *db, sp_errinfo *ei)
{
    size_t count = nframes * s->st.bins;
    int err = render_add(s->pair, channel, first, nframes, db);
    if (err != SP_OK)
        return sp_fail(ei, err, SP_FIELD("png") ": drawing failed");
    if (channel == 0) {
        if (nframes > s->held_cap) {
            float *h = realloc(s->held, count * sizeof *h);
            if (!h)
                return sp_fail(ei, SP_ENOMEM, "out of memory for %zu frames", nframes);
            s->held = h;
            s->held_cap = nframes;
        }
        memcpy(s->held, db, count * sizeof *db);
        return SP_OK;
    }
    for (size_t i = 0; i < count; i++)
        s->held[i] = db[i] - s->held[i];
    if ((err = render_add(s->diff, 0, first, nframes, s->held)) != SP_OK)
        return sp_fail(ei, err, SP_FIELD("png") ": drawing failed");
    return SP_OK;
}

static int compare_spectra(void *self, int channel, uint64_t first, size_t nframes, const float *db, sp_errinfo *ei)
{
    compare_sink *s = self;
    if (s->h.png)
        return add_png(s, channel, first, nframes, db, ei);
    measure_accum_add(s->acc, channel, nframes, db);
    return SP_OK;
}

static void sidecar_extra(compare_sink *s)
{
    FILE *f = fmemopen(s->extra, sizeof s->extra, "w");
    if (!f) {
        s->extra[0] = 0;
        return;
    }
    fputs(",\n  \"compare\": [", f);
    sp_json_string(f, s->h.m.reference);
    fputs(", ", f);
    sp_json_string(f, s->h.m.compared);
    fprintf(f, "],\n  \"rows\": [\"A\", \"B\", \"B - A\"],\n  \"average\": \"%s\",\n  \"frames_averaged\": %llu",
            measure_average_name((int)s->h.m.average), (unsigned long long)measure_accum_frames(s->acc, 1));
    fputc(0, f);
    fclose(f);
}

static int finish_dump(compare_sink *s, const sink_end *end, sp_errinfo *ei)
{
    size_t bins = s->st.bins;
    float *rows = malloc(3 * bins * sizeof *rows);
    dump_meta m;
    int err = SP_OK;
    if (!rows)
        return sp_fail(ei, SP_ENOMEM, "out of memory");
    measure_accum_db(s->acc, 0, 0.0, rows);
    measure_accum_db(s->acc, 1, 0.0, rows + bins);
    for (size_t k = 0; k < bins; k++)
        rows[2 * bins + k] = rows[bins + k] - rows[k];
    for (int c = 0; c < 3 && err == SP_OK; c++)
        err = dump_write(s->h.d, c, 0, 1, rows + (size_t)c * bins, ei);
    if (err == SP_OK) {
        sidecar_extra(s);
        m = sink_dump_meta(&s->st, end);
        m.channels = 3;
        m.extra = s->extra;
        err = dump_commit(s->h.d, &m, ei);
    }
    free(rows);
    return err;
}

/* The spectrograms over the difference, one picture. */
static int finish_png(compare_sink *s, sp_errinfo *ei)
{
    int w = s->h.rc.width, h = s->h.rc.height, hd = diff_height(s), err;
    uint8_t *rgba = malloc((size_t)w * (size_t)h * 4);
    if (!rgba)
        return sp_fail(ei, SP_ENOMEM, "out of memory for a %dx%d picture", w, h);
    if ((err = render_draw(s->pair, rgba, ei)) == SP_OK &&
        (err = render_draw(s->diff, rgba + (size_t)w * (size_t)(h - hd) * 4, ei)) == SP_OK)
        err = png_write_rgba(s->h.path, rgba, w, h, ei);
    free(rgba);
    return err;
}

static int compare_finish(void *self, const sink_end *end, sp_errinfo *ei)
{
    compare_sink *s = self;
    return sink_head_finished(&s->h, s->h.png ? finish_png(s, ei) : finish_dump(s, end, ei));
}

static void compare_destroy(void *self)
{
    compare_sink *s = self;
    if (!s)
        return;
    dump_destroy(s->h.d);
    render_destroy(s->pair);
    render_destroy(s->diff);
    measure_accum_destroy(s->acc);
    free(s->held);
    free(s);
}

static const sink_ops compare_ops = {
    .name = "compare", .open = compare_open, .spectra = compare_spectra, .finish = compare_finish,
    .abort = sink_head_abort, .destroy = compare_destroy,
};

static int compare_create(const char *path, const sink_options *opt, int png, sink *out, sp_errinfo *ei)
{
    return sink_head_create(sizeof(compare_sink), &compare_ops, path, opt, png, out, ei);
}

int sink_compare_create(const char *path, const sink_options *opt, sink *out, sp_errinfo *ei)
{
    return compare_create(path, opt, 0, out, ei);
}

int sink_compare_png_create(const char *path, const sink_options *opt, sink *out, sp_errinfo *ei)
{
    return compare_create(path, opt, 1, out, ei);
}
