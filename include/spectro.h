/* spectro.h: the public C API of libspectro, spectro's engine as a library.
 *
 * The one header a user of the library includes (C99; compiles as C and as C++; it brings in
 * spectro_job.h, the jobs' half, installed beside it). Link with
 * `pkg-config --cflags --libs spectro`. docs/api-c.md is the guide: ownership, thread safety,
 * the ABI policy.
 *
 *   spectro_source    opens what the spectro program opens (an audio file through libsndfile
 *                     or FFmpeg, "-" for standard input, a "synth:" spec) and reads its
 *                     samples as interleaved floats
 *   spectro_analyzer  frames, window, FFT (cpu, cuda, cufft, auto) and levels in dBFS: the
 *                     spectra the program's --dump writes, byte for byte, from samples pushed
 *                     in any chunking; complex STFT frames; keeps its FFT plan (and a GPU's
 *                     context) from call to call
 *   reductions        peaks (--peaks), averages (--average), tone analysis (--tone),
 *                     fractional-octave bands (--bands) of the analyzer's spectra
 *   spectro_dump      the files --dump writes (.npy, .csv and their sidecar) of spectra the
 *                     caller has (API version 7)
 *   spectro_loudness  the ITU-R BS.1770-4 / EBU R128 meter of --loudness over samples
 *                     (API version 3)
 *   spectro_job       the spectro program's run as a call: settings by name (the rows the
 *                     program's options, --help and man page are made from), inputs, then
 *                     a run with its outputs (dump, png, peaks, measurements), over many
 *                     inputs (a batch), or the window; the program is this API's client
 *                     (API version 4); the run's frames to a callback (5); the whole
 *                     stream and derived runs, which the window is built on (6)
 *
 * Conventions (the project's DESIGN contracts):
 *   - Frame f covers samples [f*hop, f*hop + fft_size) of the mixed or selected channel; L >=
 *     fft_size samples give floor((L - fft_size)/hop) + 1 frames, no padding; 0 < L <
 *     fft_size gives one zero-padded frame. Frame f's time is its centre.
 *   - fft_size/2 + 1 bins; bin k is at k*sample_rate/fft_size Hz.
 *   - Levels in dBFS: a full-scale sine centred on a bin reads 0 dB with any window:
 *     a_k = 2|X_k|/sum(w) for 0 < k < N/2, |X_k|/sum(w) at k = 0 and N/2, dB =
 *     20 log10(max(a_k, 1e-10)): the floor is -200 dB, and NaN never appears.
 *
 * Errors: every fallible function returns an int, SPECTRO_OK (0) or a negative SPECTRO_E*
 * code, and takes an optional spectro_error* (last; NULL: no message wanted) that receives
 * the code and one line naming the field or the file at fault ("hop must be at least 1").
 * Results come through out-parameters; on failure they are left as they were unless the
 * function says otherwise.
 *
 * Thread safety, unless a function says otherwise: functions without a handle may be
 * called from any thread at any time; a handle (source, analyzer, bands) is used by one
 * thread at a time (calls on it from two threads at once need the caller's lock); different
 * handles are independent, also when they live on different threads. The library reads
 * environment variables only in spectro_job_read_environment (and a job's window, the
 * display's, as SDL does), and writes to the standard
 * streams only what a job is asked to (an output to "-", peaks and measurement lines, the
 * progress bar).
 */
#ifndef SPECTRO_H
#define SPECTRO_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#if defined(SPECTRO_BUILDING_LIBRARY) && defined(__GNUC__)
#define SPECTRO_API __attribute__((visibility("default")))
#else
#define SPECTRO_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- versions and errors ------------------------------------------------------------------ */

/* The library's version, the spectro program's ("0.1.0"): static storage. Any thread. */
SPECTRO_API const char *spectro_version(void);
/* The API's revision within this SONAME: grows when functions or struct members are added
 * (docs/api-c.md). 7 for this header: 2 added the _device_async entries, 3 the transfer
 * function, spectro_loudness and the transforms, 4 the jobs, 5 a job's frames to a
 * callback, 6 a job's whole stream, derived jobs and what the window takes besides, 7 the
 * rest of what the window takes: settings read back, the caller's window, dumps, playback. */
#define SPECTRO_API_VERSION 7
SPECTRO_API int spectro_api_version(void);

/* The codes (the program's exit status for each is in brackets). */
#define SPECTRO_OK 0
#define SPECTRO_EINVAL (-1)       /* a bad argument or setting                  [2] */
#define SPECTRO_EINPUT (-2)       /* bad input data: not audio, a broken header [2] */
#define SPECTRO_ENOMEM (-3)       /* out of memory                              [1] */
#define SPECTRO_EIO (-4)          /* a read or write failed                     [1] */
#define SPECTRO_EGPU (-5)         /* a CUDA error                               [1] */
#define SPECTRO_ENODEV (-6)       /* no usable device (GPU)                     [1] */
#define SPECTRO_EUNSUPPORTED (-7) /* not in this build (FFmpeg, CUDA)           [1] */
#define SPECTRO_EAUDIO (-8)       /* an audio device failed                     [1] */
#define SPECTRO_EINTERRUPTED (-9) /* stopped                                    [130] */

/* A short text for a code ("bad argument", ...): static storage, never NULL. Any thread. */
SPECTRO_API const char *spectro_strerror(int code);

/* A failure's code and its one line, e.g. "hop must be at least 1",
 * "song.wav: not an audio file". message[0] == 0 when there is nothing to add to
 * spectro_strerror(code). Fixed layout for the SONAME's life. */
typedef struct spectro_error {
    int code;
    char message[512];
} spectro_error;

/* ---- sources ---------------------------------------------------------------------------------- */

typedef struct spectro_source spectro_source;

/* How a source is opened. `size` is sizeof(spectro_source_config), set by the _default
 * function (docs/api-c.md: structs grow at their end). */
typedef struct spectro_source_config {
    size_t size;
    double start;           /* seconds into the input where reading begins (rounded to the
                             * nearest sample); 0 = its start */
    double end;             /* seconds into the input where reading stops; 0 = its end. Past
                             * the end of the audio: SPECTRO_EINVAL once the read gets there */
    const char *raw_format; /* headerless samples "ENCODING,RATE,CHANNELS", e.g.
                             * "f32le,48000,2" (spectro_raw_format_name lists the encodings);
                             * NULL = the file says (a header). Borrowed during open. */
    int stream;             /* the K-th audio stream of a container FFmpeg reads (0 = the first) */
    /* A pair (API version 6): two files read side by side as one source of two channels,
     * channel 0 of the reference, channel 1 of the input, at one rate (the program's
     * --reference and --compare). Both must be files (not "-", a FIFO or a synth: spec);
     * the time range applies to the pair as read. */
    const char *reference;  /* the second file, NULL = no pair. Borrowed during open. */
    int pair;               /* SPECTRO_PAIR_ALIGN: the later of the two read from where they
                             * align (GCC-PHAT over their first 2^20 samples; info.aligned), up
                             * to the end of the shorter; SPECTRO_PAIR_COMPARE: both from their
                             * start, not aligned, and of one length */
    int reference_channel;  /* the reference's channel for channel 0; SPECTRO_CHANNEL_MIX (the
                             * default) the mix of its channels */
    int input_channel;      /* the input's channel for channel 1; SPECTRO_CHANNEL_MIX likewise */
    int resample;           /* SPECTRO_PAIR_COMPARE: 1 = the input resampled to the reference's
                             * rate where they differ (else two rates are SPECTRO_EINVAL) */
} spectro_source_config;

/* spectro_source_config.pair (API version 6). */
#define SPECTRO_PAIR_ALIGN 0
#define SPECTRO_PAIR_COMPARE 1

/* No time range, the file's own format, the first stream, no pair (its channels the
 * mixes). Any thread. */
SPECTRO_API spectro_source_config spectro_source_config_default(void);

/* What a source is. The caller sets `size` to sizeof(spectro_source_info) before
 * spectro_source_get_info; the library fills as many members as that holds. */
