/*
 * check.c - `xqtb check [-d DIR] [--deep] [-q] [--wdl-only | --no-dtm]
 * [MATERIAL...]`: every
 * compressed file's header, metadata and block checksums (core/tbcheck.h),
 * whether each material has every file its move limit calls for, and
 * whether the directory holds one rule set and one move limit, which is
 * all a library handle accepts.  Exit 0 when everything is sound, 3 when
 * anything is damaged, missing, unreadable or built otherwise, 2 for bad
 * arguments.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "clock.h"
#include "index.h"
#include "material.h"
#include "ruleset.h"
#include "tbcheck.h"

typedef struct {
    const char *dir;
    int deep, quiet;
    /* export's choices of files: a set exported with --wdl-only needs no
     * DTM nor DTC file, one exported with --no-dtm no DTM file (those
     * present are checked all the same) */
    int wdl_only, no_dtm;
    char **names; /* canonical material names, sorted */
    int n, cap;
    /* the rule set and move limit of the first sound file, for the
     * one-set-per-directory check */
    int settled;
    uint32_t rules, limit;
    char settled_by[XQ_MATERIAL_MAX + 8];
    uint64_t files, bytes, failed, mismatched;
} check_run;

static int add_name(check_run *c, const char *name)
{
    for (int i = 0; i < c->n; i++)
        if (!strcmp(c->names[i], name)) return 0;
    if (c->n == c->cap) {
        int nc = c->cap ? 2 * c->cap : 64;
        char **t = realloc(c->names, (size_t)nc * sizeof *t);
        if (!t) return -1;
        c->names = t;
        c->cap = nc;
    }
    if (!(c->names[c->n] = strdup(name))) return -1;
    c->n++;
    return 0;
}

/* Every canonical material with a compressed file in the directory. */
static int list_dir(check_run *c)
{
    DIR *d = opendir(c->dir);
    if (!d) {
        fprintf(stderr, "xqtb check: cannot read directory %s\n", c->dir);
        return EXIT_NO_ANSWER;
    }
    for (struct dirent *de; (de = readdir(d));) {
        char name[XQ_MATERIAL_MAX];
        xq_material m;
        if (cli_table_file(de->d_name, &m, name) < 0) continue;
        if (add_name(c, name)) {
            closedir(d);
            fprintf(stderr, "xqtb check: out of memory\n");
            return EXIT_FAILURE_IO;
        }
    }
    closedir(d);
    return 0;
}

static int by_size_then_name(const void *a, const void *b)
{
    const char *x = *(char *const *)a, *y = *(char *const *)b;
    size_t lx = strlen(x), ly = strlen(y);
    return lx != ly ? (lx < ly ? -1 : 1) : strcmp(x, y);
}

static void report(const check_run *c, const char *name, int kind, const char *status, const char *detail)
{
    if (c->quiet && !strcmp(status, "sound")) return;
    printf("%-12s %-3s  %-15s %s\n", name, xqf_kind_name(kind), status, detail);
}

/* One file; returns its check status. */
static int check_one(check_run *c, const char *name, uint64_t entries, int kind, xqf_check_report *r)
{
    char path[4096], detail[256];
    xqf_path(c->dir, name, kind, path, sizeof path);
    xqf_check_file(path, kind, name, entries, c->deep, r);
    c->bytes += r->bytes;
    if (r->status == XQF_MISSING) return r->status;
    c->files++;
    if (r->status == XQF_OK) {
        int at = snprintf(detail, sizeof detail, "%llu bytes, %llu blocks, rules %s, limit %u",
                          (unsigned long long)r->info.size, (unsigned long long)r->blocks,
                          xq_rules_name((int)r->info.rules), r->info.limit);
        if (r->info.dict_bytes && at > 0 && (size_t)at < sizeof detail)
            snprintf(detail + at, sizeof detail - (size_t)at, ", a %u-byte dictionary", r->info.dict_bytes);
        if (!c->settled) {
            c->settled = 1;
            c->rules = r->info.rules;
            c->limit = r->info.limit;
            snprintf(c->settled_by, sizeof c->settled_by, "%s.%s", name, xqf_kind_ext(kind));
        } else if (r->info.rules != c->rules || r->info.limit != c->limit) {
            snprintf(detail, sizeof detail, "rules %s, limit %u, but %s has rules %s, limit %u: one handle reads one",
                     xq_rules_name((int)r->info.rules), r->info.limit, c->settled_by, xq_rules_name((int)c->rules),
                     c->limit);
            report(c, name, kind, "mixed", detail);
            c->mismatched++;
            return XQF_MISMATCH;
        }
        report(c, name, kind, "sound", detail);
        return r->status;
    }
    c->failed++;
    report(c, name, kind, xqf_check_status_name(r->status), r->why);
    return r->status;
}

/* The files of one material: WDL and DTM always, DTC when the tables were
 * built with a move limit (as the other files' headers say). */
