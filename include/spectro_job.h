/* spectro_job.h: the jobs of libspectro's public C API, the spectro program's run as a call:
 * settings by name (the rows the program's options, --help and man page are made from),
 * inputs, a run with its outputs or over many inputs, the run's frames to a callback (API
 * version 5), its whole stream and derived runs, which spectro's window is built on (6),
 * its settings read back as the run takes them and the caller's window (7); the settings'
 * table, the field namer, the audio devices and the build's features.
 *
 * Included by spectro.h, whose conventions, errors and thread-safety rules hold here (users
 * include spectro.h; this file alone includes it first). docs/api-c.md "Jobs".
 */
#ifndef SPECTRO_JOB_API_H
#define SPECTRO_JOB_API_H

#include "spectro.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- jobs: the program's run as a call (API version 4) ------------------------------------- */

/* A job is what one command line of the spectro program asks for: settings, inputs, and a
 * run. spectro's own main() is a client of this section (docs/api-c.md "Jobs"). */
typedef struct spectro_job spectro_job;

/* A line a running job says (no newline; fields named as spectro_set_field_namer says):
 * ERROR a file of a batch failed (the batch goes on) or what ended the run; WARNING and NOTE
 * about an input ("warning: x.wav: 3 NaN/Inf samples replaced by 0"); INFO what the setting
 * "verbose" asks for. Called on the thread that runs the job. */
enum { SPECTRO_MESSAGE_ERROR, SPECTRO_MESSAGE_WARNING, SPECTRO_MESSAGE_NOTE, SPECTRO_MESSAGE_INFO };
typedef void (*spectro_message_fn)(void *user, int level, const char *line);

/* A job with every setting at its default, no input, no output. */
SPECTRO_API int spectro_job_create(spectro_job **out, spectro_error *err);
SPECTRO_API void spectro_job_destroy(spectro_job *j); /* NULL is a no-op */

/* The setting `name` from text, as the program's option of the same name with '_' for '-'
 * ("fft_size" is --fft-size; the list: spectro_setting_info_at): value NULL for a switch
 * ("1"/"0" also say on/off) or an optional value left out. Outputs are settings too: "dump"
 * with a path, "png", "peaks", "tone", "loudness", ... Parsed and range-checked at once:
 * SPECTRO_EINVAL naming the field ("hop 0: must be at least 1"); the settings together are
 * checked by spectro_job_run. The job keeps a copy of value. */
SPECTRO_API int spectro_job_set(spectro_job *j, const char *name, const char *value, spectro_error *err);

/* An input: a path, "-" (standard input), a "synth:" spec; none: the microphone. Several,
 * or the settings files_from or shard, make a batch. */
SPECTRO_API int spectro_job_add_input(spectro_job *j, const char *input, spectro_error *err);

/* The environment variables the spectro program honours (SPECTRO_CPU_THREADS,
 * SPECTRO_CUDA_PATH, SPECTRO_AUTO_RATES, SPECTRO_FONT, SPECTRO_READERS: docs/manual.md
 * "Environment variables") into the job. SPECTRO_EINVAL naming the variable. (A job's window
 * looks for its display where SDL does, DISPLAY and WAYLAND_DISPLAY, either way.) */
SPECTRO_API int spectro_job_read_environment(spectro_job *j, spectro_error *err);

/* Where the job's lines go (none by default), where its standard-output lines go (peaks,
 * tone and loudness lines, outputs to "-"; NULL: stdout), and whether it draws a progress
 * bar on stderr (off by default). Before spectro_job_run. */
SPECTRO_API void spectro_job_set_messages(spectro_job *j, spectro_message_fn fn, void *user);
SPECTRO_API void spectro_job_set_output(spectro_job *j, FILE *out);
SPECTRO_API void spectro_job_set_progress(spectro_job *j, int on);

/* Runs the job once, on the calling thread: one input (its outputs; with none, the window
 * spectro_job_set_window gave), or a batch. SPECTRO_OK, or the error that ended
 * it; err's message is empty when the lines were said through the message callback already
 * (a batch's failed files: SPECTRO_EIO). A second run of a job is SPECTRO_EINVAL. */
SPECTRO_API int spectro_job_run(spectro_job *j, spectro_error *err);

