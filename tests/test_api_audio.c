/* test_api_audio: what the window's playback takes from spectro.h (API version 7).
 *
 *   spectro_input_is_stream  against stat(2): "-", a FIFO made here and NULL (the
 *                            microphone) are streams; a file, a directory, a missing path
 *                            and a synth: spec are not
 *   spectro_mix_channels     against the rule it documents (the float sum in channel order
 *                            times 1/C), bit for bit, a sum that overflows still finite, and
 *                            against the analyzer: a stereo analyzer's mix and a mono one fed
 *                            the mixed samples give the same spectra, byte for byte
 *   spectro_find_device      against the rule it documents, applied here to
 *                            spectro_list_devices' list: every output (and input) by its
 *                            index, its exact name, its name in capitals and a part of it;
 *                            the default; names and indexes that match none, refused
 *                            (SPECTRO_ENODEV, the line lists the outputs)
 *   spectro_audio_acquire    against PortAudio itself, linked here: while held, PortAudio is
 *                            initialised and the index found names the same device in
 *                            Pa_GetDeviceInfo; counted (two acquires need two releases); a
 *                            missing ALSA configuration is refused, not an abort
 *
 * The devices are ALSA's under a configuration written here (ALSA_CONFIG_PATH): PCMs of the
 * `file` plugin over `null`, no sound card needed, one of them named so that "default" is
 * both a whole name and a part of an earlier one. Links libspectro.so (and PortAudio, as
 * the reference). */
#include <ctype.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "spectro.h"

#ifdef TEST_HAVE_PORTAUDIO
#include <portaudio.h>
#endif

int check_failures, check_count;

static const char ASOUND[] = "pcm.!default {\n type file\n slave.pcm \"null\"\n file \"/dev/null\"\n"
                             " format \"raw\"\n}\n"
                             "pcm.a_default_too {\n type file\n slave.pcm \"null\"\n file \"/dev/null\"\n"
                             " format \"raw\"\n}\n"
                             "pcm.null {\n type null\n}\n";

/* ---- spectro_input_is_stream ------------------------------------------------------------ */

/* the reference: "-", NULL, or what stat(2) says is a FIFO */
static int stream_by_stat(const char *path)
{
    struct stat sb;
    if (!path || strcmp(path, "-") == 0)
        return 1;
    return stat(path, &sb) == 0 && S_ISFIFO(sb.st_mode);
}

static void test_is_stream(const char *dir)
{
    char fifo[64], file[64], missing[64];
    const char *inputs[] = {NULL, "-", fifo, file, dir, missing, "synth:sine=1000,duration=1"};
    FILE *f;
    snprintf(fifo, sizeof fifo, "%s/pipe", dir);
    snprintf(file, sizeof file, "%s/file.wav", dir);
    snprintf(missing, sizeof missing, "%s/missing.wav", dir);
    CHECK(mkfifo(fifo, 0600) == 0);
    CHECK((f = fopen(file, "wb")) != NULL);
    if (f)
        fclose(f);
    for (size_t i = 0; i < sizeof inputs / sizeof inputs[0]; i++)
        CHECK_MSG(spectro_input_is_stream(inputs[i]) == stream_by_stat(inputs[i]), "%s: %d",
                  inputs[i] ? inputs[i] : "NULL", spectro_input_is_stream(inputs[i]));
    CHECK(spectro_input_is_stream(fifo) == 1 && spectro_input_is_stream(file) == 0);
    CHECK(spectro_input_is_stream("-") == 1 && spectro_input_is_stream(NULL) == 1);
    unlink(fifo);
    CHECK(spectro_input_is_stream(fifo) == 0); /* the path only: gone, no stream */
    unlink(file);
}

/* ---- spectro_mix_channels --------------------------------------------------------------- */

enum { MIX_FRAMES = 5000, MIX_RATE = 8000, MIX_N = 256 };

