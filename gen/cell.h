/*
 * cell.h - how the generator stores one position's value in memory.
 *
 * A cell is one byte (two when a table's distances outgrow a byte, see
 * tb_table.width).  Values are from the side to move's point of view:
 *
 *   0 .. max        resolved, DTM in plies; odd = win, even = loss
 *                   (0 = no legal move: mate or stalemate, both lost)
 *   draw            the fixed point left it undecided: neither side can force
 *                   a result
 *   illegal         broken index entry or illegal position (kings facing,
 *                   side not to move in check)
 *   unknown         not decided yet (only during generation)
 *
 * The three codes sit at the top of the range so that "a smaller code is a
 * shorter distance" holds for every resolved cell, which retro.c relies on.
 */
#ifndef XQ_CELL_H
#define XQ_CELL_H

#include <stdint.h>

/* Codes for byte cells; wide cells use the same codes + 0xFF00. */
enum {
    CELL8_DRAW = 0xFD,
    CELL8_ILLEGAL = 0xFE,
    CELL8_UNKNOWN = 0xFF,
    CELL8_DTM_MAX = 0xFC - 1, /* longest DTM a byte cell holds: 251 */
    CELL16_DRAW = 0xFFFD,
    CELL16_ILLEGAL = 0xFFFE,
    CELL16_UNKNOWN = 0xFFFF,
    CELL16_DTM_MAX = 0xFFFB,
};

/* Width-independent codes as seen through cell_get/cell_set. */
enum { CELL_DRAW = CELL16_DRAW, CELL_ILLEGAL = CELL16_ILLEGAL, CELL_UNKNOWN = CELL16_UNKNOWN };

/* Reads a cell of an array of the given width, widening the special codes. */
/* Relaxed atomic access: the generator's first pass reads cells that other
 * threads may be writing, relying only on the illegal mark, which no thread
 * changes then.  On common hardware these are plain loads and stores. */
static inline unsigned cell_get(const void *cells, int width, uint64_t i)
{
    if (width == 1) {
        unsigned v = __atomic_load_n((const uint8_t *)cells + i, __ATOMIC_RELAXED);
        return v >= CELL8_DRAW ? v | 0xFF00u : v;
    }
    return __atomic_load_n((const uint16_t *)cells + i, __ATOMIC_RELAXED);
}

/* Starts loading cell i into the cache, for a cell_get to come: a look-up
 * at random in a large table misses, and several in flight overlap. */
static inline void cell_prefetch(const void *cells, int width, uint64_t i)
{
    __builtin_prefetch((const uint8_t *)cells + i * (uint64_t)width);
}

static inline void cell_set(void *cells, int width, uint64_t i, unsigned v)
{
    if (width == 1)
        __atomic_store_n((uint8_t *)cells + i, (uint8_t)v, __ATOMIC_RELAXED);
    else
        __atomic_store_n((uint16_t *)cells + i, (uint16_t)v, __ATOMIC_RELAXED);
}

static inline int cell_dtm_max(int width) { return width == 1 ? CELL8_DTM_MAX : CELL16_DTM_MAX; }

/* True for a resolved win / loss code. */
static inline int cell_is_win(unsigned v) { return v < CELL_DRAW && (v & 1); }
static inline int cell_is_loss(unsigned v) { return v < CELL_DRAW && !(v & 1); }

/* Results decided by the repetition rulings (tb_table.ruled), one byte:
 *   0           none: the cell's own value stands
 *   bit 0       1 = win, 0 = loss for the side to move
 *   bit 1       1 = needs the perpetual-chase ruling, 0 = perpetual check
 *   bits 2-7    the ruling's order, 1..63 (repetition.c)
 */
enum { RULED_NONE = 0, RULED_ORDER_MAX = 63 };
static inline unsigned ruled_code(int win, int chase, int order)
{
    return (unsigned)(order << 2 | (chase ? 2 : 0) | (win ? 1 : 0));
}
static inline int ruled_is_win(unsigned r) { return r & 1; }
static inline int ruled_by_chase(unsigned r) { return (r >> 1) & 1; }
static inline int ruled_order(unsigned r) { return (int)(r >> 2); }

#endif
