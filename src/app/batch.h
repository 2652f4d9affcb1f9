/* batch: many inputs in one run. The input list (the command line's FILEs, then the paths
 * --files-from names), the outputs of each input from the options' patterns ({stem},
 * {name}, {dir}) or directories (DIR/ = DIR/{stem}.npy or .png), --shard's share of the
 * list, and one analysis session (analyze.h) over that share: one FFT plan, the next file
 * read while the current one is analysed, a bad file reported and skipped, a count line
 * at the end. Part of the program: it prints, and it reads files and standard input. */
#ifndef SPECTRO_BATCH_H
#define SPECTRO_BATCH_H

#include "cli.h"
#include "err.h"

/* 1 when an output path names a directory: it ends in '/' or is an existing directory. */
int batch_output_is_dir(const char *path);

/* One input (o->an.input, NULL = the microphone): expands the outputs' patterns and
 * directories in o->an.outputs (paths without either are left as they are). The expanded
 * paths live in static storage until the next call. SP_EINVAL naming the option. */
int batch_expand_single(cli_options *o, sp_errinfo *ei);

/* Runs the batch that o describes (o->batch); prints every message; returns the exit
 * code: 0 all went well, 1 any file failed (a count line says how many), 2 bad usage
 * (before any work), or the code of an error that ended the run (a GPU's, a signal). */
int batch_main(cli_options *o);

#endif
