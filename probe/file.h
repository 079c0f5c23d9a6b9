/*
 * file.h - one compressed table file (core/tbformat.h), checked before any
 * of it is trusted, and read block by block.
 *
 * The file is not mapped: a small file is read whole into the heap when
 * it is opened; of a larger one, the metadata (header, symbol map, block
 * offsets and checksums) is copied to the heap, and each block is read
 * with pread when the cache misses it.  A mapping would turn a file
 * truncated under a running engine into SIGBUS; a read turns it into a
 * short read, and a block rewritten in place into a checksum that no
 * longer matches the copy taken at open.  When a read fails, the file's
 * identity (device, inode, size, modification time) tells a file changed
 * in place from a damaged one; a changed file is then refused whole.
 */
#ifndef XQ_PROBE_FILE_H
#define XQ_PROBE_FILE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "tbformat.h"

typedef struct {
    xqf_info info; /* header fields; map, offsets, checksums point into meta */
    uint8_t *meta; /* copy of the file's bytes [0, info.meta_bytes), or of
                    * the whole file if whole */
    void *ddict;   /* the codec dictionary, prepared once (NULL if none) */
    int whole;     /* the file was read whole: no descriptor, no reads */
    /* A small WDL file read whole (xqf_wdl_resident) is also held decoded:
     * each side's symbols packed as its blocks decompress, side 1's from
     * byte resident_side on.  NULL otherwise: blocks go through the cache. */
    uint8_t *resident;
    uint64_t resident_side;
    /* A DTM file's search bounds (tbformat.h), decompressed when the file
     * is opened, NULL if it has none. */
    uint8_t *bounds;
    uint64_t bounds_groups;
    /* A DTM or DTC file's searched side is mostly "search": where more than
     * half of its full blocks are the same bytes, that block decoded when
     * the file is opened (its checksum and compressed length beside it),
     * so that a probe of any of them decodes nothing (xqf_common_symbol).
     * NULL otherwise. */
    uint8_t *common;
    uint64_t common_sum, common_len;
    int fd; /* open for the handle's life, -1 if whole or closed */
    /* What the file was when it was opened. */
    dev_t dev;
    ino_t ino;
    off_t size;
    struct timespec mtime;
    int changed; /* set once a read found the file changed (atomic) */
} xqf_file;

/* A growing buffer for one compressed block, owned by the caller (one per
 * cache shard, used under its lock). */
typedef struct {
    uint8_t *data;
    size_t cap;
    void *dctx; /* the codec's decoding context, made at the first block that needs one */
} xqf_scratch;

/* Releases what a scratch holds and empties it. */
void xqf_scratch_free(xqf_scratch *scratch);

/* Opens `path` and checks it: header fields against what the reader
 * expects (kind, material name, index size), the metadata (meta checksum,
 * offsets, symbol map), then the rule fields and generator revision.
 * Returns XQTB_OK or a negative xqtb_status (XQTB_ERR_IO, XQTB_ERR_CORRUPT,
 * XQTB_ERR_MISMATCH, XQTB_ERR_NOMEM); nothing stays open on error.  A file
 * of at most whole_max bytes is read whole and closed: its blocks are then
 * decompressed from memory, and a small WDL file among those is decoded
 * whole there and then (xqf_wdl_resident; every block checked first, a
 * damaged one failing the open with XQTB_ERR_CORRUPT). */
int xqf_open(xqf_file *f, const char *path, int kind, const char *name, uint64_t entries, size_t whole_max);
/* A file's search bounds are decompressed by xqf_open as well: a frame
 * that does not decode to the size they must have fails the open with
 * XQTB_ERR_CORRUPT. */
void xqf_close(xqf_file *f);

/* Reads block k (0 .. 2*blocks-1) through scratch, checks its checksum and
 * decompresses it into out.  *n receives the bytes written.  Returns
 * XQTB_OK, XQTB_ERR_NOMEM, or XQTB_ERR_CORRUPT (damaged block, or the file
 * changed since it was opened: then f->changed is set too). */
int xqf_read_block(xqf_file *f, uint64_t k, xqf_scratch *scratch, uint8_t *out, size_t cap, size_t *n);

/* WDL symbol of entry `entry` of side `side` of a file held decoded. */
static inline unsigned xqf_resident_symbol(const xqf_file *f, int side, uint64_t entry)
{
    return f->resident[(uint64_t)side * f->resident_side + entry / 4] >> (2 * (entry % 4)) & 3;
}

/* Symbol e of a decompressed block of a file of `info`. */
static inline unsigned xqf_block_symbol(const xqf_info *info, const uint8_t *data, uint64_t e)
{
    if (info->symbol_bytes == 0) return (data[e / 4] >> (2 * (e % 4))) & 3;
    if (info->symbol_bytes == 1) return data[e];
    return (unsigned)data[2 * e] | (unsigned)data[2 * e + 1] << 8;
}

/* Entry `entry`'s symbol of side `side`, if its block is f's common block
 * (whose bytes its checksum and length say it has: the meta hash vouches
 * for both); false if it is not, and the block must be read. */
static inline int xqf_common_symbol(const xqf_file *f, int side, uint64_t entry, unsigned *symbol)
{
    const xqf_info *i = &f->info;
    if (!f->common || side != i->searched) return 0;
    uint64_t b = entry / i->block_entries, k = (uint64_t)side * i->blocks + b;
    if (b >= i->entries / i->block_entries) return 0; /* a short last block is never the common one */
    if (xqf_block_stored_checksum(i, k) != f->common_sum ||
        xqf_block_end(i, k) - xqf_block_begin(i, k) != f->common_len)
        return 0;
    *symbol = xqf_block_symbol(i, f->common, entry % i->block_entries);
    return 1;
}

/* Whether a read has found the file changed since it was opened. */
static inline int xqf_changed(const xqf_file *f) { return __atomic_load_n(&f->changed, __ATOMIC_ACQUIRE); }

/* Bytes the largest decompressed block of f needs. */
size_t xqf_max_block_bytes(const xqf_file *f);

#endif
