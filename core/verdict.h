/*
 * verdict.h - an arbiter's verdict on a repetition that has happened in a
 * game (docs/RULES.md, "Judging a played repetition"), as opposed to the
 * tables' verdict on what would happen if play went on forever.
 *
 * The repeating part of a game is the stretch from the first time its
 * final position (board and side to move) stood on the board to the end:
 * a closed walk pos[0] -> ... -> pos[n] = pos[0].  It is judged per side
 * over the whole of it with the clauses of "Judging infinite play":
 *   1. a side that checked on every one of its moves while the other did
 *      not loses (both: draw);
 *   2. under the full rule set, a side that chased one same enemy piece
 *      on every one of its moves (the piece followed through its own
 *      moves, the walk taken as repeated for ever) and never checked
 *      loses, unless the other side also chased (draw);
 *   3. anything else is a draw.
 * Under the arbiters' rule set asian the same clauses apply to labels in
 * which a checking move also chases; under cxa a side that attacks (checks,
 * threatens mate or chases some piece) on every one of its moves loses,
 * unless the other side does too (draw).  docs/RULES.md, "Rule sets for
 * arbiters".
 */
#ifndef XQ_VERDICT_H
#define XQ_VERDICT_H

#include "board.h"
#include "labels.h"

typedef struct {
    int loser;                   /* RED, BLACK, or -1 for a draw */
    int by_rule;                 /* xq_by_rule: XQ_BY_CHECK or XQ_BY_CHASE when a side loses */
    bool checks_all[COLOUR_NB];  /* the side checked on every one of its moves */
    bool chases_all[COLOUR_NB];  /* ... chased one same piece on every one (clause 2) */
    bool attacks_all[COLOUR_NB]; /* cxa: ... checked, threatened mate or chased on every one */
} xq_verdict;

/* The first index j < n with pos[j] equal to pos[n], or -1 if the final
 * position pos[n] did not stand before. */
int xq_repetition_start(const xq_board *pos, int n);

/* Judges the closed walk pos[0..n] (pos[k+1] is pos[k] after legal move
 * mv[k]; pos[n] equals pos[0]; n >= 1) under rule set `rules` (xq_rules),
 * from the labels of its moves, labels[k] being mv[k]'s under the same
 * rule set (xq_label_move_as). */
void xq_judge_walk(const xq_board *pos, const xq_move *mv, const xq_move_label *labels, int n, int rules,
                   xq_verdict *out);

#endif
