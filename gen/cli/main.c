/*
 * main.c - the xqtb command: dispatches to a subcommand, and prints the
 * help of one subcommand or of all.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "xqtb.h"

/* One row per subcommand.  `xqtb NAME --help` prints the row's synopsis,
 * summary and options, and the top-level help every row's synopsis and
 * summary, so the two cannot disagree; test_cli checks that every option a
 * parser takes is in both.  To add a subcommand (gen/cli/check.c, say):
 * declare cmd_check in cli.h, add its row here, and add it with its options
 * to the command list in tests/test_cli.c. */
typedef struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *synopsis; /* one or more lines, each "xqtb NAME ..." or an indented continuation */
    const char *summary;  /* what it does, one line */
    const char *options;  /* lines of "  OPTION  meaning", "" if none */
    const char *exits;    /* its exit statuses where they are not the common ones, else NULL */
} command;

static const command commands[] = {
    {"perft", cmd_perft, "xqtb perft [--divide] DEPTH [FEN]",
     "count the leaves of the legal move tree of depth DEPTH (0-20) from FEN",
     "  --divide          first a line MOVE: COUNT for each legal move\n"
     "  FEN               the position (default: the start position)\n",
     NULL},
    {"fen", cmd_fen, "xqtb fen FEN", "validate a position; print the board, whose move, the canonical FEN", "", NULL},
    {"moves", cmd_moves, "xqtb moves FEN", "list the legal moves (none: the side to move has lost)", "", NULL},
    {"gen", cmd_gen,
     "xqtb gen [-t N] [-d DIR] [-q] [--rules none|check|full|asian|cxa]\n"
     "         [--limit PLIES]\n"
     "         [--force] [--max-memory MIB] [--wide] [--store-both] [--keep-raw]\n"
     "         MATERIAL...\n"
     "xqtb gen [OPTIONS] --set NAME [--pieces RANGE] [--attackers RANGE[/RANGE]]\n"
     "         [--defenders RANGE[/RANGE]] [--with LETTERS] [--without LETTERS]\n"
     "xqtb gen [OPTIONS] --all N",
     "generate tables, and every subtable they need, into DIR",
     "  -t N              threads, 1-64 (default: all cores); same files for any N\n"
     "  -d DIR            directory read and written (default: tables); one\n"
     "                    directory, without ':' (probe reads ':' as a separator)\n"
     "  -q                no progress and no summary\n"
     "  --rules SET       repetition rulings: full (default; perpetual check and\n"
     "                    perpetual chase lose), check (perpetual check loses),\n"
     "                    none (every repetition is a draw), asian (full, with\n"
     "                    the chases of checking moves and chases made real\n"
     "                    counted) or cxa (a perpetual attack, check, mate\n"
     "                    threat or chase, loses)\n"
     "  --limit PLIES     move limit for DTC, 0 (none) to 10000 (default: 120)\n"
     "  --force           rebuild the named tables even if valid files exist\n"
     "  --max-memory MIB  refuse a table that needs more (default: memory available)\n"
     "  --wide            two-byte cells from the start (for testing)\n"
     "  --store-both      DTM and DTC files store both sides to move (larger files;\n"
     "                    no one-ply search when probing them)\n"
     "  --keep-raw        also write raw files (.xqtb, 8 bytes an entry), which load\n"
     "                    faster than rebuilding a table from its compressed files\n"
     "  --set NAME        a named table set (xqtb sets), subtables first; a run that\n"
     "                    was stopped goes on where it stopped\n"
     "  --pieces RANGE    keep the set's materials of N, N-M or N- pieces (kings in)\n"
     "  --attackers R[/W] attacking pieces (R N C P): both sides, or the stronger\n"
     "                    side / the weaker (the stronger has more attackers)\n"
     "  --defenders R[/W] advisors and elephants, counted as --attackers\n"
     "  --with LETTERS    pieces on the board, e.g. R, or AA for two advisors\n"
     "  --without LETTERS kinds not on the board, e.g. P; subtables stay whatever\n"
     "                    the filters say\n"
     "  --all N           the set up-to-N: every material of at most N pieces (2-8)\n"
     "  MATERIAL          a signature such as KRKNAA, either colouring\n",
     NULL},
    {"stats", cmd_stats,
     "xqtb stats [--json] [-d DIR] MATERIAL\n"
     "xqtb stats [--json] [-d DIR] --set NAME [FILTERS]\n"
     "           FILTERS, as for gen: --pieces, --attackers, --defenders, --with, --without",
     "won, drawn and lost positions, longest wins, DTM histogram, rulings, sizes",
     "  --json            one JSON object instead of text\n"
     "  -d DIR            directory of the table (default: tables), without ':'\n"
     "  --set NAME        one line (JSON: one object) per table of the set\n"
     "  --pieces, --attackers, --defenders, --with, --without   as for gen --set\n",
     NULL},
    {"sets", cmd_sets,
     "xqtb sets [--json] [-d DIR] [--rules SET] [--limit PLIES] [NAME [FILTERS]]\n"
     "          FILTERS, as for gen: --pieces, --attackers, --defenders, --with, --without",
     "the named table sets, or one set's tables, with estimates of time, memory, disk",
     "  --json            JSON instead of text\n"
     "  -d DIR            directory whose tables count as done (default: tables)\n"
     "  --rules SET       rule set the estimates and the done check assume (default full)\n"
     "  --limit PLIES     move limit they assume (default 120)\n"
     "  NAME              one-attacker, or up-to-N (N 2-8): list its tables\n"
     "  --pieces, --attackers, --defenders, --with, --without   filters, as for\n"
     "                    xqtb gen\n",
     NULL},
    {"plan", cmd_plan,
     "xqtb plan --set NAME [FILTERS] [-d DIR] [-o FILE] [-t N] [--rules SET]\n"
     "          [--limit PLIES] [--store-both] [--keep-raw] [--max-memory MIB]\n"
     "          FILTERS, as for gen: --pieces, --attackers, --defenders, --with, --without",
     "write a Makefile that builds a set, one target per table (for make, schedulers)",
     "  --set NAME        the set (xqtb sets), filtered as for gen --set\n"
     "  -d DIR            directory the tables go to (default: tables)\n"
     "  -o FILE           write the Makefile to FILE (default: standard output)\n"
     "  -t N              threads per table (default 1: make runs tables side by side)\n"
     "  --rules, --limit, --store-both, --keep-raw, --max-memory   as for gen\n",
     NULL},
    {"export", cmd_export,
     "xqtb export [-d DIR] [-q] [--wdl-only | --no-dtm] -o OUT [MATERIAL... | --set NAME [FILTERS]]\n"
     "xqtb export [-d DIR] [--wdl-only | --no-dtm] --list [MATERIAL... | --set NAME [FILTERS]]",
     "copy (or list) the files an engine needs: compressed files, subtables included",
     "  -d DIR            directory of the tables (default: tables)\n"
     "  -o OUT            directory to copy them to (created if missing)\n"
     "  --list            print the files and their sizes instead\n"
     "  --wdl-only        only the WDL files (.xqw), what a search probes\n"
     "  --no-dtm          the WDL and DTC files, no DTM (.xqd): what an engine under\n"
     "                    the move limit probes (xqtb_probe_dtc)\n"
     "  -q                no summary line\n"
     "  --set NAME        the tables of a set, filtered as for gen (--pieces, ...)\n"
     "  MATERIAL          the tables to export (default: every one in DIR); each\n"
     "                    comes with its subtables' files\n",
     NULL},
    {"verify", cmd_verify,
     "xqtb verify [-t N] [-d DIR] [-q] MATERIAL...\n"
     "xqtb verify [-t N] [-d DIR] [-q] --set NAME [FILTERS]\n"
     "            FILTERS, as for gen: --pieces, --attackers, --defenders, --with, --without",
     "check every value, DTC and ruling order against what its moves lead to",
     "  -t N              threads, 1-64 (default: all cores)\n"
     "  -d DIR            directory of the tables (default: tables), without ':'\n"
     "  -q                print nothing for a consistent table (an inconsistent one\n"
     "                    is still reported, on stderr)\n"
     "  --set NAME        every table of a set, subtables first, in bounded memory;\n"
     "                    goes on past an inconsistent table\n"
     "  --pieces, --attackers, --defenders, --with, --without   as for gen --set\n",
     NULL},
    {"check", cmd_check, "xqtb check [-d DIR] [--deep] [-q] [--wdl-only | --no-dtm] [MATERIAL...]",
     "check the compressed files: headers, checksums, missing or mixed files",
     "  -d DIR            directory of the tables (default: tables)\n"
     "  --deep            also decompress every block\n"
     "  -q                list only the files that are not sound (and the totals)\n"
     "  --wdl-only        a set exported so: no DTM nor DTC file is needed\n"
     "  --no-dtm          a set exported so: no DTM file is needed\n"
     "  MATERIAL          the tables to check (default: every one in DIR)\n",
     "Exit status: 0 every file sound and consistent, 1 no table files in DIR,\n"
     "2 bad arguments, 3 a file damaged, missing, unreadable, stale or mixed.\n"},
    {"probe", cmd_probe, "xqtb probe [-d DIR[:DIR...]] [--json] [--line] [--counter N] FEN",
     "value of a position and of every legal move, best first",
     "  -d DIR[:DIR...]   directories searched for tables, in order (default: tables)\n"
     "  --json            one JSON object instead of text\n"
     "  --line            play the best moves out to the end of the game\n"
     "  --counter N       plies since the last capture, for the move limit (default: the\n"
     "                    FEN's fifth field)\n",
     NULL},
    {"serve", cmd_serve, "xqtb serve [-d DIR[:DIR...]] [--listen HOST:PORT] [-t N]",
     "the web explorer: a page and a JSON API over HTTP, until interrupted",
     "  -d DIR[:DIR...]   directories searched for tables, in order (default: tables)\n"
     "  --listen HOST:PORT  address to listen on (default 127.0.0.1:8080; port 0: any free one)\n"
     "  -t N              threads answering requests (default: the processors, 2-16)\n",
     "Exit status: 0 stopped by SIGINT or SIGTERM, 2 bad arguments,\n"
     "3 the address cannot be listened on.\n"},
    {"adjudicate", cmd_adjudicate,
     "xqtb adjudicate [-d DIR[:DIR...]] [--json] [--rules none|check|full|asian|cxa] [FILE]",
     "judge a game record: the move limit (claims, mistakes, wasted plies) and its final repetition",
     "  -d DIR[:DIR...]   directories searched for tables, in order (default: tables)\n"
     "  --json            one JSON object instead of text\n"
     "  --rules SET       rule set of the repetition verdict (default: the tables', else full)\n"
     "  FILE              the record, a FEN line then the moves (default, or -: stdin)\n",
     NULL},
};
enum { NCOMMANDS = sizeof commands / sizeof *commands };

