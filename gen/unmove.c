/*
 * unmove.c - retrograde (un-)move generation.  Every piece's quiet move is
 * reversible in geometry except the pawn's, so the forward patterns serve
 * backwards too; pawns use the inverted tables of geometry.h.
 */
#include "unmove.h"

#include "geometry.h"

static inline void add(xq_move **l, int origin, int here) { *(*l)++ = make_move(origin, here); }

int xq_gen_unmoves(const xq_board *b, xq_move *list)
{
    xq_move *l = list;
    int them = b->side ^ 1; /* the side that made the last move */
    xq_mask m = b->occ[them];
    while (m) {
        int here = mask_pop_lsb(&m);
        switch (kind_of(b->sq[here])) {
        case KING:
            for (const uint8_t *t = xq_geo.king[here]; *t != XQ_END; t++)
                if (!b->sq[*t]) add(&l, *t, here);
            break;
        case ADVISOR:
            for (const uint8_t *t = xq_geo.advisor[here]; *t != XQ_END; t++)
                if (!b->sq[*t]) add(&l, *t, here);
            break;
        case ELEPHANT:
            for (const xq_step *e = xq_geo.elephant[here]; e->to != XQ_END; e++)
                if (!b->sq[e->block] && !b->sq[e->to]) add(&l, e->to, here);
            break;
        case HORSE:
            /* horse_from lists the squares a horse attacks `here` from, with
             * the leg next to that square. */
            for (const xq_step *h = xq_geo.horse_from[here]; h->to != XQ_END; h++)
                if (!b->sq[h->block] && !b->sq[h->to]) add(&l, h->to, here);
            break;
        case ROOK:
        case CANNON: /* a cannon's quiet move slides like a rook's */
            for (int d = 0; d < 4; d++)
                for (const uint8_t *r = xq_geo.ray[here][d]; *r != XQ_END && !b->sq[*r]; r++) add(&l, *r, here);
            break;
        case PAWN:
            for (const uint8_t *t = xq_geo.pawn_from[them][here]; *t != XQ_END; t++)
                if (!b->sq[*t]) add(&l, *t, here);
            break;
        }
    }
    return (int)(l - list);
}
