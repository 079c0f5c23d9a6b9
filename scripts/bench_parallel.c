/*
 * bench_parallel.c - what one par_for costs beyond its work: loops over a
 * range whose chunks do nothing, so the time is handing the loop to the
 * workers and waiting for them.  The generator runs three such loops a
 * ply for every pass of every table.
 *
 *   bench_parallel THREADS LOOPS
 *
 * Prints microseconds per loop.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "parallel.h"

static void nothing(void *arg, uint64_t begin, uint64_t end, int thread)
{
    (void)arg;
    (void)begin;
    (void)end;
    (void)thread;
}

int main(int argc, char **argv)
{
    int threads = argc > 1 ? atoi(argv[1]) : 2, loops = argc > 2 ? atoi(argv[2]) : 20000;
    if (threads < 1 || loops < 1) {
        fprintf(stderr, "usage: bench_parallel THREADS LOOPS\n");
        return 2;
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int i = 0; i < loops; i++) par_for(threads, 1 << 20, 1 << 14, nothing, NULL);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double us = ((double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec)) / 1e3 / loops;
    printf("%.1f\n", us);
    return 0;
}