/* The synopsis lines, the first after `first`, the others after `rest`. */
static void print_synopsis(FILE *f, const command *c, const char *first, const char *rest)
{
    const char *prefix = first;
    for (const char *s = c->synopsis; *s;) {
        size_t n = strcspn(s, "\n");
        fprintf(f, "%s%.*s\n", prefix, (int)n, s);
        prefix = rest;
        s += n + (s[n] == '\n');
    }
}

/* `xqtb NAME --help`. */
static void command_usage(const command *c)
{
    print_synopsis(stdout, c, "usage: ", "       ");
    printf("\n%c%s.\n\n", toupper((unsigned char)c->summary[0]), c->summary + 1);
    printf("options:\n%s  -h, --help        this help\n\n", c->options);
    if (c->exits)
        printf("%sSee docs/CLI.md.\n", c->exits);
    else
        printf("Exit status: 0 answer, 1 no answer (e.g. a table is missing), 2 bad input,\n"
               "3 machine failure (memory, disk, damaged file).  See docs/CLI.md.\n");
}

/* `xqtb --help`: every command with every option. */
static void usage(FILE *f)
{
    fprintf(f, "usage: xqtb COMMAND [ARGS]\n"
               "       xqtb help [COMMAND]     (or --help, -h)\n"
               "       xqtb --version\n\n"
               "commands:\n");
    for (int i = 0; i < NCOMMANDS; i++) {
        print_synopsis(f, &commands[i], "  ", "  ");
        fprintf(f, "      %s\n", commands[i].summary);
    }
    fprintf(f, "\n`xqtb COMMAND --help` (or -h anywhere among its arguments) describes a\n"
               "command's options.  Exit status: 0 answer, 1 no answer (not covered),\n"
               "2 bad input, 3 machine failure (memory, disk, damaged file).\n");
}

