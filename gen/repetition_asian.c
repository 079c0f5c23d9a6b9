/*
 * repetition_asian.c - the game of rule set asian (repetition_graph.c,
 * "rule set asian", gives the priorities and why they decide it) solved
 * for one winner w.
 *
 * Five priorities, edges of W and L alternating, max-parity with the even
 * ones W's: W's winning region is the nested fixed point
 *   mu Z5. nu Z4. mu Z3. nu Z2. mu Z1. CPre(5: Z5, 4: Z4, 3: Z3, 2: Z2, 1: Z1)
 * (Emerson and Jutla, "Tree automata, mu-calculus and determinacy", 1991),
 * where CPre holds at a W node with an edge of priority p into Z_p (or an
 * exit W wins), and at an L node whose every edge of priority p goes into
 * Z_p (or to an exit L loses).  The outer mu counts the orders, as under
 * full (repetition.c): order k is won because L, to avoid positions of
 * order below k, must keep from breaking off both its checks and its
 * chases, and then W wins the inner game.  The inner fixed points are
 * computed afresh, each mu Z1 an attractor with a counter per L node,
 * seeded and then grown a layer at a time on all threads; the iterates
 * and orders are sets defined without regard to the order nodes are
 * visited in, so the result is the same for any thread count.
 */
#include <stdlib.h>
#include <string.h>

#include "parallel.h"
#include "repetition_graph.h"

/* Z2..Z5 per node; Z1, the attractor being built, apart (threads write it
 * while they read these). */
enum { IN_Z2 = 2, IN_Z3 = 4, IN_Z4 = 8, IN_Z5 = 16 };

/* Orders whose nu Z4 loop takes more steps than this keep none for the
 * next (a step count is kept in a byte). */
enum { KEPT_STEPS_MAX = 250 };

typedef struct {
    const rgraph *g;
    uint8_t *st;   /* IN_* bits per node */
    uint8_t *z1;   /* 1 for the nodes of Z1 */
    int32_t *need; /* L nodes: priority-1 edges still to fall into Z1; -1 never */
    uint32_t *queue;
    uint32_t qn, head; /* nodes queued; the attractor's layer is queue[head..qn) */
    /* The mu Z3 results of the last order's nu Z4 steps (see inner):
     * step i's holds u iff kept[u] > i.  kept_last: that order's last
     * step, -1 if none is kept.  next[] gathers the current order's. */
    uint8_t *kept, *next;
    int kept_last;
} asian_work;

static int prio_of(uint8_t flags) { return flags >> F_PRIO_SHIFT & 7; }

/* The bit of Z_p, for p >= 2. */
static uint8_t set_bit(int p) { return (uint8_t)(1u << (p - 1)); }

static void enqueue(asian_work *s, uint32_t u) { s->queue[__atomic_fetch_add(&s->qn, 1, __ATOMIC_RELAXED)] = u; }

/* Whether node u starts Z1 with Z1 empty, and its counter.  A node of Z5
 * (won at a lower order) is in every iterate (rg_solve_asian), so it
 * starts Z1 unexamined. */
static int seed_node(const asian_work *s, uint32_t u)
{
    const rgraph *g = s->g;
    if (s->st[u] & IN_Z5) return 1;
    int mine = rg_side_of(g, u) == g->w;
    int32_t need = 0;
    for (uint64_t e = g->first[u]; e < g->first[u + 1]; e++) {
        uint32_t ew = g->edge[e], v = edge_target(ew);
        int p = prio_of(edge_flags(ew));
        if (mine) {
            if (v >= NODE_MAX ? rg_exit_mover_wins(v, MODE_ASIAN) : p >= 2 && (s->st[v] & set_bit(p))) return 1;
        } else if (v >= NODE_MAX ? !rg_exit_mover_loses(v, MODE_ASIAN) : p >= 2 && !(s->st[v] & set_bit(p))) {
            need = -1;
            break;
        } else if (v < NODE_MAX && p == 1) {
            need++;
        }
    }
    s->need[u] = mine ? 1 : need;
    return !mine && need == 0;
}

static void seed_chunk(void *arg, uint64_t begin, uint64_t end, int thread)
{
    (void)thread;
    asian_work *s = arg;
    for (uint64_t u = begin; u < end; u++) {
        int in = seed_node(s, (uint32_t)u);
        __atomic_store_n(&s->z1[u], (uint8_t)in, __ATOMIC_RELAXED);
        if (in) enqueue(s, (uint32_t)u);
    }
}

