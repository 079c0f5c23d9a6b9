/*
 * test_set_trim.c - a set trimmed to what one table's generation reads
 * (tb_set_trim, gen/tbset.c), as `xqtb gen` does before each table of a
 * run with a set of its own:
 *
 *   - the set keeps the table and the subtables its captures lead to, and
 *     of each subtable only the side to move a capture reaches, worked out
 *     here from the materials' canonical forms rather than from the links;
 *   - every position of the table still agrees with its successors
 *     (tb_verify reads each capture's value in the trimmed subtables);
 *   - the table generated on a trimmed set is the one generated on a set
 *     kept whole (a run with a shared set that does not say what comes
 *     later), byte for byte, with less memory resident;
 *   - a table built on the way to another keeps of the tables before it
 *     only what it and the tables still to build read: each as a subtable
 *     of one of them, with the sides to move their captures reach;
 *   - in a run over a set, a table keeps what the tables built after it
 *     need, and lets go of the rest;
 *   - the estimates of a run over a set (tb_set_estimates) count what the
 *     run holds when it comes to each table;
 *   - a run that loads its subtables from their files trims the set before
 *     each load as well, so it never holds them all whole at once, and so
 *     do `xqtb stats` and `xqtb verify` of one table (tb_set_get_trimmed);
 *   - `xqtb verify` of several tables keeps, as it loads each, what the
 *     tables still to verify read (tb_set_get_trimmed_for).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "catalog.h"
#include "tb.h"
#include "testgen.h"
#include "tmpdir.h"

enum { LIMIT = 120 };

static const char *gen_dir(void)
{
    static char dir[512];
    snprintf(dir, sizeof dir, "%s/trim", test_tmpdir());
    return dir;
}

/* Generates name (with its subtables) into gen_dir(), in a set of its own
 * (opt.set NULL, so trimmed before the last table) or in `shared`, forced
 * or not; returns the resident bytes the run's memory report gives. */
static uint64_t generate(const char *name, tb_set *shared, int force)
{
    char err[XQ_ERR_MAX];
    xq_material m;
    if (xq_material_parse(name, &m, err)) fail_msg("%s", err);
    tb_gen_memory mem = {0};
    tb_gen_options opt = {.dir = gen_dir(),
                          .threads = 2,
                          .quiet = 1,
                          .rules = XQ_RULES_FULL,
                          .limit = LIMIT,
                          .force = force,
                          .memory = &mem,
                          .set = shared};
    if (tb_generate(&m, &opt, err)) fail_msg("generate %s: %s", name, err);
    return mem.resident;
}

/* Bit s set where a capture from canonical material m of a piece of colour
 * c leaves side s to move in the canonical table of what is left: side c,
 * or the other where the material left is not canonical as it stands. */
static unsigned sides_expected(const xq_material *m, const xq_material *sub)
{
    unsigned sides = 0;
    for (int c = 0; c < 2; c++)
        for (int k = 0; k < KIND_NB; k++) {
            if (!m->count[c][k] || k == KING) continue;
            xq_material left = *m, canon;
            left.count[c][k]--;
            xq_material_canonical(&left, &canon);
            if (!xq_material_equal(&canon, sub)) continue;
            sides |= 1u << (xq_material_equal(&canon, &left) ? c : 1 - c);
        }
    return sides;
}

