/* test_api_dump: spectro_dump (include/spectro.h, API version 7) and
 * spectro_stream_check_transfer (spectro_job.h) through libspectro.so alone.
 *
 *   - a job's frames written by spectro_dump as its stream gives them, and their running
 *     mean (spectro_average) written as one averaged row a channel, byte for byte the files
 *     and sidecars the job's own outputs write for the same input (--dump, and --average
 *     mean --dump): .csv of one channel, .npy of every channel (stacked)
 *   - bad paths and configs: SPECTRO_EINVAL or SPECTRO_EIO with a line naming the member,
 *     and nothing left in the directory; a dump destroyed uncommitted leaves nothing
 *   - the transfer check: the job's own --transfer output's line for each bad channel pair
 * The window's export (`e`) is spectro_dump's client (e2e_window_measure checks it too). */
#define _DEFAULT_SOURCE /* mkdtemp */
#include <dirent.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "spectro.h"

int check_failures, check_count; /* check.h's counters */

static char dir[] = "/tmp/spectro-dump-XXXXXX";

#define MONO "synth:rate=48000,sine=1000@0.5,noise=0.01,duration=1"
#define STEREO "synth:rate=44100,sine=3000,noise=0.02,channels=2,duration=1,seed=3"

static void path_in(char *out, size_t len, const char *name)
{
    snprintf(out, len, "%s/%s", dir, name);
}

/* Entries of the test's directory. */
static int dir_entries(void)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;
    while (d && (e = readdir(d)))
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    if (d)
        closedir(d);
    return n;
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    long n;
    *len = 0;
    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (buf = malloc((size_t)n + 1)) && fread(buf, 1, (size_t)n, f) == (size_t)n)
        *len = (size_t)n;
    fclose(f);
    return buf;
}

/* a and b (and their sidecars when `sidecar`) the same bytes. */
static void check_same_file(const char *a, const char *b, int sidecar)
{
    size_t la, lb;
    char *x = slurp(a, &la), *y = slurp(b, &lb);
    CHECK_MSG(x && y && la > 0 && la == lb && memcmp(x, y, la) == 0, "%s (%zu bytes) differs from %s (%zu)", a, la, b,
              lb);
    free(x);
    free(y);
    if (sidecar) {
        char ja[600], jb[600];
        snprintf(ja, sizeof ja, "%s.json", a);
        snprintf(jb, sizeof jb, "%s.json", b);
        check_same_file(ja, jb, 0);
    }
}

/* A job of settings (name, value pairs, NULL-terminated) over input; its code, err set. */
static int run_job(const char *const *set, const char *input, const spectro_stream_ops *ops, void *user,
                   spectro_error *err)
{
    spectro_job *j = NULL;
    int rc = spectro_job_create(&j, err);
    for (int i = 0; rc == SPECTRO_OK && set && set[i]; i += 2)
        rc = spectro_job_set(j, set[i], set[i + 1], err);
    if (rc == SPECTRO_OK)
        rc = spectro_job_add_input(j, input, err);
    if (rc == SPECTRO_OK && ops)
        spectro_job_set_stream(j, ops, user);
    if (rc == SPECTRO_OK)
        rc = spectro_job_run(j, err);
    spectro_job_destroy(j);
    return rc;
}

/* ---- the stream: its frames to a dump as they come, their mean to another at the end ---- */

typedef struct {
    const char *frames_path, *avg_path;
    spectro_dump_config cfg;     /* the stream's description, its strings copied below */
    char source[256], window[64], backend[16], decoder[16], channel_name[8], unit[16];
    spectro_dump *frames;
    spectro_average *avg;
    double bin_hz;
    spectro_stream_info info;    /* for the transfer check (valid during open) */
    int check_ref, check_meas, check_rc;
    spectro_error check_err;
} writer;

static void describe(writer *w, const spectro_stream_info *in)
{
    const spectro_frames_info *f = in->frames;
    spectro_dump_config *c = &w->cfg;
    *c = spectro_dump_config_default();
    snprintf(w->source, sizeof w->source, "%s", f->source);
    snprintf(w->window, sizeof w->window, "%s", in->window);
    snprintf(w->backend, sizeof w->backend, "%s", in->backend);
    snprintf(w->decoder, sizeof w->decoder, "%s", in->decoder);
    snprintf(w->channel_name, sizeof w->channel_name, "%s", in->channel_name ? in->channel_name : "");
    snprintf(w->unit, sizeof w->unit, "%s", f->unit ? f->unit : "");
    c->sample_rate = f->sample_rate;
    c->channels = f->channels;
    c->fft_size = f->fft_size;
    c->hop = f->hop;
    c->bins = f->bins;
    c->bin_hz = in->bin_hz;
    c->time_first_s = f->time_first_s;
    c->time_step_s = f->time_step_s;
    c->unit = w->unit;
    c->window = w->window;
    c->source = w->source;
    c->decoder = w->decoder;
    c->backend = w->backend;
    c->start_s = in->start_s;
    c->source_channels = in->source_channels;
    c->channel = in->channel;
    c->channel_name = in->channel_name ? w->channel_name : NULL;
    w->bin_hz = in->bin_hz;
}

