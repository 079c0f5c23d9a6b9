/*
 * tbformat.c - file kinds, and the checks of a compressed file's header and
 * metadata (docs/FORMAT.md, "What a compressed reader must check"; the
 * numbers in the comments are that list's).  Every number read from a file
 * is bounded before it is used as a size or an offset, so a damaged or
 * hostile file is refused, never followed.
 */
#include "tbformat.h"

#include <lz4.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>
#define XXH_STATIC_LINKING_ONLY /* XXH64_state_t on the stack: no allocation to fail */
#include <xxhash.h>

#include "ruleset.h"

/* A decoding context (xqf_dctx_new): Zstandard's, and room for a block's
 * frame with its magic number put back (xqf_block_decode). */
typedef struct {
    ZSTD_DCtx *z;
    uint8_t *frame;
    size_t cap;
} xqf_dctx;

static const char *const kind_ext[XQF_KINDS] = {"xqw", "xqd", "xqc", "xqtb"};
static const char *const kind_name[XQF_KINDS] = {"WDL", "DTM", "DTC", "raw"};
static const char kind_magic[XQF_KINDS][8] = {
    {'X', 'Q', 'T', 'B', 'W', 'D', 'L', 0},
    {'X', 'Q', 'T', 'B', 'D', 'T', 'M', 0},
    {'X', 'Q', 'T', 'B', 'D', 'T', 'C', 0},
    {'X', 'Q', 'T', 'B', 'R', 'A', 'W', 0},
};

const char *xqf_kind_ext(int kind) { return kind >= 0 && kind < XQF_KINDS ? kind_ext[kind] : NULL; }
const char *xqf_kind_name(int kind) { return kind >= 0 && kind < XQF_KINDS ? kind_name[kind] : NULL; }
const char *xqf_kind_magic(int kind) { return kind >= 0 && kind < XQF_KINDS ? kind_magic[kind] : NULL; }

int xqf_kind_of_ext(const char *ext)
{
    for (int k = 0; ext && k < XQF_KINDS; k++)
        if (!strcmp(ext, kind_ext[k])) return k;
    return -1;
}

void xqf_path(const char *dir, const char *name, int kind, char *buf, size_t len)
{
    const char *ext = xqf_kind_ext(kind);
    snprintf(buf, len, "%s/%s.%s", dir, name, ext ? ext : "?");
}

/* Returns rc after writing the reason, if the caller wants one. */
static int refuse(int rc, char *why, const char *fmt, ...)
{
    if (why) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, XQF_WHY_MAX, fmt, ap);
        va_end(ap);
    }
    return rc;
}

