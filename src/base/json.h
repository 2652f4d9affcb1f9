/* json: the one JSON string writer of the sidecars and the window's statistics. */
#ifndef SPECTRO_JSON_H
#define SPECTRO_JSON_H

#include <stdio.h>

/* s as a JSON string, quoted (quotes, backslashes and control characters escaped). */
void sp_json_string(FILE *f, const char *s);

#endif
