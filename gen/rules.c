/*
 * rules.c - the repetition rulings (docs/RULES.md, "Repetition") as a game
 * on the positions retro.c leaves drawn.
 *
 * Model.  Every move is labelled check, chase of a set of enemy pieces, or
 * idle (core/rulings.c).  An infinite play is lost by the side that checks
 * on every move from some point on while the other does not; failing that,
 * by the side that chases one same piece (followed through its moves) on
 * every move while the other neither checks nor chases on every move.
 *
 * Game graph.  Whether a side keeps chasing "the same piece" is not a
 * property of single moves, so a node is a position plus, for each side,
 * the set of enemy pieces it has chased on every one of its moves since its
 * last move that broke the chase (empty after a check or an idle move).
 * A move "resets" its mover's set when the set and the move's chase set
 * share no piece.  Then, for the side W we ask about, with L the other:
 *
 *   L keeps chasing (finitely many L resets, no L checks) or keeps checking;
 *   the two cannot alternate forever without L resets, because a check
 *   empties L's set and L's next non-check move is then a reset.  So W wins
 *   an infinite play exactly when the largest of these edge priorities seen
 *   infinitely often is 2 (max-parity, three priorities):
 *     3  an L move that is not a check and resets L's chase;
 *     2  a W move that is not a check and either resets W's own chase or
 *        is made while L's set is empty (L is checking, not chasing);
 *     1  everything else.
 *   With checks only (rules "check"), chase sets are always empty and this
 *   is: 3 = L idles, 2 = W idles, 1 = checks.
 *
 * The winner of a node does not depend on its sets (the condition above
 * ignores any finite prefix), so a position's value is that of the node
 * with both sets empty: no earlier history.
 *
 * Algorithm.  The parity game is solved with the nested fixed point
 *   W = mu Z3. nu Z2. mu Z1. CPre(3: Z3, 2: Z2, 1: Z1)
 * (Emerson and Jutla, "Tree automata, mu-calculus and determinacy", 1991;
 * for edge priorities as in Walukiewicz's formulation): the outer mu counts
 * "orders" (order k: won because L must, to avoid a position of order < k,
 * check or chase forever), the nu keeps the positions where W can hold L to
 * that, and the inner mu is an attractor computed with a worklist over the
 * predecessor lists of an explicit graph of the drawn region.  Positions
 * outside the region are exits whose value retro.c (or a subtable) decided.
 *
 * The result by "check" is computed first, then by "full" (which can only
 * add decisions): a decision that needs the chase ruling is flagged so.
 */
#include "rules.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cell.h"
#include "movegen.h"

/* Targets above NODE_MAX are exits, from the mover's point of view. */
enum {
    EXIT_LOSS = 0xFFFFFFF0u,   /* mover loses: ordinary or by check */
    EXIT_LOSS_CHASE,           /* mover loses by the chase ruling only */
    EXIT_DRAW,                 /* a drawn capture */
    EXIT_WIN,                  /* mover wins by check ruling in a subtable */
    EXIT_WIN_CHASE,            /* mover wins by chase ruling in a subtable */
    NODE_MAX = 0xFFFFFFE0u,
};
enum { F_CHECK = 1, F_RESET = 2 };
enum { MODE_CHECK = 0, MODE_FULL = 1 };

typedef struct {
    tb_table *t;
    int chases; /* label chases (rules full) */
    /* the drawn region: a bitmap per side with rank counts per word */
    uint64_t *drawn[2];
    uint32_t *rank[2];
    uint64_t npos;
    uint64_t *pos_entry; /* pos id -> index << 1 | side */
    /* nodes: position and, per colour c, the set of pieces of colour c^1
     * that c is chasing, as a bit mask over those pieces in ascending
     * square order on the decoded board */
    uint32_t nnodes, node_cap;
    uint32_t *node_pos;
    uint8_t (*node_set)[2];
    /* hash of the nodes with a non-empty set: key -> node id */
    uint64_t *hkey;
    uint32_t *hval;
    uint64_t hcap, hcount;
    /* successors, compressed rows */
    uint64_t *first;
    uint32_t *to;
    uint8_t *flags;
    uint64_t nedges, edge_cap;
    /* predecessors */
    uint64_t *pfirst;
    uint32_t *psrc;
    uint8_t *pflags;
    uint64_t bytes, max_bytes;
    char *err;
} rgraph;

