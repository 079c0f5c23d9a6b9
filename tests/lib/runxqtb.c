/*
 * runxqtb.c - see runxqtb.h.
 */
#include "runxqtb.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>

char xqtb_out[1 << 16];

static int vrun(int seconds, const char *fmt, va_list ap)
{
    const char *bin = getenv("XQTB");
    if (!bin) bin = "build/xqtb";
    char args[2048], cmd[4096], prefix[32] = "";
    vsnprintf(args, sizeof args, fmt, ap);
    /* coreutils' timeout turns a hang into exit status 124 */
    if (seconds > 0) snprintf(prefix, sizeof prefix, "timeout %d ", seconds);
    snprintf(cmd, sizeof cmd, "%s%s %s 2>&1", prefix, bin, args);
    FILE *p = popen(cmd, "r");
    if (!p) return -1;
    size_t n = fread(xqtb_out, 1, sizeof xqtb_out - 1, p);
    xqtb_out[n] = 0;
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int run_xqtb(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = vrun(0, fmt, ap);
    va_end(ap);
    return rc;
}

int run_xqtb_within(int seconds, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = vrun(seconds, fmt, ap);
    va_end(ap);
    return rc;
}
