/*
 * fuzz_tbfile.c - libFuzzer target for the compressed table file reader
 * (probe/file.c) and everything behind xqtb_probe_* that reads a file.
 *
 * The input is written as the table file NAME.xqw, NAME.xqd or NAME.xqc in a
 * private directory: .xqd or .xqc if it starts with the DTM or DTC magic,
 * else .xqw; NAME is the
 * material named in the input's header if that is a canonical material of
 * at most four pieces, else KRK.  It is tried twice: as it is, and
 * "re-signed" (file size field, every block checksum and the meta hash
 * recomputed), so that mutations get past the checksums into the layout
 * checks, block decoding (LZ4 or Zstandard), symbol decoding, and a DTM
 * file's search bounds, which then steer the probes' searches.  Each time:
 *   - xqf_open checks it; if accepted, every block is read with
 *     xqf_read_block, which must fill exactly the block's size or fail;
 *   - a fresh handle probes a spread of that material's legal positions
 *     (WDL, DTM, and root moves for some): each call either answers with a
 *     well-formed value or fails with a clean status, leaving its outputs
 *     alone.
 * XQTB_FUZZ_TABLES may name a directory of valid tables searched after the
 * private one (for the other kind's file and the subtables root moves
 * capture into); `make fuzz` generates one.
 *
 * A re-signed file is well formed and may say anything, so nothing can
 * check that an accepted file's values are right; but they must be what
 * the file says by docs/FORMAT.md.  The second reader of the tests
 * (tests/ref/ref_reader.h), written from that page alone, reads the same
 * files: wherever both answer, the library's WDL, DTM and ruling must be
 * the second reader's (it refuses what the page calls damage, such as a
 * "search, no ordinary win" entry whose search gives an ordinary win, and
 * a DTM value the WDL file contradicts, both of which the library may
 * trust), unless the input's search bounds differ from its blocks, damage
 * only `xqtb check --deep` looks for, which steers the library's searches.
 * ASan and UBSan check that no input makes the reader crash or read out
 * of bounds.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "board.h"
#include "fen.h"
#include "file.h"
#include "fuzz_check.h"
#include "index.h"
#include "material.h"
#include "movegen.h"
#include "ref_reader.h"
#include "tbcheck.h"
#include "tbformat.h"
#include "xqtb.h"

/* libFuzzer's start-up hook (declared nowhere we can include). */
int LLVMFuzzerInitialize(int *argc, char ***argv);

enum { MAX_POSITIONS = 160, ROOT_EVERY = 16, MAX_MATERIALS = 16 };

static char dir[256], paths[4096];

/* A spread of legal positions of one canonical material, both colourings. */
typedef struct {
    char name[XQ_MATERIAL_MAX];
    xq_material mat;
    uint64_t entries;
    int n;
    xqtb_position pos[MAX_POSITIONS];
    xq_board board[MAX_POSITIONS];
} material_positions;

static material_positions known[MAX_MATERIALS];
static int nknown;

static void to_position(const xq_board *b, xqtb_position *p)
{
    for (int s = 0; s < XQ_SQUARES; s++) {
        xq_piece q = b->sq[s];
        p->board[s] = q == EMPTY ? 0 : (int8_t)(colour_of(q) == RED ? kind_of(q) : -kind_of(q));
    }
    p->side = b->side;
}

