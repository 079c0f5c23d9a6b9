/*
 * repetition_escape.c - where side w cannot win by a ruling, found without the
 * game graph, so that the graph is built only where it can matter.
 *
 * Let L be the other side.  Under the condition of repetition.c, w wins an
 * infinite play only if, from some point on, L never makes an idle move
 * (a non-checking move that chases nothing resets L's chase: priority 3).
 * So w cannot win wherever L can make idle moves infinitely often, or
 * leave the drawn region by a capture it does not lose, whatever w does:
 * L's winning region W_L of the Buchi game whose target is "an idle move",
 *   W_L = nu Z. Attr_L(T(Z)),
 *   T(Z) = L positions with an idle move into Z, or a capture into a draw
 * (the classical fixed point for Buchi games; Thomas, "On the synthesis of
 * strategies in infinite games", STACS 1995).  Only on its complement C is
 * the graph built; W_L's positions become draws (exits) of the graph.
 * Collapsing a region w cannot win from into draw exits changes neither
 * where w wins nor the orders (repetition.c's fixed points never keep such
 * a position).
 *
 * C is computed from the inside, where the work is: each round adds to C
 * w's trap away from T(Z), Z being the complement of C so far,
 *   X = nu X. {w positions with a move into C u X, or a capture into a win}
 *          u {L positions outside T(Z) all of whose moves go into C u X
 *             and none of whose captures L survives},
 * found by removal among its only possible members: the L positions
 * without an idle move into Z (kept in a list as they lose their last one)
 * and the w positions that move to them.  C grows round by round until a
 * round adds nothing; every round's trap contains the last (its target is
 * smaller), so a round looks only at what is new.  Each L position keeps
 * one idle move into Z as a witness, looked for again only when that move
 * joins C.
 *
 * The rounds run on every thread, and each looks again only at what the
 * last one may have changed (round_trap): KRPKR's escapes, both winners,
 * take 8.6 s where rounds on one thread looking at every possible member
 * in every round took 29 s (2026-11-25).  Each step takes its list of
 * positions sorted (rg_sort_ids, in the lists' free part), so that a
 * position's entry and board follow from the last one's as in a scan,
 * where taken in the order they were found each cost a search of the
 * ranks and a whole decode: KRPKR's escapes 10.4-12.2 -> 6.9-7.0 s,
 * KRNKR's 17.1-19.6 -> 11.8 s (2026-11-29, a slow hour).  Until 2026-11-29 W_L was found
 * only where L cannot check, and elsewhere the graph was built outside
 * the safety region S (the positions where L can idle on *every* move,
 * found by one removal), with L's attractor to S taken out, a larger but
 * sound place.
 * W_L leaves much less: KRCKR's graph 223 -> 64 million edges, KCCKN's
 * 146 -> 1.0 million (docs/BENCHMARKS.md, "W_L everywhere"); S alone
 * left KRAABBKAABB (one attacker against full defence) 47 million of its
 * 51 million drawn positions, a graph of 542 million edges in which w won
 * nothing, and W_L none.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cell.h"
#include "labels.h"
#include "movegen.h"
#include "parallel.h"
#include "repetition_graph.h"
#include "unmove.h"

/* What find_escape returns beside a position id: no escape, or an escape
 * by a capture (uint32_t, so not enum constants). */
#define WITNESS_NONE ((uint32_t)0xFFFFFFFFu)
#define WITNESS_EXIT ((uint32_t)0xFFFFFFFEu)

/* What a position keeps of its witness, a byte (g->witness): no escape
 * (MARK_NONE; for a w position, a capture into a win), an escape that
 * lasts (MARK_EXIT: a capture L survives; for a w position, none into a
 * win), or else a fingerprint of the position the witness leads to.  The
 * fingerprint only has to tell the rounds which witnesses may have just
 * joined C: a position whose witness's fingerprint matches a w member of
 * the round's region looks again from its witness's place
 * (next_witness_chunk), which finds the same witness when the match was
 * another position's (about one match in MARK_PRINTS) or the member did
 * not join C.  Keeping the position itself took four bytes a drawn
 * position where this takes one (KNAABBKR has 37 million). */
