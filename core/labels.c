/*
 * labels.c - move labels for the repetition rulings (labels.h).
 *
 * The chase test follows the Chinese Xiangqi Association's rules as
 * simplified in docs/RULES.md: an attack counts only if it is new (under
 * the arbiters' sets asian and cxa: if the threat is new, the CXA's "did
 * not exist before the move", clauses (a)-(d) of "A chase made real"), the
 * capture it threatens is legal, and the target is either unprotected or
 * worth more than the attacker.  Protection is judged in the position after
 * the threatened capture, so a protector that is pinned, or that would
 * expose its own king, does not protect.
 */
#include "labels.h"

#include <stdlib.h>
#include <string.h>

#include "geometry.h"
#include "movegen.h"
#include "ruleset.h"

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

/* A pawn may be chased only once it has crossed the river (the king never:
 * an attack on it is a check). */
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

/* The enemy pieces that attack `colour`'s king in b (the enemy king along
 * an open file included). */
static xq_mask king_attackers(const xq_board *b, int colour)
{
    xq_mask found = 0;
    for (xq_mask m = b->occ[colour ^ 1]; m;) {
        int s = mask_pop_lsb(&m);
        if (attacks_square(b, s, b->king[colour])) found |= mask_of(s);
    }
    return found;
}

/* Whether the attack of `us`'s piece on `a` against the enemy piece on `t`
 * already threatened to win t in `before`, the position before the move
 * (us to move): the test of attack_is_chase, except that a capture that
 * would only leave standing a check `us` is already under counts as
 * possible.  A check suspends a threat without undoing it, so answering
 * the check does not make the threat new (docs/RULES.md, "A chase made
 * real", clause (d)); a capture that would expose the king to a new
 * attacker (a pin, the flying general) is no threat. */
static bool threat_stood(xq_board *before, int us, int a, int t)
{
    int ka = kind_of(before->sq[a]), kt = kind_of(before->sq[t]);
    xq_mask checkers = king_attackers(before, us);
    xq_undo u;
    xq_move cap = make_move(a, t);
    xq_make_move(before, cap, &u);
    bool exposed = (king_attackers(before, us) & ~checkers) != 0;
    bool protected_ = can_capture_on(before, us ^ 1, t);
    xq_unmake_move(before, cap, &u);
    if (exposed) return false;
    if (cheaper(ka, kt)) return true;
    if (ka == kt && attacks_square(before, t, a) && legal_for(before, us ^ 1, t, a)) return false;
    return !protected_;
}

/* The relations (geometry.h) in which a piece of each kind may attack a
 * square, before any blocking: a rook's or a cannon's file and rank, a
 * horse's jump, an advisor's or elephant's diagonal step.  King and pawn:
 * none, as their attacks are idle. */
static const uint8_t attack_relation[KIND_NB] = {
    [ROOK] = XQ_REL_LINE,     [CANNON] = XQ_REL_LINE,    [HORSE] = XQ_REL_HORSE,
    [ADVISOR] = XQ_REL_DIAG1, [ELEPHANT] = XQ_REL_DIAG2,
};

/* The relations to a piece of each kind in which a square, emptied or
 * filled, can change which enemy pieces it attacks: on its file or rank
 * (rook, cannon), at its legs (horse: the points orthogonally next to it)
 * or at its eyes (elephant: diagonally next to it).  An advisor's attacks
 * do not depend on the board. */
static const uint8_t change_relation[KIND_NB] = {
    [ROOK] = XQ_REL_LINE,
    [CANNON] = XQ_REL_LINE,
    [HORSE] = XQ_REL_ORTH1,
    [ELEPHANT] = XQ_REL_DIAG1,
};

/* Whether a move from -> to can change which enemy pieces the piece of
 * `kind` on a, which did not move, attacks: only by emptying `from` or
 * filling `to` where the piece looks (change_relation); a capture fills
 * `to` with a piece where one stood, which blocks no line it did not
 * block.  A superset: the attacks are then compared square by square. */
static bool may_change_attacks(int kind, int a, int from, int to)
{
    return ((xq_geo.relation[a][from] | xq_geo.relation[a][to]) & change_relation[kind]) != 0;
}

/* The pieces of `colour` in b that can be chased, but the one on `skip`
 * (captured by the move labelled), into sq[]: all but the king and the
 * pawns that have not crossed the river.  Returns how many. */