/* The window: what spectro_job_run runs for one input when the job asks for no output (no
 * output setting, no frames or stream callback). The library has no window of its own; the
 * spectro program gives its SDL window here. fn runs on the thread of spectro_job_run (the
 * process's main thread, which SDL wants), once the settings together and the input were
 * checked, with the job itself, whose settings it reads and whose runs it derives
 * (spectro_job_derive), until its user closes it or spectro_job_stop asks. It returns
 * SPECTRO_OK, or an error with err's message filled, which the run returns. fn NULL (the
 * default): a job with no output is SPECTRO_EINVAL ("no output asked for ..."). Before
 * spectro_job_run. (API version 7) */
typedef int (*spectro_window_fn)(void *user, spectro_job *j, spectro_error *err);
SPECTRO_API void spectro_job_set_window(spectro_job *j, spectro_window_fn fn, void *user);

/* Asks a running job to stop (reason > 0: e.g. a signal's number, kept for the caller). One
 * atomic store: safe from a signal handler and any thread. A live run ends with its outputs
 * kept (spectro_job_stopped then says 1); a file's run ends with SPECTRO_EINTERRUPTED. */
SPECTRO_API void spectro_job_stop(spectro_job *j, int reason);
/* The reason given to spectro_job_stop when it ended the last run (0: it did not). */
SPECTRO_API int spectro_job_stopped(const spectro_job *j);

/* ---- a job's frames, to a callback (API version 5) ---------------------------------------- */

/* What the frames of a job's run are: given with every call, the same within one run. */
typedef struct {
    const char *source;     /* the input: a path, "-", "synth:...", "microphone" */
    int sample_rate;        /* Hz */
    int channels;           /* the rows' channels: 1 (the mix, or the setting channel's), or
                             * every channel with channel "all" */
    size_t fft_size, hop;
    size_t bins;            /* columns a row: fft_size/2 + 1, or the transform's */
    size_t depth;           /* values a column: 1; 3 for "reassign" (Hz, s, dB) */
    const char *transform;  /* NULL: spectra; "mel", "mfcc", "chroma", "cqt", "reassign" */
    const double *freqs_hz; /* the columns' frequencies (bins of them; MFCC: the coefficients'
                             * numbers) */
    const char *unit;       /* the levels' unit: "dBFS", "dB SPL" (spl_offset); NULL where the
                             * rows are not levels (MFCC, chroma) */
    double time_first_s;    /* frame f's time (its centre): time_first_s + f * time_step_s */
    double time_step_s;
    int live;               /* the microphone, realtime or a pipe: frames may be skipped
                             * (their numbers jump) where the input lost audio */
} spectro_frames_info;

/* count rows of channel `channel`, frames first .. first + count - 1, each bins * depth floats
 * (the levels --dump writes, or the transform's values); info and rows are valid during the
 * call only. Return 0 to go on; non-zero stops the run as spectro_job_stop(j, 1) does. */
typedef int (*spectro_frames_fn)(void *user, const spectro_frames_info *info, int channel, uint64_t first,
                                 size_t count, const float *rows);

/* The run's frames go to fn as they are made (NULL: they no longer do), besides any outputs:
 * a job with a frames callback runs headless (no window) even with no output setting. fn is
 * called on the thread that runs the job, one call at a time, frames in order within each
 * channel. One input: spectro_job_run refuses a batch (SPECTRO_EINVAL); average, bands and
 * the outputs' other reductions do not change the frames. Before spectro_job_run. */
SPECTRO_API void spectro_job_set_frames(spectro_job *j, spectro_frames_fn fn, void *user);

/* ---- a job's stream, whole (API version 6) ------------------------------------------------
 * What a live display needs of a run besides its rows: the samples, the column maxima a
 * GPU reduces where the spectra are, the complex frames, and the stream's description; the
 * caller says at open which it takes. spectro's own window is a client of this section
 * (docs/api-c.md "A job's stream"). */

/* The stream: frames as spectro_frames_info says, and more of the input. Valid during open
 * (the strings until the run returns); size is this library's sizeof. */
