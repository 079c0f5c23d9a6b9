/*
 * probe.c - `xqtb probe`: a tablebase explorer on the public library
 * API alone (xqtb.h), as an engine or GUI would use it: the position's value
 * and every legal move with the value it leads to, best first.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "tbformat.h"
#include "xqtb.h"

static const char *wdl_word(int wdl) { return wdl > 0 ? "win" : wdl < 0 ? "loss" : "draw"; }

/* The five-valued result's JSON word. */
static const char *wdl5_word(int wdl5)
{
    static const char *const w[5] = {"loss", "blessed_loss", "draw", "cursed_win", "win"};
    return wdl5 >= -2 && wdl5 <= 2 ? w[wdl5 + 2] : "?";
}

static const char *rule_word(int by_rule) { return cli_ruling_name(by_rule); }

static const char *rules_word(int rules) { return cli_rules_name(rules); }

/* Whether pos has a value from every file (xqtb_probe: the DTM file, and
 * the DTC file too when the tables have a move limit), or with lean from
 * the WDL and DTC files alone (xqtb_probe_dtc). */
static int answers(xqtb_handle *h, const xqtb_position *pos, int lean)
{
    xqtb_result r;
    xqtb_wdl5 wdl5;
    int dtc;
    return lean ? xqtb_probe_dtc(h, pos, 0, &wdl5, &dtc) == XQTB_OK : xqtb_probe(h, pos, &r) == XQTB_OK;
}

/* Names the table a failing probe needed (as answers asks it): the
 * position's own, or that of the first move leading into a table that is
 * not there. */
static void missing_table(xqtb_handle *h, const xqtb_position *pos, int lean, char name[40])
{
    xqtb_material_name(pos, name);
    if (!answers(h, pos, lean)) return;
    uint16_t moves[XQTB_MAX_MOVES];
    int n = xqtb_legal_moves(pos, moves);
    for (int i = 0; i < n; i++) {
        xqtb_position next = *pos;
        xqtb_play(&next, moves[i]);
        if (!answers(h, &next, lean)) {
            xqtb_material_name(&next, name);
            return;
        }
    }
}

/* Whether a directory of `dirs` holds table `name`'s file of `kind`. */
static int has_file(const char *dirs, const char *name, int kind)
{
    for (const char *d = dirs;;) {
        const char *end = strchr(d, ':');
        size_t dl = end ? (size_t)(end - d) : strlen(d);
        char path[4096];
        snprintf(path, sizeof path, "%.*s/%s.%s", (int)dl, d, name, xqf_kind_ext(kind));
        if (dl && access(path, F_OK) == 0) return 1;
        if (!end) return 0;
        d = end + 1;
    }
}

/* The first file of table `name` a probe needs and no directory of `dirs`
 * holds, into file ("" if all are there): WDL, DTM unless lean, and DTC if
 * need_dtc. */
static void missing_file(const char *dirs, const char *name, int need_dtc, int lean, char *file, size_t len)
{
    *file = 0;
    for (int kind = XQF_KIND_WDL; kind <= (need_dtc ? XQF_KIND_DTC : XQF_KIND_DTM); kind++)
        if (!(lean && kind == XQF_KIND_DTM) && !has_file(dirs, name, kind)) {
            snprintf(file, len, "%s.%s", name, xqf_kind_ext(kind));
            return;
        }
}

static int failure(xqtb_handle *h, const xqtb_position *pos, int status, const char *dirs)
{
    char name[40];
    /* a set without the position's DTM file (export --no-dtm) is probed
     * from its WDL and DTC files: what those lack is what to name */
    xqtb_material_name(pos, name);
    int limit = xqtb_limit(h), lean = limit > 0 && !has_file(dirs, name, XQF_KIND_DTM);
    missing_table(h, pos, lean, name);
    if (status == XQTB_ERR_NO_TABLE) {
        char file[64];
        missing_file(dirs, name, limit > 0, lean, file, sizeof file);
        fprintf(stderr, "xqtb probe: no table %s in %s (%s needed)\n", name, dirs, *file ? file : "its files");
        return EXIT_NO_ANSWER;
    }
    fprintf(stderr, "xqtb probe: table %s: %s\n", name, xqtb_status_string(status));
    /* the library's status does not say which file, of this table or a
     * capture's, nor why: check does (after an upgrade, most often "format
     * version 8, this reader knows 9: regenerate it") */
    if (status == XQTB_ERR_MISMATCH || status == XQTB_ERR_CORRUPT)
        fprintf(stderr, "xqtb probe: `xqtb check -d %s` names the file and why\n", dirs);
    return status == XQTB_ERR_INVALID ? EXIT_BAD_INPUT : EXIT_FAILURE_IO;
}

