/* numfmt: numbers as text: fast, for the outputs that write millions of them (--peaks),
 * byte for byte what printf's "%.*f" writes (sp_fmt_fixed); and as people write them, for
 * everything a person reads (sp_fmt_num). */
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

/* Room for the longest text sp_fmt_num writes and its NUL. */
#define SP_FMT_NUM_MAX 48

/* v as people write it, for messages, titles and sidecars: at most `digits` significant
 * digits (1 ... 17), or with digits 0 the fewest that read back (strtod) as v; in positional
 * notation ("20", "19950", "0.00125", never "2e+01"), without trailing zeros after the point
 * and without the point when nothing follows it; "-0" is "0". Only magnitudes from 1e21 up or
 * below 1e-7 keep an exponent ("1e+300"). NaN and the infinities read "nan", "inf", "-inf".
 * Writes to out (SP_FMT_NUM_MAX bytes) and returns out, to use as a printf argument.
 * Thread-safe. */
const char *sp_fmt_num(char *out, double v, int digits);

#endif
