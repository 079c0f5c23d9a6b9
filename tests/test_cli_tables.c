/*
 * test_cli_tables.c - the table subcommands (gen, stats, verify) as a user
 * runs them: exit statuses, JSON keys, and what happens with bad input and
 * with missing, damaged or truncated table files.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "runxqtb.h"
#include "testgen.h"
#include "tmpdir.h"

/* The file that is a table by default: its DTM file, from which (with its
 * DTC file) the generator rebuilds it; no raw file is written. */
static void table_path(char *buf, size_t len, const char *dir, const char *name)
{
    snprintf(buf, len, "%s/%s.xqd", dir, name);
}

static void raw_path(char *buf, size_t len, const char *dir, const char *name)
{
    snprintf(buf, len, "%s/%s.xqtb", dir, name);
}

/* A private directory holding a freshly generated KRK and its only
 * subtable, KK (what is left when the rook is taken). */
static const char *fresh_dir(const char *tag)
{
    static char dir[512];
    snprintf(dir, sizeof dir, "%s/%s", test_tmpdir(), tag);
    assert_int_equal(run_xqtb("gen -q -d %s KRK", dir), 0);
    return dir;
}

/* KRK and KK as a default gen writes them, generated once: what a table
 * generated again must equal, byte for byte. */
static const char *pristine_dir(void)
{
    static char dir[512];
    if (!dir[0]) {
        snprintf(dir, sizeof dir, "%s/pristine", test_tmpdir());
        assert_int_equal(run_xqtb("gen -q -d %s KRK", dir), 0);
    }
    return dir;
}

/* The compressed files of KRK and KK in dir equal the pristine ones. */
static void assert_pristine(const char *dir)
{
    static const char *const files[] = {"KRK.xqw", "KRK.xqd", "KRK.xqc", "KK.xqw", "KK.xqd", "KK.xqc"};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        char a[600], b[600];
        snprintf(a, sizeof a, "%s/%s", pristine_dir(), files[i]);
        snprintf(b, sizeof b, "%s/%s", dir, files[i]);
        testgen_assert_same_file(a, b);
    }
}

/* How many names in dir contain what. */
static int files_named(const char *dir, const char *what)
{
    char cmd[700];
    snprintf(cmd, sizeof cmd, "ls %s | grep -c %s", dir, what);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    char buf[16] = "";
    assert_non_null(fgets(buf, sizeof buf, p));
    pclose(p);
    return atoi(buf);
}

static void assert_output_has(const char *what)
{
    if (!strstr(xqtb_out, what)) fail_msg("output lacks \"%s\":\n%s", what, xqtb_out);
}

static void test_gen_writes_tables_and_no_temporaries(void **state)
{
    (void)state;
    const char *dir = fresh_dir("gen");
    char path[600];
    struct stat sb;
    table_path(path, sizeof path, dir, "KRK");
    assert_int_equal(stat(path, &sb), 0);
    table_path(path, sizeof path, dir, "KK");
    assert_int_equal(stat(path, &sb), 0);
    assert_int_equal(files_named(dir, "xqtb"), 0); /* raw files only with --keep-raw */
    assert_int_equal(files_named(dir, "tmp"), 0);
    /* with it, the table generated gets one, as it is (format version 3),
     * and the same compressed files */
    assert_int_equal(run_xqtb("gen -q --keep-raw --force -d %s KRK", dir), 0);
    raw_path(path, sizeof path, dir, "KRK");
    assert_int_equal(stat(path, &sb), 0);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    unsigned char h[12];
    assert_int_equal(fread(h, 1, sizeof h, f), sizeof h);
    fclose(f);
    assert_int_equal(h[8] | h[9] << 8 | h[10] << 16 | (unsigned)h[11] << 24, 3);
    assert_int_equal(files_named(dir, "tmp"), 0);
    assert_pristine(dir);
}

/* The searched-side field (offset 116, docs/FORMAT.md) of DIR/NAME.EXT. */
static unsigned searched_field(const char *dir, const char *name, const char *ext)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%s.%s", dir, name, ext);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    unsigned char h[128];
    assert_int_equal(fread(h, 1, sizeof h, f), sizeof h);
    fclose(f);
    return h[116] | h[117] << 8 | (unsigned)h[118] << 16 | (unsigned)h[119] << 24;
}

