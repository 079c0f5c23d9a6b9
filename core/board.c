/*
 * board.c - position state, make/unmake, attack and check detection.
 */
#include "board.h"

#include <stdlib.h>
#include <string.h>

#include "geometry.h"

void xq_board_clear(xq_board *b)
{
    /* Sixteen bytes at a time, the last store overlapping: gcc turns a
     * plain memset of the board into `rep stos`, whose start-up cost made
     * this a twentieth of a generation (every index entry decoded starts
     * here). */
    typedef uint8_t bytes16 __attribute__((vector_size(16)));
    const bytes16 zero = {0};
    for (int i = 0; i + 16 <= XQ_SQUARES; i += 16) memcpy(b->sq + i, &zero, 16);
    memcpy(b->sq + XQ_SQUARES - 16, &zero, 16);
    b->side = 0;
    b->king[RED] = b->king[BLACK] = XQ_SQUARES;
    b->occ[RED] = b->occ[BLACK] = 0;
    b->rule60 = 0;
    b->fullmove = 1;
}

void xq_board_remove(xq_board *b, int sq)
{
    xq_piece p = b->sq[sq];
    if (p == EMPTY) return;
    b->occ[colour_of(p)] &= ~mask_of(sq);
    if (kind_of(p) == KING) b->king[colour_of(p)] = XQ_SQUARES;
    b->sq[sq] = EMPTY;
}

int xq_board_count(const xq_board *b, int colour, int kind)
{
    int n = 0;
    xq_mask m = b->occ[colour];
    while (m) n += kind_of(b->sq[mask_pop_lsb(&m)]) == kind;
    return n;
}

void xq_make_move(xq_board *b, xq_move m, xq_undo *u)
{
    int from = move_from(m), to = move_to(m);
    xq_piece p = b->sq[from], cap = b->sq[to];
    int us = colour_of(p);
    u->captured = cap;
    u->rule60 = b->rule60;
    if (cap) {
        b->occ[us ^ 1] &= ~mask_of(to);
        b->rule60 = 0;
    } else {
        b->rule60++;
    }
    b->sq[to] = p;
    b->sq[from] = EMPTY;
    b->occ[us] ^= mask_of(from) | mask_of(to);
    if (kind_of(p) == KING) b->king[us] = (uint8_t)to;
    if (b->side == BLACK) b->fullmove++;
    b->side ^= 1;
}

void xq_unmake_move(xq_board *b, xq_move m, const xq_undo *u)
{
    int from = move_from(m), to = move_to(m);
    xq_piece p = b->sq[to];
    int us = colour_of(p);
    b->side ^= 1;
    if (b->side == BLACK) b->fullmove--;
    b->sq[from] = p;
    b->sq[to] = u->captured;
    b->occ[us] ^= mask_of(from) | mask_of(to);
    if (u->captured) b->occ[us ^ 1] |= mask_of(to);
    if (kind_of(p) == KING) b->king[us] = (uint8_t)from;
    b->rule60 = u->rule60;
}

bool xq_kings_facing(const xq_board *b)
{
    int rk = b->king[RED], bk = b->king[BLACK];
    if (rk >= XQ_SQUARES || bk >= XQ_SQUARES || file_of(rk) != file_of(bk)) return false;
    for (int s = rk + 9; s < bk; s += 9)
        if (b->sq[s]) return false;
    return true;
}

/* Whether colour `by` has a piece on a square of `set` (xq_geometry's
 * two-word square sets). */
static inline bool holds_any(const xq_board *b, int by, const uint64_t set[2])
{
    return ((uint64_t)b->occ[by] & set[0]) | ((uint64_t)(b->occ[by] >> 64) & set[1]);
}

/* Attacks along the four rays from sq: the first piece met (rook; king on a
 * file only when sq holds the other king) and the second (cannon). */
static bool ray_attacked(const xq_board *b, int sq, int by, bool sq_is_king)
{
    const xq_piece rook = make_piece(by, ROOK), cannon = make_piece(by, CANNON);
    const xq_piece king = make_piece(by, KING);
    for (int d = 0; d < 4; d++) {
        /* a ray without a piece of theirs on it attacks nothing: most of
         * an endgame's rays, and no square of them need be looked at */
        if (!holds_any(b, by, xq_geo.ray_bits[sq][d])) continue;
        const uint8_t *r = xq_geo.ray[sq][d];
        for (; *r != XQ_END && !b->sq[*r]; r++)
            ;
        if (*r == XQ_END) continue;
        xq_piece p = b->sq[*r];
        if (p == rook || (p == king && d < 2 && sq_is_king)) return true;
        for (r++; *r != XQ_END && !b->sq[*r]; r++)
            ;
        if (*r != XQ_END && b->sq[*r] == cannon) return true;
    }
    return false;
}

