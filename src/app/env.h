/* env: the environment variables spectro reads, turned into config fields. Only app/ (and
 * the benchmarks, which read the same variables) call this: library code takes its settings
 * as arguments.
 *
 *   SPECTRO_CPU_THREADS=1..256           cpu backend threads (default min(online CPUs, 8))
 *   SPECTRO_CPU_SIMD=sse2                cpu backend: keep the 4-wide path where AVX exists
 *   SPECTRO_CUDA_PATH=fused|portable|perlevel   cuda backend kernels (default fused)
 *   SPECTRO_CUDA_STREAM=0|1              cuda backend: C2C 16384 one-block or streamed
 *                                        (default: the device's choice)
 *   SPECTRO_AUTO_RATES=cpu_core:X,gpu_start:Y,gpu:Z,host:H --backend auto's rates (fft_rates;
 *                                        any of them; default: fft_choose.c's measured ones)
 *   SPECTRO_FONT=FILE                    label font tried before the system's (skipped when
 *                                        unreadable)
 *   SPECTRO_READERS=1..64                threads decoding a big uncompressed file ahead
 *                                        (default half the cores, at most 4; 1: the reader
 *                                        thread decodes alone)
 * and the test hooks, read only in a build configured with -DSPECTRO_TEST_HOOKS=ON (the test
 * suite's; docs/developer.md "Test hooks"): elsewhere they are ignored, good or bad:
 *   SPECTRO_AUTO_DEVICE=0|1              auto: pretend no GPU / a GPU's device node
 *   SPECTRO_READ_CHUNK=1..16777216       frames those threads decode at a time (default
 *                                        2 MB of samples)
 *   SPECTRO_TEST_FONTS=bundled           labels only from SPECTRO_FONT or the font installed
 *                                        beside the binary (not the system's)
 *   SPECTRO_TEST_STALL=AT:FOR            the analysis sleeps FOR seconds once after AT
 *                                        seconds of audio (a stalled consumer of a live run)
 *   SPECTRO_VIEW_STATS=FILE              the window writes its frame-rate and latency
 *                                        statistics to FILE when it closes
 *   SPECTRO_TEST_MAXIMA=host|off         column maxima made on the host / none (the window)
 *   SPECTRO_VIEW_VERIFY=1                the window checks its drawing in parts against a
 *                                        whole redraw
 *   SPECTRO_VIEW_SHOT=FILE               the window writes its picture once analysed, and
 *                                        closes
 * Unset or empty: the default. A bad value is SP_EINVAL with one line naming the variable,
 * e.g. "SPECTRO_CUDA_STREAM=yes: must be 0 or 1". */
#ifndef SPECTRO_ENV_H
#define SPECTRO_ENV_H

#include "analyze.h"
#include "err.h"
#include "fft.h"
#include "view.h"

/* The FFT backends' variables into *t (every field set). */
int app_env_fft(fft_tuning *t, sp_errinfo *ei);

/* Every variable into the analysis config: app_env_fft into an->fft_tuning, SPECTRO_FONT
 * into an->render, SPECTRO_READERS (and SPECTRO_READ_CHUNK) into an->file; with the test
 * hooks, SPECTRO_TEST_FONTS into an->render and, into the run's context, SPECTRO_TEST_STALL
 * (ignored when malformed) and SPECTRO_TEST_MAXIMA into ctx->test. */
int app_env_read(analyze_config *an, analyze_context *ctx, sp_errinfo *ei);

/* FFmpeg's module (libspectro-ffmpeg.so) for this binary: the build tree's when it runs
 * from there, else the one installed beside it; NULL in a build without FFmpeg. */
const char *app_ffmpeg_module(void);

/* The window's: the display variables the view decides "no display" from (DISPLAY,
 * WAYLAND_DISPLAY, whether SDL_VIDEODRIVER is set) and, with the test hooks, its test
 * switches (SPECTRO_VIEW_*). */
void app_env_view(view_config *vc);

#endif
