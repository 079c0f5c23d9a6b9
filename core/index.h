/*
 * index.h - position indexing: a bijection between the positions of one
 * material (colour orientation fixed, side to move separate) and the
 * integers 0..size-1, with few wasted entries.  Layout 2
 * (docs/FORMAT.md, "Index layout 2"); most significant first:
 *
 *   defender pair  each side's king, advisors and elephants together as
 *                  one placement: the king on its 9 palace points, the
 *                  advisors a set of its 5 points, the elephants a set of
 *                  its 7, no two on one point.  The pair of placements is
 *                  folded by the left-right mirror on red's placement, and
 *                  where red's is its own mirror image, on black's: a pair
 *                  in which both are their own mirror images keeps both
 *                  mirror images of the rest of the position.
 *   attackers      for red then black, kinds R N C P: the k identical
 *                  pieces of a kind as a k-combination (combinatorial number
 *                  system) of positions: for R, N and C the 90 squares less
 *                  those the defender pair holds, numbered in square order;
 *                  for P the squares a pawn can ever reach.
 *
 * Entries whose pieces overlap are "broken": xq_index_decode says so.  The
 * remaining illegal positions (side not to move in check, kings facing) are
 * the caller's business, because they depend on the side to move.
 */
#ifndef XQ_INDEX_H
#define XQ_INDEX_H

#include "board.h"
#include "material.h"

enum { XQ_INDEX_MAX_GROUPS = 8 };

/* One colour's king, advisors and elephants: a class of placements, and
 * one placement (index.c). */
typedef struct xq_defenders xq_defenders;
typedef struct xq_placement xq_placement;

/* Division by a number fixed when the index is set up, as a multiplication
 * (index.c): the index's strides divide every entry number decoded. */
typedef struct {
    uint64_t d, m; /* divisor, and ceil(2^64 / d) (0 when d is 1) */
} xq_divisor;

/* The identical attackers of one colour and kind. */
typedef struct {
    uint8_t colour, kind, count; /* k identical pieces */
    uint8_t compressed;          /* R, N, C: positions skip the defenders' squares */
    uint8_t nsq;                 /* positions: 90 less the defenders, or the pawn's squares */
    uint8_t sq[XQ_SQUARES];      /* pawns: position -> square, ascending */
    int8_t pos[XQ_SQUARES];      /* pawns: square -> position, -1 if none */
    uint64_t size;               /* C(nsq, count) */
    uint64_t stride;
    xq_divisor by_stride;
    uint8_t *unrank; /* size * count positions, or NULL (computed) */
} xq_index_group;

typedef struct {
    xq_material mat; /* the orientation this index describes */
    const xq_defenders *def[COLOUR_NB];
    int ndef;             /* pieces in the two defender groups */
    uint64_t pairs;       /* values of the defender pair */
    uint64_t pair_stride; /* index stride of the defender pair */
    xq_divisor by_pair_stride;
    xq_divisor by_black_n, by_black_orbits; /* black's placements and orbits */
    int ngroups;
    xq_index_group group[XQ_INDEX_MAX_GROUPS];
    int8_t group_of[PIECE_NB]; /* piece code -> attacker group, -1 for K, A, B */
    uint64_t size;             /* entries per side to move */
} xq_index;

/* Sets up the index of material m (as oriented).  Returns 0, or -1 if out
 * of memory, if a side has more than 5 pieces of a kind, or if the index
 * would have 2^63 entries or more (far beyond any table that can be
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
 * when both defender placements are their own mirror images (otherwise it
 * gives XQ_INDEX_NONE). */
enum { XQ_INDEX_FLIP = 1, XQ_INDEX_MIRROR = 2 };
uint64_t xq_index_encode(const xq_index *ix, const xq_board *b, int flags);

/* Kings, advisors and elephants form the defender pair; the others are
 * attackers. */
static inline bool xq_index_is_defender(int kind) { return kind == KING || kind == ADVISOR || kind == ELEPHANT; }

/* Where a decoded entry stands in the layout: its number, its defender
 * pair, and the positions of each group of identical attackers, filled in
 * by the decode (xq_index_decode_at, xq_index_decode_next) for a caller
 * that follows many moves from one position. */
typedef struct {
    uint64_t idx;
    uint64_t pair;                     /* the defender-pair value */
    int rank[COLOUR_NB];               /* each side's placement rank */
    const xq_placement *pl[COLOUR_NB]; /* and the placements */
    /* each group's positions, ascending (groups of two or more pieces
     * only), and the group's rank: a move of one piece of a group ranks
     * it again from these, not from a scan of the board */
    uint8_t group_pos[XQ_INDEX_MAX_GROUPS][5];
    uint64_t group_rank[XQ_INDEX_MAX_GROUPS];
    /* idx less the last group's rank when that group is one piece, else
     * XQ_INDEX_NONE: the entries from row on differ from idx in that piece
     * only, which xq_index_decode_next then moves alone, from its square
     * row_sq */
    uint64_t row;
    int row_sq;
} xq_index_site;

