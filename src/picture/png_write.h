/* png_write: writes an RGBA8888 picture as a PNG file, safely.
 *
 * The file is written to a hidden temporary beside the path (dir/.name.XXXXXX) and
 * renamed over it when complete, so a failed write never leaves a file that looks
 * finished; on failure the temporary is removed. Used by the renderer (--png) and by the
 * window's screenshot key. Opaque pictures (every alpha 255) are stored as RGB.
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
