/*
 * test_probe_damage.c - damaged, truncated, foreign and tampered table
 * files behind the probe API.
 *
 * Tables are generated into a temporary directory, then one file at a time
 * is replaced by a damaged copy and a fresh handle probes a fixed sample of
 * positions (every legal position, for KRK).  Every call must either succeed
 * with the value the generator computed or fail cleanly; which of the two,
 * and with which status, is predicted from where the damage is:
 *
 *   - a flipped byte in the header or the metadata (DTM map, offsets,
 *     checksums) makes every probe of that file fail: XQTB_ERR_MISMATCH for
 *     the format fields (version, index layout), XQTB_ERR_CORRUPT for
 *     everything else, the rule fields included (the meta hash fails);
 *   - a flipped byte in a compressed block makes exactly the probes whose
 *     entry lies in that block fail with XQTB_ERR_CORRUPT; every other probe
 *     still answers, correctly;
 *   - a truncated or extended file, garbage, or a file of another kind or
 *     material fails every probe of that file with XQTB_ERR_CORRUPT; a path
 *     that is not a regular file with XQTB_ERR_IO;
 *   - a file whose meta hash was recomputed after changing a rule field or
 *     the generator revision fails with XQTB_ERR_MISMATCH.
 * The file of the other kind (WDL vs DTM) is never affected, root moves
 * either come out exactly as from the good files or fail the same way, and
 * an error leaves the output parameters untouched.
 *
 * Blocks that no legal position reads (possible with small blocks) may be
 * damaged without effect; the test tells them apart.  Damage that makes a
 * file refused as a whole is probed on every n-th position of the sample
 * only, since the file is refused when opened, whatever the position.  The
 * sanitizer build (XQTB_SAN=1) damages fewer bytes, to stay fast.
 */
#include <errno.h>
#include <fcntl.h>
#include <lz4.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>
#include <zstd.h>

#include <cmocka.h>

#include "cell.h"
#include "compress.h"
#include "fen.h"
#include "movegen.h"
#include "searched.h"
#include "tb.h"
#include "tbcheck.h"
#include "tbformat.h"
#include "testenv.h"
#include "testgen.h"
#include "tmpdir.h"
#include "xqtb.h"

enum { W = 0, D = 1 }; /* file kinds: .xqw, .xqd */
static const char *const ext[2] = {"xqw", "xqd"};

/* ---- files ------------------------------------------------------------ */
static uint8_t *slurp(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f) fail_msg("open %s: %s", path, strerror(errno));
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *size = (size_t)n;
    return buf;
}

static void spill(const char *path, const uint8_t *data, size_t size)
{
    unlink(path); /* the path may be a directory, FIFO or link from an earlier case */
    rmdir(path);
    FILE *f = fopen(path, "wb");
    if (!f) fail_msg("create %s: %s", path, strerror(errno));
    if (size) assert_int_equal(fwrite(data, 1, size, f), size);
    assert_int_equal(fclose(f), 0);
}

/* The layout of a table file, read with the format's own definitions. */
typedef struct {
    uint32_t block_entries, blocks, nsymbols, symbol_bytes, codec, dict_bytes, bounds_bytes;
    uint64_t dict_at, offsets_at, checksums_at, bounds_at, data_start;
    unsigned width; /* bytes of an offset */
} layout;

static layout layout_of(const uint8_t *f, int kind)
{
    layout l;
    l.block_entries = xqf_get32(f + XQF_OFF_BLOCK_ENTRIES);
    l.blocks = xqf_get32(f + XQF_OFF_BLOCKS);
    l.nsymbols = xqf_get32(f + XQF_OFF_SYMBOLS);
    l.symbol_bytes = xqf_get32(f + XQF_OFF_SYMBOL_BYTES);
    l.codec = xqf_get32(f + XQF_OFF_CODEC);
    l.dict_bytes = xqf_get32(f + XQF_OFF_DICT_BYTES);
    l.bounds_bytes = xqf_get32(f + XQF_OFF_BOUNDS_BYTES);
    uint64_t map_bytes = kind == D ? xqf_pad8((uint64_t)l.nsymbols * 2) : 0;
    l.dict_at = XQF_HEADER_SIZE + map_bytes;
    l.offsets_at = l.dict_at + xqf_pad8(l.dict_bytes);
    l.width = xqf_offset_bytes(xqf_get64(f + XQF_OFF_FILE_SIZE));
    l.checksums_at = l.offsets_at + xqf_pad8((2 * (uint64_t)l.blocks + 1) * l.width);
    l.bounds_at = l.checksums_at + 2 * (uint64_t)l.blocks * 8;
    l.data_start = l.bounds_at + xqf_pad8(l.bounds_bytes);
    assert_int_equal(l.width, 4); /* the test tables are small */
    assert_int_equal(xqf_get32(f + l.offsets_at), l.data_start);
    return l;
}

static uint64_t block_offset(const uint8_t *f, const layout *l, uint64_t k)
{
    return xqf_get32(f + l->offsets_at + 4 * k);
}

/* Recomputes the meta hash as core/tbformat.h defines it. */
static void resign_meta(uint8_t *f, const layout *l)
{
    xqf_put64(f + XQF_OFF_META_HASH, xqf_meta_hash(f, l->data_start));
}

/* A copy of file f with block k replaced by `data` (n bytes), its checksum,
 * the offsets, the file size and the meta hash all made consistent again:
 * a well-formed file whose block k says whatever `data` says. */
static uint8_t *replace_block(const uint8_t *f, size_t size, const layout *l, uint64_t k, const void *data, size_t n,
                              size_t *out_size)
{
    uint64_t b = block_offset(f, l, k), e = block_offset(f, l, k + 1);
    size_t ns = size - (size_t)(e - b) + n;
    uint8_t *g = malloc(ns);
    assert_non_null(g);
    memcpy(g, f, (size_t)b);
    memcpy(g + b, data, n);
    memcpy(g + b + n, f + e, size - (size_t)e);
    for (uint64_t j = k + 1; j <= 2 * (uint64_t)l->blocks; j++)
        xqf_put32(g + l->offsets_at + 4 * j, (uint32_t)(block_offset(f, l, j) - (e - b) + n));
    xqf_put64(g + l->checksums_at + 8 * k, XXH64(data, n, 0));
    xqf_put64(g + XQF_OFF_FILE_SIZE, ns);
    resign_meta(g, l);
    *out_size = ns;
    return g;
}

/* ---- subjects: one material's files and a sample of its positions ----- */
typedef struct {
    xqtb_position pos[2]; /* the entry's board and its colour-flipped twin */
    uint64_t entry;       /* in the canonical table */
    int side;
    int wdl, dtm;
    int nroot; /* root moves (baseline), -1 if not root-probed */
    xqtb_root_move root[XQTB_MAX_MOVES];
    /* DTM blocks a DTM probe reads: the entry's own, and for an entry the
     * reader finds by a search (docs/FORMAT.md, "Searched entries") the
     * blocks of its quiet successors (captures read other materials) */
    uint32_t nreads;
    uint64_t reads[1 + XQ_MAX_MOVES];
    int searched;   /* the entry says XQF_SEARCH */
    int own_common; /* its own block is one of the common blocks (subject.common) */
} sample;

typedef struct {
    const char *name;
    char dir[512];     /* the directory probed: good files, one replaced */
    char path[2][600]; /* NAME.xqw, NAME.xqd in dir */
    uint8_t *orig[2];
    size_t size[2];
    layout lay[2];
    sample *s;
    size_t n;
    uint8_t *reachable[2]; /* per block of each file: 2 some sample reads it, 1 some search may (reads_block) */
    /* The DTM file's searched side's most common full block, by checksum
     * and length, if more than half of its full blocks are it: the
     * library decodes one of them when it opens the file and reads none
     * of the others (probe/file.h, xqf_common_symbol); common_len 0 if
     * there is none. */
    uint64_t common_sum, common_len;
    size_t refused_stride; /* when the whole file must be refused, probe every n-th sample */
} subject;

/* What one damaged file is expected to do to the probes of its kind. */
/* SEARCHED_FAIL: exactly the probes of entries that say XQF_SEARCH fail. */
enum { ALL_FAIL, BLOCK_FAIL, OK_OR_FAIL, SEARCHED_FAIL };
typedef struct {
    int mode;
    int status;         /* ALL_FAIL, BLOCK_FAIL: the one status expected */
    uint64_t bad_block; /* BLOCK_FAIL */
    char what[160];     /* for messages */
} expectation;

typedef struct {
    uint64_t cases, probes, ok, failed, root_failed;
} tally;

