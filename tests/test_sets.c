/*
 * test_sets.c - the named table sets: what each holds (gen/catalog.c), the
 * filters and their errors, and building a set as a user does: `gen --set`
 * killed part way and run again, and `plan --set` run by `make -j2`, both
 * ending with the same files, byte for byte.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "catalog.h"
#include "runxqtb.h"
#include "testenv.h"
#include "testgen.h"
#include "tmpdir.h"

static void make_list(const char *name, const char *const *filters, tb_set_list *l)
{
    tb_set_spec s;
    char err[XQ_ERR_MAX];
    assert_int_equal(tb_set_spec_parse(name, &s, err), 0);
    for (int i = 0; filters && filters[i]; i += 2)
        assert_int_equal(tb_set_filter_option(&s.filter, filters[i], filters[i + 1], err), 1);
    assert_int_equal(tb_set_list_make(&s, l, err), 0);
}

static int find(const tb_set_list *l, const xq_material *m)
{
    for (int i = 0; i < l->n; i++)
        if (xq_material_equal(&l->m[i].mat, m)) return i;
    return -1;
}

/* Every subtable of every member is in the list, before the member. */
static void assert_closed_and_ordered(const tb_set_list *l)
{
    for (int i = 0; i < l->n; i++)
        for (int c = 0; c < 2; c++)
            for (int k = ADVISOR; k < KIND_NB; k++) {
                if (!l->m[i].mat.count[c][k]) continue;
                xq_material s = l->m[i].mat;
                s.count[c][k]--;
                xq_material_canonical(&s, &s);
                int j = find(l, &s);
                assert_true(j >= 0);
                assert_true(j < i);
            }
}

static int attackers(const xq_material *m, int c)
{
    return m->count[c][ROOK] + m->count[c][HORSE] + m->count[c][CANNON] + m->count[c][PAWN];
}

static void test_one_attacker(void **state)
{
    (void)state;
    tb_set_list l;
    make_list("one-attacker", NULL, &l);
    /* 4 attackers x 9 defender sets x 9 defender sets; the subtables add
     * the 45 materials of defenders only */
    assert_int_equal(l.targets, 324);
    assert_int_equal(l.n, 369);
    assert_closed_and_ordered(&l);
    int pieces_lo = 99, pieces_hi = 0;
    for (int i = 0; i < l.n; i++) {
        const xq_material *m = &l.m[i].mat;
        int a = attackers(m, RED) + attackers(m, BLACK), p = xq_material_pieces(m);
        assert_int_equal(a, l.m[i].target ? 1 : 0);
        assert_true(l.m[i].entries > 0);
        if (l.m[i].target && p < pieces_lo) pieces_lo = p;
        if (l.m[i].target && p > pieces_hi) pieces_hi = p;
    }
    assert_int_equal(pieces_lo, 3);
    assert_int_equal(pieces_hi, 11);
    tb_set_list_free(&l);
}

static void test_up_to(void **state)
{
    (void)state;
    tb_set_list l;
    make_list("up-to-2", NULL, &l);
    assert_int_equal(l.n, 1); /* KK */
    tb_set_list_free(&l);
    make_list("up-to-5", NULL, &l);
    assert_int_equal(l.n, 226); /* what gen --all 5 has always built */
    assert_int_equal(l.targets, 226);
    assert_closed_and_ordered(&l);
    tb_set_list_free(&l);
}

static void test_filters(void **state)
{
    (void)state;
    tb_set_list l;
    /* full defence against a lone attacker with full defence */
    const char *full[] = {"--attackers", "1/0", "--defenders", "4/4", NULL};
    make_list("one-attacker", full, &l);
    assert_int_equal(l.targets, 4);
    for (int i = 0; i < l.n; i++)
        if (l.m[i].target) assert_int_equal(xq_material_pieces(&l.m[i].mat), 11);
    assert_closed_and_ordered(&l);
    tb_set_list_free(&l);

    const char *rook[] = {"--with", "R", "--pieces", "3-5", "--without", "B", NULL};
    make_list("one-attacker", rook, &l);
    assert_int_equal(l.targets, 6); /* KRK, KRAK, KRKA, KRAAK, KRAKA, KRKAA */
    for (int i = 0; i < l.n; i++) {
        const xq_material *m = &l.m[i].mat;
        if (!l.m[i].target) continue;
        assert_int_equal(m->count[RED][ROOK] + m->count[BLACK][ROOK], 1);
        assert_int_equal(m->count[RED][ELEPHANT] + m->count[BLACK][ELEPHANT], 0);
    }
    tb_set_list_free(&l);

    /* up-to-N with a per-side filter: one side two attackers, the other one */
    const char *two[] = {"--attackers", "2/1", NULL};
    make_list("up-to-5", two, &l);
    for (int i = 0; i < l.n; i++) {
        if (!l.m[i].target) continue;
        const xq_material *m = &l.m[i].mat;
        int r = attackers(m, RED), b = attackers(m, BLACK);
        assert_true((r == 2 && b == 1) || (r == 1 && b == 2));
    }
    assert_true(l.targets > 0);
    tb_set_list_free(&l);
}

