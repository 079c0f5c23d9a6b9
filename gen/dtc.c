/*
 * dtc.c - distance to conversion (dtc.h), by two ply-synchronous passes in
 * the manner of retro.c over the positions with an ordinary result.
 *
 * A conversion is a capture or the end of the game.  From a won position
 * the winner aims at a conversion that keeps the result; from a lost one
 * the loser delays it as long as he can, and escapes altogether if some
 * capture of his leads to a position the winner cannot win (in time).
 *
 *   pass 1 ("holds"): a capture keeps the result only if it holds under the
 *     limit in the subtable (a win that is not cursed there).  Positions
 *     whose distance comes out at most the limit hold from a fresh counter;
 *     the others are cursed wins and blessed losses (Syzygy's terms).
 *   pass 2 ("any"): a capture into any win keeps the result.  It gives the
 *     distance recorded for cursed wins and blessed losses: the plies to
 *     the next capture that keeps a win at all, should the opponent err.
 *
 * The counter resets on captures and on nothing else: a pawn move does not
 * reset it (the Xiangqi rule, unlike chess).  Since no other move matters,
 * a position that holds at counter c is one whose pass-1 distance is at
 * most limit - c: the tables store one distance and the reader compares.
 *
 * Each pass: ply 0 is the positions with no legal move; ply 1 adds the
 * wins by a capture that keeps the result and the losses all of whose
 * moves are such captures.  At ply k, every position decided at ply k-1
 * flags its predecessors (retro.c's un-moves), and each flagged position is
 * then examined alone: a win if some move reaches a loss decided at k-1 or
 * sooner, a loss if every move reaches a decided win (or a capture that
 * keeps it), at one more than the longest.  Writes go only to the examined
 * side's cells, reads only to the other side's, so the result does not
 * depend on the threads.
 */
#include "dtc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cell.h"
#include "movegen.h"
#include "parallel.h"
#include "unmove.h"

enum { MAX_THREADS = 64, GRAIN = 1 << 14, UNKNOWN = 0xFFFF };

typedef struct {
    tb_table *t;
    uint16_t *dist[2];
    uint64_t *cand[2];
    int any; /* pass 2 */
    int ply;
    int side; /* side whose positions phase B examines */
    uint64_t decided[MAX_THREADS];
} dtc_ctx;

unsigned dtc_capture_code(const tb_table *t, xq_piece taken, const xq_board *b)
{
    uint64_t i;
    int side;
    const tb_table *s = tb_capture_entry(t, taken, b, &i, &side);
    return i == XQ_INDEX_NONE || !s->dtc[0] ? DTC_NONE : s->dtc[side][i];
}

/* Whether a capture (b after it) keeps the result for the capturer's
 * opponent... from the point of view of the side to move after it: the
 * position reached is an ordinary result `want` (1 win, -1 loss for the side
 * to move there) that holds (pass 1) or at least exists (pass 2). */
static int capture_keeps(const dtc_ctx *c, xq_piece taken, const xq_board *after, int want)
{
    unsigned v = tb_capture_cell(c->t, taken, after);
    if (want > 0 ? !cell_is_win(v) : !cell_is_loss(v)) return 0;
    unsigned d = dtc_capture_code(c->t, taken, after);
    return d != DTC_NONE && (c->any || !dtc_beyond(d));
}

static inline unsigned dist_of(const dtc_ctx *c, int side, uint64_t i)
{
    return __atomic_load_n(&c->dist[side][i], __ATOMIC_RELAXED);
}

/* Distance of a position at this ply, or UNKNOWN.  b: the entry at site
 * as decoded; role 1 = won (cell), -1 = lost.  At ply 0 only what needs no
 * distance of this table is decided: no legal move, and captures that keep
 * the result.  Legality is read off the successor's cell, as in retro.c.
 *
 * A win is decided by its first move into a final loss: every position
 * decided at ply p > 0 has distance p (a loss of distance d flags its
 * predecessors at ply d + 1, which decides each won one there), so at ply
 * k the final losses a still undecided win reaches all have distance k - 1,
 * and at ply 0 every conversion found has distance 0. */