static void test_trim_keeps_what_captures_read(void **state)
{
    (void)state;
    const char *name = "KNPKA";
    generate(name, NULL, 0);
    char err[XQ_ERR_MAX];
    xq_material m, canon;
    assert_int_equal(xq_material_parse(name, &m, err), 0);
    xq_material_canonical(&m, &canon);
    tb_set *set = tb_set_new(gen_dir());
    tb_table *t = tb_set_get(set, &m, err);
    if (!t) fail_msg("%s", err);
    uint64_t before = tb_set_bytes(set) - tb_table_bytes(t);

    /* every table of the closure, and what trimming must leave of it */
    xq_material sub[XQ_MAX_SUBTABLES];
    int nsub = xq_material_subtables(&canon, sub), kept_sides = 0;
    tb_set_trim(set, &m, NULL, 0);
    assert_ptr_equal(tb_set_find(set, &m), t);
    for (int k = 0; k < nsub; k++) {
        xq_material c;
        xq_material_canonical(&sub[k], &c);
        const tb_table *u = tb_set_find(set, &c);
        assert_non_null(u);
        unsigned want = sides_expected(&canon, &c);
        assert_int_not_equal(want, 0);
        for (int s = 0; s < 2; s++) {
            char sname[XQ_MATERIAL_MAX];
            xq_material_name(&c, sname);
            if ((u->cells[s] != NULL) != (int)(want >> s & 1))
                fail_msg("%s side %d: %s, expected %s", sname, s, u->cells[s] ? "held" : "dropped",
                         want >> s & 1 ? "held" : "dropped");
            /* the side's DTC codes and ruled results go with its cells;
             * of the codes, a side kept holds only whether each result
             * holds (tb_table_slim), a bit an entry */
            int dtc = u->dtc[s] || u->dtc8[s].code || u->beyond[s], ruled = u->ruled[s] || u->ruled8[s].bits;
            assert_int_equal(dtc, u->cells[s] != NULL);
            assert_int_equal(u->beyond[s] != NULL, u->cells[s] != NULL);
            /* and ruled bytes only where it has a ruled result (tb_table_slim) */
            if (u->ruled8[s].bits) assert_true(u->ruled8[s].nruled > 0);
            if (!u->cells[s]) assert_false(ruled);
            kept_sides += u->cells[s] != NULL;
        }
    }
    /* KNPKA's captures reach KNKA with red to move (black takes the pawn),
     * KNPK and KAKP (KPKA turned) with black to move: one side of each */
    assert_int_equal(nsub, 3);
    assert_int_equal(kept_sides, 3);
    /* the tables reached only through the subtables are gone */
    const char *gone[] = {"KNK", "KPK", "KAK", "KK"};
    for (size_t k = 0; k < sizeof gone / sizeof *gone; k++) {
        xq_material g;
        assert_int_equal(xq_material_parse(gone[k], &g, err), 0);
        assert_null(tb_set_find(set, &g));
    }
    uint64_t after = tb_set_bytes(set) - tb_table_bytes(t);
    print_message("%s's subtables: %llu bytes, trimmed %llu\n", name, (unsigned long long)before,
                  (unsigned long long)after);
    assert_true(after < before);
    /* every capture's value is still there to check each position by */
    tb_verify_report r;
    assert_int_equal(tb_verify(t, 2, &r), 0);
    assert_int_equal(r.errors, 0);
    tb_set_free(set);
}

static void test_trimmed_generation_identical(void **state)
{
    (void)state;
    const char *name = "KRKNA";
    uint64_t trimmed = generate(name, NULL, 1);
    char err[XQ_ERR_MAX], cname[XQ_MATERIAL_MAX], path[600], copy[640];
    xq_material m;
    assert_int_equal(xq_material_parse(name, &m, err), 0);
    xq_material_canonical(&m, &m);
    xq_material_name(&m, cname);
    for (int kind = 0; kind < XQF_COMPRESSED_KINDS; kind++) {
        xqf_path(gen_dir(), cname, kind, path, sizeof path);
        snprintf(copy, sizeof copy, "%s.trimmed", path);
        testgen_copy_file(path, copy);
    }
    /* again on a set that stays whole: its subtables loaded from the files */
    tb_set *shared = tb_set_new(gen_dir());
    uint64_t whole = generate(name, shared, 1);
    tb_set_free(shared);
    print_message("%s: %llu bytes of subtables resident, %llu in a set kept whole\n", name, (unsigned long long)trimmed,
                  (unsigned long long)whole);
    assert_true(trimmed < whole);
    for (int kind = 0; kind < XQF_COMPRESSED_KINDS; kind++) {
        xqf_path(gen_dir(), cname, kind, path, sizeof path);
        snprintf(copy, sizeof copy, "%s.trimmed", path);
        testgen_assert_same_file(path, copy);
    }
}

/* Whether the set holds material name's table, with bit s set for each
 * side s it still holds (0 if the table is not there). */
static unsigned sides_held(tb_set *set, const char *name)
{
    char err[XQ_ERR_MAX];
    xq_material m;
    if (xq_material_parse(name, &m, err)) fail_msg("%s", err);
    const tb_table *t = tb_set_find(set, &m);
    return t ? (t->cells[0] != NULL) | (t->cells[1] != NULL) << 1 : 0;
}

