/*
 * compress.c - the compressed WDL, DTM and DTC files.
 *
 * What makes the data compress (measured in docs/BENCHMARKS.md):
 *   - illegal and broken entries are "don't care": no reader looks them up,
 *     so they take the symbol of the entry before them (a run continues
 *     instead of being broken by noise);
 *   - DTM values are replaced by their rank in a frequency table, so the
 *     common values are small numbers and LZ4's matches repeat more;
 *   - WDL needs only 2 bits an entry, packed four to a byte, and an entry
 *     whose value a capture reaches may hold anything up to that value
 *     (the reader searches the captures), so it continues the run too;
 *   - in DTM and DTC files, one side to move is "searched": its entries
 *     whose value the reader can recompute by a one-ply search over the
 *     other side's entries and the subtables say only XQF_SEARCH, and only
 *     the others (results of the repetition rulings, cursed wins and
 *     blessed losses) keep their values.  This is Syzygy's way with DTZ;
 *     the side chosen is the one whose stored symbols compress worse.
 * Blocks are compressed independently (Zstandard by default, LZ4HC on
 * request), so a reader decompresses only the block it needs.
 */
#include "compress.h"

#include <errno.h>
#include <lz4.h>
#include <lz4hc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
/* for ZDICT_optimizeTrainFromBuffer_fastCover (train_dict) */
#define ZDICT_STATIC_LINKING_ONLY
#include <zdict.h>
/* for ZSTD_estimateCCtxSize_usingCParams (codec_state_bytes) */
#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>

#include "atomic_file.h"
#include "cell.h"
#include "dtc.h"
#include "movegen.h"
#include "parallel.h"
#include "searched.h"
#include "tbformat.h"

void tb_compressed_path(const char *dir, const xq_material *m, int kind, char *buf, size_t len)
{
    char name[XQ_MATERIAL_MAX];
    xq_material_name(m, name);
    xqf_path(dir, name, kind, buf, len);
}

/* ---- symbols ------------------------------------------------------------ */
typedef struct {
    const tb_table *t;
    int kind;
    uint32_t symbol_bytes;         /* 0 = 2-bit WDL */
    uint16_t map[XQF_MAX_SYMBOLS]; /* symbol -> DTM-map value */
    uint32_t nsymbols;
    uint32_t *rank;                 /* a code's slot (code_slot) -> symbol (DTM, DTC) */
    int searched;                   /* side to move whose entries may be XQF_SEARCH, -1 none */
    unsigned fill;                  /* code of a block without a legal entry (encode_block) */
    const struct kind_facts *facts; /* what write_wdl or write_kind worked out for the kind */
} symbol_coder;

/* What an entry stores, as one code: for WDL and DTM its cell code, or for
 * a result the repetition rulings decided, RULED_CODE + its ruled byte
 * (cell.h); for DTC, DTC_CODE + its DTC code (dtc.h).  Illegal entries are
 * CELL_ILLEGAL in every kind. */
enum {
    RULED_CODE = 0x10000,
    DTC_CODE = 0x20000,
    SEARCH_CODE = DTC_CODE + 0x10000, /* XQF_SEARCH */
    SEARCH_RULED_CODE,                /* XQF_SEARCH_RULED */
    SEARCH_ANY_CODE,                  /* either, chosen by encode_block; counted as SEARCH_CODE */
};

/* Codes are counted and ranked in a denser space of slots: a DTM file's
 * codes are cell codes, ruled ones (a byte) and the two search codes, a
 * DTC file's CELL_ILLEGAL, distances (never CELL_ILLEGAL's value: dtc.h)
 * and SEARCH_CODE, so one kind's codes never share a slot, and slots keep
 * the codes' order. */
enum { RULED_SLOT = 0x10000, SEARCH_SLOT = RULED_SLOT + 0x100, SEARCH_RULED_SLOT, SLOTS };

static inline uint32_t code_slot(unsigned code)
{
    if (code < RULED_CODE) return code;
    if (code < DTC_CODE) return RULED_SLOT + (code - RULED_CODE);
    return code < SEARCH_CODE ? code - DTC_CODE : SEARCH_SLOT + (code - SEARCH_CODE);
}

static unsigned slot_code(int kind, uint32_t slot)
{
    if (slot >= SEARCH_SLOT) return SEARCH_CODE + (slot - SEARCH_SLOT);
    if (kind == XQF_KIND_DTC) return slot == CELL_ILLEGAL ? CELL_ILLEGAL : DTC_CODE + slot;
    return slot < RULED_SLOT ? slot : RULED_CODE + (slot - RULED_SLOT);
}

static inline __attribute__((always_inline)) unsigned entry_code(const tb_table *t, int kind, int side, uint64_t i)
{
    unsigned v = cell_get(t->cells[side], t->width, i);
    if (v == CELL_ILLEGAL) return v;
    if (kind == XQF_KIND_DTC) return DTC_CODE + tb_dtc(t, side, i);
    unsigned r = v == CELL_DRAW ? tb_ruled(t, side, i) : RULED_NONE;
    if (r != RULED_NONE) return RULED_CODE + r;
    return v;
}

/* What an entry of the searched side stores where a reader's one-ply
 * search finds the value (docs/FORMAT.md, "Searched entries"): in a DTM
 * file, SEARCH_RULED_CODE for a win by a ruling, SEARCH_CODE for an
 * ordinary win, and SEARCH_ANY_CODE (either, as encode_block likes) for
 * the rest, which are no ordinary win, and for illegal entries, which no
 * reader looks up; in a DTC file, SEARCH_CODE.  The entry's own code where
 * the search does not find it.  The search rests on the Bellman conditions
 * tb_verify checks (verify.c): the DTM of a position that is not ruled
 * follows from its successors' DTMs with ruled results read as draws, and
 * a DTC that holds from its successors' WDL and DTC, as does "none" for a
 * result of the rulings (no successor of a ruled win is an ordinary loss,
 * some successor of a ruled loss is not an ordinary win).  The DTM of a ruled result (its
 * order, its ruling) is found where searched.c says so; the others, and
 * the DTC of a cursed win or a blessed loss (a distance of another kind),
 * keep their values.  It follows from the entry's own code (entry_code)
 * and whether the search finds its ruled result. */
static inline __attribute__((always_inline)) unsigned searched_of(int kind, unsigned code, int found)
{
    if (code == CELL_ILLEGAL) return kind == XQF_KIND_DTM ? SEARCH_ANY_CODE : SEARCH_CODE;
    if (kind == XQF_KIND_DTC) return dtc_beyond(code - DTC_CODE) ? code : SEARCH_CODE;
    if (code >= RULED_CODE) /* a ruled result */
        return !found ? code : ruled_is_win(code - RULED_CODE) ? SEARCH_RULED_CODE : SEARCH_ANY_CODE;
    return cell_is_win(code) ? SEARCH_CODE : SEARCH_ANY_CODE;
}

/* Whether searched.h's bitmaps (NULL: none) say the search finds the
 * ruled result of entry i of `side`. */
static inline int found_by_search(uint8_t *const *found, int side, uint64_t i)
{
    return found && (found[side][i / 8] >> (i % 8) & 1);
}

static inline __attribute__((always_inline)) unsigned searched_code(const tb_table *t, int kind, uint8_t *const *found,
                                                                    int side, uint64_t i)
{
    return searched_of(kind, entry_code(t, kind, side, i), found_by_search(found, side, i));
}

static inline unsigned wdl_symbol(unsigned code)
{
    if (code >= RULED_CODE) return ruled_is_win(code - RULED_CODE) ? XQF_WDL_WIN : XQF_WDL_LOSS;
    return code == CELL_DRAW ? XQF_WDL_DRAW : (code & 1) ? XQF_WDL_WIN : XQF_WDL_LOSS;
}

/* The DTM-map value of an entry code (tbformat.h). */
static uint16_t map_value(unsigned code)
{
    if (code == SEARCH_CODE) return XQF_SEARCH;
    if (code == SEARCH_RULED_CODE) return XQF_SEARCH_RULED;
    if (code >= DTC_CODE) return (uint16_t)(code - DTC_CODE);
    if (code == CELL_DRAW) return XQF_DTM_DRAW;
    if (code >= RULED_CODE) return (uint16_t)(XQF_DTM_RULED | (code - RULED_CODE));
    return (uint16_t)code;
}

/* What is worked out once for one kind's entries and serves every set of
 * blocks built for it: write_kind builds a sample for each choice of the
 * searched side and then the file, write_wdl samples at one or two block
 * sizes, with and without a dictionary, before the file. */
typedef struct kind_facts {
    const tb_table *t;
    int kind;
    uint8_t *const *found; /* DTM: searched.h's bitmaps, or NULL: ruled results the search finds */
    /* DTM and DTC: how often each entry code occurs, per side to move, as
     * the entries store it and as they would if that side were searched;
     * a file's symbols are ranked by the counts of the side it stores and
     * of the side it searches */
    uint64_t *n[2][2]; /* [side][0: stored, 1: searched] */
    /* the blocks counted: those numbered k % every == 0 of block_entries
     * entries (every 1: all entries) */
    uint32_t block_entries, every;
    /* WDL: per entry, two bits (REACH_*): whether a capture reaches the
     * entry's value (capture_wdl), 0 until looked at.  A block's entries
     * fill whole bytes (its size is a multiple of 4), so the thread that
     * encodes it writes them alone. */
    uint8_t *reach[2];
} kind_facts;

enum { REACH_YES = 1, REACH_NO = 2 };

/* Adds entries [first, end) of one side to its two histograms.  Codes
 * come in runs: a run is counted when it ends, sparing the histograms an
 * increment of the same counter every entry. */
static inline __attribute__((always_inline)) void count_kind(const kind_facts *f, int kind, int side, uint64_t first,
                                                             uint64_t end, uint64_t *stored, uint64_t *searched)
{
    const tb_table *t = f->t;
    uint32_t run_slot[2] = {0, 0};
    uint64_t run[2] = {0, 0};
    for (uint64_t i = first; i < end; i++) {
        unsigned code = entry_code(t, kind, side, i);
        unsigned sc = searched_of(kind, code, found_by_search(f->found, side, i));
        uint32_t slot[2] = {code_slot(code), code_slot(sc == SEARCH_ANY_CODE ? SEARCH_CODE : sc)};
        for (int k = 0; k < 2; k++) {
            if (slot[k] != run_slot[k]) {
                (k ? searched : stored)[run_slot[k]] += run[k];
                run_slot[k] = slot[k];
                run[k] = 0;
            }
            run[k]++;
        }
    }
    stored[run_slot[0]] += run[0];
    searched[run_slot[1]] += run[1];
}

/* count_kind with the kind a constant, which spares every entry its
 * tests of the kind: KRPKR's counts took a half (DTM) to a third (DTC)
 * of their time. */