static void test_bad_names_and_filters(void **state)
{
    (void)state;
    tb_set_spec s;
    tb_set_list l;
    char err[XQ_ERR_MAX];
    static const char *const bad_names[] = {"bogus", "up-to-", "up-to-9", "up-to-1", "up-to-5x", "", "one-attacker "};
    for (size_t i = 0; i < sizeof bad_names / sizeof *bad_names; i++) {
        err[0] = 0;
        assert_int_equal(tb_set_spec_parse(bad_names[i], &s, err), -1);
        assert_true(err[0] != 0);
    }
    assert_int_equal(tb_set_spec_parse("one-attacker", &s, err), 0);
    static const char *const bad[][2] = {{"--pieces", "1"},  {"--pieces", "5-3"},   {"--pieces", "x"},
                                         {"--pieces", "40"}, {"--attackers", "1/"}, {"--defenders", "9"},
                                         {"--with", "Q"},    {"--with", ""},        {"--with", "RRRRR"},
                                         {"--without", "k"}, {"--attackers", "-1"}, {"--pieces", "3-4-5"}};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        err[0] = 0;
        assert_int_equal(tb_set_filter_option(&s.filter, bad[i][0], bad[i][1], err), -1);
        assert_true(err[0] != 0);
    }
    assert_int_equal(tb_set_filter_option(&s.filter, "--force", "1", err), 0);
    /* possible values that no member of the set has */
    assert_int_equal(tb_set_filter_option(&s.filter, "--attackers", "2", err), 1);
    assert_int_equal(tb_set_list_make(&s, &l, err), -1);
    assert_non_null(strstr(err, "no material"));
}

static void test_cli_errors(void **state)
{
    (void)state;
    assert_int_equal(run_xqtb("sets"), 0);
    assert_non_null(strstr(xqtb_out, "one-attacker"));
    assert_int_equal(run_xqtb("sets --json"), 0);
    assert_non_null(strstr(xqtb_out, "\"set\":\"up-to-5\""));
    assert_int_equal(run_xqtb("sets one-attacker --pieces 3"), 0);
    assert_non_null(strstr(xqtb_out, "KRK"));
    assert_int_equal(run_xqtb("sets bogus"), 2);
    assert_non_null(strstr(xqtb_out, "unknown table set"));
    assert_int_equal(run_xqtb("sets up-to-3 up-to-4"), 2);
    assert_int_equal(run_xqtb("gen -d %s/x --set bogus", test_tmpdir()), 2);
    assert_int_equal(run_xqtb("gen -d %s/x --pieces 3 KRK", test_tmpdir()), 2);
    assert_non_null(strstr(xqtb_out, "--set"));
    assert_int_equal(run_xqtb("gen -d %s/x --set up-to-3 KRK", test_tmpdir()), 2);
    assert_int_equal(run_xqtb("gen -d %s/x --set up-to-3 --all 3", test_tmpdir()), 2);
    assert_int_equal(run_xqtb("gen -d %s/x --set one-attacker --with RR", test_tmpdir()), 2);
    assert_non_null(strstr(xqtb_out, "no material"));
    assert_int_equal(run_xqtb("plan -d %s/x", test_tmpdir()), 2);
    assert_int_equal(run_xqtb("plan --set up-to-3 -d '%s/a b'", test_tmpdir()), 2);
    assert_int_equal(run_xqtb("plan --set up-to-3 -o %s/no/such/dir/plan.mk", test_tmpdir()), 3);
    assert_int_equal(run_xqtb("stats -d %s/empty --set up-to-3", test_tmpdir()), 1); /* nothing built */
    /* a table that cannot fit is refused before anything is built */
    assert_int_equal(run_xqtb("gen -d %s/mem --max-memory 1 --set one-attacker --pieces 3-5", test_tmpdir()), 3);
    assert_non_null(strstr(xqtb_out, "nothing built"));
    /* eight named, the others summed up with the largest need */
    assert_non_null(strstr(xqtb_out, "KRK needs at least"));
    assert_non_null(strstr(xqtb_out, "in all cannot fit in the 1.0 MiB --max-memory allows, the largest"));
    assert_int_not_equal(run_xqtb("check -d %s/mem", test_tmpdir()), 0);
}

/* The set the building tests use: small, with a dozen or so tables (24;
 * under the sanitizers, whose build is several times slower, the 10
 * without elephants: small_set()). */
