/* batch: many inputs in one run. The input list (the command line's FILEs, then the paths
 * --files-from names), the outputs of each input from the options' patterns ({stem},
 * {name}, {dir}) or directories (DIR/ = DIR/{stem}.npy or .png), --shard's share of the
 * list, and one analysis session (analyze.h) over that share: one FFT plan, the next file
 * read while the current one is analysed, a bad file reported (the job's say) and skipped, a
 * count line at the end. It reads files and standard input (files_from "-"). */
#ifndef SPECTRO_JOB_BATCH_H
#define SPECTRO_JOB_BATCH_H

#include "job.h"
#include "err.h"

/* 1 when an output path names a directory: it ends in '/' or is an existing directory. */
int batch_output_is_dir(const char *path);

/* One input (o->an.input, NULL = the microphone): expands the outputs' patterns and
 * directories in o->an.outputs (paths without either are left as they are). The expanded
 * paths live in static storage until the next call. SP_EINVAL naming the option. */
int batch_expand_single(job *o, sp_errinfo *ei);

/* Runs the batch that o describes (o->batch). SP_OK: all went well; SP_EIO: a file failed
 * (each said, and a count line); the error that ended the run (a GPU's, a stop:
 * SP_EINTERRUPTED), said; or, before any work, a bad list or pattern: its line in ei. */
int job_batch_run(job *o, sp_errinfo *ei);

#endif
