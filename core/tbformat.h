/*
 * tbformat.h - the table files (docs/FORMAT.md): the file kinds, and the
 * layout of the compressed files engines read, shared by the writer
 * (gen/compress.c), the reader (probe/file.c) and the checker (tbcheck.h).
 * All integers on disk are little-endian.
 *
 * The files of one material, each loadable on its own:
 *   NAME.xqw   WDL: 2 bits per entry (loss, draw, win), what a search needs
 *   NAME.xqd   DTM: one symbol per entry, mapped to a DTM (or draw) through
 *              a table ordered by frequency
 *   NAME.xqc   DTC (tables built with a move limit): one symbol per entry,
 *              mapped the same way to a distance to conversion
 *   NAME.xqtb  the generator's raw file (gen/rawfile.c), which engines never
 *              read
 * Each compressed file holds both sides to move, red's entries first, cut
 * into blocks of block_entries entries compressed independently by the
 * file's codec (Zstandard or LZ4, named in its header).  In a DTM or DTC
 * file most entries of one side to move (the searched side) may say only
 * "search": their value follows from a one-ply search over the other
 * side's entries and the subtables, which is what halves those files.  A
 * DTM or DTC file with a searched side also carries bounds on its stored
 * side's values, per group of entries, that let that search read only the
 * blocks that can decide it.
 */
#ifndef XQ_TBFORMAT_H
#define XQ_TBFORMAT_H

#include <stddef.h>
#include <stdint.h>

/* The file kinds, numbered here once for every reader and writer; the
 * compressed kinds come first.  The number is never stored: on disk a kind
 * is told by its magic and its extension. */
typedef enum {
    XQF_KIND_WDL = 0,
    XQF_KIND_DTM = 1,
    XQF_KIND_DTC = 2,
    XQF_KIND_RAW = 3,
    XQF_KINDS = 4,
    XQF_COMPRESSED_KINDS = 3,
} xqf_kind;

/* "xqw", "xqd", "xqc", "xqtb"; NULL for another value. */
const char *xqf_kind_ext(int kind);
/* "WDL", "DTM", "DTC", "raw"; NULL for another value. */
const char *xqf_kind_name(int kind);
/* The kind of a file extension (without the dot), or -1. */
int xqf_kind_of_ext(const char *ext);
/* The 8-byte magic of a kind (NULL for another value). */
const char *xqf_kind_magic(int kind);
/* DIR/NAME.EXT into buf (cut to len). */
void xqf_path(const char *dir, const char *name, int kind, char *buf, size_t len);

enum {
    /* format version this code reads and writes (1: LZ4 only, no codec
     * field; 2: every entry of both sides stored, no searched side; 3: a
     * WDL entry holds its value, with no capture search; 4: no codec
     * dictionary; 5: no search bounds; 6: no ruled search symbol, and
     * bounds without ruled-loss orders; 7: bounds per group of 64
     * entries; 8: u64 offsets, a whole Zstandard frame a block, and no
     * blocks of no bytes) */
    XQF_VERSION = 9,
    XQF_HEADER_SIZE = 128,
    XQF_NAME_SIZE = 36,
    XQF_INDEX_LAYOUT = 2,          /* core/index.c's numbering of entries (docs/FORMAT.md, "Index layout 2") */
    XQF_MAX_BLOCK_BYTES = 1 << 20, /* bound on one block, decompressed */
    XQF_MAX_SYMBOLS = 65536,
    XQF_MAX_DICT_BYTES = 1 << 16, /* bound on a file's codec dictionary */
    /* Revision of the generator's results.  Bumped with any change that
     * alters the content of some table (a fix, a rule change): readers
     * refuse files of another revision, and `gen` rebuilds them.  Kept per
     * repetition rule (xqf_gen_revision): the arbiters' sets asian and cxa
     * moved to revision 3 when their labels came to count chases made real
     * (docs/RULES.md), which left the other sets' tables as they were. */
    XQF_GEN_REVISION = 2,
    XQF_GEN_REVISION_ARBITERS = 3,
};