int xqf_parse_header(xqf_info *f, const uint8_t *h, uint64_t size, int kind, const char *name, uint64_t entries,
                     char why[XQF_WHY_MAX])
{
    memset(f, 0, sizeof *f);
    f->searched = -1;
    if (kind < 0 || kind >= XQF_COMPRESSED_KINDS) return refuse(XQF_CORRUPT, why, "not a compressed file kind");
    /* 1 */
    if (size < XQF_HEADER_SIZE)
        return refuse(XQF_CORRUPT, why, "only %llu bytes, shorter than a header", (unsigned long long)size);
    if (memcmp(h, kind_magic[kind], 8)) return refuse(XQF_CORRUPT, why, "not a %s file (bad magic)", kind_name[kind]);
    /* 2: a newer format may not even hash the same way, so these come
     * before anything that relies on the layout */
    uint32_t version = xqf_get32(h + XQF_OFF_VERSION), layout = xqf_get32(h + XQF_OFF_INDEX_LAYOUT);
    if (version != XQF_VERSION)
        return refuse(XQF_MISMATCH, why, "format version %u, this reader knows %d: regenerate it", version,
                      XQF_VERSION);
    if (layout != XQF_INDEX_LAYOUT)
        return refuse(XQF_MISMATCH, why, "index layout %u, this reader knows %d: regenerate it", layout,
                      XQF_INDEX_LAYOUT);
    if (xqf_get32(h + XQF_OFF_HEADER_SIZE) != XQF_HEADER_SIZE) return refuse(XQF_CORRUPT, why, "bad header size field");
    /* 3 */
    char fname[XQF_NAME_SIZE + 1];
    memcpy(fname, h + XQF_OFF_NAME, XQF_NAME_SIZE);
    fname[XQF_NAME_SIZE] = 0;
    if (strcmp(fname, name)) return refuse(XQF_CORRUPT, why, "the header names another material");
    if (xqf_get64(h + XQF_OFF_ENTRIES) != entries)
        return refuse(XQF_CORRUPT, why, "the header's entry count is not the size of %s's index", name);
    f->kind = kind;
    f->size = size;
    f->entries = entries;
    f->block_entries = xqf_get32(h + XQF_OFF_BLOCK_ENTRIES);
    f->symbol_bytes = xqf_get32(h + XQF_OFF_SYMBOL_BYTES);
    f->blocks = xqf_get32(h + XQF_OFF_BLOCKS);
    f->max_dtm = (int32_t)xqf_get32(h + XQF_OFF_MAX_DTM);
    f->nsymbols = xqf_get32(h + XQF_OFF_SYMBOLS);
    /* 5 */
    if (f->block_entries == 0 || f->block_entries % 4 ||
        xqf_block_bytes(f->symbol_bytes, f->block_entries) > XQF_MAX_BLOCK_BYTES)
        return refuse(XQF_CORRUPT, why, "bad block size");
    if ((uint64_t)f->blocks != (entries + f->block_entries - 1) / f->block_entries)
        return refuse(XQF_CORRUPT, why, "bad block count");
    /* 6 */
    uint32_t searched = xqf_get32(h + XQF_OFF_SEARCHED_SIDE);
    if (searched > XQF_SEARCHED_BLACK || (kind == XQF_KIND_WDL && searched != XQF_SEARCHED_NONE))
        return refuse(XQF_CORRUPT, why, "bad searched-side field %u", searched);
    f->searched = (int)searched - 1;
    if (kind == XQF_KIND_WDL) {
        if (f->symbol_bytes != 0 || f->nsymbols != 0) return refuse(XQF_CORRUPT, why, "bad symbol fields");
    } else if (f->symbol_bytes < 1 || f->symbol_bytes > 2 || f->nsymbols < 1 || f->nsymbols > XQF_MAX_SYMBOLS ||
               (f->symbol_bytes == 1 && f->nsymbols > 256)) {
        return refuse(XQF_CORRUPT, why, "bad symbol fields");
    }
    /* 7 */
    if (xqf_get64(h + XQF_OFF_FILE_SIZE) != size)
        return refuse(XQF_CORRUPT, why, "%llu bytes, but the header says %llu (truncated or extended)",
                      (unsigned long long)size, (unsigned long long)xqf_get64(h + XQF_OFF_FILE_SIZE));
    f->dict_bytes = xqf_get32(h + XQF_OFF_DICT_BYTES);
    if (f->dict_bytes > XQF_MAX_DICT_BYTES) return refuse(XQF_CORRUPT, why, "bad dictionary size");
    /* 4: search bounds only where there is a search, and no larger than
     * their frame can be */
    f->bounds_bytes = xqf_get32(h + XQF_OFF_BOUNDS_BYTES);
    if (f->bounds_bytes && (kind == XQF_KIND_WDL || f->searched < 0 ||
                            f->bounds_bytes > ZSTD_compressBound((size_t)xqf_bounds_raw_bytes(kind, entries))))
        return refuse(XQF_CORRUPT, why, "bad search bounds size");
    uint64_t map_bytes = kind != XQF_KIND_WDL ? xqf_pad8((uint64_t)f->nsymbols * 2) : 0;
    uint64_t nblocks = 2 * (uint64_t)f->blocks;
    f->offset_bytes = xqf_offset_bytes(size);
    f->meta_bytes = XQF_HEADER_SIZE + map_bytes + xqf_pad8(f->dict_bytes) + xqf_block_tables_bytes(nblocks, size) +
                    xqf_pad8(f->bounds_bytes);
    if (f->meta_bytes > size) return refuse(XQF_CORRUPT, why, "the block tables do not fit in the file");
    return XQF_OK;
}

