/*
 * serve.c - `xqtb serve`: the web explorer.  An HTTP server on
 * libmicrohttpd (docs/SERVE.md says why that library) answering a JSON API
 * from the public library (xqtb.h) and the statistics from the generator's
 * loader, and the one page of the explorer, compiled into the binary
 * (gen/cli/web/explorer.html): no file is ever served from disk, so no URL
 * can reach one.
 *
 * Concurrency: libmicrohttpd's thread pool answers connections; the probe
 * handle is thread-safe.  Memory is bounded by the connection limit, the
 * per-connection memory limit and a cache of statistics of bounded size,
 * computed one at a time (a table is loaded whole, with its subtables, to count it).
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "ruleset.h"
#include "tbformat.h"

/* The explorer page, embedded by the build (scripts/embed). */
extern const unsigned char xqtb_explorer_page[];
extern const size_t xqtb_explorer_page_len;

enum {
    STATS_CACHE = 32,          /* statistics kept, per material */
    PV_MOVES = 400,            /* longest principal line answered */
    CONNECTION_LIMIT = 256,    /* connections open at once */
    CONNECTION_MEMORY = 32768, /* bytes per connection for the request */
    CONNECTION_TIMEOUT = 15,   /* seconds an idle connection is kept */
    COUNTER_MAX = 100000       /* as probe --counter */
};

typedef struct {
    char material[XQ_MATERIAL_MAX];
    char *json;
} stats_entry;

typedef struct {
    xqtb_handle *h;
    const char *dirs;
    char *tables_json; /* the answer of /api/tables, made at start */
    /* statistics: computed one at a time (each loads a table whole:
     * compute_lock), kept in a small cache (stats_lock, held only to read
     * or write it, so that a cached answer never waits for a computation) */
    pthread_mutex_t stats_lock, compute_lock;
    stats_entry stats[STATS_CACHE];
    int nstats, next_evict;
} server;

/* ---- answers */

static enum MHD_Result answer(struct MHD_Connection *c, unsigned status, const char *type, char *body, size_t len,
                              enum MHD_ResponseMemoryMode mode)
{
    struct MHD_Response *r = MHD_create_response_from_buffer(len, body, mode);
    if (!r) {
        if (mode == MHD_RESPMEM_MUST_FREE) free(body);
        return MHD_NO;
    }
    MHD_add_response_header(r, "Content-Type", type);
    MHD_add_response_header(r, "Cache-Control", "no-store");
    MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
    enum MHD_Result ok = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return ok;
}

/* Writes s as a JSON string's content (without quotes). */
static void json_escape(FILE *out, const char *s)
{
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            fprintf(out, "\\%c", ch);
        else if (ch < 0x20 || ch >= 0x7F)
            fprintf(out, "\\u%04x", ch);
        else
            fputc(ch, out);
    }
}

/* {"error":"MESSAGE"} with the HTTP status; extra, if not NULL, is a
 * member appended as is. */
static enum MHD_Result json_error(struct MHD_Connection *c, unsigned status, const char *extra, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static enum MHD_Result json_error(struct MHD_Connection *c, unsigned status, const char *extra, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    char *body = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&body, &len);
    if (!out) return MHD_NO;
    fprintf(out, "{\"error\":\"");
    json_escape(out, msg);
    fprintf(out, "\"%s%s}\n", extra ? "," : "", extra ? extra : "");
    if (fclose(out)) return MHD_NO;
    return answer(c, status, "application/json", body, len, MHD_RESPMEM_MUST_FREE);
}

static enum MHD_Result json_answer(struct MHD_Connection *c, char *body, size_t len)
{
    return answer(c, MHD_HTTP_OK, "application/json", body, len, MHD_RESPMEM_MUST_FREE);
}

/* The next directory of a colon-separated list into dir: *p moves past
 * it.  Returns 0 at the end; empty entries and names too long are skipped. */
static int next_dir(const char **p, char dir[4096])
{
    while (*p) {
        const char *d = *p, *colon = strchr(d, ':');
        size_t dl = colon ? (size_t)(colon - d) : strlen(d);
        *p = colon ? colon + 1 : NULL;
        if (dl > 0 && dl < 4096) {
            memcpy(dir, d, dl);
            dir[dl] = 0;
            return 1;
        }
    }
    return 0;
}

/* ---- /api/probe?fen=FEN[&counter=N] */

static const char *pv_end_word(xqtb_pv_end e)
{
    static const char *const w[] = {"mate", "draw", "repetition", "limit", "length"};
    return (unsigned)e < sizeof w / sizeof *w ? w[e] : "length";
}

