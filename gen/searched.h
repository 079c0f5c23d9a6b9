/*
 * searched.h - which results of the repetition rulings a reader finds by a
 * one-ply search, so that a DTM file's searched side need not store them
 * (docs/FORMAT.md, "Searched entries").
 */
#ifndef XQ_SEARCHED_H
#define XQ_SEARCHED_H

#include <stdint.h>

#include "tb.h"

/* Marks, for each side to move s, bit i % 8 of found[s][i / 8] when entry
 * i is a result of the rulings whose ruled byte (win or loss, ruling,
 * order: cell.h) is exactly what the reader's search gives; found[s] must
 * hold (t->ix.size + 7) / 8 bytes.  Deterministic for any thread count.
 * A table without rulings marks nothing. */
void tb_ruled_found_by_search(const tb_table *t, int threads, uint8_t *found[2]);

/* The ruled byte the reader's search gives a legal position b of table t
 * (b->side to move; b is restored), or RULED_NONE where the search says
 * the result is not one of the rulings.  Exposed for tests. */
unsigned tb_ruled_by_search(const tb_table *t, xq_board *b);

#endif
