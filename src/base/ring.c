#include "ring.h"

#include <string.h>

int ring_init(ring *r, float *storage, size_t capacity)
{
    if (!r || !storage || capacity < 2 || (capacity & (capacity - 1)) != 0)
        return SP_EINVAL;
    r->buf = storage;
    r->mask = capacity - 1;
    atomic_init(&r->head, 0);
    atomic_init(&r->tail, 0);
    return SP_OK;
}

size_t ring_capacity(const ring *r)
{
    return r->mask + 1;
}

size_t ring_writable(const ring *r)
{
    size_t head = atomic_load_explicit(&((ring *)r)->head, memory_order_relaxed);
    size_t tail = atomic_load_explicit(&((ring *)r)->tail, memory_order_acquire);
    return ring_capacity(r) - (head - tail);
}

size_t ring_readable(const ring *r)
{
    size_t tail = atomic_load_explicit(&((ring *)r)->tail, memory_order_relaxed);
    size_t head = atomic_load_explicit(&((ring *)r)->head, memory_order_acquire);
    return head - tail;
}

/* Copies n floats between linear memory and the ring starting at index idx, in at most two
 * pieces (the second after the wrap). */
static void copy_in(ring *r, size_t idx, const float *src, size_t n)
{
    size_t cap = ring_capacity(r), at = idx & r->mask;
    size_t first = n < cap - at ? n : cap - at;
    memcpy(r->buf + at, src, first * sizeof *src);
    memcpy(r->buf, src + first, (n - first) * sizeof *src);
}

static void copy_out(const ring *r, size_t idx, float *dst, size_t n)
{
    size_t cap = ring_capacity(r), at = idx & r->mask;
    size_t first = n < cap - at ? n : cap - at;
    memcpy(dst, r->buf + at, first * sizeof *dst);
    memcpy(dst + first, r->buf, (n - first) * sizeof *dst);
}

size_t ring_write(ring *r, const float *src, size_t n)
{
    size_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
    size_t tail = atomic_load_explicit(&r->tail, memory_order_acquire);
    size_t space = ring_capacity(r) - (head - tail);
    if (n > space)
        n = space;
    if (n == 0)
        return 0;
    copy_in(r, head, src, n);
    atomic_store_explicit(&r->head, head + n, memory_order_release);
    return n;
}

size_t ring_space(ring *r, float **p)
{
    size_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
    size_t tail = atomic_load_explicit(&r->tail, memory_order_acquire);
    size_t space = ring_capacity(r) - (head - tail), at = head & r->mask, run = ring_capacity(r) - at;
    *p = r->buf + at;
    return space < run ? space : run;
}

void ring_commit(ring *r, size_t n)
{
    size_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
    atomic_store_explicit(&r->head, head + n, memory_order_release);
}

size_t ring_read(ring *r, float *dst, size_t n)
{
    size_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
    size_t head = atomic_load_explicit(&r->head, memory_order_acquire);
    size_t avail = head - tail;
    if (n > avail)
        n = avail;
    if (n == 0)
        return 0;
    copy_out(r, tail, dst, n);
    atomic_store_explicit(&r->tail, tail + n, memory_order_release);
    return n;
}

size_t ring_peek(ring *r, const float **p)
{
    size_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
    size_t head = atomic_load_explicit(&r->head, memory_order_acquire);
    size_t avail = head - tail, at = tail & r->mask, run = ring_capacity(r) - at;
    *p = r->buf + at;
    return avail < run ? avail : run;
}

size_t ring_skip(ring *r, size_t n)
{
    size_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
    size_t head = atomic_load_explicit(&r->head, memory_order_acquire);
    size_t avail = head - tail;
    if (n > avail)
        n = avail;
    atomic_store_explicit(&r->tail, tail + n, memory_order_release);
    return n;
}
