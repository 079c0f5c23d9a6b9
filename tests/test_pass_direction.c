/*
 * test_pass_direction.c - the pass engine's two ways of making a ply's
 * phase B (gen/pass.h): from the flags the frontier sets (push), or by
 * examining every entry still open (pull, pass_pull_chunk).  The passes
 * choose per ply and side by their counts; the choice must change only
 * the time taken.  Here each pass is run again on tables the generator
 * built, pushed at every ply and pulled at every ply on two threads, and
 * left to choose on one thread and two:
 *
 *   - retro_solve: every cell and every bit of the `early` bitmaps DTC
 *     starts from as the first solve left them, the same longest DTM;
 *     KPPK is among the tables for its losses written ahead of their ply
 *     (a capture the longest defence): a pulled odd ply must not take one
 *     of code ply+1 for the loss of code ply-1 a flag would tell
 *     (reaches_loss), and 1,890 of KPPK's cells differ where it does;
 *   - dtc_solve: every DTC code, and the same count of results beyond the
 *     limit, with one kind of distance (KRKN at 20) and with two (KRKN at
 *     8, whose captures reach KNK's cursed wins);
 *   - left to choose, both passes pull some plies of these tables and
 *     push others, so both ways meet within one solve.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cell.h"
#include "dtc.h"
#include "retro.h"
#include "tb.h"
#include "testenv.h"
#include "testgen.h"

/* The solves each table gets: each way forced on two threads, and the
 * choice on one thread and two (the generator's own tests compare thread
 * counts of whole runs). */
static const struct {
    pass_direction way;
    int threads;
    const char *name;
} runs[] = {{PASS_PUSH, 2, "push"}, {PASS_PULL, 2, "pull"}, {PASS_CHOOSE, 1, "choose"}, {PASS_CHOOSE, 2, "choose"}};
enum { RUNS = sizeof runs / sizeof *runs };

/* Counts the plies whose sides were pulled (retro_progress.pulled) and
 * those pushed at which something was flagged, so a test can tell that a
 * solve left to choose made both. */
typedef struct {
    int pulled, pushed;
} way_tally;

static void tally_ply(void *arg, const retro_progress *p)
{
    way_tally *w = arg;
    if (p->ply == 0) return;
    w->pulled += __builtin_popcount(p->pulled);
    w->pushed += 2 - __builtin_popcount(p->pulled);
}

/* Solves t again each way and thread count; every cell must be as the
 * generator left it (rules none: the cells are retro_solve's).  Returns
 * the plies the solves left to choose pulled. */
static int check_retro(tb_table *t, const char *name)
{
    uint64_t n = t->ix.size, words = (n + 63) / 64;
    unsigned *want = malloc(2 * n * sizeof *want);
    uint64_t *first[2] = {calloc(words, 8), calloc(words, 8)}, *early[2] = {calloc(words, 8), calloc(words, 8)};
    assert_true(want && first[0] && first[1] && early[0] && early[1]);
    for (int s = 0; s < 2; s++)
        for (uint64_t i = 0; i < n; i++) want[s * n + i] = cell_get(t->cells[s], t->width, i);
    int max_dtm = t->max_dtm, chosen = 0, have_first = 0;
    for (int r = 0; r < RUNS; r++) {
        char err[XQ_ERR_MAX];
        way_tally tally = {0, 0};
        for (int s = 0; s < 2; s++) memset(early[s], 0, words * 8);
        if (retro_solve_directed(t, runs[r].threads, early, runs[r].way, tally_ply, &tally, err))
            fail_msg("%s, %s: %s", name, runs[r].name, err);
        uint64_t differ = 0;
        for (int s = 0; s < 2; s++)
            for (uint64_t i = 0; i < n; i++) differ += cell_get(t->cells[s], t->width, i) != want[s * n + i];
        if (differ)
            fail_msg("%s %s on %d thread(s): %llu cells differ", name, runs[r].name, runs[r].threads,
                     (unsigned long long)differ);
        assert_int_equal(t->max_dtm, max_dtm);
        if (!have_first) {
            for (int s = 0; s < 2; s++) memcpy(first[s], early[s], words * 8);
            have_first = 1;
        } else {
            for (int s = 0; s < 2; s++) assert_memory_equal(first[s], early[s], words * 8);
        }
        if (runs[r].way == PASS_PULL) assert_int_equal(tally.pushed, 0);
        if (runs[r].way == PASS_PUSH) assert_int_equal(tally.pulled, 0);
        if (runs[r].way == PASS_CHOOSE) {
            assert_true(tally.pushed > 0); /* the plies with nothing in front, at least */
            chosen += tally.pulled;
        }
    }
    print_message("%s: retro_solve's cells the same pushed, pulled and chosen (%d sides of plies pulled by choice)\n",
                  name, chosen);
    free(want);
    for (int s = 0; s < 2; s++) {
        free(first[s]);
        free(early[s]);
    }
    return chosen;
}

static void test_retro_either_way(void **state)
{
    (void)state;
    static const char *const names[] = {"KRKN", "KNKP", "KCKA", "KPPK", "KRKNA"};
    int pulled = 0;
    for (int k = 0; k < 5; k++) {
        if (k == 4 && test_skipped_under_san("KRKNA")) continue;
        tb_set *set;
        tb_table *t = testgen_load_rules(names[k], XQ_RULES_NONE, &set);
        pulled += check_retro(t, names[k]);
        tb_set_free(set);
    }
    assert_true(pulled > 0); /* the choice pulled some ply of these tables */
}

/* Computes t's DTC again each way and thread count, as in test_limit's
 * test_dtc_widened_agrees: every code as the table has it from its file. */
static void test_dtc_either_way(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        int limit;
    } cases[] = {{"KRKN", 20}, {"KRKN", 8}, {"KNKP", 20}};
    int pulled = 0;
    for (int m = 0; m < 3; m++) {
        tb_set *set;
        tb_table *t = testgen_load_limit(cases[m].name, XQ_RULES_FULL, cases[m].limit, &set);
        uint64_t beyond;
        uint16_t *want = testgen_dtc_codes(t, &beyond);
        for (int r = 0; r < RUNS; r++) {
            char err[XQ_ERR_MAX];
            dtc_report rep;
            tb_dtc_free(t);
            if (dtc_solve_tuned(t, runs[r].threads, NULL, 1 << 30, runs[r].way, &rep, err))
                fail_msg("%s at %d, %s: %s", cases[m].name, cases[m].limit, runs[r].name, err);
            uint64_t differ = testgen_dtc_differ(t, want);
            if (differ)
                fail_msg("%s at limit %d, %s on %d thread(s): %llu DTC codes differ", cases[m].name, cases[m].limit,
                         runs[r].name, runs[r].threads, (unsigned long long)differ);
            assert_int_equal(rep.beyond, beyond);
            if (runs[r].way == PASS_PUSH) assert_int_equal(rep.pulled, 0);
            if (runs[r].way == PASS_PULL) assert_int_equal(rep.pulled, 2 * rep.passes);
            if (runs[r].way == PASS_CHOOSE) {
                assert_true(rep.pulled < 2 * rep.passes);
                pulled += rep.pulled;
            }
        }
        print_message("%s at limit %d: DTC the same pushed, pulled and chosen\n", cases[m].name, cases[m].limit);
        free(want);
        tb_set_free(set);
    }
    assert_true(pulled > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_retro_either_way),
        cmocka_unit_test(test_dtc_either_way),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
