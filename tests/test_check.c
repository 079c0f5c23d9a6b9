/*
 * test_check.c - `xqtb check`, and `xqtb gen` finding what check finds:
 * tables whose compressed files are missing (a run killed between writing
 * the DTM and the DTC file, or a file deleted), damaged (a flipped byte in
 * a block or in the header, a truncated file), not files at all (a FIFO),
 * left over from another move limit, or built under other settings.
 *
 * Before, `gen` looked only for the WDL and DTM files to exist: a lost DTC
 * file was never rebuilt, even with --force, and `gen` still exited 0;
 * `probe` then named the DTM file as missing.  Damaged files were reused.
 * gen, stats and verify hung on a FIFO named like a table.
 */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <xxhash.h>
#include <zstd.h>

#include "runxqtb.h"
#include "tb.h"
#include "tbformat.h"
#include "testgen.h"
#include "tmpdir.h"
#include "xqtb.h"

/* KRKN with its subtables KRK, KNK, KK under the defaults (rules full,
 * limit 120), generated once; each test works on a copy. */
static char pristine[1024];
static const char *const materials[] = {"KK", "KNK", "KRK", "KRKN"};
static const char *const exts[] = {"xqw", "xqd", "xqc", "xqtb"};

static const char *fresh_copy(const char *tag)
{
    static char dir[1024];
    snprintf(dir, sizeof dir, "%s/%s", test_tmpdir(), tag);
    assert_int_equal(mkdir(dir, 0755), 0); /* a fresh one for each test */
    testgen_copy_tables(pristine, dir, materials, (int)(sizeof materials / sizeof *materials), exts,
                        (int)(sizeof exts / sizeof *exts));
    return dir;
}

static void path_of(char *buf, size_t len, const char *dir, const char *file)
{
    snprintf(buf, len, "%s/%s", dir, file);
}

static void flip_byte(const char *dir, const char *file, long offset)
{
    char p[2048];
    path_of(p, sizeof p, dir, file);
    FILE *f = fopen(p, "r+b");
    assert_non_null(f);
    assert_int_equal(fseek(f, offset, SEEK_SET), 0);
    int c = fgetc(f);
    assert_true(c != EOF);
    assert_int_equal(fseek(f, offset, SEEK_SET), 0);
    fputc(c ^ 0x5A, f);
    assert_int_equal(fclose(f), 0);
}

static long file_size(const char *dir, const char *file)
{
    char p[2048];
    struct stat sb;
    path_of(p, sizeof p, dir, file);
    return stat(p, &sb) ? -1 : (long)sb.st_size;
}

static void assert_output_has(const char *what)
{
    if (!strstr(xqtb_out, what)) fail_msg("output lacks \"%s\":\n%s", what, xqtb_out);
}

/* The files of the copy equal the pristine ones, byte for byte. */
static void assert_restored(const char *dir)
{
    for (size_t i = 0; i < sizeof materials / sizeof *materials; i++)
        for (size_t k = 0; k < 3; k++) {
            char a[2048], b[2048];
            snprintf(a, sizeof a, "%s/%s.%s", pristine, materials[i], exts[k]);
            snprintf(b, sizeof b, "%s/%s.%s", dir, materials[i], exts[k]);
            testgen_assert_same_file(a, b);
        }
}

/* A copy of the pristine set as a default gen leaves it: the compressed
 * files alone, no raw file. */
static const char *noraw_copy(const char *tag)
{
    static char dir[1024];
    snprintf(dir, sizeof dir, "%s/%s", test_tmpdir(), tag);
    assert_int_equal(mkdir(dir, 0755), 0);
    testgen_copy_tables(pristine, dir, materials, (int)(sizeof materials / sizeof *materials), exts, 3);
    return dir;
}

/* No raw file in dir for any material of the set. */
static void assert_no_raw(const char *dir)
{
    for (size_t i = 0; i < sizeof materials / sizeof *materials; i++) {
        char raw[64];
        snprintf(raw, sizeof raw, "%s.xqtb", materials[i]);
        if (file_size(dir, raw) != -1) fail_msg("%s/%s is there", dir, raw);
    }
}

