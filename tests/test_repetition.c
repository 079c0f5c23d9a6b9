/*
 * test_repetition.c - properties of the repetition rulings as the generator
 * applies them (gen/repetition.c), independent of how they are computed:
 *
 *   - the rulings only turn draws into wins and losses: every cell (the
 *     value without rulings) is the same under none, check and full, and
 *     what "check" decides, "full" decides the same way, flagged by check;
 *   - every ruled result is consistent with its successors (tb_verify),
 *     and so is every order of the check ruling, which tb_verify refuses
 *     when changed (within what a local check can see);
 *   - the output is the same, byte for byte, for any thread count;
 *   - the rule set is recorded: a directory built under one set is rebuilt,
 *     not reused, when another is asked for, and a set refuses to link
 *     tables built under different sets;
 *   - `xqtb probe` and `xqtb stats` report ruled results.
 * The position-by-position check against an independent solver is in
 * test_repetition_ref.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <cmocka.h>

#include "cell.h"
#include "runxqtb.h"
#include "tb.h"
#include "testenv.h"
#include "testgen.h"
#include "tmpdir.h"

/* Under the sanitizers (XQTB_SAN=1) the larger cases below use a smaller
 * table (KRKN for KRKCA): the code paths are the same, and ASan makes
 * generation 3-5 times slower. */

/* Generates name (with kept_late as tb_gen_options has it) into the
 * directory `tag` and loads it. */
static tb_table *gen_load_late(const char *name, int rules, int threads, int kept_late, const char *tag, tb_set **set)
{
    char err[XQ_ERR_MAX], dir[512];
    snprintf(dir, sizeof dir, "%s/%s", test_tmpdir(), tag);
    xq_material m;
    if (xq_material_parse(name, &m, err)) fail_msg("%s", err);
    tb_gen_options opt = {
        .dir = dir, .threads = threads, .quiet = 1, .rules = rules, .keep_raw = 1, .kept_late = kept_late};
    if (tb_generate(&m, &opt, err)) fail_msg("generate %s: %s", name, err);
    *set = tb_set_new(dir);
    tb_table *t = *set ? tb_set_get(*set, &m, err) : NULL;
    if (!t) fail_msg("load %s: %s", name, err);
    assert_int_equal(t->rules, rules);
    return t;
}

static tb_table *gen_load(const char *name, int rules, int threads, const char *tag, tb_set **set)
{
    return gen_load_late(name, rules, threads, 0, tag, set);
}

static unsigned ruled_at(const tb_table *t, int side, uint64_t i) { return tb_ruled(t, side, i); }

/* The directory of name under rules r, two threads: compare_rule_sets
 * builds it, and the tests after it that need the same table load it from
 * there instead of solving it again. */
static void rules_tag(const char *name, int r, char tag[64]) { snprintf(tag, 64, "%s-%s", name, xq_rules_name(r)); }

/* Counts of ruled entries: [by chase][win]. */
static void compare_rule_sets(const char *name, uint64_t counts[2][2])
{
    tb_set *sn, *sc, *sf;
    char tag[3][64];
    for (int r = 0; r < 3; r++) rules_tag(name, r, tag[r]);
    tb_table *none = gen_load(name, XQ_RULES_NONE, 2, tag[0], &sn);
    tb_table *check = gen_load(name, XQ_RULES_CHECK, 2, tag[1], &sc);
    tb_table *full = gen_load(name, XQ_RULES_FULL, 2, tag[2], &sf);
    memset(counts, 0, 4 * sizeof counts[0][0]);
    assert_false(tb_has_ruled(none));
    for (int s = 0; s < 2; s++)
        for (uint64_t i = 0; i < none->ix.size; i++) {
            unsigned v = cell_get(none->cells[s], none->width, i);
            assert_int_equal(cell_get(check->cells[s], check->width, i), v);
            assert_int_equal(cell_get(full->cells[s], full->width, i), v);
            unsigned rc = ruled_at(check, s, i), rf = ruled_at(full, s, i);
            if (v != CELL_DRAW) {
                assert_int_equal(rc, RULED_NONE);
                assert_int_equal(rf, RULED_NONE);
                continue;
            }
            if (rc != RULED_NONE) {
                assert_false(ruled_by_chase(rc));
                assert_int_equal(rf, rc); /* same result, order and flag */
            }
            if (rf != RULED_NONE) counts[ruled_by_chase(rf)][ruled_is_win(rf)]++;
        }
    tb_verify_report r;
    assert_int_equal(tb_verify(check, 2, &r), 0);
    assert_int_equal(tb_verify(full, 2, &r), 0);
    tb_set_free(sn);
    tb_set_free(sc);
    tb_set_free(sf);
}

