/* test_stft: the framer on the cpu backend. Frame counts for many (L, n, hop) including
 * hop > n, hop = 1, L = n and L < n (one zero-padded frame); every frame's spectrum against
 * fft_stft_db on that frame directly (bit for bit); pushes split into random blocks and
 * batch sizes 1, 3 and max giving identical spectra; channel mix / select / all; the sink's
 * frame numbering; stft_flush; bad configurations and sink errors; a reduction
 * (stft_set_reduce) handing over the host scan's records, with the spectra or without;
 * a stop (stft_set_stop) seen between FFT calls. The random seed is printed; SPECTRO_TEST_SEED=... repeats a run. */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fft.h"
#include "stft.h"
#include "test_util.h"
#include "window.h"

#define MAX_BATCH 16
#define MAX_OUT 8

/* ---- random numbers ------------------------------------------------------------------- */

static float rng_dyadic(void) /* k/4096, |k| <= 4096: sums and halvings stay exact */
{
    return (float)((int)rng_range(0, 8192) - 4096) / 4096.0f;
}

/* ---- a collecting sink ------------------------------------------------------------------ */

typedef struct {
    size_t bins;
    int outs;
    float *db[MAX_OUT];
    size_t cap[MAX_OUT];
    uint64_t count[MAX_OUT]; /* frames received per channel */
    int bad_channel, bad_first, bad_size;
    size_t calls, max_nframes;
    size_t fail_at_call; /* 1-based call that returns SP_EIO; 0 = never */
    atomic_int *stop;     /* set at call stop_at_call (1-based), as a signal would */
    size_t stop_at_call;
} collector;

static void collector_init(collector *c, size_t bins, int outs)
{
    memset(c, 0, sizeof *c);
    c->bins = bins;
    c->outs = outs;
}

static void collector_free(collector *c)
{
    for (int i = 0; i < MAX_OUT; i++)
        free(c->db[i]);
    memset(c, 0, sizeof *c);
}

static int collect(void *user, int channel, uint64_t first, size_t nframes, const float *db)
{
    collector *c = user;
    c->calls++;
    if (c->fail_at_call && c->calls == c->fail_at_call)
        return SP_EIO;
    if (c->stop && c->calls == c->stop_at_call)
        atomic_store(c->stop, SIGINT);
    if (channel < 0 || channel >= c->outs) {
        c->bad_channel++;
        return SP_OK;
    }
    if (first != c->count[channel])
        c->bad_first++;
    if (nframes == 0 || nframes > MAX_BATCH)
        c->bad_size++;
    if (nframes > c->max_nframes)
        c->max_nframes = nframes;
    {
        size_t need = (size_t)(c->count[channel] + nframes) * c->bins;
        if (need > c->cap[channel]) {
            size_t cap = need * 2;
            float *p = realloc(c->db[channel], cap * sizeof *p);
            if (!p)
                return SP_ENOMEM;
            c->db[channel] = p;
            c->cap[channel] = cap;
        }
        memcpy(c->db[channel] + (size_t)c->count[channel] * c->bins, db, nframes * c->bins * sizeof *db);
    }
    c->count[channel] += nframes;
    return SP_OK;
}

/* ---- helpers ---------------------------------------------------------------------------- */

static float window_buf[4096];

static fft_plan *make_plan(size_t n, size_t hop, size_t max_batch, int hann)
{
    window_spec ws = window_spec_default();
    if (hann)
        window_fill(&ws, n, window_buf, NULL);
    return tu_plan(FFT_BACKEND_CPU, n, hop, hann ? window_buf : NULL, max_batch);
}

static size_t expected_frames(size_t L, size_t n, size_t hop)
{
    return L < n ? 1 : (L - n) / hop + 1;
}

/* Pushes L interleaved frames in blocks (all at once when `random_blocks` is 0), then
 * finishes. Returns the first error. */
static int run(stft *s, const float *in, int ch, size_t L, int random_blocks, sp_errinfo *ei)
{
    size_t off = 0;
    while (off < L) {
        size_t take = random_blocks ? rng_range(1, (rng_next() & 3) ? 37 : 700) : L;
        int err;
        if (take > L - off)
            take = L - off;
        if ((err = stft_push(s, in + off * (size_t)ch, take, ei)) != SP_OK)
            return err;
        off += take;
    }
    return stft_finish(s, ei);
}

/* Runs a whole stream through a fresh stft into c. */
static int analyse(fft_plan *plan, const stft_config *cfg, const float *in, size_t L, int random_blocks,
                   collector *c)
{
    stft *s = NULL;
    sp_errinfo ei = {{0}};
    int err = stft_create(cfg, plan, collect, c, &s, &ei);
    CHECK_MSG(err == SP_OK, "stft_create: %d %s", err, ei.msg);
    if (err != SP_OK)
        return err;
    err = run(s, in, cfg->in_channels, L, random_blocks, &ei);
    CHECK_MSG(err == SP_OK, "stft run: %d %s", err, ei.msg);
    CHECK(stft_samples(s) == L);
    CHECK(stft_frames(s) == c->count[0]);
    stft_destroy(s);
    return err;
}

