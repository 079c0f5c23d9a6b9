/*
 * index.c - position index <-> board.
 */
#include "index.h"

#include <stdlib.h>
#include <string.h>

#include "geometry.h"

/* King pairs: kp_red[i], kp_black[i] for i < 45, and the inverse table
 * (with a mirror flag) for every pair of palace squares. */
static uint8_t kp_red[XQ_KING_PAIRS], kp_black[XQ_KING_PAIRS];
static int8_t kp_of[XQ_SQUARES][XQ_SQUARES]; /* -1: mirror first */
static uint64_t binom[XQ_SQUARES + 1][6];

uint64_t xq_binomial(int n, int k)
{
    if (n < 0 || k < 0 || k > 5 || n > XQ_SQUARES) return 0;
    return binom[n][k];
}

__attribute__((constructor)) static void index_tables(void)
{
    for (int n = 0; n <= XQ_SQUARES; n++) {
        binom[n][0] = 1;
        for (int k = 1; k < 6; k++) binom[n][k] = n == 0 ? 0 : binom[n - 1][k - 1] + binom[n - 1][k];
    }
    memset(kp_of, -1, sizeof kp_of);
    int n = 0;
    for (int rk = 0; rk < XQ_SQUARES; rk++) {
        if (!in_palace(RED, rk) || file_of(rk) > 4) continue;
        for (int bk = 0; bk < XQ_SQUARES; bk++) {
            if (!in_palace(BLACK, bk)) continue;
            if (file_of(rk) == 4 && file_of(bk) > 4) continue;
            kp_red[n] = (uint8_t)rk;
            kp_black[n] = (uint8_t)bk;
            kp_of[rk][bk] = (int8_t)n++;
        }
    }
}

