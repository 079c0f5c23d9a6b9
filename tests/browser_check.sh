#!/bin/sh
# browser_check.sh - the web explorer in a real browser: headless Chromium
# loads the page from `xqtb serve` over a freshly generated KRKNAA, plays
# the best move by clicking its piece and its destination on the board and
# the reply by dragging a piece (the page's #selftest mode dispatches the
# pointer events a user's clicks and drags make and reports what the page
# then shows), checks the values shown before and after each, and takes a screenshot that must be a full-size, non-blank PNG.
# Run by `make test-browser` (part of `make test`); skipped, saying so,
# where Chromium is not installed.
#
# usage: browser_check.sh XQTB WORKDIR
set -eu

xqtb=$1
work=$2
fail() {
    echo "browser check: $*" >&2
    [ -f "$work/serve.err" ] && sed 's/^/  serve: /' "$work/serve.err" >&2
    exit 1
}
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
    echo "browser check: SKIPPED: Chromium is not installed (make deps installs it where the Debian archive is reachable)"
    exit 0
fi
rm -rf "$work" && mkdir -p "$work"
"$xqtb" gen -q -d "$work/tables" KRKNAA || fail "xqtb gen KRKNAA"
"$xqtb" serve -d "$work/tables" --listen 127.0.0.1:0 >"$work/serve.out" 2>"$work/serve.err" &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
i=0
until grep -q 'http://' "$work/serve.out" 2>/dev/null; do
    i=$((i + 1))
    [ $i -lt 100 ] || fail "xqtb serve did not start"
    sleep 0.1
done
url=$(sed -n 's/^xqtb serve: \(http:[^ ]*\) .*/\1/p' "$work/serve.out")
fen='3aR4%2F3na4%2F5k3%2F9%2F9%2F9%2F9%2F3K5%2F9%2F9%20w%20-%20-%200%201'
chrome() {
    timeout 120 "$browser" --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir="$work/profile" \
        --virtual-time-budget=20000 --window-size=1100,1000 "$@" 2>>"$work/chromium.err"
}

# ---- play the best move by clicking, and read what the page shows
chrome --dump-dom "$url#fen=$fen&selftest" >"$work/dom.html" || fail "chromium could not load the page"
result=$(grep -o 'SELFTEST {.*}' "$work/dom.html" | head -1)
[ -n "$result" ] || fail "the page's self-test left no result (see $work/dom.html)"
for want in '"ok":true' \
    '"value":"Red to move: win, mate in 73 · DTC 51","moves":8,"best":"d2d1"' \
    '"after":{"fen":"3aR4/3na4/5k3/9/9/9/9/9/3K5/9 b - - 1 1","value":"Black to move: loss, mate in 72 · DTC 50"' \
    '"dragged":{"move":"f7f8","fen":"3aR4/3nak3/9/9/9/9/9/9/3K5/9 w - - 2 2","value":"Red to move: win, mate in 71 · DTC 49"}'; do
    case $result in
    *"$want"*) ;;
    *) fail "expected $want in the page's result: $result" ;;
    esac
done
bars=$(echo "$result" | sed -n 's/.*"histogram_bars":\([0-9]*\).*/\1/p')
[ "${bars:-0}" -gt 20 ] || fail "the DTM histogram has ${bars:-no} bars"

# ---- the screenshot: a PNG of the window's size, not blank
chrome --screenshot="$work/explorer.png" "$url#fen=$fen" >/dev/null || fail "no screenshot"
[ -f "$work/explorer.png" ] || fail "no screenshot written"
sig=$(od -An -tx1 -N8 "$work/explorer.png" | tr -d ' \n')
[ "$sig" = 89504e470d0a1a0a ] || fail "the screenshot is not a PNG"
dims=$(od -An -tu1 -j16 -N8 "$work/explorer.png" | awk '{ print $1*16777216+$2*65536+$3*256+$4 "x" $5*16777216+$6*65536+$7*256+$8 }')
[ "$dims" = 1100x1000 ] || fail "the screenshot is $dims, not 1100x1000"
size=$(wc -c <"$work/explorer.png")
# a blank page of that size compresses to a few KB; the board, the moves
# and the histogram take over 60 KB
[ "$size" -gt 60000 ] || fail "the screenshot looks blank ($size bytes)"
echo "browser check: the page played $(echo "$result" | sed -n 's/.*"best":"\([a-i0-9]*\)".*/\1/p') by clicks and f7f8 by a drag" \
    "and showed the values; screenshot $dims, $size bytes: $work/explorer.png"
