/*
 * ref_repetition.c - the reference solver of ref_repetition.h.
 *
 * ---- The condition ------------------------------------------------------
 * Moves inside one material are labelled (ref_labels.h) check, chase of a
 * set C of enemy pieces, or idle.  For a side S and an infinite play:
 *   Pcheck(S): from some point on every move of S is a check;
 *   Pchase(S): from some point on every move of S is a non-check chase and
 *              one enemy piece t (followed through its moves) is in every
 *              chase set.
 * S loses if Pcheck(S) and not Pcheck(O); otherwise (neither checks
 * perpetually) if Pchase(S) and not Pchase(O); everything else is a draw.
 * So P wins an infinite play iff
 *     not Pcheck(P) and (Pcheck(O) or (Pchase(O) and not Pchase(P)))   (*)
 * (Pchase(O) excludes Pcheck(O): chases are non-check moves.)
 *
 * ---- Memory that makes it a parity condition ---------------------------
 * Per side S the product keeps:
 *   M[S]     the enemy pieces S has chased on every move since its last
 *            "break" (as a bit set over the enemy's non-king pieces in
 *            square order, remapped when the enemy moves one of them);
 *   last[S]  the class of S's last move: c (check), k (chase that keeps a
 *            target), or u after a move of class x (see below);
 * and, for the move that entered the vertex, a flag sw (it switched its
 * side's class between c and k).
 * A move of S with label (check, C) has class
 *   c  if it checks;                      M[S] := {}
 *   x  if it is idle;                     M[S] := {}
 *   k  if it chases and M[S] = {} or M[S] & C != {};  M[S] := M[S] & C, or C
 *   x  if it chases but M[S] & C = {} (a break);      M[S] := C
 * Claim 1: Pchase(S) iff S makes finitely many moves of class c or x.
 *   If finitely many, after the last one every move chases and M[S] is the
 *   running intersection of the chase sets, never empty; a decreasing
 *   sequence of non-empty finite sets has a non-empty limit, a piece in
 *   every chase set.  Conversely if from T on every move chases t, at most
 *   one break happens after T (after it, t stays in M[S]).
 * Claim 2: Pcheck(S) iff S makes finitely many moves of class k or x.
 * last[S] is reset to u by a class-x move, so if S's class-x moves are
 * finite, S's class alternates between c and k infinitely often iff sw is
 * seen infinitely often on S's moves.
 *
 * ---- Priorities (max-parity; even = P, the player whose win is asked) ---
 *   move of O: 3 if its class is x or it switched (sw), else 0;
 *   move of P: 2 if "good", else 1, where good depends on last[O] (which
 *              P's move does not change): last[O] = c: P's move is not a
 *              check; last[O] = k: P's move has class x or switched;
 *              last[O] = u: never.
 * Proof that the highest priority seen infinitely often is even iff (*):
 *   - O's class-x moves or switches infinitely often (priority 3 wins for
 *     O): then O makes infinitely many non-check moves (x, or k among the
 *     switches) and infinitely many c/x moves, so neither Pcheck(O) nor
 *     Pchase(O) (claims 1, 2): (*) is false.
 *   - Otherwise last[O] is eventually constant, c (Pcheck(O)) or k
 *     (Pchase(O)), and P moves infinitely often, so the answer is whether
 *     P's good moves are infinitely many.  With last[O] = c: good = non-check,
 *     infinitely many iff not Pcheck(P), which is (*).  With last[O] = k:
 *     class x or switch infinitely often iff P makes infinitely many
 *     non-check moves and infinitely many c/x moves, i.e. not Pcheck(P)
 *     and not Pchase(P) (claims 1, 2), which is (*).
 * The priority of a move is written on the product vertex it enters (the
 * vertex keeps the mover's new last[] and sw, which is all it needs).
 * Under rules check, chase sets are taken empty (every non-check move is
 * class x), and (*) becomes not Pcheck(P) and Pcheck(O).  Under rules none
 * every vertex gets priority 1: no infinite play is won.
 *
 * ---- Rule set asian: checks that chase ----------------------------------
 * Under asian a checking move also carries a chase set (ref_labels.h), so a
 * move can both check and keep the chase: class b.  The classes become
 *   b  if it checks and keeps (C != {} and M[S] = {} or M[S] & C != {});
 *   c  if it checks and does not keep;          M[S] := C (often {})
 *   k  if it does not check and keeps;          M[S] := M[S] & C, or C
 *   x  if neither;                              M[S] := C
 * (b and k: M[S] := M[S] & C, or C when M[S] was empty).  Claim 1 now reads
 * Pchase(S) iff finitely many c or x (same proof: after the last one every
 * move keeps); claim 2, Pcheck(S) iff finitely many k or x.  (*) is
 * unchanged, but Pcheck(O) and Pchase(O) may now both hold (O checks and
 * chases one piece on every move), and O alternating b with k is Pchase
 * alone: P's reply after O's b cannot be judged from O's last move.  So
 * last[S] keeps S's last class other than b (b leaves it alone; x makes it
 * u), sw flags a move of class c or k whose class differs from last[S]
 * (not u), and the vertex also keeps the class of the move that entered
 * it.  Five priorities:
 *   move of O: 5 if class x or sw; 3 if class k; else 0;
 *   move of P: 4 if class x or sw; 2 if class k; else 1.
 * Proof, by the highest priority seen infinitely often:
 *   5: O makes infinitely many c-or-x and k-or-x moves (a switch between c
 *      and k means both): neither Pcheck(O) nor Pchase(O), (*) false.
 *   4: O's x and switches are finite, so O's last[] settles: on c (O moves
 *      b or c: Pcheck(O)), on k (b or k: Pchase(O)) or on u (only b: both).
 *      P's x or switches are infinite: neither Pcheck(P) nor Pchase(P).
 *      (*) true.
 *   3: O settles on k with infinitely many k: Pchase(O), not Pcheck(O).
 *      P's x and switches are finite, so Pcheck(P) or Pchase(P). (*) false.
 *   2: O's k finite, so O settles on c or u: Pcheck(O).  P makes
 *      infinitely many k: not Pcheck(P).  (*) true.
 *   1 or 0: P makes finitely many k and x: Pcheck(P).  (*) false.
 * Under full (no b moves) the same five priorities give the same answer;
 * solving full both ways and comparing is a check of this construction,
 * made whenever asian is solved.
 *
 * ---- Rule set cxa: perpetual attack -------------------------------------
 * Under cxa a move is an attack if it checks, threatens mate
 * (ref_threatens_mate) or chases any piece (checks' chases counted), and a
 * side that attacks on every move from some point on loses unless the
 * other does too.  No piece needs following, so this is rules check with
 * "attack" read for "check": the same product (chase sets empty) and
 * priorities.
 *
 * ---- Finite play ---------------------------------------------------------
 * Captures (and a side without legal moves, which loses) leave the product
 * through three sinks, red wins / black wins / draw, each a self-loop:
 * priority 2 for the sink of P's win, 1 for the others.  A capture's value
 * is the subtable's under the same rule set, solved first.
 *
 * ---- Restriction to the draws of rules none (default) ---------------------
 * A position won under rules none is won under any rule set: the winner's
 * strategy ends every play in finitely many moves, at a mate or a capture
 * into a subtable where (inductively) the same holds, so the repetition
 * clauses never apply.  Hence the product is built only over the positions
 * drawn under rules none; a move to a decided position is an exit to the
 * sink of its (rules none) value.  REF_RULES_FULL_GRAPH builds it over every
 * position instead and then checks the claim.
 *
 * ---- Solving -------------------------------------------------------------
 * For each position the product vertex with empty memory stands for the
 * position without history.  Zielonka's recursive algorithm (W. Zielonka,
 * "Infinite games on finitely coloured graphs", TCS 200, 1998) is run twice
 * on the same graph, once with red as P and once with black.  Red wins a
 * position if it is in red's winning region, loses if in black's, and draws
 * otherwise.  The winning condition does not depend on the initial memory
 * (both claims hold from any start), so every product vertex of a position
 * must be won by the same player; that is checked, as a test of the
 * construction.
 */
