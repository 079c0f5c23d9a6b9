/*
 * position_internal.h - conversion from the public position struct to the
 * rules core's board, shared by the library's source files (not installed).
 */
#ifndef XQ_POSITION_INTERNAL_H
#define XQ_POSITION_INTERNAL_H

#include "board.h"
#include "fen.h"
#include "xqtb.h"

/* Converts and validates pos.  Returns XQTB_OK, or XQTB_ERR_INVALID with a
 * reason in err (err may be NULL). */
int xq_position_to_board(const xqtb_position *pos, xq_board *b, char err[XQ_ERR_MAX]);
/* Converts pos for the trusted probes: only what keeps every later step
 * in bounds is checked (piece codes, one king a side, the side to move),
 * not whether the position is legal.  Returns XQTB_OK or XQTB_ERR_INVALID. */
int xq_position_to_board_trusted(const xqtb_position *pos, xq_board *b);

#endif
