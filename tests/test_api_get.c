/* test_api_get: a job's settings read back (spectro_job_get, spectro_job_prepare,
 * spectro_job_is_set, spectro_job_input, spectro_job_font, spectro_job_stop_asked; API
 * version 7) through libspectro.so alone. Every
 * setting of spectro_setting_info_at answers, on a default job and on jobs given values;
 * setting what was read changes nothing (a job made from another's read-back settings
 * reads the same, prepared too); the values given come back as written here by hand; what
 * prepare makes of the settings (the default hop N/4, tone's kaiser:20, the colour range
 * spl_offset moves) comes back after it, and again after a second prepare; the errors. The
 * window reads its settings this way (src/view/view_settings.c). */
#define _DEFAULT_SOURCE /* mkstemp, setenv */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "spectro.h"

int check_failures, check_count; /* check.h's counters */

#define INPUT "synth:rate=48000,sine=1000,duration=1"

static const char *get(const spectro_job *j, const char *name, char *buf, size_t len)
{
    spectro_error e = {0, {0}};
    int code = spectro_job_get(j, name, buf, len, &e);
    CHECK_MSG(code == SPECTRO_OK, "get %s: %d %s", name, code, e.message);
    if (code != SPECTRO_OK)
        buf[0] = 0;
    return buf;
}

static spectro_job *make(const char *const *pairs)
{
    spectro_job *j = NULL;
    spectro_error e = {0, {0}};
    CHECK(spectro_job_create(&j, &e) == SPECTRO_OK);
    CHECK(spectro_job_add_input(j, INPUT, &e) == SPECTRO_OK);
    for (; pairs && pairs[0]; pairs += 2)
        CHECK_MSG(spectro_job_set(j, pairs[0], pairs[1], &e) == SPECTRO_OK, "set %s %s: %s", pairs[0],
                  pairs[1] ? pairs[1] : "(none)", e.message);
    return j;
}

/* Every setting answers; a job given what src reads (its non-empty values) reads the same,
 * before and after both are prepared (prepare_ok: src's settings go together). */
static void check_round_trip(spectro_job *src, int prepare_ok, const char *what)
{
    spectro_job *copy = make(NULL);
    spectro_error e = {0, {0}};
    char a[1024], b[1024];
    int n = spectro_setting_count();
    CHECK(n > 40);
    for (int i = 0; i < n; i++) {
        spectro_setting_info info;
        CHECK(spectro_setting_info_at(i, &info) == SPECTRO_OK);
        get(src, info.name, a, sizeof a);
        if (a[0])
            CHECK_MSG(spectro_job_set(copy, info.name, a, &e) == SPECTRO_OK, "%s: set %s \"%s\": %s", what, info.name,
                      a, e.message);
    }
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1) {
            CHECK_MSG(spectro_job_prepare(src, &e) == (prepare_ok ? SPECTRO_OK : SPECTRO_EINVAL), "%s: %s", what,
                      e.message);
            CHECK_MSG(spectro_job_prepare(copy, &e) == (prepare_ok ? SPECTRO_OK : SPECTRO_EINVAL), "%s: %s", what,
                      e.message);
        }
        for (int i = 0; i < n; i++) {
            spectro_setting_info info;
            spectro_setting_info_at(i, &info);
            CHECK_MSG(strcmp(get(src, info.name, a, sizeof a), get(copy, info.name, b, sizeof b)) == 0,
                      "%s%s: %s reads \"%s\", set from it \"%s\"", what, pass ? " (prepared)" : "", info.name, a, b);
        }
    }
    spectro_job_destroy(copy);
}

/* name, what it reads: the defaults as docs/manual.md gives them */
static const char *const DEFAULTS[] = {
    "fft_size", "4096", "hop", "", "window", "hann", "channel", "mix", "backend", "auto", "dump", "", "peaks", "0",
    "png", "", "average", "", "tone", "", "psd", "0", "size", "1920x1080", "scale", "linear", "db_range", "-120:0",
    "fmin", "", "fmax", "", "mel", "", "cqt", "", "chroma", "0", "transfer", "", "start", "0", "duration", "",
    "end", "", "raw_format", "", "shard", "", "rate", "", "quiet", "0", "spl_offset", "", NULL};

static void test_default_job(void)
{
    spectro_job *j = make(NULL);
    char v[1024];
    for (const char *const *p = DEFAULTS; *p; p += 2)
        CHECK_MSG(strcmp(get(j, p[0], v, sizeof v), p[1]) == 0, "default %s: \"%s\", not \"%s\"", p[0], v, p[1]);
    check_round_trip(j, 1, "default");
    CHECK(strcmp(get(j, "hop", v, sizeof v), "1024") == 0); /* prepared: 4096/4 */
    spectro_job_destroy(j);
}

