/* source: where samples come from. Every source delivers interleaved float frames
 * (one sample per channel) through source_read(); backends sit behind a small table of
 * function pointers (file through libsndfile, synthetic signals for tests and benchmarks;
 * the microphone joins them later).
 *
 * Non-finite samples (NaN, +-Inf) are replaced by 0 as they are read and counted
 * (source_nonfinite()). A source that ends early (a file whose header promised more than
 * it holds) says so through source_truncated() once read() has returned 0 frames.
 *
 * Thread safety: one thread at a time per source.
 */
#ifndef SPECTRO_SOURCE_H
#define SPECTRO_SOURCE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SOURCE_MAX_CHANNELS 1024
#define SOURCE_MAX_RATE 10000000 /* 10 MHz: anything above is a broken header */

typedef struct {
    int rate;
    int channels;
    int64_t samples_hint; /* samples per channel the header promises, -1 when unknown; a hint
                          * only ("frames" are the FFT's frames elsewhere) */
    char name[256];      /* what to call it in messages: the path, "synth", ... */
    char format[96];     /* e.g. "WAV 24-bit PCM" */
    char decoder[16];    /* what decoded it: "libsndfile", "ffmpeg"; "" for a microphone or
                          * a generated signal */
    int pipe;            /* a pipe, a FIFO or a device: no length, no seeking; it delivers
                          * at its writer's pace, so the pipeline treats it as live */
    int unit_bound;      /* 1: every sample lies within [-1, 1] (integer PCM, as libsndfile
                          * scales it); the GPU's check for huge samples is skipped */
    int64_t aligned;     /* a pair (--reference, source_open_pair): frames of the measured
                          * input skipped to align it with the reference (negative: of the
                          * reference); 0 for any other source */
} source_info;

typedef struct source source;

struct ring_s;

/* The table each backend fills in.
 * Pull sources (files, synth) fill read(): it stores up to max_frames frames and sets
 * *got; *got == 0 means the end. The pipeline reads them from its own thread.
 * Push sources (the microphone) fill start()/stop() instead (read is NULL): between them
 * the source's own thread or callback writes interleaved frames into the ring, never
 * blocking; what does not fit is counted by dropped(), and take_gaps() says where it was
 * lost (see source_take_gaps). status() reports a failure after start (SP_EAUDIO: the
 * device was lost) or SP_OK. */
typedef struct {
    const char *kind;
    int (*read)(void *state, float *dst, size_t max_frames, size_t *got, sp_errinfo *ei);
    int (*truncated)(const void *state);
    void (*close)(void *state);
    int (*start)(void *state, struct ring_s *r, sp_errinfo *ei);
    int (*stop)(void *state);
    uint64_t (*dropped)(const void *state);
    int (*status)(const void *state, sp_errinfo *ei);
    uint64_t (*take_gaps)(void *state, uint64_t upto, uint64_t *next_at);
    /* Pull sources that can: moves to frame `frame` before the first read. SP_OK, or
     * SP_EUNSUPPORTED when this stream cannot seek (source_seek then reads and discards);
     * SP_EINPUT when `frame` lies past the end. NULL: cannot seek. */
    int (*seek)(void *state, int64_t frame, sp_errinfo *ei);
} source_ops;

/* A kind's open() returns SOURCE_PASS when the input is not in a format it reads: the next
 * kind of the table that claims the input is tried (source_open_request). */
#define SOURCE_PASS 1

/* Wraps a backend's state (ownership passes to the source, also on failure). */
int source_create(const source_ops *ops, void *state, const source_info *info, source **out,
                  sp_errinfo *ei);
/* The source's count of clamped samples (source_out_of_range), for its kind's state to add
 * to from read(): valid until source_close, which closes the state first. (Not a column of
 * source_ops: the kinds that never clamp keep their tables as they are.) */
uint64_t *source_out_of_range_counter(source *s);

/* Headerless samples (--raw-format ENC,RATE,CHANNELS): the encoding is one of a table
 * (f32le, s16le, ...; source_raw_name lists them, little-endian, interleaved). */
typedef struct {
    int encoding;        /* index into the table; -1: not raw (the default) */
    int rate, channels;
} source_raw_format;

source_raw_format source_raw_none(void);
/* "f32le,48000,2": SP_EINVAL with a line naming --raw-format and what was expected. */
int source_raw_parse(const char *spec, source_raw_format *out, sp_errinfo *ei);
int source_raw_count(void);
const char *source_raw_name(int i); /* NULL out of range */

