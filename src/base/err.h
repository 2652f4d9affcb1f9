/* err: the one error type of spectro.
 *
 * Every fallible function returns an int: SP_OK (0) on success or a negative sp_err code.
 * Functions that can say more take an optional sp_errinfo* (last) and fill it with one
 * human-readable line that names the file or option at fault. Library code never prints
 * and never exits: main() decides what the user sees (sp_exit_code() maps to 0/1/2/130). */
#ifndef SPECTRO_ERR_H
#define SPECTRO_ERR_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    SP_OK = 0,
    SP_EINVAL = -1,       /* bad argument or usage                     -> exit 2 */
    SP_EINPUT = -2,       /* bad input data (not audio, bad header...) -> exit 2 */
    SP_ENOMEM = -3,       /* host allocation failed                    -> exit 1 */
    SP_EIO = -4,          /* read/write failure                        -> exit 1 */
    SP_EGPU = -5,         /* CUDA runtime/driver/kernel error          -> exit 1 */
    SP_ENODEV = -6,       /* no usable device (GPU or audio)           -> exit 1 */
    SP_EUNSUPPORTED = -7, /* feature not compiled into this build      -> exit 1 */
    SP_EAUDIO = -8,       /* audio device error                        -> exit 1 */
    SP_EINTERRUPTED = -9  /* stopped by a signal        -> exit 130 (128 + SIGINT; main
                           * makes it 143 when the signal was SIGTERM) */
} sp_err;

/* One line of detail for the user; msg[0] == 0 when nothing was said. */
typedef struct {
    char msg[512];
} sp_errinfo;

/* Short generic text for a code ("bad input", ...). Never NULL. */
const char *sp_strerror(int err);

/* Standard error is the process's: code that points fd 2 elsewhere for a while (a library's
 * own lines muted) holds this lock meanwhile, and a thread that prints while other threads
 * may open inputs (a batch's reports) holds it around its lines, so that no line of ours
 * goes to /dev/null. */
void sp_stderr_lock(void);
void sp_stderr_unlock(void);
/* Standard error pointed at /dev/null, sp_stderr_lock held, until sp_stderr_unmute(what this
 * returned): around a library's calls that print their own chatter (PortAudio's ALSA host,
 * for the microphone; the window's playback takes the library's own through
 * spectro_audio_quiet_begin, the lock being one per copy of this file). -1 where fd 2 cannot be saved (nothing
 * muted, the lock released; unmute(-1) is a no-op). */
int sp_stderr_mute(void);
void sp_stderr_unmute(int saved);

/* Process exit code for an error: 0 for SP_OK, 2 for usage/input errors, 130 for
 * SP_EINTERRUPTED (what shells give a command that SIGINT ended), 1 otherwise. */
int sp_exit_code(int err);

/* A setting's name in a message: sp_fail(ei, SP_EINVAL, SP_FIELD("hop") " %zu: must be at
 * least 1", hop). The library speaks of its fields ("hop"), the program of its options
 * ("--hop"): the line keeps the marks until whoever shows it renders them (sp_render_fields).
 * The mark is the ASCII unit separator, which no message text holds. */
#define SP_FIELD_MARK "\x1f"
#define SP_FIELD(name) SP_FIELD_MARK name SP_FIELD_MARK

/* What a field is called where the line is shown: "hop" -> "--hop" in the program. NULL:
 * the field's own name. */
typedef const char *(*sp_field_namer)(const char *field);

/* The namer sp_render_fields uses in this process image (the program sets its options';
 * unset, fields are shown as they are named). Set once, before any thread starts. */
void sp_set_field_namer(sp_field_namer namer);

/* Replaces every marked field in msg (NUL-terminated, cap bytes) by its name, in place,
 * truncating at cap; text without marks is left as it is. */
void sp_render_fields(char *msg, size_t cap);

/* Formats the detail line into ei (when ei is not NULL) and returns err, so that a
 * failing path reads:  return sp_fail(ei, SP_EINPUT, "%s: not an audio file", path); */
int sp_fail(sp_errinfo *ei, int err, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

#ifdef __cplusplus
}
#endif
#endif