#include "ref_repetition.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fen.h"
#include "movegen.h"
#include "ref_labels.h"

enum { CLS_U = 0, CLS_C = 1, CLS_K = 2 }; /* last[] values */
enum { NO_INDEX = 15 };                   /* a king move: no piece index */

/* ---- Positions of one material as an explicit graph -------------------- */
typedef struct {
    uint32_t to;        /* target position id (an active position) */
    uint16_t chase;     /* chased enemy pieces, bits over their square order */
    uint16_t chase_all; /* the same, counting the chases of a checking move */
    uint8_t check;
    uint8_t attack; /* a check, a chase or a mate threat (rule set cxa; only when solved) */
    uint8_t idx;    /* moved piece's index before (high nibble) and after */
} qedge;

typedef struct {
    const ref_db *base;
    int n;
    uint8_t *side;
    int8_t *wdl[REF_RULES_NB]; /* per rule set solved */
    uint8_t *active;           /* in the product (see "Restriction") */
    /* quiet moves between active positions */
    uint32_t *qstart;
    qedge *q;
    /* fixed exits of active positions: bit (v + 1) for each value v (for
     * the mover) of a quiet move to an inactive position or of having no
     * legal move */
    uint8_t *fixed_exits;
    /* captures of active positions: (family index, position id) */
    uint32_t *cstart;
    uint32_t *cap_sub, *cap_id;
    int product_vertices[REF_RULES_NB];
} mat_graph;

struct ref_rules_db {
    ref_db *root;
    int rules;
    int nfam;
    mat_graph *fam; /* as ref_family_at */
};

/* Index of square sq among the non-king pieces of colour c, in square
 * order. */
static int piece_index(const xq_board *b, int c, int sq)
{
    xq_mask below = b->occ[c] & ((mask_of(sq)) - 1);
    int n = mask_count(below);
    if (b->king[c] < sq) n--;
    return n;
}

static int family_index(const ref_rules_db *db, const xq_material *m)
{
    for (int i = 0; i < db->nfam; i++)
        if (xq_material_equal(ref_material(db->fam[i].base), m)) return i;
    return -1;
}

static int push_u32(uint32_t **v, size_t *n, size_t *cap, uint32_t x)
{
    if (*n == *cap) {
        size_t c = *cap ? 2 * *cap : 1024;
        uint32_t *p = realloc(*v, c * sizeof *p);
        if (!p) return -1;
        *v = p;
        *cap = c;
    }
    (*v)[(*n)++] = x;
    return 0;
}