uint64_t rules_estimate_bytes(uint64_t draws)
{
    /* Typically a few nodes per drawn position and about 25 moves each, at
     * about 10 bytes an edge with the predecessor lists. */
    return draws * 2 * (16 + 25 * 10);
}

static int charge(rgraph *g, uint64_t bytes)
{
    g->bytes += bytes;
    if (g->max_bytes && g->bytes > g->max_bytes) {
        snprintf(g->err, XQ_ERR_MAX,
                 "the repetition rulings need more than %llu MiB for this table's game graph "
                 "(raise --max-memory, or use --rules none)",
                 (unsigned long long)(g->max_bytes >> 20));
        return -1;
    }
    return 0;
}

static void *grow(rgraph *g, void *p, uint64_t *cap, uint64_t need, size_t elem)
{
    if (need <= *cap) return p;
    uint64_t n = *cap ? *cap : 1024;
    while (n < need) n *= 2;
    if (charge(g, (n - *cap) * elem)) return NULL;
    void *q = realloc(p, n * elem);
    if (!q) {
        snprintf(g->err, XQ_ERR_MAX, "out of memory for the repetition rulings' game graph");
        return NULL;
    }
    *cap = n;
    return q;
}

/* ---- the drawn region ---------------------------------------------------- */
static int region_init(rgraph *g)
{
    tb_table *t = g->t;
    uint64_t words = (t->ix.size + 63) / 64;
    for (int s = 0; s < 2; s++) {
        g->drawn[s] = calloc(words, sizeof(uint64_t));
        g->rank[s] = malloc(words * sizeof(uint32_t));
        if (!g->drawn[s] || !g->rank[s]) return -1;
    }
    for (int s = 0; s < 2; s++)
        for (uint64_t i = 0; i < t->ix.size; i++)
            if (cell_get(t->cells[s], t->width, i) == CELL_DRAW) g->drawn[s][i >> 6] |= (uint64_t)1 << (i & 63);
    uint64_t n = 0;
    for (int s = 0; s < 2; s++)
        for (uint64_t w = 0; w < words; w++) {
            g->rank[s][w] = (uint32_t)n;
            n += (uint64_t)__builtin_popcountll(g->drawn[s][w]);
        }
    if (n >= NODE_MAX) {
        snprintf(g->err, XQ_ERR_MAX, "too many drawn positions for the repetition rulings");
        return -1;
    }
    g->npos = n;
    g->pos_entry = malloc((n ? n : 1) * sizeof(uint64_t));
    if (!g->pos_entry) return -1;
    for (int s = 0; s < 2; s++)
        for (uint64_t i = 0; i < t->ix.size; i++)
            if (g->drawn[s][i >> 6] >> (i & 63) & 1) {
                uint64_t w = i >> 6, below = g->drawn[s][w] & (((uint64_t)1 << (i & 63)) - 1);
                g->pos_entry[g->rank[s][w] + (uint64_t)__builtin_popcountll(below)] = i << 1 | (uint64_t)s;
            }
    return 0;
}

static uint32_t pos_id(const rgraph *g, int side, uint64_t i)
{
    uint64_t w = i >> 6, below = g->drawn[side][w] & (((uint64_t)1 << (i & 63)) - 1);
    return g->rank[side][w] + (uint32_t)__builtin_popcountll(below);
}

/* ---- nodes ----------------------------------------------------------------- */
static uint64_t hash64(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xFF51AFD7ED558CCDull;
    k ^= k >> 33;
    k *= 0xC4CEB9FE1A85EC53ull;
    return k ^ (k >> 33);
}

