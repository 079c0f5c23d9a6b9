/*
 * types.h - the small vocabulary of the rules core: colours, piece kinds,
 * squares and moves.  Everything here is a plain integer with one-line
 * helpers, so hot loops compile to table look-ups and shifts.
 *
 * Square layout (UCCI/ICCS convention): files a..i are 0..8, ranks 0..9,
 * red sits on ranks 0-4 and black on ranks 5-9.  A square is
 * rank * 9 + file, so a0 = 0, i0 = 8, a9 = 81, i9 = 89.
 */
#ifndef XQ_TYPES_H
#define XQ_TYPES_H

#include <stdbool.h>
#include <stdint.h>

enum { XQ_FILES = 9, XQ_RANKS = 10, XQ_SQUARES = 90 };

typedef enum { RED = 0, BLACK = 1, COLOUR_NB = 2 } xq_colour;

/* Piece kinds, in the order FEN letters are usually listed. */
typedef enum {
    NO_KIND = 0,
    KING = 1,
    ADVISOR = 2,
    ELEPHANT = 3,
    HORSE = 4,
    ROOK = 5,
    CANNON = 6,
    PAWN = 7,
    KIND_NB = 8
} xq_kind;

/* A piece packs its kind in bits 0-2 and its colour in bit 3; 0 is empty.
 * Red pieces are 1..7, black pieces 9..15. */
typedef uint8_t xq_piece;
enum { EMPTY = 0, PIECE_NB = 16 };

/* A move packs from in bits 0-6 and to in bits 7-13.  0 (a0a0) is never a
 * legal move and serves as "no move". */
typedef uint16_t xq_move;
enum { MOVE_NONE = 0, XQ_MAX_MOVES = 128 };

/* Game limits on how many of each kind a side can have (index by kind). */
extern const uint8_t xq_kind_limit[KIND_NB];

static inline int file_of(int sq) { return sq % 9; }
static inline int rank_of(int sq) { return sq / 9; }
static inline int make_square(int file, int rank) { return rank * 9 + file; }
/* Left-right mirror (file a <-> file i). */
static inline int mirror_square(int sq) { return sq + 8 - 2 * (sq % 9); }
/* Turn the board around the river (rank r <-> rank 9-r), keeping files. */
static inline int flip_square(int sq) { return (9 - sq / 9) * 9 + sq % 9; }

static inline xq_piece make_piece(int colour, int kind) { return (xq_piece)(kind | (colour << 3)); }
static inline int kind_of(xq_piece p) { return p & 7; }
static inline int colour_of(xq_piece p) { return p >> 3; }

static inline xq_move make_move(int from, int to) { return (xq_move)(from | (to << 7)); }
static inline int move_from(xq_move m) { return m & 127; }
static inline int move_to(xq_move m) { return m >> 7; }

/* True if the square lies on the colour's own side of the river. */
static inline bool own_half(int colour, int sq) { return colour == RED ? sq < 45 : sq >= 45; }
/* True if the square is inside the colour's palace (files d-f, 3 ranks). */
static inline bool in_palace(int colour, int sq)
{
    int f = sq % 9, r = sq / 9;
    if (f < 3 || f > 5) return false;
    return colour == RED ? r <= 2 : r >= 7;
}

/* FEN letter of a piece (uppercase red, lowercase black), '.' for empty. */
char xq_piece_char(xq_piece p);
/* Kind of an uppercase letter (accepts H for horse, E for elephant). */
int xq_kind_from_char(char c);
/* Writes "e0"-style name into buf (3 bytes). */
void xq_square_name(int sq, char buf[3]);
/* Writes "h2e2" into buf (5 bytes). */
void xq_move_name(xq_move m, char buf[5]);
/* Parses an ICCS square "a0".."i9"; -1 if malformed. */
int xq_parse_square(const char *s);

#endif
