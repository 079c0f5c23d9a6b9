/*
 * test_reader.c - docs/FORMAT.md is enough to read the files: a second
 * reader written from that page alone (tests/ref/ref_reader.h) gives the
 * library's answers (xqtb_probe: WDL, DTM, the ruling and its order, DTC)
 * on every legal position of four-piece tables, both colourings, and on
 * random positions of five-piece ones with advisors, elephants and pawns,
 * and, under a move limit, its five-valued answers at a counter, and for
 * every 64th position each root move's value (xqtb_probe_root);
 * under every rule set, with and without a move limit, with a searched
 * side and with `--store-both`; and the search bounds it recomputes from
 * the blocks are the files' own; also on files the writer makes only when
 * asked (LZ4 blocks, small blocks, bounds in many frames, either side
 * searched), and on a set exported without its DTM files, whose DTC the
 * library then searches without them.  Given XQTB_READER_DIR, the same on
 * random positions of every table of a directory (a whole generated set).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>
#include <dirent.h>

#include "board.h"
#include "compress.h"
#include "fen.h"
#include "material.h"
#include "movegen.h"
#include "ref_reader.h"
#include "ref_solver.h"
#include "runxqtb.h"
#include "tb.h"
#include "testenv.h"
#include "testgen.h"
#include "tmpdir.h"
#include "xqtb.h"

/* Generates `materials` into a directory of its own under the test's
 * temporary one and returns its path. */
static const char *generate(const char *sub, const char *options, const char *materials)
{
    static char dir[4096];
    snprintf(dir, sizeof dir, "%s/%s", test_tmpdir(), sub);
    int rc = run_xqtb("gen -q -t 2 -d %s %s %s", dir, options, materials);
    if (rc != 0) fail_msg("xqtb gen %s %s: exit %d\n%s", options, materials, rc, xqtb_out);
    return dir;
}

typedef struct {
    xqtb_handle *h;
    ref_reader *r;
    int limit, rules;
    int lean; /* no DTM files (`xqtb export --no-dtm`): WDL and DTC only */
    uint64_t probed, ruled, cursed;
} pair;

/* Whether dir holds no DTM file. */
static int without_dtm(const char *dir)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int dtm = 0;
    for (struct dirent *e; (e = readdir(d));) {
        size_t n = strlen(e->d_name);
        dtm |= n > 4 && !strcmp(e->d_name + n - 4, ".xqd");
    }
    closedir(d);
    return !dtm;
}

static void pair_open(pair *p, const char *dir)
{
    memset(p, 0, sizeof *p);
    xqtb_status st;
    p->h = xqtb_open(dir, NULL, &st);
    assert_non_null(p->h);
    p->r = ref_reader_open(dir);
    assert_non_null(p->r);
    p->limit = xqtb_limit(p->h);
    p->rules = xqtb_rules(p->h);
    p->lean = without_dtm(dir);
}

static void pair_close(pair *p)
{
    assert_int_equal(ref_reader_rule(p->r), p->rules);
    assert_int_equal(ref_reader_limit(p->r), p->limit);
    int checked = ref_reader_check_bounds(p->r);
    if (checked < 0) fail_msg("search bounds: %s", ref_reader_error(p->r));
    print_message("    %llu positions, %llu ruled, %llu cursed or blessed; bounds of %d files recomputed\n",
                  (unsigned long long)p->probed, (unsigned long long)p->ruled, (unsigned long long)p->cursed, checked);
    ref_reader_close(p->r);
    xqtb_close(p->h);
}

/* The five-valued result at counter c (docs/RULES.md, "The move limit"):
 * a win or loss whose DTC d holds from a fresh counter and fits in the
 * plies left, d <= L - c (a counter past L counts as L); a cursed win or
 * blessed loss otherwise; a result of a ruling always holds. */
static int wdl5_at(const ref_read_value *v, int limit, int c)
{
    if (v->wdl == 0) return XQTB_WDL5_DRAW;
    if (c > limit) c = limit;
    int holds = v->ruled || (!v->cursed && v->dtc <= limit - c);
    return v->wdl * (holds ? 2 : 1);
}

