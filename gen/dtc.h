/*
 * dtc.h - distance to conversion under the natural move limit (docs/RULES.md,
 * "The move limit"): for every position with an ordinary result, the plies
 * until the next capture or the end of the game, with the winner
 * converting soonest and the loser delaying longest, and whether the result
 * holds within the limit from a fresh counter.
 */
#ifndef XQ_DTC_H
#define XQ_DTC_H

#include "pass.h"
#include "tb.h"
#include "tbformat.h"

/* DTC codes (tb_table.dtc, 16 bits an entry, or packed in dtc8 once
 * final: read them with tb_dtc):
 *   DTC_NONE            no ordinary result: a draw, a result decided by a
 *                       repetition ruling, or not a legal position;
 *   d                   (below DTC_BEYOND) a win or loss that holds under
 *                       the limit: converted in d plies, d <= limit;
 *   DTC_BEYOND | d      a cursed win or blessed loss: the winner cannot
 *                       convert within the limit; d is the plies to the
 *                       next capture (or mate) that keeps a win at all. */
/* DTC_MAX stops short of 0x7FFE so that no code is XQF_SEARCH. */
enum { DTC_NONE = 0xFFFF, DTC_BEYOND = 0x8000, DTC_MAX = 0x7FFD };

/* Largest move limit `gen --limit` takes, in plies (far above any rule). */
enum { DTC_MAX_LIMIT = XQF_MAX_LIMIT };

static inline int dtc_beyond(unsigned code) { return code != DTC_NONE && (code & DTC_BEYOND); }
static inline int dtc_plies(unsigned code) { return (int)(code & ~(unsigned)DTC_BEYOND); }

typedef struct {
    int longest;     /* longest DTC of a result that holds, -1 if none */
    int passes;      /* plies run, both passes */
    uint64_t beyond; /* entries whose result does not hold under the limit */
    int pulled;      /* plies times sides whose phase B examined every open entry (pass.h) */
} dtc_report;

/* Computes t's DTC codes (packed: tb_dtc_pack_from, or tb_dtc_pack) for
 * t->limit (> 0), t solved (cells, rulings) and its
 * subtables carrying their own DTC under the same limit.  `early`: the
 * bitmaps retro_solve filled for t (retro.h), or NULL; the first ply
 * examines only the positions they hold, instead of every position with a
 * result.  Deterministic for any thread count.  0, or -1 with a message
 * (out of memory, distance out of range). */
int dtc_solve(tb_table *t, int threads, const uint64_t *const *early, dtc_report *rep, char err[XQ_ERR_MAX]);

/* dtc_solve with its distances widened from one byte to two before ply
 * widen_ply, where dtc_solve widens them only before a ply that could
 * write one past a byte, and each ply's phase B made one way
 * (pass_direction): for tests, which compare them. */
int dtc_solve_tuned(tb_table *t, int threads, const uint64_t *const *early, int widen_ply, pass_direction direction,
                    dtc_report *rep, char err[XQ_ERR_MAX]);

/* Bytes an entry of each distance dtc_solve starts with, for a table of
 * cells `cell_width` bytes wide under move limit `limit`: 1, or 2 where the
 * cells or the limit outgrow a byte (a longer distance widens them during
 * the pass, which no plan counts, as with cells: GENERATOR.md). */
int dtc_start_width(int cell_width, int limit);

/* Bytes dtc_solve allocates for a table of `entries` entries per side,
 * its distances `width` bytes each (dtc_start_width), the final codes
 * included (memplan.h). */
uint64_t dtc_work_bytes(uint64_t entries, int width);

/* DTC code of the position after a capture (b is after it, `taken` the
 * captured piece), in the subtable, for the side to move there. */
unsigned dtc_capture_code(const tb_table *t, xq_piece taken, const xq_board *b);

#endif
