/* outfile: output files appear whole or not at all. A file is written under a hidden
 * temporary name beside its destination (same directory, so the final rename(2) is atomic)
 * and renamed into place only once complete; on failure the temporary is removed. */
#ifndef SPECTRO_OUTFILE_H
#define SPECTRO_OUTFILE_H

#include <stdio.h>

#include "err.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Creates dir/.base.XXXXXX beside `path` (O_EXCL, a fresh random suffix until one is
 * free) with mode 0666 less the umask, as fopen would give the file itself; the kernel
 * applies the umask, so no thread ever changes it. On success *f is open for writing and
 * *tmp (malloc'd; the caller frees it) names it. SP_EIO "PATH: cannot write: ..." or
 * SP_ENOMEM otherwise, with nothing left behind. */
int outfile_temp(const char *path, FILE **f, char **tmp, sp_errinfo *ei);

#ifdef __cplusplus
}
#endif

#endif
