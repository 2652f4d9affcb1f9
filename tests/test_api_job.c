/* test_api_job: spectro_job (include/spectro.h, API versions 4 and 5) through libspectro.so
 * alone: settings by name with errors naming the field, a run that writes its output, a batch
 * with a failed file said through the message callback, a live run stopped from another
 * thread, the settings' table, the field namer, the frames to a callback (the dump's rows,
 * a transform's, a stop from the callback, a batch refused). The program is this API's client: every e2e test of
 * the program runs through it too. */
#define _DEFAULT_SOURCE /* usleep, mkdtemp */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "spectro.h"

int check_failures, check_count; /* check.h's counters */

static char dir[] = "/tmp/spectro-job-XXXXXX";

static spectro_job *new_job(void)
{
    spectro_job *j = NULL;
    spectro_error e = {0, ""};
    CHECK_MSG(spectro_job_create(&j, &e) == SPECTRO_OK, "%s", e.message);
    return j;
}

static long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

static void test_settings_refused_naming_the_field(void)
{
    spectro_job *j = new_job();
    spectro_error e = {0, ""};
    CHECK(spectro_job_set(j, "hop", "0", &e) == SPECTRO_EINVAL);
    CHECK_MSG(strcmp(e.message, "hop 0: must be at least 1") == 0, "%s", e.message);
    CHECK(spectro_job_set(j, "fft_size", "100", &e) == SPECTRO_EINVAL && strncmp(e.message, "fft_size 100:", 13) == 0);
    CHECK(spectro_job_set(j, "window", "sinc", &e) == SPECTRO_EINVAL && strstr(e.message, "unknown window"));
    CHECK(spectro_job_set(j, "no_such", "1", &e) == SPECTRO_EINVAL && strstr(e.message, "no such setting"));
    CHECK(spectro_job_set(j, "hop", NULL, &e) == SPECTRO_EINVAL && strstr(e.message, "missing value"));
    CHECK(spectro_job_set(j, "fft-size", "1024", &e) == SPECTRO_OK); /* '-' and '_' alike */
    /* the settings together: checked by the run, naming fields (no option) */
    CHECK(spectro_job_set(j, "weighting", "A", &e) == SPECTRO_OK);
    CHECK(spectro_job_add_input(j, "synth:duration=1", &e) == SPECTRO_OK);
    CHECK(spectro_job_run(j, &e) == SPECTRO_EINVAL);
    CHECK_MSG(strcmp(e.message, "weighting: only with bands (it weights the band levels)") == 0, "%s", e.message);
    CHECK(spectro_job_run(j, &e) == SPECTRO_EINVAL && strstr(e.message, "runs once"));
    spectro_job_destroy(j);
}

/* A 1 kHz sine's dump: the .npy and its sidecar written, of the frames the settings give. */
static void test_run_writes_the_dump(void)
{
    spectro_job *j = new_job();
    spectro_error e = {0, ""};
    char out[256], side[300];
    snprintf(out, sizeof out, "%s/one.npy", dir);
    snprintf(side, sizeof side, "%s.json", out);
    CHECK(spectro_job_set(j, "fft_size", "1024", &e) == SPECTRO_OK);
    CHECK(spectro_job_set(j, "hop", "512", &e) == SPECTRO_OK);
    CHECK(spectro_job_set(j, "backend", "cpu", &e) == SPECTRO_OK);
    CHECK(spectro_job_set(j, "dump", out, &e) == SPECTRO_OK);
    CHECK(spectro_job_add_input(j, "synth:rate=48000,sine=1000,duration=1", &e) == SPECTRO_OK);
    CHECK_MSG(spectro_job_run(j, &e) == SPECTRO_OK, "%s", e.message);
    /* 92 frames of 513 float32 bins after a 128-byte header */
    CHECK_MSG(file_size(out) == 128 + 92 * 513 * 4, "%ld", file_size(out));
    CHECK(file_size(side) > 0);
    CHECK(spectro_job_stopped(j) == 0);
    spectro_job_destroy(j);
}