/* gen said that it generates a table again because of file: a line
 * "DIR/FILE is STATUS...; regenerating". */
static void assert_regenerated(const char *file, const char *status)
{
    char what[256];
    snprintf(what, sizeof what, "/%s is %s", file, status);
    for (const char *l = xqtb_out; *l;) {
        const char *e = strchr(l, '\n');
        size_t n = e ? (size_t)(e - l) : strlen(l);
        const char *at = strstr(l, what);
        static const char tail[] = "; regenerating";
        if (at && at < l + n && n >= sizeof tail - 1 && !memcmp(l + n - (sizeof tail - 1), tail, sizeof tail - 1))
            return;
        l += n + (e != NULL);
    }
    fail_msg("output lacks \"...%s...; regenerating\":\n%s", what, xqtb_out);
}

static int setup(void **state)
{
    (void)state;
    snprintf(pristine, sizeof pristine, "%s/pristine", test_tmpdir());
    /* with raw files: most tests here are about rewriting compressed files
     * from them; test_without_raw is about the default */
    if (run_xqtb("gen -q --keep-raw -d %s KRKN", pristine) != 0) return -1;
    return 0;
}

static void test_sound_set(void **state)
{
    (void)state;
    assert_int_equal(run_xqtb("check -d %s", pristine), 0);
    assert_output_has("KRKN         DTC  sound");
    assert_output_has("checked 4 materials, 12 files");
    assert_output_has(": 0 damaged, missing or unreadable, 0 inconsistent");
    assert_int_equal(run_xqtb("check -d %s --deep KRKN", pristine), 0);
    assert_output_has("blocks decompressed");
    /* a material named in either colouring, or one file kind's checks only
     * when the others are absent, still work */
    assert_int_equal(run_xqtb("check -q -d %s KNKR", pristine), 0);
    assert_output_has("checked 1 materials, 3 files");
}

static void test_lost_dtc_file(void **state)
{
    (void)state;
    const char *dir = fresh_copy("lost-dtc");
    char p[2048];
    path_of(p, sizeof p, dir, "KRK.xqc");
    assert_int_equal(unlink(p), 0);
    assert_int_equal(run_xqtb("check -d %s", dir), 3);
    assert_output_has("KRK          DTC  missing");
    /* the prober names the file that is missing, not one that is there */
    assert_int_equal(run_xqtb("probe -d %s '3k5/9/9/9/9/9/9/9/9/R3K4 w - - 0 1'", dir), 1);
    assert_output_has("KRK.xqc needed");
    /* gen rebuilds it from the raw file, saying so, and --force too */
    assert_int_equal(run_xqtb("gen -d %s KRKN", dir), 0);
    assert_output_has("KRK.xqc is missing; writing the compressed files again");
    assert_restored(dir);
    assert_int_equal(unlink(p), 0);
    assert_int_equal(run_xqtb("gen --force -q -d %s KRKN", dir), 0);
    assert_restored(dir);
    assert_int_equal(run_xqtb("check -q -d %s", dir), 0);

    /* without a raw file (the default), probe and stats name the missing
     * file, and gen generates the table again, saying why, with the same
     * files; KRKN, built from the same KRK, is reused */
    dir = noraw_copy("lost-dtc-noraw");
    path_of(p, sizeof p, dir, "KRK.xqc");
    assert_int_equal(unlink(p), 0);
    assert_int_equal(run_xqtb("check -q -d %s", dir), 3);
    assert_output_has("KRK          DTC  missing");
    assert_int_equal(run_xqtb("probe -d %s '3k5/9/9/9/9/9/9/9/9/R3K4 w - - 0 1'", dir), 1);
    assert_output_has("KRK.xqc needed");
    assert_int_equal(run_xqtb("stats -d %s KRK", dir), 1);
    assert_output_has("KRK.xqc");
    assert_int_equal(run_xqtb("gen -d %s KRKN", dir), 0);
    assert_regenerated("KRK.xqc", "missing");
    assert_output_has("KRKN       reusing");
    assert_restored(dir);
    assert_no_raw(dir);
}

/* The same for the DTM file, from which (with the DTC file) a table
 * without a raw file is rebuilt: gen says why it generates the table
 * again, as for any other file missing. */