static int push_qedge(qedge **v, size_t *n, size_t *cap, qedge x)
{
    if (*n == *cap) {
        size_t c = *cap ? 2 * *cap : 1024;
        qedge *p = realloc(*v, c * sizeof *p);
        if (!p) return -1;
        *v = p;
        *cap = c;
    }
    (*v)[(*n)++] = x;
    return 0;
}

/* The quiet edge of move m from board b (before) to position `to`;
 * threats: label mate threats (a search per move, for rule set cxa). */
static qedge make_qedge(const xq_board *b, xq_move m, uint32_t to, bool threats)
{
    int us = b->side, from = move_from(m), dest = move_to(m);
    ref_label lab;
    ref_label_move_as(b, m, true, &lab);
    xq_board after = *b;
    xq_undo u;
    xq_make_move(&after, m, &u);
    qedge e = {.to = to, .check = lab.check};
    for (int i = 0; i < lab.nchased; i++) e.chase_all |= (uint16_t)(1u << piece_index(&after, us ^ 1, lab.chased[i]));
    e.chase = lab.check ? 0 : e.chase_all;
    e.attack = lab.check || lab.nchased > 0 || (threats && ref_threatens_mate(b, m));
    if (kind_of(b->sq[from]) == KING)
        e.idx = NO_INDEX << 4 | NO_INDEX;
    else
        e.idx = (uint8_t)(piece_index(b, us, from) << 4 | piece_index(&after, us, dest));
    return e;
}

static void report(const char *what, const xq_board *b)
{
    char fen[XQ_FEN_MAX];
    xq_fen_write(b, fen);
    fprintf(stderr, "ref_repetition: %s: %s\n", what, fen);
}

/* Builds the graph of family member f: moves, labels and exits. */
static int build_graph(ref_rules_db *db, int f, int flags)
{
    mat_graph *g = &db->fam[f];
    const xq_material *mat = ref_material(g->base);
    int n = g->n;
    size_t nq = 0, qcap = 0, nc = 0, ccap = 0, nc2 = 0, ccap2 = 0;
    g->side = malloc((size_t)n);
    g->active = malloc((size_t)n);
    g->fixed_exits = calloc((size_t)n, 1);
    g->qstart = malloc(((size_t)n + 1) * sizeof *g->qstart);
    g->cstart = malloc(((size_t)n + 1) * sizeof *g->cstart);
    if (!g->side || !g->active || !g->fixed_exits || !g->qstart || !g->cstart) return -1;
    for (int i = 0; i < n; i++) {
        xq_board b;
        ref_board(g->base, i, &b);
        g->side[i] = b.side;
        g->active[i] = (flags & REF_RULES_FULL_GRAPH) || g->wdl[XQ_RULES_NONE][i] == 0;
    }
    for (int i = 0; i < n; i++) {
        g->qstart[i] = (uint32_t)nq;
        g->cstart[i] = (uint32_t)nc;
        if (!g->active[i]) continue;
        xq_board b;
        xq_move list[XQ_MAX_MOVES];
        ref_board(g->base, i, &b);
        int nm = xq_gen_legal(&b, list);
        if (nm == 0) g->fixed_exits[i] |= 1 << 0; /* no legal move: lost */
        for (int j = 0; j < nm; j++) {
            xq_piece cap = b.sq[move_to(list[j])];
            xq_board after = b;
            xq_undo u;
            xq_make_move(&after, list[j], &u);
            if (cap != EMPTY) {
                xq_material sm = *mat;
                sm.count[colour_of(cap)][kind_of(cap)]--;
                int sf = family_index(db, &sm);
                int id = sf < 0 ? -1 : ref_find(db->fam[sf].base, &after);
                if (id < 0) return report("capture successor not found", &after), -1;
                if (push_u32(&g->cap_sub, &nc, &ccap, (uint32_t)sf) || push_u32(&g->cap_id, &nc2, &ccap2, (uint32_t)id))
                    return -1;
                continue;
            }
            int id = ref_find(g->base, &after);
            if (id < 0) return report("successor not found", &after), -1;
            if (!g->active[id]) {
                g->fixed_exits[i] |= (uint8_t)(1 << (1 - g->wdl[XQ_RULES_NONE][id]));
                continue;
            }
            if (push_qedge(&g->q, &nq, &qcap, make_qedge(&b, list[j], (uint32_t)id, db->rules == XQ_RULES_CXA)))
                return -1;
        }
    }
    g->qstart[n] = (uint32_t)nq;
    g->cstart[n] = (uint32_t)nc;
    return 0;
}

/* ---- Product vertices ----------------------------------------------------
 * key: position (bits 0-25), M[red] (26-37), M[black] (38-49), last[red]
 * (50-51), last[black] (52-53), sw (54), the entering move's class (55-56,
 * five-priority games only).  Three sinks use keys with bit 63.  Chase sets
 * fit 12 bits: no reference table has more non-king pieces a side. */
typedef struct {
    uint32_t pos;
    uint16_t m[2];
    uint8_t last[2];
    uint8_t sw;
    uint8_t cls; /* MV_*: the class of the move that entered the vertex */
} pstate;

enum { MV_X = 0, MV_C = 1, MV_K = 2, MV_B = 3 }; /* a move's class */
enum { SET_BITS = 12 };

enum { SINK_RED = 0, SINK_BLACK = 1, SINK_DRAW = 2, NSINKS = 3 };

