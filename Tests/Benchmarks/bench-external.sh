#!/usr/bin/env bash
# External storage, timed with hyperfine (median per-process wall time), ours and the peer back to back:
#   1. reading one small key of a suite that also holds 1 GB of external values (ten 100 MB blobs) vs
#      the same suite without them — the blobs must cost nothing (target ≤ 1.1×);
#   2. writing a 100 MB value (`write -data @FILE`: read, SHA-256, blob written and fsynced, suite
#      committed) vs `cp` of the same file, and vs `dd conv=fsync` (a copy that is on disk too);
#   3. reading it back (`read --raw`, streamed after checking the blob) vs `cat` of the blob.
# Each write changes the value (a --prepare step writes another one first). Not a test: figures only.
# --smoke: two 1 MB blobs and two runs of each — checks that it runs; the figures mean nothing.
#   Tests/Benchmarks/bench-external.sh [--smoke]   (needs hyperfine; builds the static release binary)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
if [ "${1:-}" = --smoke ]; then
  size=1000000 blobs=2 runs=(2 2 2) warmup=(0 0 0)
else
  size=100000000 blobs=10 runs=(200 10 20) warmup=(5 1 2)    # read small, write, read --raw
fi
command -v hyperfine >/dev/null || { echo "needs hyperfine (apt-get install hyperfine)" >&2; exit 1; }
(cd "$root" && swift build -q -c release --product prefs -Xswiftc -static-executable)
prefs=$root/.build/release/prefs
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export XDG_CONFIG_HOME=$work/config XDG_DATA_HOME=$work/data XDG_DATA_DIRS=$work/none
head -c "$size" /dev/urandom >"$work/a"
head -c "$size" /dev/urandom >"$work/b"
for i in $(seq 0 9); do
  "$prefs" write with "small$i" "value $i"
  "$prefs" write without "small$i" "value $i"
done
for i in $(seq 1 "$blobs"); do "$prefs" write with "big$i" -data @"$work/a"; done
echo "external data: $(du -sh "$XDG_DATA_HOME/prefs/external" | cut -f1), suite file: $(stat -c %s "$XDG_CONFIG_HOME/with.plist") bytes"
median() { python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"]; print(" ".join("%.2f" % (x["median"] * 1000) for x in r))' "$1"; }
ratio() { python3 -c 'import sys; print("%.2f" % (float(sys.argv[1]) / float(sys.argv[2])))' "$1" "$2"; }

hyperfine -N --warmup "${warmup[0]}" -r "${runs[0]}" --export-json "$work/r.json" "$prefs read with small5" "$prefs read without small5" >/dev/null
read -r with without < <(median "$work/r.json")
echo "small-key read, $((size * blobs / 1000000)) MB external vs none: $with ms vs $without ms = $(ratio "$with" "$without")x"

hyperfine -N --warmup "${warmup[1]}" -r "${runs[1]}" --export-json "$work/w.json" \
  --prepare "$prefs write big value -data @$work/b" "$prefs write big value -data @$work/a" \
  --prepare "rm -f $work/copy" "cp $work/a $work/copy" \
  --prepare "rm -f $work/copy" "dd if=$work/a of=$work/copy bs=1M conv=fsync status=none" >/dev/null
read -r ours cp dd < <(median "$work/w.json")
echo "write $((size / 1000000)) MB: prefs $ours ms, cp $cp ms ($(ratio "$ours" "$cp")x), dd conv=fsync $dd ms ($(ratio "$ours" "$dd")x)"

"$prefs" write big value -data @"$work/a"
blob=$(find "$XDG_DATA_HOME/prefs/external/big" -type f | head -1)
hyperfine -N --warmup "${warmup[2]}" -r "${runs[2]}" --output "$work/out" --export-json "$work/c.json" "$prefs read big value --raw" "cat $blob" >/dev/null
read -r ours cat < <(median "$work/c.json")
cmp "$work/out" "$work/a"
echo "read $((size / 1000000)) MB to a file: prefs $ours ms, cat $cat ms ($(ratio "$ours" "$cat")x)"
