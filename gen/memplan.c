/*
 * memplan.c - see memplan.h.
 */
#include "memplan.h"

#include "compress.h"
#include "dtc.h"
#include "retro.h"

static const char *const step_names[TB_STEPS] = {"the retrograde passes", "the repetition rulings",
                                                 "the distance to conversion", "writing the raw file", "compressing"};

const char *tb_mem_step_name(int step) { return step >= 0 && step < TB_STEPS ? step_names[step] : "?"; }

int tb_mem_plan_make(const xq_material *m, int width, int rules, int limit, int threads, int keep_raw,
                     uint64_t resident, tb_mem_plan *p)
{
    xq_index ix;
    if (xq_index_init(&ix, m)) return -1;
    uint64_t n = ix.size, ruled = rules != XQ_RULES_NONE ? 2 * n : 0;
    /* every step runs par_for, which starts its threads anew */
    uint64_t cells = tb_table_own_bytes(&ix, width, 0, 0) + (uint64_t)threads * TB_MEM_THREAD_BYTES;
    uint64_t full =
        tb_table_own_bytes(&ix, width, rules != XQ_RULES_NONE, limit != 0) + (uint64_t)threads * TB_MEM_THREAD_BYTES;
    xq_index_free(&ix);
    p->resident = resident;
    p->table = full - (uint64_t)threads * TB_MEM_THREAD_BYTES;
    /* with a move limit, the retrograde passes' early finds are held for
     * the distance to conversion (schedule.c) */
    uint64_t early = limit ? retro_early_bytes(n) : 0;
    p->step[TB_STEP_RETRO] = cells + early + retro_work_bytes(n);
    p->step[TB_STEP_RULINGS] = rules != XQ_RULES_NONE ? cells + early + ruled : 0;
    /* dtc_work_bytes includes the table's DTC arrays */
    p->step[TB_STEP_DTC] = limit ? cells + early + ruled + dtc_work_bytes(n, dtc_start_width(width, limit)) : 0;
    p->step[TB_STEP_RAW] = keep_raw ? full + tb_raw_write_work_bytes() : 0;
    p->step[TB_STEP_COMPRESS] = full + tb_compress_work_bytes(n, width, rules, limit, threads);
    p->largest = 0;
    for (int s = 1; s < TB_STEPS; s++)
        if (p->step[s] > p->step[p->largest]) p->largest = s;
    p->total = resident + p->step[p->largest];
    return 0;
}