/* Given values and what they read back: as given, or in the setting's own spelling. */
static const char *const GIVEN[] = {
    "fft-size", "8192", "8192", "hop", "512", "512", "window", "kaiser:8.6", "kaiser:8.6", "channel", "1", "1",
    "backend", "cpu", "cpu", "dump", "out.npy", "out.npy", "average", "max", "max", "size", "800x600", "800x600",
    "scale", "log", "log", "colormap", "magma", "magma", "db_range", "-90.5:-10", "-90.5:-10", "fmin", "50", "50",
    "fmax", "8000.25", "8000.25", "start", "0:00.5", "0.5", "end", "0.75", "0.75", "spl_offset", "3.5", "3.5",
    "quiet", "1", "1", "peaks", NULL, "1", "png", "out.png", "out.png", "calibration", "mic.txt", "mic.txt", NULL};

static const char *const GIVEN2[] = {
    "tone", "997.5", "997.5", "tone_format", "text", "text", "channel", "all", "all", "verbose", "yes", "1", NULL};

static const char *const GIVEN3[] = {"chroma", NULL, "1", "tuning", "auto", "auto", "fmin", "0", "0",
                                     "png", "c.png", "c.png", NULL};

static const char *const GIVEN4[] = {"cqt", "24", "24", "dump", "x.npy", "x.npy", "shard", "1/4", "1/4",
                                     "raw_format", "f32le,44100,2", "f32le,44100,2", "transfer", "0:1", "0:1",
                                     "remove_delay", NULL, "1", "bands", "3", "3", "weighting", "A", "A", NULL};

static void test_given(const char *const *table, int prepare_ok, const char *what)
{
    const char *pairs[64];
    int n = 0;
    spectro_job *j;
    char v[1024];
    for (const char *const *p = table; *p; p += 3) {
        pairs[n++] = p[0];
        pairs[n++] = p[1];
    }
    pairs[n] = NULL;
    j = make(pairs);
    for (const char *const *p = table; *p; p += 3) {
        CHECK_MSG(strcmp(get(j, p[0], v, sizeof v), p[2]) == 0, "%s: %s reads \"%s\", not \"%s\"", what, p[0], v, p[2]);
        CHECK(spectro_job_is_set(j, p[0]) == 1);
    }
    CHECK(spectro_job_is_set(j, "rate") == 0);
    check_round_trip(j, prepare_ok, what);
    spectro_job_destroy(j);
}

/* What prepare makes of the settings, read after it; a second prepare, and a setting after
 * it, start from the settings as given. */
static void test_prepare(void)
{
    static const char *const set[] = {"fft_size", "8192", "tone", NULL, "spl_offset", "10", NULL};
    spectro_job *j = make(set);
    spectro_error e = {0, {0}};
    char v[256];
    CHECK(strcmp(get(j, "hop", v, sizeof v), "") == 0);
    CHECK(strcmp(get(j, "window", v, sizeof v), "") == 0);   /* tone's, once prepared */
    CHECK(strcmp(get(j, "db_range", v, sizeof v), "") == 0); /* spl_offset moves it */
    for (int pass = 0; pass < 2; pass++) {
        CHECK(spectro_job_prepare(j, &e) == SPECTRO_OK);
        CHECK_MSG(strcmp(get(j, "hop", v, sizeof v), "2048") == 0, "hop %s", v);
        CHECK_MSG(strcmp(get(j, "window", v, sizeof v), "kaiser:20") == 0, "window %s", v);
        CHECK_MSG(strcmp(get(j, "db_range", v, sizeof v), "-110:10") == 0, "db_range %s", v);
        CHECK_MSG(strcmp(get(j, "tone", v, sizeof v), "auto") == 0, "tone %s", v);
    }
    CHECK(spectro_job_set(j, "fft_size", "1024", &e) == SPECTRO_OK);
    CHECK(strcmp(get(j, "hop", v, sizeof v), "") == 0);
    CHECK(strcmp(get(j, "db_range", v, sizeof v), "") == 0);
    CHECK(spectro_job_prepare(j, &e) == SPECTRO_OK);
    CHECK_MSG(strcmp(get(j, "hop", v, sizeof v), "256") == 0, "hop %s", v);
    CHECK_MSG(strcmp(get(j, "db_range", v, sizeof v), "-110:10") == 0, "db_range %s", v);
    CHECK(spectro_job_set(j, "window", "hamming", &e) == SPECTRO_OK);
    CHECK(spectro_job_prepare(j, &e) == SPECTRO_OK);
    CHECK_MSG(strcmp(get(j, "window", v, sizeof v), "hamming") == 0, "window %s", v);
    /* a failed prepare leaves the settings as given */
    CHECK(spectro_job_set(j, "fmax", "100", &e) == SPECTRO_OK);
    CHECK(spectro_job_set(j, "fmin", "200", &e) == SPECTRO_OK);
    CHECK(spectro_job_prepare(j, &e) == SPECTRO_EINVAL && strstr(e.message, "fmin"));
    CHECK(strcmp(get(j, "db_range", v, sizeof v), "") == 0);
    /* --view: the window takes tone; its output is not made, yet it reads as given */
    spectro_job_destroy(j);
    {
        static const char *const view[] = {"tone", "440", "view", NULL, NULL}, *const bars[] = {"bands", "3", NULL};
        j = make(view);
        CHECK(spectro_job_prepare(j, &e) == SPECTRO_OK);
        CHECK(strcmp(get(j, "tone", v, sizeof v), "440") == 0);
        CHECK(strcmp(get(j, "view", v, sizeof v), "1") == 0);
        spectro_job_destroy(j);
        j = make(bars); /* no output: the window's band bars */
        CHECK(spectro_job_prepare(j, &e) == SPECTRO_OK);
        CHECK(strcmp(get(j, "bands", v, sizeof v), "3") == 0);
        spectro_job_destroy(j);
    }
}

