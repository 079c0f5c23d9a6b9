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
 * The rounds are cheap where L cannot check (L's non-idle moves are then
 * chases by advisors and elephants, and W_L is nearly everything), costly
 * where the rulings decide much over many orders, a round each.  So W_L is
 * computed only where L cannot check; elsewhere the graph is built outside
 * the safety region S, the positions where L can idle on *every* move,
 * which W_L contains: a sound place to build it, found by one removal (a
 * layer at a time, on every thread).
 * S alone left KRAABBKAABB (one attacker against full defence) 47 million
 * of its 51 million drawn positions, a graph of 542 million edges in which
 * w won nothing; W_L leaves none.  On KRPKR, W_L would leave 7.4 million
 * positions to S's 8.7 million, after 22 rounds and 29 s against 5 s.
 * L's attractor to S, which W_L also contains, is taken out as well (one
 * more pass, "what L can force into S" below): on KRPKR another 659,703
 * of the positions where red might win, and 152,600 where black might.
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

/* witness values beyond any position id (uint32_t, so not enum constants) */
#define WITNESS_NONE ((uint32_t)0xFFFFFFFFu)
#define WITNESS_EXIT ((uint32_t)0xFFFFFFFEu)

/* Whether drawn position p is in C, the positions the graph is built on
 * (g->inside), and its entry into C. */
static inline int in_c(const rgraph *g, uint32_t p) { return (int)(g->inside[p >> 6] >> (p & 63) & 1); }
static void join_c(rgraph *g, uint32_t p) { g->inside[p >> 6] |= (uint64_t)1 << (p & 63); }
static void leave_c(rgraph *g, uint32_t p) { g->inside[p >> 6] &= ~((uint64_t)1 << (p & 63)); }

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

/* What find_escape keeps of a position, a byte: the place of its witness
 * in the moves it looks through, and whether any move it passed over might
 * let L force play out of C after all (forced_out, below): a move into S
 * that is not idle, or a capture L wins by a ruling. */
enum { AT_PLACE = 0x7F, AT_LEAVES_C = 0x80 };
_Static_assert(XQ_MAX_MOVES <= AT_PLACE + 1, "a place fits below the flag");

/* An escape of position p (L to move, board b = the entry at site as
 * decoded) still in S, or WITNESS_NONE.  Moves are pseudo-legal; an illegal
 * one reaches a position marked illegal and is skipped, and the labels are
 * computed only for moves that stay in S.
 *
 * The first `skip` moves (in the order generated here) are not looked at;
 * *at gets the place of the escape found and keeps AT_LEAVES_C once a
 * move sets it.  While S only shrinks, a move passed over once stays
 * passed over (a capture's exit, a position not drawn, out of S, a move
 * that is not idle: none of these changes), so the search for a new
 * witness may start after the old one: the same witness a search from the
 * first move finds (KCKPP's escapes 14.20 G -> 13.73 G instructions, for
 * a byte a position).  So every move of a position that ends in C is
 * looked at exactly once, and AT_LEAVES_C is clear only if none of its
 * moves can take L out of C. */
static uint32_t find_escape(const rgraph *g, xq_board *b, const xq_index_site *site, unsigned skip, uint8_t *at)
{
    const tb_table *t = g->t;
    xq_move list[XQ_MAX_MOVES];
    unsigned seen = 0, leaves = *at & AT_LEAVES_C;
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
                if (x == NODE_NONE || rg_exit_mover_loses(x, g->mode)) continue;
                if (rg_exit_mover_wins(x, g->mode)) {
                    leaves = AT_LEAVES_C;
                    continue;
                }
                found = WITNESS_EXIT;
                break;
            }
            uint64_t j = xq_index_after_site_move(&t->ix, site, b, list[k]);
            uint32_t q = j == XQ_INDEX_NONE ? NODE_NONE : rg_drawn_id(g, b->side ^ 1, j);
            if (q == NODE_NONE || in_c(g, q)) continue; /* not drawn, or removed from S */
            if (idle_move(g, b, list[k], q)) {
                found = q;
                break;
            }
            leaves = AT_LEAVES_C;
        }
    }
    *at = (uint8_t)(leaves | (seen & AT_PLACE));
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

