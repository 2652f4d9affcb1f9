#include "err.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static pthread_mutex_t stderr_mu = PTHREAD_MUTEX_INITIALIZER;

void sp_stderr_lock(void)
{
    pthread_mutex_lock(&stderr_mu);
}

void sp_stderr_unlock(void)
{
    pthread_mutex_unlock(&stderr_mu);
}

int sp_stderr_mute(void)
{
    int saved, null;
    sp_stderr_lock(); /* until sp_stderr_unmute */
    fflush(stderr);
    if ((saved = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 0)) < 0) {
        sp_stderr_unlock();
        return -1;
    }
    if ((null = open("/dev/null", O_WRONLY | O_CLOEXEC)) >= 0) {
        dup2(null, STDERR_FILENO);
        close(null);
    }
    return saved;
}

void sp_stderr_unmute(int saved)
{
    if (saved < 0)
        return;
    fflush(stderr);
    dup2(saved, STDERR_FILENO);
    close(saved);
    sp_stderr_unlock();
}

const char *sp_strerror(int err)
{
    switch (err) {
    case SP_OK: return "success";
    case SP_EINVAL: return "invalid argument";
    case SP_EINPUT: return "bad input";
    case SP_ENOMEM: return "out of memory";
    case SP_EIO: return "I/O error";
    case SP_EGPU: return "GPU error";
    case SP_ENODEV: return "no usable device";
    case SP_EUNSUPPORTED: return "not supported by this build";
    case SP_EAUDIO: return "audio device error";
    case SP_EINTERRUPTED: return "interrupted";
    default: return "unknown error";
    }
}

int sp_exit_code(int err)
{
    if (err == SP_OK)
        return 0;
    if (err == SP_EINVAL || err == SP_EINPUT)
        return 2;
    if (err == SP_EINTERRUPTED)
        return 128 + 2; /* SIGINT's number on every POSIX system */
    return 1;
}

static sp_field_namer field_namer;

void sp_set_field_namer(sp_field_namer namer)
{
    field_namer = namer;
}

void sp_render_fields(char *msg, size_t cap)
{
    char out[1024];
    size_t at = 0;
    const char *s = msg;
    if (!msg || !strchr(msg, SP_FIELD_MARK[0]))
        return;
    while (*s && at + 1 < sizeof out) {
        const char *end = s[0] == SP_FIELD_MARK[0] ? strchr(s + 1, SP_FIELD_MARK[0]) : NULL;
        if (end && end - s - 1 < 64) {
            char field[64];
            const char *name;
            memcpy(field, s + 1, (size_t)(end - s - 1));
            field[end - s - 1] = 0;
            name = field_namer ? field_namer(field) : NULL;
            at += (size_t)snprintf(out + at, sizeof out - at, "%s", name ? name : field);
            if (at >= sizeof out)
                at = sizeof out - 1;
            s = end + 1;
        } else {
            out[at++] = *s == SP_FIELD_MARK[0] ? '?' : *s; /* a lone mark: not shown as is */
            s++;
        }
    }
    out[at] = 0;
    snprintf(msg, cap, "%s", out);
}

int sp_fail(sp_errinfo *ei, int err, const char *fmt, ...)
{
    if (ei) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(ei->msg, sizeof ei->msg, fmt, ap);
        va_end(ap);
    }
    return err;
}