/* A table built on the way to another (KNKA, built in a run for KNPKA)
 * keeps, of the tables the set holds, those it or a table still to build
 * (KNPKA, KNPK, KPKA, KPK) captures into, with the sides to move their
 * captures reach, worked out here from the materials' canonical forms. */
static void test_trim_on_the_way_keeps_what_is_still_needed(void **state)
{
    (void)state;
    generate("KNPKA", NULL, 0);
    char err[XQ_ERR_MAX];
    const char *later[] = {"KNPKA", "KNPK", "KPKA", "KPK"};
    enum { NLATER = sizeof later / sizeof *later };
    xq_material m, goal, ahead[NLATER];
    assert_int_equal(xq_material_parse("KNKA", &m, err), 0);
    xq_material_canonical(&m, &m);
    assert_int_equal(xq_material_parse("KNPKA", &goal, err), 0);
    xq_material_canonical(&goal, &goal);
    for (int k = 0; k < NLATER; k++) {
        assert_int_equal(xq_material_parse(later[k], &ahead[k], err), 0);
        xq_material_canonical(&ahead[k], &ahead[k]);
    }
    /* KNKA with what it captures into, as a run for KNPKA holds them when
     * KNKA is built: KNK, KAK and KK, none of the others yet */
    tb_set *set = tb_set_new(gen_dir());
    tb_table *t = tb_set_get(set, &m, err);
    if (!t) fail_msg("%s", err);
    for (int k = 0; k < NLATER; k++) assert_null(tb_set_find(set, &ahead[k]));
    const char *held[] = {"KNK", "KAK", "KK"};
    unsigned want[3];
    for (int i = 0; i < 3; i++) {
        xq_material u;
        assert_int_equal(xq_material_parse(held[i], &u, err), 0);
        xq_material_canonical(&u, &u);
        want[i] = sides_expected(&m, &u);
        for (int k = 0; k < NLATER; k++) want[i] |= sides_expected(&ahead[k], &u);
    }
    /* KK is read only by KPK, still to build: one side to move */
    assert_true(want[2] == 1 || want[2] == 2);
    tb_set_trim(set, &m, &goal, 1);
    assert_ptr_equal(tb_set_find(set, &m), t);
    assert_int_equal(sides_held(set, "KNKA"), 3);
    for (int i = 0; i < 3; i++) {
        if (sides_held(set, held[i]) != want[i])
            fail_msg("%s: sides %u held, %u expected", held[i], sides_held(set, held[i]), want[i]);
    }
    tb_set_free(set);
}

/* In a run over a set (`gen --all`, `--set`), a table lets go only of what
 * it does not read and the tables built after it do not need.  KRKA's
 * captures reach KRK with black to move; KRPK's (black's king taking the
 * pawn) reach it with red to move: built before KRPK, KRKA leaves KRK
 * whole, KAK, which KRPK does not need, with the one side KRKA reads, and
 * KK with the one side KPK, still to build, reads (red to move once black
 * takes the pawn).  KRPK, the last, keeps one side of KRK and KPK. */
static void test_set_run_keeps_what_later_tables_need(void **state)
{
    (void)state;
    char err[XQ_ERR_MAX], dir[512], alone[512];
    snprintf(dir, sizeof dir, "%s/setrun", test_tmpdir());
    snprintf(alone, sizeof alone, "%s/alone", test_tmpdir());
    xq_material krka, krpk;
    assert_int_equal(xq_material_parse("KRKA", &krka, err), 0);
    assert_int_equal(xq_material_parse("KRPK", &krpk, err), 0);
    xq_material_canonical(&krka, &krka);
    xq_material_canonical(&krpk, &krpk);
    tb_set *set = tb_set_new(dir);
    assert_non_null(set);
    tb_gen_options opt = {.dir = dir,
                          .threads = 2,
                          .quiet = 1,
                          .rules = XQ_RULES_FULL,
                          .limit = LIMIT,
                          .set = set,
                          .later = &krpk,
                          .nlater = 1};
    if (tb_generate(&krka, &opt, err)) fail_msg("KRKA: %s", err);
    assert_int_equal(sides_held(set, "KRK"), 3);
    assert_int_equal(sides_held(set, "KK"), 1);
    /* black takes the rook: red to move with a lone king, which is KAK
     * turned, black to move */
    assert_int_equal(sides_held(set, "KAK"), 2);
    opt.nlater = 0;
    if (tb_generate(&krpk, &opt, err)) fail_msg("KRPK: %s", err);
    assert_int_equal(sides_held(set, "KRK"), 1);
    assert_int_equal(sides_held(set, "KPK"), 1);
    assert_int_equal(sides_held(set, "KK"), 0);
    assert_int_equal(sides_held(set, "KAK"), 0);
    tb_set_free(set);
    /* the same files as KRPK built alone */
    opt = (tb_gen_options){.dir = alone, .threads = 2, .quiet = 1, .rules = XQ_RULES_FULL, .limit = LIMIT};
    if (tb_generate(&krpk, &opt, err)) fail_msg("KRPK alone: %s", err);
    char name[XQ_MATERIAL_MAX], a[600], b[600];
    xq_material_name(&krpk, name);
    for (int kind = 0; kind < XQF_COMPRESSED_KINDS; kind++) {
        xqf_path(dir, name, kind, a, sizeof a);
        xqf_path(alone, name, kind, b, sizeof b);
        testgen_assert_same_file(a, b);
    }
}

