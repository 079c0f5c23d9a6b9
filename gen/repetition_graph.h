/*
 * repetition_graph.h - the game graph the repetition rulings are solved on
 * (repetition.c), internal to the generator.
 *
 * For one question, "where does side w win by the rulings under this rule
 * mode?", the graph holds the drawn positions where w might win (those the
 * other side cannot leave by idling: repetition_escape.c) and, for each, the
 * chase-tracking sets the play can carry there (repetition_graph.c).  Moves
 * that leave the graph end in exits whose value is known.
 */
#ifndef XQ_RULES_GRAPH_H
#define XQ_RULES_GRAPH_H

#include <stdint.h>

#include "tb.h"

/* An edge is one 32-bit word: where it leads (a node, or an exit) in the
 * low EDGE_FLAG_SHIFT bits, its flags above them; a predecessor likewise
 * holds the node it comes from and the edge's flags.  One word instead of
 * a target and a flags byte apart saves a fifth of the graph, at the price
 * of node ids below 2^28 (268 million nodes, some 30 GB of graph).  Edge
 * targets at or above NODE_MAX are exits, from the mover's point of view;
 * these and NODE_NONE are beyond what an enum constant (an int) may hold
 * portably, so they are typed constants. */
#define EXIT_LOSS ((uint32_t)0x0FFFFFF0u)       /* mover loses: ordinary, or by check in a subtable */
#define EXIT_LOSS_CHASE ((uint32_t)0x0FFFFFF1u) /* mover loses by the chase ruling in a subtable */
#define EXIT_DRAW ((uint32_t)0x0FFFFFF2u)       /* a draw, or a position where w cannot win */
#define EXIT_WIN ((uint32_t)0x0FFFFFF3u)        /* mover wins by the check ruling in a subtable */
#define EXIT_WIN_CHASE ((uint32_t)0x0FFFFFF4u)  /* mover wins by the chase ruling in a subtable */
#define NODE_MAX ((uint32_t)0x0FFFFFE0u)
#define NODE_NONE ((uint32_t)0xFFFFFFFFu)
/* Positions of the drawn region are numbered below POS_MAX (the escape
 * pass's witness marks sit above it); those left in the graph are its
 * first nodes, so below NODE_MAX too. */
#define POS_MAX ((uint32_t)0xFFFFFFE0u)
#define EDGES_MAX ((uint64_t)UINT32_MAX)
enum { EDGE_FLAG_SHIFT = 28 };
#define EDGE_TARGET_MASK (((uint32_t)1 << EDGE_FLAG_SHIFT) - 1)
/* Edge flags, four bits.  Under MODE_ASIAN an edge carries F_CHECK and its
 * priority in the five-priority game (repetition_asian.c) from
 * F_PRIO_SHIFT up, in place of F_RESET, which only MODE_FULL reads. */
enum { F_CHECK = 1, F_RESET = 2, F_PRIO_SHIFT = 1 };
static inline uint32_t edge_word(uint32_t target, uint8_t flags) { return target | (uint32_t)flags << EDGE_FLAG_SHIFT; }
static inline uint32_t edge_target(uint32_t word) { return word & EDGE_TARGET_MASK; }
static inline uint8_t edge_flags(uint32_t word) { return (uint8_t)(word >> EDGE_FLAG_SHIFT); }
/* Rule modes: chases ignored (check), counted (full), or every attack
 * (check, chase of any piece, mate threat) counted as a check is in
 * MODE_CHECK (cxa: no piece needs following, so no chase sets); asian:
 * full with the chases of checking moves counted, which needs each
 * side's last class of move in the node as well (repetition_asian.c). */
enum { MODE_CHECK = 0, MODE_FULL = 1, MODE_ATTACK = 2, MODE_ASIAN = 3 };

