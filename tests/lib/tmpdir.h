/*
 * tmpdir.h - a fresh temporary directory per test binary, removed at exit,
 * so tests never read or leave tables outside it.
 */
#ifndef XQ_TEST_TMPDIR_H
#define XQ_TEST_TMPDIR_H

/* Path of this process's temporary directory (created on first call). */
const char *test_tmpdir(void);

/* 1 if every file of directory a is in b with the same bytes and the other
 * way round (diff -r), else 0: what a rebuilt or converted set is held to. */
int dirs_identical(const char *a, const char *b);

#endif