/* Every frame of a mono signal against fft_stft_db on the frame itself (a 1-frame plan);
 * returns the number of frames that differ in any bit. */
static size_t compare_reference(fft_plan *ref, const float *mono, size_t L, size_t n, size_t hop,
                                const float *got, size_t frames)
{
    size_t bins = n / 2 + 1, bad = 0;
    float *want = malloc(bins * sizeof *want), *pad = NULL;
    if (L < n) { /* the zero-padded frame */
        pad = calloc(n, sizeof *pad);
        memcpy(pad, mono, L * sizeof *pad);
    }
    for (size_t f = 0; f < frames; f++) {
        const float *frame = pad ? pad : mono + f * hop;
        for (size_t k = 0; k < bins; k++)
            want[k] = NAN; /* poisoned */
        if (fft_stft_db(ref, frame, 1, want) != SP_OK || memcmp(want, got + f * bins, bins * sizeof *want) != 0)
            bad++;
    }
    free(want);
    free(pad);
    return bad;
}

/* ---- frame counts, spectra, blocks and batch sizes ------------------------------------- */

static void test_counts(void)
{
    const size_t sizes[] = {16, 32, 64, 128};
    size_t combos = 0, frames_total = 0;
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        const size_t n = sizes[si];
        const size_t hops[] = {1, 2, 3, 5, n / 4, n / 2, n - 1, n, n + 1, 2 * n + 3, 5 * n, rng_range(1, 3 * n)};
        for (size_t hi = 0; hi < sizeof hops / sizeof hops[0]; hi++) {
            const size_t hop = hops[hi];
            const size_t lens[] = {1, n - 1, n, n + 1, n + hop - 1, n + hop, n + 7 * hop + 1, rng_range(1, n),
                                   rng_range(n, 3000)};
            fft_plan *plan = make_plan(n, hop, MAX_BATCH, hi & 1);
            fft_plan *ref = make_plan(n, hop, 1, hi & 1);
            if (!plan || !ref) {
                fft_plan_destroy(plan);
                fft_plan_destroy(ref);
                continue;
            }
            for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
                const size_t L = lens[li], want = expected_frames(L, n, hop);
                const size_t batches[] = {1, 3, MAX_BATCH};
                float *sig = malloc(L * sizeof *sig);
                collector whole, split;
                stft_config cfg = stft_config_default();
                for (size_t i = 0; i < L; i++)
                    sig[i] = (float)rng_signed();
                cfg.n = n;
                cfg.hop = hop;
                cfg.in_channels = 1;
                cfg.channel = STFT_CHANNEL_MIX;

                /* one big push, largest batch */
                cfg.batch = MAX_BATCH;
                collector_init(&whole, n / 2 + 1, 1);
                analyse(plan, &cfg, sig, L, 0, &whole);
                CHECK_MSG(whole.count[0] == want, "n %zu hop %zu L %zu: %llu frames, expected %zu", n, hop, L,
                          (unsigned long long)whole.count[0], want);
                CHECK(whole.bad_first == 0 && whole.bad_channel == 0 && whole.bad_size == 0);
                if (whole.count[0] == want) {
                    size_t bad = compare_reference(ref, sig, L, n, hop, whole.db[0], want);
                    CHECK_MSG(bad == 0, "n %zu hop %zu L %zu: %zu of %zu frames differ from fft_stft_db", n, hop,
                              L, bad, want);
                }

                /* random blocks, batch 1, 3 or max: bit-identical to the big push */
                cfg.batch = batches[rng_range(0, 2)];
                collector_init(&split, n / 2 + 1, 1);
                analyse(plan, &cfg, sig, L, 1, &split);
                CHECK_MSG(split.count[0] == want, "n %zu hop %zu L %zu batch %zu (split): %llu frames, expected %zu",
                          n, hop, L, cfg.batch, (unsigned long long)split.count[0], want);
                CHECK(split.bad_first == 0 && split.bad_channel == 0 && split.bad_size == 0);
                CHECK(split.max_nframes <= cfg.batch);
                if (split.count[0] == want && whole.count[0] == want)
                    CHECK_MSG(memcmp(split.db[0], whole.db[0], want * (n / 2 + 1) * sizeof(float)) == 0,
                              "n %zu hop %zu L %zu batch %zu: split pushes differ from one push", n, hop, L,
                              cfg.batch);
                combos++;
                frames_total += want;
                collector_free(&whole);
                collector_free(&split);
                free(sig);
            }
            fft_plan_destroy(plan);
            fft_plan_destroy(ref);
        }
    }
    printf("counts: %zu (n, hop, L) combinations, %zu frames\n", combos, frames_total);
}

