/*
 * schedule.c - tb_generate: the dependency graph over materials (a capture
 * removes one non-king piece), walked depth first so every subtable is
 * solved or loaded before the table that captures into it.
 */
#include <errno.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cell.h"
#include "clock.h"
#include "compress.h"
#include "dtc.h"
#include "memplan.h"
#include "parallel.h"
#include "repetition.h"
#include "retro.h"
#include "tb.h"
#include "tbcheck.h"
#include "tbformat.h"

typedef struct {
    const char *name;
    int progress;
    double t0; /* tb_now_seconds() at the start */
} progress_state;

/* Figures in MiB to a tenth, rounded the safe way: a need up, a limit down. */
static double mib_up(uint64_t bytes) { return ceil((double)bytes / 104857.6) / 10.0; }
static double mib_down(uint64_t bytes) { return floor((double)bytes / 104857.6) / 10.0; }

static void show_progress(void *arg, const retro_progress *p)
{
    progress_state *s = arg;
    if (!s->progress) return;
    double secs = tb_now_seconds() - s->t0;
    fprintf(stderr, "\r%-10s ply %4d: %10llu decided, %5.1f%% of %llu legal entries, %6.1f s ", s->name, p->ply,
            (unsigned long long)p->resolved, p->legal ? 100.0 * (double)p->total / (double)p->legal : 0.0,
            (unsigned long long)p->legal, secs);
    fflush(stderr);
}

/* The engine-facing files of a solved table (.xqw, .xqd, and .xqc with a
 * move limit). */
static int write_compressed(const tb_table *t, const tb_gen_options *opt, char err[XQ_ERR_MAX])
{
    char name[XQ_MATERIAL_MAX];
    xq_material_name(&t->mat, name);
    tb_compress_options co = {.threads = opt->threads, .searched = opt->store_both ? TB_SEARCH_NONE : TB_SEARCH_AUTO};
    tb_compress_report r;
    double start = tb_now_seconds();
    if (tb_compress_write(t, opt->dir, &co, &r, err)) return -1;
    /* the seconds let scripts/bench-steps tell compression from the rest */
    if (opt->progress && r.legal_entries) {
        fprintf(stderr, "%-10s compressed: WDL %llu bytes (%.3f bits per legal entry), DTM %llu bytes (%.3f)", name,
                (unsigned long long)r.wdl_bytes, 8.0 * (double)r.wdl_bytes / (double)r.legal_entries,
                (unsigned long long)r.dtm_bytes, 8.0 * (double)r.dtm_bytes / (double)r.legal_entries);
        if (t->limit)
            fprintf(stderr, ", DTC %llu bytes (%.3f)", (unsigned long long)r.dtc_bytes,
                    8.0 * (double)r.dtc_bytes / (double)r.legal_entries);
        fprintf(stderr, ", %.2f s\n", tb_now_seconds() - start);
    }
    return 0;
}

/* Whether every compressed file table t calls for (WDL and DTM, and DTC
 * with a move limit) is present, intact as `xqtb check` sees it (header,
 * metadata, every block's checksum: core/tbcheck.h), and built under t's
 * rule set and move limit, with the sides opt asks stored: TB_DONE, else
 * TB_TO_CONVERT if they are sound but store other sides than opt asks
 * (tb.h), else TB_NOT_DONE.  If not TB_DONE, why names the first file that
 * is not and what is wrong with it.  *width (if not NULL) gets the cell
 * width the table rebuilt from the files takes (unpack.c: two bytes past
 * 251 plies). */
