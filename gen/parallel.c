/*
 * parallel.c - par_for on a pool of persistent pthreads.
 *
 * A generation runs thousands of short parallel loops (three a ply, for
 * every pass of every table); starting and joining threads for each cost
 * 33 us a loop on this project's machine, more than a small table's whole
 * ply.  The workers are therefore started once, on the first loop that
 * needs them, and wait for the next loop, spinning briefly before they
 * sleep: 5 us a loop (scripts/bench-parallel).
 */
#include "parallel.h"

#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <unistd.h>

typedef struct {
    par_fn fn;
    void *arg;
    uint64_t n, grain;
    uint64_t next; /* next chunk start, taken atomically */
} par_job;

static void run_chunks(par_job *j, int thread)
{
    for (;;) {
        uint64_t b = __atomic_fetch_add(&j->next, j->grain, __ATOMIC_RELAXED);
        if (b >= j->n) return;
        uint64_t e = b + j->grain < j->n ? b + j->grain : j->n;
        j->fn(j->arg, b, e, thread);
    }
}

/* ---- the pool --------------------------------------------------------------
 * The process's worker threads: the only state this file keeps, a cache of
 * threads, never of results.  One loop uses the pool at a time (`owner`);
 * a loop started while it is busy (from another thread, or from inside a
 * loop's function) starts threads of its own, as before the pool. */
enum { MAX_THREADS = PAR_MAX_THREADS, SPIN_ROUNDS = 200 };

static struct {
    pthread_mutex_t lock; /* guards the fields below */
    pthread_cond_t wake;  /* a new loop: generation changed */
    pthread_cond_t done;  /* a worker finished its part */
    int started;          /* workers running, thread numbers 1..started */
    uint64_t generation;  /* loops handed out so far */
    int wanted;           /* workers 1..wanted take part in the current loop */
    int finished;         /* of those, how many are done */
    par_job *job;
    /* the generation when worker i was started: the loop it was started
     * for is the next one, even if it gets the lock only after the loop
     * was handed out */
    uint64_t born[MAX_THREADS];
} pool = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0, 0, NULL, {0}};
static pthread_mutex_t owner = PTHREAD_MUTEX_INITIALIZER;

static void *pool_worker(void *p)
{
    int id = (int)(intptr_t)p;
    pthread_mutex_lock(&pool.lock);
    uint64_t seen = pool.born[id];
    for (;;) {
        if (pool.generation == seen) {
            /* Loops come in quick succession (three a ply): look for the
             * next one a little while before sleeping, since a wake-up
             * through the condition variable costs tens of microseconds. */
            pthread_mutex_unlock(&pool.lock);
            for (int spin = 0; spin < SPIN_ROUNDS && __atomic_load_n(&pool.generation, __ATOMIC_ACQUIRE) == seen;
                 spin++)
                sched_yield();
            pthread_mutex_lock(&pool.lock);
        }
        while (pool.generation == seen) pthread_cond_wait(&pool.wake, &pool.lock);
        seen = pool.generation;
        if (id > pool.wanted) continue;
        par_job *j = pool.job;
        pthread_mutex_unlock(&pool.lock);
        run_chunks(j, id);
        pthread_mutex_lock(&pool.lock);
        if (++pool.finished == pool.wanted) pthread_cond_signal(&pool.done);
    }
    return NULL;
}

/* Starts workers until `count` run (pool.lock held); returns how many
 * run, which is fewer if the system refuses a thread. */
static int pool_grow(int count)
{
    while (pool.started < count) {
        pthread_t tid;
        pthread_attr_t attr;
        if (pthread_attr_init(&attr)) break;
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        pool.born[pool.started + 1] = pool.generation;
        int rc = pthread_create(&tid, &attr, pool_worker, (void *)(intptr_t)(pool.started + 1));
        pthread_attr_destroy(&attr);
        if (rc) break;
        pool.started++;
    }
    return pool.started < count ? pool.started : count;
}

static int pool_run(par_job *job, int threads)
{
    pthread_mutex_lock(&pool.lock);
    int workers = pool_grow(threads - 1);
    pool.job = job;
    pool.wanted = workers;
    pool.finished = 0;
    __atomic_store_n(&pool.generation, pool.generation + 1, __ATOMIC_RELEASE);
    pthread_cond_broadcast(&pool.wake);
    pthread_mutex_unlock(&pool.lock);
    run_chunks(job, 0);
    pthread_mutex_lock(&pool.lock);
    while (pool.finished < pool.wanted) pthread_cond_wait(&pool.done, &pool.lock);
    pool.job = NULL;
    pthread_mutex_unlock(&pool.lock);
    return workers == threads - 1 ? 0 : -1;
}

/* ---- threads of its own, for a loop that finds the pool busy ------------ */
typedef struct {
    par_job *job;
    int thread;
} par_worker;

static void *spawned_main(void *p)
{
    par_worker *w = p;
    run_chunks(w->job, w->thread);
    return NULL;
}

static int spawn_run(par_job *job, int threads)
{
    pthread_t tid[MAX_THREADS];
    par_worker w[MAX_THREADS];
    int started = 0, rc = 0;
    for (int i = 1; i < threads; i++) {
        w[i] = (par_worker){job, i};
        if (pthread_create(&tid[i], NULL, spawned_main, &w[i])) {
            rc = -1;
            break;
        }
        started = i;
    }
    run_chunks(job, 0);
    for (int i = 1; i <= started; i++) pthread_join(tid[i], NULL);
    return rc;
}

int par_for(int threads, uint64_t n, uint64_t grain, par_fn fn, void *arg)
{
    if (grain == 0) grain = 1;
    par_job job = {fn, arg, n, grain, 0};
    if (threads > MAX_THREADS) threads = MAX_THREADS;
    if (threads <= 1 || n <= grain) {
        run_chunks(&job, 0);
        return 0;
    }
    if (pthread_mutex_trylock(&owner) != 0) return spawn_run(&job, threads);
    int rc = pool_run(&job, threads);
    pthread_mutex_unlock(&owner);
    return rc;
}

int par_cores(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : (int)n;
}
