/* test_ring: the SPSC ring buffer. Capacity validation, single-thread wrap-around with odd
 * block sizes against a model (order, readable/writable, skip), and a two-thread
 * producer/consumer stress that checks every sample in order (run it under TSan too).
 *
 * Usage: test_ring [N]   N = samples in the stress (default 20000000; env SPECTRO_RING_N).
 * The random seed is printed; SPECTRO_TEST_SEED=... repeats a run. */
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "ring.h"
#include "test_util.h"

/* Values are exact integers in float below 2^24. */
#define VAL_MOD ((size_t)1 << 24)
static float val_of(size_t i)
{
    return (float)(i % VAL_MOD);
}

/* ---- init ------------------------------------------------------------------------------- */

static void test_init(void)
{
    static float store[4096];
    ring r;
    const size_t bad[] = {0, 1, 3, 5, 6, 7, 12, 100, 1000, 4095};
    const size_t good[] = {2, 4, 8, 64, 1024, 4096};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECK_MSG(ring_init(&r, store, bad[i]) == SP_EINVAL, "capacity %zu accepted", bad[i]);
    CHECK(ring_init(&r, NULL, 64) == SP_EINVAL);
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        int err = ring_init(&r, store, good[i]);
        CHECK_MSG(err == SP_OK, "capacity %zu rejected (%d)", good[i], err);
        if (err != SP_OK)
            continue;
        CHECK(ring_capacity(&r) == good[i]);
        CHECK(ring_readable(&r) == 0);
        CHECK(ring_writable(&r) == good[i]);
    }
}

/* ---- one thread, against a model --------------------------------------------------------- */

/* Fills the ring exactly, reads it exactly, then the same at an offset so that every copy
 * wraps: the smallest capacities and the edge cases. */
static void test_full_empty(void)
{
    float store[8], out[16], in[16];
    ring r;
    for (size_t i = 0; i < 16; i++)
        in[i] = (float)(i + 1);
    CHECK(ring_init(&r, store, 8) == SP_OK);
    CHECK(ring_write(&r, in, 16) == 8); /* only capacity fits */
    CHECK(ring_writable(&r) == 0);
    CHECK(ring_readable(&r) == 8);
    CHECK(ring_write(&r, in, 1) == 0);
    memset(out, 0, sizeof out);
    CHECK(ring_read(&r, out, 16) == 8);
    for (size_t i = 0; i < 8; i++)
        CHECK(out[i] == in[i]);
    CHECK(ring_read(&r, out, 1) == 0);
    CHECK(ring_skip(&r, 5) == 0);
    CHECK(ring_write(&r, in, 0) == 0);
    CHECK(ring_read(&r, out, 0) == 0);
    /* offset by 5, then a full write wraps */
    CHECK(ring_write(&r, in, 5) == 5);
    CHECK(ring_skip(&r, 5) == 5);
    CHECK(ring_write(&r, in, 8) == 8);
    memset(out, 0, sizeof out);
    CHECK(ring_read(&r, out, 8) == 8);
    for (size_t i = 0; i < 8; i++)
        CHECK(out[i] == in[i]);
    CHECK(ring_readable(&r) == 0);
    CHECK(ring_writable(&r) == 8);
}

static void test_single_thread(void)
{
    enum { CAP = 1024, ROUNDS = 20000 };
    static float store[CAP], in[2048], out[2048];
    static const size_t odd[] = {1, 3, 7, 13, 31, 127, 509, 1021, 1023, 1025, 2047};
    ring r;
    size_t written = 0, consumed = 0; /* model: next value to write, next value to read */
    int order_bad = 0, count_bad = 0;

    CHECK(ring_init(&r, store, CAP) == SP_OK);
    for (int round = 0; round < ROUNDS; round++) {
        size_t level = written - consumed, op = rng_next() % 5;
        size_t n = (rng_next() & 1) ? odd[rng_next() % (sizeof odd / sizeof odd[0])]
                                    : rng_range(0, 1200) | 1;
        if (ring_readable(&r) != level || ring_writable(&r) != CAP - level)
            count_bad++;
        if (op == 0) {
            size_t expect = n < CAP - level ? n : CAP - level, got;
            for (size_t i = 0; i < n; i++)
                in[i] = val_of(written + i);
            got = ring_write(&r, in, n);
            if (got != expect)
                count_bad++;
            written += got;
        } else if (op == 1) {
            size_t expect = n < level ? n : level, got;
            got = ring_read(&r, out, n);
            if (got != expect)
                count_bad++;
            for (size_t i = 0; i < got; i++)
                if (out[i] != val_of(consumed + i))
                    order_bad++;
            consumed += got;
        } else if (op == 2) {
            size_t k = n / 3, expect = k < level ? k : level, got = ring_skip(&r, k);
            if (got != expect)
                count_bad++;
            consumed += got;
        } else if (op == 4) { /* written in place: the free run up to the wrap, part of it committed */
            float *p = NULL;
            size_t at = written % CAP, run = CAP - at, expect = CAP - level < run ? CAP - level : run;
            size_t got = ring_space(&r, &p), k = got ? rng_range(0, got) : 0;
            if (got != expect || (got && p != store + at))
                count_bad++;
            for (size_t i = 0; p && i < k && i < expect; i++)
                p[i] = val_of(written + i);
            if (ring_readable(&r) != level) /* nothing is seen before the commit */
                count_bad++;
            ring_commit(&r, k);
            written += k;
        } else { /* in place: the run up to the wrap, then part of it skipped */
            const float *p = NULL;
            size_t at = consumed % CAP, run = CAP - at, expect = level < run ? level : run;
            size_t got = ring_peek(&r, &p), k = got ? rng_range(0, got) : 0;
            if (got != expect || (got && p != store + at))
                count_bad++;
            for (size_t i = 0; p && i < got && i < expect; i++)
                if (p[i] != val_of(consumed + i))
                    order_bad++;
            if (ring_skip(&r, k) != k)
                count_bad++;
            consumed += k;
        }
    }
    CHECK_MSG(order_bad == 0, "%d samples out of order", order_bad);
    CHECK_MSG(count_bad == 0, "%d wrong counts (readable/writable/returned)", count_bad);
    CHECK_MSG(written > 10 * CAP, "too little traffic to wrap: %zu", written);
}

