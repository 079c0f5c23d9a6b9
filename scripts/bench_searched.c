/*
 * bench_searched.c - how many blocks a cold DTM probe of a searched entry
 * (docs/FORMAT.md, "Searched entries") must decode, counted on a generated
 * table rather than timed (issue 14).  For N random entries of the
 * searched side with an ordinary win or loss, it counts the distinct blocks
 * of the stored side's DTM file that their quiet successors fall in:
 *
 *   all      every quiet successor, which the library's search reads today;
 *   deciding only the successors that can give the value: the losses of
 *            the other side for a win, every successor for a loss (a
 *            search that knew each successor's WDL value for free);
 *   bounded  a branch-and-bound search over all the blocks, in order of
 *            a per-block bound (the lowest loss, the highest win of the
 *            block), stopping once no block left can improve the value;
 *
 * and the distinct blocks of the WDL file the successors fall in (what
 * learning their WDL values would read).  Captures lead to subtables and
 * are counted apart.
 *
 * Then the cost of a hint stored for each entry of the searched side,
 * naming where its value comes from (the best move: for a win the one to
 * the shortest loss, for a loss the one to the longest win; the first in
 * move order on a tie): the bytes of such a stream, one byte an entry in
 * blocks of the DTM file's size, each compressed alone with Zstandard at
 * the writer's level, for two hints: the move itself (its place in the
 * legal moves), after which a probe decodes one block of the stored side,
 * and the piece that makes it (its place among the side's pieces), after
 * which a probe decodes the blocks of that piece's quiet moves (counted
 * over the sample).  Entries without an ordinary win or loss get 0.
 *
 * Last, bounds per group of G entries (16, 64, 256) of the stored side:
 * the group's lowest loss and highest win, a summary small enough to hold
 * in memory.  A search guided by them takes the successors in order of
 * their group's bound and decodes a successor's block only while that
 * bound could still improve the value; it counts those blocks, once with
 * the entry's result known (a win: its shortest loss; a loss: its longest
 * win), once more with a loss's successors skipped only in groups of
 * ordinary wins (what a search that does not read every block must prove).
 * Printed with the summary's bytes (two bytes a group, compressed in
 * blocks of 4,096 groups) and the summary blocks its successors fall in.
 * Then the wins by a ruling of the searched side, which that search reads
 * nearly whole: the blocks it reads, and those it would read if the entry
 * said it is ruled and each group kept its smallest ruled-loss order
 * (ruled_wins).  The values come from the table the generator rebuilds
 * from the files of DIR (unpack.c).
 *
 *   bench_searched DIR MATERIAL [N]      N: entries sampled (default 20,000)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zstd.h>

#include "cell.h"
#include "compress.h"
#include "movegen.h"
#include "tb.h"
#include "tbformat.h"

/* Header field `off` (a u32) of file DIR/NAME.EXT of kind `kind`, or -1. */
static long header_u32(const char *dir, const char *name, int kind, int off)
{
    char path[4096];
    uint8_t h[128];
    xqf_path(dir, name, kind, path, sizeof path);
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    size_t got = fread(h, 1, sizeof h, f);
    fclose(f);
    return got == sizeof h ? (long)xqf_get32(h + off) : -1;
}

/* Adds x to the n distinct values of set[] unless it is there already. */
static void add_distinct(uint64_t *set, int *n, uint64_t x)
{
    for (int i = 0; i < *n; i++)
        if (set[i] == x) return;
    set[(*n)++] = x;
}

/* Group sizes measured for the group bounds below. */
enum { NGROUPS = 3 };
static const uint64_t GROUP[NGROUPS] = {16, 64, 256};

typedef struct {
    uint64_t positions, wins, all, deciding, bounded, wdl, captures, by_piece;
    uint64_t grouped[NGROUPS], proven[NGROUPS],
        summary[NGROUPS]; /* DTM blocks, summary blocks (of SUMMARY_BLOCK groups) */
} tally;

