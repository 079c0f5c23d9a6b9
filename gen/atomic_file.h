/*
 * atomic_file.h - writing a file so that its name appears only when its content
 * is complete and on disk: a temporary file beside it, fsync, rename, and
 * a sync of the directory.  An interrupted or failed write (a full disk)
 * leaves the old file, or none, never a partial one under the real name.
 * A run that is killed leaves its temporary file, which the next run
 * removes (atomic_clean_dir).
 */
#ifndef XQ_ATOMIC_H
#define XQ_ATOMIC_H

#include <stddef.h>

#include "fen.h" /* XQ_ERR_MAX */

typedef struct {
    int fd;
    char path[4096], tmp[4200];
} atomic_file;

/* Creates the temporary file PATH.tmp.HOST.PID: HOST is this machine's
 * name (letters, digits, '-' and '_' kept, anything else '_'), PID this
 * process's, so that a leftover names its writer and atomic_clean_dir can
 * tell whether that writer is gone.  The file is created new (O_EXCL) and
 * never through a symbolic link (O_NOFOLLOW): a regular file already there
 * is a leftover of a dead process that had this pid, and is replaced;
 * anything else in the way (a symbolic link) is refused.  0, or -1 with a
 * message. */
int atomic_open(atomic_file *f, const char *path, char err[XQ_ERR_MAX]);
/* Appends n bytes.  0, or -1 with a message (the file is then abandoned:
 * call atomic_abort). */
int atomic_write(atomic_file *f, const void *data, size_t n, char err[XQ_ERR_MAX]);
/* fsync, rename over PATH, sync the directory.  0, or -1 (abandoned). */
int atomic_commit(atomic_file *f, char err[XQ_ERR_MAX]);
/* Closes and removes the temporary file. */
void atomic_abort(atomic_file *f);

/* Called with the name (within the directory) and writer of each leftover
 * atomic_clean_dir removes. */
typedef void (*atomic_removed_fn)(void *arg, const char *name, long pid);

/* Removes the leftovers of killed runs from dir: regular files named
 * *.tmp.HOST.PID (atomic_open's names) of this host whose process is gone
 * (kill(PID, 0) fails with ESRCH).  Files of other hosts, of live
 * processes, and anything not a regular file are left alone.  Returns how
 * many were removed (0 if dir cannot be read). */
int atomic_clean_dir(const char *dir, atomic_removed_fn fn, void *arg);

#endif