static enum MHD_Result api_probe(server *sv, struct MHD_Connection *c)
{
    const char *fen = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "fen");
    const char *ctext = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "counter");
    if (!fen || !*fen) return json_error(c, MHD_HTTP_BAD_REQUEST, NULL, "missing fen: /api/probe?fen=FEN");
    xqtb_position pos;
    char err[XQTB_ERR_MAX];
    if (xqtb_position_from_fen(fen, &pos, err) != XQTB_OK)
        return json_error(c, MHD_HTTP_BAD_REQUEST, NULL, "bad FEN: %s", err);
    long counter = 0, fen_counter = cli_fen_counter(fen); /* as probe: the FEN's own, or counter= */
    if (ctext && (counter = cli_parse_uint(ctext, COUNTER_MAX)) < 0)
        return json_error(c, MHD_HTTP_BAD_REQUEST, NULL, "counter must be a number of plies 0-%d", COUNTER_MAX);
    if (ctext && fen_counter && counter && counter != fen_counter)
        return json_error(c, MHD_HTTP_BAD_REQUEST, NULL, "counter %ld contradicts the FEN's counter of %ld plies",
                          counter, fen_counter);
    if (!counter) counter = fen_counter;
    int limit = xqtb_limit(sv->h);
    if (limit > 0 && counter > limit)
        return json_error(c, MHD_HTTP_BAD_REQUEST, NULL, "counter %ld is beyond the tables' move limit of %d plies",
                          counter, limit);
    xqtb_result r;
    xqtb_root_move mv[XQTB_MAX_MOVES];
    uint16_t line[PV_MOVES];
    xqtb_pv_end end = XQTB_PV_END_LENGTH;
    int st = cli_probe_value(sv->h, &pos, (int)counter, &r, NULL), n = 0, nline = 0;
    if (st == XQTB_OK) st = n = xqtb_probe_root_counter(sv->h, &pos, (int)counter, mv);
    if (st >= 0) st = nline = xqtb_probe_pv(sv->h, &pos, (int)counter, line, PV_MOVES, &end);
    if (st < 0) {
        char material[XQTB_MATERIAL_MAX], extra[64];
        xqtb_material_name(&pos, material);
        snprintf(extra, sizeof extra, "\"material\":\"%s\"", material);
        if (st == XQTB_ERR_NO_TABLE)
            return json_error(c, MHD_HTTP_NOT_FOUND, extra, "no table for %s or a table its moves lead to", material);
        if (st == XQTB_ERR_INVALID) return json_error(c, MHD_HTTP_BAD_REQUEST, extra, "invalid position");
        return json_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, extra, "table %s: %s", material, xqtb_status_string(st));
    }
    char *body = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&body, &len);
    if (!out) return MHD_NO;
    cli_probe_json(out, sv->h, &pos, (int)counter, &r, mv, n, line, nline);
    /* the object without its closing brace, then what the page needs more */
    fseek(out, -1, SEEK_CUR);
    fprintf(out, ",\"line_end\":\"%s\",\"in_check\":%s}\n", pv_end_word(end), xqtb_in_check(&pos) ? "true" : "false");
    if (fclose(out)) return MHD_NO;
    return json_answer(c, body, len);
}

/* ---- /api/stats/MATERIAL */

/* A copy of the cached statistics of canonical material `canon`, or NULL
 * (not cached, or no memory for the copy). */
static char *cached_stats(server *sv, const char *canon)
{
    char *copy = NULL;
    pthread_mutex_lock(&sv->stats_lock);
    for (int i = 0; i < sv->nstats && !copy; i++)
        if (!strcmp(sv->stats[i].material, canon)) copy = strdup(sv->stats[i].json);
    pthread_mutex_unlock(&sv->stats_lock);
    return copy;
}