static int w_open(void *user, const spectro_stream_info *in, spectro_stream_wants *want, spectro_error *e)
{
    writer *w = user;
    spectro_analyzer_config fc = spectro_analyzer_config_default();
    spectro_average_config ac = spectro_average_config_default();
    int rc;
    w->info = *in;
    if (w->check_ref >= 0) /* the transfer check's case: nothing else */
        return w->check_rc = spectro_stream_check_transfer(in, w->check_ref, w->check_meas, 0, &w->check_err),
               SPECTRO_OK;
    describe(w, in);
    want->spectra = 1;
    if ((rc = spectro_dump_open(w->frames_path, &w->cfg, &w->frames, e)) != SPECTRO_OK)
        return rc;
    fc.sample_rate = in->frames->sample_rate;
    fc.channels = in->frames->channels;
    fc.channel = in->frames->channels > 1 ? SPECTRO_CHANNEL_ALL : SPECTRO_CHANNEL_MIX;
    fc.fft_size = in->frames->fft_size;
    fc.hop = in->frames->hop;
    fc.window = in->window;
    ac.window_coefficients = in->window_coef;
    return spectro_average_create(&fc, &ac, &w->avg, e);
}

static int w_spectra(void *user, int ch, uint64_t first, size_t count, const float *rows, spectro_error *e)
{
    writer *w = user;
    int rc = spectro_dump_write(w->frames, ch, first, count, rows, e);
    return rc ? rc : spectro_average_add(w->avg, ch, rows, count, e);
}

/* The average's sidecar members as the average output writes them (docs/formats.md). */
static void average_members(writer *w, char *out, size_t len)
{
    double enbw = spectro_average_enbw_bins(w->avg), psd = -10.0 * log10(enbw * w->bin_hz);
    snprintf(out, len,
             ",\n  \"average\": \"mean\",\n  \"frames_averaged\": %llu,\n  \"units\": \"dBFS\","
             "\n  \"enbw_bins\": %.17g,"
             "\n  \"enbw_hz\": %.17g,\n  \"psd_conversion\": \"dBFS/Hz = dBFS - 10*log10(enbw_bins * bin_hz) = dBFS %s "
             "%.6f\"",
             (unsigned long long)spectro_average_frames(w->avg, 0, SPECTRO_AVERAGE_MEAN), enbw, enbw * w->bin_hz,
             psd < 0 ? "-" : "+", psd < 0 ? -psd : psd);
}

static int w_finish(void *user, const spectro_stream_end *end, spectro_error *e)
{
    writer *w = user;
    spectro_dump_config c = w->cfg;
    spectro_dump *d = NULL;
    char extra[1024];
    float *row;
    int rc;
    if (w->check_ref >= 0)
        return SPECTRO_OK;
    if ((rc = spectro_dump_commit(w->frames, e)) != SPECTRO_OK)
        return rc;
    (void)end;
    if (!(row = malloc(c.bins * sizeof *row)))
        return SPECTRO_ENOMEM;
    average_members(w, extra, sizeof extra);
    c.averaged = 1;
    c.extra = extra;
    rc = spectro_dump_open(w->avg_path, &c, &d, e);
    for (int ch = 0; ch < c.channels && rc == SPECTRO_OK; ch++)
        if ((rc = spectro_average_read(w->avg, ch, SPECTRO_AVERAGE_MEAN, 0, row, e)) == SPECTRO_OK)
            rc = spectro_dump_write(d, ch, 0, 1, row, e);
    if (rc == SPECTRO_OK)
        rc = spectro_dump_commit(d, e);
    spectro_dump_destroy(d);
    free(row);
    return rc;
}

static const spectro_stream_ops writer_ops = {
    .size = sizeof(spectro_stream_ops), .open = w_open, .spectra = w_spectra, .finish = w_finish,
};