/* The generator revision a file of repetition rule `rules` must carry. */
static inline uint32_t xqf_gen_revision(uint32_t rules)
{
    return rules >= 3 /* asian, cxa */ ? XQF_GEN_REVISION_ARBITERS : XQF_GEN_REVISION;
}

/* Block codecs (header field XQF_OFF_CODEC): how every block of a file is
 * compressed.  LZ4 decodes fastest; Zstandard adds an entropy stage and
 * makes files 35-45% smaller (docs/BENCHMARKS.md, "Compression"). */
enum { XQF_CODEC_LZ4 = 1, XQF_CODEC_ZSTD = 2, XQF_CODEC_MAX = 2 };

/* WDL symbols (2 bits). */
enum { XQF_WDL_LOSS = 0, XQF_WDL_DRAW = 1, XQF_WDL_WIN = 2 };

/* Small WDL files (docs/FORMAT.md, "Small WDL files"): a WDL file whose
 * symbols, both sides decompressed, take at most this many bytes (at most
 * 2^20 entries a side) is written as one block a side, and the library
 * holds it decoded from the moment it opens it, so that no probe of it
 * decodes anything.  A block of a whole side compresses to about half
 * the bytes of the same symbols cut into the blocks a cold probe can
 * afford to decode (KRKAABB: 16,576 bytes against 43,894). */
enum { XQF_WDL_RESIDENT_BYTES = 1 << 19 };

/* Whether n bytes of packed WDL symbols hold only WDL values: 3, the one
 * 2-bit value above XQF_WDL_WIN, is never written (reader check 11). */
static inline int xqf_wdl_bytes_sound(const uint8_t *p, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++)
        if (p[i] & p[i] >> 1 & 0x55) return 0;
    return 1;
}

/* Whether a WDL file of `entries` entries a side is small in that sense. */
static inline int xqf_wdl_resident(uint64_t entries) { return entries <= 2ull * XQF_WDL_RESIDENT_BYTES; }

/* DTM-map entries: 0xFFFF is "draw"; XQF_DTM_RULED | r is a result decided
 * by a repetition ruling, r = bit 0 win (else loss), bit 1 by chase (else by
 * check), bits 2-7 the ruling's order; anything else is a DTM in plies:
 * odd = win, even = loss for the side to move. */
enum { XQF_DTM_DRAW = 0xFFFF, XQF_DTM_RULED = 0x8000 };

/* A DTM- or DTC-map entry for "found by a one-ply search": the entry is
 * one of the file's searched side (XQF_OFF_SEARCHED_SIDE), and its value is
 * what its successors give (docs/FORMAT.md, "Searched entries").  In no
 * other entry, and never in a WDL file. */
enum { XQF_SEARCH = 0xFFFE };

/* A DTM-map entry (DTM files only: in a DTC file the same value is a
 * distance) for a searched entry that is no ordinary win: a reader's search
 * gives it the same value as XQF_SEARCH, but one whose WDL value is a win
 * is a win by a ruling, so its search need only find the smallest order of
 * the ruled losses its moves reach, with no proof that none reaches an
 * ordinary loss (which reads every successor in a group holding one).  The
 * writer gives it to every searched win by a ruling, and to the searched
 * draws and losses where it continues a run of it; an ordinary win says
 * XQF_SEARCH (docs/FORMAT.md, "Searched entries"). */
enum { XQF_SEARCH_RULED = 0xFFFD };

/* Whether DTM- or DTC-map value v of a file of `kind` says "search". */
static inline int xqf_is_search(int kind, unsigned v)
{
    return v == XQF_SEARCH || (kind == XQF_KIND_DTM && v == XQF_SEARCH_RULED);
}

/* The value of a searched DTM entry (docs/FORMAT.md, "Searched entries"),
 * from its successors' DTM-map values: start with xqf_dtm_search_init, add
 * each legal move's successor value (the opponent's view), then read the
 * result.  Written once here for the reader (probe/probe.c) and the writer
 * (gen/searched.c, which stores what this does not give). */