/* Batch sizes 1, 3 and max on one long signal, every one split into random blocks. */
static void test_batches(void)
{
    const size_t n = 256, hop = 64, L = 20000 + rng_range(0, 5000), want = expected_frames(L, n, hop);
    const size_t batches[] = {1, 3, MAX_BATCH};
    fft_plan *plan = make_plan(n, hop, MAX_BATCH, 1), *ref = make_plan(n, hop, 1, 1);
    float *sig = malloc(L * sizeof *sig);
    for (size_t i = 0; i < L; i++)
        sig[i] = (float)rng_signed();
    for (size_t b = 0; plan && ref && b < 3; b++) {
        collector c;
        stft_config cfg = stft_config_default();
        cfg.n = n;
        cfg.hop = hop;
        cfg.batch = batches[b];
        collector_init(&c, n / 2 + 1, 1);
        analyse(plan, &cfg, sig, L, 1, &c);
        CHECK_MSG(c.count[0] == want, "batch %zu: %llu frames, expected %zu", cfg.batch,
                  (unsigned long long)c.count[0], want);
        CHECK(c.bad_first == 0 && c.max_nframes <= cfg.batch);
        if (cfg.batch == MAX_BATCH)
            CHECK_MSG(c.max_nframes == MAX_BATCH, "a long stream never filled a batch of %d", MAX_BATCH);
        if (c.count[0] == want)
            CHECK_MSG(compare_reference(ref, sig, L, n, hop, c.db[0], want) == 0, "batch %zu: spectra differ",
                      cfg.batch);
        collector_free(&c);
    }
    free(sig);
    fft_plan_destroy(plan);
    fft_plan_destroy(ref);
}

/* ---- channels ------------------------------------------------------------------------- */

/* amplitude view of a dB spectrum, for comparisons with a tolerance */
static double amp(float db)
{
    return pow(10.0, (double)db / 20.0);
}

static void test_channels(void)
{
    const size_t n = 64, hop = 24, L = 1500 + rng_range(0, 1500), want = expected_frames(L, n, hop);
    const size_t bins = n / 2 + 1;
    fft_plan *plan = make_plan(n, hop, MAX_BATCH, 1);
    const int chans[] = {2, 4, 3};
    if (!plan)
        return;

    for (size_t ci = 0; ci < 3; ci++) {
        const int ch = chans[ci];
        const int exact = ch != 3; /* 2 and 4 channels of k/4096 values average exactly */
        float *in = malloc(L * (size_t)ch * sizeof *in);
        float *mono = malloc(L * sizeof *mono);
        collector mix, ref, sel, all;
        stft_config cfg = stft_config_default();
        int K = (int)rng_range(0, (size_t)ch - 1);

        for (size_t i = 0; i < L * (size_t)ch; i++)
            in[i] = exact ? rng_dyadic() : (float)rng_signed();
        for (size_t i = 0; i < L; i++) {
            double acc = 0.0;
            for (int c = 0; c < ch; c++)
                acc += in[i * (size_t)ch + (size_t)c];
            mono[i] = (float)(acc / ch);
        }
        cfg.n = n;
        cfg.hop = hop;
        cfg.batch = rng_range(1, MAX_BATCH);

        /* mix = mean: against a mono stream of the mean */
        cfg.in_channels = 1;
        cfg.channel = STFT_CHANNEL_MIX;
        collector_init(&ref, bins, 1);
        analyse(plan, &cfg, mono, L, 1, &ref);
        cfg.in_channels = ch;
        collector_init(&mix, bins, 1);
        analyse(plan, &cfg, in, L, 1, &mix);
        CHECK(mix.count[0] == want && ref.count[0] == want);
        CHECK(mix.bad_first == 0 && mix.bad_channel == 0);
        if (mix.count[0] == want && ref.count[0] == want) {
            if (exact) {
                CHECK_MSG(memcmp(mix.db[0], ref.db[0], want * bins * sizeof(float)) == 0,
                          "%d channels: the mix differs from a mono stream of the mean", ch);
            } else {
                double peak = 0.0, worst = 0.0;
                for (size_t i = 0; i < want * bins; i++)
                    if (amp(ref.db[0][i]) > peak)
                        peak = amp(ref.db[0][i]);
                for (size_t i = 0; i < want * bins; i++) {
                    double e = fabs(amp(mix.db[0][i]) - amp(ref.db[0][i]));
                    if (e > worst)
                        worst = e;
                }
                CHECK_MSG(worst <= 1e-5 * peak, "%d channels: the mix differs from the mean by %.3g (peak %.3g)", ch,
                          worst, peak);
            }
        }

        /* select K: against a mono stream of channel K */
        for (size_t i = 0; i < L; i++)
            mono[i] = in[i * (size_t)ch + (size_t)K];
        cfg.in_channels = 1;
        cfg.channel = STFT_CHANNEL_MIX;
        collector_free(&ref);
        collector_init(&ref, bins, 1);
        analyse(plan, &cfg, mono, L, 1, &ref);
        cfg.in_channels = ch;
        cfg.channel = K;
        collector_init(&sel, bins, 1);
        analyse(plan, &cfg, in, L, 1, &sel);
        CHECK(sel.count[0] == want && sel.bad_first == 0 && sel.bad_channel == 0);
        if (sel.count[0] == want && ref.count[0] == want)
            CHECK_MSG(memcmp(sel.db[0], ref.db[0], want * bins * sizeof(float)) == 0,
                      "%d channels: --channel %d differs from that channel alone", ch, K);

        /* all: one sink stream per channel, each equal to that channel alone */
        {
            stft *s = NULL;
            sp_errinfo ei = {{0}};
            cfg.channel = STFT_CHANNEL_ALL;
            collector_init(&all, bins, ch);
            CHECK(stft_create(&cfg, plan, collect, &all, &s, &ei) == SP_OK);
            if (s) {
                CHECK(stft_out_channels(s) == ch);
                CHECK(run(s, in, ch, L, 1, &ei) == SP_OK);
                CHECK(stft_frames(s) == want);
                stft_destroy(s);
            }
            CHECK_MSG(all.bad_channel == 0 && all.bad_first == 0 && all.bad_size == 0,
                      "all: %d bad channel indices, %d bad first-frame numbers", all.bad_channel, all.bad_first);
            for (int c = 0; c < ch; c++) {
                collector one;
                CHECK_MSG(all.count[c] == want, "all: channel %d got %llu frames, expected %zu", c,
                          (unsigned long long)all.count[c], want);
                for (size_t i = 0; i < L; i++)
                    mono[i] = in[i * (size_t)ch + (size_t)c];
                cfg.in_channels = 1;
                cfg.channel = STFT_CHANNEL_MIX;
                collector_init(&one, bins, 1);
                analyse(plan, &cfg, mono, L, 0, &one);
                if (all.count[c] == want && one.count[0] == want)
                    CHECK_MSG(memcmp(all.db[c], one.db[0], want * bins * sizeof(float)) == 0,
                              "all: channel %d differs from that channel alone", c);
                collector_free(&one);
                cfg.in_channels = ch;
            }
        }
        collector_free(&mix);
        collector_free(&ref);
        collector_free(&sel);
        collector_free(&all);
        free(in);
        free(mono);
    }
    fft_plan_destroy(plan);
}