static int compressed_files_sound(const tb_gen_options *opt, const xq_material *m, uint64_t entries, int rules,
                                  int limit, char why[XQ_ERR_MAX], int *width)
{
    char name[XQ_MATERIAL_MAX], path[4096];
    xq_material_name(m, name);
    int result = TB_DONE;
    for (int kind = 0; kind < (limit ? XQF_COMPRESSED_KINDS : XQF_KIND_DTC); kind++) {
        xqf_path(opt->dir, name, kind, path, sizeof path);
        xqf_check_report r;
        if (xqf_check_file(path, kind, name, entries, 0, &r) != XQF_OK) {
            if (r.status == XQF_MISSING)
                snprintf(why, XQ_ERR_MAX, "%.60s is missing", path);
            else
                snprintf(why, XQ_ERR_MAX, "%.60s is %s (%.80s)", path, xqf_check_status_name(r.status), r.why);
            return TB_NOT_DONE;
        }
        if (kind == XQF_KIND_DTM && width) *width = r.info.max_dtm > CELL8_DTM_MAX ? 2 : 1;
        if (r.info.rules != (uint32_t)rules || r.info.limit != (uint32_t)limit) {
            snprintf(why, XQ_ERR_MAX, "%.60s was built under rules %s and a limit of %u plies, not %s and %d", path,
                     xq_rules_name((int)r.info.rules), r.info.limit, xq_rules_name(rules), limit);
            return TB_NOT_DONE;
        }
        /* --store-both asks for files without a searched side, the default
         * for files with one (a table too small to have one in some kind
         * still gets one: write_kind always picks a side) */
        if (kind != XQF_KIND_WDL && (r.info.searched < 0) != (opt->store_both != 0) && result == TB_DONE) {
            snprintf(why, XQ_ERR_MAX, "%.60s %s", path,
                     opt->store_both ? "has a searched side, and --store-both asks for none"
                                     : "stores both sides (--store-both), and the default searches one");
            result = TB_TO_CONVERT; /* the other files may still be unsound */
        }
    }
    return result;
}

/* The repetition rulings over what retro_solve left drawn; `left` bounds
 * their drawn region and game graph (UINT64_MAX: no bound), *peak gets
 * what they held at most. */
static int apply_rules(tb_table *t, const char *name, const tb_gen_options *opt, int threads, uint64_t left,
                       uint64_t *peak, char err[XQ_ERR_MAX])
{
    double t0 = tb_now_seconds();
    repetition_report rep;
    char why[XQ_ERR_MAX];
    int rc = repetition_solve(t, threads, left, opt->kept_late, &rep, why);
    *peak = rep.peak_bytes;
    if (rc) {
        snprintf(err, XQ_ERR_MAX, "%s: %.120s", name, why);
        return -1;
    }
    if (opt->progress && t->rules != XQ_RULES_NONE)
        fprintf(stderr,
                "%-10s rulings (%s): %llu drawn entries, %llu nodes, %llu edges (%.1f MiB); decided %llu by check, "
                "%llu by %s, %d orders, %.2f s (escapes %.2f s, graph %.2f s, solves %.2f + %.2f s)\n",
                name, xq_rules_name(t->rules), (unsigned long long)rep.positions, (unsigned long long)rep.nodes,
                (unsigned long long)rep.edges, mib_up(rep.peak_bytes), (unsigned long long)rep.decided[0],
                (unsigned long long)rep.decided[1], t->rules == XQ_RULES_CXA ? "attack" : "chase", rep.orders,
                tb_now_seconds() - t0, rep.seconds[RULINGS_ESCAPES], rep.seconds[RULINGS_GRAPH],
                rep.seconds[RULINGS_SOLVE], rep.seconds[RULINGS_CHECK_SOLVE]);
    return 0;
}

/* Distance to conversion under the move limit, if there is one. */
static int apply_limit(tb_table *t, const char *name, const tb_gen_options *opt, int threads,
                       const uint64_t *const *early, char err[XQ_ERR_MAX])
{
    if (!t->limit) return 0;
    double t0 = tb_now_seconds();
    dtc_report rep;
    char why[XQ_ERR_MAX];
    if (dtc_solve(t, threads, early, &rep, why)) {
        snprintf(err, XQ_ERR_MAX, "%s: %.120s", name, why);
        return -1;
    }
    if (opt->progress)
        fprintf(stderr,
                "%-10s DTC (limit %d plies): longest %d plies, %llu entries beyond the limit, %d plies, %.2f s\n", name,
                t->limit, rep.longest, (unsigned long long)rep.beyond, rep.passes, tb_now_seconds() - t0);
    return 0;
}