static void test_lost_dtm_file_without_raw(void **state)
{
    (void)state;
    const char *dir = noraw_copy("lost-dtm-noraw");
    char p[2048];
    path_of(p, sizeof p, dir, "KRK.xqd");
    assert_int_equal(unlink(p), 0);
    assert_int_equal(run_xqtb("check -q -d %s", dir), 3);
    assert_output_has("KRK          DTM  missing");
    /* probe answers from the WDL and DTC files, and says what is missing */
    assert_int_equal(run_xqtb("probe -d %s '3k5/9/9/9/9/9/9/9/9/R3K4 w - - 0 1'", dir), 0);
    assert_output_has("KRK.xqd is not in");
    assert_output_has("answered from the WDL and DTC files");
    assert_int_equal(run_xqtb("stats -d %s KRKN", dir), 1);
    assert_output_has("KRK.xqd");
    assert_int_equal(run_xqtb("verify -d %s KRK", dir), 1);
    assert_output_has("KRK.xqd");
    assert_int_equal(run_xqtb("gen -d %s KRKN", dir), 0);
    char out[sizeof xqtb_out];
    memcpy(out, xqtb_out, sizeof out);
    assert_restored(dir);
    assert_no_raw(dir);
    memcpy(xqtb_out, out, sizeof out);
    assert_regenerated("KRK.xqd", "missing");
}

static void test_damaged_files(void **state)
{
    (void)state;
    const char *dir = fresh_copy("damaged");
    flip_byte(dir, "KRKN.xqd", file_size(dir, "KRKN.xqd") - 100); /* in the last block */
    flip_byte(dir, "KNK.xqw", 60);                                /* a header field */
    char p[2048];
    path_of(p, sizeof p, dir, "KRKN.xqc");
    assert_int_equal(truncate(p, file_size(dir, "KRKN.xqc") - 7), 0);
    assert_int_equal(run_xqtb("check -d %s", dir), 3);
    assert_output_has("KRKN         DTM  damaged         1 of");
    assert_output_has("KNK          WDL  damaged");
    assert_output_has("KRKN         DTC  damaged");
    assert_output_has("(truncated or extended)");
    assert_output_has(": 3 damaged, missing or unreadable");
    /* --deep finds nothing more here, and the same exit status */
    assert_int_equal(run_xqtb("check --deep -q -d %s", dir), 3);
    /* gen rebuilds every damaged file from its raw file */
    assert_int_equal(run_xqtb("gen -d %s KRKN", dir), 0);
    assert_output_has("KRKN.xqd is damaged");
    assert_output_has("KNK.xqw is damaged");
    assert_restored(dir);
    assert_int_equal(run_xqtb("check -q -d %s", dir), 0);

    /* the same damage without raw files (the default), in subtables
     * (test_without_raw damages KRKN's DTM file): stats names the damaged
     * file, and gen generates each damaged table again, saying why, with
     * the same files */
    dir = noraw_copy("damaged-noraw");
    flip_byte(dir, "KRK.xqd", file_size(dir, "KRK.xqd") - 10); /* in the last block */
    flip_byte(dir, "KNK.xqw", 60);
    path_of(p, sizeof p, dir, "KRK.xqc");
    assert_int_equal(truncate(p, file_size(dir, "KRK.xqc") - 7), 0);
    assert_int_equal(run_xqtb("check -q -d %s", dir), 3);
    assert_output_has(": 3 damaged, missing or unreadable");
    assert_int_equal(run_xqtb("stats -d %s KRKN", dir), 3);
    assert_output_has("KRK.xq");
    assert_int_equal(run_xqtb("gen -d %s KRKN", dir), 0);
    assert_regenerated("KNK.xqw", "damaged");
    assert_regenerated("KRK.xqd", "damaged");
    assert_output_has("KRKN       reusing");
    assert_restored(dir);
    assert_no_raw(dir);
    assert_int_equal(run_xqtb("check -q -d %s", dir), 0);
}

/* KRKN's DTM or DTC file (kind) with its search bounds forged and the
 * file re-signed (so that only a recomputation can tell): group 0's first
 * bound (DTM: its shortest loss; DTC: its nearest distance) changed, the
 * frame compressed again into the same room.  The quick check finds a
 * sound frame; --deep recomputes the bounds from the blocks and calls the
 * file damaged. */
