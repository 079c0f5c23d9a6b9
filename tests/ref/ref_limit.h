/*
 * ref_limit.h - an independent reference for the natural move limit: the
 * game with the capture-free counter as part of the state, solved exactly
 * for a given limit L, to check the generator's DTC (gen/dtc.h) against.
 *
 * The model, straight from the rules text (docs/RULES.md, issue 6):
 *   - the counter counts plies since the last capture; a capture resets it
 *     to 0 and nothing else does (a pawn move does not, unlike chess);
 *   - a position whose side to move has no legal move is lost, at any
 *     counter (mate and stalemate alike);
 *   - otherwise a position at counter L is drawn: L capture-free plies have
 *     been played;
 *   - below L, a quiet move leads to (successor, c + 1) and a capture to
 *     (position in the smaller material, 0), valued under the same rule.
 *
 * A state is (position, counter) with the counter in 0..L.  Quiet moves
 * raise the counter, so the states of one material form a DAG ordered by
 * the counter, and captures leave the material: no fixed point and no
 * repetition rule are needed.  Each material is solved by sweeping the
 * counter from L down to 0, one explicit value per state, after every
 * material a capture leads to (the order ref_solver.h solves them in).
 *
 * Only the position lists and ids of ref_solver.h are shared (its
 * enumeration and hash map, e.g. from ref_enumerate); its unlimited values
 * are not used.  Nothing of the generator (indexing, DTC passes) is.
 */
#ifndef XQ_REF_LIMIT_H
#define XQ_REF_LIMIT_H

#include "ref_solver.h"

typedef struct ref_limit ref_limit;

/* The legal moves of every position of db's family (db and its
 * subtables, see ref_family_count), generated once for any number of
 * limits.  NULL if out of memory, or if a successor is missing from the
 * position lists (a bug, reported on stderr).  db must outlive the result.
 * Release with ref_limit_free. */
ref_limit *ref_limit_new(const ref_db *db);
void ref_limit_free(ref_limit *rl);

/* Solves every material of the family under limit L >= 0, replacing the
 * values of an earlier limit.  0, or -1 if out of memory. */
int ref_limit_solve(ref_limit *rl, int limit);

/* The limit last solved, -1 if none. */
int ref_limit_of(const ref_limit *rl);

/* Value of position id of family member `member` (a db of the family, e.g.
 * db itself) for the side to move at counter c (0 <= c <= L): 1 win,
 * 0 draw, -1 loss; 2 if an argument is out of range or nothing is solved. */
int ref_limit_value(const ref_limit *rl, const ref_db *member, int id, int counter);

/* The values of every position of `member` at counter c, indexed by id
 * (what ref_limit_value reads, for callers that scan whole tables); NULL
 * if an argument is out of range. */
const int8_t *ref_limit_plane(const ref_limit *rl, const ref_db *member, int counter);

#endif
