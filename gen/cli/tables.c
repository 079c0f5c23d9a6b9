/*
 * tables.c - subcommands over generated tables: gen, stats, verify.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic_file.h"
#include "cli.h"
#include "compress.h"
#include "dtc.h"
#include "table_args.h"
#include "tb.h"

/* Sizes of the compressed files beside the raw table, 0 if absent. */
static void compressed_sizes(const char *dir, const xq_material *m, uint64_t *wdl, uint64_t *dtm, uint64_t *dtc)
{
    char path[4096];
    struct stat sb;
    tb_compressed_path(dir, m, XQF_KIND_WDL, path, sizeof path);
    *wdl = stat(path, &sb) == 0 ? (uint64_t)sb.st_size : 0;
    tb_compressed_path(dir, m, XQF_KIND_DTM, path, sizeof path);
    *dtm = stat(path, &sb) == 0 ? (uint64_t)sb.st_size : 0;
    tb_compressed_path(dir, m, XQF_KIND_DTC, path, sizeof path);
    *dtc = stat(path, &sb) == 0 ? (uint64_t)sb.st_size : 0;
}

static double bits_per(uint64_t bytes, uint64_t legal) { return legal ? 8.0 * (double)bytes / (double)legal : 0.0; }

/* The rulings a table's ruled bit tells apart: check, and chase (or, in a
 * table built under cxa, the one ruling there, perpetual attack). */
static const char *ruling_word(int rules, int k, int json)
{
    if (k == 0) return json ? "perpetual_check" : "perpetual check";
    if (rules == XQ_RULES_CXA) return json ? "perpetual_attack" : "perpetual attack";
    return json ? "perpetual_chase" : "perpetual chase";
}

static void print_side_text(const char *who, int rules, const tb_side_stats *s)
{
    printf("  %s to move: %llu legal, %llu win (%.1f%%), %llu draw (%.1f%%), %llu loss (%.1f%%)\n", who,
           (unsigned long long)s->legal, (unsigned long long)s->win,
           s->legal ? 100.0 * (double)s->win / (double)s->legal : 0.0, (unsigned long long)s->draw,
           s->legal ? 100.0 * (double)s->draw / (double)s->legal : 0.0, (unsigned long long)s->loss,
           s->legal ? 100.0 * (double)s->loss / (double)s->legal : 0.0);
    if (s->longest_win >= 0) printf("    longest win:  %3d plies  %s\n", s->longest_win, s->longest_win_fen);
    if (s->longest_loss >= 0) printf("    longest loss: %3d plies  %s\n", s->longest_loss, s->longest_loss_fen);
    for (int k = 0; k < 2; k++) {
        if (s->ruled_win[k])
            printf("    won by the %s ruling (drawn under --rules none):  %llu  e.g. %s\n", ruling_word(rules, k, 0),
                   (unsigned long long)s->ruled_win[k], s->ruled_win_fen[k]);
        if (s->ruled_loss[k])
            printf("    lost by the %s ruling (drawn under --rules none): %llu  e.g. %s\n", ruling_word(rules, k, 0),
                   (unsigned long long)s->ruled_loss[k], s->ruled_loss_fen[k]);
    }
}

