/*
 * atomic_file.c - see atomic_file.h.
 */
#include "atomic_file.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int atomic_open(atomic_file *f, const char *path, char err[XQ_ERR_MAX])
{
    snprintf(f->path, sizeof f->path, "%s", path);
    snprintf(f->tmp, sizeof f->tmp, "%s.tmp.%ld", path, (long)getpid());
    f->fd = open(f->tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
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
    int dfd = open(dirname(dir), O_RDONLY | O_DIRECTORY);
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
