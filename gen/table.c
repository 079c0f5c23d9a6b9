/*
 * table.c - a table in memory: allocation, cell width, value look-ups in it
 * and in the subtables captures lead to.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cell.h"
#include "tb.h"

tb_table *tb_table_new(const xq_material *m, int width)
{
    tb_table *t = calloc(1, sizeof *t);
    if (!t) return NULL;
    t->mat = *m;
    t->width = width;
    t->max_dtm = -1;
    if (xq_index_init(&t->ix, m)) {
        free(t);
        return NULL;
    }
    for (int s = 0; s < 2; s++) {
        t->cells[s] = malloc(t->ix.size * (size_t)width);
        if (!t->cells[s]) {
            tb_table_free(t);
            return NULL;
        }
        memset(t->cells[s], 0xFF, t->ix.size * (size_t)width); /* unknown */
    }
    return t;
}

void tb_table_free(tb_table *t)
{
    if (!t) return;
    free(t->cells[0]);
    free(t->cells[1]);
    free(t->ruled[0]);
    free(t->ruled[1]);
    tb_ruled8_free(&t->ruled8[0]);
    tb_ruled8_free(&t->ruled8[1]);
    tb_dtc_free(t);
    xq_index_free(&t->ix);
    free(t);
}

void tb_table_drop_side(tb_table *t, int side)
{
    free(t->cells[side]);
    free(t->ruled[side]);
    t->cells[side] = NULL;
    t->ruled[side] = NULL;
    tb_dtc_free_side(t, side);
    tb_ruled8_free(&t->ruled8[side]);
}

/* Bytes of the index's unranking tables (index.c allocates one per group
 * of several identical pieces, unless it is too large to tabulate). */
static uint64_t index_bytes(const xq_index *ix)
{
    uint64_t n = 0;
    for (int g = 0; g < ix->ngroups; g++)
        if (ix->group[g].unrank) n += ix->group[g].size * ix->group[g].count;
    return n;
}

uint64_t tb_table_own_bytes(const xq_index *ix, int width, int ruled, int dtc)
{
    uint64_t n = ix->size;
    return sizeof(tb_table) + index_bytes(ix) + 2 * n * (uint64_t)width + (ruled ? 2 * n : 0) +
           (dtc ? 2 * n * sizeof(uint16_t) : 0);
}

void tb_table_slim(tb_table *t)
{
    tb_dtc_slim(t);
    for (int side = 0; side < 2; side++)
        if (t->ruled8[side].bits && t->ruled8[side].nruled == 0) tb_ruled8_free(&t->ruled8[side]);
}

uint64_t tb_table_bytes(const tb_table *t)
{
    uint64_t n = tb_table_own_bytes(&t->ix, t->width, 0, 0), words = t->ix.size / 64 + 1;
    for (int s = 0; s < 2; s++)
        if (!t->cells[s]) n -= t->ix.size * (uint64_t)t->width; /* dropped (tb_set_trim) */
    for (int s = 0; s < 2; s++)
        if (t->ruled[s])
            n += t->ix.size;
        else if (t->ruled8[s].bits)
            n += words * (sizeof(uint64_t) + sizeof(uint32_t)) + t->ruled8[s].nruled;
    for (int s = 0; s < 2; s++)
        if (t->dtc[s])
            n += t->ix.size * sizeof(uint16_t);
        else if (t->dtc8[s].code)
            n += t->ix.size + t->dtc8[s].nwide * (sizeof(uint64_t) + sizeof(uint16_t));
        else if (t->beyond[s])
            n += words * sizeof(uint64_t);
    return n;
}

uint64_t tb_memory_available(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f) return 0;
    char line[256];
    unsigned long long kb = 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) break;
    fclose(f);
    return (uint64_t)kb * 1024;
}

int tb_table_widen(tb_table *t)
{
    if (t->width == 2) return 0;
    uint64_t avail = tb_memory_available();
    if (avail && 2 * t->ix.size * sizeof(uint16_t) > avail) return -1;
    for (int s = 0; s < 2; s++) {
        uint16_t *w = malloc(t->ix.size * sizeof *w);
        if (!w) return -1;
        for (uint64_t i = 0; i < t->ix.size; i++) w[i] = (uint16_t)cell_get(t->cells[s], 1, i);
        free(t->cells[s]);
        t->cells[s] = w;
    }
    t->width = 2;
    return 0;
}

tb_value tb_value_of_cell(unsigned code)
{
    if (code == CELL_ILLEGAL || code == CELL_UNKNOWN) return (tb_value){0, -1, 0};
    if (code == CELL_DRAW) return (tb_value){0, 0, 0};
    return (tb_value){(code & 1) ? 1 : -1, (int)code, 0};
}

