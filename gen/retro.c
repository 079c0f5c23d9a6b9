/*
 * retro.c - retrograde analysis with distance to mate.
 *
 * The method is ply-synchronous, on the pass engine (pass.h): ply k decides
 * exactly the positions whose DTM is k (wins for odd k, losses for even k),
 * so a cell's code is final as soon as it is at most k-1.  At ply k the
 * frontier is the positions whose code is k-1, and a flagged, undecided
 * position is examined alone: at odd k it has a move to a loss in k-1, so
 * it is a win in k; at even k it is a loss if every move leads to a decided
 * win, its DTM one more than the longest of them.  A decision writes only
 * the examined cell and reads only cells of the other side, as the
 * engine's contract asks, so the output is identical for any thread count.
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
 * Memory: one cell per index entry and side (cell.h) plus three bits: the
 * candidate, the front and `ahead`.
 */
#include "retro.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cell.h"
#include "movegen.h"
#include "parallel.h"
#include "pass.h"

enum { MAX_THREADS = PAR_MAX_THREADS, GRAIN = PASS_GRAIN };

typedef struct {
    tb_table *t;
    pass_state pass;        /* one candidate map, and the front */
    uint64_t *ahead[2];     /* per side, the entries whose code is above the ply that wrote it */
    uint64_t *const *early; /* retro_solve's `early`, or NULL */
    int ply;
    /* per-thread tallies of the initial pass (the plies count in pass), and
     * of the longest code written */
    uint64_t resolved[MAX_THREADS];
    unsigned max_code[MAX_THREADS];
    unsigned final_max[MAX_THREADS]; /* finish_chunk's: the longest DTM + 1, 0 for none */
    /* per thread and side: legal entries, and what the initial pass decided
     * and put in ply 1's front (summed into open and the engine's
     * last_fronted for choose_pull) */
    uint64_t legal[MAX_THREADS][2], side_resolved[MAX_THREADS][2], side_front[MAX_THREADS][2];
    uint64_t open[2]; /* per side, the entries still unknown */
    pass_direction direction;
} retro_ctx;

/* Tallies the longest code written into a cell. */
static inline void note_code(retro_ctx *c, int thread, unsigned code)
{
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
            c->legal[thread][s] += (uint64_t)legal;
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
            /* GRAIN is a multiple of 64: no other thread writes these words */
            uint64_t bit = 1ull << (i & 63);
            if (c->early) c->early[s][i >> 6] |= bit;
            if (code == 0) {
                c->pass.front[s][i >> 6] |= bit; /* ply 1's frontier */
                c->side_front[thread][s]++;
            } else {
                c->ahead[s][i >> 6] |= bit;
            }
            c->resolved[thread]++;
            c->side_resolved[thread][s]++;
            note_code(c, thread, code);
        }
    }
}

/* ---- the frontier: the positions whose code is ply-1 ------------------- */
/* The byte cells p[0..7] equal to v, as bits 0-7: a byte of x = w ^ v.. is
 * zero exactly where adding 0x7F to its low seven bits leaves its top bit
 * clear and x's top bit is clear too; the top bits are then gathered by
 * one multiplication (no two products overlap).  The frontier is sparse,
 * so this runs on nearly every byte of the cells at every ply. */
static inline uint64_t bytes_equal(const uint8_t *p, unsigned v)
{
    uint64_t w;
    memcpy(&w, p, 8);
    uint64_t x = w ^ (0x0101010101010101ull * (v & 0xFF));
    uint64_t zero = ~(((x & 0x7F7F7F7F7F7F7F7Full) + 0x7F7F7F7F7F7F7F7Full) | x | 0x7F7F7F7F7F7F7F7Full);
    return ((zero >> 7) * 0x0102040810204080ull) >> 56;
}

/* The entries among `among` (bits of word w) whose code with x to move is
 * v. */
