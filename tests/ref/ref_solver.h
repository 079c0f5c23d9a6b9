/*
 * ref_solver.h - an independent reference solver used to check the
 * generator.  It shares only the rules core with it (board, FEN and
 * validation, legal move generation, material names) and deliberately none
 * of the indexing or generation code.
 *
 * Method, chosen to be obviously correct rather than fast:
 *   1. Enumerate every legal position of the material, both sides to move:
 *      place the pieces on every combination of the squares their kind can
 *      stand on (own lists, cross-checked against the core in the tests),
 *      skip overlaps, keep what xq_board_validate accepts.  Positions are
 *      kept in an explicit list; a plain array over every placement of the
 *      pieces (ref_dense.h), or a hash map from the board where that
 *      array would be too large, gives each one's id.
 *   2. For each position, its legal moves: quiet moves become edges to ids
 *      of the same list; captures lead to a smaller material, which is
 *      solved first, recursively, by this same method (memoised by exact
 *      material, colours as they are), and looked up there.
 *   3. Naive ply-by-ply fixed point.  Ply 0: no legal move = lost (mate and
 *      stalemate alike).  At ply k, an unresolved position is won in k if
 *      some move reaches a position lost in at most k-1 plies, and lost in k
 *      if every move reaches a position won in at most k-1 plies.  Stop at
 *      the first ply that resolves nothing once k exceeds the longest DTM
 *      of every subtable.  What is never resolved is a draw.
 *
 * Values are from the side to move's point of view, as gen/tb.h's
 * tb_value: wdl 1 win / 0 draw / -1 loss; dtm plies to the end with
 * optimal play (winner shortest, loser longest), 0 for draws and for a
 * side with no legal move.
 */
#ifndef XQ_REF_SOLVER_H
#define XQ_REF_SOLVER_H

#include "board.h"
#include "material.h"
#include "ref_dense.h"

typedef struct {
    int wdl; /* 1, 0, -1 */
    int dtm; /* plies; -1 from ref_lookup if the board is not in the db */
} ref_value;

typedef struct ref_db ref_db;

/* Solves material m (colours as given) and, first, every material a capture
 * leads to.  Returns NULL if out of memory or if a successor position could
 * not be found (a bug: the message goes to stderr).  Release with ref_free;
 * subtables belong to the returned db. */
ref_db *ref_solve(const xq_material *m);
void ref_free(ref_db *db);

/* Step 1 only: the same family, position lists and ids as ref_solve, but
 * no values (ref_value_at and ref_lookup answer dtm -1), for solvers that
 * build on the position lists (ref_limit.h) without paying for step 3. */
ref_db *ref_enumerate(const xq_material *m);

/* The db of material m if it was solved as part of db (db itself or one of
 * its subtables), else NULL. */
const ref_db *ref_subtable(const ref_db *db, const xq_material *m);

const xq_material *ref_material(const ref_db *db);

/* The dbs solved together with db: its subtables and db itself, in the
 * order they were solved (every db after the dbs its captures lead to). */
int ref_family_count(const ref_db *db);
const ref_db *ref_family_at(const ref_db *db, int i);

/* Number of legal positions (both sides to move). */
int ref_count(const ref_db *db);

/* Position i (0 <= i < ref_count) as a board, and its value. */
void ref_board(const ref_db *db, int i, xq_board *b);
ref_value ref_value_at(const ref_db *db, int i);

/* Id of a board in db, -1 if it is not one of db's legal positions. */
int ref_find(const ref_db *db, const xq_board *b);
/* db's board -> id array, which ref_find reads; NULL if db is too large
 * for one (ref_find then uses a hash map). */
const ref_dense *ref_dense_of(const ref_db *db);
/* Value of a board; dtm -1 (and wdl 0) if it is not in db. */
ref_value ref_lookup(const ref_db *db, const xq_board *b);

/* The squares the solver places a piece of this colour and kind on, written
 * out from the rules independently of the core (the tests compare them with
 * xq_square_allowed).  Returns how many were written to out. */
int ref_allowed_squares(int colour, int kind, uint8_t out[XQ_SQUARES]);

/* Summary of a db, for reports and the theory checks. */
typedef struct {
    int positions[2]; /* legal positions per side to move */
    int wins[2], draws[2], losses[2];
    int max_dtm[2];    /* longest DTM among decided positions */
    int max_dtm_id[2]; /* a position reaching it, -1 if none */
} ref_stats;
void ref_get_stats(const ref_db *db, ref_stats *st);

#endif