#define SMALL_SET "--set one-attacker --pieces 3-5 --with R"
#define SMALL_SET_SAN SMALL_SET " --without B"

static const char *small_set(void) { return test_sanitized() ? SMALL_SET_SAN : SMALL_SET; }
/* Its tables up to 4 pieces, KRKA among them. */
#define TINY_SET "--set one-attacker --pieces 3-4 --with R"

static int count_files(const char *dir, const char *pattern)
{
    char cmd[1024], buf[32] = "";
    snprintf(cmd, sizeof cmd, "ls %s 2>/dev/null | grep -c -e '%s'", dir, pattern);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    if (!fgets(buf, sizeof buf, p)) buf[0] = 0;
    pclose(p);
    return atoi(buf);
}

/* Starts `xqtb gen ... small_set()` into dir, kills it once `files` WDL
 * files are there, and returns whether it was still running then. */
static int start_and_kill(const char *dir, int files)
{
    const char *bin = getenv("XQTB");
    if (!bin) bin = "build/xqtb";
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        char cmd[2048];
        snprintf(cmd, sizeof cmd, "exec %s gen -q -t 1 -d %s %s 2>/dev/null", bin, dir, small_set());
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    int status, running = 1;
    struct timespec pause = {0, 2000000};
    for (;;) {
        if (waitpid(pid, &status, WNOHANG) == pid) {
            running = 0;
            break;
        }
        if (count_files(dir, "\\.xqw$") >= files) break;
        nanosleep(&pause, NULL);
    }
    if (running) {
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
    }
    return running;
}

/* Killed at any point, `gen --set` run again finishes the set with the
 * files an uninterrupted run writes, and no leftovers. */
static void test_gen_set_resumes(void **state)
{
    (void)state;
    char ref[512], dir[512];
    snprintf(ref, sizeof ref, "%s/set-ref", test_tmpdir());
    snprintf(dir, sizeof dir, "%s/set-killed", test_tmpdir());
    assert_int_equal(run_xqtb("gen -q -d %s %s", ref, small_set()), 0);
    int tables = count_files(ref, "\\.xqw$");
    assert_true(tables >= 10);
    /* killed at three points of the same run, each time started again */
    int killed = 0;
    for (int k = 1; k <= 3; k++) killed += start_and_kill(dir, k * tables / 4);
    assert_true(killed > 0); /* at least one kill came before the end */
    assert_int_equal(run_xqtb("gen -d %s %s", dir, small_set()), 0);
    assert_non_null(strstr(xqtb_out, "done"));
    assert_int_equal(count_files(dir, "\\.tmp\\."), 0);
    assert_true(dirs_identical(ref, dir));
    /* a finished set: nothing left to build */
    assert_int_equal(run_xqtb("gen -d %s %s", dir, small_set()), 0);
    assert_non_null(strstr(xqtb_out, "0 to build"));
}

/* In a run over a set, each table keeps of the set only what it and the
 * materials still to build capture into, with the sides their captures
 * reach (tb_set_trim).  A table freed otherwise between materials would
 * be loaded again for a later one, and linked to its own subtables, which
 * may have lost that side: c75a603, which trimmed so while tb_set_retain
 * still freed tables between materials, stopped this run at KCBBK (KCK
 * had lost the side KCBK reads).  The set's files are those of the
 * tables built one by one. */
static void test_set_run_loads_again(void **state)
{
    (void)state;
    char dir[512], alone[512];
    snprintf(dir, sizeof dir, "%s/set-again", test_tmpdir());
    snprintf(alone, sizeof alone, "%s/set-again-alone", test_tmpdir());
    assert_int_equal(run_xqtb("gen -q -d %s --set one-attacker --pieces 2-5 --with CB", dir), 0);
    assert_int_equal(count_files(dir, "\\.xqw$"), 19);
    assert_int_equal(run_xqtb("gen -q -d %s KCBBK KCBKB", alone), 0);
    const char *files[] = {"KCBBK.xqw", "KCBBK.xqd", "KCBBK.xqc", "KCBKB.xqw", "KCBKB.xqd", "KCBKB.xqc"};
    for (size_t k = 0; k < sizeof files / sizeof *files; k++) {
        char a[600], b[600];
        snprintf(a, sizeof a, "%s/%s", dir, files[k]);
        snprintf(b, sizeof b, "%s/%s", alone, files[k]);
        testgen_assert_same_file(a, b);
    }
}

/* A set built with --store-both is "to convert" for the default options
 * (sets, gen --set), and gen --set converts it into the files a default
 * run writes, without solving a table again. */