typedef struct spectro_stream_info {
    size_t size;
    const spectro_frames_info *frames; /* what the frames are, as the frames callback says */
    const char *format;      /* the input's format: "WAV 24-bit PCM"; "" none */
    const char *decoder;     /* "libsndfile", "ffmpeg"; "" none (microphone, synth) */
    const char *window;      /* the window in the form the setting takes: "hann", "kaiser:8.6" */
    const float *window_coef; /* its fft_size coefficients, as the FFT applies them */
    const char *backend;     /* the FFT backend running: "cpu", "cuda", "cufft" */
    int source_channels;     /* the input's channels (frames.channels: the rows') */
    int channel;             /* the channel analysed when channel_name is NULL */
    const char *channel_name; /* "mix", "all", or NULL */
    double start_s;          /* where in the input the run began (the setting start) */
    double bin_hz;           /* sample_rate / fft_size */
    int64_t source_frames;   /* samples a channel the input promises; -1 unknown */
    int64_t frames_expected; /* frames a channel the run will make; -1 unknown (live) */
    int64_t frames_hint;     /* as frames_expected, also for a live run of a file: no promise */
    double aligned_s;        /* a pair (reference): how much later the measured file is read */
    int transform_db;        /* the transform's values are dB levels */
} spectro_stream_info;

/* What the caller takes, set by its open (all 0 at the call). */
typedef struct spectro_stream_wants {
    int spectra;             /* the rows, as spectro_job_set_frames gives them */
    int complex;             /* every frame's complex transform instead, unscaled: frame f's
                              * bin k is sum_i w_i x_i e^(-2 pi i ik/N); not with spectra */
    int samples;             /* the samples read, every channel of the input, interleaved */
    uint64_t maxima_span;    /* with spectra, not a transform: where the backend reduces
                              * columns where the spectra are (cuda), the per-bin maximum of
                              * each aligned group of maxima_span frames instead of the rows
                              * (ops.maxima: take both); 0: the rows */
} spectro_stream_wants;

/* How a run ended. */
typedef struct spectro_stream_end {
    uint64_t frames;         /* frames a channel, skipped ones included */
    uint64_t samples;        /* samples a channel read */
    uint64_t dropped_samples; /* live input lost */
    int interrupted;         /* a live run stopped by spectro_job_stop: a normal end */
} spectro_stream_end;

/* The caller's functions, on the thread that runs the job, one call at a time; frames in
 * order within each channel. A non-zero return (a SPECTRO_E* code, err's message set; any
 * other number reads as SPECTRO_EINTERRUPTED) ends the run with it. Members may be NULL
 * where not wanted; size is sizeof(spectro_stream_ops) as the caller knows it. */
typedef struct spectro_stream_ops {
    size_t size;
    int (*open)(void *user, const spectro_stream_info *info, spectro_stream_wants *wants, spectro_error *err);
    int (*spectra)(void *user, int channel, uint64_t first, size_t count, const float *rows, spectro_error *err);
    /* the rows of maxima: group g = first/span .. covers frames g*span .. g*span+span-1 of
     * those given now (first .. first+count-1); spectro_maxima_rows(span, first, count) rows
     * of bins floats */
    int (*maxima)(void *user, int channel, uint64_t first, size_t count, uint64_t span, const float *rows,
                  spectro_error *err);
    int (*samples)(void *user, uint64_t first, size_t count, const float *samples, spectro_error *err);
    int (*complex)(void *user, int channel, uint64_t first, size_t count, const spectro_complex *frames,
                   spectro_error *err);
    int (*finish)(void *user, const spectro_stream_end *end, spectro_error *err);
} spectro_stream_ops;

/* The run's stream goes to ops (copied; NULL: no longer), besides any outputs; as with
 * spectro_job_set_frames the job then runs headless, one input. It replaces a frames
 * callback, as spectro_job_set_frames replaces a stream. Before spectro_job_run. */
SPECTRO_API void spectro_job_set_stream(spectro_job *j, const spectro_stream_ops *ops, void *user);

/* The rows ops.maxima gets for count frames from `first` in groups of span. Any thread. */
SPECTRO_API size_t spectro_maxima_rows(uint64_t span, uint64_t first, size_t count);

/* The channels of a transfer function (the setting transfer's REF:MEAS; pair 1: a job with a
 * reference, whose stream's channels 0 and 1 are the reference's and the input's, ref and
 * meas not read) checked against the stream as the job's own --transfer output checks them:
 * SPECTRO_EINVAL naming transfer (REF or MEAS out of the input's channels, the same, an
 * input of one channel, a stream without every channel: channel "all") or reference, with
 * the output's line. For a caller taking the complex frames (spectro_stream_wants.complex)
 * to a spectro_transfer. Any thread. (API version 7) */