/* A run that finds its tables' files loads them trimmed as it goes, as
 * it builds them: before each table is loaded the set lets go of what
 * that table and the run's later tables do not read.  Loaded one after
 * another and trimmed only before a table generated, they were all held
 * whole at once (KRAABBKAABB's subtables: 1.67 GB where its generation
 * needs 0.6).  So the most the set holds while KNPKA is loaded from its
 * files is less than its closure loaded whole (tb_set_get), and KNPKA
 * generated again from its subtables' files is the same, byte for byte. */
static tb_gen_options load_options(tb_set *set, const xq_material *goal, int force)
{
    return (tb_gen_options){.dir = gen_dir(),
                            .threads = 2,
                            .quiet = 1,
                            .rules = XQ_RULES_FULL,
                            .limit = LIMIT,
                            .force = force,
                            .set = set,
                            .later = goal,
                            .nlater = 0};
}

static void test_loads_trimmed_on_the_way(void **state)
{
    (void)state;
    char err[XQ_ERR_MAX], name[XQ_MATERIAL_MAX], path[600];
    generate("KNPKA", NULL, 0);
    xq_material goal;
    assert_int_equal(xq_material_parse("KNPKA", &goal, err), 0);
    xq_material_canonical(&goal, &goal);
    xq_material_name(&goal, name);

    tb_set *whole = tb_set_new(gen_dir());
    assert_non_null(whole);
    if (!tb_set_get(whole, &goal, err)) fail_msg("%s", err);
    uint64_t closure = tb_set_bytes(whole);
    tb_set_free(whole);
    tb_set *set = tb_set_new(gen_dir());
    assert_non_null(set);
    tb_gen_options opt = load_options(set, &goal, 0);
    if (tb_generate(&goal, &opt, err)) fail_msg("KNPKA: %s", err);
    uint64_t peak = tb_set_peak_bytes(set);
    tb_set_free(set);
    print_message("    KNPKA loaded: the set held at most %llu bytes; its closure whole %llu\n",
                  (unsigned long long)peak, (unsigned long long)closure);
    assert_true(peak < closure);

    char *before[XQF_COMPRESSED_KINDS];
    long size[XQF_COMPRESSED_KINDS];
    for (int kind = 0; kind < XQF_COMPRESSED_KINDS; kind++) {
        xqf_path(gen_dir(), name, kind, path, sizeof path);
        testgen_read_file(path, &before[kind], &size[kind]);
    }
    set = tb_set_new(gen_dir());
    assert_non_null(set);
    opt = load_options(set, &goal, 1);
    if (tb_generate(&goal, &opt, err)) fail_msg("KNPKA: %s", err);
    tb_set_free(set);
    for (int kind = 0; kind < XQF_COMPRESSED_KINDS; kind++) {
        xqf_path(gen_dir(), name, kind, path, sizeof path);
        char *after;
        long n;
        testgen_read_file(path, &after, &n);
        assert_int_equal(n, size[kind]);
        assert_memory_equal(after, before[kind], (size_t)n);
        free(after);
        free(before[kind]);
    }
}