static void count_entries(const kind_facts *f, int side, uint64_t first, uint64_t end, uint64_t *stored,
                          uint64_t *searched)
{
    if (f->kind == XQF_KIND_DTC)
        count_kind(f, XQF_KIND_DTC, side, first, end, stored, searched);
    else
        count_kind(f, XQF_KIND_DTM, side, first, end, stored, searched);
}

/* One side's two histograms, over the blocks counted: each side is one
 * task, so the counts do not depend on the threads (two tasks: a third
 * thread would idle). */
static void count_side(void *arg, uint64_t begin, uint64_t end, int thread)
{
    (void)thread;
    kind_facts *f = arg;
    uint64_t size = f->t->ix.size;
    /* every 1: one span of the whole side (block_entries may be 0 then) */
    uint64_t span = f->every == 1 ? size : f->block_entries, step = span * f->every;
    for (uint64_t s = begin; s < end; s++)
        for (uint64_t first = 0; first < size; first += step) {
            uint64_t last = size - first < span ? size : first + span;
            count_entries(f, (int)s, first, last, f->n[s][0], f->n[s][1]);
        }
}

static void kind_facts_free(kind_facts *f)
{
    for (int s = 0; s < 2; s++) {
        for (int k = 0; k < 2; k++) free(f->n[s][k]);
        free(f->reach[s]);
    }
    memset(f, 0, sizeof *f);
}

/* Counts the codes of a DTM or DTC kind in the blocks of block_entries
 * numbered k % every == 0 (every 1: all entries). */
static void kind_facts_count(kind_facts *f, uint32_t block_entries, uint32_t every, int threads)
{
    f->block_entries = block_entries;
    f->every = every > 1 ? every : 1;
    for (int s = 0; s < 2; s++)
        for (int k = 0; k < 2; k++) memset(f->n[s][k], 0, SLOTS * sizeof(uint64_t));
    par_for(threads, 2, 1, count_side, f);
}

/* Counts the codes of a DTM or DTC kind as kind_facts_count does; makes
 * WDL's capture memo. */
static int kind_facts_init(kind_facts *f, const tb_table *t, int kind, uint8_t *const *found, uint32_t block_entries,
                           uint32_t every, int threads)
{
    memset(f, 0, sizeof *f);
    f->t = t;
    f->kind = kind;
    f->found = found;
    int ok = 1;
    for (int s = 0; s < 2; s++)
        if (kind == XQF_KIND_WDL)
            ok &= (f->reach[s] = calloc((t->ix.size + 3) / 4, 1)) != NULL;
        else
            for (int k = 0; k < 2; k++) ok &= (f->n[s][k] = calloc(SLOTS, sizeof(uint64_t))) != NULL;
    if (!ok) {
        kind_facts_free(f);
        return -1;
    }
    if (kind != XQF_KIND_WDL) kind_facts_count(f, block_entries, every, threads);
    return 0;
}

/* Bytes kind_facts_init allocates. */
static uint64_t kind_facts_bytes(uint64_t entries, int kind)
{
    return kind == XQF_KIND_WDL ? 2 * ((entries + 3) / 4) : 4 * (uint64_t)SLOTS * sizeof(uint64_t);
}

/* What entry i of `side` stores in the file: searched says whether side
 * is the searched one. */
static inline __attribute__((always_inline)) unsigned code_as(const symbol_coder *c, int kind, int searched, int side,
                                                              uint64_t i)
{
    return searched ? searched_code(c->t, kind, c->facts->found, side, i) : entry_code(c->t, kind, side, i);
}

/* Orders DTM values by how often they occur in the file (ties by value),
 * so that the common ones get the small symbols. */
static int coder_init(symbol_coder *c, int searched, const kind_facts *f)
{
    memset(c, 0, sizeof *c);
    c->t = f->t;
    int kind = c->kind = f->kind;
    c->searched = kind == XQF_KIND_WDL ? -1 : searched;
    c->facts = f;
    if (kind == XQF_KIND_WDL) return 0;
    uint64_t *count = calloc(SLOTS, sizeof *count);
    c->rank = calloc(SLOTS, sizeof *c->rank);
    if (!count || !c->rank) {
        free(count);
        return -1;
    }
    for (uint32_t v = 0; v < SLOTS; v++) count[v] = f->n[0][c->searched == 0][v] + f->n[1][c->searched == 1][v];
    count[CELL_ILLEGAL] = 0;
    for (uint32_t v = XQF_DTM_RULED; v < RULED_CODE && kind == XQF_KIND_DTM; v++)
        if (count[v] && v < CELL_DRAW) { /* a DTM the map could not tell from a ruled value */
            free(count);
            return -1;
        }
    if (kind == XQF_KIND_DTM) count[CELL_UNKNOWN] = 0; /* in a DTC file, DTC_NONE's slot */
    uint32_t *order = malloc(SLOTS * sizeof *order), n = 0;
    if (!order) {
        free(count);
        return -1;
    }
    for (uint32_t v = 0; v < SLOTS; v++)
        if (count[v]) order[n++] = v;
    /* insertion sort would do for typical tables, but M can reach 65533 */
    for (uint32_t gap = n / 2; gap > 0; gap /= 2)
        for (uint32_t i = gap; i < n; i++)
            for (uint32_t j = i; j >= gap; j -= gap) {
                uint32_t a = order[j - gap], b = order[j];
                if (count[a] > count[b] || (count[a] == count[b] && a < b)) break;
                order[j - gap] = b;
                order[j] = a;
            }
    for (uint32_t k = 0; k < n; k++) {
        c->map[k] = map_value(slot_code(kind, order[k]));
        c->rank[order[k]] = k;
    }
    /* A block without a legal entry holds a draw (DTC: "none"), or where
     * no entry holds one, the commonest value: a code without a symbol
     * would come out as symbol 0, "search" in most files, which is damage
     * in the stored side (`check --deep` found it in KRNK's files). */
    c->fill = kind == XQF_KIND_DTC ? DTC_CODE + DTC_NONE : CELL_DRAW;
    for (uint32_t k = 0; k < n && !count[code_slot(c->fill)]; k++)
        if (order[k] < SEARCH_SLOT) {
            c->fill = slot_code(kind, order[k]);
            break;
        }
    c->nsymbols = n ? n : 1;
    c->symbol_bytes = c->nsymbols <= 256 ? 1 : 2;
    free(order);
    free(count);
    return 0;
}

static void coder_free(symbol_coder *c) { free(c->rank); }

/* The best WDL symbol the side to move reaches by a capture from legal
 * entry i of `side`, or -1 without one: what a reader's capture search
 * finds (docs/FORMAT.md, "Captures in WDL files").  Stops once it reaches
 * `enough`.  b and site carry a block's scan from one call to the next
 * (xq_index_decode_next). */
static int capture_wdl(const tb_table *t, xq_board *b, xq_index_site *site, int side, uint64_t i, int enough)
{
    xq_index_decode_next(&t->ix, i, b, site);
    b->side = (uint8_t)side;
    xq_move list[XQ_MAX_MOVES];
    int n = xq_gen_captures(b, list), best = -1;
    for (int k = 0; k < n && best < enough; k++) {
        unsigned ruled, v = tb_successor_cell_at(t, b, site, list[k], &ruled);
        unsigned code = v == CELL_DRAW && ruled != RULED_NONE ? RULED_CODE + ruled : v;
        int w = XQF_WDL_WIN - (int)wdl_symbol(code);
        if (w > best) best = w;
    }
    return best;
}

/* Whether a capture from entry i of `side` reaches its WDL symbol sym,
 * looked up once an entry (kind_facts.reach). */
static int capture_reaches(const symbol_coder *c, xq_board *b, xq_index_site *site, int side, uint64_t i, int sym)
{
    uint8_t *byte = &c->facts->reach[side][i / 4];
    int shift = 2 * (int)(i % 4), known = *byte >> shift & 3;
    if (!known) {
        known = capture_wdl(c->t, b, site, side, i, sym) == sym ? REACH_YES : REACH_NO;
        *byte |= (uint8_t)(known << shift);
    }
    return known == REACH_YES;
}

/* The WDL symbol of entry i of `side` (wdl_symbol of its entry_code), -1
 * for an illegal or unknown entry, with the cells' width a constant and
 * `ruled` whether the table has results of the rulings.  Encoding through
 * the coder's generic entry code, which tests the kind, the side's role
 * and the width every entry, took half of KRNKN's WDL file's
 * instructions, 3.72 G, and 1.73 G so (docs/BENCHMARKS.md, "WDL blocks by
 * lazy matching"). */
static inline __attribute__((always_inline)) int wdl_entry_symbol(const tb_table *t, int width, int ruled, int side,
                                                                  uint64_t i)
{
    unsigned v = width == 1 ? ((const uint8_t *)t->cells[side])[i] : ((const uint16_t *)t->cells[side])[i];
    unsigned draw = width == 1 ? CELL8_DRAW : CELL16_DRAW;
    if (v < draw) return (int)wdl_symbol(v);
    if (v != draw) return -1; /* illegal or unknown */
    unsigned r = ruled ? tb_ruled(t, side, i) : RULED_NONE;
    return (int)wdl_symbol(r == RULED_NONE ? CELL_DRAW : RULED_CODE + r);
}

/* WDL symbols of entries [first, first+n) of one side, four to a byte.  A
 * reader takes the better of an entry's symbol and the best capture's
 * value, so where a capture already reaches the entry's value, any symbol
 * up to that value is right: the writer keeps the run of the entry before
 * it going when it can (an entry whose value a capture gives is "don't
 * care" from below, as Syzygy's WDL files treat captures).  Illegal
 * entries continue the run as well.  The table is finished: its cells are
 * read without the atomic loads of cell_get. */
static inline __attribute__((always_inline)) void encode_wdl_entries(const symbol_coder *c, int width, int ruled,
                                                                     int side, uint64_t first, uint64_t n, uint8_t *out)
{
    const tb_table *t = c->t;
    int prev = -1;
    for (uint64_t i = first; i < first + n && prev < 0; i++) prev = wdl_entry_symbol(t, width, ruled, side, i);
    if (prev < 0) prev = XQF_WDL_DRAW;
    xq_board b;
    xq_index_site site;
    xq_index_site_clear(&site);
    unsigned byte = 0;
    for (uint64_t k = 0; k < n; k++) {
        int sym = wdl_entry_symbol(t, width, ruled, side, first + k);
        if (sym < 0)
            sym = prev;
        else if (prev < sym && capture_reaches(c, &b, &site, side, first + k, sym))
            sym = prev;
        prev = sym;
        byte |= (unsigned)sym << (2 * (k % 4));
        if (k % 4 == 3 || k + 1 == n) {
            out[k / 4] = (uint8_t)byte;
            byte = 0;
        }
    }
}