static void print_stats_text(const char *dir, const tb_stats *st, int histogram)
{
    char name[XQ_MATERIAL_MAX];
    xq_material_name(&st->mat, name);
    uint64_t legal = st->side[0].legal + st->side[1].legal;
    uint64_t used = st->side[0].entries + st->side[1].entries;
    printf("%s: %llu legal positions; index %llu entries per side to move, %.1f%% of them legal "
           "(mirror images share an entry)\n",
           name, (unsigned long long)legal, (unsigned long long)st->index_size,
           st->index_size ? 100.0 * (double)used / (2.0 * (double)st->index_size) : 0.0);
    uint64_t wb, db, cb;
    compressed_sizes(dir, &st->mat, &wb, &db, &cb);
    if (wb || db) {
        printf("  files: WDL %llu bytes (%.3f bits per legal position), DTM %llu bytes (%.3f)", (unsigned long long)wb,
               bits_per(wb, legal), (unsigned long long)db, bits_per(db, legal));
        if (cb) printf(", DTC %llu bytes (%.3f)", (unsigned long long)cb, bits_per(cb, legal));
        printf("\n");
    }
    if (st->limit) printf("  move limit: %d plies (DTC computed)\n", st->limit);
    if (st->rules != XQ_RULES_NONE) {
        const tb_side_stats *r = &st->side[0], *b = &st->side[1];
        uint64_t n = r->ruled_win[0] + r->ruled_win[1] + r->ruled_loss[0] + r->ruled_loss[1] + b->ruled_win[0] +
                     b->ruled_win[1] + b->ruled_loss[0] + b->ruled_loss[1];
        int orders = r->max_order > b->max_order ? r->max_order : b->max_order;
        printf("  repetition rules: %s; %llu positions (%.2f%%) decided by a ruling, %d order%s\n",
               xq_rules_name(st->rules), (unsigned long long)n, legal ? 100.0 * (double)n / (double)legal : 0.0, orders,
               orders == 1 ? "" : "s");
    } else {
        printf("  repetition rules: none (every repetition is a draw)\n");
    }
    print_side_text("red", st->rules, &st->side[0]);
    print_side_text("black", st->rules, &st->side[1]);
    if (!histogram) return;
    printf("  DTM histogram (plies: red to move, black to move)\n");
    for (int d = 0; d < TB_HIST_MAX; d++)
        if (st->side[0].hist[d] || st->side[1].hist[d])
            printf("    %4d%s %12llu %12llu\n", d, d == TB_HIST_MAX - 1 ? "+" : " ",
                   (unsigned long long)st->side[0].hist[d], (unsigned long long)st->side[1].hist[d]);
}

static void print_longest_json(FILE *out, const char *key, int dtm, const char *fen)
{
    if (dtm < 0)
        fprintf(out, "\"%s\":null", key);
    else
        fprintf(out, "\"%s\":{\"dtm\":%d,\"fen\":\"%s\"}", key, dtm, fen);
}

/* The stats of one table as a JSON object, without a newline; `named`
 * (0 or 1) adds whether a set names the table or only needs it, -1 not. */
static void print_stats_json(FILE *out, const char *dir, const tb_stats *st, int named)
{
    char name[XQ_MATERIAL_MAX];
    xq_material_name(&st->mat, name);
    uint64_t used = st->side[0].entries + st->side[1].entries;
    fprintf(out, "{\"material\":\"%s\",\"rules\":\"%s\",\"index_size\":%llu,\"index_efficiency\":%.4f", name,
            xq_rules_name(st->rules), (unsigned long long)st->index_size,
            st->index_size ? (double)used / (2.0 * (double)st->index_size) : 0.0);
    uint64_t wb, db, cb, legal = st->side[0].legal + st->side[1].legal;
    compressed_sizes(dir, &st->mat, &wb, &db, &cb);
    fprintf(out,
            ",\"limit\":%d,\"wdl_bytes\":%llu,\"dtm_bytes\":%llu,\"dtc_bytes\":%llu,\"wdl_bits_per_position\":%.4f,"
            "\"dtm_bits_per_position\":%.4f,\"dtc_bits_per_position\":%.4f",
            st->limit, (unsigned long long)wb, (unsigned long long)db, (unsigned long long)cb, bits_per(wb, legal),
            bits_per(db, legal), bits_per(cb, legal));
    for (int s = 0; s < 2; s++) {
        const tb_side_stats *ss = &st->side[s];
        fprintf(out, ",\"%s\":{\"legal\":%llu,\"win\":%llu,\"draw\":%llu,\"loss\":%llu,", s ? "black" : "red",
                (unsigned long long)ss->legal, (unsigned long long)ss->win, (unsigned long long)ss->draw,
                (unsigned long long)ss->loss);
        print_longest_json(out, "longest_win", ss->longest_win, ss->longest_win_fen);
        fprintf(out, ",");
        print_longest_json(out, "longest_loss", ss->longest_loss, ss->longest_loss_fen);
        fprintf(out, ",\"by_rule\":{");
        for (int k = 0; k < 2; k++) {
            fprintf(out, "%s\"%s\":{\"win\":%llu,\"loss\":%llu,\"win_example\":", k ? "," : "",
                    ruling_word(st->rules, k, 1), (unsigned long long)ss->ruled_win[k],
                    (unsigned long long)ss->ruled_loss[k]);
            if (ss->ruled_win[k])
                fprintf(out, "\"%s\"", ss->ruled_win_fen[k]);
            else
                fprintf(out, "null");
            fprintf(out, ",\"loss_example\":");
            if (ss->ruled_loss[k])
                fprintf(out, "\"%s\"", ss->ruled_loss_fen[k]);
            else
                fprintf(out, "null");
            fprintf(out, "}");
        }
        fprintf(out, ",\"max_order\":%d}", ss->max_order);
        fprintf(out, ",\"histogram\":{");
        int first = 1;
        for (int d = 0; d < TB_HIST_MAX; d++)
            if (ss->hist[d]) {
                fprintf(out, "%s\"%d\":%llu", first ? "" : ",", d, (unsigned long long)ss->hist[d]);
                first = 0;
            }
        fprintf(out, "}}");
    }
    if (named >= 0) fprintf(out, ",\"named\":%s", named ? "true" : "false");
    fprintf(out, "}");
}

