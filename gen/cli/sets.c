/*
 * sets.c - the named table sets from the command line: `xqtb sets` (what a
 * set holds and what it should cost), `xqtb gen --set` (build it, resuming
 * where a killed run stopped) and `xqtb plan --set` (a Makefile for make
 * or a scheduler driving make).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "clock.h"
#include "compress.h"
#include "parallel.h"
#include "table_args.h"
#include "tb.h"
#include "tbformat.h"

static double mib(uint64_t bytes) { return (double)bytes / 1048576.0; }

/* "1 h 05 min", "4 min 10 s", "12.3 s". */
static void duration_text(double s, char *buf, size_t len)
{
    if (s >= 3600)
        snprintf(buf, len, "%d h %02d min", (int)(s / 3600), (int)(s / 60) % 60);
    else if (s >= 60)
        snprintf(buf, len, "%d min %02d s", (int)(s / 60), (int)s % 60);
    else
        snprintf(buf, len, "%.1f s", s);
}

/* The estimates of a whole list: time and disk summed, memory the most any
 * one table needs. */
static int list_estimate(const tb_set_list *l, const table_args *a, tb_estimate *sum)
{
    memset(sum, 0, sizeof *sum);
    tb_estimate *est = calloc((size_t)l->n + 1, sizeof *est);
    if (!est || tb_set_estimates(l, NULL, a->rules, a->limit, 2, est)) {
        free(est);
        return -1;
    }
    for (int i = 0; i < l->n; i++) {
        sum->seconds += est[i].seconds;
        sum->disk += est[i].disk;
        sum->raw += est[i].raw;
        if (est[i].memory > sum->memory) sum->memory = est[i].memory;
    }
    free(est);
    return 0;
}

/* ---- xqtb sets ---------------------------------------------------------------- */
static int list_sets(const table_args *a)
{
    if (a->json)
        printf("[");
    else
        printf("%-14s %7s %7s %15s %11s %11s %11s\n", "set", "tables", "named", "entries/side", "est. time",
               "est. memory", "est. disk");
    for (int r = 0; r < TB_CATALOG_ROWS; r++) {
        tb_set_spec s;
        tb_set_list l;
        char err[XQ_ERR_MAX], when[32];
        if (tb_set_spec_parse(tb_catalog_row(r), &s, err) || tb_set_list_make(&s, &l, err)) {
            fprintf(stderr, "xqtb sets: %s\n", err);
            return EXIT_FAILURE_IO;
        }
        tb_estimate e;
        if (list_estimate(&l, a, &e)) {
            fprintf(stderr, "xqtb sets: out of memory\n");
            tb_set_list_free(&l);
            return EXIT_FAILURE_IO;
        }
        duration_text(e.seconds, when, sizeof when);
        if (a->json)
            printf("%s{\"set\":\"%s\",\"tables\":%d,\"named\":%d,\"entries\":%llu,\"seconds\":%.0f,"
                   "\"memory_bytes\":%llu,\"disk_bytes\":%llu,\"raw_bytes\":%llu,\"description\":\"%s\"}",
                   r ? "," : "", s.name, l.n, l.targets, (unsigned long long)l.entries, e.seconds,
                   (unsigned long long)e.memory, (unsigned long long)e.disk, (unsigned long long)e.raw,
                   tb_catalog_describe(&s));
        else
            printf("%-14s %7d %7d %15llu %11s %7.0f MiB %7.0f MiB\n", s.name, l.n, l.targets,
                   (unsigned long long)l.entries, when, mib(e.memory), mib(e.disk)); /* raw files: --keep-raw only */
        tb_set_list_free(&l);
    }
    if (a->json)
        printf("]\n");
    else
        printf("\nup-to-N takes any N from 2 to 8.  Estimates: two threads, rules %s, limit %d (docs/GENERATOR.md);\n"
               "memory is the most one table needs without the rulings' game graph, disk the compressed and raw\n"
               "files.  `xqtb sets NAME [FILTERS]` lists a set's tables.\n",
               xq_rules_name(a->rules), a->limit);
    return 0;
}