static void test_mix(void)
{
    static float in[MIX_FRAMES * 5], out[MIX_FRAMES], ref[MIX_FRAMES];
    static float a[(MIX_FRAMES / 64 + 1) * (MIX_N / 2 + 1)], b[(MIX_FRAMES / 64 + 1) * (MIX_N / 2 + 1)];
    spectro_error err = {0, {0}};
    unsigned seed = 12345;
    for (size_t i = 0; i < sizeof in / sizeof in[0]; i++) {
        seed = seed * 1103515245u + 12345u;
        in[i] = (float)((seed >> 8) & 0xffff) / 32768.0f - 1.0f;
    }
    for (int ch = 1; ch <= 5; ch++) {
        const float inv = 1.0f / (float)ch;
        for (size_t i = 0; i < MIX_FRAMES; i++) {
            float sum = in[i * (size_t)ch];
            for (int c = 1; c < ch; c++)
                sum += in[i * (size_t)ch + (size_t)c];
            ref[i] = sum * inv;
        }
        CHECK(spectro_mix_channels(in, MIX_FRAMES, ch, SPECTRO_CHANNEL_MIX, out, &err) == SPECTRO_OK);
        CHECK_MSG(memcmp(out, ref, sizeof out) == 0, "the mix of %d channels", ch);
        for (int c = 0; c < ch; c++) {
            int same = 1;
            CHECK(spectro_mix_channels(in, MIX_FRAMES, ch, c, out, &err) == SPECTRO_OK);
            for (size_t i = 0; i < MIX_FRAMES; i++)
                same &= out[i] == in[i * (size_t)ch + (size_t)c];
            CHECK_MSG(same, "channel %d of %d", c, ch);
        }
    }
    /* a sum past FLT_MAX: the mean is still there */
    {
        const float big[4] = {3e38f, 3e38f, -3e38f, -2e38f};
        CHECK(spectro_mix_channels(big, 2, 2, SPECTRO_CHANNEL_MIX, out, &err) == SPECTRO_OK);
        CHECK_MSG(out[0] == 3e38f && out[1] == -2.5e38f, "%g %g", out[0], out[1]);
    }
    /* as the analyzer mixes: its stereo mix, and a mono analyzer of the mixed samples */
    {
        spectro_analyzer_config c = spectro_analyzer_config_default();
        size_t frames = (size_t)spectro_frame_count(MIX_FRAMES, MIX_N, 64);
        c.sample_rate = MIX_RATE, c.channels = 2, c.fft_size = MIX_N, c.hop = 64, c.backend = "cpu";
        CHECK(spectro_spectrogram(&c, in, MIX_FRAMES, a, frames, &err) == SPECTRO_OK);
        CHECK(spectro_mix_channels(in, MIX_FRAMES, 2, SPECTRO_CHANNEL_MIX, out, &err) == SPECTRO_OK);
        c.channels = 1;
        CHECK(spectro_spectrogram(&c, out, MIX_FRAMES, b, frames, &err) == SPECTRO_OK);
        CHECK_MSG(memcmp(a, b, frames * (MIX_N / 2 + 1) * sizeof *a) == 0, "%s", err.message);
    }
    /* refused, naming the argument */
    CHECK(spectro_mix_channels(in, 4, 0, SPECTRO_CHANNEL_MIX, out, &err) == SPECTRO_EINVAL &&
          strstr(err.message, "channels 0"));
    CHECK(spectro_mix_channels(in, 4, 2, 2, out, &err) == SPECTRO_EINVAL && strstr(err.message, "channel 2"));
    CHECK(spectro_mix_channels(in, 4, 2, SPECTRO_CHANNEL_ALL, out, &err) == SPECTRO_EINVAL &&
          strstr(err.message, "channel -2"));
    CHECK(spectro_mix_channels(in, 4, 2, 0, NULL, &err) == SPECTRO_EINVAL && strstr(err.message, "out"));
    CHECK(spectro_mix_channels(NULL, 0, 2, 0, NULL, &err) == SPECTRO_OK);
}

/* ---- spectro_find_device ---------------------------------------------------------------- */

static int has_dir(const spectro_device_info *d, int output)
{
    return (output ? d->max_output_channels : d->max_input_channels) > 0;
}

static int ci_contains(const char *hay, const char *needle)
{
    for (size_t n = strlen(needle); *hay; hay++)
        if (strncasecmp(hay, needle, n) == 0)
            return 1;
    return 0;
}

/* the documented rule over the list: an index, a whole name (any case), else the first
 * name holding it; -1 none */