static void to_position(const xq_board *b, xqtb_position *p)
{
    for (int s = 0; s < XQ_SQUARES; s++) {
        xq_piece q = b->sq[s];
        p->board[s] = q == EMPTY ? 0 : (int8_t)(colour_of(q) == RED ? kind_of(q) : -kind_of(q));
    }
    p->side = b->side;
}

static const char *fen_of_pos(const xqtb_position *p)
{
    static char fen[XQTB_FEN_MAX];
    if (xqtb_position_to_fen(p, fen)) strcpy(fen, "(invalid)");
    return fen;
}

/* The block whose bytes block k of the file of `kind` decodes from: k, or
 * for a block of no bytes its side's first (docs/FORMAT.md, "Blocks"). */
static uint64_t source_of(const subject *sj, int kind, uint64_t k)
{
    const layout *l = &sj->lay[kind];
    const uint8_t *f = sj->orig[kind];
    return block_offset(f, l, k + 1) == block_offset(f, l, k) ? k - k % l->blocks : k;
}

/* The block that holds the sample's entry, as the file numbers it. */
static uint64_t entry_block(const subject *sj, int kind, const sample *s)
{
    return (uint64_t)s->side * sj->lay[kind].blocks + s->entry / sj->lay[kind].block_entries;
}

/* The block whose bytes a read of the sample's entry decodes. */
static uint64_t block_of(const subject *sj, int kind, const sample *s)
{
    return source_of(sj, kind, entry_block(sj, kind, s));
}

/* Fills sj->common_sum and common_len from the DTM file, by counting
 * (not the library's majority vote). */
static void find_common(subject *sj)
{
    const uint8_t *f = sj->orig[D];
    const layout *l = &sj->lay[D];
    int searched = (int)xqf_get32(f + XQF_OFF_SEARCHED_SIDE) - 1;
    uint64_t entries = xqf_get64(f + XQF_OFF_ENTRIES), full = entries / l->block_entries;
    sj->common_len = 0;
    if (searched < 0) return;
    uint64_t first = (uint64_t)searched * l->blocks;
    for (uint64_t a = first; a < first + full; a++) {
        uint64_t sum = xqf_get64(f + l->checksums_at + 8 * a), len = block_offset(f, l, a + 1) - block_offset(f, l, a),
                 same = 0;
        for (uint64_t b = first; b < first + full; b++)
            same += xqf_get64(f + l->checksums_at + 8 * b) == sum &&
                    block_offset(f, l, b + 1) - block_offset(f, l, b) == len;
        if (2 * same > full) {
            sj->common_sum = sum;
            sj->common_len = len;
            return;
        }
    }
}

/* Whether a probe of the sample's kind reads block k of that file: 2 if
 * it must (its own block), 1 if it may (a successor's block, which the
 * search reads only if the search bounds leave it in doubt; or its own
 * block if that is a common one, which the library reads only if the one
 * it decoded at open, perhaps this one, was damaged), 0 if not. */
static int reads_block(const subject *sj, int kind, const sample *s, uint64_t k)
{
    if (kind == W) return block_of(sj, W, s) == k ? 2 : 0;
    if (s->reads[0] == k) return s->own_common ? 1 : 2;
    for (uint32_t i = 1; i < s->nreads; i++)
        if (s->reads[i] == k) return 1;
    return 0;
}

/* Fills s->reads: the DTM file's searched side (its header) says whether
 * the entry is searched, unless it is a result of the rulings the search
 * does not find (gen/searched.h), which the writer stores. */
static void sample_reads(const subject *sj, const tb_table *t, sample *s)
{
    const layout *l = &sj->lay[D];
    s->nreads = 0;
    s->searched = 0;
    uint64_t own = entry_block(sj, D, s); /* the library tells a common block by its own checksum and length */
    s->reads[s->nreads++] = source_of(sj, D, own);
    s->own_common = sj->common_len && xqf_get64(sj->orig[D] + l->checksums_at + 8 * own) == sj->common_sum &&
                    block_offset(sj->orig[D], l, own + 1) - block_offset(sj->orig[D], l, own) == sj->common_len;
    int searched = (int)xqf_get32(sj->orig[D] + XQF_OFF_SEARCHED_SIDE) - 1;
    if (s->side != searched) return;
    xq_board b;
    assert_true(xq_index_decode(&t->ix, s->entry, &b));
    b.side = (uint8_t)s->side;
    unsigned ruled = tb_ruled(t, s->side, s->entry);
    if (ruled != RULED_NONE && tb_ruled_by_search(t, &b) != ruled) return; /* stored */
    s->searched = 1;
    xq_move list[XQ_MAX_MOVES];
    int n = xq_gen_legal(&b, list);
    for (int i = 0; i < n; i++) {
        xq_undo u;
        xq_make_move(&b, list[i], &u);
        if (!u.captured) {
            uint64_t j = xq_index_encode(&t->ix, &b, 0);
            s->reads[s->nreads++] = source_of(sj, D, (uint64_t)b.side * l->blocks + j / l->block_entries);
        }
        xq_unmake_move(&b, list[i], &u);
    }
}

/* Handles alternate between the library's two read paths, so that every
 * kind of damage meets both: files read whole when opened (the default for
 * files this small; a small WDL file is then decoded whole, and refused
 * whole if any of it is damaged) and files read block by block with pread.
 * *whole (if not NULL) says which. */
static xqtb_handle *open_handle(const char *dir, int *whole)
{
    static unsigned opened;
    int st = 1;
    xqtb_options o = {.whole_file_bytes = opened++ % 2 ? 1 : 0};
    if (whole) *whole = o.whole_file_bytes == 0;
    xqtb_handle *h = xqtb_open(dir, &o, &st);
    assert_non_null(h);
    assert_int_equal(st, XQTB_OK);
    return h;
}

static void copy_compressed(const char *from, const char *to, const char *name)
{
    for (int k = 0; k < 2; k++) {
        char a[600], b[600];
        snprintf(a, sizeof a, "%s/%s.%s", from, name, ext[k]);
        snprintf(b, sizeof b, "%s/%s.%s", to, name, ext[k]);
        size_t n;
        uint8_t *d = slurp(a, &n);
        spill(b, d, n);
        free(d);
    }
}

/* Builds the sample of `name` (loaded through set) for files in dir: every
 * legal entry with `stride` 1, otherwise the first and last legal entry of
 * every block of both files plus every stride-th legal entry. */