typedef struct {
    unsigned moves, draws;
    unsigned shortest_loss, longest_win; /* ordinary DTMs reached */
    unsigned loss_order, loss_check;     /* smallest ruled-loss order, and whether a check ruling has it */
    unsigned win_order, win_check;       /* largest ruled-win order, likewise */
} xqf_dtm_search;
void xqf_dtm_search_init(xqf_dtm_search *s);
void xqf_dtm_search_add(xqf_dtm_search *s, unsigned value);
/* The DTM-map value the successors give; -1 if it would be out of range
 * (a DTM of 32768 or more: damage). */
int xqf_dtm_search_result(const xqf_dtm_search *s, unsigned *value);

/* Searched-side field: which side to move's entries may hold XQF_SEARCH. */
enum { XQF_SEARCHED_NONE = 0, XQF_SEARCHED_RED = 1, XQF_SEARCHED_BLACK = 2 };

/* DTC-map entries: 0xFFFF no ordinary result (draw, ruled, illegal);
 * XQF_DTC_BEYOND | d a cursed win or blessed loss, d plies to a capture that
 * keeps a win at all; else d plies to a conversion that keeps the result
 * under the move limit. */
enum { XQF_DTC_NONE = 0xFFFF, XQF_DTC_BEYOND = 0x8000 };

/* Largest move limit a file may record, in plies. */
enum { XQF_MAX_LIMIT = 10000 };

/* Repetition rule field: 0 every repetition draws, 1 perpetual check loses,
 * 2 perpetual check and chase lose, 4 perpetual attack loses (the CXA
 * rules); 3 is never written (core/ruleset.h's xq_rules). */
enum { XQF_REPETITION_MAX = 4 };

/* Header field offsets (bytes). */
enum {
    XQF_OFF_MAGIC = 0,           /* 8: "XQTBWDL\0", "XQTBDTM\0" or "XQTBDTC\0" */
    XQF_OFF_VERSION = 8,         /* u32 */
    XQF_OFF_HEADER_SIZE = 12,    /* u32, 128 */
    XQF_OFF_NAME = 16,           /* 36: canonical material, NUL-padded */
    XQF_OFF_INDEX_LAYOUT = 52,   /* u32 */
    XQF_OFF_ENTRIES = 56,        /* u64: N, entries per side to move */
    XQF_OFF_REPETITION = 64,     /* u32: repetition rule */
    XQF_OFF_MOVE_LIMIT = 68,     /* u32: plies, 0 = none */
    XQF_OFF_BLOCK_ENTRIES = 72,  /* u32: B */
    XQF_OFF_SYMBOL_BYTES = 76,   /* u32: WDL 0 (2 bits), DTM 1 or 2 */
    XQF_OFF_BLOCKS = 80,         /* u32: blocks per side, ceil(N / B) */
    XQF_OFF_MAX_DTM = 84,        /* i32: longest DTM, -1 if none */
    XQF_OFF_GEN_REVISION = 88,   /* u32 */
    XQF_OFF_SYMBOLS = 92,        /* u32: M, entries of the DTM map (WDL 0) */
    XQF_OFF_FILE_SIZE = 96,      /* u64 */
    XQF_OFF_META_HASH = 104,     /* u64: XXH64 of bytes [0,104) and [112, data) */
    XQF_OFF_CODEC = 112,         /* u32: XQF_CODEC_LZ4 or XQF_CODEC_ZSTD */
    XQF_OFF_SEARCHED_SIDE = 116, /* u32: XQF_SEARCHED_NONE, _RED or _BLACK */
    XQF_OFF_DICT_BYTES = 120,    /* u32: D, bytes of the codec dictionary (0: none) */
    XQF_OFF_BOUNDS_BYTES = 124,  /* u32: S, bytes of the search bounds (0: none) */
};