/* gen writes DTM and DTC files with a searched side by default, both
 * sides stored with --store-both, and rewrites files of the other kind
 * when asked for one: from the table they hold (unpack.c gives it back as
 * solved), the same bytes as a generation from nothing writes. */
static void test_gen_store_both(void **state)
{
    (void)state;
    const char *dir = fresh_dir("storeboth");
    assert_true(searched_field(dir, "KRK", "xqd") != 0);
    assert_true(searched_field(dir, "KRK", "xqc") != 0);
    assert_int_equal(searched_field(dir, "KRK", "xqw"), 0);
    /* without raw files, files of the other kind are written again */
    assert_int_equal(run_xqtb("gen --store-both -d %s KRK", dir), 0);
    assert_output_has("KK.xqd has a searched side, and --store-both asks for none; writing the compressed files again");
    assert_output_has(
        "KRK.xqd has a searched side, and --store-both asks for none; writing the compressed files again");
    assert_null(strstr(xqtb_out, "regenerating"));
    assert_int_equal(searched_field(dir, "KRK", "xqd"), 0);
    assert_int_equal(searched_field(dir, "KRK", "xqc"), 0);
    assert_int_equal(searched_field(dir, "KK", "xqd"), 0);
    assert_int_equal(run_xqtb("probe -d %s '3k5/9/9/9/9/9/9/9/4R4/4K4 w - - 0 1'", dir), 0);
    assert_int_equal(run_xqtb("gen -d %s KRK", dir), 0);
    assert_output_has(
        "KRK.xqd stores both sides (--store-both), and the default searches one; writing the compressed files again");
    assert_true(searched_field(dir, "KRK", "xqd") != 0);
    assert_int_equal(run_xqtb("check -q -d %s", dir), 0);
    assert_pristine(dir);
    assert_int_equal(files_named(dir, "xqtb"), 0);

    /* KRKN (rulings decide 3,194 of its positions, which the searched side
     * finds by its search; DTC): both ways, the files a new generation
     * writes, byte for byte */
    char fresh[2][600], conv[600];
    for (int both = 0; both < 2; both++) {
        snprintf(fresh[both], sizeof fresh[both], "%s/storeboth-fresh%d", test_tmpdir(), both);
        assert_int_equal(run_xqtb("gen -q %s -d %s KRKN", both ? "--store-both" : "", fresh[both]), 0);
    }
    snprintf(conv, sizeof conv, "%s/storeboth-conv", test_tmpdir());
    char cmd[1400];
    snprintf(cmd, sizeof cmd, "cp -r %s %s", fresh[0], conv);
    assert_int_equal(system(cmd), 0);
    /* a conversion is planned as one: refused with a clear message and
     * nothing touched when the memory allowed cannot hold it */
    assert_int_equal(run_xqtb("gen -q --store-both --max-memory 1 -d %s KRKN", conv), 3);
    assert_output_has("writing its files again needs");
    assert_true(dirs_identical(fresh[0], conv));
    assert_int_equal(run_xqtb("gen -q --store-both -d %s KRKN", conv), 0);
    assert_true(dirs_identical(fresh[1], conv));
    assert_int_equal(run_xqtb("gen -q -d %s KRKN", conv), 0);
    assert_true(dirs_identical(fresh[0], conv));
    /* a damaged file of the other kind is generated again, not rewritten */
    char path[700];
    snprintf(path, sizeof path, "%s/KRKN.xqd", conv);
    FILE *f = fopen(path, "r+b");
    assert_non_null(f);
    assert_int_equal(fseek(f, -3, SEEK_END), 0);
    assert_int_equal(fputc(0x5a, f), 0x5a);
    assert_int_equal(fclose(f), 0);
    assert_int_equal(run_xqtb("gen --store-both -d %s KRKN", conv), 0);
    assert_output_has("KRKN.xqd is damaged");
    assert_output_has("regenerating");
    assert_true(dirs_identical(fresh[1], conv));
}

static void test_gen_summary_and_black_orientation(void **state)
{
    (void)state;
    char dir[512];
    snprintf(dir, sizeof dir, "%s/summary", test_tmpdir());
    /* Written with black holding the rook: the canonical KRK is built. */
    assert_int_equal(run_xqtb("gen -d %s KKR", dir), 0);
    assert_non_null(strstr(xqtb_out, "KRK:"));
    assert_non_null(strstr(xqtb_out, "red to move"));
    assert_non_null(strstr(xqtb_out, "longest win"));
}

