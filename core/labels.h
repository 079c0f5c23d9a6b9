/*
 * labels.h - how each move is labelled for the repetition rulings
 * (docs/RULES.md, "Repetition"): check, chase of some pieces, or idle.
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
#ifndef XQ_LABELS_H
#define XQ_LABELS_H

#include "board.h"

/* Label of a move: whether it checks, whether it threatens mate, and the
 * squares of the enemy pieces it chases (after the move), ascending. */
typedef struct {
    bool check;
    bool threat; /* a mate threat (set under rule set cxa only) */
    int nchased;
    uint8_t chased[16];
} xq_move_label;

/* How many moves of consecutive checks a mate threat may take: see
 * xq_label_move_as. */
enum { XQ_THREAT_MOVES = 3 };

/* Labels legal quiet or capturing move m of b->side (b is the legal
 * position before the move, the side not to move not in check, and is left
 * unchanged), as the tables' rule sets do: a checking move chases nothing,
 * the check takes precedence. */
void xq_label_move(const xq_board *b, xq_move m, xq_move_label *out);

/* Labels move m as rule set `rules` (xq_rules) does.  none, check, full:
 * as xq_label_move.  asian and cxa: a checking move also carries the pieces
 * it chases (docs/RULES.md, "Rule sets for arbiters"), and an attack that
 * stood before the move chases when the move made it a chase (it pinned or
 * blocked the protector, or unpinned the attacker: "A chase made real",
 * with the check clause given there).  cxa: a move that
 * does not check is a mate threat (杀) if, were the opponent to pass, the
 * mover could mate by consecutive checks in at most XQ_THREAT_MOVES moves. */
void xq_label_move_as(const xq_board *b, xq_move m, int rules, xq_move_label *out);

/* A legal quiet move m of b->side is an attack (打) under the CXA rules if
 * it checks, chases (checks' chases and chases made real counted) or
 * threatens mate, as
 * xq_label_move_as labels it under cxa, in two halves cheaper than the
 * label: whether m checks or chases; and, for `after`, the position after
 * a move that does not check (the opponent to move), whether the mover
 * threatens mate, which depends on that position alone (after is left
 * unchanged), so that a caller can find it once per position. */
bool xq_move_checks_or_chases(const xq_board *b, xq_move m);
bool xq_threat_after(xq_board *after);

/* Whether b->side can mate by consecutive checks within `moves` of its
 * moves, whatever the other side replies (b is left unchanged). */
bool xq_mate_by_checks(xq_board *b, int moves);

#endif
