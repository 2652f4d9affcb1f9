/* test_api_window: the window a job's caller gives (spectro_job_set_window, API version 7)
 * through libspectro.so alone. The library has no window: a job with no output fails with
 * one line unless its caller gave one; given one, the run calls it once, on the run's
 * thread, with the job itself (whose runs it derives), after the settings together and the
 * input were checked, and returns what it returns. The spectro program's window is this
 * function's client: every window test runs through it too. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "spectro.h"

int check_failures, check_count; /* check.h's counters */

#define SYNTH "synth:rate=8000,sine=440,duration=1"

typedef struct {
    int calls;
    spectro_job *job;      /* the job the window was given */
    pthread_t thread;      /* the thread it ran on */
    int code;              /* what it returns */
    const char *message;   /* with this line */
    uint64_t frames;       /* frames of a run it derived (derive: 1) */
    int derive;
} window;

static int count_frames(void *user, const spectro_frames_info *info, int channel, uint64_t first, size_t count,
                        const float *rows)
{
    window *w = user;
    (void)info, (void)first, (void)rows;
    if (channel == 0)
        w->frames += count;
    return SPECTRO_OK;
}

static int show(void *user, spectro_job *j, spectro_error *err)
{
    window *w = user;
    w->calls++;
    w->job = j;
    w->thread = pthread_self();
    if (w->derive) { /* the window's own analysis: a run of the same input */
        spectro_job *d = NULL;
        int code = spectro_job_derive(j, NULL, &d, err);
        if (code == SPECTRO_OK) {
            spectro_job_set_frames(d, count_frames, w);
            code = spectro_job_run(d, err);
        }
        spectro_job_destroy(d);
        if (code != SPECTRO_OK)
            return code;
    }
    if (w->code != SPECTRO_OK)
        snprintf(err->message, sizeof err->message, "%s", w->message);
    return err->code = w->code;
}

/* A job on input with settings name=value pairs (NULL-terminated), its window w (NULL:
 * none); the run's code, its message in e. */
static int run(const char *input, const char *const *settings, window *w, spectro_error *e)
{
    spectro_job *j = NULL;
    int code = spectro_job_create(&j, e);
    CHECK(code == SPECTRO_OK);
    for (; settings && *settings; settings += 2)
        CHECK(spectro_job_set(j, settings[0], settings[1], e) == SPECTRO_OK);
    if (input)
        CHECK(spectro_job_add_input(j, input, e) == SPECTRO_OK);
    if (w)
        spectro_job_set_window(j, show, w);
    memset(e, 0, sizeof *e);
    code = spectro_job_run(j, e);
    if (w && w->calls)
        CHECK(w->job == j);
    spectro_job_destroy(j);
    return code;
}

int main(void)
{
    spectro_error e;
    const char *fft[] = {"fft_size", "512", NULL};
    const char *peaks[] = {"peaks", NULL, "quiet", NULL, NULL};

    /* no output, no window: one line naming what to ask for */
    CHECK(run(SYNTH, NULL, NULL, &e) == SPECTRO_EINVAL);
    CHECK_MSG(strstr(e.message, "no output asked for") && strstr(e.message, "dump"), "%s", e.message);

    /* a window: called once, on this thread, with the job; its OK is the run's */
    window w = {0};
    w.derive = 1;
    CHECK(run(SYNTH, fft, &w, &e) == SPECTRO_OK);
    CHECK(w.calls == 1);
    CHECK(pthread_equal(w.thread, pthread_self()));
    /* what it derived ran the job's input with its frames' settings: 1 s at 8 kHz,
     * N 512, hop 128: (8000 - 512) / 128 + 1 frames */
    CHECK_MSG(w.frames == (8000 - 512) / 128 + 1, "%llu frames", (unsigned long long)w.frames);

    /* its error and line are the run's */
    window bad = {0};
    bad.code = SPECTRO_ENODEV;
    bad.message = "no display to open a window on";
    CHECK(run(SYNTH, NULL, &bad, &e) == SPECTRO_ENODEV);
    CHECK(bad.calls == 1);
    CHECK_MSG(strcmp(e.message, bad.message) == 0, "%s", e.message);

    /* the input is checked first: a missing file fails without the window, naming it */
    window missing = {0};
    CHECK(run("/nonexistent/none.wav", NULL, &missing, &e) != SPECTRO_OK);
    CHECK(missing.calls == 0);
    CHECK_MSG(strstr(e.message, "none.wav") != NULL, "%s", e.message);

    /* so are the settings together: a bad one fails without the window */
    window together = {0};
    const char *range[] = {"fmin", "900", "fmax", "800", NULL};
    CHECK(run(SYNTH, range, &together, &e) == SPECTRO_EINVAL);
    CHECK(together.calls == 0);
    CHECK_MSG(strstr(e.message, "fmin 900") != NULL, "%s", e.message);

    /* a job with an output makes it, and shows no window */
    window unused = {0};
    FILE *devnull = fopen("/dev/null", "w");
    spectro_job *j = NULL;
    CHECK(spectro_job_create(&j, &e) == SPECTRO_OK);
    for (const char *const *s = peaks; *s; s += 2)
        CHECK(spectro_job_set(j, s[0], s[1], &e) == SPECTRO_OK);
    CHECK(spectro_job_add_input(j, SYNTH, &e) == SPECTRO_OK);
    spectro_job_set_output(j, devnull);
    spectro_job_set_window(j, show, &unused);
    CHECK(spectro_job_run(j, &e) == SPECTRO_OK);
    CHECK(unused.calls == 0);
    spectro_job_destroy(j);
    fclose(devnull);

    /* a window taken back (NULL) is none */
    window gone = {0};
    CHECK(spectro_job_create(&j, &e) == SPECTRO_OK);
    CHECK(spectro_job_add_input(j, SYNTH, &e) == SPECTRO_OK);
    spectro_job_set_window(j, show, &gone);
    spectro_job_set_window(j, NULL, NULL);
    CHECK(spectro_job_run(j, &e) == SPECTRO_EINVAL);
    CHECK(gone.calls == 0);
    spectro_job_destroy(j);
    spectro_job_set_window(NULL, show, &gone); /* NULL job: a no-op */

    return check_done("test_api_window");
}