static unsigned examine(const dtc_ctx *c, xq_board *b, const xq_index_site *site, int role, int ply)
{
    const tb_table *t = c->t;
    xq_move list[XQ_MAX_MOVES];
    int n = xq_gen_pseudo(b, list), legal = 0;
    unsigned longest = 0;
    for (int k = 0; k < n; k++) {
        unsigned d;
        if (b->sq[move_to(list[k])]) {
            xq_undo u;
            xq_make_move(b, list[k], &u);
            unsigned v = tb_capture_cell(t, u.captured, b);
            /* a capture by the winner must reach a loss for the loser; one
             * by the loser, a win for the winner */
            d = v == CELL_ILLEGAL ? CELL_ILLEGAL : capture_keeps(c, u.captured, b, role > 0 ? -1 : 1) ? 0 : UNKNOWN;
            xq_unmake_move(b, list[k], &u);
        } else if (ply == 0 && role > 0) {
            continue; /* a win is decided at ply 0 by a capture only */
        } else {
            uint64_t j = xq_index_after_site_move(&t->ix, site, b, list[k]);
            unsigned v = cell_get(t->cells[b->side ^ 1], t->width, j);
            if (v == CELL_ILLEGAL)
                d = CELL_ILLEGAL;
            else if (ply == 0 || !(role > 0 ? cell_is_loss(v) : cell_is_win(v)))
                d = UNKNOWN;
            else {
                d = dist_of(c, b->side ^ 1, j);
                if (d != UNKNOWN && (int)d > ply - 1) d = UNKNOWN; /* not final yet */
            }
        }
        if (d == CELL_ILLEGAL) continue;
        legal++;
        if (role > 0) {
            if (d != UNKNOWN) return d + 1;
        } else if (d == UNKNOWN) {
            return UNKNOWN; /* an escape, or not decided yet */
        } else if (d + 1 > longest) {
            longest = d + 1;
        }
    }
    if (legal == 0) return role < 0 ? 0 : UNKNOWN;
    return role > 0 ? UNKNOWN : longest;
}

static int role_of(const tb_table *t, int side, uint64_t i)
{
    unsigned v = cell_get(t->cells[side], t->width, i);
    return cell_is_win(v) ? 1 : cell_is_loss(v) ? -1 : 0;
}

static void init_chunk(void *arg, uint64_t begin, uint64_t end, int thread)
{
    dtc_ctx *c = arg;
    xq_board b;
    for (uint64_t i = begin; i < end; i++)
        for (int s = 0; s < 2; s++) {
            c->dist[s][i] = UNKNOWN;
            int role = role_of(c->t, s, i);
            if (!role) continue;
            xq_index_site site;
            xq_index_decode_at(&c->t->ix, i, &b, &site);
            b.side = (uint8_t)s;
            unsigned d = examine(c, &b, &site, role, 0);
            if (d == UNKNOWN) continue;
            c->dist[s][i] = (uint16_t)d;
            c->decided[thread]++;
        }
}

/* True if one of the four distances from i (a multiple of 4) equals v:
 * the frontier is sparse, so most words are skipped whole. */
static inline int word_has_dist(const uint16_t *dist, uint64_t i, unsigned v)
{
    uint64_t w;
    memcpy(&w, dist + i, 8);
    w ^= 0x0001000100010001ull * (v & 0xFFFF);
    return ((w - 0x0001000100010001ull) & ~w & 0x8000800080008000ull) != 0;
}

static void retro_chunk(void *arg, uint64_t begin, uint64_t end, int thread)
{
    (void)thread;
    dtc_ctx *c = arg;
    xq_board b;
    unsigned want = (unsigned)(c->ply - 1);
    for (int x = 0; x < 2; x++) {
        for (uint64_t i = begin; i < end; i++) {
            if ((i & 3) == 0 && i + 4 <= end && !word_has_dist(c->dist[x], i, want)) {
                i += 3;
                continue;
            }
            if (c->dist[x][i] != want) continue;
            xq_index_site site;
            xq_index_decode_at(&c->t->ix, i, &b, &site);
            b.side = (uint8_t)x;
            xq_for_each_predecessor(&c->t->ix, &site, &b, xq_flag_entry, c->cand[x ^ 1]);
        }
    }
}

static void verify_chunk(void *arg, uint64_t begin, uint64_t end, int thread)
{
    dtc_ctx *c = arg;
    int y = c->side;
    uint64_t *cand = c->cand[y];
    xq_board b;
    for (uint64_t w = begin >> 6; w < (end + 63) >> 6; w++) {
        uint64_t bits = cand[w];
        if (!bits) continue;
        cand[w] = 0;
        while (bits) {
            uint64_t j = (w << 6) | (uint64_t)__builtin_ctzll(bits);
            bits &= bits - 1;
            if (c->dist[y][j] != UNKNOWN) continue;
            int role = role_of(c->t, y, j);
            if (!role) continue;
            xq_index_site site;
            xq_index_decode_at(&c->t->ix, j, &b, &site);
            b.side = (uint8_t)y;
            unsigned d = examine(c, &b, &site, role, c->ply);
            if (d == UNKNOWN) continue;
            __atomic_store_n(&c->dist[y][j], (uint16_t)d, __ATOMIC_RELAXED);
            c->decided[thread]++;
        }
    }
}

