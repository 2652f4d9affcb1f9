#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "colormap.h"
#include "dump.h"
#include "scale.h"
#include "stft.h"

void cli_usage(FILE *f)
{
    fputs("usage: spectro [options] [FILE]\n"
          "\n"
          "A spectrum analyzer. With FILE (WAV, FLAC, Ogg, AIFF, MP3, ... anything libsndfile\n"
          "reads) it analyses the file; without, the microphone. With no output option it opens\n"
          "a window: a scrolling spectrogram (microphone, --realtime) or the whole file.\n"
          "\n"
          "analysis:\n"
          "  -n, --fft-size N       FFT size, a power of two from 16 to 4194304 (default 4096)\n"
          "      --hop H            frame step in samples, >= 1 (default N/4)\n"
          "  -w, --window NAME[:P]  hann (default), hamming, blackman, blackman-harris, flattop,\n"
          "                         rect, kaiser[:beta] (beta 8.6), gauss[:sigma] (sigma 0.4 of N/2)\n"
          "  -c, --channel C        mix (default: the mean of all channels), all, or an index from 0\n"
          "  -b, --backend B        auto (default: cuda when a GPU is usable, else cpu), cpu, cuda, cufft\n"
          "\n"
          "output:\n"
          "  -o, --dump OUT         write the spectra in dBFS: OUT.npy (NumPy) or OUT.csv, with the\n"
          "                         metadata in OUT.json beside it; - writes CSV to standard output\n"
          "      --peaks            print one line per frame: time_s<TAB>freq_hz<TAB>db\n"
          "                         (with --channel all: channel<TAB>time_s<TAB>freq_hz<TAB>db)\n"
          "\n"
          "      --png OUT          draw the spectrogram picture to OUT (PNG), no window\n"
          "\n"
          "picture and window:\n"
          "      --size WxH         picture size in pixels (default 1920x1080)\n"
          "      --scale S          frequency axis: linear (default), log, mel\n"
          "      --colormap C       viridis (default), magma, inferno, plasma, cividis, gray\n"
          "      --db-range LO:HI   colour range in dBFS (default -120:0)\n"
          "      --fmin HZ          lowest frequency shown (and searched by --peaks)\n"
          "      --fmax HZ          highest frequency shown (and searched by --peaks)\n"
          "\n"
          "input:\n"
          "      --realtime         stream FILE through the live path at its own rate\n"
          "      --duration S       stop after S seconds of audio (microphone, file)\n"
          "      --list-devices     list the audio input devices and exit\n"
          "      --device D         microphone: an index or part of a name from --list-devices\n"
          "      --rate R           microphone: sample rate in Hz (default: the device's)\n"
          "      --channels C       microphone: channels to capture (default 1)\n"
          "\n"
          "  -q, --quiet            no progress bar, notes or warnings\n"
          "  -v, --verbose          say what was chosen and how fast it ran\n"
          "  -h, --help             this text\n"
          "  -V, --version          the version\n"
          "\n"
          "Levels are dBFS: a full-scale sine on a bin reads 0 dB with any window; the floor is -200.\n"
          "Exit status: 0 success, 1 runtime failure (I/O, device), 2 bad usage or bad input.\n",
          f);
}

/* Whole-string unsigned decimal in [lo, hi]. */
static int parse_size(const char *opt, const char *text, size_t lo, size_t hi, size_t *out, sp_errinfo *ei)
{
    char *end;
    unsigned long long v;
    if (!text || !*text || *text == '-' || *text == '+')
        return sp_fail(ei, SP_EINVAL, "%s %s: expected a positive integer", opt, text ? text : "");
    errno = 0;
    v = strtoull(text, &end, 10);
    if (errno || *end || end == text)
        return sp_fail(ei, SP_EINVAL, "%s %s: expected a positive integer", opt, text);
    if (v < lo || v > hi)
        return sp_fail(ei, SP_EINVAL, "%s %s: must be from %zu to %zu", opt, text, lo, hi);
    *out = (size_t)v;
    return SP_OK;
}

typedef enum {
    OPT_FFT_SIZE,
    OPT_HOP,
    OPT_WINDOW,
    OPT_CHANNEL,
    OPT_BACKEND,
    OPT_DUMP,
    OPT_PEAKS,
    OPT_QUIET,
    OPT_VERBOSE,
    OPT_HELP,
    OPT_VERSION,
    OPT_PNG,
    OPT_SIZE,
    OPT_SCALE,
    OPT_COLORMAP,
    OPT_DB_RANGE,
    OPT_FMIN,
    OPT_FMAX,
    OPT_REALTIME,
    OPT_DURATION,
    OPT_LIST_DEVICES,
    OPT_DEVICE,
    OPT_RATE,
    OPT_CHANNELS
} opt_id;

