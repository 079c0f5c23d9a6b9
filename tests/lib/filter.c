/*
 * filter.c - runs only the test cases a developer names: with
 * XQTB_TEST_FILTER=PATTERN in the environment (cmocka's pattern, `*` and
 * `?` as wildcards), a test binary runs the cases whose names match, so
 * that one slow case can be timed or profiled on its own, e.g.
 *
 *     XQTB_TEST_FILTER=test_ruled_results_searched build-san/tests/test_probe
 *
 * cmocka 1.1 reads no such variable itself; a constructor linked into every
 * test binary passes it on before main runs.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

__attribute__((constructor)) static void test_filter_from_env(void)
{
    const char *pattern = getenv("XQTB_TEST_FILTER");
    if (pattern && *pattern) cmocka_set_test_filter(pattern);
}
