/*
 * test_adjudicate.c - `xqtb adjudicate` on constructed game records, as an
 * arbiter would use it: claims of a draw by the move limit, the winner's
 * mistakes and wasted plies, and records that must be refused.
 *
 * The tables are KRKN (and its subtables) built by the CLI with a move
 * limit of 20 plies into the test's temporary directory.  The records all
 * start from one position of the longest KRKN win, at different counters:
 *
 *   P = 5k3/9/9/9/9/R8/9/5n3/3K5/9 w   red wins, DTC 13 plies
 *     d1d0  the best move (DTC 13: conversion one ply nearer)
 *     d1d2  still wins without a limit, but only in DTC 17
 *
 * so that at counter 7 (= 20 - 13) red's win holds exactly, and d1d2 turns
 * it into a cursed win; at counter 0 d1d2 keeps the win and wastes 4 plies
 * of the limit.  Rather than trusting these numbers, each test first checks
 * what it relies on with `xqtb probe --json --counter N` on the same
 * tables, so a change in the tables shows up as a failed precondition with
 * the probe's output, not as a puzzling adjudication.
 *
 * Every judgement is asserted on the --json output; one test reads the
 * human-readable form, and one feeds the record on standard input.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <cmocka.h>

#include "tmpdir.h"

enum { LIMIT = 20 };

static const char P[] = "5k3/9/9/9/9/R8/9/5n3/3K5/9 w - -"; /* FEN without counter and move number */

static char out[1 << 16];

static const char *xqtb_bin(void)
{
    const char *bin = getenv("XQTB");
    return bin ? bin : "build/xqtb";
}

/* Runs `xqtb ARGS` with stdout and stderr captured in out; returns the exit
 * status (-1 if it did not exit normally, e.g. a crash). */
static int xqtb(const char *fmt, ...)
{
    char args[4096], cmd[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    snprintf(cmd, sizeof cmd, "%s %s 2>&1", xqtb_bin(), args);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t n = fread(out, 1, sizeof out - 1, p);
    out[n] = 0;
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The directory with KRKN built under the limit, generated on first use. */
static const char *tables(void)
{
    static char dir[512];
    if (!dir[0]) {
        snprintf(dir, sizeof dir, "%s/limit-%d", test_tmpdir(), LIMIT);
        if (xqtb("gen -q --limit %d -d %s KRKN", LIMIT, dir) != 0) fail_msg("gen failed: %s", out);
    }
    return dir;
}

/* Writes a record to a file of the temporary directory; returns its path. */
static const char *record_file(const char *text)
{
    static char path[600];
    static int serial;
    snprintf(path, sizeof path, "%s/record-%d.txt", test_tmpdir(), ++serial);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return path;
}

/* The same for a record that may hold NUL bytes: len bytes of text. */
static const char *record_file_n(const char *text, size_t len)
{
    static char path[600];
    static int serial;
    snprintf(path, sizeof path, "%s/record-bin-%d.txt", test_tmpdir(), ++serial);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, len, f), len);
    fclose(f);
    return path;
}

/* Adjudicates a record (--json); returns the exit status, output in out. */
static int adjudicate(const char *text) { return xqtb("adjudicate -d %s --json %s", tables(), record_file(text)); }

static void assert_has(const char *needle)
{
    if (!strstr(out, needle)) fail_msg("expected '%s' in:\n%s", needle, out);
}

/* The JSON object of ply k in adjudicate's output (up to the next ply), in
 * buf, so that assertions cannot match another ply's fields. */
static const char *ply_object(int k, char *buf, size_t len)
{
    char key[32];
    snprintf(key, sizeof key, "{\"ply\":%d,", k);
    const char *s = strstr(out, key);
    if (!s) {
        fail_msg("no ply %d in:\n%s", k, out);
        return ""; /* not reached; tells the compiler s is set below */
    }
    /* up to the next ply, or to the end of the list for the last one */
    const char *e = strstr(s + 1, "{\"ply\":");
    if (!e) e = strstr(s, "],\"claim\"");
    size_t n = e ? (size_t)(e - s) : strlen(s);
    if (n > len - 1) n = len - 1;
    memcpy(buf, s, n);
    buf[n] = 0;
    return buf;
}

