/* test_gpu_reduce: the peak reduction and column maxima of fft_stft_reduce, of every GPU
 * backend and cuda path, against the CPU backend's: same bins, levels within 0.01 dB, ties
 * to the lowest bin; live plans' graphs included; the framer overlapping the device
 * (reductions begun, delivered a batch later).
 *
 * Fresh random inputs every run (the seed is printed; SPECTRO_TEST_SEED=... repeats one).
 * Exits 77 when no CUDA device is usable. SPECTRO_GPU_TEST_QUICK=1 runs smaller sizes (for
 * compute-sanitizer). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fft.h"
#include "fft_backend.h"
#include "fft_gpu.h"
#include "gpu_test.h"
#include "stft.h"
#include "test_util.h"
#include "window.h"

static int quick;

/* The signals of check_reduce: 0 a sine between bins plus noise (as check_stft), 1 zeros
 * (every bin at the floor: a row of ties), 2 a faint sine on bin n/8 (-120 dBFS: every
 * other bin at the floor, ties off the peak). */
static void reduce_signal(int kind, float *sig, size_t len, size_t n)
{
    const double pi = 3.14159265358979323846, f = (double)(n / 8) + 0.31;
    for (size_t i = 0; i < len; i++) {
        double t = (double)i / (double)n;
        sig[i] = kind == 0   ? (float)(0.5 * sin(2.0 * pi * f * t) + 0.2 * rng_signed())
                 : kind == 1 ? 0.0f
                             : (float)(1e-6 * cos(2.0 * pi * (double)(n / 8) * t));
    }
}

/* Ranges: everything, the sine's neighbourhood, single bins at both ends, the top 8 bins,
 * and one at random; nranges = FFT_PEAK_RANGES_MAX in the first request, 1 in the rest. */
static size_t reduce_reqs(size_t n, fft_peak_req *q)
{
    const size_t top = n / 2 - 1, s = n / 8;
    size_t a = rng_range(1, top), b = rng_range(1, top);
    memset(q, 0, 3 * sizeof *q);
    q[0].nranges = FFT_PEAK_RANGES_MAX;
    q[0].kmin[0] = 1, q[0].kmax[0] = top;
    q[0].kmin[1] = s > 3 ? s - 3 : 1, q[0].kmax[1] = s + 3 < top ? s + 3 : top;
    q[0].kmin[2] = 1, q[0].kmax[2] = 1;
    q[0].kmin[3] = top, q[0].kmax[3] = top;
    q[1].nranges = 1;
    q[1].kmin[0] = top > 7 ? top - 7 : 1, q[1].kmax[0] = top;
    q[2].nranges = 1;
    q[2].kmin[0] = a < b ? a : b, q[2].kmax[0] = a < b ? b : a;
    return 3;
}

/* Runs the reduction over total frames in calls of up to max_batch (one call of 1 frame in
 * between, as check_stft); db may be NULL. */
static int run_reduce(fft_plan *p, const float *sig, size_t hop, size_t nb, size_t max_batch, size_t total,
                      float *db, const fft_peak_req *q, fft_peak_raw *out)
{
    size_t f = 0, call = 0;
    while (f < total) {
        size_t cnt = call++ == 1 ? 1 : max_batch;
        if (cnt > total - f)
            cnt = total - f;
        int err = fft_stft_reduce(p, sig + f * hop, cnt, db ? db + f * nb : NULL, q, out + f * q->nranges);
        if (err != SP_OK)
            return err;
        f += cnt;
    }
    return SP_OK;
}

/* A GPU record against the CPU backend's: the same bin (or, where two bins of the CPU's row
 * lie within 0.01 dB, a bin the CPU reads within 0.01 dB of its maximum: a near tie that
 * float rounding may break either way); levels within 0.01 dB where the CPU reads them above
 * -100 dBFS and within 60 dB of the record's peak, deeper ones within 1e-5 of its amplitude
 * (check_stft's rule). Returns 1 when off, counting the near ties. */