static void forge_search_bounds(int kind)
{
    const char *dir = fresh_copy(kind == XQF_KIND_DTM ? "forged-bounds-dtm" : "forged-bounds-dtc");
    char p[2048], name[16];
    snprintf(name, sizeof name, "KRKN.%s", xqf_kind_ext(kind));
    path_of(p, sizeof p, dir, name);
    char *buf;
    long len;
    testgen_read_file(p, &buf, &len);
    uint8_t *f = (uint8_t *)buf;
    uint32_t sb = xqf_get32(f + XQF_OFF_BOUNDS_BYTES);
    assert_true(sb > 0); /* a default DTM or DTC file has a searched side */
    uint64_t entries = xqf_get64(f + XQF_OFF_ENTRIES), raw_bytes = xqf_bounds_raw_bytes(kind, entries);
    uint64_t at = xqf_get32(f + XQF_HEADER_SIZE + xqf_pad8((uint64_t)xqf_get32(f + XQF_OFF_SYMBOLS) * 2)) -
                  xqf_pad8(sb); /* the bounds end where the first block starts (u32 offsets: a small file) */
    uint8_t *raw = malloc(raw_bytes), *frame = malloc(ZSTD_compressBound(raw_bytes));
    assert_non_null(raw);
    assert_non_null(frame);
    assert_int_equal(ZSTD_decompress(raw, raw_bytes, f + at, sb), raw_bytes);
    /* group 0 made to claim a loss in 0 (or none); compressed harder than
     * the writer does, the frame leaves room for a skippable frame (RFC
     * 8878, 3.1.2) that fills the section to its old size */
    raw[0] = raw[0] == XQF_BOUND_NONE ? 0 : XQF_BOUND_NONE;
    size_t n = ZSTD_compress(frame, ZSTD_compressBound(raw_bytes), raw, raw_bytes, ZSTD_maxCLevel());
    assert_false(ZSTD_isError(n));
    assert_true(n + 8 <= sb);
    memcpy(f + at, frame, n);
    xqf_put32(f + at + n, 0x184D2A50u);
    xqf_put32(f + at + n + 4, (uint32_t)(sb - n - 8));
    memset(f + at + n + 8, 0, sb - n - 8);
    xqf_put64(f + XQF_OFF_META_HASH, xqf_meta_hash(f, at + xqf_pad8(sb)));
    FILE *o = fopen(p, "wb");
    assert_non_null(o);
    assert_int_equal(fwrite(f, 1, (size_t)len, o), (size_t)len);
    assert_int_equal(fclose(o), 0);
    free(raw);
    free(frame);
    free(buf);
    assert_int_equal(run_xqtb("check -d %s KRKN", dir), 0);
    assert_int_equal(run_xqtb("check --deep -d %s KRKN", dir), 3);
    char want[128];
    snprintf(want, sizeof want, "KRKN         %s  damaged         the search bounds disagree with the blocks",
             xqf_kind_name(kind));
    assert_output_has(want);
}

static void test_forged_search_bounds(void **state)
{
    (void)state;
    forge_search_bounds(XQF_KIND_DTM);
    forge_search_bounds(XQF_KIND_DTC);
}

/* KRNK's stored side has blocks without a legal entry, and no draw: their
 * filler once took a code no entry holds, which came out as symbol 0,
 * "search" (damage in the stored side, check 11), in DTM and DTC alike.
 * A fresh set passes the deep check. */
static void test_fillers_pass_deep_check(void **state)
{
    (void)state;
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/fillers", test_tmpdir());
    assert_int_equal(mkdir(dir, 0755), 0);
    assert_int_equal(run_xqtb("gen -q -d %s KRNK", dir), 0);
    assert_int_equal(run_xqtb("check --deep -d %s KRNK", dir), 0);
    assert_output_has("KRNK         DTM  sound");
    assert_output_has("KRNK         DTC  sound");
}

