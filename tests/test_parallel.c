/*
 * test_parallel.c - gen/parallel.c's loops on the pool of persistent
 * workers: every index is visited exactly once, by a thread number below
 * the count asked for, over many loops in a row (the workers go to sleep
 * and wake up between them), when the count grows and shrinks from loop to
 * loop, and when a loop starts another from inside (the pool is busy: that
 * loop starts threads of its own).  Also run under ThreadSanitizer.
 */
#include "testutil.h"

#include "parallel.h"

enum { N = 10000, MAX_T = 8 };

typedef struct {
    uint8_t seen[N];
    int threads;
    int bad_thread;
    uint64_t per_thread[MAX_T];
} visit_log;

static void visit(void *arg, uint64_t begin, uint64_t end, int thread)
{
    visit_log *v = arg;
    if (thread < 0 || thread >= v->threads) __atomic_store_n(&v->bad_thread, 1, __ATOMIC_RELAXED);
    for (uint64_t i = begin; i < end; i++) __atomic_fetch_add(&v->seen[i], 1, __ATOMIC_RELAXED);
    if (thread >= 0 && thread < MAX_T) __atomic_fetch_add(&v->per_thread[thread], end - begin, __ATOMIC_RELAXED);
}

static void check_loop(int threads, uint64_t n, uint64_t grain)
{
    visit_log *v = calloc(1, sizeof *v);
    assert_non_null(v);
    v->threads = threads;
    assert_int_equal(par_for(threads, n, grain, visit, v), 0);
    assert_int_equal(v->bad_thread, 0);
    for (uint64_t i = 0; i < N; i++) assert_int_equal(v->seen[i], i < n ? 1 : 0);
    uint64_t sum = 0;
    for (int t = 0; t < MAX_T; t++) sum += v->per_thread[t];
    assert_int_equal(sum, n);
    free(v);
}

static void test_every_index_once(void **state)
{
    (void)state;
    for (int threads = 1; threads <= 4; threads++) {
        check_loop(threads, N, 64);
        check_loop(threads, N, 1);
        check_loop(threads, N - 1, 1000); /* a short last chunk */
        check_loop(threads, 0, 64);       /* nothing to do */
        check_loop(threads, 1, 64);       /* less than a chunk */
    }
}

/* Many short loops, each straight after the last, with the thread count
 * changing: workers started for a larger count sit out smaller loops. */
static void test_many_loops_changing_counts(void **state)
{
    (void)state;
    static const int counts[] = {2, 3, 2, 4, 1, 4, 3};
    for (int r = 0; r < 300; r++) check_loop(counts[r % 7], N, 128);
}

/* A loop whose function runs a loop of its own. */
typedef struct {
    int threads;
    int failures;
} nest_arg;

static void nested(void *arg, uint64_t begin, uint64_t end, int thread)
{
    (void)thread;
    nest_arg *a = arg;
    for (uint64_t i = begin; i < end; i++) {
        visit_log *v = calloc(1, sizeof *v);
        if (!v) {
            __atomic_fetch_add(&a->failures, 1, __ATOMIC_RELAXED);
            continue;
        }
        v->threads = a->threads;
        if (par_for(a->threads, N, 500, visit, v)) __atomic_fetch_add(&a->failures, 1, __ATOMIC_RELAXED);
        int ok = !v->bad_thread;
        for (int k = 0; k < N; k++) ok &= v->seen[k] == 1;
        if (!ok) __atomic_fetch_add(&a->failures, 1, __ATOMIC_RELAXED);
        free(v);
    }
}

static void test_loop_inside_a_loop(void **state)
{
    (void)state;
    nest_arg a = {2, 0};
    assert_int_equal(par_for(2, 8, 1, nested, &a), 0);
    assert_int_equal(a.failures, 0);
    check_loop(3, N, 100); /* the pool still works afterwards */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_index_once),
        cmocka_unit_test(test_many_loops_changing_counts),
        cmocka_unit_test(test_loop_inside_a_loop),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
