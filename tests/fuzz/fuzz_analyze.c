/* fuzz_analyze: the fuzz target. Bytes go through the file source (libsndfile's virtual
 * I/O, no temporary file: source_open_memory; FFmpeg's module for the formats libsndfile
 * does not know, as for a file on disk) and the whole analysis (analyze_run_source,
 * cpu backend) into the sinks a command line would ask for, like libsndfile's own OSS-Fuzz
 * target (ossfuzz/sndfile_fuzzer.cc) but on through spectro's pipeline.
 *
 * An input is FUZZ_PREFIX option bytes, then the file (tests/fuzz/make_corpus.py writes
 * them the same way; docs/developer.md, "Fuzzing"):
 *
 *   byte 0  bits 0-2 window (window_spec_at, the table's row)
 *           bits 3-4 channel: mix, all, an index (byte 2), mix
 *           bits 5-7 outputs (OUTPUTS below): --peaks, --dump .npy / .csv, both
 *   byte 1  bits 0-3 N = 2^(4 + v % 13): 16 .. 65536
 *           bits 4-7 hop (HOPS below, 0 = N/4)
 *   byte 2  bits 0-2 --duration (DURATIONS below, 0 = none)
 *           bits 3-4 --fmin/--fmax (RANGES below)
 *           bits 5-7 the channel index: v % channels, 7 = one past the last (an error)
 *   byte 3  bits 0-1 cpu threads (1, 2, auto, 1), bits 2-3 frames per FFT call (auto, 1,
 *           3, auto); the rest is ignored
 *
 * --dump goes to a scratch directory made once per process and emptied after every run;
 * --peaks to an in-memory stream. Beyond the sanitizers, each run checks the contracts
 * (docs/design.md) that hold for any input: an error is a known code with one line that names
 * the input; a success gives the frame count of its samples, and no level in the dump or
 * the peaks is NaN or infinite. A violation aborts, so the fuzzer reports it as a crash.
 * SPECTRO_FUZZ_VERBOSE=1 prints each run's outcome (the corpus's upkeep: which inputs reach
 * the analysis).
 *
 * So that a tiny input cannot make a run take minutes (a FLAC frame of constant samples
 * decodes to 65535 of them from a few bytes), every run stops after WORK_SAMPLES samples
 * of all channels and after about WORK_BINS spectrum values; --channel all lowers N until
 * channels * N <= WORK_SAMPLES. Inputs stay small (libFuzzer's -max_len), so this cuts
 * what a file decodes to, not what the parsers see. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze.h"
#include "fuzz_target.h"

#define FUZZ_NAME "fuzz-input"
#define WORK_SAMPLES ((uint64_t)1 << 20)
#define WORK_BINS ((uint64_t)1 << 21)

enum { OUT_PEAKS = 1, OUT_NPY = 2, OUT_CSV = 4 };
static const int OUTPUTS[8] = {OUT_PEAKS, OUT_NPY, OUT_CSV, OUT_PEAKS | OUT_NPY,
                               OUT_PEAKS | OUT_CSV, OUT_NPY, OUT_PEAKS, OUT_PEAKS | OUT_NPY};
/* in samples; N_HALF..N_PLUS1 are relative to N */
enum { HOP_N4 = 0, HOP_N2 = -1, HOP_N = -2, HOP_N_PLUS1 = -3, HOP_3N2 = -4, HOP_N8 = -5 };
static const long long HOPS[16] = {HOP_N4, HOP_N4, 1, 2, 7, HOP_N2, HOP_N, HOP_N_PLUS1,
                                   HOP_3N2, 1000, 4096, 65537, HOP_N8, HOP_N4, 333, 1LL << 40};
/* seconds; 1e-7 is shorter than one sample below 10 MHz: the usage error */
static const double DURATIONS[8] = {0, 0, 0, 0, 1e-7, 0.001, 0.02, 0.5};
static const double RANGES[4][2] = {{0, 0}, {100, 0}, {0, 1000}, {20000, 0}};

static const int check_levels = 1; /* docs/design.md "Finite levels" */

static char scratch[256]; /* the --dump directory, "" until made */
static int verbose = -1;  /* SPECTRO_FUZZ_VERBOSE, read once */

static void scratch_empty(void)
{
    DIR *d = scratch[0] ? opendir(scratch) : NULL;
    struct dirent *e;
    char path[512];
    if (!d)
        return;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", scratch, e->d_name);
        unlink(path);
    }
    closedir(d);
}