/* The font a job draws with: one readable; SPECTRO_FONT's where the environment was read. */
static void test_font_and_stop(void)
{
    spectro_job *j = make(NULL);
    spectro_error e = {0, {0}};
    char path[1024], copy[] = "/tmp/spectro-font-XXXXXX", cmd[2200];
    FILE *f;
    int fd;
    CHECK(spectro_job_font(j, path, sizeof path, &e) == SPECTRO_OK);
    CHECK((f = fopen(path, "rb")) != NULL);
    if (f)
        fclose(f);
    CHECK(spectro_job_font(j, path, 0, &e) == SPECTRO_EINVAL);
    spectro_job_destroy(j);
    if ((fd = mkstemp(copy)) >= 0) {
        close(fd);
        snprintf(cmd, sizeof cmd, "cp '%s' '%s'", path, copy);
        CHECK(system(cmd) == 0);
        setenv("SPECTRO_FONT", copy, 1);
        j = make(NULL);
        CHECK(spectro_job_read_environment(j, &e) == SPECTRO_OK);
        CHECK(spectro_job_font(j, path, sizeof path, &e) == SPECTRO_OK && strcmp(path, copy) == 0);
        /* a buffer one byte short: refused, saying what it takes (not a font "not found") */
        CHECK(spectro_job_font(j, path, strlen(copy), &e) == SPECTRO_EINVAL);
        CHECK_MSG(strstr(e.message, "takes") != NULL, "%s", e.message);
        unsetenv("SPECTRO_FONT");
        remove(copy);
        CHECK(spectro_job_stop_asked(j) == 0);
        spectro_job_stop(j, 7); /* a display's own runs end with the job */
        CHECK(spectro_job_stop_asked(j) == 7);
        spectro_job_destroy(j);
    }
}

static void test_errors_and_inputs(void)
{
    spectro_job *j = make(NULL);
    spectro_error e = {0, {0}};
    char v[8];
    CHECK(spectro_job_get(j, "no_such", v, sizeof v, &e) == SPECTRO_EINVAL && strstr(e.message, "no_such"));
    CHECK(spectro_job_is_set(j, "no_such") == SPECTRO_EINVAL);
    CHECK(spectro_job_get(j, "fft_size", NULL, 8, &e) == SPECTRO_EINVAL);
    CHECK(spectro_job_get(j, "fft_size", v, 4, &e) == SPECTRO_EINVAL && strstr(e.message, "fft_size") &&
          strstr(e.message, "5 bytes") && strcmp(v, "409") == 0);
    CHECK(spectro_job_get(j, "fft_size", v, 5, &e) == SPECTRO_OK && strcmp(v, "4096") == 0);
    CHECK(spectro_job_get(j, "mode", v, sizeof v, &e) == SPECTRO_OK); /* an alias */
    CHECK(spectro_job_input(j, 0) && strcmp(spectro_job_input(j, 0), INPUT) == 0);
    CHECK(spectro_job_input(j, 1) == NULL && spectro_job_input(j, -1) == NULL && spectro_job_input(NULL, 0) == NULL);
    spectro_job_destroy(j);
}

int main(void)
{
    test_default_job();
    test_given(GIVEN, 1, "given");
    test_given(GIVEN2, 1, "given2");
    test_given(GIVEN3, 1, "given3");
    test_given(GIVEN4, 0, "given4"); /* read back whatever the settings together say */
    test_prepare();
    test_errors_and_inputs();
    test_font_and_stop();
    return check_done("test_api_get");
}
