/*
 * test_repetition_ref.c - the generator's repetition rulings against the
 * independent reference (tests/ref/ref_repetition.h: own move labels, explicit
 * product game, Zielonka's algorithm), position by position.
 *
 * For each material the generator builds the table under rules check and
 * under rules full; the reference solves it once under full (which gives
 * the values under none and check as well).  Every legal position, both
 * sides to move and with the colours swapped, must agree on wdl and by_rule
 * under each rule set, and for results already decided under rules none
 * (by_rule NONE) also on dtm, which is then the reference solver's.
 *
 * Where the rulings decide something (KRKN, KRKNA, KCKPP) the reference is
 * solved once under cxa (perpetual attack: check, mate threat or chase),
 * which solves check, full and asian too, and the generator's tables under
 * all four rule sets are compared with it.  On KRKNA cxa decides 480
 * positions otherwise than full: where the rook's side wins against
 * perpetual checks only by attacking on every move itself, both attack and
 * the game is drawn.
 *
 * The largest tables take most of the time.  Under the sanitizer build
 * (XQTB_SAN=1) KRKNA is skipped; KRKR, KNKN and KCKN (where both solvers
 * find that the rulings decide nothing, though chases abound) run only
 * with XQTB_SLOW_TESTS=1.  Skips say so in the output.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "ref_repetition.h"
#include "tb.h"
#include "testenv.h"
#include "testgen.h"

enum { ALWAYS = 0, NOT_UNDER_SAN = 1, SLOW_ONLY = 2 };

/* Whether a table of this cost class runs here; prints why not. */
static int runs_here(const char *name, int cost)
{
    if (cost == NOT_UNDER_SAN && test_skipped_under_san(name)) return 0;
    if (cost == SLOW_ONLY && !test_slow()) {
        printf("    %s skipped: set XQTB_SLOW_TESTS=1 to compare it too\n", name);
        return 0;
    }
    return 1;
}

/* dtm is compared only where it is an ordinary distance to mate. */
static int agrees(tb_value want, tb_value got)
{
    if (got.wdl != want.wdl || got.by_rule != want.by_rule) return 0;
    return want.by_rule != XQ_BY_NONE || want.wdl == 0 || got.dtm == want.dtm;
}

/* Compares the generator's table of rules r with the reference on every
 * position; returns the number of disagreements (the first few printed). */
static int compare_rules(const char *name, const ref_rules_db *db, int r)
{
    tb_set *set;
    tb_table *t = testgen_load_rules(name, r, &set);
    const ref_db *base = ref_rules_base(db);
    int n = ref_count(base), bad = 0;
    for (int i = 0; i < n; i++) {
        xq_board b, f;
        ref_board(base, i, &b);
        xq_board_flip(&b, &f);
        ref_rules_value v = ref_rules_value_at(db, i, r);
        tb_value want = {v.wdl, v.dtm, v.by_rule};
        tb_value got = tb_value_of(t, &b), got_f = tb_value_of(t, &f);
        if (agrees(want, got) && agrees(want, got_f)) continue;
        if (bad++ < 5) {
            char fen[XQ_FEN_MAX];
            xq_fen_write(&b, fen);
            print_error("%s rules %d %s: reference wdl %d dtm %d by %d, generator wdl %d dtm %d by %d "
                        "(flipped %d %d %d)\n",
                        name, r, fen, want.wdl, want.dtm, want.by_rule, got.wdl, got.dtm, got.by_rule, got_f.wdl,
                        got_f.dtm, got_f.by_rule);
        }
    }
    tb_set_free(set); /* tb_verify of ruled tables is the generator tests' business */
    return bad;
}

/* The reference's solution of `name` under `rules`, and its stats. */
static ref_rules_db *solve_reference(const char *name, int rules, ref_rules_stats *st)
{
    char err[XQ_ERR_MAX];
    xq_material m;
    if (xq_material_parse(name, &m, err)) fail_msg("%s", err);
    ref_rules_db *db = ref_rules_solve(&m, rules, 0);
    if (!db) fail_msg("reference solver failed on %s", name);
    ref_rules_get_stats(db, st);
    return db;
}

/* expect_ruled: whether the rulings should decide anything in this table
 * (-1: no expectation, just report). */
static void compare_material(const char *name, int expect_ruled)
{
    ref_rules_stats st;
    ref_rules_db *db = solve_reference(name, XQ_RULES_FULL, &st);
    printf("    %s: by perpetual check %d (red to move) %d (black to move), by perpetual chase %d %d\n", name,
           st.decided[XQ_RULES_CHECK][RED], st.decided[XQ_RULES_CHECK][BLACK], st.decided[XQ_RULES_FULL][RED],
           st.decided[XQ_RULES_FULL][BLACK]);
    int ruled = st.decided[XQ_RULES_CHECK][RED] + st.decided[XQ_RULES_CHECK][BLACK] + st.decided[XQ_RULES_FULL][RED] +
                st.decided[XQ_RULES_FULL][BLACK];
    if (expect_ruled == 0) assert_int_equal(ruled, 0);
    if (expect_ruled == 1) assert_true(ruled > 0);
    int bad = compare_rules(name, db, XQ_RULES_CHECK) + compare_rules(name, db, XQ_RULES_FULL);
    ref_rules_free(db);
    assert_int_equal(bad, 0);
}