/* The library's answers under the move limit at one counter (a different
 * one for each position, 0 to two past the limit) agree with the second
 * reader's DTC: xqtb_probe_counter, xqtb_probe_wdl_counter, which reads
 * only as much of the DTC as the answer needs, and xqtb_probe_dtc, which
 * reads no DTM file. */
static void compare_counter(pair *p, const xqtb_position *pos, const ref_read_value *v, const char *fen)
{
    int c = (int)((p->probed * 2654435761u) % (uint64_t)(p->limit + 3)), want = wdl5_at(v, p->limit, c);
    int want_dtc = v->dtc < 0 ? XQTB_NO_DISTANCE : v->dtc, dtc;
    xqtb_result r;
    xqtb_wdl5 w5, w5_dtc;
    if (xqtb_probe_counter(p->h, pos, c, &r) != XQTB_OK || xqtb_probe_wdl_counter(p->h, pos, c, &w5) != XQTB_OK ||
        xqtb_probe_dtc(p->h, pos, c, &w5_dtc, &dtc) != XQTB_OK)
        fail_msg("%s: a probe at counter %d failed", fen, c);
    if ((int)r.wdl5 != want || (int)w5 != want || (int)w5_dtc != want || dtc != want_dtc || r.dtc != want_dtc)
        fail_msg("%s at counter %d: second reader wdl5 %d dtc %d; xqtb_probe_counter %d (dtc %d), "
                 "xqtb_probe_wdl_counter %d, xqtb_probe_dtc %d (dtc %d)",
                 fen, c, want, want_dtc, r.wdl5, r.dtc, w5, w5_dtc, dtc);
}

/* Without DTM files (a set exported with `xqtb export --no-dtm`, what an
 * engine under the move limit installs): xqtb_probe_dtc, whose DTC search
 * then has no DTM file to tell it which moves matter, gives the WDL value
 * and DTC the second reader finds in the WDL and DTC files alone, at a
 * counter as above. */
static void compare_lean(pair *p, const xqtb_position *pos, const xq_board *b, const char *fen)
{
    ref_read_value v;
    if (ref_reader_probe_dtc(p->r, b, &v)) fail_msg("%s: second reader: %s", fen, ref_reader_error(p->r));
    int c = (int)((p->probed * 2654435761u) % (uint64_t)(p->limit + 3)), want = wdl5_at(&v, p->limit, c), dtc;
    xqtb_wdl5 w5;
    if (xqtb_probe_dtc(p->h, pos, c, &w5, &dtc) != XQTB_OK) fail_msg("%s: xqtb_probe_dtc failed", fen);
    if ((int)w5 != want || dtc != (v.dtc < 0 ? XQTB_NO_DISTANCE : v.dtc))
        fail_msg("%s at counter %d: second reader wdl5 %d dtc %d; xqtb_probe_dtc %d dtc %d", fen, c, want, v.dtc, w5,
                 dtc);
    p->probed++;
    p->ruled += v.ruled != 0;
    p->cursed += v.cursed;
}

/* xqtb_probe_root's value of every move is the second reader's value of
 * the position it leads to, seen from the mover: the result turned, one
 * ply more of DTM, the same ruling and order. */
static void compare_root(pair *p, const xqtb_position *pos, const xq_board *b, const char *fen)
{
    xqtb_root_move mv[XQTB_MAX_MOVES];
    xq_move list[XQ_MAX_MOVES];
    xq_board c = *b;
    int n = xqtb_probe_root(p->h, pos, mv), legal = xq_gen_legal(&c, list);
    if (n != legal) fail_msg("%s: xqtb_probe_root gives %d moves of %d", fen, n, legal);
    for (int i = 0; i < n; i++) {
        xq_move m = (xq_move)mv[i].move;
        int found = 0;
        for (int k = 0; k < legal; k++) found |= list[k] == m;
        if (!found) fail_msg("%s: xqtb_probe_root gives a move that is not legal", fen);
        xq_undo u;
        xq_make_move(&c, m, &u);
        ref_read_value v;
        int rc = ref_reader_probe(p->r, &c, 0, &v);
        xq_unmake_move(&c, m, &u);
        if (rc) fail_msg("%s: second reader after a move: %s", fen, ref_reader_error(p->r));
        int dtm = v.dtm < 0 ? XQTB_NO_DISTANCE : v.dtm + 1, by = ref_reader_ruling(&v, p->rules);
        if (mv[i].wdl != -v.wdl || mv[i].dtm != dtm || mv[i].by_rule != by || mv[i].order != v.order)
            fail_msg("%s, move %d: xqtb_probe_root wdl %d dtm %d by %d order %d; second reader %d %d %d %d", fen, m,
                     mv[i].wdl, mv[i].dtm, mv[i].by_rule, mv[i].order, -v.wdl, dtm, by, v.order);
    }
}

