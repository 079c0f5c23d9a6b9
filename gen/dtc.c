/*
 * dtc.c - distance to conversion (dtc.h), by one ply-synchronous pass in
 * the manner of retro.c over the positions with an ordinary result.
 *
 * A conversion is a capture or the end of the game.  From a won position
 * the winner aims at a conversion that keeps the result; from a lost one
 * the loser delays it as long as he can, and escapes altogether if some
 * capture of his leads to a position the winner cannot win (in time).
 * Two distances are computed side by side:
 *
 *   "holds": a capture keeps the result only if it holds under the limit
 *     in the subtable (a win that is not cursed there).  Positions whose
 *     distance comes out at most the limit hold from a fresh counter; the
 *     others are cursed wins and blessed losses (Syzygy's terms).
 *   "any": a capture into any win keeps the result.  It gives the
 *     distance recorded for cursed wins and blessed losses: the plies to
 *     the next capture that keeps a win at all, should the opponent err.
 *     Where no subtable has a result beyond the limit the two are the same
 *     and only "holds" is computed (subtables_go_beyond).
 *
 * The counter resets on captures and on nothing else: a pawn move does not
 * reset it (the Xiangqi rule, unlike chess).  Since no other move matters,
 * a position that holds at counter c is one whose "holds" distance is at
 * most limit - c: the tables store one distance and the reader compares.
 *
 * Ply 0 is the positions with no legal move, the wins by a capture that
 * keeps the result (distance 1) and the losses all of whose moves are such
 * captures (distance 1).  Each of them was decided by retro.c's initial
 * pass (a capture into a lost subtable position, every move a capture into
 * a won one, or no legal move), which marks what it decides (`early`):
 * ply 0 examines those only, where it had examined every position with a
 * result.  At ply k, every position whose distance (either
 * kind) is k-1 flags its predecessors (retro.c's un-moves), and each
 * flagged position is then examined alone, once for both kinds: a win if
 * some move reaches a final loss, a loss if every move reaches a final win
 * (or a capture that keeps it), at one more than the longest.  A position
 * flagged for one kind only is examined for both: harmless, since every
 * value is decided at the ply equal to it (see examine), so an extra look
 * finds nothing new or the value itself.  Writes go only to the examined
 * side's distances, reads only to the other side's, so the result does not
 * depend on the threads.
 *
 * With one kind, a win needs no examination: the losses of distance k-1
 * flag their predecessors in a bitmap of their own, and a won position
 * flagged there has a move into a final loss of distance k-1, so its
 * distance is k (see examine), as retro.c decides its wins at odd plies.
 * Only the losses are examined, flagged by the wins of distance k-1.  (With
 * two kinds a frontier position may be at k-1 in one kind only, and a win
 * is still examined for both.)
 */
#include "dtc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cell.h"
#include "movegen.h"
#include "parallel.h"
#include "pass.h"

/* UNKNOWN: no distance (what a move gives when it decides nothing).  An
 * entry's distance, until decided, is a code telling what the entry is
 * (init_chunk): an ordinary win or loss not decided yet, a position without
 * an ordinary result, an illegal entry.  So the distances alone answer
 * what the passes ask of an entry they have not decided (a loss's
 * successors in examine_moves, the flagged entries in decide), without the
 * entry's cell, another read at random in memory.  Every code lies above
 * DTC_MAX, and so above any move limit. */
enum {
    GRAIN = PASS_GRAIN,
    UNKNOWN = 0xFFFF,
    OPEN_WIN = 0xFFFF, /* the same value: an open win's distance is unknown */
    OPEN_LOSS = 0xFFFE,
    NO_RESULT = 0xFFFD,
    ILLEGAL_DIST = 0xFFFC
};

/* Distances are held one byte an entry, the codes above as the four top
 * values of a byte (their low bytes), while every distance fits below
 * them (DIST8_MAX): a distance that holds is at most the move limit, 120
 * plies by default.  The pass widens them to two bytes before the first ply
 * that could write a longer one (widen), as retro.c widens its cells; it
 * starts with two where the cells have two or the limit exceeds a byte
 * (dtc_start_width). */
enum { DIST8_CODES = ILLEGAL_DIST & 0xFF, DIST8_MAX = DIST8_CODES - 1 };
_Static_assert(OPEN_WIN >> 8 == 0xFF && OPEN_LOSS >> 8 == 0xFF && NO_RESULT >> 8 == 0xFF &&
                   (OPEN_LOSS & 0xFF) >= DIST8_CODES && (NO_RESULT & 0xFF) >= DIST8_CODES,
               "each code is 0xFF00 plus a byte at or above DIST8_CODES");

/* The distance or code a byte holds, as two bytes hold it. */
static inline unsigned dist8_wide(unsigned v) { return v >= DIST8_CODES ? v | 0xFF00u : v; }

/* What the finished pass leaves an entry that has an ordinary result but no
 * conversion: impossible (every such position is decided), checked.  Above
 * every DTC code. */
enum { NO_CONVERSION = 0x10000 };

/* The two kinds of distance: HOLDS is what the table stores for results
 * that hold, ANY what it stores for cursed wins and blessed losses. */
enum { HOLDS = 0, ANY = 1, KINDS = 2 };

/* The pass engine's maps (pass.h): CAND, the positions to examine; WON,
 * with one kind, the predecessors of the losses at ply-1, wins at ply.  The
 * engine's front holds what each ply decided (flag_chunk's frontier from
 * ply 3 on). */
enum { CAND = 0, WON = 1 };

typedef struct {
    tb_table *t;
    void *dist[KINDS][2]; /* [kind][side to move], `width` bytes an entry */
    int width;
    pass_state pass;
    int kinds;                    /* KINDS, or 1 where "any" cannot differ from "holds" (dtc_solve) */
    const uint64_t *const *early; /* dtc_solve's `early`, or NULL */
    int ply;
    uint32_t byte_code[256];                /* once the pass is done, with one-byte distances: byte_codes */
    uint64_t init_open[PAR_MAX_THREADS][2]; /* per thread and side, entries ply 0 left open */
    uint64_t open[2];                       /* per side, about the entries still open (choose_pull) */
    pass_direction direction;
} dtc_ctx;

/* The DTC code of entry i of subtable s with `side` to move. */
static unsigned entry_dtc(const tb_table *s, int side, uint64_t i)
{
    return i == XQ_INDEX_NONE || !tb_has_dtc(s) ? DTC_NONE : tb_dtc(s, side, i);
}

unsigned dtc_capture_code(const tb_table *t, xq_piece taken, const xq_board *b)
{
    uint64_t i;
    int side;
    const tb_table *s = tb_capture_entry(t, taken, b, &i, &side);
    return entry_dtc(s, side, i);
}

/* The hot functions below take the width as an argument `w` and are
 * instantiated for each width (INLINE; decide_chunk and init_chunk choose),
 * so that the test of the width and the other width's code leave the
 * loops: reading a byte and widening its code costs a few instructions a
 * look-up as it is. */
#define INLINE static inline __attribute__((always_inline))

INLINE unsigned dist_of(const dtc_ctx *c, int w, int kind, int side, uint64_t i)
{
    if (w == 1) {
        return dist8_wide(__atomic_load_n((const uint8_t *)c->dist[kind][side] + i, __ATOMIC_RELAXED));
    }
    return __atomic_load_n((const uint16_t *)c->dist[kind][side] + i, __ATOMIC_RELAXED);
}

/* Writes a distance (at most DIST8_MAX while a byte holds it) or a code. */
INLINE void dist_set(const dtc_ctx *c, int w, int kind, int side, uint64_t i, unsigned d)
{
    if (w == 1)
        __atomic_store_n((uint8_t *)c->dist[kind][side] + i, (uint8_t)d, __ATOMIC_RELAXED);
    else
        __atomic_store_n((uint16_t *)c->dist[kind][side] + i, (uint16_t)d, __ATOMIC_RELAXED);
}

/* What one move gives a kind of distance: d (the successor's final
 * distance, 0 for a capture that keeps the result), or UNKNOWN. */
typedef struct {
    unsigned d[KINDS];
} move_dist;

/* A capture (b after it, the piece `taken`) by the side whose result is
 * `role` (1 won, -1 lost): it keeps the result if the position reached is
 * a loss for a winner's capture, a win for a loser's, with a conversion
 * distance that holds (HOLDS) or exists at all (ANY).  legal = 0 if the
 * capture was illegal. */
static move_dist capture_dist(const dtc_ctx *c, xq_piece taken, const xq_board *after, int role, int *legal)
{
    move_dist r = {{UNKNOWN, UNKNOWN}};
    uint64_t i;
    int side;
    /* one look-up for the cell and the distance: encoding the position
     * in the subtable is most of a capture's cost */
    const tb_table *s = tb_capture_entry(c->t, taken, after, &i, &side);
    unsigned v = i == XQ_INDEX_NONE ? CELL_ILLEGAL : cell_get(s->cells[side], s->width, i);
    *legal = v != CELL_ILLEGAL;
    if (v == CELL_ILLEGAL || (role > 0 ? !cell_is_loss(v) : !cell_is_win(v))) return r;
    unsigned d = entry_dtc(s, side, i);
    if (d == DTC_NONE) return r;
    r.d[ANY] = 0;
    if (!dtc_beyond(d)) r.d[HOLDS] = 0;
    return r;
}

/* What an examination has found so far (examine). */
typedef struct {
    unsigned out[KINDS], longest[KINDS];
    int settled[KINDS];
    int open;  /* kinds not settled */
    int legal; /* legal moves seen */
} exam;

/* Moves list[0, n) of an examination, until every kind is settled. */
INLINE void examine_moves(const dtc_ctx *c, int w, xq_board *b, const xq_index_site *site, int role, int ply,
                          const xq_move *list, int n, exam *e)
{
    const tb_table *t = c->t;
    for (int m = 0; m < n && e->open; m++) {
        move_dist md = {{UNKNOWN, UNKNOWN}};
        if (b->sq[move_to(list[m])]) {
            xq_undo u;
            int ok;
            xq_make_move(b, list[m], &u);
            md = capture_dist(c, u.captured, b, role, &ok);
            xq_unmake_move(b, list[m], &u);
            if (!ok) continue;
        } else if (role < 0 && ply > 0) {
            /* Every legal quiet move of an ordinary loss leads to an
             * ordinary win (retro.c decided it so), so its distances say
             * all: the entry's cell, a second read from memory at random,
             * is not needed. */
            uint64_t j = xq_index_after_site_move(&t->ix, site, b, list[m]);
            unsigned first = dist_of(c, w, HOLDS, b->side ^ 1, j);
            if (first == ILLEGAL_DIST) continue;
            for (int k = 0; k < KINDS; k++) {
                unsigned d = k == HOLDS ? first : dist_of(c, w, k, b->side ^ 1, j);
                md.d[k] = (int)d <= ply - 1 ? d : UNKNOWN; /* final only */
            }
        } else {
            uint64_t j = xq_index_after_site_move(&t->ix, site, b, list[m]);
            unsigned v = cell_get(t->cells[b->side ^ 1], t->width, j);
            if (v == CELL_ILLEGAL) continue;
            /* past ply 0 only a win's moves come here (a loss's take the
             * branch above) */
            if (ply > 0 && cell_is_loss(v))
                for (int k = 0; k < KINDS; k++) {
                    unsigned d = dist_of(c, w, k, b->side ^ 1, j);
                    md.d[k] = (int)d <= ply - 1 ? d : UNKNOWN; /* final only */
                }
        }
        e->legal++;
        for (int k = 0; k < KINDS; k++) {
            if (e->settled[k]) continue;
            unsigned d = md.d[k];
            if (role > 0 ? d != UNKNOWN : d == UNKNOWN) {
                /* a win found, or a loss refuted (an escape, or not decided yet) */
                e->out[k] = role > 0 ? d + 1 : UNKNOWN;
                e->settled[k] = 1;
                e->open--;
            } else if (role < 0 && d + 1 > e->longest[k]) {
                e->longest[k] = d + 1;
            }
        }
    }
}

/* Examines a position for the kinds still open (want[kind]) at this ply,
 * writing each kind's distance, or UNKNOWN, to out.  b: the entry at site
 * as decoded; role 1 = won (cell), -1 = lost.  At ply 0 only what needs no
 * distance of this table is decided: no legal move, and captures that keep
 * the result.  Legality is read off the successor's cell, as in retro.c.
 *
 * A win is decided by its first move into a final loss: every position
 * decided at ply p > 0 has distance p (a loss of distance d flags its
 * predecessors at ply d + 1, which decides each won one there), so at ply
 * k the final losses a still undecided win reaches all have distance k - 1,
 * and at ply 0 every conversion found has distance 0.  A loss is refuted
 * by its first move that is not a final win.  Since either usually ends
 * the examination after a few moves, the moves are generated a piece at a
 * time (as retro.c's loss_code does): most losses examined at ply 0 are
 * refuted by their first legal quiet move. */
INLINE void examine(const dtc_ctx *c, int w, xq_board *b, const xq_index_site *site, int role, int ply,
                    const int want[KINDS], unsigned out[KINDS])
{
    xq_move list[XQ_MAX_MOVES];
    exam e = {{UNKNOWN, UNKNOWN}, {0, 0}, {!want[HOLDS], !want[ANY]}, want[HOLDS] + want[ANY], 0};
    if (ply == 0 && role > 0) {
        /* at ply 0 a win is decided by a capture only: its legal captures
         * are all it needs (an illegal one decides nothing either way),
         * and most positions examined there are wins with a score of quiet
         * moves */
        examine_moves(c, w, b, site, role, ply, list, xq_gen_captures(b, list), &e);
    } else {
        for (xq_mask pieces = b->occ[b->side]; pieces && e.open;) {
            int n = xq_gen_piece(b, mask_pop_lsb(&pieces), list);
            examine_moves(c, w, b, site, role, ply, list, n, &e);
        }
    }
    for (int k = 0; k < KINDS; k++) out[k] = e.out[k];
    if (role > 0) return;
    for (int k = 0; k < KINDS; k++)
        if (!e.settled[k]) out[k] = e.legal == 0 ? 0 : e.longest[k];
}

/* 1 for an ordinary win, -1 for an ordinary loss, 0 for anything else. */
static inline int cell_role(unsigned v) { return cell_is_win(v) ? 1 : cell_is_loss(v) ? -1 : 0; }

static inline int role_of(const tb_table *t, int side, uint64_t i)
{
    return cell_role(cell_get(t->cells[side], t->width, i));
}

/* The code of an entry's distance before it is decided. */
static inline unsigned open_code(const tb_table *t, int side, uint64_t i)
{
    unsigned v = cell_get(t->cells[side], t->width, i);
    int role = cell_role(v);
    return v == CELL_ILLEGAL ? ILLEGAL_DIST : role > 0 ? OPEN_WIN : role < 0 ? OPEN_LOSS : NO_RESULT;
}

static inline int is_open(unsigned d) { return d == OPEN_WIN || d == OPEN_LOSS; }

/* Examines entry i with `side` to move for the kinds not yet decided, and
 * writes what it decides; returns whether it decided any.  A no-op for
 * positions without an ordinary result. */
INLINE int examine_entry(dtc_ctx *c, int w, pass_decoder *dec, int side, uint64_t i, int ply)
{
    int want[KINDS] = {0, 0}, decided = 0, role = 0;
    for (int k = 0; k < c->kinds; k++) {
        unsigned d = dist_of(c, w, k, side, i);
        want[k] = is_open(d);
        if (want[k]) role = d == OPEN_WIN ? 1 : -1;
    }
    if (!role) return 0; /* decided, or no ordinary result */
    pass_decode(&c->pass, dec, side, i);
    unsigned d[KINDS];
    examine(c, w, &dec->b, &dec->site, role, ply, want, d);
    for (int k = 0; k < KINDS; k++)
        if (want[k] && d[k] != UNKNOWN) {
            dist_set(c, w, k, side, i, d[k]);
            decided = 1;
        }
    return decided;
}

INLINE void init_range(dtc_ctx *c, int w, uint64_t begin, uint64_t end, uint64_t *left[2])
{
    pass_decoder dec;
    pass_decoder_init(&dec);
    for (uint64_t i = begin; i < end; i++)
        for (int s = 0; s < 2; s++) {
            unsigned open = open_code(c->t, s, i);
            for (int k = 0; k < c->kinds; k++) dist_set(c, w, k, s, i, open);
            if (!c->early || (c->early[s][i >> 6] >> (i & 63) & 1)) examine_entry(c, w, &dec, s, i, 0);
            *left[s] += is_open(dist_of(c, w, HOLDS, s, i)) || is_open(dist_of(c, w, c->kinds - 1, s, i));
        }
}

static void init_chunk(void *arg, uint64_t begin, uint64_t end, int thread)
{
    dtc_ctx *c = arg;
    uint64_t *open[2] = {&c->init_open[thread][0], &c->init_open[thread][1]};
    if (c->width == 1)
        init_range(c, 1, begin, end, open);
    else
        init_range(c, 2, begin, end, open);
}

/* True if one of the eight distances of a kind from i (a multiple of 8)
 * equals v: the frontier is sparse, so most words are skipped whole.  (A
 * lane of y is zero iff (y - ones) & ~y has its high bit: Warren, Hacker's
 * Delight, 6-1.) */
static inline int eight_have_dist(const dtc_ctx *c, int kind, int side, uint64_t i, unsigned v)
{
    uint64_t w[2];
    if (c->width == 1) {
        const uint64_t ones = 0x0101010101010101ull;
        memcpy(w, (const uint8_t *)c->dist[kind][side] + i, 8);
        uint64_t y = w[0] ^ ones * (v & 0xFF);
        return ((y - ones) & ~y & ones << 7) != 0;
    }
    const uint64_t ones = 0x0001000100010001ull;
    memcpy(w, (const uint16_t *)c->dist[kind][side] + i, 16);
    uint64_t y0 = w[0] ^ ones * (v & 0xFFFF), y1 = w[1] ^ ones * (v & 0xFFFF);
    return ((((y0 - ones) & ~y0) | ((y1 - ones) & ~y1)) & ones << 15) != 0;
}

/* The positions at distance ply-1, which flag their predecessors.  At plies
 * 1 and 2 they are found by their distances (ply 0 decides distances 0 and
 * 1); from ply 3 on they are the positions the ply before decided (each is
 * decided at the ply equal to its distance: examine), the engine's front,
 * since scanning every distance of both sides at every ply had cost 5% of
 * a table's generation (KNAABKR: 57 plies over 62 MB of distances). */
static uint64_t frontier(void *arg, int x, uint64_t w)
{
    const dtc_ctx *c = arg;
    if (c->ply >= 3) return c->pass.front[x][w];
    int any = c->kinds - 1;
    unsigned want = (unsigned)(c->ply - 1);
    uint64_t first = w << 6, bits = 0;
    for (uint64_t k = 0; k < 64 && first + k < c->t->ix.size; k++) {
        uint64_t i = first + k;
        if ((i & 7) == 0 && i + 8 <= c->t->ix.size && !eight_have_dist(c, HOLDS, x, i, want) &&
            !eight_have_dist(c, any, x, i, want)) {
            k += 7;
            continue;
        }
        if (dist_of(c, c->width, HOLDS, x, i) == want || dist_of(c, c->width, any, x, i) == want) bits |= 1ull << k;
    }
    return bits;
}

/* With one kind a loss flags its predecessors as wins (WON). */
static int map_of(void *arg, int x, uint64_t i)
{
    const dtc_ctx *c = arg;
    return c->kinds == 1 && role_of(c->t, x, i) < 0 ? WON : CAND;
}

static void flag_chunk(void *arg, uint64_t begin, uint64_t end, int thread)
{
    (void)thread;
    dtc_ctx *c = arg;
    pass_flag_chunk(&c->pass, begin, end, frontier, map_of, c);
}

/* With one kind: the won positions among the predecessors of the losses
 * at ply-1 that are still undecided have distance ply. */
INLINE int decide_won(dtc_ctx *c, int w, int y, uint64_t j)
{
    if (dist_of(c, w, HOLDS, y, j) != OPEN_WIN) return 0;
    dist_set(c, w, HOLDS, y, j, (unsigned)c->ply);
    return 1;
}

/* Decides flagged entry j with y to move (pass.h's rule: writes only j's
 * distances, reads only the other side's). */
INLINE int decide(dtc_ctx *c, int w, pass_decoder *d, int y, uint64_t j, unsigned maps)
{
    int decided = 0;
    if (maps & (1u << WON)) decided = decide_won(c, w, y, j);
    /* with one kind a win is decided above, from WON alone */
    if ((maps & (1u << CAND)) && !(c->kinds == 1 && dist_of(c, w, HOLDS, y, j) == OPEN_WIN))
        decided |= examine_entry(c, w, d, y, j, c->ply);
    /* each position is decided at the ply equal to its distance */
    return decided ? PASS_DECIDED | PASS_FRONT : 0;
}

static int decide_byte(void *arg, pass_decoder *d, int y, uint64_t j, unsigned maps, int thread)
{
    (void)thread;
    return decide(arg, 1, d, y, j, maps);
}

static int decide_wide(void *arg, pass_decoder *d, int y, uint64_t j, unsigned maps, int thread)
{
    (void)thread;
    return decide(arg, 2, d, y, j, maps);
}

static void decide_chunk(void *arg, uint64_t begin, uint64_t end, int thread)
{
    dtc_ctx *c = arg;
    if (c->width == 1)
        pass_decide_chunk(&c->pass, begin, end, thread, decide_byte, c);
    else
        pass_decide_chunk(&c->pass, begin, end, thread, decide_wide, c);
}

/* ---- phase B pulled: every open entry examined (pass_pull_chunk) ------ */
/* The entries of word w with y to move still open in some kind.  An
 * examination decides an entry at the ply equal to its distance whatever
 * flagged it (examine), so examining them all decides what the flags
 * would have. */
INLINE uint64_t open_bits_w(const dtc_ctx *c, int w, int y, uint64_t word)
{
    uint64_t first = word << 6, n = c->t->ix.size - first < 64 ? c->t->ix.size - first : 64, bits = 0;
    for (uint64_t k = 0; k < n; k++)
        if (is_open(dist_of(c, w, HOLDS, y, first + k)) || is_open(dist_of(c, w, c->kinds - 1, y, first + k)))
            bits |= 1ull << k;
    return bits;
}

static uint64_t open_byte(void *arg, int y, uint64_t word) { return open_bits_w(arg, 1, y, word); }
static uint64_t open_wide(void *arg, int y, uint64_t word) { return open_bits_w(arg, 2, y, word); }

static int examine_byte(void *arg, pass_decoder *d, int y, uint64_t j, int thread)
{
    (void)thread;
    dtc_ctx *c = arg;
    return examine_entry(c, 1, d, y, j, c->ply) ? PASS_DECIDED | PASS_FRONT : 0;
}

static int examine_wide(void *arg, pass_decoder *d, int y, uint64_t j, int thread)
{
    (void)thread;
    dtc_ctx *c = arg;
    return examine_entry(c, 2, d, y, j, c->ply) ? PASS_DECIDED | PASS_FRONT : 0;
}

static void pull_chunk(void *arg, uint64_t begin, uint64_t end, int thread)
{
    dtc_ctx *c = arg;
    if (c->width == 1)
        pass_pull_chunk(&c->pass, begin, end, thread, open_byte, examine_byte, c);
    else
        pass_pull_chunk(&c->pass, begin, end, thread, open_wide, examine_wide, c);
}

/* Whether each side's phase B is pulled this ply (pass_should_pull).  The
 * frontier of plies 1 and 2 is read from the distances, not a front, so
 * the engine has no count of it and they are not pulled by choice.  The
 * choice changes only the time taken. */
static void choose_pull(dtc_ctx *c)
{
    for (int y = 0; y < 2; y++) {
        uint64_t front = c->ply >= 3 ? c->pass.last_fronted[y ^ 1] : 0;
        c->pass.pull[y] = pass_should_pull(&c->pass, c->direction, front, c->open[y]);
    }
}

/* Two bytes an entry from here on, for every array of distances.  In
 * place, from the last entry down: entry i's two bytes (2i and 2i + 1)
 * lie at or above the byte of every entry not yet widened.  -1: out of
 * memory (the arrays still valid, some perhaps wide already: not used
 * again). */
static int widen(dtc_ctx *c)
{
    uint64_t n = c->t->ix.size ? c->t->ix.size : 1;
    for (int k = 0; k < c->kinds; k++)
        for (int s = 0; s < 2; s++) {
            uint8_t *b = realloc(c->dist[k][s], n * sizeof(uint16_t));
            if (!b) return -1;
            uint16_t *w = (uint16_t *)b;
            for (uint64_t i = n; i-- > 0;) w[i] = (uint16_t)dist8_wide(b[i]);
            c->dist[k][s] = w;
        }
    for (int s = 0; s < 2; s++) c->dist[ANY][s] = c->dist[c->kinds - 1][s];
    c->width = 2;
    return 0;
}

/* The pass, into c->dist, its distances widened before ply widen_ply if
 * they are one byte.  Returns the plies run, -1 past DTC_MAX, -2 out of
 * memory. */
static int run_pass(dtc_ctx *c, int threads, int widen_ply, int *pulled)
{
    uint64_t size = c->t->ix.size;
    par_for(threads, size, GRAIN, init_chunk, c);
    for (int i = 0; i < PAR_MAX_THREADS; i++)
        for (int s = 0; s < 2; s++) c->open[s] += c->init_open[i][s];
    /* Ply 0 decides distances 0 and 1; ply k then follows from k-1 alone,
     * so the pass stops after the first ply that decides nothing (past ply
     * 1, whose own flags come from ply 0).  Ply k writes no distance above
     * k (examine). */
    int ply;
    for (ply = 1;; ply++) {
        if (ply > DTC_MAX) return -1;
        if (ply >= widen_ply && c->width == 1 && widen(c)) return -2;
        c->ply = ply;
        choose_pull(c);
        *pulled += c->pass.pull[0] + c->pass.pull[1];
        uint64_t n = pass_ply(&c->pass, flag_chunk, decide_chunk, pull_chunk, c);
        /* an entry decided in one kind, then the other, counts twice */
        for (int s = 0; s < 2; s++)
            c->open[s] -= c->pass.last_decided[s] < c->open[s] ? c->pass.last_decided[s] : c->open[s];
        if (n == 0 && ply >= 2) break;
    }
    return ply;
}

int dtc_start_width(int cell_width, int limit) { return cell_width == 2 || limit > DIST8_MAX ? 2 : 1; }

uint64_t dtc_work_bytes(uint64_t entries, int width)
{
    /* as dtc_solve allocates: per side the two kinds' distances, `width`
     * bytes each (the second kind planned where it is not needed); the
     * engine's two maps and front; the context.  The table's final codes
     * take the first kind's place. */
    uint64_t n = entries ? entries : 1;
    /* where a side's codes do not pack, its distances become two-byte codes
     * while the other kind's are still held: N more bytes, after the
     * engine's maps (3N/4) are freed */
    uint64_t unpacked = width == 1 ? n / 4 : 0;
    return sizeof(dtc_ctx) + 2 * 2 * n * (uint64_t)width + pass_work_bytes(n, 2, 1) + unpacked;
}

/* Whether some capture can reach a cursed win or a blessed loss: a
 * subtable result recorded beyond the limit.  Without one, "any" and
 * "holds" have the same bases (the captures that keep a result, capture_dist)
 * and the same recursion, so they are equal everywhere and one is
 * computed: KRKNAA's pass then reads and scans half the distances. */