static const material_positions *positions_of(const char *name)
{
    for (int i = 0; i < nknown; i++)
        if (!strcmp(known[i].name, name)) return &known[i];
    if (nknown == MAX_MATERIALS) return NULL;
    material_positions *mp = &known[nknown];
    char err[XQ_ERR_MAX];
    CHECK(xq_material_parse(name, &mp->mat, err) == 0);
    xq_index ix;
    CHECK(xq_index_init(&ix, &mp->mat) == 0);
    mp->entries = ix.size;
    uint64_t step = ix.size / (MAX_POSITIONS / 2) + 1;
    for (uint64_t i = 0; i < ix.size && mp->n < MAX_POSITIONS; i += step) {
        /* the first legal entry from i on */
        for (uint64_t j = i; j < ix.size && j < i + step; j++) {
            xq_board b;
            if (!xq_index_decode(&ix, j, &b)) continue;
            b.side = (uint8_t)(j & 1);
            if (xq_board_validate(&b, err)) continue;
            if ((j / step) & 1) {
                xq_board f;
                xq_board_flip(&b, &f);
                b = f;
            }
            mp->board[mp->n] = b;
            to_position(&b, &mp->pos[mp->n++]);
            break;
        }
    }
    xq_index_free(&ix);
    snprintf(mp->name, sizeof mp->name, "%s", name);
    nknown++;
    return mp;
}

static void remove_dir(void) { rmdir(dir); } /* each input's file is removed after use */

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *base = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/xqtb-fuzz-XXXXXX", base && *base ? base : "/tmp");
    CHECK(mkdtemp(dir) != NULL);
    atexit(remove_dir);
    const char *valid = getenv("XQTB_FUZZ_TABLES");
    snprintf(paths, sizeof paths, "%s%s%s", dir, valid && *valid ? ":" : "", valid ? valid : "");
    CHECK(positions_of("KRK"));
    return 0;
}

/* The material the input names, if usable, else KRK. */
static const char *material_of(const uint8_t *data, size_t size)
{
    if (size < XQF_OFF_NAME + XQF_NAME_SIZE) return "KRK";
    char name[XQF_NAME_SIZE + 1], canon_name[XQ_MATERIAL_MAX], err[XQ_ERR_MAX];
    memcpy(name, data + XQF_OFF_NAME, XQF_NAME_SIZE);
    name[XQF_NAME_SIZE] = 0;
    xq_material m, c;
    if (xq_material_parse(name, &m, err) || xq_material_pieces(&m) > 4) return "KRK";
    xq_material_canonical(&m, &c);
    xq_material_name(&c, canon_name);
    if (strcmp(canon_name, name)) return "KRK";
    const material_positions *mp = positions_of(canon_name);
    return mp ? mp->name : "KRK";
}

/* File size, block checksums and meta hash made consistent with the rest,
 * where the layout allows. */
static void resign(uint8_t *f, size_t size, int dtm)
{
    if (size < XQF_HEADER_SIZE) return;
    xqf_put64(f + XQF_OFF_FILE_SIZE, size);
    uint64_t blocks = 2 * (uint64_t)xqf_get32(f + XQF_OFF_BLOCKS);
    uint64_t map = dtm ? xqf_pad8((uint64_t)xqf_get32(f + XQF_OFF_SYMBOLS) * 2) : 0;
    uint64_t dict = xqf_pad8(xqf_get32(f + XQF_OFF_DICT_BYTES));
    unsigned w = xqf_offset_bytes(size);
    uint64_t offsets = XQF_HEADER_SIZE + map + dict, checksums = offsets + xqf_pad8((blocks + 1) * w),
             meta = checksums + blocks * 8 + xqf_pad8(xqf_get32(f + XQF_OFF_BOUNDS_BYTES));
    if (meta > size) return;
    for (uint64_t k = 0; k < blocks; k++) {
        const uint8_t *o = f + offsets + w * k;
        uint64_t b = w == 4 ? xqf_get32(o) : xqf_get64(o), e = w == 4 ? xqf_get32(o + 4) : xqf_get64(o + 8);
        if (b <= e && e <= size) xqf_put64(f + checksums + 8 * k, xqf_block_checksum(f + b, e - b));
    }
    xqf_put64(f + XQF_OFF_META_HASH, xqf_meta_hash(f, meta));
}

static int clean_error(int rc)
{
    return rc == XQTB_ERR_CORRUPT || rc == XQTB_ERR_MISMATCH || rc == XQTB_ERR_IO || rc == XQTB_ERR_NO_TABLE;
}