enum { MARK_PRINTS = 253, MARK_EXIT = 254, MARK_NONE = 255 };

static inline uint8_t fingerprint(uint32_t q) { return (uint8_t)(((uint64_t)(q * 0x9E3779B1u) * MARK_PRINTS) >> 32); }

/* The mark of what find_escape returned. */
static inline uint8_t witness_mark(uint32_t x)
{
    return x == WITNESS_NONE ? MARK_NONE : x == WITNESS_EXIT ? MARK_EXIT : fingerprint(x);
}

/* Whether drawn position p is in C, the positions the graph is built on
 * (g->inside), and its entry into C. */
static inline int in_c(const rgraph *g, uint32_t p) { return (int)(g->inside[p >> 6] >> (p & 63) & 1); }

/* True if quiet move m of the side to move in b, into drawn position q,
 * is idle under the mode. */
static int idle_move(const rgraph *g, const xq_board *b, xq_move m, uint32_t q)
{
    if (g->mode == MODE_FULL || g->mode == MODE_ASIAN) { /* a check is never idle: its chases do not matter */
        xq_move_label label;
        xq_label_move(b, m, &label);
        return !label.check && label.nchased == 0;
    }
    if (g->mode == MODE_ATTACK) return !rg_move_attacks(g, b, m, q);
    return !xq_gives_check(b, m);
}

/* The position of entry j with `side` to move if it is drawn, else
 * WITNESS_NONE. */
static uint32_t position_of(const rgraph *g, int side, uint64_t j)
{
    return j == XQ_INDEX_NONE ? WITNESS_NONE : rg_drawn_id(g, side, j); /* NODE_NONE is WITNESS_NONE */
}

/* The drawn position quiet move m of b (the entry at site) reaches, with
 * the other side to move; WITNESS_NONE if it is illegal or not drawn (a
 * loss for the mover: no move from a draw wins). */
static uint32_t reached(const rgraph *g, xq_board *b, const xq_index_site *site, xq_move m)
{
    return position_of(g, b->side ^ 1, xq_index_after_site_move(&g->t->ix, site, b, m));
}

/* What find_escape keeps of a position, a byte: the place of its witness
 * in the moves it looks through. */
enum { AT_PLACE = 0xFF };
_Static_assert(XQ_MAX_MOVES <= AT_PLACE + 1, "a place fits in a byte");

/* An escape of position p (L to move, board b = the entry at site as
 * decoded) still in Z, or WITNESS_NONE.  Moves are pseudo-legal; an
 * illegal one reaches a position marked illegal and is skipped, and the
 * labels are computed only for moves that stay in Z.
 *
 * The first `skip` moves (in the order generated here) are not looked at;
 * *at gets the place of the escape found.  While Z only shrinks, a move
 * passed over once stays passed over (a capture's exit, a position not
 * drawn, out of Z, a move that is not idle: none of these changes), so
 * the search for a new witness may start at the old one: the same
 * witness a search from the first move finds (KCKPP's escapes 14.20 G ->
 * 13.73 G instructions, for a byte a position).  So every move of a
 * position is looked at once at most.
 *
 * With `was_witness`, the move at place `skip` is the old witness: found
 * idle before, and idleness is the move's own (its labels depend on the
 * board and the move, not on Z), so if it still leads into Z it is the
 * witness again without its labels worked out.  Most positions the rounds
 * send back here keep their witness (their print matched a position that
 * did not join C, or another position's print), and the labels (checks,
 * chases) are most of what looking at a move costs. */