static void test_stats_json(void **state)
{
    (void)state;
    const char *dir = fresh_dir("json");
    assert_int_equal(run_xqtb("stats --json -d %s KRK", dir), 0);
    const char *keys[] = {"{\"material\":\"KRK\"",
                          "\"red\":{",
                          "\"black\":{",
                          "\"win\":",
                          "\"draw\":",
                          "\"loss\":",
                          "\"longest_win\":{\"dtm\":",
                          "\"longest_loss\":{\"dtm\":",
                          "\"fen\":\""};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
        if (!strstr(xqtb_out, keys[i])) fail_msg("missing %s in %s", keys[i], xqtb_out);
    /* Counts are of boards: red to move in KRK, every legal board is a win. */
    assert_non_null(strstr(xqtb_out, "\"red\":{\"legal\":3834,\"win\":3834,\"draw\":0,\"loss\":0"));
}

static void test_verify_good_table(void **state)
{
    (void)state;
    const char *dir = fresh_dir("verify");
    assert_int_equal(run_xqtb("verify -d %s KRK", dir), 0);
    assert_non_null(strstr(xqtb_out, "consistent"));
}

static void test_bad_material_and_options(void **state)
{
    (void)state;
    assert_int_equal(run_xqtb("gen -q -d %s/x KRRRK", test_tmpdir()), 2);
    assert_non_null(strstr(xqtb_out, "at most 2"));
    assert_int_equal(run_xqtb("gen -q -d %s/x KXK", test_tmpdir()), 2);
    assert_non_null(strstr(xqtb_out, "unknown piece letter"));
    assert_int_equal(run_xqtb("gen -q -d %s/x RK", test_tmpdir()), 2);
    assert_int_equal(run_xqtb("gen -q -t 0 KRK"), 2);
    assert_int_equal(run_xqtb("gen -q --bogus KRK"), 2);
    assert_int_equal(run_xqtb("gen -q"), 2);
    assert_int_equal(run_xqtb("stats -d %s", test_tmpdir()), 2);
    assert_int_equal(run_xqtb("stats --force -d %s KRK", test_tmpdir()), 2);
}

/* -d of gen, stats and verify names one directory, and probe, adjudicate
 * and xqtb_open read ':' as a separator between directories: tables
 * written into "a:b" could never be probed, so a ':' is refused before
 * anything is written. */
static void test_dir_with_colon_refused(void **state)
{
    (void)state;
    char dir[600];
    snprintf(dir, sizeof dir, "%s/col:on", test_tmpdir());
    assert_int_equal(run_xqtb("gen -q -d %s KRK", dir), 2);
    assert_non_null(strstr(xqtb_out, "':'"));
    assert_non_null(strstr(xqtb_out, "xqtb gen"));
    struct stat sb;
    assert_int_not_equal(stat(dir, &sb), 0);
    assert_int_equal(run_xqtb("stats -d %s KRK", dir), 2);
    assert_non_null(strstr(xqtb_out, "':'"));
    assert_int_equal(run_xqtb("verify -d %s KRK", dir), 2);
    assert_non_null(strstr(xqtb_out, "':'"));
    /* nor an empty name (it was exit 3, "cannot create directory") */
    assert_int_equal(run_xqtb("gen -q -d '' KRK"), 2);
    assert_non_null(strstr(xqtb_out, "empty"));
    /* nor a file that is not a directory (gen said exit 3, "is not a
     * directory", as for a failure of the machine); the file is left */
    char file[600];
    snprintf(file, sizeof file, "%s/plain-file", test_tmpdir());
    FILE *f = fopen(file, "w");
    assert_non_null(f);
    assert_int_equal(fputs("not tables\n", f) >= 0, 1);
    assert_int_equal(fclose(f), 0);
    assert_int_equal(run_xqtb("gen -q -d %s KRK", file), 2);
    assert_non_null(strstr(xqtb_out, "is not one"));
    assert_int_equal(run_xqtb("stats -d %s KRK", file), 2);
    assert_int_equal(stat(file, &sb), 0);
    assert_int_equal(sb.st_size, 11);
}