static int add_node(rgraph *g, uint32_t pos, uint8_t red_set, uint8_t black_set)
{
    uint64_t cap = g->node_cap;
    void *p = grow(g, g->node_pos, &cap, (uint64_t)g->nnodes + 1, sizeof *g->node_pos);
    if (!p) return -1;
    g->node_pos = p;
    if (cap != g->node_cap) {
        void *q = realloc(g->node_set, cap * sizeof *g->node_set);
        if (!q || charge(g, (cap - g->node_cap) * sizeof *g->node_set)) {
            if (q) g->node_set = q;
            snprintf(g->err, XQ_ERR_MAX, "out of memory for the repetition rulings' game graph");
            return -1;
        }
        g->node_set = q;
        g->node_cap = (uint32_t)cap;
    }
    g->node_pos[g->nnodes] = pos;
    g->node_set[g->nnodes][RED] = red_set;
    g->node_set[g->nnodes][BLACK] = black_set;
    g->nnodes++;
    return 0;
}

static int hash_grow(rgraph *g)
{
    uint64_t ncap = g->hcap ? g->hcap * 2 : 4096;
    if (charge(g, ncap * 12)) return -1;
    uint64_t *key = malloc(ncap * sizeof *key);
    uint32_t *val = malloc(ncap * sizeof *val);
    if (!key || !val) {
        free(key);
        free(val);
        snprintf(g->err, XQ_ERR_MAX, "out of memory for the repetition rulings' game graph");
        return -1;
    }
    memset(key, 0xFF, ncap * sizeof *key);
    for (uint64_t i = 0; i < g->hcap; i++)
        if (g->hkey[i] != UINT64_MAX) {
            uint64_t h = hash64(g->hkey[i]) & (ncap - 1);
            while (key[h] != UINT64_MAX) h = (h + 1) & (ncap - 1);
            key[h] = g->hkey[i];
            val[h] = g->hval[i];
        }
    free(g->hkey);
    free(g->hval);
    g->hkey = key;
    g->hval = val;
    g->hcap = ncap;
    return 0;
}

/* Node id of (pos, sets); positions with both sets empty are their own
 * node ids.  Returns NODE_MAX on failure. */
static uint32_t node_of(rgraph *g, uint32_t pos, uint8_t red_set, uint8_t black_set)
{
    if (!red_set && !black_set) return pos;
    if (2 * (g->hcount + 1) > g->hcap && hash_grow(g)) return NODE_MAX;
    uint64_t key = (uint64_t)pos << 16 | (uint64_t)red_set << 8 | black_set;
    uint64_t h = hash64(key) & (g->hcap - 1);
    while (g->hkey[h] != UINT64_MAX) {
        if (g->hkey[h] == key) return g->hval[h];
        h = (h + 1) & (g->hcap - 1);
    }
    if (g->nnodes >= NODE_MAX - 1 || add_node(g, pos, red_set, black_set)) {
        if (!g->err[0]) snprintf(g->err, XQ_ERR_MAX, "too many game-graph nodes for the repetition rulings");
        return NODE_MAX;
    }
    g->hkey[h] = key;
    g->hval[h] = g->nnodes - 1;
    g->hcount++;
    return g->nnodes - 1;
}

/* ---- piece sets -------------------------------------------------------------
 * A set of pieces of one colour is a list of their squares while a move is
 * worked out, and a bit mask over that colour's non-king pieces (ascending
 * squares) in a node. */
typedef struct {
    int n;
    uint8_t sq[16];
} sqset;

static int pieces_of(const xq_board *b, int colour, uint8_t out[16])
{
    int n = 0;
    for (xq_mask m = b->occ[colour] & ~mask_of(b->king[colour]); m;) out[n++] = (uint8_t)mask_pop_lsb(&m);
    return n;
}

static void set_from_mask(const xq_board *b, int colour, unsigned mask, sqset *s)
{
    uint8_t sq[16];
    int n = pieces_of(b, colour, sq);
    s->n = 0;
    for (int k = 0; k < n; k++)
        if (mask >> k & 1) s->sq[s->n++] = sq[k];
}

static uint8_t mask_from_set(const xq_board *b, int colour, const sqset *s, int mirrored)
{
    uint8_t sq[16];
    int n = pieces_of(b, colour, sq);
    unsigned mask = 0;
    for (int i = 0; i < s->n; i++) {
        int x = mirrored ? mirror_square(s->sq[i]) : s->sq[i];
        for (int k = 0; k < n; k++)
            if (sq[k] == x) mask |= 1u << k;
    }
    return (uint8_t)mask;
}

static int set_has(const sqset *s, int sq)
{
    for (int i = 0; i < s->n; i++)
        if (s->sq[i] == sq) return 1;
    return 0;
}