static int show_set(const table_args *a)
{
    tb_set_list l;
    char err[XQ_ERR_MAX], filters[256];
    if (tb_set_list_make(&a->set, &l, err)) return cli_usage_error("sets", "%s", err);
    tb_set_filter_text(&a->set.filter, filters, sizeof filters);
    tb_gen_options opt;
    table_gen_options(a, &opt);
    int done = 0, to_convert = 0;
    tb_estimate sum = {0};
    /* each table's state first: the estimates follow the run gen would make */
    uint8_t *state = calloc((size_t)l.n + 1, 1);
    tb_estimate *est = calloc((size_t)l.n + 1, sizeof *est);
    if (state)
        for (int i = 0; i < l.n; i++) {
            char why[XQ_ERR_MAX];
            state[i] = (uint8_t)tb_table_done(&l.m[i].mat, &opt, why);
        }
    if (!state || !est || tb_set_estimates(&l, state, a->rules, a->limit, 2, est)) {
        fprintf(stderr, "xqtb sets: out of memory\n");
        free(state);
        free(est);
        tb_set_list_free(&l);
        return EXIT_FAILURE_IO;
    }
    if (a->json)
        printf("{\"set\":\"%s\",\"filters\":\"%s\",\"tables\":[", a->set.name, filters);
    else
        printf("%-12s %-8s %6s %13s %11s %11s %11s  %s\n", "material", "", "pieces", "entries/side", "est. time",
               "est. memory", "est. disk", a->dir);
    for (int i = 0; i < l.n; i++) {
        char name[XQ_MATERIAL_MAX], when[32];
        xq_material_name(&l.m[i].mat, name);
        const tb_estimate e = est[i];
        int convert = state[i] == TB_TO_CONVERT;
        /* a conversion: its files written again from those of the other
         * --store-both setting, for a share of a generation's time */
        double seconds = convert ? e.convert_seconds : e.seconds;
        uint64_t memory = convert ? e.convert_memory : e.memory;
        done += state[i] == TB_DONE;
        to_convert += convert;
        sum.seconds += state[i] == TB_DONE ? 0 : seconds;
        duration_text(seconds, when, sizeof when);
        /* no raw files: sets takes no --keep-raw */
        if (a->json)
            printf("%s\n{\"material\":\"%s\",\"named\":%s,\"pieces\":%d,\"entries\":%llu,\"seconds\":%.1f,"
                   "\"memory_bytes\":%llu,\"disk_bytes\":%llu,\"done\":%s,\"convert\":%s}",
                   i ? "," : "", name, l.m[i].target ? "true" : "false", xq_material_pieces(&l.m[i].mat),
                   (unsigned long long)l.m[i].entries, seconds, (unsigned long long)memory, (unsigned long long)e.disk,
                   state[i] == TB_DONE ? "true" : "false", convert ? "true" : "false");
        else
            printf("%-12s %-8s %6d %13llu %11s %7.0f MiB %7.1f MiB  %s\n", name, l.m[i].target ? "named" : "subtable",
                   xq_material_pieces(&l.m[i].mat), (unsigned long long)l.m[i].entries, when, mib(memory), mib(e.disk),
                   state[i] == TB_DONE ? "done"
                   : convert           ? "to convert"
                                       : "to build");
    }
    char left[32];
    duration_text(sum.seconds, left, sizeof left);
    if (a->json)
        printf("\n],\"count\":%d,\"named\":%d,\"done\":%d,\"to_convert\":%d,\"seconds_left\":%.0f}\n", l.n, l.targets,
               done, to_convert, sum.seconds);
    else {
        char converts[48] = "";
        if (to_convert) snprintf(converts, sizeof converts, ", %d to convert", to_convert);
        printf("%s%s%s: %d tables (%d named, %d subtables), %llu entries per side; %d done in %s%s, about %s to "
               "build the rest\n",
               a->set.name, filters[0] ? " " : "", filters, l.n, l.targets, l.n - l.targets,
               (unsigned long long)l.entries, done, a->dir, converts, left);
    }
    free(state);
    free(est);
    tb_set_list_free(&l);
    return 0;
}

int cmd_sets(int argc, char **argv)
{
    table_args a;
    if (parse_table_args("sets", argc, argv, "djsrln", 0, &a)) return EXIT_BAD_INPUT;
    return a.has_set ? show_set(&a) : list_sets(&a);
}