typedef struct {
    tb_table *t;
    int w, mode; /* the side asked about, and the rule mode */
    int threads;
    int kept_late; /* repetition_solve's kept_late */
    int sub_ruled; /* some subtable holds a ruled result (else no capture wins by a ruling) */
    /* the drawn region, positions numbered per side by rank: a bitmap per
     * side (`words` words each) with the count of set bits before each
     * word; red's positions come first, 0..npos_red-1, then black's.  A
     * position's entry is found from them (rg_pos_entry), not kept: 8
     * bytes a drawn position (KRKNAABB has 37 million) against a look-up
     * that is a scan and a select for positions taken in order, and a
     * short search for the escapes' removal, which takes them in no order
     * (KRCKR's escapes 1.5-3 s longer: docs/BENCHMARKS.md). */
    uint64_t *drawn[2];
    uint32_t *rank[2];
    uint64_t words;
    uint64_t npos, npos_red;
    /* the word that holds every RG_SAMPLE-th position (its side follows
     * from the position), so that a look-up without a hint searches the
     * ranks between two samples, a few words, not all of them */
    uint32_t *sample;
    /* the positions w might win from (rg_escapes), a bit each, with the
     * count of set bits before each word: the graph's first nodes, the
     * position nodes, are these positions in order (rg_local) */
    uint64_t *inside;
    uint32_t *inside_rank;
    uint8_t *witness;    /* repetition_escape.c's scratch, per position, while rg_escapes runs: */
    uint8_t *witness_at; /* its witness's mark, and the witness's place in the moves looked through
                          * (a w position's: where the removal's last look found it stays) */
    /* MODE_ATTACK: per position, whether the side not to move in it would
     * threaten mate if it were to move (xq_threat_after of any quiet move
     * into it): 0 not known yet, 1 no, 2 yes.  A pure function of the
     * position, found once for all the moves into it and both winners. */
    uint8_t *threat;
    /* nodes: a position and, per colour c, the set of pieces of colour c^1
     * that c has chased on each of its moves since its chase was broken,
     * as a bit mask over those pieces in ascending square order on the
     * decoded board; under MODE_ASIAN also each side's last class of move
     * (LAST_* << 2 * colour) */
    uint32_t nnodes, node_cap;
    /* each node's position: read only by the build (its expansion), so
     * held only while the graph is built, not through the solves (4 bytes
     * a node of their peak) */
    uint32_t *node_pos;
    uint64_t pos_cap;
    uint8_t (*node_set)[3]; /* [RED], [BLACK]: the sets; [NODE_LAST]: the last classes */
    /* side to move per node, a bit each: the solvers ask it of every
     * predecessor they visit, and a bitmap (1.2 MB for KRPKR's 9.4 million
     * nodes) stays in cache where a byte a node would not */
    uint64_t *node_side;
    uint64_t *hkey; /* nodes with a non-empty set: key -> node */
    uint32_t *hval;
    uint64_t hcap, hcount;
    /* successors, as compressed rows of edge words, and predecessors
     * (with the edges' flags, so that a predecessor's edge priority needs
     * no search); rows start at 32-bit offsets, so at most EDGES_MAX edges */
    uint32_t *first;
    uint64_t first_cap;
    uint32_t *edge; /* edge_word(target, flags) */
    uint64_t nedges, edge_cap;
    uint32_t *pfirst;
    uint32_t *pred; /* edge_word(source, flags of the edge source -> v) */
    /* Memory held (everything the rulings allocate beside the table's ruled
     * bytes), the most held at once, and the most allowed (UINT64_MAX: no
     * bound). */
    uint64_t bytes, peak, max_bytes;
    char *err;
} rgraph;

/* Sets up the drawn region of g->t (g->t, max_bytes and err set).  0 or -1. */
int rg_region_init(rgraph *g);
/* Numbers the drawn positions: g->rank, npos_red, npos and the samples,
 * from g->drawn (g->words words a side; g->rank allocated).  0, or -1
 * (out of memory, over the memory limit, or too many positions). */
int rg_region_rank(rgraph *g);
/* Fills rank[w] with start plus the set bits of bits[0..w) (a bitmap's
 * ranks for rg_drawn_id and rg_local); returns start plus all its bits. */
uint64_t rg_rank_bits(const uint64_t *bits, uint64_t words, uint32_t *rank, uint64_t start);
/* The set bits of word below bit `bit`: a rank in one of the bitmaps
 * below (tb_bits_below). */
static inline uint32_t rg_bits_below(uint64_t word, unsigned bit) { return tb_bits_below(word, bit); }

/* Node of position p with empty sets (its rank among the positions
 * inside), NODE_NONE if w cannot win there.  A bitmap and its ranks in
 * place of an array of node numbers: 1.5 bits a position instead of 32,
 * in cache where the array was not. */
static inline uint32_t rg_local(const rgraph *g, uint32_t p)
{
    uint64_t word = g->inside[p >> 6];
    if (!(word >> (p & 63) & 1)) return NODE_NONE;
    return g->inside_rank[p >> 6] + rg_bits_below(word, p & 63);
}
/* Positions between two entries of rgraph.sample: 4 bytes every 256
 * drawn positions. */
enum { RG_SAMPLE_SHIFT = 8 };
/* Side to move in drawn position p. */
static inline int rg_pos_side(const rgraph *g, uint32_t p) { return p >= g->npos_red; }
/* Where the last rg_pos_entry found a position: a look-up near it (the
 * next position, or one a few words on) scans forward from there instead
 * of searching.  Zero it before the first look-up. */
