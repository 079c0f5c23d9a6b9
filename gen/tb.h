/*
 * tb.h - generated tables as the generator, `stats` and `verify` see them:
 * one material, both sides to move, every index's value in memory.
 *
 * Values are from the side to move's point of view:
 *   wdl  1 = win, 0 = draw, -1 = loss
 *   dtm  plies to the end of the game with optimal play (winner shortest,
 *        loser longest): 0 = side to move has no legal move (lost),
 *        1 = mate next move; 0 for draws.
 */
#ifndef XQ_TB_H
#define XQ_TB_H

#include <stddef.h>

#include "fen.h"
#include "index.h"
#include "material.h"

typedef struct {
    int wdl; /* 1, 0, -1 */
    int dtm; /* plies */
} tb_value;

typedef struct tb_table tb_table;

typedef struct {
    const char *dir; /* where tables are read and written */
    int threads;     /* 0 = all cores */
    int quiet;       /* no progress output */
    int force;       /* regenerate even if a valid file exists */
} tb_gen_options;

/* Generates the table of material m (any orientation; the canonical one is
 * built) and, first, every smaller table a capture leads to that is not
 * already in opt->dir.  Returns 0, or -1 with a message in err. */
int tb_generate(const xq_material *m, const tb_gen_options *opt, char err[XQ_ERR_MAX]);

/* Loads the finished table of material m (either orientation) from dir.
 * Returns NULL with a message in err if it is missing or damaged. */
tb_table *tb_load(const char *dir, const xq_material *m, char err[XQ_ERR_MAX]);
void tb_free(tb_table *t);

/* Value of a legal position whose material is the table's (either colour
 * orientation: a board with the colours swapped is looked up flipped). */
tb_value tb_value_of(const tb_table *t, const xq_board *b);

#endif
