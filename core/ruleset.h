/*
 * ruleset.h - the repetition rule sets a table can be built under
 * (docs/RULES.md, "Repetition"), and which ruling decided a result.
 * "rules" in option and field names means one of these sets.
 */
#ifndef XQ_RULESET_H
#define XQ_RULESET_H

/* Rule sets, all of which tables can be built under, as recorded in table
 * files (format field "repetition rule"); asian and cxa are also the
 * arbiter's (core/verdict.c, docs/RULES.md "Rule sets for arbiters"). */
typedef enum {
    XQ_RULES_NONE = 0,  /* every repetition is a draw */
    XQ_RULES_CHECK = 1, /* perpetual check loses */
    XQ_RULES_FULL = 2,  /* perpetual check and perpetual chase lose */
    XQ_RULES_NB = 3,    /* the nested table rule sets (none, check, full) are below this */
    XQ_RULES_ASIAN = 3, /* full, with chases counted on checking moves too */
    XQ_RULES_CXA = 4,   /* any perpetual attack (check, mate threat, chase) loses */
    XQ_JUDGE_NB = 5,    /* every rule set a repetition can be judged under */
} xq_rules;

/* Which ruling decided a result (tb_value.by_rule, probe output). */
typedef enum {
    XQ_BY_NONE = 0,  /* ordinary result: mate, stalemate or a draw */
    XQ_BY_CHECK = 1, /* holds already when only perpetual check is ruled */
    XQ_BY_CHASE = 2, /* needs the perpetual-chase ruling as well */
    /* Arbiters' verdicts under rule set cxa only (no table records them): */
    XQ_BY_THREAT = 3, /* perpetual mate threat, or checks and mate threats (长杀, 一将一杀) */
    XQ_BY_ATTACK = 4, /* perpetual attack mixing chases with checks or threats (一将一捉, 一杀一捉) */
} xq_by_rule;

/* "none", "check", "full", "asian", "cxa"; NULL for an unknown value. */
const char *xq_rules_name(int rules);
/* Whether tables can be built under rule set `rules` (every rule set). */
int xq_rules_for_tables(int rules);
/* Parses the name of a rule set tables can be built under.  Returns the
 * xq_rules value (one xq_rules_for_tables accepts) or -1. */
int xq_rules_parse(const char *s);

#endif