static int expected(const spectro_device_info *list, int n, const char *want, int output)
{
    int part = -1;
    for (int i = 0; i < n; i++) {
        char idx[16];
        snprintf(idx, sizeof idx, "%d", list[i].index);
        if (!has_dir(&list[i], output))
            continue;
        if (strcmp(want, idx) == 0 || strcasecmp(want, list[i].name) == 0)
            return list[i].index;
        if (part < 0 && ci_contains(list[i].name, want))
            part = list[i].index;
    }
    return part;
}

static void check_find(const spectro_device_info *list, int n, const char *want, int output)
{
    spectro_device_info d;
    spectro_error err = {0, {0}};
    int want_idx = expected(list, n, want, output);
    int rc = spectro_find_device(want, output, &d, &err);
    if (want_idx < 0) {
        CHECK_MSG(rc == SPECTRO_ENODEV, "\"%s\" (output %d): %d, index %d", want, output, rc, d.index);
        CHECK_MSG(err.code == SPECTRO_ENODEV && strstr(err.message, output ? "output" : "input"), "%s",
                  err.message);
        return;
    }
    CHECK_MSG(rc == SPECTRO_OK && d.index == want_idx, "\"%s\" (output %d): %d, index %d, not %d (%s)", want,
              output, rc, d.index, want_idx, err.message);
}

static void test_find(const spectro_device_info *list, int n)
{
    spectro_device_info d;
    spectro_error err = {0, {0}};
    int outputs = 0;
    for (int i = 0; i < n; i++)
        for (int output = 0; output <= 1; output++) {
            char idx[16], upper[128], part[8];
            size_t len = strlen(list[i].name);
            if (!has_dir(&list[i], output))
                continue;
            outputs += output;
            snprintf(idx, sizeof idx, "%d", list[i].index);
            for (size_t k = 0; k <= len; k++)
                upper[k] = (char)toupper((unsigned char)list[i].name[k]);
            snprintf(part, sizeof part, "%.3s", list[i].name + len / 3);
            check_find(list, n, idx, output);
            check_find(list, n, list[i].name, output);
            check_find(list, n, upper, output);
            check_find(list, n, part, output);
        }
    CHECK_MSG(outputs >= 2, "%d output devices under the test's ALSA configuration", outputs);
    check_find(list, n, "default", 1); /* a whole name, and a part of an earlier one */
    CHECK(expected(list, n, "default", 1) != expected(list, n, "a_default", 1));
    check_find(list, n, "no such device in the test", 1);
    check_find(list, n, "4096", 1);
    /* the default output */
    CHECK(spectro_find_device(NULL, 1, &d, &err) == SPECTRO_OK);
    for (int i = 0; i < n; i++)
        if (list[i].index == d.index)
            CHECK_MSG(list[i].is_default_output && d.is_default_output && strcmp(list[i].name, d.name) == 0, "%s",
                      d.name);
    /* the refusal lists the outputs */
    CHECK(spectro_find_device("no such device", 1, &d, &err) == SPECTRO_ENODEV);
    for (int i = 0; i < n; i++)
        if (has_dir(&list[i], 1))
            CHECK_MSG(strstr(err.message, list[i].name) != NULL, "%s not in: %s", list[i].name, err.message);
    /* bad arguments */
    CHECK(spectro_find_device(NULL, 2, &d, &err) == SPECTRO_EINVAL && strstr(err.message, "output 2"));
    CHECK(spectro_find_device(NULL, 1, NULL, &err) == SPECTRO_EINVAL);
}

/* ---- spectro_audio_acquire -------------------------------------------------------------- */