static void encode_wdl_block(const symbol_coder *c, int side, uint64_t first, uint64_t n, uint8_t *out)
{
    int ruled = tb_has_ruled(c->t);
    if (c->t->width == 1)
        ruled ? encode_wdl_entries(c, 1, 1, side, first, n, out) : encode_wdl_entries(c, 1, 0, side, first, n, out);
    else
        ruled ? encode_wdl_entries(c, 2, 1, side, first, n, out) : encode_wdl_entries(c, 2, 0, side, first, n, out);
}

/* A DTM or DTC block's symbols, entries [first, first+n) of one side,
 * with the kind, whether the side is searched and the symbols' width
 * constants: encode_block compiles it for each, which spares every entry
 * the tests of all three (docs/BENCHMARKS.md, "Compression's training
 * and encoding, cheaper"). */
static inline __attribute__((always_inline)) void encode_kind(const symbol_coder *c, int kind, int searched, int wide,
                                                              int side, uint64_t first, uint64_t n, uint8_t *out)
{
    unsigned prev = CELL_UNKNOWN;
    /* start the don't-care fill with the block's first legal value */
    for (uint64_t i = first; i < first + n && prev == CELL_UNKNOWN; i++) {
        unsigned v = code_as(c, kind, searched, side, i);
        if (v != CELL_ILLEGAL && v != SEARCH_ANY_CODE) prev = v;
    }
    if (prev == CELL_UNKNOWN) prev = c->fill;
    for (uint64_t k = 0; k < n; k++) {
        unsigned v = code_as(c, kind, searched, side, first + k);
        /* either search symbol, whichever continues the run */
        if (v == SEARCH_ANY_CODE)
            v = prev = prev == SEARCH_RULED_CODE ? prev : SEARCH_CODE;
        else if (v == CELL_ILLEGAL || v == CELL_UNKNOWN)
            v = prev;
        else
            prev = v;
        uint32_t s = c->rank[code_slot(v)];
        if (!wide) {
            out[k] = (uint8_t)s;
        } else {
            out[2 * k] = (uint8_t)s;
            out[2 * k + 1] = (uint8_t)(s >> 8);
        }
    }
}

/* Symbols of entries [first, first+n) of one side, packed as stored. */
static void encode_block(const symbol_coder *c, int side, uint64_t first, uint64_t n, uint8_t *out)
{
    if (c->symbol_bytes == 0) {
        encode_wdl_block(c, side, first, n, out);
        return;
    }
    int searched = side == c->searched, wide = c->symbol_bytes == 2;
    switch ((c->kind == XQF_KIND_DTC) << 2 | searched << 1 | wide) {
    case 0: encode_kind(c, XQF_KIND_DTM, 0, 0, side, first, n, out); break;
    case 1: encode_kind(c, XQF_KIND_DTM, 0, 1, side, first, n, out); break;
    case 2: encode_kind(c, XQF_KIND_DTM, 1, 0, side, first, n, out); break;
    case 3: encode_kind(c, XQF_KIND_DTM, 1, 1, side, first, n, out); break;
    case 4: encode_kind(c, XQF_KIND_DTC, 0, 0, side, first, n, out); break;
    case 5: encode_kind(c, XQF_KIND_DTC, 0, 1, side, first, n, out); break;
    case 6: encode_kind(c, XQF_KIND_DTC, 1, 0, side, first, n, out); break;
    default: encode_kind(c, XQF_KIND_DTC, 1, 1, side, first, n, out); break;
    }
}

int tb_symbol_stream(const tb_table *t, int kind, int side, uint32_t block_entries, uint8_t *out)
{
    symbol_coder *c = malloc(sizeof *c);
    kind_facts f;
    if (!c || kind_facts_init(&f, t, kind, NULL, 0, 1, 1)) {
        free(c);
        return -1;
    }
    if (coder_init(c, -1, &f)) {
        kind_facts_free(&f);
        free(c);
        return -1;
    }
    uint64_t per = xqf_block_bytes(c->symbol_bytes, block_entries);
    for (uint64_t i = 0, b = 0; i < t->ix.size; i += block_entries, b++) {
        uint64_t n = t->ix.size - i < block_entries ? t->ix.size - i : block_entries;
        encode_block(c, side, i, n, out + b * per);
    }
    int sb = (int)c->symbol_bytes;
    coder_free(c);
    free(c);
    kind_facts_free(&f);
    return sb;
}

/* ---- search bounds ------------------------------------------------------ */

/* Folds one encoded block of the stored side, entries [first, first + n),
 * into raw search bounds (tbformat.h): over the values as the block holds
 * them, fillers included, so that a reader can recompute them. */
static void fold_block_bounds(const symbol_coder *c, uint64_t first, uint64_t n, const uint8_t *block, uint8_t *raw)
{
    /* Every bound is a least or greatest value or a flag cleared, so a
     * value folded into its group a second time changes nothing: an entry
     * with the symbol and the group of the one before it is skipped (the
     * symbols come in runs). */
    unsigned shift = xqf_bounds_shift(c->kind);
    uint32_t last = UINT32_MAX;
    uint64_t last_group = UINT64_MAX;
    for (uint64_t k = 0; k < n; k++) {
        uint32_t sym = c->symbol_bytes == 1 ? block[k] : (uint32_t)block[2 * k] | (uint32_t)block[2 * k + 1] << 8;
        uint64_t group = (first + k) >> shift;
        if (sym == last && group == last_group) continue;
        last = sym;
        last_group = group;
        xqf_bounds_fold(raw, c->kind, c->t->ix.size, first + k, c->map[sym]);
    }
}

/* Whether blocks of block_entries can be folded into the bounds by
 * several threads at once: each block then covers whole bytes of every
 * bounds array (a group's bytes, and the all-hold bits, 8 groups a byte). */
static int bounds_foldable(int kind, uint32_t block_entries)
{
    return block_entries % (8 * xqf_bounds_group(kind)) == 0;
}

/* ---- blocks ------------------------------------------------------------- */
typedef struct {
    const symbol_coder *coder;
    uint32_t block_entries, blocks; /* per side */
    uint32_t every;                 /* compress blocks k % blocks % every == 0 only (1: all) */
    int side;                       /* and of that side to move only, -1 both */
    int codec, level;
    const ZSTD_CDict *cdict; /* the file's dictionary, digested; NULL for none */
    uint8_t **data;          /* compressed block k */
    uint32_t *size;
    ZSTD_CCtx *cctx[PAR_MAX_THREADS]; /* per thread, made at its first block */
    uint8_t tuned[PAR_MAX_THREADS];   /* 1 + the side's role (0 stored, 1 searched) a context is set for, 0 none */
    /* the search bounds (search_bounds), folded from the stored side's
     * blocks as they are encoded; NULL where not wanted or not foldable
     * in parallel (bounds_foldable) */
    uint8_t *bounds;
    uint32_t bounds_frame; /* bytes of bounds a frame, 0 = BOUNDS_FRAME_BYTES */
    int failed;
} block_job;

/* Most bytes a compressed block of raw_cap symbol bytes can take. */
static uint64_t compressed_bound(int codec, uint64_t raw_cap)
{
    return codec == XQF_CODEC_ZSTD ? ZSTD_compressBound((size_t)raw_cap) : (uint64_t)LZ4_compressBound((int)raw_cap);
}

/* Zstandard's search at level 12 for DTM and DTC blocks, by measurement
 * on the 4096-entry blocks of ten large tables (docs/BENCHMARKS.md,
 * "Zstandard's search narrowed where bytes allow"): the optimal parser's
 * binary-tree search (searchLog, 4 at level 12) is most of its time.  A
 * DTC file's blocks at searchLog 1 took 40% less of Zstandard's time for
 * 3.5% more bytes (at 2: 31% less, 1.9% more); a DTM file's searched side
 * at searchLog 2 and a target length of 48 (24 at level 12: the parser
 * stops looking past a match that long) 34% less for 1.1% more.  A DTM
 * file's stored side keeps level 12 as it is: searchLog 2 saved 18% there
 * for 1.3% more bytes, which would take KRPKR's DTM file above the peer's.
 *
 * DTC blocks, at searchLog 2, and a DTM file's searched side take no
 * match shorter than 6 bytes (3 at level 12): fewer, longer sequences,
 * which is what a block's decoding spends most of its time on
 * (ZSTD_decompressSequences), and fewer bytes too on long runs of the same
 * symbol.  KRPKR's and KRNKR's DTC files came out 5.4% and 4.4% smaller
 * than at searchLog 1 with short matches, their DTM files 0.6% and 0.5%,
 * for about the same compression instructions (KRPKR +0.2%), and a cold
 * exact DTC probe of KRNKR's searched side took 6.1% fewer instructions
 * (docs/BENCHMARKS.md, "Blocks without short matches").  On a DTM file's
 * stored side the same costs 2-4% of bytes, which KRPKR's DTM file
 * cannot spare. */
static int tune_search(ZSTD_CCtx *c, int kind, int searched)
{
    /* 0: the level's own value */
    int narrowed = kind == XQF_KIND_DTC || (kind == XQF_KIND_DTM && searched);
    int search_log = narrowed ? 2 : 0, min_match = narrowed ? 6 : 0;
    int target_length = kind == XQF_KIND_DTM && searched ? 48 : 0;
    return ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_searchLog, search_log)) ||
           ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_targetLength, target_length)) ||
           ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_minMatch, min_match));
}

/* Compresses n bytes at src into dst (cap bytes), a block of a side whose
 * role is `searched` (1: the searched side); the length, or 0 on failure.
 * Zstandard frames carry no checksum (each block has its XXH64 in the
 * file), no content size (the reader knows it) and no dictionary ID: 6-9
 * bytes a block saved; the file keeps them without their magic number, 4
 * more.  A thread's context is set again for a block of
 * the other role (a thread takes most of its blocks from one side, so
 * that is rare), which keeps one context a thread: a frame's output does
 * not depend on what the context compressed before. */
static size_t compress_one(block_job *j, int thread, int searched, const uint8_t *src, size_t n, uint8_t *dst,
                           size_t cap)
{
    if (j->codec == XQF_CODEC_LZ4) {
        int len = LZ4_compress_HC((const char *)src, (char *)dst, (int)n, (int)cap, j->level);
        return len > 0 ? (size_t)len : 0;
    }
    ZSTD_CCtx *c = j->cctx[thread];
    if (!c) {
        if (!(c = j->cctx[thread] = ZSTD_createCCtx())) return 0;
        if (ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, j->level)) ||
            ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_contentSizeFlag, 0)) ||
            ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 0)) ||
            ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_dictIDFlag, 0)) ||
            (j->cdict && ZSTD_isError(ZSTD_CCtx_refCDict(c, j->cdict))))
            return 0;
    }
    if (j->level == TB_ZSTD_LEVEL && !j->cdict && j->tuned[thread] != 1 + searched) {
        if (tune_search(c, j->coder->kind, searched)) return 0;
        j->tuned[thread] = (uint8_t)(1 + searched);
    }
    size_t len = ZSTD_compress2(c, dst, cap, src, n);
    /* the frame is stored without its magic number (docs/FORMAT.md: a
     * reader puts it back), 4 bytes every block of the file would repeat */
    if (ZSTD_isError(len) || len <= 4 || xqf_get32(dst) != ZSTD_MAGICNUMBER) return 0;
    memmove(dst, dst + 4, len - 4);
    return len - 4;
}