static uint64_t key_of(const pstate *s)
{
    return (uint64_t)s->pos | (uint64_t)s->m[RED] << 26 | (uint64_t)s->m[BLACK] << 38 | (uint64_t)s->last[RED] << 50 |
           (uint64_t)s->last[BLACK] << 52 | (uint64_t)s->sw << 54 | (uint64_t)s->cls << 55;
}

static pstate state_of(uint64_t k)
{
    uint16_t set = (1u << SET_BITS) - 1;
    pstate s = {.pos = (uint32_t)(k & ((1u << 26) - 1)),
                .m = {(uint16_t)(k >> 26 & set), (uint16_t)(k >> 38 & set)},
                .last = {(uint8_t)(k >> 50 & 3), (uint8_t)(k >> 52 & 3)},
                .sw = (uint8_t)(k >> 54 & 1),
                .cls = (uint8_t)(k >> 55 & 3)};
    return s;
}

typedef struct {
    uint64_t *keys; /* by vertex id */
    uint32_t n, cap;
    uint32_t *slot; /* id + 1, 0 empty */
    uint64_t hmask;
} vmap;

static uint64_t hash64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xFF51AFD7ED558CCDull;
    x ^= x >> 33;
    x *= 0xC4CEB9FE1A85EC53ull;
    return x ^ (x >> 33);
}

static int vmap_grow(vmap *v)
{
    uint64_t size = v->hmask ? 2 * (v->hmask + 1) : 1 << 16;
    uint32_t *slot = calloc(size, sizeof *slot);
    if (!slot) return -1;
    for (uint32_t id = 0; id < v->n; id++) {
        uint64_t h = hash64(v->keys[id]) & (size - 1);
        while (slot[h]) h = (h + 1) & (size - 1);
        slot[h] = id + 1;
    }
    free(v->slot);
    v->slot = slot;
    v->hmask = size - 1;
    return 0;
}

/* Id of key, added if new.  UINT32_MAX if out of memory. */
static uint32_t vmap_get(vmap *v, uint64_t key)
{
    if (2 * (uint64_t)(v->n + 1) > v->hmask + 1 && vmap_grow(v)) return UINT32_MAX;
    uint64_t h = hash64(key) & v->hmask;
    for (; v->slot[h]; h = (h + 1) & v->hmask)
        if (v->keys[v->slot[h] - 1] == key) return v->slot[h] - 1;
    if (v->n == v->cap) {
        uint32_t cap = v->cap ? 2 * v->cap : 1 << 16;
        uint64_t *k = realloc(v->keys, (size_t)cap * sizeof *k);
        if (!k) return UINT32_MAX;
        v->keys = k;
        v->cap = cap;
    }
    v->keys[v->n] = key;
    v->slot[h] = v->n + 1;
    return v->n++;
}

/* Removes bit `from` of a set over square-ordered pieces and inserts it at
 * `to`: the moved piece's new place in the order. */
static uint16_t remap(uint16_t m, int from, int to)
{
    if (from == NO_INDEX) return m;
    unsigned bit = m >> from & 1u;
    unsigned rest = (m & ((1u << from) - 1)) | ((unsigned)(m >> (from + 1)) << from);
    return (uint16_t)((rest & ((1u << to) - 1)) | ((rest >> to) << (to + 1)) | (bit << to));
}

/* The state after a quiet move of side us from s along e, in the
 * five-priority game of rule set asian (or of full, as a check). */
static pstate successor_five(const pstate *s, int us, const qedge *e, int rules)
{
    pstate t = *s;
    t.pos = e->to;
    t.m[us ^ 1] = remap(s->m[us ^ 1], e->idx >> 4, e->idx & 15);
    uint16_t chase = rules == XQ_RULES_ASIAN ? e->chase_all : e->chase, m = s->m[us];
    bool keep = chase && (!m || (m & chase));
    t.m[us] = keep && m ? m & chase : chase;
    t.cls = (uint8_t)(e->check ? (keep ? MV_B : MV_C) : keep ? MV_K : MV_X);
    t.sw = 0;
    if (t.cls == MV_X) {
        t.last[us] = CLS_U;
    } else if (t.cls != MV_B) {
        int cls = t.cls == MV_C ? CLS_C : CLS_K;
        t.sw = s->last[us] != CLS_U && cls != s->last[us];
        t.last[us] = (uint8_t)cls;
    }
    return t;
}

/* The state after a quiet move of side us from s along e. */
static pstate successor(const pstate *s, int us, const qedge *e, int rules, bool five)
{
    if (five) return successor_five(s, us, e, rules);
    pstate t = *s;
    t.pos = e->to;
    t.m[us ^ 1] = remap(s->m[us ^ 1], e->idx >> 4, e->idx & 15); /* our pieces, chased by them */
    uint16_t chase = rules == XQ_RULES_FULL ? e->chase : 0;
    int cls; /* CLS_C, CLS_K, or CLS_U for class x */
    if (rules == XQ_RULES_CXA ? e->attack : e->check) {
        cls = CLS_C;
        t.m[us] = 0;
    } else if (!chase) {
        cls = CLS_U;
        t.m[us] = 0;
    } else if (!s->m[us] || (s->m[us] & chase)) {
        cls = CLS_K;
        t.m[us] = s->m[us] ? s->m[us] & chase : chase;
    } else {
        cls = CLS_U; /* a break: the chase goes on with new targets */
        t.m[us] = chase;
    }
    t.last[us] = (uint8_t)cls;
    t.sw = s->last[us] != CLS_U && cls != CLS_U && cls != s->last[us];
    return t;
}

