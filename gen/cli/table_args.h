/*
 * table_args.h - the options of the subcommands over tables (gen, stats,
 * verify, sets, plan), parsed in one place so that an option means the same
 * in each.
 */
#ifndef XQ_TABLE_ARGS_H
#define XQ_TABLE_ARGS_H

#include <stdint.h>

#include "catalog.h"
#include "tb.h"

typedef struct {
    const char *dir;
    int threads, quiet, json, force, wide, rules, limit, store_both, keep_raw;
    uint64_t max_memory;
    const char *material[64];
    int nmaterial;
    int has_set;     /* --set NAME, or --all N (the set up-to-N) */
    tb_set_spec set; /* its name and filters */
    const char *out; /* -o FILE */
} table_args;

/* Parses argv; `allowed` lists the flags the subcommand takes, e.g.
 * "tdqjf" ('s': --set and --all with the filters, 'o': -o FILE, 'n': a bare word
 * names the set).  With
 * need_target, a subcommand must be given materials or a set.  Returns 0
 * or EXIT_BAD_INPUT (message printed). */
int parse_table_args(const char *cmd, int argc, char **argv, const char *allowed, int need_target, table_args *a);
/* Parses a material argument into its canonical orientation.  0 or
 * EXIT_BAD_INPUT (message printed). */
int parse_material_arg(const char *cmd, const char *s, xq_material *m);
/* Prints why a table could not be loaded; returns the exit status: missing
 * is "no answer", anything else (damaged, unreadable) a failure of the
 * machine's files. */
int load_failure(const char *cmd, const char *err);

/* The generator's options as the arguments ask (no memory report). */
void table_gen_options(const table_args *a, tb_gen_options *opt);

/* The subcommands' work over a named set (sets.c): gen --set, stats --set.
 * Each returns an exit status. */
int gen_set(const table_args *a);
int stats_set(const table_args *a);

#endif