/* Groups a summary block holds. */
enum { SUMMARY_BLOCK = 4096 };

/* Per DTM block of the stored side: the lowest loss and the highest win
 * it holds (cell values), the bounds of the branch-and-bound search. */
/* Bytes of n bytes at src compressed alone with Zstandard at the writer's
 * level, as a file's block would be; -1 on failure. */
static int64_t zstd_bytes(const uint8_t *src, size_t n)
{
    size_t cap = ZSTD_compressBound(n);
    void *dst = malloc(cap);
    size_t got = dst ? ZSTD_compress(dst, cap, src, n, TB_ZSTD_LEVEL) : 0;
    free(dst);
    return !dst || ZSTD_isError(got) ? -1 : (int64_t)got;
}

typedef struct {
    unsigned *low_loss, *high_win;
    uint8_t *all_wins; /* every legal entry an ordinary win (per group; NULL per block) */
} bounds;

static int bounds_of(const tb_table *t, int stored, uint64_t block, bounds *bd)
{
    uint64_t blocks = (t->ix.size + block - 1) / block;
    bd->low_loss = malloc(blocks * sizeof *bd->low_loss);
    bd->high_win = malloc(blocks * sizeof *bd->high_win);
    bd->all_wins = malloc(blocks);
    if (!bd->low_loss || !bd->high_win || !bd->all_wins) return -1;
    for (uint64_t k = 0; k < blocks; k++) {
        bd->low_loss[k] = CELL_DRAW;
        bd->high_win[k] = 0;
        bd->all_wins[k] = 1;
    }
    for (uint64_t i = 0; i < t->ix.size; i++) {
        unsigned v = cell_get(t->cells[stored], t->width, i);
        if (v != CELL_ILLEGAL && !(v < CELL_DRAW && cell_is_win(v))) bd->all_wins[i / block] = 0;
        if (v >= CELL_DRAW) continue;
        if (cell_is_loss(v) && v < bd->low_loss[i / block]) bd->low_loss[i / block] = v;
        if (cell_is_win(v) && v > bd->high_win[i / block]) bd->high_win[i / block] = v;
    }
    return 0;
}

/* Blocks the branch-and-bound search decodes among blk[0, n) for a win
 * (the least loss) or a loss (the greatest win), the successors' blocks
 * and values being sb[0, nq) and val[0, nq). */
static int bounded_reads(const bounds *bd, int win, const uint64_t *blk, int n, const uint64_t *sb, const unsigned *val,
                         int nq)
{
    int used[XQ_MAX_MOVES] = {0}, reads = 0;
    unsigned best = win ? CELL_DRAW : 0;
    for (;;) {
        int pick = -1;
        for (int q = 0; q < n; q++)
            if (!used[q] && (pick < 0 || (win ? bd->low_loss[blk[q]] < bd->low_loss[blk[pick]]
                                              : bd->high_win[blk[q]] > bd->high_win[blk[pick]])))
                pick = q;
        if (pick < 0 || (win ? best <= bd->low_loss[blk[pick]] : best >= bd->high_win[blk[pick]])) return reads;
        used[pick] = 1;
        reads++;
        for (int k = 0; k < nq; k++) {
            if (sb[k] != blk[pick] || val[k] >= CELL_DRAW) continue;
            if (win && cell_is_loss(val[k]) && val[k] < best) best = val[k];
            if (!win && cell_is_win(val[k]) && val[k] > best) best = val[k];
        }
    }
}

/* Per group of G entries of the stored side: the lowest loss and the
 * highest win (cell values), a summary much smaller than the DTM file
 * that a probe could read instead of whole blocks: it bounds every
 * successor in the group, and a search decodes a successor's block only
 * while its group's bound could still improve the value. */

/* The bytes of the summary of G-entry groups, two values a group (the
 * lowest loss, the highest win: DRAW and 0 for none, each cut to a byte as
 * a DTM symbol would be), compressed in blocks of `block` groups with
 * Zstandard at the writer's level. */
