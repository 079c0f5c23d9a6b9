/*
 * file.c - mapping and checking compressed table files.  Every number read
 * from a file is bounded before it is used as a size or an offset, so a
 * damaged or hostile file gives XQTB_ERR_CORRUPT, never a wild read.
 */
#include "file.h"

#include <fcntl.h>
#include <lz4.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include "tbformat.h"
#include "xqtb.h"

static int check_header(xqf_file *f, const uint8_t *h, int kind, const char *name, uint64_t entries)
{
    if (memcmp(h, kind == XQF_KIND_WDL ? xqf_magic_wdl : xqf_magic_dtm, 8)) return XQTB_ERR_CORRUPT;
    if (xqf_get32(h + XQF_OFF_VERSION) != XQF_VERSION || xqf_get32(h + XQF_OFF_INDEX_LAYOUT) != XQF_INDEX_LAYOUT)
        return XQTB_ERR_MISMATCH;
    if (xqf_get32(h + XQF_OFF_HEADER_SIZE) != XQF_HEADER_SIZE) return XQTB_ERR_CORRUPT;
    char fname[XQF_NAME_SIZE + 1];
    memcpy(fname, h + XQF_OFF_NAME, XQF_NAME_SIZE);
    fname[XQF_NAME_SIZE] = 0;
    if (strcmp(fname, name) || xqf_get64(h + XQF_OFF_ENTRIES) != entries) return XQTB_ERR_CORRUPT;
    for (int i = 112; i < XQF_HEADER_SIZE; i++)
        if (h[i]) return XQTB_ERR_CORRUPT;
    f->kind = kind;
    f->entries = entries;
    f->block_entries = xqf_get32(h + XQF_OFF_BLOCK_ENTRIES);
    f->symbol_bytes = xqf_get32(h + XQF_OFF_SYMBOL_BYTES);
    f->blocks = xqf_get32(h + XQF_OFF_BLOCKS);
    f->max_dtm = (int32_t)xqf_get32(h + XQF_OFF_MAX_DTM);
    f->nsymbols = xqf_get32(h + XQF_OFF_SYMBOLS);
    if (f->block_entries == 0 || f->block_entries % 4 ||
        xqf_block_bytes(f->symbol_bytes, f->block_entries) > XQF_MAX_BLOCK_BYTES)
        return XQTB_ERR_CORRUPT;
    if ((uint64_t)f->blocks != (entries + f->block_entries - 1) / f->block_entries) return XQTB_ERR_CORRUPT;
    if (kind == XQF_KIND_WDL) {
        if (f->symbol_bytes != 0 || f->nsymbols != 0) return XQTB_ERR_CORRUPT;
    } else {
        if (f->symbol_bytes < 1 || f->symbol_bytes > 2 || f->nsymbols < 1 || f->nsymbols > XQF_MAX_SYMBOLS ||
            (f->symbol_bytes == 1 && f->nsymbols > 256))
            return XQTB_ERR_CORRUPT;
    }
    if (xqf_get64(h + XQF_OFF_FILE_SIZE) != f->size) return XQTB_ERR_CORRUPT;
    return XQTB_OK;
}

/* The region after the header: DTM map, offsets, checksums; then the
 * blocks, whose offsets must rise to exactly the end of the file. */
static int check_layout(xqf_file *f)
{
    uint64_t map_bytes = f->kind == XQF_KIND_DTM ? ((uint64_t)f->nsymbols * 2 + 7) / 8 * 8 : 0;
    uint64_t nblocks = 2 * (uint64_t)f->blocks;
    uint64_t meta = XQF_HEADER_SIZE + map_bytes + (nblocks + 1) * 8 + nblocks * 8;
    if (meta > f->size) return XQTB_ERR_CORRUPT;
    f->dtm_map = f->map + XQF_HEADER_SIZE;
    f->offsets = f->dtm_map + map_bytes;
    f->checksums = f->offsets + (nblocks + 1) * 8;
    XXH64_state_t *st = XXH64_createState();
    if (!st) return XQTB_ERR_NOMEM;
    XXH64_reset(st, 0);
    XXH64_update(st, f->map, XQF_OFF_META_HASH);
    XXH64_update(st, f->map + XQF_HEADER_SIZE, meta - XQF_HEADER_SIZE);
    uint64_t h = XXH64_digest(st);
    XXH64_freeState(st);
    if (h != xqf_get64(f->map + XQF_OFF_META_HASH)) return XQTB_ERR_CORRUPT;
    uint64_t prev = meta;
    if (xqf_get64(f->offsets) != meta) return XQTB_ERR_CORRUPT;
    int bound = LZ4_compressBound(XQF_MAX_BLOCK_BYTES);
    for (uint64_t k = 1; k <= nblocks; k++) {
        uint64_t o = xqf_get64(f->offsets + 8 * k);
        if (o < prev || o > f->size || o - prev > (uint64_t)bound) return XQTB_ERR_CORRUPT;
        prev = o;
    }
    if (prev != f->size) return XQTB_ERR_CORRUPT;
    for (uint32_t i = 0; f->kind == XQF_KIND_DTM && i < f->nsymbols; i++) {
        unsigned v = (unsigned)f->dtm_map[2 * i] | (unsigned)f->dtm_map[2 * i + 1] << 8;
        if (v == XQF_DTM_DRAW) continue;
        if (v & XQF_DTM_RULED) {
            /* order 1..63 in bits 2-7, nothing above bit 7 */
            if ((v & 0x7F00) || (v & 0xFF) >> 2 == 0) return XQTB_ERR_CORRUPT;
        } else if ((int64_t)v > f->max_dtm) {
            return XQTB_ERR_CORRUPT;
        }
    }
    return XQTB_OK;
}

