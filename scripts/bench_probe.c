/*
 * bench_probe.c - probe latency and throughput through the public API only,
 * as an engine would use it.
 *
 *   bench_probe DIR MATERIAL [SECONDS [LEAN_DIR]]
 *
 * Positions are random legal positions of MATERIAL (pieces dropped on random
 * squares until xqtb_position_validate accepts the board), drawn once up
 * front so that position making is not timed.  Reports:
 *   warm   the same position again and again (its block stays cached)
 *   cold   a new block almost every probe: a one-slot-per-way cache and
 *          random positions over the whole table; the file's pages are
 *          in the page cache (a first pass reads them); DTM also
 *          with a 1 MiB cache, which holds all the blocks one search reads;
 *          and the DTC probe an engine makes under the move limit
 *          (xqtb_probe_wdl_counter: WDL, and DTC where it is decided),
 *          at a fresh counter (as after the capture that entered the
 *          table) and at MID_COUNTER (a searched entry's DTC is then
 *          searched, as far as it decides the answer); and the exact
 *          DTC without the DTM (xqtb_probe_dtc)
 *   random probes per second with the default cache, 1 and 2 threads
 *   first  the first WDL probe of a fresh handle, which opens the file
 *          (and decodes a small WDL file whole: docs/FORMAT.md), and cold
 *          WDL probes with every file read by block (no file held)
 *   root   root probes on a fresh handle; and, given LEAN_DIR (the set
 *          exported with `xqtb export --no-dtm`), the same there, where
 *          root moves come from the WDL and DTC files
 *
 *   bench_probe DIR --memory [MATERIAL...]
 *
 * reports instead what a handle holds beside its block cache once it has
 * probed every material (default: every NAME.xqd in DIR): the resident
 * memory added by a WDL probe of each, then a DTM probe, then a full probe
 * (DTC too), with the default options and with every file read by block,
 * the cache one byte in both, each in a process of its own.  And,
 * without --memory, it reports DTM latency apart for each side to move: a
 * DTM file stores one side's
 * entries and finds the other's by a one-ply search (docs/FORMAT.md,
 * "Searched entries"), so the two differ; and root probes (every move's
 * value) on a fresh handle with the default cache.
 */
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "xqtb.h"

