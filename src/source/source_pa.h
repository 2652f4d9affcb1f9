/* PortAudio's lifetime and device lookup for a client that drives PortAudio itself (the
 * public API's spectro_audio_acquire and spectro_find_device, src/api/api_audio.c); the
 * microphone (source_mic.c) uses the same inside. Not a public header. A build without
 * PortAudio: SP_EUNSUPPORTED. */
#ifndef SPECTRO_SOURCE_PA_H
#define SPECTRO_SOURCE_PA_H

#include "err.h"
#include "source.h"

/* Initialises PortAudio on first use (the ALSA preflight and the audio stack's silencing
 * included: see source_mic.c); every SP_OK is matched by one source_pa_release. */
int source_pa_acquire(sp_errinfo *ei);
void source_pa_release(void);
/* A device with inputs (output 0) or outputs (1): want NULL = the default one, else an
 * index or a case-insensitive part of a name (an exact name wins), as the settings device
 * and output_device take it. SP_ENODEV with a line listing the devices of that direction.
 * Needs an acquire. */
int source_pa_find_device(const char *want, int output, source_device_info *out, sp_errinfo *ei);

#endif