/* What a frames callback saw: the rows of channel 0 in order, and what info said. */
typedef struct {
    float *rows;
    size_t frames, cap_frames, width;
    uint64_t next;        /* the frame number the next call should start at */
    int calls, out_of_order, stop_after, channels_seen;
    spectro_frames_info info;
    double freq1;         /* info.freqs_hz[1] at the first call */
} seen;

static int take_frames(void *user, const spectro_frames_info *info, int channel, uint64_t first, size_t count,
                       const float *rows)
{
    seen *s = user;
    size_t width = info->bins * info->depth;
    s->calls++;
    s->info = *info;
    s->channels_seen |= 1 << channel;
    if (s->calls == 1)
        s->freq1 = info->freqs_hz[1];
    if (channel != 0)
        return 0;
    if (first != s->next)
        s->out_of_order++;
    s->next = first + count;
    if (s->frames + count > s->cap_frames) {
        s->cap_frames = 2 * (s->frames + count);
        s->rows = realloc(s->rows, s->cap_frames * width * sizeof *s->rows);
    }
    memcpy(s->rows + s->frames * width, rows, count * width * sizeof *rows);
    s->frames += count;
    s->width = width;
    return s->stop_after && s->calls >= s->stop_after;
}

/* The rows of an .npy of float32 written by the dump (its 128-byte header skipped). */
static float *read_npy(const char *path, size_t *floats)
{
    FILE *f = fopen(path, "rb");
    long size = file_size(path);
    float *v = size > 128 ? malloc((size_t)size - 128) : NULL;
    *floats = 0;
    if (f && v && fseek(f, 128, SEEK_SET) == 0 && fread(v, 1, (size_t)size - 128, f) == (size_t)size - 128)
        *floats = ((size_t)size - 128) / sizeof *v;
    if (f)
        fclose(f);
    return v;
}

/* Every frame the dump writes, bit for bit, through the callback as well; the linear bins'
 * frequencies; a transform's rows (mel 40) with its own frequencies; channel "all" hands
 * both channels. */
static void test_frames_are_the_dump_rows(void)
{
    const char *setups[][2] = {{"mel", "40"}, {NULL, NULL}, {"channel", "all"}};
    for (int t = 0; t < 3; t++) {
        spectro_job *j = new_job();
        spectro_error e = {0, ""};
        seen s;
        char out[256];
        size_t floats = 0;
        float *dump;
        memset(&s, 0, sizeof s);
        snprintf(out, sizeof out, "%s/frames%d.npy", dir, t);
        CHECK(spectro_job_set(j, "fft_size", "1024", &e) == SPECTRO_OK);
        CHECK(spectro_job_set(j, "backend", "cpu", &e) == SPECTRO_OK);
        CHECK(spectro_job_set(j, "dump", out, &e) == SPECTRO_OK);
        if (setups[t][0])
            CHECK_MSG(spectro_job_set(j, setups[t][0], setups[t][1], &e) == SPECTRO_OK, "%s", e.message);
        CHECK(spectro_job_add_input(j, "synth:rate=48000,sine=1000,noise=0.001,channels=2,duration=2", &e) ==
              SPECTRO_OK);
        spectro_job_set_frames(j, take_frames, &s);
        CHECK_MSG(spectro_job_run(j, &e) == SPECTRO_OK, "%s", e.message);
        dump = read_npy(out, &floats);
        CHECK_MSG(s.frames > 0 && s.out_of_order == 0, "%zu frames, %d out of order", s.frames, s.out_of_order);
        if (t == 2) { /* channel all: the dump is (2, frames, bins): channel 0 first */
            CHECK(s.info.channels == 2 && s.channels_seen == 3);
            floats /= 2;
        }
        CHECK_MSG(floats == s.frames * s.width, "dump %zu floats, frames %zu x %zu", floats, s.frames, s.width);
        CHECK(dump && floats == s.frames * s.width && memcmp(dump, s.rows, floats * sizeof *dump) == 0);
        CHECK(s.info.sample_rate == 48000 && s.info.fft_size == 1024 && s.info.hop == 256 && s.info.depth == 1);
        if (t == 0) {
            CHECK(s.info.transform && strcmp(s.info.transform, "mel") == 0 && s.info.bins == 40);
            CHECK(s.freq1 > 0 && s.freq1 < 24000);
        } else {
            CHECK(!s.info.transform && s.info.bins == 513 && fabs(s.freq1 - 48000.0 / 1024) < 1e-9);
            CHECK(s.info.unit && strcmp(s.info.unit, "dBFS") == 0);
        }
        CHECK(fabs(s.info.time_step_s - 256.0 / 48000) < 1e-12 && fabs(s.info.time_first_s - 512.0 / 48000) < 1e-12);
        free(dump);
        free(s.rows);
        spectro_job_destroy(j);
    }
}

