/*
 * export.c - `xqtb export`: the files an engine needs for some materials,
 * and nothing else, copied (or listed) from a directory of generated
 * tables.
 *
 * An engine reads the compressed files only: NAME.xqw for WDL, NAME.xqd
 * for DTM, NAME.xqc for DTC under a move limit; never the generator's raw
 * NAME.xqtb.  A search needs the WDL files alone (--wdl-only), an engine
 * under the move limit the WDL and DTC files (--no-dtm: xqtb_probe_dtc and
 * xqtb_probe_wdl_counter read no DTM file), as chess engines take
 * Syzygy's WDL and DTZ files.  A probe of a material also reads its subtables (the material
 * after a capture): a WDL probe looks them up in its capture search
 * (docs/FORMAT.md, "Captures in WDL files"), as a search does through the
 * moves it tries, and a DTM or DTC probe of a file's searched side in its
 * one-ply search.  So a material's files come with every subtable's.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic_file.h"
#include "cli.h"
#include "index.h"
#include "table_args.h"
#include "tbcheck.h"
#include "tbformat.h"

/* A list of canonical materials without repeats. */
typedef struct {
    xq_material *m;
    int n, cap;
} mat_list;

static int mat_add(mat_list *l, const xq_material *m)
{
    for (int i = 0; i < l->n; i++)
        if (xq_material_equal(&l->m[i], m)) return 0;
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 64;
        xq_material *p = realloc(l->m, (size_t)cap * sizeof *p);
        if (!p) return -1;
        l->m = p;
        l->cap = cap;
    }
    l->m[l->n++] = *m;
    return 0;
}

/* m and every table a capture leads to from it, recursively. */
static int add_closure(mat_list *l, const xq_material *m)
{
    int before = l->n;
    if (mat_add(l, m)) return -1;
    if (l->n == before) return 0; /* already there, and so its subtables */
    xq_material sub[XQ_MAX_SUBTABLES];
    int n = xq_material_subtables(m, sub);
    for (int k = 0; k < n; k++)
        if (add_closure(l, &sub[k])) return -1;
    return 0;
}

/* Every material with a compressed file in dir. */
static int add_directory(mat_list *l, const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return -1;
    int rc = 0;
    for (struct dirent *e; rc == 0 && (e = readdir(d));) {
        char name[XQ_MATERIAL_MAX];
        xq_material m;
        if (cli_table_file(e->d_name, &m, name) >= 0) rc = mat_add(l, &m);
    }
    closedir(d);
    return rc;
}

/* Copies src to dst atomically (a temporary file renamed into place). */
static int copy_file(const char *src, const char *dst, char err[XQ_ERR_MAX])
{
    int fd = open(src, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, XQ_ERR_MAX, "cannot read %.100s: %s", src, strerror(errno));
        return -1;
    }
    atomic_file f;
    if (atomic_open(&f, dst, err)) {
        close(fd);
        return -1;
    }
    static char buf[1 << 16];
    int rc = 0;
    for (;;) {
        ssize_t n = read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            snprintf(err, XQ_ERR_MAX, "reading %.100s: %s", src, strerror(errno));
            rc = -1;
        }
        if (n <= 0) break;
        if ((rc = atomic_write(&f, buf, (size_t)n, err))) break;
    }
    close(fd);
    if (rc) {
        atomic_abort(&f);
        return -1;
    }
    return atomic_commit(&f, err);
}

/* Whether paths a and b name one directory: the same string, or the same
 * file on disk ("t/", "../x/t", a link to t), which copying onto itself
 * would only rewrite.  A path that does not exist yet is another one. */