static void compress_blocks(void *arg, uint64_t begin, uint64_t end, int thread)
{
    block_job *j = arg;
    const tb_table *t = j->coder->t;
    uint64_t raw_cap = xqf_block_bytes(j->coder->symbol_bytes, j->block_entries);
    /* Each block is compressed into room for the codec's bound, then kept
     * at its own size: held at the bound until the file is written, the
     * blocks had each touched a page or two for a few hundred bytes
     * (KRKNC: about 50 MiB of its peak, which compression set). */
    size_t bound = (size_t)compressed_bound(j->codec, raw_cap);
    uint8_t *raw = malloc(raw_cap), *room = malloc(bound);
    for (uint64_t k = begin; k < end; k++) {
        int side = (int)(k / j->blocks);
        if (k % j->blocks % j->every || (j->side >= 0 && side != j->side)) continue;
        uint64_t first = (k % j->blocks) * j->block_entries;
        uint64_t n = t->ix.size - first < j->block_entries ? t->ix.size - first : j->block_entries;
        int fold = j->bounds && side != j->coder->searched;
        if (j->data[k]) { /* compressed in a sample (complete_kind): its bounds only */
            if (fold && raw) {
                encode_block(j->coder, side, first, n, raw);
                fold_block_bounds(j->coder, first, n, raw, j->bounds);
            } else if (fold) {
                __atomic_store_n(&j->failed, 1, __ATOMIC_RELAXED);
            }
            continue;
        }
        size_t len = 0;
        if (raw && room) {
            encode_block(j->coder, side, first, n, raw);
            if (fold) fold_block_bounds(j->coder, first, n, raw, j->bounds);
            len = compress_one(j, thread, side == j->coder->searched, raw,
                               (size_t)xqf_block_bytes(j->coder->symbol_bytes, n), room, bound);
        }
        uint8_t *dst = len ? malloc(len) : NULL;
        if (!dst) {
            __atomic_store_n(&j->failed, 1, __ATOMIC_RELAXED);
            continue;
        }
        memcpy(dst, room, len);
        j->data[k] = dst;
        j->size[k] = (uint32_t)len;
    }
    free(raw);
    free(room);
}

/* Longest DTC in plies (holding or not) of the legal entries, -1 if none:
 * the DTC file's "longest" header field, read off the codes' counts (of
 * every entry: the file's own, never a sample's). */
static int longest_dtc(const kind_facts *f)
{
    int longest = -1;
    for (int s = 0; s < 2; s++)
        for (uint32_t slot = 0; slot < SEARCH_SLOT; slot++) {
            unsigned code = slot_code(XQF_KIND_DTC, slot);
            if (f->n[s][0][slot] && code != CELL_ILLEGAL && code - DTC_CODE != DTC_NONE &&
                dtc_plies(code - DTC_CODE) > longest)
                longest = dtc_plies(code - DTC_CODE);
        }
    return longest;
}

/* One kind's compressed blocks, before they are written. */
typedef struct {
    symbol_coder *coder;
    block_job job;
    uint32_t blocks;        /* per side */
    uint64_t side_bytes[2]; /* compressed bytes of each side's blocks */
} kind_blocks;

static void kind_blocks_free(kind_blocks *kb)
{
    for (int i = 0; i < PAR_MAX_THREADS; i++) ZSTD_freeCCtx(kb->job.cctx[i]);
    for (uint64_t k = 0; kb->job.data && k < 2 * (uint64_t)kb->blocks; k++) free(kb->job.data[k]);
    free(kb->job.data);
    free(kb->job.size);
    free(kb->job.bounds);
    if (kb->coder) coder_free(kb->coder);
    free(kb->coder);
    memset(kb, 0, sizeof *kb);
}

/* build_kind's set-up: the coder and the job, nothing compressed. */
static int init_kind(const kind_facts *f, int searched, uint32_t block_entries, uint32_t every, int codec, int level,
                     const ZSTD_CDict *cdict, kind_blocks *kb, char err[XQ_ERR_MAX])
{
    const tb_table *t = f->t;
    memset(kb, 0, sizeof *kb);
    kb->coder = malloc(sizeof *kb->coder);
    if (!kb->coder || coder_init(kb->coder, searched, f)) {
        free(kb->coder);
        kb->coder = NULL;
        snprintf(err, XQ_ERR_MAX, "out of memory compressing");
        return -1;
    }
    kb->blocks = (uint32_t)((t->ix.size + block_entries - 1) / block_entries);
    uint64_t nblocks = 2 * (uint64_t)kb->blocks;
    kb->job = (block_job){.coder = kb->coder,
                          .block_entries = block_entries,
                          .blocks = kb->blocks,
                          .every = every,
                          .codec = codec,
                          .level = level,
                          .cdict = cdict,
                          .side = -1,
                          .data = calloc(nblocks, sizeof(uint8_t *)),
                          .size = calloc(nblocks, sizeof(uint32_t))};
    if (!kb->job.data || !kb->job.size) {
        kind_blocks_free(kb);
        snprintf(err, XQ_ERR_MAX, "out of memory compressing");
        return -1;
    }
    return 0;
}

/* Compresses the blocks of kb that its job picks (`every`, `side`) and
 * that are not compressed yet, then sums side_bytes; a whole file folds
 * its bounds (build_kind).  kb is freed on failure. */
static int run_blocks(const kind_facts *f, kind_blocks *kb, int threads, char err[XQ_ERR_MAX])
{
    uint64_t entries = f->t->ix.size, nblocks = 2 * (uint64_t)kb->blocks;
    int fold = kb->job.every == 1 && kb->job.side < 0 && f->kind != XQF_KIND_WDL && kb->coder->searched >= 0 &&
               bounds_foldable(f->kind, kb->job.block_entries);
    if (fold && (kb->job.bounds = malloc(xqf_bounds_raw_bytes(f->kind, entries))))
        xqf_bounds_clear(kb->job.bounds, f->kind, entries);
    if (fold && !kb->job.bounds) {
        kind_blocks_free(kb);
        snprintf(err, XQ_ERR_MAX, "out of memory compressing");
        return -1;
    }
    par_for(threads, nblocks, 1, compress_blocks, &kb->job);
    if (kb->job.failed) {
        kind_blocks_free(kb);
        snprintf(err, XQ_ERR_MAX, "out of memory (or a compressor failure) compressing");
        return -1;
    }
    kb->side_bytes[0] = kb->side_bytes[1] = 0;
    for (uint64_t k = 0; k < nblocks; k++) kb->side_bytes[k / kb->blocks] += kb->job.size[k];
    return 0;
}

/* Encodes and compresses the blocks of one kind, `searched` side to move
 * (or -1) holding XQF_SEARCH where it may: every block, or with every > 1
 * a sample (one block in `every` at the same places on both sides), whose
 * sizes side_bytes then sums.  A whole DTM or DTC file with a searched
 * side folds its search bounds on the way, where the block size lets the
 * threads share the work (otherwise search_bounds encodes the blocks a
 * second time). */
static int build_kind(const kind_facts *f, int searched, uint32_t block_entries, uint32_t every, int codec, int level,
                      const ZSTD_CDict *cdict, int threads, kind_blocks *kb, char err[XQ_ERR_MAX])
{
    return init_kind(f, searched, block_entries, every, codec, level, cdict, kb, err) ? -1
                                                                                      : run_blocks(f, kb, threads, err);
}

/* Makes a sample (every > 1, or one side) the whole file: the
 * blocks it lacks are compressed and the bounds folded, which gives the
 * bytes build_kind gives for every = 1 (the same coder, the same
 * settings for each block). */
static int complete_kind(const kind_facts *f, kind_blocks *kb, int threads, char err[XQ_ERR_MAX])
{
    if (kb->job.every == 1 && kb->job.side < 0) return 0;
    kb->job.every = 1;
    kb->job.side = -1;
    return run_blocks(f, kb, threads, err);
}

/* The search bounds are compressed as frames of BOUNDS_FRAME_BYTES each,
 * on every thread at once, and concatenated (a reader decompresses them as
 * one): a DTM file's bounds per 16 entries are 0.19 bytes an entry of its
 * stored side, 3.7 MB for KRPKR, which took Zstandard's level 12 0.19 s
 * in one frame on one thread, 6% of the table's compression.  Cut at
 * fixed places, the frames do not depend on the thread count; on KRPKR
 * they cost 2.4% of the bounds' bytes against one frame. */
enum { BOUNDS_FRAME_BYTES = 1 << 20 };

typedef struct {
    const uint8_t *raw;
    uint64_t raw_bytes, frame_bytes;
    uint8_t *room; /* frame k is compressed at room + k * slot */
    uint64_t slot; /* ZSTD_compressBound of a whole frame */
    size_t *len;   /* frame k's length */
    /* per thread, made at its first frame: ZSTD_compress makes and clears
     * a context for each call, whose tables at level 12 for a 1 MiB frame
     * are 16 MiB; that took half of the bounds' compression (KNCKN's DTM
     * bounds, 6.0 MB: 0.23 s against 0.11 s with one context reused, the
     * same bytes) */
    ZSTD_CCtx *cctx[PAR_MAX_THREADS];
    int failed;
} bounds_job;

static void compress_bounds_frames(void *arg, uint64_t begin, uint64_t end, int thread)
{
    bounds_job *j = arg;
    ZSTD_CCtx *c = j->cctx[thread] ? j->cctx[thread] : (j->cctx[thread] = ZSTD_createCCtx());
    for (uint64_t k = begin; k < end; k++) {
        uint64_t first = k * j->frame_bytes, n = j->raw_bytes - first;
        if (n > j->frame_bytes) n = j->frame_bytes;
        size_t got =
            c ? ZSTD_compressCCtx(c, j->room + k * j->slot, (size_t)j->slot, j->raw + first, (size_t)n, TB_ZSTD_LEVEL)
              : (size_t)-1;
        if (!c || ZSTD_isError(got))
            __atomic_store_n(&j->failed, 1, __ATOMIC_RELAXED);
        else
            j->len[k] = got;
    }
}

/* Compresses raw_bytes of bounds into *out (malloc'd, the frames moved
 * back to back in the room they were compressed in): the length, -1 on
 * failure (out of memory, or frames that add up to more than the format
 * allows, ZSTD_compressBound of the whole, which bounds never come near). */
