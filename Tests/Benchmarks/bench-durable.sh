#!/usr/bin/env bash
# A durable small write — `prefs write S K V` on a 10-key XML suite: lock, read, change, write a
# temporary file, fsync, rename, fsync the directory — vs the floor of such a write on the same disk:
# Tools/durable-replace.c (built here with gcc), which takes the lock, writes the same bytes
# to a temporary file, fsyncs it, renames it and fsyncs the directory, and does nothing else. Goal:
# ≤ 1.2× the floor. `git config` setting a key of a 10-key file is printed beside them: it does not
# fsync, so it is no floor. Every write changes the value (a --prepare step writes another one first,
# untimed; the floor's is one more durable replace, so every timed write follows a durable one). Medians of every run, ROUNDS hyperfine rounds with the commands interleaved. Figures only.
# --smoke: one round of two runs — checks that it runs; the figures mean nothing.
#   Tests/Benchmarks/bench-durable.sh [ROUNDS | --smoke]    (installs gcc and hyperfine if missing)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/Tests/Benchmarks/common.sh"
if [ "${1:-}" = --smoke ]; then rounds=1 runs=2 warmup=0; else rounds=${1:-5} runs=30 warmup=3; fi
bench_need hyperfine:hyperfine gcc:gcc git:git python3:python3
bench_prefs
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export XDG_CONFIG_HOME=$work/config XDG_STATE_HOME=$work/state XDG_DATA_HOME=$work/data XDG_DATA_DIRS=$work/none XDG_CONFIG_DIRS=$work/none
mkdir -p "$XDG_CONFIG_HOME" "$work/floor"
gcc -O2 -o "$work/durable-replace" "$root/Tests/Benchmarks/Tools/durable-replace.c"
for i in $(seq 0 9); do
  "$prefs" write small "key$i" "value number $i"
  git config --file "$work/git.cfg" "section.key$i" "value number $i"
done
cp "$XDG_CONFIG_HOME/small.plist" "$work/floor/small.plist"
echo "suite: $(stat -c %s "$XDG_CONFIG_HOME/small.plist") B on $(df --output=source,fstype "$work" | tail -1)"
bench_rounds "$rounds" "$runs" "$warmup" "$work/times" \
  "$prefs write small key5 other ;; $prefs write small key5 changed" \
  "$work/durable-replace $work/floor/small.plist ;; $work/durable-replace $work/floor/small.plist" \
  "git config --file $work/git.cfg section.key5 other ;; git config --file $work/git.cfg section.key5 changed"
read -r ours floor git < <(bench_medians "$work/times")
echo "durable one-key write, 10 keys (median ms): prefs $ours, floor $floor, git config (no fsync) $git"
echo "prefs / floor = $(bench_ratio "$ours" "$floor")x (goal <= 1.2), prefs / git config = $(bench_ratio "$ours" "$git")x"
