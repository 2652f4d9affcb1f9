#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
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
        snprintf(name, n, "%.*s.%s.XXXXXX", (int)dirlen, path, path + dirlen);
        fill_suffix(name + n - 7);
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