static uint64_t take_decided(dtc_ctx *c)
{
    uint64_t n = 0;
    for (int i = 0; i < MAX_THREADS; i++) {
        n += c->decided[i];
        c->decided[i] = 0;
    }
    return n;
}

/* One pass into c->dist.  Returns the plies run, or -1 past DTC_MAX. */
static int run_pass(dtc_ctx *c, int threads)
{
    uint64_t size = c->t->ix.size;
    par_for(threads, size, GRAIN, init_chunk, c);
    take_decided(c);
    /* The first pass decides plies 0 and 1; ply k then follows from k-1
     * alone, so the passes stop after the first ply that decides nothing
     * (past ply 1, whose own flags come from ply 0). */
    int ply;
    for (ply = 1;; ply++) {
        if (ply > DTC_MAX) return -1;
        c->ply = ply;
        par_for(threads, size, GRAIN, retro_chunk, c);
        for (int y = 0; y < 2; y++) {
            c->side = y;
            par_for(threads, size, GRAIN, verify_chunk, c);
        }
        if (take_decided(c) == 0 && ply >= 2) break;
    }
    return ply;
}

uint64_t dtc_work_bytes(uint64_t entries)
{
    /* as dtc_solve allocates: per side the result, the second pass's
     * distances and a candidate bitmap, and the context */
    uint64_t n = entries ? entries : 1, words = (n + 63) / 64;
    return sizeof(dtc_ctx) + 2 * (2 * n * sizeof(uint16_t) + words * sizeof(uint64_t));
}

int dtc_solve(tb_table *t, int threads, dtc_report *rep, char err[XQ_ERR_MAX])
{
    memset(rep, 0, sizeof *rep);
    rep->longest = -1;
    if (threads < 1) threads = 1;
    if (threads > MAX_THREADS) threads = MAX_THREADS;
    uint64_t n = t->ix.size ? t->ix.size : 1, words = (n + 63) / 64;
    dtc_ctx *c = calloc(1, sizeof *c);
    uint16_t *scratch[2] = {NULL, NULL};
    int rc = -1;
    if (!c) goto nomem;
    c->t = t;
    for (int s = 0; s < 2; s++) {
        t->dtc[s] = malloc(n * sizeof(uint16_t));
        scratch[s] = malloc(n * sizeof(uint16_t));
        c->cand[s] = calloc(words, sizeof(uint64_t));
        if (!t->dtc[s] || !scratch[s] || !c->cand[s]) goto nomem;
    }
    int plies[2];
    for (int pass = 0; pass < 2; pass++) {
        c->any = pass;
        for (int s = 0; s < 2; s++) c->dist[s] = pass ? scratch[s] : t->dtc[s];
        plies[pass] = run_pass(c, threads);
        if (plies[pass] < 0) {
            snprintf(err, XQ_ERR_MAX, "a distance to conversion beyond %d plies", DTC_MAX);
            goto out;
        }
        rep->passes += plies[pass];
    }
    /* pass 1's distance where the result holds, else pass 2's, marked */
    for (int s = 0; s < 2; s++)
        for (uint64_t i = 0; i < t->ix.size; i++) {
            if (!role_of(t, s, i)) {
                t->dtc[s][i] = DTC_NONE;
                continue;
            }
            unsigned d = t->dtc[s][i];
            if (d != UNKNOWN && (int)d <= t->limit) {
                if ((int)d > rep->longest) rep->longest = (int)d;
                continue;
            }
            if (scratch[s][i] == UNKNOWN) {
                snprintf(err, XQ_ERR_MAX, "internal error: a decided position without a conversion (entry %llu)",
                         (unsigned long long)i);
                goto out;
            }
            t->dtc[s][i] = (uint16_t)(DTC_BEYOND | scratch[s][i]);
            rep->beyond++;
        }
    rc = 0;
    goto out;
nomem:
    snprintf(err, XQ_ERR_MAX, "out of memory for the distance to conversion");
out:
    if (c) {
        free(c->cand[0]);
        free(c->cand[1]);
    }
    free(c);
    free(scratch[0]);
    free(scratch[1]);
    if (rc) {
        for (int s = 0; s < 2; s++) {
            free(t->dtc[s]);
            t->dtc[s] = NULL;
        }
    }
    return rc;
}