typedef struct spectro_source_info {
    size_t size;
    int sample_rate;        /* Hz */
    int channels;
    int64_t length;         /* samples per channel that reading will give (after start, up to
                             * end), as far as the header says; -1 unknown (a pipe) */
    int64_t source_length;  /* samples per channel of the whole input; -1 unknown */
    double start_s;         /* where reading began: the start sample's time in seconds */
    uint64_t start_sample;  /* and its index (give it to spectro_analyzer_config.first_sample
                             * for frame times counted from the input's start) */
    int pipe;               /* 1: a pipe or FIFO (no length, no seeking) */
    int unit_bound;         /* 1: every sample lies within [-1, 1] (integer PCM) */
    char name[256];         /* what messages call it: the path, "synth:..." */
    char format[96];        /* e.g. "WAV 24-bit PCM" */
    char decoder[16];       /* "libsndfile", "ffmpeg"; "" for a generated signal */
    int64_t aligned;        /* a pair (API version 6): samples of the input skipped to align
                             * it with the reference (negative: of the reference); else 0 */
} spectro_source_info;

/* Opens `input`: a file path (libsndfile, else FFmpeg's decoders when built in), "-" or a
 * FIFO (standard input as a stream: WAV, AU or raw samples), or "synth:KEY=VALUE,..." (a
 * sum of sines and noise: rate=, channels=, sine=FREQ[@AMP], noise=, duration=SECONDS,
 * step=, seed=). cfg NULL = spectro_source_config_default(). Seeks to cfg->start (reading up
 * to it where the input cannot seek). *out is the caller's (spectro_source_close).
 * SPECTRO_EINPUT: missing, unreadable or not audio (the message names the file);
 * SPECTRO_EINVAL: a bad setting (named: "start ...", "raw_format ..."). Any thread. */
SPECTRO_API int spectro_source_open(const char *input, const spectro_source_config *cfg, spectro_source **out,
                                    spectro_error *err);

/* Fills info (info->size set by the caller; SPECTRO_EINVAL when it is 0 or info NULL). */
SPECTRO_API int spectro_source_get_info(const spectro_source *s, spectro_source_info *info);

/* Reads up to max_frames frames (one sample per channel each) as interleaved floats into
 * dst (room for max_frames * channels); *got = frames read, 0 at the end (of the input, or
 * of the config's end). Integer PCM is scaled to [-1, 1) as libsndfile does; non-finite
 * samples (NaN, Inf) become 0 and are counted (spectro_source_nonfinite). SPECTRO_EINVAL
 * when the input ended before the config's end; SPECTRO_EIO, SPECTRO_EINPUT for a read or
 * decoding failure. */
SPECTRO_API int spectro_source_read(spectro_source *s, float *dst, size_t max_frames, size_t *got,
                                    spectro_error *err);

/* Samples replaced by 0 so far (they were NaN or infinite); 1 when the input ended before
 * its header said (known once a read returned 0 frames). */
SPECTRO_API uint64_t spectro_source_nonfinite(const spectro_source *s);
SPECTRO_API int spectro_source_truncated(const spectro_source *s);

/* Closes the input and frees the source. NULL is a no-op. */
SPECTRO_API void spectro_source_close(spectro_source *s);

/* Whether `input`, as spectro_source_open and spectro_job_add_input take it, is read once as
 * a stream (API version 7): 1 for "-" (standard input) and a path that is a FIFO, which
 * cannot be opened again nor seeked (info.pipe says the same once open), and for NULL (a
 * job's input when none is given: the microphone); 0 for a file, a path that does not
 * exist (yet) and a "synth:" spec. Looks at the path only: opens nothing, reads nothing.
 * Any thread. */
SPECTRO_API int spectro_input_is_stream(const char *input);

/* One channel of `frames` interleaved frames of `channels` channels into out (frames floats,
 * not overlapping in) (API version 7): channel SPECTRO_CHANNEL_MIX their mix as the analyzer
 * makes it (the float sum in channel order times 1/channels; a sum that overflows taken
 * again in double), or channel c (0 .. channels-1) picked out. For playing what an analysis
 * shows. SPECTRO_EINVAL naming the argument: channels < 1, channel out of range, in or out
 * NULL with frames > 0. Any thread. */
SPECTRO_API int spectro_mix_channels(const float *in, size_t frames, int channels, int channel, float *out,
                                     spectro_error *err);

/* The raw encodings raw_format takes ("f32le", "s16le", ...): i in 0 .. count-1; NULL out
 * of range. Static storage; any thread. */
SPECTRO_API int spectro_raw_format_count(void);
SPECTRO_API const char *spectro_raw_format_name(int i);

/* ---- the analyzer --------------------------------------------------------------------------- */

typedef struct spectro_analyzer spectro_analyzer;

#define SPECTRO_CHANNEL_MIX (-1) /* the mean of all input channels (the default) */
#define SPECTRO_CHANNEL_ALL (-2) /* every input channel on its own */

/* Interleaved complex float, the layout of C99's float _Complex, C++'s std::complex<float>,
 * NumPy's complex64, CUDA's float2. */
typedef struct spectro_complex {
    float re, im;
} spectro_complex;

typedef struct spectro_analyzer_config {
    size_t size;            /* sizeof(spectro_analyzer_config), set by the _default function */
    int sample_rate;        /* Hz, >= 1 */
    int channels;           /* interleaved channels of the samples pushed, >= 1 */
    size_t fft_size;        /* N: a power of two, 16 .. 4194304; default the program's (-n) */
    size_t hop;             /* frame step in samples, >= 1; 0 = the default, fft_size/4 */
    const char *window;     /* "hann", "hamming", "blackman", "blackman-harris", "flattop",
                             * "rect", "kaiser[:beta]", "gauss[:sigma]" (spectro_window_name
                             * lists them); NULL = "hann". Borrowed during create. */
    int channel;            /* SPECTRO_CHANNEL_MIX, SPECTRO_CHANNEL_ALL, or 0 .. channels-1 */
    const char *backend;    /* "auto", "cpu", "cuda", "cufft"; NULL = "auto": the one that
                             * finishes first (a GPU when one exists and the job is worth its
                             * start-up), weighed once, at create */
    uint64_t first_sample;  /* the index in its input of the first sample pushed: frame times
                             * count from it (spectro_source_info.start_sample); 0 default */
    uint64_t expected_samples; /* samples per channel the analyzer will see, for auto's choice
                             * and the batch size; 0 = unknown */
    int cpu_threads;        /* the cpu backend's threads, 0 = min(online CPUs, 8) */
} spectro_analyzer_config;

/* 48000 Hz mono, the program's fft_size, hop 0 (fft_size/4), hann, mix, auto, nothing
 * expected. Any thread. */
SPECTRO_API spectro_analyzer_config spectro_analyzer_config_default(void);

/* Checks cfg, makes the window and the FFT plan (a GPU backend's start-up happens here).
 * SPECTRO_EINVAL names the field at fault ("fft_size 1000: must be a power of two from 16
 * to 4194304", "channel 3: out of range: the input has 2 channels ...", "window hanx:
 * unknown window (...)", "backend \"gpu\": unknown backend (...)"); SPECTRO_EUNSUPPORTED
 * (cuda or cufft in a build without CUDA), SPECTRO_ENODEV (no usable GPU for cuda or cufft;
 * auto falls back to the cpu instead), SPECTRO_ENOMEM, SPECTRO_EGPU. *out is the caller's
 * (spectro_analyzer_destroy). Any thread. */
SPECTRO_API int spectro_analyzer_create(const spectro_analyzer_config *cfg, spectro_analyzer **out,
                                        spectro_error *err);
/* Frees the analyzer, its plan and its buffers (a GPU's context stays for the process).
 * NULL is a no-op. */
SPECTRO_API void spectro_analyzer_destroy(spectro_analyzer *a);