static void assert_ply_has(int k, const char *needle)
{
    char buf[1024];
    if (!strstr(ply_object(k, buf, sizeof buf), needle)) fail_msg("expected '%s' in ply %d: %s", needle, k, buf);
}

static void assert_ply_lacks(int k, const char *needle)
{
    char buf[1024];
    if (strstr(ply_object(k, buf, sizeof buf), needle)) fail_msg("did not expect '%s' in ply %d: %s", needle, k, buf);
}

/* ---- preconditions, from probe ---- */

/* Probes P at counter c; out holds the JSON. */
static void probe_p(int c)
{
    char fen[128];
    snprintf(fen, sizeof fen, "%s %d 1", P, c);
    if (xqtb("probe -d %s --json --counter %d '%s'", tables(), c, fen) != 0) fail_msg("probe failed: %s", out);
}

/* The JSON object of move mv in probe's "moves" list, in buf. */
static const char *probe_move(const char *mv, char *buf, size_t len)
{
    char key[32];
    snprintf(key, sizeof key, "{\"move\":\"%s\"", mv);
    const char *s = strstr(out, key);
    const char *e = s ? strchr(s, '}') : NULL;
    if (!e) {
        fail_msg("no move %s in:\n%s", mv, out);
        return ""; /* not reached */
    }
    size_t n = (size_t)(e - s + 1) < len - 1 ? (size_t)(e - s + 1) : len - 1;
    memcpy(buf, s, n);
    buf[n] = 0;
    return buf;
}

static int json_int(const char *obj, const char *key)
{
    char k[64];
    snprintf(k, sizeof k, "\"%s\":", key);
    const char *s = strstr(obj, k);
    if (!s) {
        fail_msg("no %s in %s", key, obj);
        return -1; /* not reached */
    }
    return atoi(s + strlen(k));
}

/* What the records rely on: P is a win with DTC 13 whose best move is
 * d1d0, and d1d2 wins in DTC 17 (one more than the position after it). */
static void check_fixture(void)
{
    char buf[256];
    probe_p(0);
    assert_has("\"limit\":20");
    assert_has("\"wdl\":\"win\",\"dtm\":15,\"dtc\":13");
    const char *best = probe_move("d1d0", buf, sizeof buf);
    if (!strstr(best, "\"wdl\":\"win\"") || json_int(best, "dtc") != 13) fail_msg("d1d0 is not best: %s", best);
    const char *slow = probe_move("d1d2", buf, sizeof buf);
    if (!strstr(slow, "\"wdl\":\"win\"") || json_int(slow, "dtc") != 17) fail_msg("d1d2 changed: %s", slow);
}

/* ---- the tests ---- */

static void test_fixture_holds(void **state)
{
    (void)state;
    check_fixture();
    /* At counter 7 the win holds exactly (13 plies left); d1d2 curses it. */
    char buf[256];
    probe_p(LIMIT - 13);
    assert_has("\"counter\":7,\"wdl\":\"win\"");
    if (!strstr(probe_move("d1d2", buf, sizeof buf), "\"wdl\":\"cursed_win\"")) fail_msg("d1d2 at 7: %s", buf);
    if (!strstr(probe_move("d1d0", buf, sizeof buf), "\"wdl\":\"win\"")) fail_msg("d1d0 at 7: %s", buf);
    /* One ply later the same win is cursed. */
    probe_p(LIMIT - 13 + 1);
    assert_has("\"wdl\":\"cursed_win\"");
}

/* The claimant's counter has reached the limit: the claim is right, though
 * the claimant is (without the limit) lost. */