enum { NPOS = 1 << 16 };
static xqtb_position pos[NPOS];

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint64_t next_random(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static int kind_of_letter(char c)
{
    const char *k = "KABNRCP";
    const char *p = strchr(k, c);
    return p ? (int)(p - k) + 1 : 0;
}

/* A random square where a piece of this colour and kind can stand (palace
 * points for king and advisor, the seven elephant points, a pawn's reach),
 * so that most random boards are legal. */
static int random_square(int colour, int kind)
{
    for (;;) {
        int sq = (int)(next_random() % 90), f = sq % 9, r = sq / 9;
        int rr = colour == 0 ? r : 9 - r; /* rank from the colour's own edge */
        int ok;
        switch (kind) {
        case 1: ok = f >= 3 && f <= 5 && rr <= 2; break;
        case 2: ok = f >= 3 && f <= 5 && rr <= 2 && (f + rr) % 2 == 1; break;
        case 3: ok = rr <= 4 && f % 2 == 0 && rr % 2 == 0 && ((f % 4 == 0) == (rr == 2)); break;
        case 7: ok = rr >= 5 || (rr >= 3 && f % 2 == 0); break;
        default: ok = 1;
        }
        if (ok) return sq;
    }
}

static int random_position(const char *material, xqtb_position *p)
{
    for (int tries = 0; tries < 1000000; tries++) {
        memset(p, 0, sizeof *p);
        int colour = -1, ok = 1;
        for (const char *c = material; *c && ok; c++) {
            int kind = kind_of_letter(*c);
            if (!kind) return -1;
            if (kind == 1) colour++;
            int sq;
            do sq = random_square(colour, kind);
            while (p->board[sq]);
            p->board[sq] = (int8_t)(colour == 0 ? kind : -kind);
        }
        p->side = (uint8_t)(next_random() & 1);
        if (xqtb_position_validate(p, NULL) == XQTB_OK) return 0;
    }
    return -1;
}

/* One cache line each: the counters are written on every probe, and two
 * threads' counters in one line would measure cache-line ping-pong. */
typedef struct {
    _Alignas(64) xqtb_handle *h;
    int first;
    double seconds;
    uint64_t probes;
} worker;

static void *run_random(void *arg)
{
    worker *w = arg;
    double end = now() + w->seconds;
    int i = w->first, wdl;
    uint64_t probes = 0;
    while (now() < end)
        for (int k = 0; k < 1024; k++) {
            if (xqtb_probe_wdl(w->h, &pos[i], &wdl) != XQTB_OK) {
                fprintf(stderr, "probe failed\n");
                exit(1);
            }
            i = (i + 7919) % NPOS;
            probes++;
        }
    w->probes = probes;
    return NULL;
}

static double per_second(xqtb_handle *h, int threads, double seconds)
{
    pthread_t tid[2];
    worker w[2];
    for (int t = 0; t < threads; t++) {
        w[t] = (worker){h, t * (NPOS / 2), seconds, 0};
        pthread_create(&tid[t], NULL, run_random, &w[t]);
    }
    uint64_t total = 0;
    for (int t = 0; t < threads; t++) {
        pthread_join(tid[t], NULL);
        total += w[t].probes;
    }
    return (double)total / seconds;
}

/* The plies since the last capture of the second DTC figure: where a
 * searched entry's DTC must be searched. */
enum { MID_COUNTER = 30 };

/* ns per probe over n probes of the positions order[]: dtm_file 0 WDL,
 * 1 DTM, 2 xqtb_probe (DTM, and DTC with a move limit), 3 the trusted WDL
 * probe a search makes, 4 xqtb_probe_wdl_counter at counter 0 (WDL, and
 * DTC with a move limit), 5 the same at MID_COUNTER, 6 xqtb_probe_dtc (WDL
 * and the exact DTC, no DTM). */
static double time_probes(xqtb_handle *h, const int *order, int n, int dtm_file)
{
    xqtb_wdl wdl;
    xqtb_wdl5 wdl5;
    int dtm, dtc;
    double t0 = now();
    for (int i = 0; i < n; i++) {
        xqtb_result r;
        int rc = dtm_file == 6   ? xqtb_probe_dtc(h, &pos[order[i]], 0, &wdl5, &dtc)
                 : dtm_file >= 4 ? xqtb_probe_wdl_counter(h, &pos[order[i]], dtm_file == 5 ? MID_COUNTER : 0, &wdl5)
                 : dtm_file == 3 ? xqtb_probe_wdl_trusted(h, &pos[order[i]], &wdl)
                 : dtm_file == 2 ? xqtb_probe(h, &pos[order[i]], &r)
                 : dtm_file      ? xqtb_probe_dtm(h, &pos[order[i]], &wdl, &dtm)
                                 : xqtb_probe_wdl(h, &pos[order[i]], &wdl);
        if (rc != XQTB_OK) {
            fprintf(stderr, "probe failed: %s\n", xqtb_status_string(rc));
            exit(1);
        }
    }
    return (now() - t0) * 1e9 / n;
}

/* Resident memory of this process, in KiB (0 if unknown). */
static long resident_kib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kib = 0;
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "VmRSS:", 6)) kib = atol(line + 6);
    if (f) fclose(f);
    return kib;
}

/* Probes of `what` (0 WDL, 1 DTM, 2 full) until one of each side to move
 * of material m succeeds or 400 tries fail; returns how many succeeded. */
static int probe_material(xqtb_handle *h, const char *m, int what)
{
    int done[2] = {0, 0};
    for (int t = 0; t < 400 && !(done[0] && done[1]); t++) {
        xqtb_position p;
        if (random_position(m, &p)) return 0;
        xqtb_wdl w;
        xqtb_result r;
        int d;
        xqtb_status st = what == 0   ? xqtb_probe_wdl(h, &p, &w)
                         : what == 1 ? xqtb_probe_dtm(h, &p, &w, &d)
                                     : xqtb_probe(h, &p, &r);
        if (st == XQTB_OK) done[p.side] = 1;
    }
    return done[0] + done[1];
}

