/*
 * atomic_file.h - writing a file so that its name appears only when its content
 * is complete and on disk: a temporary file beside it, fsync, rename, and
 * a sync of the directory.  An interrupted or failed write (a full disk)
 * leaves the old file, or none, never a partial one under the real name.
 */
#ifndef XQ_ATOMIC_H
#define XQ_ATOMIC_H

#include <stddef.h>

#include "fen.h" /* XQ_ERR_MAX */

typedef struct {
    int fd;
    char path[4096], tmp[4200];
} atomic_file;

/* Creates PATH.tmp.PID.  0, or -1 with a message. */
int atomic_open(atomic_file *f, const char *path, char err[XQ_ERR_MAX]);
/* Appends n bytes.  0, or -1 with a message (the file is then abandoned:
 * call atomic_abort). */
int atomic_write(atomic_file *f, const void *data, size_t n, char err[XQ_ERR_MAX]);
/* fsync, rename over PATH, sync the directory.  0, or -1 (abandoned). */
int atomic_commit(atomic_file *f, char err[XQ_ERR_MAX]);
/* Closes and removes the temporary file. */
void atomic_abort(atomic_file *f);

#endif