/* What the analyzer runs. The caller sets `size` to sizeof(spectro_analyzer_info). */
typedef struct spectro_analyzer_info {
    size_t size;
    int sample_rate, channels;
    int out_channels;       /* 1, or channels with SPECTRO_CHANNEL_ALL */
    size_t fft_size, hop, bins; /* bins = fft_size/2 + 1 */
    double bin_hz;          /* sample_rate / fft_size */
    double time_first_s;    /* frame f's centre is at time_first_s + f * time_step_s */
    double time_step_s;
    char window[64];        /* canonical text, e.g. "hann", "kaiser:8.6" (the dump's) */
    char backend[16];       /* the backend running: "cpu", "cuda", "cufft" */
    char fallback[512];     /* auto: why it could not use the GPU ("" when it did, when the
                             * cpu was the faster choice, or a backend was named) */
} spectro_analyzer_info;

SPECTRO_API int spectro_analyzer_get_info(const spectro_analyzer *a, spectro_analyzer_info *info);

/* Frames per output channel that `samples` samples per channel give (DESIGN's rule: 0 for
 * none, 1 for fewer than fft_size). */
SPECTRO_API uint64_t spectro_analyzer_frame_count(const spectro_analyzer *a, uint64_t samples);
/* The centre of frame `frame` in seconds, time_first_s + frame * time_step_s in double, the
 * very value the program's --peaks prints (with "%.6f"). */
SPECTRO_API double spectro_analyzer_frame_time(const spectro_analyzer *a, uint64_t frame);
/* The same for an input of `samples` samples a channel: an input shorter than fft_size has
 * its one frame at the centre of its samples, (first_sample + samples/2) / sample_rate, as
 * the program times a short file's frame (added in API version 1). */
SPECTRO_API double spectro_analyzer_input_frame_time(const spectro_analyzer *a, uint64_t samples, uint64_t frame);

/* ---- the analyzer: whole arrays ------------------------------------------------------------- */

/* The spectrogram of `count` frames of interleaved samples (count * channels floats) in one
 * call: out receives F = spectro_analyzer_frame_count(a, count) frames of bins floats per
 * output channel, laid out [channel][frame][bin] with F frames a channel (one output
 * channel: [frame][bin]); out_frames says how many frames a channel it has room for (at
 * least F, else SPECTRO_EINVAL). The values are those the program's --dump writes for these
 * samples and settings, byte for byte. count 0: SPECTRO_EINVAL (no samples, no frame).
 * Ends any stream in progress and leaves a fresh dB stream (spectro_analyzer_reset). */
SPECTRO_API int spectro_analyzer_spectrogram(spectro_analyzer *a, const float *samples, size_t count, float *out,
                                             size_t out_frames, spectro_error *err);

/* The complex STFT of the same frames, laid out as spectrogram's, each value scaled to the
 * level convention: Z_k = c_k X_k with c_k = 2/sum(w) for 0 < k < N/2 and 1/sum(w) at
 * k = 0 and N/2 (X the windowed frame's DFT, sum_i w_i x_i e^(-2 pi i ik/N)), so |Z_k| is
 * the amplitude a_k and 20 log10(max(|Z_k|, 1e-10)) = 10 log10(max(|Z_k|^2, 1e-20)) is the
 * spectrogram's level plus the constant 0 dB, to within float rounding (the FFT's output
 * and the level's arithmetic are float: the two agree to about 1e-4 dB above -120 dBFS).
 * An STFT without that scale is Z_k / c_k. */
SPECTRO_API int spectro_analyzer_stft(spectro_analyzer *a, const float *samples, size_t count,
                                      spectro_complex *out, size_t out_frames, spectro_error *err);

/* The same for samples in device memory: d_samples (count floats) and d_out (F * bins
 * floats) are CUDA pointers of the current device (the CUDA runtime's primary context, the
 * one torch and CuPy use); the frames never leave the GPU. The analyzer's backend must be
 * cuda or cufft (SPECTRO_EUNSUPPORTED otherwise, the message says why; also in builds
 * without CUDA) and its input one channel (channels 1), at least fft_size samples (no padded
 * frame on the device: SPECTRO_EINVAL). The call returns once d_out is written (the work
 * runs on the analyzer's own stream, which it waits for). The values are those of
 * spectrogram on the same backend; unlike it, no sample is checked for a size beyond the
 * float FFT's range (above about 1e30). Not part of a stream: the stream is untouched. */
SPECTRO_API int spectro_analyzer_spectrogram_device(spectro_analyzer *a, const float *d_samples, size_t count,
                                                    float *d_out, size_t out_frames, spectro_error *err);

/* The same for `clips` signals of `count` samples each in one call (clip c at d_samples +
 * c * stride, stride >= count): d_out receives [clip][frame][bin], F frames a clip, each
 * clip analysed on its own (its frames start at its own sample 0). One wait for all: many
 * short clips cost about one call. clips 0 does nothing. Errors as spectrogram_device's. */
SPECTRO_API int spectro_analyzer_spectrogram_device_batch(spectro_analyzer *a, const float *d_samples, size_t clips,
                                                          size_t count, size_t stride, float *d_out,
                                                          size_t out_frames, spectro_error *err);

/* The same queued on the caller's CUDA stream, returning without waiting (as a torch or
 * CuPy operation does): cuda_stream is a cudaStream_t of the current device, as torch's
 * torch.cuda.current_stream().cuda_stream or CuPy's cupy.cuda.get_current_stream().ptr give
 * it; NULL is the device's default stream (cudaStreamLegacy and cudaStreamPerThread are
 * taken too). The work starts after what was queued on that stream before the call and
 * what is queued after it waits for it: d_out is written once the stream gets there
 * (synchronise the stream, or read d_out from work queued on it). d_samples and d_out must
 * stay allocated until then. The values are spectrogram_device's, byte for byte; the checks
 * and their errors too, plus SPECTRO_EGPU for a launch the GPU refuses at once (e.g. a
 * stream of another device); a fault in the work itself shows on the stream later, as
 * CUDA's own do. A handle that is not a live stream is undefined, as in CUDA.
 * The analyzer may be called again at once, from the same stream or another one: calls on
 * one stream run in their order; calls on two streams are each ordered with their own
 * stream only and may run at the same time on the device, which is safe: the fused kernel
 * (cuda backend, fft_size up to 32768) reads only the analyzer's constant tables, and the
 * other paths (cufft, larger sizes) use the analyzer's buffers on its own stream, where the
 * calls take them in turn. spectro_analyzer_destroy waits for the whole device once this
 * entry has been used, so that no queued work outlives the tables it reads.
 * Thread safety as every analyzer call: one thread at a time per analyzer. */
SPECTRO_API int spectro_analyzer_spectrogram_device_async(spectro_analyzer *a, const float *d_samples, size_t count,
                                                          float *d_out, size_t out_frames, void *cuda_stream,
                                                          spectro_error *err);

/* _device_batch queued on cuda_stream without waiting, as _device_async. */
SPECTRO_API int spectro_analyzer_spectrogram_device_batch_async(spectro_analyzer *a, const float *d_samples,
                                                                size_t clips, size_t count, size_t stride,
                                                                float *d_out, size_t out_frames, void *cuda_stream,
                                                                spectro_error *err);

/* ---- the analyzer: streams ------------------------------------------------------------------ */

/* A stream: samples are pushed in any chunking, the frames they complete are analysed at
 * once and wait in the analyzer until read; finish ends the stream. Any chunking gives
 * exactly the frames of spectro_analyzer_spectrogram on the whole (or _stft with
 * SPECTRO_OUTPUT_COMPLEX). An analyzer starts with a dB stream; reset starts another. */
#define SPECTRO_OUTPUT_DB 0      /* spectra in dBFS: read with spectro_analyzer_read */
#define SPECTRO_OUTPUT_COMPLEX 1 /* scaled complex frames: spectro_analyzer_read_complex */

/* Drops the stream in progress (frames waiting included) and begins a new one of `output`
 * (SPECTRO_OUTPUT_DB or SPECTRO_OUTPUT_COMPLEX) at frame 0, keeping the plan. */