/* The statistics of the table of m in dir, loaded with the tables it
 * captures into (rebuilt from the compressed files where no raw file is
 * kept).  0, or -1 + err. */
static int load_stats(const char *dir, const xq_material *m, tb_stats *st, char err[XQ_ERR_MAX])
{
    tb_set *set = tb_set_new(dir);
    if (!set) {
        snprintf(err, XQ_ERR_MAX, "out of memory");
        return -1;
    }
    tb_table *t = tb_set_get_trimmed(set, m, err);
    if (t) tb_compute_stats(t, st);
    tb_set_free(set);
    char name[XQ_MATERIAL_MAX];
    xq_material_name(m, name);
    if (!t && !strstr(err, name)) { /* a subtable failed: say which table needed it */
        char why[XQ_ERR_MAX];
        snprintf(why, sizeof why, "%s", err);
        snprintf(err, XQ_ERR_MAX, "%s: %.120s", name, why);
    }
    return t ? 0 : -1;
}

/* Prints statistics (JSON, or text with or without the DTM histogram). */
static void show_stats(const char *dir, const tb_stats *st, int json, int histogram)
{
    if (json) {
        print_stats_json(stdout, dir, st, -1);
        printf("\n");
    } else {
        print_stats_text(dir, st, histogram);
    }
}

int cli_stats_json(FILE *out, const char *dir, const xq_material *m, char err[XQ_ERR_MAX])
{
    tb_stats st;
    if (load_stats(dir, m, &st, err)) return -1;
    print_stats_json(out, dir, &st, -1);
    return 0;
}

static void report_removed(void *arg, const char *name, long pid)
{
    fprintf(stderr, "xqtb gen: removed %s/%s, left by process %ld, which is gone\n", (const char *)arg, name, pid);
}

int cmd_gen(int argc, char **argv)
{
    table_args a;
    if (parse_table_args("gen", argc, argv, "tdqfwmsrlbk", 1, &a)) return EXIT_BAD_INPUT;
    xq_material m[64];
    for (int i = 0; i < a.nmaterial; i++)
        if (parse_material_arg("gen", a.material[i], &m[i])) return EXIT_BAD_INPUT;
    /* Leftovers of killed runs (docs/GENERATOR.md, Temporary files). */
    atomic_clean_dir(a.dir, a.quiet ? NULL : report_removed, (void *)a.dir);
    if (a.has_set) return gen_set(&a);
    tb_gen_memory mem;
    tb_gen_options opt;
    table_gen_options(&a, &opt);
    opt.memory = &mem;
    for (int i = 0; i < a.nmaterial; i++) {
        char err[XQ_ERR_MAX];
        memset(&mem, 0, sizeof mem);
        tb_stats st;
        opt.stats = a.quiet ? NULL : &st;
        if (tb_generate(&m[i], &opt, err)) {
            fprintf(stderr, "xqtb gen: %s\n", err);
            return EXIT_FAILURE_IO;
        }
        if (a.quiet) continue;
        show_stats(a.dir, &st, 0, 0);
        /* Only if it was generated now, not reused (docs/GENERATOR.md, Memory). */
        if (xq_material_equal(&mem.mat, &m[i]))
            printf("  memory: at most %.1f MiB to generate (%.1f MiB of subtables in memory; most for %s)\n",
                   ceil((double)mem.bound / 104857.6) / 10.0, ceil((double)mem.resident / 104857.6) / 10.0,
                   mem.largest);
    }
    return 0;
}

