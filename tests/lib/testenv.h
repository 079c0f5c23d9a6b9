/*
 * testenv.h - what the environment asks of a test run: the sanitizer build
 * (XQTB_SAN=1, which make's test-run sets there), where the largest walks
 * sample more sparsely or skip a table, and the slow comparisons
 * (XQTB_SLOW_TESTS=1), left out of every run.  Header-only and static, as
 * testutil.h.
 */
#ifndef XQ_TESTENV_H
#define XQ_TESTENV_H

#include <stdio.h>
#include <stdlib.h>

/* Whether environment variable `name` is set and starts with 1. */
static inline int test_env_is_1(const char *name)
{
    const char *s = getenv(name);
    return s && *s == '1';
}

/* Whether this is the sanitizer build's run. */
static inline int test_sanitized(void) { return test_env_is_1("XQTB_SAN"); }

/* Whether the comparisons too slow for every run are asked for. */
static inline int test_slow(void) { return test_env_is_1("XQTB_SLOW_TESTS"); }

/* Under the sanitizer build, prints that `what` is skipped there and
 * returns 1 (the caller then skips it); else 0. */
static inline int test_skipped_under_san(const char *what)
{
    if (!test_sanitized()) return 0;
    printf("    %s skipped under the sanitizer build (XQTB_SAN=1): too slow there\n", what);
    return 1;
}

#endif
