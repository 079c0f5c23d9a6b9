/*
 * ruleset.h - the repetition rule sets a table can be built under
 * (docs/RULES.md, "Repetition"), and which ruling decided a result.
 * "rules" in option and field names means one of these sets.
 */
#ifndef XQ_RULESET_H
#define XQ_RULESET_H

/* Rule sets, as recorded in table files (format field "repetition rule"). */
typedef enum {
    XQ_RULES_NONE = 0,  /* every repetition is a draw */
    XQ_RULES_CHECK = 1, /* perpetual check loses */
    XQ_RULES_FULL = 2,  /* perpetual check and perpetual chase lose */
    XQ_RULES_NB = 3,
} xq_rules;

/* Which ruling decided a result (tb_value.by_rule, probe output). */
typedef enum {
    XQ_BY_NONE = 0,  /* ordinary result: mate, stalemate or a draw */
    XQ_BY_CHECK = 1, /* holds already when only perpetual check is ruled */
    XQ_BY_CHASE = 2, /* needs the perpetual-chase ruling as well */
} xq_by_rule;

/* "none", "check", "full"; NULL for an unknown value. */
const char *xq_rules_name(int rules);
/* Parses a rule-set name.  Returns the xq_rules value or -1. */
int xq_rules_parse(const char *s);

#endif
