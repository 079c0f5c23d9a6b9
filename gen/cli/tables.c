/*
 * tables.c - subcommands over generated tables: gen, stats, verify.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic_file.h"
#include "cli.h"
#include "compress.h"
#include "dtc.h"
#include "tb.h"

static const char default_dir[] = "tables";

/* Options shared by the table subcommands. */
typedef struct {
    const char *dir;
    int threads, quiet, json, force, wide, all, rules, limit, store_both, keep_raw;
    uint64_t max_memory;
    const char *material[64];
    int nmaterial;
} table_args;

/* Parses argv; `allowed` lists the flags the subcommand takes, e.g. "tdqjf".
 * Returns 0 or EXIT_BAD_INPUT (message printed). */
static int parse_table_args(const char *cmd, int argc, char **argv, const char *allowed, table_args *a)
{
    memset(a, 0, sizeof *a);
    a->dir = default_dir;
    a->rules = XQ_RULES_FULL;
    a->limit = 120; /* 60 moves by each side: the natural limit (docs/RULES.md) */
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i];
        char flag = 0;
        if (!strcmp(o, "-t"))
            flag = 't';
        else if (!strcmp(o, "-d"))
            flag = 'd';
        else if (!strcmp(o, "-q"))
            flag = 'q';
        else if (!strcmp(o, "--json"))
            flag = 'j';
        else if (!strcmp(o, "--force"))
            flag = 'f';
        else if (!strcmp(o, "--wide"))
            flag = 'w';
        else if (!strcmp(o, "--store-both"))
            flag = 'b';
        else if (!strcmp(o, "--keep-raw"))
            flag = 'k';
        else if (!strcmp(o, "--max-memory"))
            flag = 'm';
        else if (!strcmp(o, "--all"))
            flag = 'a';
        else if (!strcmp(o, "--rules"))
            flag = 'r';
        else if (!strcmp(o, "--limit"))
            flag = 'l';
        else if (o[0] == '-')
            return cli_usage_error(cmd, "unknown option '%s'", o);
        if (flag && !strchr(allowed, flag)) return cli_usage_error(cmd, "option '%s' does not apply here", o);
        if (flag == 'm') {
            if (++i == argc) return cli_usage_error(cmd, "option %s needs a value", o);
            long mib = cli_parse_uint(argv[i], 1L << 30);
            if (mib < 1) return cli_usage_error(cmd, "--max-memory needs a size in MiB, not '%s'", argv[i]);
            a->max_memory = (uint64_t)mib << 20;
        } else if (flag == 'l') {
            if (++i == argc) return cli_usage_error(cmd, "option %s needs a value", o);
            long n = cli_parse_uint(argv[i], DTC_MAX_LIMIT);
            if (n < 0)
                return cli_usage_error(cmd, "--limit needs a number of plies from 0 (none) to %d, not '%.40s'",
                                       DTC_MAX_LIMIT, argv[i]);
            a->limit = (int)n;
        } else if (flag == 'r') {
            if (++i == argc) return cli_usage_error(cmd, "option %s needs a value", o);
            a->rules = xq_rules_parse(argv[i]);
            if (a->rules < 0) return cli_usage_error(cmd, "--rules takes none, check or full, not '%.40s'", argv[i]);
        } else if (flag == 'w') {
            a->wide = 1;
        } else if (flag == 'b') {
            a->store_both = 1;
        } else if (flag == 'k') {
            a->keep_raw = 1;
        } else if (flag == 'a') {
            if (++i == argc) return cli_usage_error(cmd, "option %s needs a piece count", o);
            long n = cli_parse_uint(argv[i], 8);
            if (n < 2)
                return cli_usage_error(cmd, "--all needs a piece count from 2 to 8 (kings included), not '%s'",
                                       argv[i]);
            a->all = (int)n;
        } else if (flag == 't' || flag == 'd') {
            if (++i == argc) return cli_usage_error(cmd, "option %s needs a value", o);
            if (flag == 'd') {
                /* probe, adjudicate and xqtb_open read ':' as a separator
                 * of directories: tables written there could not be found */
                if (strchr(argv[i], ':'))
                    return cli_usage_error(cmd,
                                           "-d takes one directory, and '%.200s' contains ':', which xqtb probe "
                                           "reads as a separator between directories",
                                           argv[i]);
                if (!argv[i][0]) return cli_usage_error(cmd, "-d needs a directory name, not an empty string");
                a->dir = argv[i];
            } else {
                long n = cli_parse_uint(argv[i], 64);
                if (n < 1) return cli_usage_error(cmd, "-t needs a thread count from 1 to 64, not '%s'", argv[i]);
                a->threads = (int)n;
            }
        } else if (flag == 'q') {
            a->quiet = 1;
        } else if (flag == 'j') {
            a->json = 1;
        } else if (flag == 'f') {
            a->force = 1;
        } else {
            if (a->nmaterial == 64) return cli_usage_error(cmd, "too many materials (at most 64)");
            a->material[a->nmaterial++] = o;
        }
    }
    if (a->nmaterial == 0 && !a->all) return cli_usage_error(cmd, "missing MATERIAL (e.g. KRKNAA)");
    return 0;
}

