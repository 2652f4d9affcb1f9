/* view_player: plays a stretch of an input through an audio output (PortAudio), for the file
 * view's `p` key, a client of the public API: the input read through spectro_source (opened
 * again with the stretch as its range), the output found and PortAudio held through
 * spectro_find_device and spectro_audio_acquire (spectro.h), played through PortAudio.
 *
 *   decoder thread: spectro_source_read -> spectro_mix_channels (the mix, or a channel)
 *                   -> lock-free ring (ring.h; it waits while the ring is full)
 *   PortAudio's output callback: ring -> the device (copies only), and notes the clock
 *
 * The output is float32 at the input's rate, mono (or the same sample on two channels when
 * the device takes no mono). Before the stream starts the ring is filled (up to
 * VIEW_PLAYER_RING_SAMPLES), and PortAudio primes the device from the callback: what the
 * device receives is the stretch's samples, in order, then silence to the end of the last
 * buffer (PortAudio's ALSA host may put less than a buffer of silence before them). A ring
 * that runs dry mid-way (the decoder fell behind) gives silence, counted in
 * view_player_clock.underruns.
 *
 * The clock: every callback publishes (outputBufferDacTime, the index of its buffer's
 * first sample, the samples in it), PortAudio's own times. The sample heard now is
 *   idx + (Pa_GetStreamTime() - dac_time) * rate
 * (the output stream's clock, not a wall-clock guess), never past what the callback has
 * handed to the device.
 *
 * Thread safety: one thread (the window's) calls start, clock and stop. Builds without
 * PortAudio: view_player_start returns SPECTRO_EUNSUPPORTED. */
#ifndef SPECTRO_VIEW_PLAYER_H
#define SPECTRO_VIEW_PLAYER_H

#include <stdint.h>

#include "spectro.h"

#define VIEW_PLAYER_RING_SAMPLES ((size_t)1 << 18) /* ~5.5 s at 48 kHz, filled before the start */

typedef struct {
    const char *input;   /* the input, opened again: a file or a synth: spec (not a stream:
                          * spectro_input_is_stream); borrowed while the player lives */
    spectro_source_config source; /* how it is read (raw_format, stream; borrowed during
                          * view_player_start); start and end are the player's, from first
                          * and end */
    int rate;            /* the rate first and end count at: the input's (checked at open) */
    const char *device;  /* output: NULL = the default; an index or part of a name */
    int64_t first;       /* sample frames [first, end) of the input */
    int64_t end;         /* -1: to the input's end */
    int channel;         /* SPECTRO_CHANNEL_MIX (the analysis' mix), or 0 .. channels-1 */
} view_player_config;

/* all of the input, read as its header says, the mix, the default output */
view_player_config view_player_config_default(void);

typedef struct view_player view_player;

/* Opens the input and the output, fills the ring, starts the stream. SPECTRO_ENODEV (no
 * output device, none matches), SPECTRO_EAUDIO (PortAudio refused), SPECTRO_EINPUT /
 * SPECTRO_EINVAL (the input, the range, the channel), SPECTRO_EUNSUPPORTED (a stream, a
 * build without PortAudio): one line in err. *out NULL on failure. */
int view_player_start(const view_player_config *cfg, view_player **out, spectro_error *err);

typedef struct {
    int rate;               /* Hz */
    int64_t first, end;     /* the stretch, in sample frames of the input (end: as known) */
    double stream_time;     /* Pa_GetStreamTime now (s) */
    double dac_time;        /* the last callback's outputBufferDacTime (s); 0 before it */
    uint64_t buf_idx;       /* its first sample, counted from `first` */
    uint64_t written;       /* samples of the stretch handed to the device */
    double pos;             /* heard now: samples from `first` (fractional), <= written */
    uint64_t underruns;     /* callbacks that found the ring dry before the end */
    int callbacks;          /* any callback yet (0: pos is 0) */
    int done;               /* all of the stretch was played (the stream finished) */
    char device[128];       /* the output's name */
} view_player_clock;

/* The clock now (see above). */
void view_player_get_clock(view_player *p, view_player_clock *out);

/* Stops at once (or after the end), closes the device and the input. NULL: a no-op. */
void view_player_stop(view_player *p);

#endif