/* ---- flush ------------------------------------------------------------------------------ */

static void test_flush(void)
{
    for (int trial = 0; trial < 40; trial++) {
        const size_t n = (size_t)16 << rng_range(0, 3);
        const size_t hop = rng_range(1, 2 * n);
        fft_plan *plan = make_plan(n, hop, MAX_BATCH, 0), *ref = make_plan(n, hop, 1, 0);
        stft_config cfg = stft_config_default();
        collector c;
        stft *s = NULL;
        sp_errinfo ei = {{0}};
        size_t L = 0, cap = 4000;
        float *sig = malloc(cap * sizeof *sig);
        int bad_count = 0;
        for (size_t i = 0; i < cap; i++)
            sig[i] = (float)rng_signed();
        if (!plan || !ref)
            goto next;
        cfg.n = n;
        cfg.hop = hop;
        cfg.batch = MAX_BATCH;
        collector_init(&c, n / 2 + 1, 1);
        CHECK(stft_create(&cfg, plan, collect, &c, &s, &ei) == SP_OK);
        if (!s)
            goto next;
        while (L < cap - 200) {
            size_t take = rng_range(1, 150), have;
            CHECK(stft_push(s, sig + L, take, &ei) == SP_OK);
            L += take;
            CHECK(stft_flush(s, &ei) == SP_OK);
            have = L < n ? 0 : (L - n) / hop + 1;
            if (stft_frames(s) != have || c.count[0] != have)
                bad_count++;
        }
        CHECK_MSG(bad_count == 0, "n %zu hop %zu: after flush, %d times not every complete frame was out", n, hop,
                  bad_count);
        CHECK(stft_finish(s, &ei) == SP_OK);
        CHECK(stft_frames(s) == expected_frames(L, n, hop));
        CHECK(c.count[0] == expected_frames(L, n, hop));
        CHECK(c.bad_first == 0 && c.bad_size == 0);
        if (c.count[0] == expected_frames(L, n, hop))
            CHECK_MSG(compare_reference(ref, sig, L, n, hop, c.db[0], c.count[0]) == 0,
                      "n %zu hop %zu: flushed spectra differ", n, hop);
        stft_destroy(s);
        collector_free(&c);
    next:
        free(sig);
        fft_plan_destroy(plan);
        fft_plan_destroy(ref);
    }

    /* a stream shorter than a frame: flush gives nothing, finish the one padded frame */
    {
        const size_t n = 64, hop = 16;
        fft_plan *plan = make_plan(n, hop, MAX_BATCH, 1), *ref = make_plan(n, hop, 1, 1);
        stft_config cfg = stft_config_default();
        collector c;
        stft *s = NULL;
        sp_errinfo ei = {{0}};
        float sig[40];
        for (size_t i = 0; i < 40; i++)
            sig[i] = (float)rng_signed();
        cfg.n = n;
        cfg.hop = hop;
        cfg.batch = 4;
        collector_init(&c, n / 2 + 1, 1);
        if (plan && ref && stft_create(&cfg, plan, collect, &c, &s, &ei) == SP_OK) {
            CHECK(stft_push(s, sig, 40, &ei) == SP_OK);
            CHECK(stft_flush(s, &ei) == SP_OK);
            CHECK(stft_frames(s) == 0 && c.count[0] == 0);
            CHECK(stft_finish(s, &ei) == SP_OK);
            CHECK(stft_frames(s) == 1 && c.count[0] == 1);
            if (c.count[0] == 1)
                CHECK(compare_reference(ref, sig, 40, n, hop, c.db[0], 1) == 0);
            stft_destroy(s);
        }
        collector_free(&c);
        fft_plan_destroy(plan);
        fft_plan_destroy(ref);
    }
}