/* A FIFO under a table's name once hung gen, stats and verify. */
static void test_fifo_never_hangs(void **state)
{
    (void)state;
    const char *dir = fresh_copy("fifo");
    char p[2048];
    path_of(p, sizeof p, dir, "KRK.xqw");
    assert_int_equal(unlink(p), 0);
    assert_int_equal(mkfifo(p, 0644), 0);
    assert_int_equal(run_xqtb_within(30, "check -d %s", dir), 3);
    assert_output_has("KRK          WDL  unreadable      not a regular file");
    path_of(p, sizeof p, dir, "KNK.xqtb");
    assert_int_equal(unlink(p), 0);
    assert_int_equal(mkfifo(p, 0644), 0);
    assert_int_equal(run_xqtb_within(30, "stats -d %s KNK", dir), 3);
    assert_output_has("not a regular file");
    assert_int_equal(run_xqtb_within(30, "verify -d %s KNK", dir), 3);
    /* gen regenerates KNK in its place and rewrites KRK's files */
    assert_int_equal(run_xqtb_within(60, "gen -d %s KRKN", dir), 0);
    assert_restored(dir);

    /* without raw files, a table is rebuilt from its DTM file: a FIFO in
     * its place is refused by stats and verify, and gen generates the
     * table again, writing a file in the FIFO's place */
    dir = noraw_copy("fifo-noraw");
    path_of(p, sizeof p, dir, "KNK.xqd");
    assert_int_equal(unlink(p), 0);
    assert_int_equal(mkfifo(p, 0644), 0);
    assert_int_equal(run_xqtb_within(30, "check -q -d %s", dir), 3);
    assert_output_has("KNK          DTM  unreadable      not a regular file");
    assert_int_equal(run_xqtb_within(30, "stats -d %s KNK", dir), 3);
    assert_output_has("KNK.xqd is not a regular file");
    assert_int_equal(run_xqtb_within(30, "stats -d %s KRKN", dir), 3);
    assert_output_has("KNK.xqd is not a regular file");
    assert_int_equal(run_xqtb_within(30, "verify -d %s KNK", dir), 3);
    assert_int_equal(run_xqtb_within(60, "gen -d %s KRKN", dir), 0);
    assert_regenerated("KNK.xqd", "unreadable (not a regular file)");
    assert_restored(dir);
    assert_no_raw(dir);
}

static void test_mixed_and_stale(void **state)
{
    (void)state;
    const char *dir = fresh_copy("mixed");
    /* KRK again without a move limit: its DTC file goes, and the directory
     * now holds two move limits, which no handle reads as one */
    assert_int_equal(run_xqtb("gen -q --force --limit 0 -d %s KRK", dir), 0);
    assert_int_equal(file_size(dir, "KRK.xqc"), -1);
    /* generated again without --keep-raw: the raw files left go too */
    assert_int_equal(file_size(dir, "KRK.xqtb"), -1);
    assert_int_equal(file_size(dir, "KK.xqtb"), -1);
    assert_int_equal(run_xqtb("check -q -d %s", dir), 3);
    assert_output_has("mixed");
    assert_output_has("one handle reads one");
    /* a DTC file beside files built without a limit is stale */
    char a[2048], b[2048];
    snprintf(a, sizeof a, "%s/KRK.xqc", pristine);
    snprintf(b, sizeof b, "%s/KRK.xqc", dir);
    testgen_copy_file(a, b);
    assert_int_equal(run_xqtb("check -q -d %s KRK", dir), 3);
    assert_output_has("KRK          DTC  stale");
}

/* Re-signs dir/file, a WDL file, with index layout 1 in its header. */
static void resign_layout1(const char *dir, const char *file)
{
    char p[2048];
    path_of(p, sizeof p, dir, file);
    char *buf;
    long len;
    testgen_read_file(p, &buf, &len);
    uint8_t *f = (uint8_t *)buf;
    xqf_put32(f + XQF_OFF_INDEX_LAYOUT, 1);
    /* the metadata ends where the first block starts: offsets[0], which a
     * WDL file (no symbol map) holds right after the header, as a u32 in
     * a small file */
    uint64_t meta = xqf_get32(f + XQF_HEADER_SIZE);
    xqf_put64(f + XQF_OFF_META_HASH, xqf_meta_hash(f, meta));
    FILE *o = fopen(p, "wb");
    assert_non_null(o);
    assert_int_equal(fwrite(f, 1, (size_t)len, o), (size_t)len);
    assert_int_equal(fclose(o), 0);
    free(buf);
}

