/*
 * clock.h - wall-clock seconds, for the reports of how long a step took
 * (the generator's progress lines, the command line's timings).
 */
#ifndef XQ_CLOCK_H
#define XQ_CLOCK_H

#include <time.h>

/* Seconds on the monotonic clock: the difference of two readings is the
 * wall time between them, whatever happens to the time of day. */
static inline double tb_now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

#endif
