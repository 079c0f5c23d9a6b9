/*
 * retro.c - retrograde analysis with distance to mate.
 *
 * The method is ply-synchronous: pass k decides exactly the positions whose
 * DTM is k (wins for odd k, losses for even k), so a cell's code is final as
 * soon as it is at most k-1.  Each pass has two phases:
 *
 *   A. (retro) every position decided at ply k-1 generates its quiet
 *      predecessors, which are flagged in a candidate bitmap of the other
 *      side to move (atomic OR: the set of flags does not depend on thread
 *      timing);
 *   B. (verify) every flagged, undecided position is examined alone:
 *      at odd k it has a move to a loss in k-1, so it is a win in k; at even
 *      k it is a loss if every move leads to a decided win, its DTM one more
 *      than the longest of them.  Each cell is written only by the thread
 *      that owns its bitmap word, and only cells of the other side are read,
 *      so the output is identical for any thread count.
 *
 * Captures lead into subtables, whose values are final before we start.
 * They are folded in by the initial pass: a capture into a lost subtable
 * position gives a provisional win at that DTM + 1 (a later quiet win can
 * only shorten it: code k is written over any larger provisional code), and
 * a position whose every move is a capture into a won subtable position is a
 * loss right away.  A loss whose longest-resisting move is a capture is found
 * when its last quiet successor is decided, and is written with its true,
 * possibly larger, DTM: codes above k are simply decided in advance.
 *
 * Memory: one cell per index entry and side (cell.h) plus one candidate bit.
 */
#include "retro.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cell.h"
#include "movegen.h"
#include "parallel.h"
#include "unmove.h"

enum { MAX_THREADS = 64, GRAIN = 1 << 14 /* entries per chunk, a multiple of 64 */ };

typedef struct {
    tb_table *t;
    uint64_t *cand[2];
    uint64_t *const *early; /* retro_solve's `early`, or NULL */
    int ply;
    int side; /* side whose cells phase B writes */
    /* per-thread tallies, reduced after each phase */
    uint64_t resolved[MAX_THREADS];
    unsigned max_code[MAX_THREADS];
    uint64_t legal[MAX_THREADS];
} retro_ctx;

/* Tallies a code written into a cell: `fresh` when the cell was unknown
 * (a provisional capture win shortened by a quiet one is written twice but
 * decided once, and the progress line counts positions, not writes). */
static inline void note_code(retro_ctx *c, int thread, unsigned code, int fresh)
{
    c->resolved[thread] += (uint64_t)fresh;
    if (code > c->max_code[thread]) c->max_code[thread] = code;
}

/* Cell code of the position reached by pseudo-legal move m from b: in the
 * table itself for quiet moves, in a subtable for captures (the opponent's
 * view); CELL_ILLEGAL if m is illegal. */
static inline unsigned successor_code(const tb_table *t, xq_board *b, const xq_index_site *site, xq_move m)
{
    return tb_successor_cell_at(t, b, site, m, NULL);
}

/* ---- initial passes -----------------------------------------------------
 * First the illegal entries: broken ones, kings facing, side not to move in
 * check.  After that, a pseudo-legal move is illegal exactly when the
 * position it reaches is marked illegal (the mover's king is attacked, or
 * the kings face), in this table or in a subtable, so the passes below read
 * legality off the successor's cell instead of testing for attacks. */
static void illegal_chunk(void *arg, uint64_t begin, uint64_t end, int thread)
{
    retro_ctx *c = arg;
    tb_table *t = c->t;
    xq_board b;
    xq_index_site site;
    xq_index_site_clear(&site);
    for (uint64_t i = begin; i < end; i++) {
        int ok = xq_index_decode_next(&t->ix, i, &b, &site) && !xq_kings_facing(&b);
        for (int s = 0; s < 2; s++) {
            int legal = ok && !xq_in_check(&b, s ^ 1);
            c->legal[thread] += (uint64_t)legal;
            cell_set(t->cells[s], t->width, i, legal ? CELL_UNKNOWN : CELL_ILLEGAL);
        }
    }
}

