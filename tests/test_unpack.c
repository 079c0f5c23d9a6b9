/*
 * test_unpack.c - tables rebuilt from their compressed files (gen/unpack.c)
 * are the tables the generator solved:
 *
 *   - every cell, ruled byte and DTC code of the rebuilt table equals the
 *     raw file's (`gen --keep-raw`), for the table and every table it
 *     captures into, under each rule set, with and without a move limit,
 *     with a searched side and with both sides stored;
 *   - a set without raw files loads its tables from the compressed ones;
 *   - a damaged, truncated or missing file is a clear error, never a crash
 *     or a wrong table.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "cell.h"
#include "tb.h"
#include "testenv.h"
#include "testgen.h"
#include "tmpdir.h"

/* Generates `name` with raw files into a subdirectory `tag` of the test's
 * directory and returns the directory. */
static const char *gen_raw(const char *name, int rules, int limit, int store_both, const char *tag)
{
    static char dir[512];
    char err[XQ_ERR_MAX];
    snprintf(dir, sizeof dir, "%s/%s", test_tmpdir(), tag);
    xq_material m;
    if (xq_material_parse(name, &m, err)) fail_msg("%s", err);
    tb_gen_options opt = {
        .dir = dir, .threads = 2, .quiet = 1, .rules = rules, .limit = limit, .store_both = store_both, .keep_raw = 1};
    if (tb_generate(&m, &opt, err)) fail_msg("generate %s: %s", name, err);
    return dir;
}

/* Entries of a and b that differ in cell, ruled byte or DTC code. */
static uint64_t differences(const tb_table *a, const tb_table *b)
{
    assert_int_equal(a->ix.size, b->ix.size);
    assert_int_equal(a->max_dtm, b->max_dtm);
    assert_int_equal(a->rules, b->rules);
    assert_int_equal(a->limit, b->limit);
    assert_int_equal(tb_has_ruled(a), tb_has_ruled(b));
    assert_int_equal(tb_has_dtc(a), tb_has_dtc(b));
    uint64_t n = 0;
    for (int s = 0; s < 2; s++)
        for (uint64_t i = 0; i < a->ix.size; i++)
            n += cell_get(a->cells[s], a->width, i) != cell_get(b->cells[s], b->width, i) ||
                 tb_ruled(a, s, i) != tb_ruled(b, s, i) || (tb_has_dtc(a) && tb_dtc(a, s, i) != tb_dtc(b, s, i));
    return n;
}

/* Rebuilds t and every table it captures into (each once) from the
 * compressed files, with the subtables of the raw set, and compares. */
static int check_closure(tb_set *set, const tb_table *t, const tb_table **seen, int nseen)
{
    for (int k = 0; k < nseen; k++)
        if (seen[k] == t) return nseen;
    seen[nseen++] = t;
    for (int c = 0; c < 2; c++)
        for (int k = 0; k < 8; k++)
            if (t->sub[c][k]) nseen = check_closure(set, t->sub[c][k], seen, nseen);
    char err[XQ_ERR_MAX], name[XQ_MATERIAL_MAX];
    xq_material_name(&t->mat, name);
    tb_table *u = tb_unpack(set, &t->mat, 2, err);
    if (!u) fail_msg("unpack %s: %s", name, err);
    uint64_t d = differences(t, u);
    if (d) fail_msg("%s: %llu entries differ from the raw file", name, (unsigned long long)d);
    tb_table_free(u);
    return nseen;
}

static void check_against_raw(const char *name, int rules, int limit, int store_both, const char *tag)
{
    const char *dir = gen_raw(name, rules, limit, store_both, tag);
    char err[XQ_ERR_MAX];
    xq_material m;
    assert_int_equal(xq_material_parse(name, &m, err), 0);
    tb_set *set = tb_set_new(dir);
    tb_table *t = tb_set_get(set, &m, err);
    if (!t) fail_msg("load %s: %s", name, err);
    const tb_table *seen[64];
    assert_true(check_closure(set, t, seen, 0) > 1);
    tb_set_free(set);
}

static void test_full_rules_with_limit(void **state)
{
    (void)state;
    check_against_raw("KRKN", XQ_RULES_FULL, 120, 0, "full120"); /* perpetual-check results */
    check_against_raw("KCKA", XQ_RULES_FULL, 120, 0, "full120");
}

static void test_other_rules_and_limits(void **state)
{
    (void)state;
    check_against_raw("KRKN", XQ_RULES_NONE, 0, 0, "none0");
    check_against_raw("KNKP", XQ_RULES_CHECK, 60, 0, "check60");
    check_against_raw("KRKN", XQ_RULES_FULL, 120, 1, "both"); /* no searched side */
    check_against_raw("KRKN", XQ_RULES_FULL, 9, 0, "short");  /* cursed wins, blessed losses */
}

