/* png_write: writes an RGBA8888 picture as a PNG file, safely.
 *
 * Written through outfile (outfile.h): to a temporary beside the path (unnamed where the
 * filesystem allows) put in place when complete, so a failed write never leaves a file that
 * looks finished; a FIFO, a device or /dev/stdout is written straight through (so
 * `--png /dev/stdout | display -` works); a symlink is followed. Used by the renderer
 * (--png) and by the window's screenshot key. Opaque pictures (every alpha 255) are stored
 * as RGB.
 *
 * Thread safety: reentrant (libpng state is per call).
 */
#ifndef SPECTRO_PNG_WRITE_H
#define SPECTRO_PNG_WRITE_H

#include <stdint.h>

#include "err.h"

#ifdef __cplusplus
extern "C" {
#endif

/* rgba: w*h*4 bytes, rows top-down, R G B A byte order. w, h in 1 .. 65535.
 * SP_EIO naming the path when it cannot be written; SP_EINVAL for bad arguments. */
int png_write_rgba(const char *path, const uint8_t *rgba, int w, int h, sp_errinfo *ei);

#ifdef __cplusplus
}
#endif
#endif