static enum MHD_Result api_stats(server *sv, struct MHD_Connection *c, const char *name)
{
    xq_material m;
    char err[XQ_ERR_MAX], canon[XQ_MATERIAL_MAX];
    /* a strict parse of a name of letters: nothing in it can name a path */
    if (xq_material_parse(name, &m, err))
        return json_error(c, MHD_HTTP_BAD_REQUEST, NULL, "bad material '%.40s': %s", name, err);
    xq_material_canonical(&m, &m);
    xq_material_name(&m, canon);
    char *body = cached_stats(sv, canon), damage[XQ_ERR_MAX] = "";
    if (body) return json_answer(c, body, strlen(body));
    pthread_mutex_lock(&sv->compute_lock);
    /* another request may have computed it while this one waited */
    if ((body = cached_stats(sv, canon)) != NULL) {
        pthread_mutex_unlock(&sv->compute_lock);
        return json_answer(c, body, strlen(body));
    }
    size_t len = 0;
    int found = 0;
    const char *next = sv->dirs;
    char dir[4096];
    while (!found && next_dir(&next, dir)) {
        FILE *out = open_memstream(&body, &len);
        if (!out) break;
        found = cli_stats_json(out, dir, &m, err) == 0;
        fputc('\n', out);
        if (fclose(out)) found = 0;
        if (!found) {
            free(body);
            body = NULL;
            /* a table there that did not load (damaged, out of memory) is
             * a failure of the server's files, not a table it lacks
             * (load_failure tells them apart the same way for stats) */
            if (!damage[0] && !strstr(err, "No such file")) snprintf(damage, sizeof damage, "%s", err);
        }
    }
    if (found) {
        pthread_mutex_lock(&sv->stats_lock);
        stats_entry *e = &sv->stats[sv->nstats < STATS_CACHE ? sv->nstats++ : sv->next_evict++ % STATS_CACHE];
        free(e->json);
        snprintf(e->material, sizeof e->material, "%s", canon);
        e->json = strdup(body);
        if (!e->json) e->material[0] = 0;
        pthread_mutex_unlock(&sv->stats_lock);
    }
    pthread_mutex_unlock(&sv->compute_lock);
    if (!found && damage[0])
        return json_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, NULL, "statistics of %s: %s", canon, damage);
    if (!found)
        return json_error(c, MHD_HTTP_NOT_FOUND, NULL,
                          "no statistics for %s: they need its raw file, or the DTM (and DTC) files of it and "
                          "of every table it captures into, in one table directory",
                          canon);
    return json_answer(c, body, len);
}

/* ---- /api/tables */

/* Sorts materials by piece count, then name. */
static int by_size(const void *a, const void *b)
{
    const char *x = a, *y = b;
    size_t lx = strlen(x), ly = strlen(y);
    return lx != ly ? (lx < ly ? -1 : 1) : strcmp(x, y);
}

/* The tables the directories hold: each material with a compressed file,
 * and which kinds it has. */
static char *make_tables_json(xqtb_handle *h, const char *dirs)
{
    enum { MAX_TABLES = 8192 };
    typedef struct {
        char name[XQ_MATERIAL_MAX];
        int kinds;
    } row;
    row *rows = calloc(MAX_TABLES, sizeof *rows);
    if (!rows) return NULL;
    int n = 0;
    const char *next = dirs;
    char dir[4096];
    while (next_dir(&next, dir)) {
        DIR *dp = opendir(dir);
        for (struct dirent *e; dp && (e = readdir(dp)) != NULL;) {
            xq_material m;
            char name[XQ_MATERIAL_MAX];
            int kind = cli_table_file(e->d_name, &m, name);
            if (kind < 0) continue;
            int i = 0;
            while (i < n && strcmp(rows[i].name, name)) i++;
            if (i == n) {
                if (n == MAX_TABLES) continue;
                snprintf(rows[n++].name, sizeof rows->name, "%s", name);
            }
            rows[i].kinds |= 1 << kind;
        }
        if (dp) closedir(dp);
    }
    qsort(rows, (size_t)n, sizeof *rows, by_size);
    char *body = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&body, &len);
    if (!out) {
        free(rows);
        return NULL;
    }
    int rules = xqtb_rules(h);
    fprintf(out, "{\"dirs\":\"");
    json_escape(out, dirs);
    fprintf(out, "\",\"rules\":");
    if (rules >= 0)
        fprintf(out, "\"%s\"", xq_rules_name(rules));
    else
        fprintf(out, "null");
    fprintf(out, ",\"limit\":%d,\"largest\":%d,\"tables\":[", xqtb_limit(h), xqtb_largest(h));
    for (int i = 0; i < n; i++) {
        fprintf(out, "%s{\"material\":\"%s\",\"pieces\":%zu,\"files\":[", i ? "," : "", rows[i].name,
                strlen(rows[i].name));
        int first = 1;
        for (int k = XQF_KIND_WDL; k <= XQF_KIND_DTC; k++)
            if (rows[i].kinds & (1 << k)) {
                fprintf(out, "%s\"%s\"", first ? "" : ",",
                        k == XQF_KIND_WDL   ? "wdl"
                        : k == XQF_KIND_DTM ? "dtm"
                                            : "dtc");
                first = 0;
            }
        fprintf(out, "]}");
    }
    fprintf(out, "]}\n");
    free(rows);
    if (fclose(out)) {
        free(body);
        return NULL;
    }
    return body;
}

