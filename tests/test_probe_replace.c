/*
 * test_probe_replace.c - table files changed under a handle that is
 * probing them, as an engine meets it when someone updates tables the
 * wrong way (in place) or the right way (a new file, then rename).
 *
 * Before the library read blocks with pread, truncating an open table gave
 * SIGBUS, copying a smaller file over it SIGSEGV, and copying a table of
 * the same material built under other rules over it gave wrong answers
 * with status OK.  Now, for every sample position and every file, each
 * probe either answers exactly what the original files say or fails with
 * XQTB_ERR_CORRUPT; once the change is seen, the changed file answers
 * nothing more (not even from cached blocks), while the material's other
 * files and other materials go on answering.  A file replaced by rename
 * keeps answering from the file that was opened, and so does a small file
 * the library read whole when it opened it.
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

#include "cell.h"
#include "compress.h"
#include "tb.h"
#include "testgen.h"
#include "tmpdir.h"
#include "xqtb.h"

enum { SAMPLE_MAX = 4000 };

typedef struct {
    xqtb_position pos[SAMPLE_MAX];
    int wdl[SAMPLE_MAX], dtm[SAMPLE_MAX];
    int n;
} sample;

static char gen_dir[1024], other_dir[1024];
static sample krkn;

static void to_position(const xq_board *b, xqtb_position *p)
{
    for (int s = 0; s < XQ_SQUARES; s++) {
        xq_piece q = b->sq[s];
        p->board[s] = q == EMPTY ? 0 : (int8_t)(colour_of(q) == RED ? kind_of(q) : -kind_of(q));
    }
    p->side = b->side;
}

/* Overwrites `to` in place with the bytes of `from`, as cp does: the same
 * inode, truncated, then written. */
static void cp_in_place(const char *from, const char *to) { testgen_copy_file(from, to); }

/* A fresh directory holding a copy of every table file of gen_dir. */
static void fresh_copy(const char *dir)
{
    static const char *const files[] = {"KK", "KNK", "KRK", "KRKN"};
    static const char *const exts[] = {"xqw", "xqd", "xqc"};
    testgen_copy_tables(gen_dir, dir, files, 4, exts, 3);
}

static int setup(void **state)
{
    (void)state;
    /* KRKN under rules full with a move limit, and the same material under
     * rules none without one: same names, other contents */
    tb_set *set;
    tb_table *t = testgen_load_limit("KRKN", XQ_RULES_FULL, 120, &set);
    snprintf(gen_dir, sizeof gen_dir, "%s/rules-%d-limit-120", test_tmpdir(), XQ_RULES_FULL);
    /* every legal entry's value, spread over the whole index so that the
     * sample touches every block */
    uint64_t stride = t->ix.size / (SAMPLE_MAX / 2) + 1;
    for (uint64_t i = 0; i < t->ix.size && krkn.n < SAMPLE_MAX; i += stride)
        for (int s = 0; s < 2 && krkn.n < SAMPLE_MAX; s++) {
            unsigned code = cell_get(t->cells[s], t->width, i);
            if (code == CELL_ILLEGAL) continue;
            xq_board b;
            xq_index_decode(&t->ix, i, &b);
            b.side = (uint8_t)s;
            to_position(&b, &krkn.pos[krkn.n]);
            krkn.n++;
        }
    /* A WDL file of many blocks: the writer's own choice for a table this
     * small is one block a side (docs/FORMAT.md, "Small WDL files"), which
     * a warm handle would hold whole, leaving no block to read after the
     * change. */
    tb_compress_options o = {.wdl_block_entries = 1024};
    char err[XQ_ERR_MAX];
    if (tb_compress_write(t, gen_dir, &o, NULL, err)) fail_msg("%s", err);
    tb_set_free(set);
    tb_set *other;
    testgen_load_limit("KRKN", XQ_RULES_NONE, 0, &other);
    tb_set_free(other);
    snprintf(other_dir, sizeof other_dir, "%s/rules-%d-limit-0", test_tmpdir(), XQ_RULES_NONE);
    /* the values the untouched files give */
    int st;
    xqtb_handle *h = xqtb_open(gen_dir, NULL, &st);
    assert_non_null(h);
    for (int i = 0; i < krkn.n; i++)
        assert_int_equal(xqtb_probe_dtm(h, &krkn.pos[i], &krkn.wdl[i], &krkn.dtm[i]), XQTB_OK);
    xqtb_close(h);
    return krkn.n > 100 ? 0 : -1;
}