/* With no output the callback is the output (no window is tried); a non-zero return stops
 * the run (a file's: SPECTRO_EINTERRUPTED) after that call; a batch is refused. */
static void test_frames_stop_and_batch(void)
{
    spectro_job *j = new_job();
    spectro_error e = {0, ""};
    seen s;
    memset(&s, 0, sizeof s);
    s.stop_after = 1;
    CHECK(spectro_job_set(j, "fft_size", "256", &e) == SPECTRO_OK);
    CHECK(spectro_job_add_input(j, "synth:rate=48000,sine=1000,duration=600", &e) == SPECTRO_OK);
    spectro_job_set_frames(j, take_frames, &s);
    CHECK_MSG(spectro_job_run(j, &e) == SPECTRO_EINTERRUPTED, "%s", e.message);
    CHECK_MSG(s.calls >= 1 && s.frames < 600 * 48000 / 64 / 2, "%d calls, %zu frames", s.calls, s.frames);
    free(s.rows);
    spectro_job_destroy(j);

    j = new_job();
    memset(&s, 0, sizeof s);
    CHECK(spectro_job_add_input(j, "synth:duration=1", &e) == SPECTRO_OK);
    CHECK(spectro_job_add_input(j, "synth:duration=1", &e) == SPECTRO_OK);
    spectro_job_set_frames(j, take_frames, &s);
    CHECK_MSG(spectro_job_run(j, &e) == SPECTRO_EINVAL && strstr(e.message, "one input at a time"), "%s", e.message);
    CHECK(s.calls == 0);
    spectro_job_destroy(j);

    j = new_job(); /* set, then taken back: the window again (no display here: refused) */
    CHECK(spectro_job_add_input(j, "synth:duration=1", &e) == SPECTRO_OK);
    spectro_job_set_frames(j, take_frames, &s);
    spectro_job_set_frames(j, NULL, NULL);
    CHECK(spectro_job_set(j, "view", NULL, &e) == SPECTRO_OK && spectro_job_set(j, "tone", NULL, &e) == SPECTRO_OK);
    spectro_job_set_frames(j, take_frames, &s);
    CHECK(spectro_job_run(j, &e) == SPECTRO_EINVAL && strstr(e.message, "view: not with a frames callback"));
    spectro_job_destroy(j);
}

typedef struct {
    int errors, lines;
    char last[512];
} heard;

static void listen(void *user, int level, const char *line)
{
    heard *h = user;
    h->lines++;
    h->errors += level == SPECTRO_MESSAGE_ERROR;
    snprintf(h->last, sizeof h->last, "%s", line);
}

/* Two inputs into a pattern, one of them missing: the good one written, the bad one said,
 * the count line last, SPECTRO_EIO with nothing left to say. */