static void scratch_remove(void)
{
    scratch_empty();
    if (scratch[0])
        rmdir(scratch);
}

static void scratch_make(void)
{
    const char *tmp = getenv("TMPDIR");
    if (scratch[0])
        return;
    snprintf(scratch, sizeof scratch, "%s/spectro-fuzz-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(scratch)) {
        perror(scratch);
        abort(); /* no place for --dump: nothing can be fuzzed */
    }
    atexit(scratch_remove);
}

/* The option bytes into a config (outputs, peaks stream and limits come later). */
static void decode_options(const uint8_t *p, analyze_config *c, int *outputs, int *index_pick)
{
    int mode = (p[0] >> 3) & 3;
    long long hop = HOPS[p[1] >> 4];
    c->window = window_spec_at((p[0] & 7) % window_count());
    c->channel = mode == 1 ? STFT_CHANNEL_ALL : mode == 2 ? 0 : STFT_CHANNEL_MIX;
    *outputs = OUTPUTS[p[0] >> 5];
    c->n = (size_t)1 << (4 + (p[1] & 15) % 13);
    c->hop = hop >= 0 ? (size_t)hop
             : hop == HOP_N2 ? c->n / 2 : hop == HOP_N ? c->n : hop == HOP_N_PLUS1 ? c->n + 1
             : hop == HOP_3N2 ? 3 * c->n / 2 : c->n / 8;
    c->duration = DURATIONS[p[2] & 7];
    c->peak_fmin = RANGES[(p[2] >> 3) & 3][0];
    c->peak_fmax = RANGES[(p[2] >> 3) & 3][1];
    *index_pick = p[2] >> 5;
    c->fft_tuning.cpu_threads = (int[]){1, 2, 0, 1}[p[3] & 3];
    c->batch = (size_t[]){0, 1, 3, 0}[(p[3] >> 2) & 3];
}

/* What depends on the source: the channel index, N under --channel all, the work bound. */
static void fit_to_source(analyze_config *c, const source_info *info, int index_pick)
{
    uint64_t out_ch = c->channel == STFT_CHANNEL_ALL ? (uint64_t)info->channels : 1;
    uint64_t frames, samples, hop;
    double cap_s;
    if (c->channel >= 0)
        c->channel = index_pick == 7 ? info->channels : index_pick % info->channels;
    while (c->n > 16 && out_ch * c->n > WORK_SAMPLES)
        c->n /= 2;
    hop = c->hop ? c->hop : c->n / 4;
    /* the framer holds (batch - 1) hops + N samples: the automatic batch keeps that bounded
     * for any hop the command line takes; a batch given through the API is the caller's */
    if (c->batch > 1 && hop > WORK_SAMPLES)
        c->batch = 0;
    if (hop < 1)
        hop = 1;
    frames = WORK_BINS / (out_ch * (c->n / 2 + 1));
    samples = (frames > 1 ? (frames - 1) * hop : 0) + c->n; /* the span of those frames */
    if (samples > WORK_SAMPLES / (uint64_t)info->channels)
        samples = WORK_SAMPLES / (uint64_t)info->channels;
    if (samples < 1)
        samples = 1;
    cap_s = (double)samples / info->rate;
    if (c->duration == 0 || c->duration > cap_s)
        c->duration = cap_s;
}

/* Nothing in the text but what numbers are written with: no "nan", no "inf". */
static void check_numbers(const char *what, const char *text, size_t len)
{
    if (!check_levels)
        return;
    for (size_t i = 0; i < len; i++)
        if (!strchr("0123456789.-+e\t,\n", text[i])) {
            fprintf(stderr, "fuzz: %s holds '%c' at byte %zu: not a finite number\n", what, text[i], i);
            abort();
        }
}