/* stft_reset: after any part of one stream (a partial frame buffered, samples still to
 * skip with hop > n, a sink error in the middle), the next stream's frames and spectra are
 * those of a fresh framer. */
static void test_reset(void)
{
    for (int trial = 0; trial < 30; trial++) {
        const size_t n = (size_t)16 << rng_range(0, 3);
        const size_t hop = rng_range(1, 2 * n);
        const size_t L = rng_range(1, 1500);
        fft_plan *plan = make_plan(n, hop, MAX_BATCH, 1), *ref = make_plan(n, hop, 1, 1);
        stft_config cfg = stft_config_default();
        collector c;
        stft *s = NULL;
        sp_errinfo ei = {{0}};
        float *a = malloc(2000 * sizeof *a), *b = malloc(L * sizeof *b);
        double fft_s, sink_s;
        for (size_t i = 0; i < 2000; i++)
            a[i] = (float)rng_signed();
        for (size_t i = 0; b && i < L; i++)
            b[i] = (float)rng_signed();
        cfg.n = n;
        cfg.hop = hop;
        cfg.batch = 1 + rng_range(0, MAX_BATCH - 1);
        collector_init(&c, n / 2 + 1, 1);
        if (!plan || !ref || !a || !b || stft_create(&cfg, plan, collect, &c, &s, &ei) != SP_OK) {
            CHECK(0);
            goto next;
        }
        c.fail_at_call = trial % 3 == 0 ? 2 : 0; /* some first streams end in a sink error */
        (void)stft_push(s, a, rng_range(1, 2000), &ei);
        collector_free(&c);
        collector_init(&c, n / 2 + 1, 1);
        CHECK(stft_reset(s, &ei) == SP_OK);
        stft_times(s, &fft_s, &sink_s);
        CHECK(stft_frames(s) == 0 && stft_samples(s) == 0 && fft_s == 0.0 && sink_s == 0.0);
        CHECK(run(s, b, 1, L, 1, &ei) == SP_OK);
        CHECK(stft_frames(s) == expected_frames(L, n, hop) && stft_samples(s) == L);
        CHECK(c.count[0] == expected_frames(L, n, hop) && c.bad_first == 0);
        if (c.count[0] == expected_frames(L, n, hop))
            CHECK_MSG(compare_reference(ref, b, L, n, hop, c.db[0], c.count[0]) == 0,
                      "n %zu hop %zu L %zu: spectra after a reset differ", n, hop, L);
    next:
        stft_destroy(s);
        collector_free(&c);
        free(a);
        free(b);
        fft_plan_destroy(plan);
        fft_plan_destroy(ref);
    }
}

/* ---- a stop between FFT calls ---------------------------------------------------------- */

/* hop 1, batch 1: one push makes a call a sample; the stop, set during call k, ends the push
 * before call k+1 (SP_EINTERRUPTED), and flush and finish make no call after it either. */
static void test_stop(void)
{
    const size_t n = 64, L = 4000;
    fft_plan *plan = make_plan(n, 1, 4, 1);
    stft_config cfg = stft_config_default();
    atomic_int stop;
    collector c;
    stft *s = NULL;
    sp_errinfo ei = {{0}};
    float *sig = malloc(L * sizeof *sig);
    cfg.n = n;
    cfg.hop = 1;
    cfg.batch = 1;
    collector_init(&c, n / 2 + 1, 1);
    if (!plan || !sig || stft_create(&cfg, plan, collect, &c, &s, &ei) != SP_OK) {
        CHECK(0);
        goto done;
    }
    for (size_t i = 0; i < L; i++)
        sig[i] = (float)rng_signed();
    atomic_init(&stop, 0);
    c.stop = &stop;
    c.stop_at_call = 10;
    stft_set_stop(s, &stop);
    CHECK(stft_push(s, sig, L, &ei) == SP_EINTERRUPTED && strcmp(ei.msg, "interrupted") == 0);
    CHECK_MSG(c.calls == 10, "%zu FFT calls, the stop came in the 10th", c.calls);
    CHECK(stft_flush(s, &ei) == SP_EINTERRUPTED && stft_finish(s, &ei) == SP_EINTERRUPTED && c.calls == 10);
    /* the stop is kept by a reset; without it the next stream runs whole */
    CHECK(stft_reset(s, &ei) == SP_OK && stft_push(s, sig, L, &ei) == SP_EINTERRUPTED && c.calls == 10);
    stft_set_stop(s, NULL);
    CHECK(stft_reset(s, &ei) == SP_OK && stft_push(s, sig, L, &ei) == SP_OK && stft_finish(s, &ei) == SP_OK);
    CHECK(stft_frames(s) == L - n + 1);
done:
    stft_destroy(s);
    collector_free(&c);
    fft_plan_destroy(plan);
    free(sig);
}