static int raw_off(const fft_peak_raw *g, const fft_peak_raw *c, const float *cpu_row, size_t nb,
                   size_t *near_ties)
{
    const float gv[3] = {g->l, g->c, g->r}, cv[3] = {c->l, c->c, c->r};
    float top = cpu_row[0];
    int off = 0;
    /* float32 FFTs round relative to the frame's strongest bin, not to a range's own peak: a
     * range of one deep bin (85 dB down) differs between FFTs by more than 0.01 dB */
    for (size_t k = 1; k < nb; k++)
        top = fmaxf(top, cpu_row[k]);
    if (g->bin != c->bin) {
        if (!(fabsf(cpu_row[g->bin] - c->c) <= 0.01f))
            off = 1;
        else
            (*near_ties)++;
    }
    for (int i = 0; !off && g->bin == c->bin && i < 3; i++) {
        if (cv[i] > -100.0f && cv[i] >= top - 60.0f) {
            if (!(fabsf(gv[i] - cv[i]) <= 0.01f))
                off = 1;
        } else if (!(fabs(pow(10.0, gv[i] / 20.0) - pow(10.0, cv[i] / 20.0)) <= 1e-5 * pow(10.0, top / 20.0))) {
            /* far below the frame's strongest bin: rounding relative to it */
            off = 1;
        }
    }
    if (off)
        printf("  off: gpu bin %u (%.4f %.4f %.4f), cpu bin %u (%.4f %.4f %.4f), cpu at the gpu's bin %.4f\n",
               (unsigned)g->bin, g->l, g->c, g->r, (unsigned)c->bin, c->l, c->c, c->r, cpu_row[g->bin]);
    return off;
}

/* The device reduction of each backend and cuda path against the CPU backend's, with and
 * without the spectra (the same records both ways; with them, exactly the host scan of the
 * GPU's own spectra, and the spectra those of fft_stft_db), in malloc'd and pinned buffers. */
static void check_reduce(size_t n, size_t hop, size_t max_batch, size_t total)
{
    const size_t nb = n / 2 + 1, len = (total - 1) * hop + n, nrec = total * FFT_PEAK_RANGES_MAX;
    float *sig = xmalloc(len * sizeof *sig), *win = xmalloc(n * sizeof *win);
    float *cdb = xmalloc(total * nb * sizeof *cdb), *gdb = xmalloc(total * nb * sizeof *gdb);
    float *gdb2 = xmalloc(total * nb * sizeof *gdb2);
    fft_peak_raw *cref = xmalloc(nrec * sizeof *cref), *g1 = xmalloc(nrec * sizeof *g1);
    fft_peak_raw *g2 = xmalloc(nrec * sizeof *g2);
    fft_peak_req reqs[3];
    window_spec ws = window_spec_default();
    CHECK(window_fill(&ws, n, win, NULL) == SP_OK);
    fft_backend_kind kinds[4] = {FFT_BACKEND_CUDA, FFT_BACKEND_CUDA, FFT_BACKEND_CUFFT, FFT_BACKEND_CUDA};
    for (int kind = 0; kind < 3; kind++) {
        size_t nreq = reduce_reqs(n, reqs), bad = 0, exact_bad = 0, near = 0, compared = 0;
        reduce_signal(kind, sig, len, n);
        fft_plan *cp = make_plan(FFT_BACKEND_CPU, n, hop, win, max_batch);
        if (!cp)
            break;
        CHECK(run_reduce(cp, sig, hop, nb, max_batch, total, cdb, &reqs[0], cref) == SP_OK);
        fft_plan_destroy(cp);
        for (int k = 0; k < 4; k++) {
            set_path(k == 1);
            fft_plan *p = make_plan(kinds[k], n, hop, win, max_batch);
            if (!p)
                continue;
            const char *what = k == 3 ? "cuda (pinned)" : kind_name(kinds[k]);
            /* k == 3: the caller's buffers in pinned memory, which the plan copies to directly */
            fft_peak_raw *pg1 = k == 3 ? fft_plan_host_alloc(p, nrec * sizeof *pg1) : g1;
            float *pdb = k == 3 ? fft_plan_host_alloc(p, total * nb * sizeof *pdb) : gdb;
            for (size_t q = 0; q < nreq && pg1 && pdb; q++) {
                const size_t nr = reqs[q].nranges;
                tu_poison(pg1, nrec * 4);
                tu_poison(g2, nrec * 4);
                tu_poison(pdb, total * nb);
                CHECK_MSG(run_reduce(p, sig, hop, nb, max_batch, total, NULL, &reqs[q], pg1) == SP_OK,
                          "%s reduce: %s", what, fft_plan_last_error(p));
                CHECK_MSG(run_reduce(p, sig, hop, nb, max_batch, total, pdb, &reqs[q], g2) == SP_OK,
                          "%s reduce with spectra: %s", what, fft_plan_last_error(p));
                CHECK(fft_stft_db(p, sig, total < max_batch ? total : max_batch, gdb2) == SP_OK);
                CHECK_MSG(memcmp(pdb, gdb2, (total < max_batch ? total : max_batch) * nb * sizeof *pdb) == 0,
                          "%s n=%zu: the spectra of a reduction differ from stft_db's", what, n);
                exact_bad += memcmp(pg1, g2, total * nr * sizeof *g2) != 0;
                for (size_t f = 0; f < total; f++)
                    for (size_t r = 0; r < nr; r++) {
                        fft_peak_raw host = fft_peak_scan(pdb + f * nb, reqs[q].kmin[r], reqs[q].kmax[r]);
                        fft_peak_raw cpu = q == 0 ? cref[f * nr + r]
                                                  : fft_peak_scan(cdb + f * nb, reqs[q].kmin[r], reqs[q].kmax[r]);
                        exact_bad += memcmp(&host, &g2[f * nr + r], sizeof host) != 0;
                        bad += raw_off(&pg1[f * nr + r], &cpu, cdb + f * nb, nb, &near);
                        compared++;
                    }
            }
            CHECK_MSG(exact_bad == 0, "%s reduce n=%zu signal %d: records differ from the host scan of its own "
                      "spectra, or with spectra from without (%zu)", what, n, kind, exact_bad);
            CHECK_MSG(bad == 0, "%s reduce n=%zu hop=%zu signal %d: %zu of %zu records off the CPU's", what, n, hop,
                      kind, bad, compared);
            if (kind != 0)
                CHECK_MSG(near == 0, "%s reduce n=%zu signal %d: %zu bins differ from the CPU's on exact ties", what,
                          n, kind, near);
            printf("  reduce %s n=%zu hop=%zu signal %d: %zu records, %zu near ties\n", what, n, hop, kind,
                   compared, near);
            if (k == 3) {
                fft_plan_host_free(p, pg1);
                fft_plan_host_free(p, pdb);
            }
            fft_plan_destroy(p);
            bad = exact_bad = near = compared = 0;
        }
        set_path(0);
    }
    free(sig);
    free(win);
    free(cdb);
    free(gdb);
    free(gdb2);
    free(cref);
    free(g1);
    free(g2);
}