/* ---- edges ----------------------------------------------------------------- */
/* Exit code of a capture, from the mover's point of view. */
static uint32_t capture_exit(const tb_table *t, xq_piece taken, const xq_board *after)
{
    int c = colour_of(taken), k = kind_of(taken);
    const tb_table *s = t->sub[c][k];
    int flip = t->sub_flip[c][k];
    uint64_t i = xq_index_encode(&s->ix, after, flip);
    unsigned v = cell_get(s->cells[after->side ^ flip], s->width, i);
    if (cell_is_win(v)) return EXIT_LOSS;
    if (cell_is_loss(v)) return EXIT_WIN; /* cannot happen from a drawn position */
    unsigned r = s->ruled[0] ? s->ruled[after->side ^ flip][i] : RULED_NONE;
    if (r == RULED_NONE) return EXIT_DRAW;
    if (ruled_is_win(r)) return ruled_by_chase(r) ? EXIT_LOSS_CHASE : EXIT_LOSS;
    return ruled_by_chase(r) ? EXIT_WIN_CHASE : EXIT_WIN;
}

static int add_edge(rgraph *g, uint32_t to, uint8_t flags)
{
    uint64_t cap = g->edge_cap;
    void *p = grow(g, g->to, &cap, g->nedges + 1, sizeof *g->to);
    if (!p) return -1;
    g->to = p;
    if (cap != g->edge_cap) {
        void *q = realloc(g->flags, cap);
        if (!q || charge(g, cap - g->edge_cap)) {
            if (q) g->flags = q;
            snprintf(g->err, XQ_ERR_MAX, "out of memory for the repetition rulings' game graph");
            return -1;
        }
        g->flags = q;
        g->edge_cap = cap;
    }
    g->to[g->nedges] = to;
    g->flags[g->nedges] = flags;
    g->nedges++;
    return 0;
}

/* The node a quiet move m leads to from node u (board b, mover us), with
 * the move's flags. */
static uint32_t quiet_target(rgraph *g, uint32_t u, xq_board *b, xq_move m, uint8_t *flags)
{
    tb_table *t = g->t;
    int us = b->side, them = us ^ 1, from = move_from(m), to = move_to(m);
    sqset own, opp; /* us chasing their pieces; them chasing ours */
    set_from_mask(b, them, g->node_set[u][us], &own);
    set_from_mask(b, us, g->node_set[u][them], &opp);

    xq_move_label label;
    if (g->chases) {
        xq_label_move(b, m, &label);
    } else {
        memset(&label, 0, sizeof label);
        xq_undo u0;
        xq_make_move(b, m, &u0);
        label.check = xq_in_check(b, them);
        xq_unmake_move(b, m, &u0);
    }
    *flags = label.check ? F_CHECK : 0;
    sqset own2 = {0, {0}};
    if (label.check) {
        *flags |= F_RESET;
    } else {
        for (int i = 0; i < label.nchased; i++)
            if (set_has(&own, label.chased[i])) own2.sq[own2.n++] = label.chased[i];
        if (own2.n == 0) {
            *flags |= F_RESET;
            own2.n = label.nchased;
            memcpy(own2.sq, label.chased, (size_t)label.nchased);
        }
    }
    for (int i = 0; i < opp.n; i++)
        if (opp.sq[i] == from) opp.sq[i] = (uint8_t)to; /* the chased piece moved */

    xq_undo un;
    xq_make_move(b, m, &un);
    uint64_t j = xq_index_encode(&t->ix, b, 0);
    unsigned v = cell_get(t->cells[them], t->width, j);
    uint32_t target;
    if (v != CELL_DRAW) {
        target = cell_is_win(v) ? EXIT_LOSS : EXIT_WIN;
    } else if (own2.n == 0 && opp.n == 0) {
        target = pos_id(g, them, j);
    } else {
        /* Sets are kept on the decoded board of the target entry, which may
         * be the mirror image of this one. */
        xq_board d;
        xq_index_decode(&t->ix, j, &d);
        int mirrored = memcmp(d.sq, b->sq, sizeof d.sq) != 0;
        uint8_t sets[2];
        sets[us] = mask_from_set(&d, them, &own2, mirrored);
        sets[them] = mask_from_set(&d, us, &opp, mirrored);
        target = node_of(g, pos_id(g, them, j), sets[RED], sets[BLACK]);
    }
    xq_unmake_move(b, m, &un);
    return target;
}

