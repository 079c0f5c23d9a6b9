/*
 * ref_repetition.h - a reference solver for the repetition rulings (issue 5) on
 * explicit game graphs, for checking the generator.  It shares with the
 * generator only the rules core (board, make_move, legal move generation)
 * and the enums of core/labels.h; positions come from the reference solver
 * (ref_solver.h), move labels from ref_labels.h, and the infinite-play
 * condition is solved with Zielonka's recursive algorithm on an explicit
 * product parity game (the method is explained in ref_repetition.c).
 *
 * Values are from the side to move's point of view: wdl 1 / 0 / -1.
 * by_rule (xq_by_rule) says which rule set first decides a result: NONE if
 * it is decided already when every repetition is a draw, CHECK if it needs
 * the perpetual-check ruling, CHASE if it needs the perpetual-chase ruling
 * as well (under cxa: CHASE for every ruled result, the perpetual-attack
 * ruling, as tables record it).  dtm is the reference solver's (rules none)
 * for BY_NONE results and 0 otherwise.
 */
#ifndef XQ_REF_RULES_H
#define XQ_REF_RULES_H

#include "material.h"
#include "ref_solver.h"
#include "ruleset.h"

typedef struct ref_rules_db ref_rules_db;

/* Rule sets the reference solves: the table sets, asian and cxa
 * (ruleset.h). */
enum { REF_RULES_NB = XQ_RULES_CXA + 1 };

enum {
    /* Build the product over every position, not only over the draws of
     * rules none (slower; makes "a result of rules none never changes" a
     * checked property instead of an assumption). */
    REF_RULES_FULL_GRAPH = 1,
    /* Also solve rules none with the parity-game machinery (implies
     * FULL_GRAPH) and require the reference solver's values. */
    REF_RULES_CHECK_NONE = 2,
};

/* Solves material m (colours as given) and every material a capture leads
 * to, under XQ_RULES_NONE up to `rules` (every rule set in between too, for
 * by_rule; rules may be XQ_RULES_ASIAN, which also solves full, or
 * XQ_RULES_CXA, which also solves asian).  Returns NULL on failure (out of memory, or a broken
 * internal check, with a message on stderr). */
ref_rules_db *ref_rules_solve(const xq_material *m, int rules, int flags);
void ref_rules_free(ref_rules_db *db);

typedef struct {
    int wdl;
    int dtm;     /* -1 if the board is not a legal position of a solved material */
    int by_rule; /* xq_by_rule */
} ref_rules_value;

/* Value of a board of the root material or of any solved subtable, under
 * the rule set db was solved for. */
ref_rules_value ref_rules_lookup(const ref_rules_db *db, const xq_board *b);
/* Value of position i of the root material (ids as ref_rules_base's) under
 * rule set r, at most the solved one; by_rule as if the table were built
 * under r. */
ref_rules_value ref_rules_value_at(const ref_rules_db *db, int i, int r);
/* wdl of a board under rule set r (r at most the solved rule set); 0 if the
 * board is unknown. */
int ref_rules_wdl_under(const ref_rules_db *db, const xq_board *b, int r);

/* The reference solver's db of the root material (rules none, positions and
 * ids): iterate over positions with ref_count / ref_board. */
const ref_db *ref_rules_base(const ref_rules_db *db);

/* Positions of the root material (per side to move) whose result the
 * ruling of rule set r decides: won or lost under r, drawn under r - 1
 * (asian: under check; cxa: under none). */
typedef struct {
    int decided[REF_RULES_NB][2];
    int product_vertices[REF_RULES_NB]; /* size of the product game solved */
    int asian_differs[2];               /* asian's value is not full's (asian solved) */
    int cxa_differs[2];                 /* cxa's value is not full's (cxa solved) */
} ref_rules_stats;
void ref_rules_get_stats(const ref_rules_db *db, ref_rules_stats *st);

#endif