static void test_missing_table_is_no_answer(void **state)
{
    (void)state;
    assert_int_equal(run_xqtb("stats -d %s KRKNAA", test_tmpdir()), 1);
    assert_non_null(strstr(xqtb_out, "KRKNAA"));
    assert_int_equal(run_xqtb("verify -d %s KRKNAA", test_tmpdir()), 1);
}

static void test_memory_limit_is_a_clear_error(void **state)
{
    (void)state;
    assert_int_equal(run_xqtb("gen -q -d %s/mem --max-memory 1 KRKNA", test_tmpdir()), 3);
    assert_non_null(strstr(xqtb_out, "needs"));
    assert_non_null(strstr(xqtb_out, "MiB"));
}

/* Overwrites one byte of a file at offset (negative: from the end). */
static void poke(const char *path, long offset)
{
    FILE *f = fopen(path, "r+b");
    assert_non_null(f);
    fseek(f, offset, offset < 0 ? SEEK_END : SEEK_SET);
    int c = fgetc(f);
    fseek(f, offset, offset < 0 ? SEEK_END : SEEK_SET);
    fputc(c ^ 0x5A, f);
    fclose(f);
}

/* stats and verify rebuild a table from its DTM and DTC files: a flipped
 * byte anywhere in either (the header, the block tables, a block) is an
 * error naming the file, and gen generates the table again, with the same
 * files as before. */
static void test_damaged_files_are_reported(void **state)
{
    (void)state;
    char path[600];
    /* every offset in the DTM file, some in the DTC file */
    const struct {
        const char *file;
        long offset;
    } cases[] = {{"KRK.xqd", 0},  {"KRK.xqd", 9},   {"KRK.xqd", 20},  {"KRK.xqd", 60},
                 {"KRK.xqd", 75}, {"KRK.xqd", 100}, {"KRK.xqd", 200}, {"KRK.xqd", -1},
                 {"KRK.xqc", 60}, {"KRK.xqc", 100}, {"KRK.xqc", -1}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char tag[32];
        snprintf(tag, sizeof tag, "poke%zu", i);
        const char *dir = fresh_dir(tag), *file = cases[i].file;
        snprintf(path, sizeof path, "%s/%s", dir, file);
        poke(path, cases[i].offset);
        int rc = run_xqtb("stats -d %s KRK", dir);
        if (rc != 3) fail_msg("%s: byte %ld flipped: exit %d, output %s", file, cases[i].offset, rc, xqtb_out);
        assert_output_has(file);
        assert_int_equal(run_xqtb("verify -d %s KRK", dir), 3);
        assert_output_has(file);
        assert_int_equal(run_xqtb("gen -d %s KRK", dir), 0);
        assert_output_has(file);
        assert_output_has("; regenerating");
        assert_pristine(dir);
    }
}

/* A table's DTM file cut anywhere, emptied or extended (sizes from its
 * end when negative): the same. */
static void test_truncated_and_empty_files_are_reported(void **state)
{
    (void)state;
    char path[600];
    const long sizes[] = {0, 40, 80, 200, -1, 4000};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        char tag[32];
        snprintf(tag, sizeof tag, "trunc%zu", i);
        const char *dir = fresh_dir(tag);
        table_path(path, sizeof path, dir, "KRK");
        struct stat sb;
        assert_int_equal(stat(path, &sb), 0);
        long size = sizes[i] < 0 ? (long)sb.st_size + sizes[i] : sizes[i];
        assert_int_not_equal(size, (long)sb.st_size);
        assert_int_equal(truncate(path, size), 0);
        int rc = run_xqtb("stats -d %s KRK", dir);
        if (rc != 3) fail_msg("cut to %ld: exit %d, output %s", size, rc, xqtb_out);
        assert_output_has("KRK.xqd");
        assert_int_equal(run_xqtb("gen -d %s KRK", dir), 0);
        assert_output_has("KRK.xqd is");
        assert_output_has("; regenerating");
        assert_pristine(dir);
    }
}