/* ---- xqtb gen --set ------------------------------------------------------------ */
/* Refuses, before anything is built, the tables of the set that cannot fit:
 * the least their memory plan will count (est[i].memory: memplan.h, with
 * the tables the run holds then, tb_set_estimates) against --max-memory,
 * or against the memory available now.  Returns how many. */
static int refuse_unfit(const tb_set_list *l, const uint8_t *done, const tb_estimate *est, const table_args *a)
{
    enum { NAMED = 8 }; /* tables named one a line; the rest summed up */
    uint64_t limit = a->max_memory ? a->max_memory : tb_memory_available();
    int refused = 0, most = -1;
    if (!limit) return 0;
    const char *what = a->max_memory ? "--max-memory allows" : "available";
    for (int i = 0; i < l->n; i++) {
        if (done[i] == TB_DONE || est[i].memory <= limit) continue;
        if (most < 0 || est[i].memory > est[most].memory) most = i;
        if (refused++ >= NAMED) continue;
        char name[XQ_MATERIAL_MAX];
        xq_material_name(&l->m[i].mat, name);
        fprintf(stderr,
                "xqtb gen: %s needs at least %.1f MiB (the tables the run holds then included), more than the "
                "%.1f MiB %s\n",
                name, mib(est[i].memory), mib(limit), what);
    }
    if (refused > NAMED) {
        char name[XQ_MATERIAL_MAX];
        xq_material_name(&l->m[most].mat, name);
        fprintf(stderr,
                "xqtb gen: and %d more tables; %d in all cannot fit in the %.1f MiB %s, the largest, %s, needs "
                "at least %.1f MiB\n",
                refused - NAMED, refused, mib(limit), what, name, mib(est[most].memory));
    }
    return refused;
}