static void check_material(check_run *c, const char *name)
{
    xq_material m;
    xq_index ix;
    char err[XQ_ERR_MAX];
    if (xq_material_parse(name, &m, err) || xq_index_init(&ix, &m)) {
        fprintf(stderr, "xqtb check: %s: cannot build its index (out of memory)\n", name);
        c->failed++;
        return;
    }
    uint64_t entries = ix.size;
    xq_index_free(&ix);
    int limit_known = 0;
    uint32_t limit = 0;
    for (int kind = 0; kind < XQF_COMPRESSED_KINDS; kind++) {
        xqf_check_report r;
        if (kind == XQF_KIND_DTC && limit_known && limit == 0) {
            /* no DTC file is needed; one lying there is left from a build
             * with a limit, and no reader will use it */
            char path[4096];
            xqf_path(c->dir, name, kind, path, sizeof path);
            if (access(path, F_OK) == 0) {
                report(c, name, kind, "stale", "the other files were built without a move limit");
                c->mismatched++;
            }
            continue;
        }
        int st = check_one(c, name, entries, kind, &r);
        int left_out = kind == XQF_KIND_DTM ? c->wdl_only || c->no_dtm : kind == XQF_KIND_DTC && c->wdl_only;
        if (st == XQF_MISSING && left_out) {
            if (!c->quiet) report(c, name, kind, "not exported", c->wdl_only ? "--wdl-only" : "--no-dtm");
        } else if (st == XQF_MISSING) {
            char detail[128];
            if (kind == XQF_KIND_DTC)
                snprintf(detail, sizeof detail, "needed: the tables were built with a move limit of %u plies", limit);
            else
                snprintf(detail, sizeof detail, "needed by every table");
            if (kind != XQF_KIND_DTC || limit_known) {
                report(c, name, kind, "missing", detail);
                c->failed++;
            }
        } else if (st == XQF_OK || (st == XQF_MISMATCH && r.info.entries)) {
            /* a file of another format version or index layout is refused
             * before its fields are read (entries stays 0): its limit
             * field says nothing */
            limit = r.info.limit;
            limit_known = 1;
        }
    }
}

static int parse_args(int argc, char **argv, check_run *c)
{
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i];
        if (!strcmp(o, "-d")) {
            if (++i == argc || !argv[i][0]) return cli_usage_error("check", "option -d needs a directory");
            c->dir = argv[i];
        } else if (!strcmp(o, "--deep")) {
            c->deep = 1;
        } else if (!strcmp(o, "-q")) {
            c->quiet = 1;
        } else if (!strcmp(o, "--wdl-only")) {
            c->wdl_only = 1;
        } else if (!strcmp(o, "--no-dtm")) {
            c->no_dtm = 1;
        } else if (o[0] == '-') {
            return cli_usage_error("check", "unknown option '%s'", o);
        } else {
            xq_material m;
            char err[XQ_ERR_MAX], name[XQ_MATERIAL_MAX];
            if (xq_material_parse(o, &m, err)) return cli_usage_error("check", "%s", err);
            xq_material_canonical(&m, &m);
            xq_material_name(&m, name);
            if (add_name(c, name)) return EXIT_FAILURE_IO;
        }
    }
    if (c->wdl_only && c->no_dtm)
        return cli_usage_error("check", "--wdl-only or --no-dtm, not both (--wdl-only leaves out the DTC files too)");
    return 0;
}

int cmd_check(int argc, char **argv)
{
    check_run c;
    memset(&c, 0, sizeof c);
    c.dir = "tables";
    int rc = parse_args(argc, argv, &c);
    if (rc == 0 && c.n == 0) rc = list_dir(&c);
    if (rc == 0 && c.n == 0) {
        fprintf(stderr, "xqtb check: no table files in %s\n", c.dir);
        rc = EXIT_NO_ANSWER;
    }
    if (rc == 0) {
        double t0 = tb_now_seconds();
        qsort(c.names, (size_t)c.n, sizeof *c.names, by_size_then_name);
        for (int i = 0; i < c.n; i++) check_material(&c, c.names[i]);
        double secs = tb_now_seconds() - t0;
        printf("checked %d materials, %llu files, %.1f MB in %.2f s (%.0f MB/s)%s: %llu damaged, missing or "
               "unreadable, %llu inconsistent\n",
               c.n, (unsigned long long)c.files, (double)c.bytes / 1e6, secs,
               secs > 0 ? (double)c.bytes / 1e6 / secs : 0.0, c.deep ? ", blocks decompressed" : "",
               (unsigned long long)c.failed, (unsigned long long)c.mismatched);
        rc = c.failed || c.mismatched ? EXIT_FAILURE_IO : EXIT_ANSWER;
    }
    for (int i = 0; i < c.n; i++) free(c.names[i]);
    free(c.names);
    return rc;
}
