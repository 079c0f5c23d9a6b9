/*
 * test_theory.c - known Xiangqi endgame theory that generated tables must
 * reproduce, and byte-identical output for any thread count.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tb.h"
#include "testenv.h"
#include "testgen.h"
#include "tmpdir.h"

/* Generates (2 threads) and loads material `name`, checks every table of
 * the set with tb_verify, and returns its statistics. */
static void solve(const char *name, tb_stats *st)
{
    tb_set *set;
    tb_table *t = testgen_load(name, &set);
    testgen_verify_all(t);
    tb_compute_stats(t, st);
    tb_set_free(set);
}

/* Cannon and advisor against a bare king: won from every position with the
 * cannon's side to move (the advisor serves as the cannon's screen). */
static void test_cannon_advisor_beats_king(void **state)
{
    (void)state;
    tb_stats st;
    solve("KCAK", &st);
    assert_true(st.side[0].legal > 20000);
    assert_int_equal(st.side[0].win, st.side[0].legal);
}

/* A lone cannon has no screen of its own: it never wins. */
static void test_cannon_alone_cannot_win(void **state)
{
    (void)state;
    tb_stats st;
    solve("KCK", &st);
    assert_int_equal(st.side[0].win, 0);
    assert_int_equal(st.side[1].loss, 0);
    assert_int_equal(st.side[0].draw, st.side[0].legal);
}

/* A horse with its king's help (the flying general controls a file, and
 * stalemate loses) beats a bare king from every position with the horse side
 * to move. */
static void test_horse_beats_king(void **state)
{
    (void)state;
    tb_stats st;
    solve("KNK", &st);
    assert_int_equal(st.side[0].win, st.side[0].legal);
}

/* Rook against horse and two advisors: the rook side wins the great
 * majority with the move; the full defence of two advisors and two
 * elephants draws far more often. */
static void test_rook_against_defences(void **state)
{
    (void)state;
    if (test_sanitized()) skip(); /* same code as the fast build; too slow here */
    tb_stats horse, full;
    solve("KRKNAA", &horse);
    solve("KRKAABB", &full);
    double horse_win = (double)horse.side[0].win / (double)horse.side[0].legal;
    double horse_draw = (double)horse.side[0].draw / (double)horse.side[0].legal;
    double full_draw = (double)full.side[0].draw / (double)full.side[0].legal;
    print_message("KRKNAA red to move: %.2f%% won, %.2f%% drawn; KRKAABB: %.2f%% drawn\n", 100 * horse_win,
                  100 * horse_draw, 100 * full_draw);
    assert_true(horse_win > 0.9);
    assert_true(full_draw > 10 * horse_draw);
}

/* The same table, byte for byte, with 1, 2 and 3 threads. */
static void test_thread_count_does_not_change_output(void **state)
{
    (void)state;
    const char *name = test_sanitized() ? "KNKA" : "KRKN";
    char first[600];
    for (int threads = 1; threads <= 3; threads++) {
        char dir[512], err[XQ_ERR_MAX];
        snprintf(dir, sizeof dir, "%s/threads%d", test_tmpdir(), threads);
        xq_material m;
        assert_int_equal(xq_material_parse(name, &m, err), 0);
        /* raw files too: they hold every value of both sides */
        tb_gen_options opt = {.dir = dir, .threads = threads, .quiet = 1, .keep_raw = 1};
        if (tb_generate(&m, &opt, err)) fail_msg("generate: %s", err);
        if (threads == 1) snprintf(first, sizeof first, "%s", dir);
        for (int k = 0; k < 3 && threads > 1; k++) { /* no move limit: no DTC file */
            static const char *const ext[] = {"xqtb", "xqw", "xqd"};
            char a[700], b[700];
            snprintf(a, sizeof a, "%s/%s.%s", first, name, ext[k]);
            snprintf(b, sizeof b, "%s/%s.%s", dir, name, ext[k]);
            testgen_assert_same_file(a, b);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cannon_advisor_beats_king),
        cmocka_unit_test(test_cannon_alone_cannot_win),
        cmocka_unit_test(test_horse_beats_king),
        cmocka_unit_test(test_rook_against_defences),
        cmocka_unit_test(test_thread_count_does_not_change_output),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