static int64_t compress_bounds(const uint8_t *raw, uint64_t raw_bytes, uint64_t frame_bytes, int threads, uint8_t **out)
{
    uint64_t frames = (raw_bytes + frame_bytes - 1) / frame_bytes;
    uint64_t slot = ZSTD_compressBound(raw_bytes < frame_bytes ? (size_t)raw_bytes : (size_t)frame_bytes);
    bounds_job j = {.raw = raw,
                    .raw_bytes = raw_bytes,
                    .frame_bytes = frame_bytes,
                    .room = malloc(frames * slot),
                    .slot = slot,
                    .len = calloc(frames, sizeof(size_t))};
    int64_t total = -1;
    if (j.room && j.len) {
        par_for(threads, frames, 1, compress_bounds_frames, &j);
        for (int i = 0; i < PAR_MAX_THREADS; i++) ZSTD_freeCCtx(j.cctx[i]);
        uint64_t at = 0;
        for (uint64_t k = 0; k < frames; at += j.len[k++]) memmove(j.room + at, j.room + k * slot, j.len[k]);
        if (!j.failed && at <= ZSTD_compressBound((size_t)raw_bytes)) {
            *out = j.room;
            j.room = NULL;
            total = (int64_t)at;
        }
    }
    free(j.room);
    free(j.len);
    return total;
}

/* The search bounds of a DTM or DTC file with a searched side
 * (tbformat.h), over the stored side's values as its blocks hold them
 * (fillers included, so that a reader can recompute them), compressed into
 * *out (malloc'd): its length, or 0 for none (no searched side, WDL), -1
 * out of memory.  build_kind folded them already unless the block size
 * kept it from it. */
static int64_t search_bounds(const kind_blocks *kb, int kind, uint32_t block_entries, int threads, uint8_t **out)
{
    const symbol_coder *c = kb->coder;
    *out = NULL;
    if (kind == XQF_KIND_WDL || c->searched < 0) return 0;
    uint64_t n = c->t->ix.size, raw_bytes = xqf_bounds_raw_bytes(kind, n);
    uint8_t *raw = kb->job.bounds ? NULL : malloc(raw_bytes);
    uint8_t *block = kb->job.bounds ? NULL : malloc(xqf_block_bytes(c->symbol_bytes, block_entries));
    if (raw && block) {
        xqf_bounds_clear(raw, kind, n);
        for (uint64_t first = 0; first < n; first += block_entries) {
            uint64_t count = n - first < block_entries ? n - first : block_entries;
            encode_block(c, c->searched ^ 1, first, count, block);
            fold_block_bounds(c, first, count, block, raw);
        }
    }
    const uint8_t *folded = kb->job.bounds ? kb->job.bounds : raw && block ? raw : NULL;
    uint64_t frame = kb->job.bounds_frame ? kb->job.bounds_frame : BOUNDS_FRAME_BYTES;
    int64_t len = folded ? compress_bounds(folded, raw_bytes, frame, threads, out) : -1;
    free(raw);
    free(block);
    return len;
}

/* Bytes the file stores for block k: none where it is a full block the
 * same as its side's first (docs/FORMAT.md: a reader decodes that one), as
 * most blocks of a searched side are (mostly "search"): 3.9% of the
 * `--all 5` set's DTC bytes, 2.5% of its DTM bytes and 3.2% of its WDL
 * bytes (docs/BENCHMARKS.md, "A block's own bytes"). */
static uint64_t stored_bytes(const kind_blocks *kb, uint64_t entries, uint32_t block_entries, uint64_t k)
{
    uint64_t first = k - k % kb->blocks, size = kb->job.size[k];
    int full = (k % kb->blocks + 1) * (uint64_t)block_entries <= entries;
    return k != first && full && size == kb->job.size[first] && !memcmp(kb->job.data[k], kb->job.data[first], size)
               ? 0
               : size;
}

/* Writes the file of one kind from its blocks. */
static int write_kind_file(const tb_table *t, const char *dir, int kind, uint32_t block_entries, int codec,
                           const kind_blocks *kb, const uint8_t *dict, uint32_t dict_bytes, int threads,
                           uint64_t *file_bytes, uint64_t *raw_bytes, char err[XQ_ERR_MAX])
{
    const symbol_coder *coder = kb->coder;
    uint64_t nblocks = 2 * (uint64_t)kb->blocks;
    uint64_t map_bytes = kind != XQF_KIND_WDL ? xqf_pad8((uint64_t)coder->nsymbols * 2) : 0;
    uint8_t *bounds;
    int64_t bounds_bytes = search_bounds(kb, kind, block_entries, threads, &bounds);
    uint64_t data = 0, *stored = malloc(nblocks * sizeof *stored);
    if (!stored) {
        free(bounds);
        snprintf(err, XQ_ERR_MAX, "out of memory compressing");
        return -1;
    }
    for (uint64_t k = 0; k < nblocks; k++) data += stored[k] = stored_bytes(kb, t->ix.size, block_entries, k);
    uint64_t rest =
        XQF_HEADER_SIZE + map_bytes + xqf_pad8(dict_bytes) + xqf_pad8(bounds_bytes > 0 ? (uint64_t)bounds_bytes : 0);
    unsigned width;
    uint64_t meta = xqf_meta_layout(rest, nblocks, data, &width);
    uint8_t *m = bounds_bytes >= 0 ? calloc(1, meta) : NULL;
    if (!m) {
        free(bounds);
        free(stored);
        snprintf(err, XQ_ERR_MAX, "out of memory compressing");
        return -1;
    }
    /* header */
    memcpy(m, xqf_kind_magic(kind), 8);
    xqf_put32(m + XQF_OFF_VERSION, XQF_VERSION);
    xqf_put32(m + XQF_OFF_HEADER_SIZE, XQF_HEADER_SIZE);
    xq_material_name(&t->mat, (char *)m + XQF_OFF_NAME);
    xqf_put32(m + XQF_OFF_INDEX_LAYOUT, XQF_INDEX_LAYOUT);
    xqf_put64(m + XQF_OFF_ENTRIES, t->ix.size);
    xqf_put32(m + XQF_OFF_REPETITION, (uint32_t)t->rules);
    xqf_put32(m + XQF_OFF_MOVE_LIMIT, (uint32_t)t->limit);
    xqf_put32(m + XQF_OFF_BLOCK_ENTRIES, block_entries);
    xqf_put32(m + XQF_OFF_SYMBOL_BYTES, coder->symbol_bytes);
    xqf_put32(m + XQF_OFF_BLOCKS, kb->blocks);
    xqf_put32(m + XQF_OFF_MAX_DTM, (uint32_t)(int32_t)(kind == XQF_KIND_DTC ? longest_dtc(coder->facts) : t->max_dtm));
    xqf_put32(m + XQF_OFF_GEN_REVISION, xqf_gen_revision((uint32_t)t->rules));
    xqf_put32(m + XQF_OFF_SYMBOLS, kind != XQF_KIND_WDL ? coder->nsymbols : 0);
    xqf_put32(m + XQF_OFF_CODEC, (uint32_t)codec);
    xqf_put32(m + XQF_OFF_SEARCHED_SIDE, (uint32_t)(coder->searched + 1));
    xqf_put32(m + XQF_OFF_DICT_BYTES, dict_bytes);
    xqf_put32(m + XQF_OFF_BOUNDS_BYTES, (uint32_t)bounds_bytes);
    /* DTM map, dictionary, offsets, checksums, search bounds */
    uint8_t *p = m + XQF_HEADER_SIZE;
    for (uint32_t i = 0; kind != XQF_KIND_WDL && i < coder->nsymbols; i++) {
        p[2 * i] = (uint8_t)coder->map[i];
        p[2 * i + 1] = (uint8_t)(coder->map[i] >> 8);
    }
    p += map_bytes;
    if (dict_bytes) memcpy(p, dict, dict_bytes);
    p += xqf_pad8(dict_bytes);
    uint64_t off = xqf_put_offsets(p, stored, nblocks, meta, width);
    p += xqf_pad8((nblocks + 1) * width);
    for (uint64_t k = 0; k < nblocks; k++) xqf_put64(p + 8 * k, xqf_block_checksum(kb->job.data[k], stored[k]));
    p += nblocks * 8;
    if (bounds_bytes > 0) memcpy(p, bounds, (size_t)bounds_bytes);
    free(bounds);
    xqf_put64(m + XQF_OFF_FILE_SIZE, off);
    xqf_put64(m + XQF_OFF_META_HASH, xqf_meta_hash(m, meta));

    char path[4096];
    tb_compressed_path(dir, &t->mat, kind, path, sizeof path);
    atomic_file f;
    int rc = atomic_open(&f, path, err);
    if (rc == 0) rc = atomic_write(&f, m, meta, err);
    for (uint64_t k = 0; k < nblocks && rc == 0; k++)
        rc = stored[k] ? atomic_write(&f, kb->job.data[k], stored[k], err) : 0;
    if (rc == 0)
        rc = atomic_commit(&f, err);
    else
        atomic_abort(&f);
    *file_bytes = off;
    *raw_bytes = 2 * xqf_block_bytes(coder->symbol_bytes, t->ix.size);
    free(m);
    free(stored);
    return rc;
}

/* Blocks per side from which the searched side is chosen: a glance of
 * SIDE_GLANCE_BLOCKS, and where the two choices come within
 * SIDE_CLOSE_PERCENT of each other on it, a sample of SIDE_SAMPLE_BLOCKS,
 * enough that the sample's sizes rank the two choices as the whole files
 * do (docs/BENCHMARKS.md, "Choosing the searched side"; the glance alone
 * picked the worse side of a few files of the `--all 5` set, by 4-6%,
 * where the two were close: "The writer's share, cut"), few enough that
 * the choice costs a fraction of the file. */
enum { SIDE_GLANCE_BLOCKS = 64, SIDE_SAMPLE_BLOCKS = 256, SIDE_CLOSE_PERCENT = 10 };
/* Zstandard's level for the glance: it ranks the two choices as level 12
 * does on every DTM and DTC file of the `--all 5` set (both levels give
 * the same 452 files, byte for byte) in less time: the set's compression
 * took 3% less (docs/BENCHMARKS.md, "Counts and glance, faster").  Not for
 * the larger sample, where the two choices are close: at level 1 it chose
 * the worse side of KNPKP's and KRCKC's DTM files (+4% and +7%:
 * "Compression's training and encoding, cheaper"). */
enum { SIDE_GLANCE_LEVEL = 1 };

/* One block in `every` of a side's `blocks` makes a sample of about
 * per_side blocks (every 1: the whole side). */
static uint32_t sample_every(uint64_t blocks, uint32_t per_side)
{
    return blocks > per_side ? (uint32_t)(blocks / per_side) : 1;
}

/* Whether side `s` of t has a piece that leaves its palace and its half of
 * the board (a horse, rook, cannon or pawn).  Only then are a searched
 * entry's moves many and far apart in the stored side, so that a search
 * reads several of its blocks: KRKAABB's searched side (black's king,
 * advisors and elephants) took 8 us a cold probe in 4096-entry blocks
 * whose stored side averaged 642 bytes, and its DTM file would have come
 * out above the peer's in smaller ones (docs/BENCHMARKS.md, "DTM and DTC
 * blocks sized per file"). */
