/*
 * dtc_pack.c - a table's final DTC codes held one byte an entry (tb.h,
 * tb_dtc8).
 *
 * Every table of a run stays in memory while a larger one may capture into
 * it, and its DTC codes were half of what it held there (two bytes an
 * entry and side, against one for the cells and one for the ruled bytes).
 * Nearly every code fits a byte: a distance that holds is at most the
 * move limit (120 plies by default), and DTC_NONE is one value.  The rest
 * (cursed wins and blessed losses, which carry a flag and a second kind of
 * distance, and distances past 253 plies under a longer limit) are few
 * where the limit matters at all, so they are listed apart by entry and
 * found by a binary search.  A side with more than a sixteenth of its
 * entries in the list (ten bytes each) stays unpacked.
 */
#include <stdlib.h>

#include "dtc.h"
#include "tb.h"

_Static_assert(DTC_NONE == 0xFFFF, "tb_dtc returns DTC_NONE for TB_DTC8_NONE");

unsigned tb_dtc_wide(const tb_dtc8 *d, uint64_t i)
{
    uint64_t lo = 0, hi = d->nwide;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (d->wide_at[mid] < i)
            lo = mid + 1;
        else
            hi = mid;
    }
    /* packing lists every entry it marks, so this is found */
    return lo < d->nwide && d->wide_at[lo] == i ? d->wide[lo] : DTC_NONE;
}

static int fits_byte(unsigned code) { return code < TB_DTC8_WIDE || code == DTC_NONE; }

static uint64_t count_wide(uint64_t n, tb_dtc_code_fn code_of, const void *arg)
{
    uint64_t nwide = 0;
    for (uint64_t i = 0; i < n; i++) nwide += !fits_byte(code_of(arg, i));
    return nwide;
}

/* Packs the n codes code_of gives, nwide of them wide, into p with `code`
 * as its bytes.  Entry i's byte is written only after its code is read, so
 * code may be the memory code_of reads, as long as entry i's code lies at
 * or above byte i (a byte array of the same entries, or a two-byte one).
 * Returns 0, or -1 if the list cannot be allocated (then nothing is
 * written). */
static int fill_packed(tb_dtc8 *p, uint8_t *code, uint64_t n, uint64_t nwide, tb_dtc_code_fn code_of, const void *arg)
{
    *p = (tb_dtc8){.nwide = nwide};
    p->wide_at = malloc((nwide ? nwide : 1) * sizeof *p->wide_at);
    p->wide = malloc((nwide ? nwide : 1) * sizeof *p->wide);
    if (!p->wide_at || !p->wide) {
        free(p->wide_at);
        free(p->wide);
        *p = (tb_dtc8){0};
        return -1;
    }
    for (uint64_t i = 0, k = 0; i < n; i++) {
        unsigned v = code_of(arg, i);
        if (!fits_byte(v)) {
            p->wide_at[k] = i;
            p->wide[k++] = (uint16_t)v;
        }
        code[i] = (uint8_t)(v == DTC_NONE ? TB_DTC8_NONE : fits_byte(v) ? v : TB_DTC8_WIDE);
    }
    p->code = code;
    return 0;
}

static unsigned code16(const void *arg, uint64_t i) { return ((const uint16_t *)arg)[i]; }

static void pack_side(tb_table *t, int side)
{
    uint16_t *d = t->dtc[side];
    uint64_t n = t->ix.size, nwide = count_wide(n, code16, d);
    if (nwide > n / 16) return;
    tb_dtc8 p;
    /* in place: byte i is written after the code at bytes 2i and 2i+1 is
     * read, and bytes below 2i hold codes already read */
    if (fill_packed(&p, (uint8_t *)d, n, nwide, code16, d)) return;
    uint8_t *shrunk = realloc(p.code, n ? n : 1);
    if (shrunk) p.code = shrunk;
    t->dtc8[side] = p;
    t->dtc[side] = NULL;
}

void tb_dtc_pack(tb_table *t)
{
    for (int side = 0; side < 2; side++)
        if (t->dtc[side]) pack_side(t, side);
}

int tb_dtc_pack_from(tb_table *t, int side, uint8_t *bytes, tb_dtc_code_fn code_of, const void *arg)
{
    uint64_t n = t->ix.size, nwide = count_wide(n, code_of, arg);
    if (nwide > n / 16) return 1;
    return fill_packed(&t->dtc8[side], bytes, n, nwide, code_of, arg);
}

void tb_dtc_free(tb_table *t)
{
    for (int s = 0; s < 2; s++) {
        free(t->dtc[s]);
        free(t->dtc8[s].code);
        free(t->dtc8[s].wide_at);
        free(t->dtc8[s].wide);
        t->dtc[s] = NULL;
        t->dtc8[s] = (tb_dtc8){0};
    }
}