/* How a file or a stream is read: raw samples, or the audio stream FFmpeg decodes. */
typedef struct {
    source_raw_format raw; /* encoding -1: the file says (a header) */
    int stream;            /* the K-th audio stream (FFmpeg; 0 = the first) */
    const char *ffmpeg_module; /* the FFmpeg module to load; NULL: the build tree's */
    int readers;           /* threads decoding a regular file of PCM, float, u-law or A-law
                            * samples ahead (source_file_par.c): 0 = automatic (half the
                            * cores, at most 4), 1 = none (the reading thread decodes) */
    int64_t read_chunk;    /* frames such a thread decodes at a time; 0 = 2 MB of samples */
} source_file_options;

source_file_options source_file_options_default(void); /* not raw, stream 0, readers auto */

/* Opens an audio file with libsndfile (source_open_file_opts: raw samples, --stream).
 * SP_EINPUT (exit 2) when the path is missing, a directory, empty, not audio, or has zero
 * channels / an absurd rate; the message names the file. SOURCE_PASS (only from
 * source_open_file_opts) when libsndfile does not know the format, where FFmpeg may. */
int source_open_file(const char *path, source **out, sp_errinfo *ei);
int source_open_file_opts(const char *path, const source_file_options *o, source **out, sp_errinfo *ei);

/* Standard input ("-") or a FIFO, read with libsndfile as a stream: WAV, AU, or raw
 * samples (o->raw). A pipe has no length (samples_hint -1) and cannot seek (info.pipe);
 * standard input redirected from a regular file is read as that file. A read waiting for
 * a silent writer returns the end once *stop is set (stop may be NULL: it waits). */
int source_open_pipe(const char *path, const source_file_options *o, atomic_int *stop, source **out,
                     sp_errinfo *ei);
/* 1 when the input is read as a stream: "-", or a path that is a FIFO. */
int source_is_pipe_path(const char *input);

/* A file through FFmpeg's libraries (AAC/M4A, video soundtracks, WMA, AC-3, ...): float
 * samples at the file's own rate and channels, from its o->stream-th audio stream. FFmpeg
 * reads exactly the named file, through the module's own I/O on a descriptor: a path is
 * never taken as a URL (pipe:, concat:, http:), and a format that names other files (an HLS
 * playlist, a concat script, an image sequence) cannot open them. Builds without FFmpeg
 * return SP_EINPUT with a line saying so; source_ffmpeg_version() is then NULL, else the
 * libraries' versions ("libavformat 59.27.100, ..."). */
int source_open_ffmpeg(const char *path, const source_file_options *o, source **out, sp_errinfo *ei);
/* What the FFmpeg source reads: a path, or a stream already open. */
typedef struct {
    const char *path;    /* a file to open (exactly it), or NULL: fd is read */
    int fd;              /* a descriptor read from its offset; -1 with a path, or with a
                          * prefix that is the whole input (bytes in memory: the fuzz target) */
    int own_fd;          /* 1: closed with the source (also when the open fails), 0: borrowed */
    const void *prefix;  /* bytes already taken from fd, served first (copied) */
    size_t prefix_len;
    const char *name;    /* what messages call it */
    atomic_int *stop;    /* a pipe's read waiting for its writer ends, as the end of the
                          * stream, once *stop is set; may be NULL */
} source_ffmpeg_input;
int source_open_ffmpeg_input(const source_ffmpeg_input *in, const source_file_options *o, source **out,
                             sp_errinfo *ei);
const char *source_ffmpeg_version(const char *module);
/* FFmpeg's decoding is a module (libspectro-ffmpeg.so) loaded on first use, so that runs
 * that do not need it do not load FFmpeg's libraries: o->ffmpeg_module (the program passes
 * the one installed beside it) or, when NULL, the build tree's. Its entry points: */
typedef int (*source_ffmpeg_open_fn)(const source_ffmpeg_input *in, const source_file_options *o, source **out,
                                     sp_errinfo *ei);
typedef const char *(*source_ffmpeg_version_fn)(void);
/* The entry checks SOURCE_FFMPEG_ABI: SOURCE_FFMPEG_ABI_VERSION (bits 16-23), bumped by hand
 * on every incompatible change of what crosses the boundary, and the sizes of those structs
 * (bits 0-15, asserted to fit in source_ffmpeg_load.c) for a change nobody bumped it for. */
#define SOURCE_FFMPEG_ABI_VERSION 1u
#define SOURCE_FFMPEG_ABI_SIZES \
    (sizeof(source_ops) + sizeof(source_info) + sizeof(source_ffmpeg_input) + sizeof(source_file_options))
#define SOURCE_FFMPEG_ABI ((0x47u << 24) | (SOURCE_FFMPEG_ABI_VERSION << 16) | (unsigned)SOURCE_FFMPEG_ABI_SIZES)

