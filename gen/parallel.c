/*
 * parallel.c - par_for with pthreads.
 */
#include "parallel.h"

#include <pthread.h>
#include <unistd.h>

typedef struct {
    par_fn fn;
    void *arg;
    uint64_t n, grain;
    uint64_t next; /* next chunk start, taken atomically */
} par_job;

typedef struct {
    par_job *job;
    int thread;
} par_worker;

static void run_chunks(par_job *j, int thread)
{
    for (;;) {
        uint64_t b = __atomic_fetch_add(&j->next, j->grain, __ATOMIC_RELAXED);
        if (b >= j->n) return;
        uint64_t e = b + j->grain < j->n ? b + j->grain : j->n;
        j->fn(j->arg, b, e, thread);
    }
}

static void *worker_main(void *p)
{
    par_worker *w = p;
    run_chunks(w->job, w->thread);
    return NULL;
}

int par_for(int threads, uint64_t n, uint64_t grain, par_fn fn, void *arg)
{
    if (grain == 0) grain = 1;
    par_job job = {fn, arg, n, grain, 0};
    if (threads > 64) threads = 64;
    if (threads <= 1 || n <= grain) {
        run_chunks(&job, 0);
        return 0;
    }
    pthread_t tid[64];
    par_worker w[64];
    int started = 0, rc = 0;
    for (int i = 1; i < threads; i++) {
        w[i] = (par_worker){&job, i};
        if (pthread_create(&tid[i], NULL, worker_main, &w[i])) {
            rc = -1;
            break;
        }
        started = i;
    }
    run_chunks(&job, 0);
    for (int i = 1; i <= started; i++) pthread_join(tid[i], NULL);
    return rc;
}

int par_cores(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : (int)n;
}
