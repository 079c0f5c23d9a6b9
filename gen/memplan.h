/*
 * memplan.h - how much memory generating one table takes at most, worked out
 * before anything is allocated, so that a table that does not fit is
 * refused with figures instead of being killed by the kernel half-way
 * (with overcommit, malloc rarely fails).
 *
 * Generation runs in steps, each of which frees its work memory before the
 * next starts: the retrograde passes, the repetition rulings, the distance
 * to conversion, writing the raw file (only with --keep-raw), and
 * compressing.  Each step's bound
 * is the table's own arrays as they are by then plus what the step
 * allocates, as the step's module reports it (retro_work_bytes,
 * dtc_work_bytes, ...).  The bound for the table is the largest step plus
 * what is in memory already: every subtable of the set, cells, ruled bytes
 * and DTC arrays.
 *
 * One part cannot be bounded beforehand: the rulings' drawn region and game
 * graph, whose size depends on the positions the retrograde passes leave
 * drawn.  The rulings charge it against what the plan leaves of the budget
 * (repetition_solve's max_memory) and stop with a clear message when it
 * does not fit; the plan counts the rulings' step without it, and the
 * report after the table adds what it took.
 *
 * Not counted: the process itself (code, libraries, the main stack), a few
 * MiB, and the table's switch to two-byte cells when a DTM passes 251 plies
 * in the middle of a run (the plan assumes two-byte cells only when the
 * run starts with them: --wide, or a subtable that deep).
 */
#ifndef XQ_MEMPLAN_H
#define XQ_MEMPLAN_H

#include "tb.h"

enum { TB_STEP_RETRO, TB_STEP_RULINGS, TB_STEP_DTC, TB_STEP_RAW, TB_STEP_COMPRESS, TB_STEPS };

/* Allowance per thread for what each thread touches of its stack and of
 * its malloc arena's bookkeeping (measured: about 36 KiB). */
enum { TB_MEM_THREAD_BYTES = 64 << 10 };

typedef struct {
    uint64_t resident;       /* tables already in memory (the subtables) */
    uint64_t table;          /* the table's own arrays, complete */
    uint64_t step[TB_STEPS]; /* the table's arrays by then plus the step's work; rulings: without region and graph */
    int largest;             /* the step that needs the most */
    uint64_t total;          /* resident + step[largest]: the bound */
} tb_mem_plan;

/* Plans the generation of canonical material m with cells of `width`
 * bytes, under rules and limit, on `threads` threads, with `resident`
 * bytes of tables in memory already; keep_raw: whether the raw file is
 * written (gen --keep-raw), else its step takes nothing.  Returns 0, or -1
 * if m has no index (too large). */
int tb_mem_plan_make(const xq_material *m, int width, int rules, int limit, int threads, int keep_raw,
                     uint64_t resident, tb_mem_plan *p);

/* What a step is, for messages: "the retrograde passes", ... */
const char *tb_mem_step_name(int step);

#endif