static int expand(rgraph *g, uint32_t u)
{
    uint64_t e = g->node_pos[u];
    uint64_t entry = g->pos_entry[e];
    xq_board b;
    xq_index_decode(&g->t->ix, entry >> 1, &b);
    b.side = (uint8_t)(entry & 1);
    xq_move list[XQ_MAX_MOVES];
    int n = xq_gen_legal(&b, list);
    for (int k = 0; k < n; k++) {
        uint32_t target;
        uint8_t flags = 0;
        if (b.sq[move_to(list[k])]) {
            xq_undo un;
            xq_make_move(&b, list[k], &un);
            target = capture_exit(g->t, un.captured, &b);
            xq_unmake_move(&b, list[k], &un);
        } else {
            target = quiet_target(g, u, &b, list[k], &flags);
            if (target == NODE_MAX) return -1;
        }
        if (add_edge(g, target, flags)) return -1;
    }
    return 0;
}

static int build(rgraph *g)
{
    for (uint32_t p = 0; p < g->npos; p++)
        if (add_node(g, p, 0, 0)) return -1;
    uint64_t cap = 0;
    for (uint32_t u = 0; u < g->nnodes; u++) { /* nnodes grows as sets appear */
        uint64_t *f = grow(g, g->first, &cap, (uint64_t)u + 2, sizeof *g->first);
        if (!f) return -1;
        g->first = f;
        g->first[u] = g->nedges;
        if (expand(g, u)) return -1;
    }
    uint64_t *f = grow(g, g->first, &cap, (uint64_t)g->nnodes + 1, sizeof *g->first);
    if (!f) return -1;
    g->first = f;
    g->first[g->nnodes] = g->nedges;

    /* predecessor lists */
    if (charge(g, ((uint64_t)g->nnodes + 1) * 8 + g->nedges * 5)) return -1;
    g->pfirst = calloc((uint64_t)g->nnodes + 1, sizeof *g->pfirst);
    g->psrc = malloc((g->nedges + 1) * sizeof *g->psrc);
    g->pflags = malloc(g->nedges + 1);
    if (!g->pfirst || !g->psrc || !g->pflags) {
        snprintf(g->err, XQ_ERR_MAX, "out of memory for the repetition rulings' game graph");
        return -1;
    }
    for (uint64_t e = 0; e < g->nedges; e++)
        if (g->to[e] < NODE_MAX) g->pfirst[g->to[e] + 1]++;
    for (uint32_t v = 0; v < g->nnodes; v++) g->pfirst[v + 1] += g->pfirst[v];
    uint64_t *fill = malloc(((uint64_t)g->nnodes + 1) * sizeof *fill);
    if (!fill) {
        snprintf(g->err, XQ_ERR_MAX, "out of memory for the repetition rulings' game graph");
        return -1;
    }
    memcpy(fill, g->pfirst, ((uint64_t)g->nnodes + 1) * sizeof *fill);
    for (uint32_t u = 0; u < g->nnodes; u++)
        for (uint64_t e = g->first[u]; e < g->first[u + 1]; e++)
            if (g->to[e] < NODE_MAX) {
                uint64_t k = fill[g->to[e]]++;
                g->psrc[k] = u;
                g->pflags[k] = g->flags[e];
            }
    free(fill);
    return 0;
}

/* ---- the parity game --------------------------------------------------------- */
static int side_of(const rgraph *g, uint32_t u) { return (int)(g->pos_entry[g->node_pos[u]] & 1); }

/* Priority of an edge with `flags` from node u, for winner w. */
static int priority(const rgraph *g, uint32_t u, uint8_t flags, int w, int mode)
{
    if (flags & F_CHECK) return 1;
    int mover = side_of(g, u);
    if (mode == MODE_CHECK) return mover == w ? 2 : 3;
    if (mover == w) return (flags & F_RESET) || g->node_set[u][mover ^ 1] == 0 ? 2 : 1;
    return (flags & F_RESET) ? 3 : 1;
}