/* ---- The product game ------------------------------------------------- */
typedef struct {
    uint32_t n; /* vertices, sinks first */
    uint32_t *out_start, *out;
    uint32_t *in_start, *in;
    uint64_t *keys;
    uint8_t *colour; /* owner: colour to move (sinks: RED) */
    uint32_t *init;  /* per position: vertex with empty memory, or UINT32_MAX */
} product;

static void product_free(product *p)
{
    free(p->out_start);
    free(p->out);
    free(p->in_start);
    free(p->in);
    free(p->keys);
    free(p->colour);
    free(p->init);
    memset(p, 0, sizeof *p);
}

/* Sink a value v (for the mover `us`) leads to. */
static uint32_t sink_of(int v, int us)
{
    if (v == 0) return SINK_DRAW;
    return v > 0 ? (uint32_t)(us == RED ? SINK_RED : SINK_BLACK) : (uint32_t)(us == RED ? SINK_BLACK : SINK_RED);
}

/* Exit values of position i under rule set r, bit (v + 1) per value. */
static unsigned exits_of(const ref_rules_db *db, const mat_graph *g, uint32_t i, int r)
{
    unsigned set = g->fixed_exits[i];
    for (uint32_t c = g->cstart[i]; c < g->cstart[i + 1]; c++) {
        int v = -db->fam[g->cap_sub[c]].wdl[r][g->cap_id[c]];
        set |= 1u << (v + 1);
    }
    return set;
}

/* Builds the product of family member g under rule set r (five: the
 * five-priority game), breadth first from the empty-memory vertex of every
 * active position. */
static int build_product(const ref_rules_db *db, const mat_graph *g, int r, bool five, product *p)
{
    vmap v = {0};
    size_t nout = 0, ocap = 0;
    int rc = -1;
    memset(p, 0, sizeof *p);
    p->init = malloc((size_t)g->n * sizeof *p->init);
    if (!p->init) goto out;
    for (uint64_t s = 0; s < NSINKS; s++)
        if (vmap_get(&v, 1ull << 63 | s) == UINT32_MAX) goto out;
    for (int i = 0; i < g->n; i++) {
        p->init[i] = UINT32_MAX;
        if (!g->active[i]) continue;
        pstate s = {.pos = (uint32_t)i};
        if ((p->init[i] = vmap_get(&v, key_of(&s))) == UINT32_MAX) goto out;
    }
    uint32_t cap_start = 1024;
    p->out_start = malloc(cap_start * sizeof *p->out_start);
    if (!p->out_start) goto out;
    for (uint32_t id = 0; id < v.n; id++) {
        if (id + 1 >= cap_start) {
            cap_start *= 2;
            uint32_t *q = realloc(p->out_start, cap_start * sizeof *q);
            if (!q) goto out;
            p->out_start = q;
        }
        p->out_start[id] = (uint32_t)nout;
        if (id < NSINKS) {
            if (push_u32(&p->out, &nout, &ocap, id)) goto out; /* self-loop */
            continue;
        }
        pstate s = state_of(v.keys[id]);
        int us = g->side[s.pos];
        unsigned ex = exits_of(db, g, s.pos, r);
        for (int val = -1; val <= 1; val++)
            if (ex >> (val + 1) & 1)
                if (push_u32(&p->out, &nout, &ocap, sink_of(val, us))) goto out;
        for (uint32_t e = g->qstart[s.pos]; e < g->qstart[s.pos + 1]; e++) {
            pstate t = successor(&s, us, &g->q[e], r, five);
            uint32_t tid = vmap_get(&v, key_of(&t));
            if (tid == UINT32_MAX || push_u32(&p->out, &nout, &ocap, tid)) goto out;
        }
        if (p->out_start[id] == nout) {
            fprintf(stderr, "ref_repetition: a product vertex without successors\n");
            goto out;
        }
    }
    p->n = v.n;
    p->out_start[p->n] = (uint32_t)nout;
    p->keys = v.keys;
    v.keys = NULL;
    /* Owners and predecessor lists. */
    p->colour = malloc(p->n);
    p->in_start = calloc((size_t)p->n + 1, sizeof *p->in_start);
    p->in = malloc((nout ? nout : 1) * sizeof *p->in);
    if (!p->colour || !p->in_start || !p->in) goto out;
    for (uint32_t id = 0; id < p->n; id++) p->colour[id] = id < NSINKS ? RED : g->side[state_of(p->keys[id]).pos];
    for (size_t e = 0; e < nout; e++) p->in_start[p->out[e] + 1]++;
    for (uint32_t id = 0; id < p->n; id++) p->in_start[id + 1] += p->in_start[id];
    {
        uint32_t *fill = malloc(((size_t)p->n + 1) * sizeof *fill);
        if (!fill) goto out;
        memcpy(fill, p->in_start, ((size_t)p->n + 1) * sizeof *fill);
        for (uint32_t id = 0; id < p->n; id++)
            for (uint32_t e = p->out_start[id]; e < p->out_start[id + 1]; e++) p->in[fill[p->out[e]]++] = id;
        free(fill);
    }
    rc = 0;
out:
    free(v.keys);
    free(v.slot);
    if (rc) product_free(p);
    return rc;
}

/* Priority of vertex id for the objective "colour P wins" (see the file
 * header). */
