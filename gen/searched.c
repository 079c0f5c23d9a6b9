/*
 * searched.c - results of the rulings a one-ply search finds (searched.h).
 *
 * The reader (probe/probe.c, search_dtm) sees each successor's DTM-map
 * value: an ordinary DTM, a draw, or a ruled result with its ruling and
 * order, and applies the rule of core/tbformat.c (xqf_dtm_search), which
 * this file applies to the same values.  For a position with no move into
 * an ordinary loss, the rule gives:
 *   - a ruled win if some move reaches a ruled loss for the opponent: of
 *     the smallest order among those, by the perpetual-chase ruling only
 *     if every such move of that order reaches a result of that ruling;
 *   - failing that, a draw if some move reaches a draw;
 *   - failing that, a ruled loss if some move reaches a ruled win for the
 *     opponent: of the largest order among those, by chase only if every
 *     such move of that order does.
 * Win, draw and loss follow from the Bellman conditions on rule-aware
 * values (gen/verify.c, check_ruled), so they always agree with the
 * table; the order and the ruling usually do (measured: on KRPKR every
 * ruled win of red to move but a few hundred, and 58% of black's ruled
 * losses, whose order is often one more than the largest a move reaches,
 * as the game's outer fixed point counts: repetition.c).  Whatever does
 * not agree is stored.
 */
#include "searched.h"

#include "cell.h"
#include "movegen.h"
#include "parallel.h"

/* The search from entry site, decoded into b (b->side to move): moves are
 * generated pseudo-legal and the illegal ones skipped by their cells.
 * Every move's successor is found, and its cell fetched, before any cell is
 * read: the cells are tens of megabytes read at random, and their misses
 * then overlap (KRPKR's search 5-7% faster; the rest of its time is
 * instructions: docs/BENCHMARKS.md, "The finishing passes on every
 * thread"). */
static unsigned ruled_by_search_at(const tb_table *t, xq_board *b, const xq_index_site *site)
{
    xq_move list[XQ_MAX_MOVES];
    tb_successor to[XQ_MAX_MOVES];
    int n = xq_gen_pseudo(b, list);
    tb_successors_at(t, b, site, list, n, to);
    xqf_dtm_search acc;
    xqf_dtm_search_init(&acc);
    for (int i = 0; i < n; i++) {
        unsigned cell = tb_successor_code(&to[i]);
        if (cell == CELL_ILLEGAL) continue; /* an illegal move */
        unsigned r = cell == CELL_DRAW ? tb_ruled(to[i].table, to[i].side, to[i].entry) : RULED_NONE;
        /* the successor's DTM-map value, as the file stores it */
        xqf_dtm_search_add(&acc, r != RULED_NONE ? XQF_DTM_RULED | r : cell == CELL_DRAW ? XQF_DTM_DRAW : cell);
    }
    unsigned v;
    if (xqf_dtm_search_result(&acc, &v) || v == XQF_DTM_DRAW || !(v & XQF_DTM_RULED)) return RULED_NONE;
    return v & 0xFF;
}

unsigned tb_ruled_by_search(const tb_table *t, xq_board *b)
{
    uint64_t i = xq_index_encode(&t->ix, b, 0);
    if (i == XQ_INDEX_NONE) return RULED_NONE;
    xq_board d;
    xq_index_site site;
    xq_index_decode_at(&t->ix, i, &d, &site);
    d.side = b->side;
    return ruled_by_search_at(t, &d, &site);
}

typedef struct {
    const tb_table *t;
    uint8_t **found;
    int side;                      /* -1: both */
    uint32_t block_entries, every; /* every > 1: a task is a sampled block */
} found_job;

/* Bytes [begin, end) of the bitmaps: 8 entries a byte, so no two threads
 * write one byte. */
static void found_bytes(const found_job *j, uint64_t begin, uint64_t end)
{
    const tb_table *t = j->t;
    xq_board b;
    xq_index_site site;
    xq_index_site_clear(&site);
    for (uint64_t byte = begin; byte < end; byte++)
        for (int s = 0; s < 2; s++) {
            if (j->side >= 0 && s != j->side) continue;
            uint8_t bits = 0;
            for (uint64_t i = byte * 8; i < byte * 8 + 8 && i < t->ix.size; i++) {
                unsigned r = tb_ruled(t, s, i);
                if (r == RULED_NONE || cell_get(t->cells[s], t->width, i) != CELL_DRAW) continue;
                xq_index_decode_next(&t->ix, i, &b, &site);
                b.side = (uint8_t)s;
                if (ruled_by_search_at(t, &b, &site) == r) bits |= (uint8_t)(1u << (i % 8));
            }
            j->found[s][byte] = bits;
        }
}

static void found_chunk(void *arg, uint64_t begin, uint64_t end, int thread)
{
    (void)thread;
    const found_job *j = arg;
    if (j->every == 1) {
        found_bytes(j, begin, end);
        return;
    }
    /* tasks are sampled blocks, whose bytes no other sampled block shares
     * (a multiple of 8 entries each, one block or more apart) */
    for (uint64_t k = begin; k < end; k++) {
        uint64_t first = k * j->every * j->block_entries, last = first + j->block_entries;
        if (last > j->t->ix.size) last = j->t->ix.size;
        found_bytes(j, first / 8, (last + 7) / 8);
    }
}

void tb_ruled_found_by_search(const tb_table *t, int threads, int side, uint32_t block_entries, uint32_t every,
                              uint8_t *found[2])
{
    uint64_t bytes = (t->ix.size + 7) / 8;
    if (!tb_has_ruled(t)) {
        for (int s = 0; s < 2; s++)
            for (uint64_t k = 0; k < bytes && (side < 0 || s == side); k++) found[s][k] = 0;
        return;
    }
    found_job j = {t, found, side, block_entries, every > 1 ? every : 1};
    if (j.every == 1) {
        par_for(threads, bytes, 1 << 10, found_chunk, &j);
        return;
    }
    uint64_t blocks = (t->ix.size + block_entries - 1) / block_entries;
    par_for(threads, (blocks + j.every - 1) / j.every, 1, found_chunk, &j);
}