static int parse_material_arg(const char *cmd, const char *s, xq_material *m)
{
    char err[XQ_ERR_MAX];
    if (xq_material_parse(s, m, err)) return cli_usage_error(cmd, "%s", err);
    xq_material_canonical(m, m);
    return 0;
}

/* Exit status for a table that could not be loaded: missing is "no answer",
 * anything else (damaged, unreadable) a failure of the machine's files. */
static int load_failure(const char *cmd, const char *err)
{
    fprintf(stderr, "xqtb %s: %s\n", cmd, err);
    return strstr(err, "No such file") ? EXIT_NO_ANSWER : EXIT_FAILURE_IO;
}

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

static void print_side_text(const char *who, const tb_side_stats *s)
{
    printf("  %s to move: %llu legal, %llu win (%.1f%%), %llu draw (%.1f%%), %llu loss (%.1f%%)\n", who,
           (unsigned long long)s->legal, (unsigned long long)s->win,
           s->legal ? 100.0 * (double)s->win / (double)s->legal : 0.0, (unsigned long long)s->draw,
           s->legal ? 100.0 * (double)s->draw / (double)s->legal : 0.0, (unsigned long long)s->loss,
           s->legal ? 100.0 * (double)s->loss / (double)s->legal : 0.0);
    if (s->longest_win >= 0) printf("    longest win:  %3d plies  %s\n", s->longest_win, s->longest_win_fen);
    if (s->longest_loss >= 0) printf("    longest loss: %3d plies  %s\n", s->longest_loss, s->longest_loss_fen);
    static const char *const by[2] = {"perpetual check", "perpetual chase"};
    for (int k = 0; k < 2; k++) {
        if (s->ruled_win[k])
            printf("    won by the %s ruling (drawn under --rules none):  %llu  e.g. %s\n", by[k],
                   (unsigned long long)s->ruled_win[k], s->ruled_win_fen[k]);
        if (s->ruled_loss[k])
            printf("    lost by the %s ruling (drawn under --rules none): %llu  e.g. %s\n", by[k],
                   (unsigned long long)s->ruled_loss[k], s->ruled_loss_fen[k]);
    }
}

static void print_stats_text(const char *dir, const tb_table *t, const tb_stats *st, int histogram)
{
    char name[XQ_MATERIAL_MAX];
    xq_material_name(&t->mat, name);
    uint64_t legal = st->side[0].legal + st->side[1].legal;
    uint64_t used = st->side[0].entries + st->side[1].entries;
    printf("%s: %llu legal positions; index %llu entries per side to move, %.1f%% of them legal "
           "(mirror images share an entry)\n",
           name, (unsigned long long)legal, (unsigned long long)st->index_size,
           st->index_size ? 100.0 * (double)used / (2.0 * (double)st->index_size) : 0.0);
    uint64_t wb, db, cb;
    compressed_sizes(dir, &t->mat, &wb, &db, &cb);
    if (wb || db) {
        printf("  files: WDL %llu bytes (%.3f bits per legal position), DTM %llu bytes (%.3f)", (unsigned long long)wb,
               bits_per(wb, legal), (unsigned long long)db, bits_per(db, legal));
        if (cb) printf(", DTC %llu bytes (%.3f)", (unsigned long long)cb, bits_per(cb, legal));
        printf("\n");
    }
    if (t->limit) printf("  move limit: %d plies (DTC computed)\n", t->limit);
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
    print_side_text("red", &st->side[0]);
    print_side_text("black", &st->side[1]);
    if (!histogram) return;
    printf("  DTM histogram (plies: red to move, black to move)\n");
    for (int d = 0; d < TB_HIST_MAX; d++)
        if (st->side[0].hist[d] || st->side[1].hist[d])
            printf("    %4d%s %12llu %12llu\n", d, d == TB_HIST_MAX - 1 ? "+" : " ",
                   (unsigned long long)st->side[0].hist[d], (unsigned long long)st->side[1].hist[d]);
}

