/*
 * runxqtb.h - running the xqtb command from a test: `xqtb ARGS` through the
 * shell with stdout and stderr captured, the binary taken from $XQTB (the
 * sanitizer build sets it) or build/xqtb.
 */
#ifndef XQ_TEST_RUNXQTB_H
#define XQ_TEST_RUNXQTB_H

/* Output of the last run, NUL-terminated (truncated at 64 KiB). */
extern char xqtb_out[1 << 16];

/* Runs `xqtb ARGS` (printf-style); returns the exit status, or -1 if the
 * command did not exit normally (a crash). */
int run_xqtb(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* As run_xqtb, but a run still going after `seconds` is killed and
 * returns 124: for inputs that once made xqtb hang. */
int run_xqtb_within(int seconds, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