static int memory_report(const char *dir, char **given, int ngiven)
{
    static char names[4096][40];
    char *list[4096];
    int n = 0;
    for (; n < ngiven && n < 4096; n++) list[n] = given[n];
    DIR *d = ngiven ? NULL : opendir(dir);
    for (struct dirent *e; d && n < 4096 && (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        if (len < 5 || len - 4 >= sizeof names[0] || strcmp(e->d_name + len - 4, ".xqd")) continue;
        memcpy(names[n], e->d_name, len - 4);
        names[n][len - 4] = 0;
        list[n] = names[n];
        n++;
    }
    if (d) closedir(d);
    if (!n) {
        fprintf(stderr, "no materials in %s\n", dir);
        return 1;
    }
    /* Each in a process of its own: the memory one handle freed would
     * otherwise serve the next one's allocations and hide them from the
     * resident size. */
    for (int by_block = 0; by_block < 2; by_block++) {
        fflush(stdout);
        pid_t pid = fork();
        if (pid < 0) return 1;
        if (pid > 0) {
            int status;
            if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status)) return 1;
            continue;
        }
        xqtb_options o = {.cache_bytes = 1, .whole_file_bytes = by_block ? 1 : 0};
        xqtb_status st;
        xqtb_handle *h = xqtb_open(dir, &o, &st);
        if (!h) _exit(1);
        long base = resident_kib(), at = base;
        printf("%s, %d materials, %s:", dir, n, by_block ? "every file read by block" : "default options");
        const char *what[3] = {"WDL", "DTM", "full (DTC too)"};
        for (int k = 0; k < 3; k++) {
            int ok = 0;
            for (int i = 0; i < n; i++) ok += probe_material(h, list[i], k) == 2;
            long now_kib = resident_kib();
            printf(" %s probes +%.1f MB (%d of %d materials both sides);", what[k], (double)(now_kib - at) / 1024.0, ok,
                   n);
            at = now_kib;
        }
        printf(" in all +%.1f MB\n", (double)(at - base) / 1024.0);
        xqtb_close(h);
        fflush(stdout);
        _exit(0);
    }
    return 0;
}

/* Root probes as an engine makes them: a fresh handle on dir with the
 * default cache, 1,000 positions of each side to move, each probed once;
 * ns a root probe per side into root.  Returns 0, or 1 if one failed. */
