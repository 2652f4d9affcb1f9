/* job_files: what a job asks for that can be refused before any work (its outputs against
 * its inputs and each other).
 *
 *   an output that is the input: "--png rec.wav would overwrite the input rec.wav"
 *   two outputs on one file (a dump's sidecar OUT.json counts as an output):
 *                                "--png x.npy.json and the metadata of --dump x.npy
 *                                 (x.npy.json) name the same file"
 *
 * Files that exist are compared by device and inode (so ./x, x, a hard link and a symlink
 * to x are x); names that do not exist yet by their normalised absolute path (symlinks of
 * the name followed, the directory's real path, . and .. resolved). Character devices
 * (/dev/null taking two outputs) are left alone. SP_EINVAL (exit 2), one line naming both. */
#ifndef SPECTRO_JOB_FILES_H
#define SPECTRO_JOB_FILES_H

#include "analyze.h"
#include "err.h"

int job_check_files(const analyze_config *an, sp_errinfo *ei);

#endif
