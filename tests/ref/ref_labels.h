/*
 * ref_labels.h - an independent labeller of moves for the repetition
 * rulings (issue 5, docs/RULES.md), written from the rules text for the
 * tests.  It shares nothing with core/labels.c: its attack and protection
 * logic is its own (piece geometry written out here, legality by playing the
 * move on a copy and asking this file's own check test).  From the core it
 * uses only the board, make_move and the piece/square helpers, and for the
 * mate-threat search the legal move generator.
 *
 * A move of side S is labelled from the position after it:
 *   check      S attacks the opponent's king (flying general included);
 *   chase of t some piece a of S, not king and not pawn, attacks enemy piece
 *              t after the move and did not attack it before (a moved, or a
 *              line was opened); t is not the king and not a pawn on its own
 *              side of the river; the capture a x t is legal for S; and
 *              either nothing of t's owner can legally recapture on t's
 *              square after a x t, or a is the cheaper kind (horse or cannon
 *              on a rook; advisor or elephant on a rook, horse or cannon).
 *              A same-kind attack that t could legally return in the
 *              position after the move is no chase;
 *   idle       anything else.
 * A checking move chases nothing, except under the arbiters' rule sets
 * asian and cxa (ref_label_move_as with `rulebook`), where it chases what
 * it would if it did not check.  Those sets also count a chase made real
 * (docs/RULES.md): a attacked t before the move too, but only now does it
 * threaten to win it, because the move pinned or blocked t's protector or
 * freed a from a pin (a check a's side was under before the move does not
 * count as what stopped a).
 *
 * "Attacks" means "could capture, ignoring its own king's safety" (a pinned
 * piece still attacks); legality is a separate condition where the rules
 * ask for it.
 */
#ifndef XQ_REF_LABELS_H
#define XQ_REF_LABELS_H

#include "board.h"

typedef struct {
    bool check;
    int nchased;
    uint8_t chased[16]; /* squares after the move, ascending */
} ref_label;

/* Labels move m of the piece on its from-square (normally b->side's, legal
 * in b; b is not changed). */
void ref_label_move(const xq_board *b, xq_move m, ref_label *out);
/* The same, with `rulebook` (rule sets asian and cxa, docs/RULES.md "Rule
 * sets for arbiters"): a checking move also carries the pieces it chases,
 * and chases made real count. */
void ref_label_move_as(const xq_board *b, xq_move m, bool rulebook, ref_label *out);

/* True if the piece on `from` could capture the enemy piece on `to`,
 * ignoring its own king's safety.  False if either square is empty or both
 * hold pieces of one colour. */
bool ref_attacks(const xq_board *b, int from, int to);

/* True if the king of `colour` is attacked by an enemy piece (the enemy
 * king along an open file included). */
bool ref_king_attacked(const xq_board *b, int colour);

/* True if moving the piece on `from` to `to` (a capture or not) leaves its
 * own king unattacked, whichever side b says is to move. */
bool ref_move_safe(const xq_board *b, int from, int to);

/* True if some piece of `colour` can legally capture on sq. */
bool ref_can_capture_on(const xq_board *b, int colour, int sq);

/* The CXA rules' mate threat (杀, docs/RULES.md "Rule sets for arbiters"):
 * whether move m (legal in b) does not check and leaves its side, were the
 * other to pass, mating by consecutive checks within 3 moves whatever the
 * answers.  The search uses the core's legal move generator and this
 * file's check test. */
bool ref_threatens_mate(const xq_board *b, xq_move m);

#endif