/* A damaged table in the way of generation is rebuilt, not trusted. */
static void test_gen_replaces_damaged_table(void **state)
{
    (void)state;
    char path[600];
    const char *dir = fresh_dir("regen");
    table_path(path, sizeof path, dir, "KK");
    poke(path, 100);
    /* --force is for KRK; KK's damage is found all the same */
    assert_int_equal(run_xqtb("gen -d %s --force KRK", dir), 0);
    assert_output_has("KK.xqd is damaged");
    assert_output_has("; regenerating");
    assert_int_equal(run_xqtb("verify -d %s KRK KK", dir), 0);
    assert_pristine(dir);
    assert_int_equal(files_named(dir, "xqtb"), 0);
    /* and without --force, with a damaged block of KK's DTC file and KRK's
     * DTM file gone */
    snprintf(path, sizeof path, "%s/KK.xqc", dir);
    poke(path, -1);
    table_path(path, sizeof path, dir, "KRK");
    assert_int_equal(unlink(path), 0);
    assert_int_equal(run_xqtb("gen -q -d %s KRK", dir), 0);
    assert_pristine(dir);
    assert_int_equal(files_named(dir, "xqtb"), 0);
}

/* A disk that fills up mid-write: a file-size limit (with SIGXFSZ ignored,
 * so writes fail with EFBIG as they would with ENOSPC) must give a clear
 * message and exit status 3, and leave no table file, complete-looking or
 * temporary, for the table that could not be written. */
/* One full-disk run: gen OPTIONS KRKN into DIR/TAG under a file-size limit
 * of kib KiB. */
static void full_disk_case(const char *tag, const char *options, int kib)
{
    char dir[512], path[600];
    snprintf(dir, sizeof dir, "%s/%s", test_tmpdir(), tag);
    const char *bin = getenv("XQTB");
    if (!bin) bin = "build/xqtb";
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "sh -c 'trap \"\" XFSZ; ulimit -f %d; exec %s gen -q %s -d %s KRKN' 2>&1", kib, bin,
             options, dir);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t n = fread(xqtb_out, 1, sizeof xqtb_out - 1, p);
    xqtb_out[n] = 0;
    int st = pclose(p);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 3);
    assert_non_null(strstr(xqtb_out, "cannot write"));
    struct stat sb;
    table_path(path, sizeof path, dir, "KRKN");
    assert_int_not_equal(stat(path, &sb), 0);
    raw_path(path, sizeof path, dir, "KRKN");
    assert_int_not_equal(stat(path, &sb), 0);
    snprintf(cmd, sizeof cmd, "ls %s | grep -c tmp", dir);
    p = popen(cmd, "r");
    char buf[16] = "";
    assert_non_null(fgets(buf, sizeof buf, p));
    pclose(p);
    assert_int_equal(atoi(buf), 0);
    /* what was written completely is sound and is reused */
    assert_int_equal(run_xqtb("verify -d %s KRK", dir), 0);
    assert_int_equal(run_xqtb("gen -q %s -d %s KRKN", options, dir), 0);
    assert_int_equal(run_xqtb("verify -d %s KRKN", dir), 0);
}

static void test_full_disk_leaves_no_partial_file(void **state)
{
    (void)state;
    /* 400 KiB: enough for KK and KRK, not for KRKN's 729 KB raw file as
     * it is; 24 KiB: enough for every file of KK and KRK and KRKN's WDL
     * file (13 KB), not for its DTM file (42 KB) */
    full_disk_case("full-plain", "--keep-raw", 400);
    full_disk_case("full-compact", "", 24);
}

/* export: the compressed files of a table and its subtables, byte for
 * byte, and nothing else; a missing or damaged file is refused. */