static uint64_t cells_equal(const tb_table *t, int x, uint64_t w, uint64_t among, unsigned v)
{
    uint64_t first = w << 6, bits = 0;
    if (t->width == 1 && t->ix.size - first >= 64 && __builtin_popcountll(among) > 8) {
        const uint8_t *cells = (const uint8_t *)t->cells[x] + first;
        for (int k = 0; k < 64; k += 8) bits |= bytes_equal(cells + k, v) << k;
        return bits & among;
    }
    for (; among; among &= among - 1) {
        int k = __builtin_ctzll(among);
        if (cell_get(t->cells[x], t->width, first + (uint64_t)k) == v) bits |= 1ull << k;
    }
    return bits;
}

/* The positions whose code is ply-1: those the last ply wrote at ply-1
 * (the engine's front), and those written earlier with a larger code that
 * has now come due (`ahead`: the initial pass's, and losses whose longest
 * move is a capture).  Scanning every cell of both sides at every ply had
 * cost about half of phase A (KRKNC, 117 plies over 61 MB of cells). */
static uint64_t frontier(void *arg, int x, uint64_t w)
{
    retro_ctx *c = arg;
    uint64_t bits = c->pass.front[x][w], ahead = c->ahead[x][w];
    if (!ahead) return bits;
    uint64_t due = cells_equal(c->t, x, w, ahead, (unsigned)(c->ply - 1));
    c->ahead[x][w] = ahead & ~due; /* phase A owns word w: see pass.h */
    return bits | due;
}