static int same_directory(const char *a, const char *b)
{
    struct stat sa, sb;
    if (!strcmp(a, b)) return 1;
    return !stat(a, &sa) && !stat(b, &sb) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int cmd_export(int argc, char **argv)
{
    table_args a;
    int wdl_only = 0, no_dtm = 0, list = 0;
    /* export's own flags, then the shared ones */
    char *rest[256];
    int nrest = 0;
    if (argc > 255) return cli_usage_error("export", "too many arguments (%d; at most 255)", argc - 1);
    for (int i = 0; i < argc; i++) {
        if (i > 0 && !strcmp(argv[i], "--wdl-only"))
            wdl_only = 1;
        else if (i > 0 && !strcmp(argv[i], "--no-dtm"))
            no_dtm = 1;
        else if (i > 0 && !strcmp(argv[i], "--list"))
            list = 1;
        else
            rest[nrest++] = argv[i];
    }
    if (parse_table_args("export", nrest, rest, "dsoq", 0, &a)) return EXIT_BAD_INPUT;
    if (!list && !a.out) return cli_usage_error("export", "missing -o DIR (or --list)");
    if (list && a.out) return cli_usage_error("export", "give either -o DIR or --list, not both");
    if (wdl_only && no_dtm) return cli_usage_error("export", "give either --wdl-only or --no-dtm, not both");
    if (a.out && same_directory(a.out, a.dir)) return cli_usage_error("export", "-o names the directory it reads from");
    mat_list want = {0}, files = {0};
    char err[XQ_ERR_MAX];
    int rc = 0;
    for (int i = 0; i < a.nmaterial && !rc; i++) {
        xq_material m;
        if (parse_material_arg("export", a.material[i], &m))
            rc = EXIT_BAD_INPUT;
        else if (mat_add(&want, &m))
            rc = EXIT_FAILURE_IO;
    }
    if (!rc && a.has_set) {
        tb_set_list l;
        if (tb_set_list_make(&a.set, &l, err)) {
            rc = cli_usage_error("export", "%s", err);
        } else {
            for (int i = 0; i < l.n && !rc; i++)
                if (l.m[i].target && mat_add(&want, &l.m[i].mat)) rc = EXIT_FAILURE_IO;
            tb_set_list_free(&l);
        }
    }
    if (!rc && !a.nmaterial && !a.has_set && add_directory(&want, a.dir)) {
        fprintf(stderr, "xqtb export: cannot read directory %s: %s\n", a.dir, strerror(errno));
        rc = EXIT_FAILURE_IO;
    }
    if (!rc && !want.n) {
        fprintf(stderr, "xqtb export: no table files in %s\n", a.dir);
        rc = EXIT_NO_ANSWER;
    }
    for (int i = 0; i < want.n && !rc; i++)
        if (add_closure(&files, &want.m[i])) rc = EXIT_FAILURE_IO;
    if (!rc && a.out && mkdir(a.out, 0755) && errno != EEXIST) {
        fprintf(stderr, "xqtb export: cannot create %s: %s\n", a.out, strerror(errno));
        rc = EXIT_FAILURE_IO;
    }
    uint64_t bytes = 0;
    int count = 0, kinds = wdl_only ? 1 : XQF_COMPRESSED_KINDS;
    for (int i = 0; i < files.n && !rc; i++) {
        char name[XQ_MATERIAL_MAX];
        xq_material_name(&files.m[i], name);
        xq_index ix;
        if (xq_index_init(&ix, &files.m[i])) {
            rc = EXIT_FAILURE_IO;
            break;
        }
        uint64_t entries = ix.size;
        xq_index_free(&ix);
        uint32_t limit = 0; /* the table's move limit, from its WDL file (kind 0, checked first) */
        for (int kind = 0; kind < kinds && !rc; kind++) {
            if (no_dtm && kind == XQF_KIND_DTM) continue;
            char src[4096], dst[4096];
            xqf_path(a.dir, name, kind, src, sizeof src);
            xqf_check_report r;
            int st = xqf_check_file(src, kind, name, entries, 0, &r);
            if (kind == XQF_KIND_WDL && st == XQF_OK) limit = r.info.limit;
            /* a table built without a move limit has no DTC file; one built
             * with a limit is not whole without it */
            if (st == XQF_MISSING && kind == XQF_KIND_DTC && limit == 0) continue;
            if (st != XQF_OK) {
                const char *status = xqf_check_status_name(st);
                int why = r.why[0] && strcmp(r.why, status);
                fprintf(stderr, "xqtb export: %s is %s%s%s\n", src, status, why ? ": " : "", why ? r.why : "");
                rc = st == XQF_MISSING ? EXIT_NO_ANSWER : EXIT_FAILURE_IO;
                break;
            }
            bytes += r.info.size;
            count++;
            if (list) {
                printf("%s.%s %llu\n", name, xqf_kind_ext(kind), (unsigned long long)r.info.size);
                continue;
            }
            xqf_path(a.out, name, kind, dst, sizeof dst);
            if (copy_file(src, dst, err)) {
                fprintf(stderr, "xqtb export: %s\n", err);
                rc = EXIT_FAILURE_IO;
            }
        }
    }
    if (!rc && !a.quiet)
        fprintf(stderr, "xqtb export: %d files of %d tables, %llu bytes%s%s\n", count, files.n,
                (unsigned long long)bytes, list ? "" : ", copied to ", list ? "" : a.out);
    free(want.m);
    free(files.m);
    return rc;
}