static const struct {
    const char *longname;
    char shortname;
    int takes_value;
    opt_id id;
} options[] = {
    {"fft-size", 'n', 1, OPT_FFT_SIZE}, {"hop", 0, 1, OPT_HOP},        {"window", 'w', 1, OPT_WINDOW},
    {"channel", 'c', 1, OPT_CHANNEL},   {"backend", 'b', 1, OPT_BACKEND}, {"dump", 'o', 1, OPT_DUMP},
    {"peaks", 0, 0, OPT_PEAKS},         {"quiet", 'q', 0, OPT_QUIET},   {"verbose", 'v', 0, OPT_VERBOSE},
    {"help", 'h', 0, OPT_HELP},         {"version", 'V', 0, OPT_VERSION}, {"png", 0, 1, OPT_PNG},
    {"size", 0, 1, OPT_SIZE},           {"scale", 0, 1, OPT_SCALE},     {"colormap", 0, 1, OPT_COLORMAP},
    {"db-range", 0, 1, OPT_DB_RANGE},   {"fmin", 0, 1, OPT_FMIN},       {"fmax", 0, 1, OPT_FMAX},
    {"realtime", 0, 0, OPT_REALTIME},   {"duration", 0, 1, OPT_DURATION}, {"list-devices", 0, 0, OPT_LIST_DEVICES},
    {"device", 0, 1, OPT_DEVICE},       {"rate", 0, 1, OPT_RATE},       {"channels", 0, 1, OPT_CHANNELS},
};

/* Whole-string finite decimal >= lo (and > lo when strict). */
static int parse_real(const char *opt, const char *text, double lo, int strict, double *out, sp_errinfo *ei)
{
    char *end;
    double v;
    errno = 0;
    v = strtod(text, &end);
    if (errno || end == text || *end || !(v == v) || v > 1e300 || v < -1e300)
        return sp_fail(ei, SP_EINVAL, "%s %s: expected a number", opt, text);
    if (v < lo || (strict && v == lo))
        return sp_fail(ei, SP_EINVAL, "%s %s: must be %s %g", opt, text, strict ? "above" : "at least", lo);
    *out = v;
    return SP_OK;
}

static int apply(cli_options *o, opt_id id, const char *name, const char *val, sp_errinfo *ei)
{
    analyze_config *a = &o->an;
    dump_format fmt;
    int err = SP_OK;
    switch (id) {
    case OPT_FFT_SIZE:
        if ((err = parse_size(name, val, 1, (size_t)-1, &a->n, ei)) != SP_OK)
            return err;
        if (!fft_is_pow2(a->n) || a->n < FFT_MIN_SIZE || a->n > FFT_MAX_SIZE)
            return sp_fail(ei, SP_EINVAL, "%s %s: must be a power of two from %u to %u", name, val, FFT_MIN_SIZE,
                           FFT_MAX_SIZE);
        return SP_OK;
    case OPT_HOP:
        return parse_size(name, val, 1, (size_t)1 << 40, &a->hop, ei);
    case OPT_WINDOW:
        return window_parse(val, &a->window, ei);
    case OPT_CHANNEL:
        if (strcmp(val, "mix") == 0) {
            a->channel = STFT_CHANNEL_MIX;
        } else if (strcmp(val, "all") == 0) {
            a->channel = STFT_CHANNEL_ALL;
        } else {
            size_t k;
            if (parse_size(name, val, 0, 1 << 20, &k, ei) != SP_OK)
                return sp_fail(ei, SP_EINVAL, "%s %s: expected mix, all, or a channel index from 0", name, val);
            a->channel = (int)k;
        }
        return SP_OK;
    case OPT_BACKEND:
        if (fft_backend_parse(val, &a->backend) != SP_OK)
            return sp_fail(ei, SP_EINVAL, "%s %s: unknown backend (auto, cpu, cuda, cufft)", name, val);
        return SP_OK;
    case OPT_DUMP:
        if ((err = dump_format_from_path(val, &fmt, ei)) != SP_OK)
            return err;
        return analyze_set_output(a, "dump", val, ei);
    case OPT_PEAKS:
        return analyze_set_output(a, "peaks", NULL, ei);
    case OPT_QUIET:
        o->quiet = 1;
        return SP_OK;
    case OPT_VERBOSE:
        o->verbose = 1;
        return SP_OK;
    case OPT_HELP:
        o->help = 1;
        return SP_OK;
    case OPT_VERSION:
        o->version = 1;
        return SP_OK;
    case OPT_PNG:
        if (!*val)
            return sp_fail(ei, SP_EINVAL, "--png: missing output path");
        return analyze_set_output(a, "png", val, ei);
    case OPT_SIZE:
        return render_parse_size(val, &a->render.width, &a->render.height, ei);
    case OPT_SCALE:
        return scale_parse(val, &a->render.scale, ei);
    case OPT_COLORMAP:
        return colormap_parse(val, &a->render.colormap, ei);
    case OPT_DB_RANGE:
        return render_parse_db_range(val, &a->render.db_lo, &a->render.db_hi, ei);
    case OPT_FMIN:
        if ((err = parse_real(name, val, 0.0, 0, &a->render.fmin, ei)) != SP_OK)
            return err;
        a->peak_fmin = a->render.fmin;
        return SP_OK;
    case OPT_FMAX:
        if ((err = parse_real(name, val, 0.0, 1, &a->render.fmax, ei)) != SP_OK)
            return err;
        a->peak_fmax = a->render.fmax;
        return SP_OK;
    case OPT_REALTIME:
        a->realtime = 1;
        return SP_OK;
    case OPT_DURATION:
        return parse_real(name, val, 0.0, 1, &a->duration, ei);
    case OPT_LIST_DEVICES:
        o->list_devices = 1;
        return SP_OK;
    case OPT_DEVICE:
        if (!*val)
            return sp_fail(ei, SP_EINVAL, "--device: empty device name");
        a->device = val;
        return SP_OK;
    case OPT_RATE: {
        size_t v;
        if ((err = parse_size(name, val, 1, SOURCE_MAX_RATE, &v, ei)) != SP_OK)
            return err;
        a->rate = (int)v;
        return SP_OK;
    }
    case OPT_CHANNELS: {
        size_t v;
        if ((err = parse_size(name, val, 1, SOURCE_MAX_CHANNELS, &v, ei)) != SP_OK)
            return err;
        a->channels = (int)v;
        return SP_OK;
    }
    }
    return SP_EINVAL;
}

