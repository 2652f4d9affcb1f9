#include "err.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>

static pthread_mutex_t stderr_mu = PTHREAD_MUTEX_INITIALIZER;

void sp_stderr_lock(void)
{
    pthread_mutex_lock(&stderr_mu);
}

void sp_stderr_unlock(void)
{
    pthread_mutex_unlock(&stderr_mu);
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
