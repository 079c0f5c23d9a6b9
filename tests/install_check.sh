#!/bin/sh
# install_check.sh - checks a `make install` tree as an engine author uses
# it: the files and the shared library's soname and exports, then
# scripts/example_probe.c built through pkg-config against the installed
# library, shared and static, with every compiler at hand, and from the
# library's sources in one command (the drop-in form), run on a freshly
# generated KRK table; and scripts/example_search.c, a search that probes,
# playing a won KRKNAA position out to mate.  Run by `make test-install`
# (part of `make test`).
#
# usage: install_check.sh PREFIX WORKDIR
set -eu

prefix=$1
work=$2
cc=${CC:-cc}
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
# the library's version, as the installed header gives it (the Makefile
# takes its VERSION from the same lines)
version=$(awk '/^#define XQTB_VERSION_(MAJOR|MINOR|PATCH) / { v = v s $3; s = "." } END { print v }' "$prefix/include/xqtb.h")

fail() {
    echo "install check: $*" >&2
    exit 1
}

# ---- the installed tree
for f in include/xqtb.h lib/libxqtb.a lib/libxqtb.so.$version lib/pkgconfig/xqtb.pc bin/xqtb; do
    [ -f "$prefix/$f" ] || fail "$f not installed"
done
[ "$(readlink "$prefix/lib/libxqtb.so.1")" = libxqtb.so.$version ] || fail "libxqtb.so.1 is not a link to libxqtb.so.$version"
[ "$(readlink "$prefix/lib/libxqtb.so")" = libxqtb.so.$version ] || fail "libxqtb.so is not a link to libxqtb.so.$version"
objdump -p "$prefix/lib/libxqtb.so.$version" | grep -q 'SONAME *libxqtb\.so\.1$' || fail "soname is not libxqtb.so.1"
# the shared library exports the API of xqtb.h and nothing else
exported=$(nm -D --defined-only "$prefix/lib/libxqtb.so.$version" | awk '{print $3}' | sort)
declared=$(grep -v 'static inline' "$prefix/include/xqtb.h" | grep -o 'xqtb_[a-z_]*(' | tr -d '(' | sort -u)
[ "$exported" = "$declared" ] || fail "exports differ from xqtb.h: $(echo "$exported" | tr '\n' ' ')"
[ "$(pkg-config --modversion xqtb)" = $version ] || fail "pkg-config --modversion xqtb"
[ "$(pkg-config --variable=prefix xqtb)" = "$prefix" ] || fail "xqtb.pc prefix is not $prefix"

# ---- the example, built against the installed library only
src=scripts/example_probe.c
compilers=$cc
for c in gcc clang; do
    if command -v $c >/dev/null 2>&1 && [ "$(readlink -f "$(command -v $c)")" != "$(readlink -f "$(command -v "$cc")")" ]; then
        compilers="$compilers $c"
    fi
done
# shellcheck disable=SC2046
for c in $compilers; do
    name=$(basename "$c")
    $c -std=c11 -Wall -Wextra -Werror -o "$work/example-shared-$name" $src $(pkg-config --cflags --libs xqtb) ||
        fail "$c: example does not build against the shared library"
    # static: libxqtb.a by name, its dependencies from Libs.private
    $c -std=c11 -Wall -Wextra -Werror -o "$work/example-static-$name" $src $(pkg-config --cflags xqtb) \
        $(pkg-config --static --libs xqtb | sed 's/-lxqtb\b/-l:libxqtb.a/') ||
        fail "$c: example does not build against the static library"