/* Probes the whole sample through h; every answer must be exact or
 * XQTB_ERR_CORRUPT.  Returns how many failed. */
static int probe_sample(xqtb_handle *h, int dtm_file)
{
    int failed = 0;
    for (int i = 0; i < krkn.n; i++) {
        int wdl = 99, dtm = 99;
        int rc = dtm_file ? xqtb_probe_dtm(h, &krkn.pos[i], &wdl, &dtm) : xqtb_probe_wdl(h, &krkn.pos[i], &wdl);
        if (rc == XQTB_ERR_CORRUPT) {
            failed++;
            continue;
        }
        assert_int_equal(rc, XQTB_OK);
        assert_int_equal(wdl, krkn.wdl[i]);
        if (dtm_file) assert_int_equal(dtm, krkn.dtm[i]);
    }
    return failed;
}

/* A handle with a small cache that has read part of the sample, so that
 * some blocks are cached and others are not when the file changes.  Every
 * file is read by block (whole_file_bytes 1): test_whole_files_snapshot
 * covers files read whole. */
static xqtb_handle *warm_handle(const char *dir)
{
    int st;
    xqtb_options o = {.cache_bytes = 1 << 16, .whole_file_bytes = 1};
    xqtb_handle *h = xqtb_open(dir, &o, &st);
    assert_non_null(h);
    for (int i = 0; i < krkn.n; i += 3) {
        int wdl, dtm;
        assert_int_equal(xqtb_probe_dtm(h, &krkn.pos[i], &wdl, &dtm), XQTB_OK);
        assert_int_equal(xqtb_probe_wdl(h, &krkn.pos[i], &wdl), XQTB_OK);
    }
    return h;
}

/* After the change to `changed` (0 WDL, 1 DTM) is seen, that file answers
 * nothing; the other file of the material still answers everything. */
static void expect_changed_file_refused(xqtb_handle *h, int changed)
{
    int failed = probe_sample(h, changed);
    assert_true(failed > 0);
    /* now that the change was seen, even cached blocks are refused */
    assert_int_equal(probe_sample(h, changed), krkn.n);
    assert_int_equal(probe_sample(h, !changed), 0);
}

static void test_truncated_under_the_handle(void **state)
{
    (void)state;
    for (int kind = 0; kind < 2; kind++) {
        char dir[1024], path[2048];
        snprintf(dir, sizeof dir, "%s/truncate-%d", test_tmpdir(), kind);
        fresh_copy(dir);
        xqtb_handle *h = warm_handle(dir);
        snprintf(path, sizeof path, "%s/KRKN.%s", dir, kind ? "xqd" : "xqw");
        struct stat sb;
        assert_int_equal(stat(path, &sb), 0);
        assert_int_equal(truncate(path, sb.st_size / 2), 0);
        expect_changed_file_refused(h, kind);
        /* and to nothing at all */
        assert_int_equal(truncate(path, 0), 0);
        assert_int_equal(probe_sample(h, kind), krkn.n);
        xqtb_close(h);
    }
}

/* A copy of the pristine files in DIR/TAG-KIND, a warm handle on it, then
 * file KIND (0 WDL, 1 DTM) of KRKN overwritten in place by the file of
 * material `src` in src_dir; the change must be refused.  Returns the
 * directory. */
static const char *copied_over(const char *tag, int kind, const char *src_dir, const char *src)
{
    static char dir[1024];
    char from[2048], to[2048];
    snprintf(dir, sizeof dir, "%s/%s-%d", test_tmpdir(), tag, kind);
    fresh_copy(dir);
    xqtb_handle *h = warm_handle(dir);
    snprintf(from, sizeof from, "%s/%s.%s", src_dir, src, kind ? "xqd" : "xqw");
    snprintf(to, sizeof to, "%s/KRKN.%s", dir, kind ? "xqd" : "xqw");
    cp_in_place(from, to);
    expect_changed_file_refused(h, kind);
    xqtb_close(h);
    return dir;
}