/* Index after a quiet move of an attacker from `from` to `to`, given the
 * site s of b's entry before the move, where b is in the index's
 * orientation and as xq_index_decode places it, and `to` is empty.  Only
 * that attacker group's rank changes.  Equal to encoding the board after
 * the move, without the full pass over the pieces.  XQ_INDEX_NONE if the
 * piece cannot stand on `to` (a pawn off its squares). */
uint64_t xq_index_after_quiet(const xq_index *ix, const xq_index_site *s, const xq_board *b, int from, int to);

/* The same for a quiet move of a king, advisor or elephant: its side's
 * placement changes (a table look-up), and the R, N and C standing between
 * the two squares shift one position, since their positions skip the
 * defenders' squares.  When the new placements are out of folded form (a
 * move across the fold), the entry is the moved board's mirror image,
 * ranked from the attackers' mirrored squares: no board is made or
 * encoded.  *twin (if not NULL) is set when the entry reached keeps both
 * mirror images of the rest (both placements their own mirror images:
 * xq_index_weight 1), where a caller looking for predecessors has a
 * second one, the mirror image (xq_index_twin_mirror). */
uint64_t xq_index_after_defender_move(const xq_index *ix, const xq_index_site *s, const xq_board *b, int from, int to,
                                      int *twin);
/* The entry of the mirror image of entry j's board, for j an entry that
 * keeps both mirror images (weight 1) reached by a defender's quiet move
 * from b (whose site is s): the attackers' squares mirrored, the
 * placements kept. */
uint64_t xq_index_twin_mirror(const xq_index *ix, const xq_index_site *s, const xq_board *b, uint64_t j);

/* Index after any quiet move m from b (entry idx, as xq_index_decode places
 * it): the incremental paths above.  Also XQ_INDEX_NONE if the piece
 * cannot stand on the destination. */
uint64_t xq_index_after_move(const xq_index *ix, uint64_t idx, xq_board *b, xq_move m);
/* The same from the entry's site s, for a caller that follows several
 * moves from one entry: the one successor look-up of every generator pass.
 * Inline: a call that only dispatches cost the generator's hottest loop 13
 * instructions a move (callgrind, KRKNAA). */
static inline uint64_t xq_index_after_site_move(const xq_index *ix, const xq_index_site *s, xq_board *b, xq_move m)
{
    int from = move_from(m), to = move_to(m);
    return xq_index_is_defender(kind_of(b->sq[from])) ? xq_index_after_defender_move(ix, s, b, from, to, NULL)
                                                      : xq_index_after_quiet(ix, s, b, from, to);
}

/* Places the pieces of entry idx on an empty board (side to move left 0).
 * Returns false if the entry is broken (two pieces on one square). */
bool xq_index_decode(const xq_index *ix, uint64_t idx, xq_board *b);
/* The same, filling in the entry's site as well (xq_index_site). */
bool xq_index_decode_at(const xq_index *ix, uint64_t idx, xq_board *b, xq_index_site *s);
/* The same for a scan that decodes many entries, usually in increasing
 * order: when idx has the defender pair of the entry last decoded into b
 * and s, only the attackers are taken off and placed again, and when it
 * differs from that entry in the last group's lone piece only (the site's
 * row), only that piece moves.  A pair holds thousands of consecutive
 * entries and a row some 80, and placing the defenders and finding the
 * pair, then placing the attackers, was most of a decode (callgrind,
 * KRKNAA's solve).  b and s must
 * be as the last decode of this index left them (b's side and move
 * counters aside, and any move made on b taken back), or s cleared with
 * xq_index_site_clear, which the first call of a scan needs. */
bool xq_index_decode_next(const xq_index *ix, uint64_t idx, xq_board *b, xq_index_site *s);
static inline void xq_index_site_clear(xq_index_site *s)
{
    s->idx = XQ_INDEX_NONE;
    s->row = XQ_INDEX_NONE;
}

/* How many distinct boards entry idx stands for when counting positions:
 * 2 (itself and its mirror image) unless both sides' defender placements
 * are their own mirror images, 1 then; 0 if idx is out of range. */
int xq_index_weight(const xq_index *ix, uint64_t idx);

/* Binomial coefficient C(n, k) for n <= 90, k <= 5. */
uint64_t xq_binomial(int n, int k);

#endif