static int prey_of(const xq_board *b, int colour, int skip, uint8_t sq[16])
{
    int n = 0;
    /* a half of the mask at a time: cheaper than mask_pop_lsb's 128-bit
     * steps on the rulings' hottest path */
    for (int half = 0; half < 2; half++)
        for (uint64_t w = (uint64_t)(b->occ[colour] >> (64 * half)); w; w &= w - 1) {
            int s = 64 * half + __builtin_ctzll(w), kind = kind_of(b->sq[s]);
            if (s != skip && kind != KING && (kind != PAWN || pawn_crossed(colour, s))) sq[n++] = (uint8_t)s;
        }
    return n;
}

/* Whether a piece of `kind` on a could attack one of the n squares prey[]
 * on some board (attack_relation): a superset of xq_piece_attacks, which
 * costs a scan of the board, told from the squares alone.  Most pieces
 * attack nothing that can be chased. */
static bool may_attack_any(int kind, int a, const uint8_t *prey, int n)
{
    unsigned rel = attack_relation[kind];
    for (int i = 0; i < n; i++)
        if (xq_geo.relation[a][prey[i]] & rel) return true;
    return false;
}

/* Whether some piece find_chases looks at, in the position after move
 * from -> to of before->side (the moved one, on `to`; with made_real every
 * other, else those whose attacks the move may change) could attack one
 * of prey[].  False settles the label without the board after the move:
 * most moves of the rulings' graph chase nothing. */
static bool chase_possible(const xq_board *before, int from, int to, bool made_real, const uint8_t *prey, int n)
{
    int moved = kind_of(before->sq[from]);
    if (attack_relation[moved] && may_attack_any(moved, to, prey, n)) return true;
    xq_mask others = before->occ[before->side] & ~mask_of(from);
    for (int half = 0; half < 2; half++)
        for (uint64_t w = (uint64_t)(others >> (64 * half)); w; w &= w - 1) {
            int a = 64 * half + __builtin_ctzll(w), ka = kind_of(before->sq[a]);
            if (!attack_relation[ka] || (!made_real && !may_change_attacks(ka, a, from, to))) continue;
            if (may_attack_any(ka, a, prey, n)) return true;
        }
    return false;
}

/* The chases of the move that led to b (b->side is the chased side):
 * every new attack (docs/RULES.md, "Move labels") of a piece of `us` that
 * counts as a chase, and with `made_real` (the arbiters' rule sets) every
 * attack that counts as one now and did not before the move: the move
 * pinned the protector (clause (a)), blocked its line or changed a guarding
 * cannon's screens (b), or freed the attacker or pinned through the flying
 * general (c); threat_stood gives clause (d).  `before` is the position
 * before the move. */
static void find_chases(const xq_board *before, xq_board *b, int from, int to, bool made_real, const uint8_t *prey,
                        int nprey, xq_move_label *out)
{
    int us = before->side;
    xq_board pre; /* threat_stood plays captures on it: needed with made_real only */
    if (made_real) pre = *before;
    xq_mask preyed = 0;
    for (int i = 0; i < nprey; i++) preyed |= mask_of(prey[i]);
    for (xq_mask pieces = b->occ[us]; pieces;) {
        int a = mask_pop_lsb(&pieces);
        int ka = kind_of(b->sq[a]);
        if (!attack_relation[ka]) continue; /* king and pawn: their attacks are idle */
        /* Without made_real only new attacks count, and a piece that did not
         * move attacks nothing new unless the move changed what it sees. */
        if (!made_real && a != to && !may_change_attacks(ka, a, from, to)) continue;
        if (!may_attack_any(ka, a, prey, nprey)) continue;
        int a_before = a == to ? from : a;
        uint8_t targets[16];
        int n = xq_piece_attacks(b, a, targets);
        for (int i = 0; i < n; i++) {
            int t = targets[i];
            if (!(preyed & mask_of(t))) continue;
            bool stood = attacks_square(before, a_before, t);
            if (stood && !made_real) continue; /* not a new attack */
            bool seen = false;
            for (int k = 0; k < out->nchased; k++) seen |= out->chased[k] == t;
            if (seen || !attack_is_chase(b, us, a, t)) continue;
            if (stood && threat_stood(&pre, us, a_before, t)) continue; /* nothing changed */
            /* kept ascending: the attackers are visited in another order
             * with made_real, and a label is a set, the same either way */
            int k = out->nchased++;
            for (; k > 0 && out->chased[k - 1] > t; k--) out->chased[k] = out->chased[k - 1];
            out->chased[k] = (uint8_t)t;
        }
    }
}

/* Whether move m (from -> to, of `kind`) could give check to a king on k,
 * the king not in check before: only the moved piece attacking from `to`
 * (a rook, cannon or pawn on k's rank or file, a horse a horse's move
 * away), or a line through k opened or closed at `from` or `to` (rook and
 * cannon checks, cannon screens), or a horse's leg cleared at `from` (the
 * leg of a horse checking k is diagonally next to k) can make one.  A
 * superset of the checking moves, so that the mate search tries the others
 * without playing them. */