/* ---- bad configurations, sink errors ------------------------------------------------- */

static void test_errors(void)
{
    fft_plan *plan = make_plan(64, 16, MAX_BATCH, 0);
    stft_config cfg = stft_config_default();
    collector c;
    stft *s = NULL;
    sp_errinfo ei = {{0}};
    float sig[2000];
    int err;
    if (!plan)
        return;
    for (size_t i = 0; i < 2000; i++)
        sig[i] = (float)rng_signed();
    cfg.n = 64;
    cfg.hop = 16;
    cfg.in_channels = 2;
    cfg.batch = 4;
    collector_init(&c, 33, 1);

    cfg.channel = 2;
    err = stft_create(&cfg, plan, collect, &c, &s, &ei);
    CHECK_MSG(err == SP_EINVAL && s == NULL, "channel 2 of 2: %d", err);
    CHECK_MSG(strstr(ei.msg, "channel") != NULL, "message \"%s\"", ei.msg);
    cfg.channel = -3;
    CHECK(stft_create(&cfg, plan, collect, &c, &s, &ei) == SP_EINVAL);
    cfg.channel = STFT_CHANNEL_MIX;
    cfg.batch = MAX_BATCH + 1;
    CHECK(stft_create(&cfg, plan, collect, &c, &s, &ei) == SP_EINVAL);
    cfg.batch = 0;
    CHECK(stft_create(&cfg, plan, collect, &c, &s, &ei) == SP_EINVAL);
    cfg.batch = 4;
    cfg.n = 128;
    CHECK(stft_create(&cfg, plan, collect, &c, &s, &ei) == SP_EINVAL);
    cfg.n = 64;
    cfg.hop = 0;
    CHECK(stft_create(&cfg, plan, collect, &c, &s, &ei) == SP_EINVAL);
    cfg.hop = 16;
    cfg.in_channels = 0;
    CHECK(stft_create(&cfg, plan, collect, &c, &s, &ei) == SP_EINVAL);
    cfg.in_channels = 2;

    /* a sink error stops the run and comes back unchanged */
    c.fail_at_call = 2;
    CHECK(stft_create(&cfg, plan, collect, &c, &s, &ei) == SP_OK);
    if (s) {
        err = run(s, sig, 2, 1000, 1, &ei);
        CHECK_MSG(err == SP_EIO, "sink error: run returned %d", err);
        stft_destroy(s);
    }
    collector_free(&c);
    stft_destroy(NULL);
    fft_plan_destroy(plan);
}

/* ---- with a reduction (stft_set_reduce) -------------------------------------------------- */

/* A collector of the reduced blocks: the records per channel, the spectra when they come. */
typedef struct {
    collector spectra;        /* the db blocks, through collect() */
    size_t nranges;
    fft_peak_raw *raw[MAX_OUT];
    size_t raw_cap[MAX_OUT];
    uint64_t count[MAX_OUT];
    int db_null, db_given;    /* calls with db NULL / not */
    uint64_t span;            /* column maxima: groups of span frames; 0 = none asked */
    size_t bins;
    float *gm[MAX_OUT];       /* the groups' maxima so far, merged over calls as a picture does */
    size_t gm_rows[MAX_OUT];
    int cm_bad;               /* calls whose colmax was missing or unasked for */
} reduced;

/* Folds a call's column maxima into r->gm: row i is group first/span + i, partial at the
 * call's ends (so a group split between calls is the maximum of both parts). */
static int fold_colmax(reduced *r, int channel, uint64_t first, size_t nframes, const float *colmax)
{
    size_t rows = fft_colmax_rows(r->span, first, nframes);
    uint64_t g0 = first / r->span;
    if (g0 + rows > r->gm_rows[channel]) {
        float *p = realloc(r->gm[channel], (size_t)(g0 + rows) * 2 * r->bins * sizeof *p);
        if (!p)
            return SP_ENOMEM;
        for (size_t i = r->gm_rows[channel] * r->bins; i < (size_t)(g0 + rows) * 2 * r->bins; i++)
            p[i] = -INFINITY;
        r->gm[channel] = p;
        r->gm_rows[channel] = (size_t)(g0 + rows) * 2;
    }
    for (size_t i = 0; i < rows * r->bins; i++) {
        float *o = r->gm[channel] + (size_t)g0 * r->bins + i;
        *o = colmax[i] > *o ? colmax[i] : *o;
    }
    return SP_OK;
}