static int time_roots(const char *dir, int by_side[2][NPOS], const int nside[2], double root[2])
{
    xqtb_status st;
    xqtb_handle *h = xqtb_open(dir, NULL, &st);
    for (int c = 0; c < 2; c++) {
        int n = nside[c] < 1000 ? nside[c] : 1000;
        double t0 = now();
        for (int i = 0; i < n; i++) {
            static xqtb_root_move mv[XQTB_MAX_MOVES];
            if (!h || xqtb_probe_root(h, &pos[by_side[c][i]], mv) < 0) {
                fprintf(stderr, "root probe failed in %s\n", dir);
                xqtb_close(h);
                return 1;
            }
        }
        root[c] = (now() - t0) * 1e9 / n;
    }
    xqtb_close(h);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: bench_probe DIR MATERIAL [SECONDS [LEAN_DIR]]\n"
                        "       bench_probe DIR --memory [MATERIAL...]\n");
        return 2;
    }
    if (!strcmp(argv[2], "--memory")) return memory_report(argv[1], argv + 3, argc - 3);
    double seconds = argc > 3 ? atof(argv[3]) : 2.0;
    for (int i = 0; i < NPOS; i++)
        if (random_position(argv[2], &pos[i])) {
            fprintf(stderr, "cannot place material %s\n", argv[2]);
            return 2;
        }
    static int same[1 << 20], spread[NPOS], side_same[2][1 << 16], by_side[2][NPOS];
    int nside[2] = {0, 0};
    for (int i = 0; i < (1 << 20); i++) same[i] = 0;
    for (int i = 0; i < NPOS; i++) {
        spread[i] = i;
        by_side[pos[i].side][nside[pos[i].side]++] = i;
    }
    if (!nside[0] || !nside[1]) {
        fprintf(stderr, "no position of one side to move\n");
        return 2;
    }
    for (int c = 0; c < 2; c++)
        for (int i = 0; i < (1 << 16); i++) side_same[c][i] = by_side[c][0];

    xqtb_status st;
    xqtb_handle *h = xqtb_open(argv[1], NULL, &st);
    if (!h || xqtb_table_count(h) == 0) {
        fprintf(stderr, "no tables in %s\n", argv[1]);
        return 1;
    }
    time_probes(h, spread, NPOS, 0); /* open files, fault pages in */
    time_probes(h, spread, NPOS, 1);
    double warm_wdl = time_probes(h, same, 1 << 20, 0), warm_dtm = time_probes(h, same, 1 << 20, 1);
    double warm_trusted = time_probes(h, same, 1 << 20, 3);
    /* "Is it covered?" for the table's own positions, and for the same
     * positions with a black pawn more: a material no table has. */
    static xqtb_position more[256];
    for (int i = 0; i < 256; i++) {
        more[i] = pos[i];
        for (int sq = 0; sq < 45; sq++)
            if (!more[i].board[sq]) {
                more[i].board[sq] = -7;
                break;
            }
    }
    volatile int sink = 0;
    double t0 = now();
    for (int i = 0; i < (1 << 22); i++) sink += xqtb_covered(h, &pos[i & 255]);
    double covered_yes = (now() - t0) * 1e9 / (1 << 22);
    t0 = now();
    for (int i = 0; i < (1 << 22); i++) sink += xqtb_covered(h, &more[i & 255]);
    double covered_no = (now() - t0) * 1e9 / (1 << 22);
    t0 = now();
    for (int i = 0; i < (1 << 20); i++) {
        xqtb_wdl wdl;
        sink += xqtb_probe_wdl_trusted(h, &more[i & 255], &wdl);
    }
    double uncovered_probe = (now() - t0) * 1e9 / (1 << 20);
    (void)sink; /* read only so that the calls are not optimised away; clang would warn */
    double warm_side[2];
    for (int c = 0; c < 2; c++) warm_side[c] = time_probes(h, side_same[c], 1 << 16, 1);
    double r1 = per_second(h, 1, seconds), r2 = per_second(h, 2, seconds);
    xqtb_close(h);

    xqtb_options tiny = {.cache_bytes = 1}; /* the smallest cache the library allows */
    h = xqtb_open(argv[1], &tiny, &st);
    time_probes(h, spread, NPOS, 0);
    time_probes(h, spread, NPOS, 1);
    double cold_wdl = time_probes(h, spread, NPOS, 0), cold_dtm = time_probes(h, spread, NPOS, 1);
    double cold_side[2], cold_full[2], cold_dtc[2], cold_dtc_mid[2], cold_exact[2];
    for (int c = 0; c < 2; c++) cold_side[c] = time_probes(h, by_side[c], nside[c], 1);
    for (int c = 0; c < 2; c++) cold_full[c] = time_probes(h, by_side[c], nside[c], 2);
    for (int c = 0; c < 2; c++) cold_dtc[c] = time_probes(h, by_side[c], nside[c], 4);
    for (int c = 0; c < 2; c++) cold_dtc_mid[c] = time_probes(h, by_side[c], nside[c], 5);
    for (int c = 0; c < 2; c++) cold_exact[c] = time_probes(h, by_side[c], nside[c], 6);
    xqtb_close(h);

    /* The same cold DTM probes with a cache that holds every block one
     * search reads (64 of 16 KiB), so that a search never decodes a block
     * twice: what the tiny cache's figures would be if they were an
     * artefact of it.  Random positions still rarely meet a block an
     * earlier probe left (64 blocks against thousands in a large table). */
    xqtb_options search_sized = {.cache_bytes = 1 << 20};
    h = xqtb_open(argv[1], &search_sized, &st);
    time_probes(h, spread, NPOS, 1);
    double cold_mib[2];
    for (int c = 0; c < 2; c++) cold_mib[c] = time_probes(h, by_side[c], nside[c], 1);
    xqtb_close(h);

    /* A WDL file read by block (whole_file_bytes 1): a small file is then
     * not held decoded (docs/FORMAT.md, "Small WDL files"), and a cold
     * probe decodes its block, a whole side for such a file. */
    xqtb_options by_block = {.cache_bytes = 1, .whole_file_bytes = 1};
    h = xqtb_open(argv[1], &by_block, &st);
    time_probes(h, spread, NPOS, 0);
    double cold_by_block = time_probes(h, spread, NPOS, 0);
    xqtb_close(h);
    /* The first WDL probe of a fresh handle: the table's WDL file is
     * opened, checked and, if small, decoded whole (xqtb_open itself is not
     * timed).  Mean of 32 handles. */
    double first = 0;
    for (int k = 0; k < 32; k++) {
        h = xqtb_open(argv[1], NULL, &st);
        xqtb_wdl wdl;
        double t1 = now();
        if (xqtb_probe_wdl(h, &pos[k], &wdl) != XQTB_OK) {
            fprintf(stderr, "probe failed\n");
            return 1;
        }
        first += now() - t1;
        xqtb_close(h);
    }
    first = first * 1e9 / 32;

    printf("%s: warm %.0f ns (WDL) %.0f ns (DTM); cold %.0f ns (WDL) %.0f ns (DTM); "
           "random WDL probes/s: %.2fM (1 thread) %.2fM (2 threads)\n",
           argv[2], warm_wdl, warm_dtm, cold_wdl, cold_dtm, r1 / 1e6, r2 / 1e6);
    printf("%s: search: trusted WDL warm %.0f ns; covered? %.1f ns (yes) %.1f ns (no); trusted WDL of a material "
           "with no table %.0f ns\n",
           argv[2], warm_trusted, covered_yes, covered_no, uncovered_probe);
    printf("%s: DTM by side to move: warm %.0f ns (red) %.0f ns (black); cold %.0f ns (red) %.0f ns (black)\n", argv[2],
           warm_side[0], warm_side[1], cold_side[0], cold_side[1]);
    printf("%s: DTM by side to move, cold with a 1 MiB cache: %.0f ns (red) %.0f ns (black)\n", argv[2], cold_mib[0],
           cold_mib[1]);
    printf("%s: xqtb_probe (DTM and DTC) cold: %.0f ns (red) %.0f ns (black)\n", argv[2], cold_full[0], cold_full[1]);
    printf("%s: xqtb_probe_wdl_counter (WDL and DTC) cold: counter 0 %.0f ns (red) %.0f ns (black); counter %d %.0f "
           "ns (red) %.0f ns (black)\n",
           argv[2], cold_dtc[0], cold_dtc[1], MID_COUNTER, cold_dtc_mid[0], cold_dtc_mid[1]);
    printf("%s: xqtb_probe_dtc (WDL and the exact DTC) cold: %.0f ns (red) %.0f ns (black)\n", argv[2], cold_exact[0],
           cold_exact[1]);
    printf("%s: WDL: first probe of a fresh handle %.0f ns (the file opened and checked, a small one decoded); "
           "cold, every file read by block %.0f ns\n",
           argv[2], first, cold_by_block);

    double root[2];
    if (time_roots(argv[1], by_side, nside, root)) return 1;
    printf("%s: xqtb_probe_root, fresh handle: %.0f ns (red) %.0f ns (black)\n", argv[2], root[0], root[1]);
    /* the same on a copy of the set without its DTM files, whose root
     * moves come from the WDL and DTC files */
    if (argc > 4) {
        if (time_roots(argv[4], by_side, nside, root)) return 1;
        printf("%s: xqtb_probe_root without DTM files (WDL and DTC), fresh handle: %.0f ns (red) %.0f ns (black)\n",
               argv[2], root[0], root[1]);
    }
    return 0;
}
