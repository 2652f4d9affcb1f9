/* fuzz_target: the fuzz target's entry, shared by the libFuzzer build (fuzz_spectro) and the
 * replay program that any compiler builds (fuzz_replay.c: CI replays the corpus with it).
 * fuzz_analyze.c says what an input holds. */
#ifndef SPECTRO_FUZZ_TARGET_H
#define SPECTRO_FUZZ_TARGET_H

#include <stddef.h>
#include <stdint.h>

/* Option bytes before the file (fuzz_analyze.c, make_corpus.py). */
#define FUZZ_PREFIX 4

/* libFuzzer's entry: one input, always 0; a broken contract aborts. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