/* KRKN: the horse's perpetual check is a lone king's last resource. */
static void test_rulings_only_decide_draws_krkn(void **state)
{
    (void)state;
    uint64_t n[2][2];
    compare_rule_sets("KRKN", n);
    assert_true(n[0][0] > 0 && n[0][1] > 0); /* both wins and losses by check */
}

/* KRKCA: rulings of more than one order. */
static void test_rulings_only_decide_draws_krkca(void **state)
{
    (void)state;
    uint64_t n[2][2];
    compare_rule_sets(test_sanitized() ? "KRKN" : "KRKCA", n);
    assert_true(n[0][0] + n[0][1] > 0);
}

/* Tables where no side can be forced to repeat: nothing changes. */
static void test_rulings_change_nothing_in_simple_tables(void **state)
{
    (void)state;
    static const char *const names[] = {"KRK", "KCK", "KPK", "KNKA", "KPKP"};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        uint64_t n[2][2];
        compare_rule_sets(names[k], n);
        assert_int_equal(n[0][0] + n[0][1] + n[1][0] + n[1][1], 0);
    }
}

/* The directory of the table built with this many threads: with two, the
 * one compare_rule_sets built. */
static void det_tag(const char *name, int threads, char tag[64])
{
    if (threads == 2)
        rules_tag(name, XQ_RULES_FULL, tag);
    else
        snprintf(tag, 64, "det%d", threads);
}

/* name's raw, WDL and DTM files are the same in the directories tag_a and
 * tag_b. */
static void assert_same_tables(const char *tag_a, const char *tag_b, const char *name)
{
    static const char *const ext[] = {"xqtb", "xqw", "xqd"};
    for (int e = 0; e < 3; e++) {
        char a[600], b[600];
        snprintf(a, sizeof a, "%s/%s/%s.%s", test_tmpdir(), tag_a, name, ext[e]);
        snprintf(b, sizeof b, "%s/%s/%s.%s", test_tmpdir(), tag_b, name, ext[e]);
        testgen_assert_same_file(a, b);
    }
}

/* The same files for 1, 2 and 3 threads (raw, WDL and DTM). */
static void test_rulings_deterministic(void **state)
{
    (void)state;
    const char *name = test_sanitized() ? "KRKN" : "KRKCA";
    for (int threads = 1; threads <= 3; threads++) {
        char tag[64];
        det_tag(name, threads, tag);
        tb_set *set;
        gen_load(name, XQ_RULES_FULL, threads, tag, &set);
        tb_set_free(set);
    }
    for (int threads = 2; threads <= 3; threads++) {
        char tag[64];
        det_tag(name, threads, tag);
        assert_same_tables("det1", tag, name);
    }
}

/* The check-only solve under full starts without its kept steps and sets
 * them up when they pay (gen/repetition.c, KEPT_LATE_SHARE), which these
 * small tables never reach: the default builds solve without them.  Set
 * up at its second order (after a first order decided without them), it
 * gives the same files as the default, which test_repetition_ref.c
 * compares with the reference solver. */
static void test_check_solve_kept_steps_late(void **state)
{
    (void)state;
    const char *name = test_sanitized() ? "KRKN" : "KRKCA";
    char def[64];
    tb_set *set;
    gen_load_late(name, XQ_RULES_FULL, 2, 1, "late", &set);
    tb_set_free(set);
    rules_tag(name, XQ_RULES_FULL, def);
    assert_same_tables(def, "late", name);
}

/* Lowers by one every order of the check ruling above 1; returns how many
 * it changed. */
static uint64_t lower_check_orders(tb_table *t)
{
    uint64_t n = 0;
    for (int s = 0; s < 2; s++)
        for (uint64_t i = 0; i < t->ix.size; i++) {
            unsigned r = tb_ruled(t, s, i);
            if (r == RULED_NONE || ruled_by_chase(r) || ruled_order(r) < 2) continue;
            assert_int_equal(tb_ruled_replace(t, s, i, ruled_code(ruled_is_win(r), 0, ruled_order(r) - 1)), 0);
            n++;
        }
    return n;
}

/* Moves each order of the check ruling by delta, one entry at a time, and
 * counts what tb_verify_entry refuses: [win] of [seen, caught]. */