int gen_set(const table_args *a)
{
    tb_set_list l;
    char err[XQ_ERR_MAX], filters[256];
    if (tb_set_list_make(&a->set, &l, err)) return cli_usage_error("gen", "%s", err);
    tb_set_filter_text(&a->set.filter, filters, sizeof filters);
    tb_gen_options opt;
    table_gen_options(a, &opt);
    opt.quiet = 1; /* one line per table below, not the notices of every subtable reused */
    uint8_t *done = calloc((size_t)l.n, 1);
    tb_estimate *est = calloc((size_t)l.n, sizeof *est);
    xq_material *pending = NULL;
    int rc = 0;
    if (!done || !est) {
        fprintf(stderr, "xqtb gen: out of memory\n");
        rc = EXIT_FAILURE_IO;
        goto out;
    }
    int ndone = 0, nconvert = 0;
    double left = 0;
    for (int i = 0; i < l.n; i++) {
        char why[XQ_ERR_MAX];
        done[i] = a->force ? TB_NOT_DONE : (uint8_t)tb_table_done(&l.m[i].mat, &opt, why);
    }
    /* the memory plan for the threads this run uses (generate_one's count,
     * so that the estimate stays a least); time for two */
    if (tb_set_estimates(&l, done, a->rules, a->limit, a->threads > 0 ? a->threads : par_cores(), est)) {
        fprintf(stderr, "xqtb gen: out of memory\n");
        rc = EXIT_FAILURE_IO;
        goto out;
    }
    for (int i = 0; i < l.n; i++) {
        ndone += done[i] == TB_DONE;
        nconvert += done[i] == TB_TO_CONVERT;
        if (done[i] == TB_TO_CONVERT) { /* what a conversion takes, below */
            est[i].seconds = est[i].convert_seconds;
            est[i].memory = est[i].convert_memory;
        }
        if (done[i] != TB_DONE) left += est[i].seconds;
    }
    if (refuse_unfit(&l, done, est, a)) {
        fprintf(stderr, "xqtb gen: %s: nothing built (raise --max-memory, or narrow the set with filters)\n",
                a->set.name);
        rc = EXIT_FAILURE_IO;
        goto out;
    }
    char when[32];
    duration_text(left, when, sizeof when);
    char converts[48] = "";
    if (nconvert) snprintf(converts, sizeof converts, " (%d of them to convert)", nconvert);
    if (!a->quiet)
        fprintf(stderr, "xqtb gen: %s%s%s: %d tables (%d named, %d subtables); %d done, %d to build%s, about %s\n",
                a->set.name, filters[0] ? " " : "", filters, l.n, l.targets, l.n - l.targets, ndone, l.n - ndone,
                converts, when);
    /* Time left: the estimate of what is left, scaled by how the tables
     * built so far compared with theirs. */
    double t_start = tb_now_seconds(), estimated_built = 0;
    int built = 0;
    /* One set for the whole run: a table built (or loaded) for one target
     * stays in memory for the next targets that capture into it, instead
     * of being loaded again, which for a table kept only as compressed
     * files means rebuilding it (tb_unpack). */
    opt.set = tb_set_new(a->dir);
    if (!opt.set) {
        fprintf(stderr, "xqtb gen: out of memory\n");
        rc = EXIT_FAILURE_IO;
        goto out;
    }
    /* What is still to build, in order: each table lets go of what it
     * does not read and the tables after it do not need (tb_set_trim). */
    pending = malloc(((size_t)l.n + 1) * sizeof *pending);
    if (!pending) {
        fprintf(stderr, "xqtb gen: out of memory\n");
        rc = EXIT_FAILURE_IO;
        goto out;
    }
    int npending = 0;
    for (int i = 0; i < l.n; i++)
        if (done[i] != TB_DONE) pending[npending++] = l.m[i].mat;
    for (int i = 0, p = 0; i < l.n; i++) {
        if (done[i] == TB_DONE) continue;
        char name[XQ_MATERIAL_MAX];
        xq_material_name(&l.m[i].mat, name);
        double t0 = tb_now_seconds();
        p++;
        opt.later = pending + p;
        opt.nlater = npending - p;
        if (tb_generate(&l.m[i].mat, &opt, err)) {
            fprintf(stderr, "xqtb gen: %s\nxqtb gen: %s: stopped at %s; run the same command again to go on\n", err,
                    a->set.name, name);
            rc = EXIT_FAILURE_IO;
            goto out;
        }
        built++;
        estimated_built += est[i].seconds;
        left -= est[i].seconds;
        double spent = tb_now_seconds() - t_start, scale = estimated_built > 1.0 ? spent / estimated_built : 1.0;
        char took[32];
        duration_text(tb_now_seconds() - t0, took, sizeof took);
        duration_text(left > 0 ? left * scale : 0, when, sizeof when);
        if (!a->quiet)
            fprintf(stderr, "[%d/%d] %-12s %s in %s; %d table%s left, about %s\n", ndone + built, l.n, name,
                    done[i] == TB_TO_CONVERT ? "converted" : "built", took, l.n - ndone - built,
                    l.n - ndone - built == 1 ? "" : "s", when);
    }
    if (!a->quiet) {
        char took[32];
        duration_text(tb_now_seconds() - t_start, took, sizeof took);
        fprintf(stderr, "xqtb gen: %s: all %d tables done (%d built now, in %s)\n", a->set.name, l.n, built, took);
    }
out:
    tb_set_free(opt.set);
    free(pending);
    free(done);
    free(est);
    tb_set_list_free(&l);
    return rc;
}

/* ---- xqtb plan ----------------------------------------------------------------- */
/* Whether make can take s as a word of a rule: no blanks and none of the
 * characters make or the shell would read. */
static int make_safe(const char *s)
{
    for (; *s; s++)
        if (*s <= ' ' || strchr("$#:;=%*?[]\\\"'`|&<>()", *s)) return 0;
    return 1;
}

/* An absolute form of path (relative ones joined to the working directory). */
static int absolute(const char *path, char *buf, size_t len)
{
    if (path[0] == '/') return snprintf(buf, len, "%s", path) < (int)len ? 0 : -1;
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof cwd)) return -1;
    return snprintf(buf, len, "%s/%s", cwd, path) < (int)len ? 0 : -1;
}