SPECTRO_API int spectro_stream_check_transfer(const spectro_stream_info *in, int ref, int meas, int pair,
                                              spectro_error *err);

/* A live run's clock: the time, in seconds of the system's monotonic clock
 * (CLOCK_MONOTONIC), at which the input's sample 0 was captured, once known; 0 before (and
 * for files). For a display's latency. On the thread that runs the job (in its stream's
 * callbacks), or after the run. */
SPECTRO_API double spectro_job_capture_time(const spectro_job *j);

/* Whether setting `name` shapes the frames of a run (the input, its range and decoding, the
 * FFT, the window, the channel, the backend, a transform, the levels' calibration, the
 * transfer function's channels) or how the run speaks (quiet, verbose), rather than its
 * outputs, reductions or pictures: 1, 0, or SPECTRO_EINVAL for no such setting. */
SPECTRO_API int spectro_setting_shapes_frames(const char *name);

/* A new job for another run of src's stream: its inputs, its message callback, output and
 * environment, and those of its settings that shape the frames, in the order given, except
 * the names in `except` (NULL-terminated; NULL: none), which the caller sets itself. For a
 * display that analyses the same input again (another FFT size, a transform, a range).
 * *out is the caller's (spectro_job_destroy). src is only read: any thread while it is not
 * being changed. */
SPECTRO_API int spectro_job_derive(const spectro_job *src, const char *const *except, spectro_job **out,
                                   spectro_error *err);

/* ---- a job's settings read back (API version 7) ------------------------------------------ */

/* The setting `name` (as spectro_job_set takes it) into value (len bytes with the NUL), as
 * text that spectro_job_set takes: setting what was read changes nothing. The value the
 * job's run takes, as FFmpeg's av_opt_get reads an option: "4096", "hann", "mix", "-120:0",
 * "1" / "0" for a switch or an output without a path ("peaks"), an output's path ("dump").
 * "" where the setting is not set and the run decides its value: no output, no transform,
 * the device's rate, and the settings whose being given changes the run (average, tone,
 * tone_format, spl_offset, weighting, tuning, fmin, transfer, calibrate) until they are
 * given; spectro_job_set takes no "" for those (leave them unset). What the settings make
 * of each other (the default hop N/4, tone's window kaiser:20, the colour range spl_offset
 * moves) is read after spectro_job_prepare (before it: "" where it would change them).
 * SPECTRO_EINVAL: no such setting (named), or value NULL, or len too short for the value
 * (the message says how many bytes it takes; value then holds the text cut to len - 1
 * bytes). 1024 bytes hold any value but a path. The job is only read: any thread while it
 * is not being changed. */
SPECTRO_API int spectro_job_get(const spectro_job *j, const char *name, char *value, size_t len, spectro_error *err);

/* The settings together, as spectro_job_run takes them first: their checks across settings
 * (SPECTRO_EINVAL naming the fields: "fmin 900: must be below fmax 800") and what they make
 * of each other, which spectro_job_get then reads. Idempotent: a second call, or
 * spectro_job_run after it, starts again from the settings as given; a setting or an input
 * set afterwards undoes it. Not while the job runs. */
SPECTRO_API int spectro_job_prepare(spectro_job *j, spectro_error *err);

/* The job's i-th input (0: the first, as spectro_job_add_input added them) or NULL past the
 * last: the job's own copy, valid until it is destroyed. */
SPECTRO_API const char *spectro_job_input(const spectro_job *j, int i);

/* Whether setting `name` was set (spectro_job_set, with a value other than a switch's
 * "0"): 1, 0, or SPECTRO_EINVAL for no such setting. */
SPECTRO_API int spectro_job_is_set(const spectro_job *j, const char *name);

/* The font file the job's pictures are drawn with (its labels; the title in the bold cut
 * beside it where there is one), found as its run finds it: SPECTRO_FONT where
 * spectro_job_read_environment read it, the system's DejaVu Sans, the one installed with the
 * library. Into path (len bytes; SPECTRO_EINVAL saying what it takes when it is short).
 * SPECTRO_EIO with advice when there is none. For a display that draws the job's pictures
 * itself. */
SPECTRO_API int spectro_job_font(const spectro_job *j, char *path, size_t len, spectro_error *err);