/* The retrograde passes, the rulings and the distance to conversion,
 * which starts from what the first of them found in its initial pass (the
 * `early` bitmaps, held from one to the other: memplan.c counts them). */
static int solve(tb_table *t, const char *name, const tb_gen_options *opt, int threads, uint64_t left, uint64_t *graph,
                 char err[XQ_ERR_MAX])
{
    uint64_t *early[2] = {NULL, NULL};
    uint64_t words = (t->ix.size + 63) / 64;
    if (t->limit && (!(early[0] = calloc(words, sizeof(uint64_t))) || !(early[1] = calloc(words, sizeof(uint64_t))))) {
        free(early[0]);
        snprintf(err, XQ_ERR_MAX, "%s: out of memory for the work bitmaps", name);
        return -1;
    }
    progress_state ps = {name, opt->progress, tb_now_seconds()};
    int rc = retro_solve(t, threads, t->limit ? early : NULL, show_progress, &ps, err);
    if (rc == 0 && opt->progress) {
        double secs = tb_now_seconds() - ps.t0;
        fprintf(stderr, "\r%-10s solved: %llu entries per side, longest DTM %d%s, %.2f s (%.2f M entries/s)%20s\n",
                name, (unsigned long long)t->ix.size, t->max_dtm < 0 ? 0 : t->max_dtm,
                t->max_dtm < 0 ? " (nothing decided: all draws)" : " plies", secs,
                secs > 0 ? 2.0 * (double)t->ix.size / secs / 1e6 : 0.0, "");
    }
    if (rc == 0) rc = apply_rules(t, name, opt, threads, left, graph, err);
    if (rc == 0) rc = apply_limit(t, name, opt, threads, (const uint64_t *const *)early, err);
    free(early[0]);
    free(early[1]);
    return rc;
}

/* Width the table's cells start with: two bytes with --wide, or when a
 * capture can reach a DTM a byte cannot hold (retro_solve widens then). */
static int start_width(tb_set *set, const xq_material *m, const tb_gen_options *opt)
{
    if (opt->wide) return 2;
    xq_material sub[XQ_MAX_SUBTABLES];
    int n = xq_material_subtables(m, sub);
    for (int k = 0; k < n; k++) {
        const tb_table *s = tb_set_find(set, &sub[k]);
        if (s && s->max_dtm + 2 > CELL8_DTM_MAX) return 2;
    }
    return 1;
}

/* The memory check before allocating: with overcommit, a table too big for
 * the machine would not fail in malloc but get the process killed later.
 * The plan's bound (memplan.h) is compared with --max-memory, counting the
 * subtables in memory, and with what the system has left (MemAvailable,
 * which already leaves them out).  Sets *left to what the rulings' drawn
 * region and game graph may take: the budget less the tables, subtables
 * and this one's cells and ruled bytes (UINT64_MAX: no bound known). */