static void flag_chunk(void *arg, uint64_t begin, uint64_t end, int thread)
{
    (void)thread;
    retro_ctx *c = arg;
    pass_flag_chunk(&c->pass, begin, end, frontier, NULL, c);
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

/* Decides flagged entry j with y to move at this ply (pass.h's rule:
 * writes j's cell and bits alone, reads the other side's).  Reports
 * PASS_DECIDED for a position decided for the first time (a provisional
 * capture win shortened by a quiet one is written twice but decided once,
 * and the progress line counts positions, not writes), PASS_FRONT for a
 * code of this ply, and marks a larger code as ahead. */
static int decide(void *arg, pass_decoder *d, int y, uint64_t j, unsigned maps, int thread)
{
    (void)maps;
    retro_ctx *c = arg;
    tb_table *t = c->t;
    void *cells = t->cells[y];
    unsigned ply = (unsigned)c->ply;
    unsigned v = cell_get(cells, t->width, j);
    if (ply & 1) {
        /* a move to a loss in ply-1: a win in ply, unless decided sooner;
         * shortens a provisional capture win */
        if (v == CELL_ILLEGAL || (v != CELL_UNKNOWN && v <= ply)) return 0;
        cell_set(cells, t->width, j, ply);
        note_code(c, thread, ply);
        if (v != CELL_UNKNOWN) c->ahead[y][j >> 6] &= ~(1ull << (j & 63)); /* no longer due later */
        return (v == CELL_UNKNOWN ? PASS_DECIDED : 0) | PASS_FRONT;
    }
    if (v != CELL_UNKNOWN) return 0;
    pass_decode(&c->pass, d, y, j);
    unsigned code = loss_code(t, &d->b, &d->site, ply);
    if (code == CELL_UNKNOWN) return 0;
    cell_set(cells, t->width, j, code);
    note_code(c, thread, code);
    if (code == ply) return PASS_DECIDED | PASS_FRONT;
    c->ahead[y][j >> 6] |= 1ull << (j & 63);
    return PASS_DECIDED;
}

static void decide_chunk(void *arg, uint64_t begin, uint64_t end, int thread)
{
    retro_ctx *c = arg;
    pass_decide_chunk(&c->pass, begin, end, thread, decide, c);
}

/* ---- phase B pulled: every open position examined (pass_pull_chunk) ---- */
/* Whether a quiet move from b reaches a loss decided by ply-1: what a flag
 * from the frontier tells an odd ply's candidate (a loss of code ply-1
 * flags its predecessors at this ply; one of a lower code flagged them at
 * its own, deciding them then, so no open position reaches one). */
static int reaches_loss(const tb_table *t, xq_board *b, const xq_index_site *site, unsigned ply)
{
    xq_move list[XQ_MAX_MOVES];
    for (xq_mask pieces = b->occ[b->side]; pieces;) {
        int n = xq_gen_piece(b, mask_pop_lsb(&pieces), list);
        for (int i = 0; i < n; i++) {
            if (b->sq[move_to(list[i])] != EMPTY) continue; /* a capture's value is in the cell already */
            unsigned v = successor_code(t, b, site, list[i]);
            if (cell_is_loss(v) && v <= ply - 1) return 1;
        }
    }
    return 0;
}

/* The entries of word w with y to move that this ply may decide: unknown
 * ones, and at odd plies the provisional capture wins a quiet win in ply
 * would shorten. */
static uint64_t open_bits(void *arg, int y, uint64_t w)
{
    const retro_ctx *c = arg;
    const tb_table *t = c->t;
    unsigned ply = (unsigned)c->ply;
    uint64_t first = w << 6, n = t->ix.size - first < 64 ? t->ix.size - first : 64, bits = 0;
    for (uint64_t k = 0; k < n; k++) {
        unsigned v = cell_get(t->cells[y], t->width, first + k);
        if (v == CELL_UNKNOWN || ((ply & 1) && cell_is_win(v) && v > ply)) bits |= 1ull << k;
    }
    return bits;
}

/* Examines open entry j with y to move, whether flagged or not: decide's
 * rule, with the flag of an odd ply found by looking (reaches_loss). */
static int examine(void *arg, pass_decoder *d, int y, uint64_t j, int thread)
{
    retro_ctx *c = arg;
    if (c->ply & 1) {
        pass_decode(&c->pass, d, y, j);
        if (!reaches_loss(c->t, &d->b, &d->site, (unsigned)c->ply)) return 0;
    }
    return decide(arg, d, y, j, 1, thread);
}

static void pull_chunk(void *arg, uint64_t begin, uint64_t end, int thread)
{
    retro_ctx *c = arg;
    pass_pull_chunk(&c->pass, begin, end, thread, open_bits, examine, c);
}

/* Whether each side's phase B is pulled this ply (pass_should_pull): the
 * choice changes only the time taken, both ways deciding the same entries.
 * The front counts leave out the `ahead` entries that come due. */
static void choose_pull(retro_ctx *c)
{
    for (int y = 0; y < 2; y++)
        c->pass.pull[y] = pass_should_pull(&c->pass, c->direction, c->pass.last_fronted[y ^ 1], c->open[y]);
}

/* Every undecided position is a draw; and the longest DTM, found here
 * rather than from the codes written, which count provisional wins that a
 * quiet one shortened. */
static void finish_chunk(void *arg, uint64_t begin, uint64_t end, int thread)
{
    retro_ctx *c = arg;
    tb_table *t = c->t;
    unsigned longest = c->final_max[thread];
    for (int s = 0; s < 2; s++)
        for (uint64_t i = begin; i < end; i++) {
            unsigned v = cell_get(t->cells[s], t->width, i);
            if (v == CELL_UNKNOWN)
                cell_set(t->cells[s], t->width, i, CELL_DRAW);
            else if (v < CELL_DRAW && v + 1 > longest)
                longest = v + 1;
        }
    c->final_max[thread] = longest;
}

/* Sums the per-thread tallies and clears them (the legal counts, written
 * once, are kept). */
static void reduce(retro_ctx *c, uint64_t *resolved, unsigned *max_code, uint64_t *legal)
{
    for (int i = 0; i < MAX_THREADS; i++) {
        *resolved += c->resolved[i];
        if (c->max_code[i] > *max_code && c->max_code[i] < CELL_DRAW) *max_code = c->max_code[i];
        if (legal) *legal += c->legal[i][0] + c->legal[i][1];
        c->resolved[i] = 0;
    }
}

static void close_ctx(retro_ctx *c)
{
    pass_close(&c->pass);
    free(c->ahead[0]);
    free(c->ahead[1]);
    free(c);
}

uint64_t retro_work_bytes(uint64_t entries)
{
    /* the context, the engine's candidate map and front, and `ahead`, as
     * retro_solve allocates them */
    return sizeof(retro_ctx) + pass_work_bytes(entries, 1, 1) + 2 * ((entries + 63) / 64) * sizeof(uint64_t);
}

uint64_t retro_early_bytes(uint64_t entries) { return 2 * ((entries + 63) / 64) * sizeof(uint64_t); }

int retro_solve(tb_table *t, int threads, uint64_t *const *early, retro_progress_fn fn, void *arg, char err[XQ_ERR_MAX])
{
    return retro_solve_directed(t, threads, early, PASS_CHOOSE, fn, arg, err);
}

int retro_solve_directed(tb_table *t, int threads, uint64_t *const *early, pass_direction direction,
                         retro_progress_fn fn, void *arg, char err[XQ_ERR_MAX])
{
    if (threads < 1) threads = 1;
    if (threads > MAX_THREADS) threads = MAX_THREADS;
    retro_ctx *c = calloc(1, sizeof *c);
    uint64_t words = t->ix.size ? (t->ix.size + 63) / 64 : 1;
    if (!c || pass_open(&c->pass, &t->ix, threads, 1, 1) || !(c->ahead[0] = calloc(words, sizeof(uint64_t))) ||
        !(c->ahead[1] = calloc(words, sizeof(uint64_t)))) {
        snprintf(err, XQ_ERR_MAX, "out of memory for the work bitmaps");
        if (c) close_ctx(c);
        return -1;
    }
    c->t = t;
    c->early = early;
    c->direction = direction;
    /* Start wide if a capture can reach a distance a byte cannot hold. */
    for (int s = 0; s < 2; s++)
        for (int k = 0; k < KIND_NB; k++)
            if (t->sub[s][k] && t->sub[s][k]->max_dtm + 2 > CELL8_DTM_MAX && t->width == 1 && tb_table_widen(t)) {
                snprintf(err, XQ_ERR_MAX, "out of memory widening cells past %d plies", CELL8_DTM_MAX);
                goto fail;
            }
    retro_progress p = {0, 0, 0, 0, 0};
    unsigned max_code = 0;
    par_for(threads, t->ix.size, GRAIN, illegal_chunk, c);
    par_for(threads, t->ix.size, GRAIN, initial_chunk, c);
    reduce(c, &p.resolved, &max_code, &p.legal);
    for (int i = 0; i < MAX_THREADS; i++)
        for (int s = 0; s < 2; s++) {
            c->open[s] += c->legal[i][s] - c->side_resolved[i][s];
            c->pass.last_fronted[s] += c->side_front[i][s];
        }
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
        p.ply = ply;
        choose_pull(c);
        p.pulled = (unsigned)c->pass.pull[0] | (unsigned)c->pass.pull[1] << 1;
        p.resolved = pass_ply(&c->pass, flag_chunk, decide_chunk, pull_chunk, c);
        for (int s = 0; s < 2; s++) c->open[s] -= c->pass.last_decided[s];
        reduce(c, &p.resolved, &max_code, NULL);
        p.total += p.resolved;
        if (fn) fn(arg, &p);
    }
    par_for(threads, t->ix.size, GRAIN, finish_chunk, c);
    t->max_dtm = -1;
    for (int i = 0; i < MAX_THREADS; i++)
        if ((int)c->final_max[i] - 1 > t->max_dtm) t->max_dtm = (int)c->final_max[i] - 1;
    close_ctx(c);
    return 0;
fail:
    close_ctx(c);
    return -1;
}
