/*
 * rulings.h - the repetition rulings (docs/RULES.md, "Repetition"): which
 * rule set a table is built under, and how each move is labelled for them.
 *
 * A move is labelled from the position after it (Chinese Xiangqi
 * Association rules, as simplified in docs/RULES.md):
 *   check      the opponent's king is attacked;
 *   chase of t a piece of the mover other than king and pawn newly attacks
 *              enemy piece t (not the king, not a pawn on its own side of
 *              the river), the capture would be legal, and t is either
 *              unprotected (no legal recapture after the capture) or worth
 *              more (horse or cannon on a rook; advisor or elephant on a
 *              rook, horse or cannon); a same-kind attack t could return
 *              is not a chase;
 *   idle       anything else.
 */
#ifndef XQ_RULINGS_H
#define XQ_RULINGS_H

#include "board.h"

/* Rule sets, as recorded in table files (format field "repetition rule"). */
typedef enum {
    XQ_RULES_NONE = 0,  /* every repetition is a draw */
    XQ_RULES_CHECK = 1, /* perpetual check loses */
    XQ_RULES_FULL = 2,  /* perpetual check and perpetual chase lose */
    XQ_RULES_NB = 3,
} xq_rules;

/* Which ruling decided a result (tb_value.by_rule, probe output). */
typedef enum {
    XQ_BY_NONE = 0,  /* ordinary result: mate, stalemate or a draw */
    XQ_BY_CHECK = 1, /* holds already when only perpetual check is ruled */
    XQ_BY_CHASE = 2, /* needs the perpetual-chase ruling as well */
} xq_by_rule;

/* "none", "check", "full"; NULL for an unknown value. */
const char *xq_rules_name(int rules);
/* Parses a rule-set name.  Returns the xq_rules value or -1. */
int xq_rules_parse(const char *s);

/* Label of a move: whether it checks, and the squares of the enemy pieces
 * it chases (after the move). */
typedef struct {
    bool check;
    int nchased;
    uint8_t chased[16];
} xq_move_label;

/* Labels legal quiet or capturing move m of b->side (b is the position
 * before the move and is left unchanged).  A checking move chases nothing:
 * the check takes precedence. */
void xq_label_move(const xq_board *b, xq_move m, xq_move_label *out);

#endif