/* Mates and stalemates (DTM 0), and what captures alone decide.  Every
 * capture is looked at, but quiet moves only until the first legal one:
 * after it the position is neither mated nor lost by its captures alone,
 * and a quiet move's value is not known yet.  Most positions have a legal
 * quiet move among their first few, so this pass costs a few successor
 * look-ups a position instead of all of them. */
static unsigned initial_code(const tb_table *t, xq_board *b, const xq_index_site *site)
{
    xq_move list[XQ_MAX_MOVES];
    int n = xq_gen_pseudo(b, list);
    unsigned best_win = CELL_UNKNOWN, longest_loss = 0;
    int legal = 0, all_captures_lose = 1, nquiet = 0;
    for (int i = 0; i < n; i++) {
        if (b->sq[move_to(list[i])] == EMPTY) {
            list[nquiet++] = list[i]; /* kept for below; i >= nquiet */
            continue;
        }
        unsigned v = successor_code(t, b, site, list[i]);
        if (v == CELL_ILLEGAL) continue; /* the move is illegal */
        legal++;
        if (cell_is_loss(v)) {
            if (v + 1 < best_win) best_win = v + 1;
        } else if (cell_is_win(v)) {
            if (v + 1 > longest_loss) longest_loss = v + 1;
        } else {
            all_captures_lose = 0;
        }
    }
    if (best_win != CELL_UNKNOWN) return best_win;
    for (int i = 0; i < nquiet; i++)
        if (successor_code(t, b, site, list[i]) != CELL_ILLEGAL) return CELL_UNKNOWN;
    if (legal == 0) return 0; /* no legal move: lost, mate and stalemate alike */
    return all_captures_lose ? longest_loss : CELL_UNKNOWN;
}

static void initial_chunk(void *arg, uint64_t begin, uint64_t end, int thread)
{
    retro_ctx *c = arg;
    tb_table *t = c->t;
    xq_board b;
    xq_index_site site;
    xq_index_site_clear(&site);
    for (uint64_t i = begin; i < end; i++) {
        if (cell_get(t->cells[0], t->width, i) == CELL_ILLEGAL && cell_get(t->cells[1], t->width, i) == CELL_ILLEGAL)
            continue;
        xq_index_decode_next(&t->ix, i, &b, &site);
        for (int s = 0; s < 2; s++) {
            if (cell_get(t->cells[s], t->width, i) == CELL_ILLEGAL) continue;
            b.side = (uint8_t)s;
            unsigned code = initial_code(t, &b, &site);
            if (code == CELL_UNKNOWN) continue;
            cell_set(t->cells[s], t->width, i, code);
            /* GRAIN is a multiple of 64: no other thread writes this word */
            if (c->early) c->early[s][i >> 6] |= 1ull << (i & 63);
            note_code(c, thread, code, 1);
        }
    }
}

/* ---- phase A: flag the predecessors of positions decided at ply-1 ------ */
/* True if one of the eight byte cells from i (a multiple of 8) equals v:
 * the frontier is sparse, so most words are skipped whole. */
static inline int word_has_byte(const void *cells, uint64_t i, unsigned v)
{
    uint64_t w;
    memcpy(&w, (const uint8_t *)cells + i, 8);
    w ^= 0x0101010101010101ull * (v & 0xFF);
    return ((w - 0x0101010101010101ull) & ~w & 0x8080808080808080ull) != 0;
}

static void retro_chunk(void *arg, uint64_t begin, uint64_t end, int thread)
{
    (void)thread;
    retro_ctx *c = arg;
    tb_table *t = c->t;
    unsigned want = (unsigned)(c->ply - 1);
    xq_board b;
    xq_index_site site;
    xq_index_site_clear(&site);
    for (int x = 0; x < 2; x++) {
        const void *cells = t->cells[x];
        for (uint64_t i = begin; i < end; i++) {
            if (t->width == 1 && (i & 7) == 0 && i + 8 <= end && !word_has_byte(cells, i, want)) {
                i += 7;
                continue;
            }
            if (cell_get(cells, t->width, i) != want) continue;
            xq_index_decode_next(&t->ix, i, &b, &site);
            b.side = (uint8_t)x;
            xq_for_each_predecessor(&t->ix, &site, &b, xq_flag_entry, c->cand[x ^ 1]);
        }
    }
}