static int64_t summary_bytes(const bounds *bd, uint64_t groups, uint64_t block)
{
    uint8_t *raw = malloc(2 * block);
    int64_t total = raw ? 0 : -1;
    for (uint64_t first = 0; raw && total >= 0 && first < groups; first += block) {
        uint64_t len = groups - first < block ? groups - first : block;
        for (uint64_t g = first; g < first + len; g++) {
            unsigned lo = bd->low_loss[g], hi = bd->high_win[g];
            raw[g - first] = (uint8_t)(lo >= CELL_DRAW ? 255 : lo > 254 ? 254 : lo);
            raw[len + g - first] = (uint8_t)(hi > 254 ? 254 : hi);
        }
        int64_t got = zstd_bytes(raw, (size_t)(2 * len));
        total = got < 0 ? -1 : total + got;
    }
    free(raw);
    return total;
}

/* DTM blocks a search guided by group bounds decodes: the successors in
 * order of their group's bound (for a win the lowest loss, for a loss the
 * highest win), a successor's block decoded unless already decoded, until
 * no group bound left can improve the value.  Successors are at entries
 * se[0, nq) with values val[]; blocks of `block` entries. */
static int grouped_reads(const bounds *gb, uint64_t group, uint64_t block, int win, int proven, const uint64_t *se,
                         const unsigned *val, int nq)
{
    int used[XQ_MAX_MOVES] = {0}, reads = 0;
    uint64_t decoded[XQ_MAX_MOVES];
    unsigned best = win ? CELL_DRAW : 0;
    /* a loss: only a group of ordinary wins is known to hold one without
     * decoding it; every other successor's block is read first */
    for (int q = 0; q < nq && !win && proven; q++) {
        if (gb->all_wins[se[q] / group]) continue;
        used[q] = 1;
        uint64_t blk = se[q] / block;
        int seen = 0;
        for (int r = 0; r < reads; r++) seen |= decoded[r] == blk;
        if (seen) continue;
        decoded[reads++] = blk;
        for (int k = 0; k < nq; k++)
            if (se[k] / block == blk && val[k] < CELL_DRAW && cell_is_win(val[k]) && val[k] > best) best = val[k];
    }
    for (;;) {
        int pick = -1;
        for (int q = 0; q < nq; q++) {
            if (used[q]) continue;
            unsigned bq = win ? gb->low_loss[se[q] / group] : gb->high_win[se[q] / group];
            if (win ? bq >= CELL_DRAW : bq == 0) continue; /* no loss (no win) in its group: cannot decide */
            if (pick < 0 || (win ? bq < gb->low_loss[se[pick] / group] : bq > gb->high_win[se[pick] / group])) pick = q;
        }
        if (pick < 0) return reads;
        unsigned bound = win ? gb->low_loss[se[pick] / group] : gb->high_win[se[pick] / group];
        if (win ? best <= bound : best >= bound) return reads;
        used[pick] = 1;
        uint64_t blk = se[pick] / block;
        int seen = 0;
        for (int r = 0; r < reads; r++) seen |= decoded[r] == blk;
        if (seen) continue; /* its value is known already (taken into best below) */
        decoded[reads++] = blk;
        for (int k = 0; k < nq; k++) {
            if (se[k] / block != blk || val[k] >= CELL_DRAW) continue;
            if (win && cell_is_loss(val[k]) && val[k] < best) best = val[k];
            if (!win && cell_is_win(val[k]) && val[k] > best) best = val[k];
        }
    }
}

/* The place in list[0, nm) of the best move of b (value v: a win or a
 * loss), and the place of the piece that makes it among b's pieces (in
 * ascending square order).  Values of captures come from the subtables. */