static void test_export(void **state)
{
    (void)state;
    const char *dir = fresh_dir("export-src");
    char out[600], cmd[1400];
    snprintf(out, sizeof out, "%s/export-out", test_tmpdir());
    assert_int_equal(run_xqtb("export -d %s --list KRK", dir), 0);
    assert_non_null(strstr(xqtb_out, "KRK.xqw"));
    assert_non_null(strstr(xqtb_out, "KK.xqd")); /* the subtable comes with it */
    assert_null(strstr(xqtb_out, ".xqtb"));      /* never the raw files */
    assert_int_equal(run_xqtb("export -q -d %s -o %s KRK", dir, out), 0);
    const char *files[] = {"KRK.xqw", "KRK.xqd", "KRK.xqc", "KK.xqw", "KK.xqd", "KK.xqc"};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        snprintf(cmd, sizeof cmd, "cmp -s %s/%s %s/%s", dir, files[i], out, files[i]);
        assert_int_equal(system(cmd), 0);
    }
    snprintf(cmd, sizeof cmd, "test $(ls %s | wc -l) -eq 6", out);
    assert_int_equal(system(cmd), 0);
    /* the copy answers probes on its own */
    assert_int_equal(run_xqtb("probe -d %s '3k5/9/9/9/9/9/9/9/9/R3K4 w - - 0 1'", out), 0);
    /* WDL files only */
    assert_int_equal(run_xqtb("export -d %s --list --wdl-only KRK", dir), 0);
    assert_null(strstr(xqtb_out, ".xqd"));
    char wdl_only[600];
    snprintf(wdl_only, sizeof wdl_only, "%s/export-wdl-only", test_tmpdir());
    assert_int_equal(run_xqtb("export -q -d %s -o %s --wdl-only KRK", dir, wdl_only), 0);
    assert_int_equal(run_xqtb("check -d %s --no-dtm", wdl_only), 3); /* the DTC files are needed then */
    assert_output_has("KRK          DTC  missing");
    assert_int_equal(run_xqtb("check -d %s --wdl-only", wdl_only), 0);
    assert_output_has("KRK          DTC  not exported    --wdl-only");
    /* WDL and DTC files, no DTM: what xqtb_probe_dtc reads */
    assert_int_equal(run_xqtb("export -d %s --list --no-dtm KRK", dir), 0);
    assert_null(strstr(xqtb_out, ".xqd"));
    assert_non_null(strstr(xqtb_out, "KRK.xqc"));
    assert_non_null(strstr(xqtb_out, "KK.xqw"));
    assert_int_equal(run_xqtb("export -d %s --list --no-dtm --wdl-only KRK", dir), 2);
    assert_non_null(strstr(xqtb_out, "not both"));
    /* refusals */
    assert_int_equal(run_xqtb("export -d %s KRK", dir), 2); /* neither -o nor --list */
    /* -o naming the directory read, written another way */
    assert_int_equal(run_xqtb("export -d %s -o %s/ KRK", dir, dir), 2);
    assert_non_null(strstr(xqtb_out, "the directory it reads from"));
    /* more arguments than export takes: refused, not cut short (the
     * arguments after the 255th were dropped, and with them KRK) */
    char many[1200] = "";
    for (int i = 0; i < 260; i++) strcat(many, " -q");
    assert_int_equal(run_xqtb("export -d %s --list%s KRK", dir, many), 2);
    assert_non_null(strstr(xqtb_out, "too many arguments"));
    assert_int_equal(run_xqtb("export -d %s -o %s --list KRK", dir, out), 2);
    assert_int_equal(run_xqtb("export -d %s -o %s KRKX", dir, out), 2);
    assert_int_equal(run_xqtb("export -d %s -o %s KNK", dir, out), 1); /* not generated */
    /* a table built with a move limit is not whole without its DTC file
     * (it was skipped as for a table built without one: exit 0) */
    const char *partial = fresh_dir("export-no-dtc");
    char dtc[700];
    snprintf(dtc, sizeof dtc, "%s/KK.xqc", partial);
    assert_int_equal(unlink(dtc), 0);
    assert_int_equal(run_xqtb("export -d %s --list KRK", partial), 1);
    assert_non_null(strstr(xqtb_out, "KK.xqc is missing\n"));
    const char *plain = test_tmpdir();
    assert_int_equal(run_xqtb("gen -q --limit 0 -d %s/export-plain KRK", plain), 0);
    assert_int_equal(run_xqtb("export -d %s/export-plain --list KRK", plain), 0); /* no limit: no DTC file */
    dir = fresh_dir("export-src");
    char path[700];
    snprintf(path, sizeof path, "%s/KRK.xqd", dir);
    poke(path, 100);
    assert_int_equal(run_xqtb("export -d %s -o %s/other KRK", dir, test_tmpdir()), 3);
    assert_non_null(strstr(xqtb_out, "KRK.xqd"));
}

/* A set exported without its DTM files (export --no-dtm): check takes the
 * export's choice of files; probe answers from the WDL and DTC files
 * (results and DTC, a ruled result told as such: KRKN, where red wins by
 * black's perpetual check), and names what it lacks. */