/* ---- phase B: decide the flagged positions of one side ----------------- */
/* Most flagged positions are not lost yet: some move still escapes to a
 * position not (yet) won by the opponent, typically among the first few
 * moves looked at (124M examinations of KRKNAABB found 12.6M losses,
 * after 2.5 successors each on average).  So the moves are generated a
 * piece at a time and the examination stops at the first escape, instead
 * of generating every move first. */
static unsigned loss_code(const tb_table *t, xq_board *b, const xq_index_site *site, unsigned ply)
{
    xq_move list[XQ_MAX_MOVES];
    unsigned longest = 0;
    for (xq_mask pieces = b->occ[b->side]; pieces;) {
        int n = xq_gen_piece(b, mask_pop_lsb(&pieces), list);
        for (int i = 0; i < n; i++) {
            int capture = b->sq[move_to(list[i])] != EMPTY;
            unsigned v = successor_code(t, b, site, list[i]);
            if (v == CELL_ILLEGAL) continue; /* an illegal move */
            /* A quiet successor counts only once final (code <= ply-1); a
             * capture's subtable value is always final. */
            if (!cell_is_win(v) || (!capture && v > ply - 1)) return CELL_UNKNOWN;
            if (v + 1 > longest) longest = v + 1;
        }
    }
    return longest > ply ? longest : ply;
}

static void verify_chunk(void *arg, uint64_t begin, uint64_t end, int thread)
{
    retro_ctx *c = arg;
    tb_table *t = c->t;
    int y = c->side;
    void *cells = t->cells[y];
    uint64_t *cand = c->cand[y];
    unsigned ply = (unsigned)c->ply;
    xq_board b;
    xq_index_site site;
    xq_index_site_clear(&site);
    for (uint64_t w = begin >> 6; w < (end + 63) >> 6; w++) {
        uint64_t bits = cand[w];
        if (!bits) continue;
        cand[w] = 0;
        while (bits) {
            uint64_t j = (w << 6) | (uint64_t)__builtin_ctzll(bits);
            bits &= bits - 1;
            unsigned v = cell_get(cells, t->width, j);
            if (ply & 1) {
                /* a move to a loss in ply-1: a win in ply, unless decided
                 * sooner; shortens a provisional capture win */
                if (v == CELL_ILLEGAL || (v != CELL_UNKNOWN && v <= ply)) continue;
                cell_set(cells, t->width, j, ply);
                note_code(c, thread, ply, v == CELL_UNKNOWN);
            } else {
                if (v != CELL_UNKNOWN) continue;
                xq_index_decode_next(&t->ix, j, &b, &site);
                b.side = (uint8_t)y;
                unsigned code = loss_code(t, &b, &site, ply);
                if (code == CELL_UNKNOWN) continue;
                cell_set(cells, t->width, j, code);
                note_code(c, thread, code, 1);
            }
        }
    }
}

static void finish_chunk(void *arg, uint64_t begin, uint64_t end, int thread)
{
    retro_ctx *c = arg;
    (void)thread;
    for (int s = 0; s < 2; s++)
        for (uint64_t i = begin; i < end; i++)
            if (cell_get(c->t->cells[s], c->t->width, i) == CELL_UNKNOWN)
                cell_set(c->t->cells[s], c->t->width, i, CELL_DRAW);
}