static bool may_check(int kind, int from, int to, int k)
{
    int kf = file_of(k), kr = rank_of(k);
    if (file_of(to) == kf || rank_of(to) == kr || file_of(from) == kf || rank_of(from) == kr) return true;
    int df = abs(file_of(from) - kf), dr = abs(rank_of(from) - kr);
    if (df == 1 && dr == 1) return true;
    df = abs(file_of(to) - kf);
    dr = abs(rank_of(to) - kr);
    return kind == HORSE && df + dr == 3 && df && dr;
}

bool xq_mate_by_checks(xq_board *b, int moves)
{
    if (moves <= 0) return false;
    xq_move list[XQ_MAX_MOVES], replies[XQ_MAX_MOVES];
    int n = xq_gen_pseudo(b, list), us = b->side, k = b->king[us ^ 1];
    bool filter = !xq_in_check(b, us ^ 1); /* may_check's premise */
    for (int i = 0; i < n; i++) {
        if (filter && !may_check(kind_of(b->sq[move_from(list[i])]), move_from(list[i]), move_to(list[i]), k)) continue;
        xq_undo u;
        xq_make_move(b, list[i], &u);
        bool mates = false;
        /* a check, and legal: the mover's king not attacked */
        if (xq_in_check(b, us ^ 1) && !xq_in_check(b, us)) {
            /* with no move left to mate in, only "no legal reply" counts:
             * one legal reply settles it */
            int r = moves > 1 ? xq_gen_legal(b, replies) : xq_has_legal_move(b);
            mates = r == 0; /* checkmate */
            for (int j = 0; j < r && moves > 1; j++) {
                xq_undo v;
                xq_make_move(b, replies[j], &v);
                mates = xq_mate_by_checks(b, moves - 1);
                xq_unmake_move(b, replies[j], &v);
                if (!mates) break;
            }
        }
        xq_unmake_move(b, list[i], &u);
        if (mates) return true;
    }
    return false;
}

/* CXA rules' mate threat (杀): a move after which the mover, were the
 * opponent to pass, could mate "on the next move or by consecutive checks"
 * (the rule books' definition; bounded here at XQ_THREAT_MOVES moves).
 * b is the position after the move, the opponent to move and not in
 * check, so the pass is a legal position. */
static bool threatens_mate(xq_board *b)
{
    b->side ^= 1;
    bool threat = xq_mate_by_checks(b, XQ_THREAT_MOVES);
    b->side ^= 1;
    return threat;
}

void xq_label_move_as(const xq_board *before, xq_move m, int rules, xq_move_label *out)
{
    memset(out, 0, sizeof *out);
    out->check = xq_gives_check(before, m);
    /* The tables' rule sets let a check take precedence; the arbiters'
     * count what a checking move chases too, which is what makes one
     * check, one chase (一将一捉) a perpetual chase of one piece. */
    if (out->check && rules < XQ_RULES_ASIAN) return;
    /* A move no piece could chase by needs no board to play it on, unless
     * a mate threat is asked for (cxa). */
    bool made_real = rules >= XQ_RULES_ASIAN;
    uint8_t prey[16];
    int nprey = prey_of(before, before->side ^ 1, move_to(m), prey);
    bool chases = nprey > 0 && chase_possible(before, move_from(m), move_to(m), made_real, prey, nprey);
    if (!chases && (rules != XQ_RULES_CXA || out->check)) return;
    xq_board b = *before;
    xq_undo u;
    xq_make_move(&b, m, &u);
    if (chases) find_chases(before, &b, move_from(m), move_to(m), made_real, prey, nprey, out);
    if (rules == XQ_RULES_CXA && !out->check) out->threat = threatens_mate(&b);
}

bool xq_move_checks_or_chases(const xq_board *before, xq_move m)
{
    if (xq_gives_check(before, m)) return true;
    uint8_t prey[16];
    int nprey = prey_of(before, before->side ^ 1, move_to(m), prey);
    if (nprey == 0 || !chase_possible(before, move_from(m), move_to(m), true, prey, nprey)) return false;
    xq_board b = *before;
    xq_undo u;
    xq_make_move(&b, m, &u);
    xq_move_label label = {0};
    find_chases(before, &b, move_from(m), move_to(m), true, prey, nprey, &label);
    return label.nchased > 0;
}

bool xq_threat_after(xq_board *after) { return threatens_mate(after); }

void xq_label_move(const xq_board *before, xq_move m, xq_move_label *out)
{
    xq_label_move_as(before, m, XQ_RULES_FULL, out);
}
