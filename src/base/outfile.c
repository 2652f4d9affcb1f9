#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define OUTFILE_TRIES 100

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

#ifndef NAME_MAX
#define NAME_MAX 255
#endif

/* dir/.BASE.XXXXXX for path, BASE cut to keep the name within NAME_MAX: an output name of
 * 248 .. 255 bytes is legal, its temporary with 8 more would not be (ENAMETOOLONG). The
 * random suffix keeps a cut name unique. Returns the suffix's offset in name (n bytes). */
static size_t temp_name(char *name, size_t n, const char *path, size_t dirlen)
{
    size_t base = strlen(path + dirlen), keep = base < NAME_MAX - 8 ? base : NAME_MAX - 8;
    snprintf(name, n, "%.*s.%.*s.XXXXXX", (int)dirlen, path, (int)keep, path + dirlen);
    return dirlen + 1 + keep + 1;
}

int outfile_temp(const char *path, FILE **f, char **tmp, sp_errinfo *ei)
{
    const char *slash = strrchr(path, '/');
    size_t dirlen = slash ? (size_t)(slash - path) + 1 : 0, n = strlen(path) + 9;
    char *name = malloc(n);
    int fd = -1, err;
    *f = NULL;
    *tmp = NULL;
    if (!name)
        return sp_fail(ei, SP_ENOMEM, "out of memory");
    for (int i = 0; i < OUTFILE_TRIES && fd < 0; i++) {
        fill_suffix(name + temp_name(name, n, path, dirlen));
        fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    if (fd < 0 || !(*f = fdopen(fd, "wb"))) {
        err = sp_fail(ei, SP_EIO, "%s: cannot write: %s", path, strerror(errno));
        if (fd >= 0) {
            close(fd);
            unlink(name);
        }
        free(name);
        return err;
    }
    *tmp = name;
    return SP_OK;
}
