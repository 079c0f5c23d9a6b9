/*
 * table_args.c - see table_args.h.
 */
#include "table_args.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "dtc.h"
#include "tb.h"

static const char default_dir[] = "tables";

int parse_table_args(const char *cmd, int argc, char **argv, const char *allowed, int need_target, table_args *a)
{
    memset(a, 0, sizeof *a);
    tb_set_filter filter;
    tb_set_filter_init(&filter);
    int filtered = 0, all = 0;
    const char *set = NULL;
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
        else if (!strcmp(o, "--set"))
            flag = 's';
        else if (!strcmp(o, "-o"))
            flag = 'o';
        else if (!strcmp(o, "--rules"))
            flag = 'r';
        else if (!strcmp(o, "--limit"))
            flag = 'l';
        else if (!strcmp(o, "--pieces") || !strcmp(o, "--attackers") || !strcmp(o, "--defenders") ||
                 !strcmp(o, "--with") || !strcmp(o, "--without"))
            flag = 'F';
        else if (o[0] == '-')
            return cli_usage_error(cmd, "unknown option '%s'", o);
        if (flag && !strchr(allowed, flag == 'F' || flag == 'a' ? 's' : flag))
            return cli_usage_error(cmd, "option '%s' does not apply here", o);
        if (flag == 'F' || flag == 's' || flag == 'o') {
            if (++i == argc) return cli_usage_error(cmd, "option %s needs a value", o);
            char err[XQ_ERR_MAX];
            if (flag == 'F' && tb_set_filter_option(&filter, o, argv[i], err) < 0)
                return cli_usage_error(cmd, "%s", err);
            if (flag == 'F') filtered = 1;
            if (flag == 's') set = argv[i];
            if (flag == 'o') a->out = argv[i];
            continue;
        }
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
            if (a->rules < 0)
                return cli_usage_error(cmd, "--rules takes none, check, full, asian or cxa, not '%.40s'", argv[i]);
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
            all = (int)n;
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
                /* a DIR that does not exist yet is fine (gen creates it;
                 * the others say its tables are missing); one that exists
                 * as something else is a wrong argument, not a failure */
                struct stat sb;
                if (stat(argv[i], &sb) == 0 && !S_ISDIR(sb.st_mode))
                    return cli_usage_error(cmd, "-d needs a directory, and '%.200s' is not one", argv[i]);
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
    /* `xqtb sets NAME`: a bare word names the set */
    if (strchr(allowed, 'n') && !set && !all && a->nmaterial == 1) {
        set = a->material[0];
        a->nmaterial = 0;
    }
    if (strchr(allowed, 'n') && a->nmaterial) return cli_usage_error(cmd, "give one set name");
    if (set && all) return cli_usage_error(cmd, "give either --set NAME or --all N, not both");
    if ((set || all) && a->nmaterial) return cli_usage_error(cmd, "give either a set or materials, not both");
    if (filtered && !set && !all)
        return cli_usage_error(cmd, "--pieces, --attackers, --defenders, --with and --without filter a set: "
                                    "give --set NAME");
    if (set || all) {
        char name[32], err[XQ_ERR_MAX];
        snprintf(name, sizeof name, "up-to-%d", all);
        if (tb_set_spec_parse(set ? set : name, &a->set, err)) return cli_usage_error(cmd, "%s", err);
        a->set.filter = filter;
        a->has_set = 1;
    }
    if (need_target && a->nmaterial == 0 && !a->has_set)
        return cli_usage_error(cmd, "missing MATERIAL (e.g. KRKNAA)%s", strchr(allowed, 's') ? " or --set NAME" : "");
    return 0;
}

int parse_material_arg(const char *cmd, const char *s, xq_material *m)
{
    char err[XQ_ERR_MAX];
    if (xq_material_parse(s, m, err)) return cli_usage_error(cmd, "%s", err);
    xq_material_canonical(m, m);
    return 0;
}

int load_failure(const char *cmd, const char *err)
{
    fprintf(stderr, "xqtb %s: %s\n", cmd, err);
    return strstr(err, "No such file") ? EXIT_NO_ANSWER : EXIT_FAILURE_IO;
}

void table_gen_options(const table_args *a, tb_gen_options *opt)
{
    /* Notices (a table reused, a file rewritten) always, unless -q; the
     * per-ply progress only on a terminal, where \r redraws it. */
    *opt = (tb_gen_options){.dir = a->dir,
                            .threads = a->threads,
                            .quiet = a->quiet,
                            .progress = !a->quiet && isatty(2),
                            .force = a->force,
                            .wide = a->wide,
                            .store_both = a->store_both,
                            .keep_raw = a->keep_raw,
                            .max_memory = a->max_memory,
                            .rules = a->rules,
                            .limit = a->limit};
}