/* The file alone, through the reader's own interface, read whole and by
 * block; and through the checker of `xqtb check`, which must agree with
 * the reader: a file the deep check passes reads back, every block, and a
 * file the quick check passes (what `xqtb check` without --deep and `gen`
 * ask before reusing a file) opens, unless opening it decodes its blocks
 * (a small WDL file read whole), which only the deep check looks into. */
static void check_file(const char *path, int kind, const material_positions *mp)
{
    xqf_check_report r;
    int checked = xqf_check_file(path, kind, mp->name, mp->entries, 1, &r);
    CHECK(checked == XQF_OK || checked == XQF_CORRUPT || checked == XQF_MISMATCH || checked == XQF_IO);
    int quick = xqf_check_file(path, kind, mp->name, mp->entries, 0, &r);
    CHECK(quick == XQF_OK || quick == XQF_CORRUPT || quick == XQF_MISMATCH || quick == XQF_IO);
    if (checked == XQF_OK) CHECK(quick == XQF_OK);
    for (int whole = 0; whole < 2; whole++) {
        xqf_file f;
        int rc = xqf_open(&f, path, kind, mp->name, mp->entries, whole ? SIZE_MAX : 0);
        if (rc != XQTB_OK) {
            CHECK(rc == XQTB_ERR_CORRUPT || rc == XQTB_ERR_MISMATCH || rc == XQTB_ERR_IO);
            CHECK(f.meta == NULL && f.fd == -1); /* nothing stays open */
            CHECK(checked != XQF_OK);
            if (!whole) CHECK(quick != XQF_OK);
            continue;
        }
        const xqf_info *i = &f.info;
        CHECK(i->entries == mp->entries && i->blocks > 0 && i->block_entries > 0);
        size_t cap = xqf_max_block_bytes(&f);
        CHECK(cap > 0 && cap <= XQF_MAX_BLOCK_BYTES);
        uint8_t *out = malloc(cap);
        xqf_scratch scratch = {0};
        CHECK(out);
        int all_ok = 1;
        for (uint64_t k = 0; k < 2 * (uint64_t)i->blocks; k++) {
            size_t n = 0;
            rc = xqf_read_block(&f, k, &scratch, out, cap, &n);
            CHECK(rc == XQTB_OK || rc == XQTB_ERR_CORRUPT);
            if (rc == XQTB_OK) CHECK(n == xqf_block_symbol_bytes(i, k));
            all_ok &= rc == XQTB_OK;
        }
        if (checked == XQF_OK) CHECK(all_ok);
        CHECK(xqf_read_block(&f, 2 * (uint64_t)i->blocks, &scratch, out, cap, &(size_t){0}) == XQTB_ERR_CORRUPT);
        xqf_scratch_free(&scratch);
        free(out);
        xqf_close(&f);
    }
}

/* Root moves come in classes by five-valued result, best first. */
static int root_better_or_equal(const xqtb_root_move *a, const xqtb_root_move *b) { return a->wdl5 >= b->wdl5; }

static void check_value(int wdl, int dtm, int32_t max_dtm)
{
    CHECK(wdl == XQTB_WIN || wdl == XQTB_DRAW || wdl == XQTB_LOSS);
    if (wdl == XQTB_DRAW) CHECK(dtm == XQTB_NO_DISTANCE);
    if (dtm == XQTB_NO_DISTANCE) return; /* a draw, or decided by a repetition ruling */
    if (wdl == XQTB_WIN) CHECK(dtm > 0 && (dtm & 1) == 1);
    if (wdl == XQTB_LOSS) CHECK(dtm >= 0 && (dtm & 1) == 0);
    if (wdl != XQTB_DRAW) CHECK(dtm <= max_dtm); /* the reader bounds the DTM map by the header's */
}

/* What the second reader says of one position against the library's
 * answers (rc_wdl, rc_dtm, rc_full: their statuses): a difference where
 * both answered, or 0. */
