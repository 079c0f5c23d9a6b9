/*
 * ruled_pack.c - a table's ruled bytes held sparsely once final (tb.h,
 * tb_ruled8).
 *
 * The rulings decide a few positions of a table (KRKNAABB: 3.8 million
 * of its 90 million entries), yet their bytes took one an entry and side
 * for as long as the table stayed in memory: as a subtable, for the rest
 * of a run, beside its cells and DTC codes.  A bitmap of the ruled
 * entries with the count of set bits before each word (12 bytes every 64
 * entries) and the ruled bytes in entry order answer the same look-up, a
 * bit test for the positions without a result, a rank and a popcount for
 * the others, as the rulings' drawn region does (repetition_graph.h).
 */
#include <stdlib.h>
#include <string.h>

#include "cell.h"
#include "tb.h"

static uint64_t words_of(uint64_t n) { return n / 64 + 1; }

int tb_ruled8_fits(uint64_t n, uint64_t nruled)
{
    return nruled <= UINT32_MAX && words_of(n) * (sizeof(uint64_t) + sizeof(uint32_t)) + nruled <= n;
}

int tb_ruled8_begin(tb_ruled8 *r, uint64_t n, uint64_t nruled)
{
    memset(r, 0, sizeof *r);
    if (!tb_ruled8_fits(n, nruled)) return -1;
    uint64_t words = words_of(n);
    r->bits = calloc(words, sizeof *r->bits);
    r->rank = malloc(words * sizeof *r->rank);
    r->code = malloc(nruled ? nruled : 1);
    if (r->bits && r->rank && r->code) return 0;
    tb_ruled8_free(r);
    return -1;
}

void tb_ruled8_end(tb_ruled8 *r, uint64_t n)
{
    uint32_t before = 0;
    for (uint64_t w = 0; w < words_of(n); w++) {
        r->rank[w] = before;
        before += tb_bits_below(r->bits[w], 63) + (uint32_t)(r->bits[w] >> 63);
    }
}

void tb_ruled8_free(tb_ruled8 *r)
{
    free(r->bits);
    free(r->rank);
    free(r->code);
    memset(r, 0, sizeof *r);
}

int tb_ruled_replace(tb_table *t, int side, uint64_t i, unsigned v)
{
    if (v == RULED_NONE || tb_ruled(t, side, i) == RULED_NONE) return -1;
    if (t->ruled[side]) {
        t->ruled[side][i] = (uint8_t)v;
        return 0;
    }
    tb_ruled8 *r = &t->ruled8[side];
    uint64_t word = r->bits[i >> 6];
    r->code[r->rank[i >> 6] + tb_bits_below(word, i & 63)] = (uint8_t)v;
    return 0;
}

static void pack_side(tb_table *t, int side)
{
    const uint8_t *bytes = t->ruled[side];
    uint64_t n = t->ix.size, nruled = 0;
    for (uint64_t i = 0; i < n; i++) nruled += bytes[i] != RULED_NONE;
    tb_ruled8 r;
    if (tb_ruled8_begin(&r, n, nruled)) return;
    for (uint64_t i = 0; i < n; i++)
        if (bytes[i] != RULED_NONE) tb_ruled8_add(&r, i, bytes[i]);
    tb_ruled8_end(&r, n);
    free(t->ruled[side]);
    t->ruled[side] = NULL;
    t->ruled8[side] = r;
}

void tb_ruled_pack(tb_table *t)
{
    for (int side = 0; side < 2; side++)
        if (t->ruled[side]) pack_side(t, side);
}
