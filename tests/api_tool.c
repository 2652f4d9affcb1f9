/* api_tool: the public C API (spectro.h only) doing what the program's outputs do, for
 * tests/e2e/e2e_api.py to compare with the program byte for byte:
 *
 *   api_tool KIND INPUT OUT [key=value ...]
 *     KIND  dump     the dB spectra, raw float32 [channel][frame][bin] (the .npy's data)
 *           complex  the scaled complex frames, raw complex64
 *           peaks    "--peaks" lines (time, Hz, dB; the channel first with channel=all)
 *           average  the averaged spectrum (mode=, psd=), raw float32 [channel][bin]
 *           tone     "--tone" JSON lines, one per output channel
 *           bands    band levels (fraction=, weighting=, mode= for averaged), raw float32
 *           transfer the transfer function of channel tref= (0) to tmeas= (1) of the complex
 *                    frames (channel=all): the table, raw float32 [bin][4], then the delay
 *                    in seconds and the source's info.aligned (samples) as two float64
 *     OUT   a file, or - for standard output
 *     keys  n= hop= window= channel=mix|all|K backend= start= end= fmin= fmax= mode= psd=
 *           fraction= weighting= chunk=FRAMES (the pieces pushed; 0: one whole-array call)
 *           reference=FILE pair=align|compare refch=K|mix inch=K|mix resample=0|1 (a pair:
 *           spectro_source_config's) tref= tmeas=
 * Exit 0, or 1 with the API's line on stderr. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spectro.h"

typedef struct {
    const char *kind, *input, *out;
    spectro_analyzer_config ac;
    spectro_source_config sc;
    double fmin, fmax;
    int mode, psd, fraction, averaged, tref, tmeas;
    const char *weighting;
    size_t chunk;
} args;

static int parse(int argc, char **argv, args *a)
{
    if (argc < 4)
        return 0;
    memset(a, 0, sizeof *a);
    a->kind = argv[1];
    a->input = argv[2];
    a->out = argv[3];
    a->ac = spectro_analyzer_config_default();
    a->sc = spectro_source_config_default();
    a->fraction = 3;
    a->fmin = a->fmax = -1;
    a->chunk = 4000;
    a->tmeas = 1;
    for (int i = 4; i < argc; i++) {
        char *v = strchr(argv[i], '=');
        if (!v)
            return 0;
        *v++ = 0;
        if (!strcmp(argv[i], "n"))
            a->ac.fft_size = strtoul(v, NULL, 10);
        else if (!strcmp(argv[i], "hop"))
            a->ac.hop = strtoul(v, NULL, 10);
        else if (!strcmp(argv[i], "window"))
            a->ac.window = v;
        else if (!strcmp(argv[i], "backend"))
            a->ac.backend = v;
        else if (!strcmp(argv[i], "channel"))
            a->ac.channel = !strcmp(v, "mix") ? SPECTRO_CHANNEL_MIX : !strcmp(v, "all") ? SPECTRO_CHANNEL_ALL : atoi(v);
        else if (!strcmp(argv[i], "start"))
            a->sc.start = atof(v);
        else if (!strcmp(argv[i], "end"))
            a->sc.end = atof(v);
        else if (!strcmp(argv[i], "fmin"))
            a->fmin = atof(v);
        else if (!strcmp(argv[i], "fmax"))
            a->fmax = atof(v);
        else if (!strcmp(argv[i], "mode"))
            a->mode = atoi(v), a->averaged = 1;
        else if (!strcmp(argv[i], "psd"))
            a->psd = atoi(v);
        else if (!strcmp(argv[i], "fraction"))
            a->fraction = atoi(v);
        else if (!strcmp(argv[i], "weighting"))
            a->weighting = v;
        else if (!strcmp(argv[i], "chunk"))
            a->chunk = strtoul(v, NULL, 10);
        else if (!strcmp(argv[i], "reference"))
            a->sc.reference = v;
        else if (!strcmp(argv[i], "pair"))
            a->sc.pair = !strcmp(v, "compare") ? SPECTRO_PAIR_COMPARE : !strcmp(v, "align") ? SPECTRO_PAIR_ALIGN : 9;
        else if (!strcmp(argv[i], "refch"))
            a->sc.reference_channel = !strcmp(v, "mix") ? SPECTRO_CHANNEL_MIX : atoi(v);
        else if (!strcmp(argv[i], "inch"))
            a->sc.input_channel = !strcmp(v, "mix") ? SPECTRO_CHANNEL_MIX : atoi(v);
        else if (!strcmp(argv[i], "resample"))
            a->sc.resample = atoi(v);
        else if (!strcmp(argv[i], "tref"))
            a->tref = atoi(v);
        else if (!strcmp(argv[i], "tmeas"))
            a->tmeas = atoi(v);
        else
            return 0;
    }
    return 1;
}

/* The whole input, interleaved. */
static float *load(const args *a, spectro_source_info *info, size_t *len, spectro_error *err)
{
    spectro_source *s = NULL;
    size_t cap = 1 << 16, got;
    float *x = NULL;
    *len = 0;
    if (spectro_source_open(a->input, &a->sc, &s, err) != SPECTRO_OK)
        return NULL;
    info->size = sizeof *info;
    spectro_source_get_info(s, info);
    x = malloc(cap * (size_t)info->channels * sizeof *x);
    for (;;) {
        if (*len + 4096 > cap)
            x = realloc(x, (cap *= 2) * (size_t)info->channels * sizeof *x);
        if (spectro_source_read(s, x + *len * (size_t)info->channels, 4096, &got, err) != SPECTRO_OK) {
            free(x);
            x = NULL;
            break;
        }
        if (got == 0)
            break;
        *len += got;
    }
    spectro_source_close(s);
    return x;
}

