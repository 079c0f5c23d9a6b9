/*
 * ref_dense.c - the mixed-radix position map of ref_dense.h.
 */
#include "ref_dense.h"

#include <stdlib.h>
#include <string.h>

#include "ref_solver.h"

/* Slot digits and multipliers for material m; -1 if the array would have
 * more than max_entries entries. */
static int layout(ref_dense *d, const xq_material *m, uint64_t max_entries)
{
    memset(d->digit, REF_DENSE_NONE, sizeof d->digit);
    uint64_t size = 1;
    int slot = 0;
    for (int c = 0; c < COLOUR_NB; c++)
        for (int k = 1; k < KIND_NB; k++) {
            uint8_t sq[XQ_SQUARES];
            int ns = ref_allowed_squares(c, k, sq);
            for (int j = 0; j < ns; j++) d->digit[c][k][sq[j]] = (uint8_t)j;
            d->first[c][k] = slot;
            d->count[c][k] = m->count[c][k];
            for (int j = 0; j < m->count[c][k]; j++) {
                if (slot == 32 || size > max_entries) return -1;
                d->mult[slot++] = size;
                size *= (uint64_t)ns;
            }
        }
    d->side_mult = size;
    d->size = 2 * size;
    return d->size > max_entries ? -1 : 0;
}

int ref_dense_init(ref_dense *d, const xq_material *m, uint64_t max_entries)
{
    d->id = NULL;
    if (layout(d, m, max_entries)) return 0;
    d->id = malloc(d->size * sizeof *d->id);
    if (!d->id) return -1;
    memset(d->id, 0xFF, d->size * sizeof *d->id);
    return 0;
}

void ref_dense_free(ref_dense *d)
{
    free(d->id);
    d->id = NULL;
}

uint64_t ref_dense_code(const ref_dense *d, const xq_board *b)
{
    int seen[COLOUR_NB][KIND_NB] = {{0}};
    uint64_t code = b->side * d->side_mult;
    /* the occupied squares in ascending order, as identical pieces count */
    for (xq_mask occ = b->occ[RED] | b->occ[BLACK]; occ;) {
        int sq = mask_pop_lsb(&occ);
        xq_piece p = b->sq[sq];
        int c = colour_of(p), k = kind_of(p), j = seen[c][k]++;
        if (j >= d->count[c][k] || d->digit[c][k][sq] == REF_DENSE_NONE) return UINT64_MAX;
        code += d->digit[c][k][sq] * d->mult[d->first[c][k] + j];
    }
    for (int c = 0; c < COLOUR_NB; c++)
        for (int k = 1; k < KIND_NB; k++)
            if (seen[c][k] != d->count[c][k]) return UINT64_MAX;
    return code;
}

int ref_dense_set(ref_dense *d, const xq_board *b, int32_t id)
{
    uint64_t code = ref_dense_code(d, b);
    if (code == UINT64_MAX || d->id[code] >= 0) return -1;
    d->id[code] = id;
    return 0;
}