static void test_correct_claim(void **state)
{
    (void)state;
    char rec[256];
    snprintf(rec, sizeof rec, "%s %d 1\n1. d1d0 claim\n", P, LIMIT - 1);
    assert_int_equal(adjudicate(rec), 0);
    assert_ply_has(1, "\"to_move\":\"black\",\"counter\":20");
    assert_has("\"claim\":{\"ply\":1,\"by\":\"black\",\"counter\":20,\"valid\":true,"
               "\"reason\":\"the counter has reached the limit\"}");
    assert_has("\"mistakes\":{\"red\":0,\"black\":0}");
}

/* A claim by the winner before the limit: premature, nothing more to say. */
static void test_premature_claim(void **state)
{
    (void)state;
    char rec[256];
    snprintf(rec, sizeof rec, "%s 3 1\nclaim\n", P);
    assert_int_equal(adjudicate(rec), 0);
    assert_ply_has(0, "\"counter\":3,\"wdl\":\"win\"");
    assert_has("\"claim\":{\"ply\":0,\"by\":\"red\",\"counter\":3,\"valid\":false,"
               "\"reason\":\"premature: the counter has not reached the limit\"}");
}

/* Black claims at counter 5 while red can still convert (DTC 12 of the
 * 15 plies left): wrong, and the reason says the win is still convertible. */
static void test_claim_while_win_convertible(void **state)
{
    (void)state;
    char rec[256];
    snprintf(rec, sizeof rec, "%s 4 1\n1. d1d0 claim\n", P);
    assert_int_equal(adjudicate(rec), 0);
    assert_ply_has(1, "\"counter\":5,\"wdl\":\"loss\",\"dtm\":14,\"dtc\":12");
    assert_has("\"claim\":{\"ply\":1,\"by\":\"black\",\"counter\":5,\"valid\":false,"
               "\"reason\":\"premature, and the claimant's opponent can still convert the win in the plies left\"}");
}

/* The same claim at counter 10 (DTC 12 > 10 plies left): still premature,
 * but the loss is blessed, and the reason says so. */
static void test_premature_claim_blessed(void **state)
{
    (void)state;
    char rec[256];
    snprintf(rec, sizeof rec, "%s 9 1\n1. d1d0 claim\n", P);
    assert_int_equal(adjudicate(rec), 0);
    assert_ply_has(1, "\"counter\":10,\"wdl\":\"blessed_loss\"");
    assert_has("\"valid\":false,\"reason\":\"premature, though the opponent's win can no longer be converted in "
               "the plies left\"");
}

/* At counter 7 red's win holds with no ply to spare; d1d2 (DTC 17) makes it
 * cursed: a mistake by red, black's result improves to a blessed loss. */
static void test_win_becomes_cursed(void **state)
{
    (void)state;
    char rec[256];
    snprintf(rec, sizeof rec, "%s 7 1\n1. d1d2\n", P);
    assert_int_equal(adjudicate(rec), 0);
    assert_ply_has(0, "\"wdl\":\"win\",\"dtm\":15,\"dtc\":13");
    assert_ply_has(0, "\"move\":\"d1d2\",\"mistake\":\"win became cursed_win\"");
    assert_ply_has(1, "\"counter\":8,\"wdl\":\"blessed_loss\"");
    assert_has("\"mistakes\":{\"red\":1,\"black\":0}");
    /* a mistake is reported as such, not as wasted plies */
    assert_has("\"wasted\":{\"red\":0,\"black\":0}");
}

/* At counter 0, d1d2 keeps the win (16 plies to go, 19 left) but wastes
 * 17 - 13 = 4 plies of the limit; the best move d1d0 wastes none. */
static void test_wasted_plies(void **state)
{
    (void)state;
    char rec[256];
    snprintf(rec, sizeof rec, "%s 0 1\n1. d1d2\n", P);
    assert_int_equal(adjudicate(rec), 0);
    assert_ply_has(0, "\"move\":\"d1d2\",\"wasted\":4");
    assert_ply_lacks(0, "mistake");
    assert_ply_has(1, "\"counter\":1,\"wdl\":\"loss\",\"dtm\":18,\"dtc\":16");
    assert_has("\"mistakes\":{\"red\":0,\"black\":0},\"wasted\":{\"red\":4,\"black\":0}");

    snprintf(rec, sizeof rec, "%s 0 1\n1. d1d0\n", P);
    assert_int_equal(adjudicate(rec), 0);
    assert_ply_lacks(0, "wasted");
    assert_has("\"wasted\":{\"red\":0,\"black\":0}");
}