/* `xqtb stats` and `xqtb verify` of one table load it trimmed on the way
 * (tb_set_get_trimmed): the set ends holding what tb_set_get and a trim
 * for the table leave (the same tables, the same sides, the same bytes),
 * without ever holding the closure whole, and the table's statistics and
 * its check against its successors are those of the whole load. */
static void test_get_trimmed_holds_what_a_trim_leaves(void **state)
{
    (void)state;
    char err[XQ_ERR_MAX];
    generate("KNPKA", NULL, 0);
    xq_material goal;
    assert_int_equal(xq_material_parse("KNPKA", &goal, err), 0);
    xq_material_canonical(&goal, &goal);

    tb_set *whole = tb_set_new(gen_dir()), *set = tb_set_new(gen_dir());
    assert_non_null(whole);
    assert_non_null(set);
    tb_table *w = tb_set_get(whole, &goal, err), *t = tb_set_get_trimmed(set, &goal, err);
    if (!w || !t) fail_msg("%s", err);
    tb_stats a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    tb_compute_stats(w, &a);
    tb_compute_stats(t, &b);
    assert_memory_equal(&a, &b, sizeof a);
    uint64_t closure = tb_set_peak_bytes(whole);
    tb_set_trim(whole, &goal, NULL, 0);
    const char *names[] = {"KNPKA", "KNPK", "KNKA", "KPKA", "KNK", "KPK", "KAK", "KK"};
    for (size_t k = 0; k < sizeof names / sizeof *names; k++)
        if (sides_held(set, names[k]) != sides_held(whole, names[k]))
            fail_msg("%s: sides %u held, %u after a whole load and a trim", names[k], sides_held(set, names[k]),
                     sides_held(whole, names[k]));
    assert_int_equal(tb_set_bytes(set), tb_set_bytes(whole));
    print_message("    KNPKA loaded trimmed: at most %llu bytes held; loaded whole %llu\n",
                  (unsigned long long)tb_set_peak_bytes(set), (unsigned long long)closure);
    assert_true(tb_set_peak_bytes(set) < closure);
    tb_verify_report r;
    assert_int_equal(tb_verify(t, 2, &r), 0);
    assert_int_equal(r.errors, 0);
    tb_set_free(whole);
    tb_set_free(set);
}

/* `xqtb verify KNKA KPKA` loads the two into one set, trimmed before each
 * load for the tables still to verify (tb_set_get_trimmed_for): after
 * KNKA the set keeps KK, which KNKA does not read but KPKA's subtable KPK
 * (not loaded yet) does, and KAK, which both read; KPKA then finds them
 * held instead of loading them again, and checks against its successors.
 * Trimmed for KNKA alone, KK goes. */
static void test_get_trimmed_for_later_goals(void **state)
{
    (void)state;
    char err[XQ_ERR_MAX];
    generate("KNPKA", NULL, 0);
    xq_material goals[2], kk, kak;
    const char *names[] = {"KNKA", "KPKA"};
    for (int k = 0; k < 2; k++) {
        assert_int_equal(xq_material_parse(names[k], &goals[k], err), 0);
        xq_material_canonical(&goals[k], &goals[k]);
    }
    assert_int_equal(xq_material_parse("KK", &kk, err), 0);
    assert_int_equal(xq_material_parse("KAK", &kak, err), 0);

    tb_set *alone = tb_set_new(gen_dir()), *set = tb_set_new(gen_dir());
    assert_non_null(alone);
    assert_non_null(set);
    if (!tb_set_get_trimmed(alone, &goals[0], err)) fail_msg("%s", err);
    assert_null(tb_set_find(alone, &kk));
    if (!tb_set_get_trimmed_for(set, goals, 2, err)) fail_msg("%s", err);
    tb_table *held_kak = tb_set_find(set, &kak);
    assert_non_null(tb_set_find(set, &kk)); /* for KPK, still to load */
    assert_non_null(held_kak);
    assert_null(tb_set_find(set, &goals[1]));
    tb_table *t = tb_set_get_trimmed_for(set, &goals[1], 1, err);
    if (!t) fail_msg("%s", err);
    assert_ptr_equal(tb_set_find(set, &kak), held_kak); /* not loaded again */
    tb_verify_report r;
    assert_int_equal(tb_verify(t, 2, &r), 0);
    assert_int_equal(r.errors, 0);
    tb_set_free(alone);
    tb_set_free(set);
}