/* True if exit x is a win for the mover's opponent / for the mover. */
static int exit_mover_loses(uint32_t x, int mode)
{
    return x == EXIT_LOSS || (x == EXIT_LOSS_CHASE && mode == MODE_FULL);
}
static int exit_mover_wins(uint32_t x, int mode)
{
    return x == EXIT_WIN || (x == EXIT_WIN_CHASE && mode == MODE_FULL);
}

enum { IN_A = 1, IN_Z2 = 2, IN_Z1 = 4 };

typedef struct {
    uint8_t *st;     /* IN_* bits per node */
    int32_t *need;   /* loser nodes: edges still to fall into Z1; -1 never */
    uint32_t *queue;
} solve_work;

/* Seeds Z1 inside Z2 and sets the loser nodes' counters.  Returns the
 * number of seeds queued. */
static uint32_t seed(const rgraph *g, solve_work *s, int w, int mode)
{
    uint32_t qn = 0;
    for (uint32_t u = 0; u < g->nnodes; u++) {
        if ((s->st[u] & (IN_A | IN_Z2)) != IN_Z2) continue;
        s->st[u] &= (uint8_t)~IN_Z1;
        int mine = side_of(g, u) == w, ok = 0;
        int32_t need = 0;
        for (uint64_t e = g->first[u]; e < g->first[u + 1]; e++) {
            uint32_t v = g->to[e];
            if (mine) {
                if (v >= NODE_MAX ? exit_mover_wins(v, mode)
                                  : (s->st[v] & IN_A) ||
                                        ((s->st[v] & IN_Z2) && priority(g, u, g->flags[e], w, mode) == 2)) {
                    ok = 1;
                    break;
                }
            } else if (v >= NODE_MAX) {
                if (!exit_mover_loses(v, mode)) need = -1;
            } else if (!(s->st[v] & IN_A)) {
                if (!(s->st[v] & IN_Z2) || priority(g, u, g->flags[e], w, mode) == 3)
                    need = -1;
                else if (need >= 0)
                    need++;
            }
            if (need < 0) break;
        }
        if (!mine) ok = need == 0;
        s->need[u] = mine ? 1 : need;
        if (ok) {
            s->st[u] |= IN_Z1;
            s->queue[qn++] = u;
        }
    }
    return qn;
}

/* Completes Z1 (the attractor through priority-1 edges) from the queued
 * seeds; returns its size. */
static uint32_t attract(const rgraph *g, solve_work *s, uint32_t qn, int w)
{
    for (uint32_t qi = 0; qi < qn; qi++) {
        uint32_t v = s->queue[qi];
        for (uint64_t k = g->pfirst[v]; k < g->pfirst[v + 1]; k++) {
            uint32_t u = g->psrc[k];
            if ((s->st[u] & (IN_A | IN_Z2 | IN_Z1)) != IN_Z2 || s->need[u] < 0) continue;
            /* Winner nodes take any edge into Z1 (a priority-2 edge into
             * Z2 made them seeds already); loser nodes count their
             * priority-1 edges, the only ones left in need. */
            if (side_of(g, u) != w && --s->need[u] > 0) continue;
            s->st[u] |= IN_Z1;
            s->queue[qn++] = u;
        }
    }
    return qn;
}

/* Orders (1..) of the nodes w wins under `mode`; 0 where w does not win.
 * Returns the highest order, or -1 if out of memory. */
