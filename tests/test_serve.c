/*
 * test_serve.c - `xqtb serve` over real sockets on loopback: the page, the
 * JSON API against `probe --json` and `stats --json` of the same tables,
 * every bad request a 4xx with a JSON error, paths that try to leave the
 * API, malformed and oversized requests, clients at once, and a server
 * that keeps answering after all of them and stops cleanly on SIGTERM.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "runxqtb.h"
#include "testenv.h"
#include "testutil.h"
#include "tmpdir.h"

static const char FEN[] = "9/4ak3/9/9/9/R8/9/4n4/9/3K5 w - - 0 1";
static const char FEN_URL[] = "9%2F4ak3%2F9%2F9%2F9%2FR8%2F9%2F4n4%2F9%2F3K5%20w%20-%20-%200%201";

static pid_t server;
static int port;
static char dir[512];

/* Starts `xqtb serve` on a free loopback port over KRKNA's tables, a
 * second directory holding KCK with its DTM file damaged in its last
 * block, and a third holding KPK without its DTM file (export --no-dtm). */
static char dirs[1700];
static int start(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "%s/serve", test_tmpdir());
    if (run_xqtb("gen -q -d %s KRKNA", dir)) fail_msg("gen: %s", xqtb_out);
    char damaged[540], path[600];
    snprintf(damaged, sizeof damaged, "%s/serve-damaged", test_tmpdir());
    if (run_xqtb("gen -q -d %s KCK", damaged)) fail_msg("gen: %s", xqtb_out);
    snprintf(path, sizeof path, "%s/KCK.xqd", damaged);
    FILE *d = fopen(path, "r+b");
    if (!d || fseek(d, -1, SEEK_END)) fail_msg("cannot open %s", path);
    int last = fgetc(d);
    fseek(d, -1, SEEK_END);
    fputc(last ^ 0x5A, d);
    fclose(d);
    char kpk[540], lean[540];
    snprintf(kpk, sizeof kpk, "%s/serve-kpk", test_tmpdir());
    snprintf(lean, sizeof lean, "%s/serve-lean", test_tmpdir());
    if (run_xqtb("gen -q -d %s KPK", kpk)) fail_msg("gen: %s", xqtb_out);
    if (run_xqtb("export -q -d %s -o %s --no-dtm KPK", kpk, lean)) fail_msg("export: %s", xqtb_out);
    snprintf(dirs, sizeof dirs, "%s:%s:%s", dir, damaged, lean);
    int out[2];
    if (pipe(out)) return -1;
    const char *bin = getenv("XQTB");
    server = fork();
    if (server == 0) {
        dup2(out[1], 1);
        close(out[0]);
        execl(bin ? bin : "build/xqtb", "xqtb", "serve", "-d", dirs, "--listen", "127.0.0.1:0", "-t", "4",
              (char *)NULL);
        _exit(127);
    }
    close(out[1]);
    char line[256] = "";
    FILE *f = fdopen(out[0], "r");
    if (!f || !fgets(line, sizeof line, f)) fail_msg("xqtb serve printed nothing");
    const char *p = strstr(line, "127.0.0.1:");
    if (!p || sscanf(p + 10, "%d", &port) != 1) fail_msg("no port in: %s", line);
    fclose(f);
    return 0;
}