/* After the header, in order:
 *   DTM map      M x u16, padded with zeros to a multiple of 8 bytes
 *   dictionary   D bytes, a Zstandard dictionary every block of the file
 *                is compressed with (only with that codec), padded with
 *                zeros to a multiple of 8 bytes; absent when D is 0
 *   offsets      (2 * blocks + 1) x u32 (u64 in a file of 4 GiB or more:
 *                xqf_offset_bytes): block k (side * blocks + i) is bytes
 *                [offsets[k], offsets[k+1]) of the file
 *   checksums    2 * blocks x u64: XXH64 (seed 0) of each compressed
 *                block, after the offsets padded with zeros to a multiple
 *                of 8 bytes
 *   bounds       S bytes, a Zstandard frame of the search bounds (below),
 *                padded with zeros to a multiple of 8 bytes; absent when
 *                S is 0, and S is 0 but in a DTM or DTC file with a searched side
 *   blocks       compressed data (an LZ4 block, or a Zstandard frame
 *                without its magic number), back to back; offsets[0] is
 *                where they start; a block of no bytes repeats its side's
 *                first (xqf_block_source)
 * The meta hash covers the header (but itself) and everything up to the
 * first block, so with the per-block checksums every byte is covered. */

/* The meta hash of a file's metadata (its first meta_bytes bytes): XXH64
 * (seed 0) of bytes [0, 104) followed by [112, meta_bytes). */
uint64_t xqf_meta_hash(const uint8_t *meta, uint64_t meta_bytes);

static inline uint32_t xqf_get32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t xqf_get64(const uint8_t *p) { return xqf_get32(p) | (uint64_t)xqf_get32(p + 4) << 32; }
static inline void xqf_put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static inline void xqf_put64(uint8_t *p, uint64_t v)
{
    xqf_put32(p, (uint32_t)v);
    xqf_put32(p + 4, (uint32_t)(v >> 32));
}

/* Bytes of one block offset in a file of file_size bytes: 4 where every
 * offset fits, 8 otherwise.  Each block costs its offset and checksum
 * besides its data, and the blocks of a DTM or DTC file average a few
 * hundred bytes (docs/BENCHMARKS.md, "A block's own bytes"). */
static inline unsigned xqf_offset_bytes(uint64_t file_size) { return file_size <= 0xFFFFFFFFu ? 4 : 8; }

/* Bytes of the offsets (padded to a multiple of 8) and checksums of
 * nblocks blocks (both sides) in a file of file_size bytes. */
static inline uint64_t xqf_block_tables_bytes(uint64_t nblocks, uint64_t file_size)
{
    return ((nblocks + 1) * xqf_offset_bytes(file_size) + 7) / 8 * 8 + nblocks * 8;
}

/* How a writer lays out the block tables (docs/FORMAT.md, "Layout"): the
 * metadata's bytes for nblocks blocks (both sides) holding `data` bytes in
 * all, after `rest` bytes of header, map, dictionary and search bounds,
 * with in *width the offsets' width that the file's size then gives (the
 * offsets are part of the size they depend on). */
uint64_t xqf_meta_layout(uint64_t rest, uint64_t nblocks, uint64_t data, unsigned *width);
/* Writes the nblocks + 1 offsets, `width` bytes each, of blocks of
 * stored[k] bytes laid end to end from offset `first` (the metadata's
 * end) at p; returns the last, which is the file's size. */
uint64_t xqf_put_offsets(uint8_t *p, const uint64_t *stored, uint64_t nblocks, uint64_t first, unsigned width);

/* The checksum a file stores for a compressed block of n bytes: XXH64,
 * seed 0. */
uint64_t xqf_block_checksum(const void *data, uint64_t n);

/* Bytes one decompressed block of B entries occupies. */
static inline uint64_t xqf_block_bytes(uint32_t symbol_bytes, uint64_t entries)
{
    return symbol_bytes == 0 ? (entries + 3) / 4 : entries * symbol_bytes;
}

/* ---- reading a compressed file's header and metadata -------------------
 * The checks of docs/FORMAT.md ("What a compressed reader must check"), in
 * two steps, so that a reader can hold the metadata wherever it likes (the
 * library copies it to the heap, the checker reads it once): first the
 * 128-byte header, which says how long the metadata is, then the metadata
 * (header, symbol map, offsets, checksums), then each block on its own. */

/* Results of the checks: a file is sound, damaged, or sound but built for
 * something else (another format version, index layout, rule set field
 * value, or generator revision), which regenerating fixes. */
enum { XQF_OK = 0, XQF_CORRUPT = -1, XQF_MISMATCH = -2, XQF_NOMEM = -5 };
enum { XQF_WHY_MAX = 160 };

