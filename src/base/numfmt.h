/* numfmt: numbers as text, fast, for the outputs that write millions of them (--peaks).
 * The text is byte for byte what printf's "%.*f" writes. */
#ifndef SPECTRO_NUMFMT_H
#define SPECTRO_NUMFMT_H

#include <stddef.h>

/* Room for the longest text sp_fmt_fixed writes (-DBL_MAX with 9 decimals: 320 bytes) and its NUL. */
#define SP_FMT_FIXED_MAX 352

/* Writes v with `decimals` digits after the point (0 ... 9) to out, NUL-terminated, exactly as
 * snprintf(out, SP_FMT_FIXED_MAX, "%.*f", decimals, v) does, and returns its length. About 20
 * times faster than snprintf where the value is ordinary (finite, |v·10^decimals| < 2^50, not
 * within rounding error of a tie); snprintf writes the others. out holds SP_FMT_FIXED_MAX
 * bytes. Thread-safe. */
size_t sp_fmt_fixed(char *out, double v, int decimals);

#endif
