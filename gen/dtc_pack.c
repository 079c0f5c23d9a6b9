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
#include "parallel.h"
#include "tb.h"

_Static_assert(DTC_NONE == 0xFFFF, "tb_dtc returns DTC_NONE for TB_DTC8_NONE");
_Static_assert((unsigned)DTC_NONE == (unsigned)XQF_DTC_NONE && (unsigned)DTC_BEYOND == (unsigned)XQF_DTC_BEYOND,
               "tb_dtc_slim_code gives dtc.h's codes");

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

static uint64_t count_wide(uint64_t first, uint64_t end, tb_dtc_code_fn code_of, const void *arg)
{
    uint64_t nwide = 0;
    for (uint64_t i = first; i < end; i++) nwide += !fits_byte(code_of(arg, i));
    return nwide;
}

/* Allocates p's list for nwide wide codes, p->code left NULL.  0, or -1
 * (p then empty). */
static int alloc_wide(tb_dtc8 *p, uint64_t nwide)
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
    return 0;
}

/* Packs the codes of entries [first, end) into code[], their wide ones
 * listed from p's k-th on.  Entry i's byte is written only after its code
 * is read, so code may be the memory code_of reads, as long as entry i's
 * code lies at or above byte i (a byte array of the same entries, or a
 * two-byte one read by one thread from the first entry up). */
static void fill_packed(tb_dtc8 *p, uint8_t *code, uint64_t first, uint64_t end, uint64_t k, tb_dtc_code_fn code_of,
                        const void *arg)
{
    for (uint64_t i = first; i < end; i++) {
        unsigned v = code_of(arg, i);
        if (!fits_byte(v)) {
            p->wide_at[k] = i;
            p->wide[k++] = (uint16_t)v;
        }
        code[i] = (uint8_t)(v == DTC_NONE ? TB_DTC8_NONE : fits_byte(v) ? v : TB_DTC8_WIDE);
    }
}

/* tb_dtc_pack_from's parallel passes work in chunks of this many entries,
 * fixed so that the list's order, and so the table, does not depend on
 * the threads: the first counts each chunk's wide codes, the second packs
 * each chunk and lists its wide codes from where the chunks before it end. */
enum { PACK_CHUNK = 1 << 16 };

typedef struct {
    tb_dtc8 *p;
    uint8_t *code;
    uint64_t n;
    uint64_t *start; /* chunk j's wide codes: the count, then where they start in the list */
    tb_dtc_code_fn code_of;
    const void *arg;
} pack_job;

static uint64_t chunk_end(const pack_job *j, uint64_t chunk)
{
    return (chunk + 1) * PACK_CHUNK < j->n ? (chunk + 1) * PACK_CHUNK : j->n;
}

static void count_chunks(void *arg, uint64_t begin, uint64_t end, int thread)
{
    pack_job *j = arg;
    (void)thread;
    for (uint64_t c = begin; c < end; c++)
        j->start[c] = count_wide(c * PACK_CHUNK, chunk_end(j, c), j->code_of, j->arg);
}

static void fill_chunks(void *arg, uint64_t begin, uint64_t end, int thread)
{
    pack_job *j = arg;
    (void)thread;
    for (uint64_t c = begin; c < end; c++)
        fill_packed(j->p, j->code, c * PACK_CHUNK, chunk_end(j, c), j->start[c], j->code_of, j->arg);
}

int tb_dtc_pack_from(tb_table *t, int side, uint8_t *bytes, tb_dtc_code_fn code_of, const void *arg, int threads)
{
    uint64_t n = t->ix.size, chunks = (n + PACK_CHUNK - 1) / PACK_CHUNK, nwide = 0;
    uint64_t *start = malloc((chunks ? chunks : 1) * sizeof *start);
    if (!start) return -1;
    pack_job j = {&t->dtc8[side], bytes, n, start, code_of, arg};
    par_for(threads, chunks, 1, count_chunks, &j);
    for (uint64_t c = 0; c < chunks; c++) {
        uint64_t k = start[c];
        start[c] = nwide;
        nwide += k;
    }
    int rc = nwide > n / 16 ? 1 : alloc_wide(&t->dtc8[side], nwide);
    if (rc == 0) {
        par_for(threads, chunks, 1, fill_chunks, &j);
        t->dtc8[side].code = bytes;
    }
    free(start);
    return rc;
}

static unsigned code16(const void *arg, uint64_t i) { return ((const uint16_t *)arg)[i]; }

static void pack_side(tb_table *t, int side)
{
    uint16_t *d = t->dtc[side];
    uint64_t n = t->ix.size, nwide = count_wide(0, n, code16, d);
    if (nwide > n / 16) return;
    tb_dtc8 p;
    if (alloc_wide(&p, nwide)) return;
    /* in place, on one thread: byte i is written after the code at bytes
     * 2i and 2i+1 is read, and bytes below 2i hold codes already read */
    fill_packed(&p, (uint8_t *)d, 0, n, 0, code16, d);
    p.code = (uint8_t *)d;
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

/* Frees side's DTC codes, packed or not (not its slim bits). */
static void free_codes(tb_table *t, int side)
{
    free(t->dtc[side]);
    free(t->dtc8[side].code);
    free(t->dtc8[side].wide_at);
    free(t->dtc8[side].wide);
    t->dtc[side] = NULL;
    t->dtc8[side] = (tb_dtc8){0};
}

void tb_dtc_free_side(tb_table *t, int side)
{
    free_codes(t, side);
    free(t->beyond[side]);
    t->beyond[side] = NULL;
}

void tb_dtc_free(tb_table *t)
{
    for (int s = 0; s < 2; s++) tb_dtc_free_side(t, s);
}

void tb_dtc_slim(tb_table *t)
{
    uint64_t n = t->ix.size, words = n / 64 + 1;
    for (int side = 0; side < 2; side++) {
        if (!t->cells[side] || (!t->dtc[side] && !t->dtc8[side].code)) continue; /* dropped, slim, or none */
        uint64_t *bits = calloc(words, sizeof *bits);
        if (!bits) continue;
        for (uint64_t i = 0; i < n; i++) {
            unsigned d = tb_dtc(t, side, i);
            if (d != DTC_NONE && dtc_beyond(d)) bits[i >> 6] |= (uint64_t)1 << (i & 63);
        }
        free_codes(t, side);
        t->beyond[side] = bits;
    }
}