/* A set exported without DTM files (export --no-dtm) judges every record
 * as the whole set does, claims, mistakes and wasted plies alike, with no
 * DTM ("dtm":null); before 0.15.0 it covered nothing. */
static void test_set_without_dtm(void **state)
{
    (void)state;
    char lean[600], rec[256], want[sizeof out];
    snprintf(lean, sizeof lean, "%s/limit-%d-no-dtm", test_tmpdir(), LIMIT);
    if (xqtb("export -q -d %s -o %s --no-dtm KRKN", tables(), lean) != 0) fail_msg("export failed: %s", out);
    const char *moves[] = {"7 1\n1. d1d2\n", "0 1\n1. d1d2\n", "9 1\n1. d1d0 claim\n", "4 1\n1. d1d0 claim\n"};
    for (size_t i = 0; i < sizeof moves / sizeof *moves; i++) {
        snprintf(rec, sizeof rec, "%s %s", P, moves[i]);
        assert_int_equal(adjudicate(rec), 0);
        /* the whole set's report, its DTMs read as unknown */
        size_t n = 0;
        for (const char *s = out; *s && n + 8 < sizeof want;) {
            if (!strncmp(s, "\"dtm\":", 6) && s[6] >= '0' && s[6] <= '9') {
                n += (size_t)snprintf(want + n, sizeof want - n, "\"dtm\":null");
                for (s += 6; *s >= '0' && *s <= '9'; s++) continue;
            } else {
                want[n++] = *s++;
            }
        }
        want[n] = 0;
        assert_true(strstr(want, "\"dtm\":null,\"dtc\":") != NULL);
        assert_int_equal(xqtb("adjudicate -d %s --json %s", lean, record_file(rec)), 0);
        if (strcmp(out, want)) fail_msg("without DTM files:\n%s\nwith them:\n%s", out, want);
    }
}

/* The counter runs on with quiet moves and resets on a capture: black
 * lets the rook take the horse (into KRK, also covered). */
static void test_counter_follows_moves(void **state)
{
    (void)state;
    char rec[256];
    snprintf(rec, sizeof rec, "%s 2 1\n1. d1d0 f2e4 2. a4e4 f9f8\n", P);
    assert_int_equal(adjudicate(rec), 0);
    const int counter[5] = {2, 3, 4, 0, 1};
    for (int k = 0; k <= 4; k++) {
        char want[32];
        snprintf(want, sizeof want, "\"counter\":%d,", counter[k]);
        assert_ply_has(k, want);
    }
    assert_ply_has(3, "\"fen\":\"5k3/9/9/9/9/4R4/9/9/9/3K5 b - - 0 2\"");
    assert_ply_has(3, "\"wdl\":\"loss\"");
    assert_has("\"claim\":null");
}

/* An illegal move: exit 2, the message names the move number and side. */
static void test_illegal_move(void **state)
{
    (void)state;
    char rec[256];
    snprintf(rec, sizeof rec, "%s 3 1\n1. d1d0 f9e9\n2. d0d2\n", P);
    assert_int_equal(adjudicate(rec), 2);
    assert_has("move 2 (red)");
    assert_has("d0d2 is not legal");
    /* the legal prefix is not judged: nothing on stdout but the message */
    assert_null(strstr(out, "\"plies\""));
}

