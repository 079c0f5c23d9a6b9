/*
 * ref_labels.c - see ref_labels.h.  Geometry is written out per kind from
 * the rules (no tables from core/geometry), so that a mistake in the core's
 * attack code and one here would have to coincide to go unnoticed.
 */
#include "ref_labels.h"

#include <stdlib.h>

#include "movegen.h"

/* Pieces strictly between two squares on one rank or file; -1 if the
 * squares do not share a line. */
static int count_between(const xq_board *b, int a, int c)
{
    int fa = file_of(a), ra = rank_of(a), fc = file_of(c), rc = rank_of(c);
    int step;
    if (fa == fc)
        step = rc > ra ? 9 : -9;
    else if (ra == rc)
        step = fc > fa ? 1 : -1;
    else
        return -1;
    int n = 0;
    for (int s = a + step; s != c; s += step) n += b->sq[s] != EMPTY;
    return n;
}

/* Whether the piece on `from` could capture on `to` (which holds a piece
 * of the other colour), by the movement rules of its kind. */
static bool reaches_capture(const xq_board *b, int from, int to)
{
    xq_piece p = b->sq[from];
    int c = colour_of(p);
    int df = file_of(to) - file_of(from), dr = rank_of(to) - rank_of(from);
    int adf = abs(df), adr = abs(dr);
    switch (kind_of(p)) {
    case KING:
        if (adf + adr == 1 && in_palace(c, to)) return true;
        /* Flying general: the kings see each other along an open file. */
        return df == 0 && b->sq[to] == make_piece(c ^ 1, KING) && count_between(b, from, to) == 0;
    case ADVISOR: return adf == 1 && adr == 1 && in_palace(c, to);
    case ELEPHANT: {
        if (adf != 2 || adr != 2 || !own_half(c, to)) return false;
        int eye = make_square(file_of(from) + df / 2, rank_of(from) + dr / 2);
        return b->sq[eye] == EMPTY;
    }
    case HORSE: {
        if (!((adf == 1 && adr == 2) || (adf == 2 && adr == 1))) return false;
        /* The leg is the square one step along the long leg of the L. */
        int leg = adr == 2 ? make_square(file_of(from), rank_of(from) + dr / 2)
                           : make_square(file_of(from) + df / 2, rank_of(from));
        return b->sq[leg] == EMPTY;
    }
    case ROOK: return count_between(b, from, to) == 0;
    case CANNON: return count_between(b, from, to) == 1; /* exactly one screen */
    case PAWN: {
        int forward = c == RED ? 1 : -1;
        if (df == 0 && dr == forward) return true;
        return !own_half(c, from) && adf == 1 && dr == 0; /* sideways once across */
    }
    default: return false;
    }
}

bool ref_attacks(const xq_board *b, int from, int to)
{
    xq_piece p = b->sq[from], t = b->sq[to];
    if (p == EMPTY || t == EMPTY || colour_of(p) == colour_of(t)) return false;
    return reaches_capture(b, from, to);
}

bool ref_can_capture_on(const xq_board *b, int colour, int sq)
{
    xq_mask m = b->occ[colour];
    while (m) {
        int s = mask_pop_lsb(&m);
        if (ref_attacks(b, s, sq) && ref_move_safe(b, s, sq)) return true;
    }
    return false;
}

static int find_king(const xq_board *b, int colour)
{
    xq_mask m = b->occ[colour];
    while (m) {
        int s = mask_pop_lsb(&m);
        if (b->sq[s] == make_piece(colour, KING)) return s;
    }
    return -1;
}

bool ref_king_attacked(const xq_board *b, int colour)
{
    int k = find_king(b, colour);
    if (k < 0) return false;
    xq_mask m = b->occ[colour ^ 1];
    while (m)
        if (ref_attacks(b, mask_pop_lsb(&m), k)) return true;
    return false;
}

bool ref_move_safe(const xq_board *b, int from, int to)
{
    xq_board c = *b;
    xq_undo u;
    int us = colour_of(b->sq[from]);
    xq_make_move(&c, make_move(from, to), &u);
    return !ref_king_attacked(&c, us);
}

/* A pawn on its own side of the river cannot be chased; neither can kings. */
static bool chaseable(xq_piece t, int sq)
{
    int k = kind_of(t);
    if (k == KING) return false;
    return !(k == PAWN && own_half(colour_of(t), sq));
}

static bool cheaper_attacker(int a, int t)
{
    if ((a == HORSE || a == CANNON) && t == ROOK) return true;
    return (a == ADVISOR || a == ELEPHANT) && (t == ROOK || t == HORSE || t == CANNON);
}