/* The spectra ([channel][frame][bin], *frames a channel) of x: pushed in pieces of chunk
 * frames and read as they come, or in one call (chunk 0). */
static void *analyze(spectro_analyzer *a, int output, const float *x, size_t len, int channels, size_t chunk,
                     size_t *frames, spectro_error *err)
{
    spectro_analyzer_info info;
    size_t f = 0, got, ready, elem;
    unsigned char *out, *tmp;
    info.size = sizeof info;
    spectro_analyzer_get_info(a, &info);
    elem = info.bins * (output == SPECTRO_OUTPUT_DB ? sizeof(float) : sizeof(spectro_complex));
    *frames = (size_t)spectro_analyzer_frame_count(a, len);
    out = malloc(*frames * (size_t)info.out_channels * elem + 1);
    if (chunk == 0) {
        int rc = output == SPECTRO_OUTPUT_DB
                     ? spectro_analyzer_spectrogram(a, x, len, (float *)out, *frames, err)
                     : spectro_analyzer_stft(a, x, len, (spectro_complex *)out, *frames, err);
        return rc == SPECTRO_OK ? out : NULL;
    }
    tmp = malloc((*frames + 1) * (size_t)info.out_channels * elem);
    if (spectro_analyzer_reset(a, output, err) != SPECTRO_OK)
        return NULL;
    for (size_t at = 0, piece = 1; piece > 0; at += piece) {
        int rc;
        piece = len - at < chunk ? len - at : chunk; /* 0: the end */
        rc = piece ? spectro_analyzer_push(a, x + at * (size_t)channels, piece, &ready, err)
                   : spectro_analyzer_finish(a, &ready, err);
        if (rc == SPECTRO_OK)
            rc = output == SPECTRO_OUTPUT_DB
                     ? spectro_analyzer_read(a, (float *)tmp, ready, &got, err)
                     : spectro_analyzer_read_complex(a, (spectro_complex *)tmp, ready, &got, err);
        if (rc != SPECTRO_OK)
            return NULL;
        for (int c = 0; c < info.out_channels; c++)
            memcpy(out + ((size_t)c * *frames + f) * elem, tmp + (size_t)c * got * elem, got * elem);
        f += got;
    }
    free(tmp);
    return out;
}

