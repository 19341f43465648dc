#!/usr/bin/env bash
# For maintainers whose GPU machine cannot install packages (the device tool's
# machines have no network and no bubblewrap): fetch Debian's bubblewrap here
# and unpack its bwrap, with the libraries it links, into .deps/bwrap/ (git
# ignores .deps/), to carry there. On that machine:
#   export WORKBOOK_SANDBOX_TOOL=$PWD/.deps/bwrap/bwrap
#   ldd "$WORKBOOK_SANDBOX_TOOL" | grep -q "not found" && export LD_LIBRARY_PATH=$PWD/.deps/bwrap/lib
# (tools/gpu_checks.sh does both when .deps/bwrap/bwrap exists).
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$work" && { apt-get download bubblewrap >/dev/null 2>&1 || { apt-get update -qq && apt-get download bubblewrap; }; })
dpkg -x "$work"/bubblewrap_*.deb "$work/root"
mkdir -p .deps/bwrap/lib
cp "$work/root/usr/bin/bwrap" .deps/bwrap/bwrap
# The shared libraries bwrap links, but not the C library's own, which every machine has.
ldd .deps/bwrap/bwrap | awk '/=> \// {print $3}' | grep -v -E '/(libc|ld-linux[^/]*)\.so' | while read -r library; do
  cp -L "$library" .deps/bwrap/lib/
done
echo "fetch_bwrap: $(.deps/bwrap/bwrap --version) in .deps/bwrap/ (libraries: $(ls .deps/bwrap/lib | tr '\n' ' '))"