static const command *find_command(const char *name)
{
    for (int i = 0; i < NCOMMANDS; i++)
        if (!strcmp(name, commands[i].name)) return &commands[i];
    fprintf(stderr, "xqtb: unknown command '%s' (try xqtb --help)\n", name);
    return NULL;
}

static int is_help(const char *arg) { return !strcmp(arg, "-h") || !strcmp(arg, "--help"); }

static int run(int argc, char **argv)
{
    if (argc < 2 || is_help(argv[1]) || !strcmp(argv[1], "help")) {
        if (argc > 2 && !strcmp(argv[1], "help")) {
            const command *c = find_command(argv[2]);
            if (!c) return EXIT_BAD_INPUT;
            command_usage(c);
            return 0;
        }
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? EXIT_BAD_INPUT : 0;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("xqtb %d.%d.%d\n", XQTB_VERSION_MAJOR, XQTB_VERSION_MINOR, XQTB_VERSION_PATCH);
        return 0;
    }
    const command *c = find_command(argv[1]);
    if (!c) return EXIT_BAD_INPUT;
    /* Help is asked here for every command, so no parser has to know about
     * it; no argument of any command can be "-h" or "--help" otherwise (a
     * file of that name is ./-h). */
    for (int i = 2; i < argc; i++)
        if (is_help(argv[i])) {
            command_usage(c);
            return 0;
        }
    return c->run(argc - 1, argv + 1);
}

int main(int argc, char **argv)
{
    int rc = run(argc, argv);
    /* An answer that did not reach standard output (a full disk, a closed
     * pipe, /dev/full) is no answer: every command's output is checked
     * here, once, after it has written all of it.  A status the command
     * returned for a worse reason stands. */
    errno = 0;
    if ((fflush(stdout) != 0 || ferror(stdout)) && rc != EXIT_FAILURE_IO) {
        fprintf(stderr, "xqtb%s%.40s: cannot write standard output: %s\n", argc > 1 ? " " : "", argc > 1 ? argv[1] : "",
                errno ? strerror(errno) : "write error");
        rc = EXIT_FAILURE_IO;
    }
    return rc;
}
