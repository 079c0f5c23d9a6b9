/*
 * repetition_graph.c - building the game graph of repetition_graph.h: the drawn
 * region, nodes (positions with chase-tracking sets), edges with their
 * labels, and predecessor lists.
 *
 * A move "resets" its mover's set when the set and the move's chase set
 * share no piece (a check empties the set, and resets); the new set is
 * then the move's chase set, else the shared pieces.  A chased piece that
 * moves is followed to its new square.
 */
#include "repetition_graph.h"
#include "labels.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cell.h"
#include "movegen.h"
#include "parallel.h"

int rg_charge(rgraph *g, uint64_t bytes)
{
    g->bytes += bytes;
    if (g->bytes > g->peak) g->peak = g->bytes;
    if (g->bytes > g->max_bytes) {
        /* In MiB, both rounded down, with as many decimals (one to three)
         * as it takes to tell them apart: a budget below 1 MiB is not "0
         * MiB", and a need just above the budget not "5.0 MiB, 5.0 left". */
        double need = (double)g->bytes / 1048576.0, left = (double)g->max_bytes / 1048576.0, scale = 10.0;
        int decimals = 1;
        for (; decimals < 3 && floor(need * scale) <= floor(left * scale); decimals++) scale *= 10.0;
        snprintf(g->err, XQ_ERR_MAX,
                 "the repetition rulings need over %.*f MiB, %.*f MiB left after the tables (raise --max-memory, "
                 "or --rules none)",
                 decimals, floor(need * scale) / scale, decimals, floor(left * scale) / scale);
        return -1;
    }
    return 0;
}

/* Resizes an array from *cap to at least `need` elements.  The charge
 * covers the old and the new block together, which realloc may hold at
 * once while it copies. */
static void *grow(rgraph *g, void *p, uint64_t *cap, uint64_t need, size_t elem)
{
    if (need <= *cap) return p;
    uint64_t n = *cap ? *cap : 1024;
    while (n < need) n *= 2;
    if (rg_charge(g, n * elem)) return NULL;
    void *q = realloc(p, n * elem);
    if (!q) {
        snprintf(g->err, XQ_ERR_MAX, "out of memory for the repetition rulings' game graph");
        return NULL;
    }
    g->bytes -= *cap * elem;
    *cap = n;
    return q;
}

/* ---- the drawn region ---------------------------------------------------- */
uint64_t rg_rank_bits(const uint64_t *bits, uint64_t words, uint32_t *rank, uint64_t start)
{
    for (uint64_t w = 0; w < words; w++) {
        rank[w] = (uint32_t)start;
        start += (uint64_t)__builtin_popcountll(bits[w]);
    }
    return start;
}

int rg_region_init(rgraph *g)
{
    tb_table *t = g->t;
    uint64_t words = (t->ix.size + 63) / 64;
    if (rg_charge(g, 2 * words * (sizeof(uint64_t) + sizeof(uint32_t)))) return -1;
    for (int s = 0; s < 2; s++) {
        g->drawn[s] = calloc(words, sizeof(uint64_t));
        g->rank[s] = malloc(words * sizeof(uint32_t));
        if (!g->drawn[s] || !g->rank[s]) return -1;
    }
    for (int s = 0; s < 2; s++)
        for (uint64_t i = 0; i < t->ix.size; i++)
            if (cell_get(t->cells[s], t->width, i) == CELL_DRAW) g->drawn[s][i >> 6] |= (uint64_t)1 << (i & 63);
    g->words = words;
    if (rg_region_rank(g)) return -1;
    uint64_t inside_words = g->npos / 64 + 1;
    if (rg_charge(g, inside_words * (sizeof(uint64_t) + sizeof(uint32_t)))) return -1;
    g->inside = calloc(inside_words, sizeof(uint64_t));
    g->inside_rank = calloc(inside_words, sizeof(uint32_t));
    if (!g->inside || !g->inside_rank) return -1;
    return 0;
}

int rg_region_rank(rgraph *g)
{
    uint64_t words = g->words;
    g->npos_red = rg_rank_bits(g->drawn[RED], words, g->rank[RED], 0);
    uint64_t n = rg_rank_bits(g->drawn[BLACK], words, g->rank[BLACK], g->npos_red);
    if (n >= POS_MAX) {
        snprintf(g->err, XQ_ERR_MAX, "too many drawn positions for the repetition rulings");
        return -1;
    }
    g->npos = n;
    uint64_t samples = (n >> RG_SAMPLE_SHIFT) + 1;
    if (rg_charge(g, samples * sizeof(uint32_t))) return -1;
    if (!(g->sample = malloc(samples * sizeof(uint32_t)))) return -1;
    /* sample k is position k << RG_SAMPLE_SHIFT: the first word whose
     * positions [rank, rank + its bits) reach it */
    uint64_t k = 0;
    for (int s = 0; s < 2; s++)
        for (uint64_t w = 0; w < words; w++) {
            uint64_t end = (uint64_t)g->rank[s][w] + (uint64_t)__builtin_popcountll(g->drawn[s][w]);
            for (; k < samples && k << RG_SAMPLE_SHIFT < end; k++) g->sample[k] = (uint32_t)w;
        }
    return 0;
}