static void print_longest_json(const char *key, int dtm, const char *fen)
{
    if (dtm < 0)
        printf("\"%s\":null", key);
    else
        printf("\"%s\":{\"dtm\":%d,\"fen\":\"%s\"}", key, dtm, fen);
}

static void print_stats_json(const char *dir, const tb_table *t, const tb_stats *st)
{
    char name[XQ_MATERIAL_MAX];
    xq_material_name(&t->mat, name);
    uint64_t used = st->side[0].entries + st->side[1].entries;
    printf("{\"material\":\"%s\",\"rules\":\"%s\",\"index_size\":%llu,\"index_efficiency\":%.4f", name,
           xq_rules_name(st->rules), (unsigned long long)st->index_size,
           st->index_size ? (double)used / (2.0 * (double)st->index_size) : 0.0);
    uint64_t wb, db, cb, legal = st->side[0].legal + st->side[1].legal;
    compressed_sizes(dir, &t->mat, &wb, &db, &cb);
    printf(",\"limit\":%d,\"wdl_bytes\":%llu,\"dtm_bytes\":%llu,\"dtc_bytes\":%llu,\"wdl_bits_per_position\":%.4f,"
           "\"dtm_bits_per_position\":%.4f,\"dtc_bits_per_position\":%.4f",
           t->limit, (unsigned long long)wb, (unsigned long long)db, (unsigned long long)cb, bits_per(wb, legal),
           bits_per(db, legal), bits_per(cb, legal));
    for (int s = 0; s < 2; s++) {
        const tb_side_stats *ss = &st->side[s];
        printf(",\"%s\":{\"legal\":%llu,\"win\":%llu,\"draw\":%llu,\"loss\":%llu,", s ? "black" : "red",
               (unsigned long long)ss->legal, (unsigned long long)ss->win, (unsigned long long)ss->draw,
               (unsigned long long)ss->loss);
        print_longest_json("longest_win", ss->longest_win, ss->longest_win_fen);
        printf(",");
        print_longest_json("longest_loss", ss->longest_loss, ss->longest_loss_fen);
        printf(",\"by_rule\":{");
        static const char *const by[2] = {"perpetual_check", "perpetual_chase"};
        for (int k = 0; k < 2; k++) {
            printf("%s\"%s\":{\"win\":%llu,\"loss\":%llu,\"win_example\":", k ? "," : "", by[k],
                   (unsigned long long)ss->ruled_win[k], (unsigned long long)ss->ruled_loss[k]);
            if (ss->ruled_win[k])
                printf("\"%s\"", ss->ruled_win_fen[k]);
            else
                printf("null");
            printf(",\"loss_example\":");
            if (ss->ruled_loss[k])
                printf("\"%s\"", ss->ruled_loss_fen[k]);
            else
                printf("null");
            printf("}");
        }
        printf(",\"max_order\":%d}", ss->max_order);
        printf(",\"histogram\":{");
        int first = 1;
        for (int d = 0; d < TB_HIST_MAX; d++)
            if (ss->hist[d]) {
                printf("%s\"%d\":%llu", first ? "" : ",", d, (unsigned long long)ss->hist[d]);
                first = 0;
            }
        printf("}}");
    }
    printf("}\n");
}

/* Every canonical material with at most `pieces` pieces (kings included),
 * fewest pieces first: what `gen --all N` builds.  Returns the count. */
static const uint8_t all_kinds[6] = {ADVISOR, ELEPHANT, HORSE, ROOK, CANNON, PAWN};

/* Fills (colour, kind) slots from `slot` on with exactly `left` pieces. */
static void enumerate_slots(xq_material *m, int slot, int left, xq_material *out, int *n, int cap)
{
    if (slot == 12) {
        if (left) return;
        xq_material canon;
        xq_material_canonical(m, &canon);
        for (int j = 0; j < *n; j++)
            if (xq_material_equal(&out[j], &canon)) return;
        if (*n < cap) out[(*n)++] = canon;
        return;
    }
    int colour = slot / 6, kind = all_kinds[slot % 6];
    for (int k = 0; k <= xq_kind_limit[kind] && k <= left; k++) {
        m->count[colour][kind] = (uint8_t)k;
        enumerate_slots(m, slot + 1, left - k, out, n, cap);
    }
    m->count[colour][kind] = 0;
}

static int all_materials(int pieces, xq_material *out, int cap)
{
    int n = 0;
    xq_material m;
    memset(&m, 0, sizeof m);
    m.count[RED][KING] = m.count[BLACK][KING] = 1;
    for (int extra = 0; extra <= pieces - 2; extra++) enumerate_slots(&m, 0, extra, out, &n, cap);
    return n;
}