/* What `xqtb sets` and `gen --set` estimate (tb_set_estimates) follows
 * the run: for every table a run over a set builds, the memory estimated
 * is at most what the run's own check counts when it comes to the table
 * (so a table refused before the run could not have fit), and short of it
 * only by what the tables' contents decide (a byte a ruled result, DTC
 * codes past a byte).  The run here is the one gen_set makes: one set,
 * the members in the list's order, each told what comes after it. */
static void test_estimates_follow_the_run(void **state)
{
    (void)state;
    char err[XQ_ERR_MAX], dir[512];
    snprintf(dir, sizeof dir, "%s/estimated", test_tmpdir());
    tb_set_spec spec;
    tb_set_list l;
    assert_int_equal(tb_set_spec_parse("one-attacker", &spec, err), 0);
    const char *filters[][2] = {{"--pieces", "3-5"}, {"--with", "R"}, {"--without", "B"}};
    for (size_t k = 0; k < sizeof filters / sizeof *filters; k++)
        assert_int_equal(tb_set_filter_option(&spec.filter, filters[k][0], filters[k][1], err), 1);
    assert_int_equal(tb_set_list_make(&spec, &l, err), 0);
    assert_true(l.n >= 8);
    tb_estimate *est = calloc((size_t)l.n, sizeof *est);
    xq_material *order = calloc((size_t)l.n, sizeof *order);
    assert_non_null(est);
    assert_non_null(order);
    assert_int_equal(tb_set_estimates(&l, NULL, XQ_RULES_FULL, LIMIT, 2, est), 0);
    for (int i = 0; i < l.n; i++) order[i] = l.m[i].mat;
    tb_gen_memory mem;
    tb_gen_options opt = {.dir = dir, .threads = 2, .quiet = 1, .rules = XQ_RULES_FULL, .limit = LIMIT, .memory = &mem};
    opt.set = tb_set_new(dir);
    assert_non_null(opt.set);
    int held_more = 0; /* tables whose run holds more than their own subtables */
    for (int i = 0; i < l.n; i++) {
        opt.later = order + i + 1;
        opt.nlater = l.n - i - 1;
        memset(&mem, 0, sizeof mem);
        if (tb_generate(&order[i], &opt, err)) fail_msg("%s", err);
        char name[XQ_MATERIAL_MAX];
        xq_material_name(&order[i], name);
        assert_true(xq_material_equal(&mem.mat, &order[i])); /* built now */
        if (est[i].memory > mem.planned || mem.planned - est[i].memory > mem.resident / 8 + 4096)
            fail_msg("%s: estimated %llu bytes, the run planned %llu (%llu of tables in memory)", name,
                     (unsigned long long)est[i].memory, (unsigned long long)mem.planned,
                     (unsigned long long)mem.resident);
        /* more than its own subtables: tables held for later members */
        xq_material sub[XQ_MAX_SUBTABLES];
        int side[XQ_MAX_SUBTABLES], n = tb_capture_targets(&order[i], sub, side);
        uint64_t own = 0;
        for (int k = 0; k < n; k++) {
            int first = 1;
            for (int q = 0; q < k; q++) first &= !xq_material_equal(&sub[q], &sub[k]);
            tb_table *t = tb_set_find(opt.set, &sub[k]);
            if (first && t) own += tb_table_bytes(t);
        }
        held_more += tb_set_bytes(opt.set) - tb_table_bytes(tb_set_find(opt.set, &order[i])) > own;
    }
    /* the case the estimate must follow: a run holding what later tables need */
    assert_true(held_more > 0);
    tb_set_free(opt.set);
    free(order);
    free(est);
    tb_set_list_free(&l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_trim_keeps_what_captures_read),
        cmocka_unit_test(test_trimmed_generation_identical),
        cmocka_unit_test(test_trim_on_the_way_keeps_what_is_still_needed),
        cmocka_unit_test(test_set_run_keeps_what_later_tables_need),
        cmocka_unit_test(test_estimates_follow_the_run),
        cmocka_unit_test(test_loads_trimmed_on_the_way),
        cmocka_unit_test(test_get_trimmed_holds_what_a_trim_leaves),
        cmocka_unit_test(test_get_trimmed_for_later_goals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