static uint8_t priority(const product *p, uint32_t id, int P, int rules, bool five)
{
    if (id < NSINKS) return (uint8_t)(id == (uint32_t)(P == RED ? SINK_RED : SINK_BLACK) ? 2 : 1);
    if (rules == XQ_RULES_NONE) return 1;
    pstate s = state_of(p->keys[id]);
    int mover = p->colour[id] ^ 1;
    if (five) {
        bool strong = s.cls == MV_X || s.sw;
        if (mover != P) return strong ? 5 : s.cls == MV_K ? 3 : 0;
        return strong ? 4 : s.cls == MV_K ? 2 : 1;
    }
    if (mover != P) return s.last[mover] == CLS_U || s.sw ? 3 : 0;
    int lo = s.last[mover ^ 1];
    bool good = lo == CLS_C ? s.last[mover] != CLS_C : lo == CLS_K ? (s.last[mover] == CLS_U || s.sw) : false;
    return good ? 2 : 1;
}

/* ---- Zielonka's algorithm ---------------------------------------------- */
typedef struct {
    const product *p;
    uint8_t *owner; /* 0 = even player (P), 1 = odd player */
    uint8_t *prio;
    uint8_t *winner; /* 0 = even, 1 = odd */
    int8_t *level;   /* a vertex is in the current subgame of depth d iff level >= d */
    uint32_t *mark, *cnt, *cnt_mark, stamp;
} zgame;

static uint32_t outdeg_in(const zgame *z, uint32_t u, int d)
{
    uint32_t n = 0;
    for (uint32_t e = z->p->out_start[u]; e < z->p->out_start[u + 1]; e++) n += z->level[z->p->out[e]] >= d;
    return n;
}

/* Extends list[0..nseed) (vertices of the subgame of depth d) to the
 * attractor of player alpha; returns its size.  Members get mark == the
 * stamp left in z->stamp. */
static size_t attract(zgame *z, int alpha, uint32_t *list, size_t nseed, int d)
{
    uint32_t st = ++z->stamp;
    for (size_t i = 0; i < nseed; i++) z->mark[list[i]] = st;
    size_t n = nseed;
    for (size_t q = 0; q < n; q++) {
        uint32_t v = list[q];
        for (uint32_t e = z->p->in_start[v]; e < z->p->in_start[v + 1]; e++) {
            uint32_t u = z->p->in[e];
            if (z->level[u] < d || z->mark[u] == st) continue;
            if (z->owner[u] != alpha) {
                if (z->cnt_mark[u] != st) {
                    z->cnt_mark[u] = st;
                    z->cnt[u] = outdeg_in(z, u, d);
                }
                if (--z->cnt[u] > 0) continue;
            }
            z->mark[u] = st;
            list[n++] = u;
        }
    }
    return n;
}

/* Solves the subgame of depth d, whose vertices are verts[0..n) (exactly
 * those with level >= d).  Sets winner[]; leaves level == d on them. */
static int zielonka(zgame *z, const uint32_t *verts, size_t n, int d)
{
    if (n == 0) return 0;
    uint32_t *cur = malloc(n * sizeof *cur), *buf = malloc(n * sizeof *buf), *rest = malloc(n * sizeof *rest),
             *gone = malloc(n * sizeof *gone);
    size_t ngone = 0;
    int rc = -1;
    if (!cur || !buf || !rest || !gone) goto out;
    memcpy(cur, verts, n * sizeof *cur);
    for (;;) {
        uint8_t pmax = 0;
        for (size_t i = 0; i < n; i++)
            if (z->prio[cur[i]] > pmax) pmax = z->prio[cur[i]];
        int alpha = pmax & 1;
        size_t nseed = 0;
        for (size_t i = 0; i < n; i++)
            if (z->prio[cur[i]] == pmax) buf[nseed++] = cur[i];
        attract(z, alpha, buf, nseed, d);
        uint32_t st = z->stamp;
        size_t nrest = 0;
        for (size_t i = 0; i < n; i++)
            if (z->mark[cur[i]] != st) {
                rest[nrest++] = cur[i];
                z->level[cur[i]] = (int8_t)(d + 1);
            }
        if (zielonka(z, rest, nrest, d + 1)) goto out;
        size_t nopp = 0;
        for (size_t i = 0; i < nrest; i++) {
            z->level[rest[i]] = (int8_t)d;
            if (z->winner[rest[i]] != alpha) buf[nopp++] = rest[i];
        }
        if (nopp == 0) {
            for (size_t i = 0; i < n; i++) z->winner[cur[i]] = (uint8_t)alpha;
            break;
        }
        /* The opponent wins its part of the rest and what it attracts. */
        size_t nb = attract(z, alpha ^ 1, buf, nopp, d);
        for (size_t i = 0; i < nb; i++) {
            z->winner[buf[i]] = (uint8_t)(alpha ^ 1);
            z->level[buf[i]] = (int8_t)(d - 1);
            gone[ngone++] = buf[i];
        }
        size_t keep = 0;
        for (size_t i = 0; i < n; i++)
            if (z->level[cur[i]] >= d) cur[keep++] = cur[i];
        n = keep;
        if (n == 0) break;
    }
    rc = 0;
out:
    for (size_t i = 0; i < ngone; i++) z->level[gone[i]] = (int8_t)d;
    free(cur);
    free(buf);
    free(rest);
    free(gone);
    return rc;
}

