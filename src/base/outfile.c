/* O_TMPFILE, linkat's AT_SYMLINK_FOLLOW and fallocate's hole punching are Linux's; the
 * rest is POSIX. */
#define _GNU_SOURCE
#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#define OUTFILE_TRIES 100
#define OUTFILE_MAX_LINKS 40 /* as the kernel's ELOOP limit */
#define OUTFILE_BUF (1 << 20)

struct outfile {
    char *given;   /* the path as given, for messages */
    char *target;  /* after the symlinks: where the file goes */
    char *tmp;     /* the hidden temporary's name; NULL while unnamed or direct */
    FILE *f;
    int fd;        /* f's descriptor (unnamed temporaries are linked through it) */
    int direct, unnamed, committed;
};

/* Six characters from [A-Za-z0-9]: from the clock, the pid and a counter mixed by a
 * splitmix64 step (a collision only costs another try). */
static void fill_suffix(char *x)
{
    static const char set[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    static _Atomic uint64_t counter;
    struct timespec ts;
    uint64_t z;
    clock_gettime(CLOCK_REALTIME, &ts);
    z = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 30) ^ ((uint64_t)getpid() << 16) ^
        (counter++ * 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    for (int i = 0; i < 6; i++, z /= 62)
        x[i] = set[z % 62];
}

/* The descriptor a path names by itself ("-", /dev/stdout, /dev/fd/3 ...), -1 for any other. */
static int own_descriptor(const char *path)
{
    static const char *const prefixes[] = {"/dev/fd/", "/proc/self/fd/"};
    if (strcmp(path, "-") == 0)
        return 1;
    if (strcmp(path, "/dev/stdin") == 0)
        return 0;
    if (strcmp(path, "/dev/stdout") == 0)
        return 1;
    if (strcmp(path, "/dev/stderr") == 0)
        return 2;
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++) {
        size_t n = strlen(prefixes[i]);
        char *end;
        long fd;
        if (strncmp(path, prefixes[i], n) != 0 || path[n] < '0' || path[n] > '9')
            continue;
        fd = strtol(path + n, &end, 10);
        if (*end == 0 && fd <= INT_MAX)
            return (int)fd;
    }
    return -1;
}

/* The path after following its last component's symlinks (malloc'd; NULL when out of
 * memory). A relative link is read from the link's own directory; a loop or an unreadable
 * link stops the walk, and the open that follows says what is wrong. */
static char *resolve_links(const char *path)
{
    char *p = strdup(path);
    for (int i = 0; p && i < OUTFILE_MAX_LINKS; i++) {
        char link[PATH_MAX], *next;
        struct stat st;
        ssize_t n;
        /* /proc/self/fd/N reads as "pipe:[123]": a descriptor of ours ends the walk */
        if (own_descriptor(p) >= 0 || lstat(p, &st) != 0 || !S_ISLNK(st.st_mode) ||
            (n = readlink(p, link, sizeof link - 1)) < 0)
            break;
        link[n] = 0;
        if (link[0] == '/' || !strrchr(p, '/')) {
            next = strdup(strcmp(link, "-") == 0 ? "./-" : link); /* a file named "-", not stdout */
        } else {
            size_t dirlen = (size_t)(strrchr(p, '/') - p) + 1;
            next = malloc(dirlen + (size_t)n + 1);
            if (next)
                snprintf(next, dirlen + (size_t)n + 1, "%.*s%s", (int)dirlen, p, link);
        }
        free(p);
        p = next;
    }
    return p;
}

/* The directory part of path ("." when none), malloc'd. */
static char *dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    char *d;
    if (!slash)
        return strdup(".");
    if (slash == path)
        return strdup("/");
    d = malloc((size_t)(slash - path) + 1);
    if (d)
        snprintf(d, (size_t)(slash - path) + 1, "%s", path);
    return d;
}

#ifndef NAME_MAX
#define NAME_MAX 255
#endif

/* A fresh hidden name beside `target`: dir/.BASE.XXXXXX (malloc'd), BASE cut so that the
 * name stays within NAME_MAX: an output name of 248 .. 255 bytes is legal, its temporary
 * with 8 more would not be (ENAMETOOLONG); the random suffix keeps a cut name unique. */
static char *hidden_name(const char *target)
{
    const char *slash = strrchr(target, '/');
    size_t dirlen = slash ? (size_t)(slash - target) + 1 : 0, n = strlen(target) + 9;
    size_t base = strlen(target + dirlen), keep = base < NAME_MAX - 8 ? base : NAME_MAX - 8;
    char *name = malloc(n);
    if (name) {
        snprintf(name, n, "%.*s.%.*s.XXXXXX", (int)dirlen, target, (int)keep, target + dirlen);
        fill_suffix(name + dirlen + 1 + keep + 1);
    }
    return name;
}

