// install_cxx.cpp - xqtb.h as a C++ engine includes it (Pikafish and most
// Xiangqi engines are C++): compiled and linked against the installed
// library by install_check.sh with every C++ compiler at hand, with the
// out-parameters of their typed kinds, which C++ does not convert to int.
#include <xqtb.h>

#include <cstdio>

int main(int argc, char **argv)
{
    if (argc != 3) return 2;
    xqtb_status st;
    xqtb_handle *h = xqtb_open(argv[1], nullptr, &st);
    xqtb_position pos;
    if (!h || xqtb_position_from_fen(argv[2], &pos, nullptr) != XQTB_OK) return 2;
    xqtb_wdl wdl = XQTB_DRAW;
    xqtb_wdl5 wdl5;
    int dtm = XQTB_NO_DISTANCE, dtc = XQTB_NO_DISTANCE;
    xqtb_result r;
    xqtb_root_move moves[XQTB_MAX_MOVES];
    xqtb_root_options opt = {};
    opt.loss_policy = XQTB_LOSE_AVOID_RULING;
    uint16_t pv[XQTB_PV_MAX];
    xqtb_pv_end end;
    xqtb_repetition rep;
    xqtb_label label;
    int ok = xqtb_probe_wdl(h, &pos, &wdl) == XQTB_OK && xqtb_probe_wdl_trusted(h, &pos, &wdl) == XQTB_OK &&
             xqtb_probe_dtm(h, &pos, &wdl, &dtm) == XQTB_OK && xqtb_probe_wdl_counter(h, &pos, 0, &wdl5) == XQTB_OK &&
             xqtb_probe_dtc(h, &pos, 0, &wdl5, &dtc) == XQTB_OK && xqtb_probe(h, &pos, &r) == XQTB_OK &&
             xqtb_probe_root_ex(h, &pos, &opt, moves) > 0 && xqtb_probe_pv(h, &pos, 0, pv, XQTB_PV_MAX, &end) > 0 &&
             xqtb_judge_repetition(&pos, nullptr, 0, XQTB_RULES_FULL, &rep) == XQTB_OK &&
             rep.verdict == XQTB_NO_REPETITION && xqtb_label_move(&pos, moves[0].move, &label) == XQTB_OK;
    std::printf("%s wdl %d dtm %d dtc %d\n", ok ? "ok" : "failed", (int)wdl, dtm, dtc);
    xqtb_close(h);
    return ok ? 0 : 1;
}
