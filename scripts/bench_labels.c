/*
 * bench_labels.c - the cost of labelling moves for the repetition rulings
 * (core/labels.h): every legal quiet move of about N positions of a
 * material, spread evenly over its index (both sides to move), labelled
 * under one rule set.  Prints the labels made, how many chase something
 * and how many check (so that two builds can be seen to agree), and the
 * nanoseconds a label; scripts/bench-labels counts instructions as well.
 *
 *   bench_labels MATERIAL N [RULES]    RULES: full (default), asian, cxa
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "index.h"
#include "labels.h"
#include "material.h"
#include "movegen.h"
#include "ruleset.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    if (argc < 3 || argc > 4) {
        fprintf(stderr, "usage: bench_labels MATERIAL N [full|asian|cxa]\n");
        return 2;
    }
    int rules = XQ_RULES_FULL;
    if (argc == 4 && strcmp(argv[3], "asian") == 0)
        rules = XQ_RULES_ASIAN;
    else if (argc == 4 && strcmp(argv[3], "cxa") == 0)
        rules = XQ_RULES_CXA;
    else if (argc == 4 && strcmp(argv[3], "full") != 0) {
        fprintf(stderr, "bench_labels: unknown rule set '%s'\n", argv[3]);
        return 2;
    }
    xq_material m;
    char err[XQ_ERR_MAX];
    if (xq_material_parse(argv[1], &m, err)) {
        fprintf(stderr, "bench_labels: %s\n", err);
        return 2;
    }
    uint64_t n = strtoull(argv[2], NULL, 10);
    xq_index ix;
    if (n == 0 || xq_index_init(&ix, &m)) {
        fprintf(stderr, "bench_labels: no positions to label\n");
        return 2;
    }
    uint64_t step = ix.size / n + 1, labels = 0, chases = 0, checks = 0;
    double t0 = now();
    for (uint64_t i = 0; i < ix.size; i += step) {
        xq_board b;
        if (!xq_index_decode(&ix, i, &b) || xq_kings_facing(&b)) continue;
        for (int side = 0; side < 2; side++) {
            b.side = (uint8_t)side;
            if (xq_in_check(&b, side ^ 1)) continue; /* not a legal position */
            xq_move list[XQ_MAX_MOVES];
            int k = xq_gen_legal(&b, list);
            for (int j = 0; j < k; j++) {
                if (b.sq[move_to(list[j])] != EMPTY) continue;
                xq_move_label l;
                xq_label_move_as(&b, list[j], rules, &l);
                labels++;
                chases += (uint64_t)(l.nchased > 0);
                checks += l.check;
            }
        }
    }
    double s = now() - t0;
    printf("%s: %llu labels, %llu chase, %llu check, %.1f ns a label\n", argv[1], (unsigned long long)labels,
           (unsigned long long)chases, (unsigned long long)checks, labels ? s * 1e9 / (double)labels : 0.0);
    xq_index_free(&ix);
    return 0;
}