/* Files numbered by index layout 1 (before the compact index): re-signed
 * with layout 1 in the header, the library refuses them as built otherwise
 * (XQTB_ERR_MISMATCH), check says to regenerate, and gen rebuilds them; a
 * raw file of format version 2 is regenerated; without raw files, gen
 * generates a table with such a file again. */
static void test_old_index_layout(void **state)
{
    (void)state;
    const char *dir = fresh_copy("layout1");
    char p[2048], *buf;
    long len;
    FILE *o;
    resign_layout1(dir, "KRKN.xqw");

    int status;
    xqtb_handle *h = xqtb_open(dir, NULL, &status);
    xqtb_position pos;
    int wdl;
    assert_int_equal(xqtb_position_from_fen("3k5/9/9/9/9/9/n8/9/9/R3K4 w - - 0 1", &pos, NULL), XQTB_OK);
    assert_int_equal(xqtb_probe_wdl(h, &pos, &wdl), XQTB_ERR_MISMATCH);
    xqtb_close(h);
    assert_int_equal(run_xqtb("check -q -d %s", dir), 3);
    assert_output_has("KRKN         WDL  built otherwise index layout 1, this reader knows 2: regenerate it");

    /* a raw file of version 2 */
    path_of(p, sizeof p, dir, "KRK.xqtb");
    testgen_read_file(p, &buf, &len);
    xqf_put32((uint8_t *)buf + 8, 2);
    o = fopen(p, "wb");
    assert_int_equal(fwrite(buf, 1, (size_t)len, o), (size_t)len);
    assert_int_equal(fclose(o), 0);
    free(buf);
    assert_int_equal(run_xqtb("gen -d %s KRKN", dir), 0);
    assert_output_has("KRK.xqtb is raw format version 2, not 3 or 4: regenerate it; regenerating");
    assert_output_has("KRKN.xqw is built otherwise");
    assert_restored(dir);

    /* without a raw file, gen generates such a table again */
    dir = noraw_copy("layout1-noraw");
    resign_layout1(dir, "KRK.xqw");
    assert_int_equal(run_xqtb("gen -d %s KRKN", dir), 0);
    assert_regenerated("KRK.xqw", "built otherwise");
    assert_output_has("KRKN       reusing");
    assert_output_has("index layout 1");
    assert_restored(dir);
    assert_no_raw(dir);
}

/* Files of the format version before this one (8: u64 offsets, frames
 * with their magic number): refused as built otherwise, each of the three
 * named so (their fields unread, a DTC file is not taken for one left
 * from a build without a move limit), and generated again by gen. */
static void test_old_format_version(void **state)
{
    (void)state;
    const char *dir = noraw_copy("format8");
    static const char *const files[] = {"KRKN.xqw", "KRKN.xqd", "KRKN.xqc"};
    for (int i = 0; i < 3; i++) {
        char p[2048], *buf;
        long len;
        path_of(p, sizeof p, dir, files[i]);
        testgen_read_file(p, &buf, &len);
        xqf_put32((uint8_t *)buf + XQF_OFF_VERSION, XQF_VERSION - 1);
        FILE *o = fopen(p, "wb");
        assert_non_null(o);
        assert_int_equal(fwrite(buf, 1, (size_t)len, o), (size_t)len);
        assert_int_equal(fclose(o), 0);
        free(buf);
    }
    assert_int_equal(run_xqtb("check -d %s KRKN", dir), 3);
    char want[160];
    static const char *const kinds[] = {"WDL", "DTM", "DTC"};
    for (int i = 0; i < 3; i++) {
        snprintf(want, sizeof want, "KRKN         %s  built otherwise format version %d, this reader knows %d",
                 kinds[i], XQF_VERSION - 1, XQF_VERSION);
        assert_output_has(want);
    }
    assert_null(strstr(xqtb_out, "stale"));
    /* probe says to ask check which file */
    assert_int_equal(run_xqtb("probe -d %s '3k5/9/9/9/9/9/n8/9/9/R3K4 w - - 0 1'", dir), 3);
    snprintf(want, sizeof want, "`xqtb check -d %s` names the file and why", dir);
    assert_output_has(want);
    assert_int_equal(run_xqtb("gen -d %s KRKN", dir), 0);
    assert_regenerated("KRKN.xqw", "built otherwise");
    assert_restored(dir);
}