#ifdef TEST_HAVE_PORTAUDIO
static void test_acquire(void)
{
    spectro_device_info d;
    spectro_error err = {0, {0}};
    CHECK(Pa_GetDeviceCount() == paNotInitialized);
    CHECK(spectro_audio_acquire(&err) == SPECTRO_OK);
    CHECK(spectro_audio_acquire(&err) == SPECTRO_OK);
    CHECK(Pa_GetDeviceCount() > 0);
    CHECK(spectro_find_device(NULL, 1, &d, &err) == SPECTRO_OK);
    if (Pa_GetDeviceCount() > d.index && d.index >= 0) {
        const PaDeviceInfo *pd = Pa_GetDeviceInfo(d.index);
        CHECK_MSG(strcmp(pd->name, d.name) == 0, "%s vs %s", pd->name, d.name);
        CHECK(pd->maxOutputChannels == d.max_output_channels && pd->maxInputChannels == d.max_input_channels);
        CHECK(Pa_GetDefaultOutputDevice() == d.index);
    } else {
        CHECK_MSG(0, "index %d of %d devices", d.index, Pa_GetDeviceCount());
    }
    spectro_audio_release();
    CHECK(Pa_GetDeviceCount() > 0); /* one acquire still held */
    spectro_audio_release();
    CHECK(Pa_GetDeviceCount() == paNotInitialized);
    /* the ALSA configuration missing: refused with a line, PortAudio never started */
    setenv("ALSA_CONFIG_PATH", "/nonexistent/spectro-test-asound.conf", 1);
    CHECK(spectro_audio_acquire(&err) == SPECTRO_ENODEV && strstr(err.message, "ALSA"));
    CHECK(spectro_find_device(NULL, 1, &d, &err) == SPECTRO_ENODEV);
    CHECK(Pa_GetDeviceCount() == paNotInitialized);
}
#endif

/* spectro_audio_quiet_begin/_end: what is written to fd 2 between them goes nowhere, what
 * after them where fd 2 pointed before; end(-1) is a no-op. */
static void test_quiet(const char *dir)
{
    char path[256], text[64] = {0};
    int saved = dup(2), fd, token;
    FILE *f;
    snprintf(path, sizeof path, "%s/stderr.txt", dir);
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    CHECK(fd >= 0 && saved >= 0);
    if (fd < 0 || saved < 0)
        return;
    fflush(stderr);
    dup2(fd, 2);
    close(fd);
    token = spectro_audio_quiet_begin();
    CHECK(token >= 0);
    CHECK(write(2, "hidden ", 7) == 7);
    spectro_audio_quiet_end(token);
    CHECK(write(2, "shown", 5) == 5);
    spectro_audio_quiet_end(-1);
    dup2(saved, 2);
    close(saved);
    if ((f = fopen(path, "r")) != NULL) {
        CHECK(fread(text, 1, sizeof text - 1, f) > 0);
        fclose(f);
    }
    CHECK_MSG(strcmp(text, "shown") == 0, "fd 2 got \"%s\"", text);
    unlink(path);
}

int main(void)
{
    spectro_device_info list[64];
    spectro_error err = {0, {0}};
    char dir[] = "/tmp/spectro_test_audio_XXXXXX", conf[64];
    int n = 0, rc;
    FILE *f;
    if (!mkdtemp(dir))
        return fprintf(stderr, "test_api_audio: mkdtemp failed\n"), 1;
    test_is_stream(dir);
    test_mix();
    test_quiet(dir);
    snprintf(conf, sizeof conf, "%s/asound.conf", dir);
    if (!(f = fopen(conf, "w")) || fputs(ASOUND, f) < 0 || fclose(f) != 0)
        return fprintf(stderr, "test_api_audio: cannot write %s\n", conf), 1;
    setenv("ALSA_CONFIG_PATH", conf, 1);
    setenv("JACK_DEFAULT_SERVER", "spectro-test-no-server", 1);
    rc = spectro_list_devices(list, 64, &n, &err);
#ifdef TEST_HAVE_PORTAUDIO
    CHECK_MSG(rc == SPECTRO_OK && n > 0 && n <= 64, "%d, %d devices: %s", rc, n, err.message);
    if (rc == SPECTRO_OK && n > 0 && n <= 64)
        test_find(list, n);
    test_acquire();
#elif defined(TEST_DEVICES_UNKNOWN)
    (void)rc; /* PortAudio without ALSA: no configuration of ours to hold the devices to */
#else
    CHECK(rc == SPECTRO_EUNSUPPORTED && spectro_find_device(NULL, 1, list, &err) == SPECTRO_EUNSUPPORTED);
    CHECK(spectro_audio_acquire(&err) == SPECTRO_EUNSUPPORTED);
#endif
    unlink(conf);
    rmdir(dir);
    return check_done("test_api_audio");
}