typedef struct {
    int kind;         /* XQF_KIND_WDL, _DTM or _DTC */
    uint64_t size;    /* bytes of the whole file */
    uint64_t entries; /* N, per side to move */
    uint32_t block_entries, blocks, symbol_bytes, nsymbols;
    int32_t max_dtm;       /* longest DTM (DTC in a DTC file), -1 if none */
    uint32_t rules;        /* repetition rule field */
    uint32_t limit;        /* move limit field, plies (0 = none) */
    uint32_t codec;        /* XQF_CODEC_LZ4 or XQF_CODEC_ZSTD */
    int searched;          /* side to move (0 red, 1 black) whose entries may be searched, -1 none */
    uint32_t dict_bytes;   /* D: the codec dictionary's bytes, 0 if none */
    uint32_t bounds_bytes; /* S: the search bounds' compressed bytes, 0 if none */
    uint64_t meta_bytes;   /* header, map, dictionary, offsets and checksums: [0, meta_bytes) */
    unsigned offset_bytes; /* 4 or 8: xqf_offset_bytes(size) */
    /* Into the metadata, once xqf_check_meta has accepted it. */
    const uint8_t *map, *dict, *offsets, *checksums, *bounds;
} xqf_info;

/* x rounded up to a multiple of 8: how the DTM map and the dictionary are
 * padded. */
static inline uint64_t xqf_pad8(uint64_t x) { return (x + 7) / 8 * 8; }

/* Checks the first XQF_HEADER_SIZE bytes h of a file of `size` bytes that
 * should be a file of `kind` for canonical material `name` with `entries`
 * entries per side, and fills f (checks 1-6 and the size field of 7).
 * RETURN: XQF_OK, XQF_CORRUPT or XQF_MISMATCH, with a reason in why (if
 * not NULL). */
int xqf_parse_header(xqf_info *f, const uint8_t *h, uint64_t size, int kind, const char *name, uint64_t entries,
                     char why[XQF_WHY_MAX]);

/* Checks the metadata meta (f->meta_bytes bytes from the start of the file,
 * header included) of a file xqf_parse_header accepted: the meta hash, the
 * offsets, the symbol map, then the rule fields (checks 6-9).  On success f's
 * map, offsets and checksums point into meta, which must outlive their use.
 * RETURN: as xqf_parse_header. */
int xqf_check_meta(xqf_info *f, const uint8_t *meta, char why[XQF_WHY_MAX]);

/* Where compressed block k (0 .. 2 * blocks - 1) lies in the file, and how
 * many bytes its symbols take decompressed. */
static inline uint64_t xqf_block_begin(const xqf_info *f, uint64_t k)
{
    return f->offset_bytes == 4 ? xqf_get32(f->offsets + 4 * k) : xqf_get64(f->offsets + 8 * k);
}
static inline uint64_t xqf_block_end(const xqf_info *f, uint64_t k) { return xqf_block_begin(f, k + 1); }
/* The checksum the file holds for block k. */
static inline uint64_t xqf_block_stored_checksum(const xqf_info *f, uint64_t k)
{
    return xqf_get64(f->checksums + 8 * k);
}
uint64_t xqf_block_symbol_bytes(const xqf_info *f, uint64_t k);
/* The block whose bytes block k decodes from: k, or for a block of no
 * bytes its side's first block, which it repeats (docs/FORMAT.md,
 * "Blocks"; a writer stores a full block that is the same as its side's
 * first as no bytes at all). */
static inline uint64_t xqf_block_source(const xqf_info *f, uint64_t k)
{
    return xqf_block_end(f, k) == xqf_block_begin(f, k) ? k - k % f->blocks : k;
}

/* Whether the compressed bytes of block k hash to its stored checksum. */
int xqf_block_sound(const xqf_info *f, uint64_t k, const uint8_t *data);

/* Most compressed bytes a block of at most XQF_MAX_BLOCK_BYTES symbols can
 * take under either codec (check 8). */
uint64_t xqf_max_compressed_bytes(void);