static void print_tone(FILE *f, const spectro_tone *t, int channel)
{
    fputc('{', f);
    if (channel >= 0)
        fprintf(f, "\"channel\": %d, ", channel);
    fprintf(f, "\"fundamental_hz\": %.4f, \"fundamental_dbfs\": %.4f, \"harmonics\": [", t->fundamental_hz,
            t->fundamental_dbfs);
    for (int i = 0; i < t->harmonics; i++)
        fprintf(f, "%s{\"n\": %d, \"hz\": %.4f, \"dbfs\": %.4f}", i ? ", " : "", t->harmonic[i].n, t->harmonic[i].hz,
                t->harmonic[i].dbfs);
    fprintf(f,
            "], \"thd_percent\": %.6f, \"thd_db\": %.4f, \"thdn_db\": %.4f, \"snr_db\": %.4f, \"sinad_db\": %.4f, "
            "\"enob_bits\": %.4f, \"noise_dbfs\": %.4f, \"band_hz\": [%.10g, %.10g], \"frames_averaged\": %llu}\n",
            t->thd_percent, t->thd_db, t->thdn_db, t->snr_db, t->sinad_db, t->enob_bits, t->noise_dbfs, t->band_hz[0],
            t->band_hz[1], (unsigned long long)t->frames_averaged);
}

/* The reductions, channel after channel, written to f. */
static int reduce(const args *g, spectro_analyzer *a, const float *db, size_t frames, uint64_t samples, FILE *f,
                  spectro_error *err)
{
    spectro_analyzer_info info;
    int all = g->ac.channel == SPECTRO_CHANNEL_ALL;
    info.size = sizeof info;
    spectro_analyzer_get_info(a, &info);
    if (!strcmp(g->kind, "peaks")) {
        spectro_peak *pk = malloc((frames + 1) * (size_t)info.out_channels * sizeof *pk);
        for (int c = 0; c < info.out_channels; c++)
            if (spectro_analyzer_peaks(a, db + (size_t)c * frames * info.bins, frames, g->fmin > 0 ? g->fmin : 0,
                                       g->fmax > 0 ? g->fmax : 0, pk + (size_t)c * frames, err) != SPECTRO_OK)
                return 0;
        for (size_t i = 0; i < frames; i++)
            for (int c = 0; c < info.out_channels; c++) {
                const spectro_peak *p = &pk[(size_t)c * frames + i];
                if (all)
                    fprintf(f, "%d\t", c);
                fprintf(f, "%.6f\t%.3f\t%.2f\n", spectro_analyzer_input_frame_time(a, samples, i), p->freq_hz,
                        p->db);
            }
        free(pk);
        return 1;
    }
    for (int c = 0; c < info.out_channels; c++) {
        const float *ch = db + (size_t)c * frames * info.bins;
        if (!strcmp(g->kind, "average")) {
            float *row = malloc(info.bins * sizeof *row);
            if (spectro_analyzer_average(a, ch, frames, g->mode, g->psd, row, err) != SPECTRO_OK)
                return 0;
            fwrite(row, sizeof *row, info.bins, f);
            free(row);
        } else if (!strcmp(g->kind, "tone")) {
            spectro_tone t;
            spectro_tone_config tc = spectro_tone_config_default();
            t.size = sizeof t;
            tc.fmin = g->fmin;
            tc.fmax = g->fmax;
            if (spectro_analyzer_tone(a, ch, frames, &tc, &t, err) != SPECTRO_OK)
                return 0;
            print_tone(f, &t, all ? c : -1);
        } else if (!strcmp(g->kind, "bands")) {
            spectro_bands_config bc = spectro_bands_config_default();
            spectro_bands *b = NULL;
            float *rows;
            int rc;
            bc.fraction = g->fraction;
            bc.weighting = g->weighting;
            bc.fmin = g->fmin;
            bc.fmax = g->fmax;
            if (spectro_bands_create(a, &bc, &b, err) != SPECTRO_OK)
                return 0;
            rows = malloc((frames + 1) * spectro_bands_count(b) * sizeof *rows);
            rc = g->averaged ? spectro_bands_average(b, ch, frames, g->mode, rows, err)
                             : spectro_bands_levels(b, ch, frames, rows, err);
            if (rc == SPECTRO_OK)
                fwrite(rows, sizeof *rows, (g->averaged ? 1 : frames) * spectro_bands_count(b), f);
            free(rows);
            spectro_bands_destroy(b);
            if (rc != SPECTRO_OK)
                return 0;
        } else {
            return 0;
        }
    }
    return 1;
}

