/*
 * retro.h - retrograde analysis of one table whose subtables are solved.
 */
#ifndef XQ_RETRO_H
#define XQ_RETRO_H

#include "pass.h"
#include "tb.h"

typedef struct {
    int ply;           /* ply just finished (0 = initial pass) */
    uint64_t resolved; /* index entries decided in it */
    uint64_t total;    /* index entries decided so far */
    uint64_t legal;    /* legal index entries (both sides) */
    unsigned pulled;   /* bit s: side s's phase B examined every open entry (pass.h) */
} retro_progress;

/* Called after every pass, from the generating thread. */
typedef void (*retro_progress_fn)(void *arg, const retro_progress *p);

/* Solves t (cells all unknown on entry, t->sub linked to solved tables):
 * every cell ends as a DTM, draw or illegal.  If `early` is not NULL, its
 * two bitmaps (one bit an entry, zeroed) get, per side to move, the
 * positions the initial pass decides: no legal move, a capture into a lost
 * subtable position, or every legal move a capture into a won one (what
 * dtc_solve's first ply looks for).  Deterministic for any thread count.
 * Returns 0, or -1 with a message (out of memory). */
int retro_solve(tb_table *t, int threads, uint64_t *const *early, retro_progress_fn fn, void *arg,
                char err[XQ_ERR_MAX]);

/* retro_solve with each ply's phase B made one way (pass_direction), for
 * tests, which compare the ways: every cell and `early` bit the same. */
int retro_solve_directed(tb_table *t, int threads, uint64_t *const *early, pass_direction direction,
                         retro_progress_fn fn, void *arg, char err[XQ_ERR_MAX]);

/* Bytes of retro_solve's `early` bitmaps (both sides). */
uint64_t retro_early_bytes(uint64_t entries);

/* Bytes retro_solve allocates beside the table's cells for a table of
 * `entries` entries per side (memplan.h). */
uint64_t retro_work_bytes(uint64_t entries);

#endif