/* The reason given to spectro_job_stop since the job was made (0: none yet): for what runs
 * on the job's behalf (a display's own analyses) and ends with it. One atomic load: any
 * thread. */
SPECTRO_API int spectro_job_stop_asked(const spectro_job *j);

/* The settings as data, in the program's --help order: i in 0 .. spectro_setting_count()-1.
 * The texts are rendered with the field namer in place at the call. Any thread. */
typedef struct {
    const char *name;     /* "fft_size" (static storage) */
    const char *alias;    /* the name messages use for it when not name ("mode"), or NULL */
    const char *value;    /* the value's name in help ("N"); NULL: a switch; "[F]": optional */
    int group;            /* a group of settings starts here, titled `section` ("" none) */
    char section[128];
    char help[1024];      /* the help, with its list of names and its default; "\n" breaks */
    char kind;            /* 'l' one of `values`, 'f' a file name, 'd' an audio device, 'n' other */
    char values[512];     /* kind 'l': the names it takes, space-separated */
} spectro_setting_info;
SPECTRO_API int spectro_setting_count(void);
SPECTRO_API int spectro_setting_info_at(int i, spectro_setting_info *out);

/* How messages name a field: namer("fft_size") returns what to print ("--fft-size"), or NULL
 * for the field's own name. Process-wide: set once, before any other call; NULL: names. */
SPECTRO_API void spectro_set_field_namer(const char *(*namer)(const char *field));

/* The audio devices, inputs and outputs, into out[0..max); *count = how many exist (may
 * exceed max). SPECTRO_ENODEV when the audio system has none configured. */
typedef struct {
    int index;            /* the device setting takes it */
    char name[128];
    char host_api[32];
    int max_input_channels, max_output_channels;
    double default_rate;
    int is_default_input, is_default_output;
} spectro_device_info;
SPECTRO_API int spectro_list_devices(spectro_device_info *out, int max, int *count, spectro_error *err);

/* The device the setting `device` (output 0: an input) or `output_device` (output 1) picks
 * (API version 7): want NULL = the default input or output, else an index as
 * spectro_list_devices gives it, or a case-insensitive part of a name (a whole name wins over
 * a part; of several parts, the lowest index). Into *out. SPECTRO_ENODEV when none matches
 * (the message lists the devices of that direction) or the audio system has none configured;
 * SPECTRO_EAUDIO when PortAudio fails to start; SPECTRO_EUNSUPPORTED in a build without
 * audio. Any thread. */
SPECTRO_API int spectro_find_device(const char *want, int output, spectro_device_info *out, spectro_error *err);

/* The audio system held initialised for a caller that drives PortAudio itself (API version
 * 7), as spectro's window does to play a file: PortAudio is started as the library starts it
 * for the microphone (the ALSA configuration checked first, where PortAudio 19.6 would abort
 * without one; the audio libraries' own messages on stderr silenced), and counted: every
 * SPECTRO_OK is matched by one spectro_audio_release, and PortAudio stays initialised until
 * the last, also while the library's own users come and go. While held, the indexes of
 * spectro_list_devices and spectro_find_device are PortAudio's PaDeviceIndex, valid for
 * the caller's Pa_* calls (the same PortAudio library is linked: spectro_features names
 * it). Errors as spectro_find_device's. Any thread (the count is locked; PortAudio's own
 * calls are the caller's to order). */
SPECTRO_API int spectro_audio_acquire(spectro_error *err);
SPECTRO_API void spectro_audio_release(void);

/* Standard error silenced around a caller's calls into the audio libraries (PortAudio's ALSA
 * and JACK hosts print their own chatter while opening, starting and closing streams), as
 * the library silences its own: fd 2 pointed at /dev/null under the library's lock, which
 * its own silencing (the microphone's, a decoder's) takes too, so the two never interleave,
 * until spectro_audio_quiet_end(what begin returned). Keep the stretch short. -1 where fd 2
 * cannot be saved (nothing silenced; end(-1) is a no-op). Any thread. (API version 7) */
SPECTRO_API int spectro_audio_quiet_begin(void);
SPECTRO_API void spectro_audio_quiet_end(int token);

/* What this build can do, one line a feature ("  window:     yes (SDL2 2.30.0, ...)"): the
 * lines of spectro --version. Static storage, any thread. */
SPECTRO_API const char *spectro_features(void);

#ifdef __cplusplus
}
#endif
#endif
