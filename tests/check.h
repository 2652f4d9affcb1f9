/* check: a tiny test helper (Redis testhelp.h style). CHECK(cond) reports file:line and
 * counts a failure; CHECK_CLOSE compares doubles; check_done() returns the exit code.
 * The counters are defined once in test_util.c (spectro_testutil, which every test links),
 * so the shared helpers' checks count too. */
#ifndef SPECTRO_CHECK_H
#define SPECTRO_CHECK_H

#include <math.h>
#include <stdio.h>

extern int check_failures;
extern int check_count;

#define CHECK(cond)                                                                        \
    do {                                                                                   \
        check_count++;                                                                     \
        if (!(cond)) {                                                                     \
            check_failures++;                                                              \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);       \
        }                                                                                  \
    } while (0)

#define CHECK_MSG(cond, ...)                                                               \
    do {                                                                                   \
        check_count++;                                                                     \
        if (!(cond)) {                                                                     \
            check_failures++;                                                              \
            fprintf(stderr, "%s:%d: CHECK failed: %s: ", __FILE__, __LINE__, #cond);       \
            fprintf(stderr, __VA_ARGS__);                                                  \
            fputc('\n', stderr);                                                           \
        }                                                                                  \
    } while (0)

#define CHECK_CLOSE(a, b, tol)                                                             \
    CHECK_MSG(fabs((double)(a) - (double)(b)) <= (tol), "%s = %.9g, %s = %.9g, tol %.3g", \
              #a, (double)(a), #b, (double)(b), (double)(tol))

/* Prints a summary and returns the process exit code (0 when every check passed). */
static inline int check_done(const char *name)
{
    printf("%s: %d checks, %d failed\n", name, check_count, check_failures);
    return check_failures ? 1 : 0;
}

#endif