static bool horse_attacked(const xq_board *b, int sq, int by)
{
    const xq_piece horse = make_piece(by, HORSE);
    if (!holds_any(b, by, xq_geo.horse_from_bits[sq])) return false; /* no piece of theirs there: no horse */
    for (const xq_step *h = xq_geo.horse_from[sq]; h->to != XQ_END; h++)
        if (b->sq[h->to] == horse && !b->sq[h->block]) return true;
    return false;
}

static bool pawn_attacked(const xq_board *b, int sq, int by)
{
    const xq_piece pawn = make_piece(by, PAWN);
    for (const uint8_t *p = xq_geo.pawn_from[by][sq]; *p != XQ_END; p++)
        if (b->sq[*p] == pawn) return true;
    return false;
}

bool xq_in_check(const xq_board *b, int colour)
{
    int k = b->king[colour], by = colour ^ 1;
    if (k >= XQ_SQUARES) return false;
    /* Advisors and elephants never leave their own half, so they cannot
     * reach the enemy king. */
    return ray_attacked(b, k, by, true) || horse_attacked(b, k, by) || pawn_attacked(b, k, by);
}

/* What stands on s after piece p moved from -> to, the board unchanged. */
static inline xq_piece piece_after(const xq_board *b, int s, int from, int to, xq_piece p)
{
    return s == to ? p : s == from ? EMPTY : b->sq[s];
}

/* ray_attacked along direction d from the king on k, as the board stands
 * after p moved from -> to.  The same scan as ray_attacked's, written again
 * rather than shared: ray_attacked reads the board as it stands, on the
 * retrograde passes' hot path, where piece_after's two tests a square would
 * be paid for nothing. */
static bool ray_attacked_after(const xq_board *b, int k, int d, int by, int from, int to, xq_piece p)
{
    const xq_piece rook = make_piece(by, ROOK), cannon = make_piece(by, CANNON), king = make_piece(by, KING);
    const uint8_t *r = xq_geo.ray[k][d];
    xq_piece q = EMPTY;
    for (; *r != XQ_END && !(q = piece_after(b, *r, from, to, p)); r++)
        ;
    if (*r == XQ_END) return false;
    if (q == rook || (q == king && d < 2)) return true; /* d 0 and 1: the file */
    for (r++; *r != XQ_END && !(q = piece_after(b, *r, from, to, p)); r++)
        ;
    return *r != XQ_END && q == cannon;
}

/* The ray from k (ray[k][d]: 0 up the ranks, 1 down, 2 up the files, 3
 * down) that square s lies on, as a bit; 0 off k's file and rank. */
static unsigned ray_toward(int k, int s)
{
    if (s == k) return 0;
    if (file_of(s) == file_of(k)) return rank_of(s) > rank_of(k) ? 1u : 2u;
    if (rank_of(s) == rank_of(k)) return file_of(s) > file_of(k) ? 4u : 8u;
    return 0;
}

/* The king on k was not attacked before the move, so an attack after it
 * needs the move: along a ray from k only if `from` or `to` is on it (a
 * line opened or closed, a cannon's screen added or taken away, the moved
 * piece itself), by a horse only if it is the moved one or `from` was its
 * leg (a point diagonally next to k), by a pawn only if it is the moved
 * one.  Advisors and elephants never reach the enemy king. */
bool xq_gives_check(const xq_board *b, xq_move m)
{
    int us = b->side, k = b->king[us ^ 1], from = move_from(m), to = move_to(m);
    if (k >= XQ_SQUARES) return false;
    xq_piece p = b->sq[from];
    for (unsigned rays = ray_toward(k, from) | ray_toward(k, to); rays; rays &= rays - 1)
        if (ray_attacked_after(b, k, __builtin_ctz(rays), us, from, to, p)) return true;
    int df = abs(file_of(from) - file_of(k)), dr = abs(rank_of(from) - rank_of(k));
    const xq_piece horse = make_piece(us, HORSE);
    if (p == horse || (df == 1 && dr == 1))
        for (const xq_step *h = xq_geo.horse_from[k]; h->to != XQ_END; h++)
            if ((h->to == to || h->block == from) && piece_after(b, h->to, from, to, p) == horse &&
                !piece_after(b, h->block, from, to, p))
                return true;
    if (p == make_piece(us, PAWN))
        for (const uint8_t *q = xq_geo.pawn_from[us][k]; *q != XQ_END; q++)
            if (*q == to) return true;
    return false;
}