/* The bit of rank k (from 0) among the set bits of x, which has more than
 * k: halves, quarters and eighths of the word counted, then at most eight
 * bits stepped over. */
static unsigned select_bit(uint64_t x, unsigned k)
{
    unsigned at = 0;
    for (unsigned half = 32; half >= 8; half /= 2) {
        unsigned low = rg_bits_below(x, half);
        if (k >= low) {
            k -= low;
            x >>= half;
            at += half;
        }
    }
    for (; k; k--) x &= x - 1;
    return at + (unsigned)__builtin_ctzll(x);
}

/* The last word w of ranks r[lo..hi) with r[w] <= p (r ascends; r[lo] <= p). */
static uint64_t word_of_rank(const uint32_t *r, uint64_t lo, uint64_t hi, uint32_t p)
{
    while (hi - lo > 1) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (r[mid] <= p)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* Words a look-up scans forward from its hint before it searches instead. */
enum { HINT_SCAN = 16 };

/* Steps over the drawn bits after the hint's, of side s, to the k-th
 * (k >= 1); returns its bit and sets *w to its word, or -1 if that is
 * more than HINT_SCAN words on.  A pass that takes the positions in order
 * finds each next one so in a few instructions, where the ranks and a
 * select within the word cost a hundred or more (KCKPP's escapes: their
 * first pass spent a tenth of their instructions there).  Only for a k of
 * a few (HINT_STEPS): further on, the ranks are quicker. */
enum { HINT_STEPS = 8 };

static int step_bits(const rgraph *g, const rg_hint *hint, int s, uint32_t k, uint64_t *w)
{
    uint64_t at = hint->word, bits = g->drawn[s][at] & (~(uint64_t)1 << hint->bit);
    for (int words = 0;;) {
        for (; bits && k > 1; k--) bits &= bits - 1;
        if (bits) break;
        if (++at == g->words || ++words > HINT_SCAN) return -1;
        bits = g->drawn[s][at];
    }
    *w = at;
    return __builtin_ctzll(bits);
}

uint64_t rg_pos_entry(const rgraph *g, rg_hint *hint, uint32_t p)
{
    int s = rg_pos_side(g, p);
    const uint32_t *r = g->rank[s];
    uint64_t w = 0;
    int found = 0;
    if (hint && hint->next && hint->side == s && p >= hint->next && p - hint->next < HINT_STEPS) {
        int bit = step_bits(g, hint, s, p - hint->next + 1, &w);
        if (bit >= 0) {
            hint->word = w;
            hint->bit = (unsigned)bit;
            hint->next = p + 1;
            return (w << 6 | (unsigned)bit) << 1 | (uint64_t)s;
        }
    }
    if (hint && hint->side == s && hint->word < g->words && r[hint->word] <= p) {
        w = hint->word;
        for (int step = 0; step <= HINT_SCAN; step++) {
            if (w + 1 == g->words || r[w + 1] > p) {
                found = 1;
                break;
            }
            w++;
        }
    }
    /* the last word whose rank is p or less holds p: the next one's rank
     * is above p, so this word's bits reach it */
    if (!found) {
        /* between the samples around p: the word of the one at or below
         * it, and that of the next (if it is on the same side) */
        uint64_t k = p >> RG_SAMPLE_SHIFT, next = (k + 1) << RG_SAMPLE_SHIFT;
        uint64_t hi = next < g->npos && rg_pos_side(g, (uint32_t)next) == s ? (uint64_t)g->sample[k + 1] + 1 : g->words;
        uint64_t lo = rg_pos_side(g, (uint32_t)(k << RG_SAMPLE_SHIFT)) == s ? g->sample[k] : 0;
        w = word_of_rank(r, lo, hi, p);
    }
    unsigned bit = select_bit(g->drawn[s][w], p - r[w]);
    if (hint) {
        hint->side = s;
        hint->word = w;
        hint->bit = bit;
        hint->next = p + 1;
    }
    return (w << 6 | bit) << 1 | (uint64_t)s;
}

/* ---- sorting node and position numbers ---------------------------------- */
enum { RADIX_BITS = 11, SORT_MIN = 1 << 10 };

void rg_sort_ids(uint32_t *a, uint64_t n, uint32_t *tmp, uint64_t bound)
{
    if (n < SORT_MIN) return; /* too few to gain from the order */
    uint64_t count[1 << RADIX_BITS];
    uint32_t *from = a, *to = tmp;
    for (unsigned shift = 0; shift < 32 && (bound - 1) >> shift; shift += RADIX_BITS) {
        memset(count, 0, sizeof count);
        for (uint64_t i = 0; i < n; i++) count[from[i] >> shift & ((1u << RADIX_BITS) - 1)]++;
        uint64_t sum = 0;
        for (unsigned d = 0; d < 1u << RADIX_BITS; d++) {
            uint64_t c = count[d];
            count[d] = sum;
            sum += c;
        }
        for (uint64_t i = 0; i < n; i++) to[count[from[i] >> shift & ((1u << RADIX_BITS) - 1)]++] = from[i];
        uint32_t *x = from;
        from = to;
        to = x;
    }
    if (from != a) memcpy(a, from, n * sizeof *a);
}

void rg_sort_layer(uint32_t *queue, uint64_t head, uint64_t tail, uint64_t cap)
{
    if (tail + (tail - head) <= cap) rg_sort_ids(queue + head, tail - head, queue + tail, cap);
}

/* ---- nodes ----------------------------------------------------------------- */
void rg_decode_next(const rgraph *g, rg_hint *hint, uint32_t p, xq_board *b, xq_index_site *site)
{
    uint64_t entry = rg_pos_entry(g, hint, p);
    xq_index_decode_next(&g->t->ix, entry >> 1, b, site);
    b->side = (uint8_t)(entry & 1);
}

static uint64_t hash64(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xFF51AFD7ED558CCDull;
    k ^= k >> 33;
    k *= 0xC4CEB9FE1A85EC53ull;
    return k ^ (k >> 33);
}

static int add_node(rgraph *g, uint32_t pos, uint8_t red_set, uint8_t black_set, uint8_t last)
{
    if (g->nnodes >= NODE_MAX) {
        snprintf(g->err, XQ_ERR_MAX, "the repetition rulings' game graph needs more than %lu nodes",
                 (unsigned long)NODE_MAX);
        return -1;
    }
    void *p = grow(g, g->node_pos, &g->pos_cap, (uint64_t)g->nnodes + 1, sizeof *g->node_pos);
    if (!p) return -1;
    g->node_pos = p;
    uint64_t cap = g->node_cap;
    void *q = grow(g, g->node_set, &cap, (uint64_t)g->nnodes + 1, sizeof *g->node_set);
    if (!q) return -1;
    g->node_set = q;
    if (cap != g->node_cap) {
        uint64_t words = (cap + 63) / 64, old_words = (g->node_cap + 63) / 64;
        if (rg_charge(g, words * sizeof *g->node_side)) return -1;
        void *r = realloc(g->node_side, words * sizeof *g->node_side);
        if (!r) {
            snprintf(g->err, XQ_ERR_MAX, "out of memory for the repetition rulings' game graph");
            return -1;
        }
        g->bytes -= old_words * sizeof *g->node_side;
        g->node_side = r;
        g->node_cap = (uint32_t)cap;
    }
    g->node_pos[g->nnodes] = pos;
    g->node_set[g->nnodes][RED] = red_set;
    g->node_set[g->nnodes][BLACK] = black_set;
    uint64_t bit = (uint64_t)1 << (g->nnodes & 63), *side = &g->node_side[g->nnodes >> 6];
    *side = rg_pos_side(g, pos) ? *side | bit : *side & ~bit; /* the bits outlive rg_clear */
    g->node_set[g->nnodes][NODE_LAST] = last;
    g->nnodes++;
    return 0;
}

static int hash_grow(rgraph *g)
{
    uint64_t ncap = g->hcap ? g->hcap * 2 : 4096;
    if (rg_charge(g, ncap * 12)) return -1;
    uint64_t *key = malloc(ncap * sizeof *key);
    uint32_t *val = malloc(ncap * sizeof *val);
    if (!key || !val) {
        free(key);
        free(val);
        snprintf(g->err, XQ_ERR_MAX, "out of memory for the repetition rulings' game graph");
        return -1;
    }
    memset(key, 0xFF, ncap * sizeof *key);
    for (uint64_t i = 0; i < g->hcap; i++)
        if (g->hkey[i] != UINT64_MAX) {
            uint64_t h = hash64(g->hkey[i]) & (ncap - 1);
            while (key[h] != UINT64_MAX) h = (h + 1) & (ncap - 1);
            key[h] = g->hkey[i];
            val[h] = g->hval[i];
        }
    free(g->hkey);
    free(g->hval);
    g->bytes -= g->hcap * 12; /* the old table, charged with the new one while both were held */
    g->hkey = key;
    g->hval = val;
    g->hcap = ncap;
    return 0;
}

/* The slot of key in the hash table: where it is, or the empty slot where
 * it would go.  The table must have room (hcap > 0). */
static uint64_t hash_slot(const rgraph *g, uint64_t key)
{
    uint64_t h = hash64(key) & (g->hcap - 1);
    while (g->hkey[h] != UINT64_MAX && g->hkey[h] != key) h = (h + 1) & (g->hcap - 1);
    return h;
}

/* The node of a key made before, or NODE_MAX: a look-up that reads only,
 * so that threads may make it while no node is being created. */
static uint32_t node_known(const rgraph *g, uint64_t key)
{
    if (!g->hcap) return NODE_MAX;
    uint64_t h = hash_slot(g, key);
    return g->hkey[h] == key ? g->hval[h] : NODE_MAX;
}

/* Node of a key of spec_node below (a position inside the graph, with
 * non-empty sets or last classes: quiet_target answers the others), created
 * if new.  Returns NODE_MAX on failure. */
static uint32_t node_of(rgraph *g, uint64_t key)
{
    if (2 * (g->hcount + 1) > g->hcap && hash_grow(g)) return NODE_MAX;
    uint64_t h = hash_slot(g, key);
    if (g->hkey[h] == key) return g->hval[h];
    uint32_t pos = (uint32_t)(key >> 16);
    if (g->nnodes >= NODE_MAX - 1 ||
        add_node(g, pos, (uint8_t)(key >> 8), (uint8_t)(key & 0xFF), (uint8_t)(key >> 48))) {
        if (!g->err[0]) snprintf(g->err, XQ_ERR_MAX, "too many game-graph nodes for the repetition rulings");
        return NODE_MAX;
    }
    g->hkey[h] = key;
    g->hval[h] = g->nnodes - 1;
    g->hcount++;
    return g->nnodes - 1;
}

/* ---- piece sets -------------------------------------------------------------
 * A set of pieces of one colour is a list of their squares while a move is
 * worked out, and a bit mask over that colour's non-king pieces (ascending
 * squares) in a node. */
typedef struct {
    int n;
    uint8_t sq[16];
} sqset;

static int pieces_of(const xq_board *b, int colour, uint8_t out[16])
{
    int n = 0;
    for (xq_mask m = b->occ[colour] & ~mask_of(b->king[colour]); m;) out[n++] = (uint8_t)mask_pop_lsb(&m);
    return n;
}

static void set_from_mask(const xq_board *b, int colour, unsigned mask, sqset *s)
{
    s->n = 0;
    if (!mask) return; /* most nodes: a position's own, with empty sets */
    uint8_t sq[16];
    int n = pieces_of(b, colour, sq);
    for (int k = 0; k < n; k++)
        if (mask >> k & 1) s->sq[s->n++] = sq[k];
}

static uint8_t mask_from_set(const xq_board *b, int colour, const sqset *s, int mirrored)
{
    uint8_t sq[16];
    int n = pieces_of(b, colour, sq);
    unsigned mask = 0;
    for (int i = 0; i < s->n; i++) {
        int x = mirrored ? mirror_square(s->sq[i]) : s->sq[i];
        for (int k = 0; k < n; k++)
            if (sq[k] == x) mask |= 1u << k;
    }
    return (uint8_t)mask;
}

static int set_has(const sqset *s, int sq)
{
    for (int i = 0; i < s->n; i++)
        if (s->sq[i] == sq) return 1;
    return 0;
}

/* ---- edges ----------------------------------------------------------------- */
/* Exit code of a capture, from the mover's point of view. */
uint32_t rg_capture_exit(const tb_table *t, xq_piece taken, const xq_board *after)
{
    uint64_t i;
    int side;
    const tb_table *s = tb_capture_entry(t, taken, after, &i, &side);
    if (i == XQ_INDEX_NONE) return NODE_NONE;
    unsigned v = cell_get(s->cells[side], s->width, i);
    if (v == CELL_ILLEGAL) return NODE_NONE; /* the capture was not legal */
    if (cell_is_win(v)) return EXIT_LOSS;
    if (cell_is_loss(v)) return EXIT_WIN; /* cannot happen from a drawn position */
    unsigned r = tb_ruled(s, side, i);
    if (r == RULED_NONE) return EXIT_DRAW;
    if (ruled_is_win(r)) return ruled_by_chase(r) ? EXIT_LOSS_CHASE : EXIT_LOSS;
    return ruled_by_chase(r) ? EXIT_WIN_CHASE : EXIT_WIN;
}

/* Shrinks an array from *cap to `need` elements (at least one): the
 * room grow doubled and the build did not use is given back, to the
 * account too, before the predecessor lists and the solves are allocated,
 * which set the rulings' peak.  A failed shrink keeps the larger block. */
static void *shrink(rgraph *g, void *p, uint64_t *cap, uint64_t need, size_t elem)
{
    if (need < 1) need = 1;
    if (need >= *cap) return p;
    void *q = realloc(p, need * elem);
    if (!q) return p;
    g->bytes -= (*cap - need) * elem;
    *cap = need;
    return q;
}

/* Room for `need` edges in all (one charge and copy per batch of nodes,
 * not a check per edge). */
static int reserve_edges(rgraph *g, uint64_t need)
{
    void *p = grow(g, g->edge, &g->edge_cap, need, sizeof *g->edge);
    if (!p) return -1;
    g->edge = p;
    return 0;
}

/* ---- expansion ---------------------------------------------------------------
 * Where an edge leads, as worked out from a node's board: an exit (or
 * NODE_NONE for an illegal move), a position's own node (empty sets: the
 * positions are numbered before any expansion, so this is read, not
 * made), or a position with non-empty sets, whose node is looked up if an
 * earlier batch made it and is otherwise made by the sequential part of
 * rg_build.  Kept as one 64-bit value: SPEC_FINAL | target, or the key of
 * node_of.  Resolving all but the new nodes here, in parallel, leaves the
 * sequential part the new nodes alone (on KRCKR a few percent of the
 * edges). */
#define SPEC_FINAL ((uint64_t)1 << 63)
static uint64_t spec_exit(uint32_t code) { return SPEC_FINAL | code; }
static uint64_t spec_node(uint32_t pos, uint8_t red_set, uint8_t black_set, uint8_t last)
{
    return (uint64_t)last << 48 | (uint64_t)pos << 16 | (uint64_t)red_set << 8 | black_set;
}

/* ---- rule set asian ---------------------------------------------------------
 * A move of side S with label (check, C), from S's set M, is of class
 *   b  a check that keeps the chase,   c  a check that does not,
 *   k  a chase that keeps it,          x  neither (idle, or a break),
 * where a move keeps the chase when C is not empty and M is empty or
 * shares a piece with C; S's set becomes M & C, or C when M was empty, if
 * the move keeps, else C.  S's last class (NODE_LAST) is that of its last
 * move other than b, LAST_NONE after an x.  A move of class c or k whose
 * class differs from a last class c or k "switches".  The proof that the
 * priorities below decide rule set asian's condition (docs/RULES.md: the
 * side that checks perpetually loses unless the other does too; else the
 * side that chases one same piece perpetually, checks with chases counted,
 * unless the other checks or chases perpetually too) runs by the highest
 * priority seen infinitely often, with W the side asked about and L the
 * other:
 *   5  (L: x or a switch) L makes infinitely many c-or-x and k-or-x moves,
 *      so L neither checks nor chases perpetually: W cannot win;
 *   4  (W: x or a switch) L settles on checks (b, c), on chases (b, k) or
 *      on b alone, and W does neither: W wins;
 *   3  (L: k) L chases perpetually, not checking, and W's moves settle as
 *      well (no 4s): W checks or chases perpetually and does not win;
 *   2  (W: k) L's k are finitely many, so L checks perpetually (b and c
 *      only), and W does not: W wins;
 *   1  (anything else) W's moves are b and c from some point: W checks
 *      perpetually and does not win.
 * "Perpetually" follows from the classes: a side chases one piece on every
 * move from some point iff its c and x moves are finitely many (after the
 * last one its set is a running intersection, never empty, of finite sets,
 * so some piece stays in all), and checks on every move iff its k and x
 * moves are finitely many.  Returns the node's new last classes and sets
 * *own2 (S's new set) and *flags. */
enum { CLASS_B, CLASS_C, CLASS_K, CLASS_X };

static uint8_t asian_move(const rgraph *g, int us, const xq_move_label *label, const sqset *own, uint8_t last,
                          sqset *own2, uint8_t *flags)
{
    for (int i = 0; i < label->nchased; i++)
        if (set_has(own, label->chased[i])) own2->sq[own2->n++] = label->chased[i];
    int keeps = label->nchased > 0 && (own->n == 0 || own2->n > 0);
    if (!keeps || own->n == 0) {
        own2->n = label->nchased;
        memcpy(own2->sq, label->chased, (size_t)label->nchased);
    }
    int cls = label->check ? (keeps ? CLASS_B : CLASS_C) : (keeps ? CLASS_K : CLASS_X);
    int before = last >> (2 * us) & 3, after = before;
    if (cls == CLASS_C) after = LAST_CHECK;
    if (cls == CLASS_K) after = LAST_CHASE;
    if (cls == CLASS_X) after = LAST_NONE;
    int breaks = cls == CLASS_X || (cls != CLASS_B && before != LAST_NONE && after != before);
    int prio = us == g->w ? (breaks ? 4 : cls == CLASS_K ? 2 : 1) : (breaks ? 5 : cls == CLASS_K ? 3 : 1);
    *flags = (uint8_t)((label->check ? F_CHECK : 0) | prio << F_PRIO_SHIFT);
    return (uint8_t)((last & ~(3u << (2 * us))) | (unsigned)after << (2 * us));
}

/* A node's chase sets on its board, the same for all its moves: the side
 * to move chasing the other's pieces (own), the other chasing its (opp). */
typedef struct {
    sqset own, opp;
} node_sets;

/* Where a quiet move m leads from node u (board b, the entry at site, mover
 * us, sets ns), with the move's flags; an exit if the position reached is
 * decided. */
static uint64_t quiet_target(const rgraph *g, uint32_t u, xq_board *b, const xq_index_site *site, xq_move m,
                             const node_sets *ns, uint8_t *flags)
{
    const tb_table *t = g->t;
    int us = b->side, them = us ^ 1, from = move_from(m), to = move_to(m);
    uint64_t j = xq_index_after_site_move(&t->ix, site, b, m);
    if (j == XQ_INDEX_NONE) return spec_exit(NODE_NONE);
    *flags = 0;
    /* Outside the drawn region the move is illegal, or leads where the
     * mover loses: never where it wins, or retro.c would have decided the
     * position a win.  Neither is an edge (expand keeps no EXIT_LOSS), so
     * the target's cell, a cache miss, is not read. */
    uint32_t q = rg_drawn_id(g, them, j), node;
    if (q == NODE_NONE) return spec_exit(NODE_NONE);
    if ((node = rg_local(g, q)) == NODE_NONE) return spec_exit(EXIT_DRAW);

    xq_move_label label;
    if (g->mode == MODE_FULL) {
        xq_label_move(b, m, &label);
    } else if (g->mode == MODE_ASIAN) {
        xq_label_move_as(b, m, XQ_RULES_ASIAN, &label); /* checks list their chases too */
    } else if (g->mode == MODE_ATTACK) {
        memset(&label, 0, sizeof label);
        label.check = rg_move_attacks(g, b, m, q); /* an attack plays the part of a check */
    } else {
        memset(&label, 0, sizeof label);
        label.check = xq_gives_check(b, m);
    }
    const sqset *own = &ns->own;
    sqset opp = ns->opp;
    *flags = label.check ? F_CHECK : 0;
    sqset own2 = {0, {0}};
    uint8_t last = g->node_set[u][NODE_LAST];
    if (g->mode == MODE_ASIAN) {
        last = asian_move(g, us, &label, own, last, &own2, flags);
    } else if (label.check) {
        *flags |= F_RESET;
    } else {
        for (int i = 0; i < label.nchased; i++)
            if (set_has(own, label.chased[i])) own2.sq[own2.n++] = label.chased[i];
        if (own2.n == 0) {
            *flags |= F_RESET;
            own2.n = label.nchased;
            memcpy(own2.sq, label.chased, (size_t)label.nchased);
        }
    }
    for (int i = 0; i < opp.n; i++)
        if (opp.sq[i] == from) opp.sq[i] = (uint8_t)to;                   /* the chased piece moved */
    if (own2.n == 0 && opp.n == 0 && last == 0) return SPEC_FINAL | node; /* node_of's answer */

    /* Sets are kept on the decoded board of the target entry, which may be
     * the mirror image of the board after the move. */
    xq_undo un;
    xq_make_move(b, m, &un);
    xq_board d;
    xq_index_decode(&t->ix, j, &d);
    int mirrored = memcmp(d.sq, b->sq, sizeof d.sq) != 0;
    xq_unmake_move(b, m, &un);
    uint8_t sets[2];
    sets[us] = mask_from_set(&d, them, &own2, mirrored);
    sets[them] = mask_from_set(&d, us, &opp, mirrored);
    return spec_node(q, sets[RED], sets[BLACK], last);
}

/* Whether an edge into exit x, from a node whose mover is w (`winner`) or
 * not, can change any solve made on the graph, `seen` holding the exits
 * kept from the node so far.  The solvers (repetition.c, repetition_asian.c)
 * read an exit edge only as "the mover wins by it" at a winner's node and
 * "the mover does not lose by it" at a loser's, under the mode of the
 * solve, and only whether such an edge exists.  So an exit the mover loses
 * under every mode (EXIT_LOSS), a winner's exit it never wins, and a
 * second edge into the same exit change nothing, and are left out: on
 * KRPKR, 55 million of red's 138 million edges were EXIT_LOSS, moves
 * into a position the mover loses. */
static int exit_matters(uint32_t x, int winner, unsigned *seen)
{
    unsigned bit = 1u << (x - EXIT_LOSS);
    if (x == EXIT_LOSS || (*seen & bit)) return 0;
    if (winner && x != EXIT_WIN && x != EXIT_WIN_CHASE) return 0;
    *seen |= bit;
    return 1;
}

/* The edges of node u that matter to a solve, in move order, into spec[]
 * and flags[]; returns their count.  Reads the graph, writes nothing of
 * it. */
static int expand(const rgraph *g, uint32_t u, rg_hint *hint, xq_board *b, xq_index_site *site, uint64_t *spec,
                  uint8_t *flags)
{
    rg_decode_next(g, hint, g->node_pos[u], b, site);
    node_sets ns;
    set_from_mask(b, b->side ^ 1, g->node_set[u][b->side], &ns.own);
    set_from_mask(b, b->side, g->node_set[u][b->side ^ 1], &ns.opp);
    /* Pseudo-legal moves: an illegal one reaches a position marked illegal
     * (retro.c), which the targets report as NODE_NONE. */
    xq_move list[XQ_MAX_MOVES];
    int n = xq_gen_pseudo(b, list), out = 0, winner = b->side == g->w;
    unsigned seen = 0;
    for (int k = 0; k < n; k++) {
        flags[out] = 0;
        if (b->sq[move_to(list[k])]) {
            xq_undo un;
            xq_make_move(b, list[k], &un);
            spec[out] = spec_exit(rg_capture_exit(g->t, un.captured, b));
            xq_unmake_move(b, list[k], &un);
        } else {
            spec[out] = quiet_target(g, u, b, site, list[k], &ns, &flags[out]);
        }
        uint64_t x = spec[out] & ~SPEC_FINAL;
        if (!(spec[out] & SPEC_FINAL) || x < NODE_MAX || (x != NODE_NONE && exit_matters((uint32_t)x, winner, &seen)))
            out++;
    }
    return out;
}

/* Nodes expanded in parallel at a time; each has room for XQ_MAX_MOVES
 * edges (more than any position's pseudo-legal moves). */
enum { BATCH = 4096 };

typedef struct {
    rgraph *g;
    uint32_t first; /* the batch's first node */
    uint64_t *spec; /* BATCH * XQ_MAX_MOVES */
    uint8_t *flags;
    uint8_t *count;   /* edges per node of the batch */
    uint8_t *pending; /* 1 if one of the node's edges leads to a node not made yet */
} expand_job;

/* Expands a range of the batch, and resolves each edge into a node made
 * in an earlier batch: the hash table is not written while threads run, so
 * the look-ups give what the numbering would. */
static void expand_chunk(void *arg, uint64_t begin, uint64_t end, int thread)
{
    (void)thread;
    expand_job *j = arg;
    /* nodes in order, and a position's nodes one after another: each
     * decode starts from the last (xq_index_decode_next) */
    xq_board b;
    xq_index_site site;
    xq_index_site_clear(&site);
    rg_hint hint = {0};
    for (uint64_t i = begin; i < end; i++) {
        uint64_t *spec = j->spec + i * XQ_MAX_MOVES;
        int n = expand(j->g, j->first + (uint32_t)i, &hint, &b, &site, spec, j->flags + i * XQ_MAX_MOVES);
        j->count[i] = (uint8_t)n;
        j->pending[i] = 0;
        for (int k = 0; k < n; k++) {
            if (spec[k] & SPEC_FINAL) continue;
            uint32_t v = node_known(j->g, spec[k]);
            if (v == NODE_MAX)
                j->pending[i] = 1;
            else
                spec[k] = SPEC_FINAL | v;
        }
    }
}

/* Copies a range of the batch's edges, all resolved, to the graph. */
static void copy_chunk(void *arg, uint64_t begin, uint64_t end, int thread)
{
    (void)thread;
    expand_job *j = arg;
    rgraph *g = j->g;
    for (uint64_t i = begin; i < end; i++) {
        uint64_t at = g->first[j->first + i];
        const uint64_t *spec = j->spec + i * XQ_MAX_MOVES;
        const uint8_t *flags = j->flags + i * XQ_MAX_MOVES;
        for (int k = 0; k < j->count[i]; k++) g->edge[at + (uint64_t)k] = edge_word((uint32_t)spec[k], flags[k]);
    }
}

/* Numbers the nodes the batch's edges find new, in node and move order,
 * as one thread following the edges one by one would. */
static int number_new(expand_job *j, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        if (!j->pending[i]) continue;
        uint64_t *spec = j->spec + (uint64_t)i * XQ_MAX_MOVES;
        for (int k = 0; k < j->count[i]; k++) {
            if (spec[k] & SPEC_FINAL) continue;
            uint32_t v = node_of(j->g, spec[k]);
            if (v == NODE_MAX) return -1;
            spec[k] = SPEC_FINAL | v;
        }
    }
    return 0;
}

