/*
 * compress.h - writing a solved table as the compressed WDL, DTM and DTC files
 * engines read (core/tbformat.h, docs/FORMAT.md).
 */
#ifndef XQ_COMPRESS_H
#define XQ_COMPRESS_H

#include "tb.h"
#include "tbformat.h"

typedef struct {
    uint32_t wdl_block_entries;  /* 0 = chosen per file (TB_WDL_BLOCK_BYTES) */
    uint32_t dtm_block_entries;  /* for DTM and DTC; 0 = chosen per file (TB_DTM_BLOCK_BYTES) */
    int level;                   /* the codec's level; 0 = its default (TB_LZ4HC_LEVEL, TB_ZSTD_LEVEL) */
    int threads;                 /* 0 = all cores */
    int wdl_codec, dtm_codec;    /* XQF_CODEC_LZ4 or XQF_CODEC_ZSTD; 0 = default (DTM's for DTC too) */
    int searched;                /* TB_SEARCH_*: which side's DTM and DTC entries a reader searches */
    int wdl_blocked;             /* 1: a small WDL file's blocks sized as a larger one's, not one a side
                                  * (xqf_wdl_resident; for tests and benchmarks) */
    uint32_t bounds_frame_bytes; /* search bounds a Zstandard frame holds, 0 = 1 MiB (for tests, whose
                                  * tables are too small for a second frame) */
} tb_compress_options;

/* The searched side of DTM and DTC files (docs/FORMAT.md, "Searched
 * entries"): chosen per file as the side whose stored symbols compress
 * worse (AUTO, the default), none (every entry stored, as `gen
 * --store-both` writes), or a given side to move. */
enum { TB_SEARCH_AUTO = 0, TB_SEARCH_NONE = 1, TB_SEARCH_RED = 2, TB_SEARCH_BLACK = 3 };

typedef struct {
    uint64_t legal_entries;                   /* both sides */
    uint64_t wdl_bytes, dtm_bytes, dtc_bytes; /* file sizes (DTC 0 without a move limit) */
    uint64_t wdl_raw, dtm_raw, dtc_raw;       /* symbol bytes before compression */
} tb_compress_report;

/* Default block sizes, codecs and levels, chosen by scripts/bench-compress
 * (docs/BENCHMARKS.md, "Compression").  Zstandard's level 12 costs about
 * what LZ4HC's highest level did, and higher levels gain 1-2% for two to
 * four times the time. */
enum {
    TB_WDL_BLOCK_ENTRIES = 1 << 14,
    /* A WDL file's blocks are halved, down to TB_WDL_BLOCK_ENTRIES_MIN
     * entries, until its sampled blocks average at most TB_WDL_BLOCK_BYTES
     * compressed: decoding a block is most of a cold WDL probe and grows
     * with its compressed bytes, and at about 200 bytes a block a cold
     * probe stayed near issue 14's 3 us budget, where files like KRKNN's
     * (974 bytes a block of 16384 entries) took 7.4 us (docs/BENCHMARKS.md,
     * "WDL blocks sized per file").  Measured on frames that kept their
     * 4-byte magic number, which files no longer store (format 9): 4 bytes
     * less than measured, so that the same files get the same blocks. */
    TB_WDL_BLOCK_ENTRIES_MIN = 1 << 11,
    TB_WDL_BLOCK_BYTES = 192 - 4,
    TB_DTM_BLOCK_ENTRIES = 1 << 12,
    /* A DTM or DTC file whose searched side has a horse, rook, cannon or
     * pawn has its blocks halved, down to TB_DTM_BLOCK_ENTRIES_MIN
     * entries, until its stored side's sampled blocks average at most
     * TB_DTM_BLOCK_BYTES compressed: a cold probe of a searched entry
     * decodes two or three blocks, most of them the stored side's, and a
     * block's decoding grows with its compressed bytes.  KRNKR's (624 bytes a block at 4096 entries, 337 at 2048)
     * took 25 us at 4096 and 18 at 2048; KRPKR's (460) keep 4096, where
     * its DTM file stays below the peer's (docs/BENCHMARKS.md, "DTM and
     * DTC blocks sized per file"; as TB_WDL_BLOCK_BYTES, 4 bytes less
     * than measured). */
    TB_DTM_BLOCK_ENTRIES_MIN = 1 << 10,
    TB_DTM_BLOCK_BYTES = 512 - 4,
    TB_WDL_CODEC = XQF_CODEC_ZSTD,
    TB_DTM_CODEC = XQF_CODEC_ZSTD,
    TB_ZSTD_LEVEL = 12,
    /* Level of the one block a side of a small WDL file (tbformat.h's
     * xqf_wdl_resident): at most 512 KiB of symbols, compressed once.
     * KRKAABB's 268 KB: 16,414 bytes in 13.5 ms at 12, 14,098 in 19 ms at
     * 15, 13,786 in 84 ms at 19 (docs/BENCHMARKS.md, "Small WDL files held
     * decoded"). */
    TB_WDL_RESIDENT_LEVEL = 15,
    TB_LZ4HC_LEVEL = 12,
    /* Capacity of a WDL file's Zstandard dictionary: 4 KiB was smaller
     * than 1 KiB and as small as 8-16 KiB on the files measured */
    TB_WDL_DICT_BYTES = 4096,
};

/* Path of a compressed file: DIR/NAME.xqw (kind XQF_KIND_WDL), .xqd (DTM)
 * or .xqc (DTC). */
void tb_compressed_path(const char *dir, const xq_material *m, int kind, char *buf, size_t len);

/* Writes the WDL and DTM files, and the DTC file if the table has a move
 * limit, each atomically.  0, or -1 with a message. */
int tb_compress_write(const tb_table *t, const char *dir, const tb_compress_options *o, tb_compress_report *r,
                      char err[XQ_ERR_MAX]);

/* Bytes tb_compress_write allocates at most, beside the table, for a table
 * of `entries` entries per side with the given cell width, rule set and
 * move limit, compressing on `threads` threads (memplan.h). */
uint64_t tb_compress_work_bytes(uint64_t entries, int width, int rules, int limit, int threads);

/* The symbol stream of one side exactly as a file stores it before compression
 * (for benchmarks that compare other compressors on the same data).
 * out must hold xqf_block_bytes(symbol_bytes, N) bytes.  Returns the symbol
 * bytes per entry (0 for 2-bit WDL) or -1 if out of memory. */
int tb_symbol_stream(const tb_table *t, int kind, int side, uint32_t block_entries, uint8_t *out);

#endif
