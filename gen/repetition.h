/*
 * repetition.h - the repetition rulings on top of ordinary retrograde analysis:
 * which of the positions retro.c leaves drawn are won or lost because one
 * side would have to check (or chase) perpetually.
 */
#ifndef XQ_RULES_H
#define XQ_RULES_H

#include "tb.h"

typedef struct {
    uint64_t positions; /* drawn positions examined (index entries) */
    uint64_t nodes;     /* game-graph nodes, positions x chase tracking */
    uint64_t edges;
    uint64_t decided[2]; /* entries decided by check / by chase */
    int orders;          /* highest order of any ruling */
    uint64_t peak_bytes; /* the most memory the rulings held at once, beside the table's ruled bytes */
    /* Wall seconds of each step, both winners together: the escapes
     * (repetition_escape.c), the game graph, the first solve (with chases
     * under full and asian, the only one under check and cxa), and the
     * check-only solve after it. */
    double seconds[4];
} repetition_report;

enum { RULINGS_ESCAPES, RULINGS_GRAPH, RULINGS_SOLVE, RULINGS_CHECK_SOLVE };

/* Applies t->rules to t, solved by retro_solve (its subtables solved under
 * the same rules): gives t its ruled bytes, sparse (t->ruled8), with every
 * drawn position the rulings decide.  max_memory bounds what the rulings
 * allocate beside them (the drawn region, the game graph, the solver's state):
 * UINT64_MAX for no bound.  kept_late, for tests (tb_gen_options): if
 * nonzero, the check-only solve under full sets its kept steps up at its
 * second order, not when they pay (repetition.c); the result is the same.
 * Deterministic for any thread count.  Returns 0, or -1 with a message (out of memory, or more
 * orders than a ruled byte holds). */
int repetition_solve(tb_table *t, int threads, uint64_t max_memory, int kept_late, repetition_report *rep,
                     char err[XQ_ERR_MAX]);

#endif
