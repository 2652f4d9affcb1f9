#include "view_store.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LEVELS 40
#define LIVE_MAX_FRAMES 65536
#define MIN_ENTRIES 16

/* One level of one channel: count entries of bins values, room for cap. */
typedef struct {
    int16_t *v;
    size_t count, cap;
} level;

typedef struct {
    level lv[MAX_LEVELS]; /* file: the pyramid; live: lv[0] is the ring (count unused) */
    uint64_t next;        /* frames added to this channel (highest index + 1) */
} chan;

struct view_store {
    int channels, live, nlevels;
    size_t bins;
    size_t base_cap; /* file: level-0 entries before a shift; live: ring frames */
    uint64_t fpc;    /* file: frames per level-0 entry */
    chan *ch;
    int16_t *tmp;    /* bins values: one converted frame */
};

static int16_t to_cdb(float db)
{
    /* 1.5 * 2^23: adding and taking it away rounds |v| < 2^22 to the nearest integer, ties to
     * even, as lrintf does in the default rounding mode, without lrintf's call (a dense file's
     * window converts 8193 values a frame) */
    const float round = 12582912.0f;
    float v = db * 100.0f;
    if (!(v > -32767.0f)) /* NaN too; never VIEW_STORE_NODATA */
        return VIEW_STORE_FLOOR;
    if (v > 32767.0f)
        return 32767;
    return (int16_t)((v + round) - round);
}

static void fill_nodata(int16_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i] = VIEW_STORE_NODATA;
}

static void max_into(int16_t *dst, const int16_t *src, size_t n)
{
    for (size_t i = 0; i < n; i++)
        dst[i] = src[i] > dst[i] ? src[i] : dst[i];
}

int view_store_create(int channels, size_t bins, int live, size_t budget, view_store **out, sp_errinfo *ei)
{
    view_store *s;
    size_t per_entry = bins * sizeof(int16_t) * (size_t)(channels > 0 ? channels : 1);
    if (!out || channels < 1 || bins < 1)
        return sp_fail(ei, SP_EINVAL, "view_store_create: bad arguments");
    *out = NULL;
    if (!(s = calloc(1, sizeof *s)))
        return sp_fail(ei, SP_ENOMEM, "out of memory");
    s->channels = channels;
    s->bins = bins;
    s->live = live;
    s->fpc = 1;
    if (live) {
        s->base_cap = budget / per_entry;
        if (s->base_cap > LIVE_MAX_FRAMES)
            s->base_cap = LIVE_MAX_FRAMES;
        s->nlevels = 1;
    } else {
        s->base_cap = budget / (2 * per_entry); /* the levels above add as much again */
        s->base_cap &= ~(size_t)1;
    }
    if (s->base_cap < MIN_ENTRIES)
        s->base_cap = MIN_ENTRIES;
    if (!live) /* from the final base_cap: a tiny budget still gets the levels it merges into */
        for (s->nlevels = 1; s->nlevels < MAX_LEVELS && (s->base_cap >> s->nlevels) >= 2; s->nlevels++)
            ;
    s->ch = calloc((size_t)channels, sizeof *s->ch);
    s->tmp = malloc(bins * sizeof *s->tmp);
    if (!s->ch || !s->tmp)
        goto fail;
    if (live)
        for (int c = 0; c < channels; c++) {
            level *l = &s->ch[c].lv[0];
            if (!(l->v = malloc(s->base_cap * bins * sizeof *l->v)))
                goto fail;
            l->cap = s->base_cap;
        }
    *out = s;
    return SP_OK;
fail:
    view_store_destroy(s);
    return sp_fail(ei, SP_ENOMEM, "out of memory for the window's spectra (%zu bins, %d channels)", bins, channels);
}

void view_store_destroy(view_store *s)
{
    if (!s)
        return;
    if (s->ch)
        for (int c = 0; c < s->channels; c++)
            for (int k = 0; k < MAX_LEVELS; k++)
                free(s->ch[c].lv[k].v);
    free(s->ch);
    free(s->tmp);
    free(s);
}