static void test_export_without_dtm(void **state)
{
    (void)state;
    char krkn[600], lean[600];
    snprintf(krkn, sizeof krkn, "%s/export-krkn", test_tmpdir());
    snprintf(lean, sizeof lean, "%s/export-krkn-lean", test_tmpdir());
    assert_int_equal(run_xqtb("gen -q -d %s KRKN", krkn), 0);
    assert_int_equal(run_xqtb("export -q -d %s -o %s --no-dtm KRKN", krkn, lean), 0);
    /* check takes the export's choice of files: no DTM file missing */
    assert_int_equal(run_xqtb("check -d %s", lean), 3);
    assert_output_has("KRKN         DTM  missing");
    assert_int_equal(run_xqtb("check -d %s --no-dtm", lean), 0);
    assert_output_has("KRKN         DTM  not exported    --no-dtm");
    assert_output_has("KRKN         DTC  sound");
    assert_int_equal(run_xqtb("check -q -d %s --no-dtm", lean), 0);
    assert_null(strstr(xqtb_out, "not exported"));
    assert_int_equal(run_xqtb("check -d %s --no-dtm --wdl-only", lean), 2);
    assert_output_has("not both");
    assert_int_equal(run_xqtb("probe -d %s '5k3/9/9/9/9/R8/9/4n4/9/3K5 w - - 0 1'", lean), 0);
    assert_output_has("red to move: win (the distance to mate: the DTM files, not in");
    assert_output_has("KRKN.xqd is not in");
    assert_output_has("DTC 23 plies; move limit 120 plies, counter 0: the win holds");
    assert_output_has("d0e0  win           dtc 23\n");
    assert_int_equal(run_xqtb("probe -d %s --json '9/9/4k4/9/9/9/9/9/1n7/R2K5 w - - 0 1'", lean), 0);
    assert_output_has("\"wdl\":\"win\",\"dtm\":null,\"dtc\":null,\"by_rule\":\"ruling\",\"order\":null,\"moves\"");
    assert_int_equal(run_xqtb("probe -d %s --line '9/9/4k4/9/9/9/9/9/1n7/R2K5 w - - 0 1'", lean), 0);
    assert_output_has("red to move: win by a repetition ruling");
    assert_output_has("d0d1  win   by a ruling\n");
    /* a DTC file missing besides: the position's own (no answer, the
     * file named), or a capture's (the moves from the WDL files alone,
     * the file named) */
    char gone[700];
    snprintf(gone, sizeof gone, "%s/KRK.xqc", lean);
    assert_int_equal(unlink(gone), 0);
    assert_int_equal(run_xqtb("probe -d %s '5k3/9/9/9/9/R3n4/9/9/9/3K5 w - - 0 1'", lean), 0);
    assert_output_has("KRK.xqc is not in");
    assert_output_has("the moves are valued from the WDL files alone");
    assert_output_has("  a4e4  win\n");
    snprintf(gone, sizeof gone, "%s/KRKN.xqc", lean);
    assert_int_equal(unlink(gone), 0);
    assert_int_equal(run_xqtb("probe -d %s '5k3/9/9/9/9/R3n4/9/9/9/3K5 w - - 0 1'", lean), 1);
    assert_output_has("no table KRKN in");
    assert_output_has("(KRKN.xqc needed)");
    /* with every file, the same position names its ruling */
    assert_int_equal(run_xqtb("probe -d %s '9/9/4k4/9/9/9/9/9/1n7/R2K5 w - - 0 1'", krkn), 0);
    assert_output_has("win by the perpetual-check ruling (order");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gen_writes_tables_and_no_temporaries),
        cmocka_unit_test(test_gen_summary_and_black_orientation),
        cmocka_unit_test(test_gen_store_both),
        cmocka_unit_test(test_stats_json),
        cmocka_unit_test(test_verify_good_table),
        cmocka_unit_test(test_bad_material_and_options),
        cmocka_unit_test(test_dir_with_colon_refused),
        cmocka_unit_test(test_missing_table_is_no_answer),
        cmocka_unit_test(test_memory_limit_is_a_clear_error),
        cmocka_unit_test(test_damaged_files_are_reported),
        cmocka_unit_test(test_truncated_and_empty_files_are_reported),
        cmocka_unit_test(test_gen_replaces_damaged_table),
        cmocka_unit_test(test_full_disk_leaves_no_partial_file),
        cmocka_unit_test(test_export),
        cmocka_unit_test(test_export_without_dtm),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