/* The codec dictionary of a file xqf_check_meta accepted, prepared for
 * decoding (Zstandard's digested form, about 30 KB), into *ddict: NULL for a
 * file without one.  Made once when a file is opened and shared read-only
 * by every thread that decodes its blocks.  Returns XQF_OK, XQF_CORRUPT if
 * the dictionary is not one Zstandard accepts (check 9), or XQF_NOMEM if
 * not even XQF_DDICT_ROOM bytes could be allocated after it failed. */
enum { XQF_DDICT_ROOM = 64 * 1024 };
int xqf_ddict_new(const xqf_info *f, void **ddict);
void xqf_ddict_free(void *ddict);

/* Decompresses the len bytes at src, a block of f, into out, which must
 * receive exactly `want` bytes (check 10).  ddict is the file's prepared
 * dictionary (xqf_ddict_new).  *dctx is a decoding context the caller keeps
 * between calls and releases with xqf_dctx_free (NULL at first; a
 * Zstandard block creates it).  Returns XQF_OK, XQF_CORRUPT if the block
 * does not decode to exactly `want` bytes, or XQF_NOMEM if no context could
 * be allocated. */
int xqf_block_decode(const xqf_info *f, const void *ddict, const uint8_t *src, uint64_t len, uint8_t *out,
                     uint64_t want, void **dctx);
void *xqf_dctx_new(void); /* NULL if out of memory */
void xqf_dctx_free(void *dctx);

/* ---- search bounds ---------------------------------------------------------
 * Of the stored side (the side not searched) of a DTM or DTC file with a
 * searched side, per group of xqf_bounds_group(kind) consecutive entries, bounds
 * on the values the blocks hold (the fillers of illegal entries included,
 * so that a reader can recompute them from the blocks).  A searched
 * entry's one-ply search reads a successor's block only while the
 * successor's group can still change the value (docs/FORMAT.md, "Search
 * bounds").  A DTM file's groups are of 16 entries (64 in version 7):
 * they cost about 6% of the DTM bytes and spare a cold searched probe a
 * third of the blocks it decodes; a DTC file's stay at 64, where 16 cost
 * 9% of the DTC bytes and as much compression time as the DTM bounds for
 * less off a probe (docs/BENCHMARKS.md, "Search bounds per 16 entries").
 * On disk, one Zstandard frame per MiB of them, the last shorter.
 * Decompressed, with G groups (entries / xqf_bounds_group(kind), rounded
 * up), a DTM file's are:
 *   loss      G bytes: b for a shortest loss of 2b plies (b capped at
 *             XQF_BOUND_CAP: the shortest is then at least 2 * cap),
 *             XQF_BOUND_NONE if the group holds no ordinary loss;
 *   win       G bytes: b + 1 for a longest win of 2b + 1 plies, 0 if the
 *             group holds no ordinary win, XQF_BOUND_OPEN if b + 1 would
 *             be XQF_BOUND_OPEN or more (no bound);
 *   all wins  ceil(G / 8) bytes: bit g % 8 of byte g / 8 set if every
 *             entry of group g is an ordinary win;
 *   ruled     G bytes: the smallest order of a loss by a ruling in the
 *             group (1-63), XQF_BOUND_NONE if it holds none, which is
 *             what a search for a ruled win (XQF_SEARCH_RULED) reads by.
 * A DTC file's, over its distances that hold (DTC codes below
 * XQF_DTC_BEYOND), which a DTC search reads:
 *   near      G bytes: the smallest such distance d (capped at
 *             XQF_BOUND_CAP), XQF_BOUND_NONE if the group holds none;
 *   far       G bytes: d + 1 for the largest, 0 if none, XQF_BOUND_OPEN
 *             if d + 1 would be XQF_BOUND_OPEN or more;
 *   all hold  ceil(G / 8) bytes: bit g % 8 of byte g / 8 set if every
 *             entry of group g holds such a distance (none is "none" or
 *             a cursed win's or blessed loss's). */
enum { XQF_BOUND_NONE = 0xFF, XQF_BOUND_OPEN = 0xFF, XQF_BOUND_CAP = 0xFE };

