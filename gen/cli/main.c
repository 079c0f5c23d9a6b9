/*
 * main.c - the xqtb command: dispatches to a subcommand.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "xqtb.h"

typedef struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *help;
} command;

static const command commands[] = {
    {"perft", cmd_perft, "perft [--divide] DEPTH [FEN]   count leaf nodes of the move tree"},
    {"fen", cmd_fen, "fen FEN                         validate a position, print canonical FEN and board"},
    {"moves", cmd_moves, "moves FEN                       list the legal moves"},
    {"gen", cmd_gen,
     "gen [-t N] [-d DIR] [-q] [--rules none|check|full] [--limit PLIES] [--force]\n"
     "      [--max-memory MIB] MATERIAL...\n"
     "                                  generate tables (and their subtables)"},
    {"stats", cmd_stats, "stats [--json] [-d DIR] MATERIAL  counts, longest wins, DTM histogram"},
    {"probe", cmd_probe,
     "probe [-d DIR[:DIR...]] [--json] [--line] [--counter N] FEN\n"
     "                                  value of a position and of every legal move"},
    {"adjudicate", cmd_adjudicate,
     "adjudicate [-d DIR[:DIR...]] [--json] [FILE]\n"
     "                                  judge a game record under the move limit"},
    {"check", cmd_check,
     "check [-d DIR] [--deep] [-q] [MATERIAL...]\n"
     "                                  check every compressed file's header and block checksums"},
    {"verify", cmd_verify, "verify [-t N] [-d DIR] MATERIAL...  check every value against its successors"},
};

static void usage(FILE *f)
{
    fprintf(f, "usage: xqtb COMMAND [ARGS]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++) fprintf(f, "  xqtb %s\n", commands[i].help);
    fprintf(f, "\nFEN defaults to the start position where optional.  Exit status: 0 answer,\n"
               "1 no answer (not covered), 2 bad input, 3 machine failure (memory, disk).\n");
}

int main(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? EXIT_BAD_INPUT : 0;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("xqtb %d.%d.%d\n", XQTB_VERSION_MAJOR, XQTB_VERSION_MINOR, XQTB_VERSION_PATCH);
        return 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
        if (!strcmp(argv[1], commands[i].name)) return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "xqtb: unknown command '%s' (try xqtb --help)\n", argv[1]);
    return EXIT_BAD_INPUT;
}
