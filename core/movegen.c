/*
 * movegen.c - pseudo-legal and legal move generation, and perft.
 *
 * Legality is decided by making the move and asking whether the mover's king
 * is attacked.  Most moves cannot expose the king at all, and skip that test:
 * see needs_check_test().
 */
#include "movegen.h"

#include "geometry.h"

static inline void add(xq_move **l, int from, int to) { *(*l)++ = make_move(from, to); }

static void gen_slider(const xq_board *b, int from, int us, bool cannon, xq_move **l)
{
    for (int d = 0; d < 4; d++) {
        const uint8_t *r = xq_geo.ray[from][d];
        for (; *r != XQ_END && !b->sq[*r]; r++) add(l, from, *r);
        if (*r == XQ_END) continue;
        if (cannon) /* jump exactly one screen to capture */
            for (r++; *r != XQ_END && !b->sq[*r]; r++)
                ;
        if (*r != XQ_END && colour_of(b->sq[*r]) != us) add(l, from, *r);
    }
}

int xq_gen_piece(const xq_board *b, int from, xq_move *list)
{
    xq_move *l = list;
    int us = colour_of(b->sq[from]);
#define TARGET_OK(t) (!b->sq[t] || colour_of(b->sq[t]) != us)
    switch (kind_of(b->sq[from])) {
    case KING:
        for (const uint8_t *t = xq_geo.king[from]; *t != XQ_END; t++)
            if (TARGET_OK(*t)) add(&l, from, *t);
        break;
    case ADVISOR:
        for (const uint8_t *t = xq_geo.advisor[from]; *t != XQ_END; t++)
            if (TARGET_OK(*t)) add(&l, from, *t);
        break;
    case ELEPHANT:
        for (const xq_step *e = xq_geo.elephant[from]; e->to != XQ_END; e++)
            if (!b->sq[e->block] && TARGET_OK(e->to)) add(&l, from, e->to);
        break;
    case HORSE:
        for (const xq_step *h = xq_geo.horse[from]; h->to != XQ_END; h++)
            if (!b->sq[h->block] && TARGET_OK(h->to)) add(&l, from, h->to);
        break;
    case ROOK: gen_slider(b, from, us, false, &l); break;
    case CANNON: gen_slider(b, from, us, true, &l); break;
    case PAWN:
        for (const uint8_t *t = xq_geo.pawn[us][from]; *t != XQ_END; t++)
            if (TARGET_OK(*t)) add(&l, from, *t);
        break;
    }
#undef TARGET_OK
    return (int)(l - list);
}

int xq_gen_pseudo(const xq_board *b, xq_move *list)
{
    int n = 0;
    for (xq_mask m = b->occ[b->side]; m;) n += xq_gen_piece(b, mask_pop_lsb(&m), list + n);
    return n;
}

bool xq_move_is_legal(xq_board *b, xq_move m)
{
    xq_undo u;
    int us = b->side;
    xq_make_move(b, m, &u);
    bool ok = !xq_in_check(b, us);
    xq_unmake_move(b, m, &u);
    return ok;
}

/* When the mover is not in check, a move can only expose its king if it
 * leaves or enters the king's rank or file (rook, cannon screen, flying
 * general) or leaves a square diagonally next to the king (a horse leg), or
 * if it is a king move.  Pawn attacks cannot be discovered. */
static inline bool needs_check_test(int from, int to, int k)
{
    int df = file_of(from) - file_of(k), dr = rank_of(from) - rank_of(k);
    if (df == 0 || dr == 0 || file_of(to) == file_of(k) || rank_of(to) == rank_of(k)) return true;
    return (df == 1 || df == -1) && (dr == 1 || dr == -1);
}

int xq_gen_legal(xq_board *b, xq_move *list)
{
    xq_move pseudo[XQ_MAX_MOVES];
    int n = xq_gen_pseudo(b, pseudo), out = 0;
    int k = b->king[b->side];
    bool check = xq_in_check(b, b->side);
    for (int i = 0; i < n; i++) {
        xq_move m = pseudo[i];
        if ((check || needs_check_test(move_from(m), move_to(m), k)) && !xq_move_is_legal(b, m)) continue;
        list[out++] = m;
    }
    return out;
}

bool xq_has_legal_move(xq_board *b)
{
    int k = b->king[b->side];
    bool check = xq_in_check(b, b->side);
    for (xq_mask pieces = b->occ[b->side]; pieces;) {
        xq_move list[XQ_MAX_MOVES];
        int n = xq_gen_piece(b, mask_pop_lsb(&pieces), list);
        for (int i = 0; i < n; i++)
            if (!(check || needs_check_test(move_from(list[i]), move_to(list[i]), k)) || xq_move_is_legal(b, list[i]))
                return true;
    }
    return false;
}

int xq_gen_captures(xq_board *b, xq_move *list)
{
    int out = 0, k = b->king[b->side];
    int check = -1; /* found out at the first capture: most positions have none */
    for (xq_mask m = b->occ[b->side]; m;) {
        int from = mask_pop_lsb(&m);
        uint8_t to[16];
        int n = xq_piece_attacks(b, from, to);
        for (int i = 0; i < n; i++) {
            xq_move mv = make_move(from, to[i]);
            if (check < 0) check = xq_in_check(b, b->side);
            if ((check || needs_check_test(from, to[i], k)) && !xq_move_is_legal(b, mv)) continue;
            list[out++] = mv;
        }
    }
    return out;
}

bool xq_move_valid(xq_board *b, xq_move m)
{
    xq_move list[XQ_MAX_MOVES];
    int n = xq_gen_legal(b, list);
    for (int i = 0; i < n; i++)
        if (list[i] == m) return true;
    return false;
}

uint64_t xq_perft(xq_board *b, int depth)
{
    xq_move list[XQ_MAX_MOVES];
    int n = xq_gen_legal(b, list);
    if (depth <= 1) return depth == 1 ? (uint64_t)n : 1;
    uint64_t total = 0;
    for (int i = 0; i < n; i++) {
        xq_undo u;
        xq_make_move(b, list[i], &u);
        total += xq_perft(b, depth - 1);
        xq_unmake_move(b, list[i], &u);
    }
    return total;
}