static int add_group(xq_index *ix, int colour, int kind, int count)
{
    xq_index_group *g = &ix->group[ix->ngroups];
    memset(g, 0, sizeof *g);
    g->colour = (uint8_t)colour;
    g->kind = (uint8_t)kind;
    g->count = (uint8_t)count;
    memset(g->pos, -1, sizeof g->pos);
    for (int s = 0; s < XQ_SQUARES; s++)
        if (xq_square_allowed(colour, kind, s)) {
            g->pos[s] = (int8_t)g->nsq;
            g->sq[g->nsq++] = (uint8_t)s;
        }
    g->size = binom[g->nsq][count];
    /* Unranking by table for all but the largest pawn groups. */
    if (count > 1 && g->size <= (1u << 20)) {
        g->unrank = malloc(g->size * (size_t)count);
        if (!g->unrank) return -1;
        int p[5];
        for (int i = 0; i < count; i++) p[i] = i;
        for (uint64_t r = 0; r < g->size; r++) {
            /* p ascending in colex order: rank r = sum C(p[i], i+1). */
            for (int i = 0; i < count; i++) g->unrank[r * count + i] = g->sq[p[i]];
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
    for (int c = 0; c < 2; c++)
        for (int i = 0; i < 6; i++) {
            int k = xq_material_order[i];
            /* Group positions are kept for at most 5 pieces (the pawns). */
            if (m->count[c][k] > 5 || (m->count[c][k] && add_group(ix, c, k, m->count[c][k]))) {
                xq_index_free(ix);
                return -1;
            }
        }
    /* Refuse a layout whose size does not fit in 64 bits: it would wrap
     * around and give distinct positions the same index. */
    uint64_t stride = 1;
    for (int g = ix->ngroups - 1; g >= 0; g--) {
        ix->group[g].stride = stride;
        if (stride > UINT64_MAX / ix->group[g].size) goto too_big;
        stride *= ix->group[g].size;
    }
    if (stride > UINT64_MAX / XQ_KING_PAIRS) goto too_big;
    ix->kp_stride = stride;
    ix->size = stride * XQ_KING_PAIRS;
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

uint64_t xq_index_encode(const xq_index *ix, const xq_board *b, int flags)
{
    int flip = flags & XQ_INDEX_FLIP;
    /* Squares seen in the index's orientation, before mirroring. */
    int rk = b->king[flip ? BLACK : RED], bk = b->king[flip ? RED : BLACK];
    /* A missing king (XQ_SQUARES) would index kp_of out of bounds. */
    if (rk >= XQ_SQUARES || bk >= XQ_SQUARES) return XQ_INDEX_NONE;
    if (flip) {
        rk = flip_square(rk);
        bk = flip_square(bk);
    }
    int mirror = (kp_of[rk][bk] < 0) ^ ((flags & XQ_INDEX_MIRROR) != 0);
    if (mirror) {
        rk = mirror_square(rk);
        bk = mirror_square(bk);
    }
    int kp = kp_of[rk][bk];
    if (kp < 0) return XQ_INDEX_NONE;
    uint8_t pos[XQ_INDEX_MAX_GROUPS][5];
    uint8_t n[XQ_INDEX_MAX_GROUPS] = {0};
    for (int c = 0; c < 2; c++) {
        xq_mask m = b->occ[c];
        while (m) {
            int s = mask_pop_lsb(&m);
            xq_piece p = b->sq[s];
            if (kind_of(p) == KING) continue;
            if (flip) {
                p ^= 8;
                s = flip_square(s);
            }
            if (mirror) s = mirror_square(s);
            int g = ix->group_of[p];
            if (g < 0 || n[g] >= ix->group[g].count) return XQ_INDEX_NONE;
            int q = ix->group[g].pos[s];
            if (q < 0) return XQ_INDEX_NONE;
            /* insertion keeps each group's positions ascending */
            int i = n[g]++;
            while (i > 0 && pos[g][i - 1] > q) {
                pos[g][i] = pos[g][i - 1];
                i--;
            }
            pos[g][i] = (uint8_t)q;
        }
    }
    uint64_t idx = (uint64_t)kp * ix->kp_stride;
    for (int g = 0; g < ix->ngroups; g++) {
        const xq_index_group *G = &ix->group[g];
        if (n[g] != G->count) return XQ_INDEX_NONE;
        uint64_t r = 0;
        for (int i = 0; i < G->count; i++) r += binom[pos[g][i]][i + 1];
        idx += r * G->stride;
    }
    return idx;
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

bool xq_index_decode(const xq_index *ix, uint64_t idx, xq_board *b)
{
    xq_board_clear(b);
    if (idx >= ix->size) return false;
    uint64_t kp = idx / ix->kp_stride, rest = idx % ix->kp_stride;
    xq_board_put(b, kp_red[kp], make_piece(RED, KING));
    xq_board_put(b, kp_black[kp], make_piece(BLACK, KING));
    for (int g = 0; g < ix->ngroups; g++) {
        const xq_index_group *G = &ix->group[g];
        uint64_t r = rest / G->stride;
        rest %= G->stride;
        xq_piece p = make_piece(G->colour, G->kind);
        if (G->count == 1) {
            int s = G->sq[r];
            if (b->sq[s]) return false;
            xq_board_put(b, s, p);
        } else if (G->unrank) {
            const uint8_t *u = G->unrank + r * G->count;
            for (int i = 0; i < G->count; i++) {
                if (b->sq[u[i]]) return false;
                xq_board_put(b, u[i], p);
            }
        } else {
            for (int i = G->count; i >= 1; i--) {
                int q = unrank_step(r, i, G->nsq);
                r -= binom[q][i];
                int s = G->sq[q];
                if (b->sq[s]) return false;
                xq_board_put(b, s, p);
            }
        }
    }
    return true;
}

int xq_index_weight(const xq_index *ix, uint64_t idx)
{
    if (idx >= ix->size) return 0;
    uint64_t kp = idx / ix->kp_stride;
    return file_of(kp_red[kp]) == 4 && file_of(kp_black[kp]) == 4 ? 1 : 2;
}

/* Rank of a group's positions in the combinatorial number system. */
static uint64_t group_rank(uint8_t *q, int n)
{
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

uint64_t xq_index_after_quiet(const xq_index *ix, uint64_t idx, const xq_board *b, int from, int to)
{
    xq_piece p = b->sq[from];
    const xq_index_group *G = &ix->group[ix->group_of[p]];
    int qt = G->pos[to];
    if (qt < 0) return XQ_INDEX_NONE;
    if (G->count == 1) return idx + (uint64_t)qt * G->stride - (uint64_t)G->pos[from] * G->stride;
    uint8_t before[5], after[5];
    int n = 0;
    xq_mask m = b->occ[colour_of(p)];
    while (m) {
        int s = mask_pop_lsb(&m);
        if (b->sq[s] != p) continue;
        before[n] = (uint8_t)G->pos[s];
        after[n++] = (uint8_t)(s == from ? qt : G->pos[s]);
    }
    return idx + group_rank(after, n) * G->stride - group_rank(before, n) * G->stride;
}

uint64_t xq_index_after_king_move(const xq_index *ix, uint64_t idx, const xq_board *b, int from, int to)
{
    int rk = b->king[RED], bk = b->king[BLACK];
    int kp_old = kp_of[rk][bk];
    if (rk == from)
        rk = to;
    else
        bk = to;
    int kp_new = kp_of[rk][bk];
    if (kp_new < 0 || kp_old < 0) return XQ_INDEX_REFOLD;
    return idx + (uint64_t)kp_new * ix->kp_stride - (uint64_t)kp_old * ix->kp_stride;
}

uint64_t xq_index_after_move(const xq_index *ix, uint64_t idx, xq_board *b, xq_move m)
{
    int from = move_from(m), to = move_to(m);
    uint64_t j = kind_of(b->sq[from]) == KING ? xq_index_after_king_move(ix, idx, b, from, to)
                                              : xq_index_after_quiet(ix, idx, b, from, to);
    if (j != XQ_INDEX_REFOLD) return j;
    xq_undo u;
    xq_make_move(b, m, &u);
    j = xq_index_encode(ix, b, 0);
    xq_unmake_move(b, m, &u);
    return j;
}
