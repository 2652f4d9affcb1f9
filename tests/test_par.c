/* test_par: the fork-join pool (par.h) runs every part once and returns after all of them,
 * also when two threads use it at once (one of them then runs its parts itself); and the
 * --peaks sink, which formats a block's lines in parts on it, writes the same text as one
 * printf per line, in frame order with the channels of each frame in order (--channel all),
 * the source's name first in a run over several files. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "par.h"
#include "sink_table.h"
#include "test_util.h"

#define ITEMS 100003

typedef struct {
    int *hits;   /* per item: how many parts touched it */
    int ran[SP_PAR_MAX];
} count_job;

static void count_part(void *ctx, int part, int parts)
{
    count_job *j = ctx;
    size_t a, b;
    sp_par_share(ITEMS, part, parts, &a, &b);
    for (size_t i = a; i < b; i++)
        __atomic_add_fetch(&j->hits[i], 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(&j->ran[part], 1, __ATOMIC_RELAXED);
}

static int run_and_check(void)
{
    count_job j;
    int ok = 1, parts = sp_par_parts(ITEMS, 1000);
    memset(&j, 0, sizeof j);
    if (!(j.hits = calloc(ITEMS, sizeof *j.hits)))
        return 0;
    sp_par_run(count_part, &j, parts);
    for (size_t i = 0; i < ITEMS; i++) /* every item once, and done by the time run returns */
        ok &= j.hits[i] == 1;
    for (int p = 0; p < SP_PAR_MAX; p++)
        ok &= j.ran[p] == (p < parts);
    free(j.hits);
    return ok;
}

static void *runner(void *arg)
{
    int *ok = arg;
    for (int k = 0; k < 200; k++)
        *ok &= run_and_check();
    return NULL;
}

static void test_pool(void)
{
    pthread_t t[3];
    int ok[3] = {1, 1, 1};
    CHECK(sp_par_parts(10, 64) == 1);
    CHECK(sp_par_parts(0, 64) == 1);
    CHECK(sp_par_parts(1000000, 1) >= 1 && sp_par_parts(1000000, 1) <= SP_PAR_MAX);
    for (int parts = 1; parts <= SP_PAR_MAX; parts++) { /* shares tile the items */
        size_t next = 0, a, b;
        for (int p = 0; p < parts; p++) {
            sp_par_share(ITEMS, p, parts, &a, &b);
            CHECK(a == next && b >= a);
            next = b;
        }
        CHECK(next == ITEMS);
    }
    CHECK(run_and_check());
    for (int i = 0; i < 3; i++) /* three callers at once: the busy pool's callers run inline */
        CHECK(pthread_create(&t[i], NULL, runner, &ok[i]) == 0);
    for (int i = 0; i < 3; i++) {
        pthread_join(t[i], NULL);
        CHECK(ok[i]);
    }
}

/* The sink's text for `frames` frames of `channels` channels in blocks of `block`, against
 * printf's. */
static void test_peaks_text(int channels, int label, size_t frames, size_t block)
{
    sink_options opt;
    sink s = {0};
    sink_wants w;
    sp_errinfo ei = {{0}};
    char *got = NULL, *want = NULL;
    size_t got_len = 0, want_len = 0;
    FILE *out = open_memstream(&got, &got_len), *ref = open_memstream(&want, &want_len);
    peak *pk = malloc(frames * (size_t)channels * sizeof *pk);
    sink_stream st = {.source = "dir/a b.wav", .rate = 48000, .source_channels = channels, .channels = channels,
                      .channel_name = channels > 1 ? "all" : "mix", .n = 1024, .hop = 7, .bins = 513,
                      .time_first_s = 1024 / 2 / 48000.0, .time_step_s = 7 / 48000.0, .bin_hz = 48000 / 1024.0,
                      .source_frames = -1, .frames_expected = -1, .frames_hint = -1};
    if (!out || !ref || !pk) {
        CHECK(0);
        return;
    }
    memset(&opt, 0, sizeof opt);
    memset(&w, 0, sizeof w);
    opt.out = out;
    opt.peaks_label_source = label;
    for (size_t i = 0; i < frames * (size_t)channels; i++) {
        pk[i].bin = (size_t)rng_range(1, 511);
        pk[i].freq_hz = rng_unit() * 24000.0;
        pk[i].db = -200.0 + rng_unit() * 200.0;
    }
    CHECK(sink_peaks_create(NULL, &opt, &s, &ei) == SP_OK);
    CHECK(s.ops->open(s.self, &st, &w, &ei) == SP_OK && w.peaks);
    for (size_t f0 = 0; f0 < frames; f0 += block) {
        size_t nf = frames - f0 < block ? frames - f0 : block;
        for (int c = 0; c < channels; c++) { /* the framer's order: channel after channel */
            peak blk[4096];
            for (size_t i = 0; i < nf; i++)
                blk[i] = pk[(f0 + i) * (size_t)channels + (size_t)c];
            CHECK(s.ops->peaks(s.self, c, f0, nf, blk, &ei) == SP_OK);
        }
    }
    CHECK(s.ops->finish(s.self, NULL, &ei) == SP_OK);
    for (size_t f = 0; f < frames; f++)
        for (int c = 0; c < channels; c++) {
            const peak *p = &pk[f * (size_t)channels + (size_t)c];
            if (label)
                fprintf(ref, "%s\t", st.source);
            if (channels > 1)
                fprintf(ref, "%d\t", c);
            fprintf(ref, "%.6f\t%.3f\t%.2f\n", st.time_first_s + (double)f * st.time_step_s, p->freq_hz, p->db);
        }
    fclose(out);
    fclose(ref);
    CHECK(got_len == want_len && memcmp(got, want, got_len) == 0);
    if (got_len != want_len)
        fprintf(stderr, "%d channels, label %d, blocks of %zu: %zu bytes, printf's %zu\n", channels, label, block,
                got_len, want_len);
    sink_destroy(&s);
    free(got);
    free(want);
    free(pk);
}

int main(void)
{
    tu_seed("test_par");
    test_pool();
    test_peaks_text(1, 0, 20000, 4096); /* blocks big enough for every part of the pool */
    test_peaks_text(3, 1, 9001, 4096);
    test_peaks_text(2, 0, 5000, 63);    /* the cpu backend's small blocks: one part */
    test_peaks_text(1, 1, 3, 4096);
    return check_done("test_par");
}