static int predecessors(rgraph *g);

/* The hash table of nodes with sets is needed only while the graph is
 * built: freed before the predecessor lists and the solves, which set the
 * rulings' peak (KRPKR: 2^21 slots, 24 MiB), and grown anew by the next
 * build. */
static void hash_free(rgraph *g)
{
    free(g->hkey);
    free(g->hval);
    g->bytes -= g->hcap * 12; /* as hash_grow charged it */
    g->hkey = NULL;
    g->hval = NULL;
    g->hcap = g->hcount = 0;
}

/* Nodes are numbered in the order they are found, breadth first: the
 * positions (empty sets) first, then each new (position, sets) as the
 * edges of the nodes before it are followed.  A batch of nodes is expanded
 * in parallel (expand: the labels and index look-ups, the costly part,
 * and the look-up of nodes made before), then one thread numbers the nodes
 * that are new, in node and move order, which creates them exactly as a
 * single pass would, and the edges are copied in parallel: the graph does
 * not depend on the threads. */
int rg_build(rgraph *g)
{
    for (uint32_t p = 0; p < g->npos; p++) /* position nodes: rg_local's numbers */
        if (g->inside[p >> 6] >> (p & 63) & 1 && add_node(g, p, 0, 0, 0)) return -1;
    uint64_t scratch = (uint64_t)BATCH * XQ_MAX_MOVES * (sizeof(uint64_t) + 1) + 2 * BATCH;
    if (rg_charge(g, scratch)) return -1;
    expand_job job = {g,
                      0,
                      malloc((uint64_t)BATCH * XQ_MAX_MOVES * sizeof(uint64_t)),
                      malloc((uint64_t)BATCH * XQ_MAX_MOVES),
                      malloc(BATCH),
                      malloc(BATCH)};
    int rc = -1;
    if (!job.spec || !job.flags || !job.count || !job.pending) {
        snprintf(g->err, XQ_ERR_MAX, "out of memory for the repetition rulings' game graph");
        goto out;
    }
    for (uint32_t u = 0; u < g->nnodes;) { /* nnodes grows as sets appear */
        uint32_t n = g->nnodes - u < BATCH ? g->nnodes - u : BATCH;
        job.first = u;
        par_for(g->threads, n, 64, expand_chunk, &job);
        if (number_new(&job, n)) goto out;
        uint32_t *f = grow(g, g->first, &g->first_cap, (uint64_t)u + n + 1, sizeof *g->first);
        if (!f) goto out;
        g->first = f;
        uint64_t edges = g->nedges;
        for (uint32_t i = 0; i < n; i++) {
            g->first[u + i] = (uint32_t)edges;
            edges += job.count[i];
        }
        if (edges > EDGES_MAX) {
            snprintf(g->err, XQ_ERR_MAX, "the repetition rulings' game graph needs more than %llu edges",
                     (unsigned long long)EDGES_MAX);
            goto out;
        }
        if (reserve_edges(g, edges)) goto out;
        par_for(g->threads, n, 256, copy_chunk, &job);
        g->nedges = edges;
        u += n;
    }
    rc = 0;
out:
    free(job.spec);
    free(job.flags);
    free(job.count);
    free(job.pending);
    g->bytes -= scratch;
    hash_free(g);
    free(g->node_pos); /* the solves do not read it */
    g->bytes -= g->pos_cap * sizeof *g->node_pos;
    g->node_pos = NULL;
    g->pos_cap = 0;
    if (rc) return rc;
    uint32_t *f = grow(g, g->first, &g->first_cap, (uint64_t)g->nnodes + 1, sizeof *g->first);
    if (!f) return -1;
    g->first = f;
    g->first[g->nnodes] = (uint32_t)g->nedges;
    g->first = shrink(g, g->first, &g->first_cap, (uint64_t)g->nnodes + 1, sizeof *g->first);
    g->edge = shrink(g, g->edge, &g->edge_cap, g->nedges, sizeof *g->edge);
    return predecessors(g);
}

