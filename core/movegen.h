/*
 * movegen.h - legal move generation.
 */
#ifndef XQ_MOVEGEN_H
#define XQ_MOVEGEN_H

#include "board.h"

/* Pseudo-legal moves of the side to move (own king may be left attacked,
 * kings may face).  Returns the count. */
int xq_gen_pseudo(const xq_board *b, xq_move *list);

/* Pseudo-legal moves of the piece on square from (it must hold one), in
 * the order xq_gen_pseudo lists them: xq_gen_pseudo is this, piece by
 * piece from the lowest square.  For callers that may stop after the
 * first few moves. */
int xq_gen_piece(const xq_board *b, int from, xq_move *list);

/* Legal moves of the side to move.  The board is restored before return.
 * A side with no legal move has lost: checkmate and stalemate alike. */
int xq_gen_legal(xq_board *b, xq_move *list);

/* Whether the side to move has a legal move (false: it has lost), found by
 * stopping at the first one, a piece at a time.  The board is restored. */
bool xq_has_legal_move(xq_board *b);

/* The legal captures of the side to move, piece by piece from the lowest
 * square (not in xq_gen_legal's order): what a WDL file's capture search
 * needs (docs/FORMAT.md, "Captures in WDL files").  The board is restored. */
int xq_gen_captures(xq_board *b, xq_move *list);

/* True if the pseudo-legal move m does not leave the mover's king attacked
 * (flying general included). */
bool xq_move_is_legal(xq_board *b, xq_move m);

/* True if m is a legal move in b (any garbage value is safe to pass). */
bool xq_move_valid(xq_board *b, xq_move m);

/* Node count of the legal move tree of the given depth. */
uint64_t xq_perft(xq_board *b, int depth);

#endif