static void decode_position(const rgraph *g, uint32_t p, xq_board *b, xq_index_site *site)
{
    uint64_t entry = rg_pos_entry(g, NULL, p);
    xq_index_decode_at(&g->t->ix, entry >> 1, b, site);
    b->side = (uint8_t)(entry & 1);
}

/* The escape of L position q after its witness left: find_escape from
 * the move after the witness's place. */
static uint32_t next_escape(const rgraph *g, uint32_t q)
{
    xq_board b;
    xq_index_site site;
    decode_position(g, q, &b, &site);
    return find_escape(g, &b, &site, (g->witness_at[q] & AT_PLACE) + 1u, &g->witness_at[q]);
}

/* The position of entry j with `side` to move if it is drawn, else
 * WITNESS_NONE. */
static uint32_t position_of(const rgraph *g, int side, uint64_t j)
{
    return j == XQ_INDEX_NONE ? WITNESS_NONE : rg_drawn_id(g, side, j); /* NODE_NONE is WITNESS_NONE */
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
            g->witness[p] = WITNESS_EXIT;
            continue;
        }
        rg_decode_next(g, &hint, (uint32_t)p, &b, &site); /* positions in entry order */
        if (b.side == g->w)
            g->witness[p] = has_winning_exit(g, &b) ? WITNESS_NONE : WITNESS_EXIT;
        else {
            g->witness_at[p] = 0;
            g->witness[p] = find_escape(g, &b, &site, 0, &g->witness_at[p]);
        }
    }
}

/* ---- the safety region ---------------------------------------------------- */
/* Marks a position takes in its witness while the removal below visits a
 * layer (beyond any position id, like the two above). */
#define WITNESS_LEAVES ((uint32_t)0xFFFFFFFDu)  /* w to move: leaves S with this layer */
#define WITNESS_RECHECK ((uint32_t)0xFFFFFFFCu) /* L to move: its witness left S */

/* The removal, a layer at a time on every thread.  A layer is the
 * positions that left S last, queue[lo, hi).  Three steps, each reading
 * only what the step before it wrote, so no position is lost to a race:
 *   visit:   their predecessors still in S are appended at queue[hi...):
 *            every w one, and every L one whose witness left (one atomic
 *            compare-and-swap on the witness each, so none twice);
 *   rescue:  each such L position looks for another escape into S as it
 *            stands (a position appended but not yet out may become its
 *            witness: when it leaves, the next layer's visit finds it);
 *   commit:  the others leave S, compacted into the next layer.
 * S, a greatest fixed point, does not depend on the order of removal, so
 * the graph built on it is the same for any thread count.
 *
 * The L positions whose witness is a given w position are kept in a list
 * (`link`: per w position the first, per L position the next; 4 bytes a
 * position), so a w position that leaves finds them without generating
 * its un-moves, which named every predecessor to find the few whose
 * witness it was (KCKPP's escapes 15.06 G -> 14.20 G instructions,
 * KRCKR's about a fifth shorter: docs/BENCHMARKS.md).
 * An L position is on one list at a time: it joins another only in the
 * rescue after its witness left, whose list the visit before has read. */
typedef struct {
    rgraph *g;
    uint32_t *queue;
    uint64_t lo, hi;                    /* the layer */
    uint64_t qn;                        /* the next free slot, taken atomically */
    void (*visit)(void *arg, uint64_t); /* what a layer's un-moves reach: a pred_arg */
    uint32_t *link;                     /* S's removal: the witness lists (below), or NULL */
} removal;

/* What visit_chunk's predecessors need, and the positions they append,
 * gathered a few at a time: one atomic add for each batch instead of one
 * for each position, on a counter both threads would otherwise pass
 * between their caches at every append. */