/* Predecessor lists: for each node, the nodes with an edge into it and
 * that edge's flags, by a counting sort of the edges on their targets.
 * Each thread sorts the edges into one range of targets, scanning them
 * all (in order, which is cheap) and writing only its own lists (at
 * random, which is not): the lists come out in node order whatever the
 * threads. */
typedef struct {
    rgraph *g;
    uint32_t *fill; /* NULL while counting */
    uint64_t parts;
} pred_job;

static void sort_part(void *arg, uint64_t begin, uint64_t end, int thread)
{
    (void)thread;
    pred_job *j = arg;
    rgraph *g = j->g;
    for (uint64_t part = begin; part < end; part++) {
        uint32_t lo = (uint32_t)(g->nnodes * part / j->parts), hi = (uint32_t)(g->nnodes * (part + 1) / j->parts);
        if (!j->fill) {
            for (uint64_t e = 0; e < g->nedges; e++) {
                uint32_t v = edge_target(g->edge[e]);
                if (v >= lo && v < hi) g->pfirst[v + 1]++;
            }
            continue;
        }
        for (uint32_t u = 0; u < g->nnodes; u++)
            for (uint64_t e = g->first[u]; e < g->first[u + 1]; e++) {
                uint32_t v = edge_target(g->edge[e]);
                if (v >= lo && v < hi) g->pred[j->fill[v]++] = edge_word(u, edge_flags(g->edge[e]));
            }
    }
}

