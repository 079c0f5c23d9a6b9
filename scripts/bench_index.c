/*
 * bench_index.c - the cost of the index's two directions (core/index.h):
 * decode an entry to its board, encode the board back, over entries spread
 * evenly through a material's index (the whole index when it is small).
 * Prints the nanoseconds of one decode and encode, best of three timed runs
 * of at least 50 ms each, and checks that every entry comes back to itself
 * (test_index.c checks the round trip exhaustively; this program measures
 * it).  scripts/bench-index runs it and counts instructions as well.
 *
 *   bench_index MATERIAL [N]     N: entries a run (default 1,000,000)
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "index.h"
#include "material.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* One pass over n entries `step` apart: the entries that decode, added
 * to *decoded; returns the XOR of each entry with its round trip (0 when
 * every one comes back). */
static uint64_t round_trips(const xq_index *ix, uint64_t n, uint64_t step, uint64_t *decoded)
{
    uint64_t diff = 0;
    for (uint64_t k = 0; k < n; k++) {
        xq_board b;
        uint64_t i = k * step;
        if (xq_index_decode(ix, i, &b)) {
            diff |= xq_index_encode(ix, &b, 0) ^ i;
            (*decoded)++;
        }
    }
    return diff;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: bench_index MATERIAL [N]\n");
        return 2;
    }
    char err[XQ_ERR_MAX];
    xq_material m;
    xq_index ix;
    if (xq_material_parse(argv[1], &m, err)) {
        fprintf(stderr, "bench_index: %s\n", err);
        return 2;
    }
    if (xq_index_init(&ix, &m)) {
        fprintf(stderr, "bench_index: %s: cannot build its index\n", argv[1]);
        return 2;
    }
    uint64_t want = argc == 3 ? strtoull(argv[2], NULL, 10) : 1000000;
    uint64_t n = ix.size < want ? ix.size : want;
    if (n == 0) {
        fprintf(stderr, "bench_index: N must be at least 1\n");
        xq_index_free(&ix);
        return 2;
    }
    uint64_t size = ix.size, step = size / n, decoded = 0, diff = 0;
    double best = 1e30;
    for (int rep = 0; rep < 3; rep++) {
        uint64_t done = 0;
        double t0 = now(), t1;
        do {
            diff |= round_trips(&ix, n, step, &decoded);
            done += n;
            t1 = now();
        } while (t1 - t0 < 0.05);
        double ns = 1e9 * (t1 - t0) / (double)done;
        if (ns < best) best = ns;
    }
    xq_index_free(&ix);
    if (diff || decoded == 0) {
        fprintf(stderr, "bench_index: %s: an entry did not come back to itself\n", argv[1]);
        return 1;
    }
    printf("%-10s %12llu entries %9.1f ns per decode and encode (%llu entries a run)\n", argv[1],
           (unsigned long long)size, best, (unsigned long long)n);
    return 0;
}
