/*
 * core.c - subcommands over the rules core: perft, fen, moves.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "clock.h"
#include "fen.h"
#include "movegen.h"

static const char start_fen[] = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1";

static int parse_fen_arg(const char *cmd, const char *fen, xq_board *b)
{
    char err[XQ_ERR_MAX];
    if (xq_fen_parse(fen, b, err)) return cli_usage_error(cmd, "bad FEN: %s", err);
    return 0;
}

int cmd_perft(int argc, char **argv)
{
    int divide = 0, depth = -1;
    const char *fen = start_fen;
    int positional = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--divide")) {
            divide = 1;
        } else if (argv[i][0] == '-' && (argv[i][1] < '0' || argv[i][1] > '9')) {
            /* neither a DEPTH nor a FEN starts with '-' ("-1" is a bad DEPTH) */
            return cli_usage_error("perft", "unknown option '%s'", argv[i]);
        } else if (positional == 0) {
            long d = cli_parse_uint(argv[i], 20);
            if (d < 0) return cli_usage_error("perft", "DEPTH must be a number from 0 to 20, not '%s'", argv[i]);
            depth = (int)d;
            positional++;
        } else if (positional == 1) {
            fen = argv[i];
            positional++;
        } else {
            return cli_usage_error("perft", "too many arguments (see xqtb perft --help)");
        }
    }
    if (depth < 0) return cli_usage_error("perft", "missing DEPTH (see xqtb perft --help)");
    xq_board b;
    if (parse_fen_arg("perft", fen, &b)) return EXIT_BAD_INPUT;
    double t0 = tb_now_seconds();
    uint64_t total = 0;
    if (divide && depth > 0) {
        xq_move list[XQ_MAX_MOVES];
        int n = xq_gen_legal(&b, list);
        for (int i = 0; i < n; i++) {
            xq_undo u;
            char name[5];
            xq_make_move(&b, list[i], &u);
            uint64_t c = xq_perft(&b, depth - 1);
            xq_unmake_move(&b, list[i], &u);
            xq_move_name(list[i], name);
            printf("%s: %llu\n", name, (unsigned long long)c);
            total += c;
        }
    } else {
        total = xq_perft(&b, depth);
    }
    double secs = tb_now_seconds() - t0;
    fprintf(stderr, "perft(%d): %.3f s, %.1f Mnodes/s\n", depth, secs, secs > 0 ? (double)total / secs / 1e6 : 0.0);
    printf("%llu\n", (unsigned long long)total);
    return 0;
}

static void print_board(const xq_board *b)
{
    for (int r = 9; r >= 0; r--) {
        printf("%d ", r);
        for (int f = 0; f < 9; f++) printf(" %c", xq_piece_char(b->sq[make_square(f, r)]));
        printf("\n");
        if (r == 5) printf("   ~ ~ ~ river ~ ~ ~\n");
    }
    printf("   a b c d e f g h i\n");
}

int cmd_fen(int argc, char **argv)
{
    if (argc != 2) return cli_usage_error("fen", "usage: xqtb fen FEN");
    xq_board b;
    if (parse_fen_arg("fen", argv[1], &b)) return EXIT_BAD_INPUT;
    char out[XQ_FEN_MAX];
    xq_fen_write(&b, out);
    print_board(&b);
    xq_move list[XQ_MAX_MOVES];
    int n = xq_gen_legal(&b, list);
    printf("%s to move%s, %d legal moves%s\n", b.side == RED ? "red" : "black",
           xq_in_check(&b, b.side) ? " (in check)" : "", n, n == 0 ? ": lost (no legal move)" : "");
    printf("%s\n", out);
    return 0;
}

int cmd_moves(int argc, char **argv)
{
    if (argc != 2) return cli_usage_error("moves", "usage: xqtb moves FEN");
    xq_board b;
    if (parse_fen_arg("moves", argv[1], &b)) return EXIT_BAD_INPUT;
    xq_move list[XQ_MAX_MOVES];
    int n = xq_gen_legal(&b, list);
    for (int i = 0; i < n; i++) {
        char name[5];
        xq_move_name(list[i], name);
        printf("%s%c", name, i + 1 == n ? '\n' : ' ');
    }
    return 0;
}