/* Column maxima (fft_peak_req.span) on the device against the maxima of the same plan's own
 * spectra (fft_stft_db), which must match exactly (a maximum of floats rounds nothing): calls
 * of max_batch frames and one of a single frame, each split into two sub-batches on the device
 * (the plan's chunk is half of max_batch), groups split between sub-batches and calls, with
 * and without a peak search beside them, on each path and backend. */
static void check_colmax(size_t n, size_t hop, size_t max_batch, size_t total, uint64_t span)
{
    const size_t nb = n / 2 + 1, len = (total - 1) * hop + n, groups = (total + span - 1) / span;
    float *sig = xmalloc(len * sizeof *sig), *win = xmalloc(n * sizeof *win), *db = xmalloc(total * nb * sizeof *db);
    float *want = xmalloc(groups * nb * sizeof *want), *got = xmalloc(groups * nb * sizeof *got);
    float *rows = xmalloc((max_batch / span + 2) * nb * sizeof *rows);
    fft_peak_raw *pk = xmalloc(max_batch * sizeof *pk);
    window_spec ws = window_spec_default();
    fft_backend_kind kinds[3] = {FFT_BACKEND_CUDA, FFT_BACKEND_CUDA, FFT_BACKEND_CUFFT};
    CHECK(window_fill(&ws, n, win, NULL) == SP_OK);
    reduce_signal(0, sig, len, n);
    for (int k = 0; k < 3; k++) {
        set_path(k == 1);
        fft_plan *p = make_plan(kinds[k], n, hop, win, max_batch);
        if (!p)
            continue;
        CHECK(fft_plan_reduces_columns(p));
        for (size_t f = 0; f < total; f += max_batch) /* the plan's own spectra, their maxima */
            CHECK(fft_stft_db(p, sig + f * hop, total - f < max_batch ? total - f : max_batch, db + f * nb) == SP_OK);
        for (size_t f = 0; f < total; f++)
            for (size_t b = 0; b < nb; b++) {
                float *w = want + (f / span) * nb + b;
                *w = f % span == 0 || db[f * nb + b] > *w ? db[f * nb + b] : *w;
            }
        for (int with_peaks = 0; with_peaks < 2; with_peaks++) {
            fft_peak_req q;
            size_t f = 0, call = 0, bad = 0;
            memset(&q, 0, sizeof q);
            q.nranges = (size_t)with_peaks;
            q.kmin[0] = 1, q.kmax[0] = n / 2 - 1;
            q.span = span;
            q.colmax = rows;
            tu_poison(got, groups * nb);
            while (f < total) {
                size_t cnt = call++ == 1 ? 1 : max_batch;
                cnt = cnt > total - f ? total - f : cnt;
                q.first = f;
                CHECK_MSG(fft_stft_reduce(p, sig + f * hop, cnt, NULL, &q, pk) == SP_OK, "%s colmax: %s",
                          kind_name(kinds[k]), fft_plan_last_error(p));
                for (size_t r = 0; r < fft_colmax_rows(span, f, cnt); r++) /* as a picture folds them */
                    for (size_t b = 0; b < nb; b++) {
                        float *o = got + (f / span + r) * nb + b, v = rows[r * nb + b];
                        *o = (r == 0 && f % span != 0) ? (v > *o ? v : *o) : v;
                    }
                f += cnt;
            }
            for (size_t i = 0; i < groups * nb; i++)
                bad += memcmp(&got[i], &want[i], sizeof got[i]) != 0;
            CHECK_MSG(bad == 0, "%s path %d n=%zu hop=%zu span=%llu peaks %d: %zu of %zu column maxima differ",
                      kind_name(kinds[k]), k == 1, n, hop, (unsigned long long)span, with_peaks, bad, groups * nb);
        }
        fft_plan_destroy(p);
    }
    set_path(0);
    free(sig);
    free(win);
    free(db);
    free(want);
    free(got);
    free(rows);
    free(pk);
}