static uint32_t find_escape(const rgraph *g, xq_board *b, const xq_index_site *site, unsigned skip, int was_witness,
                            uint8_t *at)
{
    const tb_table *t = g->t;
    xq_move list[XQ_MAX_MOVES];
    unsigned seen = 0;
    uint32_t found = WITNESS_NONE;
    /* a piece at a time: most positions escape by the first piece's moves */
    for (xq_mask pieces = b->occ[b->side]; pieces && found == WITNESS_NONE;) {
        int n = xq_gen_piece(b, mask_pop_lsb(&pieces), list);
        if (seen + (unsigned)n <= skip) {
            seen += (unsigned)n;
            continue;
        }
        int k = seen < skip ? (int)(skip - seen) : 0;
        for (seen += (unsigned)k; k < n; k++, seen++) {
            if (b->sq[move_to(list[k])]) {
                xq_undo u;
                xq_make_move(b, list[k], &u);
                uint32_t x = rg_capture_exit(t, u.captured, b);
                xq_unmake_move(b, list[k], &u);
                if (x == NODE_NONE || rg_exit_mover_loses(x, g->mode) || rg_exit_mover_wins(x, g->mode)) continue;
                found = WITNESS_EXIT;
                break;
            }
            uint32_t q = reached(g, b, site, list[k]);
            if (q == WITNESS_NONE || in_c(g, q)) continue; /* not drawn, or out of Z */
            if ((was_witness && seen == skip) || idle_move(g, b, list[k], q)) {
                found = q;
                break;
            }
        }
    }
    *at = (uint8_t)seen;
    return found;
}

/* True if w, to move in b, has a capture into a position L loses. */
static int has_winning_exit(const rgraph *g, xq_board *b)
{
    xq_move list[XQ_MAX_MOVES];
    int n = xq_gen_pseudo(b, list);
    for (int k = 0; k < n; k++) {
        if (!b->sq[move_to(list[k])]) continue;
        xq_undo u;
        xq_make_move(b, list[k], &u);
        uint32_t x = rg_capture_exit(g->t, u.captured, b);
        xq_unmake_move(b, list[k], &u);
        if (x != NODE_NONE && rg_exit_mover_wins(x, g->mode)) return 1;
    }
    return 0;
}

/* A decode that starts from the last when positions come in increasing
 * order (the rounds sort their lists): the rank look-up scans forward
 * from the last position's word and the decode moves only what changed,
 * where a position taken at random costs a search of the ranks and a
 * whole decode. */
typedef struct {
    rg_hint hint;
    xq_board b;
    xq_index_site site;
} decoder;

static void decoder_clear(decoder *d)
{
    memset(&d->hint, 0, sizeof d->hint);
    xq_index_site_clear(&d->site);
}

static void decode_in_order(const rgraph *g, decoder *d, uint32_t p)
{
    rg_decode_next(g, &d->hint, p, &d->b, &d->site);
}

/* The first examination of every position, in parallel: an L position's
 * witness (an idle move into the drawn region, WITNESS_EXIT, or
 * WITNESS_NONE); a w position's WITNESS_NONE if it has a capture into a
 * win, else WITNESS_EXIT.  Each writes only its own witness and reads
 * nothing another thread writes (Z is still whole: inside is not
 * touched), so the result does not depend on the threads. */
static void first_pass(void *arg, uint64_t begin, uint64_t end, int thread)
{
    (void)thread;
    rgraph *g = arg;
    xq_board b;
    xq_index_site site;
    xq_index_site_clear(&site);
    rg_hint hint = {0};
    for (uint64_t p = begin; p < end; p++) {
        if (rg_pos_side(g, (uint32_t)p) == g->w && !g->sub_ruled) {
            g->witness[p] = MARK_EXIT;
            continue;
        }
        rg_decode_next(g, &hint, (uint32_t)p, &b, &site); /* positions in entry order */
        if (b.side == g->w)
            g->witness[p] = has_winning_exit(g, &b) ? MARK_NONE : MARK_EXIT;
        else {
            g->witness_at[p] = 0;
            g->witness[p] = witness_mark(find_escape(g, &b, &site, 0, 0, &g->witness_at[p]));
        }
    }
}