/* 6: every map value is one a reader can interpret. */
static int check_map(const xqf_info *f, char *why)
{
    for (uint32_t i = 0; i < f->nsymbols; i++) {
        unsigned v = (unsigned)f->map[2 * i] | (unsigned)f->map[2 * i + 1] << 8;
        if (xqf_is_search(f->kind, v)) {
            if (f->searched < 0) return refuse(XQF_CORRUPT, why, "a search symbol in a file without a searched side");
        } else if (f->kind == XQF_KIND_DTC) {
            if (v != XQF_DTC_NONE && (int64_t)(v & ~(unsigned)XQF_DTC_BEYOND) > f->max_dtm)
                return refuse(XQF_CORRUPT, why, "DTC map value %u beyond the longest DTC", v);
        } else if (v == XQF_DTM_DRAW) {
            continue;
        } else if (v & XQF_DTM_RULED) {
            /* order 1..63 in bits 2-7, nothing above bit 7 */
            if ((v & 0x7F00) || (v & 0xFF) >> 2 == 0) return refuse(XQF_CORRUPT, why, "bad ruled map value %u", v);
        } else if ((int64_t)v > f->max_dtm) {
            return refuse(XQF_CORRUPT, why, "DTM map value %u beyond the longest DTM", v);
        }
    }
    return XQF_OK;
}

/* 9 (the rest): the rulings a DTM map's ruled values name are those of
 * the file's rule set: none under none, perpetual check (bit 1 clear)
 * under check, perpetual attack (bit 1 set) under cxa (full and asian
 * name both). */
static int check_map_rulings(const xqf_info *f, char *why)
{
    if (f->kind != XQF_KIND_DTM) return XQF_OK;
    for (uint32_t i = 0; i < f->nsymbols; i++) {
        unsigned v = (unsigned)f->map[2 * i] | (unsigned)f->map[2 * i + 1] << 8;
        if (v == XQF_SEARCH_RULED && f->rules == XQ_RULES_NONE)
            return refuse(XQF_CORRUPT, why, "a ruled search symbol in a file of rule set none");
        if (xqf_is_search(f->kind, v) || v == XQF_DTM_DRAW || !(v & XQF_DTM_RULED)) continue;
        int chase = (v & 2) != 0;
        if (f->rules == XQ_RULES_NONE || (f->rules == XQ_RULES_CHECK && chase) || (f->rules == XQ_RULES_CXA && !chase))
            return refuse(XQF_CORRUPT, why, "ruled map value %u in a file of rule set %s", v,
                          xq_rules_name((int)f->rules));
    }
    return XQF_OK;
}

int xqf_check_meta(xqf_info *f, const uint8_t *meta, char why[XQF_WHY_MAX])
{
    uint64_t map_bytes = f->kind != XQF_KIND_WDL ? xqf_pad8((uint64_t)f->nsymbols * 2) : 0;
    uint64_t nblocks = 2 * (uint64_t)f->blocks;
    /* 7: the meta hash covers the header but itself, and everything up to
     * the first block, so with the block checksums every byte is covered */
    if (xqf_meta_hash(meta, f->meta_bytes) != xqf_get64(meta + XQF_OFF_META_HASH))
        return refuse(XQF_CORRUPT, why, "header or block tables damaged (meta checksum)");
    f->map = meta + XQF_HEADER_SIZE;
    f->dict = f->map + map_bytes;
    f->offsets = f->dict + xqf_pad8(f->dict_bytes);
    f->checksums = f->offsets + xqf_pad8((nblocks + 1) * f->offset_bytes);
    f->bounds = f->bounds_bytes ? f->offsets + xqf_block_tables_bytes(nblocks, f->size) : NULL;
    /* 8 */
    if (xqf_block_begin(f, 0) != f->meta_bytes) return refuse(XQF_CORRUPT, why, "the first block is misplaced");
    uint64_t prev = f->meta_bytes, bound = xqf_max_compressed_bytes();
    for (uint64_t k = 1; k <= nblocks; k++) {
        uint64_t o = xqf_block_begin(f, k);
        if (o < prev || o > f->size || o - prev > bound)
            return refuse(XQF_CORRUPT, why, "block %llu is out of bounds", (unsigned long long)(k - 1));
        prev = o;
    }
    if (prev != f->size) return refuse(XQF_CORRUPT, why, "the blocks do not end at the end of the file");
    /* a block of no bytes repeats its side's first, which must have some */
    for (int s = 0; s < 2; s++)
        if (xqf_block_end(f, (uint64_t)s * f->blocks) == xqf_block_begin(f, (uint64_t)s * f->blocks))
            return refuse(XQF_CORRUPT, why, "the first block of a side is empty");
    int rc = check_map(f, why);
    if (rc != XQF_OK) return rc;
    /* 9: only now, with the header known intact, so that a damaged field
     * reads as damage and only a sound file built otherwise as a mismatch */
    f->rules = xqf_get32(meta + XQF_OFF_REPETITION);
    f->limit = xqf_get32(meta + XQF_OFF_MOVE_LIMIT);
    uint32_t revision = xqf_get32(meta + XQF_OFF_GEN_REVISION);
    f->codec = xqf_get32(meta + XQF_OFF_CODEC);
    if (f->codec < XQF_CODEC_LZ4 || f->codec > XQF_CODEC_MAX)
        return refuse(XQF_MISMATCH, why, "block codec %u is unknown to this reader", f->codec);
    /* a dictionary only for a codec that has them, and in Zstandard's
     * dictionary format (its magic and entropy tables), not raw content */
    if (f->dict_bytes && (f->codec != XQF_CODEC_ZSTD || ZSTD_getDictID_fromDict(f->dict, f->dict_bytes) == 0))
        return refuse(XQF_CORRUPT, why, "the codec dictionary is damaged");
    if (f->rules > XQF_REPETITION_MAX || !xq_rules_for_tables((int)f->rules))
        return refuse(XQF_MISMATCH, why, "repetition rule %u is unknown to this reader", f->rules);
    if ((rc = check_map_rulings(f, why)) != XQF_OK) return rc;
    if (f->limit > XQF_MAX_LIMIT)
        return refuse(XQF_MISMATCH, why, "move limit %u is beyond %d", f->limit, XQF_MAX_LIMIT);
    if (revision != xqf_gen_revision(f->rules))
        return refuse(XQF_MISMATCH, why, "built by generator revision %u, not %u: regenerate it", revision,
                      xqf_gen_revision(f->rules));
    /* a DTC file exists only for a move limit */
    if (f->kind == XQF_KIND_DTC && f->limit == 0) return refuse(XQF_CORRUPT, why, "a DTC file without a move limit");
    return XQF_OK;
}