/* ---- routing */

/* A request's state until it completes: the URI as it came, before
 * libmicrohttpd decodes it (a %00 would cut the decoded URL short where C
 * strings end, so that "/api/stats/KRK%00x" would read as
 * "/api/stats/KRK"; such a request is refused instead), and whether the
 * router has been called for it yet. */
typedef struct {
    int called;
    char uri[];
} request_state;

static void *keep_raw_uri(void *cls, const char *uri, struct MHD_Connection *c)
{
    (void)cls;
    (void)c;
    size_t n = strlen(uri) + 1;
    request_state *r = malloc(sizeof *r + n);
    if (r) {
        r->called = 0;
        memcpy(r->uri, uri, n);
    }
    return r;
}

static void request_done(void *cls, struct MHD_Connection *c, void **state, enum MHD_RequestTerminationCode why)
{
    (void)cls;
    (void)c;
    (void)why;
    free(*state);
    *state = NULL;
}

static int has_encoded_nul(const char *raw)
{
    for (const char *p = raw; (p = strchr(p, '%')) != NULL; p++)
        if (p[1] == '0' && p[2] == '0') return 1;
    return 0;
}

static enum MHD_Result route(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                             const char *version, const char *upload, size_t *upload_size, void **state)
{
    (void)version;
    (void)upload;
    server *sv = cls;
    if (strcmp(method, "GET") && strcmp(method, "HEAD"))
        return json_error(c, MHD_HTTP_METHOD_NOT_ALLOWED, NULL, "only GET and HEAD are answered");
    request_state *rs = *state;
    if (!rs) return MHD_NO; /* no memory for the request's state: drop the connection */
    /* The first call only sees the headers: a response queued then makes
     * libmicrohttpd close the connection (no keep-alive, and requests
     * pipelined behind this one were dropped unanswered), so the answer
     * waits for the next call.  A GET carries no body; one that came is
     * read and ignored. */
    if (!rs->called) {
        rs->called = 1;
        return MHD_YES;
    }
    if (*upload_size) {
        *upload_size = 0;
        return MHD_YES;
    }
    if (has_encoded_nul(rs->uri))
        return json_error(c, MHD_HTTP_BAD_REQUEST, NULL, "a URL may not hold a NUL byte (%%00)");
    if (!strcmp(url, "/") || !strcmp(url, "/index.html"))
        return answer(c, MHD_HTTP_OK, "text/html; charset=utf-8", (char *)xqtb_explorer_page, xqtb_explorer_page_len,
                      MHD_RESPMEM_PERSISTENT);
    if (!strcmp(url, "/api/probe")) return api_probe(sv, c);
    if (!strcmp(url, "/api/tables")) {
        char *copy = strdup(sv->tables_json);
        return copy ? json_answer(c, copy, strlen(copy)) : MHD_NO;
    }
    if (!strncmp(url, "/api/stats/", 11)) return api_stats(sv, c, url + 11);
    if (!strcmp(url, "/favicon.ico"))
        return answer(c, MHD_HTTP_NO_CONTENT, "text/plain", (char *)"", 0, MHD_RESPMEM_PERSISTENT);
    return json_error(c, MHD_HTTP_NOT_FOUND, NULL, "not found: the explorer is at /, the API under /api/");
}

/* ---- the command */

/* Parses "HOST:PORT" (HOST an IPv4 address or "localhost") into a. */
static int parse_listen(const char *s, struct sockaddr_in *a)
{
    const char *colon = strrchr(s, ':');
    if (!colon || colon == s) return -1;
    char host[64];
    size_t hl = (size_t)(colon - s);
    if (hl >= sizeof host) return -1;
    memcpy(host, s, hl);
    host[hl] = 0;
    long port = cli_parse_uint(colon + 1, 65535);
    if (port < 0) return -1;
    memset(a, 0, sizeof *a);
    a->sin_family = AF_INET;
    a->sin_port = htons((uint16_t)port);
    if (!strcmp(host, "localhost")) strcpy(host, "127.0.0.1");
    return inet_pton(AF_INET, host, &a->sin_addr) == 1 ? 0 : -1;
}

