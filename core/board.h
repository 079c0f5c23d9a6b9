/*
 * board.h - a Xiangqi position: 90-square mailbox, occupancy masks per
 * colour (for fast piece iteration), side to move and king squares, with
 * make/unmake and check detection.
 */
#ifndef XQ_BOARD_H
#define XQ_BOARD_H

#include "types.h"

typedef unsigned __int128 xq_mask; /* bit sq set = square occupied */

typedef struct {
    xq_piece sq[XQ_SQUARES];
    uint8_t side;            /* colour to move */
    uint8_t king[COLOUR_NB]; /* king squares (XQ_SQUARES if absent) */
    xq_mask occ[COLOUR_NB];  /* squares held by each colour */
    uint16_t rule60;         /* plies since the last capture (FEN field 5) */
    uint16_t fullmove;       /* FEN field 6 */
} xq_board;

/* What make_move needs to take a move back. */
typedef struct {
    xq_piece captured;
    uint16_t rule60;
} xq_undo;

static inline xq_mask mask_of(int sq) { return (xq_mask)1 << sq; }
static inline int mask_pop_lsb(xq_mask *m)
{
    uint64_t lo = (uint64_t)*m;
    int s = lo ? __builtin_ctzll(lo) : 64 + __builtin_ctzll((uint64_t)(*m >> 64));
    *m &= *m - 1;
    return s;
}
static inline int mask_count(xq_mask m)
{
    return __builtin_popcountll((uint64_t)m) + __builtin_popcountll((uint64_t)(m >> 64));
}

void xq_board_clear(xq_board *b);
/* Inline: every decoded index entry places its pieces with it. */
static inline void xq_board_put(xq_board *b, int sq, xq_piece p)
{
    b->sq[sq] = p;
    b->occ[colour_of(p)] |= mask_of(sq);
    if (kind_of(p) == KING) b->king[colour_of(p)] = (uint8_t)sq;
}
void xq_board_remove(xq_board *b, int sq);
/* Number of pieces of a colour and kind on the board. */
int xq_board_count(const xq_board *b, int colour, int kind);

void xq_make_move(xq_board *b, xq_move m, xq_undo *u);
void xq_unmake_move(xq_board *b, xq_move m, const xq_undo *u);

/* True if a piece of colour `by` could capture on sq (ignoring whether the
 * capture would leave its own king exposed).  A king attacks its orthogonal
 * palace neighbours, and the enemy king along an open file (flying general). */
bool xq_attacked(const xq_board *b, int sq, int by);
/* True if the king of `colour` is attacked (flying general included). */
bool xq_in_check(const xq_board *b, int colour);
/* True if move m (quiet or a capture) of b->side leaves the other king
 * attacked: xq_in_check of the position after m, without playing it.  b must
 * be a position where that king is not attacked (as in every legal
 * position): only what the move changes is looked at. */
bool xq_gives_check(const xq_board *b, xq_move m);
/* True if both kings are on one file with nothing between them. */
bool xq_kings_facing(const xq_board *b);

/* Squares holding enemy pieces that the piece on `from` attacks (could
 * capture pseudo-legally).  Returns the count; targets are written to out. */
int xq_piece_attacks(const xq_board *b, int from, uint8_t out[16]);

/* Left-right mirror and colour flip (rank r <-> 9-r, red <-> black, side to
 * move swapped) of a whole position. */
void xq_board_mirror(const xq_board *in, xq_board *out);
void xq_board_flip(const xq_board *in, xq_board *out);

bool xq_board_equal(const xq_board *a, const xq_board *b);

#endif