uint64_t xqf_block_symbol_bytes(const xqf_info *f, uint64_t k)
{
    uint64_t first = (k % f->blocks) * f->block_entries;
    uint64_t count = f->entries - first < f->block_entries ? f->entries - first : f->block_entries;
    return xqf_block_bytes(f->symbol_bytes, count);
}

uint64_t xqf_block_checksum(const void *data, uint64_t n) { return XXH64(data, (size_t)n, 0); }

uint64_t xqf_meta_layout(uint64_t rest, uint64_t nblocks, uint64_t data, unsigned *width)
{
    uint64_t meta = rest + xqf_block_tables_bytes(nblocks, 0);
    /* u32 offsets unless the file they give is 4 GiB or more; the wider
     * tables only make it larger, so the width then stays 8 */
    if (xqf_offset_bytes(meta + data) != 4) meta = rest + xqf_block_tables_bytes(nblocks, UINT64_MAX);
    *width = xqf_offset_bytes(meta + data);
    return meta;
}

uint64_t xqf_put_offsets(uint8_t *p, const uint64_t *stored, uint64_t nblocks, uint64_t first, unsigned width)
{
    uint64_t off = first;
    for (uint64_t k = 0; k <= nblocks; k++) {
        if (width == 4)
            xqf_put32(p + 4 * k, (uint32_t)off);
        else
            xqf_put64(p + 8 * k, off);
        if (k < nblocks) off += stored[k];
    }
    return off;
}

int xqf_block_sound(const xqf_info *f, uint64_t k, const uint8_t *data)
{
    uint64_t n = xqf_block_end(f, k) - xqf_block_begin(f, k);
    return xqf_block_checksum(data, n) == xqf_block_stored_checksum(f, k);
}

uint64_t xqf_meta_hash(const uint8_t *meta, uint64_t meta_bytes)
{
    XXH64_state_t st;
    XXH64_reset(&st, 0);
    XXH64_update(&st, meta, XQF_OFF_META_HASH);
    XXH64_update(&st, meta + XQF_OFF_META_HASH + 8, (size_t)(meta_bytes - XQF_OFF_META_HASH - 8));
    return XXH64_digest(&st);
}

uint64_t xqf_max_compressed_bytes(void)
{
    uint64_t lz4 = (uint64_t)LZ4_compressBound(XQF_MAX_BLOCK_BYTES), zstd = ZSTD_compressBound(XQF_MAX_BLOCK_BYTES);
    return lz4 > zstd ? lz4 : zstd;
}

