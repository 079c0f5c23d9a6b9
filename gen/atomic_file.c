/*
 * atomic_file.c - see atomic_file.h.
 */
#include "atomic_file.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { HOST_MAX = 64 };

/* This machine's name as temporary names carry it: no '.', which separates
 * the name's fields, nor '/'; "unknown" if the system has none. */
static void host_tag(char out[HOST_MAX + 1])
{
    char h[256];
    if (gethostname(h, sizeof h) != 0) h[0] = 0;
    h[sizeof h - 1] = 0;
    size_t n = 0;
    for (; h[n] && n < HOST_MAX; n++) {
        unsigned char c = (unsigned char)h[n];
        out[n] = isalnum(c) || c == '-' || c == '_' ? (char)c : '_';
    }
    out[n] = 0;
    if (n == 0) snprintf(out, HOST_MAX + 1, "unknown");
}

/* Opens f->tmp new, never through a symbolic link. */
static int open_new(const atomic_file *f)
{
    return open(f->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
}

int atomic_open(atomic_file *f, const char *path, char err[XQ_ERR_MAX])
{
    char host[HOST_MAX + 1];
    host_tag(host);
    f->fd = -1;
    snprintf(f->path, sizeof f->path, "%s", path);
    int n = snprintf(f->tmp, sizeof f->tmp, "%s.tmp.%s.%ld", path, host, (long)getpid());
    if (strlen(path) >= sizeof f->path || n < 0 || (size_t)n >= sizeof f->tmp) {
        snprintf(err, XQ_ERR_MAX, "cannot create a temporary file for %.60s: the path is too long", path);
        return -1;
    }
    f->fd = open_new(f);
    if (f->fd < 0 && errno == EEXIST) {
        /* The name holds this host and this process's pid, which no live
         * process but this one can hold: a regular file under it is what a
         * dead process with the same pid left.  Anything else was put there
         * (a symbolic link aimed outside the directory): refuse it. */
        struct stat sb;
        if (lstat(f->tmp, &sb) == 0 && S_ISREG(sb.st_mode) && unlink(f->tmp) == 0) {
            f->fd = open_new(f);
        } else {
            snprintf(
                err, XQ_ERR_MAX,
                "refusing to create %.60s: it exists and is not a regular file (a symbolic link is never followed)",
                f->tmp);
            return -1;
        }
    }
    if (f->fd < 0) {
        snprintf(err, XQ_ERR_MAX, "cannot create %.60s: %s", f->tmp, strerror(errno));
        return -1;
    }
    return 0;
}

int atomic_write(atomic_file *f, const void *data, size_t n, char err[XQ_ERR_MAX])
{
    const unsigned char *p = data;
    while (n) {
        ssize_t w = write(f->fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            snprintf(err, XQ_ERR_MAX, "cannot write %.60s: %s", f->tmp, w < 0 ? strerror(errno) : "no progress");
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

int atomic_commit(atomic_file *f, char err[XQ_ERR_MAX])
{
    /* fsync before rename: after a crash the name must not point at data
     * that never reached the disk. */
    if (fsync(f->fd) || close(f->fd)) {
        snprintf(err, XQ_ERR_MAX, "cannot write %.60s: %s", f->tmp, strerror(errno));
        f->fd = -1;
        unlink(f->tmp);
        return -1;
    }
    f->fd = -1;
    if (rename(f->tmp, f->path)) {
        snprintf(err, XQ_ERR_MAX, "cannot rename %.60s: %s", f->tmp, strerror(errno));
        unlink(f->tmp);
        return -1;
    }
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", f->path);
    int dfd = open(dirname(dir), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        fsync(dfd); /* makes the rename itself durable; best effort */
        close(dfd);
    }
    return 0;
}

void atomic_abort(atomic_file *f)
{
    if (f->fd >= 0) close(f->fd);
    f->fd = -1;
    unlink(f->tmp);
}

/* The pid of a name NAME.tmp.HOST.PID of this host, or -1. */
static long leftover_pid(const char *name, const char *host)
{
    const char *dot = strrchr(name, '.');
    if (!dot || dot == name || !isdigit((unsigned char)dot[1])) return -1;
    char *end;
    errno = 0;
    long pid = strtol(dot + 1, &end, 10);
    if (*end || errno || pid <= 0 || pid > INT32_MAX) return -1;
    size_t hl = strlen(host), before = (size_t)(dot - name);
    /* ...".tmp." HOST "." PID, with something before ".tmp." */
    if (before < hl + 6 || memcmp(dot - hl, host, hl) || memcmp(dot - hl - 5, ".tmp.", 5)) return -1;
    return pid;
}

int atomic_clean_dir(const char *dir, atomic_removed_fn fn, void *arg)
{
    char host[HOST_MAX + 1];
    host_tag(host);
    DIR *d = opendir(dir);
    if (!d) return 0;
    int removed = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        long pid = leftover_pid(e->d_name, host);
        if (pid < 0) continue;
        /* EPERM means a live process of another user: only ESRCH is gone. */
        if (kill((pid_t)pid, 0) == 0 || errno != ESRCH) continue;
        struct stat sb;
        if (fstatat(dirfd(d), e->d_name, &sb, AT_SYMLINK_NOFOLLOW) || !S_ISREG(sb.st_mode)) continue;
        if (unlinkat(dirfd(d), e->d_name, 0) == 0) {
            removed++;
            if (fn) fn(arg, e->d_name, pid);
        }
    }
    closedir(d);
    return removed;
}