/* Creates a hidden dir/.base.XXXXXX (O_EXCL, a fresh suffix until one is free): its fd, or
 * -1 with errno set. *name (malloc'd) names it. */
static int create_hidden(const char *target, int rw, char **name)
{
    int fd = -1;
    *name = NULL;
    for (int i = 0; i < OUTFILE_TRIES && fd < 0; i++) {
        free(*name);
        if (!(*name = hidden_name(target))) {
            errno = ENOMEM;
            return -1;
        }
        fd = open(*name, (rw ? O_RDWR : O_WRONLY) | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    if (fd < 0) {
        int e = errno;
        free(*name);
        *name = NULL;
        errno = e;
    }
    return fd;
}

/* An unnamed file in dir (O_TMPFILE), or -1: errno EOPNOTSUPP/EISDIR/EINVAL where the
 * filesystem or the kernel has none. `linkable`: may be given a name later. */
static int create_unnamed(const char *dir, int rw, int linkable)
{
#ifdef O_TMPFILE
    return open(dir, O_TMPFILE | (rw ? O_RDWR : O_WRONLY) | O_CLOEXEC | (linkable ? 0 : O_EXCL), 0666);
#else
    (void)dir;
    (void)rw;
    (void)linkable;
    errno = EOPNOTSUPP;
    return -1;
#endif
}

static int no_tmpfile(int e)
{
    return e == EOPNOTSUPP || e == EISDIR || e == EINVAL;
}

/* The temporary for a regular target: unnamed where possible, else hidden and named. */
static int open_temporary(outfile *o, int flags)
{
    char *dir = dir_of(o->target);
    if (!dir) {
        errno = ENOMEM;
        return -1;
    }
    o->fd = flags & OUTFILE_NAMED ? (errno = EOPNOTSUPP, -1) : create_unnamed(dir, 0, 1);
    free(dir);
    if (o->fd >= 0) {
        o->unnamed = 1;
        return 0;
    }
    if (!no_tmpfile(errno))
        return -1;
    o->fd = create_hidden(o->target, 0, &o->tmp);
    return o->fd < 0 ? -1 : 0;
}

/* Straight through: our own descriptor duplicated, or the special file opened as it is. */
static int open_direct(outfile *o, int own)
{
    o->direct = 1;
    o->fd = own >= 0 ? fcntl(own, F_DUPFD_CLOEXEC, 3) : open(o->target, O_WRONLY | O_CLOEXEC | O_NOCTTY);
    return o->fd < 0 ? -1 : 0;
}

int outfile_open(const char *path, int flags, outfile **out, sp_errinfo *ei)
{
    outfile *o;
    struct stat st;
    int own, err;
    if (!path || !*path || !out)
        return sp_fail(ei, SP_EINVAL, "outfile_open: bad arguments");
    *out = NULL;
    if (!(o = calloc(1, sizeof *o)) || !(o->given = strdup(path)) || !(o->target = resolve_links(path))) {
        outfile_discard(o);
        return sp_fail(ei, SP_ENOMEM, "out of memory");
    }
    o->fd = -1;
    own = own_descriptor(o->target);
    if (own >= 0) {
        err = open_direct(o, own);
    } else if (stat(o->target, &st) != 0 || S_ISREG(st.st_mode)) {
        err = open_temporary(o, flags);
    } else if (S_ISDIR(st.st_mode)) {
        errno = EISDIR;
        err = -1;
    } else {
        err = open_direct(o, -1);
    }
    if (err != 0 || !(o->f = fdopen(o->fd, "wb"))) {
        int e = errno;
        if (e == EINTR) /* a signal came while a FIFO's open waited for its reader */
            err = sp_fail(ei, SP_EINTERRUPTED, "%s: interrupted while waiting for a reader", path);
        else
            err = sp_fail(ei, e == ENOMEM ? SP_ENOMEM : SP_EIO, "%s: cannot write: %s", path, strerror(e));
        outfile_discard(o);
        return err;
    }
    setvbuf(o->f, NULL, _IOFBF, OUTFILE_BUF);
    *out = o;
    return SP_OK;
}

FILE *outfile_stream(outfile *o)
{
    return o ? o->f : NULL;
}

int outfile_direct(const outfile *o)
{
    return o && o->direct;
}

int outfile_seekable(const outfile *o)
{
    return o && !o->direct;
}

/* An unnamed temporary gets a fresh hidden name through /proc (linkat with
 * AT_EMPTY_PATH would need CAP_DAC_READ_SEARCH). */
static int link_unnamed(outfile *o)
{
    char proc[64];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", o->fd);
    for (int i = 0; i < OUTFILE_TRIES; i++) {
        free(o->tmp);
        if (!(o->tmp = hidden_name(o->target))) {
            errno = ENOMEM;
            return -1;
        }
        if (linkat(AT_FDCWD, proc, AT_FDCWD, o->tmp, AT_SYMLINK_FOLLOW) == 0)
            return 0;
        if (errno != EEXIST)
            break;
    }
    free(o->tmp);
    o->tmp = NULL;
    return -1;
}

int outfile_commit(outfile *o, sp_errinfo *ei)
{
    int e = 0;
    if (!o || !o->f || o->committed)
        return sp_fail(ei, SP_EINVAL, "outfile_commit: bad arguments");
    errno = 0;
    if (fflush(o->f) != 0 || ferror(o->f))
        e = errno ? errno : EIO;
    /* an unnamed temporary is linked while its descriptor is open; fclose comes after */
    if (!e && o->unnamed && link_unnamed(o) != 0)
        e = errno;
    if (fclose(o->f) != 0 && !e)
        e = errno ? errno : EIO;
    o->f = NULL;
    o->fd = -1;
    if (!e && !o->direct && rename(o->tmp, o->target) != 0)
        e = errno;
    if (e)
        return sp_fail(ei, SP_EIO, "%s: write failed: %s", o->given, strerror(e));
    free(o->tmp);
    o->tmp = NULL;
    o->committed = 1;
    return SP_OK;
}

/* The directory holding `path` opened and locked (flock, exclusive); -1 where it cannot be
 * (a filesystem without flock on directories): the commit then goes unlocked, as before. */
static int lock_dir(const char *path)
{
    char *dir = dir_of(path);
    int fd = dir ? open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1, rc;
    free(dir);
    if (fd < 0)
        return -1;
    while ((rc = flock(fd, LOCK_EX)) != 0 && errno == EINTR)
        ; /* a signal while another run holds it for a few renames: wait on */
    if (rc != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

int outfile_commit_pair(outfile *first, outfile *second, sp_errinfo *ei)
{
    int lock, err;
    if (!first || !second)
        return sp_fail(ei, SP_EINVAL, "outfile_commit_pair: bad arguments");
    /* the data out of the stdio buffers first (an error stays in ferror for the commit):
     * the lock covers only the links and renames */
    if (first->f)
        fflush(first->f);
    if (second->f)
        fflush(second->f);
    lock = lock_dir(first->given);
    err = outfile_commit(first, ei);
    if (err == SP_OK && (err = outfile_commit(second, ei)) != SP_OK)
        outfile_unpublish(first->given); /* under the lock: never another run's file */
    if (lock >= 0)
        close(lock); /* releases the flock */
    return err;
}

void outfile_discard(outfile *o)
{
    if (!o)
        return;
    if (o->f)
        fclose(o->f);
    else if (o->fd >= 0)
        close(o->fd);
    if (o->tmp)
        unlink(o->tmp); /* never committed: closing an unnamed one was enough */
    free(o->tmp);
    free(o->target);
    free(o->given);
    free(o);
}

void outfile_unpublish(const char *path)
{
    struct stat st;
    char *target;
    if (!path || !(target = resolve_links(path)))
        return;
    if (own_descriptor(target) < 0 && lstat(target, &st) == 0 && S_ISREG(st.st_mode))
        unlink(target);
    free(target);
}

char *outfile_target(const char *path)
{
    return path ? resolve_links(path) : NULL;
}

int outfile_path_direct(const char *path)
{
    struct stat st;
    char *target;
    int direct;
    if (!path || !(target = resolve_links(path)))
        return 0;
    direct = own_descriptor(target) >= 0 || (stat(target, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode));
    free(target);
    return direct;
}

int outfile_path_is_stdout(const char *path)
{
    struct stat st, out, null;
    char *target;
    int yes;
    if (!path || !*path || !(target = resolve_links(path)))
        return 0;
    yes = own_descriptor(target) == STDOUT_FILENO;
    if (!yes && stat(target, &st) == 0 && fstat(STDOUT_FILENO, &out) == 0 && st.st_dev == out.st_dev &&
        st.st_ino == out.st_ino)
        /* the null device takes any number of outputs without mixing them */
        yes = !(S_ISCHR(st.st_mode) && stat("/dev/null", &null) == 0 && st.st_rdev == null.st_rdev);
    free(target);
    return yes;
}

int outfile_check(const char *path, sp_errinfo *ei)
{
    struct stat st;
    char *target, *dir = NULL, *name = NULL;
    int fd = -1, e = 0;
    if (!path || !*path)
        return sp_fail(ei, SP_EINVAL, "outfile_check: bad arguments");
    if (!(target = resolve_links(path)))
        return sp_fail(ei, SP_ENOMEM, "out of memory");
    if (own_descriptor(target) >= 0 || (stat(target, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))) {
        /* straight through: nothing to try (opening a FIFO would wait for its reader) */
    } else if (stat(target, &st) == 0 && S_ISDIR(st.st_mode)) {
        e = EISDIR;
    } else if (!(dir = dir_of(target))) {
        e = ENOMEM;
    } else {
        /* what outfile_open would make there, made and dropped at once */
        fd = create_unnamed(dir, 0, 0);
        if (fd < 0 && no_tmpfile(errno) && (fd = create_hidden(target, 0, &name)) >= 0)
            unlink(name);
        if (fd < 0)
            e = errno;
        else
            close(fd);
    }
    free(name);
    free(dir);
    free(target);
    if (e)
        return sp_fail(ei, e == ENOMEM ? SP_ENOMEM : SP_EIO, "%s: cannot write: %s", path, strerror(e));
    return SP_OK;
}

int outfile_scratch(const char *path, int flags, int *fd, sp_errinfo *ei)
{
    char *target = NULL, *dir = NULL, *name = NULL;
    int direct = outfile_path_direct(path);
    if (!path || !fd)
        return sp_fail(ei, SP_EINVAL, "outfile_scratch: bad arguments");
    *fd = -1;
    if (!direct && (!(target = resolve_links(path)) || !(dir = dir_of(target)))) {
        free(target);
        return sp_fail(ei, SP_ENOMEM, "out of memory");
    }
    if (!(flags & OUTFILE_NAMED))
        *fd = create_unnamed(direct ? "/tmp" : dir, 1, 0);
    if (*fd < 0 && ((flags & OUTFILE_NAMED) || no_tmpfile(errno))) {
        /* named for a moment: removed at once, it lives on through the descriptor */
        *fd = create_hidden(direct ? "/tmp/spectro-spool" : target, 1, &name);
        if (*fd >= 0)
            unlink(name);
        free(name);
    }
    free(target);
    free(dir);
    if (*fd < 0)
        return sp_fail(ei, SP_EIO, "%s: cannot make a scratch file: %s", path, strerror(errno));
    return SP_OK;
}

/* The mount point of the filesystem holding directory `dir`: the highest ancestor of its
 * real path on the same device. */
static void mount_point(const char *dir, char *mount, size_t len)
{
    char *real = realpath(dir, NULL);
    struct stat st, up;
    if (!real || stat(real, &st) != 0) {
        snprintf(mount, len, "%s", dir);
        free(real);
        return;
    }
    for (;;) {
        char *slash = strrchr(real, '/'), keep;
        if (!slash || slash == real)
            break;
        keep = *slash;
        *slash = 0;
        if (stat(real, &up) != 0 || up.st_dev != st.st_dev) {
            *slash = keep;
            break;
        }
    }
    if (strrchr(real, '/') == real && real[1] && stat("/", &up) == 0 && up.st_dev == st.st_dev)
        real[1] = 0; /* the root filesystem itself */
    snprintf(mount, len, "%s", real);
    free(real);
}

int outfile_free_space(const char *path, uint64_t *bytes, char *mount, size_t mount_len)
{
    struct statvfs vfs;
    char *target, *dir;
    int rc = -1;
    if (!path || !bytes || outfile_path_direct(path) || !(target = resolve_links(path)))
        return -1;
    if ((dir = dir_of(target)) != NULL && statvfs(dir, &vfs) == 0) {
        *bytes = (uint64_t)vfs.f_bavail * (uint64_t)vfs.f_frsize;
        if (mount && mount_len)
            mount_point(dir, mount, mount_len);
        rc = 0;
    }
    free(dir);
    free(target);
    return rc;
}

void outfile_format_bytes(uint64_t bytes, char *buf, size_t len)
{
    static const char *const units[] = {"B", "kB", "MB", "GB", "TB", "PB", "EB"};
    double v = (double)bytes;
    int u = 0;
    while (v >= 999.5 && u < 6) {
        v /= 1000.0;
        u++;
    }
    snprintf(buf, len, "%.3g %s", v, units[u]);
}