/* One layer of the attractor: the predecessors, by priority-1 edges, of
 * the nodes that joined Z1 last.  A W node joins by any of them; an L
 * node when its counter reaches 0 (one thread sees that). */
static void attract_chunk(void *arg, uint64_t begin, uint64_t end, int thread)
{
    (void)thread;
    asian_work *s = arg;
    const rgraph *g = s->g;
    for (uint64_t i = begin; i < end; i++) {
        uint32_t v = s->queue[s->head + i];
        for (uint64_t k = g->pfirst[v]; k < g->pfirst[v + 1]; k++) {
            uint32_t pw = g->pred[k], u = edge_target(pw);
            if (prio_of(edge_flags(pw)) != 1 || __atomic_load_n(&s->z1[u], __ATOMIC_RELAXED)) continue;
            if (rg_side_of(g, u) != g->w) {
                if (__atomic_load_n(&s->need[u], __ATOMIC_RELAXED) < 0 ||
                    __atomic_sub_fetch(&s->need[u], 1, __ATOMIC_RELAXED) != 0)
                    continue;
                __atomic_store_n(&s->z1[u], 1, __ATOMIC_RELAXED);
            } else if (__atomic_exchange_n(&s->z1[u], 1, __ATOMIC_RELAXED)) {
                continue; /* another thread took it */
            }
            enqueue(s, u);
        }
    }
}

/* Z1 = mu Z1. CPre(...) for the Z2..Z5 in st, into z1; returns its size.
 * Which nodes join in which layer does not depend on the threads. */
static uint32_t attract(asian_work *s)
{
    const rgraph *g = s->g;
    s->qn = 0;
    par_for(g->threads, g->nnodes, 1 << 12, seed_chunk, s);
    uint64_t cap = (uint64_t)g->nnodes + 1;
    for (s->head = 0; s->head < s->qn;) {
        uint32_t tail = s->qn;
        rg_sort_layer(s->queue, s->head, tail, cap);
        par_for(g->threads, tail - s->head, 256, attract_chunk, s);
        s->head = tail;
    }
    return s->qn;
}

/* Sets bit `to` exactly where bit `from` is set. */
static void copy_set(const asian_work *s, uint8_t from, uint8_t to)
{
    for (uint32_t u = 0; u < s->g->nnodes; u++) s->st[u] = (uint8_t)((s->st[u] & ~to) | ((s->st[u] & from) ? to : 0));
}

/* Z2 := Z2 & Z1; returns its size. */
static uint32_t keep_z1(const asian_work *s)
{
    uint32_t n = 0;
    for (uint32_t u = 0; u < s->g->nnodes; u++) {
        if (!s->z1[u]) s->st[u] &= (uint8_t)~IN_Z2;
        n += (s->st[u] & IN_Z2) != 0;
    }
    return n;
}

static void fill_set(const asian_work *s, uint8_t bit, int on)
{
    for (uint32_t u = 0; u < s->g->nnodes; u++) s->st[u] = (uint8_t)(on ? s->st[u] | bit : s->st[u] & ~bit);
}

/* Z3 := where step `step` of the nu Z4 loop starts its mu Z3 loop: the
 * result of the last order's step min(step, kept_last), else Z5 (see
 * inner); returns its size. */
static uint32_t start_z3(const asian_work *s, int step)
{
    if (s->kept_last < 0) {
        copy_set(s, IN_Z5, IN_Z3);
        uint32_t n = 0;
        for (uint32_t u = 0; u < s->g->nnodes; u++) n += (s->st[u] & IN_Z5) != 0;
        return n;
    }
    int i = step < s->kept_last ? step : s->kept_last;
    uint32_t n = 0;
    for (uint32_t u = 0; u < s->g->nnodes; u++) {
        int in = s->kept[u] > i;
        s->st[u] = (uint8_t)(in ? s->st[u] | IN_Z3 : s->st[u] & ~IN_Z3);
        n += (uint32_t)in;
    }
    return n;
}

/* Records Z3, the result of step `step`'s mu Z3 loop, for the next order.
 * The results shrink from step to step, so a node's count of them is
 * the last step it is in, plus one. */
static void keep_z3(const asian_work *s, int step)
{
    if (step >= KEPT_STEPS_MAX) return;
    for (uint32_t u = 0; u < s->g->nnodes; u++)
        if (s->st[u] & IN_Z3) s->next[u] = (uint8_t)(step + 1);
}