static void subject_init(subject *sj, tb_set *set, const char *name, const char *dir, uint64_t stride, int root_every)
{
    memset(sj, 0, sizeof *sj);
    sj->name = name;
    sj->refused_stride = 1;
    snprintf(sj->dir, sizeof sj->dir, "%s", dir);
    for (int k = 0; k < 2; k++) {
        snprintf(sj->path[k], sizeof sj->path[k], "%s/%s.%s", dir, name, ext[k]);
        sj->orig[k] = slurp(sj->path[k], &sj->size[k]);
        sj->lay[k] = layout_of(sj->orig[k], k);
    }
    find_common(sj);
    char err[XQ_ERR_MAX];
    xq_material m;
    assert_int_equal(xq_material_parse(name, &m, err), 0);
    tb_table *t = tb_set_get(set, &m, err);
    if (!t) fail_msg("%s", err);
    size_t cap = 1024;
    sj->s = malloc(cap * sizeof *sj->s);
    assert_non_null(sj->s);
    for (int side = 0; side < 2; side++) {
        uint64_t seen = 0, last = UINT64_MAX;
        for (uint64_t i = 0; i < t->ix.size; i++) {
            unsigned code = cell_get(t->cells[side], t->width, i);
            if (code == CELL_ILLEGAL) continue;
            int pick = seen++ % stride == 0;
            /* the first and the last legal entry of every block of either file */
            for (int k = 0; k < 2; k++) {
                uint64_t be = sj->lay[k].block_entries;
                if (last == UINT64_MAX || last / be != i / be) pick = 1;
            }
            uint64_t next_legal = i + 1;
            while (next_legal < t->ix.size && cell_get(t->cells[side], t->width, next_legal) == CELL_ILLEGAL)
                next_legal++;
            for (int k = 0; k < 2; k++)
                if (next_legal >= t->ix.size || next_legal / sj->lay[k].block_entries != i / sj->lay[k].block_entries)
                    pick = 1;
            last = i;
            if (!pick) continue;
            if (sj->n == cap) {
                cap *= 2;
                sj->s = realloc(sj->s, cap * sizeof *sj->s);
                assert_non_null(sj->s);
            }
            sample *s = &sj->s[sj->n];
            xq_board b, f;
            assert_true(xq_index_decode(&t->ix, i, &b));
            b.side = (uint8_t)side;
            xq_board_flip(&b, &f);
            to_position(&b, &s->pos[0]);
            to_position(&f, &s->pos[1]);
            s->entry = i;
            s->side = side;
            tb_value v = tb_value_of_cell(code);
            s->wdl = v.wdl;
            s->dtm = v.wdl ? v.dtm : XQTB_NO_DISTANCE; /* the library's draws have no distance */
            s->nroot = -1;
            if (root_every && sj->n % (size_t)root_every == 0) s->nroot = 0;
            sample_reads(sj, t, s);
            sj->n++;
        }
    }
    for (int k = 0; k < 2; k++) {
        sj->reachable[k] = calloc(2 * (size_t)sj->lay[k].blocks, 1);
        assert_non_null(sj->reachable[k]);
        for (size_t i = 0; i < sj->n; i++) {
            uint64_t own = block_of(sj, k, &sj->s[i]);
            uint8_t must = k == D && sj->s[i].own_common ? 1 : 2;
            if (sj->reachable[k][own] < must) sj->reachable[k][own] = must;
            for (uint32_t r = 1; k == D && r < sj->s[i].nreads; r++)
                if (!sj->reachable[k][sj->s[i].reads[r]]) sj->reachable[k][sj->s[i].reads[r]] = 1;
        }
    }
    /* Baseline: the undamaged files answer every sample correctly. */
    xqtb_handle *h = open_handle(dir, NULL);
    for (size_t i = 0; i < sj->n; i++) {
        sample *s = &sj->s[i];
        for (int c = 0; c < 2; c++) {
            int wdl = 9, dtm = -9, w2 = 9;
            assert_int_equal(xqtb_probe_wdl(h, &s->pos[c], &w2), XQTB_OK);
            assert_int_equal(xqtb_probe_dtm(h, &s->pos[c], &wdl, &dtm), XQTB_OK);
            if (w2 != s->wdl || wdl != s->wdl || dtm != s->dtm)
                fail_msg("%s %s: generator %d/%d, probe %d/%d (WDL file %d)", name, fen_of_pos(&s->pos[c]), s->wdl,
                         s->dtm, wdl, dtm, w2);
        }
        if (s->nroot >= 0) {
            s->nroot = xqtb_probe_root(h, &s->pos[0], s->root);
            assert_true(s->nroot >= 0);
            if (s->nroot) assert_int_equal(s->root[0].dtm, s->dtm);
        }
    }
    xqtb_close(h);
}

static void subject_free(subject *sj)
{
    /* leave the good files in place for the next test */
    for (int k = 0; k < 2; k++) {
        spill(sj->path[k], sj->orig[k], sj->size[k]);
        free(sj->orig[k]);
        free(sj->reachable[k]);
    }
    free(sj->s);
}

/* One probe's outcome against the expectation for its kind.  `damaged`
 * tells whether this probe reads the damaged file. */
static void judge(const subject *sj, const sample *s, int c, int kind, int damaged, const expectation *e, int rc,
                  int wdl, int dtm, tally *t)
{
    t->probes++;
    int must_fail = 0, may_fail = 0;
    if (damaged) {
        if (e->mode == ALL_FAIL) must_fail = 1;
        int reads = e->mode == BLOCK_FAIL ? reads_block(sj, kind, s, e->bad_block) : 0;
        if (e->mode == BLOCK_FAIL) must_fail = reads == 2;
        if (e->mode == SEARCHED_FAIL) must_fail = s->searched;
        may_fail = must_fail || reads == 1 || e->mode == OK_OR_FAIL;
    }
    const char *probe = kind == W ? "probe_wdl" : "probe_dtm";
    if (rc == XQTB_OK) {
        if (must_fail)
            fail_msg("%s: %s %s answered (%d/%d) but should fail with %s", e->what, probe, fen_of_pos(&s->pos[c]), wdl,
                     dtm, xqtb_status_string(e->status));
        if (wdl != s->wdl || (kind == D && dtm != s->dtm))
            fail_msg("%s: WRONG VALUE from %s %s: %d/%d, generator %d/%d", e->what, probe, fen_of_pos(&s->pos[c]), wdl,
                     dtm, s->wdl, s->dtm);
        t->ok++;
        return;
    }
    if (!may_fail)
        fail_msg("%s: %s %s failed with %s (%d) but should answer", e->what, probe, fen_of_pos(&s->pos[c]),
                 xqtb_status_string(rc), rc);
    if (e->mode == OK_OR_FAIL) {
        if (rc != XQTB_ERR_CORRUPT && rc != XQTB_ERR_MISMATCH && rc != XQTB_ERR_IO)
            fail_msg("%s: %s %s: unclean error %s (%d)", e->what, probe, fen_of_pos(&s->pos[c]), xqtb_status_string(rc),
                     rc);
    } else if (rc != e->status) {
        fail_msg("%s: %s %s failed with %s, expected %s", e->what, probe, fen_of_pos(&s->pos[c]),
                 xqtb_status_string(rc), xqtb_status_string(e->status));
    }
    /* outputs untouched on error */
    assert_int_equal(wdl, 99);
    if (kind == D) assert_int_equal(dtm, -99);
    t->failed++;
}

/* Puts `data` in place of the file of `kind`, probes the whole sample
 * through a fresh handle, and restores the good file. */
/* Writes bytes [lo, hi) of data over the file at path, in place. */
static void patch(const char *path, const uint8_t *data, size_t lo, size_t hi)
{
    int fd = open(path, O_WRONLY);
    if (fd < 0) fail_msg("open %s: %s", path, strerror(errno));
    assert_int_equal(pwrite(fd, data + lo, hi - lo, (off_t)lo), (ssize_t)(hi - lo));
    assert_int_equal(close(fd), 0);
}

/* Returns whether the damaged file was refused whole where a file read by
 * block fails only the probes of the damaged block: a small WDL file read
 * whole is decoded, and so checked, whole when it is opened. */
static int run_case(subject *sj, int kind, const uint8_t *data, size_t size, const expectation *e, tally *t)
{
    /* Damage of the same size is patched in place (and undone the same
     * way): most cases change a byte of a large file. */
    size_t lo = 0, hi = 0;
    int patched = data && size == sj->size[kind];
    if (patched) {
        while (lo < size && data[lo] == sj->orig[kind][lo]) lo++;
        hi = size;
        while (hi > lo && data[hi - 1] == sj->orig[kind][hi - 1]) hi--;
        if (lo < hi) patch(sj->path[kind], data, lo, hi);
    } else if (data) {
        spill(sj->path[kind], data, size);
    }
    t->cases++;
    /* A file refused as a whole is refused on open, whatever the position:
     * a thinner sample says as much. */
    int whole, held = 0;
    xqtb_handle *h = open_handle(sj->dir, &whole);
    expectation refused;
    if (kind == W && whole && e->mode == BLOCK_FAIL && xqf_wdl_resident(xqf_get64(sj->orig[W] + XQF_OFF_ENTRIES))) {
        refused = *e;
        refused.mode = ALL_FAIL;
        e = &refused;
        held = 1;
    }
    size_t step = e->mode == ALL_FAIL ? sj->refused_stride : 1;
    for (size_t i = 0; i < sj->n; i += step) {
        const sample *s = &sj->s[i];
        /* odd samples in both colourings, even ones as decoded */
        for (int c = 0; c < (i & 1 ? 2 : 1); c++) {
            int wdl = 99, dtm = -99;
            int rc = xqtb_probe_wdl(h, &s->pos[c], &wdl);
            judge(sj, s, c, W, kind == W, e, rc, wdl, -99, t);
            wdl = 99;
            rc = xqtb_probe_dtm(h, &s->pos[c], &wdl, &dtm);
            judge(sj, s, c, D, kind == D, e, rc, wdl, dtm, t);
        }
        if (s->nroot < 0) continue;
        xqtb_root_move mv[XQTB_MAX_MOVES];
        int n = xqtb_probe_root(h, &s->pos[0], mv);
        if (n >= 0) {
            /* the root reads only DTM files, of this material and of the
             * materials captures lead to */
            if (n != s->nroot)
                fail_msg("%s: root %s: %d moves, expected %d", e->what, fen_of_pos(&s->pos[0]), n, s->nroot);
            for (int j = 0; j < n; j++)
                if (mv[j].move != s->root[j].move || mv[j].wdl != s->root[j].wdl || mv[j].dtm != s->root[j].dtm)
                    fail_msg("%s: WRONG ROOT MOVE for %s at %d", e->what, fen_of_pos(&s->pos[0]), j);
        } else {
            if (kind != D)
                fail_msg("%s: root %s failed (%d) with only the WDL file damaged", e->what, fen_of_pos(&s->pos[0]), n);
            if (e->mode == OK_OR_FAIL ? n != XQTB_ERR_CORRUPT && n != XQTB_ERR_MISMATCH && n != XQTB_ERR_IO
                                      : n != e->status)
                fail_msg("%s: root %s: unexpected %s", e->what, fen_of_pos(&s->pos[0]), xqtb_status_string(n));
            t->root_failed++;
        }
    }
    xqtb_close(h);
    if (patched)
        patch(sj->path[kind], sj->orig[kind], lo, hi);
    else
        spill(sj->path[kind], sj->orig[kind], sj->size[kind]);
    return held;
}