static void best_move(const tb_table *t, xq_board *b, const xq_move *list, int nm, unsigned v, int *move, int *piece)
{
    int win = cell_is_win(v), at = 0;
    unsigned best = win ? CELL_DRAW : 0;
    for (int k = 0; k < nm; k++) {
        unsigned w = tb_successor_cell(t, b, list[k], NULL);
        if (w >= CELL_DRAW) continue;
        if (win ? cell_is_loss(w) && w < best : cell_is_win(w) && w > best) {
            best = w;
            at = k;
        }
    }
    *move = at;
    int from = move_from(list[at]), place = 0;
    for (int sq = 0; sq < from; sq++) place += b->sq[sq] && colour_of(b->sq[sq]) == b->side;
    *piece = place;
}

/* Bytes of the two hint streams over every entry of the searched side. */
static int hint_bytes(const tb_table *t, int searched, uint64_t block, uint64_t out[2])
{
    uint64_t n = t->ix.size;
    uint8_t *raw[2] = {malloc(block), malloc(block)};
    int rc = raw[0] && raw[1] ? 0 : -1;
    out[0] = out[1] = 0;
    for (uint64_t first = 0; rc == 0 && first < n; first += block) {
        uint64_t len = n - first < block ? n - first : block;
        for (uint64_t i = first; i < first + len; i++) {
            unsigned v = cell_get(t->cells[searched], t->width, i);
            int move = 0, piece = 0;
            xq_board b;
            if (v < CELL_DRAW && v > 0 && xq_index_decode(&t->ix, i, &b)) {
                b.side = (uint8_t)searched;
                xq_move list[XQ_MAX_MOVES];
                int nm = xq_gen_legal(&b, list);
                if (nm > 0) best_move(t, &b, list, nm, v, &move, &piece);
            }
            raw[0][i - first] = (uint8_t)move;
            raw[1][i - first] = (uint8_t)piece;
        }
        for (int h = 0; h < 2 && rc == 0; h++) {
            int64_t got = zstd_bytes(raw[h], (size_t)len);
            if (got < 0) rc = -1;
            out[h] += (uint64_t)(got < 0 ? 0 : got);
        }
    }
    free(raw[0]);
    free(raw[1]);
    return rc;
}

/* Counts one entry i of the searched side (value v) into *ty. */
static void count_entry(const tb_table *t, int searched, uint64_t i, unsigned v, uint64_t dtm_block, uint64_t wdl_block,
                        const bounds *bd, const bounds *gb, tally *ty)
{
    xq_board b;
    if (!xq_index_decode(&t->ix, i, &b)) return;
    b.side = (uint8_t)searched;
    xq_move list[XQ_MAX_MOVES];
    int nm = xq_gen_legal(&b, list), nq = 0, win = cell_is_win(v);
    uint64_t se[XQ_MAX_MOVES], sb[XQ_MAX_MOVES], wb[XQ_MAX_MOVES], all[XQ_MAX_MOVES], deciding[XQ_MAX_MOVES],
        wdl[XQ_MAX_MOVES];
    unsigned val[XQ_MAX_MOVES];
    for (int k = 0; k < nm; k++) {
        if (b.sq[move_to(list[k])]) {
            ty->captures++;
            continue;
        }
        xq_undo u;
        xq_make_move(&b, list[k], &u);
        uint64_t j = xq_index_encode(&t->ix, &b, 0);
        xq_unmake_move(&b, list[k], &u);
        se[nq] = j;
        sb[nq] = j / dtm_block;
        wb[nq] = j / wdl_block;
        val[nq++] = cell_get(t->cells[searched ^ 1], t->width, j);
    }
    int nall = 0, ndec = 0, nwdl = 0;
    for (int k = 0; k < nq; k++) {
        add_distinct(all, &nall, sb[k]);
        add_distinct(wdl, &nwdl, wb[k]);
        if (!win || (val[k] < CELL_DRAW && cell_is_loss(val[k]))) add_distinct(deciding, &ndec, sb[k]);
    }
    ty->positions++;
    ty->wins += (uint64_t)win;
    ty->all += (uint64_t)nall;
    ty->deciding += (uint64_t)ndec;
    ty->wdl += (uint64_t)nwdl;
    ty->bounded += (uint64_t)bounded_reads(bd, win, all, nall, sb, val, nq);
    for (int g = 0; g < NGROUPS; g++) {
        uint64_t sum[XQ_MAX_MOVES];
        int nsum = 0;
        for (int k = 0; k < nq; k++) add_distinct(sum, &nsum, se[k] / GROUP[g] / SUMMARY_BLOCK);
        ty->summary[g] += (uint64_t)nsum;
        ty->grouped[g] += (uint64_t)grouped_reads(&gb[g], GROUP[g], dtm_block, win, 0, se, val, nq);
        ty->proven[g] += (uint64_t)grouped_reads(&gb[g], GROUP[g], dtm_block, win, 1, se, val, nq);
    }
    /* a piece hint: the blocks of that piece's quiet moves */
    int move, piece, nbp = 0, q = 0;
    uint64_t by_piece[XQ_MAX_MOVES];
    best_move(t, &b, list, nm, v, &move, &piece);
    int from = move_from(list[move]);
    for (int k = 0; k < nm; k++) {
        if (b.sq[move_to(list[k])]) continue;
        if (move_from(list[k]) == from) add_distinct(by_piece, &nbp, sb[q]);
        q++;
    }
    ty->by_piece += (uint64_t)nbp;
}

