/* progress: a one-line progress bar on stderr for long file analyses: elapsed time,
 * percent and speed as a multiple of real time. Drawn at most 10 times a second; the
 * caller decides whether it is wanted (a terminal, no --quiet). */
#ifndef SPECTRO_PROGRESS_H
#define SPECTRO_PROGRESS_H

#include <stdint.h>
#include <stdio.h>

typedef struct {
    FILE *out;
    int enabled;
    int drawn;
    double rate;       /* samples per second of the audio */
    int64_t total;     /* samples expected, -1 unknown */
    double start, last;
} progress;

void progress_begin(progress *p, FILE *out, int enabled, double rate, int64_t total);
void progress_update(progress *p, int64_t done);
/* Clears the line (leaves the terminal as it was). */
void progress_end(progress *p);

#endif