SPECTRO_API int spectro_analyzer_reset(spectro_analyzer *a, int output, spectro_error *err);

/* Pushes `count` frames of interleaved samples (count * channels floats; samples may be
 * NULL when count is 0). The frames they complete are analysed now; *ready (may be NULL) =
 * frames a channel waiting to be read. SPECTRO_EINVAL after finish (reset first). */
SPECTRO_API int spectro_analyzer_push(spectro_analyzer *a, const float *samples, size_t count, size_t *ready,
                                      spectro_error *err);

/* Ends the stream: the frames still buffered are analysed (a stream of fewer than fft_size
 * samples gives its one zero-padded frame; one of no sample gives none). *ready as push. */
SPECTRO_API int spectro_analyzer_finish(spectro_analyzer *a, size_t *ready, spectro_error *err);

/* Frames a channel waiting to be read. */
SPECTRO_API size_t spectro_analyzer_ready(const spectro_analyzer *a);
/* The index of the next frame a read returns (frames read so far in this stream). */
SPECTRO_API uint64_t spectro_analyzer_position(const spectro_analyzer *a);

/* Moves up to max_frames waiting frames a channel into out, laid out [channel][frame][bin]
 * over the *got frames read (one output channel: [frame][bin]); out has room for
 * max_frames * out_channels * bins floats. SPECTRO_EINVAL for the other output's read. */
SPECTRO_API int spectro_analyzer_read(spectro_analyzer *a, float *out, size_t max_frames, size_t *got,
                                      spectro_error *err);
SPECTRO_API int spectro_analyzer_read_complex(spectro_analyzer *a, spectro_complex *out, size_t max_frames,
                                              size_t *got, spectro_error *err);

/* ---- one call ---------------------------------------------------------------------------------- */

/* spectro_analyzer_spectrogram with an analyzer of its own (cfg->expected_samples is taken
 * as count, so that auto weighs this job): for one array. Any thread. */
SPECTRO_API int spectro_spectrogram(const spectro_analyzer_config *cfg, const float *samples, size_t count,
                                    float *out, size_t out_frames, spectro_error *err);
/* The frames spectro_spectrogram gives a channel for `samples` samples, fft_size and hop
 * (0: fft_size/4); 0 for no samples or an fft_size below 1. Any thread. */
SPECTRO_API uint64_t spectro_frame_count(uint64_t samples, size_t fft_size, size_t hop);

/* ---- reductions of the analyzer's spectra ------------------------------------------------------
 * Each takes db: `frames` dB spectra of one output channel, [frame][bin] as the analyzer
 * gives them (bins = fft_size/2 + 1), and reads the analyzer's rate, fft_size and window;
 * for several channels, call once a channel. They do not touch the stream. */

/* The strongest component of a frame, located between bins and levelled by the window's own
 * transform (the program's --peaks). */
typedef struct spectro_peak {
    double freq_hz;
    double db;              /* dBFS */
    uint64_t bin;           /* the strongest bin itself */
} spectro_peak;

/* The peak of each frame within fmin .. fmax Hz (0 = from bin 1 / up to bin N/2-1; DC and
 * Nyquist are never searched) into out[frames]: the numbers --peaks prints as
 * "%.6f\t%.3f\t%.2f" of (spectro_analyzer_frame_time, freq_hz, db). SPECTRO_EINVAL when
 * the range holds no bin ("fmin/fmax: ..."). */
SPECTRO_API int spectro_analyzer_peaks(spectro_analyzer *a, const float *db, size_t frames, double fmin,
                                       double fmax, spectro_peak *out, spectro_error *err);

#define SPECTRO_AVERAGE_MEAN 0 /* power mean: the mean of 10^(dB/10), back in dB (Welch) */
#define SPECTRO_AVERAGE_MAX 1  /* peak hold: the highest level of each bin */
#define SPECTRO_AVERAGE_MIN 2  /* minimum hold */

/* One spectrum over the frames (--average MODE, and --psd when psd is 1: dBFS/Hz, the level
 * less 10 log10(ENBW * bin_hz)) into out[bins]; frames 0 gives the floor. */
SPECTRO_API int spectro_analyzer_average(spectro_analyzer *a, const float *db, size_t frames, int mode, int psd,
                                         float *out, spectro_error *err);

/* Where the long-term spectrum of the frames falls off for good (a lossy codec's low-pass;
 * the program's --bandwidth, docs/measurements.md "Codec bandwidth"): the power mean of the
 * `frames` rows of db (every frame of every channel, as --bandwidth takes them together),
 * smoothed, searched for a cliff. API version 4. */
typedef struct spectro_bandwidth_result {
    double cutoff_hz;     /* the cut-off, or the top of the spectrum when full-band */
    int full_band;        /* 1: no low-pass below 93 % of Nyquist */
    const char *encoders; /* encoders that typically cut there ("MP3 128 kb/s ..."), static; NULL */
    double below_db, above_db, drop_db; /* the evidence: mean levels within 1.5 kHz below and
                                         * above it, and their difference */
    double nyquist_hz;
} spectro_bandwidth_result;
SPECTRO_API int spectro_analyzer_bandwidth(spectro_analyzer *a, const float *db, size_t frames,
                                           spectro_bandwidth_result *out, spectro_error *err);

#define SPECTRO_TONE_MAX_HARMONICS 9 /* the 2nd to the 10th */

typedef struct spectro_tone_config {
    size_t size;            /* sizeof(spectro_tone_config), set by the _default function */
    double fundamental_hz;  /* the tone; 0 = the strongest of the band */
    double fmin, fmax;      /* the band in Hz; negative = 20 Hz, 20 kHz (clipped to Nyquist) */
} spectro_tone_config;

SPECTRO_API spectro_tone_config spectro_tone_config_default(void);

typedef struct spectro_harmonic {
    int n;                  /* 2 .. 10 */
    double hz, dbfs;
} spectro_harmonic;

/* The tone analysis, with the names and values of the program's --tone JSON. The caller
 * sets `size` to sizeof(spectro_tone). */
typedef struct spectro_tone {
    size_t size;
    double fundamental_hz, fundamental_dbfs;
    int harmonics;          /* how many of harmonic[] are set */
    spectro_harmonic harmonic[SPECTRO_TONE_MAX_HARMONICS];
    double thd_percent, thd_db, thdn_db, snr_db, sinad_db, enob_bits, noise_dbfs;
    double band_hz[2];
    uint64_t frames_averaged;
} spectro_tone;

/* The window the program's tone analysis takes unless one is chosen: "kaiser:20" (its
 * sidelobes keep a loud tone's skirt out of the harmonics and the noise floor). Give it to
 * spectro_analyzer_config.window for the program's --tone numbers. Static; any thread. */
SPECTRO_API const char *spectro_tone_window(void);

/* THD, THD+N, SNR, SINAD, ENOB of the power mean of the frames (the program's --tone of a
 * file). cfg NULL = the default. SPECTRO_EINVAL naming fundamental_hz, fmin or fmax when the
 * band is empty or the fundamental lies outside it; frames 0: SPECTRO_EINVAL. */
SPECTRO_API int spectro_analyzer_tone(spectro_analyzer *a, const float *db, size_t frames,
                                      const spectro_tone_config *cfg, spectro_tone *out, spectro_error *err);

/* Fractional-octave bands (IEC 61260-1) with frequency weighting (IEC 61672-1), made for an
 * analyzer's rate, fft_size and window (the program's --bands). Only the bands the FFT
 * resolves are reported; the narrower ones below them are listed (unresolved). */
typedef struct spectro_bands spectro_bands;

typedef struct spectro_bands_config {
    size_t size;            /* sizeof(spectro_bands_config), set by the _default function */
    int fraction;           /* 1/fraction octave: 1, 3, 6 or 12; default 3 */
    const char *weighting;  /* "Z" (none), "A", "C"; NULL = "Z" */
    double fmin, fmax;      /* mid frequencies kept, Hz; negative = 20 Hz, 20 kHz */
} spectro_bands_config;