static int stop(void **state)
{
    (void)state;
    int st;
    kill(server, SIGTERM);
    if (waitpid(server, &st, 0) != server || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
        fail_msg("xqtb serve did not stop cleanly on SIGTERM");
    return 0;
}

static int connect_server(void)
{
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (s < 0 || connect(s, (struct sockaddr *)&a, sizeof a)) fail_msg("connect: %s", strerror(errno));
    return s;
}

/* Sends raw bytes, reads the whole answer into buf (NUL-terminated);
 * returns the HTTP status, 0 if the server closed without one. */
static int exchange(const char *req, size_t len, char *buf, size_t cap)
{
    int s = connect_server();
    size_t sent = 0;
    while (sent < len) {
        ssize_t k = send(s, req + sent, len - sent, MSG_NOSIGNAL);
        if (k <= 0) break; /* the server may close on a bad request: fine */
        sent += (size_t)k;
    }
    /* nothing more is coming: a server waiting for the rest of a half
     * request sees the end at once instead of timing out */
    shutdown(s, SHUT_WR);
    /* A guard against a server that never answers, not a speed bound: a
     * table's statistics are computed on the first request, which under
     * the sanitizers on a loaded machine took more than 5 s. */
    struct timeval tv = {.tv_sec = 60};
    setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    size_t n = 0;
    for (ssize_t k; n + 1 < cap && (k = recv(s, buf + n, cap - 1 - n, 0)) > 0;) n += (size_t)k;
    buf[n] = 0;
    close(s);
    int status = 0;
    if (sscanf(buf, "HTTP/1.%*d %d", &status) != 1) status = 0;
    return status;
}

static char body_buf[1 << 20];

/* GET path; returns the status, the body in body_buf. */
static int get(const char *path)
{
    static char raw[1 << 20];
    char req[8192];
    int len = snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n", path);
    int status = exchange(req, (size_t)len, raw, sizeof raw);
    const char *b = strstr(raw, "\r\n\r\n");
    snprintf(body_buf, sizeof body_buf, "%s", b ? b + 4 : "");
    return status;
}

static void assert_body_has(const char *needle)
{
    if (!strstr(body_buf, needle)) fail_msg("expected '%s' in:\n%.2000s", needle, body_buf);
}

static void test_page(void **state)
{
    (void)state;
    assert_int_equal(get("/"), 200);
    assert_body_has("<title>xqtb explorer</title>");
    assert_body_has("/api/probe");
    assert_int_equal(get("/index.html"), 200);
}

/* The probe answer is probe --json --line's object, plus line_end and
 * in_check. */
static void test_probe_matches_cli(void **state)
{
    (void)state;
    char path[512];
    snprintf(path, sizeof path, "/api/probe?fen=%s", FEN_URL);
    assert_int_equal(get(path), 200);
    assert_int_equal(run_xqtb("probe -d %s --json --line '%s'", dir, FEN), 0);
    char *nl = strrchr(xqtb_out, '}');
    assert_non_null(nl);
    *nl = 0; /* the CLI's object without its closing brace */
    if (strncmp(body_buf, xqtb_out, strlen(xqtb_out)))
        fail_msg("API and CLI differ:\n%.1500s\n%.1500s", body_buf, xqtb_out);
    assert_body_has(",\"line_end\":\"mate\",\"in_check\":true}"); /* the horse checks */
    /* a counter moves the value under the limit */
    snprintf(path, sizeof path, "/api/probe?fen=%s&counter=100", FEN_URL);
    assert_int_equal(get(path), 200);
    assert_body_has("\"counter\":100,\"wdl\":\"cursed_win\"");
    /* and so does the FEN's own counter, its fifth field, which counter=
     * may repeat but not contradict */
    static const char fen100[] = "9%2F4ak3%2F9%2F9%2F9%2FR8%2F9%2F4n4%2F9%2F3K5%20w%20-%20-%20100%201";
    snprintf(path, sizeof path, "/api/probe?fen=%s", fen100);
    assert_int_equal(get(path), 200);
    assert_body_has("\"counter\":100,\"wdl\":\"cursed_win\"");
    snprintf(path, sizeof path, "/api/probe?fen=%s&counter=100", fen100);
    assert_int_equal(get(path), 200);
    snprintf(path, sizeof path, "/api/probe?fen=%s&counter=99", fen100);
    assert_int_equal(get(path), 400);
    assert_body_has("contradicts the FEN's counter");
}

/* A table without its DTM file answers from its WDL and DTC files, as
 * `xqtb probe` does: no DTM, a DTC. */
static void test_probe_without_dtm(void **state)
{
    (void)state;
    static const char fen[] = "3k5/9/9/4P4/9/9/9/9/9/4K4 w - - 0 1";
    static const char url[] = "/api/probe?fen=3k5%2F9%2F9%2F4P4%2F9%2F9%2F9%2F9%2F9%2F4K4%20w%20-%20-%200%201";
    assert_int_equal(get(url), 200);
    assert_body_has("\"material\":\"KPK\"");
    assert_body_has("\"wdl\":\"win\",\"dtm\":null,\"dtc\":5,\"by_rule\":null");
    assert_int_equal(run_xqtb("probe -d %s --json --line '%s'", dirs, fen), 0);
    assert_non_null(strstr(xqtb_out, "KPK.xqd is not in")); /* the CLI's note, on stderr */
    char *json = strstr(xqtb_out, "{\"fen\""), *nl = strrchr(xqtb_out, '}');
    assert_true(json && nl > json);
    *nl = 0;
    if (strncmp(body_buf, json, strlen(json))) fail_msg("API and CLI differ:\n%.1500s\n%.1500s", body_buf, json);
}

static void test_stats_and_tables(void **state)
{
    (void)state;
    /* KRKNA's statistics rebuild its table from the files, in the server
     * and in the CLI, which takes the sanitizer build several seconds
     * each: there its subtable KRKN's, the same path */
    int san = test_sanitized();
    char path[64];
    snprintf(path, sizeof path, "/api/stats/%s", san ? "KRKN" : "KRKNA");
    assert_int_equal(get(path), 200);
    assert_int_equal(run_xqtb("stats -d %s --json %s", dir, san ? "KRKN" : "KRKNA"), 0);
    assert_string_equal(body_buf, xqtb_out);
    snprintf(path, sizeof path, "/api/stats/%s", san ? "KNKR" : "KNAKR");
    assert_int_equal(get(path), 200); /* either colouring, answered from the cache */
    assert_string_equal(body_buf, xqtb_out);
    assert_int_equal(get("/api/tables"), 200);
    assert_body_has("{\"material\":\"KRKNA\",\"pieces\":5,\"files\":[\"wdl\",\"dtm\",\"dtc\"]}");
    assert_body_has("\"rules\":\"full\",\"limit\":120,\"largest\":5");
    /* a table whose files are there but damaged: 500 with the damage, not
     * 404 as if it were missing */
    assert_int_equal(get("/api/stats/KCK"), 500);
    assert_body_has("damaged");
    assert_int_equal(get("/api/stats/KPPK"), 404); /* no file of it or its subtables */
}

static void test_bad_requests(void **state)
{
    (void)state;
    assert_int_equal(get("/api/probe"), 400);
    assert_body_has("{\"error\":\"missing fen");
    assert_int_equal(get("/api/probe?fen=not%20a%20fen"), 400);
    assert_body_has("{\"error\":\"bad FEN:");
    char path[512];
    snprintf(path, sizeof path, "/api/probe?fen=%s&counter=x", FEN_URL);
    assert_int_equal(get(path), 400);
    snprintf(path, sizeof path, "/api/probe?fen=%s&counter=121", FEN_URL);
    assert_int_equal(get(path), 400);
    assert_body_has("beyond the tables' move limit");
    /* a material without a table: 404, naming it */
    assert_int_equal(get("/api/probe?fen=3k5%2F9%2F9%2F9%2F9%2FR8%2F9%2F9%2Fr8%2F4K4%20w%20-%20-%200%201"), 404);
    assert_body_has("\"material\":\"KRKR\"");
    assert_int_equal(get("/api/stats/KRKR"), 404);
    assert_int_equal(get("/api/stats/XYZ"), 400);
    assert_int_equal(get("/nowhere"), 404);
    char buf[4096];
    const char post[] = "POST /api/tables HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nConnection: close\r\n\r\nabc";
    assert_int_equal(exchange(post, sizeof post - 1, buf, sizeof buf), 405);
}

/* No URL reaches a file: the server serves none from disk, and material
 * names are parsed strictly. */
static void test_no_path_traversal(void **state)
{
    (void)state;
    static const char *const paths[] = {
        "/../../../../etc/passwd",
        "/%2e%2e/%2e%2e/etc/passwd",
        "/api/stats/../../../etc/passwd",
        "/api/stats/..%2F..%2F..%2Fetc%2Fpasswd",
        "/api/stats/KRKNA%00.xqtb",
        "/api/stats/KRKNA/../../x",
        "/api/stats/",
        "/api/stats/%2Fetc%2Fpasswd",
        "/api/probe/../../etc/passwd",
        "/index.html/../../etc/passwd",
    };
    for (size_t i = 0; i < sizeof paths / sizeof *paths; i++) {
        int st = get(paths[i]);
        if (st != 400 && st != 404) fail_msg("%s answered %d", paths[i], st);
        if (strstr(body_buf, "root:")) fail_msg("%s leaked a file", paths[i]);
        assert_body_has("{\"error\":");
    }
}

/* Garbage, half requests and an oversized one: refused or dropped, and
 * the server answers the next request as ever. */
static void test_malformed_requests(void **state)
{
    (void)state;
    char buf[4096];
    const char *junk[] = {"\x00\x01\x02garbage\r\n\r\n", "GET\r\n\r\n", "GET / HTTP/9.9\r\n\r\n",
                          "GET /api/probe?fen=%zz HTTP/1.1\r\nHost: x\r\n\r\n", "GET / HTTP/1.1\r\n"};
    for (size_t i = 0; i < sizeof junk / sizeof *junk; i++) {
        int st = exchange(junk[i], strlen(junk[i]) + (i == 0 ? 3 : 0), buf, sizeof buf);
        if (st >= 200 && st < 300 && i < 3) fail_msg("junk request %zu answered %d", i, st);
    }
    /* a header far beyond the per-connection memory limit */
    static char big[200000];
    int n = snprintf(big, sizeof big, "GET / HTTP/1.1\r\nHost: x\r\nX-Big: ");
    memset(big + n, 'a', sizeof big - (size_t)n - 8);
    memcpy(big + sizeof big - 8, "\r\n\r\n", 4);
    int st = exchange(big, sizeof big - 4, buf, sizeof buf);
    if (st != 0 && st < 400) fail_msg("an oversized header was answered %d", st);
    assert_int_equal(get("/api/tables"), 200);
    char path[512];
    snprintf(path, sizeof path, "/api/probe?fen=%s", FEN_URL);
    assert_int_equal(get(path), 200);
}

/* Requests pipelined on one connection are all answered, in order, and a
 * connection is kept open between them (HTTP/1.1's default): the server
 * answered the first alone and closed, dropping the others. */
static void test_keep_alive_and_pipelining(void **state)
{
    (void)state;
    static char raw[1 << 16];
    const char one[] = "GET /api/tables HTTP/1.1\r\nHost: localhost\r\n\r\n";
    char req[4 * sizeof one];
    snprintf(req, sizeof req, "%s%s%s", one, one, one);
    assert_int_equal(exchange(req, strlen(req), raw, sizeof raw), 200);
    int answers = 0;
    for (const char *p = raw; (p = strstr(p, "HTTP/1.1 200")) != NULL; p++) answers++;
    assert_int_equal(answers, 3);
    assert_null(strstr(raw, "Connection: close"));
    /* a client that asks for close still gets it */
    assert_int_equal(get("/api/tables"), 200);
}
/* Clients at once: every answer right.  (The load figures are make bench's:
 * scripts/bench-serve.) */
enum { CLIENTS = 8, REQUESTS = 40 };

static void *client(void *arg)
{
    (void)arg;
    char req[512], buf[16384];
    snprintf(req, sizeof req, "GET /api/probe?fen=%s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", FEN_URL);
    long ok = 0;
    for (int i = 0; i < REQUESTS; i++)
        ok += exchange(req, strlen(req), buf, sizeof buf) == 200 && strstr(buf, "\"dtm\":39") != NULL;
    return (void *)ok;
}

static void test_concurrent_clients(void **state)
{
    (void)state;
    pthread_t t[CLIENTS];
    for (int i = 0; i < CLIENTS; i++) assert_int_equal(pthread_create(&t[i], NULL, client, NULL), 0);
    long ok = 0;
    for (int i = 0; i < CLIENTS; i++) {
        void *r;
        pthread_join(t[i], &r);
        ok += (long)r;
    }
    assert_int_equal(ok, CLIENTS * REQUESTS);
}

static void test_serve_arguments(void **state)
{
    (void)state;
    assert_int_equal(run_xqtb("serve --listen nowhere"), 2);
    assert_int_equal(run_xqtb("serve --listen 127.0.0.1:99999"), 2);
    assert_int_equal(run_xqtb("serve -t 0"), 2);
    assert_int_equal(run_xqtb("serve --bogus"), 2);
    /* the port in use: a clear error, exit 3 */
    assert_int_equal(run_xqtb("serve -d %s --listen 127.0.0.1:%d", dir, port), 3);
    if (!strstr(xqtb_out, "cannot listen on")) fail_msg("%s", xqtb_out);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_page),
        cmocka_unit_test(test_probe_matches_cli),
        cmocka_unit_test(test_probe_without_dtm),
        cmocka_unit_test(test_stats_and_tables),
        cmocka_unit_test(test_bad_requests),
        cmocka_unit_test(test_no_path_traversal),
        cmocka_unit_test(test_malformed_requests),
        cmocka_unit_test(test_keep_alive_and_pipelining),
        cmocka_unit_test(test_concurrent_clients),
        cmocka_unit_test(test_serve_arguments),
    };
    return cmocka_run_group_tests(tests, start, stop);
}