/* The same as source_open_file (and FFmpeg's source after it) for a file held in memory
 * (libsndfile's virtual I/O, no temporary file; FFmpeg reads a copy): data[0..len) is
 * borrowed and must stay unchanged until source_close.
 * `name` is what messages and source_info.name call it. SP_EINPUT for an empty buffer,
 * bytes that are not audio, zero channels or an absurd rate; the message names `name`.
 * The fuzz target (tests/fuzz/) reads through it; no source kind of the table does. */
int source_open_memory(const void *data, size_t len, const char *name, source **out, sp_errinfo *ei);

/* A synthetic signal: a sum of sines plus optional white noise, identical in every
 * channel except for an optional per-channel frequency offset. */
#define SOURCE_SYNTH_MAX_TONES 8
#define SOURCE_SYNTH_MIN_RATE 1000 /* a spec's rate: below it no audio band is left to test */
typedef struct {
    int rate;
    int channels;
    int64_t frames;                  /* length; -1 = endless */
    int ntones;
    double freq[SOURCE_SYNTH_MAX_TONES]; /* Hz */
    double amp[SOURCE_SYNTH_MAX_TONES];  /* peak amplitude */
    double channel_step_hz;          /* channel c plays freq + c*channel_step_hz */
    double noise;                    /* uniform noise amplitude */
    uint32_t seed;
    const char *name;                /* what messages call it; NULL = "synth" */
} source_synth_config;

source_synth_config source_synth_config_default(void); /* 48 kHz mono 1 s, 1 kHz at 0.5 */
int source_open_synth(const source_synth_config *cfg, source **out, sp_errinfo *ei);

/* Parses a synthetic source's spec: "synth:" then comma-separated keys, each at most
 * once except sine:
 *   rate=HZ  channels=C  sine=FREQ[@AMP] (up to SOURCE_SYNTH_MAX_TONES; the first replaces
 *   the default tone; AMP 0.5 when left out)  noise=AMP  duration=SECONDS|inf  step=HZ
 *   (channel c plays FREQ + c*step)  seed=N
 * e.g. "synth:channels=32,rate=96000,sine=1000,noise=0.01,duration=10". Starts from
 * source_synth_config_default(); *out->name is the spec. SP_EINVAL with a line naming the
 * key at fault. */
int source_synth_parse(const char *spec, source_synth_config *out, sp_errinfo *ei);

/* ---- the source kinds: chosen by the input's form --------------------------------------- */

/* What the user asked for: an input (NULL = the microphone) and the microphone's settings. */
typedef struct {
    const char *input;
    const char *device;
    int rate, channels;
    source_file_options file; /* files and pipes: raw samples, --stream */
    atomic_int *stop;         /* pipes: set, a read waiting for its writer gives up; may be NULL */
    const char *reference;    /* a file: read beside the input as a pair (source_open_pair) */
    int reference_channel, measured_channel; /* the pair's channels of the reference, the input
                                              * (-1: the mix of its channels) */
    int compare;              /* with reference: a pair to compare (--compare): read from the
                               * start, not aligned, and of one length */
    int resample;             /* compare: the input resampled to the reference's rate */
} source_request;

/* One row per source kind; the first row whose claims() accepts the input opens it, or
 * passes it on (SOURCE_PASS) to the next row that claims it. A new kind is one file and
 * one row in source_table.c. */
typedef struct {
    const char *name;
    int (*claims)(const char *input);
    int (*open)(const source_request *req, source **out, sp_errinfo *ei);
} source_kind;

int source_kind_count(void);
const source_kind *source_kind_at(int i); /* NULL out of range */
/* The kind that claims this input (never NULL: a file path takes what the others leave). */
const source_kind *source_kind_for(const char *input);
/* Opens the input through its kind (and those it passes it on to); with req->reference, the
 * pair of the two (source_open_pair). */
int source_open_request(const source_request *req, source **out, sp_errinfo *ei);

/* Two files side by side (source_pair.c): channel req->reference_channel of req->reference
 * as channel 0 and channel req->measured_channel of req->input as channel 1, the later one
 * read from where the two align (GCC-PHAT over their first 2^20 frames; info.aligned), up
 * to the end of the shorter. SP_EINVAL for a pipe, a microphone or a generated signal, two
 * rates, a channel out of range; with req->compare both are read from their start, and two
 * lengths are SP_EINVAL too. */
int source_open_pair(const source_request *req, source **out, sp_errinfo *ei);