/* Room for one more entry in l (doubling, up to want entries). */
static int level_reserve(level *l, size_t bins, size_t want)
{
    size_t cap;
    int16_t *v;
    if (l->count < l->cap)
        return SP_OK;
    cap = l->cap ? l->cap * 2 : 64;
    if (cap > want)
        cap = want;
    if (cap <= l->count)
        cap = l->count + 1;
    if (!(v = realloc(l->v, cap * bins * sizeof *v)))
        return SP_ENOMEM;
    l->v = v;
    l->cap = cap;
    return SP_OK;
}

/* Entry j of level k is complete: when it closes a pair, level k+1 gets their maximum. */
static int propagate(view_store *s, chan *c, int k, size_t j)
{
    level *up;
    const int16_t *a, *b;
    int16_t *d;
    while ((j & 1) && k + 1 < s->nlevels) {
        up = &c->lv[k + 1];
        if (up->count != j / 2)
            return SP_OK; /* an earlier pair is missing (cannot happen in order) */
        if (level_reserve(up, s->bins, s->base_cap >> (k + 1)) != SP_OK)
            return SP_ENOMEM;
        a = c->lv[k].v + (j - 1) * s->bins;
        b = a + s->bins;
        d = up->v + up->count * s->bins;
        for (size_t i = 0; i < s->bins; i++)
            d[i] = a[i] > b[i] ? a[i] : b[i];
        up->count++;
        j /= 2;
        k++;
    }
    return SP_OK;
}

/* Level 0 is full: every level moves down one, fpc doubles (all channels together, so
 * entry j covers the same frames everywhere). */
static int shift_levels(view_store *s)
{
    for (int ci = 0; ci < s->channels; ci++) {
        chan *c = &s->ch[ci];
        int top = s->nlevels - 1;
        level *l0 = &c->lv[0], *l1 = &c->lv[1];
        /* a channel behind the others may hold entries not yet paired (the last one
         * still filling): they go up as level 1's last, partial entry */
        if (s->nlevels > 1 && l1->count < (l0->count + 1) / 2) {
            size_t j = l1->count * 2;
            int16_t *d;
            if (level_reserve(l1, s->bins, s->base_cap) != SP_OK)
                return SP_ENOMEM;
            d = l1->v + l1->count * s->bins;
            memcpy(d, l0->v + j * s->bins, s->bins * sizeof *d);
            if (j + 1 < l0->count)
                max_into(d, l0->v + (j + 1) * s->bins, s->bins);
            l1->count++;
        }
        free(c->lv[0].v);
        memmove(&c->lv[0], &c->lv[1], (MAX_LEVELS - 1) * sizeof c->lv[0]);
        memset(&c->lv[MAX_LEVELS - 1], 0, sizeof c->lv[0]);
        /* the top level starts empty: rebuild it from the one below, so that later
         * pairs land at their index (O(entries below), once per shift) */
        if (top > 0) {
            level *lo = &c->lv[top - 1], *up = &c->lv[top];
            for (size_t j = 1; j < lo->count; j += 2) {
                const int16_t *a = lo->v + (j - 1) * s->bins, *b = a + s->bins;
                int16_t *d;
                if (level_reserve(up, s->bins, s->base_cap >> top) != SP_OK)
                    return SP_ENOMEM;
                d = up->v + up->count * s->bins;
                for (size_t i = 0; i < s->bins; i++)
                    d[i] = a[i] > b[i] ? a[i] : b[i];
                up->count++;
            }
        }
    }
    s->fpc *= 2;
    return SP_OK;
}

/* Frames [f0, f1) of channel c, all in one level-0 entry once level 0 has room for f1-1:
 * their maximum v joins that entry (max is idempotent: frames already in do no harm). */