static int check_memory(const char *name, const tb_mem_plan *p, const tb_gen_options *opt, uint64_t *left,
                        char err[XQ_ERR_MAX])
{
    uint64_t sys = tb_memory_available(), step = p->step[p->largest];
    const char *what = tb_mem_step_name(p->largest);
    if (opt->max_memory && p->total > opt->max_memory) {
        snprintf(err, XQ_ERR_MAX,
                 "%s needs %.1f MiB but --max-memory allows %.1f: %.1f MiB of subtables in memory, %.1f MiB for %s",
                 name, mib_up(p->total), mib_down(opt->max_memory), mib_up(p->resident), mib_up(step), what);
        return -1;
    }
    if (sys && step > sys) {
        snprintf(err, XQ_ERR_MAX,
                 "%s needs %.1f MiB more (for %s; %.1f MiB of subtables are in memory) but only %.1f MiB is "
                 "available",
                 name, mib_up(step), what, mib_up(p->resident), mib_down(sys));
        return -1;
    }
    *left = UINT64_MAX;
    if (opt->max_memory) *left = opt->max_memory - p->resident - p->step[TB_STEP_RULINGS];
    if (sys && sys - p->step[TB_STEP_RULINGS] < *left) *left = sys - p->step[TB_STEP_RULINGS];
    return 0;
}

/* Removes the raw file of m from dir if there is one. */
static int remove_raw(const xq_material *m, const char *dir, char err[XQ_ERR_MAX])
{
    char path[4096];
    tb_raw_path(dir, m, path, sizeof path);
    if (unlink(path) == 0 || errno == ENOENT) return 0;
    snprintf(err, XQ_ERR_MAX, "cannot remove the stale %.60s: %s", path, strerror(errno));
    return -1;
}

/* Entries per side of the index of m (0 if it cannot be built). */
static uint64_t index_entries(const xq_material *m)
{
    xq_index ix;
    if (xq_index_init(&ix, m)) return 0;
    uint64_t n = ix.size;
    xq_index_free(&ix);
    return n;
}

/* The memory check before a table is rebuilt from its files and written
 * again (no retrograde pass, rulings or DTC run): its unpacked arrays and
 * compression's work, or the raw file's with --keep-raw, beside the
 * subtables in memory; the plan's steps (memplan.h) bound both. */
static int rewrite_fits(tb_set *set, const xq_material *m, int width, const tb_gen_options *opt, char err[XQ_ERR_MAX])
{
    char name[XQ_MATERIAL_MAX];
    xq_material_name(m, name);
    int threads = opt->threads > 0 ? opt->threads : par_cores();
    tb_mem_plan plan;
    if (tb_mem_plan_make(m, width, opt->rules, opt->limit, threads, opt->keep_raw, tb_set_bytes(set), &plan)) {
        snprintf(err, XQ_ERR_MAX, "%s: the index is too large", name);
        return -1;
    }
    uint64_t step =
        plan.step[TB_STEP_COMPRESS] > plan.step[TB_STEP_RAW] ? plan.step[TB_STEP_COMPRESS] : plan.step[TB_STEP_RAW];
    uint64_t sys = tb_memory_available();
    if (opt->max_memory && plan.resident + step > opt->max_memory) {
        snprintf(err, XQ_ERR_MAX,
                 "%s: writing its files again needs %.1f MiB but --max-memory allows %.1f (%.1f MiB of subtables "
                 "in memory)",
                 name, mib_up(plan.resident + step), mib_down(opt->max_memory), mib_up(plan.resident));
        return -1;
    }
    if (sys && step > sys) {
        snprintf(err, XQ_ERR_MAX, "%s: writing its files again needs %.1f MiB more but only %.1f MiB is available",
                 name, mib_up(step), mib_down(sys));
        return -1;
    }
    return 0;
}

/* Reuses the table of m from its compressed files if they are sound and
 * built under opt's rules and limit: rebuilt in memory (unpack.c) for the
 * tables that capture into it.  Files that store the other sides than
 * opt asks (--store-both, or not) are written again from that table, which
 * unpack.c gives back exactly as it was solved: the same files as a new
 * generation writes, for the price of compressing them.  1 if reused, 0 if
 * it must be generated (why says why, "" when there are no files at all),
 * -1 on a failure to report. */