done
# ---- the drop-in form: the library's sources compiled into the program
# with the one command README.md gives (core/ and probe/, no generator)
$cc -O2 -std=c11 -D_DEFAULT_SOURCE -pthread -Icore -Iprobe -o "$work/example-dropin" $src core/*.c probe/*.c \
    -lzstd -llz4 -lxxhash -lm || fail "the drop-in build of the example fails"
first=$(basename "$(echo "$compilers" | cut -d' ' -f1)")
LD_LIBRARY_PATH="$prefix/lib" ldd "$work/example-shared-$first" | grep -q "libxqtb.so.1 => $prefix/lib/libxqtb.so.1" ||
    fail "shared example does not load $prefix/lib/libxqtb.so.1"
if ldd "$work/example-static-$first" | grep -q libxqtb; then fail "static example loads libxqtb.so"; fi
# without the library path the shared example must not find a stray copy
if ldd "$work/example-shared-$first" | grep -q "libxqtb.so.1 => /"; then
    echo "install check: note: a libxqtb.so.1 is installed system-wide" >&2
fi

# ---- run it on a KRK table made by the installed xqtb
"$prefix/bin/xqtb" gen -q -d "$work/tables" KRK || fail "xqtb gen KRK"

# Checks one run: the header lines exactly, the move lines as a set (ties
# keep generation order, which this check does not pin down), and the
# order: wins by rising distance, then draws, then losses by falling one.
check_run() { # binary fen expected-header expected-moves
    out=$("$1" "$work/tables" "$2") || fail "$1 \"$2\" exited with $?"
    header=$(echo "$out" | grep -v '^  ')
    [ "$header" = "$3" ] || fail "$1 \"$2\": got
$header
expected
$3"
    moves=$(echo "$out" | grep '^  ' | sort)
    [ "$moves" = "$(echo "$4" | sort)" ] || fail "$1 \"$2\": moves
$moves
expected
$4"
    echo "$out" | grep '^  ' | awk '
        { rank = $2 == "win" ? 0 : $2 == "draw" ? 1 : 2; key = rank == 0 ? $3 : rank == 2 ? -$3 : 0 }
        NR > 1 && (rank < prank || (rank == prank && key < pkey)) { bad = 1 }
        { prank = rank; pkey = key }
        END { exit bad }' || fail "$1 \"$2\": moves not best first"
}

for bin in "$work"/example-static-* "$work"/example-shared-* "$work"/example-dropin; do
    export LD_LIBRARY_PATH="$prefix/lib"
    # red mates in one (a0a8 leaves black no move; a0d0 is checkmate)
    check_run "$bin" "3k5/9/9/9/9/9/9/9/9/R3K4 w - - 0 1" "material: KRK (3 pieces, tables up to 3)
wdl: win
dtm: 1
moves: 14" "  a0a8 win 1
  a0d0 win 1
  a0a1 win 3
  a0a2 win 3
  a0a3 win 3
  a0a4 win 3
  a0a5 win 3
  a0a6 win 3
  a0b0 win 3
  a0c0 win 3
  e0e1 win 3
  a0a7 win 5
  a0a9 win 5
  e0f0 win 5"
    # black to move: only one move, and it loses
    check_run "$bin" "3k5/9/9/9/9/9/9/9/R8/4K4 b - - 0 1" "material: KRK (3 pieces, tables up to 3)
wdl: loss
dtm: 2
moves: 1" "  d9d8 loss 2"
    # black takes the rook (a draw: KK, which the root probe reads) or loses
    check_run "$bin" "9/4k4/4R4/9/9/9/9/9/9/3K5 b - - 0 1" "material: KRK (3 pieces, tables up to 3)
wdl: draw
dtm: none
moves: 2" "  e8e7 draw none
  e8f8 loss 4"
    # no table: exit status 1 and the material named
    set +e
    err=$("$bin" "$work/tables" "3k5/9/9/9/9/9/9/9/4A4/R3K4 w - - 0 1" 2>&1 >/dev/null)
    st=$?
    set -e
    [ $st -eq 1 ] || fail "$bin: missing table gave exit status $st"
    echo "$err" | grep -q "KRAK" || fail "$bin: missing table message does not name KRAK: $err"
    # bad FEN: exit status 2
    set +e
    "$bin" "$work/tables" "not a fen" >/dev/null 2>&1
    st=$?
    set -e
    [ $st -eq 2 ] || fail "$bin: bad FEN gave exit status $st"
done
# ---- the search example: alpha-beta with the WDL probe at every node and
# the root probe at the root, playing KRKNAA's longest win out to mate
# shellcheck disable=SC2046
$cc -std=c11 -Wall -Wextra -Werror -o "$work/example-search" scripts/example_search.c $(pkg-config --cflags --libs xqtb) ||
    fail "the search example does not build"
"$prefix/bin/xqtb" gen -q -d "$work/tables" KRKNAA || fail "xqtb gen KRKNAA"
LD_LIBRARY_PATH="$prefix/lib" "$work/example-search" "$work/tables" "3aR4/3na4/5k3/9/9/9/9/3K5/9/9 w - - 0 1" \
    >"$work/search.out" || fail "the search example did not mate: $(tail -1 "$work/search.out")"
grep -q "^mate after" "$work/search.out" || fail "the search example: $(tail -1 "$work/search.out")"
# ---- the header in C++, as most Xiangqi engines include it
cxx_done=
for cxx in g++ clang++; do
    command -v $cxx >/dev/null 2>&1 || continue
    # shellcheck disable=SC2046
    $cxx -std=c++11 -Wall -Wextra -Werror -o "$work/cxx-$cxx" tests/install_cxx.cpp $(pkg-config --cflags --libs xqtb) ||
        fail "$cxx: xqtb.h does not build as C++"
    LD_LIBRARY_PATH="$prefix/lib" "$work/cxx-$cxx" "$work/tables" "3k5/9/9/9/9/9/9/9/9/R3K4 w - - 0 1" >/dev/null ||
        fail "$cxx: the C++ check fails"
    cxx_done="$cxx_done $cxx"
done
[ -n "$cxx_done" ] || echo "install check: note: no C++ compiler, the header's C++ check skipped" >&2
echo "install check: $prefix installs, the examples build (shared and static, $compilers; drop-in) and answer," \
    "C++:${cxx_done:- none}; and the search example mates: $(tail -1 "$work/search.out")"