static int roams(const tb_table *t, int s)
{
    for (int k = HORSE; k < KIND_NB; k++)
        if (t->mat.count[s][k]) return 1;
    return 0;
}

/* Blocks of the stored side sampled for each block size size_blocks
 * tries: on the `--all 5` set's larger files the mean of 64 blocks came
 * within 4% of the whole side's (docs/BENCHMARKS.md, "DTM and DTC blocks
 * sized per file"), and a sample at a size not kept is work thrown away. */
enum { SIZE_SAMPLE_BLOCKS = 64 };

/* The block size of a DTM or DTC file whose `side` (0 or 1) is searched,
 * in Zstandard blocks: from *block_entries, halved down to
 * TB_DTM_BLOCK_ENTRIES_MIN while the stored side's blocks, sampled at the
 * file's level, average more than TB_DTM_BLOCK_BYTES compressed.  A cold
 * probe of a searched entry decodes about one block of its own side and
 * one or two of the stored side, and a block costs about what it holds
 * compressed (docs/BENCHMARKS.md, "DTM and DTC blocks sized per file").
 * If *built, kb holds the whole file at *block_entries.  Returns with
 * kb holding the blocks at the size chosen: the whole file, or its
 * sample, which complete_kind makes the whole file (so a file that keeps
 * its first size costs no more than before it was sized). */
static int size_blocks(const kind_facts *f, int side, int level, int threads, uint32_t *block_entries, kind_blocks *kb,
                       int *built, char err[XQ_ERR_MAX])
{
    for (uint32_t b = *block_entries;; b /= 2) {
        uint64_t blocks = (f->t->ix.size + b - 1) / b;
        uint32_t every = sample_every(blocks, SIZE_SAMPLE_BLOCKS);
        if (!*built) {
            if (init_kind(f, side, b, every, XQF_CODEC_ZSTD, level, NULL, kb, err)) return -1;
            kb->job.side = side ^ 1; /* the stored side's blocks decide */
            if (run_blocks(f, kb, threads, err)) return -1;
        }
        *built = 1;
        uint64_t mean = kb->side_bytes[side ^ 1] / ((blocks + every - 1) / every);
        if (mean <= TB_DTM_BLOCK_BYTES || b / 2 < TB_DTM_BLOCK_ENTRIES_MIN) {
            *block_entries = b;
            return 0;
        }
        kind_blocks_free(kb);
        *built = 0;
    }
}

/* Writes the DTM or DTC file (write_wdl writes the WDL file).  searched:
 * TB_SEARCH_*.  With TB_SEARCH_AUTO the side searched is the one whose
 * file comes out smaller on a sample of its blocks, the same blocks for
 * both choices
 * (which side stores less depends on the material: the side with fewer
 * results of the rulings the search cannot find, and otherwise the side
 * whose distances vary more).  The choice depends on the table alone, so
 * the file does not depend on the thread count.  With choose_size the
 * blocks of a file whose searched side roams are then sized (size_blocks),
 * starting from block_entries. */
static int write_kind(const tb_table *t, const char *dir, int kind, int searched, uint8_t **found,
                      uint32_t block_entries, int choose_size, int codec, int level, int threads, uint32_t bounds_frame,
                      uint64_t *file_bytes, uint64_t *raw_bytes, char err[XQ_ERR_MAX])
{
    int side = searched == TB_SEARCH_RED ? 0 : searched == TB_SEARCH_BLACK ? 1 : -1;
    uint64_t blocks = (t->ix.size + block_entries - 1) / block_entries;
    uint32_t every = searched == TB_SEARCH_AUTO ? sample_every(blocks, SIDE_GLANCE_BLOCKS) : 1;
    /* Which ruled results the search finds takes a one-ply search of each
     * (on KRPKR a quarter of its files' time): for a choice made on a
     * sample, it is worked out for the sample's blocks, which are ranked by
     * their own counts, and then for the whole of the side chosen.
     * `counted` is the sample the counts (and found) are of, 1 whole. */
    int sampled = found && every > 1 && block_entries % 8 == 0;
    uint32_t counted = sampled ? every : 1;
    if (found) tb_ruled_found_by_search(t, threads, side, block_entries, counted, found);
    kind_facts f;
    if (kind_facts_init(&f, t, kind, found, block_entries, counted, threads)) {
        snprintf(err, XQ_ERR_MAX, "out of memory compressing");
        return -1;
    }
    kind_blocks kb, choice[2]; /* the blocks built with each side searched */
    int built = 0, rc = -1;
    uint32_t wider = sample_every(blocks, SIDE_SAMPLE_BLOCKS); /* the larger sample's stride */
    while (searched == TB_SEARCH_AUTO) {
        uint64_t bytes[2];
        /* the glance ranks the two choices at SIDE_GLANCE_LEVEL; a whole
         * file (every 1), which is kept as built, and the larger sample
         * are compressed at the file's own level */
        int at = every > wider && codec == XQF_CODEC_ZSTD ? SIDE_GLANCE_LEVEL : level;
        for (int s = 0; s < 2; s++) {
            if (build_kind(&f, s, block_entries, every, codec, at, NULL, threads, &choice[s], err)) {
                if (s == 1 && every == 1) kind_blocks_free(&choice[0]);
                goto out;
            }
            bytes[s] = choice[s].side_bytes[0] + choice[s].side_bytes[1];
            if (every > 1) kind_blocks_free(&choice[s]);
        }
        side = bytes[1] < bytes[0];
        if (every == 1) {
            /* a small table's "sample" is the whole file: the chosen one
             * is written as built (both sets of blocks are held at once
             * only for files of at most SIDE_SAMPLE_BLOCKS blocks a side:
             * tb_compress_work_bytes) */
            kind_blocks_free(&choice[side ^ 1]);
            kb = choice[side];
            built = 1;
            break;
        }
        uint64_t small = bytes[side], large = bytes[side ^ 1];
        if (wider >= every || (large - small) * 100 > (uint64_t)SIDE_CLOSE_PERCENT * large) break;
        every = wider; /* close: look again, at the larger sample */
        if (sampled) {
            counted = every; /* sampled: blocks of a multiple of 8 entries */
            tb_ruled_found_by_search(t, threads, -1, block_entries, counted, found);
            kind_facts_count(&f, block_entries, counted, threads);
        }
    }
    if (counted != 1) {
        tb_ruled_found_by_search(t, threads, side, block_entries, 1, found);
        kind_facts_count(&f, block_entries, 1, threads);
    }
    if (choose_size && side >= 0 && codec == XQF_CODEC_ZSTD && roams(t, side) &&
        size_blocks(&f, side, level, threads, &block_entries, &kb, &built, err))
        goto out;
    if (built ? complete_kind(&f, &kb, threads, err)
              : build_kind(&f, side, block_entries, 1, codec, level, NULL, threads, &kb, err))
        goto out;
    kb.job.bounds_frame = bounds_frame;
    rc = write_kind_file(t, dir, kind, block_entries, codec, &kb, NULL, 0, threads, file_bytes, raw_bytes, err);
    kind_blocks_free(&kb);
out:
    kind_facts_free(&f);
    return rc;
}

/* Blocks a dictionary is trained on, spread evenly over both sides: 1 MiB
 * of WDL symbols, enough that the dictionary comes out as it would from
 * the whole file (docs/BENCHMARKS.md, "A dictionary for WDL files"). */
enum { DICT_SAMPLE_BLOCKS = 256 };

/* Blocks (both sides) below which no dictionary is tried: a file that
 * small (KRKN's WDL, 44 blocks, is 6 KB) never came out smaller with one,
 * and training needs about 10 MB whatever the sample. */
enum { DICT_MIN_BLOCKS = 64 };

/* The log of the training's frequency table (zdict.h: 6 x 2^f bytes of
 * tables): with zdict.h's default of 20, setting up 6 MiB of tables for
 * a 1 MiB sample took most of zdict.h's time.  At 16 the `--all 5` set's
 * 105 trainings took about a third less time and its WDL files came out
 * 0.6% smaller; at 14 a little less time again, but the files 0.6% larger
 * than at 16 (docs/BENCHMARKS.md, "Compression's training and encoding,
 * cheaper"). */
enum { DICT_FREQ_LOG = 16 };

static int tries_dict(int codec, uint64_t entries, uint32_t block_entries)
{
    return codec == XQF_CODEC_ZSTD && 2 * ((entries + block_entries - 1) / block_entries) >= DICT_MIN_BLOCKS;
}

/* Trains a Zstandard dictionary of at most cap bytes on a sample of the
 * blocks of kb's coder into dict.  Returns its size, 0 if none could be
 * made (a small table has too little to train on), -1 out of memory.  The
 * training runs on one thread, so the dictionary does not depend on the
 * thread count. */
static int64_t train_dict(const kind_blocks *kb, const tb_table *t, uint32_t block_entries, uint8_t *dict, uint32_t cap)
{
    uint64_t nblocks = 2 * (uint64_t)kb->blocks,
             every = nblocks > DICT_SAMPLE_BLOCKS ? nblocks / DICT_SAMPLE_BLOCKS : 1;
    uint64_t raw_cap = xqf_block_bytes(kb->coder->symbol_bytes, block_entries),
             nsamples = (nblocks + every - 1) / every;
    uint8_t *samples = malloc((size_t)(nsamples * raw_cap));
    size_t *sizes = malloc((size_t)nsamples * sizeof *sizes);
    int64_t got = -1;
    if (samples && sizes) {
        uint64_t at = 0, n = 0;
        for (uint64_t k = 0; k < nblocks; k += every) {
            uint64_t first = (k % kb->blocks) * block_entries;
            uint64_t count = t->ix.size - first < block_entries ? t->ix.size - first : block_entries;
            encode_block(kb->coder, (int)(k / kb->blocks), first, count, samples + at);
            sizes[n] = (size_t)xqf_block_bytes(kb->coder->symbol_bytes, count);
            at += sizes[n++];
        }
        /* ZDICT_trainFromBuffer's own choices (fastCover, dmers of 8,
         * segment sizes tried in 4 steps, one thread, judged at level 3)
         * but a frequency table of 2^DICT_FREQ_LOG entries */
        ZDICT_fastCover_params_t p;
        memset(&p, 0, sizeof p);
        p.d = 8;
        p.steps = 4;
        p.f = DICT_FREQ_LOG;
        p.accel = 1;
        p.nbThreads = 1;
        p.zParams.compressionLevel = 3;
        size_t len = ZDICT_optimizeTrainFromBuffer_fastCover(dict, cap, samples, sizes, (unsigned)n, &p);
        got = ZDICT_isError(len) ? 0 : (int64_t)len;
    }
    free(samples);
    free(sizes);
    return got;
}