/* Status a single changed byte at offset `at` of a header gives: the
 * format fields say "built differently" (checked before the meta hash, as a
 * newer format may hash differently); everything else, the rule fields
 * included, fails the meta hash: "damaged".  (A correctly signed file with
 * other rules is a mismatch: see the re-signed cases.) */
static int header_status(size_t at)
{
    static const struct {
        size_t off;
    } mismatch[] = {{XQF_OFF_VERSION}, {XQF_OFF_INDEX_LAYOUT}};
    for (size_t i = 0; i < sizeof mismatch / sizeof *mismatch; i++)
        if (at >= mismatch[i].off && at < mismatch[i].off + 4) return XQTB_ERR_MISMATCH;
    return XQTB_ERR_CORRUPT;
}

/* Single-byte flips: every byte of header and metadata, and every
 * `stride`-th byte of the blocks plus the first and last byte of each.
 * Asserts that every block flip was caught (XQTB_ERR_CORRUPT for the
 * probes in that block). */
static void flip_bytes(subject *sj, int kind, uint64_t stride, tally *t)
{
    const layout *l = &sj->lay[kind];
    size_t size = sj->size[kind];
    uint8_t *buf = malloc(size);
    assert_non_null(buf);
    memcpy(buf, sj->orig[kind], size);
    uint64_t block_flips = 0, block_flips_caught = 0, meta_flips = 0, unreachable_flips = 0, maybe_flips = 0;
    uint64_t k = 0;
    /* Under the sanitizers, one metadata byte in 3 past the header (the
     * map, offsets and checksums: 3 is prime to their 2- and 8-byte
     * fields, so every byte of a field is still flipped in some field);
     * every header byte always. */
    size_t meta_stride = test_sanitized() ? 3 : 1;
    for (size_t at = 0; at < size; at++) {
        int in_blocks = at >= l->data_start;
        while (in_blocks && block_offset(sj->orig[kind], l, k + 1) <= at) k++;
        if (!in_blocks && at >= XQF_HEADER_SIZE && at % meta_stride) continue;
        if (in_blocks) {
            uint64_t b = block_offset(sj->orig[kind], l, k), e = block_offset(sj->orig[kind], l, k + 1);
            if (at != b && at != e - 1 && (at - l->data_start) % stride) continue;
        }
        /* header bytes get three different flips, the rest one */
        const uint8_t masks_header[] = {0x01, 0x80, 0xFF};
        uint8_t mask_one = (uint8_t)(1u << (at % 8));
        const uint8_t *masks = at < XQF_HEADER_SIZE ? masks_header : &mask_one;
        int nmasks = at < XQF_HEADER_SIZE ? 3 : 1;
        for (int mi = 0; mi < nmasks; mi++) {
            expectation e = {.mode = in_blocks ? BLOCK_FAIL : ALL_FAIL,
                             .status = in_blocks ? XQTB_ERR_CORRUPT : header_status(at),
                             .bad_block = k};
            snprintf(e.what, sizeof e.what, "%s.%s byte %zu ^ 0x%02x", sj->name, ext[kind], at, masks[mi]);
            buf[at] ^= masks[mi];
            uint64_t failed_before = t->failed;
            int held = run_case(sj, kind, buf, size, &e, t);
            buf[at] ^= masks[mi];
            if (in_blocks) {
                if (sj->reachable[kind][k] == 2 || held) {
                    block_flips++;
                    block_flips_caught += t->failed > failed_before;
                } else if (sj->reachable[kind][k] == 1) {
                    /* only searches may read it, or it is a common block:
                     * caught or not, never a wrong answer */
                    maybe_flips++;
                } else {
                    unreachable_flips++;
                    assert_int_equal(t->failed, failed_before);
                }
            } else {
                meta_flips++;
                assert_true(t->failed > failed_before);
            }
        }
    }
    /* The sample reaches every block holding a legal position, so no flip
     * there goes unseen; blocks of illegal entries only are never read,
     * and blocks that repeat their side's first have no bytes to flip. */
    uint64_t with_bytes = 0;
    for (uint64_t j = 0; j < 2 * (uint64_t)l->blocks; j++)
        with_bytes += block_offset(sj->orig[kind], l, j + 1) > block_offset(sj->orig[kind], l, j);
    assert_true(block_flips > 2 * with_bytes);
    assert_int_equal(block_flips_caught, block_flips);
    assert_true(meta_flips >= 3 * XQF_HEADER_SIZE);
    print_message("    %s.%s (%zu bytes, %u blocks/side): %llu metadata flips, %llu block flips all caught, %llu flips "
                  "in blocks probes may read (searches, common blocks), %llu in blocks no legal position reads\n",
                  sj->name, ext[kind], size, l->blocks, (unsigned long long)meta_flips, (unsigned long long)block_flips,
                  (unsigned long long)maybe_flips, (unsigned long long)unreachable_flips);
    free(buf);
}

/* Truncations, extensions and whole-file replacements. */
static void truncate_and_replace(subject *sj, int kind, tally *t)
{
    const layout *l = &sj->lay[kind];
    size_t size = sj->size[kind];
    const uint8_t *f = sj->orig[kind];
    size_t lengths[] = {0,
                        1,
                        8,
                        XQF_HEADER_SIZE - 1,
                        XQF_HEADER_SIZE,
                        XQF_HEADER_SIZE + 1,
                        XQF_HEADER_SIZE + 8,
                        (size_t)l->offsets_at,
                        (size_t)l->checksums_at,
                        (size_t)l->data_start - 1,
                        (size_t)l->data_start,
                        (size_t)l->data_start + 1,
                        (size_t)block_offset(f, l, 1),
                        size / 2,
                        size - 8,
                        size - 1};
    for (size_t i = 0; i < sizeof lengths / sizeof *lengths; i++) {
        expectation e = {.mode = ALL_FAIL, .status = XQTB_ERR_CORRUPT};
        snprintf(e.what, sizeof e.what, "%s.%s truncated to %zu of %zu bytes", sj->name, ext[kind], lengths[i], size);
        run_case(sj, kind, f, lengths[i], &e, t);
    }
    /* extended: a trailing byte, a trailing page */
    uint8_t *big = calloc(1, size + 4096);
    assert_non_null(big);
    memcpy(big, f, size);
    size_t ext_by[] = {1, 4096};
    for (int i = 0; i < 2; i++) {
        expectation e = {.mode = ALL_FAIL, .status = XQTB_ERR_CORRUPT};
        snprintf(e.what, sizeof e.what, "%s.%s extended by %zu bytes", sj->name, ext[kind], ext_by[i]);
        run_case(sj, kind, big, size + ext_by[i], &e, t);
    }
    /* garbage: all random; a valid header then random; random then the
     * real file's tail; all zeros */
    srand(12345);
    for (int g = 0; g < 4; g++) {
        for (size_t i = 0; i < size; i++) big[i] = (uint8_t)rand();
        if (g == 1) memcpy(big, f, XQF_HEADER_SIZE);
        if (g == 2) memcpy(big + XQF_HEADER_SIZE, f + XQF_HEADER_SIZE, size - XQF_HEADER_SIZE);
        if (g == 3) memset(big, 0, size);
        expectation e = {.mode = ALL_FAIL, .status = XQTB_ERR_CORRUPT};
        static const char *const kinds[] = {"random bytes", "valid header, random rest", "random header, valid rest",
                                            "zeros"};
        snprintf(e.what, sizeof e.what, "%s.%s replaced by %s", sj->name, ext[kind], kinds[g]);
        run_case(sj, kind, big, size, &e, t);
    }
    free(big);
    /* the other kind's file under this name: wrong magic */
    {
        expectation e = {.mode = ALL_FAIL, .status = XQTB_ERR_CORRUPT};
        snprintf(e.what, sizeof e.what, "%s.%s holding the .%s file", sj->name, ext[kind], ext[!kind]);
        run_case(sj, kind, sj->orig[!kind], sj->size[!kind], &e, t);
    }
}