static void write_plan(FILE *f, const tb_set_list *l, const table_args *a, const char *self, const char *dir,
                       const char *filters)
{
    const char *ext = a->limit ? "xqc" : "xqd";
    fprintf(f,
            "# Written by `xqtb plan --set %s%s%s`: one target per table of the set, its\n"
            "# subtables as prerequisites (docs/GENERATOR.md, \"Plans\").  `make -j N -f FILE` builds N\n"
            "# tables at a time, THREADS threads each; a scheduler that runs make's recipes on other\n"
            "# machines (SHELL set to its submission wrapper) needs DIR shared between them.\n"
            "# A target is the table's last file written; `xqtb gen` checks every file of a table\n"
            "# before it counts as built.\n\n",
            a->set.name, filters[0] ? " " : "", filters);
    fprintf(f, "XQTB = %s\nDIR = %s\nTHREADS = %d\nGENFLAGS = --rules %s --limit %d%s%s", self, dir,
            a->threads ? a->threads : 1, xq_rules_name(a->rules), a->limit, a->store_both ? " --store-both" : "",
            a->keep_raw ? " --keep-raw" : "");
    if (a->max_memory) fprintf(f, " --max-memory %llu", (unsigned long long)(a->max_memory >> 20));
    fprintf(f, "\n\n.PHONY: all\nall:");
    for (int i = 0; i < l->n; i++) {
        char name[XQ_MATERIAL_MAX];
        xq_material_name(&l->m[i].mat, name);
        fprintf(f, " \\\n  $(DIR)/%s.%s", name, ext);
    }
    fprintf(f, "\n");
    for (int i = 0; i < l->n; i++) {
        char name[XQ_MATERIAL_MAX];
        xq_material_name(&l->m[i].mat, name);
        fprintf(f, "\n$(DIR)/%s.%s:", name, ext);
        /* the direct subtables: make follows theirs */
        xq_material sub[XQ_MAX_SUBTABLES];
        int nsub = xq_material_subtables(&l->m[i].mat, sub);
        for (int k = 0; k < nsub; k++) {
            char sname[XQ_MATERIAL_MAX];
            xq_material_name(&sub[k], sname);
            fprintf(f, " $(DIR)/%s.%s", sname, ext);
        }
        /* touch: a table found complete is not rewritten, and must not look
         * older than a subtable rebuilt after it */
        fprintf(f, "\n\t$(XQTB) gen -q -t $(THREADS) $(GENFLAGS) -d $(DIR) %s\n\ttouch $@\n", name);
    }
}

int cmd_plan(int argc, char **argv)
{
    table_args a;
    if (parse_table_args("plan", argc, argv, "tdsrlbkmo", 0, &a)) return EXIT_BAD_INPUT;
    if (!a.has_set) return cli_usage_error("plan", "missing --set NAME");
    char self[PATH_MAX], dir[PATH_MAX], err[XQ_ERR_MAX], filters[256];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) {
        fprintf(stderr, "xqtb plan: cannot find this program's path: %s\n", strerror(errno));
        return EXIT_FAILURE_IO;
    }
    self[n] = 0;
    if (absolute(a.dir, dir, sizeof dir)) return cli_usage_error("plan", "directory path too long");
    if (!make_safe(dir) || !make_safe(self))
        return cli_usage_error("plan", "make cannot take the path '%.200s' (blanks or special characters)",
                               make_safe(dir) ? self : dir);
    tb_set_list l;
    if (tb_set_list_make(&a.set, &l, err)) return cli_usage_error("plan", "%s", err);
    tb_set_filter_text(&a.set.filter, filters, sizeof filters);
    FILE *f = a.out ? fopen(a.out, "w") : stdout;
    if (!f) {
        fprintf(stderr, "xqtb plan: cannot write %.200s: %s\n", a.out, strerror(errno));
        tb_set_list_free(&l);
        return EXIT_FAILURE_IO;
    }
    write_plan(f, &l, &a, self, dir, filters);
    int bad = ferror(f);
    if (a.out)
        bad |= fclose(f) != 0;
    else
        bad |= fflush(f) != 0;
    tb_set_list_free(&l);
    if (bad) {
        fprintf(stderr, "xqtb plan: writing %.200s failed: %s\n", a.out ? a.out : "the plan", strerror(errno));
        return EXIT_FAILURE_IO;
    }
    return 0;
}