int xqf_ddict_new(const xqf_info *f, void **ddict)
{
    *ddict = NULL;
    if (!f->dict_bytes) return XQF_OK;
    /* Digesting the dictionary once (its Huffman and FSE tables) is what
     * makes a dictionary pay: a block then decodes without building tables
     * of its own (docs/BENCHMARKS.md, "A dictionary for WDL files"). */
    *ddict = ZSTD_createDDict(f->dict, f->dict_bytes);
    if (*ddict) return XQF_OK;
    /* Zstandard answers NULL for a malformed dictionary and for want of
     * memory alike: if as much again as a digested dictionary takes cannot
     * be had either, the memory is what failed, not the file. */
    void *room = malloc(XQF_DDICT_ROOM);
    int had_room = room != NULL;
    free(room);
    return had_room ? XQF_CORRUPT : XQF_NOMEM;
}

void xqf_ddict_free(void *ddict) { ZSTD_freeDDict(ddict); }

int xqf_block_decode(const xqf_info *f, const void *ddict, const uint8_t *src, uint64_t len, uint8_t *out,
                     uint64_t want, void **dctx)
{
    if (f->codec == XQF_CODEC_LZ4) {
        int got = LZ4_decompress_safe((const char *)src, (char *)out, (int)len, (int)want);
        return got >= 0 && (uint64_t)got == want ? XQF_OK : XQF_CORRUPT;
    }
    if (f->codec != XQF_CODEC_ZSTD) return XQF_CORRUPT;
    if (!*dctx && !(*dctx = xqf_dctx_new())) return XQF_NOMEM;
    if (f->dict_bytes && !ddict) return XQF_CORRUPT;
    /* The block is a frame without its magic number, which every frame of
     * the file would repeat: it is put back in front of a copy, which
     * costs a few tens of nanoseconds against microseconds of decoding
     * (Zstandard's own way to read such frames, ZSTD_d_format, is in its
     * experimental API). */
    xqf_dctx *d = *dctx;
    if (len > SIZE_MAX - 4) return XQF_CORRUPT;
    if (len + 4 > d->cap) {
        uint8_t *grown = realloc(d->frame, (size_t)len + 4);
        if (!grown) return XQF_NOMEM;
        d->frame = grown;
        d->cap = (size_t)len + 4;
    }
    xqf_put32(d->frame, ZSTD_MAGICNUMBER);
    memcpy(d->frame + 4, src, (size_t)len);
    /* A frame that claims more than `want` bytes fails with "destination
     * too small" rather than writing past out. */
    size_t got = ddict ? ZSTD_decompress_usingDDict(d->z, out, (size_t)want, d->frame, (size_t)len + 4, ddict)
                       : ZSTD_decompressDCtx(d->z, out, (size_t)want, d->frame, (size_t)len + 4);
    return !ZSTD_isError(got) && got == want ? XQF_OK : XQF_CORRUPT;
}

void xqf_bounds_clear(uint8_t *raw, int kind, uint64_t entries)
{
    uint64_t g = xqf_bounds_groups(kind, entries);
    memset(raw, XQF_BOUND_NONE, g);
    memset(raw + g, 0, g);
    memset(raw + 2 * g, 0xFF, (g + 7) / 8);
    if (kind == XQF_KIND_DTM) memset(raw + 2 * g + (g + 7) / 8, XQF_BOUND_NONE, g);
}

/* A DTC code into the bounds of its group g. */
static void dtc_bounds_fold(uint8_t *raw, uint64_t groups, uint64_t g, unsigned v)
{
    if (v == XQF_DTC_NONE || (v & XQF_DTC_BEYOND)) {
        raw[2 * groups + g / 8] &= (uint8_t) ~(1u << (g % 8)); /* not every entry holds */
        return;
    }
    unsigned near = v > XQF_BOUND_CAP ? XQF_BOUND_CAP : v, far = v + 1 >= XQF_BOUND_OPEN ? XQF_BOUND_OPEN : v + 1;
    if (near < raw[g]) raw[g] = (uint8_t)near;
    if (far > raw[groups + g]) raw[groups + g] = (uint8_t)far;
}