static void shift_each_order(tb_table *t, int delta, uint64_t count[2][2])
{
    memset(count, 0, 4 * sizeof count[0][0]);
    for (int s = 0; s < 2; s++)
        for (uint64_t i = 0; i < t->ix.size; i++) {
            unsigned r = tb_ruled(t, s, i);
            int k = ruled_order(r) + delta;
            if (r == RULED_NONE || ruled_by_chase(r) || k < 1 || k > RULED_ORDER_MAX) continue;
            assert_int_equal(tb_ruled_replace(t, s, i, ruled_code(ruled_is_win(r), 0, k)), 0);
            count[ruled_is_win(r)][0]++;
            count[ruled_is_win(r)][1] += tb_verify_entry(t, s, i) != NULL;
            assert_int_equal(tb_ruled_replace(t, s, i, r), 0);
        }
}

/* tb_verify checks the orders of the check ruling, not only its results
 * (gen/verify.c; docs/RULES.md, "How verify checks orders").  Changed one
 * entry at a time, on these tables: every order lowered by one is refused,
 * and every winner's order raised by one (it has an idle move into its own
 * order); a loser's order raised by one only where the loser has no check
 * that stays in the drawn region.  The whole table's check reports the
 * first order it refuses. */
static void test_verify_checks_orders(void **state)
{
    (void)state;
    tb_set *set;
    int small = test_sanitized();
    const char *name = small ? "KRKN" : "KRKCA";
    char tag[64];
    rules_tag(name, XQ_RULES_FULL, tag); /* its orders change in memory only */
    tb_table *t = gen_load(name, XQ_RULES_FULL, 2, tag, &set);
    tb_verify_report r;
    assert_int_equal(tb_verify(t, 2, &r), 0);
    uint64_t up[2][2], down[2][2];
    shift_each_order(t, 1, up);
    shift_each_order(t, -1, down);
    assert_true(up[1][0] > 0);
    assert_int_equal(up[1][1], up[1][0]);
    assert_int_equal(down[0][1], down[0][0]);
    assert_int_equal(down[1][1], down[1][0]);
    if (!small) {
        assert_true(down[0][0] > 0);                      /* KRKCA: 30 */
        assert_true(up[0][1] > 0 && up[0][1] < up[0][0]); /* KRKCA: 30 of 243 */
        assert_true(lower_check_orders(t) > 0);
        assert_int_equal(tb_verify(t, 2, &r), -1);
        assert_non_null(strstr(r.first_error, "order"));
    }
    tb_set_free(set);
}

/* A directory built under "check" is rebuilt for "full", subtables too;
 * a set does not link a table to a subtable of another rule set. */
static void test_rule_sets_never_mix(void **state)
{
    (void)state;
    tb_set *set;
    tb_table *t = gen_load("KRKN", XQ_RULES_CHECK, 2, "mix", &set);
    assert_int_equal(t->sub[BLACK][HORSE]->rules, XQ_RULES_CHECK);
    tb_set_free(set);
    t = gen_load("KRKN", XQ_RULES_FULL, 2, "mix", &set);
    assert_int_equal(t->sub[BLACK][HORSE]->rules, XQ_RULES_FULL);
    assert_int_equal(t->sub[RED][ROOK]->rules, XQ_RULES_FULL);
    xq_material krkn_m = t->mat;
    tb_set_free(set);

    tb_set *other;
    tb_set *knk;
    gen_load("KNK", XQ_RULES_NONE, 2, "mix-none", &knk);
    tb_set_free(knk);
    gen_load("KRK", XQ_RULES_NONE, 2, "mix-none", &other);
    char why[XQ_ERR_MAX];
    xq_material knk_m;
    assert_int_equal(xq_material_parse("KNK", &knk_m, why), 0);
    assert_non_null(tb_set_get(other, &knk_m, why));
    char err[XQ_ERR_MAX], dir[512];
    snprintf(dir, sizeof dir, "%s/mix", test_tmpdir());
    /* KRKN (full) into a set whose KRK and KK are built without rulings */
    tb_table *krkn = tb_raw_read(dir, &krkn_m, err);
    assert_non_null(krkn);
    int rc = tb_set_add(other, krkn, err);
    if (rc == 0) fail_msg("a full-rules table linked to subtables built without rulings");
    assert_non_null(strstr(err, "rules"));
    tb_table_free(krkn);
    tb_set_free(other);
}