SPECTRO_API spectro_bands_config spectro_bands_config_default(void);

/* SPECTRO_EINVAL naming fraction, weighting, fmin/fmax or fft_size (no band resolved).
 * The bands handle does not borrow the analyzer. Any thread. */
SPECTRO_API int spectro_bands_create(const spectro_analyzer *a, const spectro_bands_config *cfg,
                                     spectro_bands **out, spectro_error *err);
SPECTRO_API void spectro_bands_destroy(spectro_bands *b); /* NULL is a no-op */

SPECTRO_API size_t spectro_bands_count(const spectro_bands *b);
/* Band i's exact mid frequency and edges in Hz (0 out of range). */
SPECTRO_API double spectro_bands_mid_hz(const spectro_bands *b, size_t i);
SPECTRO_API double spectro_bands_lower_hz(const spectro_bands *b, size_t i);
SPECTRO_API double spectro_bands_upper_hz(const spectro_bands *b, size_t i);
SPECTRO_API size_t spectro_bands_unresolved_count(const spectro_bands *b);
SPECTRO_API double spectro_bands_unresolved_hz(const spectro_bands *b, size_t i);

/* Band levels (dBFS) of each frame: out[frame][band], frames x count floats. */
SPECTRO_API int spectro_bands_levels(spectro_bands *b, const float *db, size_t frames, float *out,
                                     spectro_error *err);
/* The band levels averaged over the frames (--bands with --average MODE): out[count]. */
SPECTRO_API int spectro_bands_average(spectro_bands *b, const float *db, size_t frames, int mode, float *out,
                                      spectro_error *err);

/* The bands for spectra of `frames`'s sample_rate, fft_size and window (its other members
 * are not read), without an analyzer: the same bands as spectro_bands_create's for an
 * analyzer of that config (API version 6). SPECTRO_EINVAL as spectro_analyzer_create names
 * sample_rate, fft_size or window, and as spectro_bands_create. Any thread. */
SPECTRO_API int spectro_bands_create_for(const spectro_analyzer_config *frames, const spectro_bands_config *cfg,
                                         spectro_bands **out, spectro_error *err);
/* The weightings spectro_bands_config.weighting takes, i in 0 .. count-1: "Z", "A", "C"; NULL
 * out of range (API version 6). Static storage, any thread. */
SPECTRO_API int spectro_bands_weighting_count(void);
SPECTRO_API const char *spectro_bands_weighting_name(int i);

/* ---- dumps (API version 7) --------------------------------------------------------------------
 * The program's --dump writer for spectra the caller has (a running average, a spectrum it
 * made): the file and its JSON sidecar byte for byte as the program writes them for the same
 * rows and description (docs/formats.md). The format comes from the path's extension as
 * --dump takes it: ".npy" (NumPy, float32), ".csv", or "-" (CSV on standard output, no
 * sidecar). Nothing half-written: the files are written under temporaries beside the path
 * and put in place together by spectro_dump_commit; a dump destroyed before (or a failed
 * commit) leaves nothing. A FIFO or a device is written straight through, with no sidecar. */
typedef struct spectro_dump spectro_dump;

/* What the rows are (the frames' description, as a job's stream gives it) and what the
 * sidecar records. Strings are borrowed until spectro_dump_commit returns; freqs_hz during
 * open only. `size` is set by the _default function. */
typedef struct spectro_dump_config {
    size_t size;
    int sample_rate;        /* Hz, >= 1 */
    int channels;           /* channels of rows, >= 1: shape (channels, frames, bins) when more
                             * than one or channel_name is "all", else (frames, bins) */
    size_t fft_size, hop;   /* >= 1 */
    size_t bins;            /* values a row, >= 1 */
    double bin_hz;          /* the CSV header's column k is at k * bin_hz; 0: sample_rate /
                             * fft_size */
    const double *freqs_hz; /* ... or at freqs_hz[k] (bins of them); NULL: k * bin_hz */
    double time_first_s, time_step_s; /* frame f's time: the CSV's time column, the sidecar */
    int averaged;           /* 1: one spectrum a channel (--average): no frame axis, shape
                             * (bins,) or (channels, bins), CSV rows without the time column */
    const char *unit;       /* the levels' unit: NULL or "dBFS" (not recorded), "dB SPL" */
    const char *window;     /* the window as the setting takes it: "hann", "kaiser:8.6" */
    const char *source;     /* the input: a path, "synth:...", "microphone" */
    const char *decoder;    /* "libsndfile", "ffmpeg"; NULL or "": none */
    const char *backend;    /* the FFT backend that made the rows: "cpu", "cuda", "cufft" */
    double start_s;         /* where in the input the analysis began */
    int source_channels;    /* the input's channels, >= 1 */
    int channel;            /* the channel analysed, when channel_name is NULL */
    const char *channel_name; /* "mix", "all", or NULL */
    uint64_t nonfinite_samples, dropped_samples; /* as the run counted them */
    int truncated;          /* 1: the input ended before its header said */
    const char *extra;      /* more members of the sidecar, written as given before its closing
                             * brace: ",\n  \"key\": value" ...; NULL: none */
} spectro_dump_config;

/* Every member 0 or NULL, size set. Any thread. */
SPECTRO_API spectro_dump_config spectro_dump_config_default(void);

/* Creates the dump's temporaries for `path`. SPECTRO_EINVAL naming path (an unknown
 * extension) or the config's member at fault; SPECTRO_EIO naming the path when its
 * directory is missing or not writable. *out is the caller's (spectro_dump_destroy); NULL
 * on failure. Any thread. */
SPECTRO_API int spectro_dump_open(const char *path, const spectro_dump_config *cfg, spectro_dump **out,
                                  spectro_error *err);
/* Appends `count` rows of `channel` (rows[f*bins + k]), frames first .. first + count - 1:
 * each channel's frames in order from 0 (first is the next one; an averaged dump takes one
 * row a channel). SPECTRO_EINVAL naming channel, first or count; SPECTRO_EIO when writing
 * fails or the filesystem is nearly full (the dump then refuses more rows but may still
 * be committed). */
SPECTRO_API int spectro_dump_write(spectro_dump *d, int channel, uint64_t first, size_t count,
                                   const float *rows, spectro_error *err);
/* Finishes the file (the frames every channel has), writes the sidecar and puts both in
 * place as a pair. Once, after which only spectro_dump_destroy; SPECTRO_EIO naming the path. */
SPECTRO_API int spectro_dump_commit(spectro_dump *d, spectro_error *err);
/* Frees the dump; without a commit its temporaries go and nothing is left. NULL: no-op. */
SPECTRO_API void spectro_dump_destroy(spectro_dump *d);

/* ---- running averages (API version 6) ------------------------------------------------------
 * The averages of spectro_analyzer_average kept while spectra come in, frame after frame, one
 * spectrum a channel, to be read at any time (a live display's average, a measurement over a
 * stream): feed the rows as an analyzer's stream gives them (spectro_analyzer_read), read the
 * average in dB or in power, and its tone analysis. Several averages of the same rows may be
 * kept in one handle: each row's power 10^(dB/10) is then computed once for all of them. */
typedef struct spectro_average spectro_average;

/* The lowest level the spectra and their averages take, in dB (the conventions above). */
#define SPECTRO_DB_FLOOR (-200.0)

/* The exponential average, a running average's only (not spectro_analyzer_average's, nor
 * spectro_average_name's): in power, P <- P + alpha (P_frame - P), the first frame setting P,
 * alpha = 1 - exp(-hop / (sample_rate * time_constant_s)): a level that stops falls
 * 10 log10(e) / time_constant_s dB a second (API version 6). */
#define SPECTRO_AVERAGE_EXPONENTIAL 3
/* A mode's bit in spectro_average_config.modes. */
#define SPECTRO_AVERAGE_BIT(mode) (1u << (mode))

