/*
 * tmpdir.c - see tmpdir.h.
 */
#include "tmpdir.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char dir[256];

static void remove_dir(void)
{
    if (!dir[0]) return;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
}

const char *test_tmpdir(void)
{
    if (!dir[0]) {
        const char *base = getenv("TMPDIR");
        snprintf(dir, sizeof dir, "%s/xqtb-test-XXXXXX", base && *base ? base : "/tmp");
        if (!mkdtemp(dir)) {
            perror("mkdtemp");
            exit(1);
        }
        atexit(remove_dir);
    }
    return dir;
}

int dirs_identical(const char *a, const char *b)
{
    char cmd[2048];
    if (snprintf(cmd, sizeof cmd, "diff -r '%s' '%s' >/dev/null", a, b) >= (int)sizeof cmd) return 0;
    return system(cmd) == 0;
}