static void test_malformed_records(void **state)
{
    (void)state;
    /* a FEN with 3 ranks */
    assert_int_equal(adjudicate("5k3/9/9 w - - 0 1\n1. d1d0\n"), 2);
    assert_has("bad FEN on the first line");
    /* a garbage token where black's first move should be */
    char rec[256];
    snprintf(rec, sizeof rec, "%s 3 1\n1. d1d0 xyzzy\n", P);
    assert_int_equal(adjudicate(rec), 2);
    assert_has("move 1 (black)");
    assert_has("'xyzzy' is not an ICCS move");
    /* an empty record */
    assert_int_equal(adjudicate(""), 2);
    assert_has("the record is empty");
    /* moves after the claim */
    snprintf(rec, sizeof rec, "%s 3 1\nclaim d1d0\n", P);
    assert_int_equal(adjudicate(rec), 2);
    assert_has("moves after the claim");
}

/* No position of the record has a table (KRKR was not generated): the
 * note names the table, as probe's message does, and the record is judged
 * for its repetition alone (none here); a claim, which needs the move
 * limit, cannot be judged: exit 1. */
static void test_nothing_covered(void **state)
{
    (void)state;
    tables();
    assert_int_equal(adjudicate("3k5/9/9/9/9/R8/9/9/r8/4K4 w - - 0 1\n"), 0);
    assert_has("no position of the record is covered");
    assert_has("no table KRKR in ");
    assert_has("{\"limit\":null,\"rules\":null,\"plies\":[{\"ply\":0,");
    assert_has("\"repetition\":null}");
    assert_int_equal(adjudicate("3k5/9/9/9/9/R8/9/9/r8/4K4 w - - 0 1\na4a5 claim\n"), 1);
    assert_has("no table KRKR in ");
    assert_has("so the claim cannot be judged");
}

/* Repetitions, judged with no table needed.  Red's rook checks from e0 and
 * f0 while black's king steps between f7 and e7: red loses by perpetual
 * check, under the tables' rule set (full: `gen`'s default) or one asked
 * for; under none it is a draw. */
static void test_repetition_verdicts(void **state)
{
    (void)state;
    const char *check = "9/9/5k3/9/9/9/9/9/9/3KR4 w - - 0 1\ne0f0 f7e7 f0e0 e7f7 e0f0 f7e7 f0e0 e7f7\n";
    assert_int_equal(adjudicate(check), 0);
    assert_has("\"repetition\":{\"verdict\":\"red_loses\",\"rule\":\"perpetual_check\",");
    assert_has(
        "\"rules\":\"full\",\"first_ply\":0,\"occurrences\":3,\"labels\":[{\"ply\":0,\"by\":\"red\","
        "\"move\":\"e0f0\",\"label\":\"check\"},{\"ply\":1,\"by\":\"black\",\"move\":\"f7e7\",\"label\":\"idle\"}");
    assert_ply_has(2, "\"label\":\"check\"");
    assert_int_equal(xqtb("adjudicate -d %s --json --rules none %s", tables(), record_file(check)), 0);
    assert_has("\"verdict\":\"draw\",\"rule\":\"rules_none\"");
    /* the text form, with no table at all (a directory without tables) */
    assert_int_equal(xqtb("adjudicate -d %s/no-tables-here %s", test_tmpdir(), record_file(check)), 0);
    assert_has("e0f0  [check]");
    assert_has("verdict: red loses (clause 1:");
    /* a chase: red's rook after black's lone horse; a loss under full, a
     * draw where chases count as idle */
    const char *chase = "9/9/4k4/9/9/9/9/9/3n5/R2K5 w - - 0 1\na0a1 d1b0 a1a0 b0d1\n";
    assert_int_equal(xqtb("adjudicate -d %s --json --rules full %s", tables(), record_file(chase)), 0);
    assert_has("\"verdict\":\"red_loses\",\"rule\":\"perpetual_chase\"");
    assert_has("\"move\":\"a0a1\",\"label\":\"chase d1\"");
    assert_int_equal(xqtb("adjudicate -d %s --json --rules check %s", tables(), record_file(chase)), 0);
    assert_has("\"verdict\":\"draw\",\"rule\":\"no_perpetual\"");
    /* a middlegame of 32 pieces: the horses go out and back, a draw */
    const char *opening =
        "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1\n1. h0g2 h9g7 2. g2h0 g7h9\n";
    assert_int_equal(adjudicate(opening), 0);
    assert_has("\"verdict\":\"draw\",\"rule\":\"no_perpetual\",");
    assert_has("\"first_ply\":0,\"occurrences\":2,");
    /* bad rule set */
    assert_int_equal(xqtb("adjudicate -d %s --rules wxf %s", tables(), record_file(check)), 2);
    assert_has("unknown rule set 'wxf' (none, check, full, asian or cxa)");
    /* the arbiters' rule sets judge with the tables too (the corpus of
     * tests/fixtures/rule_cases covers their verdicts) */
    assert_int_equal(xqtb("adjudicate -d %s --json --rules cxa %s", tables(), record_file(chase)), 0);
    assert_has("\"verdict\":\"red_loses\",\"rule\":\"perpetual_chase\"");
    assert_has("\"rules\":\"cxa\"");
    assert_int_equal(xqtb("adjudicate -d %s --rules", tables()), 2);
}

