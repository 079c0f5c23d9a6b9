/*
 * tmpdir.h - a fresh temporary directory per test binary, removed at exit,
 * so tests never read or leave tables outside it.
 */
#ifndef XQ_TEST_TMPDIR_H
#define XQ_TEST_TMPDIR_H

/* Path of this process's temporary directory (created on first call). */
const char *test_tmpdir(void);

#endif
