/* progress: a one-line progress bar on stderr for long file analyses: elapsed time,
 * percent and speed as a multiple of real time; over several files (a batch), the files
 * done of the total and the seconds of audio analysed. Drawn at most 10 times a second,
 * from half a second on; the caller decides whether it is wanted (a terminal, no --quiet).
 *
 * Thread safety: one thread at a time (the analysis thread, and between files the caller);
 * a progress_tap is the exception, read by another thread. */
#ifndef SPECTRO_PROGRESS_H
#define SPECTRO_PROGRESS_H

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

/* A batch's files analysed on several threads at once: each session's thread keeps a bar
 * that draws nothing (enabled 0) and publishes its count here (progress_publish_to); the
 * thread that draws adds them up (progress_watch). Written by one thread, read by any. */
typedef struct {
    _Atomic int files_done;   /* files ended (well or not) */
    _Atomic double files;     /* files_done plus the current file's share of its length */
    _Atomic double audio_s;   /* seconds of audio analysed: the files ended and the current one */
} progress_tap;

typedef struct {
    FILE *out;
    int enabled;
    int drawn;
    double rate;       /* samples per second of the audio (the current file's) */
    int64_t total;     /* samples expected (of the current file), -1 unknown */
    double start, last;
    /* a batch (progress_begin_files): files == 0 for one file */
    int files, files_done;
    double audio_done_s; /* seconds of audio in the files done */
    progress_tap *tap;   /* where this bar's count goes too (NULL: nowhere) */
    const progress_tap *taps; /* the bar shows these taps' sum, not its own count (ntaps > 0) */
    int ntaps;
} progress;

/* One file: the bar shows its percent (total samples expected, -1 unknown). */
void progress_begin(progress *p, FILE *out, int enabled, double rate, int64_t total);
/* Several files: the bar shows files done of `files`, audio seconds and speed; each file is
 * announced by progress_file and ended by progress_file_done. */
void progress_begin_files(progress *p, FILE *out, int enabled, int files);
void progress_file(progress *p, double rate, int64_t total);
/* The current file ended (well or not) after `samples` samples per channel. */
void progress_file_done(progress *p, int64_t samples);
/* The bar's count (files done, audio seconds, the current file's share) also goes to tap,
 * zeroed here; the bar itself may be disabled. */
void progress_publish_to(progress *p, progress_tap *tap);
/* A bar of several files (progress_begin_files) counting what other threads' bars publish
 * to taps[0 .. n-1] (zeroed by their progress_publish_to) instead of its own progress_file
 * and progress_file_done; progress_update(p, 0) draws their sum. */
void progress_watch(progress *p, const progress_tap *taps, int n);
/* done: samples of the current file analysed so far. */
void progress_update(progress *p, int64_t done);
/* Clears the line so that a message can be printed; the next update draws it again. */
void progress_clear(progress *p);
/* Clears the line (leaves the terminal as it was). */
void progress_end(progress *p);

#endif
