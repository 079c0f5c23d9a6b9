/*
 * repetition_escape.c - where side w cannot win by a ruling, found without the
 * game graph, so that the graph is built only where it can matter.
 *
 * Let L be the other side.  Under the condition of repetition.c, w wins an
 * infinite play only if, from some point on, L never makes an idle move
 * (a non-checking move that chases nothing resets L's chase: priority 3).
 * So w cannot win from any position of the largest set S of drawn positions
 * such that
 *   - with L to move, L has a move that is idle and stays in S, or a
 *     capture into a draw (an "escape");
 *   - with w to move, every move of w stays in S or leaves the drawn region
 *     into a position that is not a loss for L;
 * because L can escape forever.  S is computed as a greatest fixed point:
 * start from every drawn position, remove the ones that fail, and re-check
 * the predecessors of every removed position (through un-moves, as
 * retro.c does).  Each L position keeps one escape as a witness and is
 * re-examined only when that witness is removed.
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

/* True if quiet move m of the side to move in b is idle under the mode. */
static int idle_move(const rgraph *g, const xq_board *b, xq_move m)
{
    if (g->mode == MODE_FULL) {
        xq_move_label label;
        xq_label_move(b, m, &label);
        return !label.check && label.nchased == 0;
    }
    xq_board c = *b;
    xq_undo u;
    xq_make_move(&c, m, &u);
    return !xq_in_check(&c, b->side ^ 1);
}

/* An escape of position p (L to move, board b = the entry at site as
 * decoded) still in S, or WITNESS_NONE.  Moves are pseudo-legal; an illegal
 * one reaches a position marked illegal and is skipped, and the labels are
 * computed only for moves that stay in S. */
static uint32_t find_escape(const rgraph *g, xq_board *b, const xq_index_site *site)
{
    const tb_table *t = g->t;
    xq_move list[XQ_MAX_MOVES];
    int n = xq_gen_pseudo(b, list);
    for (int k = 0; k < n; k++) {
        if (b->sq[move_to(list[k])]) {
            xq_undo u;
            xq_make_move(b, list[k], &u);
            uint32_t x = rg_capture_exit(t, u.captured, b);
            xq_unmake_move(b, list[k], &u);
            if (x != NODE_NONE && !rg_exit_mover_loses(x, g->mode) && !rg_exit_mover_wins(x, g->mode))
                return WITNESS_EXIT;
            continue;
        }
        uint64_t j = xq_index_after_site_move(&t->ix, site, b, list[k]);
        if (j == XQ_INDEX_NONE || cell_get(t->cells[b->side ^ 1], t->width, j) != CELL_DRAW) continue;
        uint32_t q = rg_pos_id(g, b->side ^ 1, j);
        if (g->local[q] != NODE_NONE) continue; /* removed from S */
        if (idle_move(g, b, list[k])) return q;
    }
    return WITNESS_NONE;
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

typedef struct {
    rgraph *g;
    uint32_t removed; /* the position just removed */
    int side;         /* side to move in the predecessors */
    uint32_t *queue;
    uint64_t *qn;
} pred_arg;

static void remove_pos(rgraph *g, uint32_t p, uint32_t *queue, uint64_t *qn)
{
    g->local[p] = 0; /* out of S: w might win */
    queue[(*qn)++] = p;
}

/* A predecessor q of a removed position: w to move there can now move out
 * of S; L to move must look for another escape if that was its witness. */
static void recheck(void *arg, uint64_t j)
{
    pred_arg *a = arg;
    rgraph *g = a->g;
    const tb_table *t = g->t;
    if (j == XQ_INDEX_NONE || cell_get(t->cells[a->side], t->width, j) != CELL_DRAW) return;
    uint32_t q = rg_pos_id(g, a->side, j);
    if (g->local[q] != NODE_NONE) return; /* already out */
    if (a->side == g->w) {
        remove_pos(g, q, a->queue, a->qn);
        return;
    }
    if (g->witness[q] != a->removed) return;
    xq_board b;
    xq_index_site site;
    xq_index_decode_at(&t->ix, j, &b, &site);
    b.side = (uint8_t)a->side;
    g->witness[q] = find_escape(g, &b, &site);
    if (g->witness[q] == WITNESS_NONE) remove_pos(g, q, a->queue, a->qn);
}

/* The first examination of every position, in parallel: each writes only
 * its own witness, reading nothing another thread writes (S is still whole:
 * local[] is not touched), so the result does not depend on the threads. */
static void first_pass(void *arg, uint64_t begin, uint64_t end, int thread)
{
    (void)thread;
    rgraph *g = arg;
    for (uint64_t p = begin; p < end; p++) {
        uint64_t entry = g->pos_entry[p];
        if ((int)(entry & 1) == g->w && !g->sub_ruled) {
            g->witness[p] = WITNESS_EXIT;
            continue;
        }
        xq_board b;
        xq_index_site site;
        xq_index_decode_at(&g->t->ix, entry >> 1, &b, &site);
        b.side = (uint8_t)(entry & 1);
        if (b.side == g->w)
            g->witness[p] = g->sub_ruled && has_winning_exit(g, &b) ? WITNESS_NONE : WITNESS_EXIT;
        else
            g->witness[p] = find_escape(g, &b, &site);
    }
}

int64_t rg_escapes(rgraph *g)
{
    const tb_table *t = g->t;
    if (rg_charge(g, (g->npos ? g->npos : 1) * sizeof(uint32_t))) return -1;
    uint32_t *queue = malloc((g->npos ? g->npos : 1) * sizeof *queue);
    if (!queue) {
        snprintf(g->err, XQ_ERR_MAX, "out of memory for the repetition rulings");
        return -1;
    }
    for (uint64_t p = 0; p < g->npos; p++) g->local[p] = NODE_NONE; /* all in S */
    uint64_t qn = 0;
    par_for(g->threads, g->npos, 1 << 12, first_pass, g);
    for (uint64_t p = 0; p < g->npos; p++) {
        /* w's positions keep no witness: any move out of S removes them */
        if (g->witness[p] == WITNESS_NONE) remove_pos(g, (uint32_t)p, queue, &qn);
        if ((g->pos_entry[p] & 1) == (uint64_t)g->w) g->witness[p] = WITNESS_NONE;
    }
    for (uint64_t k = 0; k < qn; k++) {
        uint32_t p = queue[k];
        uint64_t entry = g->pos_entry[p];
        xq_board b;
        xq_index_site site;
        xq_index_decode_at(&t->ix, entry >> 1, &b, &site);
        b.side = (uint8_t)(entry & 1);
        pred_arg a = {g, p, b.side ^ 1, queue, &qn};
        xq_for_each_predecessor(&t->ix, &site, &b, recheck, &a);
    }
    free(queue);
    g->bytes -= (g->npos ? g->npos : 1) * sizeof(uint32_t);
    return (int64_t)qn;
}