/* ---- two threads -------------------------------------------------------------------------- */

typedef struct {
    ring *r;
    size_t n;
    uint64_t seed;
    size_t bad_order, first_bad, over_cap, total;
} stress;

static void *producer_main(void *arg)
{
    stress *s = arg;
    uint64_t rng = s->seed;
    float block[1100];
    size_t next = 0;
    while (next < s->n) {
        size_t want = rng_range_at(&rng, 0, 1099) | 1, off = 0; /* odd, 1..1099 */
        if (want > s->n - next)
            want = s->n - next;
        for (size_t i = 0; i < want; i++)
            block[i] = val_of(next + i);
        if (rng_next_at(&rng) % 4 == 0) { /* in place, as a file's reader decodes: up to the wrap */
            while (off < want) {
                float *p;
                size_t w = ring_space(s->r, &p);
                if (w > want - off)
                    w = want - off;
                memcpy(p, block + off, w * sizeof *p);
                ring_commit(s->r, w);
                if (w == 0)
                    sched_yield();
                off += w;
            }
        }
        while (off < want) {
            size_t w = ring_write(s->r, block + off, want - off);
            if (w == 0)
                sched_yield();
            off += w;
        }
        next += want;
    }
    return NULL;
}

static void *consumer_main(void *arg)
{
    stress *s = arg;
    uint64_t rng = s->seed * 0x9E3779B97F4A7C15ULL + 1;
    float block[1500];
    size_t next = 0;
    while (next < s->n) {
        size_t want = rng_range_at(&rng, 1, 1500), got, avail = ring_readable(s->r);
        if (avail > ring_capacity(s->r))
            s->over_cap++;
        if (rng_next_at(&rng) % 8 == 0) /* read exactly what is said to be there */
            want = avail ? (avail < 1500 ? avail : 1500) : 1;
        int peeked = rng_next_at(&rng) % 4 == 0;
        if (peeked) { /* in place, as the analysis reads a file: up to the wrap only */
            const float *p;
            got = ring_peek(s->r, &p);
            if (got > want)
                got = want;
            memcpy(block, p, got * sizeof *p);
            ring_skip(s->r, got);
        } else {
            got = ring_read(s->r, block, want);
        }
        if (got == 0) {
            sched_yield();
            continue;
        }
        if (got < want && avail >= want && !peeked)
            s->over_cap++; /* readable promised more than read delivered */
        for (size_t i = 0; i < got; i++) {
            if (block[i] != val_of(next + i)) {
                if (!s->bad_order)
                    s->first_bad = next + i;
                s->bad_order++;
            }
        }
        next += got;
    }
    s->total = next;
    return NULL;
}

static void test_threads(uint64_t seed, size_t n)
{
    enum { CAP = 4096 };
    static float store[CAP];
    ring r;
    stress s;
    pthread_t prod, cons;
    struct timespec t0, t1;
    float spare;

    CHECK(ring_init(&r, store, CAP) == SP_OK);
    memset(&s, 0, sizeof s);
    s.r = &r;
    s.n = n;
    s.seed = seed;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    CHECK(pthread_create(&cons, NULL, consumer_main, &s) == 0);
    CHECK(pthread_create(&prod, NULL, producer_main, &s) == 0);
    pthread_join(prod, NULL);
    pthread_join(cons, NULL);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    CHECK_MSG(s.bad_order == 0, "%zu samples wrong, the first at index %zu", s.bad_order, s.first_bad);
    CHECK_MSG(s.over_cap == 0, "readable() out of bounds %zu times", s.over_cap);
    CHECK_MSG(s.total == n, "consumer read %zu of %zu samples", s.total, n);
    CHECK(ring_readable(&r) == 0);
    CHECK(ring_writable(&r) == CAP);
    CHECK(ring_read(&r, &spare, 1) == 0);
    printf("stress: %zu samples through a %d-sample ring in %.2f s\n", n, CAP,
           (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));
}

int main(int argc, char **argv)
{
    const char *env = getenv("SPECTRO_RING_N");
    size_t n = 20000000;
    tu_seed("test_ring");
    if (argc > 1)
        n = strtoull(argv[1], NULL, 10);
    else if (env && *env)
        n = strtoull(env, NULL, 10);
    printf("test_ring: N %zu\n", n);
    test_init();
    test_full_empty();
    test_single_thread();
    test_threads(rng_next() | 1, n);
    return check_done("test_ring");
}
