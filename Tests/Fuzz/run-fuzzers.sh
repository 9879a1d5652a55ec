#!/usr/bin/env bash
# Builds the package's PrefsFuzzer target as a libFuzzer binary and runs one target per reader
# (binary, xml, openstep, json, patch — lookups and patches agree with full decoding — and text: the
# INI and .env readers of migrate) for SECONDS each (default 600), two at a time, seeded with
# Tests/Conformance and the regression inputs.
#
# Sanitizers: AddressSanitizer on everything; UndefinedBehaviorSanitizer on the C target
# (CPrefsSystem) only — Swift 6.3 on Linux refuses -sanitize=undefined, and Swift code traps on
# overflow, bad indexes and failed preconditions by itself, which libFuzzer reports as a crash.
#
# Crashing, timing-out and out-of-memory inputs are copied to
# Tests/PrefsCoreTests/Fixtures/fuzz-regressions/TARGET/ (which the test suite replays on every
# run; commit them with the fix), and the script exits 1. A plain `swift build` of PrefsFuzzer
# replays inputs without sanitizers: `.build/debug/PrefsFuzzer TARGET FILE...`.
#
#   Tests/Fuzz/run-fuzzers.sh [SECONDS] [TARGET...]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
seconds=${1:-600}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(binary xml openstep json patch text)
work=$root/Tests/Fuzz/work
regressions=$root/Tests/PrefsCoreTests/Fixtures/fuzz-regressions
conformance=$root/Tests/Conformance
mkdir -p "$work" "$regressions"

# Its own scratch path, so the sanitized build never mixes with the normal debug/release builds.
# SwiftPM's --sanitize=fuzzer makes PrefsFuzzer's main libFuzzer's; the sanitizers themselves are
# given to swiftc as ONE -sanitize= list, last on its command line: the driver keeps only the last
# -sanitize= it sees, and `swift build --sanitize=fuzzer --sanitize=address` passes two in no fixed
# order (a build had either coverage or AddressSanitizer, never both). Clang merges -fsanitize.
build=(swift build -c release --scratch-path "$root/.build/fuzz" --product PrefsFuzzer --sanitize=fuzzer
       -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING
       -Xcc -fsanitize=address,undefined -Xcc -fno-sanitize-recover=undefined)
(cd "$root" && "${build[@]}" 2>&1 | grep -v -e 'Cannot export local symbol' -e '^$')
bin=$(cd "$root" && "${build[@]}" --show-bin-path)
fuzzer=$bin/PrefsFuzzer
# Those flags are easy to lose without a word: check that PrefsCore's code calls both sanitizers.
for symbol in __asan_report_load __sanitizer_cov_trace; do
  nm "$bin"/PrefsCore.build/*.o | grep " U $symbol" >/dev/null || { echo "PrefsCore was built without $symbol" >&2; exit 1; }
done

# Whether a file starts as a binary plist does (compared in the shell: no pipe into an early-leaving grep under pipefail).
is_bplist() { [ "$(head -c 6 "$1" | tr -d '\0')" = bplist ]; }

seed() {
  local target=$1
  local dir=$work/corpus-$target
  mkdir -p "$dir"
  case $target in
    binary) find "$conformance/plist" -name '*.bplist' -o -name '*.bin.plist' | xargs -r cp -t "$dir" ;
            find "$conformance/plist/real-world" -name '*.plist' | while read -r f; do if is_bplist "$f"; then cp "$f" "$dir/"; fi; done ;;
    xml) find "$conformance/plist" -name '*.plist' | while read -r f; do is_bplist "$f" || cp "$f" "$dir/"; done ;
         cp "$conformance"/plist/libplist/fuzz/xplist-crashes/* "$dir/" ;;
    openstep) cp "$conformance"/plist/libplist/data/*.ostep "$conformance"/plist/libplist/data/test.strings "$dir/" ;
              cp "$conformance"/plist/libplist/fuzz/oplist-crashes/* "$dir/" ;;
    patch) find "$conformance/plist" -name '*.plist' -o -name '*.bplist' | xargs -r cp -t "$dir" ;;
    text) printf '; c\n[s]\nk = v\nn = 12\nj = {"a": [1, "2"]}\n' >"$dir/seed.ini" ;
          printf 'export A=1\nB="x\\ny" # c\nC=\x27$D\x27\n' >"$dir/seed.env" ;;
    json) cp "$conformance"/json/test_parsing/* "$conformance"/json/test_transform/* "$dir/" ;
          cp "$conformance"/plist/libplist/data/*.json "$conformance"/plist/libplist/fuzz/jplist-crashes/* "$dir/" ;;
  esac
  [ -d "$regressions/$target" ] && cp "$regressions/$target"/* "$dir/" 2>/dev/null || true
}

# Runs one target; prints a line of figures, and the log's report when it found something.
run() {
  local target=$1 log=$work/log-$1.txt
  rm -rf "$work/crashes-$target"; mkdir -p "$work/crashes-$target"
  PREFS_FUZZ_TARGET=$target SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=0 \
  UBSAN_OPTIONS=print_stacktrace=1 "$fuzzer" "$work/corpus-$target" \
    -max_total_time="$seconds" -rss_limit_mb=2048 -max_len=65536 -timeout=10 \
    -artifact_prefix="$work/crashes-$target/" -print_final_stats=1 >"$log" 2>&1 || true
  local runs found
  runs=$(awk '/^stat::number_of_executed_units/ {print $2}' "$log")
  found=$(find "$work/crashes-$target" -type f | wc -l)
  echo "$target: ${runs:-no} runs in ${seconds}s, $found failing inputs, corpus $(find "$work/corpus-$target" -type f | wc -l) files"
  # No runs: it did not start; no "cov:": its code is not instrumented, so it fuzzed blind.
  if [ "$found" -gt 0 ] || [ -z "$runs" ] || ! grep -q 'INITED cov:' "$log"; then
    mkdir -p "$regressions/$target"
    cp "$work/crashes-$target"/* "$regressions/$target/" 2>/dev/null || true
    grep -v -e '^#[0-9]*[[:space:]]*\(NEW\|REDUCE\|pulse\|INITED\|DONE\|RELOAD\)' "$log" | tail -60 | sed "s/^/  $target| /"
    return 1
  fi
}

for t in "${targets[@]}"; do seed "$t"; done
pids=() failed=0
for t in "${targets[@]}"; do
  run "$t" & pids+=($!)
  if [ ${#pids[@]} -ge 2 ]; then wait "${pids[0]}" || failed=1; pids=("${pids[@]:1}"); fi
done
for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
[ "$failed" = 0 ] || { echo "fuzzing found failing inputs: see above and $regressions" >&2; exit 1; }
