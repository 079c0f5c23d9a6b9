/*
 * bench_serve.c - load on `xqtb serve` over loopback: CLIENTS threads each
 * send REQUESTS requests (one connection each, as a browser's fetches
 * without keep-alive) for the probe of positions reached by random play
 * from a start FEN, and the time of each is kept.  Prints requests per
 * second and latency percentiles.  Built and run by scripts/bench-serve.
 *
 *   bench_serve PORT CLIENTS REQUESTS FEN
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "xqtb.h"

enum { POSITIONS = 512 };
static char paths[POSITIONS][400];
static int port, requests;
static double *lat; /* seconds, per request */
static long failures;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void url_encode(const char *s, char *out)
{
    for (; *s; s++)
        if ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '-')
            *out++ = *s;
        else
            out += sprintf(out, "%%%02X", (unsigned char)*s);
    *out = 0;
}

/* One request; returns its HTTP status (0 on a transport failure). */
static int one(const char *path)
{
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (s < 0 || connect(s, (struct sockaddr *)&a, sizeof a)) {
        if (s >= 0) close(s);
        return 0;
    }
    char req[600], buf[65536];
    int len = snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", path);
    if (send(s, req, (size_t)len, MSG_NOSIGNAL) != len) {
        close(s);
        return 0;
    }
    size_t n = 0;
    for (ssize_t k; (k = recv(s, buf + n, sizeof buf - 1 - n, 0)) > 0;) n = (n + (size_t)k) % (sizeof buf / 2);
    buf[n] = 0;
    close(s);
    int status = 0;
    return sscanf(buf, "HTTP/1.%*d %d", &status) == 1 ? status : 0;
}

static void *client(void *arg)
{
    long id = (long)arg;
    for (int i = 0; i < requests; i++) {
        double t0 = now();
        int st = one(paths[(id * 7919 + i) % POSITIONS]);
        lat[id * requests + i] = now() - t0;
        if (st != 200) {
            pthread_mutex_lock(&lock);
            failures++;
            pthread_mutex_unlock(&lock);
        }
    }
    return NULL;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: bench_serve PORT CLIENTS REQUESTS FEN\n");
        return 2;
    }
    port = atoi(argv[1]);
    int clients = atoi(argv[2]);
    requests = atoi(argv[3]);
    xqtb_position start, p;
    if (clients < 1 || requests < 1 || xqtb_position_from_fen(argv[4], &start, NULL) != XQTB_OK) return 2;
    /* positions of the same material: random quiet moves from the start */
    srand(12345);
    p = start;
    for (int i = 0; i < POSITIONS; i++) {
        uint16_t mv[XQTB_MAX_MOVES], quiet[XQTB_MAX_MOVES];
        int n = xqtb_legal_moves(&p, mv), q = 0;
        for (int k = 0; k < n; k++)
            if (!p.board[xqtb_move_to(mv[k])]) quiet[q++] = mv[k];
        if (q == 0)
            p = start;
        else
            xqtb_play(&p, quiet[rand() % q]);
        char fen[XQTB_FEN_MAX], enc[3 * XQTB_FEN_MAX];
        xqtb_position_to_fen(&p, fen);
        url_encode(fen, enc);
        snprintf(paths[i], sizeof paths[i], "/api/probe?fen=%s", enc);
    }
    lat = calloc((size_t)clients * (size_t)requests, sizeof *lat);
    pthread_t *t = calloc((size_t)clients, sizeof *t);
    if (!lat || !t) return 3;
    double t0 = now();
    for (long i = 0; i < clients; i++) pthread_create(&t[i], NULL, client, (void *)i);
    for (int i = 0; i < clients; i++) pthread_join(t[i], NULL);
    double wall = now() - t0;
    size_t total = (size_t)clients * (size_t)requests;
    qsort(lat, total, sizeof *lat, cmp);
    printf("%d clients x %d requests: %.0f requests/s; latency p50 %.2f ms, p90 %.2f ms, p99 %.2f ms, max %.2f ms;"
           " %ld failed\n",
           clients, requests, (double)total / wall, 1e3 * lat[total / 2], 1e3 * lat[total * 9 / 10],
           1e3 * lat[total * 99 / 100], 1e3 * lat[total - 1], failures);
    return failures ? 1 : 0;
}