/* The CLI end to end: gen (default rules full), stats, probe. */
static void test_cli_reports_rulings(void **state)
{
    (void)state;
    char dir[512];
    snprintf(dir, sizeof dir, "%s/cli", test_tmpdir());
    assert_int_equal(run_xqtb("gen -q -d %s KRKN", dir), 0);
    assert_int_equal(run_xqtb("stats -d %s KRKN", dir), 0);
    assert_non_null(strstr(xqtb_out, "repetition rules: full"));
    assert_non_null(strstr(xqtb_out, "won by the perpetual check ruling (drawn under --rules none)"));
    assert_non_null(strstr(xqtb_out, "lost by the perpetual check ruling (drawn under --rules none)"));
    assert_int_equal(run_xqtb("stats --json -d %s KRKN", dir), 0);
    assert_non_null(strstr(xqtb_out, "\"rules\":\"full\""));
    assert_non_null(strstr(xqtb_out, "\"perpetual_check\":{\"win\":"));

    /* Red to move, in check from the horse, which can check forever; the
     * lone defender's perpetual check loses. */
    const char *fen = "9/9/4k4/9/9/9/9/9/1n7/R2K5 w - - 0 1";
    assert_int_equal(run_xqtb("probe --json -d %s '%s'", dir, fen), 0);
    assert_non_null(strstr(xqtb_out, "\"rules\":\"full\""));
    assert_non_null(
        strstr(xqtb_out, "\"wdl\":\"win\",\"dtm\":null,\"dtc\":null,\"by_rule\":\"perpetual_check\",\"order\":1"));
    assert_int_equal(run_xqtb("probe -d %s '%s'", dir, fen), 0);
    assert_non_null(strstr(xqtb_out, "win by the perpetual-check ruling (order 1)"));
    assert_non_null(strstr(xqtb_out, "repetition rules: full"));

    /* The same position is a draw without the rulings. */
    snprintf(dir, sizeof dir, "%s/cli-none", test_tmpdir());
    assert_int_equal(run_xqtb("gen -q --rules none -d %s KRKN", dir), 0);
    assert_int_equal(run_xqtb("probe --json -d %s '%s'", dir, fen), 0);
    assert_non_null(strstr(xqtb_out, "\"rules\":\"none\",\"limit\":120,\"counter\":0,\"wdl\":\"draw\""));
    assert_int_equal(run_xqtb("gen -q --rules sometimes -d %s KRKN", dir), 2);
    assert_non_null(strstr(xqtb_out, "--rules takes none, check, full, asian or cxa, not 'sometimes'"));

    /* Under asian KRKN's rulings are full's (no check there chases). */
    snprintf(dir, sizeof dir, "%s/cli-asian", test_tmpdir());
    assert_int_equal(run_xqtb("gen -q --rules asian -d %s KRKN", dir), 0);
    assert_int_equal(run_xqtb("probe --json -d %s '%s'", dir, fen), 0);
    assert_non_null(strstr(xqtb_out, "\"rules\":\"asian\""));
    assert_non_null(strstr(xqtb_out, "\"by_rule\":\"perpetual_check\",\"order\":1"));
    assert_int_equal(run_xqtb("verify -q -d %s KRKN", dir), 0);

    /* Under cxa the same position is won by the one ruling there. */
    snprintf(dir, sizeof dir, "%s/cli-cxa", test_tmpdir());
    assert_int_equal(run_xqtb("gen -q --rules cxa -d %s KRKN", dir), 0);
    assert_int_equal(run_xqtb("probe --json -d %s '%s'", dir, fen), 0);
    assert_non_null(strstr(xqtb_out, "\"rules\":\"cxa\""));
    assert_non_null(strstr(xqtb_out, "\"by_rule\":\"perpetual_attack\",\"order\":1"));
    assert_int_equal(run_xqtb("probe -d %s '%s'", dir, fen), 0);
    assert_non_null(strstr(xqtb_out, "win by the perpetual-attack ruling (order 1)"));
    assert_int_equal(run_xqtb("stats -d %s KRKN", dir), 0);
    assert_non_null(strstr(xqtb_out, "won by the perpetual attack ruling"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rulings_only_decide_draws_krkn),
        cmocka_unit_test(test_rulings_only_decide_draws_krkca),
        cmocka_unit_test(test_rulings_change_nothing_in_simple_tables),
        cmocka_unit_test(test_rulings_deterministic),
        cmocka_unit_test(test_check_solve_kept_steps_late),
        cmocka_unit_test(test_rule_sets_never_mix),
        cmocka_unit_test(test_verify_checks_orders),
        cmocka_unit_test(test_cli_reports_rulings),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