void xqf_bounds_fold(uint8_t *raw, int kind, uint64_t entries, uint64_t i, unsigned v)
{
    uint64_t groups = xqf_bounds_groups(kind, entries), g = i >> xqf_bounds_shift(kind);
    if (kind == XQF_KIND_DTC) {
        dtc_bounds_fold(raw, groups, g, v);
        return;
    }
    if ((v & XQF_DTM_RULED) || !(v & 1))
        raw[2 * groups + g / 8] &= (uint8_t) ~(1u << (g % 8)); /* not an ordinary win */
    if (v != XQF_DTM_DRAW && (v & XQF_DTM_RULED) && !(v & 1)) {
        uint8_t *order = raw + 2 * groups + (groups + 7) / 8 + g; /* a loss by a ruling */
        if (((v & 0xFF) >> 2) < *order) *order = (uint8_t)((v & 0xFF) >> 2);
    }
    if (v & XQF_DTM_RULED) return; /* a ruled result, or a draw */
    if (!(v & 1)) {
        unsigned b = v / 2 > XQF_BOUND_CAP ? XQF_BOUND_CAP : v / 2;
        if (b < raw[g]) raw[g] = (uint8_t)b;
    } else {
        unsigned b = (v - 1) / 2 + 1 >= XQF_BOUND_OPEN ? XQF_BOUND_OPEN : (v - 1) / 2 + 1;
        if (b > raw[groups + g]) raw[groups + g] = (uint8_t)b;
    }
}

int xqf_bounds_decode(const xqf_info *f, uint8_t *raw)
{
    if (!f->bounds_bytes) return XQF_CORRUPT;
    ZSTD_DCtx *d = ZSTD_createDCtx();
    if (!d) return XQF_NOMEM;
    size_t want = (size_t)xqf_bounds_raw_bytes(f->kind, f->entries);
    size_t got = ZSTD_decompressDCtx(d, raw, want, f->bounds, f->bounds_bytes);
    ZSTD_freeDCtx(d);
    return !ZSTD_isError(got) && got == want ? XQF_OK : XQF_CORRUPT;
}

void *xqf_dctx_new(void)
{
    xqf_dctx *d = calloc(1, sizeof *d);
    if (d && !(d->z = ZSTD_createDCtx())) {
        free(d);
        d = NULL;
    }
    return d;
}

void xqf_dctx_free(void *dctx)
{
    xqf_dctx *d = dctx;
    if (!d) return;
    ZSTD_freeDCtx(d->z);
    free(d->frame);
    free(d);
}

/* The rule of docs/FORMAT.md, "Searched entries", DTM: the fastest move into
 * an ordinary loss for the opponent wins one ply later (the Bellman
 * conditions, gen/verify.c).  With none, a move into a loss decided by a
 * ruling makes a win by the rulings, of the smallest order such a move
 * reaches, by the chase ruling only if every move of that order reaches a
 * result of that ruling; with none of those, a move into a draw draws;
 * with none of those, a move into a win by a ruling makes a loss by the
 * rulings, of the largest order such a move reaches (by chase likewise);
 * otherwise every move reaches an ordinary win and the slowest gives a
 * loss one ply later (no move: a loss in 0). */
void xqf_dtm_search_init(xqf_dtm_search *s)
{
    memset(s, 0, sizeof *s);
    s->shortest_loss = XQF_DTM_RULED;
    s->loss_order = 64;
}

void xqf_dtm_search_add(xqf_dtm_search *s, unsigned v)
{
    s->moves++;
    if (v == XQF_DTM_DRAW) {
        s->draws++;
    } else if (v & XQF_DTM_RULED) {
        unsigned order = (v & 0xFF) >> 2, check = !(v & 2);
        if (!(v & 1)) {
            if (order < s->loss_order) s->loss_order = order, s->loss_check = 0;
            if (order == s->loss_order) s->loss_check |= check;
        } else {
            if (order > s->win_order) s->win_order = order, s->win_check = 0;
            if (order == s->win_order) s->win_check |= check;
        }
    } else if (v & 1) {
        if (v > s->longest_win) s->longest_win = v;
    } else if (v < s->shortest_loss) {
        s->shortest_loss = v;
    }
}

int xqf_dtm_search_result(const xqf_dtm_search *s, unsigned *v)
{
    if (s->shortest_loss != XQF_DTM_RULED)
        *v = s->shortest_loss + 1;
    else if (s->loss_order < 64)
        *v = XQF_DTM_RULED | s->loss_order << 2 | (s->loss_check ? 0 : 2) | 1;
    else if (s->draws)
        *v = XQF_DTM_DRAW;
    else if (s->win_order)
        *v = XQF_DTM_RULED | s->win_order << 2 | (s->win_check ? 0 : 2);
    else if (s->longest_win + 1 < XQF_DTM_RULED)
        *v = s->moves ? s->longest_win + 1 : 0;
    else
        return -1;
    return 0;
}