/* Zstandard's parser for a WDL file written whole with its dictionary at
 * the default level: lazy2 with 2^6 candidates a position, in place of the
 * level's btopt (a block compressed with a dictionary takes the
 * dictionary's parameters, whatever its context's).  On the WDL blocks of
 * KRPKR, KRNKR, KCKPP and KNCKN it compressed 3.9, 3.3, 3.0 and 3.1 times
 * faster, for 1.0%, 0.8% and 2.3% more bytes and 7.1% fewer on KNCKN, and
 * the blocks decoded in 1% and 2.6% fewer instructions on KRPKR and KRNKR
 * (docs/BENCHMARKS.md, "WDL blocks by lazy matching").  The samples that
 * choose the block size and the dictionary keep the level's parser: taken
 * by lazy2's bytes, the block-size bar halved KCKPP's blocks, a file 18%
 * larger.  Without a dictionary lazy2 cost 3-4% on the large files. */
enum { WDL_WHOLE_STRATEGY = ZSTD_lazy2, WDL_WHOLE_SEARCH_LOG = 6 };

/* The dictionary digested for writing a whole WDL file at the default
 * level, NULL out of memory. */
static ZSTD_CDict *wdl_whole_cdict(const uint8_t *dict, uint32_t size)
{
    ZSTD_CCtx_params *p = ZSTD_createCCtxParams();
    ZSTD_CDict *c = NULL;
    if (p && !ZSTD_isError(ZSTD_CCtxParams_setParameter(p, ZSTD_c_compressionLevel, TB_ZSTD_LEVEL)) &&
        !ZSTD_isError(ZSTD_CCtxParams_setParameter(p, ZSTD_c_strategy, WDL_WHOLE_STRATEGY)) &&
        !ZSTD_isError(ZSTD_CCtxParams_setParameter(p, ZSTD_c_searchLog, WDL_WHOLE_SEARCH_LOG)))
        c = ZSTD_createCDict_advanced2(dict, size, ZSTD_dlm_byCopy, ZSTD_dct_auto, p, ZSTD_defaultCMem);
    ZSTD_freeCCtxParams(p);
    return c;
}

/* A WDL file's dictionary: trained once, on the sample of the first block
 * size tried, and offered at every size after it (training costs more than
 * compressing a sample, and a smaller block's contents are those of a
 * larger one's parts). */
typedef struct {
    int wanted, trained;
    ZSTD_CDict *cdict; /* NULL if none */
    ZSTD_CDict *whole; /* for the file written whole, if not cdict (wdl_whole_cdict) */
    uint8_t bytes[TB_WDL_DICT_BYTES];
    uint32_t size;
} wdl_dict;

/* A WDL file's blocks at one block size, compressed on a sample (or whole,
 * for a small file), with or without the dictionary. */
typedef struct {
    uint32_t block_entries, every; /* the sample: one block in `every` */
    kind_blocks kb;                /* the sample's blocks, the chosen way */
    int use;                       /* whether the file is written with the dictionary */
} wdl_sample;

/* With Zstandard a dictionary is trained on the file's own blocks, the
 * same sample of blocks (the searched side's sample, or the whole of a
 * small file) is compressed without and with it, and the file is written
 * the way that makes the sample with its share of the dictionary smaller:
 * a dictionary's entropy tables, digested once by the reader, spare a
 * block the cost of decoding its own, which is most of a cold WDL probe
 * (docs/BENCHMARKS.md, "A dictionary for WDL files"), but on a file whose
 * blocks differ from each other it costs more bytes than it saves. */
/* Entries a side whose blocks a WDL sample holds at most: 256 blocks of
 * 4096 entries, and fewer of larger blocks, at which no file of the
 * `--all 5` set comes near the size bar (their samples average 300-2000
 * bytes a block against TB_WDL_BLOCK_BYTES): sampled 256 at every size,
 * the first size tried cost more than the whole file written
 * (docs/BENCHMARKS.md, "The writer's share, cut"). */
enum { WDL_SAMPLE_ENTRIES = 256 * 4096 };

static int sample_wdl(const kind_facts *f, uint32_t block_entries, int codec, int level, wdl_dict *d, int threads,
                      wdl_sample *w, char err[XQ_ERR_MAX])
{
    const tb_table *t = f->t;
    uint64_t blocks = (t->ix.size + block_entries - 1) / block_entries;
    uint64_t per_side = WDL_SAMPLE_ENTRIES / block_entries;
    if (per_side > SIDE_SAMPLE_BLOCKS) per_side = SIDE_SAMPLE_BLOCKS;
    if (per_side < 1) per_side = 1;
    w->block_entries = block_entries;
    w->every = blocks > per_side ? (uint32_t)(blocks / per_side) : 1;
    w->use = 0;
    kind_blocks with;
    if (build_kind(f, -1, block_entries, w->every, codec, level, NULL, threads, &w->kb, err)) return -1;
    if (d->wanted && !d->trained) {
        int64_t got = train_dict(&w->kb, t, block_entries, d->bytes, sizeof d->bytes);
        d->trained = 1;
        d->size = got > 0 ? (uint32_t)got : 0;
        d->cdict = d->size ? ZSTD_createCDict(d->bytes, d->size, level) : NULL;
        d->whole = d->size && level == TB_ZSTD_LEVEL ? wdl_whole_cdict(d->bytes, d->size) : NULL;
        if (got < 0 || (d->size && (!d->cdict || (level == TB_ZSTD_LEVEL && !d->whole)))) {
            kind_blocks_free(&w->kb);
            snprintf(err, XQ_ERR_MAX, "out of memory compressing");
            return -1;
        }
    }
    if (!d->cdict) return 0;
    if (build_kind(f, -1, block_entries, w->every, codec, level, d->cdict, threads, &with, err)) {
        kind_blocks_free(&w->kb);
        return -1;
    }
    /* the sample is one block in `every`: it carries that share of the
     * dictionary */
    uint64_t plain = w->kb.side_bytes[0] + w->kb.side_bytes[1], dicted = with.side_bytes[0] + with.side_bytes[1];
    w->use = dicted * w->every + xqf_pad8(d->size) < plain * w->every;
    kind_blocks_free(w->use ? &w->kb : &with);
    if (w->use) w->kb = with;
    return 0;
}

/* Mean compressed bytes of a sampled block (the dictionary, read once when
 * the file is opened, not counted). */
static uint64_t sample_block_bytes(const wdl_sample *w)
{
    uint64_t per_side = (w->kb.blocks + w->every - 1) / w->every;
    return (w->kb.side_bytes[0] + w->kb.side_bytes[1]) / (2 * per_side);
}

static int default_level(int codec) { return codec == XQF_CODEC_LZ4 ? TB_LZ4HC_LEVEL : TB_ZSTD_LEVEL; }
static int resident_level(int codec) { return codec == XQF_CODEC_ZSTD ? TB_WDL_RESIDENT_LEVEL : default_level(codec); }
/* A resident WDL file's block: a whole side, rounded up to a multiple of 4. */
static uint32_t resident_block_entries(uint64_t entries) { return (uint32_t)((entries + 3) / 4 * 4); }

/* Writes the WDL file, in blocks of block_entries, or with 0 one block a
 * side for a small file (unless `blocked`) and otherwise of the size its
 * sample chooses (TB_WDL_BLOCK_BYTES). */
static int write_wdl(const tb_table *t, const char *dir, uint32_t block_entries, int blocked, int codec, int level,
                     int threads, uint64_t *file_bytes, uint64_t *raw_bytes, char err[XQ_ERR_MAX])
{
    wdl_sample w;
    /* A small file is one block a side, which the library holds decoded
     * (tbformat.h), written at the level such files are written at unless
     * a level is given (level 0). */
    int resident = !block_entries && !blocked && xqf_wdl_resident(t->ix.size);
    if (level <= 0) level = resident ? resident_level(codec) : default_level(codec);
    /* whether a dictionary is tried is decided at the size the file starts
     * from: halving the blocks of a small file does not make training pay
     * (nor does a dictionary for the two blocks of a resident file) */
    uint32_t start = block_entries ? block_entries
                     : resident    ? resident_block_entries(t->ix.size)
                                   : TB_WDL_BLOCK_ENTRIES;
    wdl_dict d = {.wanted = tries_dict(codec, t->ix.size, start)};
    kind_facts f;
    if (kind_facts_init(&f, t, XQF_KIND_WDL, NULL, 0, 1, threads)) {
        snprintf(err, XQ_ERR_MAX, "out of memory compressing");
        return -1;
    }
    int rc = 0;
    for (uint32_t b = start;; b /= 2) {
        if ((rc = sample_wdl(&f, b, codec, level, &d, threads, &w, err))) break;
        if (block_entries || resident || b / 2 < TB_WDL_BLOCK_ENTRIES_MIN ||
            sample_block_bytes(&w) <= TB_WDL_BLOCK_BYTES)
            break;
        kind_blocks_free(&w.kb);
    }
    /* a small file's sample is the whole file, written as chosen; a larger
     * one is compressed whole, once, the way its sample chose */
    if (rc == 0 && w.every > 1) {
        kind_blocks_free(&w.kb);
        rc = build_kind(&f, -1, w.block_entries, 1, codec, level,
                        !w.use    ? NULL
                        : d.whole ? d.whole
                                  : d.cdict,
                        threads, &w.kb, err);
    }
    if (rc == 0) {
        rc = write_kind_file(t, dir, XQF_KIND_WDL, w.block_entries, codec, &w.kb, d.bytes, w.use ? d.size : 0, threads,
                             file_bytes, raw_bytes, err);
        kind_blocks_free(&w.kb); /* empty if build_kind failed */
    }
    ZSTD_freeCDict(d.cdict);
    ZSTD_freeCDict(d.whole);
    kind_facts_free(&f);
    return rc;
}

/* Bytes one thread's compression state takes for blocks of raw_cap bytes:
 * LZ4HC allocates a state per call; a Zstandard context sizes its tables
 * to the input, as zstd's own estimate for the parameters it picks for
 * that size says (ZSTD_estimateCCtxSize_usingCParams, of its experimental
 * API, which Debian's shared library exports), with room for malloc's
 * headers.  The estimate equals the context measured after compressing
 * blocks of 512 bytes to 256 KiB at levels 12 and 19 (or exceeds it by up
 * to 5%), and unlike a measurement it allocates nothing: a table refused
 * for want of memory is refused before the plan allocates a context as
 * large as a resident WDL block's (4.3 MiB at level 15). */
static uint64_t codec_state_bytes(int codec, int level, uint64_t raw_cap)
{
    if (codec == XQF_CODEC_LZ4) return (uint64_t)LZ4_sizeofStateHC();
    size_t bytes = ZSTD_estimateCCtxSize_usingCParams(ZSTD_getCParams(level, raw_cap, 0));
    return ZSTD_isError(bytes) ? 64u << 20 /* a bound above any level's tables for 1 MiB */ : bytes + (64 << 10);
}

