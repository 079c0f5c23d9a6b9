/*
 * pass.c - the pass engine's memory and its ply (pass.h).
 */
#include "pass.h"

#include <stdlib.h>
#include <string.h>

static uint64_t words_of(uint64_t entries) { return (entries + 63) / 64; }

uint64_t pass_work_bytes(uint64_t entries, int maps, int front)
{
    return 2 * (uint64_t)(maps + (front ? 1 : 0)) * words_of(entries) * sizeof(uint64_t);
}

int pass_open(pass_state *p, const xq_index *ix, int threads, int maps, int front)
{
    memset(p, 0, sizeof *p);
    p->ix = ix;
    p->size = ix->size;
    p->threads = threads < 1 ? 1 : threads > PAR_MAX_THREADS ? PAR_MAX_THREADS : threads;
    p->maps = maps;
    uint64_t n = ix->size ? words_of(ix->size) : 1;
    int ok = 1;
    for (int s = 0; s < 2; s++) {
        for (int m = 0; m < maps; m++) ok &= (p->flags[m][s] = calloc(n, sizeof(uint64_t))) != NULL;
        if (front) ok &= (p->front[s] = calloc(n, sizeof(uint64_t))) != NULL;
    }
    if (!ok) pass_close(p);
    return ok ? 0 : -1;
}

void pass_close(pass_state *p)
{
    for (int s = 0; s < 2; s++) {
        for (int m = 0; m < PASS_MAPS; m++) {
            free(p->flags[m][s]);
            p->flags[m][s] = NULL;
        }
        free(p->front[s]);
        p->front[s] = NULL;
    }
}

uint64_t pass_take_decided(pass_state *p)
{
    uint64_t n = 0;
    for (int i = 0; i < PAR_MAX_THREADS; i++) {
        n += p->decided[i];
        p->decided[i] = 0;
    }
    return n;
}

uint64_t pass_ply(pass_state *p, par_fn flag_chunk, par_fn decide_chunk, par_fn pull_chunk, void *arg)
{
    par_for(p->threads, p->size, PASS_GRAIN, flag_chunk, arg);
    uint64_t n = 0;
    for (int y = 0; y < 2; y++) {
        p->side = y;
        par_for(p->threads, p->size, PASS_GRAIN, p->pull[y] ? pull_chunk : decide_chunk, arg);
        p->last_decided[y] = pass_take_decided(p);
        p->last_fronted[y] = 0;
        for (int i = 0; i < PAR_MAX_THREADS; i++) {
            p->last_fronted[y] += p->fronted[i];
            p->fronted[i] = 0;
        }
        n += p->last_decided[y];
    }
    return n;
}
