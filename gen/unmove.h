/*
 * unmove.h - retrograde move generation: the quiet moves that could have
 * led to a position.
 */
#ifndef XQ_UNMOVE_H
#define XQ_UNMOVE_H

#include "board.h"

/* Writes the non-capturing moves of the side NOT to move in b that could
 * have produced b: make_move(origin, current square), so that undoing one
 * is xq_make_move(b, make_move(move_to(m), move_from(m))).  Origins are
 * empty squares reached by the piece's own geometry (horse legs and
 * elephant eyes empty); whether the piece may stand on the origin, and
 * whether the earlier position was legal, is left to the caller (the index
 * rejects impossible squares).  Returns the count. */
int xq_gen_unmoves(const xq_board *b, xq_move *list);

#endif