static void test_set_converts(void **state)
{
    (void)state;
    char ref[512], dir[512];
    snprintf(ref, sizeof ref, "%s/set-convert-ref", test_tmpdir());
    snprintf(dir, sizeof dir, "%s/set-convert", test_tmpdir());
    assert_int_equal(run_xqtb("gen -q -d %s " TINY_SET, ref), 0);
    assert_int_equal(run_xqtb("gen -q --store-both -d %s " TINY_SET, dir), 0);
    assert_int_equal(run_xqtb("sets -d %s one-attacker --pieces 3-4 --with R", dir), 0);
    assert_non_null(strstr(xqtb_out, "KRKA         named         4"));
    assert_non_null(strstr(xqtb_out, "to convert\n"));
    assert_non_null(strstr(xqtb_out, "0 done in"));
    assert_non_null(strstr(xqtb_out, ", 8 to convert"));
    assert_int_equal(run_xqtb("sets --json -d %s one-attacker --pieces 3-4 --with R", dir), 0);
    assert_non_null(strstr(xqtb_out, "\"convert\":true"));
    assert_non_null(strstr(xqtb_out, "\"to_convert\":8"));
    assert_int_equal(run_xqtb("gen -d %s " TINY_SET, dir), 0);
    assert_non_null(strstr(xqtb_out, "8 to build (8 of them to convert)"));
    assert_non_null(strstr(xqtb_out, "KRKA         converted in"));
    assert_null(strstr(xqtb_out, "built in"));
    assert_true(dirs_identical(ref, dir));
    assert_int_equal(run_xqtb("sets -d %s one-attacker --pieces 3-4 --with R", dir), 0);
    assert_non_null(strstr(xqtb_out, "8 done in"));
    assert_null(strstr(xqtb_out, "to convert"));
}

/* make without the calling make's flags: run from `make test`, their
 * jobserver's descriptors are not inherited, and the child would warn and
 * fall back to one job. */
#define OWN_MAKE "env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make"

/* plan --set written to a file and run by make -j2 builds the same files. */
static void test_plan_with_make(void **state)
{
    (void)state;
    char ref[512], dir[512], mk[512], cmd[2048];
    snprintf(ref, sizeof ref, "%s/set-ref", test_tmpdir());
    snprintf(dir, sizeof dir, "%s/set-plan", test_tmpdir());
    snprintf(mk, sizeof mk, "%s/plan.mk", test_tmpdir());
    if (count_files(ref, "\\.xqw$") == 0) assert_int_equal(run_xqtb("gen -q -d %s %s", ref, small_set()), 0);
    assert_int_equal(run_xqtb("plan -d %s -o %s %s", dir, mk, small_set()), 0);
    snprintf(cmd, sizeof cmd, OWN_MAKE " -s -j2 -f %s >/dev/null 2>&1", mk);
    assert_int_equal(system(cmd), 0);
    assert_true(dirs_identical(ref, dir));
    /* built: make finds nothing to do */
    snprintf(cmd, sizeof cmd, OWN_MAKE " -q -f %s", mk);
    assert_int_equal(system(cmd), 0);
    assert_int_equal(run_xqtb("stats --json -d %s %s", dir, small_set()), 0);
    assert_non_null(strstr(xqtb_out, "\"material\":\"KRKAA\""));
    assert_non_null(strstr(xqtb_out, "\"missing\":[]"));
    /* the count has a key of its own (it was a second "tables") */
    assert_non_null(strstr(xqtb_out, "\"count\":"));
    assert_ptr_equal(strstr(strstr(xqtb_out, "\"tables\":[") + 1, "\"tables\""), NULL);
    assert_int_equal(run_xqtb("verify -q -d %s %s", dir, small_set()), 0);
    /* no raw files: the compressed files are the tables */
    assert_int_equal(count_files(dir, "\\.xqtb$"), 0);
    /* a table gone: stats and verify say so, with exit status 1; the
     * tables that capture into it cannot be rebuilt either */
    char path[600];
    snprintf(path, sizeof path, "%s/KRKA.xqd", dir);
    assert_int_equal(unlink(path), 0);
    assert_int_equal(run_xqtb("verify -q -d %s " TINY_SET, dir), 1);
    assert_non_null(strstr(xqtb_out, "KRKA.xqd"));
    assert_int_equal(run_xqtb("stats --json -d %s %s", dir, small_set()), 1);
    assert_non_null(strstr(xqtb_out, "\"missing\":[\"KRKA\""));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_attacker),
        cmocka_unit_test(test_up_to),
        cmocka_unit_test(test_filters),
        cmocka_unit_test(test_bad_names_and_filters),
        cmocka_unit_test(test_cli_errors),
        cmocka_unit_test(test_gen_set_resumes),
        cmocka_unit_test(test_plan_with_make),
        cmocka_unit_test(test_set_converts),
        cmocka_unit_test(test_set_run_loads_again),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
