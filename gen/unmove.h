/*
 * unmove.h - retrograde move generation: the quiet moves that could have
 * led to a position.
 */
#ifndef XQ_UNMOVE_H
#define XQ_UNMOVE_H

#include "board.h"
#include "index.h"

/* Writes the non-capturing moves of the side NOT to move in b that could
 * have produced b: make_move(origin, current square), so that undoing one
 * is xq_make_move(b, make_move(move_to(m), move_from(m))).  Origins are
 * empty squares reached by the piece's own geometry (horse legs and
 * elephant eyes empty); whether the piece may stand on the origin, and
 * whether the earlier position was legal, is left to the caller (the index
 * rejects impossible squares).  Returns the count. */
int xq_gen_unmoves(const xq_board *b, xq_move *list);

/* Sets bit j of the candidate bitmap `cand` (uint64_t words), unless j is
 * XQ_INDEX_NONE: the callback of xq_for_each_predecessor that the
 * ply-synchronous passes use.  An atomic OR, so the set of bits does not
 * depend on which thread flags first. */
static inline void xq_flag_entry(void *cand, uint64_t j)
{
    if (j == XQ_INDEX_NONE) return;
    uint64_t *w = (uint64_t *)cand + (j >> 6), bit = (uint64_t)1 << (j & 63);
    if (!(__atomic_load_n(w, __ATOMIC_RELAXED) & bit)) __atomic_fetch_or(w, bit, __ATOMIC_RELAXED);
}

/* Calls fn(arg, j) for the index entry j of every position from which a
 * quiet move leads to the entry at site (b: that entry as xq_index_decode
 * places it,
 * b->side the side to move there; the predecessors have the other side to
 * move).  j may be XQ_INDEX_NONE (a piece on a square its kind never
 * reaches) and may name an illegal position: the caller checks.  b is
 * restored before return.  Inline, so that fn is too. */
static inline void xq_for_each_predecessor(const xq_index *ix, const xq_index_site *site, xq_board *b,
                                           void (*fn)(void *arg, uint64_t j), void *arg)
{
    xq_move list[XQ_MAX_MOVES * 2];
    int n = xq_gen_unmoves(b, list);
    for (int k = 0; k < n; k++) {
        int here = move_to(list[k]), origin = move_from(list[k]);
        if (!xq_index_is_defender(kind_of(b->sq[here]))) {
            fn(arg, xq_index_after_quiet(ix, site, b, here, origin));
            continue;
        }
        /* An un-move of a king, advisor or elephant changes the defender
         * pair (and the positions of R, N, C around it).  One that leaves
         * both placements their own mirror images reaches an entry that
         * stands for one board only, while entry i (folded) stands for a
         * board and its mirror image: the mirror image of this predecessor
         * leads to entry i as well, and is another entry.  (Where i itself
         * keeps both images, the extra entry is a predecessor of i's
         * mirror image instead: harmless, since callers check every
         * candidate.) */
        int twin = 0;
        uint64_t j = xq_index_after_defender_move(ix, site, b, here, origin, &twin);
        fn(arg, j);
        if (twin && j != XQ_INDEX_NONE) fn(arg, xq_index_twin_mirror(ix, site, b, j));
    }
}

#endif