/* Solves "colour P wins" on the product; win[v] = 1 where P wins. */
static int solve_objective(const product *p, int P, int rules, bool five, uint8_t *win)
{
    zgame z = {.p = p};
    int rc = -1;
    uint32_t *all = malloc((size_t)p->n * sizeof *all);
    z.owner = malloc(p->n);
    z.prio = malloc(p->n);
    z.winner = win;
    z.level = malloc(p->n);
    z.mark = calloc(p->n, sizeof *z.mark);
    z.cnt = malloc((size_t)p->n * sizeof *z.cnt);
    z.cnt_mark = calloc(p->n, sizeof *z.cnt_mark);
    if (!all || !z.owner || !z.prio || !z.level || !z.mark || !z.cnt || !z.cnt_mark) goto out;
    for (uint32_t v = 0; v < p->n; v++) {
        all[v] = v;
        z.owner[v] = p->colour[v] != P;
        z.prio[v] = priority(p, v, P, rules, five);
        z.level[v] = 1;
    }
    if (zielonka(&z, all, p->n, 1)) goto out;
    for (uint32_t v = 0; v < p->n; v++) win[v] = z.winner[v] == 0;
    rc = 0;
out:
    free(all);
    free(z.owner);
    free(z.prio);
    free(z.level);
    free(z.mark);
    free(z.cnt);
    free(z.cnt_mark);
    return rc;
}

/* Every vertex of a position must have the winner of its empty-memory
 * vertex (the condition is independent of the memory's start). */
static int check_memory_independent(const mat_graph *g, const product *p, const uint8_t *win)
{
    for (uint32_t v = NSINKS; v < p->n; v++) {
        uint32_t pos = state_of(p->keys[v]).pos;
        if (win[v] != win[p->init[pos]]) {
            xq_board b;
            ref_board(g->base, (int)pos, &b);
            report("winner depends on the product memory", &b);
            return -1;
        }
    }
    return 0;
}

/* Values of family member f under rule set r (r >= 1, or r == 0 as a
 * self-check), into out[]; five: solved as the five-priority game. */
static int solve_rules(ref_rules_db *db, int f, int r, bool five, int8_t *out)
{
    mat_graph *g = &db->fam[f];
    product p;
    if (build_product(db, g, r, five, &p)) return -1;
    g->product_vertices[r] = (int)p.n;
    int rc = -1;
    uint8_t *win[2] = {malloc(p.n), malloc(p.n)};
    if (!win[0] || !win[1]) goto out;
    for (int P = 0; P < 2; P++)
        if (solve_objective(&p, P, r, five, win[P]) || check_memory_independent(g, &p, win[P])) goto out;
    for (int i = 0; i < g->n; i++) {
        if (!g->active[i]) {
            out[i] = g->wdl[XQ_RULES_NONE][i];
            continue;
        }
        uint32_t v = p.init[i];
        int us = g->side[i];
        if (win[RED][v] && win[BLACK][v]) {
            xq_board b;
            ref_board(g->base, i, &b);
            report("both colours win", &b);
            goto out;
        }
        out[i] = (int8_t)(win[us][v] ? 1 : win[us ^ 1][v] ? -1 : 0);
    }
    rc = 0;
out:
    free(win[0]);
    free(win[1]);
    product_free(&p);
    return rc;
}

/* The rule set whose decided results rule set r keeps: the one before it;
 * for asian, check (perpetual check loses there as under check, but a
 * side that full says loses by a chase may draw under asian, chasing in
 * its turn with its checks); for cxa only none (a perpetual check against
 * a perpetual chase is a draw there). */
static int base_rules(int r)
{
    if (r == XQ_RULES_CXA) return XQ_RULES_NONE;
    return r == XQ_RULES_ASIAN ? XQ_RULES_CHECK : r - 1;
}

/* A result of a smaller rule set stands under a larger one. */
static int check_monotone(const mat_graph *g, int r)
{
    int base = base_rules(r);
    for (int i = 0; i < g->n; i++)
        if (g->wdl[base][i] != 0 && g->wdl[r][i] != g->wdl[base][i]) {
            xq_board b;
            ref_board(g->base, i, &b);
            report("a decided result changed under a larger rule set", &b);
            return -1;
        }
    return 0;
}

/* Solves family member f again under rule set r (five: as the
 * five-priority game) and requires the values already in g->wdl[r]:
 * `what` says which claim a difference breaks. */
static int solve_again_and_compare(ref_rules_db *db, int f, int r, bool five, const char *what)
{
    mat_graph *g = &db->fam[f];
    int8_t *again = malloc((size_t)g->n + 1);
    int vertices = g->product_vertices[r]; /* the stats keep the first solve's */
    int bad = !again || solve_rules(db, f, r, five, again);
    g->product_vertices[r] = vertices;
    for (int i = 0; !bad && i < g->n; i++)
        if (again[i] != g->wdl[r][i]) {
            xq_board b;
            ref_board(g->base, i, &b);
            report(what, &b);
            bad = 1;
        }
    free(again);
    return bad ? -1 : 0;
}