/* Loads the raw table of m from dir and prints its statistics (JSON, or
 * text with or without the DTM histogram).  Returns an exit status. */
static int show_stats(const char *cmd, const char *dir, const xq_material *m, int json, int histogram)
{
    char err[XQ_ERR_MAX];
    tb_table *t = tb_raw_read(dir, m, err);
    if (!t) return load_failure(cmd, err);
    tb_stats st;
    tb_compute_stats(t, &st);
    if (json)
        print_stats_json(dir, t, &st);
    else
        print_stats_text(dir, t, &st, histogram);
    tb_table_free(t);
    return 0;
}

static void report_removed(void *arg, const char *name, long pid)
{
    fprintf(stderr, "xqtb gen: removed %s/%s, left by process %ld, which is gone\n", (const char *)arg, name, pid);
}

int cmd_gen(int argc, char **argv)
{
    table_args a;
    if (parse_table_args("gen", argc, argv, "tdqfwmarlbk", &a)) return EXIT_BAD_INPUT;
    enum { MAX_ALL = 20000 };
    static xq_material m[MAX_ALL];
    for (int i = 0; i < a.nmaterial; i++)
        if (parse_material_arg("gen", a.material[i], &m[i])) return EXIT_BAD_INPUT;
    if (a.all) {
        if (a.nmaterial) return cli_usage_error("gen", "give either --all N or materials, not both");
        a.nmaterial = all_materials(a.all, m, MAX_ALL);
        if (!a.quiet) fprintf(stderr, "xqtb gen: %d materials with at most %d pieces\n", a.nmaterial, a.all);
    }
    /* Leftovers of killed runs (docs/GENERATOR.md, Temporary files). */
    atomic_clean_dir(a.dir, a.quiet ? NULL : report_removed, (void *)a.dir);
    /* Notices (a table reused, a file rewritten) always, unless -q; the
     * per-ply progress only on a terminal, where \r redraws it. */
    tb_gen_memory mem;
    tb_gen_options opt = {.dir = a.dir,
                          .threads = a.threads,
                          .quiet = a.quiet,
                          .progress = !a.quiet && isatty(2),
                          .force = a.force,
                          .wide = a.wide,
                          .store_both = a.store_both,
                          .keep_raw = a.keep_raw,
                          .max_memory = a.max_memory,
                          .rules = a.rules,
                          .limit = a.limit,
                          .memory = &mem};
    for (int i = 0; i < a.nmaterial; i++) {
        char err[XQ_ERR_MAX];
        memset(&mem, 0, sizeof mem);
        if (tb_generate(&m[i], &opt, err)) {
            fprintf(stderr, "xqtb gen: %s\n", err);
            return EXIT_FAILURE_IO;
        }
        if (a.quiet) continue;
        int rc = show_stats("gen", a.dir, &m[i], 0, 0);
        if (rc) return rc;
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
    if (parse_table_args("stats", argc, argv, "dj", &a)) return EXIT_BAD_INPUT;
    if (a.nmaterial != 1) return cli_usage_error("stats", "give exactly one MATERIAL");
    xq_material m;
    if (parse_material_arg("stats", a.material[0], &m)) return EXIT_BAD_INPUT;
    return show_stats("stats", a.dir, &m, a.json, 1);
}

int cmd_verify(int argc, char **argv)
{
    table_args a;
    if (parse_table_args("verify", argc, argv, "tdq", &a)) return EXIT_BAD_INPUT;
    int rc = 0;
    tb_set *set = tb_set_new(a.dir);
    if (!set) return EXIT_FAILURE_IO;
    for (int i = 0; i < a.nmaterial && rc == 0; i++) {
        xq_material m;
        char err[XQ_ERR_MAX], name[XQ_MATERIAL_MAX];
        if (parse_material_arg("verify", a.material[i], &m)) {
            rc = EXIT_BAD_INPUT;
            break;
        }
        xq_material_name(&m, name);
        tb_table *t = tb_set_get(set, &m, err);
        if (!t) {
            rc = load_failure("verify", err);
            break;
        }
        tb_verify_report r;
        if (tb_verify(t, a.threads, &r)) {
            fprintf(stderr, "xqtb verify: %s: %llu of %llu positions inconsistent; first: %s\n", name,
                    (unsigned long long)r.errors, (unsigned long long)r.checked, r.first_error);
            rc = EXIT_NO_ANSWER;
        } else if (!a.quiet) {
            printf("%s: %llu positions consistent with their successors\n", name, (unsigned long long)r.checked);
        }
    }
    tb_set_free(set);
    return rc;
}
