/* PortAudio's lifetime and device lookup, shared by the microphone (source_mic.c) and the
 * player (player.c); not a public header. Built with PortAudio only. */
#ifndef SPECTRO_SOURCE_PA_H
#define SPECTRO_SOURCE_PA_H

#include "err.h"

/* Initialises PortAudio on first use (the ALSA preflight and the audio stack's silencing
 * included: see source.h); every SP_OK is matched by one source_pa_release. */
int source_pa_acquire(sp_errinfo *ei);
void source_pa_release(void);
/* An output device: want NULL = the default output, else an index or a case-insensitive
 * part of a name (an exact name wins), as --device. SP_ENODEV with a line listing the
 * outputs. Needs an acquire. */
int source_pa_find_output(const char *want, int *index, sp_errinfo *ei);
/* stderr to /dev/null around PortAudio calls that print (see source_mic.c); pass what
 * mute returned to unmute. */
int source_pa_mute(void);
void source_pa_unmute(int saved);

#endif