/* Entries per group of a file of `kind` (DTM or DTC), a power of two:
 * entry i is in group i >> xqf_bounds_shift(kind). */
static inline unsigned xqf_bounds_shift(int kind) { return kind == XQF_KIND_DTM ? 4 : 6; }
static inline uint32_t xqf_bounds_group(int kind) { return 1u << xqf_bounds_shift(kind); }
static inline uint64_t xqf_bounds_groups(int kind, uint64_t entries)
{
    return (entries + xqf_bounds_group(kind) - 1) / xqf_bounds_group(kind);
}
/* Bytes of the decompressed bounds of a file of `kind` (DTM or DTC). */
static inline uint64_t xqf_bounds_raw_bytes(int kind, uint64_t entries)
{
    uint64_t g = xqf_bounds_groups(kind, entries);
    return (kind == XQF_KIND_DTM ? 3 : 2) * g + (g + 7) / 8;
}
/* Bounds of no value yet (xqf_bounds_raw_bytes(kind, entries) bytes at raw). */
void xqf_bounds_clear(uint8_t *raw, int kind, uint64_t entries);
/* Folds map value v (a DTM, or a DTC code) of entry i into the bounds. */
void xqf_bounds_fold(uint8_t *raw, int kind, uint64_t entries, uint64_t i, unsigned v);
/* Decompresses the bounds of a file xqf_check_meta accepted into raw
 * (xqf_bounds_raw_bytes(f->kind, f->entries) bytes).  XQF_OK, XQF_CORRUPT
 * if they do not decode to exactly that many bytes, XQF_NOMEM. */
int xqf_bounds_decode(const xqf_info *f, uint8_t *raw);

/* The least DTM an ordinary loss in group g may have, -1 if none. */
static inline int xqf_bound_loss(const uint8_t *raw, uint64_t g) { return raw[g] == XQF_BOUND_NONE ? -1 : 2 * raw[g]; }
/* The greatest DTM an ordinary win in group g may have, -1 if none,
 * INT32_MAX if unbounded; `groups` as xqf_bounds_groups. */
static inline int32_t xqf_bound_win(const uint8_t *raw, uint64_t groups, uint64_t g)
{
    uint8_t b = raw[groups + g];
    return b == 0 ? -1 : b == XQF_BOUND_OPEN ? INT32_MAX : 2 * (b - 1) + 1;
}
/* DTM: whether every entry of group g is an ordinary win; DTC: whether
 * every one holds a distance. */
static inline int xqf_bound_all(const uint8_t *raw, uint64_t groups, uint64_t g)
{
    return raw[2 * groups + g / 8] >> (g % 8) & 1;
}
/* The least order a loss by a ruling in group g may have, 64 if none. */
static inline int xqf_bound_ruled_loss(const uint8_t *raw, uint64_t groups, uint64_t g)
{
    uint8_t b = raw[2 * groups + (groups + 7) / 8 + g];
    return b == XQF_BOUND_NONE ? 64 : b;
}
/* DTC: the least distance that holds in group g, -1 if none. */
static inline int xqf_bound_near(const uint8_t *raw, uint64_t g) { return raw[g] == XQF_BOUND_NONE ? -1 : raw[g]; }
/* DTC: one more than the greatest distance that holds in group g, 0 if
 * none, INT32_MAX if unbounded. */
static inline int32_t xqf_bound_far(const uint8_t *raw, uint64_t groups, uint64_t g)
{
    uint8_t b = raw[groups + g];
    return b == XQF_BOUND_OPEN ? INT32_MAX : b;
}
/* Starts loading group g's bounds of a file of `kind` (its three or four
 * arrays) into the processor's cache, for a reader about to look at the
 * bounds of several groups far apart: their misses then overlap. */
static inline void xqf_bounds_prefetch(int kind, const uint8_t *raw, uint64_t groups, uint64_t g)
{
    __builtin_prefetch(raw + g);
    __builtin_prefetch(raw + groups + g);
    __builtin_prefetch(raw + 2 * groups + g / 8);
    if (kind == XQF_KIND_DTM) __builtin_prefetch(raw + 2 * groups + (groups + 7) / 8 + g);
}

#endif