int cmd_stats(int argc, char **argv)
{
    table_args a;
    if (parse_table_args("stats", argc, argv, "djs", 1, &a)) return EXIT_BAD_INPUT;
    if (a.has_set) return stats_set(&a);
    if (a.nmaterial != 1) return cli_usage_error("stats", "give exactly one MATERIAL or --set NAME");
    xq_material m;
    if (parse_material_arg("stats", a.material[0], &m)) return EXIT_BAD_INPUT;
    char err[XQ_ERR_MAX];
    tb_stats st;
    if (load_stats(a.dir, &m, &st, err)) return load_failure("stats", err);
    show_stats(a.dir, &st, a.json, 1);
    return 0;
}

/* One line of `stats --set` in text: the table's W/D/L per side to move,
 * its longest win, how much the rulings decide, and its files. */
static void print_set_row(const char *dir, const tb_stats *st, int named)
{
    char name[XQ_MATERIAL_MAX];
    xq_material_name(&st->mat, name);
    printf("%-12s %-8s", name, named ? "named" : "subtable");
    for (int s = 0; s < 2; s++) {
        const tb_side_stats *x = &st->side[s];
        double n = x->legal ? (double)x->legal : 1.0;
        printf("  %5.1f %5.1f %5.1f", 100.0 * (double)x->win / n, 100.0 * (double)x->draw / n,
               100.0 * (double)x->loss / n);
    }
    int longest = st->side[0].longest_win > st->side[1].longest_win ? st->side[0].longest_win : st->side[1].longest_win;
    uint64_t ruled = 0;
    for (int s = 0; s < 2; s++)
        for (int k = 0; k < 2; k++) ruled += st->side[s].ruled_win[k] + st->side[s].ruled_loss[k];
    uint64_t wb, db, cb;
    compressed_sizes(dir, &st->mat, &wb, &db, &cb);
    if (longest >= 0)
        printf("  %5d", longest);
    else
        printf("  %5s", "-");
    printf(" %10llu %12llu\n", (unsigned long long)ruled, (unsigned long long)(wb + db + cb));
}

int stats_set(const table_args *a)
{
    tb_set_list l;
    char err[XQ_ERR_MAX], filters[256];
    if (tb_set_list_make(&a->set, &l, err)) return cli_usage_error("stats", "%s", err);
    tb_set_filter_text(&a->set.filter, filters, sizeof filters);
    int missing = 0, rc = 0;
    uint64_t bytes = 0;
    uint8_t *absent = calloc((size_t)l.n, 1);
    if (!absent) {
        tb_set_list_free(&l);
        fprintf(stderr, "xqtb stats: out of memory\n");
        return EXIT_FAILURE_IO;
    }
    if (a->json)
        printf("{\"set\":\"%s\",\"filters\":\"%s\",\"tables\":[", a->set.name, filters);
    else
        printf("%-12s %-8s  %-17s  %-17s  %5s %10s %12s\n", "material", "", "red to move W/D/L%",
               "black to move W/D/L%", "DTM", "ruled", "file bytes");
    int first = 1;
    /* one set for the whole list, keeping from one table to the next the
     * tables both capture into (subtables come first in the list) */
    tb_set *set = tb_set_new(a->dir);
    if (!set) rc = load_failure("stats", "out of memory");
    for (int i = 0; i < l.n && !rc; i++) {
        tb_set_retain(set, &l.m[i].mat);
        tb_table *t = tb_set_get(set, &l.m[i].mat, err);
        if (!t) {
            /* A table without files is missing, and so, for statistics, is
             * one that captures into a missing table (it cannot be rebuilt
             * without it); one that does not load otherwise is an error. */
            if (!strstr(err, "No such file")) rc = load_failure("stats", err);
            absent[i] = 1;
            missing++;
            continue;
        }
        tb_stats st;
        tb_compute_stats(t, &st);
        uint64_t wb, db, cb;
        compressed_sizes(a->dir, &t->mat, &wb, &db, &cb);
        bytes += wb + db + cb;
        if (a->json) {
            printf("%s\n", first ? "" : ",");
            print_stats_json(stdout, a->dir, &st, l.m[i].target);
        } else {
            print_set_row(a->dir, &st, l.m[i].target);
        }
        first = 0;
    }
    tb_set_free(set);
    if (a->json) {
        printf("\n],\"missing\":[");
        for (int i = 0, k = 0; i < l.n; i++) {
            char name[XQ_MATERIAL_MAX];
            if (!absent[i]) continue;
            xq_material_name(&l.m[i].mat, name);
            printf("%s\"%s\"", k++ ? "," : "", name);
        }
        printf("],\"count\":%d,\"named\":%d,\"present\":%d,\"file_bytes\":%llu}\n", l.n, l.targets, l.n - missing,
               (unsigned long long)bytes);
    } else {
        printf("%d tables (%d named by %s, %d subtables), %d present, %d missing; %llu bytes of files\n", l.n,
               l.targets, a->set.name, l.n - l.targets, l.n - missing, missing, (unsigned long long)bytes);
    }
    free(absent);
    tb_set_list_free(&l);
    if (rc) return rc;
    return missing ? EXIT_NO_ANSWER : 0;
}

