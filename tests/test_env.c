/* test_env: the environment's doors, the library's (src/job/job_env.c) and the window's
 * (src/view/view_env.c), and the test hooks behind them (docs/developer.md "Test hooks").
 * This file is built twice with job_env.c and view_env.c compiled into it:
 * test_env with SPECTRO_TEST_HOOKS defined, as in the builds the test suite uses, where each
 * of the hook variables acts and a bad value is refused with a line naming it; and
 * test_env_nohooks without, as in the installed and packaged program, where the same
 * variables, good or bad, leave every setting at its default. The user's variables
 * (docs/manual.md "Environment variables") act in both. Only the two doors read the
 * environment (e2e_docs checks that the hook names appear nowhere else in src/), so what
 * they ignore the program ignores. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "job.h"
#include "view.h"

/* The hooks, each with a good value and a bad one (NULL: any value is taken). */
static const struct {
    const char *name, *good, *bad;
} HOOKS[] = {
    {.name = "SPECTRO_AUTO_DEVICE", .good = "1", .bad = "yes"},
    {.name = "SPECTRO_READ_CHUNK", .good = "1000", .bad = "0"},
    {.name = "SPECTRO_TEST_FONTS", .good = "bundled", .bad = NULL},
    {.name = "SPECTRO_TEST_STALL", .good = "1.5:0.25", .bad = NULL},
    {.name = "SPECTRO_TEST_MAXIMA", .good = "host", .bad = "bogus"},
    {.name = "SPECTRO_VIEW_STATS", .good = "stats.json", .bad = NULL},
    {.name = "SPECTRO_VIEW_VERIFY", .good = "1", .bad = NULL},
    {.name = "SPECTRO_VIEW_SHOT", .good = "shot.png", .bad = NULL},
    {.name = "SPECTRO_VIEW_KEYS", .good = "v o", .bad = NULL},
};
#define NHOOKS (sizeof HOOKS / sizeof HOOKS[0])

static void unset_all(void)
{
    for (size_t i = 0; i < NHOOKS; i++)
        unsetenv(HOOKS[i].name);
    unsetenv("SPECTRO_READERS");
    unsetenv("SPECTRO_CPU_THREADS");
}

/* A fresh job's settings after job_read_environment, and the window's own. */
static int read_env(analyze_config *an, analyze_context *ctx, view_config *vc, sp_errinfo *ei)
{
    job *j = NULL;
    int err = job_create(&j, ei);
    if (err == SP_OK)
        err = job_read_environment(j, ei);
    if (j) {
        *an = j->an;
        *ctx = j->run;
        ctx->stop = NULL; /* the job's own, gone with it */
    }
    job_destroy(j);
    *vc = view_config_default();
    view_config_from_env(vc);
    return err;
}

/* Every hook set to its good value: with the hooks each acts, without none does. */
static void test_good_values(void)
{
    analyze_config an;
    analyze_context ctx;
    view_config vc;
    sp_errinfo ei = {{0}};
    unset_all();
    for (size_t i = 0; i < NHOOKS; i++)
        setenv(HOOKS[i].name, HOOKS[i].good, 1);
    CHECK_MSG(read_env(&an, &ctx, &vc, &ei) == SP_OK, "%s", ei.msg);
#ifdef SPECTRO_TEST_HOOKS
    CHECK(an.fft_tuning.auto_device == FFT_AUTO_DEVICE_PRESENT);
    CHECK(an.file.read_chunk == 1000);
    CHECK(an.render.font_no_system == 1);
    CHECK(ctx.test.stall_at == 1.5 && ctx.test.stall_for == 0.25);
    CHECK(ctx.test.maxima == ANALYZE_TEST_MAXIMA_HOST);
    CHECK(vc.stats_path && strcmp(vc.stats_path, "stats.json") == 0);
    CHECK(vc.verify == 1);
    CHECK(vc.shot_path && strcmp(vc.shot_path, "shot.png") == 0);
    CHECK(vc.keys && strcmp(vc.keys, "v o") == 0);
#else
    CHECK(an.fft_tuning.auto_device == FFT_AUTO_DEVICE_PROBE);
    CHECK(an.file.read_chunk == source_file_options_default().read_chunk);
    CHECK(an.render.font_no_system == 0);
    CHECK(ctx.test.stall_at == 0 && ctx.test.stall_for == 0);
    CHECK(ctx.test.maxima == ANALYZE_TEST_MAXIMA_DEVICE);
    CHECK(vc.stats_path == NULL && vc.shot_path == NULL && vc.keys == NULL && vc.verify == 0);
#endif
    unset_all();
}

/* Each hook with a bad value alone: refused naming it with the hooks, ignored without. */
static void test_bad_values(void)
{
    for (size_t i = 0; i < NHOOKS; i++) {
        analyze_config an;
        analyze_context ctx;
        view_config vc;
        sp_errinfo ei = {{0}};
        int err;
        if (!HOOKS[i].bad)
            continue;
        unset_all();
        setenv(HOOKS[i].name, HOOKS[i].bad, 1);
        err = read_env(&an, &ctx, &vc, &ei);
#ifdef SPECTRO_TEST_HOOKS
        CHECK_MSG(err == SP_EINVAL && strncmp(ei.msg, HOOKS[i].name, strlen(HOOKS[i].name)) == 0,
                  "%s=%s: %d \"%s\"", HOOKS[i].name, HOOKS[i].bad, err, ei.msg);
#else
        CHECK_MSG(err == SP_OK, "%s=%s: %d \"%s\"", HOOKS[i].name, HOOKS[i].bad, err, ei.msg);
#endif
    }
    unset_all();
}

/* The user's variables act either way. */
static void test_user_variables(void)
{
    analyze_config an;
    analyze_context ctx;
    view_config vc;
    sp_errinfo ei = {{0}};
    unset_all();
    setenv("SPECTRO_READERS", "3", 1);
    CHECK_MSG(read_env(&an, &ctx, &vc, &ei) == SP_OK, "%s", ei.msg);
    CHECK(an.file.readers == 3);
    setenv("SPECTRO_CPU_THREADS", "many", 1);
    CHECK(read_env(&an, &ctx, &vc, &ei) == SP_EINVAL && strstr(ei.msg, "SPECTRO_CPU_THREADS=many") == ei.msg);
    unset_all();
}

int main(void)
{
    test_good_values();
    test_bad_values();
    test_user_variables();
#ifdef SPECTRO_TEST_HOOKS
    return check_done("test_env");
#else
    return check_done("test_env_nohooks");
#endif
}