bool xq_attacked(const xq_board *b, int sq, int by)
{
    bool is_king = b->sq[sq] == make_piece(by ^ 1, KING);
    if (ray_attacked(b, sq, by, is_king) || horse_attacked(b, sq, by) || pawn_attacked(b, sq, by)) return true;
    const xq_piece king = make_piece(by, KING), adv = make_piece(by, ADVISOR);
    const xq_piece ele = make_piece(by, ELEPHANT);
    /* King, advisor and elephant steps are symmetric, so the pieces that can
     * step onto sq stand where sq's own step lists point. */
    if (in_palace(by, sq)) {
        for (const uint8_t *p = xq_geo.king[sq]; *p != XQ_END; p++)
            if (b->sq[*p] == king) return true;
        for (const uint8_t *p = xq_geo.advisor[sq]; *p != XQ_END; p++)
            if (b->sq[*p] == adv) return true;
    }
    if (own_half(by, sq))
        for (const xq_step *e = xq_geo.elephant[sq]; e->to != XQ_END; e++)
            if (b->sq[e->to] == ele && !b->sq[e->block]) return true;
    return false;
}

int xq_piece_attacks(const xq_board *b, int from, uint8_t out[16])
{
    xq_piece p = b->sq[from];
    int n = 0, us = colour_of(p);
    if (p == EMPTY) return 0;
#define ADD_IF_ENEMY(s)                                                                                                \
    do {                                                                                                               \
        if (b->sq[s] && colour_of(b->sq[s]) != us) out[n++] = (uint8_t)(s);                                            \
    } while (0)
    switch (kind_of(p)) {
    case KING:
        for (const uint8_t *t = xq_geo.king[from]; *t != XQ_END; t++) ADD_IF_ENEMY(*t);
        if (xq_kings_facing(b)) out[n++] = b->king[us ^ 1];
        break;
    case ADVISOR:
        for (const uint8_t *t = xq_geo.advisor[from]; *t != XQ_END; t++) ADD_IF_ENEMY(*t);
        break;
    case ELEPHANT:
        for (const xq_step *e = xq_geo.elephant[from]; e->to != XQ_END; e++)
            if (!b->sq[e->block]) ADD_IF_ENEMY(e->to);
        break;
    case HORSE:
        for (const xq_step *h = xq_geo.horse[from]; h->to != XQ_END; h++)
            if (!b->sq[h->block]) ADD_IF_ENEMY(h->to);
        break;
    case PAWN:
        for (const uint8_t *t = xq_geo.pawn[us][from]; *t != XQ_END; t++) ADD_IF_ENEMY(*t);
        break;
    case ROOK:
    case CANNON:
        for (int d = 0; d < 4; d++) {
            const uint8_t *r = xq_geo.ray[from][d];
            for (; *r != XQ_END && !b->sq[*r]; r++)
                ;
            if (*r == XQ_END) continue;
            if (kind_of(p) == CANNON)
                for (r++; *r != XQ_END && !b->sq[*r]; r++)
                    ;
            if (*r != XQ_END) ADD_IF_ENEMY(*r);
        }
        break;
    }
#undef ADD_IF_ENEMY
    return n;
}

void xq_board_mirror(const xq_board *in, xq_board *out)
{
    xq_board t;
    xq_board_clear(&t);
    for (int s = 0; s < XQ_SQUARES; s++)
        if (in->sq[s]) xq_board_put(&t, mirror_square(s), in->sq[s]);
    t.side = in->side;
    t.rule60 = in->rule60;
    t.fullmove = in->fullmove;
    *out = t;
}

void xq_board_flip(const xq_board *in, xq_board *out)
{
    xq_board t;
    xq_board_clear(&t);
    for (int s = 0; s < XQ_SQUARES; s++)
        if (in->sq[s]) xq_board_put(&t, flip_square(s), in->sq[s] ^ 8);
    t.side = in->side ^ 1;
    t.rule60 = in->rule60;
    t.fullmove = in->fullmove;
    *out = t;
}

bool xq_board_equal(const xq_board *a, const xq_board *b)
{
    return a->side == b->side && memcmp(a->sq, b->sq, sizeof a->sq) == 0;
}
