#!/bin/sh
# demo.sh - a short tour of xqtb as it stands: a position, its legal moves,
# perft, an endgame, and how bad input is reported.  Run by `make demo` as
#   sh scripts/demo.sh build/xqtb
set -eu

XQTB=${1:-build/xqtb}
START="rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"
ENDGAME="3ak4/4a4/9/9/9/9/9/9/9/3K1R3 w - - 0 1"

# Shows the command as a user would type it, then runs it.
run() {
    printf '\n$ xqtb'
    for a in "$@"; do
        case $a in *' '*) printf " '%s'" "$a" ;; *) printf ' %s' "$a" ;; esac
    done
    printf '\n'
    "$XQTB" "$@"
}

echo "== The start position, validated and drawn"
run fen "$START"

echo
echo "== Its 44 legal moves (ICCS notation: from-square, to-square)"
run moves "$START"

echo
echo "== perft: leaf nodes of the legal move tree, depths 1-4"
for d in 1 2 3 4; do run perft "$d" 2>/dev/null; done

echo
echo "== An endgame: rook against two advisors"
run fen "$ENDGAME"
run moves "$ENDGAME"

echo
echo "== Bad input is refused with the reason, exit status 2"
set +e
# stderr joins stdout here so the message shows in order even when piped.
run fen "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBA1ABNR w - - 0 1" 2>&1
echo "(exit status $?)"
set -e

echo
echo "Tablebase generation is in progress; see README.md."