/* Wins by a ruling of the searched side: the DTM blocks their search
 * reads with the file's search bounds (format 6: every successor in a
 * group holding an ordinary loss or not all ordinary wins), and what it
 * would read if the entry said it is ruled (a second "search" symbol, which
 * format 7 has) and each group of 64 stored entries kept its smallest
 * ruled-loss order (format 7's ruled bounds): the
 * successors in order of that bound, until the smallest order found is
 * below the next bound (or equal to it, once a check ruling has it).
 * Prints the sample's averages and the order bytes' compressed size. */
static int ruled_wins(const tb_table *t, int searched, uint64_t block, const bounds *gb64, long want)
{
    int stored = searched ^ 1;
    uint64_t groups = (t->ix.size + 63) / 64;
    uint8_t *order = malloc(groups);
    if (!order) return -1;
    memset(order, 0xFF, groups);
    for (uint64_t i = 0; i < t->ix.size; i++) {
        unsigned r = tb_ruled(t, stored, i);
        if (r != RULED_NONE && !ruled_is_win(r) && (r >> 2) < order[i / 64]) order[i / 64] = (uint8_t)(r >> 2);
    }
    uint64_t state = 0x2545F4914F6CDD1Dull, tries = 0, n = 0, now = 0, with = 0;
    while ((long)n < want && tries++ < 1000 * (uint64_t)want) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        uint64_t i = (state >> 11) % t->ix.size;
        unsigned r = tb_ruled(t, searched, i);
        xq_board b;
        if (r == RULED_NONE || !ruled_is_win(r) || !xq_index_decode(&t->ix, i, &b)) continue;
        b.side = (uint8_t)searched;
        xq_move list[XQ_MAX_MOVES];
        int nm = xq_gen_legal(&b, list), nq = 0;
        uint64_t se[XQ_MAX_MOVES], read_now[XQ_MAX_MOVES], read_with[XQ_MAX_MOVES];
        int n_now = 0, n_with = 0, used[XQ_MAX_MOVES] = {0};
        for (int k = 0; k < nm; k++) {
            if (b.sq[move_to(list[k])]) continue;
            xq_undo u;
            xq_make_move(&b, list[k], &u);
            se[nq++] = xq_index_encode(&t->ix, &b, 0);
            xq_unmake_move(&b, list[k], &u);
        }
        for (int k = 0; k < nq; k++)
            if (gb64->low_loss[se[k] / 64] < CELL_DRAW || !gb64->all_wins[se[k] / 64])
                add_distinct(read_now, &n_now, se[k] / block);
        unsigned best = 64, check = 0;
        for (;;) {
            int pick = -1;
            for (int k = 0; k < nq; k++)
                if (!used[k] && order[se[k] / 64] != 0xFF && (pick < 0 || order[se[k] / 64] < order[se[pick] / 64]))
                    pick = k;
            if (pick < 0) break;
            unsigned bound = order[se[pick] / 64];
            if (best < bound || (best == bound && check)) break;
            used[pick] = 1;
            add_distinct(read_with, &n_with, se[pick] / block);
            for (int k = 0; k < nq; k++) {
                if (se[k] / block != se[pick] / block) continue;
                unsigned rk = tb_ruled(t, stored, se[k]);
                if (rk == RULED_NONE || ruled_is_win(rk)) continue;
                if ((rk >> 2) < best) best = rk >> 2, check = 0;
                if ((rk >> 2) == best) check |= !(rk & 2);
            }
        }
        n++;
        now += (uint64_t)n_now;
        with += (uint64_t)n_with;
    }
    int64_t bytes = 0;
    for (uint64_t g = 0; bytes >= 0 && g < groups; g += 4096) {
        int64_t got = zstd_bytes(order + g, groups - g < 4096 ? (size_t)(groups - g) : 4096);
        bytes = got < 0 ? -1 : bytes + got;
    }
    char name[XQ_MATERIAL_MAX];
    xq_material_name(&t->mat, name);
    if (n)
        printf("%-10s ruled wins of the searched side: %llu sampled; DTM blocks a probe with format 6's bounds %.2f, "
               "knowing it ruled with the smallest ruled-loss order per 64 entries %.2f (the orders: %llu bytes)\n",
               name, (unsigned long long)n, (double)now / (double)n, (double)with / (double)n,
               (unsigned long long)bytes);
    else
        printf("%-10s no ruled win of the searched side\n", name);
    free(order);
    return bytes < 0 ? -1 : 0;
}

