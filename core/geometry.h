/*
 * geometry.h - precomputed move patterns of every piece kind on every square.
 *
 * Tables are filled once when the program or library is loaded (a
 * constructor), never written afterwards, and so are safe to read from any
 * thread.  Lists end with the sentinel XQ_END.
 */
#ifndef XQ_GEOMETRY_H
#define XQ_GEOMETRY_H

#include "types.h"

enum { XQ_END = 0xFF };

/* A step that can be blocked: the target and the square that must be empty
 * (horse leg, elephant eye). */
typedef struct {
    uint8_t to;
    uint8_t block;
} xq_step;

typedef struct {
    /* King steps inside the palace the square belongs to (up to 4 + end). */
    uint8_t king[XQ_SQUARES][5];
    /* Advisor steps inside the palace (diagonal). */
    uint8_t advisor[XQ_SQUARES][5];
    /* Elephant steps that stay on the same side of the river; block = eye. */
    xq_step elephant[XQ_SQUARES][5];
    /* Horse jumps; block = the leg next to the starting square. */
    xq_step horse[XQ_SQUARES][9];
    /* Horses that attack this square: to = where the horse stands, block =
     * its leg.  Also the backward jumps used by retrograde analysis. */
    xq_step horse_from[XQ_SQUARES][9];
    /* The squares of horse_from[sq] as a set, as ray_bits. */
    uint64_t horse_from_bits[XQ_SQUARES][2];
    /* Pawn steps per colour: forward, and sideways once across the river. */
    uint8_t pawn[COLOUR_NB][XQ_SQUARES][4];
    /* Squares a pawn of the colour could have come from (backward steps). */
    uint8_t pawn_from[COLOUR_NB][XQ_SQUARES][4];
    /* Rays in the four directions (north, south, east, west). */
    uint8_t ray[XQ_SQUARES][4][10];
    /* The same rays as square sets, bit s of word s / 64, to tell at once
     * whether a colour has a piece anywhere along one. */
    uint64_t ray_bits[XQ_SQUARES][4][2];
    /* How two squares lie to each other, as XQ_REL_* bits: relation[a][b]
     * tells in one look-up what file_of and rank_of arithmetic would. */
    uint8_t relation[XQ_SQUARES][XQ_SQUARES];
} xq_geometry;

/* Bits of xq_geometry.relation[a][b], for a != b (0 for a == b). */
enum {
    XQ_REL_LINE = 1,  /* same file or same rank */
    XQ_REL_ORTH1 = 2, /* orthogonally next to each other (a horse's leg) */
    XQ_REL_DIAG1 = 4, /* diagonally next to each other (an advisor's step, an elephant's eye) */
    XQ_REL_DIAG2 = 8, /* two diagonal steps apart (an elephant's step) */
    XQ_REL_HORSE = 16 /* a horse's jump apart */
};

extern xq_geometry xq_geo;

/* Square sets a piece can ever stand on (used by validation and indexing). */
bool xq_square_allowed(int colour, int kind, int sq);

#endif