/* What a reduction handed out, call by call, in order: the records by frame, the rows of
 * column maxima as they came. */
typedef struct {
    size_t frames, rows, nranges, nb, calls, out_of_order;
    uint64_t span;
    fft_peak_raw *pk;
    float *cm;
} reduced;

static void reduced_add(reduced *g, uint64_t first, size_t nframes, const fft_peak_raw *raw, const float *colmax)
{
    size_t nrows = fft_colmax_rows(g->span, first, nframes);
    g->out_of_order += first != g->frames;
    memcpy(g->pk + first * g->nranges, raw, nframes * g->nranges * sizeof *raw);
    memcpy(g->cm + g->rows * g->nb, colmax, nrows * g->nb * sizeof *colmax);
    g->rows += nrows;
    g->frames = first + nframes;
    g->calls++;
}

static int overlap_sink(void *user, int channel, uint64_t first, size_t nframes, const float *db,
                        const fft_peak_raw *raw, const float *colmax)
{
    (void)channel;
    (void)db;
    reduced_add(user, first, nframes, raw, colmax);
    return SP_OK;
}

static int no_spectra(void *user, int channel, uint64_t first, size_t nframes, const float *db)
{
    (void)user, (void)channel, (void)first, (void)nframes, (void)db;
    return SP_EINVAL; /* a reduction was set: never called */
}

/* Overlapped reductions: the framer begins a batch on the device (fft_stft_reduce_start),
 * carries the samples after it over to its spare buffer while the device reads the first,
 * and hands the batch's records and column maxima out when the next batch begins. Fed in
 * pieces of random sizes, it gives byte for byte what whole fft_stft_reduce calls over the
 * same batches give on a second plan. Between _start and _wait other calls are refused. */