/* Paths that are not regular files: XQTB_ERR_IO. */
static void not_a_file(subject *sj, int kind, tally *t)
{
    const char *p = sj->path[kind];
    expectation e = {.mode = ALL_FAIL, .status = XQTB_ERR_IO};
    /* a directory */
    assert_int_equal(unlink(p), 0);
    assert_int_equal(mkdir(p, 0755), 0);
    snprintf(e.what, sizeof e.what, "%s.%s is a directory", sj->name, ext[kind]);
    run_case(sj, kind, NULL, 0, &e, t);
    /* a dangling symbolic link */
    unlink(p);
    assert_int_equal(symlink("/nonexistent/xqtb-table", p), 0);
    snprintf(e.what, sizeof e.what, "%s.%s is a dangling link", sj->name, ext[kind]);
    run_case(sj, kind, NULL, 0, &e, t);
    /* a device: readable, endless, not a regular file */
    unlink(p);
    assert_int_equal(symlink("/dev/zero", p), 0);
    snprintf(e.what, sizeof e.what, "%s.%s is /dev/zero", sj->name, ext[kind]);
    run_case(sj, kind, NULL, 0, &e, t);
    /* a FIFO with no writer: opening it must not block the prober */
    unlink(p);
    assert_int_equal(mkfifo(p, 0644), 0);
    snprintf(e.what, sizeof e.what, "%s.%s is a FIFO", sj->name, ext[kind]);
    alarm(20); /* a hang fails the test instead of stalling the suite */
    run_case(sj, kind, NULL, 0, &e, t);
    alarm(0);
}

/* Header fields changed with the meta hash recomputed, so only the field's
 * own check can object. */
static void resigned_header(subject *sj, int kind, uint64_t stride, tally *t)
{
    const layout *l = &sj->lay[kind];
    size_t size = sj->size[kind];
    uint8_t *buf = malloc(size);
    assert_non_null(buf);

    /* control: re-signing an intact file changes nothing */
    memcpy(buf, sj->orig[kind], size);
    resign_meta(buf, l);
    assert_memory_equal(buf, sj->orig[kind], size);

    /* the rule settings and revisions: another generator or rule set */
    struct {
        const char *what;
        size_t off;
        uint32_t value;
        int status;
    } fields[] = {
        {"generator revision + 1", XQF_OFF_GEN_REVISION, XQF_GEN_REVISION + 1, XQTB_ERR_MISMATCH},
        {"generator revision 0", XQF_OFF_GEN_REVISION, 0, XQTB_ERR_MISMATCH},
        {"repetition rule 255", XQF_OFF_REPETITION, 255, XQTB_ERR_MISMATCH},
        {"repetition rule 5", XQF_OFF_REPETITION, XQF_REPETITION_MAX + 1, XQTB_ERR_MISMATCH},
        {"move limit above the largest", XQF_OFF_MOVE_LIMIT, XQF_MAX_LIMIT + 1, XQTB_ERR_MISMATCH},
        {"format version + 1", XQF_OFF_VERSION, XQF_VERSION + 1, XQTB_ERR_MISMATCH},
        {"format version - 1", XQF_OFF_VERSION, XQF_VERSION - 1, XQTB_ERR_MISMATCH},
        {"searched side 3", XQF_OFF_SEARCHED_SIDE, XQF_SEARCHED_BLACK + 1, XQTB_ERR_CORRUPT},
        {"index layout 2", XQF_OFF_INDEX_LAYOUT, XQF_INDEX_LAYOUT + 1, XQTB_ERR_MISMATCH},
        {"header size 256", XQF_OFF_HEADER_SIZE, 256, XQTB_ERR_CORRUPT},
        {"entries + 1", XQF_OFF_ENTRIES, (uint32_t)xqf_get64(sj->orig[kind] + XQF_OFF_ENTRIES) + 1, XQTB_ERR_CORRUPT},
        /* harmless only if the file is a single block per side anyway */
        {"block entries / 2", XQF_OFF_BLOCK_ENTRIES, l->block_entries / 2,
         l->blocks == 1 && xqf_get64(sj->orig[kind] + XQF_OFF_ENTRIES) <= l->block_entries / 2 ? XQTB_OK
                                                                                               : XQTB_ERR_CORRUPT},
        {"block entries 0", XQF_OFF_BLOCK_ENTRIES, 0, XQTB_ERR_CORRUPT},
        {"block entries 2^31", XQF_OFF_BLOCK_ENTRIES, 1u << 31, XQTB_ERR_CORRUPT},
        {"blocks + 1", XQF_OFF_BLOCKS, l->blocks + 1, XQTB_ERR_CORRUPT},
        {"blocks 2^31", XQF_OFF_BLOCKS, 1u << 31, XQTB_ERR_CORRUPT},
        {"symbol bytes 3", XQF_OFF_SYMBOL_BYTES, 3, XQTB_ERR_CORRUPT},
        {"symbols 0", XQF_OFF_SYMBOLS, 0, kind == W ? XQTB_OK : XQTB_ERR_CORRUPT},
        {"symbols 65537", XQF_OFF_SYMBOLS, 65537, XQTB_ERR_CORRUPT},
        {"file size - 1", XQF_OFF_FILE_SIZE, (uint32_t)size - 1, XQTB_ERR_CORRUPT},
        /* search bounds in a file without a search, or a frame cut short
         * (or one the size field takes past the offsets) */
        {"search bounds bytes + 1", XQF_OFF_BOUNDS_BYTES, l->bounds_bytes + 1, XQTB_ERR_CORRUPT},
        {"search bounds bytes - 1", XQF_OFF_BOUNDS_BYTES, l->bounds_bytes ? l->bounds_bytes - 1 : 1, XQTB_ERR_CORRUPT},
        {"dictionary bytes above the bound", XQF_OFF_DICT_BYTES, XQF_MAX_DICT_BYTES + 1, XQTB_ERR_CORRUPT},
        /* the tables then start elsewhere (or the dictionary's bytes are
         * the offsets'): never a file that reads */
        {"dictionary bytes + 8", XQF_OFF_DICT_BYTES, l->dict_bytes + 8, XQTB_ERR_CORRUPT},
        {"max DTM 0", XQF_OFF_MAX_DTM, 0, kind == W ? XQTB_OK : XQTB_ERR_CORRUPT},
    };
    /* the searched side moved: a WDL file has none; in a DTM file the
     * other side's entries hold values, which may stand, while the "search"
     * symbols now stand in the stored side, where they are damage */
    int searched = (int)xqf_get32(sj->orig[kind] + XQF_OFF_SEARCHED_SIDE);
    for (uint32_t side = XQF_SEARCHED_NONE; side <= XQF_SEARCHED_BLACK; side++) {
        if ((int)side == searched) continue;
        memcpy(buf, sj->orig[kind], size);
        xqf_put32(buf + XQF_OFF_SEARCHED_SIDE, side);
        resign_meta(buf, l);
        expectation e = {.mode = kind == W || side == XQF_SEARCHED_NONE ? ALL_FAIL : SEARCHED_FAIL,
                         .status = XQTB_ERR_CORRUPT};
        snprintf(e.what, sizeof e.what, "%s.%s re-signed with searched side %u", sj->name, ext[kind], side);
        run_case(sj, kind, buf, size, &e, t);
    }
    for (size_t i = 0; i < sizeof fields / sizeof *fields; i++) {
        memcpy(buf, sj->orig[kind], size);
        xqf_put32(buf + fields[i].off, fields[i].value);
        resign_meta(buf, l);
        expectation e = {.mode = fields[i].status == XQTB_OK ? OK_OR_FAIL : ALL_FAIL, .status = fields[i].status};
        snprintf(e.what, sizeof e.what, "%s.%s re-signed with %s", sj->name, ext[kind], fields[i].what);
        uint64_t failed = t->failed;
        run_case(sj, kind, buf, size, &e, t);
        if (fields[i].status == XQTB_OK) assert_int_equal(t->failed, failed); /* unused field: harmless */
    }
    /* the name of another material (same size, so only the name differs) */
    memcpy(buf, sj->orig[kind], size);
    memset(buf + XQF_OFF_NAME, 0, XQF_NAME_SIZE);
    memcpy(buf + XQF_OFF_NAME, "KAKA", 4);
    resign_meta(buf, l);
    expectation e = {.mode = ALL_FAIL, .status = XQTB_ERR_CORRUPT};
    snprintf(e.what, sizeof e.what, "%s.%s re-signed with name KAKA", sj->name, ext[kind]);
    run_case(sj, kind, buf, size, &e, t);

    /* Every byte of the offsets and checksums flipped and re-signed: the
     * blocks whose bounds or checksum changed fail, the others still
     * answer, and no answer is wrong. */
    for (uint64_t at = l->offsets_at; at < l->bounds_at; at += stride) {
        memcpy(buf, sj->orig[kind], size);
        buf[at] ^= (uint8_t)(1u << (at % 8));
        resign_meta(buf, l);
        e = (expectation){.mode = OK_OR_FAIL};
        snprintf(e.what, sizeof e.what, "%s.%s byte %llu flipped and re-signed", sj->name, ext[kind],
                 (unsigned long long)at);
        uint64_t failed = t->failed;
        run_case(sj, kind, buf, size, &e, t);
        /* noticed whenever a block some position reads is involved */
        uint64_t nblocks = 2 * (uint64_t)l->blocks;
        int read = 0;
        if (at >= l->checksums_at) {
            read = sj->reachable[kind][(at - l->checksums_at) / 8] == 2;
        } else if ((at - l->offsets_at) / l->width <= nblocks) {
            uint64_t j = (at - l->offsets_at) / l->width; /* end of block j-1, start of block j */
            read = j == 0 || j == nblocks || sj->reachable[kind][j - 1] == 2 || sj->reachable[kind][j] == 2;
        } /* else the offsets' padding, which nothing reads */
        if (read) assert_true(t->failed > failed);
    }
    free(buf);
}

