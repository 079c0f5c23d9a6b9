/*
 * test_gen_ref.c - the generator against the independent reference solver,
 * position by position, and every generated table through tb_verify.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "cell.h"
#include "ref_solver.h"
#include "tb.h"
#include "testenv.h"
#include "testgen.h"
#include "tmpdir.h"

/* Generates `name` with 2 threads, then compares every legal position the
 * reference solver knows (both sides to move, and the same positions with
 * the colours swapped, which the table answers by flipping). */
static void compare_with_reference(const char *name)
{
    char err[XQ_ERR_MAX];
    xq_material m;
    assert_int_equal(xq_material_parse(name, &m, err), 0);
    tb_set *set;
    tb_table *t = testgen_load(name, &set);

    ref_db *db = ref_solve(&m);
    assert_non_null(db);
    int n = ref_count(db), mismatches = 0;
    uint64_t per_side[2] = {0, 0};
    for (int i = 0; i < n; i++) {
        xq_board b, f;
        ref_board(db, i, &b);
        per_side[b.side]++;
        ref_value want = ref_value_at(db, i);
        tb_value got = tb_value_of(t, &b);
        xq_board_flip(&b, &f);
        tb_value got_flipped = tb_value_of(t, &f);
        if (got.wdl != want.wdl || got.dtm != want.dtm || got_flipped.wdl != want.wdl || got_flipped.dtm != want.dtm) {
            if (mismatches++ < 5) {
                char fen[XQ_FEN_MAX];
                xq_fen_write(&b, fen);
                print_error("%s %s: reference wdl %d dtm %d, generator wdl %d dtm %d (flipped %d %d)\n", name, fen,
                            want.wdl, want.dtm, got.wdl, got.dtm, got_flipped.wdl, got_flipped.dtm);
            }
        }
    }
    assert_int_equal(mismatches, 0);

    /* The same number of legal boards, counted by the table's statistics. */
    xq_material canon;
    xq_material_canonical(&m, &canon);
    if (xq_material_equal(&canon, &m)) {
        tb_stats st;
        tb_compute_stats(t, &st);
        assert_int_equal(st.side[0].legal, per_side[0]);
        assert_int_equal(st.side[1].legal, per_side[1]);
    }

    testgen_verify_all(t);
    ref_free(db);
    tb_set_free(set);
}

/* Under the sanitizer build (XQTB_SAN=1) KNKN, the slowest there, is
 * skipped: KRKN takes the same four-piece paths. */
#define REF_TEST_AS(mat, skip_under_san)                                                                               \
    static void test_ref_##mat(void **state)                                                                           \
    {                                                                                                                  \
        (void)state;                                                                                                   \
        if ((skip_under_san) && test_skipped_under_san(#mat)) skip();                                                  \
        compare_with_reference(#mat);                                                                                  \
    }
#define REF_TEST(mat) REF_TEST_AS(mat, 0)
REF_TEST(KK)
REF_TEST(KRK)
REF_TEST(KNK)
REF_TEST(KPK)
REF_TEST(KCK)
REF_TEST(KAK)
REF_TEST(KBK)
REF_TEST(KRKA)
REF_TEST(KNKA)
REF_TEST(KCKA)
REF_TEST(KPKB)
REF_TEST(KRKN)
REF_TEST_AS(KNKN, 1)
REF_TEST(KCAK)
REF_TEST(KAKB)

/* Two-byte cells (what tables longer than 251 plies switch to) give the
 * same values as one-byte cells. */
static void test_wide_cells_agree(void **state)
{
    (void)state;
    char err[XQ_ERR_MAX], wide_dir[512];
    xq_material m;
    assert_int_equal(xq_material_parse("KRKN", &m, err), 0);
    tb_gen_options opt = {.dir = test_tmpdir(), .threads = 2, .quiet = 1, .keep_raw = 1};
    if (tb_generate(&m, &opt, err)) fail_msg("%s", err);
    snprintf(wide_dir, sizeof wide_dir, "%s/wide", test_tmpdir());
    tb_gen_options wide = {.dir = wide_dir, .threads = 2, .quiet = 1, .wide = 1, .keep_raw = 1};
    if (tb_generate(&m, &wide, err)) fail_msg("%s", err);
    tb_set *a = tb_set_new(test_tmpdir()), *b = tb_set_new(wide_dir);
    tb_table *ta = tb_set_get(a, &m, err), *tw = tb_set_get(b, &m, err);
    assert_non_null(ta);
    assert_non_null(tw);
    assert_int_equal(ta->width, 1);
    assert_int_equal(tw->width, 2);
    assert_int_equal(ta->max_dtm, tw->max_dtm);
    for (int s = 0; s < 2; s++)
        for (uint64_t i = 0; i < ta->ix.size; i++) {
            tb_value va = tb_value_of_cell(cell_get(ta->cells[s], 1, i));
            tb_value vw = tb_value_of_cell(cell_get(tw->cells[s], 2, i));
            if (va.wdl != vw.wdl || va.dtm != vw.dtm) fail_msg("entry %llu side %d differs", (unsigned long long)i, s);
        }
    tb_verify_report r;
    assert_int_equal(tb_verify(tw, 2, &r), 0);
    tb_set_free(a);
    tb_set_free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ref_KK),           cmocka_unit_test(test_ref_KRK),  cmocka_unit_test(test_ref_KNK),
        cmocka_unit_test(test_ref_KPK),          cmocka_unit_test(test_ref_KCK),  cmocka_unit_test(test_ref_KAK),
        cmocka_unit_test(test_ref_KBK),          cmocka_unit_test(test_ref_KRKA), cmocka_unit_test(test_ref_KNKA),
        cmocka_unit_test(test_ref_KCKA),         cmocka_unit_test(test_ref_KPKB), cmocka_unit_test(test_ref_KRKN),
        cmocka_unit_test(test_ref_KNKN),         cmocka_unit_test(test_ref_KCAK), cmocka_unit_test(test_ref_KAKB),
        cmocka_unit_test(test_wide_cells_agree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