typedef struct spectro_average_config {
    size_t size;            /* sizeof(spectro_average_config), set by the _default function */
    unsigned modes;         /* the averages kept: SPECTRO_AVERAGE_BIT(SPECTRO_AVERAGE_MEAN) |
                             * ... of MEAN, MAX, MIN, EXPONENTIAL; 0 = the mean alone */
    double time_constant_s; /* EXPONENTIAL's, > 0 seconds; 0 = 1 s */
    const float *window_coefficients; /* optional: the fft_size coefficients the spectra's FFT
                             * used (the program zero-pads a short file's shorter window), for
                             * the tone's and psd's ENBW and lobe width; NULL = the frames'
                             * window at fft_size. Read during create only. */
} spectro_average_config;

/* The mean alone, 1 s, the frames' window. Any thread. */
SPECTRO_API spectro_average_config spectro_average_config_default(void);

/* Averages of spectra as an analyzer of `frames` gives them: its sample_rate, fft_size, hop
 * (EXPONENTIAL's alpha) and window (the tone's), one average a channel of its output
 * (channels of them with SPECTRO_CHANNEL_ALL, else 1), bins = fft_size/2 + 1 a row. Nothing
 * averaged yet. cfg NULL = the default. SPECTRO_EINVAL names a field of frames as
 * spectro_analyzer_create does, or modes, time_constant_s. *out is the caller's
 * (spectro_average_destroy). Any thread. */
SPECTRO_API int spectro_average_create(const spectro_analyzer_config *frames, const spectro_average_config *cfg,
                                       spectro_average **out, spectro_error *err);
SPECTRO_API void spectro_average_destroy(spectro_average *avg); /* NULL is a no-op */

/* Output channels, bins a row, and the window's equivalent noise bandwidth in bins,
 * N sum(w^2) / sum(w)^2 (1 rect, 1.5 hann: what psd divides by, with the bin width). */
SPECTRO_API int spectro_average_channels(const spectro_average *avg);
SPECTRO_API size_t spectro_average_bins(const spectro_average *avg);
SPECTRO_API double spectro_average_enbw_bins(const spectro_average *avg);

/* Adds `frames` dB rows of `channel` (db[f*bins + k]) to every average kept, in order. No
 * allocation: for a stream's thread. SPECTRO_EINVAL for a channel out of range. */
SPECTRO_API int spectro_average_add(spectro_average *avg, int channel, const float *db, size_t frames,
                                    spectro_error *err);
/* Forgets what the averages of `modes` (0: every one kept) hold for `channel` (-1: every
 * channel): they start again with the next row. */
SPECTRO_API int spectro_average_reset(spectro_average *avg, int channel, unsigned modes, spectro_error *err);
/* Rows in average `mode` of `channel` since create or its reset; 0 for one not kept. */
SPECTRO_API uint64_t spectro_average_frames(const spectro_average *avg, int channel, int mode);

/* Average `mode` of `channel` in dB into out[bins] (psd 1: dBFS/Hz, as spectro_analyzer_average),
 * never below the floor (psd: the floor, then the density's offset); the floor before any
 * row. For MEAN, MAX and MIN the values of
 * spectro_analyzer_average on the same rows, byte for byte. SPECTRO_EINVAL naming mode (not
 * kept) or channel. */
SPECTRO_API int spectro_average_read(const spectro_average *avg, int channel, int mode, int psd, float *out,
                                     spectro_error *err);
/* The same in power, 10^(dB/10) of each bin, in double as it is kept (no round trip through
 * dB for MEAN and EXPONENTIAL); 1e-20 before any row. */
SPECTRO_API int spectro_average_power(const spectro_average *avg, int channel, int mode, double *out,
                                      spectro_error *err);

/* The tone analysis of average `mode` of `channel`, from its power (for MEAN the numbers of
 * spectro_analyzer_tone on the same rows; frames_averaged is the average's rows).
 * SPECTRO_EINVAL as spectro_analyzer_tone, and for no row yet ("frames is 0"). Reads a scratch
 * buffer of the handle: one thread at a time with the handle's other calls. */
SPECTRO_API int spectro_average_tone(spectro_average *avg, int channel, int mode, const spectro_tone_config *cfg,
                                     spectro_tone *out, spectro_error *err);

/* The band a tone analysis of fmin .. fmax (spectro_tone_config's: negative = 20 Hz, 20 kHz,
 * clipped to Nyquist) takes at sample_rate, into *lo, *hi (API version 6). SPECTRO_EINVAL
 * naming fmin when it is empty. Any thread. */
SPECTRO_API int spectro_tone_band(double fmin, double fmax, int sample_rate, double *lo, double *hi,
                                  spectro_error *err);

/* ---- the transfer function (added in API version 3) ---------------------------------------------
 * The averaged H1 transfer function of a measured channel from a reference channel, their
 * coherence and the delay (the program's --transfer REF:MEAS --dump; docs/measurements.md
 * "Transfer function"), from the two channels' complex frames as spectro_analyzer_stft or
 * spectro_analyzer_read_complex give them (an analyzer with SPECTRO_CHANNEL_ALL: channel REF's
 * [frame][bin] block and channel MEAS's). */
typedef struct spectro_transfer spectro_transfer;

#define SPECTRO_TRANSFER_COLUMNS 4 /* freq_hz, magnitude_db, phase_deg, coherence */

/* An empty average for the analyzer's fft_size and sample rate (the analyzer is read now,
 * not kept). *out is the caller's (spectro_transfer_destroy). */
SPECTRO_API int spectro_transfer_create(const spectro_analyzer *a, spectro_transfer **out, spectro_error *err);
SPECTRO_API void spectro_transfer_destroy(spectro_transfer *t); /* NULL is a no-op */
/* Adds `frames` frames: ref[f*bins + k] and meas[f*bins + k], bins = fft_size/2 + 1. */
SPECTRO_API int spectro_transfer_add(spectro_transfer *t, const spectro_complex *ref, const spectro_complex *meas,
                                     size_t frames, spectro_error *err);
/* Frames averaged so far. */
SPECTRO_API uint64_t spectro_transfer_averages(const spectro_transfer *t);
/* The table out[bins * SPECTRO_TRANSFER_COLUMNS] (row k: k * rate / fft_size, 20 log10 |H1|,
 * its phase in degrees, the coherence: the values of the program's dump), and *delay_s (may
 * be NULL) the delay of MEAS after REF in seconds. */
SPECTRO_API int spectro_transfer_table(spectro_transfer *t, float *out, double *delay_s, spectro_error *err);

/* An empty average for frames of fft_size samples at sample_rate Hz, for frames that come
 * from elsewhere than an analyzer (a job's frames, another STFT of the same scale in both
 * channels). SPECTRO_EINVAL: fft_size not a power of two in the analyzer's range, or a
 * sample_rate <= 0. Any thread. (API version 6) */
SPECTRO_API int spectro_transfer_create_size(int sample_rate, size_t fft_size, spectro_transfer **out,
                                             spectro_error *err);
/* fft_size/2 + 1; 0 for NULL. (API version 6) */
SPECTRO_API size_t spectro_transfer_bins(const spectro_transfer *t);
/* No frames averaged, as just created. (API version 6) */
SPECTRO_API void spectro_transfer_reset(spectro_transfer *t);
/* dst takes src's sums and count: a snapshot to compute from while src goes on averaging on
 * another thread. O(bins), allocates nothing. Both handles are used during the call: the
 * caller's lock keeps spectro_transfer_add off src meanwhile. SPECTRO_EINVAL when their
 * fft_size differ. (API version 6) */
SPECTRO_API int spectro_transfer_copy(spectro_transfer *dst, const spectro_transfer *src, spectro_error *err);
/* *delay_s: the delay of MEAS after REF in seconds (the pure delay in H1's excess phase,
 * docs/measurements.md "Transfer function"), within +-fft_size/2 samples; 0 with no frames.
 * SPECTRO_ENOMEM. (API version 6) */
SPECTRO_API int spectro_transfer_delay(const spectro_transfer *t, double *delay_s, spectro_error *err);