/* A Zstandard frame of len bytes at f as a file stores it: without its
 * magic number (docs/FORMAT.md); the new length. */
static size_t drop_magic(uint8_t *f, size_t len)
{
    assert_true(len > 4 && xqf_get32(f) == ZSTD_MAGICNUMBER);
    memmove(f, f + 4, len - 4);
    return len - 4;
}

/* Decodes a Zstandard block of a file (len bytes at src, no magic number)
 * into out (cap bytes); the bytes decoded. */
static size_t zstd_block_decode(uint8_t *out, size_t cap, const uint8_t *src, size_t len)
{
    uint8_t *frame = malloc(len + 4);
    assert_non_null(frame);
    xqf_put32(frame, ZSTD_MAGICNUMBER);
    memcpy(frame + 4, src, len);
    size_t got = ZSTD_decompress(out, cap, frame, len + 4);
    free(frame);
    return got;
}

/* Compresses n bytes as a file of `codec` stores a block; the length. */
static size_t compress_as(uint32_t codec, const uint8_t *src, size_t n, uint8_t *dst, size_t cap, int level)
{
    if (codec == XQF_CODEC_LZ4) {
        int len = LZ4_compress_fast((const char *)src, (char *)dst, (int)n, (int)cap, level);
        assert_true(len > 0);
        return (size_t)len;
    }
    size_t len = ZSTD_compress(dst, cap, src, n, level);
    assert_false(ZSTD_isError(len));
    return drop_magic(dst, len);
}

/* Blocks re-written with a valid checksum but bad content: symbols out of
 * range, a short or long block, data that is not of the file's codec, data
 * of the other codec, and (Zstandard) a frame that declares a wrong size. */
static void forged_blocks(subject *sj, int kind, tally *t)
{
    const layout *l = &sj->lay[kind];
    uint64_t k = l->blocks; /* black to move: its first block any legal position reads */
    while (sj->reachable[kind][k] != 2) k++;
    uint64_t entries = xqf_get64(sj->orig[kind] + XQF_OFF_ENTRIES);
    uint64_t first = (k - l->blocks) * l->block_entries;
    uint64_t n = entries - first < l->block_entries ? entries - first : l->block_entries;
    size_t raw = (size_t)xqf_block_bytes(l->symbol_bytes, n);
    uint8_t *sym = malloc(raw + 64);
    size_t cap = (size_t)xqf_max_compressed_bytes();
    uint8_t *lz = malloc(cap);
    assert_true(sym && lz);
    uint32_t other = l->codec == XQF_CODEC_LZ4 ? XQF_CODEC_ZSTD : XQF_CODEC_LZ4;
    enum { SAME, GARBAGE, OTHER_CODEC, SIZED_FRAME, WITH_MAGIC };
    struct {
        const char *what;
        size_t len;
        int fill;
        int how;
    } forged[] = {
        /* WDL symbol 3 is unused; a DTM symbol past the map's end */
        {"out-of-range symbols", raw, kind == W || l->nsymbols < (l->symbol_bytes == 2 ? 65536u : 256u) ? 0xFF : -1,
         SAME},
        {"one byte short", raw - 1, 0, SAME},
        {"one byte long", raw + 1, 0, SAME},
        {"64 bytes long", raw + 64, 0, SAME},
        {"empty", 0, 0, SAME},
        {"not the codec's data", raw, 0, GARBAGE},
        {"the other codec's data", raw, 0, OTHER_CODEC},
        {"a frame declaring one byte more", raw + 1, 0, SIZED_FRAME},
        {"a frame with its magic number", raw, 0, WITH_MAGIC},
    };
    for (size_t i = 0; i < sizeof forged / sizeof *forged; i++) {
        if (forged[i].fill < 0) continue; /* 2-byte DTM symbols: every value may be in use */
        if ((forged[i].how == SIZED_FRAME || forged[i].how == WITH_MAGIC) && l->codec != XQF_CODEC_ZSTD) continue;
        memset(sym, forged[i].fill, forged[i].len);
        size_t len;
        if (forged[i].how == GARBAGE) {
            /* an LZ4 literal run longer than the block, and no Zstandard magic */
            len = 64;
            memset(lz, 0xFF, len);
        } else if (forged[i].how == OTHER_CODEC) {
            len = compress_as(other, sym, forged[i].len, lz, cap, 1);
        } else if (forged[i].how == SIZED_FRAME) {
            /* ZSTD_compress records the content size: the reader must not
             * write past the block's symbols */
            len = ZSTD_compress(lz, cap, sym, forged[i].len, 3);
            assert_false(ZSTD_isError(len));
            len = drop_magic(lz, len);
        } else if (forged[i].how == WITH_MAGIC) {
            /* a frame as format 8 stored it: the magic number read twice */
            len = ZSTD_compress(lz, cap, sym, forged[i].len, 3);
            assert_false(ZSTD_isError(len));
        } else {
            len = compress_as(l->codec, sym, forged[i].len, lz, cap, 1);
        }
        size_t fs;
        uint8_t *g = replace_block(sj->orig[kind], sj->size[kind], l, k, lz, len, &fs);
        expectation e = {.mode = BLOCK_FAIL, .status = XQTB_ERR_CORRUPT, .bad_block = k};
        snprintf(e.what, sizeof e.what, "%s.%s block %llu forged: %s", sj->name, ext[kind], (unsigned long long)k,
                 forged[i].what);
        uint64_t failed = t->failed;
        run_case(sj, kind, g, fs, &e, t);
        assert_true(t->failed > failed);
        free(g);
    }
    /* a side's first block of no bytes: the blocks that repeat it would
     * have nothing to repeat, so the file is refused when opened */
    {
        size_t fs;
        uint64_t side_first = k - k % l->blocks;
        uint8_t *g = replace_block(sj->orig[kind], sj->size[kind], l, side_first, lz, 0, &fs);
        expectation e = {.mode = ALL_FAIL, .status = XQTB_ERR_CORRUPT};
        snprintf(e.what, sizeof e.what, "%s.%s block %llu of no bytes", sj->name, ext[kind],
                 (unsigned long long)side_first);
        uint64_t failed = t->failed;
        run_case(sj, kind, g, fs, &e, t);
        assert_true(t->failed > failed);
        free(g);
    }
    /* control: the block recompressed as it was, differently: still valid */
    {
        uint8_t *out = malloc(raw);
        assert_non_null(out);
        uint64_t b = block_offset(sj->orig[kind], l, k), en = block_offset(sj->orig[kind], l, k + 1);
        if (l->codec == XQF_CODEC_LZ4)
            assert_int_equal(
                LZ4_decompress_safe((const char *)sj->orig[kind] + b, (char *)out, (int)(en - b), (int)raw), (int)raw);
        else
            assert_int_equal(zstd_block_decode(out, raw, sj->orig[kind] + b, (size_t)(en - b)), raw);
        size_t len = compress_as(l->codec, out, raw, lz, cap, 9);
        size_t fs;
        uint8_t *g = replace_block(sj->orig[kind], sj->size[kind], l, k, lz, len, &fs);
        expectation e = {.mode = OK_OR_FAIL};
        snprintf(e.what, sizeof e.what, "%s.%s block %llu recompressed", sj->name, ext[kind], (unsigned long long)k);
        uint64_t failed = t->failed;
        run_case(sj, kind, g, fs, &e, t);
        assert_int_equal(t->failed, failed);
        free(g);
        free(out);
    }
    free(sym);
    free(lz);
}