/* The raw file's version byte (offset 8). */
static int raw_version(const char *dir, const char *file)
{
    char p[2048], *buf;
    long len;
    path_of(p, sizeof p, dir, file);
    testgen_read_file(p, &buf, &len);
    int v = len > 12 ? (int)xqf_get32((uint8_t *)buf + 8) : -1;
    free(buf);
    return v;
}

/* Rewrites KRK's raw file in dir as version 4 (one Zstandard stream), as
 * gen wrote it by default before it stopped writing raw files; returns its
 * size. */
static long write_compact_krk(const char *dir)
{
    char err[XQ_ERR_MAX];
    xq_material m;
    assert_int_equal(xq_material_parse("KRK", &m, err), 0);
    tb_set *set = tb_set_new(dir);
    tb_table *t = tb_set_get(set, &m, err);
    if (!t) fail_msg("%s", err);
    if (tb_raw_write(t, dir, 1, err)) fail_msg("%s", err);
    tb_set_free(set);
    assert_int_equal(raw_version(dir, "KRK.xqtb"), 4);
    return file_size(dir, "KRK.xqtb");
}

/* gen --keep-raw writes raw files as they are (version 3); a raw file of
 * version 4 (one Zstandard stream, what gen wrote by default before) still
 * serves as a subtable; one cut short, extended or damaged anywhere is
 * refused with a clear message and its table regenerated, without a raw
 * file now. */