/* The inner game for the Z5 in st: nu Z4. mu Z3. nu Z2.
 * mu Z1, left in IN_Z4; returns its size.  Each iterate is monotone in the
 * one before, so an iteration has converged when its size stops changing.
 *
 * Every iterate holds Z5, so its nodes are not examined.  Z5 = Y_j, the
 * last order's result, is a fixed point at every level of order j's
 * computation: Y_j = mu Z1. CPre(Y_(j-1), Y_j, Y_j, Y_j, Z1) and
 * Y_j = mu Z3. nu Z2. mu Z1. CPre(Y_(j-1), Y_j, Z3, Z2, Z1).  CPre is
 * monotone in every set and Y_(j-1) lies in Y_j, so
 *   mu Z1. CPre(Z5, Z4, Z3, Z2, Z1) holds Z5 whenever Z4, Z3 and Z2 do;
 *   mu Z3 (for any Z4 holding Z5) holds Z5: it is at least order j's.
 * Z4 starts from every node (nu), and Z2 from Z4: the nu Z2 loop ends in
 * mu Z3's next iterate, which lies in its least fixed point, which is the
 * next Z4, which lies in this one (the nu Z4 loop only shrinks); each step
 * keeps what both the step before and the attractor hold, so it shrinks
 * from there to the same greatest fixed point.  Z3 starts from Z5: by the
 * first line the step from Z5 holds Z5, so the climb from there is
 * monotone, ends at a fixed point, and that is the least one because it
 * lies below any fixed point holding Z5, which the second line says the
 * least one is.
 *
 * From the second order on, mu Z3 starts higher: at the result its loop
 * had at the same step of the last order (the warm start of Long, Browne,
 * Clarke, Jha and Marrero, "An improved algorithm for the evaluation of
 * fixpoint expressions", 1994).  The nu Z4 loop starts from every node at
 * every order, and its step is monotone in Z5 and Z4, so by induction on i
 * its i-th iterate at this order holds the i-th of the last (Z5 grew), and
 * so mu Z3's least fixed point at step i holds the last order's at step i,
 * R_i = F_old(R_i), which holds Z5 (the last order's result is its last
 * iterate, which lies in every earlier one).  F being monotone in its
 * parameters, F_new(R_i) holds R_i, so the climb from R_i is monotone and
 * ends at the least fixed point above R_i, which is the least fixed point.
 * Past the last order's final step m its iterates stay at R_m, which then
 * serves.  The results are the same sets as from a cold start: only the
 * work changes. */
static uint32_t inner(asian_work *s)
{
    uint32_t z4 = s->g->nnodes;
    fill_set(s, IN_Z4, 1);
    memset(s->next, 0, s->g->nnodes);
    for (int step = 0;; step++) {
        uint32_t z3 = start_z3(s, step);
        for (;;) {
            uint32_t z2 = z4;
            copy_set(s, IN_Z4, IN_Z2);
            for (;;) {
                attract(s);
                uint32_t z1 = keep_z1(s);
                if (z1 == z2) break;
                z2 = z1;
            }
            copy_set(s, IN_Z2, IN_Z3);
            if (z2 == z3) break;
            z3 = z2;
        }
        keep_z3(s, step);
        copy_set(s, IN_Z3, IN_Z4);
        if (z3 == z4) {
            uint8_t *t = s->kept;
            s->kept = s->next;
            s->next = t;
            s->kept_last = step < KEPT_STEPS_MAX ? step : -1;
            return z4;
        }
        z4 = z3;
    }
}

int rg_solve_asian(const rgraph *g, uint8_t *order, int *orders)
{
    uint64_t n = (uint64_t)g->nnodes + 1;
    asian_work s = {.g = g,
                    .st = calloc(n, 1),
                    .z1 = calloc(n, 1),
                    .need = malloc(n * sizeof(int32_t)),
                    .queue = malloc(n * sizeof(uint32_t)),
                    .kept = malloc(n),
                    .next = malloc(n),
                    .kept_last = -1};
    int rc = -1;
    if (!s.st || !s.z1 || !s.need || !s.queue || !s.kept || !s.next) goto out;
    memset(order, 0, g->nnodes);
    uint32_t won = 0;
    int k = 0;
    for (;;) {
        k++;
        uint32_t z4 = inner(&s);
        if (z4 == won) break;
        for (uint32_t u = 0; u < g->nnodes; u++)
            if ((s.st[u] & IN_Z4) && !(s.st[u] & IN_Z5)) {
                s.st[u] |= IN_Z5;
                order[u] = (uint8_t)(k > 255 ? 255 : k);
            }
        won = z4;
    }
    *orders = k - 1;
    rc = 0;
out:
    free(s.st);
    free(s.z1);
    free(s.need);
    free(s.queue);
    free(s.kept);
    free(s.next);
    return rc;
}