static int collect_reduced(void *user, int channel, uint64_t first, size_t nframes, const float *db,
                           const fft_peak_raw *raw, const float *colmax)
{
    reduced *r = user;
    size_t need;
    if (channel < 0 || channel >= MAX_OUT)
        return SP_EINVAL;
    r->cm_bad += (r->span != 0) != (colmax != NULL);
    if (colmax && r->span && fold_colmax(r, channel, first, nframes, colmax) != SP_OK)
        return SP_ENOMEM;
    need = (size_t)(r->count[channel] + nframes) * r->nranges;
    if (need > r->raw_cap[channel]) {
        fft_peak_raw *p = realloc(r->raw[channel], 2 * need * sizeof *p);
        if (!p)
            return SP_ENOMEM;
        r->raw[channel] = p;
        r->raw_cap[channel] = 2 * need;
    }
    memcpy(r->raw[channel] + (size_t)r->count[channel] * r->nranges, raw, nframes * r->nranges * sizeof *raw);
    r->count[channel] += nframes;
    if (!db) {
        r->db_null++;
        return SP_OK;
    }
    r->db_given++;
    return collect(&r->spectra, channel, first, nframes, db);
}

/* Three channels analysed separately, with random blocks and batches: the records a
 * reduction hands over are the host scan of the spectra of a plain run, with the spectra
 * (identical to the plain run's) or without them (db NULL on every call). */
static void test_reduce(void)
{
    const size_t n = 256, hop = 40, L = 3000 + rng_range(0, 2000), bins = n / 2 + 1;
    const int ch = 3;
    fft_plan *plan = make_plan(n, hop, MAX_BATCH, 1);
    float *in = malloc(L * (size_t)ch * sizeof *in);
    collector ref;
    fft_peak_req req;
    stft_config cfg = stft_config_default();
    sp_errinfo ei = {{0}};
    CHECK(in != NULL);
    if (!plan || !in)
        goto out;
    for (size_t i = 0; i < L * (size_t)ch; i++)
        in[i] = (float)rng_signed() * (i % 3 == 1 ? 1e-3f : 1.0f);
    memset(&req, 0, sizeof req);
    req.nranges = 2;
    req.kmin[0] = 1, req.kmax[0] = n / 2 - 1;
    req.kmin[1] = 10 + rng_range(0, 20), req.kmax[1] = req.kmin[1] + rng_range(0, 60);
    cfg.n = n;
    cfg.hop = hop;
    cfg.in_channels = ch;
    cfg.channel = STFT_CHANNEL_ALL;
    cfg.batch = rng_range(1, MAX_BATCH);
    collector_init(&ref, bins, ch);
    analyse(plan, &cfg, in, L, 1, &ref);
    for (int spectra = 0; spectra < 4; spectra++) { /* 2, 3: with column maxima too */
        reduced r;
        stft *s = NULL;
        int bad = 0;
        memset(&r, 0, sizeof r);
        collector_init(&r.spectra, bins, ch);
        r.nranges = req.nranges;
        r.bins = bins;
        r.span = req.span = spectra >= 2 ? rng_range(1, 9) : 0;
        cfg.batch = rng_range(1, MAX_BATCH);
        CHECK(stft_create(&cfg, plan, collect, &r.spectra, &s, &ei) == SP_OK);
        if (!s)
            continue;
        CHECK_MSG(stft_set_reduce(s, &req, spectra & 1, collect_reduced, &r, &ei) == SP_OK, "set_reduce: %s", ei.msg);
        CHECK(run(s, in, ch, L, 1, &ei) == SP_OK);
        CHECK(stft_set_reduce(s, &req, spectra & 1, collect_reduced, &r, &ei) == SP_EINVAL); /* after samples */
        stft_destroy(s);
        CHECK_MSG(spectra & 1 ? r.db_null == 0 && r.db_given > 0 : r.db_given == 0 && r.db_null > 0,
                  "spectra %d: %d calls with db, %d without", spectra, r.db_given, r.db_null);
        CHECK_MSG(r.cm_bad == 0, "span %llu: %d calls without the column maxima asked for (or with unasked ones)",
                  (unsigned long long)r.span, r.cm_bad);
        for (int c = 0; c < ch && r.span; c++) { /* each group's maximum = the plain run's frames' */
            int cm_diff = 0;
            for (uint64_t f = 0; f < ref.count[c]; f++)
                for (size_t k = 0; k < bins; k++) {
                    const float *o = r.gm[c] + (size_t)(f / r.span) * bins + k;
                    cm_diff += ref.db[c][f * bins + k] > *o; /* no frame above its group's maximum */
                }
            for (uint64_t g = 0; g * r.span < ref.count[c]; g++) /* and each maximum is one of them */
                for (size_t k = 0; k < bins; k++) {
                    int hit = 0;
                    for (uint64_t f = g * r.span; f < (g + 1) * r.span && f < ref.count[c]; f++)
                        hit |= ref.db[c][f * bins + k] == r.gm[c][g * bins + k];
                    cm_diff += !hit;
                }
            CHECK_MSG(cm_diff == 0, "span %llu, channel %d: %d column maxima differ from the plain run's",
                      (unsigned long long)r.span, c, cm_diff);
        }
        for (int c = 0; c < ch; c++) {
            CHECK(r.count[c] == ref.count[0] && ref.count[c] == ref.count[0]);
            if (r.count[c] != ref.count[c])
                continue;
            for (size_t f = 0; f < r.count[c]; f++)
                for (size_t k = 0; k < req.nranges; k++) {
                    fft_peak_raw want = fft_peak_scan(ref.db[c] + f * bins, req.kmin[k], req.kmax[k]);
                    fft_peak_raw got = r.raw[c][f * req.nranges + k];
                    bad += memcmp(&want, &got, sizeof want) != 0;
                }
            if (spectra & 1)
                CHECK_MSG(r.spectra.count[c] == ref.count[c] &&
                              memcmp(r.spectra.db[c], ref.db[c], ref.count[c] * bins * sizeof(float)) == 0,
                          "channel %d: the spectra differ from a plain run's", c);
        }
        CHECK_MSG(bad == 0, "spectra %d: %d records differ from the host scan", spectra, bad);
        for (int c = 0; c < MAX_OUT; c++) {
            free(r.raw[c]);
            free(r.gm[c]);
        }
        collector_free(&r.spectra);
    }
    /* refused: ranges outside 1 .. n/2-1, none, reversed */
    {
        stft *s = NULL;
        collector c;
        collector_init(&c, bins, ch);
        CHECK(stft_create(&cfg, plan, collect, &c, &s, &ei) == SP_OK);
        req.kmax[0] = n / 2;
        CHECK(stft_set_reduce(s, &req, 0, collect_reduced, &c, &ei) == SP_EINVAL);
        req.kmax[0] = n / 2 - 1;
        req.kmin[1] = 0;
        CHECK(stft_set_reduce(s, &req, 0, collect_reduced, &c, &ei) == SP_EINVAL);
        req.kmin[1] = 30, req.kmax[1] = 20;
        CHECK(stft_set_reduce(s, &req, 0, collect_reduced, &c, &ei) == SP_EINVAL);
        req.kmax[1] = 40;
        req.nranges = 0;
        req.span = 0;
        CHECK(stft_set_reduce(s, &req, 0, collect_reduced, &c, &ei) == SP_EINVAL); /* nothing asked */
        req.nranges = 1;
        CHECK(stft_set_reduce(s, &req, 0, NULL, &c, &ei) == SP_EINVAL);
        stft_destroy(s);
        collector_free(&c);
    }
    collector_free(&ref);
out:
    free(in);
    fft_plan_destroy(plan);
}

