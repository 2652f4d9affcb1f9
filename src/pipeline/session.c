#define _DEFAULT_SOURCE /* madvise, MADV_HUGEPAGE */
/* The session: what the runs over a list of inputs share (pipeline_internal.h). A run
 * (analyze.c) borrows the session's plan, framer and feeds; the session keeps them from
 * run to run and frees them at the end. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "pipeline_internal.h"

#define RING_HUGE_BYTES ((size_t)64 << 20) /* a ring this big asks for 2 MB pages */
#define RING_HUGE_PAGE ((uintptr_t)2 << 20)

struct analyze_session {
    analyze_config cfg;
    analyze_context ctx;
    /* the plan and what it was made for (window by value: the run's copy is freed) */
    fft_plan *plan;
    fft_config plan_fc;
    float *plan_win;
    /* the framer, its shape, and the sinks of the run it feeds now */
    stft *st;
    stft_config st_cfg;
    pipe_sinks *sinks;
    /* feed[cur] is the current run's; the other holds the read-ahead of `next` */
    pipe_feed feed[2];
    int cur;
    const char *next;
    int ahead;              /* the read-ahead of `next` was started (or tried) */
    progress *pg;
    /* session_release's thread and what it frees */
    pthread_t releaser;
    int releasing;
    stft *gone_st;
    fft_plan *gone_plan;
};

int analyze_session_create(const analyze_config *cfg, const analyze_context *ctx, analyze_session **out,
                           sp_errinfo *ei)
{
    analyze_session *s;
    if (!cfg || !out)
        return sp_fail(ei, SP_EINVAL, "analyze_session_create: NULL argument");
    if (!(s = calloc(1, sizeof *s)))
        return sp_fail(ei, SP_ENOMEM, "out of memory");
    s->cfg = *cfg;
    s->ctx = ctx ? *ctx : analyze_context_default();
    *out = s;
    return SP_OK;
}

void analyze_session_destroy(analyze_session *s)
{
    if (!s)
        return;
    if (s->releasing)
        pthread_join(s->releaser, NULL);
    for (int i = 0; i < 2; i++) {
        pipe_feed_release(&s->feed[i]);
        free(s->feed[i].ring_mem);
    }
    stft_destroy(s->st); /* before the plan: its buffers are the plan's */
    fft_plan_destroy(s->plan);
    free(s->plan_win);
    free(s);
}

static void *release_main(void *arg)
{
    analyze_session *s = arg;
    stft_destroy(s->gone_st); /* before the plan: its buffers are the plan's */
    fft_plan_destroy_last(s->gone_plan);
    return NULL;
}

void session_release(analyze_session *s)
{
    if (s->releasing)
        return;
    s->gone_st = s->st;
    s->gone_plan = s->plan;
    s->st = NULL;
    s->plan = NULL;
    free(s->plan_win);
    s->plan_win = NULL;
    if (pthread_create(&s->releaser, NULL, release_main, s) == 0)
        s->releasing = 1;
    else
        release_main(s); /* no thread: here */
}

void analyze_session_set_progress(analyze_session *s, progress *pg)
{
    if (s)
        s->pg = pg;
}

progress *session_progress(analyze_session *s)
{
    return s->pg;
}

const analyze_context *session_context(const analyze_session *s)
{
    return &s->ctx;
}

void analyze_session_next(analyze_session *s, const char *input)
{
    if (s)
        s->next = input;
}

int analyze_session_run(analyze_session *s, const char *input, const sink_request *outputs, int n_outputs,
                        analyze_result *res, sp_errinfo *ei)
{
    analyze_result local;
    analyze_config c;
    if (!res)
        res = &local;
    memset(res, 0, sizeof *res);
    if (!s || n_outputs < 0 || n_outputs > ANALYZE_MAX_OUTPUTS || (n_outputs > 0 && !outputs))
        return sp_fail(ei, SP_EINVAL, "analyze_session_run: bad argument");
    c = s->cfg;
    c.input = input;
    if (n_outputs > 0)
        memcpy(c.outputs, outputs, (size_t)n_outputs * sizeof *outputs);
    c.n_outputs = n_outputs;
    return pipe_run(s, &c, NULL, res, ei);
}

/* ---- feeds ---------------------------------------------------------------------------------- */

int pipe_feed_ring(pipe_feed *f, size_t floats, sp_errinfo *ei)
{
    if (f->ring_floats != floats) {
        free(f->ring_mem);
        f->ring_floats = 0;
        if (!(f->ring_mem = malloc(floats * sizeof *f->ring_mem)))
            return sp_fail(ei, SP_ENOMEM, "out of memory for the sample ring");
        if (floats * sizeof *f->ring_mem >= RING_HUGE_BYTES) {
            /* a big ring in 2 MB pages where the kernel has them: the reader touches each
             * page once, a fault per 2 MB instead of per 4 KB (the aligned part of it) */
            uintptr_t a = ((uintptr_t)f->ring_mem + RING_HUGE_PAGE - 1) & ~(uintptr_t)(RING_HUGE_PAGE - 1);
            uintptr_t e = ((uintptr_t)f->ring_mem + floats * sizeof *f->ring_mem) & ~(uintptr_t)(RING_HUGE_PAGE - 1);
            if (e > a)
                (void)madvise((void *)a, e - a, MADV_HUGEPAGE);
        }
        f->ring_floats = floats;
    }
    ring_init(&f->r, f->ring_mem, floats);
    return SP_OK;
}

