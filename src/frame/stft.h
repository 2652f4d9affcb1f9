/* stft: the framer. Takes interleaved samples in blocks of any size, mixes or selects
 * channels, cuts frames of n samples every hop samples, hands batches of frames to an FFT
 * plan and passes the resulting dB spectra to a sink.
 *
 * Frame f covers samples [f*hop, f*hop + n) of the mixed or selected channel; a stream of
 * L >= n samples gives floor((L-n)/hop) + 1 frames with no padding; L < n gives one
 * zero-padded frame (at stft_finish). Memory is bounded by the batch, not the stream.
 *
 * Thread safety: one thread drives an stft (and its plan).
 */
#ifndef SPECTRO_STFT_H
#define SPECTRO_STFT_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "fft.h"

#ifdef __cplusplus
extern "C" {
#endif

#define STFT_CHANNEL_MIX (-1) /* mean of all input channels */
#define STFT_CHANNEL_ALL (-2) /* every input channel separately */

/* Receives nframes spectra of one output channel, frame indices first .. first+nframes-1,
 * row-major: db[f*bins + k]. Returns SP_OK or an error that stops the analysis.
 * The stft fills two buffers in turn, so db stays unchanged until the sink's next call
 * returns: a sink may hand it to another thread if it waits, in its next call, until that
 * thread is done with it. */
typedef int (*stft_sink_fn)(void *user, int channel, uint64_t first, size_t nframes, const float *db);

/* Receives the blocks of an stft with a reduction (stft_set_reduce), instead of the sink:
 * db as stft_sink_fn has it, or NULL when the spectra were not asked for;
 * raw[f*req.nranges + r], the peak record of frame first+f in range r (NULL without ranges);
 * colmax, the column maxima of req.span (fft_peak_req: fft_colmax_rows(span, first, nframes)
 * rows of bins; NULL without). The buffers keep stft_sink_fn's rule: unchanged until the
 * next call returns. */
typedef int (*stft_reduce_fn)(void *user, int channel, uint64_t first, size_t nframes, const float *db,
                              const fft_peak_raw *raw, const float *colmax);

typedef struct {
    size_t n;          /* frame length = FFT size */
    size_t hop;        /* >= 1 */
    int in_channels;   /* interleaved channels in the input */
    int channel;       /* STFT_CHANNEL_MIX, STFT_CHANNEL_ALL, or 0 .. in_channels-1 */
    size_t batch;      /* frames per FFT call, <= the plan's max_batch */
} stft_config;

stft_config stft_config_default(void); /* n 4096, hop 1024, mono, mix, batch 64 */

/* The frame step a setting of `hop` means: hop itself, or for 0 the default, n/4 (the
 * program's -n/--hop and the library's hop 0). */
size_t stft_hop_or_default(size_t hop, size_t n);
/* The mix of `count` interleaved frames of ch channels into dst (count floats), as the
 * framer mixes (STFT_CHANNEL_MIX): the float sum in channel order times 1/ch, a sum that
 * overflows taken again in double (docs/design.md "Channels"). Any thread. */
void stft_mix(const float *in, size_t count, int ch, float *dst);

typedef struct stft stft;

/* The plan must be made for the same n and hop and outlive the stft (it is borrowed). */
int stft_create(const stft_config *cfg, fft_plan *plan, stft_sink_fn sink, void *user, stft **out,
                sp_errinfo *ei);
void stft_destroy(stft *s); /* NULL is a no-op */

/* From now on every batch runs through fft_stft_reduce with the reductions of req (peak
 * searches, and column maxima when req->span > 0: req->first and req->colmax are the
 * stft's to set), and fn
 * (with fn_user) receives the blocks instead of the sink. spectra = 0: nobody wants
 * the spectra, so they are never brought to host memory (a GPU plan copies back only the
 * records) and fn gets db = NULL. Once, before the first stft_push; SP_EINVAL otherwise and
 * for ranges outside bins 1 .. n/2-1. */
int stft_set_reduce(stft *s, const fft_peak_req *req, int spectra, stft_reduce_fn fn, void *fn_user,
                    sp_errinfo *ei);

/* From now on stft_push, stft_flush and stft_finish look at *stop before each FFT call and
 * return SP_EINTERRUPTED ("interrupted") once it is non-zero, the batch before it delivered,
 * the rest not: one block of input can hold many calls (a hop of 1 makes a frame a sample),
 * and a stop must not wait for all of them. NULL: never (the default). Kept by stft_reset.
 * Thread safety: *stop may be set from any thread or a signal handler. */
void stft_set_stop(stft *s, const atomic_int *stop);

/* Receives the complex path's blocks (stft_set_complex): nframes transforms of one output
 * channel, z[f*bins + k] = sum_i w_i x_i e^(-2 pi i ik/n) of frame first+f, k = 0 .. n/2
 * (unscaled). The buffer keeps stft_sink_fn's rule. */
typedef int (*stft_complex_fn)(void *user, int channel, uint64_t first, size_t nframes, const cpx *z);

/* From now on every batch's frames are windowed by window[0..n) (borrowed while the mode
 * lasts) and transformed by the plan's fft_r2c, and fn (with fn_user) receives the complex
 * spectra instead of the sink its dB spectra. Once, before the first stft_push, not with
 * stft_set_reduce; stft_reset ends the mode. SP_EINVAL otherwise, SP_ENOMEM. */
int stft_set_complex(stft *s, const float *window, stft_complex_fn fn, void *fn_user, sp_errinfo *ei);

/* Receives the frames themselves (stft_set_frames): nframes frames of one output channel,
 * frame first+f being the n samples at sig + f*hop, unwindowed (a transform windows and
 * transforms them itself, on its own threads: docs/transforms.md). The buffer keeps
 * stft_sink_fn's rule. */
typedef int (*stft_frames_fn)(void *user, int channel, uint64_t first, size_t nframes, const float *sig,
                              size_t hop);

/* From now on every batch's frames go to fn (with fn_user) instead of the plan and the
 * sink. Once, before the first stft_push, not with stft_set_reduce or stft_set_complex;
 * stft_reset ends the mode. SP_EINVAL otherwise. */
int stft_set_frames(stft *s, stft_frames_fn fn, void *fn_user, sp_errinfo *ei);

/* Back to the start of a new stream (frame 0, nothing buffered, the times at 0, no
 * reduction or complex path set), keeping the buffers and the plan: the next input of a batch reuses them.
 * SP_ENOMEM when the spectra's buffers, given up by a reduction, cannot be had again. */
int stft_reset(stft *s, sp_errinfo *ei);

/* Number of output channels: 1, or in_channels with STFT_CHANNEL_ALL. */
int stft_out_channels(const stft *s);

/* Feeds nframes interleaved frames (nframes * in_channels floats). Runs every full batch. */
int stft_push(stft *s, const float *interleaved, size_t nframes, sp_errinfo *ei);

/* Live mode: analyse every complete frame now, without waiting for a full batch. */
int stft_flush(stft *s, sp_errinfo *ei);

/* End of stream: analyses the remaining complete frames, or the single zero-padded frame
 * of a stream shorter than n. */
int stft_finish(stft *s, sp_errinfo *ei);

/* Live mode: `gap` samples per channel went missing after those already pushed (dropped
 * by a consumer that fell behind). The buffered partial frame is dropped too and framing
 * resumes on the next multiple of hop, so frame f still starts at sample f*hop of the
 * original stream and frame times stay exact. */
void stft_discard(stft *s, uint64_t gap);

/* Index of the next frame (frames emitted so far per output channel, plus frames skipped
 * by stft_discard); samples consumed per channel. */
uint64_t stft_frames(const stft *s);
uint64_t stft_samples(const stft *s);
/* Frame indices stft_discard passed over, counted in stft_frames but never analysed
 * (stft_frames - stft_skipped frames went to the sink per output channel). */
uint64_t stft_skipped(const stft *s);
/* Seconds spent so far in the FFT plan's calls and in the sink's. */
void stft_times(const stft *s, double *fft_s, double *sink_s);

#ifdef __cplusplus
}
#endif
#endif