/* ---- W_L, by rounds ----------------------------------------------------------
 * Each step of a round runs on every thread.  A position's state (RS_*) is
 * one byte, changed by one compare-and-swap where two threads may reach
 * it; a step reads only states the step before it wrote (or, in the
 * removal's examination, states that mean "inside" before and after its
 * change), so every round finds the same trap for any thread count and
 * order: a greatest fixed point, found by removal, does not depend on the
 * order of removal.  The lists (the region, the removal's layers, the
 * seeds of the next round) are filled in no fixed order, which changes
 * nothing but the order of the same work. */

/* What the rounds know of a position not in C: never a possible member
 * of a trap (RS_NONE), a member of this round's region still in its trap
 * (RS_IN; RS_RECHECK while the removal looks at it again, inside all the
 * same), or a possible member L was found to force out of a trap
 * (RS_OUT).  A position leaves RS_OUT only by joining a later round's
 * region. */
enum { RS_NONE = 0, RS_IN = 1, RS_OUT = 2, RS_RECHECK = 3 };

/* The state of the rounds: two lists of at most one entry a position,
 * which trade places from round to round. */
typedef struct {
    rgraph *g;
    uint8_t *state;   /* per position: RS_* */
    uint32_t *region; /* this round's region: its possible members */
    uint32_t *other;  /* the removal's layers, then the next round's seeds */
    uint64_t *rewit;  /* per position, a bit: L positions whose witness may lead to a w member
                       * of this round's region (widen_region), to look for another witness if
                       * it does not lead into Z any more */
    uint64_t lo, hi;  /* the layer being worked through, in region or other */
    uint64_t n;       /* entries of the list being appended to, taken atomically */
    int again;        /* the removal's examination is of members looked at before (stays) */
    int64_t added[PAR_MAX_THREADS];
} trap;

static inline uint8_t state_of(const trap *k, uint32_t p) { return __atomic_load_n(&k->state[p], __ATOMIC_RELAXED); }
static inline void set_state(trap *k, uint32_t p, uint8_t s) { __atomic_store_n(&k->state[p], s, __ATOMIC_RELAXED); }
static inline int in_trap(const trap *k, uint32_t p)
{
    uint8_t s = state_of(k, p);
    return s == RS_IN || s == RS_RECHECK;
}

/* What one thread's walk over predecessors needs, and the positions it
 * appends to `list`, gathered a few at a time: one atomic add for each
 * batch instead of one for each position, on a counter both threads would
 * otherwise pass between their caches at every append. */
enum { APPEND_BATCH = 64 };

typedef struct {
    trap *k;
    uint32_t *list;
    int side;      /* side to move in the predecessors being visited */
    uint32_t from; /* the position whose predecessors are visited */
    uint8_t print; /* its fingerprint */
    int n;
    uint32_t batch[APPEND_BATCH];
    decoder d; /* the last position decoded */
} walk;

static void walk_flush(walk *a)
{
    uint64_t at = __atomic_fetch_add(&a->k->n, (uint64_t)a->n, __ATOMIC_RELAXED);
    memcpy(a->list + at, a->batch, (size_t)a->n * sizeof a->batch[0]);
    a->n = 0;
}

static void walk_append(walk *a, uint32_t q)
{
    a->batch[a->n++] = q;
    if (a->n == APPEND_BATCH) walk_flush(a);
}

