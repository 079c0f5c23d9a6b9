/*
 * labels.c - move labels for the repetition rulings (labels.h).
 *
 * The chase test follows the Chinese Xiangqi Association's rules as
 * simplified in docs/RULES.md: an attack counts only if it is new, the
 * capture it threatens is legal, and the target is either unprotected or
 * worth more than the attacker.  Protection is judged in the position after
 * the threatened capture, so a protector that is pinned, or that would
 * expose its own king, does not protect.
 */
#include "labels.h"

#include <string.h>

#include "movegen.h"

/* True if a move of `colour`'s piece from `from` to `to` is legal in b,
 * whoever is to move in b. */
static bool legal_for(xq_board *b, int colour, int from, int to)
{
    int side = b->side;
    b->side = (uint8_t)colour;
    bool ok = xq_move_is_legal(b, make_move(from, to));
    b->side = (uint8_t)side;
    return ok;
}

static bool attacks_square(const xq_board *b, int from, int sq)
{
    uint8_t out[16];
    int n = xq_piece_attacks(b, from, out);
    for (int i = 0; i < n; i++)
        if (out[i] == sq) return true;
    return false;
}

/* True if `colour` can legally capture on sq (some piece of it could). */
static bool can_capture_on(xq_board *b, int colour, int sq)
{
    for (xq_mask m = b->occ[colour]; m;) {
        int from = mask_pop_lsb(&m);
        if (attacks_square(b, from, sq) && legal_for(b, colour, from, sq)) return true;
    }
    return false;
}

/* A pawn may be chased only once it has crossed the river. */
static bool chaseable(xq_piece t) { return kind_of(t) != KING; }

static bool pawn_crossed(int colour, int sq) { return colour == RED ? rank_of(sq) >= 5 : rank_of(sq) <= 4; }

/* Attacker kind a is worth less than target kind t in the sense of the
 * rules: horse or cannon on a rook; advisor or elephant on a rook, horse or
 * cannon. */
static bool cheaper(int a, int t)
{
    if (a == HORSE || a == CANNON) return t == ROOK;
    if (a == ADVISOR || a == ELEPHANT) return t == ROOK || t == HORSE || t == CANNON;
    return false;
}

/* Whether the attack of the piece on `a` against the enemy piece on `t`,
 * in position b (after the mover's move, b->side = the chased side), counts
 * as a chase, given that it is new. */
static bool attack_is_chase(xq_board *b, int us, int a, int t)
{
    int ka = kind_of(b->sq[a]), kt = kind_of(b->sq[t]);
    if (!legal_for(b, us, a, t)) return false; /* the threat must be real */
    if (cheaper(ka, kt)) return true;
    /* A same-kind attack the target can return is an exchange offer. */
    if (ka == kt && attacks_square(b, t, a) && legal_for(b, us ^ 1, t, a)) return false;
    xq_undo u;
    xq_move cap = make_move(a, t);
    int side = b->side;
    b->side = (uint8_t)us;
    xq_make_move(b, cap, &u);
    bool protected_ = can_capture_on(b, us ^ 1, t);
    xq_unmake_move(b, cap, &u);
    b->side = (uint8_t)side;
    return !protected_;
}

void xq_label_move(const xq_board *before, xq_move m, xq_move_label *out)
{
    memset(out, 0, sizeof *out);
    xq_board b = *before;
    int us = before->side, from = move_from(m), to = move_to(m);
    xq_undo u;
    xq_make_move(&b, m, &u);
    if (xq_in_check(&b, us ^ 1)) {
        out->check = true;
        return;
    }
    for (xq_mask pieces = b.occ[us]; pieces;) {
        int a = mask_pop_lsb(&pieces);
        int ka = kind_of(b.sq[a]);
        if (ka == KING || ka == PAWN) continue; /* their attacks are idle */
        int a_before = a == to ? from : a;
        uint8_t targets[16];
        int n = xq_piece_attacks(&b, a, targets);
        for (int i = 0; i < n; i++) {
            int t = targets[i];
            xq_piece tp = b.sq[t];
            if (!chaseable(tp) || (kind_of(tp) == PAWN && !pawn_crossed(us ^ 1, t))) continue;
            if (attacks_square(before, a_before, t)) continue; /* not a new attack */
            bool seen = false;
            for (int k = 0; k < out->nchased; k++) seen |= out->chased[k] == t;
            if (seen || !attack_is_chase(&b, us, a, t)) continue;
            out->chased[out->nchased++] = (uint8_t)t;
        }
    }
}
