/*
 * pass.h - the ply-synchronous pass engine: what retro.c (DTM) and dtc.c
 * (DTC) have in common, written once.  A pass supplies its frontier and
 * its decision rule; the engine owns the candidate bitmaps, the scan of
 * the frontier, the flagging of predecessors, the per-thread tallies and
 * the rule that makes the result independent of the threads.
 *
 * A ply has two phases:
 *
 *   A. (flag) every position of the frontier, the entries the pass names
 *      for this ply, generates its quiet predecessors (unmove.h), which are
 *      flagged in one of the pass's candidate maps of the other side to
 *      move.  Flags are atomic ORs, so the set of flags does not depend on
 *      which thread flags first.
 *   B. (decide) for each side y in turn, every flagged position is handed
 *      to the pass's decision rule once, with the maps that flagged it,
 *      and the maps are cleared.
 *
 * Determinism contract: in phase B the decision rule may write only the
 * entry it is given (its 64-entry word belongs to one chunk: chunks start
 * at multiples of PASS_GRAIN) and may read only that entry and the other
 * side to move's values, which phase B of this side does not write.  Then
 * every thread count writes the same values.
 *
 * The chunk functions are inline, to be instantiated by each pass with its
 * own rules (as unmove.h's xq_for_each_predecessor is): the frontier test
 * and the decision run once a word and once a candidate, and an indirect
 * call there would cost the hottest loops of the generator.
 */
#ifndef XQ_PASS_H
#define XQ_PASS_H

#include <stdint.h>

#include "parallel.h"
#include "unmove.h"

enum {
    PASS_GRAIN = 1 << 14, /* entries per chunk, a multiple of 64 */
    PASS_MAPS = 2         /* candidate maps a pass may flag into */
};

/* What a decision rule reports of the entry it was given (bits). */
enum {
    PASS_DECIDED = 1, /* decided for the first time: counted */
    PASS_FRONT = 2    /* its value is final at this ply: in the next ply's front */
};

typedef struct {
    const xq_index *ix;
    uint64_t size;
    int threads;
    int maps;                      /* candidate maps in use, 1 or 2 */
    uint64_t *flags[PASS_MAPS][2]; /* [map][side to move]: one bit an entry */
    uint64_t *front[2];            /* NULL, or per side the entries the last ply put in front */
    int side;                      /* the side phase B decides */
    /* per side to move, whether this ply's phase B examines every entry the
     * pass calls open (pass_pull_chunk) instead of the flagged ones: phase
     * A then flags nothing into that side.  Set by the pass before each ply. */
    int pull[2];
    uint64_t decided[PAR_MAX_THREADS];
    uint64_t fronted[PAR_MAX_THREADS];
    uint64_t last_decided[2], last_fronted[2]; /* per side, what the last ply decided and put in front */
} pass_state;

/* A chunk's decoding state: the board and site of the entry it decoded
 * last, which the next decode starts from (xq_index_decode_next). */
typedef struct {
    xq_board b;
    xq_index_site site;
} pass_decoder;

static inline void pass_decoder_init(pass_decoder *d) { xq_index_site_clear(&d->site); }

/* Decodes entry i with `side` to move into d. */
static inline void pass_decode(const pass_state *p, pass_decoder *d, int side, uint64_t i)
{
    xq_index_decode_next(p->ix, i, &d->b, &d->site);
    d->b.side = (uint8_t)side;
}

/* How a pass sets p->pull before each ply: by its counts (PASS_CHOOSE),
 * or one way at every ply (for tests, which compare the two). */
typedef enum { PASS_CHOOSE = 0, PASS_PUSH, PASS_PULL } pass_direction;

/* Whether a side's phase B is pulled, given the entries of the other
 * side's front that would flag into it and its own entries still open.
 * Measured on KRNKC's DTM plies (two threads), flagging cost about 110 ns
 * a front entry and examining an open one about 100 ns (a win's moves
 * until one reaches a loss) or 75 (a loss's until one escapes), and
 * finding the open entries about 1 ns an entry of the side: so the larger
 * of the two counts wins, the scan charged as a 64th of the entries. */
static inline int pass_should_pull(const pass_state *p, pass_direction d, uint64_t front, uint64_t open)
{
    return d == PASS_PULL || (d == PASS_CHOOSE && front > open + p->size / 64);
}

/* Allocates the maps (and, if `front`, the bitmaps of what each ply
 * decides) for index ix.  Returns 0, or -1 out of memory (nothing held). */
int pass_open(pass_state *p, const xq_index *ix, int threads, int maps, int front);
void pass_close(pass_state *p);

/* Bytes pass_open allocates for a table of `entries` entries per side. */
uint64_t pass_work_bytes(uint64_t entries, int maps, int front);

/* Positions decided since the last call (the sum of the threads' tallies). */
uint64_t pass_take_decided(pass_state *p);

/* Runs one ply: phase A as `flag_chunk`, then phase B for red, then for
 * black (p->side), as `decide_chunk`, or `pull_chunk` for a side pulled
 * (p->pull).  Returns the positions decided; last_decided and
 * last_fronted hold them per side. */
uint64_t pass_ply(pass_state *p, par_fn flag_chunk, par_fn decide_chunk, par_fn pull_chunk, void *arg);

/* The bits of a word that stand for entries of the table. */
static inline uint64_t pass_word_mask(const pass_state *p, uint64_t w)
{
    uint64_t left = p->size - (w << 6);
    return left >= 64 ? ~0ull : (1ull << left) - 1;
}

