/*
 * searched.h - which results of the repetition rulings a reader finds by a
 * one-ply search, so that a DTM file's searched side need not store them
 * (docs/FORMAT.md, "Searched entries").
 */
#ifndef XQ_SEARCHED_H
#define XQ_SEARCHED_H

#include <stdint.h>

#include "tb.h"

/* Marks, for side to move `side` (-1: both), bit i % 8 of found[s][i / 8]
 * when entry i is a result of the rulings whose ruled byte (win or loss,
 * ruling, order: cell.h) is exactly what the reader's search gives, and
 * clears it otherwise: for every entry with every = 1, or only for the
 * entries of the blocks of block_entries entries numbered k % every == 0
 * (a sample; block_entries then a multiple of 8), leaving the other bits
 * as they were.  found[s] holds (t->ix.size + 7) / 8 bytes.  Deterministic
 * for any thread count.  A table without rulings marks nothing. */
void tb_ruled_found_by_search(const tb_table *t, int threads, int side, uint32_t block_entries, uint32_t every,
                              uint8_t *found[2]);

/* The ruled byte the reader's search gives a legal position b of table t
 * (b->side to move; b is restored), or RULED_NONE where the search says
 * the result is not one of the rulings.  Exposed for tests. */
unsigned tb_ruled_by_search(const tb_table *t, xq_board *b);

#endif