static int reuse_compressed(tb_set *set, const xq_material *m, const tb_gen_options *opt, char why[XQ_ERR_MAX],
                            char err[XQ_ERR_MAX])
{
    char name[XQ_MATERIAL_MAX], path[4096];
    xq_material_name(m, name);
    why[0] = 0;
    /* no file at all: a fresh table, nothing to say; any one of them: the
     * table was made before, and what is wrong with it is worth saying */
    int any = 0;
    for (int kind = 0; kind < XQF_COMPRESSED_KINDS && !any; kind++) {
        xqf_path(opt->dir, name, kind, path, sizeof path);
        any = access(path, F_OK) == 0;
    }
    if (!any) return 0;
    int width = 1, found = compressed_files_sound(opt, m, index_entries(m), opt->rules, opt->limit, why, &width);
    if (found == TB_NOT_DONE) return 0;
    if (found == TB_TO_CONVERT && rewrite_fits(set, m, width, opt, err)) return -1;
    tb_table *t = tb_unpack(set, m, opt->threads > 0 ? opt->threads : par_cores(), why);
    if (!t) return 0;
    if (tb_set_add(set, t, err)) {
        tb_table_free(t);
        return -1;
    }
    if (!opt->quiet) {
        xqf_path(opt->dir, name, XQF_KIND_DTM, path, sizeof path);
        if (found == TB_TO_CONVERT)
            fprintf(stderr, "%s; writing the compressed files again from the table they hold\n", why);
        else
            fprintf(stderr, "%-10s reusing %s\n", name, path);
    }
    if (found != TB_TO_CONVERT) return 1;
    /* what a generation would write: the raw file only on request */
    if (opt->keep_raw && tb_raw_write(t, opt->dir, 0, err)) return -1;
    return write_compressed(t, opt, err) ? -1 : 1;
}

/* tb_set_trim before m is built or loaded, in a run for root whose
 * materials after it are opt->later (if any). */
static void trim_for(tb_set *set, const xq_material *m, const xq_material *root, const tb_gen_options *opt)
{
    /* the run's target, then the materials after it */
    xq_material *goals = malloc(((size_t)opt->nlater + 1) * sizeof *goals);
    if (!goals) return; /* nothing trimmed, which is never wrong */
    goals[0] = *root;
    for (int k = 0; k < opt->nlater; k++) goals[k + 1] = opt->later[k];
    tb_set_trim(set, m, goals, opt->nlater + 1);
    free(goals);
}

/* Generates canonical material m, whose subtables are in the set (trimmed
 * for it: visit). */
static int generate_one(tb_set *set, const xq_material *m, const tb_gen_options *opt, char err[XQ_ERR_MAX])
{
    char name[XQ_MATERIAL_MAX];
    xq_material_name(m, name);
    int threads = opt->threads > 0 ? opt->threads : par_cores(), width = start_width(set, m, opt);
    tb_mem_plan plan;
    if (tb_mem_plan_make(m, width, opt->rules, opt->limit, threads, opt->keep_raw, tb_set_bytes(set), &plan)) {
        snprintf(err, XQ_ERR_MAX, "%s: the index is too large", name);
        return -1;
    }
    uint64_t left;
    if (check_memory(name, &plan, opt, &left, err)) return -1;
    if (opt->progress) {
        fprintf(stderr, "%-10s memory: at most %.1f MiB (%.1f MiB of subtables in memory, %.1f MiB for %s)", name,
                mib_up(plan.total), mib_up(plan.resident), mib_up(plan.step[plan.largest]),
                tb_mem_step_name(plan.largest));
        if (opt->rules != XQ_RULES_NONE && left != UINT64_MAX)
            fprintf(stderr, ", and up to %.1f MiB for the rulings' game graph", mib_down(left));
        fprintf(stderr, "\n");
    }
    tb_table *t = tb_table_new(m, width);
    if (!t) {
        snprintf(err, XQ_ERR_MAX, "%s: out of memory allocating %.1f MiB", name, mib_up(plan.table));
        return -1;
    }
    t->rules = opt->rules;
    t->limit = opt->limit;
    if (tb_set_add(set, t, err)) {
        tb_table_free(t);
        return -1;
    }
    uint64_t graph = 0;
    if (solve(t, name, opt, threads, left, &graph, err)) return -1;
    /* The compressed files are the table: a larger table rebuilds it from
     * them (unpack.c).  A raw file is written only on request, and one
     * left by an earlier run is removed, since loading prefers it. */
    if (opt->keep_raw ? tb_raw_write(t, opt->dir, 0, err) : remove_raw(m, opt->dir, err)) return -1;
    if (write_compressed(t, opt, err)) return -1;
    if (opt->memory) {
        /* The rulings' step with its game graph as built may exceed the plan. */
        uint64_t rulings = plan.resident + plan.step[TB_STEP_RULINGS] + graph;
        *opt->memory = (tb_gen_memory){*m, plan.total, plan.total, plan.resident, tb_mem_step_name(plan.largest)};
        if (opt->rules != XQ_RULES_NONE && rulings > plan.total) {
            opt->memory->bound = rulings;
            opt->memory->largest = tb_mem_step_name(TB_STEP_RULINGS);
        }
    }
    return 0;
}

