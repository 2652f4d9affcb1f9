/* calib: a measurement microphone's calibration file (REW / miniDSP text) and the level
 * corrections it makes (docs/measurements.md "Calibration and SPL").
 *
 * The format: one row a line, "freq_hz dB [phase]" separated by blanks, tabs or commas,
 * frequencies rising; lines starting with '*', '#', ';' or '"' are comments, except that a
 * line holding "Sens Factor =X dB" (miniDSP's first line) gives a sensitivity added to every
 * row; blank lines are skipped. The response at any frequency is interpolated linearly on
 * log frequency between rows and held at the first and last rows' values beyond them.
 */
#ifndef SPECTRO_CALIB_H
#define SPECTRO_CALIB_H

#include <stddef.h>

#include "err.h"

typedef struct calib calib;

/* Reads the file at path. SP_EINVAL with one line naming the file and line at fault
 * ("mic.txt:12: expected freq_hz dB [phase]"), SP_EIO when it cannot be read. */
int calib_load(const char *path, calib **out, sp_errinfo *ei);
void calib_destroy(calib *c); /* NULL is a no-op */

/* The response in dB at hz (the sensitivity included): what the microphone adds to the
 * true level there. hz <= 0 reads the first row's. */
double calib_db_at(const calib *c, double hz);

/* The corrections of `bins` bins k*bin_hz apart: out[k] = offset_db - calib_db_at(k*bin_hz)
 * (c NULL: offset_db alone). */
void calib_offsets(const calib *c, double offset_db, double bin_hz, size_t bins, float *out);

#endif