/* Tables built under other rules, or by a generator whose results differ,
 * would give silently different answers.  Checked after the meta hash, so
 * that a damaged field reads as damage and only a sound file of another
 * kind as a mismatch.  (Version and index layout are checked first: a newer
 * format may not even hash the same way.) */
static int check_rules(const uint8_t *h)
{
    if (xqf_get32(h + XQF_OFF_REPETITION) > XQF_REPETITION_MAX || xqf_get32(h + XQF_OFF_MOVE_LIMIT) != 0 ||
        xqf_get32(h + XQF_OFF_GEN_REVISION) != XQF_GEN_REVISION)
        return XQTB_ERR_MISMATCH;
    return XQTB_OK;
}

int xqf_open(xqf_file *f, const char *path, int kind, const char *name, uint64_t entries)
{
    memset(f, 0, sizeof *f);
    /* O_NONBLOCK: opening a FIFO (or a device) that sits under a table's
     * name must not wait for a writer; fstat then rejects it. */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) return XQTB_ERR_IO;
    struct stat sb;
    if (fstat(fd, &sb) || !S_ISREG(sb.st_mode)) {
        close(fd);
        return XQTB_ERR_IO;
    }
    if ((uint64_t)sb.st_size < XQF_HEADER_SIZE) {
        close(fd);
        return XQTB_ERR_CORRUPT;
    }
    void *m = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (m == MAP_FAILED) return XQTB_ERR_IO;
    f->map = m;
    f->size = (size_t)sb.st_size;
    int rc = check_header(f, f->map, kind, name, entries);
    if (rc == XQTB_OK) rc = check_layout(f);
    if (rc == XQTB_OK) rc = check_rules(f->map);
    if (rc == XQTB_OK) f->rules = xqf_get32(f->map + XQF_OFF_REPETITION);
    if (rc != XQTB_OK) xqf_close(f);
    return rc;
}

void xqf_close(xqf_file *f)
{
    if (f->map) munmap((void *)f->map, f->size);
    memset(f, 0, sizeof *f);
}

size_t xqf_max_block_bytes(const xqf_file *f) { return xqf_block_bytes(f->symbol_bytes, f->block_entries); }

int xqf_read_block(const xqf_file *f, uint64_t k, uint8_t *out, size_t cap, size_t *n)
{
    if (k >= 2 * (uint64_t)f->blocks) return XQTB_ERR_CORRUPT;
    uint64_t begin = xqf_get64(f->offsets + 8 * k), end = xqf_get64(f->offsets + 8 * (k + 1));
    uint64_t first = (k % f->blocks) * f->block_entries;
    uint64_t count = f->entries - first < f->block_entries ? f->entries - first : f->block_entries;
    size_t want = (size_t)xqf_block_bytes(f->symbol_bytes, count);
    if (want > cap) return XQTB_ERR_CORRUPT;
    if (XXH64(f->map + begin, (size_t)(end - begin), 0) != xqf_get64(f->checksums + 8 * k)) return XQTB_ERR_CORRUPT;
    int got = LZ4_decompress_safe((const char *)f->map + begin, (char *)out, (int)(end - begin), (int)want);
    if (got < 0 || (size_t)got != want) return XQTB_ERR_CORRUPT;
    *n = want;
    return XQTB_OK;
}