/* ---- skips: frames stft_discard passes over are counted apart from those analysed ----- */

static void test_skipped(void)
{
    for (int trial = 0; trial < 40; trial++) {
        const size_t n = (size_t)16 << rng_range(0, 2), hop = rng_range(1, 2 * n);
        fft_plan *plan = make_plan(n, hop, MAX_BATCH, 1);
        stft_config cfg = stft_config_default();
        collector c;
        stft *s = NULL;
        sp_errinfo ei = {{0}};
        float sig[600];
        for (size_t i = 0; i < sizeof sig / sizeof sig[0]; i++)
            sig[i] = (float)rng_signed();
        cfg.n = n;
        cfg.hop = hop;
        cfg.batch = 1 + rng_range(0, MAX_BATCH - 1);
        collector_init(&c, n / 2 + 1, 1);
        if (!plan || stft_create(&cfg, plan, collect, &c, &s, &ei) != SP_OK) {
            CHECK(0);
            goto next;
        }
        CHECK(stft_skipped(s) == 0);
        for (int round = 0; round < 3; round++) {
            CHECK(stft_push(s, sig, rng_range(1, 600), &ei) == SP_OK);
            CHECK(stft_flush(s, &ei) == SP_OK);
            stft_discard(s, rng_range(0, 5 * n));
        }
        CHECK(stft_finish(s, &ei) == SP_OK);
        /* every index below stft_frames went to the sink or was skipped, never both */
        CHECK_MSG(stft_frames(s) - stft_skipped(s) == c.count[0], "n %zu hop %zu: %llu frames, %llu skipped, %llu analysed",
                  n, hop, (unsigned long long)stft_frames(s), (unsigned long long)stft_skipped(s),
                  (unsigned long long)c.count[0]);
        CHECK(stft_reset(s, &ei) == SP_OK && stft_skipped(s) == 0);
    next:
        stft_destroy(s);
        collector_free(&c);
        fft_plan_destroy(plan);
    }
}

int main(void)
{
    tu_seed("test_stft");
    test_counts();
    test_batches();
    test_channels();
    test_flush();
    test_reset();
    test_skipped();
    test_stop();
    test_errors();
    test_reduce();
    return check_done("test_stft");
}