static void log_mhd(void *cls, const char *fmt, va_list ap)
{
    (void)cls;
    fprintf(stderr, "xqtb serve: ");
    vfprintf(stderr, fmt, ap);
}

int cmd_serve(int argc, char **argv)
{
    const char *dirs = "tables", *listen = "127.0.0.1:8080";
    long threads = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-d") || !strcmp(argv[i], "--listen") || !strcmp(argv[i], "-t")) {
            if (i + 1 == argc) return cli_usage_error("serve", "option %s needs a value", argv[i]);
            const char *v = argv[++i];
            if (!strcmp(argv[i - 1], "-d"))
                dirs = v;
            else if (!strcmp(argv[i - 1], "--listen"))
                listen = v;
            else if ((threads = cli_parse_uint(v, 256)) < 1)
                return cli_usage_error("serve", "-t needs a number of threads 1-256, not '%.20s'", v);
        } else if (argv[i][0] == '-')
            return cli_usage_error("serve", "unknown option '%.40s' (see xqtb serve --help)", argv[i]);
        else
            return cli_usage_error("serve", "unexpected argument '%.40s': serve takes options only", argv[i]);
    }
    struct sockaddr_in addr;
    if (parse_listen(listen, &addr))
        return cli_usage_error("serve", "--listen needs HOST:PORT with an IPv4 address, not '%.60s'", listen);
    if (!threads) {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        threads = cpus < 2 ? 2 : cpus > 16 ? 16 : cpus;
    }
    if ((ntohl(addr.sin_addr.s_addr) >> 24) != 127)
        fprintf(stderr, "xqtb serve: warning: listening on %s, not loopback: anyone who can reach it may query it\n",
                listen);

    static server sv;
    xqtb_status st;
    sv.h = xqtb_open(dirs, NULL, &st);
    if (!sv.h) {
        fprintf(stderr, "xqtb serve: %s\n", xqtb_status_string(st));
        return EXIT_FAILURE_IO;
    }
    sv.dirs = dirs;
    pthread_mutex_init(&sv.stats_lock, NULL);
    pthread_mutex_init(&sv.compute_lock, NULL);
    sv.tables_json = make_tables_json(sv.h, dirs);
    if (!sv.tables_json) {
        fprintf(stderr, "xqtb serve: out of memory\n");
        xqtb_close(sv.h);
        return EXIT_FAILURE_IO;
    }
    /* the daemon's threads inherit this mask: only sigwait below takes
     * the signals that stop the server */
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop, NULL);
    struct MHD_Daemon *d = MHD_start_daemon(
        /* the port is the address's (MHD_OPTION_SOCK_ADDR binds); given here
         * too so that libmicrohttpd's own messages name it, not port 0 */
        MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG, ntohs(addr.sin_port), NULL, NULL, route, &sv,
        MHD_OPTION_EXTERNAL_LOGGER, log_mhd, NULL, MHD_OPTION_URI_LOG_CALLBACK, keep_raw_uri, NULL,
        MHD_OPTION_NOTIFY_COMPLETED, request_done, NULL, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr,
        MHD_OPTION_THREAD_POOL_SIZE, (unsigned)threads, MHD_OPTION_CONNECTION_LIMIT, (unsigned)CONNECTION_LIMIT,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)CONNECTION_MEMORY, MHD_OPTION_CONNECTION_TIMEOUT,
        (unsigned)CONNECTION_TIMEOUT, MHD_OPTION_END);
    if (!d) {
        fprintf(stderr, "xqtb serve: cannot listen on %s: %s\n", listen, errno ? strerror(errno) : "failed");
        xqtb_close(sv.h);
        free(sv.tables_json);
        return EXIT_FAILURE_IO;
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
    char host[INET_ADDRSTRLEN];
    inet_ntop(AF_INET, &addr.sin_addr, host, sizeof host);
    printf("xqtb serve: http://%s:%u/ (%d tables in %s, %ld threads)\n", host, info ? info->port : 0,
           xqtb_table_count(sv.h), dirs, threads);
    fflush(stdout);
    int sig;
    sigwait(&stop, &sig);
    MHD_stop_daemon(d);
    fprintf(stderr, "xqtb serve: stopped by %s\n", sig == SIGINT ? "SIGINT" : "SIGTERM");
    for (int i = 0; i < sv.nstats; i++) free(sv.stats[i].json);
    free(sv.tables_json);
    xqtb_close(sv.h);
    pthread_mutex_destroy(&sv.stats_lock);
    pthread_mutex_destroy(&sv.compute_lock);
    return EXIT_ANSWER;
}
