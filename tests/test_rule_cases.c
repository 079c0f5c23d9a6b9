/*
 * test_rule_cases.c - the corpus of repetition rule cases
 * (tests/fixtures/rule_cases/, docs/RULES.md "Rule cases"): every case is
 * a game record in the format `xqtb adjudicate` reads, with comment lines
 * that name its source and the verdict expected under each of the five
 * rule sets.  Each case is judged through the library
 * (xqtb_judge_repetition) and through the command line, under every rule
 * set, and must give exactly the verdicts its file states.
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "runxqtb.h"
#include "xqtb.h"

#define CASES_DIR "tests/fixtures/rule_cases"

enum { MAX_CASES = 128, MAX_MOVES = 512, NSETS = 5 };

static const char *const set_names[NSETS] = {"none", "check", "full", "asian", "cxa"};

typedef struct {
    char name[128];
    char source[1024];
    char expect[NSETS][16]; /* "draw", "red_loses", "black_loses" */
    xqtb_position start;
    uint16_t moves[MAX_MOVES];
    int nmoves;
} rule_case;

static rule_case cases[MAX_CASES];
static int ncases;

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Reads "# expect: none=draw check=... cxa=..." into c->expect. */
static void parse_expect(rule_case *c, const char *line)
{
    char copy[512], *save = NULL;
    snprintf(copy, sizeof copy, "%s", line);
    for (char *tok = strtok_r(copy, " \t\r\n", &save); tok; tok = strtok_r(NULL, " \t\r\n", &save)) {
        char *eq = strchr(tok, '=');
        if (!eq) fail_msg("%s: malformed expect token '%s'", c->name, tok);
        *eq = 0;
        int set = -1;
        for (int s = 0; s < NSETS; s++)
            if (!strcmp(tok, set_names[s])) set = s;
        if (set < 0) fail_msg("%s: unknown rule set '%s'", c->name, tok);
        if (strcmp(eq + 1, "draw") && strcmp(eq + 1, "red_loses") && strcmp(eq + 1, "black_loses"))
            fail_msg("%s: unknown verdict '%s'", c->name, eq + 1);
        snprintf(c->expect[set], sizeof c->expect[set], "%s", eq + 1);
    }
}

static void load_case(const char *file, rule_case *c)
{
    char path[512], line[1024];
    snprintf(path, sizeof path, "%s/%s", CASES_DIR, file);
    snprintf(c->name, sizeof c->name, "%s", file);
    FILE *f = fopen(path, "r");
    if (!f) fail_msg("cannot open %s", path);
    int have_fen = 0;
    while (fgets(line, sizeof line, f)) {
        char *p = line;
        while (*p == ' ' || *p == '\t') p++;
        if (*p == '#') {
            if (!strncmp(p, "# expect:", 9)) parse_expect(c, p + 9);
            if (!strncmp(p, "# source:", 9)) snprintf(c->source, sizeof c->source, "%s", p + 9);
            continue;
        }
        if (!have_fen) {
            char err[XQTB_ERR_MAX];
            line[strcspn(line, "\r\n")] = 0;
            if (xqtb_position_from_fen(line, &c->start, err) != XQTB_OK) fail_msg("%s: bad FEN: %s", file, err);
            have_fen = 1;
            continue;
        }
        char *save = NULL;
        for (char *tok = strtok_r(line, " \t\r\n", &save); tok; tok = strtok_r(NULL, " \t\r\n", &save)) {
            if (c->nmoves == MAX_MOVES) fail_msg("%s: too many moves", file);
            uint16_t m = xqtb_move_parse(tok);
            if (!m) fail_msg("%s: bad move '%s'", file, tok);
            c->moves[c->nmoves++] = m;
        }
    }
    fclose(f);
    if (!have_fen) fail_msg("%s: no FEN", file);
    if (!c->source[0]) fail_msg("%s: no '# source:' line", file);
    for (int s = 0; s < NSETS; s++)
        if (!c->expect[s][0]) fail_msg("%s: no expected verdict under rule set %s", file, set_names[s]);
}

static int setup(void **state)
{
    (void)state;
    DIR *d = opendir(CASES_DIR);
    if (!d) {
        fprintf(stderr, "cannot open %s (run from the project root)\n", CASES_DIR);
        return -1;
    }
    static char names[MAX_CASES][128];
    char *order[MAX_CASES];
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        size_t len = strlen(e->d_name);
        if (len < 5 || strcmp(e->d_name + len - 4, ".rec") || n == MAX_CASES) continue;
        snprintf(names[n], sizeof names[n], "%s", e->d_name);
        order[n] = names[n];
        n++;
    }
    closedir(d);
    qsort(order, (size_t)n, sizeof *order, by_name);
    for (int i = 0; i < n; i++) load_case(order[i], &cases[ncases++]);
    return 0;
}

static const char *verdict_name(xqtb_verdict v)
{
    return v == XQTB_RED_LOSES ? "red_loses" : v == XQTB_BLACK_LOSES ? "black_loses" : "draw";
}

/* The corpus is big enough to mean something, and covers every verdict
 * under both arbiters' rule sets. */
static void test_corpus_shape(void **state)
{
    (void)state;
    assert_true(ncases >= 12);
    int differ_full_asian = 0, differ_asian_cxa = 0;
    for (int i = 0; i < ncases; i++) {
        differ_full_asian += strcmp(cases[i].expect[2], cases[i].expect[3]) != 0;
        differ_asian_cxa += strcmp(cases[i].expect[3], cases[i].expect[4]) != 0;
    }
    assert_true(differ_full_asian >= 1);
    assert_true(differ_asian_cxa >= 3);
}

static void test_library_verdicts(void **state)
{
    (void)state;
    for (int i = 0; i < ncases; i++) {
        const rule_case *c = &cases[i];
        for (int s = 0; s < NSETS; s++) {
            xqtb_repetition r;
            assert_int_equal(xqtb_judge_repetition(&c->start, c->moves, c->nmoves, (xqtb_rule_set)s, &r), XQTB_OK);
            if (r.verdict == XQTB_NO_REPETITION) fail_msg("%s: the record does not end in a repetition", c->name);
            if (strcmp(verdict_name(r.verdict), c->expect[s]))
                fail_msg("%s under %s: %s, expected %s", c->name, set_names[s], verdict_name(r.verdict), c->expect[s]);
        }
    }
}

/* The same through `xqtb adjudicate --json`, which reads the case files
 * as they are (comment lines included) and needs no table. */
static void test_command_verdicts(void **state)
{
    (void)state;
    for (int i = 0; i < ncases; i++) {
        const rule_case *c = &cases[i];
        for (int s = 0; s < NSETS; s++) {
            int st = run_xqtb("adjudicate -d /nonexistent --json --rules %s %s/%s", set_names[s], CASES_DIR, c->name);
            if (st != 0) fail_msg("%s under %s: exit %d: %s", c->name, set_names[s], st, xqtb_out);
            char want[64];
            snprintf(want, sizeof want, "\"repetition\":{\"verdict\":\"%s\"", c->expect[s]);
            if (!strstr(xqtb_out, want)) fail_msg("%s under %s: %s", c->name, set_names[s], xqtb_out);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_corpus_shape),
        cmocka_unit_test(test_library_verdicts),
        cmocka_unit_test(test_command_verdicts),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
