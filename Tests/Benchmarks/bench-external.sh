#!/usr/bin/env bash
# External storage, timed with hyperfine, ours and the peers interleaved (ROUNDS rounds over all the
# commands, the median of every run):
#   1. reading one small key of a suite that also holds 1 GB of external values (ten 100 MB blobs) vs
#      the same suite without them — the blobs must cost nothing (goal ≤ 1.1×);
#   2. writing a 100 MB value (`write -data @FILE`: read, SHA-256, blob written and fsynced, suite
#      committed) vs `cp` of the same file followed by an fsync of the copy (`sync FILE`) — goal ≤ 2× —
#      and, beside it, `cp` alone and `dd conv=fsync`: each a new file (the last value, the last copy
#      removed untimed); then replacing the value (prefs removes the old blob, timed) vs `cp` over
#      the last copy (truncating it, timed) and fsync;
#   3. reading it back (`read --raw > FILE`, every byte checked against the reference's size and
#      SHA-256 as it streams) vs `cat` of the blob — goal ≤ 1.1× — and beside them `prefs check` of
#      the suite, which reads the blob and checks its SHA-256 without writing it anywhere: the floor
#      of a verified read, since SHA-256 is one sequential pass on one core.
# Figures only.
# --smoke: two 1 MB blobs and one round of two runs — checks that it runs; the figures mean nothing.
#   Tests/Benchmarks/bench-external.sh [ROUNDS | --smoke]   (needs hyperfine)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/Tests/Benchmarks/common.sh"
if [ "${1:-}" = --smoke ]; then
  rounds=1 size=1000000 blobs=2 runs=(2 2 2) warmup=(0 0 0)
else
  rounds=${1:-5} size=100000000 blobs=10 runs=(40 3 5) warmup=(5 1 1)    # read small, write, read --raw
fi
bench_need hyperfine:hyperfine python3:python3
bench_prefs
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export XDG_CONFIG_HOME=$work/config XDG_STATE_HOME=$work/state XDG_DATA_HOME=$work/data XDG_DATA_DIRS=$work/none XDG_CONFIG_DIRS=$work/none
head -c "$size" /dev/urandom >"$work/a"
head -c "$size" /dev/urandom >"$work/b"
for i in $(seq 0 9); do
  "$prefs" write with "small$i" "value $i"
  "$prefs" write without "small$i" "value $i"
done
for i in $(seq 1 "$blobs"); do "$prefs" write with "big$i" -data @"$work/a"; done
echo "external data: $(du -sh "$XDG_DATA_HOME/prefs/external" | cut -f1), suite file: $(stat -c %s "$XDG_CONFIG_HOME/with.plist") bytes"
mb=$((size / 1000000))

bench_rounds "$rounds" "${runs[0]}" "${warmup[0]}" "$work/r" "$prefs read with small5" "$prefs read without small5"
read -r with without < <(bench_medians "$work/r")
echo "small-key read, $((mb * blobs)) MB external vs none: $with ms vs $without ms = $(bench_ratio "$with" "$without")x (goal <= 1.1)"

"$prefs" write big value -data @"$work/b"  # so that the first timed write has a value to delete first
# A new value against a new copy (the old one removed untimed on both sides), then a value replacing
# the last one (prefs removes the old blob) against cp over the last copy (which truncates it).
bench_rounds "$rounds" "${runs[1]}" "${warmup[1]}" "$work/w" \
  "$prefs delete big value ;; $prefs write big value -data @$work/a" \
  "rm -f $work/copy ;; sh -c 'cp $work/a $work/copy && sync $work/copy'" \
  "rm -f $work/copy ;; cp $work/a $work/copy" \
  "rm -f $work/copy ;; dd if=$work/a of=$work/copy bs=1M conv=fsync status=none" \
  "$prefs write big value -data @$work/b ;; $prefs write big value -data @$work/a" \
  "cp $work/b $work/copy ;; sh -c 'cp $work/a $work/copy && sync $work/copy'"
read -r ours cpsync cp dd replacing cpover < <(bench_medians "$work/w")
echo "write $mb MB: prefs $ours ms, cp + fsync $cpsync ms = $(bench_ratio "$ours" "$cpsync")x (goal <= 2); cp alone $cp ms ($(bench_ratio "$ours" "$cp")x), dd conv=fsync $dd ms ($(bench_ratio "$ours" "$dd")x)"
echo "replacing a $mb MB value: prefs $replacing ms, cp over the last copy + fsync $cpover ms = $(bench_ratio "$replacing" "$cpover")x"

"$prefs" write big value -data @"$work/a"
# The blob the suite's reference names (the history keeps the ones before it).
blob=$(python3 -c '
import plistlib, sys
ref = plistlib.load(open(sys.argv[1], "rb"))["value"]
print(sys.argv[2] + "/" + ref["key"] + "/" + ref["uuid"])' "$XDG_CONFIG_HOME/big.plist" "$XDG_DATA_HOME/prefs/external/big")
bench_rounds "$rounds" "${runs[2]}" "${warmup[2]}" "$work/c" "sh -c '$prefs read big value --raw >$work/out'" "sh -c 'cat $blob >$work/out'" \
  "$prefs check big"
cmp "$work/out" "$work/a"
"$prefs" read big value --raw >"$work/out"
cmp "$work/out" "$work/a"
read -r ours cat check < <(bench_medians "$work/c")
echo "read $mb MB to a file: prefs $ours ms, cat $cat ms = $(bench_ratio "$ours" "$cat")x (goal <= 1.1); checking the blob alone (prefs check: read + SHA-256) $check ms = $(bench_ratio "$check" "$cat")x cat"