static void test_batch_says_its_failures(void)
{
    spectro_job *j = new_job();
    spectro_error e = {0, ""};
    heard h = {0, 0, ""};
    char pattern[256], good[256], missing[256];
    snprintf(pattern, sizeof pattern, "%s/{stem}.npy", dir);
    snprintf(good, sizeof good, "%s/synth:sine=440,duration=1.npy", dir); /* its stem: the spec */
    snprintf(missing, sizeof missing, "%s/nothing-here.wav", dir);
    spectro_job_set_messages(j, listen, &h);
    CHECK(spectro_job_set(j, "dump", pattern, &e) == SPECTRO_OK);
    CHECK(spectro_job_add_input(j, "synth:sine=440,duration=1", &e) == SPECTRO_OK);
    CHECK(spectro_job_add_input(j, missing, &e) == SPECTRO_OK);
    CHECK(spectro_job_run(j, &e) == SPECTRO_EIO);
    CHECK_MSG(e.message[0] == 0, "%s", e.message);
    CHECK_MSG(h.errors == 2 && strcmp(h.last, "1 of 2 files failed") == 0, "%d errors, last: %s", h.errors, h.last);
    CHECK(file_size(good) > 128);
    spectro_job_destroy(j);
}

static void *stop_later(void *arg)
{
    usleep(300000);
    spectro_job_stop(arg, 15);
    return NULL;
}

/* A live run (a generated signal at its own rate, no end) stopped by another thread: its
 * output kept, the reason given back. */
static void test_stop_from_another_thread(void)
{
    spectro_job *j = new_job();
    spectro_error e = {0, ""};
    pthread_t th;
    char out[256];
    snprintf(out, sizeof out, "%s/live.npy", dir);
    CHECK(spectro_job_set(j, "realtime", NULL, &e) == SPECTRO_OK);
    CHECK(spectro_job_set(j, "fft_size", "256", &e) == SPECTRO_OK);
    CHECK(spectro_job_set(j, "dump", out, &e) == SPECTRO_OK);
    CHECK(spectro_job_add_input(j, "synth:sine=440,duration=inf", &e) == SPECTRO_OK);
    CHECK(pthread_create(&th, NULL, stop_later, j) == 0);
    CHECK_MSG(spectro_job_run(j, &e) == SPECTRO_OK, "%s", e.message);
    pthread_join(th, NULL);
    CHECK(spectro_job_stopped(j) == 15);
    CHECK(file_size(out) > 128);
    spectro_job_destroy(j);
}

static const char *as_option(const char *field)
{
    return strcmp(field, "hop") == 0 ? "--HOP" : NULL;
}

static void test_settings_table_and_namer(void)
{
    spectro_setting_info *info = malloc(sizeof *info);
    spectro_error e = {0, ""};
    spectro_job *j;
    int n = spectro_setting_count(), found = 0;
    CHECK(n > 40);
    for (int i = 0; i < n; i++) {
        CHECK(spectro_setting_info_at(i, info) == SPECTRO_OK && info->name && info->help[0]);
        if (strcmp(info->name, "window") == 0)
            found += info->kind == 'l' && strstr(info->values, "hann") != NULL;
        if (strcmp(info->name, "fft_size") == 0)
            found += info->value && strcmp(info->value, "N") == 0 && strstr(info->help, "(default 4096)") != NULL;
    }
    CHECK(found == 2);
    CHECK(spectro_setting_info_at(n, info) == SPECTRO_EINVAL && spectro_setting_info_at(-1, info) == SPECTRO_EINVAL);
    free(info);
    /* last: the namer is the process's */
    spectro_set_field_namer(as_option);
    j = new_job();
    CHECK(spectro_job_set(j, "hop", "0", &e) == SPECTRO_EINVAL);
    CHECK_MSG(strcmp(e.message, "--HOP 0: must be at least 1") == 0, "%s", e.message);
    spectro_job_destroy(j);
    spectro_set_field_namer(NULL);
    CHECK(strstr(spectro_features(), "files:") != NULL);
}

int main(void)
{
    char cmd[64];
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_settings_refused_naming_the_field();
    test_run_writes_the_dump();
    test_batch_says_its_failures();
    test_stop_from_another_thread();
    test_settings_table_and_namer();
    test_frames_are_the_dump_rows();
    test_frames_stop_and_batch();
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "test_api_job: could not remove %s\n", dir);
    return check_done("test_api_job");
}
