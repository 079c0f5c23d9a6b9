#!/bin/sh
# Installs the Debian packages xqtb builds and tests with, only when one is
# missing.  Run by `make deps`, which `make demo` and `make test` depend on.
set -eu

need=""
have_header() { [ -f "/usr/include/$1" ] || [ -f "/usr/include/$(gcc -dumpmachine 2>/dev/null)/$1" ]; }
have_header lz4.h || need="$need liblz4-dev"
have_header zstd.h || need="$need libzstd-dev"
have_header xxhash.h || need="$need libxxhash-dev"
have_header cmocka.h || need="$need libcmocka-dev"
have_header microhttpd.h || need="$need libmicrohttpd-dev"
command -v cc >/dev/null 2>&1 || need="$need gcc"
command -v pkg-config >/dev/null 2>&1 || need="$need pkg-config"
command -v g++ >/dev/null 2>&1 || need="$need g++" # install_check.sh: the header as C++
command -v clang-format >/dev/null 2>&1 || need="$need clang-format"

# Chromium is wanted, not needed: the web explorer's browser test runs in
# it, and says clearly that it skipped where it cannot be installed.
want=""
command -v chromium >/dev/null 2>&1 || want="chromium"
# the pieces' Chinese names in its screenshot
[ -d /usr/share/fonts/truetype/wqy ] || want="$want fonts-wqy-zenhei"

[ -z "$need" ] && [ -z "$want" ] && exit 0

cmd="apt-get install -y --no-install-recommends$need"
if [ "$(id -u)" != 0 ]; then
    [ -z "$need" ] && exit 0
    echo "xqtb needs Debian packages:$need" >&2
    echo "run as root: apt-get update && $cmd" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
if [ -n "$need" ]; then
    echo "installing:$need"
    # shellcheck disable=SC2086
    $cmd
fi
if [ -n "$want" ]; then
    echo "installing: $want (for the web explorer's browser test)"
    apt-get install -y --no-install-recommends $want >/dev/null ||
        echo "could not install $want: the browser test will be skipped" >&2
fi