/* The dump just written: every level finite and at or above the floor. */
static void check_dump(const char *path, int csv)
{
    FILE *f = fopen(path, "rb");
    char *text = NULL;
    long len;
    if (!f) {
        fprintf(stderr, "fuzz: the run succeeded but %s is missing\n", path);
        abort();
    }
    fseek(f, 0, SEEK_END);
    len = ftell(f);
    fseek(f, 0, SEEK_SET);
    if (check_levels && len > 0 && (text = malloc((size_t)len)) != NULL && fread(text, 1, (size_t)len, f) == (size_t)len) {
        if (csv) {
            const char *body = memchr(text, '\n', (size_t)len); /* after the header row */
            if (body)
                check_numbers(path, body + 1, (size_t)(text + len - body - 1));
        } else if (len >= 10) {
            size_t at = 10 + (size_t)((uint8_t)text[8] | (uint8_t)text[9] << 8); /* NumPy 1.0 */
            for (; at + 4 <= (size_t)len; at += 4) {
                float v;
                memcpy(&v, text + at, 4);
                if (!(v >= FFT_DB_FLOOR && v < 1e30f)) {
                    fprintf(stderr, "fuzz: %s holds %g at byte %zu: not a finite level\n", path, v, at);
                    abort();
                }
            }
        }
    }
    free(text);
    fclose(f);
}

/* An error: one of ours, with a line naming the input or an option. */
static void check_error(int err, const sp_errinfo *ei)
{
    if (err > SP_OK || err < SP_EINTERRUPTED || ei->msg[0] == 0 || strchr(ei->msg, '\n')) {
        fprintf(stderr, "fuzz: error %d with the message \"%s\"\n", err, ei->msg);
        abort();
    }
}

/* A success: the frame count docs/design.md "Frames" gives for the samples read. */
static void check_frames(const analyze_result *res)
{
    uint64_t want = res->samples < res->n ? 1 : (res->samples - res->n) / res->hop + 1;
    if (res->frames != want) {
        fprintf(stderr, "fuzz: %llu samples, N %zu, hop %zu gave %llu frames, not %llu\n",
                (unsigned long long)res->samples, res->n, res->hop, (unsigned long long)res->frames,
                (unsigned long long)want);
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    analyze_config c = analyze_config_default();
    analyze_context ctx = analyze_context_default();
    analyze_result res;
    sp_errinfo ei;
    source *src = NULL;
    char dump_path[300] = "", *peaks_text = NULL;
    size_t peaks_len = 0;
    int outputs, index_pick, err;

    if (size < FUZZ_PREFIX)
        return 0;
    scratch_make();
    if (verbose < 0)
        verbose = getenv("SPECTRO_FUZZ_VERBOSE") && atoi(getenv("SPECTRO_FUZZ_VERBOSE")) > 0;
    memset(&ei, 0, sizeof ei);
    decode_options(data, &c, &outputs, &index_pick);
    c.backend = FFT_BACKEND_CPU;
    if ((err = source_open_memory(data + FUZZ_PREFIX, size - FUZZ_PREFIX, FUZZ_NAME, &src, &ei)) != SP_OK) {
        check_error(err, &ei);
        if (verbose)
            printf("  open: %s\n", ei.msg);
        return 0;
    }
    fit_to_source(&c, source_get_info(src), index_pick);
    if (outputs & (OUT_NPY | OUT_CSV)) {
        snprintf(dump_path, sizeof dump_path, "%s/out.%s", scratch, outputs & OUT_NPY ? "npy" : "csv");
        analyze_set_output(&c, "dump", dump_path, NULL);
    }
    if (outputs & OUT_PEAKS) {
        if (!(ctx.out = open_memstream(&peaks_text, &peaks_len)))
            abort();
        analyze_set_output(&c, "peaks", NULL, NULL);
    }
    err = analyze_run_source(&c, &ctx, src, &res, &ei);
    if (ctx.out != stdout)
        fclose(ctx.out);
    if (verbose)
        printf("  %s: %s (%s, %d Hz, %d ch)\n", err ? "run" : "ok", err ? ei.msg : "", res.info.format,
               res.info.rate, res.info.channels);
    if (verbose && !err)
        printf("    N %zu hop %zu: %llu samples, %llu frames%s, %llu non-finite\n", res.n, res.hop,
               (unsigned long long)res.samples, (unsigned long long)res.frames, res.truncated ? ", truncated" : "",
               (unsigned long long)res.nonfinite);
    if (err != SP_OK) {
        check_error(err, &ei);
    } else {
        check_frames(&res);
        if (dump_path[0])
            check_dump(dump_path, !(outputs & OUT_NPY));
        check_numbers("the peaks", peaks_text ? peaks_text : "", peaks_len);
    }
    free(peaks_text);
    scratch_empty();
    return 0;
}