/* What build_kind allocates at most for one kind: the coder, and either coder_init's
 * counting arrays or the rank table with the job, the header, every
 * compressed block (each allocated at the codec's bound) and each thread's
 * raw block and compression state. */
static uint64_t kind_work_bytes(uint64_t entries, int kind, uint32_t symbol_bytes, uint32_t block_entries, int codec,
                                int level, int threads)
{
    uint64_t raw_cap = xqf_block_bytes(symbol_bytes, block_entries);
    uint64_t blocks = 2 * ((entries + block_entries - 1) / block_entries);
    uint64_t symbols = kind == XQF_KIND_WDL ? 0 : symbol_bytes == 1 ? 256 : XQF_MAX_SYMBOLS;
    uint64_t meta = XQF_HEADER_SIZE + ((symbols * 2 + 7) / 8) * 8 + (blocks + 1) * 8 + blocks * 8;
    /* malloc's own header on each block (glibc: 16 bytes, rounded to 16) */
    uint64_t block = compressed_bound(codec, raw_cap) + 32;
    /* a DTM or DTC file's search bounds: raw, the room their frames are
     * compressed in (a whole frame's bound for each, the last too), a
     * context for each frame compressed at once (one a thread), and a
     * block to fold from */
    uint64_t bounds_raw = kind == XQF_KIND_WDL ? 0 : xqf_bounds_raw_bytes(kind, entries);
    uint64_t frames = (bounds_raw + BOUNDS_FRAME_BYTES - 1) / BOUNDS_FRAME_BYTES,
             frame_raw = bounds_raw < BOUNDS_FRAME_BYTES ? bounds_raw : BOUNDS_FRAME_BYTES;
    uint64_t at_once = frames < (uint64_t)threads ? frames : (uint64_t)threads;
    uint64_t bounds = kind != XQF_KIND_WDL ? bounds_raw + frames * ZSTD_compressBound((size_t)frame_raw) + raw_cap +
                                                 at_once * codec_state_bytes(XQF_CODEC_ZSTD, TB_ZSTD_LEVEL, frame_raw)
                                           : 0;
    /* a DTM or DTC file small enough to be its own sample holds the
     * blocks of both choices of the searched side (write_kind) */
    uint64_t sets = kind != XQF_KIND_WDL && blocks <= 2 * (uint64_t)SIDE_SAMPLE_BLOCKS ? 2 : 1;
    uint64_t job = sets * blocks * (sizeof(uint8_t *) + sizeof(uint32_t) + block) + meta + bounds +
                   (uint64_t)threads * (raw_cap + codec_state_bytes(codec, level, raw_cap));
    uint64_t counting = kind == XQF_KIND_WDL ? 0 : (uint64_t)SLOTS * (sizeof(uint64_t) + 2 * sizeof(uint32_t));
    uint64_t rank = kind == XQF_KIND_WDL ? 0 : (uint64_t)SLOTS * sizeof(uint32_t);
    return sizeof(symbol_coder) + (counting > rank + job ? counting : rank + job);
}

uint64_t tb_compress_work_bytes(uint64_t entries, int width, int rules, int limit, int threads)
{
    if (threads < 1) threads = 1;
    if (threads > PAR_MAX_THREADS) threads = PAR_MAX_THREADS;
    /* A DTM of one-byte cells has at most 253 symbols (DTM 0..251 and the
     * draw); ruled results and wide cells may need two bytes, as may DTC. */
    uint32_t dtm_bytes = width == 1 && rules == XQ_RULES_NONE ? 1 : 2;
    /* WDL: with a dictionary tried, at most two sets of blocks (without
     * and with it, for a file small enough to be its own sample) and its
     * training: the sample, and what zdict.h and the digested
     * dictionaries take, measured at 9.4 MB (docs/BENCHMARKS.md) with
     * zdict.h's 6 MiB of frequency tables, which DICT_FREQ_LOG makes
     * 384 KiB: the 12 MiB allowed is kept as a bound */
    uint64_t most = 0;
    if (xqf_wdl_resident(entries)) /* one block a side, no dictionary */
        most = kind_work_bytes(entries, XQF_KIND_WDL, 0, resident_block_entries(entries), TB_WDL_CODEC,
                               resident_level(TB_WDL_CODEC), threads) +
               kind_facts_bytes(entries, XQF_KIND_WDL);
    else
        for (uint32_t b = TB_WDL_BLOCK_ENTRIES; b >= TB_WDL_BLOCK_ENTRIES_MIN; b /= 2) { /* the sizes write_wdl tries */
            uint64_t wdl =
                kind_work_bytes(entries, XQF_KIND_WDL, 0, b, TB_WDL_CODEC, default_level(TB_WDL_CODEC), threads);
            if (tries_dict(TB_WDL_CODEC, entries, TB_WDL_BLOCK_ENTRIES))
                wdl = 2 * wdl + (uint64_t)DICT_SAMPLE_BLOCKS * xqf_block_bytes(0, b) + (12u << 20);
            wdl += kind_facts_bytes(entries, XQF_KIND_WDL);
            if (wdl > most) most = wdl;
        }
    /* DTM and DTC at each block size size_blocks may choose: smaller
     * blocks take more room (each held at the codec's bound, and its
     * offset and checksum) */
    for (uint32_t b = TB_DTM_BLOCK_ENTRIES; b >= TB_DTM_BLOCK_ENTRIES_MIN; b /= 2) {
        uint64_t dtm =
            kind_work_bytes(entries, XQF_KIND_DTM, dtm_bytes, b, TB_DTM_CODEC, default_level(TB_DTM_CODEC), threads) +
            kind_facts_bytes(entries, XQF_KIND_DTM) +
            (rules != XQ_RULES_NONE ? 2 * ((entries + 7) / 8) : 0); /* searched.h's bitmaps */
        if (dtm > most) most = dtm;
        uint64_t dtc =
            limit ? kind_work_bytes(entries, XQF_KIND_DTC, 2, b, TB_DTM_CODEC, default_level(TB_DTM_CODEC), threads) +
                        kind_facts_bytes(entries, XQF_KIND_DTC)
                  : 0;
        if (dtc > most) most = dtc;
    }
    return most;
}

typedef struct {
    const tb_table *t;
    uint64_t legal[PAR_MAX_THREADS];
} legal_count;

static void count_legal_chunk(void *arg, uint64_t begin, uint64_t end, int thread)
{
    legal_count *c = arg;
    uint64_t n = 0;
    /* the table is finished: plain loads, with the width tested once a
     * chunk (through cell_get, KRNKN's count took 0.79 G instructions,
     * 0.43 G so) */
    for (int s = 0; s < 2; s++)
        if (c->t->width == 1) {
            const uint8_t *cells = c->t->cells[s];
            for (uint64_t i = begin; i < end; i++) n += cells[i] != CELL8_ILLEGAL;
        } else {
            const uint16_t *cells = c->t->cells[s];
            for (uint64_t i = begin; i < end; i++) n += cells[i] != CELL16_ILLEGAL;
        }
    c->legal[thread] += n;
}

/* The legal entries of both sides (the report's bits per entry). */
static uint64_t count_legal(const tb_table *t, int threads)
{
    legal_count c = {.t = t};
    par_for(threads, t->ix.size, 1 << 16, count_legal_chunk, &c);
    uint64_t n = 0;
    for (int i = 0; i < PAR_MAX_THREADS; i++) n += c.legal[i];
    return n;
}

int tb_compress_write(const tb_table *t, const char *dir, const tb_compress_options *o, tb_compress_report *r,
                      char err[XQ_ERR_MAX])
{
    tb_compress_options d = {0};
    if (!o) o = &d;
    tb_compress_report dummy;
    if (!r) r = &dummy;
    memset(r, 0, sizeof *r);
    int threads = o->threads > 0 ? o->threads : par_cores();
    int wc = o->wdl_codec ? o->wdl_codec : TB_WDL_CODEC, dc = o->dtm_codec ? o->dtm_codec : TB_DTM_CODEC;
    if (wc < XQF_CODEC_LZ4 || wc > XQF_CODEC_MAX || dc < XQF_CODEC_LZ4 || dc > XQF_CODEC_MAX) {
        snprintf(err, XQ_ERR_MAX, "unknown codec");
        return -1;
    }
    int wl = o->level > 0 ? o->level : default_level(wc), dl = o->level > 0 ? o->level : default_level(dc);
    uint32_t wb = o->wdl_block_entries; /* 0: chosen per file */
    uint32_t db = o->dtm_block_entries ? o->dtm_block_entries : TB_DTM_BLOCK_ENTRIES;
    int choose = !o->dtm_block_entries; /* sized per file (size_blocks) */
    if (wb % 4 || wb > 4u * XQF_MAX_BLOCK_BYTES || db > XQF_MAX_BLOCK_BYTES / 2) {
        snprintf(err, XQ_ERR_MAX, "block size out of range");
        return -1;
    }
    r->legal_entries = count_legal(t, threads);
    if (o->searched < TB_SEARCH_AUTO || o->searched > TB_SEARCH_BLACK) {
        snprintf(err, XQ_ERR_MAX, "unknown searched-side choice");
        return -1;
    }
    int sr = o->searched;
    if (write_wdl(t, dir, wb, o->wdl_blocked, wc, o->level > 0 ? wl : 0, threads, &r->wdl_bytes, &r->wdl_raw, err))
        return -1;
    /* which results of the rulings a reader's search finds (searched.h) */
    uint64_t found_bytes = (t->ix.size + 7) / 8;
    uint8_t *found[2] = {NULL, NULL};
    if (tb_has_ruled(t) && sr != TB_SEARCH_NONE) {
        found[0] = calloc(found_bytes, 1);
        found[1] = calloc(found_bytes, 1);
        if (!found[0] || !found[1]) {
            free(found[0]);
            free(found[1]);
            snprintf(err, XQ_ERR_MAX, "out of memory compressing");
            return -1;
        }
    }
    int rc = write_kind(t, dir, XQF_KIND_DTM, sr, found[0] ? found : NULL, db, choose, dc, dl, threads,
                        o->bounds_frame_bytes, &r->dtm_bytes, &r->dtm_raw, err);
    free(found[0]);
    free(found[1]);
    if (rc) return -1;
    if (t->limit)
        return write_kind(t, dir, XQF_KIND_DTC, sr, NULL, db, choose, dc, dl, threads, o->bounds_frame_bytes,
                          &r->dtc_bytes, &r->dtc_raw, err);
    /* A DTC file left by a build with a move limit would describe another
     * game than the files just written: `xqtb check` reports it as stale,
     * and nothing should read it. */
    char path[4096];
    tb_compressed_path(dir, &t->mat, XQF_KIND_DTC, path, sizeof path);
    if (unlink(path) && errno != ENOENT) {
        snprintf(err, XQ_ERR_MAX, "cannot remove the stale %.60s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}