/* spectro_transfer_values' flags (API version 6). */
#define SPECTRO_TRANSFER_UNWRAP 1u       /* the phase unwrapped: steps over 180 degrees taken out */
#define SPECTRO_TRANSFER_REMOVE_DELAY 2u /* and the delay taken out first (phase + 360 f delay),
                                          * as the program's remove_delay; implies UNWRAP */
/* The values per bin (bins = spectro_transfer_bins; any array may be NULL): magnitude_db
 * (20 log10 |H1|, floored at -200), phase_deg ((-180, 180], or unwrapped by the flags),
 * coherence ([0, 1]): the table's columns, as the program's --transfer --png plots them; and
 * *delay_s (may be NULL) as spectro_transfer_delay. Should the delay fail (SPECTRO_ENOMEM,
 * returned), the phase is unwrapped with the delay left in and *delay_s is 0. The handle is
 * only read: computing from a copy (spectro_transfer_copy) leaves the original to its
 * thread. SPECTRO_EINVAL: an unknown flag. (API version 6) */
SPECTRO_API int spectro_transfer_values(const spectro_transfer *t, float *magnitude_db, float *phase_deg,
                                        float *coherence, unsigned flags, double *delay_s, spectro_error *err);

/* ---- loudness (API version 3) ------------------------------------------------------------------- */

/* The program's --loudness as a meter over interleaved samples (docs/measurements.md
 * "Loudness"): ITU-R BS.1770-4 K-weighting made for the rate, 100 ms steps, 400 ms momentary
 * and 3 s short-term blocks, gated integrated loudness, the EBU Tech 3342 loudness range,
 * the 4x true peak of BS.1770-4 Annex 2 and the sample peak. Samples added in any chunking
 * give the same numbers. */
typedef struct spectro_loudness spectro_loudness;

/* The whole input's numbers so far; -INFINITY where nothing was measured (silence, or a
 * range and short-term maximum of under 3 s). The caller sets `size` to
 * sizeof(spectro_loudness_result). */
typedef struct spectro_loudness_result {
    size_t size;
    double integrated_lufs;
    double loudness_range_lu;
    double momentary_max_lufs;
    double short_term_max_lufs;
    double true_peak_dbtp;
    double sample_peak_dbfs;
    uint64_t frames;        /* samples per channel added */
    uint64_t steps;         /* complete 100 ms steps */
} spectro_loudness_result;

/* A meter for `channels` interleaved channels at sample_rate Hz. weights: one per channel
 * (BS.1770-4's G), or NULL for the standard's by channel count: 1.0 for L, R, C, 1.41 for
 * surrounds, 0 for the LFE of 5.1 (L R C LFE Ls Rs) and 7.1; 5 channels are L R C Ls Rs;
 * any other count 1.0 each. SPECTRO_EINVAL naming sample_rate (400 Hz .. 1 MHz), channels
 * (1 .. 64) or a weight (finite, >= 0). Any thread. */
SPECTRO_API int spectro_loudness_create(int sample_rate, int channels, const double *weights,
                                        spectro_loudness **out, spectro_error *err);
SPECTRO_API void spectro_loudness_destroy(spectro_loudness *m); /* NULL is a no-op */
/* Adds `frames` interleaved frames after the earlier ones (NaN and infinities count as 0). */
SPECTRO_API int spectro_loudness_add(spectro_loudness *m, const float *samples, size_t frames,
                                     spectro_error *err);
/* Complete 100 ms steps so far, and the momentary (400 ms) and short-term (3 s) loudness in
 * LUFS of the blocks that end with step `step` (the program's --loudness --dump series):
 * NaN before a block is whole or past the last step, -INFINITY for silence. */
SPECTRO_API uint64_t spectro_loudness_steps(const spectro_loudness *m);
SPECTRO_API double spectro_loudness_momentary(const spectro_loudness *m, uint64_t step);
SPECTRO_API double spectro_loudness_short_term(const spectro_loudness *m, uint64_t step);
/* The numbers of the program's --loudness line. SPECTRO_EINPUT when under one 400 ms block
 * was added ("loudness needs at least 0.4 s of audio ..."): out is left as it was. */
SPECTRO_API int spectro_loudness_get_result(const spectro_loudness *m, spectro_loudness_result *out,
                                        spectro_error *err);

/* A level meter's figures (API version 6): what the window's meters draw besides the
 * loudness (docs/measurements.md "Level meters"). Step k of a meter covers each channel's
 * samples floor(k * sample_rate / 10) .. floor((k + 1) * sample_rate / 10) - 1, counted from
 * the first sample added. A meter sums its channels (as the loudness does): for each
 * channel's own levels make one meter a channel (weights {1.0}). */
#define SPECTRO_LOUDNESS_STEPS_PER_S 10 /* 100 ms steps (API version 6) */

/* One step's levels, linear (20 log10 of a peak, 10 log10 of mean_square: dBFS). The caller
 * sets `size` to sizeof(spectro_loudness_levels). (API version 6) */
typedef struct spectro_loudness_levels {
    size_t size;
    double sample_peak;     /* the largest |x| of the step's samples, every channel */
    double true_peak;       /* the largest 4x oversampled |x| (BS.1770-4 Annex 2), at least
                             * sample_peak */
    double mean_square;     /* the mean of x^2 (not K-weighted) over the step's samples, the
                             * channels' means summed with their weights */
} spectro_loudness_levels;

/* Keeps every step's levels from now on, at 16 bytes a step more (an hour: 576 kB); the true
 * peak is then searched in every step, not only where it may raise the whole input's (the
 * cost of the Annex 2 filter on all samples). Before the first spectro_loudness_add:
 * SPECTRO_EINVAL once samples were added; SPECTRO_ENOMEM. (API version 6) */
SPECTRO_API int spectro_loudness_keep_levels(spectro_loudness *m, spectro_error *err);
/* Step `step`'s levels (0-based, complete steps: below spectro_loudness_steps) into out
 * (out->size set by the caller). SPECTRO_EINVAL for a step out of range, levels not kept, or
 * out NULL or its size under this struct's first version; out is then left as it was.
 * Allocates nothing: cheap enough for every step of every redraw. (API version 6) */
SPECTRO_API int spectro_loudness_get_levels(const spectro_loudness *m, uint64_t step, spectro_loudness_levels *out,
                                            spectro_error *err);

/* ---- transforms (added in API version 3) ---------------------------------------------------------
 * Mel, MFCC, chroma, constant-Q and reassigned spectrograms (the program's --mel, --mfcc,
 * --chroma, --cqt, --reassign; docs/transforms.md), made for an analyzer's rate, fft_size and
 * window: each frame becomes one row of columns * depth floats. */
typedef struct spectro_transform spectro_transform;

typedef struct spectro_transform_config {
    size_t size;            /* sizeof(spectro_transform_config), set by the _default function */
    const char *kind;       /* "mel" (the default), "mfcc", "chroma", "cqt", "reassign" */
    int bands;              /* mel, mfcc: mel bands, 0 = 128; cqt: bins an octave, 0 = 12 */
    int coefficients;       /* mfcc: K, 0 = 20 */
    double fmin, fmax;      /* Hz: fmin negative = the kind's default (mel 0, cqt C1 = 32.70 Hz);
                             * fmax 0 = Nyquist (cqt: the last bin whose kernel fits below it) */
} spectro_transform_config;

SPECTRO_API spectro_transform_config spectro_transform_config_default(void);

/* SPECTRO_EINVAL with the transform's line ("mel: fmax 30000 Hz is above the Nyquist
 * frequency (24000 Hz)", "cqt: fmin 32.7032 Hz at 12 bins an octave needs N >= 32768 ...").
 * The handle does not borrow the analyzer; compute takes one of the same sample_rate and
 * fft_size. Any thread. */
SPECTRO_API int spectro_transform_create(const spectro_analyzer *a, const spectro_transform_config *cfg,
                                         spectro_transform **out, spectro_error *err);