static void check_overlap(fft_backend_kind kind, size_t n, size_t hop, size_t batch, size_t len, uint64_t span)
{
    const size_t nb = n / 2 + 1, total = len < n ? 1 : (len - n) / hop + 1, groups = (total + span - 1) / span;
    float *sig = xmalloc(len * sizeof *sig), *win = xmalloc(n * sizeof *win);
    float *rows = xmalloc((batch / span + 2) * nb * sizeof *rows);
    reduced want = {0, 0, 1, nb, 0, 0, span, NULL, NULL}, got = want;
    window_spec ws = window_spec_default();
    fft_plan *a = NULL, *b = NULL;
    stft *st = NULL;
    sp_errinfo ei = {{0}};
    fft_peak_req q;
    CHECK(window_fill(&ws, n, win, NULL) == SP_OK);
    reduce_signal(0, sig, len, n);
    want.pk = xmalloc(total * sizeof *want.pk), got.pk = xmalloc(total * sizeof *got.pk);
    want.cm = xmalloc((groups + total / batch + 2) * nb * sizeof *want.cm);
    got.cm = xmalloc((groups + total / batch + 2) * nb * sizeof *got.cm);
    memset(&q, 0, sizeof q);
    q.nranges = 1;
    q.kmin[0] = 1, q.kmax[0] = n / 2 - 1;
    q.span = span;
    if (!(a = make_plan(kind, n, hop, win, batch)) || !(b = make_plan(kind, n, hop, win, batch)))
        goto out;
    CHECK(fft_plan_overlaps(a));
    for (size_t f = 0; f < total; f += batch) { /* whole calls */
        size_t cnt = total - f < batch ? total - f : batch;
        q.first = f;
        q.colmax = rows;
        CHECK(fft_stft_reduce(b, sig + f * hop, cnt, NULL, &q, want.pk + f) == SP_OK);
        reduced_add(&want, f, cnt, want.pk + f, rows);
    }
    /* the two halves by hand: another call in between is refused, the wait gives the same */
    q.first = 0;
    q.colmax = rows;
    CHECK(fft_stft_reduce_start(a, sig, batch < total ? batch : total, NULL, &q, got.pk) == SP_OK);
    CHECK(fft_stft_reduce(a, sig, 1, NULL, &q, got.pk) == SP_EINVAL);
    CHECK(fft_stft_reduce_wait(a) == SP_OK);
    CHECK(fft_stft_reduce_wait(a) == SP_OK); /* nothing left */
    CHECK(memcmp(got.pk, want.pk, (batch < total ? batch : total) * sizeof *got.pk) == 0);
    /* the framer */
    stft_config sc = {n, hop, 1, STFT_CHANNEL_MIX, batch};
    q.first = 0;
    q.colmax = NULL;
    CHECK(stft_create(&sc, a, no_spectra, NULL, &st, &ei) == SP_OK);
    CHECK(st && stft_set_reduce(st, &q, 0, overlap_sink, &got, &ei) == SP_OK);
    for (size_t at = 0; st && at < len;) {
        size_t piece = rng_range(1, 3 * hop + 7);
        piece = piece > len - at ? len - at : piece;
        CHECK_MSG(stft_push(st, sig + at, piece, &ei) == SP_OK, "%s", ei.msg);
        at += piece;
    }
    CHECK(st && stft_finish(st, &ei) == SP_OK);
    CHECK_MSG(got.frames == total && got.calls == want.calls && got.rows == want.rows && !got.out_of_order,
              "%s n=%zu hop=%zu batch %zu: %zu frames in %zu calls (%zu rows), %zu in %zu (%zu) expected",
              kind_name(kind), n, hop, batch, got.frames, got.calls, got.rows, total, want.calls, want.rows);
    if (got.frames == total && got.rows == want.rows) {
        CHECK_MSG(memcmp(got.pk, want.pk, total * sizeof *got.pk) == 0, "%s n=%zu hop=%zu: records differ",
                  kind_name(kind), n, hop);
        CHECK_MSG(memcmp(got.cm, want.cm, got.rows * nb * sizeof *got.cm) == 0, "%s n=%zu hop=%zu: maxima differ",
                  kind_name(kind), n, hop);
    }
out:
    stft_destroy(st);
    fft_plan_destroy(a);
    fft_plan_destroy(b);
    free(sig), free(win), free(rows), free(want.pk), free(got.pk), free(want.cm), free(got.cm);
}

/* A live plan runs one-sub-batch calls as CUDA graphs (captured on a shape's second call):
 * reductions with and without spectra and with other ranges are other shapes (six here,
 * each met three times: run plainly, captured, replayed), and every call gives the records
 * (and spectra) of a plain plan. */