/* The library's and the second reader's answers for b agree. */
static void compare(pair *p, const xq_board *b)
{
    char fen[XQ_FEN_MAX], err[XQTB_ERR_MAX];
    xqtb_position pos; /* the public API's piece codes: red's kinds, black's negated */
    for (int sq = 0; sq < XQ_SQUARES; sq++)
        pos.board[sq] = !b->sq[sq] ? 0 : (int8_t)(colour_of(b->sq[sq]) == RED ? 1 : -1) * (int8_t)kind_of(b->sq[sq]);
    pos.side = b->side;
    xq_fen_write(b, fen); /* for the messages */
    if (xqtb_position_validate(&pos, err) != XQTB_OK) fail_msg("%s: %s", fen, err);
    if (p->lean) {
        compare_lean(p, &pos, b, fen);
        return;
    }
    xqtb_result lib;
    xqtb_status st = xqtb_probe(p->h, &pos, &lib);
    if (st != XQTB_OK) fail_msg("%s: xqtb_probe: %s", fen, xqtb_status_string(st));
    ref_read_value v;
    if (ref_reader_probe(p->r, b, p->limit > 0, &v)) fail_msg("%s: second reader: %s", fen, ref_reader_error(p->r));
    int by = ref_reader_ruling(&v, p->rules);
    int dtm = v.dtm < 0 ? XQTB_NO_DISTANCE : v.dtm, dtc = v.dtc < 0 ? XQTB_NO_DISTANCE : v.dtc;
    if ((int)lib.wdl != v.wdl || lib.dtm != dtm || (int)lib.by_rule != by || lib.order != v.order || lib.dtc != dtc)
        fail_msg("%s: library wdl %d dtm %d by %d order %d dtc %d; second reader wdl %d dtm %d by %d order %d dtc %d",
                 fen, lib.wdl, lib.dtm, lib.by_rule, lib.order, lib.dtc, v.wdl, dtm, by, v.order, dtc);
    if (p->limit > 0 && v.wdl != 0 && !v.ruled) {
        int cursed = lib.wdl5 == XQTB_WDL5_CURSED_WIN || lib.wdl5 == XQTB_WDL5_BLESSED_LOSS;
        if (cursed != v.cursed) fail_msg("%s: library wdl5 %d, second reader cursed %d", fen, lib.wdl5, v.cursed);
    }
    if (p->limit > 0) compare_counter(p, &pos, &v, fen);
    if (p->probed % 64 == 0) compare_root(p, &pos, b, fen); /* a root probe values every move */
    p->probed++;
    p->ruled += v.ruled != 0;
    p->cursed += v.cursed;
}

/* Every `stride`-th legal position of `name`, in the reference solver's
 * order, and the same position in the other colouring. */
static void compare_all(pair *p, const char *name, int stride)
{
    xq_material m;
    char err[XQ_ERR_MAX];
    if (xq_material_parse(name, &m, err)) fail_msg("%s: %s", name, err);
    ref_db *db = ref_enumerate(&m);
    assert_non_null(db);
    for (int i = 0; i < ref_count(db); i += stride) {
        xq_board b, turned;
        ref_board(db, i, &b);
        compare(p, &b);
        xq_board_flip(&b, &turned);
        compare(p, &turned);
    }
    ref_free(db);
}