/* "wdl", "dtm", "dtc", "by_rule" and "order" members of a JSON value;
 * wdl is the five-valued result when the tables have a move limit. */
static void print_json_value(FILE *out, int limit, int wdl, int wdl5, int dtm, int dtc, int by_rule, int order)
{
    fprintf(out, "\"wdl\":\"%s\",", limit > 0 ? wdl5_word(wdl5) : wdl_word(wdl));
    if (dtm == XQTB_NO_DISTANCE)
        fprintf(out, "\"dtm\":null,");
    else
        fprintf(out, "\"dtm\":%d,", dtm);
    if (dtc >= 0)
        fprintf(out, "\"dtc\":%d,", dtc);
    else
        fprintf(out, "\"dtc\":null,");
    if (by_rule == XQTB_BY_RULING) /* which ruling, and its order, only the DTM files tell */
        fprintf(out, "\"by_rule\":\"%s\",\"order\":null", rule_word(by_rule));
    else if (by_rule)
        fprintf(out, "\"by_rule\":\"%s\",\"order\":%d", rule_word(by_rule), order);
    else
        fprintf(out, "\"by_rule\":null");
}

void cli_probe_json(FILE *out, xqtb_handle *h, const xqtb_position *pos, int counter, const xqtb_result *res,
                    const xqtb_root_move *mv, int n, const uint16_t *line, int nline)
{
    char canon[XQTB_FEN_MAX], material[40];
    int limit = xqtb_limit(h);
    xqtb_position_to_fen(pos, canon);
    xqtb_material_name(pos, material);
    fprintf(out, "{\"fen\":\"%s\",\"material\":\"%s\",\"rules\":\"%s\",\"limit\":%d,\"counter\":%d,", canon, material,
            rules_word(xqtb_rules(h)), limit, counter);
    print_json_value(out, limit, res->wdl, res->wdl5, res->dtm, res->dtc, res->by_rule, res->order);
    fprintf(out, ",\"moves\":[");
    for (int i = 0; i < n; i++) {
        char name[5];
        xqtb_move_name(mv[i].move, name);
        fprintf(out, "%s{\"move\":\"%.4s\",", i ? "," : "", name);
        print_json_value(out, limit, mv[i].wdl, mv[i].wdl5, mv[i].dtm, mv[i].dtc, mv[i].by_rule, mv[i].order);
        fprintf(out, "}");
    }
    fprintf(out, "]");
    if (line) {
        fprintf(out, ",\"line\":[");
        for (int i = 0; i < nline; i++) {
            char name[5];
            xqtb_move_name(line[i], name);
            fprintf(out, "%s\"%.4s\"", i ? "," : "", name);
        }
        fprintf(out, "]");
    }
    fprintf(out, "}");
}

/* What the loser repeats in a line that ends in a repetition: his
 * ruling's, or, where the files do not say which ruling (XQTB_BY_RULING),
 * what the rule set makes lose. */
static const char *repeated_what(xqtb_handle *h, const xqtb_result *res)
{
    int rules = xqtb_rules(h);
    if (res->by_rule == XQTB_BY_RULING)
        return rules == XQTB_RULES_CXA ? "attack" : rules == XQTB_RULES_CHECK ? "check" : "check or chase";
    return res->by_rule == XQTB_BY_PERPETUAL_CHASE    ? "check or chase"
           : res->by_rule == XQTB_BY_PERPETUAL_ATTACK ? "attack"
                                                      : "check";
}

/* Whether root moves were valued from the WDL files alone (xqtb.h,
 * xqtb_probe_root): an ordinary result without a distance. */
static int root_from_wdl(const xqtb_root_move *mv, int n)
{
    for (int i = 0; i < n; i++)
        if (mv[i].wdl != XQTB_DRAW && !mv[i].by_rule && mv[i].dtm == XQTB_NO_DISTANCE && mv[i].dtc == XQTB_NO_DISTANCE)
            return 1;
    return 0;
}

/* What the move limit makes of a result, for the text output. */
static void print_limit_text(int limit, int counter, int wdl5, int dtc)
{
    if (limit <= 0 || dtc < 0) return;
    const char *what = wdl5 == XQTB_WDL5_WIN            ? "the win holds"
                       : wdl5 == XQTB_WDL5_CURSED_WIN   ? "cursed win: it cannot be converted in time"
                       : wdl5 == XQTB_WDL5_BLESSED_LOSS ? "blessed loss: the opponent cannot convert in time"
                                                        : "the loss stands";
    printf("  DTC %d plies; move limit %d plies, counter %d: %s\n", dtc, limit, counter, what);
}

