/*
 * parallel.h - one parallel-for over an index range, the only threading the
 * generator needs.  Work is handed out in chunks from a shared counter, so
 * which thread runs which chunk varies from run to run: callers must make
 * each chunk's effect independent of that (retro.c's phases are).
 */
#ifndef XQ_PARALLEL_H
#define XQ_PARALLEL_H

#include <stdint.h>

/* fn(arg, begin, end, thread) for consecutive ranges covering [0, n); each
 * range starts at a multiple of grain.  thread is 0..threads-1, for
 * per-thread scratch and counters. */
/* Most threads a loop runs on (more are cut to this). */
enum { PAR_MAX_THREADS = 64 };

typedef void (*par_fn)(void *arg, uint64_t begin, uint64_t end, int thread);

/* Runs fn over [0, n) on `threads` threads (1 = in the caller): the
 * caller's and workers kept from earlier loops.  Returns 0, or -1 if
 * threads could not be started (the work is then done by fewer threads,
 * so the result is the same). */
int par_for(int threads, uint64_t n, uint64_t grain, par_fn fn, void *arg);

/* Cores online, at least 1. */
int par_cores(void);

#endif
