/*
 * adjudicator.h - judges a game history the way an arbiter would under the
 * repetition rulings of issue 5 (docs/RULES.md), for the tests.  Written
 * separately from the generator: moves are labelled by ref_labels.h.
 *
 * When the final position (board and side to move) occurred before, the
 * moves since its first occurrence form the repeating part (docs/RULES.md:
 * judged as a whole, not its last cycle alone), and:
 *   - a side that checks on every one of its moves in it while the
 *     other does not loses; both do: draw;
 *   - otherwise a side that chases one same enemy piece (followed through
 *     that piece's own moves) on every one of its moves loses, unless the
 *     other side does the same (draw);
 *   - anything else is a draw.
 * "The same piece" is judged on the part repeated forever: the piece is
 * followed around it until the set of candidates stops shrinking,
 * so two identical pieces that trade places still count correctly.
 *
 * adj_judge_as takes the rule set (ruleset.h): none (every repetition a
 * draw), check (the first clause only), full (the above), asian (the
 * above, a checking move chasing what it newly attacks too, so that a
 * check chasing the piece keeps the chase) or cxa (a side that checks,
 * threatens mate or chases on every one of its moves loses, unless the
 * other does too: a draw).  A mate threat is a move that does not check
 * after which its side, were the other to pass, mates by consecutive
 * checks within 3 moves: searched here with this file's own check test.
 */
#ifndef XQ_ADJUDICATOR_H
#define XQ_ADJUDICATOR_H

#include "board.h"

typedef enum {
    ADJ_NO_REPETITION = 0,
    ADJ_DRAW,
    ADJ_RED_LOSES,
    ADJ_BLACK_LOSES,
    ADJ_BAD_MOVE, /* a move that is malformed or not legal where it is played */
} adj_result;

/* Judges the game from `start` through moves[0..n) (ICCS text, "h2e2").
 * On ADJ_BAD_MOVE, *bad (if not NULL) gets the index of the move. */
adj_result adj_judge(const xq_board *start, const char *const *moves, int n, int *bad);
/* The same under rule set `rules` (XQ_RULES_NONE to XQ_RULES_CXA). */
adj_result adj_judge_as(const xq_board *start, const char *const *moves, int n, int rules, int *bad);

/* "no repetition", "draw", "red loses", "black loses", "bad move". */
const char *adj_result_name(adj_result r);

#endif