/* White space around the FEN (a leading space or tab, trailing blanks, the
 * \r of a CRLF file) changes nothing: the counter is still FEN field 5.  It
 * used to be read one field early, so that " P 7 1" was judged at counter 0
 * and the same claim came out differently. */
static void test_whitespace_around_fen(void **state)
{
    (void)state;
    char rec[256], want[sizeof out];
    snprintf(rec, sizeof rec, "%s 7 1\n1. d1d2 claim\n", P);
    assert_int_equal(adjudicate(rec), 0);
    assert_ply_has(0, "\"counter\":7,");
    memcpy(want, out, sizeof want);
    static const char *const pad[][2] = {{" ", ""}, {"\t", ""}, {"  \t ", " \t "}, {"", "\r"}, {" ", "  \r"}};
    for (size_t i = 0; i < sizeof pad / sizeof *pad; i++) {
        snprintf(rec, sizeof rec, "%s%s 7 1%s\n1. d1d2 claim\n", pad[i][0], P, pad[i][1]);
        assert_int_equal(adjudicate(rec), 0);
        if (strcmp(out, want)) fail_msg("padding %zu changed the judgement:\n%s\ninstead of\n%s", i, out, want);
    }
}

/* A NUL byte is refused with its line (exit 2): it used to end the record
 * silently, so that the claim after it was never seen. */
static void test_nul_byte_refused(void **state)
{
    (void)state;
    char rec[256];
    int n = snprintf(rec, sizeof rec, "%s 7 1\n1. d1d2", P);
    memcpy(rec + n, "\0 claim\n", 9);
    assert_int_equal(xqtb("adjudicate -d %s --json %s", tables(), record_file_n(rec, (size_t)n + 9)), 2);
    assert_has("line 2 of ");
    assert_has("NUL byte");
    assert_null(strstr(out, "\"plies\""));
    /* in the FEN line, and on standard input */
    n = snprintf(rec, sizeof rec, "%s 7 1", P);
    memcpy(rec + n, "\0\n", 2);
    assert_int_equal(xqtb("adjudicate -d %s < %s", tables(), record_file_n(rec, (size_t)n + 2)), 2);
    assert_has("line 1 of standard input has a NUL byte");
}

/* A record that cannot be read is an error, never an empty or short record:
 * a directory is the user's mistake (exit 2), a failing read the machine's
 * (exit 3: standard input closed). */
static void test_read_errors_reported(void **state)
{
    (void)state;
    assert_int_equal(xqtb("adjudicate -d %s %s", tables(), test_tmpdir()), 2);
    assert_has("is a directory");
    assert_int_equal(xqtb("adjudicate -d %s < %s", tables(), test_tmpdir()), 2);
    assert_has("standard input is a directory");
    assert_int_equal(xqtb("adjudicate -d %s <&-", tables()), 3);
    assert_has("cannot read standard input");
    assert_int_equal(xqtb("adjudicate -d %s %s/no-such-record", tables(), test_tmpdir()), 2);
    assert_has("cannot open");
    assert_has("No such file");
}