int cli_parse(int argc, char **argv, cli_options *o, sp_errinfo *ei)
{
    int only_files = 0;
    memset(o, 0, sizeof *o);
    o->an = analyze_config_default();
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *val = NULL;
        char name[64];
        size_t j, nopt = sizeof options / sizeof options[0];
        if (only_files || arg[0] != '-' || strcmp(arg, "-") == 0) {
            if (o->an.input)
                return sp_fail(ei, SP_EINVAL, "%s: only one input file can be given (already have %s)", arg,
                               o->an.input);
            o->an.input = arg;
            continue;
        }
        if (strcmp(arg, "--") == 0) {
            only_files = 1;
            continue;
        }
        if (arg[1] == '-') {
            const char *eq = strchr(arg + 2, '=');
            size_t len = eq ? (size_t)(eq - arg - 2) : strlen(arg + 2);
            for (j = 0; j < nopt; j++)
                if (strlen(options[j].longname) == len && strncmp(arg + 2, options[j].longname, len) == 0)
                    break;
            snprintf(name, sizeof name, "--%.*s", (int)(len < 40 ? len : 40), arg + 2);
            if (j == nopt)
                return sp_fail(ei, SP_EINVAL, "%s: unknown option (see spectro --help)", name);
            if (eq && !options[j].takes_value)
                return sp_fail(ei, SP_EINVAL, "%s: takes no value", name);
            val = eq ? eq + 1 : NULL;
        } else {
            for (j = 0; j < nopt; j++)
                if (options[j].shortname && options[j].shortname == arg[1])
                    break;
            snprintf(name, sizeof name, "-%c", arg[1]);
            if (j == nopt || (arg[2] && !options[j].takes_value))
                return sp_fail(ei, SP_EINVAL, "%s: unknown option (see spectro --help)", arg);
            if (arg[2])
                val = arg + 2;
        }
        if (options[j].takes_value && !val) {
            if (i + 1 >= argc)
                return sp_fail(ei, SP_EINVAL, "%s: missing value", name);
            val = argv[++i];
        }
        {
            int err = apply(o, options[j].id, name, val, ei);
            if (err != SP_OK)
                return err;
        }
    }
    if (o->help || o->version || o->list_devices)
        return SP_OK;
    if (o->an.render.fmax > 0 && o->an.render.fmin >= o->an.render.fmax)
        return sp_fail(ei, SP_EINVAL, "--fmin %g: must be below --fmax %g", o->an.render.fmin, o->an.render.fmax);
    if (o->an.realtime && !o->an.input)
        return sp_fail(ei, SP_EINVAL, "--realtime streams a file: give a FILE");
    if (o->an.input && (o->an.device || o->an.rate || o->an.channels))
        return sp_fail(ei, SP_EINVAL, "%s: --device, --rate and --channels are for the microphone, not a file",
                       o->an.device ? "--device" : o->an.rate ? "--rate" : "--channels");
    o->headless = o->an.n_outputs > 0;
    if (o->an.hop == 0)
        o->an.hop = o->an.n / 4;
    return SP_OK;
}