static int add_file_range(view_store *s, chan *c, uint64_t f0, uint64_t f1, const int16_t *v)
{
    level *l0 = &c->lv[0];
    size_t j;
    while ((f1 - 1) / s->fpc >= s->base_cap)
        if (shift_levels(s) != SP_OK)
            return SP_ENOMEM;
    j = (size_t)(f0 / s->fpc);
    if ((f1 - 1) / s->fpc != j)
        return SP_EINVAL; /* a group wider than an entry or across two */
    /* entries this channel never got (cannot happen for files) read as no data */
    while (l0->count <= j) {
        if (level_reserve(l0, s->bins, s->base_cap) != SP_OK)
            return SP_ENOMEM;
        if (l0->count == j) {
            memcpy(l0->v + j * s->bins, v, s->bins * sizeof *v);
            l0->count++;
            goto placed;
        }
        fill_nodata(l0->v + l0->count * s->bins, s->bins);
        l0->count++;
    }
    max_into(l0->v + j * s->bins, v, s->bins);
placed:
    if (f1 % s->fpc == 0)
        return propagate(s, c, 0, j);
    return SP_OK;
}

static void add_live_frame(view_store *s, chan *c, uint64_t f, const int16_t *v)
{
    int16_t *ring = c->lv[0].v;
    uint64_t cap = s->base_cap;
    /* skipped frames (the analysis fell behind) read as no data */
    uint64_t from = c->next, gap = f > from ? f - from : 0;
    if (gap > cap)
        from = f - cap, gap = cap;
    for (uint64_t g = 0; g < gap; g++)
        fill_nodata(ring + (size_t)((from + g) % cap) * s->bins, s->bins);
    memcpy(ring + (size_t)(f % cap) * s->bins, v, s->bins * sizeof *v);
}

int view_store_add(view_store *s, int channel, uint64_t first, size_t nframes, const float *db)
{
    chan *c;
    if (!s || channel < 0 || channel >= s->channels || (!db && nframes))
        return SP_EINVAL;
    c = &s->ch[channel];
    for (size_t i = 0; i < nframes; i++) {
        uint64_t f = first + i;
        const float *src = db + i * s->bins;
        if (f < c->next)
            continue; /* out of order: the store keeps time moving forward */
        for (size_t k = 0; k < s->bins; k++)
            s->tmp[k] = to_cdb(src[k]);
        if (s->live)
            add_live_frame(s, c, f, s->tmp);
        else if (add_file_range(s, c, f, f + 1, s->tmp) != SP_OK)
            return SP_ENOMEM;
        c->next = f + 1;
    }
    return SP_OK;
}

int view_store_add_max(view_store *s, int channel, uint64_t f0, uint64_t f1, const float *db)
{
    chan *c;
    int err;
    if (!s || channel < 0 || channel >= s->channels || !db || f1 <= f0 || (s->live && f1 - f0 > 1))
        return SP_EINVAL;
    c = &s->ch[channel];
    if (f1 <= c->next)
        return SP_OK; /* out of order: the store keeps time moving forward */
    for (size_t k = 0; k < s->bins; k++)
        s->tmp[k] = to_cdb(db[k]); /* monotonic: the maximum's level is the levels' maximum */
    if (s->live)
        add_live_frame(s, c, f0, s->tmp);
    else if ((err = add_file_range(s, c, f0, f1, s->tmp)) != SP_OK)
        return err;
    c->next = f1;
    return SP_OK;
}

uint64_t view_store_expect(view_store *s, uint64_t frames)
{
    if (!s)
        return 0;
    if (s->live || view_store_frames(s) > 0)
        return s->live ? 1 : s->fpc;
    while (frames > s->base_cap * s->fpc && s->fpc < ((uint64_t)1 << 40))
        s->fpc *= 2;
    return s->fpc;
}