tb_value tb_value_of(const tb_table *t, const xq_board *b)
{
    xq_material m;
    xq_material_of(b, &m);
    int flip;
    if (xq_material_equal(&m, &t->mat))
        flip = 0;
    else {
        xq_material f;
        xq_material_flip(&m, &f);
        if (!xq_material_equal(&f, &t->mat)) return (tb_value){0, -1, 0};
        flip = 1;
    }
    uint64_t i = xq_index_encode(&t->ix, b, flip);
    if (i == XQ_INDEX_NONE) return (tb_value){0, -1, 0};
    tb_value v = tb_value_of_cell(cell_get(t->cells[b->side ^ flip], t->width, i));
    unsigned r = tb_ruled(t, b->side ^ flip, i);
    if (r != RULED_NONE && v.wdl == 0 && v.dtm == 0)
        v = (tb_value){ruled_is_win(r) ? 1 : -1, ruled_order(r), ruled_by_chase(r) ? XQ_BY_CHASE : XQ_BY_CHECK};
    return v;
}

const tb_table *tb_capture_entry(const tb_table *t, xq_piece taken, const xq_board *b, uint64_t *idx, int *side)
{
    int c = colour_of(taken), k = kind_of(taken), flip = t->sub_flip[c][k];
    const tb_table *s = t->sub[c][k];
    *idx = xq_index_encode(&s->ix, b, flip);
    *side = b->side ^ flip;
    return s;
}

unsigned tb_capture_cell(const tb_table *t, xq_piece taken, const xq_board *b)
{
    uint64_t i;
    int side;
    const tb_table *s = tb_capture_entry(t, taken, b, &i, &side);
    return i == XQ_INDEX_NONE ? CELL_ILLEGAL : cell_get(s->cells[side], s->width, i);
}

/* tb_successor_at, inline in tb_successor_cell_at, the generator's hottest
 * look-up (an exported function is not inlined under -fPIC). */
static inline const tb_table *successor_at(const tb_table *t, xq_board *b, const xq_index_site *site, xq_move m,
                                           uint64_t *idx, int *side)
{
    if (b->sq[move_to(m)]) {
        xq_undo u;
        xq_make_move(b, m, &u);
        const tb_table *s = tb_capture_entry(t, u.captured, b, idx, side);
        xq_unmake_move(b, m, &u);
        return s;
    }
    /* a quiet move changes one group's rank: no board is encoded */
    *idx = xq_index_after_site_move(&t->ix, site, b, m);
    *side = b->side ^ 1;
    return t;
}

const tb_table *tb_successor_at(const tb_table *t, xq_board *b, const xq_index_site *site, xq_move m, uint64_t *idx,
                                int *side)
{
    return successor_at(t, b, site, m, idx, side);
}

void tb_successors_at(const tb_table *t, xq_board *b, const xq_index_site *site, const xq_move *list, int n,
                      tb_successor *to)
{
    for (int k = 0; k < n; k++) {
        to[k].table = successor_at(t, b, site, list[k], &to[k].entry, &to[k].side);
        if (to[k].entry != XQ_INDEX_NONE)
            cell_prefetch(to[k].table->cells[to[k].side], to[k].table->width, to[k].entry);
    }
}

unsigned tb_successor_cell_at(const tb_table *t, xq_board *b, const xq_index_site *site, xq_move m, unsigned *ruled)
{
    uint64_t i;
    int side;
    const tb_table *s = successor_at(t, b, site, m, &i, &side);
    unsigned v = i == XQ_INDEX_NONE ? CELL_ILLEGAL : cell_get(s->cells[side], s->width, i);
    if (ruled) *ruled = v == CELL_DRAW ? tb_ruled(s, side, i) : RULED_NONE;
    return v;
}

unsigned tb_successor_cell(const tb_table *t, xq_board *b, xq_move m, unsigned *ruled)
{
    xq_undo u;
    xq_make_move(b, m, &u);
    const tb_table *s = t;
    uint64_t i;
    int side = b->side;
    if (u.captured)
        s = tb_capture_entry(t, u.captured, b, &i, &side);
    else
        i = xq_index_encode(&t->ix, b, 0);
    unsigned v = i == XQ_INDEX_NONE ? CELL_ILLEGAL : cell_get(s->cells[side], s->width, i);
    if (ruled) *ruled = v == CELL_DRAW ? tb_ruled(s, side, i) : RULED_NONE;
    xq_unmake_move(b, m, &u);
    return v;
}
