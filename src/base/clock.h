/* clock: the monotonic clock every stage times itself with (seconds as a double).
 * Safe from any thread. */
#ifndef SPECTRO_CLOCK_H
#define SPECTRO_CLOCK_H

#ifdef __cplusplus
extern "C" {
#endif

/* Monotonic seconds since an arbitrary start (CLOCK_MONOTONIC). */
double sp_now(void);

/* Sleeps s seconds (nothing when s <= 0). */
void sp_sleep(double s);

#ifdef __cplusplus
}
#endif
#endif