/* A test test_KIND_MAT that runs compare(MAT, arg) where a table of that
 * cost runs (runs_here). */
#define TABLE_TEST(kind, compare, mat, arg, cost)                                                                      \
    static void test_##kind##_##mat(void **state)                                                                      \
    {                                                                                                                  \
        (void)state;                                                                                                   \
        if (!runs_here(#mat, cost)) skip();                                                                            \
        compare(#mat, arg);                                                                                            \
    }
#define RULES_TEST(mat, expect_ruled, cost) TABLE_TEST(rules, compare_material, mat, expect_ruled, cost)

/* Every rule set from one reference solve: solved under cxa, the reference
 * holds the values under check, full, asian and cxa alike (ref_rules_solve
 * solves each rule set up to the one asked), so the table is solved once
 * and the generator's tables under those four rule sets are each compared
 * with it.  cxa_differs: whether cxa should decide some position otherwise
 * than full. */
static void compare_every_set(const char *name, int cxa_differs)
{
    ref_rules_stats st;
    ref_rules_db *db = solve_reference(name, XQ_RULES_CXA, &st);
    printf("    %s: by perpetual check %d (red to move) %d (black to move), by perpetual chase %d %d\n", name,
           st.decided[XQ_RULES_CHECK][RED], st.decided[XQ_RULES_CHECK][BLACK], st.decided[XQ_RULES_FULL][RED],
           st.decided[XQ_RULES_FULL][BLACK]);
    printf("    %s under asian: decided %d (red to move) %d (black to move) beyond check; not as under full %d %d\n",
           name, st.decided[XQ_RULES_ASIAN][RED], st.decided[XQ_RULES_ASIAN][BLACK], st.asian_differs[RED],
           st.asian_differs[BLACK]);
    printf("    %s under cxa: decided %d (red to move) %d (black to move); not as under full %d %d\n", name,
           st.decided[XQ_RULES_CXA][RED], st.decided[XQ_RULES_CXA][BLACK], st.cxa_differs[RED], st.cxa_differs[BLACK]);
    assert_true(st.decided[XQ_RULES_CHECK][RED] + st.decided[XQ_RULES_CHECK][BLACK] + st.decided[XQ_RULES_FULL][RED] +
                    st.decided[XQ_RULES_FULL][BLACK] >
                0);
    assert_int_equal(st.cxa_differs[RED] + st.cxa_differs[BLACK] > 0, cxa_differs);
    int bad = 0;
    static const int sets[] = {XQ_RULES_CHECK, XQ_RULES_FULL, XQ_RULES_ASIAN, XQ_RULES_CXA};
    for (size_t i = 0; i < sizeof sets / sizeof *sets; i++) bad += compare_rules(name, db, sets[i]);
    ref_rules_free(db);
    assert_int_equal(bad, 0);
}

#define EVERY_SET_TEST(mat, cxa_differs, cost) TABLE_TEST(every_set, compare_every_set, mat, cxa_differs, cost)

/* Tables where no repetition can matter: the rulings must change nothing. */
RULES_TEST(KRK, 0, ALWAYS)
RULES_TEST(KCK, 0, ALWAYS)
RULES_TEST(KPK, 0, ALWAYS)
/* Chases on both sides, but nothing for the rulings to decide. */
RULES_TEST(KNKA, 0, ALWAYS)
RULES_TEST(KRKR, 0, SLOW_ONLY)
RULES_TEST(KNKN, 0, SLOW_ONLY)
RULES_TEST(KCKN, 0, SLOW_ONLY)
/* Perpetual check decides thousands of positions; on KRKNA cxa decides
 * some otherwise than full. */
EVERY_SET_TEST(KRKN, 0, ALWAYS)
EVERY_SET_TEST(KRKNA, 1, NOT_UNDER_SAN)
/* The smallest tables where perpetual chase decides positions are 5-piece
 * tables with pawns (KCKPP: 78 of its 6M-entry sides; under cxa, where a
 * chase of any piece is an attack, ten times as many as under full): too
 * slow for every run, so they are compared on request. */
EVERY_SET_TEST(KCKPP, 1, SLOW_ONLY)

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rules_KRK),       cmocka_unit_test(test_rules_KCK),
        cmocka_unit_test(test_rules_KPK),       cmocka_unit_test(test_rules_KNKA),
        cmocka_unit_test(test_rules_KRKR),      cmocka_unit_test(test_rules_KNKN),
        cmocka_unit_test(test_rules_KCKN),      cmocka_unit_test(test_every_set_KRKN),
        cmocka_unit_test(test_every_set_KRKNA), cmocka_unit_test(test_every_set_KCKPP),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