int main(int argc, char **argv)
{
    if (argc < 3 || argc > 4) {
        fprintf(stderr, "usage: bench_searched DIR MATERIAL [N]\n");
        return 2;
    }
    const char *dir = argv[1];
    long want = argc == 4 ? atol(argv[3]) : 20000;
    char err[XQ_ERR_MAX], name[XQ_MATERIAL_MAX];
    xq_material m;
    if (want <= 0 || xq_material_parse(argv[2], &m, err)) {
        fprintf(stderr, "bench_searched: %s\n", want <= 0 ? "N must be at least 1" : err);
        return 2;
    }
    xq_material canon; /* files are named, and their sides are, by the canonical colouring */
    xq_material_canonical(&m, &canon);
    m = canon;
    xq_material_name(&m, name);
    long searched_field = header_u32(dir, name, XQF_KIND_DTM, XQF_OFF_SEARCHED_SIDE);
    long dtm_block = header_u32(dir, name, XQF_KIND_DTM, XQF_OFF_BLOCK_ENTRIES);
    long wdl_block = header_u32(dir, name, XQF_KIND_WDL, XQF_OFF_BLOCK_ENTRIES);
    if (searched_field < 0 || dtm_block <= 0 || wdl_block <= 0) {
        fprintf(stderr, "bench_searched: cannot read the headers of %s's DTM and WDL files in %s\n", name, dir);
        return 1;
    }
    if (searched_field == XQF_SEARCHED_NONE) {
        fprintf(stderr, "bench_searched: %s's DTM file stores both sides: nothing is searched\n", name);
        return 1;
    }
    int searched = searched_field == XQF_SEARCHED_RED ? RED : BLACK;
    tb_set *set = tb_set_new(dir);
    tb_table *t = set ? tb_set_get(set, &m, err) : NULL;
    if (!t) {
        fprintf(stderr, "bench_searched: %s\n", set ? err : "out of memory");
        return 1;
    }
    bounds bd, gb[NGROUPS];
    int gfail = 0;
    for (int g = 0; g < NGROUPS; g++) gfail |= bounds_of(t, searched ^ 1, GROUP[g], &gb[g]);
    if (gfail || bounds_of(t, searched ^ 1, (uint64_t)dtm_block, &bd)) {
        fprintf(stderr, "bench_searched: out of memory\n");
        return 1;
    }
    tally ty = {0};
    uint64_t state = 0x9E3779B97F4A7C15ull, tries = 0;
    /* entries at random (a fixed seed: the same sample every run), keeping
     * those with an ordinary win or loss; a table with few has a bound */
    while (ty.positions < (uint64_t)want && tries++ < 1000 * (uint64_t)want) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        uint64_t i = (state >> 11) % t->ix.size;
        unsigned v = cell_get(t->cells[searched], t->width, i);
        if (v < CELL_DRAW && v > 0)
            count_entry(t, searched, i, v, (uint64_t)dtm_block, (uint64_t)wdl_block, &bd, gb, &ty);
    }
    if (ty.positions == 0) {
        fprintf(stderr, "bench_searched: %s has no decided entry of its searched side\n", name);
        return 1;
    }
    double n = (double)ty.positions;
    printf("%-10s %s searched, %llu entries (%llu wins): DTM blocks of %ld a probe: all %.2f, deciding %.2f, "
           "bounded %.2f; WDL blocks of %ld %.2f; captures %.2f\n",
           name, searched == RED ? "red" : "black", (unsigned long long)ty.positions, (unsigned long long)ty.wins,
           dtm_block, (double)ty.all / n, (double)ty.deciding / n, (double)ty.bounded / n, wdl_block,
           (double)ty.wdl / n, (double)ty.captures / n);
    uint64_t hints[2];
    if (hint_bytes(t, searched, (uint64_t)dtm_block, hints)) {
        fprintf(stderr, "bench_searched: out of memory\n");
        return 1;
    }
    char path[4096];
    xqf_path(dir, name, XQF_KIND_DTM, path, sizeof path);
    FILE *f = fopen(path, "rb");
    long dtm_bytes = f && fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    if (f) fclose(f);
    printf("%-10s hints: the move %llu bytes, the piece %llu bytes (the DTM file %ld bytes); DTM blocks a probe "
           "with the piece hint %.2f\n",
           name, (unsigned long long)hints[0], (unsigned long long)hints[1], dtm_bytes, (double)ty.by_piece / n);
    if (ruled_wins(t, searched, (uint64_t)dtm_block, &gb[1], want)) {
        fprintf(stderr, "bench_searched: out of memory\n");
        return 1;
    }
    for (int g = 0; g < NGROUPS; g++) {
        int64_t sbytes = summary_bytes(&gb[g], (t->ix.size + GROUP[g] - 1) / GROUP[g], SUMMARY_BLOCK);
        if (sbytes < 0) {
            fprintf(stderr, "bench_searched: out of memory\n");
            return 1;
        }
        printf("%-10s bounds per %llu entries: summary %lld bytes (%.3f of the DTM file), summary blocks of %d a probe "
               "%.2f, DTM blocks a probe %.2f (%.2f with losses proven by groups of wins)\n",
               name, (unsigned long long)GROUP[g], (long long)sbytes, (double)sbytes / (double)dtm_bytes, SUMMARY_BLOCK,
               (double)ty.summary[g] / n, (double)ty.grouped[g] / n, (double)ty.proven[g] / n);
        free(gb[g].low_loss);
        free(gb[g].high_win);
        free(gb[g].all_wins);
    }
    free(bd.low_loss);
    free(bd.high_win);
    free(bd.all_wins);
    tb_set_free(set);
    return 0;
}