/* Whether t's owner can legally take back on t's square after a x t. */
static bool protected_after_capture(const xq_board *after, int sa, int st)
{
    xq_board x = *after;
    xq_undo u;
    int owner = colour_of(after->sq[st]);
    xq_make_move(&x, make_move(sa, st), &u);
    return ref_can_capture_on(&x, owner, st);
}

/* The squares of the enemy pieces that attack colour's king in b. */
static xq_mask checkers(const xq_board *b, int colour)
{
    xq_mask found = 0, m = b->occ[colour ^ 1];
    int k = find_king(b, colour);
    while (m) {
        int s = mask_pop_lsb(&m);
        if (ref_attacks(b, s, k)) found |= mask_of(s);
    }
    return found;
}

/* Whether the piece on sa, of colour S, threatens in p to win the enemy
 * piece on st with its next move: it attacks st; taking it would bring no
 * new attacker onto S's own king (a check S is under when p is the
 * position before S's move does not count: answering it would not make
 * the threat new); a same-kind target could not take back first; and the
 * attacker is the cheaper kind or nothing can retake on st. */
static bool threatens(const xq_board *p, int sa, int st)
{
    if (!ref_attacks(p, sa, st)) return false;
    int s = colour_of(p->sq[sa]), ka = kind_of(p->sq[sa]), kt = kind_of(p->sq[st]);
    xq_board x = *p;
    xq_undo u;
    xq_make_move(&x, make_move(sa, st), &u);
    if (checkers(&x, s) & ~checkers(p, s)) return false;
    if (ka == kt && ref_attacks(p, st, sa) && ref_move_safe(p, st, sa)) return false; /* mutual */
    return cheaper_attacker(ka, kt) || !protected_after_capture(p, sa, st);
}

/* Whether piece a (now on sa in `after`, on prev_sa in `before`) chases
 * the enemy piece on st: it threatens it after the move, and before the
 * move it did not attack it at all or, with `made_real`, did not threaten
 * it (the move took the protector's protection away or freed a). */
static bool chases(const xq_board *before, const xq_board *after, int sa, int prev_sa, int st, bool made_real)
{
    if (!threatens(after, sa, st)) return false;
    return made_real ? !threatens(before, prev_sa, st) : !ref_attacks(before, prev_sa, st);
}

void ref_label_move_as(const xq_board *b, xq_move m, bool rulebook, ref_label *out)
{
    int from = move_from(m), to = move_to(m);
    int us = colour_of(b->sq[from]);
    xq_board after = *b;
    xq_undo u;
    xq_make_move(&after, m, &u);
    out->check = ref_king_attacked(&after, us ^ 1);
    out->nchased = 0;
    if (out->check && !rulebook) return;

    bool chased[XQ_SQUARES] = {false};
    xq_mask ours = after.occ[us];
    while (ours) {
        int sa = mask_pop_lsb(&ours);
        int ka = kind_of(after.sq[sa]);
        if (ka == KING || ka == PAWN) continue;
        int prev_sa = sa == to ? from : sa;
        xq_mask theirs = after.occ[us ^ 1];
        while (theirs) {
            int st = mask_pop_lsb(&theirs);
            if (chased[st] || !chaseable(after.sq[st], st)) continue;
            chased[st] = chases(b, &after, sa, prev_sa, st, rulebook);
        }
    }
    for (int s = 0; s < XQ_SQUARES; s++)
        if (chased[s]) out->chased[out->nchased++] = (uint8_t)s;
}

void ref_label_move(const xq_board *b, xq_move m, ref_label *out) { ref_label_move_as(b, m, false, out); }

/* Whether the side to move in b, playing only checks, mates within `moves`
 * of its moves whatever the other side answers.  b is changed and
 * restored. */
static bool mates_by_checks(xq_board *b, int moves)
{
    xq_move mine[XQ_MAX_MOVES], theirs[XQ_MAX_MOVES];
    int us = b->side, n = xq_gen_legal(b, mine);
    for (int i = 0; i < n && moves > 0; i++) {
        xq_undo u;
        xq_make_move(b, mine[i], &u);
        bool forced = false;
        if (ref_king_attacked(b, us ^ 1)) {
            int r = xq_gen_legal(b, theirs);
            forced = true; /* no answer at all is mate */
            for (int j = 0; j < r && forced; j++) {
                xq_undo v;
                xq_make_move(b, theirs[j], &v);
                forced = mates_by_checks(b, moves - 1);
                xq_unmake_move(b, theirs[j], &v);
            }
        }
        xq_unmake_move(b, mine[i], &u);
        if (forced) return true;
    }
    return false;
}

bool ref_threatens_mate(const xq_board *before, xq_move m)
{
    xq_board b = *before;
    xq_undo u;
    xq_make_move(&b, m, &u);
    if (ref_king_attacked(&b, before->side ^ 1)) return false;
    b.side ^= 1; /* the pass */
    return mates_by_checks(&b, 3);
}
