/*
 * index.h - position indexing: a bijection between the positions of one
 * material (colour orientation fixed, side to move separate) and the
 * integers 0..size-1, with few wasted entries.
 *
 * Layout, most significant first:
 *   king pair   45 values: the two kings on their 9 palace points each, with
 *               the left-right mirror folded out (red king on file d or e;
 *               if on e, black king on d or e).  Pairs with both kings on
 *               file e keep both mirror images of the rest of the position.
 *   groups      for each colour (red, black) and kind in the order
 *               R N C P A B, the k identical pieces of that colour and kind
 *               as a k-combination of the squares the kind can ever reach:
 *               advisors 5 points, elephants 7, pawns 55, others 90;
 *               C(n, k) values in the combinatorial number system.
 *
 * Entries whose pieces overlap are "broken": xq_index_decode says so.  The
 * remaining illegal positions (side not to move in check, kings facing) are
 * the caller's business, because they depend on the side to move.
 */
#ifndef XQ_INDEX_H
#define XQ_INDEX_H

#include "board.h"
#include "material.h"

enum { XQ_INDEX_MAX_GROUPS = 12, XQ_KING_PAIRS = 45 };

typedef struct {
    uint8_t colour, kind, count; /* k identical pieces */
    uint8_t nsq;                 /* squares the kind can reach */
    uint8_t sq[XQ_SQUARES];      /* those squares, ascending */
    int8_t pos[XQ_SQUARES];      /* square -> position in sq[], -1 if not */
    uint64_t size;               /* C(nsq, count) */
    uint64_t stride;
    uint8_t *unrank; /* size * count squares, or NULL (computed) */
} xq_index_group;

typedef struct {
    xq_material mat; /* the orientation this index describes */
    int ngroups;
    xq_index_group group[XQ_INDEX_MAX_GROUPS];
    int8_t group_of[PIECE_NB]; /* piece code -> group, -1 for kings/absent */
    uint64_t kp_stride;        /* index stride of the king pair */
    uint64_t size;             /* entries per side to move */
} xq_index;

/* Sets up the index of material m (as oriented).  Returns 0, or -1 if out
 * of memory, if a side has more than 5 pieces of a kind, or if the index
 * would have 2^64 entries or more (far beyond any table that can be
 * built).  Release with xq_index_free. */
int xq_index_init(xq_index *ix, const xq_material *m);
void xq_index_free(xq_index *ix);

/* Index of a board holding exactly the index's material.  With flip set,
 * the board is read with colours swapped and ranks turned (r -> 9-r), which
 * is how a position of the opposite orientation is looked up.  Returns
 * XQ_INDEX_NONE if a piece stands off its square set, or if the board's
 * material is not the index's (a king missing included). */
#define XQ_INDEX_NONE UINT64_MAX
/* Flags for xq_index_encode: XQ_INDEX_FLIP as above; XQ_INDEX_MIRROR looks
 * up the left-right mirror image instead, which only names a different entry
 * when both kings are on file e. */
enum { XQ_INDEX_FLIP = 1, XQ_INDEX_MIRROR = 2 };
uint64_t xq_index_encode(const xq_index *ix, const xq_board *b, int flags);

/* Index after a quiet move of a non-king piece from `from` to `to`, given
 * the entry idx of b before the move, where b is in the index's orientation
 * and as xq_index_decode places it (so the move keeps the mirror fold).
 * Equal to encoding the board after the move, without the full pass over
 * the pieces.  XQ_INDEX_NONE if the piece cannot stand on `to`. */
uint64_t xq_index_after_quiet(const xq_index *ix, uint64_t idx, const xq_board *b, int from, int to);

/* The same for a king move (quiet or not: only the king pair changes),
 * or XQ_INDEX_REFOLD when the move crosses the mirror fold and the board
 * must be encoded in full. */
#define XQ_INDEX_REFOLD (UINT64_MAX - 1)
uint64_t xq_index_after_king_move(const xq_index *ix, uint64_t idx, const xq_board *b, int from, int to);

/* Index after any quiet move m from b (entry idx, as xq_index_decode places
 * it): the incremental paths above, or a full encode of the moved board
 * when a king move crosses the mirror fold (b is restored).  Also
 * XQ_INDEX_NONE if the piece cannot stand on the destination. */
uint64_t xq_index_after_move(const xq_index *ix, uint64_t idx, xq_board *b, xq_move m);

/* Places the pieces of entry idx on an empty board (side to move left 0).
 * Returns false if the entry is broken (two pieces on one square). */
bool xq_index_decode(const xq_index *ix, uint64_t idx, xq_board *b);

/* How many distinct boards entry idx stands for when counting positions:
 * 2 (itself and its mirror image) unless both kings are on file e, 1 then;
 * 0 if idx is out of range. */
int xq_index_weight(const xq_index *ix, uint64_t idx);

/* Binomial coefficient C(n, k) for n <= 90, k <= 5. */
uint64_t xq_binomial(int n, int k);

#endif