static int solve_member(ref_rules_db *db, int f, int flags)
{
    mat_graph *g = &db->fam[f];
    g->n = ref_count(g->base);
    for (int r = 0; r <= db->rules; r++)
        if (!(g->wdl[r] = malloc((size_t)g->n + 1))) return -1;
    for (int i = 0; i < g->n; i++) g->wdl[XQ_RULES_NONE][i] = (int8_t)ref_value_at(g->base, i).wdl;
    if (build_graph(db, f, flags)) return -1;
    if ((flags & REF_RULES_CHECK_NONE) &&
        solve_again_and_compare(db, f, XQ_RULES_NONE, false,
                                "parity solver under rules none differs from the reference solver"))
        return -1;
    for (int r = XQ_RULES_CHECK; r <= db->rules; r++)
        if (solve_rules(db, f, r, r == XQ_RULES_ASIAN, g->wdl[r]) || check_monotone(g, r)) return -1;
    /* the file header's claim that the five priorities reduce to full's
     * condition when no move is of class b */
    if (db->rules >= XQ_RULES_ASIAN &&
        solve_again_and_compare(db, f, XQ_RULES_FULL, true, "full solved with five priorities differs from three"))
        return -1;
    return 0;
}

static void graph_free(mat_graph *g)
{
    for (int r = 0; r < REF_RULES_NB; r++) free(g->wdl[r]);
    free(g->side);
    free(g->active);
    free(g->qstart);
    free(g->q);
    free(g->fixed_exits);
    free(g->cstart);
    free(g->cap_sub);
    free(g->cap_id);
}

void ref_rules_free(ref_rules_db *db)
{
    if (!db) return;
    for (int i = 0; i < db->nfam; i++) graph_free(&db->fam[i]);
    free(db->fam);
    ref_free(db->root);
    free(db);
}

ref_rules_db *ref_rules_solve(const xq_material *m, int rules, int flags)
{
    if (rules < XQ_RULES_NONE || rules >= REF_RULES_NB) return NULL;
    if (flags & REF_RULES_CHECK_NONE) flags |= REF_RULES_FULL_GRAPH;
    ref_rules_db *db = calloc(1, sizeof *db);
    if (!db) return NULL;
    db->rules = rules;
    db->root = ref_solve(m);
    if (!db->root) goto fail;
    db->nfam = ref_family_count(db->root);
    db->fam = calloc((size_t)db->nfam, sizeof *db->fam);
    if (!db->fam) goto fail;
    for (int f = 0; f < db->nfam; f++) db->fam[f].base = ref_family_at(db->root, f);
    for (int f = 0; f < db->nfam; f++) /* subtables come first */
        if (solve_member(db, f, flags)) goto fail;
    return db;
fail:
    ref_rules_free(db);
    return NULL;
}

const ref_db *ref_rules_base(const ref_rules_db *db) { return db->root; }

/* Family member and position id of a board, or -1. */
static int locate(const ref_rules_db *db, const xq_board *b, int *id)
{
    xq_material m;
    xq_material_of(b, &m);
    int f = family_index(db, &m);
    *id = f < 0 ? -1 : ref_find(db->fam[f].base, b);
    return *id < 0 ? -1 : f;
}

int ref_rules_wdl_under(const ref_rules_db *db, const xq_board *b, int r)
{
    int id, f = locate(db, b, &id);
    if (f < 0 || r < 0 || r > db->rules) return 0;
    return db->fam[f].wdl[r][id];
}

static ref_rules_value value_in(const mat_graph *g, int id, int r)
{
    int wdl = g->wdl[r][id];
    if (g->wdl[XQ_RULES_NONE][id] != 0) return (ref_rules_value){wdl, ref_value_at(g->base, id).dtm, XQ_BY_NONE};
    if (wdl == 0) return (ref_rules_value){0, 0, XQ_BY_NONE};
    /* cxa has one ruling, perpetual attack, which tables record as chase */
    if (r == XQ_RULES_CXA) return (ref_rules_value){wdl, 0, XQ_BY_CHASE};
    return (ref_rules_value){wdl, 0, g->wdl[XQ_RULES_CHECK][id] == wdl ? XQ_BY_CHECK : XQ_BY_CHASE};
}

ref_rules_value ref_rules_lookup(const ref_rules_db *db, const xq_board *b)
{
    int id, f = locate(db, b, &id);
    if (f < 0) return (ref_rules_value){0, -1, XQ_BY_NONE};
    return value_in(&db->fam[f], id, db->rules);
}

ref_rules_value ref_rules_value_at(const ref_rules_db *db, int i, int r)
{
    return value_in(&db->fam[db->nfam - 1], i, r < db->rules ? r : db->rules);
}

void ref_rules_get_stats(const ref_rules_db *db, ref_rules_stats *st)
{
    memset(st, 0, sizeof *st);
    const mat_graph *g = &db->fam[db->nfam - 1];
    for (int r = 0; r <= db->rules; r++) st->product_vertices[r] = g->product_vertices[r];
    for (int i = 0; i < g->n; i++) {
        for (int r = XQ_RULES_CHECK; r <= db->rules; r++)
            if (g->wdl[r][i] != 0 && g->wdl[base_rules(r)][i] == 0) st->decided[r][g->side[i]]++;
        if (db->rules >= XQ_RULES_ASIAN && g->wdl[XQ_RULES_ASIAN][i] != g->wdl[XQ_RULES_FULL][i])
            st->asian_differs[g->side[i]]++;
        if (db->rules >= XQ_RULES_CXA && g->wdl[XQ_RULES_CXA][i] != g->wdl[XQ_RULES_FULL][i])
            st->cxa_differs[g->side[i]]++;
    }
}