/* ---- fixtures ------------------------------------------------------------ */
static char krkn_dir[512], krk_dir[512], small_dir[512], dict_dir[512];
static tb_set *set;

static int setup(void **state)
{
    (void)state;
    /* generated (with KRK, KNK and KK) into test_tmpdir() */
    const char *gen_dir = test_tmpdir();
    testgen_load("KRKN", &set);
    snprintf(krkn_dir, sizeof krkn_dir, "%s/krkn", gen_dir);
    snprintf(krk_dir, sizeof krk_dir, "%s/krk", gen_dir);
    snprintf(small_dir, sizeof small_dir, "%s/small", gen_dir);
    snprintf(dict_dir, sizeof dict_dir, "%s/dict", gen_dir);
    if (mkdir(krkn_dir, 0755) || mkdir(krk_dir, 0755) || mkdir(small_dir, 0755) || mkdir(dict_dir, 0755)) return -1;
    /* probed directories hold only the compressed files */
    static const char *const krkn_set[] = {"KRKN", "KRK", "KNK", "KK"};
    for (int i = 0; i < 4; i++) copy_compressed(gen_dir, krkn_dir, krkn_set[i]);
    copy_compressed(gen_dir, krk_dir, "KRK");
    copy_compressed(gen_dir, krk_dir, "KK");
    /* KRK again with tiny blocks, so that it has many of them, and with
     * the LZ4 codec, so that both codecs meet the damage */
    char err[XQ_ERR_MAX];
    xq_material m;
    xq_material_parse("KRK", &m, err);
    tb_table *t = tb_set_get(set, &m, err);
    if (!t) fail_msg("%s", err);
    tb_compress_options o = {.wdl_block_entries = 256,
                             .dtm_block_entries = 64,
                             .threads = 1,
                             .wdl_codec = XQF_CODEC_LZ4,
                             .dtm_codec = XQF_CODEC_LZ4};
    if (tb_compress_write(t, small_dir, &o, NULL, err)) fail_msg("%s", err);
    copy_compressed(gen_dir, small_dir, "KK");
    /* KRKN with 2048-entry WDL blocks: many small blocks alike, where the
     * writer's trained dictionary pays for itself, so that a WDL file with
     * a dictionary meets the damage too */
    xq_material_parse("KRKN", &m, err);
    if (!(t = tb_set_get(set, &m, err))) fail_msg("%s", err);
    o = (tb_compress_options){.wdl_block_entries = 2048, .threads = 1};
    if (tb_compress_write(t, dict_dir, &o, NULL, err)) fail_msg("%s", err);
    for (int i = 1; i < 4; i++) copy_compressed(gen_dir, dict_dir, krkn_set[i]);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    tb_set_free(set);
    return 0;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void report(const char *what, const tally *t, double since)
{
    print_message("    %s: %llu damaged files, %llu probes (%llu answered correctly, %llu failed cleanly), %llu roots "
                  "failed; %.1f s\n",
                  what, (unsigned long long)t->cases, (unsigned long long)t->probes, (unsigned long long)t->ok,
                  (unsigned long long)t->failed, (unsigned long long)t->root_failed, now() - since);
}

/* How densely each test damages and samples.  The sanitizer build runs the
 * same cases more thinly, to stay within its time budget. */
typedef struct {
    uint64_t sample_stride; /* every n-th legal entry, besides block ends */
    size_t refused_stride;  /* see run_case */
    uint64_t block_stride[2];
    uint64_t resign_stride;
} density;

static density dens(uint64_t sample_stride, size_t refused, uint64_t wblock, uint64_t dblock, uint64_t resign)
{
    int san = test_sanitized();
    density d = {sample_stride, refused, {wblock, dblock}, resign};
    if (san) {
        d.refused_stride *= 4;
        d.block_stride[0] = d.block_stride[0] * 3 + 1;
        d.block_stride[1] = d.block_stride[1] * 3 + 1;
        d.resign_stride = d.resign_stride * 3 + 1;
    }
    return d;
}

/* KRKN: a sample reaching every block, both files; every header and
 * metadata byte flipped, and every 97th byte of the blocks. */
static void test_krkn_flips(void **state)
{
    (void)state;
    double t0 = now();
    density d = dens(4001, 8, 97, 197, 1);
    subject sj;
    subject_init(&sj, set, "KRKN", krkn_dir, d.sample_stride, 17);
    sj.refused_stride = d.refused_stride;
    print_message("    KRKN sample: %zu positions\n", sj.n);
    tally t = {0};
    for (int k = 0; k < 2; k++) flip_bytes(&sj, k, d.block_stride[k], &t);
    assert_true(t.root_failed > 0);
    report("KRKN flips", &t, t0);
    subject_free(&sj);
}

static void test_krkn_truncated_and_foreign(void **state)
{
    (void)state;
    double t0 = now();
    subject sj;
    subject_init(&sj, set, "KRKN", krkn_dir, 4001, 17);
    tally t = {0};
    for (int k = 0; k < 2; k++) {
        truncate_and_replace(&sj, k, &t);
        not_a_file(&sj, k, &t);
    }
    /* another material's file under this name */
    for (int k = 0; k < 2; k++) {
        char p[600];
        snprintf(p, sizeof p, "%s/KRK.%s", krkn_dir, ext[k]);
        size_t n;
        uint8_t *other = slurp(p, &n);
        expectation e = {.mode = ALL_FAIL, .status = XQTB_ERR_CORRUPT};
        snprintf(e.what, sizeof e.what, "KRKN.%s holding KRK.%s", ext[k], ext[k]);
        run_case(&sj, k, other, n, &e, &t);
        free(other);
    }
    report("KRKN truncations and replacements", &t, t0);
    subject_free(&sj);
}

static void test_krkn_resigned(void **state)
{
    (void)state;
    double t0 = now();
    density d = dens(4001, 8, 0, 0, 3);
    subject sj;
    subject_init(&sj, set, "KRKN", krkn_dir, d.sample_stride, 17);
    sj.refused_stride = d.refused_stride;
    tally t = {0};
    for (int k = 0; k < 2; k++) {
        resigned_header(&sj, k, d.resign_stride, &t);
        forged_blocks(&sj, k, &t);
    }
    report("KRKN re-signed headers and forged blocks", &t, t0);
    subject_free(&sj);
}

/* KRK: every legal position (alternately in either colouring); every byte
 * of both files flipped. */
static void test_krk_every_byte(void **state)
{
    (void)state;
    double t0 = now();
    density d = dens(1, 32, 2, 2, 3);
    subject sj;
    subject_init(&sj, set, "KRK", krk_dir, d.sample_stride, 5);
    sj.refused_stride = d.refused_stride;
    print_message("    KRK: %zu legal positions\n", sj.n);
    tally t = {0};
    for (int k = 0; k < 2; k++) {
        flip_bytes(&sj, k, d.block_stride[k], &t);
        truncate_and_replace(&sj, k, &t);
        resigned_header(&sj, k, d.resign_stride, &t);
        forged_blocks(&sj, k, &t);
    }
    report("KRK", &t, t0);
    subject_free(&sj);
}

/* KRK with 256-entry WDL and 64-entry DTM blocks: many blocks, each flip
 * must fail exactly the positions of its block. */
static void test_krk_small_blocks(void **state)
{
    (void)state;
    double t0 = now();
    density d = dens(16, 64, 5, 5, 7);
    subject sj;
    subject_init(&sj, set, "KRK", small_dir, d.sample_stride, 3);
    sj.refused_stride = d.refused_stride;
    assert_true(sj.lay[W].blocks > 8 && sj.lay[D].blocks > 32);
    tally t = {0};
    for (int k = 0; k < 2; k++) {
        flip_bytes(&sj, k, d.block_stride[k], &t);
        truncate_and_replace(&sj, k, &t);
        resigned_header(&sj, k, d.resign_stride, &t);
        forged_blocks(&sj, k, &t);
    }
    report("KRK, small blocks", &t, t0);
    subject_free(&sj);
}

/* KRKN's WDL file with a codec dictionary (FORMAT.md, "Metadata"): every
 * metadata byte, the dictionary's included, flipped; the header re-signed;
 * forged blocks; and a re-signed dictionary that is no Zstandard
 * dictionary. */
static void test_krkn_dictionary(void **state)
{
    (void)state;
    double t0 = now();
    density d = dens(4001, 8, 97, 197, 31);
    subject sj;
    subject_init(&sj, set, "KRKN", dict_dir, d.sample_stride, 17);
    sj.refused_stride = d.refused_stride;
    const layout *l = &sj.lay[W];
    assert_true(l->dict_bytes > 0);
    tally t = {0};
    flip_bytes(&sj, W, d.block_stride[W], &t);
    resigned_header(&sj, W, d.resign_stride, &t);
    forged_blocks(&sj, W, &t);
    uint8_t *buf = malloc(sj.size[W]);
    assert_non_null(buf);
    for (size_t at = 0; at < 4; at++) { /* the dictionary's magic */
        memcpy(buf, sj.orig[W], sj.size[W]);
        buf[l->dict_at + at] ^= 0x10;
        resign_meta(buf, l);
        expectation e = {.mode = ALL_FAIL, .status = XQTB_ERR_CORRUPT};
        snprintf(e.what, sizeof e.what, "KRKN.xqw dictionary byte %zu flipped and re-signed", at);
        run_case(&sj, W, buf, sj.size[W], &e, &t);
    }
    /* The dictionary's magic and ID intact, its entropy tables not (the
     * bytes after them), re-signed: a file with sound hashes that Zstandard
     * refuses to digest.  Every probe fails, and so does the quick check
     * (no --deep), which `xqtb check` and `gen` make before reusing a file:
     * it passed this file while every probe of it failed. */
    uint64_t entries = xqf_get64(sj.orig[W] + XQF_OFF_ENTRIES);
    for (int v = 0; v < 2; v++) {
        memcpy(buf, sj.orig[W], sj.size[W]);
        buf[l->dict_at + 8] = v ? 0xFF : 0x00;
        resign_meta(buf, l);
        expectation e = {.mode = ALL_FAIL, .status = XQTB_ERR_CORRUPT};
        snprintf(e.what, sizeof e.what, "KRKN.xqw dictionary's entropy tables set to %d and re-signed", v ? 0xFF : 0);
        run_case(&sj, W, buf, sj.size[W], &e, &t);
        spill(sj.path[W], buf, sj.size[W]);
        xqf_check_report r;
        for (int deep = 0; deep < 2; deep++) {
            assert_int_equal(xqf_check_file(sj.path[W], XQF_KIND_WDL, "KRKN", entries, deep, &r), XQF_CORRUPT);
            assert_non_null(strstr(r.why, "dictionary"));
        }
        spill(sj.path[W], sj.orig[W], sj.size[W]);
        assert_int_equal(xqf_check_file(sj.path[W], XQF_KIND_WDL, "KRKN", entries, 0, &r), XQF_OK);
    }
    free(buf);
    report("KRKN, a WDL file with a dictionary", &t, t0);
    subject_free(&sj);
}

/* A failure is remembered by the handle that saw it; a new handle sees the
 * repaired file. */
static void test_failure_remembered(void **state)
{
    (void)state;
    subject sj;
    subject_init(&sj, set, "KRK", krk_dir, 1, 0);
    spill(sj.path[D], sj.orig[D], sj.size[D] - 1);
    xqtb_handle *h = open_handle(krk_dir, NULL);
    int wdl = 99, dtm = -99;
    assert_int_equal(xqtb_probe_dtm(h, &sj.s[0].pos[0], &wdl, &dtm), XQTB_ERR_CORRUPT);
    assert_int_equal(xqtb_probe_wdl(h, &sj.s[0].pos[0], &wdl), XQTB_OK);
    assert_int_equal(wdl, sj.s[0].wdl);
    spill(sj.path[D], sj.orig[D], sj.size[D]);
    assert_int_equal(xqtb_probe_dtm(h, &sj.s[0].pos[0], &wdl, &dtm), XQTB_ERR_CORRUPT);
    xqtb_close(h);
    h = open_handle(krk_dir, NULL);
    assert_int_equal(xqtb_probe_dtm(h, &sj.s[0].pos[0], &wdl, &dtm), XQTB_OK);
    assert_int_equal(dtm, sj.s[0].dtm);
    xqtb_close(h);
    subject_free(&sj);
}

/* A DTM map whose ruled values name a ruling the file's rule set does not
 * have is damage (docs/FORMAT.md, reader check 9): KRKN under full, whose
 * ruled values are all perpetual check (bit 1 clear), re-signed as built
 * under none (no ruling) and under cxa (perpetual attack only, bit 1 set),
 * and, as a control, under its own rule set. */
static void test_ruled_map_against_rule_set(void **state)
{
    (void)state;
    tb_set *rset;
    testgen_load_rules("KRKN", XQ_RULES_FULL, &rset);
    tb_set_free(rset);
    char src[512], dir[512], path[600];
    snprintf(src, sizeof src, "%s/rules-%d/KRKN.xqd", test_tmpdir(), XQ_RULES_FULL);
    snprintf(dir, sizeof dir, "%s/ruled-map", test_tmpdir());
    mkdir(dir, 0700);
    /* the table and its subtables (no move limit: no DTC files), then the
     * DTM file under test */
    static const char *const names[] = {"KK", "KRK", "KNK", "KRKN"}, *const exts[] = {"xqw", "xqd"};
    for (size_t n = 0; n < sizeof names / sizeof *names; n++)
        for (size_t x = 0; x < 2; x++) {
            char from[600];
            snprintf(from, sizeof from, "%s/rules-%d/%s.%s", test_tmpdir(), XQ_RULES_FULL, names[n], exts[x]);
            snprintf(path, sizeof path, "%s/%s.%s", dir, names[n], exts[x]);
            size_t n_bytes;
            uint8_t *data = slurp(from, &n_bytes);
            spill(path, data, n_bytes);
            free(data);
        }
    snprintf(path, sizeof path, "%s/KRKN.xqd", dir);
    size_t size;
    uint8_t *orig = slurp(src, &size), *buf = malloc(size);
    assert_non_null(buf);
    layout l = layout_of(orig, D);
    xqtb_position p; /* red wins by the perpetual-check ruling */
    assert_int_equal(xqtb_position_from_fen("9/9/4k4/9/9/9/9/9/1n7/R2K5 w - - 0 1", &p, NULL), XQTB_OK);
    static const struct {
        uint32_t rules, revision;
        int status;
    } cases[] = {{XQ_RULES_NONE, XQF_GEN_REVISION, XQTB_ERR_CORRUPT},
                 {XQ_RULES_CXA, XQF_GEN_REVISION_ARBITERS, XQTB_ERR_CORRUPT},
                 /* sound, but not the other files' rule set */
                 {XQ_RULES_ASIAN, XQF_GEN_REVISION_ARBITERS, XQTB_ERR_MISMATCH},
                 /* asian labels from before chases made real counted */
                 {XQ_RULES_ASIAN, XQF_GEN_REVISION, XQTB_ERR_MISMATCH},
                 {XQ_RULES_FULL, XQF_GEN_REVISION_ARBITERS, XQTB_ERR_MISMATCH},
                 {XQ_RULES_FULL, XQF_GEN_REVISION, XQTB_OK}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        memcpy(buf, orig, size);
        xqf_put32(buf + XQF_OFF_REPETITION, cases[i].rules);
        xqf_put32(buf + XQF_OFF_GEN_REVISION, cases[i].revision);
        resign_meta(buf, &l);
        spill(path, buf, size);
        int st;
        xqtb_handle *h = xqtb_open(dir, NULL, &st);
        assert_non_null(h);
        int wdl, dtm;
        if (xqtb_probe_dtm(h, &p, &wdl, &dtm) != cases[i].status)
            fail_msg("KRKN.xqd re-signed with repetition rule %u, revision %u: status %d, expected %d", cases[i].rules,
                     cases[i].revision, xqtb_probe_dtm(h, &p, &wdl, &dtm), cases[i].status);
        if (cases[i].status == XQTB_OK) assert_int_equal(wdl, XQTB_WIN);
        xqtb_close(h);
    }
    free(buf);
    free(orig);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_krk_every_byte),     cmocka_unit_test(test_krk_small_blocks),
        cmocka_unit_test(test_krkn_flips),         cmocka_unit_test(test_krkn_truncated_and_foreign),
        cmocka_unit_test(test_krkn_resigned),      cmocka_unit_test(test_krkn_dictionary),
        cmocka_unit_test(test_failure_remembered), cmocka_unit_test(test_ruled_map_against_rule_set),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