enum { APPEND_BATCH = 64 };

typedef struct {
    removal *r;
    int side; /* side to move in the predecessors visited */
    int n;    /* positions in batch */
    uint32_t batch[APPEND_BATCH];
} pred_arg;

static void append_batch(pred_arg *a)
{
    uint64_t at = __atomic_fetch_add(&a->r->qn, (uint64_t)a->n, __ATOMIC_RELAXED);
    memcpy(a->r->queue + at, a->batch, (size_t)a->n * sizeof a->batch[0]);
    a->n = 0;
}

/* Appends position q to the next layer if its witness is still `expect`,
 * which it turns into `mark`, so that no position is appended twice.  Most
 * are turned away by a plain load before the locked compare-and-swap,
 * which alone decides. */
static void claim(pred_arg *a, uint32_t q, uint32_t expect, uint32_t mark)
{
    uint32_t *w = &a->r->g->witness[q];
    if (__atomic_load_n(w, __ATOMIC_RELAXED) != expect) return;
    if (__atomic_compare_exchange_n(w, &expect, mark, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
        a->batch[a->n++] = q;
        if (a->n == APPEND_BATCH) append_batch(a);
    }
}

/* A w predecessor of an L position that left S: it leaves too.  (The L
 * predecessors of a w position that left are found by their witness
 * lists, below, not by un-moves.) */
static void visit_predecessor(void *arg, uint64_t j)
{
    pred_arg *a = arg;
    rgraph *g = a->r->g;
    uint32_t q = j == XQ_INDEX_NONE ? NODE_NONE : rg_drawn_id(g, a->side, j);
    if (q == NODE_NONE || in_c(g, q)) return; /* not drawn, or already out */
    claim(a, q, WITNESS_NONE, WITNESS_LEAVES);
}

/* The L positions whose witness is w position p, from the lists (below):
 * those still in S are to look for another escape. */
static void visit_witness_list(pred_arg *a, uint32_t p)
{
    const rgraph *g = a->r->g;
    for (uint32_t q = a->r->link[p]; q != WITNESS_NONE; q = a->r->link[q])
        if (!in_c(g, q)) claim(a, q, p, WITNESS_RECHECK);
}

static void visit_chunk(void *arg, uint64_t begin, uint64_t end, int thread)
{
    (void)thread;
    removal *r = arg;
    pred_arg a = {.r = r};
    for (uint64_t k = r->lo + begin; k < r->lo + end; k++) {
        uint32_t p = r->queue[k];
        if (r->link && rg_pos_side(r->g, p) == r->g->w) {
            visit_witness_list(&a, p);
            continue;
        }
        xq_board b;
        xq_index_site site;
        decode_position(r->g, p, &b, &site);
        a.side = b.side ^ 1;
        xq_for_each_predecessor(&r->g->t->ix, &site, &b, r->visit, &a);
    }
    if (a.n) append_batch(&a);
}

/* Puts L position q on the list of its witness p, a w position.  Threads
 * push onto the same list at once (a compare-and-swap on its head); no
 * list is read while they do (the lists are read by the visits, a step of
 * their own), and the order within a list changes nothing. */
static void push_witness(uint32_t *link, uint32_t q, uint32_t p)
{
    uint32_t head = __atomic_load_n(&link[p], __ATOMIC_RELAXED);
    do link[q] = head;
    while (!__atomic_compare_exchange_n(&link[p], &head, q, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
}

static void rescue_chunk(void *arg, uint64_t begin, uint64_t end, int thread)
{
    (void)thread;
    removal *r = arg;
    rgraph *g = r->g;
    for (uint64_t k = r->hi + begin; k < r->hi + end; k++) {
        uint32_t q = r->queue[k];
        if (g->witness[q] != WITNESS_RECHECK) continue;
        uint32_t x = g->witness[q] = next_escape(g, q);
        if (x == WITNESS_NONE) continue;
        r->queue[k] = WITNESS_NONE; /* stays in S */
        if (x != WITNESS_EXIT) push_witness(r->link, q, x);
    }
}

/* Runs the layers from queue[lo, hi) on: each layer's un-moves name
 * positions (r->visit, appending them), `examine` keeps those that go
 * (dropping the others: WITNESS_NONE in their slot), and each kept one is
 * moved (into C, or out of it) to make the next layer.  Returns how many
 * positions moved after the first layer. */
static uint64_t by_layers(removal *r, par_fn examine, void (*move)(rgraph *, uint32_t))
{
    uint64_t moved = 0;
    while (r->lo < r->hi) {
        r->qn = r->hi;
        par_for(r->g->threads, r->hi - r->lo, 1 << 8, visit_chunk, r);
        par_for(r->g->threads, r->qn - r->hi, 1 << 8, examine, r);
        uint64_t next = r->hi;
        for (uint64_t k = r->hi; k < r->qn; k++) {
            uint32_t q = r->queue[k];
            if (q == WITNESS_NONE) continue;
            move(r->g, q);
            r->queue[next++] = q;
        }
        moved += next - r->hi;
        r->lo = r->hi;
        r->hi = next;
    }
    return moved;
}

/* The complement of the safety region S: the positions where L can idle on
 * every move (an idle move into S, or a capture into a draw) while w moves
 * anywhere, computed by removal.  S lies inside W_L, so its complement is
 * a larger (still sound) place to build the graph.  The witnesses come
 * from first_pass. */
static int64_t safety_complement(rgraph *g)
{
    uint64_t n = g->npos ? g->npos : 1;
    if (rg_charge(g, 2 * n * sizeof(uint32_t))) return -1;
    removal r = {.g = g,
                 .queue = malloc(n * sizeof(uint32_t)),
                 .visit = visit_predecessor,
                 .link = malloc(n * sizeof(uint32_t))};
    int64_t rc = -1;
    if (!r.queue || !r.link) {
        snprintf(g->err, XQ_ERR_MAX, "out of memory for the repetition rulings");
        goto out;
    }
    for (uint64_t p = 0; p < g->npos; p++) r.link[p] = WITNESS_NONE;
    for (uint64_t p = 0; p < g->npos; p++) {
        uint32_t x = g->witness[p];
        if (x == WITNESS_NONE) {
            join_c(g, (uint32_t)p); /* out of S: w might win */
            r.queue[r.hi++] = (uint32_t)p;
        }
        if (rg_pos_side(g, (uint32_t)p) == g->w) /* w's positions keep no witness: any move out of S removes them */
            g->witness[p] = WITNESS_NONE;
        else if (x != WITNESS_NONE && x != WITNESS_EXIT)
            push_witness(r.link, (uint32_t)p, x);
    }
    by_layers(&r, rescue_chunk, join_c);
    rc = (int64_t)r.hi;
out:
    free(r.queue);
    free(r.link);
    g->bytes -= 2 * n * sizeof(uint32_t);
    return rc;
}

/* ---- what L can force into S ------------------------------------------------
 * From a position where L can force play into S, w cannot win either: L
 * gets there, then idles on every move.  That region, L's attractor to S,
 * is the L positions with a move into it (once, a check or a chase serves
 * as well as an idle move) or a capture into an exit L does not lose, and
 * the w positions without a winning capture all of whose moves lead into
 * it.  It lies inside W_L, so taking it out of C changes no result and no
 * order (the header's argument), and the graph loses its nodes and the
 * edges into them.  Measured on the first tables that need it (BENCHMARKS:
 * KRPKR's graph 71.8 -> 61.4 million edges, 1,355 -> 1,033 MiB).
 *
 * Found like S's complement, a layer at a time on every thread: the first
 * layer is every position of C that L can force out as C stands (an L
 * position only if find_escape flagged one of its moves); then the
 * positions of C that a layer's un-moves name are examined again against
 * C without the layers so far, and those that L can now force out are the
 * next layer.  (Starting from S's un-moves instead, to spare the scan of
 * C, cost more: KRPKR's escapes 4.2-4.9 s against 3.6-3.7.)  The un-moves name some positions that are not
 * predecessors (unmove.h), so a candidate is examined in full, never
 * counted down, and marked once per layer (a compare-and-swap on its
 * witness, which S's removal no longer needs).  The region is a least
 * fixed point: the layers, and so C, do not depend on the threads. */
#define MARK_IN ((uint32_t)0xFFFFFFFBu)   /* in C, not named by the current layer */
#define MARK_CAND ((uint32_t)0xFFFFFFFAu) /* in C, named: to be examined */
#define MARK_OUT ((uint32_t)0xFFFFFFF9u)  /* L forces it out of C */

/* Whether L can force play from position p (in C, board b) out of C, as
 * C stands: see above. */
static int forced_out(const rgraph *g, xq_board *b, const xq_index_site *site)
{
    const tb_table *t = g->t;
    int mine = b->side == g->w;
    if (mine && has_winning_exit(g, b)) return 0;
    xq_move list[XQ_MAX_MOVES];
    int n = xq_gen_pseudo(b, list);
    for (int k = 0; k < n; k++) {
        if (b->sq[move_to(list[k])]) {
            if (mine) continue; /* w's other captures: not into wins */
            xq_undo u;
            xq_make_move(b, list[k], &u);
            uint32_t x = rg_capture_exit(t, u.captured, b);
            xq_unmake_move(b, list[k], &u);
            if (x != NODE_NONE && !rg_exit_mover_loses(x, g->mode)) return 1;
            continue;
        }
        uint32_t q = position_of(g, b->side ^ 1, xq_index_after_site_move(&t->ix, site, b, list[k]));
        if (q == WITNESS_NONE) continue; /* illegal, or a loss for the mover */
        if (mine && in_c(g, q)) return 0;
        if (!mine && !in_c(g, q)) return 1;
    }
    return mine;
}

/* The first layer: every position of C that L can force out as C stands
 * (read only here), examined in entry order, each decode starting from
 * the last; the others are marked MARK_IN. */
static void forced_first_chunk(void *arg, uint64_t begin, uint64_t end, int thread)
{
    (void)thread;
    rgraph *g = arg;
    xq_board b;
    xq_index_site site;
    xq_index_site_clear(&site);
    rg_hint hint = {0};
    for (uint64_t p = begin; p < end; p++) {
        if (!in_c(g, (uint32_t)p)) continue;
        /* an L position whose moves the escapes looked through, none of
         * which could take it out of C (find_escape): not out now */
        if (rg_pos_side(g, (uint32_t)p) != g->w && !(g->witness_at[p] & AT_LEAVES_C)) {
            g->witness[p] = MARK_IN;
            continue;
        }
        rg_decode_next(g, &hint, (uint32_t)p, &b, &site);
        g->witness[p] = forced_out(g, &b, &site) ? MARK_OUT : MARK_IN;
    }
}

static void forced_candidate(void *arg, uint64_t j)
{
    pred_arg *a = arg;
    rgraph *g = a->r->g;
    uint32_t q = position_of(g, a->side, j);
    if (q != WITNESS_NONE && in_c(g, q)) claim(a, q, MARK_IN, MARK_CAND);
}

static void forced_examine_chunk(void *arg, uint64_t begin, uint64_t end, int thread)
{
    (void)thread;
    removal *r = arg;
    rgraph *g = r->g;
    for (uint64_t k = r->hi + begin; k < r->hi + end; k++) {
        uint32_t q = r->queue[k];
        xq_board b;
        xq_index_site site;
        decode_position(g, q, &b, &site);
        if (forced_out(g, &b, &site)) {
            g->witness[q] = MARK_OUT;
        } else {
            g->witness[q] = MARK_IN; /* another layer may name it again */
            r->queue[k] = WITNESS_NONE;
        }
    }
}

/* Takes L's attractor to S out of C (g->inside); returns how many
 * positions are left in C, or -1.  The witnesses are scratch by now. */
static int64_t forced_out_of_c(rgraph *g)
{
    uint64_t n = g->npos ? g->npos : 1;
    if (rg_charge(g, n * sizeof(uint32_t))) return -1;
    removal r = {.g = g, .queue = malloc(n * sizeof(uint32_t)), .visit = forced_candidate};
    if (!r.queue) {
        snprintf(g->err, XQ_ERR_MAX, "out of memory for the repetition rulings");
        return -1;
    }
    par_for(g->threads, g->npos, 1 << 12, forced_first_chunk, g);
    int64_t left = 0;
    for (uint64_t p = 0; p < g->npos; p++) {
        if (!in_c(g, (uint32_t)p)) continue;
        left++;
        if (g->witness[p] == MARK_OUT) r.queue[r.hi++] = (uint32_t)p;
    }
    for (uint64_t k = 0; k < r.hi; k++) leave_c(g, r.queue[k]);
    left -= (int64_t)r.hi;
    left -= (int64_t)by_layers(&r, forced_examine_chunk, leave_c);
    free(r.queue);
    g->bytes -= n * sizeof(uint32_t);
    return left;
}

/* ---- W_L, by rounds ---------------------------------------------------------- */
/* A growing list of positions, charged to the rulings' memory. */
typedef struct {
    uint32_t *v;
    uint64_t n, cap;
} plist;

static int plist_push(rgraph *g, plist *l, uint32_t p)
{
    if (l->n == l->cap) {
        uint64_t cap = l->cap ? 2 * l->cap : 1024;
        if (rg_charge(g, cap * sizeof *l->v)) return -1;
        uint32_t *v = realloc(l->v, cap * sizeof *v);
        if (!v) {
            snprintf(g->err, XQ_ERR_MAX, "out of memory for the repetition rulings");
            return -1;
        }
        g->bytes -= l->cap * sizeof *l->v;
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = p;
    return 0;
}

static void plist_free(rgraph *g, plist *l)
{
    free(l->v);
    g->bytes -= l->cap * sizeof *l->v;
    memset(l, 0, sizeof *l);
}

/* What the rounds know of a position not in C: never a possible member
 * of a trap (RS_NONE), a member of this round's region still in its trap
 * (RS_IN), or a possible member L was found to force out of a trap
 * (RS_OUT).  A position leaves RS_OUT only by joining a later round's
 * region. */
enum { RS_NONE = 0, RS_IN = 1, RS_OUT = 2 };

/* The state of the rounds. */
typedef struct {
    rgraph *g;
    uint8_t *state;                  /* per position: RS_* */
    plist region;                    /* this round's region: its possible members */
    plist work;                      /* members to check again */
    plist nolink;                    /* L positions without an idle move into Z (in C or not) */
    plist wwin;                      /* w positions with a capture into a win */
    uint64_t nolink_seen, wwin_seen; /* entries of the lists taken by earlier rounds */
    int side;                        /* side to move in the predecessors being visited */
    uint32_t from;                   /* the position whose predecessors are visited */
    int failed;
} trap;

static void join_region(trap *k, uint32_t q)
{
    k->state[q] = RS_IN;
    if (plist_push(k->g, &k->region, q)) k->failed = 1;
}

/* A predecessor of a region member that may have to be looked at again:
 * one forced out of an earlier trap (it might have been forced out through
 * the member), or a w position not yet a possible member (a predecessor of
 * a new L member). */
static void widen_region(void *arg, uint64_t j)
{
    trap *k = arg;
    uint32_t q = position_of(k->g, k->side, j);
    if (q == WITNESS_NONE || in_c(k->g, q) || k->state[q] == RS_IN) return;
    if (k->state[q] == RS_OUT || k->side == k->g->w) join_region(k, q);
}

/* A predecessor in X of a position just removed from X: check it again. */
static void recheck_member(void *arg, uint64_t j)
{
    trap *k = arg;
    uint32_t q = position_of(k->g, k->side, j);
    if (q != WITNESS_NONE && k->state[q] == RS_IN && plist_push(k->g, &k->work, q)) k->failed = 1;
}

/* An L predecessor (in Z) whose witness was the position that just joined
 * C looks for another idle move into Z; without one it joins the list. */
static void rewitness(void *arg, uint64_t j)
{
    trap *k = arg;
    rgraph *g = k->g;
    uint32_t q = position_of(g, k->side, j);
    if (q == WITNESS_NONE || in_c(g, q) || g->witness[q] != k->from) return;
    if ((g->witness[q] = next_escape(g, q)) == WITNESS_NONE && plist_push(g, &k->nolink, q)) k->failed = 1;
}

/* Whether p may stay in the trap X: see the header. */
static int stays(const trap *k, uint32_t p)
{
    const rgraph *g = k->g;
    const tb_table *t = g->t;
    xq_board b;
    xq_index_site site;
    decode_position(g, p, &b, &site);
    int mine = b.side == g->w;
    if (mine && g->witness[p] == WITNESS_NONE) return 1; /* a capture into a win */
    xq_move list[XQ_MAX_MOVES];
    int n = xq_gen_pseudo(&b, list);
    for (int i = 0; i < n; i++) {
        if (b.sq[move_to(list[i])]) {
            if (mine) continue; /* w's other captures: not into wins */
            xq_undo u;
            xq_make_move(&b, list[i], &u);
            uint32_t x = rg_capture_exit(t, u.captured, &b);
            xq_unmake_move(&b, list[i], &u);
            if (x != NODE_NONE && !rg_exit_mover_loses(x, g->mode)) return 0; /* L survives it */
            continue;
        }
        uint32_t q = position_of(g, b.side ^ 1, xq_index_after_site_move(&t->ix, &site, &b, list[i]));
        if (q == WITNESS_NONE) continue; /* illegal, or a loss for the mover (no move from a draw wins) */
        int inside = in_c(g, q) || k->state[q] == RS_IN;
        if (mine && inside) return 1;
        if (!mine && !inside) return 0;
    }
    return !mine;
}

static void visit_predecessors(trap *k, uint32_t p, void (*fn)(void *, uint64_t))
{
    xq_board b;
    xq_index_site site;
    decode_position(k->g, p, &b, &site);
    k->side = b.side ^ 1;
    k->from = p;
    xq_for_each_predecessor(&k->g->t->ix, &site, &b, fn, k);
}

/* One round: the trap X among the possible members, added to C.  Returns
 * how many positions it added, or -1.
 *
 * A round looks again only at what the last one may have changed.  The
 * possible members new to this round (L positions that lost their last
 * idle move into Z, and w positions moving to them) are its region's
 * seed; a position an earlier round forced out of its trap joins the
 * region if it has a move into the region.  Every other position forced
 * out stays out: the reasons it was removed for (a move of L's to a
 * position that was no possible member, or forced out before it; a w
 * position's every move to such positions) involve no position that has
 * changed since, as C grew only by the last trap, which no position forced
 * out moves into.  So the trap found in the region is the trap among all
 * possible members (KRKNN: 27 rounds of about 700,000 possible members
 * each, of which each round adds 6 to 58,000 to C). */
static int64_t round_trap(trap *k)
{
    rgraph *g = k->g;
    k->region.n = 0;
    plist *lists[2] = {&k->nolink, &k->wwin};
    uint64_t *seen[2] = {&k->nolink_seen, &k->wwin_seen};
    for (int l = 0; l < 2; l++) {
        for (uint64_t i = *seen[l]; i < lists[l]->n; i++) {
            uint32_t p = lists[l]->v[i];
            if (!in_c(g, p) && k->state[p] != RS_IN) join_region(k, p);
        }
        *seen[l] = lists[l]->n;
    }
    for (uint64_t i = 0; i < k->region.n && !k->failed; i++) visit_predecessors(k, k->region.v[i], widen_region);
    if (k->failed) return -1;
    /* the greatest fixed point, by removal */
    k->work.n = 0;
    for (uint64_t i = 0; i < k->region.n; i++)
        if (plist_push(g, &k->work, k->region.v[i])) return -1;
    while (k->work.n) {
        uint32_t p = k->work.v[--k->work.n];
        if (k->state[p] != RS_IN || stays(k, p)) continue;
        k->state[p] = RS_OUT;
        visit_predecessors(k, p, recheck_member);
        if (k->failed) return -1;
    }
    /* what stayed joins C; L positions whose witness it was look again */
    int64_t added = 0;
    for (uint64_t i = 0; i < k->region.n; i++) {
        uint32_t p = k->region.v[i];
        if (k->state[p] != RS_IN) continue;
        k->state[p] = RS_NONE;
        join_c(g, p); /* in C: w might win */
        added++;
    }
    for (uint64_t i = 0; i < k->region.n; i++) {
        uint32_t p = k->region.v[i];
        if (in_c(g, p) && rg_pos_side(g, p) == g->w) visit_predecessors(k, p, rewitness);
    }
    return k->failed ? -1 : added;
}

/* The complement C of W_L, by rounds (see the header); the witnesses come
 * from first_pass. */
static int64_t buchi_complement(rgraph *g)
{
    uint64_t n = g->npos ? g->npos : 1;
    if (rg_charge(g, n)) return -1;
    trap k = {.g = g, .state = calloc(n, 1)};
    int64_t total = -1;
    if (!k.state) {
        snprintf(g->err, XQ_ERR_MAX, "out of memory for the repetition rulings");
        goto out;
    }
    for (uint64_t p = 0; p < g->npos; p++)
        if (g->witness[p] == WITNESS_NONE &&
            plist_push(g, rg_pos_side(g, (uint32_t)p) == g->w ? &k.wwin : &k.nolink, (uint32_t)p))
            goto out;
    total = 0;
    for (int64_t added; (added = round_trap(&k)) != 0; total += added)
        if (added < 0) {
            total = -1;
            break;
        }
out:
    free(k.state);
    g->bytes -= n;
    plist_free(g, &k.region);
    plist_free(g, &k.work);
    plist_free(g, &k.nolink);
    plist_free(g, &k.wwin);
    return total;
}

/* Whether L has a piece that can give check (a rook, horse, cannon or
 * pawn).  Without one, L's only non-idle moves are chases by advisors and
 * elephants, which w can seldom force for ever: W_L is then nearly every
 * drawn position and the rounds find it at once.  With one, the rulings
 * tend to decide millions of positions over many orders, a round each
 * (KRPKR: 22 rounds, 29 s against 5 s for S, for 15% fewer positions in
 * the graph), so S is the better bargain there. */
static int loser_can_check(const rgraph *g)
{
    const xq_material *m = &g->t->mat;
    int l = g->w ^ 1;
    return m->count[l][ROOK] + m->count[l][HORSE] + m->count[l][CANNON] + m->count[l][PAWN] > 0;
}

/* The witnesses live only while the escapes are found: the graph built
 * next, and its solve, the peak of the rulings' memory, do without them. */
int64_t rg_escapes(rgraph *g)
{
    uint64_t n = g->npos ? g->npos : 1, bytes = n * (sizeof *g->witness + 1), words = g->npos / 64 + 1;
    if (rg_charge(g, bytes)) return -1;
    g->witness = malloc(n * sizeof *g->witness);
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
    /* W_L, found by rounds, holds its own attractor; S does not */
    int safety = loser_can_check(g);
    int64_t left = safety ? safety_complement(g) : buchi_complement(g);
    if (left > 0 && safety) left = forced_out_of_c(g);
    free(g->witness);
    free(g->witness_at);
    g->witness = NULL;
    g->witness_at = NULL;
    g->bytes -= bytes;
    rg_rank_bits(g->inside, words, g->inside_rank, 0);
    return left;
}