static void test_smaller_file_copied_over(void **state)
{
    (void)state;
    for (int kind = 0; kind < 2; kind++) copied_over("smaller", kind, gen_dir, "KRK");
}

/* The same material built under other rules and without a move limit,
 * copied over in place: the worst case before, wrong answers with OK. */
static void test_other_rules_copied_over(void **state)
{
    (void)state;
    for (int kind = 0; kind < 2; kind++) {
        const char *dir = copied_over("other", kind, other_dir, "KRKN");
        /* a new handle opens the new file, and refuses it for what it is:
         * the handle's other tables were built under other rules */
        int st;
        xqtb_handle *h = xqtb_open(dir, NULL, &st);
        int wdl;
        xqtb_position krk;
        assert_int_equal(xqtb_position_from_fen("3k5/9/9/9/9/9/9/9/9/R3K4 w - - 0 1", &krk, NULL), XQTB_OK);
        assert_int_equal(xqtb_probe_wdl(h, &krk, &wdl), XQTB_OK);
        if (kind == 0) assert_int_equal(xqtb_probe_wdl(h, &krkn.pos[0], &wdl), XQTB_ERR_MISMATCH);
        xqtb_close(h);
    }
}

/* The documented way: write a new file beside it, rename it over. The
 * open handle keeps answering from the file it opened, exactly. */
static void test_replaced_by_rename(void **state)
{
    (void)state;
    char dir[1024], tmp[2048], to[2048], from[2048];
    snprintf(dir, sizeof dir, "%s/rename", test_tmpdir());
    fresh_copy(dir);
    xqtb_handle *h = warm_handle(dir);
    for (int kind = 0; kind < 2; kind++) {
        snprintf(from, sizeof from, "%s/KRKN.%s", other_dir, kind ? "xqd" : "xqw");
        snprintf(tmp, sizeof tmp, "%s/KRKN.%s.new", dir, kind ? "xqd" : "xqw");
        snprintf(to, sizeof to, "%s/KRKN.%s", dir, kind ? "xqd" : "xqw");
        testgen_copy_file(from, tmp);
        assert_int_equal(rename(tmp, to), 0);
    }
    assert_int_equal(probe_sample(h, 0), 0);
    assert_int_equal(probe_sample(h, 1), 0);
    xqtb_close(h);
}

/* With the default options, files this small are read whole when opened:
 * whatever is done to them afterwards, the handle answers exactly from
 * what it read, and the same damage reaches a new handle as a refusal. */
static void test_whole_files_snapshot(void **state)
{
    (void)state;
    char dir[1024], path[2048];
    snprintf(dir, sizeof dir, "%s/whole", test_tmpdir());
    fresh_copy(dir);
    int st;
    xqtb_handle *h = xqtb_open(dir, NULL, &st);
    assert_non_null(h);
    assert_int_equal(probe_sample(h, 0), 0);
    assert_int_equal(probe_sample(h, 1), 0);
    for (int kind = 0; kind < 2; kind++) {
        snprintf(path, sizeof path, "%s/KRKN.%s", dir, kind ? "xqd" : "xqw");
        assert_int_equal(truncate(path, 200), 0);
    }
    assert_int_equal(probe_sample(h, 0), 0);
    assert_int_equal(probe_sample(h, 1), 0);
    xqtb_close(h);
    h = xqtb_open(dir, NULL, &st);
    assert_int_equal(probe_sample(h, 0), krkn.n);
    xqtb_close(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_truncated_under_the_handle), cmocka_unit_test(test_smaller_file_copied_over),
        cmocka_unit_test(test_other_rules_copied_over),    cmocka_unit_test(test_replaced_by_rename),
        cmocka_unit_test(test_whole_files_snapshot),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
