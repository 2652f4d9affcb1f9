/* outfile: output files appear whole or not at all, and special files stay what they are.
 *
 * outfile_open decides by what the path names now (symlinks followed):
 *
 *   a regular file, or nothing   written under a temporary in the TARGET's directory (so
 *                                the final step is atomic) and put in place by
 *                                outfile_commit; outfile_discard without a commit removes
 *                                the temporary. On Linux the temporary is unnamed
 *                                (O_TMPFILE): a killed run (kill -9) leaves nothing. At
 *                                commit it is linked to a fresh hidden name and renamed over
 *                                the destination (linkat cannot replace a file). Where the
 *                                filesystem has no O_TMPFILE (EOPNOTSUPP, EISDIR, EINVAL),
 *                                or with OUTFILE_NAMED, the temporary is a hidden
 *                                dir/.base.XXXXXX from the start, as before.
 *   a symlink                    followed, up to 40 links, relative ones from the link's
 *                                own directory: the target is written as above (a dangling
 *                                link's target is made), the link stays.
 *   a FIFO, a character or block written straight through: opened for writing as it is,
 *   device, a socket             never replaced; a FIFO's open waits for its reader, as
 *                                `cat > fifo` does. Nothing can be taken back: discard
 *                                leaves what was written.
 *   "-", /dev/stdout,            the process's own descriptor (duplicated), whatever it is
 *   /dev/stderr, /dev/fd/N,      (a pipe, a terminal, a file opened by the shell); "-" is
 *   /proc/self/fd/N              standard output.
 *   a directory                  SP_EIO "PATH: cannot write: Is a directory".
 *
 * A direct output is not seekable in general: a writer that must go back (the .npy header,
 * which holds the frame count) spools its data to an unnamed scratch file
 * (outfile_scratch) and writes it out, header first, at the end (dump.c does).
 *
 * Files get mode 0666 less the umask, as fopen would give them; the kernel applies the
 * umask, so no thread ever changes it.
 *
 * Thread safety: an outfile is used by one thread at a time; different ones are
 * independent. */
#ifndef SPECTRO_OUTFILE_H
#define SPECTRO_OUTFILE_H

#include <stdint.h>
#include <stdio.h>

#include "err.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct outfile outfile;

enum {
    OUTFILE_NAMED = 1 /* a hidden named temporary even where an unnamed one would do */
};

/* Opens `path` for writing as described above; `flags` is 0 or OUTFILE_NAMED. *out owns a
 * stdio stream (outfile_stream). SP_EIO "PATH: cannot write: ..." (the path as given) or
 * SP_ENOMEM, with nothing left behind; SP_EINTERRUPTED when a signal handler (installed
 * without SA_RESTART) ran in this thread while a FIFO's open waited for its reader. */
int outfile_open(const char *path, int flags, outfile **out, sp_errinfo *ei);

/* The stream to write to (fully buffered). Valid until commit or discard. */
FILE *outfile_stream(outfile *o);

/* 1 when written straight through (a FIFO, a device, a socket, a descriptor of ours). */
int outfile_direct(const outfile *o);

/* 1 when the stream can go back (fseek) to rewrite what it wrote: a temporary can, a
 * direct output is treated as one that cannot. */
int outfile_seekable(const outfile *o);

/* Flushes and closes the stream; a temporary is put in place. A write error that shows
 * only now (a full disk, /dev/full) is SP_EIO naming the path. After it, only
 * outfile_discard. */
int outfile_commit(outfile *o, sp_errinfo *ei);

/* Commits first, then second, as one: an exclusive flock on the directory of first's path
 * (as given) is held around both, so that runs committing the same pair at once (a dump and
 * its sidecar) never leave one's first beside another's second. When second fails, first
 * is taken back out (outfile_unpublish) before the lock goes. The caller discards both. */
int outfile_commit_pair(outfile *first, outfile *second, sp_errinfo *ei);

/* Closes, removes the temporary unless committed, frees. NULL is a no-op. */
void outfile_discard(outfile *o);

/* Removes a committed output again (the file the path names after the symlinks, never a
 * link itself, a FIFO or a device): for a run that fails after one of its outputs was put
 * in place. */
void outfile_unpublish(const char *path);

/* Where outfile_open(path) would write: the path after its last component's symlinks
 * (malloc'd; NULL when out of memory). */
char *outfile_target(const char *path);

/* 1 when outfile_open(path) would write straight through (above); 0 for a regular file,
 * a path that does not exist yet or cannot be examined. */
int outfile_path_direct(const char *path);

/* 1 when writing to `path` writes to this process's standard output: "-", /dev/stdout,
 * /dev/fd/1, /proc/self/fd/1, a symlink to one of them, or any path naming the file,
 * pipe or device that descriptor 1 is (by device and inode; the null device excepted). */
int outfile_path_is_stdout(const char *path);

/* Whether outfile_open(path) could write, found without writing: a regular target (or
 * none yet) gets a temporary made and dropped in its directory (nothing stays, nor shows
 * where the filesystem has unnamed ones); a directory is refused; a FIFO, a device or a
 * descriptor of ours is not tried. SP_EIO "PATH: cannot write: ..." as outfile_open says it. */
int outfile_check(const char *path, sp_errinfo *ei);

/* An unnamed read-write scratch file (O_TMPFILE; elsewhere a hidden name removed at once)
 * in the directory that outfile_open(path) would write in, or in /tmp when `path` is
 * written straight through. *fd is the caller's to close. SP_EIO naming `path`. */
int outfile_scratch(const char *path, int flags, int *fd, sp_errinfo *ei);

/* Free space for an unprivileged writer on the filesystem that outfile_open(path) would
 * write to, in bytes, and (where mount is not NULL) that filesystem's mount point, e.g.
 * "/work". -1 when it cannot be known (a direct output, statvfs fails). */
int outfile_free_space(const char *path, uint64_t *bytes, char *mount, size_t mount_len);

/* "206 TB", "53.1 GB", "512 B": a byte count for messages (SI units, 3 digits). */
void outfile_format_bytes(uint64_t bytes, char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif
