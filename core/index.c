/*
 * index.c - position index <-> board, layout 2 (index.h; the numbering is
 * specified in docs/FORMAT.md, "Index layout 2").
 *
 * Why this layout: the practical endgames carry advisors and elephants,
 * and indexing each kind on its own squares (layout 1) spent entries on a
 * king standing on its own advisor's point and on both mirror images of
 * the defenders; one group of legal placements per side, folded by the
 * mirror, removes those (KRKNAA: 3,645,000 entries per side to 2,396,304).
 * R, N and C skip the defenders' squares for the same reason.
 */
#include "index.h"

#include <stdlib.h>
#include <string.h>

#include "geometry.h"

/* ---- defender placements -------------------------------------------------
 * Built once, for every colour, advisor count and elephant count. */

/* MAX_PLACEMENTS bounds a class: 9 king points x 10 advisor pairs x 21
 * elephant pairs, which the overlaps bring below 1890. */
enum { ADV_POINTS = 5, ELE_POINTS = 7, PALACE_POINTS = 9, MAX_PLACEMENTS = 1890 };

struct xq_placement {
    uint8_t king;    /* the king's square */
    uint8_t amask;   /* advisor points held: bit i = i-th advisor point */
    uint8_t emask;   /* elephant points held: bit i = i-th elephant point */
    uint8_t n;       /* pieces */
    uint8_t sq[5];   /* their squares, ascending */
    uint8_t pc[5];   /* the piece on each */
    uint8_t sym;     /* the placement is its own mirror image */
    uint16_t mirror; /* rank of the mirror image */
    uint16_t orbit;  /* rank of its orbit {p, mirror p} among all orbits */
    uint16_t part;   /* rank of its orbit among the symmetric or asymmetric ones */
    /* Pieces of the placement below each square: what an R, N or C there
     * skips.  A table, not a popcount, because successor indices need it
     * for every move (KRPKR's generation spent a seventh of its time on
     * popcounts without it); over all 90 squares, not only the own half,
     * so that a position is two look-ups and no branch. */
    uint8_t below[XQ_SQUARES];
    /* And the other way: the k-th square of the own half that the
     * placement leaves free (counted from the half's first square), for
     * k below 45 - n. */
    uint8_t free[45];
    /* The rank after the king moves to palace point k, -1 where an
     * advisor or elephant holds it: a king moves in nearly every position,
     * and this saves it the look-up through the set numbers. */
    int16_t king_to[PALACE_POINTS];
    /* The squares it holds: a defender's move shifts only the R, N and C
     * strictly between its two squares, found by masking. */
    xq_mask held;
};
typedef xq_placement placement;

struct xq_defenders {
    uint16_t n;      /* placements */
    uint16_t orbits; /* orbits under the mirror */
    uint16_t nasym;  /* orbits of two placements */
    placement pl[MAX_PLACEMENTS];
    uint16_t asym_rep[MAX_PLACEMENTS], sym_rep[MAX_PLACEMENTS], orbit_rep[MAX_PLACEMENTS];
};

static xq_defenders defenders[COLOUR_NB][3][3];
/* Placement rank by king point, advisor set and elephant set (the class
 * is told by the set sizes); -1 where two pieces share a point. */
static int16_t rank_of_set[COLOUR_NB][PALACE_POINTS][16][29];
/* A side has at most 2 advisors and 2 elephants, so of the 32 advisor sets
 * and 128 elephant sets only 16 and 29 occur: numbering those keeps the
 * look-up table at 17 KB, within reach of the first-level cache (at full
 * size, 147 KB, its misses showed in every defender move).  Sets with more
 * points get 0xFF, which the index's own piece counts rule out. */
static uint8_t adv_set_no[1 << ADV_POINTS], ele_set_no[1 << ELE_POINTS];
#define rank_of_key(c, k, am, em) rank_of_set[c][k][adv_set_no[am]][ele_set_no[em]]
/* Square -> king point, advisor bit, elephant bit (-1 if none). */
static int8_t palace_no[COLOUR_NB][XQ_SQUARES], adv_bit[COLOUR_NB][XQ_SQUARES], ele_bit[COLOUR_NB][XQ_SQUARES];
static uint8_t palace_sq[COLOUR_NB][PALACE_POINTS], adv_sq[COLOUR_NB][ADV_POINTS], ele_sq[COLOUR_NB][ELE_POINTS];
static uint64_t binom[XQ_SQUARES + 1][6];
static uint8_t nbits[1 << ELE_POINTS]; /* bits set in a point set */
/* mask_of(sq) by table: two loads where the shift of a 128-bit one took
 * eight instructions and two registers (move_lone_piece) */
static xq_mask square_mask[XQ_SQUARES];

uint64_t xq_binomial(int n, int k)
{
    if (n < 0 || k < 0 || k > 5 || n > XQ_SQUARES) return 0;
    return binom[n][k];
}

/* The points of a kind for a colour, ascending, with the square -> number
 * map. */
static int number_points(int colour, int kind, uint8_t *sq, int8_t *no)
{
    int n = 0;
    for (int s = 0; s < XQ_SQUARES; s++) {
        no[s] = -1;
        if (xq_square_allowed(colour, kind, s)) {
            no[s] = (int8_t)n;
            sq[n++] = (uint8_t)s;
        }
    }
    return n;
}

/* Bits set in x; used only while the tables are built (without -mpopcnt
 * it is a call into libgcc, which is why look-ups use tables instead). */
static int popcount(uint64_t x) { return __builtin_popcountll(x); }

/* Every placement of one class, in rank order: king point, then the
 * advisor set as a number, then the elephant set as a number. */
static void build_class(int c, int a, int e)
{
    xq_defenders *d = &defenders[c][a][e];
    for (int k = 0; k < PALACE_POINTS; k++)
        for (unsigned am = 0; am < 1u << ADV_POINTS; am++) {
            if (popcount(am) != a) continue;
            for (unsigned em = 0; em < 1u << ELE_POINTS; em++) {
                if (popcount(em) != e) continue;
                int ks = palace_sq[c][k];
                if ((adv_bit[c][ks] >= 0 && (am >> adv_bit[c][ks] & 1)) ||
                    (ele_bit[c][ks] >= 0 && (em >> ele_bit[c][ks] & 1)))
                    continue; /* the king on its own advisor's or elephant's point */
                placement *p = &d->pl[d->n];
                memset(p, 0, sizeof *p);
                p->king = (uint8_t)ks;
                p->amask = (uint8_t)am;
                p->emask = (uint8_t)em;
                xq_mask held = mask_of(ks);
                for (int i = 0; i < ADV_POINTS; i++)
                    if (am >> i & 1) held |= mask_of(adv_sq[c][i]);
                for (int i = 0; i < ELE_POINTS; i++)
                    if (em >> i & 1) held |= mask_of(ele_sq[c][i]);
                p->held = held;
                for (xq_mask m = held; m; p->n++) {
                    int s = mask_pop_lsb(&m);
                    p->sq[p->n] = (uint8_t)s;
                    p->pc[p->n] = make_piece(c, s == ks ? KING : adv_bit[c][s] >= 0 ? ADVISOR : ELEPHANT);
                }
                /* the squares of the own half, counted from its first */
                uint64_t half = (uint64_t)(held >> (c == RED ? 0 : 45));
                for (int i = 0, f = 0; i < 45; i++)
                    if (!(half >> i & 1)) p->free[f++] = (uint8_t)i;
                for (int sq = 0, n = 0; sq < XQ_SQUARES; sq++) {
                    p->below[sq] = (uint8_t)n;
                    n += (int)(held >> sq & 1);
                }
                rank_of_key(c, k, am, em) = (int16_t)d->n++;
            }
        }
    for (int r = 0; r < d->n; r++) {
        placement *p = &d->pl[r];
        for (int k = 0; k < PALACE_POINTS; k++) p->king_to[k] = rank_of_key(c, k, p->amask, p->emask);
    }
    /* mirror images and orbits, each orbit named by its lower rank */
    for (int r = 0; r < d->n; r++) {
        placement *p = &d->pl[r];
        int mk = mirror_square(p->king);
        unsigned mam = 0, mem = 0;
        for (int i = 0; i < ADV_POINTS; i++)
            if (p->amask >> i & 1) mam |= 1u << adv_bit[c][mirror_square(adv_sq[c][i])];
        for (int i = 0; i < ELE_POINTS; i++)
            if (p->emask >> i & 1) mem |= 1u << ele_bit[c][mirror_square(ele_sq[c][i])];
        p->mirror = (uint16_t)rank_of_key(c, palace_no[c][mk], mam, mem);
        p->sym = p->mirror == r;
    }
    for (int r = 0; r < d->n; r++) {
        placement *p = &d->pl[r];
        if (p->mirror < r) continue;
        p->orbit = d->orbits;
        d->orbit_rep[d->orbits++] = (uint16_t)r;
    }
    int nsym = 0;
    for (int r = 0; r < d->n; r++) {
        placement *p = &d->pl[r];
        if (p->mirror < r) {
            p->orbit = d->pl[p->mirror].orbit;
            p->part = d->pl[p->mirror].part;
        } else if (p->sym) {
            p->part = (uint16_t)nsym;
            d->sym_rep[nsym++] = (uint16_t)r;
        } else {
            p->part = d->nasym;
            d->asym_rep[d->nasym++] = (uint16_t)r;
        }
    }
}

/* After geometry.c's constructor (priority 101), whose square sets these
 * tables are built from. */
__attribute__((constructor(102))) static void index_tables(void)
{
    for (int n = 0; n <= XQ_SQUARES; n++) {
        binom[n][0] = 1;
        for (int k = 1; k < 6; k++) binom[n][k] = n == 0 ? 0 : binom[n - 1][k - 1] + binom[n - 1][k];
    }
    memset(rank_of_set, -1, sizeof rank_of_set);
    int na = 0, ne = 0;
    for (unsigned x = 0; x < 1u << ELE_POINTS; x++) {
        if (x < 1u << ADV_POINTS) adv_set_no[x] = popcount(x) <= 2 ? (uint8_t)na++ : 0xFF;
        ele_set_no[x] = popcount(x) <= 2 ? (uint8_t)ne++ : 0xFF;
    }
    for (unsigned x = 0; x < 1u << ELE_POINTS; x++) nbits[x] = (uint8_t)popcount(x);
    for (int sq = 0; sq < XQ_SQUARES; sq++) square_mask[sq] = mask_of(sq);
    for (int c = 0; c < COLOUR_NB; c++) {
        number_points(c, KING, palace_sq[c], palace_no[c]);
        number_points(c, ADVISOR, adv_sq[c], adv_bit[c]);
        number_points(c, ELEPHANT, ele_sq[c], ele_bit[c]);
        for (int a = 0; a <= 2; a++)
            for (int e = 0; e <= 2; e++) build_class(c, a, e);
    }
}

/* ---- division by the strides ---------------------------------------------
 * Every decode and most successor look-ups divide an entry number by the
 * pair stride and the group strides; a 64-bit division costs some 40 cycles
 * (perf put a fifth of KRKNAA's generation there), a multiply-high and a
 * correction a few.  With m = ceil(2^64 / d), floor(n * m / 2^64) is n / d
 * or one more, for every n with n + d < 2^64 (xq_index_init keeps sizes
 * below 2^63). */
static xq_divisor divisor_of(uint64_t d)
{
    xq_divisor v = {d, d > 1 ? UINT64_MAX / d + 1 : 0};
    return v;
}

static inline uint64_t divide(xq_divisor v, uint64_t n)
{
    if (v.d == 1) return n;
    uint64_t q = (uint64_t)(((unsigned __int128)n * v.m) >> 64);
    return q * v.d > n ? q - 1 : q;
}

/* The two placements of defender-pair value v. */
static void pair_of(const xq_index *ix, uint64_t v, int *r, int *bl)
{
    const xq_defenders *R = ix->def[RED], *B = ix->def[BLACK];
    /* by multiplication: every decode comes here, and a hardware division
     * costs more than the rest of this function */
    uint64_t split = (uint64_t)R->nasym * B->n;
    if (v < split) {
        uint64_t q = divide(ix->by_black_n, v);
        *r = R->asym_rep[q];
        *bl = (int)(v - q * B->n);
    } else {
        v -= split;
        uint64_t q = divide(ix->by_black_orbits, v);
        *r = R->sym_rep[q];
        *bl = B->orbit_rep[v - q * B->orbits];
    }
}

/* The pair value of placements r, bl, which must be in folded form (see
 * index.h); UINT64_MAX if they are not. */
static inline __attribute__((always_inline)) uint64_t pair_value(const xq_index *ix, int r, int bl)
{
    const xq_defenders *R = ix->def[RED], *B = ix->def[BLACK];
    const placement *pr = &R->pl[r], *pb = &B->pl[bl];
    if (!pr->sym) return r < pr->mirror ? (uint64_t)pr->part * B->n + (uint64_t)bl : UINT64_MAX;
    if (!pb->sym && bl > pb->mirror) return UINT64_MAX;
    return (uint64_t)R->nasym * B->n + (uint64_t)pr->part * B->orbits + pb->orbit;
}

/* Position of square s among the squares outside the defender pair
 * (pr, pb): red's placement lies on squares 0-44, black's on 45-89. */
static inline int compressed_pos(const placement *pr, const placement *pb, int s)
{
    return s - pr->below[s] - pb->below[s];
}

/* Square of position q among the squares outside the defender pair. */
static inline int expand_pos(const placement *pr, const placement *pb, int q)
{
    int red_free = 45 - pr->n;
    return q < red_free ? pr->free[q] : 45 + pb->free[q - red_free];
}

/* ---- attacker groups ---------------------------------------------------- */

static int add_group(xq_index *ix, int colour, int kind, int count)
{
    xq_index_group *g = &ix->group[ix->ngroups];
    memset(g, 0, sizeof *g);
    g->colour = (uint8_t)colour;
    g->kind = (uint8_t)kind;
    g->count = (uint8_t)count;
    memset(g->pos, -1, sizeof g->pos);
    if (kind == PAWN) {
        g->nsq = (uint8_t)number_points(colour, PAWN, g->sq, g->pos);
    } else {
        g->compressed = 1;
        g->nsq = (uint8_t)(XQ_SQUARES - ix->ndef);
    }
    g->size = binom[g->nsq][count];
    /* Unranking by table for all but the largest groups: positions of the
     * r-th combination in colex order, ascending. */
    if (count > 1 && g->size <= (1u << 20)) {
        g->unrank = malloc(g->size * (size_t)count);
        if (!g->unrank) return -1;
        int p[5];
        for (int i = 0; i < count; i++) p[i] = i;
        for (uint64_t r = 0; r < g->size; r++) {
            for (int i = 0; i < count; i++) g->unrank[r * count + i] = (uint8_t)p[i];
            int i = 0;
            while (i + 1 < count && p[i] + 1 == p[i + 1]) {
                p[i] = i;
                i++;
            }
            p[i]++;
        }
    }
    ix->group_of[make_piece(colour, kind)] = (int8_t)ix->ngroups;
    ix->ngroups++;
    return 0;
}

int xq_index_init(xq_index *ix, const xq_material *m)
{
    memset(ix, 0, sizeof *ix);
    ix->mat = *m;
    memset(ix->group_of, -1, sizeof ix->group_of);
    for (int c = 0; c < 2; c++) {
        int a = m->count[c][ADVISOR], e = m->count[c][ELEPHANT];
        if (a > 2 || e > 2) return -1;
        ix->def[c] = &defenders[c][a][e];
        ix->ndef += 1 + a + e;
    }
    for (int c = 0; c < 2; c++)
        for (int i = 0; i < 6; i++) {
            int k = xq_material_order[i];
            if (xq_index_is_defender(k) || !m->count[c][k]) continue;
            /* Group positions are kept for at most 5 pieces (the pawns). */
            if (m->count[c][k] > 5 || add_group(ix, c, k, m->count[c][k])) {
                xq_index_free(ix);
                return -1;
            }
        }
    const xq_defenders *R = ix->def[RED], *B = ix->def[BLACK];
    ix->by_black_n = divisor_of(B->n);
    ix->by_black_orbits = divisor_of(B->orbits);
    ix->pairs = (uint64_t)R->nasym * B->n + (uint64_t)(R->orbits - R->nasym) * B->orbits;
    /* Refuse a layout whose size does not fit in 64 bits: it would wrap
     * around and give distinct positions the same index. */
    uint64_t stride = 1;
    for (int g = ix->ngroups - 1; g >= 0; g--) {
        ix->group[g].stride = stride;
        ix->group[g].by_stride = divisor_of(stride);
        if (stride > UINT64_MAX / ix->group[g].size) goto too_big;
        stride *= ix->group[g].size;
    }
    if (stride >= (UINT64_MAX >> 1) / ix->pairs) goto too_big; /* below 2^63: see divide() */
    ix->pair_stride = stride;
    ix->by_pair_stride = divisor_of(stride);
    ix->size = stride * ix->pairs;
    return 0;
too_big:
    xq_index_free(ix);
    return -1;
}

void xq_index_free(xq_index *ix)
{
    for (int g = 0; g < ix->ngroups; g++) {
        free(ix->group[g].unrank);
        ix->group[g].unrank = NULL;
    }
}

/* Rank of a pair's positions a and b (distinct) in the combinatorial
 * number system. */
static inline uint64_t pair_rank(int a, int b)
{
    int lo = a < b ? a : b, hi = a < b ? b : a;
    return binom[lo][1] + binom[hi][2];
}

/* Rank of a group's positions in the combinatorial number system; q is
 * sorted in place.  Pairs (two rooks, horses, cannons or pawns: most
 * groups of more than one) take a path of their own: in KNNKB's plain
 * generation the sort's loops were most of this function's instructions. */
static uint64_t group_rank(uint8_t *q, int n)
{
    if (n == 2) {
        uint8_t lo = q[0] < q[1] ? q[0] : q[1], hi = q[0] < q[1] ? q[1] : q[0];
        q[0] = lo;
        q[1] = hi;
        return pair_rank(lo, hi);
    }
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && q[j - 1] > q[j]; j--) {
            uint8_t x = q[j];
            q[j] = q[j - 1];
            q[j - 1] = x;
        }
    uint64_t r = 0;
    for (int i = 0; i < n; i++) r += binom[q[i]][i + 1];
    return r;
}

/* The attackers' part of an entry: n pieces (codes and squares, in the
 * index's orientation) around the defender pair (pr, pb).  XQ_INDEX_NONE if
 * one cannot stand where it is or the pieces are not the index's
 * attackers. */
static uint64_t attackers_part(const xq_index *ix, const xq_piece *pc, const uint8_t *sq, int n, const placement *pr,
                               const placement *pb)
{
    uint8_t pos[XQ_INDEX_MAX_GROUPS][5];
    uint8_t cnt[XQ_INDEX_MAX_GROUPS] = {0};
    for (int i = 0; i < n; i++) {
        int g = ix->group_of[pc[i]];
        if (g < 0 || cnt[g] >= ix->group[g].count) return XQ_INDEX_NONE;
        const xq_index_group *G = &ix->group[g];
        int q;
        if (G->compressed) {
            /* a board holds one piece a square: never a defender's */
            q = compressed_pos(pr, pb, sq[i]);
        } else {
            q = G->pos[sq[i]];
            if (q < 0) return XQ_INDEX_NONE;
        }
        pos[g][cnt[g]++] = (uint8_t)q;
    }
    uint64_t idx = 0;
    for (int g = 0; g < ix->ngroups; g++) {
        const xq_index_group *G = &ix->group[g];
        if (cnt[g] != G->count) return XQ_INDEX_NONE;
        idx += (G->count == 1 ? pos[g][0] : group_rank(pos[g], G->count)) * G->stride;
    }
    return idx;
}