/* Appends q if its state was `from`, now `to`; one thread wins. */
static void walk_claim(walk *a, uint32_t q, uint8_t from, uint8_t to)
{
    if (__atomic_compare_exchange_n(&a->k->state[q], &from, to, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        walk_append(a, q);
}

static void walk_predecessors(walk *a, uint32_t p, void (*fn)(void *, uint64_t))
{
    decoder *d = &a->d;
    decode_in_order(a->k->g, d, p);
    a->side = d->b.side ^ 1;
    a->from = p;
    a->print = fingerprint(p);
    xq_for_each_predecessor(&a->k->g->t->ix, &d->site, &d->b, fn, a);
}

/* A predecessor of a region member that may have to be looked at again:
 * one forced out of an earlier trap through the member, or a w position
 * not yet a possible member (a predecessor of a new L member).
 *
 * An L position forced out keeps in its witness byte (free: it has no
 * witness left) the fingerprint of the position its move out led to
 * (stays), and only a region member with that print brings it back: it
 * can stay in a trap only if that very position is in C or the trap now,
 * which needs the position to be in this round's region (a match of
 * another position's print only costs it a look).  A w position forced
 * out comes back with any of its successors, as each might take it in.
 * Bringing back every L position with a move into the region made
 * KRCKR's regions sum to 18.6 million positions, where 15.6 million do
 * with the print, and its escapes 11.2 s -> 9.2 s (2026-12-01).
 *
 * An L predecessor whose witness's fingerprint is the member's is also
 * noted (rewit): if the member joins C, that witness may lead out of Z,
 * and the position must look for another (round_trap).  Noting it here,
 * on the walk the region makes anyway, spares a second walk over the
 * predecessors of every w position that joins C; those noted whose
 * witness did not join C find it again where it was (next_witness_chunk
 * starts at the old witness), so what the rounds find is unchanged. */
static void widen_region(void *arg, uint64_t j)
{
    walk *a = arg;
    trap *k = a->k;
    rgraph *g = k->g;
    uint32_t q = position_of(g, a->side, j);
    if (q == WITNESS_NONE || in_c(g, q)) return;
    uint8_t s = state_of(k, q);
    if (a->side == g->w) {
        if (s == RS_OUT || s == RS_NONE) walk_claim(a, q, s, RS_IN);
        return;
    }
    /* an L position with a witness is no possible member (RS_NONE); the
     * byte of one in this round's region (RS_IN, RS_RECHECK) is no witness */
    if (g->witness[q] != a->print) return;
    if (s == RS_OUT) { /* forced out by its move to this member: it may stay now */
        walk_claim(a, q, s, RS_IN);
        return;
    }
    if (s != RS_NONE) return;
    uint64_t bit = (uint64_t)1 << (q & 63);
    if (!(__atomic_load_n(&k->rewit[q >> 6], __ATOMIC_RELAXED) & bit))
        __atomic_fetch_or(&k->rewit[q >> 6], bit, __ATOMIC_RELAXED);
}

static void widen_chunk(void *arg, uint64_t begin, uint64_t end, int thread)
{
    (void)thread;
    trap *k = arg;
    walk a = {.k = k, .list = k->region};
    decoder_clear(&a.d);
    for (uint64_t i = k->lo + begin; i < k->lo + end; i++) walk_predecessors(&a, k->region[i], widen_region);
    if (a.n) walk_flush(&a);
}

/* Whether move m of L, to move in d's board, leaves the trap X this
 * round: a capture L survives, or a quiet move into a drawn position in
 * neither C nor the trap.  Every move made on the board is taken back. */
static int leaves(const trap *k, decoder *d, xq_move m, uint32_t *to)
{
    const rgraph *g = k->g;
    xq_board *b = &d->b;
    if (b->sq[move_to(m)]) {
        xq_undo u;
        xq_make_move(b, m, &u);
        uint32_t x = rg_capture_exit(g->t, u.captured, b);
        xq_unmake_move(b, m, &u);
        *to = WITNESS_EXIT;
        return x != NODE_NONE && !rg_exit_mover_loses(x, g->mode);
    }
    uint32_t q = reached(g, b, &d->site, m);
    *to = q;
    return q != WITNESS_NONE && !in_c(g, q) && !in_trap(k, q);
}

/* Whether move m of w, to move in d's board, leads into C or the trap
 * (w's captures count only as a capture into a win, which stays finds
 * from the witness byte). */
static int enters(const trap *k, decoder *d, xq_move m)
{
    const rgraph *g = k->g;
    xq_board *b = &d->b;
    if (b->sq[move_to(m)]) return 0;
    uint32_t q = reached(g, b, &d->site, m);
    return q != WITNESS_NONE && (in_c(g, q) || in_trap(k, q));
}

/* Whether p may stay in the trap X: see the header.  `again` is set when
 * the round's removal looks at p a second time or later.
 *
 * A w member keeps in its witness_at byte (free: only L positions'
 * witnesses have a place) the place of the move into C or the trap it
 * stayed by; an L member that does not stay keeps in its witness byte the
 * print of where it left to (widen_region).
 * Within a round's removal C is fixed and the trap only shrinks, so a move
 * that did not lead into either at one look does not at a later one: a
 * look again starts at that place.  (The same for L, the place of the move
 * it left by looked at first when it is a member again, cost more than it
 * saved: KCKPP's escapes 7.78 G -> 7.83 G instructions.) */
static int stays(const trap *k, decoder *d, uint32_t p, int again)
{
    const rgraph *g = k->g;
    int mine = rg_pos_side(g, p) == g->w;
    if (mine && g->witness[p] == MARK_NONE) return 1; /* a capture into a win */
    decode_in_order(g, d, p);
    xq_move list[XQ_MAX_MOVES];
    int n = xq_gen_pseudo(&d->b, list);
    uint8_t *at = &g->witness_at[p];
    if (mine) {
        for (int i = again ? *at : 0; i < n; i++)
            if (enters(k, d, list[i])) {
                *at = (uint8_t)i;
                return 1;
            }
        return 0;
    }
    for (int i = 0; i < n; i++) {
        uint32_t q;
        if (leaves(k, d, list[i], &q)) {
            g->witness[p] = witness_mark(q);
            return 0;
        }
    }
    return 1;
}

/* The removal's examination of other[lo, n): those that stay go back to
 * RS_IN and leave the list (WITNESS_NONE in their slot). */
static void examine_chunk(void *arg, uint64_t begin, uint64_t end, int thread)
{
    (void)thread;
    trap *k = arg;
    decoder d;
    decoder_clear(&d);
    for (uint64_t i = k->lo + begin; i < k->lo + end; i++) {
        uint32_t p = k->other[i];
        if (!stays(k, &d, p, k->again)) continue;
        set_state(k, p, RS_IN);
        k->other[i] = WITNESS_NONE;
    }
}

/* A predecessor in the trap of a position just removed: look again. */
static void recheck_member(void *arg, uint64_t j)
{
    walk *a = arg;
    uint32_t q = position_of(a->k->g, a->side, j);
    if (q != WITNESS_NONE) walk_claim(a, q, RS_IN, RS_RECHECK);
}

static void recheck_chunk(void *arg, uint64_t begin, uint64_t end, int thread)
{
    (void)thread;
    trap *k = arg;
    walk a = {.k = k, .list = k->other};
    decoder_clear(&a.d);
    for (uint64_t i = k->lo + begin; i < k->lo + end; i++) walk_predecessors(&a, k->other[i], recheck_member);
    if (a.n) walk_flush(&a);
}

/* Moves the examined other[from, n) that did not stay to other[from...)
 * as RS_OUT; returns where they end. */
static uint64_t remove_examined(trap *k, uint64_t from)
{
    uint64_t to = from;
    for (uint64_t i = from; i < k->n; i++) {
        uint32_t p = k->other[i];
        if (p == WITNESS_NONE) continue;
        set_state(k, p, RS_OUT);
        k->other[to++] = p;
    }
    return to;
}

/* The greatest fixed point within the region, by removal a layer at a
 * time: every member examined once, then the members of the trap that
 * move to a position just removed, again and again. */
static void remove_escapes(trap *k, uint64_t nregion)
{
    uint64_t npos = k->g->npos, spare = npos - nregion; /* the region list's free tail, scratch for sorts */
    rg_sort_ids(k->region, nregion, k->other, npos);
    memcpy(k->other, k->region, nregion * sizeof *k->other);
    k->lo = 0;
    k->n = nregion;
    k->again = 0;
    par_for(k->g->threads, nregion, 1 << 8, examine_chunk, k);
    k->again = 1;
    k->hi = remove_examined(k, 0);
    while (k->lo < k->hi) {
        k->n = k->hi;
        if (k->hi - k->lo <= spare) rg_sort_ids(k->other + k->lo, k->hi - k->lo, k->region + nregion, npos);
        par_for(k->g->threads, k->hi - k->lo, 1 << 8, recheck_chunk, k);
        k->lo = k->hi;
        if (k->n - k->hi <= spare) rg_sort_ids(k->other + k->hi, k->n - k->hi, k->region + nregion, npos);
        par_for(k->g->threads, k->n - k->hi, 1 << 8, examine_chunk, k);
        k->hi = remove_examined(k, k->hi);
    }
}

/* What stayed joins C. */
static void join_chunk(void *arg, uint64_t begin, uint64_t end, int thread)
{
    trap *k = arg;
    rgraph *g = k->g;
    for (uint64_t i = begin; i < end; i++) {
        uint32_t p = k->region[i];
        if (state_of(k, p) != RS_IN) continue;
        set_state(k, p, RS_NONE);
        __atomic_fetch_or(&g->inside[p >> 6], (uint64_t)1 << (p & 63), __ATOMIC_RELAXED); /* in C: w might win */
        k->added[thread]++;
    }
}

/* Lists, in order, the positions widen_region noted that are still in Z
 * (those of this round's trap are in C now, and need no witness), and
 * clears the notes: one thread, a word at a time, over a bit a position. */
static uint64_t list_noted(trap *k)
{
    const rgraph *g = k->g;
    uint64_t n = 0;
    for (uint64_t w = 0; w < g->npos / 64 + 1; w++) {
        uint64_t bits = k->rewit[w] & ~g->inside[w];
        k->rewit[w] = 0;
        for (; bits; bits &= bits - 1) k->other[n++] = (uint32_t)(w << 6 | (uint64_t)__builtin_ctzll(bits));
    }
    return n;
}

/* The listed positions look for their next witness, in order; those that
 * find one leave the list (WITNESS_NONE in their slot), the others seed
 * the next round. */
static void next_witness_chunk(void *arg, uint64_t begin, uint64_t end, int thread)
{
    (void)thread;
    trap *k = arg;
    rgraph *g = k->g;
    decoder d;
    decoder_clear(&d);
    for (uint64_t i = begin; i < end; i++) {
        uint32_t q = k->other[i];
        decode_in_order(g, &d, q);
        /* from the old witness's place: it leads into C now, or (a match of
         * another position's fingerprint) it is found again */
        uint32_t x = find_escape(g, &d.b, &d.site, g->witness_at[q] & AT_PLACE, 1, &g->witness_at[q]);
        g->witness[q] = witness_mark(x);
        if (x != WITNESS_NONE) k->other[i] = WITNESS_NONE;
    }
}

/* One round: the trap X among the possible members, added to C; the
 * round's seeds are other[0, nseeds).  Returns how many positions it
 * added, and leaves the next round's seeds in other[0, *nseeds).
 *
 * A round looks again only at what the last one may have changed.  The
 * possible members new to this round (L positions that lost their last
 * idle move into Z, and w positions moving to them) are its region's
 * seed; a position an earlier round forced out of its trap joins the
 * region if it has a move into the region (an L position, only by the
 * move it was forced out by: widen_region).  Every other position forced
 * out stays out: the reasons it was removed for (a move of L's to a
 * position that was no possible member, or forced out before it; a w
 * position's every move to such positions) involve no position that has
 * changed since, as C grew only by the last trap, which no position forced
 * out moves into.  So the trap found in the region is the trap among all
 * possible members (KRKNN: 27 rounds of about 700,000 possible members
 * each, of which each round adds 6 to 58,000 to C). */
static int64_t round_trap(trap *k, uint64_t *nseeds)
{
    rgraph *g = k->g;
    uint32_t *seeds = k->other;
    k->other = k->region;
    k->region = seeds;
    k->n = 0;
    for (uint64_t i = 0; i < *nseeds; i++) {
        uint32_t p = seeds[i];
        if (!in_c(g, p) && state_of(k, p) != RS_IN) {
            set_state(k, p, RS_IN);
            k->region[k->n++] = p;
        }
    }
    for (k->lo = 0; k->lo < k->n;) { /* the region, a layer of predecessors at a time */
        k->hi = k->n;
        rg_sort_ids(k->region + k->lo, k->hi - k->lo, k->other, g->npos);
        par_for(g->threads, k->hi - k->lo, 1 << 8, widen_chunk, k);
        k->lo = k->hi;
    }
    uint64_t nregion = k->n;
    remove_escapes(k, nregion);
    memset(k->added, 0, sizeof k->added);
    par_for(g->threads, nregion, 1 << 12, join_chunk, k);
    uint64_t listed = list_noted(k), seeds_n = 0;
    par_for(g->threads, listed, 1 << 8, next_witness_chunk, k);
    for (uint64_t i = 0; i < listed; i++)
        if (k->other[i] != WITNESS_NONE) k->other[seeds_n++] = k->other[i];
    *nseeds = seeds_n;
    int64_t added = 0;
    for (int i = 0; i < PAR_MAX_THREADS; i++) added += k->added[i];
    return added;
}

/* The complement C of W_L, by rounds (see the header); the witnesses come
 * from first_pass, and the first round's seeds are the positions without
 * one. */
static int64_t buchi_complement(rgraph *g)
{
    uint64_t n = g->npos ? g->npos : 1, words = g->npos / 64 + 1;
    uint64_t bytes = n * (1 + 2 * sizeof(uint32_t)) + words * sizeof(uint64_t);
    if (rg_charge(g, bytes)) return -1;
    trap k = {.g = g,
              .state = calloc(n, 1),
              .region = malloc(n * sizeof(uint32_t)),
              .other = malloc(n * sizeof(uint32_t)),
              .rewit = calloc(words, sizeof(uint64_t))};
    int64_t total = -1;
    if (!k.state || !k.region || !k.other || !k.rewit) {
        snprintf(g->err, XQ_ERR_MAX, "out of memory for the repetition rulings");
        goto out;
    }
    uint64_t nseeds = 0;
    for (uint64_t p = 0; p < g->npos; p++)
        if (g->witness[p] == MARK_NONE) k.other[nseeds++] = (uint32_t)p;
    total = 0;
    for (int64_t added; (added = round_trap(&k, &nseeds)) != 0;) total += added;
out:
    free(k.state);
    free(k.region);
    free(k.other);
    free(k.rewit);
    g->bytes -= bytes;
    return total;
}

/* The witnesses live only while the escapes are found: the graph built
 * next, and its solve, the peak of the rulings' memory, do without them. */
int64_t rg_escapes(rgraph *g)
{
    uint64_t n = g->npos ? g->npos : 1, bytes = 2 * n, words = g->npos / 64 + 1;
    if (rg_charge(g, bytes)) return -1;
    g->witness = malloc(n);
    g->witness_at = malloc(n);
    if (!g->witness || !g->witness_at) {
        free(g->witness);
        free(g->witness_at);
        g->witness = NULL;
        g->witness_at = NULL;
        g->bytes -= bytes;
        snprintf(g->err, XQ_ERR_MAX, "out of memory for the repetition rulings");
        return -1;
    }
    memset(g->inside, 0, words * sizeof *g->inside); /* nothing taken out yet */
    par_for(g->threads, g->npos, 1 << 12, first_pass, g);
    int64_t left = buchi_complement(g);
    free(g->witness);
    free(g->witness_at);
    g->witness = NULL;
    g->witness_at = NULL;
    g->bytes -= bytes;
    rg_rank_bits(g->inside, words, g->inside_rank, 0);
    return left;
}