/* Sums the per-thread tallies and clears them. */
static void reduce(retro_ctx *c, uint64_t *resolved, unsigned *max_code, uint64_t *legal)
{
    for (int i = 0; i < MAX_THREADS; i++) {
        *resolved += c->resolved[i];
        if (c->max_code[i] > *max_code && c->max_code[i] < CELL_DRAW) *max_code = c->max_code[i];
        if (legal) *legal += c->legal[i];
        c->resolved[i] = 0;
        c->legal[i] = 0;
    }
}

uint64_t retro_work_bytes(uint64_t entries)
{
    /* the context and its two candidate bitmaps, as retro_solve allocates them */
    return sizeof(retro_ctx) + 2 * ((entries + 63) / 64) * sizeof(uint64_t);
}

uint64_t retro_early_bytes(uint64_t entries) { return 2 * ((entries + 63) / 64) * sizeof(uint64_t); }

int retro_solve(tb_table *t, int threads, uint64_t *const *early, retro_progress_fn fn, void *arg, char err[XQ_ERR_MAX])
{
    if (threads < 1) threads = 1;
    if (threads > MAX_THREADS) threads = MAX_THREADS;
    retro_ctx *c = calloc(1, sizeof *c);
    uint64_t words = (t->ix.size + 63) / 64;
    if (c) {
        c->cand[0] = calloc(words, sizeof(uint64_t));
        c->cand[1] = calloc(words, sizeof(uint64_t));
    }
    if (!c || !c->cand[0] || !c->cand[1]) {
        snprintf(err, XQ_ERR_MAX, "out of memory for the work bitmaps");
        if (c) {
            free(c->cand[0]);
            free(c->cand[1]);
        }
        free(c);
        return -1;
    }
    c->t = t;
    c->early = early;
    /* Start wide if a capture can reach a distance a byte cannot hold. */
    for (int s = 0; s < 2; s++)
        for (int k = 0; k < KIND_NB; k++)
            if (t->sub[s][k] && t->sub[s][k]->max_dtm + 2 > CELL8_DTM_MAX && t->width == 1 && tb_table_widen(t)) {
                snprintf(err, XQ_ERR_MAX, "out of memory widening cells past %d plies", CELL8_DTM_MAX);
                goto fail;
            }
    retro_progress p = {0, 0, 0, 0};
    unsigned max_code = 0;
    par_for(threads, t->ix.size, GRAIN, illegal_chunk, c);
    par_for(threads, t->ix.size, GRAIN, initial_chunk, c);
    reduce(c, &p.resolved, &max_code, &p.legal);
    p.total = p.resolved;
    if (fn) fn(arg, &p);
    for (int ply = 1; ply <= (int)max_code + 1; ply++) {
        if (ply >= cell_dtm_max(t->width) && tb_table_widen(t)) {
            snprintf(err, XQ_ERR_MAX, "out of memory widening cells past %d plies", CELL8_DTM_MAX);
            goto fail;
        }
        if (ply >= cell_dtm_max(t->width)) {
            snprintf(err, XQ_ERR_MAX, "DTM beyond %d plies", cell_dtm_max(t->width));
            goto fail;
        }
        c->ply = ply;
        par_for(threads, t->ix.size, GRAIN, retro_chunk, c);
        p.ply = ply;
        p.resolved = 0;
        for (int y = 0; y < 2; y++) {
            c->side = y;
            par_for(threads, t->ix.size, GRAIN, verify_chunk, c);
        }
        reduce(c, &p.resolved, &max_code, NULL);
        p.total += p.resolved;
        if (fn) fn(arg, &p);
    }
    par_for(threads, t->ix.size, GRAIN, finish_chunk, c);
    t->max_dtm = -1;
    for (int s = 0; s < 2; s++)
        for (uint64_t i = 0; i < t->ix.size; i++) {
            unsigned v = cell_get(t->cells[s], t->width, i);
            if (v < CELL_DRAW && (int)v > t->max_dtm) t->max_dtm = (int)v;
        }
    free(c->cand[0]);
    free(c->cand[1]);
    free(c);
    return 0;
fail:
    free(c->cand[0]);
    free(c->cand[1]);
    free(c);
    return -1;
}