/* Solves or loads canonical material m after its subtables, in a run for
 * canonical material root. */
static int visit(tb_set *set, const xq_material *m, const xq_material *root, const tb_gen_options *opt,
                 char err[XQ_ERR_MAX])
{
    int top = xq_material_equal(m, root);
    if (tb_set_find(set, m)) return 0;
    xq_material sub[XQ_MAX_SUBTABLES];
    int nsub = xq_material_subtables(m, sub);
    for (int k = 0; k < nsub; k++)
        if (visit(set, &sub[k], root, opt, err)) return -1;
    if (tb_set_find(set, m)) return 0; /* reached through another path */
    /* Unless the run shares a set that does not say what comes next
     * (opt->set without opt->later), the set first lets go of what m's
     * generation does not read and nothing the run still builds or loads
     * needs (tb_set_trim, whose goals are root and opt->later): all but
     * the tables m or one still to come captures into, and of those the
     * sides to move no such capture reaches.  KRKNAABB's subtables then
     * take 94.5 MiB instead of 284.5, its peak falls from 690,648 to
     * 498,160 KiB, and the tables built on the way to it hold less as
     * well.  So before m is loaded from its files as well: loaded one
     * after another untrimmed, KRAABBKAABB's subtables held 1.67 GB at
     * once where its own generation needs 0.6. */
    if (!opt->set || opt->later) trim_for(set, m, root, opt);
    if (!(top && opt->force)) {
        char path[4096], ignored[XQ_ERR_MAX];
        tb_raw_path(opt->dir, m, path, sizeof path);
        if (access(path, F_OK) == 0) {
            tb_table *t = tb_raw_read(opt->dir, m, ignored);
            if (t && t->rules != opt->rules) {
                snprintf(ignored, XQ_ERR_MAX, "%.60s was built under rules %s, not %s", path, xq_rules_name(t->rules),
                         xq_rules_name(opt->rules));
                tb_table_free(t);
                t = NULL;
            } else if (t && t->limit != opt->limit) {
                snprintf(ignored, XQ_ERR_MAX, "%.60s was built for a move limit of %d plies, not %d", path, t->limit,
                         opt->limit);
                tb_table_free(t);
                t = NULL;
            }
            if (t && tb_set_add(set, t, err) == 0) {
                if (!opt->quiet) {
                    char name[XQ_MATERIAL_MAX];
                    xq_material_name(m, name);
                    fprintf(stderr, "%-10s reusing %s\n", name, path);
                }
                char why[XQ_ERR_MAX];
                if (compressed_files_sound(opt, &t->mat, t->ix.size, t->rules, t->limit, why, NULL) == TB_DONE)
                    return 0;
                if (!opt->quiet) fprintf(stderr, "%s; writing the compressed files again from %s\n", why, path);
                return write_compressed(t, opt, err);
            }
            if (t) {
                tb_table_free(t);
                return -1;
            }
            if (!opt->quiet) fprintf(stderr, "%s; regenerating\n", ignored);
        } else {
            char why[XQ_ERR_MAX];
            int r = reuse_compressed(set, m, opt, why, err);
            if (r) return r < 0 ? -1 : 0;
            if (why[0] && !opt->quiet) fprintf(stderr, "%s; regenerating\n", why);
        }
    }
    return generate_one(set, m, opt, err);
}