static int side_goes_beyond(const tb_table *s, int side)
{
    const tb_dtc8 *p = &s->dtc8[side];
    if (s->beyond[side]) { /* slim: a bit set for each such code */
        for (uint64_t w = 0; w <= s->ix.size / 64; w++)
            if (s->beyond[side][w]) return 1;
        return 0;
    }
    if (!s->dtc[side]) { /* packed: such a code is among the wide ones */
        for (uint64_t k = 0; k < p->nwide; k++)
            if (dtc_beyond(p->wide[k])) return 1;
        return 0;
    }
    for (uint64_t i = 0; i < s->ix.size; i++)
        if (dtc_beyond(s->dtc[side][i])) return 1;
    return 0;
}

static int subtables_go_beyond(const tb_table *t)
{
    for (int c = 0; c < 2; c++)
        for (int k = 0; k < 8; k++) {
            const tb_table *s = t->sub[c][k];
            if (!s) continue;
            if (!tb_has_dtc(s)) return 1; /* no distances to go by: keep both kinds */
            if (side_goes_beyond(s, tb_sub_side(t, c, k))) return 1;
        }
    return 0;
}

/* The code an entry keeps (dtc.h): the "holds" distance where the result
 * holds, else the "any" distance marked beyond; DTC_NONE without an
 * ordinary result (the distances keep the code init_chunk gave). */
static unsigned final_of(const dtc_ctx *c, unsigned holds, unsigned any)
{
    if (holds == NO_RESULT || holds == ILLEGAL_DIST) return DTC_NONE;
    if ((int)holds <= c->t->limit) return holds;
    return any > DTC_MAX ? NO_CONVERSION : DTC_BEYOND | any;
}

/* A byte's final code where the "holds" distance alone decides it
 * (byte_codes), else BY_ANY. */
enum { BY_ANY = 0x20000 };

/* Fills c->byte_code for one-byte distances: the finishing passes
 * (count_codes, keep_codes) read every entry of both sides two or three
 * times, and a look-up per entry costs a fraction of final_of's tests. */
static void byte_codes(dtc_ctx *c)
{
    for (unsigned v = 0; v < 256; v++) {
        unsigned holds = dist8_wide(v);
        int alone = c->kinds == 1 || holds == NO_RESULT || holds == ILLEGAL_DIST || (int)holds <= c->t->limit;
        c->byte_code[v] = alone ? final_of(c, holds, holds) : BY_ANY;
    }
}

INLINE unsigned final_code(const dtc_ctx *c, int side, uint64_t i)
{
    if (c->width == 1) {
        unsigned v = c->byte_code[((const uint8_t *)c->dist[HOLDS][side])[i]];
        if (v != BY_ANY) return v;
    }
    return final_of(c, dist_of(c, c->width, HOLDS, side, i), dist_of(c, c->width, c->kinds - 1, side, i));
}

typedef struct {
    const dtc_ctx *c;
    int side;
} final_arg;

static unsigned final_code_of(const void *arg, uint64_t i)
{
    const final_arg *a = arg;
    return final_code(a->c, a->side, i);
}

/* count_codes' figures over a range of one side's entries, on one
 * thread (each thread its own). */
typedef struct {
    uint64_t beyond;
    int longest;
    uint64_t lost; /* the first entry without a conversion, UINT64_MAX if none */
} code_tally;

typedef struct {
    const dtc_ctx *c;
    int side;
    code_tally tally[PAR_MAX_THREADS];
} count_job;

static void count_chunk(void *arg, uint64_t begin, uint64_t end, int thread)
{
    count_job *j = arg;
    code_tally *y = &j->tally[thread];
    for (uint64_t i = begin; i < end; i++) {
        unsigned code = final_code(j->c, j->side, i);
        if (code == DTC_NONE) continue;
        if (code == NO_CONVERSION) {
            if (i < y->lost) y->lost = i;
        } else if (dtc_beyond(code))
            y->beyond++;
        else if ((int)code > y->longest)
            y->longest = (int)code;
    }
}

/* The report's figures, and whether every result has a conversion: a
 * pass over every entry, on every thread (sums and maxima, the same for
 * any thread count). */
static int count_codes(const dtc_ctx *c, int threads, dtc_report *rep, char err[XQ_ERR_MAX])
{
    count_job j = {.c = c};
    for (j.side = 0; j.side < 2; j.side++) {
        for (int k = 0; k < PAR_MAX_THREADS; k++) j.tally[k] = (code_tally){0, -1, UINT64_MAX};
        par_for(threads, c->t->ix.size, GRAIN, count_chunk, &j);
        uint64_t lost = UINT64_MAX;
        for (int k = 0; k < PAR_MAX_THREADS; k++) {
            rep->beyond += j.tally[k].beyond;
            if (j.tally[k].longest > rep->longest) rep->longest = j.tally[k].longest;
            if (j.tally[k].lost < lost) lost = j.tally[k].lost;
        }
        if (lost != UINT64_MAX) {
            snprintf(err, XQ_ERR_MAX, "internal error: a decided position without a conversion (entry %llu)",
                     (unsigned long long)lost);
            return -1;
        }
    }
    return 0;
}

