/*
 * ruleset.c - names of the rule sets (ruleset.h).
 */
#include "ruleset.h"

#include <string.h>

static const char *const rules_names[XQ_JUDGE_NB] = {"none", "check", "full", "asian", "cxa"};

const char *xq_rules_name(int rules) { return rules >= 0 && rules < XQ_JUDGE_NB ? rules_names[rules] : NULL; }

int xq_rules_for_tables(int rules) { return rules >= 0 && rules < XQ_JUDGE_NB; }

int xq_rules_parse(const char *s)
{
    for (int r = 0; r < XQ_JUDGE_NB; r++)
        if (xq_rules_for_tables(r) && s && strcmp(s, rules_names[r]) == 0) return r;
    return -1;
}