int tb_generate(const xq_material *m, const tb_gen_options *opt, char err[XQ_ERR_MAX])
{
#ifdef __GLIBC__
    /* glibc raises its mmap threshold to the size of each large block freed,
     * after which blocks that size come from the heap and stay resident
     * when freed: the work memory of one step would then add to the next
     * step's, past the plan's bound (memplan.h).  A fixed threshold (the
     * default's value) keeps every large block mapped, and returned to the
     * system when it is freed. */
    mallopt(M_MMAP_THRESHOLD, 128 * 1024);
#endif
    struct stat sb;
    /* EEXIST: another run (make -j of a plan) made it in the meantime */
    if (stat(opt->dir, &sb) != 0 && mkdir(opt->dir, 0755) != 0 && errno != EEXIST) {
        snprintf(err, XQ_ERR_MAX, "cannot create directory %.60s: %s", opt->dir, strerror(errno));
        return -1;
    }
    if (stat(opt->dir, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
        snprintf(err, XQ_ERR_MAX, "%.60s is not a directory", opt->dir);
        return -1;
    }
    xq_material canon;
    xq_material_canonical(m, &canon);
    tb_set *set = opt->set ? opt->set : tb_set_new(opt->dir);
    if (!set) {
        snprintf(err, XQ_ERR_MAX, "out of memory");
        return -1;
    }
    tb_set_threads(set, opt->threads);
    /* A run that says what comes later trims its set before each material
     * (and generate_one before each table), keeping what the later
     * materials capture into: a table freed otherwise would be loaded
     * again, or rebuilt from its files, when one of them needs it.  The
     * trim here serves a material that is only loaded or converted.  These
     * steps (trim, load, trim, plan) are what catalog.c's estimates replay
     * for `gen --set`. */
    if (opt->set && opt->later)
        trim_for(set, &canon, &canon, opt);
    else if (opt->set)
        tb_set_retain(set, &canon);
    int rc = visit(set, &canon, &canon, opt, err);
    if (rc == 0 && opt->stats) tb_compute_stats(tb_set_find(set, &canon), opt->stats);
    if (!opt->set) tb_set_free(set);
    return rc;
}

int tb_table_done(const xq_material *m, const tb_gen_options *opt, char why[XQ_ERR_MAX])
{
    xq_material canon;
    xq_material_canonical(m, &canon);
    tb_raw_info info;
    char path[4096];
    tb_raw_path(opt->dir, &canon, path, sizeof path);
    /* without a raw file, the compressed files are the table */
    if (access(path, F_OK) != 0)
        return compressed_files_sound(opt, &canon, index_entries(&canon), opt->rules, opt->limit, why, NULL);
    if (tb_raw_read_info(opt->dir, &canon, &info, why)) return TB_NOT_DONE;
    if (info.rules != opt->rules || info.limit != opt->limit) {
        char name[XQ_MATERIAL_MAX];
        xq_material_name(&canon, name);
        snprintf(why, XQ_ERR_MAX, "%s was built under rules %s and a limit of %d plies, not %s and %d", name,
                 xq_rules_name(info.rules), info.limit, xq_rules_name(opt->rules), opt->limit);
        return TB_NOT_DONE;
    }
    return compressed_files_sound(opt, &canon, info.entries, info.rules, info.limit, why, NULL);
}