/* One-byte distances of a side whose codes do not pack (tb_dtc_pack_from)
 * made two-byte codes in place, as widen does: from the last entry down,
 * the code of entry i written over bytes 2i and 2i + 1 once byte i is
 * read.  Returns them, or NULL out of memory (the distances left as they
 * were). */
static uint16_t *codes_in_place(dtc_ctx *c, int side)
{
    uint64_t n = c->t->ix.size ? c->t->ix.size : 1;
    uint8_t *b = realloc(c->dist[HOLDS][side], n * sizeof(uint16_t));
    if (!b) return NULL;
    c->dist[HOLDS][side] = b;
    uint16_t *code = (uint16_t *)b;
    for (uint64_t i = n; i-- > 0;) {
        unsigned holds = dist8_wide(b[i]);
        unsigned any = c->kinds == KINDS ? dist_of(c, 1, ANY, side, i) : holds;
        code[i] = (uint16_t)final_of(c, holds, any);
    }
    return code;
}

/* Makes the final codes t's, packed (tb.h), a side at a time: one-byte
 * distances become the packed bytes in place, or two-byte codes in place
 * where a side's codes do not pack; two-byte distances take their codes in
 * place and are packed as tables loaded from files are.  The distances of
 * each side are the table's or freed.  -1: out of memory. */
static int keep_codes(dtc_ctx *c, int threads)
{
    tb_table *t = c->t;
    for (int s = 0; s < 2; s++) {
        if (c->width == 2) {
            uint16_t *d = c->dist[HOLDS][s];
            for (uint64_t i = 0; i < t->ix.size; i++) d[i] = (uint16_t)final_code(c, s, i);
            t->dtc[s] = d;
        } else {
            final_arg a = {c, s};
            int packed = tb_dtc_pack_from(t, s, c->dist[HOLDS][s], final_code_of, &a, threads);
            if (packed < 0 || (packed > 0 && !(t->dtc[s] = codes_in_place(c, s)))) return -1;
        }
        c->dist[HOLDS][s] = NULL;
        if (c->kinds == KINDS) free(c->dist[ANY][s]);
        c->dist[ANY][s] = NULL;
    }
    if (c->width == 2) tb_dtc_pack(t);
    return 0;
}

int dtc_solve(tb_table *t, int threads, const uint64_t *const *early, dtc_report *rep, char err[XQ_ERR_MAX])
{
    return dtc_solve_tuned(t, threads, early, DIST8_MAX + 1, PASS_CHOOSE, rep, err);
}

int dtc_solve_tuned(tb_table *t, int threads, const uint64_t *const *early, int widen_ply, pass_direction direction,
                    dtc_report *rep, char err[XQ_ERR_MAX])
{
    memset(rep, 0, sizeof *rep);
    rep->longest = -1;
    if (threads < 1) threads = 1;
    if (threads > PAR_MAX_THREADS) threads = PAR_MAX_THREADS;
    uint64_t n = t->ix.size ? t->ix.size : 1;
    dtc_ctx *c = calloc(1, sizeof *c);
    int rc = -1;
    if (!c) goto nomem;
    if (pass_open(&c->pass, &t->ix, threads, 2, 1)) {
        free(c);
        c = NULL;
        goto nomem;
    }
    c->t = t;
    c->early = early;
    c->direction = direction;
    c->kinds = subtables_go_beyond(t) ? KINDS : 1;
    c->width = dtc_start_width(t->width, t->limit);
    for (int k = 0; k < c->kinds; k++)
        for (int s = 0; s < 2; s++)
            if (!(c->dist[k][s] = malloc(n * (size_t)c->width))) goto nomem;
    for (int s = 0; s < 2; s++) c->dist[ANY][s] = c->dist[c->kinds - 1][s]; /* read only where one kind */
    rep->passes = run_pass(c, threads, widen_ply, &rep->pulled);
    if (rep->passes == -2) goto nomem;
    if (rep->passes < 0) {
        snprintf(err, XQ_ERR_MAX, "a distance to conversion beyond %d plies", DTC_MAX);
        goto out;
    }
    if (c->width == 1) byte_codes(c);
    if (count_codes(c, threads, rep, err)) goto out;
    pass_close(&c->pass); /* before the codes are kept, which may allocate */
    if (keep_codes(c, threads)) goto nomem;
    rc = 0;
    goto out;
nomem:
    snprintf(err, XQ_ERR_MAX, "out of memory for the distance to conversion");
out:
    if (c) {
        pass_close(&c->pass);
        for (int k = 0; k < c->kinds; k++)
            for (int s = 0; s < 2; s++) free(c->dist[k][s]);
    }
    free(c);
    if (rc) tb_dtc_free(t);
    return rc;
}