void pipe_feed_release(pipe_feed *f)
{
    pipe_input_stop(&f->in, NULL);
    /* a stopped input is started again from zero (its flags and counters) */
    memset(&f->in, 0, sizeof f->in);
    source_close(f->src);
    f->src = NULL;
    f->input = NULL;
    f->open_err = SP_OK;
    f->open_ei.msg[0] = 0;
}

pipe_feed *session_feed(analyze_session *s, const char *input)
{
    pipe_feed *ahead = &s->feed[s->cur ^ 1];
    int hit = s->ahead && ahead->input && input && strcmp(ahead->input, input) == 0;
    if (hit)
        s->cur ^= 1;
    pipe_feed_release(&s->feed[s->cur ^ 1]); /* a read-ahead of another input goes */
    s->next = NULL;
    s->ahead = 0;
    if (!hit)
        s->feed[s->cur].input = input;
    return &s->feed[s->cur];
}

void session_read_ahead(analyze_session *s)
{
    pipe_feed *f = &s->feed[s->cur ^ 1];
    source_request req;
    int err;
    /* a pipe is opened by its own run: opening it ahead would wait for its writer */
    if (s->ahead || !s->next || s->cfg.realtime || source_is_pipe_path(s->next))
        return;
    s->ahead = 1;
    pipe_feed_release(f);
    f->input = s->next;
    req = (source_request){s->next, s->cfg.device, s->cfg.rate, s->cfg.channels, s->cfg.file, s->ctx.stop};
    err = source_open_request(&req, &f->src, &f->open_ei);
    /* a push source (live) starts with its run, like any live input */
    if (err == SP_OK && !source_is_push(f->src) && (err = pipe_feed_ring(f, FILE_RING_FLOATS, &f->open_ei)) == SP_OK)
        err = pipe_input_start(&f->in, f->src, &f->r, 0, s->ctx.stop, &f->open_ei);
    f->open_err = err;
}

/* ---- the plan and the framer ---------------------------------------------------------------- */

/* The settings that make a plan, other than the window. */
static int plan_fits(const fft_config *a, const fft_config *b)
{
    return a->backend == b->backend && a->n == b->n && a->hop == b->hop && a->max_batch == b->max_batch &&
           a->live == b->live && a->tuning.cpu_threads == b->tuning.cpu_threads &&
           a->tuning.cpu_simd == b->tuning.cpu_simd && a->tuning.cuda_path == b->tuning.cuda_path &&
           a->tuning.cuda_stream == b->tuning.cuda_stream;
}

static int window_fits(const float *kept, const float *w, size_t n)
{
    if (!kept || !w)
        return !kept && !w;
    return memcmp(kept, w, n * sizeof *w) == 0;
}

int session_plan(analyze_session *s, const fft_config *fc, const fft_choice *choice, fft_plan **plan,
                 sp_errinfo *ei)
{
    int err;
    if (s->releasing) /* a run after the last (analyze_context.last_run): no plan beside the release */
        return sp_fail(ei, SP_EINVAL, "analyze: a run after the process's last run");
    if (s->plan && plan_fits(&s->plan_fc, fc) && window_fits(s->plan_win, fc->window, fc->n)) {
        *plan = s->plan;
        return SP_OK;
    }
    stft_destroy(s->st);
    s->st = NULL;
    fft_plan_destroy(s->plan);
    s->plan = NULL;
    free(s->plan_win);
    s->plan_win = NULL;
    if (fc->window) {
        if (!(s->plan_win = malloc(fc->n * sizeof *s->plan_win)))
            return sp_fail(ei, SP_ENOMEM, "out of memory for a window of %zu samples", fc->n);
        memcpy(s->plan_win, fc->window, fc->n * sizeof *s->plan_win);
    }
    if ((err = fft_plan_create_chosen(fc, choice, &s->plan, ei)) != SP_OK)
        return err;
    s->plan_fc = *fc;
    s->plan_fc.window = NULL;
    *plan = s->plan;
    return SP_OK;
}

/* The framer calls the sinks of the run it serves now. */
static int session_frames(void *user, int channel, uint64_t first, size_t nframes, const float *db)
{
    analyze_session *s = user;
    return pipe_sinks_frames(s->sinks, channel, first, nframes, db);
}

static int stft_fits(const stft_config *a, const stft_config *b)
{
    return a->n == b->n && a->hop == b->hop && a->in_channels == b->in_channels && a->channel == b->channel &&
           a->batch == b->batch;
}

int session_stft(analyze_session *s, const stft_config *sc, fft_plan *plan, pipe_sinks *sinks, stft **out,
                 sp_errinfo *ei)
{
    int err;
    s->sinks = sinks;
    if (s->st && plan == s->plan && stft_fits(&s->st_cfg, sc)) {
        *out = s->st;
        return stft_reset(s->st, ei);
    }
    stft_destroy(s->st);
    s->st = NULL;
    if ((err = stft_create(sc, plan, session_frames, s, &s->st, ei)) != SP_OK)
        return err;
    s->st_cfg = *sc;
    *out = s->st;
    return SP_OK;
}
