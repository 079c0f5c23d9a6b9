/*
 * runxqtb.c - see runxqtb.h.
 */
#include "runxqtb.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>

char xqtb_out[1 << 16];

int run_xqtb(const char *fmt, ...)
{
    const char *bin = getenv("XQTB");
    if (!bin) bin = "build/xqtb";
    char args[2048], cmd[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    snprintf(cmd, sizeof cmd, "%s %s 2>&1", bin, args);
    FILE *p = popen(cmd, "r");
    if (!p) return -1;
    size_t n = fread(xqtb_out, 1, sizeof xqtb_out - 1, p);
    xqtb_out[n] = 0;
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}
