/*
 * testgen.h - what the generator and probe tests share: generate a table
 * (and its subtables) into the test's temporary directory, load it, and
 * verify it with every table it captures into.  Failures end the current
 * cmocka test with a message.
 */
#ifndef XQ_TESTGEN_H
#define XQ_TESTGEN_H

#include "tb.h"

/* Generates `name` with 2 threads into test_tmpdir() (reusing what is
 * there) and loads it into a new set, returned in *set (free it with
 * tb_set_free).  Returns the table. */
tb_table *testgen_load(const char *name, tb_set **set);

/* The same under rule set `rules` (xq_rules), in a subdirectory of
 * test_tmpdir() per rule set, so tables of different rule sets never meet. */
tb_table *testgen_load_rules(const char *name, int rules, tb_set **set);

/* The same with a natural move limit of `limit` plies (0: none), so that
 * the table carries DTC (dtc.h); one subdirectory per rule set and limit,
 * since tables of different limits do not mix either. */
tb_table *testgen_load_limit(const char *name, int rules, int limit, tb_set **set);

/* Every DTC code of t, red to move's entries first, in an array the
 * caller frees; *beyond gets how many are beyond the move limit. */
uint16_t *testgen_dtc_codes(const tb_table *t, uint64_t *beyond);

/* How many of t's DTC codes differ from `codes` (testgen_dtc_codes). */
uint64_t testgen_dtc_differ(const tb_table *t, const uint16_t *codes);

/* Writes the compressed files of t and, once each, of every table it
 * captures into, again into dir, with tb_compress_options.searched set to
 * `searched` (TB_SEARCH_*, compress.h). */
void testgen_rewrite_compressed(const tb_table *t, const char *dir, int searched);

/* tb_verify on t and, once each, every table it captures into. */
void testgen_verify_all(const tb_table *t);

/* The whole of a file, malloc'd (the test fails if it cannot be read). */
void testgen_read_file(const char *path, char **buf, long *len);

/* Writes the bytes of file `from` over file `to` (created, or truncated and
 * rewritten in place as cp does). */
void testgen_copy_file(const char *from, const char *to);

/* Copies FROM/NAME.EXT to TO/NAME.EXT (TO created if missing) for every
 * name of names[0..nnames) and extension of exts[0..nexts). */
void testgen_copy_tables(const char *from, const char *to, const char *const *names, int nnames,
                         const char *const *exts, int nexts);

/* Fails the test unless the two files are identical, byte for byte. */
void testgen_assert_same_file(const char *a, const char *b);

#endif