static int predecessors(rgraph *g)
{
    if (rg_charge(g, ((uint64_t)g->nnodes + 1) * sizeof *g->pfirst + g->nedges * sizeof *g->pred)) return -1;
    g->pfirst = calloc((uint64_t)g->nnodes + 1, sizeof *g->pfirst);
    g->pred = malloc((g->nedges + 1) * sizeof *g->pred);
    if (!g->pfirst || !g->pred) {
        snprintf(g->err, XQ_ERR_MAX, "out of memory for the repetition rulings' game graph");
        return -1;
    }
    pred_job job = {g, NULL, (uint64_t)g->threads};
    par_for(g->threads, job.parts, 1, sort_part, &job);
    for (uint32_t v = 0; v < g->nnodes; v++) g->pfirst[v + 1] += g->pfirst[v];
    if (rg_charge(g, ((uint64_t)g->nnodes + 1) * sizeof *job.fill)) return -1;
    job.fill = malloc(((uint64_t)g->nnodes + 1) * sizeof *job.fill);
    if (!job.fill) {
        snprintf(g->err, XQ_ERR_MAX, "out of memory for the repetition rulings' game graph");
        return -1;
    }
    memcpy(job.fill, g->pfirst, ((uint64_t)g->nnodes + 1) * sizeof *job.fill);
    par_for(g->threads, job.parts, 1, sort_part, &job);
    free(job.fill);
    g->bytes -= ((uint64_t)g->nnodes + 1) * sizeof *job.fill;
    return 0;
}

