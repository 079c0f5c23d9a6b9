#!/bin/sh
# demo.sh - the main job, end to end: generate the default endgame, rook
# against horse and two advisors (KRKNAA), with every smaller table it
# captures into; check it; then probe telling positions from the compressed
# files as an engine would.  Run by `make demo` as
#   sh scripts/demo.sh build/xqtb
# Tables go to tables/ (build output, reused on the next run).
set -eu

XQTB=${1:-build/xqtb}
DIR=${XQTB_DEMO_DIR:-tables}

# Shows the command as a user would type it, then runs it.
run() {
    printf '\n$ xqtb'
    for a in "$@"; do
        case $a in *' '*) printf " '%s'" "$a" ;; *) printf ' %s' "$a" ;; esac
    done
    printf '\n'
    "$XQTB" "$@"
}

echo "== 1. Generate KRKNAA and its 11 subtables (about 10 s on 2 cores; reused if present)"
run gen -d "$DIR" KRKNAA 2>&1

echo
echo "== 2. Check every position against its successors"
run verify -d "$DIR" KRKNAA

echo
echo "== 3. Probe from the compressed files (.xqw WDL, .xqd DTM)"
echo "-- The longest win: rook to move mates in 73 plies against best defence"
run probe -d "$DIR" "3aR4/3na4/5k3/9/9/9/9/3K5/9/9 w - - 0 1"
echo
echo "-- Black to move wins here: the horse checks the king and attacks the rook"
run probe -d "$DIR" "3ak4/4a4/9/9/9/9/3n5/9/3K5/6R2 b - - 0 1"
echo
echo "-- A win, with the whole line of best play (19 plies)"
run probe -d "$DIR" --line "4k4/4a4/3a5/9/9/9/4n4/9/4K4/R8 w - - 0 1"
echo
echo "-- The same answer as JSON, for tools"
run probe -d "$DIR" --json "4k4/4a4/3a5/9/9/9/4n4/9/4K4/R8 w - - 0 1"

echo
echo "== 4. Bad input is refused with the reason (exit status 2)"
set +e
run probe -d "$DIR" "3ak4/4a4/9/9/9/9/3n5/9/4K4/6R2 b - - 0 1" 2>&1
echo "(exit status $?)"
set -e

echo
echo "More: xqtb stats -d $DIR KRKNAA (counts, longest wins, DTM histogram); README.md."