uint64_t xq_index_encode(const xq_index *ix, const xq_board *b, int flags)
{
    int flip = flags & XQ_INDEX_FLIP;
    /* One pass over the pieces, seen in the index's orientation: the
     * defenders' keys and the attackers' squares. */
    int king[2] = {-1, -1};
    unsigned am[2] = {0, 0}, em[2] = {0, 0};
    xq_piece pc[XQ_SQUARES];
    uint8_t sq[XQ_SQUARES];
    int n = 0;
    for (int c = 0; c < 2; c++) {
        xq_mask m = b->occ[c];
        while (m) {
            int s = mask_pop_lsb(&m);
            xq_piece p = b->sq[s];
            if (flip) {
                p ^= 8;
                s = flip_square(s);
            }
            int col = colour_of(p), bit;
            switch (kind_of(p)) {
            case KING:
                if (king[col] >= 0 || palace_no[col][s] < 0) return XQ_INDEX_NONE;
                king[col] = palace_no[col][s];
                break;
            case ADVISOR:
                if ((bit = adv_bit[col][s]) < 0) return XQ_INDEX_NONE;
                am[col] |= 1u << bit;
                break;
            case ELEPHANT:
                if ((bit = ele_bit[col][s]) < 0) return XQ_INDEX_NONE;
                em[col] |= 1u << bit;
                break;
            default: pc[n] = p; sq[n++] = (uint8_t)s;
            }
        }
    }
    int r = -1, bl = -1;
    for (int c = 0; c < 2; c++) {
        if (king[c] < 0 || nbits[am[c]] != ix->mat.count[c][ADVISOR] || nbits[em[c]] != ix->mat.count[c][ELEPHANT])
            return XQ_INDEX_NONE;
        *(c ? &bl : &r) = rank_of_key(c, king[c], am[c], em[c]);
    }
    if (r < 0 || bl < 0) return XQ_INDEX_NONE;
    /* The fold: mirror the board when red's placement, or (red's being its
     * own mirror image) black's, is the higher-ranked of its orbit. */
    const placement *pr = &ix->def[RED]->pl[r], *pb = &ix->def[BLACK]->pl[bl];
    int mirror = pr->sym ? !pb->sym && bl > pb->mirror : r > pr->mirror;
    if (flags & XQ_INDEX_MIRROR) mirror ^= 1;
    if (mirror) {
        r = pr->mirror;
        bl = pb->mirror;
        for (int i = 0; i < n; i++) sq[i] = (uint8_t)mirror_square(sq[i]);
    }
    uint64_t v = pair_value(ix, r, bl);
    if (v == UINT64_MAX) return XQ_INDEX_NONE;
    uint64_t rest = attackers_part(ix, pc, sq, n, &ix->def[RED]->pl[r], &ix->def[BLACK]->pl[bl]);
    return rest == XQ_INDEX_NONE ? rest : v * ix->pair_stride + rest;
}