void rg_clear(rgraph *g)
{
    if (g->pfirst) g->bytes -= ((uint64_t)g->nnodes + 1) * sizeof *g->pfirst + g->nedges * sizeof *g->pred;
    g->nnodes = 0;
    g->nedges = 0;
    free(g->pfirst);
    free(g->pred);
    g->pfirst = NULL;
    g->pred = NULL;
}

int rg_move_attacks(const rgraph *g, const xq_board *b, xq_move m, uint32_t q)
{
    if (xq_move_checks_or_chases(b, m)) return 1;
    uint8_t known = __atomic_load_n(&g->threat[q], __ATOMIC_RELAXED);
    if (!known) {
        xq_board after = *b;
        xq_undo u;
        xq_make_move(&after, m, &u);
        /* threads that race here store the same value */
        known = xq_threat_after(&after) ? 2 : 1;
        __atomic_store_n(&g->threat[q], known, __ATOMIC_RELAXED);
    }
    return known == 2;
}

void rg_free(rgraph *g)
{
    for (int s = 0; s < 2; s++) {
        free(g->drawn[s]);
        free(g->rank[s]);
    }
    free(g->sample);
    free(g->witness);
    free(g->witness_at);
    free(g->inside);
    free(g->inside_rank);
    free(g->threat);
    free(g->node_pos);
    free(g->node_set);
    free(g->node_side);
    hash_free(g);
    free(g->first);
    free(g->edge);
    free(g->pfirst);
    free(g->pred);
}
