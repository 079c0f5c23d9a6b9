/*
 * ref_dense.h - board -> position id of one material for the reference
 * solvers, as a plain mixed-radix array: one digit per piece (its place in
 * the list of squares its kind may stand on, ref_allowed_squares; identical
 * pieces in square order), one for the side to move.  A look-up is one
 * array read, where a hash map's probes miss the cache several times; the
 * reference solvers spend most of their time finding successors.
 *
 * Deliberately not the generator's index: no symmetry, no packing, codes
 * for boards that are not positions (those read -1).
 */
#ifndef XQ_REF_DENSE_H
#define XQ_REF_DENSE_H

#include <stdint.h>

#include "board.h"
#include "material.h"

enum { REF_DENSE_NONE = 0xFF };

typedef struct {
    uint8_t digit[COLOUR_NB][KIND_NB][XQ_SQUARES]; /* REF_DENSE_NONE: never there */
    int first[COLOUR_NB][KIND_NB];                 /* first piece slot of the kind */
    int count[COLOUR_NB][KIND_NB];
    uint64_t mult[32]; /* per piece slot */
    uint64_t side_mult, size;
    int32_t *id; /* size entries, -1: not a position; NULL: no map */
} ref_dense;

/* Lays out and allocates the map of material m, every id -1.  Returns 0
 * with d->id NULL if the array would be larger than max_entries (the caller
 * looks boards up otherwise), -1 if out of memory. */
int ref_dense_init(ref_dense *d, const xq_material *m, uint64_t max_entries);
void ref_dense_free(ref_dense *d);

/* Array position of board b, or UINT64_MAX if b cannot be of the map's
 * material (a piece off its squares, one too many or too few of a kind). */
uint64_t ref_dense_code(const ref_dense *d, const xq_board *b);

/* Gives board b the id; -1 if b has no code or already has an id (a bug in
 * the caller's enumeration). */
int ref_dense_set(ref_dense *d, const xq_board *b, int32_t id);

/* The id of board b, -1 if none. */
static inline int32_t ref_dense_find(const ref_dense *d, const xq_board *b)
{
    uint64_t code = ref_dense_code(d, b);
    return code == UINT64_MAX ? -1 : d->id[code];
}

#endif
