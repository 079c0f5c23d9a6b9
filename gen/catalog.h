/*
 * catalog.h - the named table sets (docs/GENERATOR.md, "Table sets"): which
 * materials a set holds, narrowed by filters, closed under captures (every
 * subtable a member needs), and what building it should cost.
 *
 * Sets:
 *   one-attacker  one side has exactly one attacking piece (R, N, C or P)
 *                 and any advisors and elephants, the other side advisors
 *                 and elephants only: 324 materials of 3 to 11 pieces;
 *   up-to-N       every material of at most N pieces, kings included
 *                 (N from 2 to 8): what `gen --all N` builds.
 * Filters narrow the set's own materials; the subtables they need are
 * added whatever the filters say, since the members cannot be built
 * without them.
 */
#ifndef XQ_CATALOG_H
#define XQ_CATALOG_H

#include <stdint.h>

#include "material.h"

/* An inclusive range of counts. */
typedef struct {
    int lo, hi;
} tb_count_range;

/* Which side a per-side filter counts: both together, the stronger side
 * (the one with more attacking pieces; on a tie, the side the canonical
 * name puts first), or the other. */
enum { TB_SIDES_BOTH, TB_SIDE_STRONG, TB_SIDE_WEAK, TB_SIDES };

typedef struct {
    tb_count_range pieces;              /* kings included */
    tb_count_range attackers[TB_SIDES]; /* rooks, horses, cannons, pawns */
    tb_count_range defenders[TB_SIDES]; /* advisors and elephants */
    uint8_t with[KIND_NB];              /* at least this many of the kind on the board */
    uint8_t without[KIND_NB];           /* 1: none of the kind on the board */
} tb_set_filter;

typedef struct {
    char name[32]; /* canonical: "one-attacker", "up-to-5" */
    int up_to;     /* N of up-to-N; 0 for one-attacker */
    tb_set_filter filter;
} tb_set_spec;

typedef struct {
    xq_material mat;  /* canonical */
    int target;       /* 1: a member the set names; 0: a subtable a member needs */
    uint64_t entries; /* index entries per side to move */
} tb_set_member;

/* The materials of a set, fewest pieces first (then by name), so that each
 * table's subtables come before it. */
typedef struct {
    tb_set_member *m;
    int n, targets;
    uint64_t entries, target_entries;
} tb_set_list;

enum { TB_CATALOG_ROWS = 5 };
/* The sets `xqtb sets` lists, one name per row ("one-attacker", "up-to-3",
 * ...); up-to-N is listed for a few N but takes any N from 2 to 8. */
const char *tb_catalog_row(int i);
/* One line describing the set. */
const char *tb_catalog_describe(const tb_set_spec *s);

/* A filter that keeps every material. */
void tb_set_filter_init(tb_set_filter *f);
/* Parses a set name into s, with no filter.  0, or -1 with a message. */
int tb_set_spec_parse(const char *name, tb_set_spec *s, char err[XQ_ERR_MAX]);
/* Applies the filter option `opt` (--pieces, --attackers, --defenders,
 * --with, --without) with its value.  Returns 1 if opt is a filter option
 * and was applied, 0 if opt is not one, -1 (message) if the value is
 * malformed or impossible. */
int tb_set_filter_option(tb_set_filter *f, const char *opt, const char *value, char err[XQ_ERR_MAX]);
/* Whether the filter keeps canonical material m. */
int tb_set_filter_keeps(const tb_set_filter *f, const xq_material *m);
/* The filter written back as options ("--pieces 3-7 --with R"), "" if it
 * keeps everything; buf of at least 256 bytes. */
void tb_set_filter_text(const tb_set_filter *f, char *buf, size_t len);

/* Lists the set's materials with their subtables.  0, or -1 with a message
 * (no material matches the filters, or out of memory).  Free with
 * tb_set_list_free. */
int tb_set_list_make(const tb_set_spec *s, tb_set_list *out, char err[XQ_ERR_MAX]);
void tb_set_list_free(tb_set_list *l);

/* ---- estimates ------------------------------------------------------------
 * Rates measured on the development machine (docs/BENCHMARKS.md, "Table
 * sets"), two threads, the default rules and move limit: a guide, not a
 * promise; the rulings' game graph, which depends on the positions left
 * drawn, is not in the memory figure. */
typedef struct {
    double seconds;          /* to generate, with the default options and two threads */
    uint64_t memory;         /* the least its memory plan (memplan.h) counts, the
                                tables gen holds then included */
    double convert_seconds;  /* to write its files again from files of the other
                                --store-both setting (tb_table_done: TB_TO_CONVERT) */
    uint64_t convert_memory; /* the same: the table's arrays and compression's work */
    uint64_t disk;           /* compressed files */
    uint64_t raw;            /* raw files, written only with --keep-raw */
} tb_estimate;

/* Estimates for every member of l, built in the list's order under rules
 * and limit with `threads` threads, as `xqtb gen --set` builds them:
 * done[i] (done NULL: none) is tb_table_done's finding for member i.  A
 * member TB_DONE is not built (its estimate is that of building it alone,
 * its subtables in memory) but loaded when a later one needs it.  The
 * memory of the others counts the tables the run holds when it comes to
 * them: their own subtables and those the members after them still need
 * (tb_set_trim), each table at the least it takes in memory, so a member
 * whose estimate exceeds a limit cannot fit in it.  0, or -1 if out of
 * memory. */
int tb_set_estimates(const tb_set_list *l, const uint8_t *done, int rules, int limit, int threads, tb_estimate *est);

#endif