SPECTRO_API void spectro_transform_destroy(spectro_transform *t); /* NULL is a no-op */

/* Columns a frame (B: bands, coefficients, 12 pitch classes, CQT bins, or the FFT's bins for
 * reassign), values a column (1; reassign 3: Hz, s, dBFS), and column i's frequency in Hz
 * (mfcc: i; chroma: C4 .. B4; 0 out of range). */
SPECTRO_API size_t spectro_transform_columns(const spectro_transform *t);
SPECTRO_API size_t spectro_transform_depth(const spectro_transform *t);
SPECTRO_API double spectro_transform_freq_hz(const spectro_transform *t, size_t i);

/* The transform of `count` frames of interleaved samples (count >= fft_size), as
 * spectro_analyzer_spectrogram frames them: out receives [channel][frame][column][depth],
 * F = spectro_analyzer_frame_count(a, count) frames a channel, out_frames its room in frames
 * a channel. The values are the program's --dump of the same transform. Leaves the analyzer
 * a fresh dB stream. One thread at a time on a transform (it keeps its threads' FFT plans
 * and buffers) and on the analyzer, as the analyzer's own calls. */
SPECTRO_API int spectro_transform_compute(spectro_transform *t, spectro_analyzer *a, const float *samples,
                                          size_t count, float *out, size_t out_frames, spectro_error *err);

/* The reassigned spectrogram as an image (API version 6): the points of a "reassign"
 * transform's rows (per bin: Hz, s, dBFS) gathered back onto the frame x bin grid, as the
 * program's --reassign --png draws them (docs/transforms.md "Reassignment"): each point goes
 * to the frame nearest its time and the bin nearest its frequency, a cell keeping its
 * loudest point; cells no point reaches read -200 dB; points off the grid are dropped. A
 * point moves at most half a window from its frame, so frame f is complete once frame
 * f + reach has been added: complete frames are handed to the caller's emit function in
 * order, a channel's frames in the order added. One thread at a time on a grid. */
typedef struct spectro_reassign_grid spectro_reassign_grid;

/* Receives `count` complete frames of `channel` from frame `first`: rows[f * bins + k], the
 * level of bin k (valid during the call). Returns 0, or a negative SPECTRO_E* code that stops
 * the add or flush, which return it. (API version 6) */
typedef int (*spectro_reassign_emit_fn)(void *user, int channel, uint64_t first, size_t count, const float *rows);

/* A grid of `bins` bins (bin k at k * bin_hz Hz) for frames at time_first_s + f * time_step_s
 * seconds, points within `reach` frames of their own. For an analyzer's frames: bins =
 * fft_size/2 + 1, bin_hz = rate / fft_size, time_first_s = (first_sample + fft_size/2) / rate,
 * time_step_s = hop / rate, reach = ceil(fft_size/2 / hop) + 1. SPECTRO_EINVAL naming the
 * argument. Any thread. (API version 6) */
SPECTRO_API int spectro_reassign_grid_create(int channels, size_t bins, double bin_hz, double time_first_s,
                                             double time_step_s, size_t reach, spectro_reassign_grid **out,
                                             spectro_error *err);
SPECTRO_API void spectro_reassign_grid_destroy(spectro_reassign_grid *g); /* NULL is a no-op; (API version 6) */
/* Adds `frames` rows of channel `channel` from frame `first`: points[(f * bins + k) * 3 +
 * 0..2] = Hz, s, dBFS (spectro_transform_compute's rows of "reassign", or a job's); emits the
 * frames this completes. Frames before the channel's last added are ignored; a gap (frames
 * skipped) emits what was held. (API version 6) */
SPECTRO_API int spectro_reassign_grid_add(spectro_reassign_grid *g, int channel, uint64_t first, size_t frames,
                                          const float *points, spectro_reassign_emit_fn emit, void *user,
                                          spectro_error *err);
/* Emits every frame not yet emitted, up to the last added, of every channel: the stream's
 * end. (API version 6) */
SPECTRO_API int spectro_reassign_grid_flush(spectro_reassign_grid *g, spectro_reassign_emit_fn emit, void *user,
                                            spectro_error *err);

/* ---- pitch (API version 4) -------------------------------------------------------------------- */

/* The fundamental of each frame of `count` interleaved samples by YIN (the program's --pitch,
 * docs/measurements.md "Pitch"): frames of fft_size samples of the channels' mean every hop
 * (0: fft_size/4; at most fft_size), framed as the spectra are (spectro_frame_count frames;
 * 0 < count < fft_size: one zero-padded frame), frame f's time (f*hop + fft_size/2)/rate.
 * f0[f] in Hz, 0 when unvoiced; confidence[f] 0 .. 1; lags searched for fmin .. fmax Hz
 * (<= 0: 50 and 2000). *frames = the frames written; out_frames their room.
 * SPECTRO_EINVAL naming fmin/fmax/fft_size (fft_size must hold two periods of fmin). */
SPECTRO_API int spectro_pitch(const float *samples, size_t count, int channels, int sample_rate, size_t fft_size,
                              size_t hop, double fmin, double fmax, double *f0, double *confidence,
                              size_t out_frames, size_t *frames, spectro_error *err);

/* A pitch tracker (API version 6): spectro_pitch's YIN one frame at a time, for a stream
 * (the window's pitch trace): the caller frames the samples (fft_size mono samples a frame,
 * e.g. the channels' mean every hop) and gets each frame's f0, the very numbers spectro_pitch
 * gives for the same frame. The tracker keeps its FFT plan and buffers: an estimate allocates
 * nothing. */
typedef struct spectro_pitch_tracker spectro_pitch_tracker;

/* A tracker for frames of fft_size samples at sample_rate Hz, f0 searched in fmin .. fmax Hz
 * (<= 0: 50 and 2000; fmax is cut to the Nyquist frequency). SPECTRO_EINVAL naming
 * sample_rate (>= 1), fmin/fmax (fmin below fmax) or fft_size (16 .. 4194304, and it must
 * hold two periods of fmin: "pitch: fmin 50 Hz at 48000 Hz needs fft_size 2048 or more");
 * SPECTRO_ENOMEM. *out is the caller's (spectro_pitch_tracker_destroy). Any thread.
 * (API version 6) */
SPECTRO_API int spectro_pitch_tracker_create(int sample_rate, size_t fft_size, double fmin, double fmax,
                                             spectro_pitch_tracker **out, spectro_error *err);
SPECTRO_API void spectro_pitch_tracker_destroy(spectro_pitch_tracker *t); /* NULL is a no-op (API version 6) */

/* The fundamental of one frame (fft_size samples; NaN and infinities count as 0): *f0 in Hz,
 * 0 when unvoiced (or silent: below -100 dBFS), *confidence 0 .. 1 (1 - YIN's normalised
 * difference at the period). SPECTRO_EINVAL when an argument is NULL. One thread at a time
 * on a tracker. (API version 6) */
SPECTRO_API int spectro_pitch_tracker_estimate(spectro_pitch_tracker *t, const float *frame, double *f0,
                                               double *confidence, spectro_error *err);

/* ---- tables ------------------------------------------------------------------------------------- */

/* The names the config strings take, i in 0 .. count-1, NULL out of range; static storage,
 * any thread. Windows: "hann", ..., "kaiser", "gauss" (a parameter follows a colon).
 * Backends: "auto", "cpu", "cuda", "cufft" (listed also where this build lacks them).
 * Averages: "mean", "max", "min" (SPECTRO_AVERAGE_*). */
SPECTRO_API int spectro_window_count(void);
SPECTRO_API const char *spectro_window_name(int i);
SPECTRO_API int spectro_backend_count(void);
SPECTRO_API const char *spectro_backend_name(int i);
SPECTRO_API int spectro_average_count(void);
SPECTRO_API const char *spectro_average_name(int i);

#ifdef __cplusplus
}
#endif

/* The jobs (the program's run as a call, its frames and stream, the settings' table), in a
 * header of their own that this one brings in: spectro_job.h. */
#include "spectro_job.h"

#endif