/* Verifies goals[0] (canonical), loaded into set with its subtables, the
 * set trimmed on the way to what it and the other goals read
 * (tb_set_get_trimmed_for) if there are any goals, else kept whole.
 * Returns an exit status. */
static int verify_one(tb_set *set, const xq_material *m, const xq_material *goals, int ngoals, const table_args *a)
{
    char err[XQ_ERR_MAX], name[XQ_MATERIAL_MAX];
    xq_material_name(m, name);
    tb_table *t = ngoals ? tb_set_get_trimmed_for(set, goals, ngoals, err) : tb_set_get(set, m, err);
    if (!t) return load_failure("verify", err);
    tb_verify_report r;
    if (tb_verify(t, a->threads, &r)) {
        fprintf(stderr, "xqtb verify: %s: %llu of %llu positions inconsistent; first: %s\n", name,
                (unsigned long long)r.errors, (unsigned long long)r.checked, r.first_error);
        return EXIT_NO_ANSWER;
    }
    if (!a->quiet) printf("%s: %llu positions consistent with their successors\n", name, (unsigned long long)r.checked);
    return 0;
}

/* verify --set: every table of the set, subtables first, going on past an
 * inconsistent table so that the run names them all.  The tables loaded
 * stay for the next ones (a table's subtables are loaded with it, so
 * loading each table afresh would read the small ones hundreds of times),
 * until they hold half the memory available: then the set starts again
 * empty, so that a set whose tables together do not fit still verifies. */
static int verify_set(const table_args *a)
{
    tb_set_list l;
    char err[XQ_ERR_MAX];
    if (tb_set_list_make(&a->set, &l, err)) return cli_usage_error("verify", "%s", err);
    uint64_t budget = tb_memory_available() / 2;
    if (!budget) budget = (uint64_t)4 << 30;
    int rc = 0, bad = 0;
    tb_set *set = NULL;
    for (int i = 0; i < l.n && rc != EXIT_FAILURE_IO; i++) {
        if (set && tb_set_bytes(set) > budget) {
            tb_set_free(set);
            set = NULL;
        }
        if (!set && !(set = tb_set_new(a->dir))) {
            rc = EXIT_FAILURE_IO;
            break;
        }
        int r = verify_one(set, &l.m[i].mat, NULL, 0, a);
        if (r == EXIT_NO_ANSWER) bad++;
        if (r && (r != EXIT_NO_ANSWER || !rc)) rc = r;
    }
    tb_set_free(set);
    if (!a->quiet && rc != EXIT_FAILURE_IO)
        printf("%s: %d tables verified, %d inconsistent or missing\n", a->set.name, l.n, bad);
    tb_set_list_free(&l);
    return rc;
}

int cmd_verify(int argc, char **argv)
{
    table_args a;
    if (parse_table_args("verify", argc, argv, "tdqs", 1, &a)) return EXIT_BAD_INPUT;
    if (a.has_set) return verify_set(&a);
    xq_material *named = calloc((size_t)a.nmaterial, sizeof *named);
    if (!named) return EXIT_FAILURE_IO;
    for (int i = 0; i < a.nmaterial; i++)
        if (parse_material_arg("verify", a.material[i], &named[i])) {
            free(named);
            return EXIT_BAD_INPUT;
        }
    /* One set for the tables named, trimmed before each load to what the
     * table loaded and those still to verify read, so that they share their
     * subtables; a table the set holds already (a subtable of one verified
     * before it) may be held trimmed, and gets a fresh set. */
    int rc = 0;
    tb_set *set = NULL;
    for (int i = 0; i < a.nmaterial && rc == 0; i++) {
        if (set && tb_set_find(set, &named[i])) {
            tb_set_free(set);
            set = NULL;
        }
        if (!set && !(set = tb_set_new(a.dir))) {
            rc = EXIT_FAILURE_IO;
            break;
        }
        rc = verify_one(set, &named[i], &named[i], a.nmaterial - i, &a);
    }
    tb_set_free(set);
    free(named);
    return rc;
}