/* Input without end (a device, a runaway pipe) is refused once it passes
 * 16 MiB instead of filling memory. */
static void test_oversized_record_refused(void **state)
{
    (void)state;
    char path[600];
    snprintf(path, sizeof path, "%s/huge.txt", test_tmpdir());
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "%s 0 1\n", P);
    static char blanks[1 << 16];
    memset(blanks, ' ', sizeof blanks);
    for (int i = 0; i < 257; i++) assert_int_equal(fwrite(blanks, 1, sizeof blanks, f), sizeof blanks);
    fputs("d1d0\n", f);
    fclose(f);
    assert_int_equal(xqtb("adjudicate -d %s %s", tables(), path), 2);
    assert_has("longer than 16 MiB");
}

/* A record that starts in a material without a table (KRNKR: red's rook
 * takes black's) and captures into one that has it (KRKN).  The move limit
 * is learnt from the first covered position, not the start: the start is
 * marked with its missing table, and the positions past the limit (ply 22
 * on, after 21 quiet plies) are drawn by it.  This used to stop at ply 22
 * with "invalid input" and exit status 3. */
static void test_uncovered_start(void **state)
{
    (void)state;
    char rec[512];
    int n = snprintf(rec, sizeof rec, "5k3/9/r8/9/9/R8/9/5n3/9/3K5 w - - 0 1\na4a7");
    for (int i = 0; i < 6; i++) n += snprintf(rec + n, sizeof rec - (size_t)n, " f9f8 a7a6 f8f9 a6a7");
    snprintf(rec + n, sizeof rec - (size_t)n, "\n");
    assert_int_equal(adjudicate(rec), 0);
    assert_ply_has(0, "\"counter\":0,\"wdl\":null,\"missing\":\"KRNKR\"");
    assert_ply_has(1, "\"counter\":0,\"wdl\":\"loss\"");
    assert_ply_has(21, "\"counter\":20,\"wdl\":\"blessed_loss\"");
    assert_ply_has(22, "\"counter\":21,\"wdl\":\"draw\",\"by_limit\":true");
    assert_ply_has(25, "\"counter\":24,\"wdl\":\"draw\",\"by_limit\":true");
    /* the start's counter is checked against the limit all the same */
    assert_int_equal(adjudicate("5k3/9/r8/9/9/R8/9/5n3/9/3K5 w - - 21 1\na4a7\n"), 2);
    assert_has("counter 21 is beyond the move limit of 20 plies");
}

/* The plain-text report and a record read from standard input. */
static void test_text_report_from_stdin(void **state)
{
    (void)state;
    char rec[256];
    snprintf(rec, sizeof rec, "%s 7 1\n1. d1d2 claim\n", P);
    assert_int_equal(xqtb("adjudicate -d %s < %s", tables(), record_file(rec)), 0);
    assert_has("move limit 20 plies");
    assert_has("MISTAKE: win became cursed_win");
    assert_has("claim at ply 1 by black (counter 8): WRONG");
    assert_has("mistakes: red 1, black 0");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fixture_holds),
        cmocka_unit_test(test_correct_claim),
        cmocka_unit_test(test_premature_claim),
        cmocka_unit_test(test_claim_while_win_convertible),
        cmocka_unit_test(test_premature_claim_blessed),
        cmocka_unit_test(test_win_becomes_cursed),
        cmocka_unit_test(test_wasted_plies),
        cmocka_unit_test(test_counter_follows_moves),
        cmocka_unit_test(test_illegal_move),
        cmocka_unit_test(test_malformed_records),
        cmocka_unit_test(test_nothing_covered),
        cmocka_unit_test(test_repetition_verdicts),
        cmocka_unit_test(test_whitespace_around_fen),
        cmocka_unit_test(test_nul_byte_refused),
        cmocka_unit_test(test_read_errors_reported),
        cmocka_unit_test(test_oversized_record_refused),
        cmocka_unit_test(test_uncovered_start),
        cmocka_unit_test(test_text_report_from_stdin),
        cmocka_unit_test(test_set_without_dtm),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