typedef struct {
    int side;
    uint64_t word;
    unsigned bit;  /* the position's bit in its word */
    uint32_t next; /* the position after it, or 0 if the hint holds none */
} rg_hint;
/* Entry of drawn position p, as index << 1 | side to move: the bit of
 * rank p in the drawn bitmaps.  `hint` may be NULL (a search). */
uint64_t rg_pos_entry(const rgraph *g, rg_hint *hint, uint32_t p);
/* Decodes drawn position p into b and site, p coming after the position
 * the hint and site hold (or near it): a look-up and a decode that start
 * from the last, for passes that take positions in order. */
void rg_decode_next(const rgraph *g, rg_hint *hint, uint32_t p, xq_board *b, xq_index_site *site);
/* Sorts a[0, n), numbers below `bound`, into increasing order, with
 * tmp[0, n) as scratch (a radix sort; fewer than 1,024 are left as they
 * are).  The rulings' passes over a list of positions or nodes found in
 * no order sort it first, so that what they read about each (a decode
 * that starts from the last, a row of the graph) comes in the order it
 * is stored in. */
void rg_sort_ids(uint32_t *a, uint64_t n, uint32_t *tmp, uint64_t bound);
/* Sorts the layer queue[head, tail) of an attractor's queue of `cap`
 * entries (node numbers below cap), with the queue's free end as scratch,
 * when it has room: each node of a layer then reads its row of
 * predecessors in the order they are stored in.  Nodes join a layer in
 * no order, and which nodes do, at which layer, does not depend on it. */
void rg_sort_layer(uint32_t *queue, uint64_t head, uint64_t tail, uint64_t cap);

/* Position number of entry i with `side` to move, or NODE_NONE if that
 * entry is not drawn.  The drawn bitmap says so without reading the
 * entry's cell: the bitmap and its ranks (1.5 bits an entry) stay in cache
 * where the cells (8 or 16 bits an entry) do not, and every move the
 * rulings look at asks this first. */
static inline uint32_t rg_drawn_id(const rgraph *g, int side, uint64_t i)
{
    uint64_t word = g->drawn[side][i >> 6];
    if (!(word >> (i & 63) & 1)) return NODE_NONE;
    return g->rank[side][i >> 6] + rg_bits_below(word, i & 63);
}
/* Exit code of a capture (subtable value), from the mover's point of view;
 * NODE_NONE if the capture was not legal (it reaches an illegal position). */
uint32_t rg_capture_exit(const tb_table *t, xq_piece taken, const xq_board *after);
/* Whether quiet move m of b->side (b the position before it), into drawn
 * position q, is an attack under cxa (xq_move_checks_or_chases, else
 * xq_threat_after of the position reached), with the mate
 * threat looked up in g->threat. */
int rg_move_attacks(const rgraph *g, const xq_board *b, xq_move m, uint32_t q);
/* Sets g->inside (and its ranks) to the positions where g->w might win:
 * all but those where the other side can always idle (repetition_escape.c).
 * Returns how many are left, or -1 on failure. */
int64_t rg_escapes(rgraph *g);
/* Builds nodes, edges and predecessor lists over the positions inside
 * (numbering them).  0 or -1. */
int rg_build(rgraph *g);
/* Orders (1..) of the nodes g->w wins on a graph built under MODE_ASIAN,
 * 0 where it does not win (repetition_asian.c); *orders the highest.
 * Returns 0, or -1 if out of memory (no message). */
int rg_solve_asian(const rgraph *g, uint8_t *order, int *orders);
/* Forgets the graph, keeping the region (and the allocations). */
void rg_clear(rgraph *g);
void rg_free(rgraph *g);
/* Adds bytes to the memory account before they are allocated; -1 with a
 * message past the limit.  Callers subtract what they free. */
int rg_charge(rgraph *g, uint64_t bytes);

enum { NODE_LAST = 2 };
/* A side's last class of move other than "check that keeps the chase"
 * (MODE_ASIAN): none since its last idle move or break, a check, a chase. */
enum { LAST_NONE = 0, LAST_CHECK = 1, LAST_CHASE = 2 };
static inline int rg_side_of(const rgraph *g, uint32_t u) { return (int)(g->node_side[u >> 6] >> (u & 63) & 1); }

static inline int rg_exit_mover_loses(uint32_t x, int mode)
{
    return x == EXIT_LOSS || (x == EXIT_LOSS_CHASE && mode != MODE_CHECK);
}
static inline int rg_exit_mover_wins(uint32_t x, int mode)
{
    return x == EXIT_WIN || (x == EXIT_WIN_CHASE && mode != MODE_CHECK);
}

#endif