const int16_t *view_store_level(const view_store *s, int channel, int k, size_t *count)
{
    *count = 0;
    if (!s || s->live || channel < 0 || channel >= s->channels || k < 0 || k >= s->nlevels)
        return NULL;
    *count = s->ch[channel].lv[k].count;
    return s->ch[channel].lv[k].v;
}

uint64_t view_store_frames(const view_store *s)
{
    uint64_t f = 0;
    if (!s)
        return 0;
    for (int c = 0; c < s->channels; c++)
        f = s->ch[c].next > f ? s->ch[c].next : f;
    return f;
}

uint64_t view_store_oldest(const view_store *s)
{
    uint64_t f;
    if (!s || !s->live)
        return 0;
    f = view_store_frames(s);
    return f > s->base_cap ? f - s->base_cap : 0;
}

uint64_t view_store_capacity(const view_store *s)
{
    return !s ? 0 : s->live ? s->base_cap : s->fpc;
}

int view_store_entry_state(const view_store *s, int channel, int64_t f0, uint64_t span)
{
    uint64_t next, oldest;
    int64_t f1 = f0 + (int64_t)span;
    if (!s || !s->live || channel < 0 || channel >= s->channels)
        return VIEW_STORE_OPEN;
    next = s->ch[channel].next;
    oldest = next > s->base_cap ? next - s->base_cap : 0; /* as view_store_get reads */
    if (f1 <= 0 || f1 <= (int64_t)oldest)
        return VIEW_STORE_GONE;
    if (f1 > (int64_t)next || (f0 > 0 ? f0 : 0) < (int64_t)oldest)
        return VIEW_STORE_OPEN;
    return VIEW_STORE_HELD;
}

uint64_t view_store_span(const view_store *s, uint64_t frames, size_t max_entries)
{
    uint64_t span;
    if (!s || max_entries == 0)
        return 1;
    span = s->live ? 1 : s->fpc;
    while (span * max_entries < frames && span < ((uint64_t)1 << 62))
        span *= 2;
    return span;
}

/* Max of frames [a, b) of channel c into dst (already floor-filled). */
static void file_range_max(const view_store *s, const chan *c, uint64_t a, uint64_t b, int16_t *dst)
{
    uint64_t end = c->next < b ? c->next : b, p = a;
    while (p < end) {
        int k = s->nlevels - 1;
        uint64_t unit;
        size_t j;
        /* the largest aligned entry that starts at p, fits before b and exists */
        for (; k > 0; k--) {
            unit = s->fpc << k;
            if (p % unit == 0 && p + unit <= b && p / unit < c->lv[k].count)
                break;
        }
        unit = s->fpc << k;
        j = (size_t)(p / unit);
        if (j >= c->lv[k].count)
            return;
        max_into(dst, c->lv[k].v + j * s->bins, s->bins);
        p = (p / unit + 1) * unit;
    }
}

void view_store_get(const view_store *s, int channel, int64_t f0, uint64_t span, size_t count, int16_t *out)
{
    const chan *c;
    uint64_t oldest;
    if (!s || !out || channel < 0 || channel >= s->channels || span == 0)
        return;
    c = &s->ch[channel];
    oldest = c->next > s->base_cap && s->live ? c->next - s->base_cap : 0;
    for (size_t i = 0; i < count; i++) {
        int16_t *dst = out + i * s->bins;
        int64_t a = f0 + (int64_t)(i * span), b = a + (int64_t)span;
        fill_nodata(dst, s->bins);
        if (b <= 0)
            continue;
        if (a < 0)
            a = 0;
        if (s->live) {
            uint64_t lo = (uint64_t)a > oldest ? (uint64_t)a : oldest;
            uint64_t hi = (uint64_t)b < c->next ? (uint64_t)b : c->next;
            for (uint64_t f = lo; f < hi; f++)
                max_into(dst, c->lv[0].v + (size_t)(f % s->base_cap) * s->bins, s->bins);
        } else {
            file_range_max(s, c, (uint64_t)a, (uint64_t)b, dst);
        }
    }
}