static void check_reduce_live(size_t n, size_t hop)
{
    const size_t max_batch = 16, nb = n / 2 + 1, calls = 18, len = (calls * 8 - 1) * hop + n;
    float *sig = xmalloc(len * sizeof *sig), *db = xmalloc(8 * nb * sizeof *db), *dbr = xmalloc(8 * nb * sizeof *dbr);
    fft_peak_raw got[8 * FFT_PEAK_RANGES_MAX], want[8 * FFT_PEAK_RANGES_MAX];
    fft_peak_req reqs[3];
    fft_config cfg = fft_config_default();
    fft_plan *live = NULL, *plain = make_plan(FFT_BACKEND_CUDA, n, hop, NULL, max_batch);
    sp_errinfo ei = {{0}};
    size_t bad = 0;
    reduce_signal(0, sig, len, n);
    reduce_reqs(n, reqs);
    cfg.backend = FFT_BACKEND_CUDA;
    cfg.n = n;
    cfg.hop = hop;
    cfg.max_batch = max_batch;
    cfg.live = 1;
    CHECK_MSG(fft_plan_create(&cfg, &live, &ei) == SP_OK, "live plan: %s", ei.msg);
    for (size_t c = 0; live && plain && c < calls; c++) {
        const fft_peak_req *q = &reqs[c % 6 < 3 ? 0 : 1 + c % 2];
        const size_t cnt = 8 - c % 2 * 3, nr = q->nranges; /* 8 (one sub-batch) or 5 frames */
        float *d = c % 3 == 2 ? db : NULL;
        tu_poison(got, 8 * FFT_PEAK_RANGES_MAX * 4);
        tu_poison(db, 8 * nb);
        CHECK(fft_stft_reduce(live, sig + c * 8 * hop, cnt, d, q, got) == SP_OK);
        CHECK(fft_stft_reduce(plain, sig + c * 8 * hop, cnt, dbr, q, want) == SP_OK);
        bad += memcmp(got, want, cnt * nr * sizeof *got) != 0;
        if (d)
            bad += memcmp(db, dbr, cnt * nb * sizeof *db) != 0;
    }
    CHECK_MSG(bad == 0, "live (graph) reductions n=%zu: %zu calls differ from a plain plan's", n, bad);
    printf("  reduce live n=%zu: %zu calls as graphs and plain agree\n", n, calls);
    fft_plan_destroy(live);
    fft_plan_destroy(plain);
    free(sig);
    free(db);
    free(dbr);
}

int main(void)
{
    sp_errinfo ei = {{0}};
    const char *q = getenv("SPECTRO_GPU_TEST_QUICK");
    quick = q && *q && strcmp(q, "0") != 0;
    setvbuf(stdout, NULL, _IOLBF, 0); /* progress shows in a log even if a run is cut off */
    tu_seed(quick ? "test_gpu_reduce (quick)" : "test_gpu_reduce");
    if (fft_backend_cuda.probe(&ei) != SP_OK) {
        printf("test_gpu_reduce: skipped: %s\n", ei.msg);
        return 77;
    }
    /* the peak reduction: the fused kernel's sizes, the largest fused one, past it (framing
     * + r2c + dB), several sub-batches, odd hops */
    check_reduce(16, 5, 7, 50);
    check_reduce(1024, 256, 64, 200);
    check_reduce(4096, 1001, 16, 40);
    if (!quick) {
        check_reduce(16384, 64, 64, 300);
        check_reduce(32768, 8192, 8, 20);
        check_reduce(65536, 16384, 16, 40);
    }
    check_reduce_live(1024, 256);
    check_reduce_live(16384, 512);
    /* column maxima: groups within a sub-batch, across sub-batches and calls, one frame each */
    check_colmax(1024, 256, 64, 300, 7);
    check_colmax(4096, 1001, 16, 70, 29);
    check_colmax(256, 100, 37, 150, 1);
    /* the framer overlapping the device: reductions begun, delivered a batch later */
    check_overlap(FFT_BACKEND_CUDA, 1024, 256, 64, 300000, 7);
    check_overlap(FFT_BACKEND_CUDA, 4096, 256, 2047, 4000000, 50); /* the picture of an hour */
    check_overlap(FFT_BACKEND_CUDA, 256, 1000, 33, 200000, 3);      /* hop > n: samples skipped */
    check_overlap(FFT_BACKEND_CUFFT, 2048, 300, 100, 400000, 11);
    if (!quick)
        check_colmax(16384, 64, 511, 2000, 29);
    return check_done("test_gpu_reduce");
}