/* The transfer function of channels tref and tmeas of the complex frames z[channel][frame][bin]. */
static int transfer(const args *g, spectro_analyzer *a, const spectro_complex *z, size_t frames, int64_t aligned,
                    FILE *f, spectro_error *err)
{
    spectro_analyzer_info ai;
    spectro_transfer *t = NULL;
    float *table;
    double delay = 0.0, al = (double)aligned;
    int ok;
    ai.size = sizeof ai;
    spectro_analyzer_get_info(a, &ai);
    if (g->tref < 0 || g->tmeas < 0 || g->tref >= ai.out_channels || g->tmeas >= ai.out_channels) {
        err->code = SPECTRO_EINVAL;
        snprintf(err->message, sizeof err->message, "tref %d, tmeas %d: %d channels", g->tref, g->tmeas,
                 ai.out_channels);
        return 0;
    }
    if (!(table = malloc(ai.bins * SPECTRO_TRANSFER_COLUMNS * sizeof *table)))
        return 0;
    ok = spectro_transfer_create(a, &t, err) == SPECTRO_OK &&
         spectro_transfer_add(t, z + (size_t)g->tref * frames * ai.bins, z + (size_t)g->tmeas * frames * ai.bins,
                              frames, err) == SPECTRO_OK &&
         spectro_transfer_table(t, table, &delay, err) == SPECTRO_OK;
    if (ok)
        ok = fwrite(table, sizeof *table, ai.bins * SPECTRO_TRANSFER_COLUMNS, f) ==
                 ai.bins * SPECTRO_TRANSFER_COLUMNS &&
             fwrite(&delay, sizeof delay, 1, f) == 1 && fwrite(&al, sizeof al, 1, f) == 1;
    spectro_transfer_destroy(t);
    free(table);
    return ok;
}

int main(int argc, char **argv)
{
    args g;
    spectro_source_info info;
    spectro_analyzer *a = NULL;
    spectro_error err;
    size_t len = 0, frames = 0;
    float *x;
    void *spectra;
    FILE *f;
    int ok, cplx;
    memset(&err, 0, sizeof err);
    if (!parse(argc, argv, &g)) {
        fprintf(stderr, "usage: api_tool dump|complex|peaks|average|tone|bands|transfer INPUT OUT [key=value ...]\n");
        return 2;
    }
    if (!(x = load(&g, &info, &len, &err)))
        goto fail;
    g.ac.sample_rate = info.sample_rate;
    g.ac.channels = info.channels;
    g.ac.first_sample = info.start_sample;
    g.ac.expected_samples = len;
    if (!strcmp(g.kind, "tone") && !g.ac.window)
        g.ac.window = spectro_tone_window(); /* the program's --tone default */
    if (spectro_analyzer_create(&g.ac, &a, &err) != SPECTRO_OK)
        goto fail;
    cplx = !strcmp(g.kind, "complex") || !strcmp(g.kind, "transfer");
    if (!(spectra = analyze(a, cplx ? SPECTRO_OUTPUT_COMPLEX : SPECTRO_OUTPUT_DB, x, len, info.channels, g.chunk,
                            &frames, &err)))
        goto fail;
    f = strcmp(g.out, "-") ? fopen(g.out, "wb") : stdout;
    if (!f) {
        perror(g.out);
        return 1;
    }
    if (!strcmp(g.kind, "transfer")) {
        ok = transfer(&g, a, spectra, frames, info.aligned, f, &err);
    } else if (!strcmp(g.kind, "dump") || cplx) {
        spectro_analyzer_info ai;
        ai.size = sizeof ai;
        spectro_analyzer_get_info(a, &ai);
        fwrite(spectra, cplx ? sizeof(spectro_complex) : sizeof(float), frames * ai.bins * (size_t)ai.out_channels, f);
        ok = 1;
    } else {
        ok = reduce(&g, a, spectra, frames, len, f, &err);
    }
    if (f != stdout)
        fclose(f);
    if (!ok)
        goto fail;
    spectro_analyzer_destroy(a);
    free(spectra);
    free(x);
    return 0;
fail:
    fprintf(stderr, "api_tool: %s (%s)\n", err.message, spectro_strerror(err.code));
    spectro_analyzer_destroy(a);
    return 1;
}