/* The job's own dump and average of input against spectro_dump's of its stream. */
static void check_against_job(const char *input, const char *channel, const char *ext)
{
    char ref_frames[512], ref_avg[512], got_frames[512], got_avg[512], name[64];
    spectro_error e = {0, {0}};
    writer w;
    int rc;
    memset(&w, 0, sizeof w);
    w.check_ref = -1;
    snprintf(name, sizeof name, "ref-frames-%s%s", channel, ext);
    path_in(ref_frames, sizeof ref_frames, name);
    snprintf(name, sizeof name, "ref-avg-%s%s", channel, ext);
    path_in(ref_avg, sizeof ref_avg, name);
    snprintf(name, sizeof name, "got-frames-%s%s", channel, ext);
    path_in(got_frames, sizeof got_frames, name);
    snprintf(name, sizeof name, "got-avg-%s%s", channel, ext);
    path_in(got_avg, sizeof got_avg, name);
    {
        const char *frames_job[] = {"channel", channel, "dump", ref_frames, NULL};
        const char *avg_job[] = {"channel", channel, "average", "mean", "dump", ref_avg, NULL};
        const char *stream_job[] = {"channel", channel, NULL};
        rc = run_job(frames_job, input, NULL, NULL, &e);
        CHECK_MSG(rc == SPECTRO_OK, "%s", e.message);
        rc = run_job(avg_job, input, NULL, NULL, &e);
        CHECK_MSG(rc == SPECTRO_OK, "%s", e.message);
        w.frames_path = got_frames;
        w.avg_path = got_avg;
        rc = run_job(stream_job, input, &writer_ops, &w, &e);
        CHECK_MSG(rc == SPECTRO_OK, "%s", e.message);
    }
    spectro_dump_destroy(w.frames);
    spectro_average_destroy(w.avg);
    check_same_file(got_frames, ref_frames, 1);
    check_same_file(got_avg, ref_avg, 1);
}

/* ---- bad paths and configs: one line naming the member, nothing left ---- */

static spectro_dump_config good_config(void)
{
    spectro_dump_config c = spectro_dump_config_default();
    c.sample_rate = 48000;
    c.channels = 1;
    c.fft_size = 1024;
    c.hop = 256;
    c.bins = 513;
    c.time_step_s = 256.0 / 48000.0;
    c.window = "hann";
    c.source = "test";
    c.backend = "cpu";
    c.source_channels = 1;
    return c;
}

static void check_open_fails(const char *path, const spectro_dump_config *c, int code, const char *names)
{
    spectro_error e = {0, {0}};
    spectro_dump *d = (spectro_dump *)&e; /* set to NULL, as every creator does */
    int before = dir_entries();
    int rc = spectro_dump_open(path, c, &d, &e);
    CHECK_MSG(rc == code && e.code == code, "%s: %d, want %d (%s)", names, rc, code, e.message);
    CHECK_MSG(strstr(e.message, names) != NULL && !strchr(e.message, '\n'), "\"%s\" does not name %s", e.message,
              names);
    CHECK(d == NULL);
    CHECK(dir_entries() == before);
}

static void check_bad_configs(void)
{
    char path[512], missing[512];
    spectro_dump_config c;
    path_in(path, sizeof path, "bad.csv");
    path_in(missing, sizeof missing, "no-such-dir/x.npy");
    c = good_config();
    check_open_fails(path, NULL, SPECTRO_EINVAL, "config");
    check_open_fails("", &c, SPECTRO_EINVAL, "path");
    check_open_fails("x.txt", &c, SPECTRO_EINVAL, "path x.txt");
    check_open_fails(missing, &c, SPECTRO_EIO, missing);
#define BAD(member, value, name)                                                                                       \
    do {                                                                                                               \
        c = good_config();                                                                                             \
        c.member = value;                                                                                              \
        check_open_fails(path, &c, SPECTRO_EINVAL, name);                                                              \
    } while (0)
    BAD(size, 8, "spectro_dump_config.size");
    BAD(sample_rate, 0, "sample_rate");
    BAD(channels, 0, "channels");
    BAD(fft_size, 0, "fft_size");
    BAD(hop, 0, "hop");
    BAD(bins, 0, "bins");
    BAD(bin_hz, -1.0, "bin_hz");
    BAD(time_step_s, NAN, "time_step_s");
    BAD(window, NULL, "window");
    BAD(source, NULL, "source");
    BAD(backend, "", "backend");
    BAD(source_channels, 0, "source_channels");
    BAD(channel_name, "left", "channel_name");
    BAD(channel, 1, "channel 1");
    BAD(extra, "\"key\": 1", "extra");
#undef BAD
}

