/*
 * fen.h - reading and writing positions in FEN, and position validation.
 *
 * The dialect is the one UCCI engines, Pikafish, ChessDB and Fairy-Stockfish
 * use: "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1",
 * rank 9 first, red uppercase.  On input 'r' is accepted for red to move, and
 * H/E for horse/elephant; output is always canonical (N, B, 'w').
 */
#ifndef XQ_FEN_H
#define XQ_FEN_H

#include <stddef.h>

#include "board.h"

enum { XQ_FEN_MAX = 128, XQ_ERR_MAX = 160 };

/* Parses and validates.  Returns 0, or -1 with a one-line message in err. */
int xq_fen_parse(const char *fen, xq_board *b, char err[XQ_ERR_MAX]);

/* Writes the canonical FEN (NUL-terminated) into buf. */
void xq_fen_write(const xq_board *b, char buf[XQ_FEN_MAX]);

/* Checks that a position could occur in a game: one king each, piece counts
 * within the game's, every piece on a square it can reach, kings not facing,
 * and the side not to move not in check.  Returns 0, or -1 with a message. */
int xq_board_validate(const xq_board *b, char err[XQ_ERR_MAX]);

#endif
