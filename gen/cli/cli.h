/*
 * cli.h - the xqtb command-line subcommands and their shared helpers.
 *
 * Exit status convention for every subcommand: 0 success, 1 a valid question
 * without an answer (e.g. position not covered), 2 bad input or usage,
 * 3 a failure of the machine (out of memory, disk full, I/O error).
 */
#ifndef XQ_CLI_H
#define XQ_CLI_H

#include <stdio.h>

#include "material.h"
#include "xqtb.h"

enum { EXIT_ANSWER = 0, EXIT_NO_ANSWER = 1, EXIT_BAD_INPUT = 2, EXIT_FAILURE_IO = 3 };

/* The subcommands, each with its row (usage and options, printed by
 * --help) in main.c's command table; main.c answers -h and --help itself,
 * so argv never holds them. */
int cmd_perft(int argc, char **argv);
int cmd_fen(int argc, char **argv);
int cmd_moves(int argc, char **argv);
int cmd_gen(int argc, char **argv);
int cmd_stats(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_probe(int argc, char **argv);
int cmd_adjudicate(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_sets(int argc, char **argv);
int cmd_plan(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_serve(int argc, char **argv);

/* Prints "xqtb CMD: message" to stderr and returns EXIT_BAD_INPUT. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Parses a non-negative decimal integer no larger than max; -1 if malformed. */
long cli_parse_uint(const char *s, long max);

/* The counter of a FEN the library has accepted (xqtb_position_from_fen,
 * which keeps only the board and side): its field 5, the plies since the
 * last capture, 0 if absent (the library's default).  Fields are counted
 * from the first non-blank character. */
int cli_fen_counter(const char *fen);

/* The name of an xqtb_ruling in output ("perpetual_check", ..., "ruling"
 * for XQTB_BY_RULING); NULL for XQTB_BY_NONE or an unknown value. */
const char *cli_ruling_name(int by_rule);

/* Position pos's value at counter, as `xqtb probe` and the explorer show
 * it: from every file (xqtb_probe_counter); or, where a DTM file is
 * missing and the tables have a move limit (a set exported with --no-dtm),
 * from the WDL and DTC files (xqtb_probe_dtc): dtm XQTB_NO_DISTANCE, and a
 * result decided by a ruling told as XQTB_BY_RULING, order 0, as
 * xqtb_probe_root values moves from those files; *lean (if not NULL)
 * says which.  Returns an xqtb_status (xqtb_probe_counter's where neither
 * answers). */
int cli_probe_value(xqtb_handle *h, const xqtb_position *pos, int counter, xqtb_result *r, int *lean);
/* The name of an xqtb_rule_set ("none", ... "cxa"); "?" if unknown. */
const char *cli_rules_name(int rules);

/* The kind (XQF_KIND_WDL, _DTM, _DTC) of a compressed table file name such
 * as "KRKNAA.xqd", with its canonical material in *m and name; -1 for any
 * other file (another extension, or a name not in canonical form). */
int cli_table_file(const char *file, xq_material *m, char name[XQ_MATERIAL_MAX]);

/* probe --json's object for pos at counter (no newline): its value r, its
 * n root moves mv, and the line of nline moves if line is not NULL. */
void cli_probe_json(FILE *out, xqtb_handle *h, const xqtb_position *pos, int counter, const xqtb_result *r,
                    const xqtb_root_move *mv, int n, const uint16_t *line, int nline);

/* stats --json's object for material m from the raw table in dir (no
 * newline).  Returns 0, or -1 with the reason in err (the table missing
 * or damaged, out of memory). */
int cli_stats_json(FILE *out, const char *dir, const xq_material *m, char err[XQ_ERR_MAX]);

#endif