static int differs_from_spec(ref_reader *rr, const xq_board *b, int rc_wdl, int wdl, int rc_dtm, int dtm_wdl, int dtm,
                             int rc_full, const xqtb_result *full, int rules)
{
    int w;
    if (rc_wdl == XQTB_OK && ref_reader_wdl(rr, b, &w) == 0 && w != wdl) return 1;
    ref_read_value v;
    if (rc_dtm != XQTB_OK || ref_reader_probe(rr, b, 0, &v)) return 0;
    if (v.wdl != dtm_wdl || (v.dtm < 0 ? XQTB_NO_DISTANCE : v.dtm) != dtm) return 1;
    int by = ref_reader_ruling(&v, rules);
    return rc_full == XQTB_OK && ((int)full->by_rule != by || full->order != v.order);
}

/* Probes through a fresh handle. */
static void check_probes(const material_positions *mp, int32_t max_dtm)
{
    int st;
    xqtb_handle *h = xqtb_open(paths, NULL, &st);
    CHECK(h && st == XQTB_OK);
    ref_reader *rr = ref_reader_open(paths);
    CHECK(rr);
    int differ = -1; /* the first position where the library and the page differ */
    for (int i = 0; i < mp->n; i++) {
        const xqtb_position *p = &mp->pos[i];
        int wdl = 99, dtm = -99, wdl_alone = 99;
        int rc_wdl = xqtb_probe_wdl(h, p, &wdl_alone), rc = rc_wdl;
        if (rc == XQTB_OK)
            CHECK(wdl_alone == XQTB_WIN || wdl_alone == XQTB_DRAW || wdl_alone == XQTB_LOSS);
        else
            CHECK(clean_error(rc) && wdl_alone == 99);
        int rc_dtm = rc = xqtb_probe_dtm(h, p, &wdl, &dtm);
        if (rc == XQTB_OK)
            check_value(wdl, dtm, max_dtm);
        else
            CHECK(clean_error(rc) && wdl == 99 && dtm == -99);
        xqtb_result r;
        memset(&r, 0x55, sizeof r);
        int rc_full = rc = xqtb_probe_counter(h, p, i % 3, &r);
        if (rc == XQTB_OK) {
            CHECK(r.wdl5 >= XQTB_WDL5_LOSS && r.wdl5 <= XQTB_WDL5_WIN);
            CHECK((r.wdl5 > 0) == (r.wdl > 0) && (r.wdl5 < 0) == (r.wdl < 0));
            CHECK(r.dtc >= -1 && r.order >= 0 && r.order <= 63);
        } else {
            CHECK(clean_error(rc));
        }
        if (differ < 0 &&
            differs_from_spec(rr, &mp->board[i], rc_wdl, wdl_alone, rc_dtm, wdl, dtm, rc_full, &r, xqtb_rules(h)))
            differ = i;
        int w5 = 99;
        rc = xqtb_probe_wdl_counter(h, p, i % 3, &w5);
        if (rc == XQTB_OK)
            CHECK(w5 >= XQTB_WDL5_LOSS && w5 <= XQTB_WDL5_WIN);
        else
            CHECK(clean_error(rc) && w5 == 99);
        int x5 = 99, dtc = -99;
        rc = xqtb_probe_dtc(h, p, i % 3, &x5, &dtc);
        if (rc == XQTB_OK)
            CHECK(x5 >= XQTB_WDL5_LOSS && x5 <= XQTB_WDL5_WIN && dtc >= -1 && (dtc == -1 || x5 != XQTB_WDL5_DRAW));
        else
            CHECK(clean_error(rc) && x5 == 99 && dtc == -99);
        if (i % ROOT_EVERY) continue;
        xqtb_root_move mv[XQTB_MAX_MOVES];
        uint16_t legal[XQTB_MAX_MOVES];
        int n = xqtb_probe_root(h, p, mv);
        if (n < 0) {
            CHECK(clean_error(n));
            continue;
        }
        CHECK(n == xqtb_legal_moves(p, legal));
        /* Where a DTM file some move needs is missing (this material's,
         * when only the input's WDL or DTC file holds it), every move is
         * valued from the WDL and DTC files: no DTM, a ruled result as
         * XQTB_BY_RULING; where a DTC file is missing too, from the WDL
         * files alone, without distances or rulings (xqtb.h,
         * xqtb_probe_root); otherwise each has its distance. */
        int from_wdl = 1, no_dtm = 1;
        for (int j = 0; j < n; j++) {
            from_wdl &= mv[j].dtm == XQTB_NO_DISTANCE && mv[j].dtc == XQTB_NO_DISTANCE;
            no_dtm &= mv[j].dtm == XQTB_NO_DISTANCE;
        }
        for (int j = 0; j < n; j++) {
            CHECK(mv[j].wdl == XQTB_WIN || mv[j].wdl == XQTB_DRAW || mv[j].wdl == XQTB_LOSS);
            if (from_wdl) {
                CHECK((!mv[j].by_rule || mv[j].by_rule == XQTB_BY_RULING) && mv[j].wdl5 == 2 * mv[j].wdl);
            } else if (mv[j].by_rule == XQTB_BY_RULING) {
                CHECK(no_dtm && mv[j].wdl != XQTB_DRAW && mv[j].dtc == XQTB_NO_DISTANCE && mv[j].order == 0);
            } else if (no_dtm && mv[j].wdl != XQTB_DRAW && !mv[j].by_rule) {
                CHECK(mv[j].dtc >= 1); /* an ordinary result from the DTC file */
            } else {
                CHECK(mv[j].wdl == XQTB_DRAW || mv[j].by_rule ? mv[j].dtm == XQTB_NO_DISTANCE : mv[j].dtm > 0);
                if (mv[j].wdl != XQTB_DRAW && !mv[j].by_rule) CHECK((mv[j].dtm & 1) == (mv[j].wdl == XQTB_WIN));
            }
            if (j) CHECK(root_better_or_equal(&mv[j - 1], &mv[j]));
        }
    }
    if (differ >= 0 && ref_reader_check_bounds(rr) >= 0) {
        char fen[XQ_FEN_MAX];
        xq_fen_write(&mp->board[differ], fen);
        fprintf(stderr, "the library and docs/FORMAT.md's second reader differ on %s\n", fen);
        CHECK(!"the library's answer is not the file's");
    }
    ref_reader_close(rr);
    xqtb_close(h);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > (1 << 20)) return 0;
    int is_dtc = size >= 8 && !memcmp(data, xqf_kind_magic(XQF_KIND_DTC), 8);
    int dtm = is_dtc || (size >= 8 && !memcmp(data, xqf_kind_magic(XQF_KIND_DTM), 8)); /* a symbol map to re-sign */
    int kind = is_dtc ? XQF_KIND_DTC : dtm ? XQF_KIND_DTM : XQF_KIND_WDL;
    const material_positions *mp = positions_of(material_of(data, size));
    char path[512];
    snprintf(path, sizeof path, "%s/%s.%s", dir, mp->name, is_dtc ? "xqc" : dtm ? "xqd" : "xqw");
    uint8_t *copy = malloc(size ? size : 1);
    CHECK(copy);
    memcpy(copy, data, size);
    /* DTM probes of this material read the input when it is a DTM file */
    int32_t max_dtm =
        dtm && !is_dtc && size >= XQF_HEADER_SIZE ? (int32_t)xqf_get32(data + XQF_OFF_MAX_DTM) : INT32_MAX;
    for (int variant = 0; variant < 2; variant++) {
        if (variant == 1) {
            resign(copy, size, dtm);
            if (!memcmp(copy, data, size)) break; /* nothing changed */
        }
        FILE *f = fopen(path, "wb");
        CHECK(f);
        CHECK(fwrite(copy, 1, size, f) == size);
        CHECK(fclose(f) == 0);
        check_file(path, kind, mp);
        check_probes(mp, max_dtm);
        unlink(path);
    }
    free(copy);
    return 0;
}