/* 1 for a push source (start/stop), 0 for a pull source (read). */
int source_is_push(const source *s);
int source_read(source *s, float *dst, size_t max_frames, size_t *got, sp_errinfo *ei);
/* Pull sources, before the first read: moves to frame `frame`, by seeking where the source
 * can, else by reading and discarding (stopping early when *stop becomes non-zero; stop may
 * be NULL). *reached = the frame reached: less than `frame` when the source ended (or was
 * stopped) first. SP_EINVAL for a push source. */
int source_seek(source *s, int64_t frame, atomic_int *stop, int64_t *reached, sp_errinfo *ei);
/* 1 when the last source_seek went there by the stream's own seek, 0 when it read up to it. */
int source_sought(const source *s);
/* Push sources: start delivering into r (single producer: the source), stop, count. */
int source_start(source *s, struct ring_s *r, sp_errinfo *ei);
int source_stop(source *s);
uint64_t source_dropped(const source *s);
int source_status(const source *s, sp_errinfo *ei);
/* Push sources: where audio went missing. A gap "at" position p lies between the p-th and
 * the (p+1)-th frame written to the ring since start. Takes the gaps at or before `upto`
 * and returns the sum of their lengths (frames); *next_at = the position of the next gap
 * known, UINT64_MAX when none. A gap is known before any frame after it is in the ring, so
 * a consumer that has seen a frame in ring_readable() (call that first) sees every gap
 * before it. The consumer is the ring's (a single thread). Pull sources: 0, UINT64_MAX. */
uint64_t source_take_gaps(source *s, uint64_t upto, uint64_t *next_at);
const source_info *source_get_info(const source *s);
uint64_t source_nonfinite(const source *s);
/* Finite samples read so far that lay beyond float's range (a 64-bit float file's 1e300)
 * and were clamped to +-FLT_MAX, as a float file's huge samples are kept finite. */
uint64_t source_out_of_range(const source *s);
int source_truncated(const source *s);
void source_close(source *s); /* NULL is a no-op */

/* ---- microphone (PortAudio): a push source --------------------------------------------
 * PortAudio is initialised only when the microphone is used (open or list), never for file
 * analysis. Before that, the audio stack's stderr chatter is silenced for the whole process:
 * ALSA's error handler is replaced by a no-op, JACK_NO_START_SERVER=1 is set (unless already
 * set) and libjack's error/info functions are replaced by no-ops when libjack is loaded.
 * A missing or device-less ALSA configuration (which makes PortAudio 19.6 abort on an
 * assertion) is reported as an error instead. Builds without PortAudio return
 * SP_EUNSUPPORTED. */
typedef struct {
    const char *device; /* NULL = default input; an index ("3") or a case-insensitive name
                           substring (an exact name wins over a substring) */
    int rate;           /* Hz; 0 = the device's default rate */
    int channels;       /* 0 = 1 (mono) */
    double latency_s;   /* 0 = the device's default low input latency */
} source_mic_config;

source_mic_config source_mic_config_default(void); /* default device, its rate, mono */

/* Opens (but does not start) an input stream: float32 interleaved frames.
 * SP_ENODEV: no input device / no device matches cfg->device (the message lists them).
 * SP_EINVAL: unsupported rate (the message lists the standard rates the device takes) or
 * too many channels. SP_EAUDIO: device busy or another PortAudio failure.
 * source_start() then delivers into the ring; source_dropped() counts samples lost: those
 * the ring had no room for (whole frames are kept together) plus, for every callback that
 * PortAudio flagged paInputOverflow, that callback's size in samples (an estimate of the
 * gap). source_take_gaps() places each loss in the stream (up to 64 gaps wait to be taken;
 * while the queue is full the newest gap grows instead: nothing is written after it).
 * source_status() returns SP_EAUDIO ("audio device lost ...") when the stream stopped
 * without source_stop() or no audio arrived for 2 s. */
int source_open_mic(const source_mic_config *cfg, source **out, sp_errinfo *ei);

typedef struct {
    int index;             /* PortAudio device index, usable as source_mic_config.device */
    char name[128];
    char host_api[32];
    int max_input_channels;
    int max_output_channels; /* 0: an input only (the player's --output-device takes > 0) */
    double default_rate;
    int is_default;        /* the default input device */
    int is_default_output; /* the default output device */
} source_device_info;

/* Lists the devices with inputs, outputs or both into out[0..max) (out may be NULL when
 * max is 0); *count = how many exist (may exceed max). SP_OK with *count == 0 when PortAudio finds none; SP_ENODEV when
 * the ALSA configuration is missing or names no device (PortAudio would abort). */
int source_list_devices(source_device_info *out, int max, int *count, sp_errinfo *ei);
/* ---- end of microphone ----------------------------------------------------------------- */

#ifdef __cplusplus
}
#endif
#endif