int cmd_probe(int argc, char **argv)
{
    const char *dirs = "tables", *fen = NULL;
    int json = 0, want_line = 0, counter = -1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--json"))
            json = 1;
        else if (!strcmp(argv[i], "--line"))
            want_line = 1;
        else if (!strcmp(argv[i], "--counter")) {
            if (++i == argc) return cli_usage_error("probe", "option --counter needs a number of plies");
            long c = cli_parse_uint(argv[i], 100000);
            if (c < 0) return cli_usage_error("probe", "--counter needs a number of plies, not '%.40s'", argv[i]);
            counter = (int)c;
        } else if (!strcmp(argv[i], "-d")) {
            if (++i == argc) return cli_usage_error("probe", "option -d needs a directory (or DIR:DIR...)");
            dirs = argv[i];
        } else if (argv[i][0] == '-' && argv[i][1])
            return cli_usage_error("probe", "unknown option '%s'", argv[i]);
        else if (!fen)
            fen = argv[i];
        else
            return cli_usage_error("probe", "give one FEN, quoted (see xqtb probe --help)");
    }
    if (!fen) return cli_usage_error("probe", "missing FEN (see xqtb probe --help)");
    xqtb_position pos;
    char err[XQTB_ERR_MAX];
    if (xqtb_position_from_fen(fen, &pos, err) != XQTB_OK) return cli_usage_error("probe", "bad FEN: %s", err);
    /* The FEN's own counter is the plies since the last capture, as in a
     * game record; --counter gives it for a FEN that says 0 (most do, by
     * habit), and may not contradict one that says otherwise. */
    int fen_counter = cli_fen_counter(fen);
    if (counter >= 0 && fen_counter && counter != fen_counter)
        return cli_usage_error("probe", "--counter %d contradicts the FEN's counter of %d plies", counter, fen_counter);
    if (counter < 0 || !counter) counter = fen_counter;

    xqtb_status st;
    xqtb_handle *h = xqtb_open(dirs, NULL, &st);
    if (!h) {
        fprintf(stderr, "xqtb probe: %s\n", xqtb_status_string(st));
        return EXIT_FAILURE_IO;
    }
    int rc = EXIT_ANSWER;
    xqtb_root_move mv[XQTB_MAX_MOVES];
    xqtb_result res;
    int n = 0;
    /* The library counts a counter past the limit as the limit reached; a
     * user who types one has mistyped it. */
    int limit = xqtb_limit(h);
    if (limit > 0 && counter > limit) {
        fprintf(stderr, "xqtb probe: the counter, %d, is beyond the tables' move limit of %d plies\n", counter, limit);
        xqtb_close(h);
        return EXIT_BAD_INPUT;
    }
    int lean;
    st = cli_probe_value(h, &pos, counter, &res, &lean);
    int wdl = res.wdl, dtm = res.dtm;
    if (st == XQTB_OK) n = xqtb_probe_root_counter(h, &pos, counter, mv);
    if (st != XQTB_OK || n < 0) {
        rc = failure(h, &pos, st != XQTB_OK ? st : n, dirs);
        xqtb_close(h);
        return rc;
    }
    /* the library's line, as /api/probe gives it: one definition of best
     * play, and of where the move limit ends it */
    uint16_t line[XQTB_PV_MAX];
    int nline = 0;
    xqtb_pv_end end = XQTB_PV_END_LENGTH;
    if (want_line && (nline = xqtb_probe_pv(h, &pos, counter, line, XQTB_PV_MAX, &end)) < 0) {
        rc = failure(h, &pos, nline, dirs);
        xqtb_close(h);
        return rc;
    }
    if (lean) {
        /* a set exported without DTM files, or a DTM file lost: the answer
         * stands, and what it leaves out is said */
        char name[40], file[64];
        missing_table(h, &pos, 0, name);
        missing_file(dirs, name, 0, 0, file, sizeof file);
        fprintf(stderr,
                "xqtb probe: %s is not in %s: answered from the WDL and DTC files (no distance to mate, and a "
                "ruled result without its ruling)\n",
                *file ? file : "a DTM file", dirs);
    }
    if (root_from_wdl(mv, n)) {
        /* a DTC file (or, without a move limit, a DTM file) some move
         * needs is missing: the moves are valued from the WDL files */
        char name[40], file[64];
        missing_table(h, &pos, limit > 0, name);
        missing_file(dirs, name, limit > 0, limit > 0, file, sizeof file);
        fprintf(stderr, "xqtb probe: %s is not in %s: the moves are valued from the WDL files alone\n",
                *file ? file : "a file the moves need", dirs);
    }
    char canon[XQTB_FEN_MAX], material[40];
    xqtb_position_to_fen(&pos, canon);
    xqtb_material_name(&pos, material);
    if (json) {
        cli_probe_json(stdout, h, &pos, counter, &res, mv, n, want_line ? line : NULL, nline);
        printf("\n");
    } else {
        printf("%s  %s  (repetition rules: %s)\n%s to move: ", canon, material, rules_word(xqtb_rules(h)),
               pos.side == XQTB_RED ? "red" : "black");
        if (wdl == XQTB_DRAW)
            printf("draw\n");
        else if (n == 0)
            printf("lost: no legal move (%s)\n", "checkmate or stalemate");
        else if (res.by_rule == XQTB_BY_RULING)
            printf("%s by a repetition ruling (which one, and its order: the DTM files, not in %s)\n", wdl_word(wdl),
                   dirs);
        else if (res.by_rule) {
            char words[32]; /* "perpetual-check": the JSON name with a hyphen */
            snprintf(words, sizeof words, "%s", rule_word(res.by_rule));
            for (char *c = words; *c; c++)
                if (*c == '_') *c = '-';
            printf("%s by the %s ruling (order %d)\n", wdl_word(wdl), words, res.order);
        } else if (dtm == XQTB_NO_DISTANCE)
            printf("%s (the distance to mate: the DTM files, not in %s)\n", wdl_word(wdl), dirs);
        else
            printf("%s, mate in %d plies with best play\n", wdl_word(wdl), dtm);
        print_limit_text(limit, counter, res.wdl5, res.dtc);
        for (int i = 0; i < n; i++) {
            char name[5];
            xqtb_move_name(mv[i].move, name);
            if (mv[i].wdl == XQTB_DRAW)
                printf("  %.4s  draw\n", name);
            else if (mv[i].by_rule == XQTB_BY_RULING)
                printf("  %.4s  %-4s  by a ruling\n", name, wdl_word(mv[i].wdl));
            else if (mv[i].by_rule)
                printf("  %.4s  %-4s  by %s, order %d\n", name, wdl_word(mv[i].wdl), rule_word(mv[i].by_rule),
                       (int)mv[i].order);
            else if (limit > 0 && mv[i].dtc >= 0 && mv[i].dtm == XQTB_NO_DISTANCE)
                printf("  %.4s  %-12s  dtc %d\n", name, wdl5_word(mv[i].wdl5), (int)mv[i].dtc);
            else if (limit > 0 && mv[i].dtc >= 0)
                printf("  %.4s  %-12s  dtm %d  dtc %d\n", name, wdl5_word(mv[i].wdl5), (int)mv[i].dtm, (int)mv[i].dtc);
            else if (mv[i].dtm == XQTB_NO_DISTANCE) /* valued from the WDL files alone */
                printf("  %.4s  %s\n", name, wdl_word(mv[i].wdl));
            else
                printf("  %.4s  %-4s  dtm %d\n", name, wdl_word(mv[i].wdl), (int)mv[i].dtm);
        }
        if (want_line) {
            if (wdl == XQTB_DRAW)
                printf("line: none, the position is a draw (best play never ends)\n");
            else {
                printf("line:");
                for (int i = 0; i < nline; i++) {
                    char name[5];
                    xqtb_move_name(line[i], name);
                    printf(" %.4s", name);
                }
                if (end == XQTB_PV_END_REPETITION)
                    printf("  (the position repeats: the loser's perpetual %s loses)\n", repeated_what(h, &res));
                else if (end == XQTB_PV_END_MATE)
                    printf("%s\n", nline ? "  (then no legal move: lost)" : " (no legal move: lost)");
                else if (end == XQTB_PV_END_LIMIT)
                    printf("%s\n", nline ? "  (then the move limit ends the game: drawn)"
                                         : " none (the move limit ends the game: drawn)");
                else if (end == XQTB_PV_END_DRAW)
                    printf("%s\n", nline ? "  (then a draw under the move limit)"
                                         : " none, the move limit makes the position a draw");
                else
                    printf("  (cut at %d moves)\n", nline);
            }
        }
    }
    xqtb_close(h);
    return rc;
}