/* A table with results of the perpetual-chase ruling, each of whose
 * orders a search must find or the file store. */
static void test_chase_rulings(void **state)
{
    (void)state;
    if (test_sanitized()) skip(); /* 5.9M entries: the same code paths as above */
    check_against_raw("KCKPP", XQ_RULES_FULL, 120, 0, "full120");
}

/* Without raw files, tb_set_get rebuilds every table from the compressed
 * files, and gets the same tables. */
static void test_set_without_raw(void **state)
{
    (void)state;
    const char *dir = gen_raw("KRKN", XQ_RULES_FULL, 120, 0, "noraw");
    char err[XQ_ERR_MAX], path[600];
    const char *names[] = {"KK", "KRK", "KNK", "KRKN"};
    xq_material m;
    tb_set *with = tb_set_new(dir);
    assert_int_equal(xq_material_parse("KRKN", &m, err), 0);
    tb_table *a = tb_set_get(with, &m, err);
    assert_non_null(a);
    for (size_t k = 0; k < sizeof names / sizeof *names; k++) {
        snprintf(path, sizeof path, "%s/%s.xqtb", dir, names[k]);
        assert_int_equal(unlink(path), 0);
    }
    tb_set *without = tb_set_new(dir);
    tb_set_threads(without, 1);
    tb_table *b = tb_set_get(without, &m, err);
    if (!b) fail_msg("%s", err);
    assert_int_equal(differences(a, b), 0);
    tb_set_free(with);
    tb_set_free(without);
}

/* Writes byte `value` at `offset` of a file (negative: from the end). */
static void poke(const char *path, long offset, int value)
{
    FILE *f = fopen(path, "r+b");
    assert_non_null(f);
    assert_int_equal(fseek(f, offset, offset < 0 ? SEEK_END : SEEK_SET), 0);
    assert_int_not_equal(fputc(value, f), EOF);
    assert_int_equal(fclose(f), 0);
}

static void expect_failure(const char *dir, const char *why)
{
    char err[XQ_ERR_MAX];
    xq_material m;
    assert_int_equal(xq_material_parse("KRKN", &m, err), 0);
    tb_set *set = tb_set_new(dir);
    err[0] = 0;
    assert_null(tb_set_get(set, &m, err));
    if (!strstr(err, why)) fail_msg("expected \"%s\" in: %s", why, err);
    tb_set_free(set);
}

static void test_damage(void **state)
{
    (void)state;
    const char *built = gen_raw("KRKN", XQ_RULES_FULL, 120, 0, "damage");
    char src[600], dir[600], from[700], to[700];
    snprintf(src, sizeof src, "%s", built);
    snprintf(dir, sizeof dir, "%s/damaged", test_tmpdir());
    const char *exts[] = {"xqw", "xqd", "xqc"};
    const char *names[] = {"KK", "KRK", "KNK", "KRKN"};
    struct {
        const char *file;
        long at;
        const char *why;
    } cases[] = {
        {"KRKN.xqd", -100, "KRKN.xqd: block"},         /* a block's bytes: its checksum */
        {"KRKN.xqc", 60, "KRKN.xqc"},                  /* a header field: the meta hash */
        {"KRKN.xqd", 0, "KRKN.xqd"},                   /* the magic */
        {"KRKN.xqc", -1, "KRKN.xqc: block"},           /* the last block */
        {"KRKN.xqd", -1000000, "cannot open"},         /* below: the file removed */
        {"KRKN.xqc", -2000000, "KRKN.xqc is damaged"}, /* below: truncated */
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        mkdir(dir, 0755);
        for (size_t n = 0; n < sizeof names / sizeof *names; n++)
            for (size_t e = 0; e < 3; e++) {
                snprintf(from, sizeof from, "%s/%s.%s", src, names[n], exts[e]);
                snprintf(to, sizeof to, "%s/%s.%s", dir, names[n], exts[e]);
                testgen_copy_file(from, to);
            }
        snprintf(to, sizeof to, "%s/%s", dir, cases[c].file);
        if (cases[c].at == -1000000)
            assert_int_equal(unlink(to), 0);
        else if (cases[c].at == -2000000)
            assert_int_equal(truncate(to, 100), 0);
        else
            poke(to, cases[c].at, 0x5A ^ (cases[c].at == 0 ? 'X' : 0xFF));
        expect_failure(dir, cases[c].why);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_full_rules_with_limit),
        cmocka_unit_test(test_other_rules_and_limits),
        cmocka_unit_test(test_chase_rulings),
        cmocka_unit_test(test_set_without_raw),
        cmocka_unit_test(test_damage),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