static int solve_winner(const rgraph *g, int w, int mode, uint8_t *order, int *orders_out)
{
    solve_work s;
    s.st = calloc((uint64_t)g->nnodes + 1, 1);
    s.need = malloc(((uint64_t)g->nnodes + 1) * sizeof *s.need);
    s.queue = malloc(((uint64_t)g->nnodes + 1) * sizeof *s.queue);
    if (!s.st || !s.need || !s.queue) {
        free(s.st);
        free(s.need);
        free(s.queue);
        return -1;
    }
    memset(order, 0, g->nnodes);
    int k = 0;
    for (;;) {
        k++;
        uint32_t z2 = 0;
        for (uint32_t u = 0; u < g->nnodes; u++)
            if (!(s.st[u] & IN_A)) {
                s.st[u] |= IN_Z2;
                z2++;
            }
        for (;;) { /* nu Z2 */
            uint32_t z1 = attract(g, &s, seed(g, &s, w, mode), w);
            if (z1 == z2) break;
            for (uint32_t u = 0; u < g->nnodes; u++)
                if ((s.st[u] & (IN_Z2 | IN_Z1)) == IN_Z2) s.st[u] &= (uint8_t)~IN_Z2;
            z2 = z1;
        }
        if (z2 == 0) break;
        for (uint32_t u = 0; u < g->nnodes; u++)
            if ((s.st[u] & (IN_A | IN_Z2)) == IN_Z2) {
                s.st[u] = IN_A;
                order[u] = (uint8_t)(k > 255 ? 255 : k);
            }
    }
    free(s.st);
    free(s.need);
    free(s.queue);
    *orders_out = k - 1;
    return 0;
}

/* ---- driver -------------------------------------------------------------------- */
static void graph_free(rgraph *g)
{
    for (int s = 0; s < 2; s++) {
        free(g->drawn[s]);
        free(g->rank[s]);
    }
    free(g->pos_entry);
    free(g->node_pos);
    free(g->node_set);
    free(g->hkey);
    free(g->hval);
    free(g->first);
    free(g->to);
    free(g->flags);
    free(g->pfirst);
    free(g->psrc);
    free(g->pflags);
}

/* Writes the decisions of one solve into t->ruled; returns how many
 * entries it newly decided. */
static uint64_t record(rgraph *g, const uint8_t *order, int w, int chase)
{
    uint64_t n = 0;
    for (uint32_t p = 0; p < g->npos; p++) {
        if (!order[p]) continue;
        uint64_t entry = g->pos_entry[p];
        int side = (int)(entry & 1);
        uint8_t *r = &g->t->ruled[side][entry >> 1];
        if (*r != RULED_NONE) continue; /* decided by check already */
        *r = (uint8_t)ruled_code(side == w, chase, order[p]);
        n++;
    }
    return n;
}

int rules_solve(tb_table *t, uint64_t max_memory, rules_report *rep, char err[XQ_ERR_MAX])
{
    memset(rep, 0, sizeof *rep);
    err[0] = 0;
    if (t->rules == XQ_RULES_NONE) return 0;
    for (int s = 0; s < 2; s++) {
        t->ruled[s] = calloc(t->ix.size ? t->ix.size : 1, 1);
        if (!t->ruled[s]) {
            snprintf(err, XQ_ERR_MAX, "out of memory for the ruled marks");
            return -1;
        }
    }
    rgraph g;
    memset(&g, 0, sizeof g);
    g.t = t;
    g.chases = t->rules == XQ_RULES_FULL;
    g.max_bytes = max_memory ? max_memory : tb_memory_available();
    g.err = err;
    uint8_t *order = NULL;
    int rc = -1;
    if (region_init(&g)) {
        if (!err[0]) snprintf(err, XQ_ERR_MAX, "out of memory for the drawn region");
        goto out;
    }
    if (build(&g)) goto out;
    rep->positions = g.npos;
    rep->nodes = g.nnodes;
    rep->edges = g.nedges;
    order = malloc((uint64_t)g.nnodes + 1);
    if (!order) {
        snprintf(err, XQ_ERR_MAX, "out of memory for the repetition rulings");
        goto out;
    }
    int modes = t->rules == XQ_RULES_FULL ? 2 : 1;
    for (int mode = MODE_CHECK; mode < modes; mode++)
        for (int w = 0; w < 2; w++) {
            int orders = 0;
            if (solve_winner(&g, w, mode, order, &orders)) {
                snprintf(err, XQ_ERR_MAX, "out of memory for the repetition rulings");
                goto out;
            }
            if (orders > RULED_ORDER_MAX) {
                snprintf(err, XQ_ERR_MAX, "the rulings need %d orders, more than the %d a table records", orders,
                         RULED_ORDER_MAX);
                goto out;
            }
            if (orders > rep->orders) rep->orders = orders;
            rep->decided[mode] += record(&g, order, w, mode == MODE_FULL);
        }
    rc = 0;
out:
    free(order);
    graph_free(&g);
    return rc;
}