/* `count` random legal positions of `name` (and their other colouring). */
static void compare_random(pair *p, const char *name, int count)
{
    xq_material m;
    char err[XQ_ERR_MAX];
    if (xq_material_parse(name, &m, err)) fail_msg("%s: %s", name, err);
    uint64_t seed = 0x9E3779B97F4A7C15u;
    for (int done = 0; done < count;) {
        xq_board b;
        xq_board_clear(&b);
        int ok = 1;
        for (int c = 0; c < 2 && ok; c++)
            for (int k = KING; k < KIND_NB && ok; k++)
                for (int j = 0; j < m.count[c][k] && ok; j++) {
                    uint8_t squares[XQ_SQUARES];
                    int n = ref_allowed_squares(c, k, squares);
                    seed = seed * 6364136223846793005u + 1442695040888963407u;
                    int sq = squares[(seed >> 33) % (uint64_t)n];
                    if (b.sq[sq])
                        ok = 0;
                    else
                        xq_board_put(&b, sq, make_piece(c, k));
                }
        seed = seed * 6364136223846793005u + 1442695040888963407u;
        b.side = (int)(seed >> 63);
        if (!ok || xq_board_validate(&b, err)) continue;
        xq_board turned;
        compare(p, &b);
        xq_board_flip(&b, &turned);
        compare(p, &turned);
        done++;
    }
}

static void check_dir(const char *dir, const char *const *all, int nall, int stride, const char *const *sampled,
                      int nsampled)
{
    if (test_sanitized()) { /* the same files and paths, sampled more sparsely */
        print_message("    every %dth position only under the sanitizer build (XQTB_SAN=1)\n", 4 * stride);
        stride *= 4;
    }
    pair p;
    pair_open(&p, dir);
    for (int i = 0; i < nall; i++) compare_all(&p, all[i], stride);
    for (int i = 0; i < nsampled; i++) compare_random(&p, sampled[i], 10000);
    pair_close(&p);
}

/* The defaults: rules full, a limit of 120 plies, a searched side in DTM
 * and DTC files, WDL dictionaries where they pay. */
static void test_defaults(void **state)
{
    (void)state;
    const char *dir = generate("full", "", "KRKN KRKP KNKA KPPK KCKAB KNPKB");
    static const char *const all[] = {"KRKN", "KRKP", "KNKA", "KPPK"};
    static const char *const sampled[] = {"KCKAB", "KNPKB"};
    check_dir(dir, all, 4, 1, sampled, 2);
}

/* Every other rule set, and no move limit (no DTC files). */
static void test_rule_sets(void **state)
{
    (void)state;
    static const char *const rules[] = {"none", "check", "asian", "cxa"};
    static const char *const all[] = {"KRKN", "KCKP"};
    for (int i = 0; i < 4; i++) {
        char sub[32], opt[64];
        snprintf(sub, sizeof sub, "rules-%s", rules[i]);
        snprintf(opt, sizeof opt, "--rules %s%s", rules[i], i == 1 ? " --limit 0" : "");
        print_message("  %s\n", opt);
        check_dir(generate(sub, opt, "KRKN KCKP"), all, 2, 5, NULL, 0);
    }
}

/* Files that store both sides to move (searched side 0, no bounds), and a
 * short move limit, which makes cursed wins and blessed losses. */
static void test_store_both_and_short_limit(void **state)
{
    (void)state;
    static const char *const all[] = {"KRKN", "KNKP"};
    check_dir(generate("both", "--store-both", "KRKN KNKP"), all, 2, 3, NULL, 0);
    check_dir(generate("short", "--limit 20", "KRKN KNKP"), all, 2, 3, NULL, 0);
}