/* Phase A over the words of [begin, end): frontier(arg, x, w) gives the
 * entries of word w with x to move that flag their predecessors (bits
 * past the table are ignored), and map_of(arg, x, i) the map each flags
 * into (NULL: map 0).  frontier is called once a word and side, by the
 * thread whose chunk holds the word, so it may update the pass's own bits
 * of that word (retro.c's `ahead` does). */
static inline __attribute__((always_inline)) void pass_flag_chunk(pass_state *p, uint64_t begin, uint64_t end,
                                                                  uint64_t (*frontier)(void *arg, int x, uint64_t w),
                                                                  int (*map_of)(void *arg, int x, uint64_t i),
                                                                  void *arg)
{
    pass_decoder d;
    pass_decoder_init(&d);
    for (int x = 0; x < 2; x++)
        for (uint64_t w = begin >> 6; w < (end + 63) >> 6; w++) {
            /* called even where nothing is flagged: frontier may keep its
             * own bits of the word */
            uint64_t bits = frontier(arg, x, w) & pass_word_mask(p, w);
            if (p->pull[x ^ 1]) continue;
            for (; bits; bits &= bits - 1) {
                uint64_t i = (w << 6) | (uint64_t)__builtin_ctzll(bits);
                pass_decode(p, &d, x, i);
                uint64_t *map = p->flags[map_of ? map_of(arg, x, i) : 0][x ^ 1];
                xq_for_each_predecessor(p->ix, &d.site, &d.b, xq_flag_entry, map);
            }
        }
}

/* Phase B over the words of [begin, end) for side p->side: decide(arg, d,
 * y, j, maps, thread) for each flagged entry j, maps having bit k set if
 * map k flagged it; it returns PASS_DECIDED and PASS_FRONT bits.  Counts
 * the decisions, and records the front bits as the next ply's front when
 * the pass keeps one (every word of the range is written, so a word no
 * entry of is flagged gets an empty front). */
static inline __attribute__((always_inline)) void
pass_decide_chunk(pass_state *p, uint64_t begin, uint64_t end, int thread,
                  int (*decide)(void *arg, pass_decoder *d, int y, uint64_t j, unsigned maps, int thread), void *arg)
{
    int y = p->side;
    uint64_t *m0 = p->flags[0][y], *m1 = p->maps > 1 ? p->flags[1][y] : NULL, *front = p->front[y];
    pass_decoder d;
    pass_decoder_init(&d);
    uint64_t count = 0;
    for (uint64_t w = begin >> 6; w < (end + 63) >> 6; w++) {
        uint64_t b0 = m0[w], b1 = m1 ? m1[w] : 0, fronted = 0;
        if (!(b0 | b1)) {
            if (front) front[w] = 0;
            continue;
        }
        m0[w] = 0;
        if (m1) m1[w] = 0;
        for (uint64_t bits = b0 | b1; bits; bits &= bits - 1) {
            int k = __builtin_ctzll(bits);
            unsigned maps = (unsigned)(b0 >> k & 1) | (unsigned)(b1 >> k & 1) << 1;
            unsigned r = (unsigned)decide(arg, &d, y, (w << 6) | (uint64_t)k, maps, thread);
            count += r & PASS_DECIDED;
            fronted |= (uint64_t)(r >> 1 & 1) << k;
        }
        if (front) front[w] = fronted;
        p->fronted[thread] += (uint64_t)__builtin_popcountll(fronted);
    }
    p->decided[thread] += count;
}

/* Phase B over the words of [begin, end) for side p->side when it is
 * pulled (p->pull): examine(arg, d, y, j, thread) for every entry j that
 * open(arg, y, w) names in its word w, whether flagged or not, returning
 * as decide does.  Exact wherever the pass's rule decides an entry at the
 * ply equal to its value whatever flagged it (retro.c, dtc.c): an entry
 * no frontier position reaches then decides nothing.  It pays where the
 * frontier is large against what is left open: flagging costs a frontier
 * position its every predecessor, examining an open entry its moves until
 * the first that settles it (Beamer, Asanovic and Patterson,
 * "Direction-optimizing breadth-first search", SC 2012, the same choice
 * for a search's levels). */
static inline __attribute__((always_inline)) void
pass_pull_chunk(pass_state *p, uint64_t begin, uint64_t end, int thread, uint64_t (*open)(void *arg, int y, uint64_t w),
                int (*examine)(void *arg, pass_decoder *d, int y, uint64_t j, int thread), void *arg)
{
    int y = p->side;
    uint64_t *front = p->front[y];
    pass_decoder d;
    pass_decoder_init(&d);
    uint64_t count = 0, fronts = 0;
    for (uint64_t w = begin >> 6; w < (end + 63) >> 6; w++) {
        uint64_t fronted = 0;
        for (uint64_t bits = open(arg, y, w) & pass_word_mask(p, w); bits; bits &= bits - 1) {
            int k = __builtin_ctzll(bits);
            unsigned r = (unsigned)examine(arg, &d, y, (w << 6) | (uint64_t)k, thread);
            count += r & PASS_DECIDED;
            fronted |= (uint64_t)(r >> 1 & 1) << k;
        }
        if (front) front[w] = fronted;
        fronts += (uint64_t)__builtin_popcountll(fronted);
    }
    p->decided[thread] += count;
    p->fronted[thread] += fronts;
}

#endif