static void test_compact_raw(void **state)
{
    (void)state;
    const char *dir = fresh_copy("compact");
    assert_int_equal(raw_version(dir, "KRK.xqtb"), 3);
    long plain = file_size(dir, "KRK.xqtb");
    long compact = write_compact_krk(dir);
    assert_true(compact * 4 < plain);
    /* a compressed KRK serves KRKN as well as a plain one (read, not
     * generated again, which would remove it), and the compressed files
     * come out the same */
    assert_int_equal(run_xqtb("stats -d %s KRK", dir), 0);
    assert_output_has("red to move: 3834 legal, 3834 win");
    assert_int_equal(run_xqtb("gen --force -d %s KRKN", dir), 0);
    char reused[1200];
    snprintf(reused, sizeof reused, "KRK        reusing %s/KRK.xqtb\n", dir);
    assert_output_has(reused);
    assert_int_equal(file_size(dir, "KRK.xqtb"), compact);
    assert_restored(dir);
    assert_int_equal(file_size(dir, "KRKN.xqtb"), -1); /* regenerated without --keep-raw */
    char p[2048];
    path_of(p, sizeof p, dir, "KRK.xqtb");
    struct {
        const char *what;
        long cut;     /* bytes to cut off the end, or -1 */
        long flip_at; /* byte to flip, or -1 */
        int append;   /* a byte appended */
    } cases[] = {
        {"its data ends early or does not decode", 1, -1, 0},
        {"its data ends early or does not decode", compact - 100, -1, 0},
        {"data after its end", -1, -1, 1},
        {"corrupt", -1, 96 + (compact - 96) / 2, 0},
        {"corrupt", -1, compact - 1, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        if (i > 0) assert_int_equal(write_compact_krk(dir), compact);
        if (cases[i].cut > 0) assert_int_equal(truncate(p, compact - cases[i].cut), 0);
        if (cases[i].flip_at >= 0) flip_byte(dir, "KRK.xqtb", cases[i].flip_at);
        if (cases[i].append) {
            FILE *f = fopen(p, "ab");
            assert_non_null(f);
            fputc(0, f);
            assert_int_equal(fclose(f), 0);
        }
        assert_int_equal(run_xqtb("stats -d %s KRK", dir), 3);
        assert_output_has(cases[i].what);
        assert_int_equal(run_xqtb("gen -d %s KRKN", dir), 0);
        assert_output_has("regenerating");
        assert_int_equal(file_size(dir, "KRK.xqtb"), -1);
        assert_restored(dir);
    }
}

/* By default gen writes no raw file: the compressed files are the table,
 * which larger tables, stats and verify rebuild from them; a compressed
 * file missing, damaged or built otherwise gets its table generated again,
 * with the same files as before. */
static void test_without_raw(void **state)
{
    (void)state;
    char dir[1024], p[2048];
    snprintf(dir, sizeof dir, "%s/noraw", test_tmpdir());
    assert_int_equal(mkdir(dir, 0755), 0);
    testgen_copy_tables(pristine, dir, materials, (int)(sizeof materials / sizeof *materials), exts, 3);
    assert_int_equal(run_xqtb("gen -d %s KRKN", dir), 0);
    assert_output_has("KRKN       reusing");
    assert_int_equal(file_size(dir, "KRKN.xqtb"), -1);
    assert_int_equal(run_xqtb("stats -d %s KRKN", dir), 0);
    assert_output_has("red to move: 348021 legal");
    assert_int_equal(run_xqtb("verify -q -d %s KRKN", dir), 0);
    path_of(p, sizeof p, dir, "KRK.xqc");
    assert_int_equal(unlink(p), 0);
    flip_byte(dir, "KRKN.xqd", file_size(dir, "KRKN.xqd") - 100);
    assert_int_equal(run_xqtb("stats -d %s KRKN", dir), 1); /* a subtable's file is gone */
    assert_output_has("KRK.xqc");
    assert_int_equal(run_xqtb("gen -d %s KRKN", dir), 0);
    assert_output_has("KRK.xqc is missing; regenerating");
    assert_output_has("KRKN.xqd is damaged");
    assert_restored(dir);
    assert_int_equal(file_size(dir, "KRK.xqtb"), -1);
    /* a fresh directory: no raw file at all */
    snprintf(dir, sizeof dir, "%s/noraw-fresh", test_tmpdir());
    assert_int_equal(run_xqtb("gen -q -d %s KRKN", dir), 0);
    assert_restored(dir);
    for (size_t i = 0; i < sizeof materials / sizeof *materials; i++) {
        char raw[64];
        snprintf(raw, sizeof raw, "%s.xqtb", materials[i]);
        assert_int_equal(file_size(dir, raw), -1);
    }
}

static void test_bad_arguments(void **state)
{
    (void)state;
    assert_int_equal(run_xqtb("check -d %s KQK", pristine), 2);
    assert_output_has("unknown piece letter");
    assert_int_equal(run_xqtb("check --bogus"), 2);
    assert_int_equal(run_xqtb("check -d"), 2);
    assert_int_equal(run_xqtb("check -d ''"), 2);
    assert_int_equal(run_xqtb("check -d %s/nonexistent", test_tmpdir()), 1);
    char empty[1024];
    snprintf(empty, sizeof empty, "%s/empty", test_tmpdir());
    assert_int_equal(mkdir(empty, 0755), 0);
    assert_int_equal(run_xqtb("check -d %s", empty), 1);
    assert_output_has("no table files");
    /* a material with no files at all is missing, not sound */
    assert_int_equal(run_xqtb("check -q -d %s KCK", pristine), 3);
    assert_output_has("KCK          WDL  missing");
    assert_int_equal(run_xqtb("check --help"), 0);
    assert_output_has("usage: xqtb check");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sound_set),
        cmocka_unit_test(test_lost_dtc_file),
        cmocka_unit_test(test_damaged_files),
        cmocka_unit_test(test_fifo_never_hangs),
        cmocka_unit_test(test_mixed_and_stale),
        cmocka_unit_test(test_old_index_layout),
        cmocka_unit_test(test_old_format_version),
        cmocka_unit_test(test_bad_arguments),
        cmocka_unit_test(test_compact_raw),
        cmocka_unit_test(test_without_raw),
        cmocka_unit_test(test_lost_dtm_file_without_raw),
        cmocka_unit_test(test_forged_search_bounds),
        cmocka_unit_test(test_fillers_pass_deep_check),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