/* Writes out of order, a dump left uncommitted, a second commit. */
static void check_writes(void)
{
    char path[512];
    spectro_dump_config c = good_config();
    spectro_error e = {0, {0}};
    spectro_dump *d = NULL;
    float *row = calloc(2 * c.bins, sizeof *row);
    int before = dir_entries();
    path_in(path, sizeof path, "w.npy");
    CHECK(row && spectro_dump_open(path, &c, &d, &e) == SPECTRO_OK);
    CHECK(spectro_dump_write(d, 1, 0, 1, row, &e) == SPECTRO_EINVAL && strncmp(e.message, "channel 1", 9) == 0);
    CHECK(spectro_dump_write(d, 0, 1, 1, row, &e) == SPECTRO_EINVAL && strncmp(e.message, "first 1", 7) == 0);
    CHECK(spectro_dump_write(d, 0, 0, 2, row, &e) == SPECTRO_OK);
    CHECK(spectro_dump_write(d, 0, 2, 1, row, &e) == SPECTRO_OK);
    spectro_dump_destroy(d); /* uncommitted: nothing */
    CHECK(dir_entries() == before);
    c.averaged = 1;
    d = NULL;
    CHECK(spectro_dump_open(path, &c, &d, &e) == SPECTRO_OK);
    CHECK(spectro_dump_write(d, 0, 0, 2, row, &e) == SPECTRO_EINVAL && strncmp(e.message, "count 2", 7) == 0);
    CHECK(spectro_dump_write(d, 0, 0, 1, row, &e) == SPECTRO_OK);
    CHECK(spectro_dump_commit(d, &e) == SPECTRO_OK);
    CHECK(spectro_dump_commit(d, &e) == SPECTRO_EINVAL);
    CHECK(spectro_dump_write(d, 0, 1, 1, row, &e) == SPECTRO_EINVAL);
    spectro_dump_destroy(d);
    CHECK(dir_entries() == before + 2); /* w.npy and w.npy.json */
    CHECK(access(path, F_OK) == 0 && unlink(path) == 0);
    strcat(path, ".json");
    CHECK(access(path, F_OK) == 0 && unlink(path) == 0);
    spectro_dump_destroy(NULL);
    free(row);
}

/* ---- the transfer check: the --transfer output's own line ---- */

static void check_transfer(const char *input, const char *pair, int ref, int meas)
{
    char out[512];
    spectro_error want = {0, {0}}, e = {0, {0}};
    writer w;
    const char *job[] = {"transfer", pair, "dump", out, NULL}; /* every channel: transfer's own */
    const char *stream_job[] = {"channel", "all", NULL};
    int want_rc;
    path_in(out, sizeof out, "transfer.csv");
    want_rc = run_job(job, input, NULL, NULL, &want);
    memset(&w, 0, sizeof w);
    w.check_ref = ref;
    w.check_meas = meas;
    CHECK_MSG(run_job(stream_job, input, &writer_ops, &w, &e) == SPECTRO_OK, "%s", e.message);
    CHECK_MSG(w.check_rc == want_rc && (want_rc == SPECTRO_OK || strcmp(w.check_err.message, want.message) == 0),
              "%s %s: \"%s\" (%d), the output's \"%s\" (%d)", input, pair, w.check_err.message, w.check_rc,
              want.message, want_rc);
    unlink(out);
    strcat(out, ".json");
    unlink(out);
}

/* What a job's transfer output never meets: a stream without every channel, a pair's. */
static void check_transfer_streams(void)
{
    spectro_frames_info f = {0};
    spectro_stream_info in = {0};
    spectro_error e = {0, {0}};
    f.source = "a.wav";
    f.channels = 1;
    in.size = sizeof in;
    in.frames = &f;
    in.source_channels = 2;
    CHECK(spectro_stream_check_transfer(&in, 0, 1, 0, &e) == SPECTRO_EINVAL &&
          strcmp(e.message, "transfer: needs every channel of the input (channel all)") == 0);
    CHECK(spectro_stream_check_transfer(&in, 0, 1, 1, &e) == SPECTRO_EINVAL &&
          strcmp(e.message, "reference: not a pair of channels") == 0);
    f.channels = 2;
    CHECK(spectro_stream_check_transfer(&in, 0, 1, 0, &e) == SPECTRO_OK);
    CHECK(spectro_stream_check_transfer(&in, 7, 7, 1, &e) == SPECTRO_OK); /* a pair: ref, meas not read */
    CHECK(spectro_stream_check_transfer(NULL, 0, 1, 0, &e) == SPECTRO_EINVAL);
}

int main(void)
{
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    check_against_job(MONO, "mix", ".csv");
    check_against_job(STEREO, "all", ".npy");
    check_against_job(STEREO, "1", ".csv");
    check_against_job(MONO, "all", ".npy"); /* stacked: a channel axis of one */
    check_bad_configs();
    check_writes();
    check_transfer(STEREO, "0:1", 0, 1);
    check_transfer(STEREO, "0:5", 0, 5);
    check_transfer(STEREO, "1:1", 1, 1);
    check_transfer(STEREO, "2:0", 2, 0);
    check_transfer(MONO, "0:1", 0, 1);
    check_transfer_streams();
    {
        char cmd[600];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        if (system(cmd) != 0)
            fprintf(stderr, "could not remove %s\n", dir);
    }
    return check_done("test_api_dump");
}