/* A set exported without its DTM files (compare_lean). */
static void test_without_dtm_files(void **state)
{
    (void)state;
    const char *full = generate("lean-source", "", "KRKN KNPKB");
    char lean[4096];
    snprintf(lean, sizeof lean, "%s/lean", test_tmpdir());
    int rc = run_xqtb("export -q -d %s -o %s --no-dtm KRKN KNPKB", full, lean);
    if (rc != 0) fail_msg("xqtb export --no-dtm: exit %d\n%s", rc, xqtb_out);
    static const char *const all[] = {"KRKN", "KNPKB"};
    pair p;
    pair_open(&p, lean);
    assert_true(p.lean && p.limit == 120);
    int sparse = test_sanitized() ? 4 : 1;
    compare_all(&p, all[0], 4 * sparse);
    compare_all(&p, all[1], 20 * sparse); /* one in 20 of its 3.4 million */
    pair_close(&p);
}

/* Writes the files of t and, once each, of every table it captures into,
 * into dir with options o. */
static void write_all(const tb_table *t, const char *dir, const tb_compress_options *o, const tb_table **done, int *n)
{
    for (int i = 0; i < *n; i++)
        if (done[i] == t) return;
    assert_true(*n < 64);
    done[(*n)++] = t;
    char err[XQ_ERR_MAX];
    if (tb_compress_write(t, dir, o, NULL, err)) fail_msg("%s", err);
    for (int c = 0; c < 2; c++)
        for (int k = 0; k < 8; k++)
            if (t->sub[c][k]) write_all(t->sub[c][k], dir, o, done, n);
}

/* What the writer can do beside its defaults, each read back: LZ4 blocks
 * (codec 1), small blocks and WDL files in many of them, search bounds cut
 * into many frames, and each side to move as the searched one. */
static void test_writer_options(void **state)
{
    (void)state;
    tb_set *set;
    tb_table *t = testgen_load_limit("KRKN", XQ_RULES_FULL, 120, &set);
    static const char *const all[] = {"KRKN"};
    const tb_compress_options variants[] = {
        {.threads = 2,
         .wdl_codec = XQF_CODEC_LZ4,
         .dtm_codec = XQF_CODEC_LZ4,
         .wdl_blocked = 1,
         .wdl_block_entries = 1024,
         .dtm_block_entries = 512,
         .bounds_frame_bytes = 64},
        {.threads = 2, .searched = TB_SEARCH_RED, .wdl_blocked = 1, .bounds_frame_bytes = 1000},
        {.threads = 2, .searched = TB_SEARCH_BLACK, .dtm_block_entries = 256},
    };
    for (int v = 0; v < 3; v++) {
        char dir[4096];
        snprintf(dir, sizeof dir, "%s/writer-%d", test_tmpdir(), v);
        assert_int_equal(mkdir(dir, 0755), 0);
        const tb_table *done[64];
        int n = 0;
        write_all(t, dir, &variants[v], done, &n);
        print_message("  writer variant %d\n", v);
        check_dir(dir, all, 1, 7, NULL, 0);
    }
    tb_set_free(set);
}

/* Given XQTB_READER_DIR, every table there, XQTB_READER_SAMPLES random
 * positions each (default 2000) and their other colouring: a check of a
 * whole generated set, such as `xqtb gen --all 5`'s, too slow for every
 * run. */
static void test_directory(void **state)
{
    (void)state;
    const char *dir = getenv("XQTB_READER_DIR"), *samples = getenv("XQTB_READER_SAMPLES");
    if (!dir) {
        print_message("    skipped: set XQTB_READER_DIR to a directory of tables to check them all\n");
        return;
    }
    int count = samples ? atoi(samples) : 2000, tables = 0;
    pair p;
    pair_open(&p, dir);
    DIR *d = opendir(dir);
    assert_non_null(d);
    for (struct dirent *e; (e = readdir(d));) {
        size_t n = strlen(e->d_name);
        if (n < 5 || n > 40 || strcmp(e->d_name + n - 4, ".xqw")) continue;
        char name[40];
        memcpy(name, e->d_name, n - 4);
        name[n - 4] = 0;
        compare_random(&p, name, count);
        tables++;
    }
    closedir(d);
    print_message("    %d tables of %s\n", tables, dir);
    pair_close(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_rule_sets),
        cmocka_unit_test(test_store_both_and_short_limit),
        cmocka_unit_test(test_writer_options),
        cmocka_unit_test(test_without_dtm_files),
        cmocka_unit_test(test_directory),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