/* Largest p with C(p, k) <= r, by binary search over [k-1, n). */
static int unrank_step(uint64_t r, int k, int n)
{
    int lo = k - 1, hi = n - 1;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (binom[mid][k] <= r)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* One colour's placement onto a cleared board: its squares' mask and king
 * square are stored with it, so only the squares' bytes are written. */
static void put_defenders(xq_board *b, int colour, const placement *p)
{
    for (int i = 0; i < p->n; i++) b->sq[p->sq[i]] = p->pc[i];
    b->occ[colour] = p->held;
    b->king[colour] = p->king;
}

bool xq_index_decode(const xq_index *ix, uint64_t idx, xq_board *b)
{
    xq_index_site site;
    return xq_index_decode_at(ix, idx, b, &site);
}

/* The defender part of an entry's site (the groups' part is the decode's). */
static void site_of(const xq_index *ix, uint64_t idx, xq_index_site *s)
{
    s->idx = idx;
    s->pair = divide(ix->by_pair_stride, idx);
    pair_of(ix, s->pair, &s->rank[RED], &s->rank[BLACK]);
    s->pl[RED] = &ix->def[RED]->pl[s->rank[RED]];
    s->pl[BLACK] = &ix->def[BLACK]->pl[s->rank[BLACK]];
}

/* Puts attacker p on square s of b, false if s is taken (a broken entry). */
static inline bool put_attacker(xq_board *b, int s, xq_piece p)
{
    if (b->sq[s]) return false;
    b->sq[s] = p;
    b->occ[colour_of(p)] |= mask_of(s);
    return true;
}

/* The pieces of group g, of rank rk, onto b, their positions and rank
 * kept in the site.  Out of line: the lone pieces' path in put_attackers
 * is most decodes'. */
static __attribute__((noinline)) bool put_group(const xq_index *ix, int g, xq_index_site *st, uint64_t rk, xq_board *b)
{
    const xq_index_group *G = &ix->group[g];
    uint8_t *q = st->group_pos[g];
    st->group_rank[g] = rk;
    if (G->unrank) {
        const uint8_t *u = G->unrank + rk * G->count;
        if (G->count == 2) { /* a pair, most groups: not worth a call to memcpy */
            q[0] = u[0];
            q[1] = u[1];
        } else {
            memcpy(q, u, G->count);
        }
    } else {
        for (int i = G->count; i >= 1; i--) {
            q[i - 1] = (uint8_t)unrank_step(rk, i, G->nsq);
            rk -= binom[q[i - 1]][i];
        }
    }
    xq_piece p = make_piece(G->colour, G->kind);
    for (int i = 0; i < G->count; i++)
        if (!put_attacker(b, G->compressed ? expand_pos(st->pl[RED], st->pl[BLACK], q[i]) : G->sq[q[i]], p))
            return false;
    return true;
}

/* The square of position q of lone attacker group G around the site's
 * placements. */
static inline int lone_square(const xq_index_group *G, const xq_index_site *st, uint64_t q)
{
    return G->compressed ? expand_pos(st->pl[RED], st->pl[BLACK], (int)q) : G->sq[q];
}

/* The attackers of an entry around the placements of its site st, onto b,
 * whose other squares are empty; rest is the entry's number less its
 * pair's.  False if two pieces fall on one square (a broken entry).  Sets
 * st->row (the caller has set st->idx). */
static bool put_attackers(const xq_index *ix, xq_index_site *st, uint64_t rest, xq_board *b)
{
    st->row = XQ_INDEX_NONE;
    for (int g = 0; g < ix->ngroups; g++) {
        const xq_index_group *G = &ix->group[g];
        uint64_t rk = divide(G->by_stride, rest);
        rest -= rk * G->stride;
        if (G->count != 1) {
            if (!put_group(ix, g, st, rk, b)) return false;
            continue;
        }
        int sq = lone_square(G, st, rk);
        if (!put_attacker(b, sq, make_piece(G->colour, G->kind))) return false;
        if (g == ix->ngroups - 1) { /* the last group's stride is 1 */
            st->row = st->idx - rk;
            st->row_sq = sq;
        }
    }
    return true;
}

bool xq_index_decode_at(const xq_index *ix, uint64_t idx, xq_board *b, xq_index_site *st)
{
    xq_board_clear(b);
    if (idx >= ix->size) {
        st->idx = st->row = XQ_INDEX_NONE; /* nothing for xq_index_decode_next to start from */
        return false;
    }
    site_of(ix, idx, st);
    put_defenders(b, RED, st->pl[RED]);
    put_defenders(b, BLACK, st->pl[BLACK]);
    return put_attackers(ix, st, idx - st->pair * ix->pair_stride, b);
}

/* xq_index_decode_next when idx is in the row of the entry last decoded
 * (st->row): the last group's one piece moves, nothing else.  In a sparse
 * scan of candidates most decodes are these (the last group varies
 * fastest, over some 80 positions for a rook or horse).  False, with the
 * board and site as after a broken entry, if the square is taken. */
static bool move_lone_piece(const xq_index *ix, uint64_t idx, xq_board *b, xq_index_site *st)
{
    int from = st->row_sq, to = lone_square(&ix->group[ix->ngroups - 1], st, idx - st->row);
    st->idx = idx;
    b->side = 0;
    b->rule60 = 0;
    b->fullmove = 1;
    if (from == to) return true;
    xq_piece p = b->sq[from];
    b->sq[from] = EMPTY;
    if (b->sq[to]) {
        b->occ[colour_of(p)] &= ~square_mask[from];
        st->row = XQ_INDEX_NONE; /* the next decode places every attacker again */
        return false;
    }
    b->sq[to] = p;
    b->occ[colour_of(p)] ^= square_mask[from] | square_mask[to];
    st->row_sq = to;
    return true;
}

/* xq_index_decode_next outside the row: out of line, so that the row's
 * path saves and restores no registers (callgrind, KRKNAA: 17 instructions
 * a decode went on that while both paths were one function). */
static __attribute__((noinline)) bool decode_next_far(const xq_index *ix, uint64_t idx, xq_board *b, xq_index_site *st)
{
    if (st->idx == XQ_INDEX_NONE || idx >= ix->size) return xq_index_decode_at(ix, idx, b, st);
    uint64_t pair = divide(ix->by_pair_stride, idx);
    if (pair != st->pair) return xq_index_decode_at(ix, idx, b, st);
    /* The same placements: only the attackers come off, and the board's
     * other fields are reset as xq_board_clear would. */
    xq_mask off = (b->occ[RED] & ~st->pl[RED]->held) | (b->occ[BLACK] & ~st->pl[BLACK]->held);
    /* a word at a time: mask_pop_lsb's 128-bit arithmetic cost more than
     * the stores */
    for (uint64_t w = (uint64_t)off; w; w &= w - 1) b->sq[__builtin_ctzll(w)] = EMPTY;
    for (uint64_t w = (uint64_t)(off >> 64); w; w &= w - 1) b->sq[64 + __builtin_ctzll(w)] = EMPTY;
    b->occ[RED] = st->pl[RED]->held;
    b->occ[BLACK] = st->pl[BLACK]->held;
    b->side = 0;
    b->rule60 = 0;
    b->fullmove = 1;
    st->idx = idx;
    return put_attackers(ix, st, idx - pair * ix->pair_stride, b);
}

bool xq_index_decode_next(const xq_index *ix, uint64_t idx, xq_board *b, xq_index_site *st)
{
    /* st->row is XQ_INDEX_NONE whenever st->idx is */
    if (idx >= st->row && idx - st->row < ix->group[ix->ngroups - 1].size && idx < ix->size)
        return move_lone_piece(ix, idx, b, st);
    return decode_next_far(ix, idx, b, st);
}

int xq_index_weight(const xq_index *ix, uint64_t idx)
{
    if (idx >= ix->size) return 0;
    int r, bl;
    pair_of(ix, divide(ix->by_pair_stride, idx), &r, &bl);
    return ix->def[RED]->pl[r].sym && ix->def[BLACK]->pl[bl].sym ? 1 : 2;
}

/* xq_index_after_quiet for group g of identical pieces, one of which
 * moves from position qf to qt: the group is ranked again from the
 * positions the decode kept in the site.  Out of line, so that the lone
 * piece's path, which most moves take, keeps a leaf function's short entry
 * and exit (callgrind: a third of that path's instructions were the saving
 * and restoring of the registers this part needs). */
static __attribute__((noinline)) uint64_t after_group_move(const xq_index *ix, int g, const xq_index_site *st, int qf,
                                                           int qt)
{
    const xq_index_group *G = &ix->group[g];
    const uint8_t *now = st->group_pos[g];
    if (G->count == 2) /* the other piece stays */
        return st->idx + (pair_rank(now[0] == qf ? now[1] : now[0], qt) - st->group_rank[g]) * G->stride;
    uint8_t after[5];
    for (int i = 0; i < G->count; i++) after[i] = now[i] == qf ? (uint8_t)qt : now[i];
    return st->idx + (group_rank(after, G->count) - st->group_rank[g]) * G->stride;
}

uint64_t xq_index_after_quiet(const xq_index *ix, const xq_index_site *st, const xq_board *b, int from, int to)
{
    int g = ix->group_of[b->sq[from]];
    const xq_index_group *G = &ix->group[g];
    int qt, qf;
    if (G->compressed) {
        qt = compressed_pos(st->pl[RED], st->pl[BLACK], to); /* `to` is empty: no defender's square */
        qf = compressed_pos(st->pl[RED], st->pl[BLACK], from);
    } else {
        qt = G->pos[to];
        qf = G->pos[from];
        if (qt < 0) return XQ_INDEX_NONE;
    }
    if (G->count == 1) return st->idx + (uint64_t)(qt - qf) * G->stride;
    return after_group_move(ix, g, st, qf, qt);
}

/* The rest of xq_index_after_defender_move when R, N or C stand between
 * the defender's two squares (`between`, bits from lo + 1): each shifts
 * one position, by `sign`.  Out of line, as after_group_move, since most
 * defender moves have nothing between. */
static __attribute__((noinline)) uint64_t shift_between(const xq_index *ix, const xq_index_site *st, const xq_board *b,
                                                        uint64_t idx, int lo, int hi, int64_t sign, uint64_t between)
{
    unsigned regroup = 0;
    while (between) {
        int s = lo + 1 + __builtin_ctzll(between);
        between &= between - 1;
        int g = ix->group_of[b->sq[s]];
        const xq_index_group *G = &ix->group[g];
        if (!G->compressed) continue; /* a pawn: its positions are squares */
        if (G->count == 1)
            idx += (uint64_t)(sign * (int64_t)G->stride);
        else
            regroup |= 1u << g;
    }
    /* A group's positions and rank before the move are the site's (the
     * decode kept them): only the moved ones are ranked again, without a
     * scan of the board for the group's pieces (KNNKB's plain generation:
     * 263 instructions a call, most of them that scan and two rankings). */
    for (int g = 0; regroup >> g; g++) {
        if (!(regroup >> g & 1)) continue;
        const xq_index_group *G = &ix->group[g];
        const uint8_t *before = st->group_pos[g];
        uint8_t after[5];
        for (int i = 0; i < G->count; i++) {
            int s = expand_pos(st->pl[RED], st->pl[BLACK], before[i]);
            after[i] = (uint8_t)(before[i] + (s > lo && s < hi ? sign : 0));
        }
        idx += (group_rank(after, G->count) - st->group_rank[g]) * G->stride;
    }
    return idx;
}

/* The entry of defender pair (r, bl), placement ranks in folded form, with
 * the attackers of b (on the squares `attackers`) mirrored: what encoding
 * the board gives after a defender's quiet move from b that leaves the
 * fold, which leaves every attacker on its square (and lands on an empty
 * one).  Out of line, as after_group_move: few moves change the fold. */
static __attribute__((noinline)) uint64_t mirrored_attackers(const xq_index *ix, const xq_board *b, xq_mask attackers,
                                                             int r, int bl)
{
    uint64_t v = pair_value(ix, r, bl);
    if (v == UINT64_MAX) return XQ_INDEX_NONE;
    xq_piece pc[XQ_SQUARES];
    uint8_t sq[XQ_SQUARES];
    int n = 0;
    while (attackers) {
        int s = mask_pop_lsb(&attackers);
        pc[n] = b->sq[s];
        sq[n++] = (uint8_t)mirror_square(s);
    }
    uint64_t rest = attackers_part(ix, pc, sq, n, &ix->def[RED]->pl[r], &ix->def[BLACK]->pl[bl]);
    return rest == XQ_INDEX_NONE ? rest : v * ix->pair_stride + rest;
}

/* The squares of b's attackers, b being the board of site st (or a
 * defender's move away from it). */
static inline xq_mask attackers_of(const xq_index_site *st, const xq_board *b)
{
    return (b->occ[RED] | b->occ[BLACK]) & ~(st->pl[RED]->held | st->pl[BLACK]->held);
}

uint64_t xq_index_twin_mirror(const xq_index *ix, const xq_index_site *st, const xq_board *b, uint64_t j)
{
    if (j >= ix->size) return XQ_INDEX_NONE;
    int r, bl;
    pair_of(ix, divide(ix->by_pair_stride, j), &r, &bl);
    /* both placements are their own mirror images: only the attackers move */
    return mirrored_attackers(ix, b, attackers_of(st, b), r, bl);
}

uint64_t xq_index_after_defender_move(const xq_index *ix, const xq_index_site *st, const xq_board *b, int from, int to,
                                      int *twin)
{
    xq_piece p = b->sq[from];
    int c = colour_of(p), pl[2] = {st->rank[RED], st->rank[BLACK]};
    const placement *old = st->pl[c];
    int k = palace_no[c][old->king];
    unsigned am = old->amask, em = old->emask;
    switch (kind_of(p)) {
    case KING:
        if ((k = palace_no[c][to]) < 0 || (pl[c] = old->king_to[k]) < 0) return XQ_INDEX_NONE;
        break;
    case ADVISOR:
        if (adv_bit[c][to] < 0) return XQ_INDEX_NONE;
        am = (am & ~(1u << adv_bit[c][from])) | 1u << adv_bit[c][to];
        break;
    default: /* ELEPHANT */
        if (ele_bit[c][to] < 0) return XQ_INDEX_NONE;
        em = (em & ~(1u << ele_bit[c][from])) | 1u << ele_bit[c][to];
    }
    if (kind_of(p) != KING && (pl[c] = rank_of_key(c, k, am, em)) < 0) return XQ_INDEX_NONE;
    const placement *pr = &ix->def[RED]->pl[pl[RED]], *pb = &ix->def[BLACK]->pl[pl[BLACK]];
    uint64_t v = pair_value(ix, pl[RED], pl[BLACK]);
    if (twin) *twin = pr->sym && pb->sym;
    /* out of folded form (a king or defender crossing the fold): the entry
     * is the moved board's mirror image, the attackers mirrored around the
     * mirrored placements (never both their own images: then it would be
     * in folded form) */
    if (v == UINT64_MAX) return mirrored_attackers(ix, b, attackers_of(st, b), pr->mirror, pb->mirror);
    /* The attackers stay where they are; an R, N or C between the two
     * squares shifts one position: up when the defender moves from below it
     * to above it (one defender fewer below), down the other way.  Defender
     * moves are short, so most have no attacker between the squares.  A
     * lone piece's rank is its position; a group of identical pieces is
     * ranked again. */
    uint64_t idx = v * ix->pair_stride + (st->idx - st->pair * ix->pair_stride);
    int lo = from < to ? from : to, hi = from < to ? to : from;
    if (hi - lo == 1) return idx; /* a king's step along the rank: no square between */
    /* The squares strictly between, as a word from lo + 1: a defender's
     * move spans at most 20 squares (an elephant's: two ranks, two files),
     * so the attackers are shifted down once instead of masked with a
     * 128-bit range built from two shifts (KRKAABB: 7% of this function) */
    uint64_t between = (uint64_t)(attackers_of(st, b) >> (lo + 1)) & (((uint64_t)1 << (hi - lo - 1)) - 1);
    if (!between) return idx;
    return shift_between(ix, st, b, idx, lo, hi, from < to ? 1 : -1, between);
}

uint64_t xq_index_after_move(const xq_index *ix, uint64_t idx, xq_board *b, xq_move m)
{
    xq_index_site st;
    xq_board d;
    xq_index_decode_at(ix, idx, &d, &st); /* for the site */
    return xq_index_after_site_move(ix, &st, b, m);
}
