#!/usr/bin/env bash
# Builds a libFuzzer target per reader (binary, xml, openstep, json, patch, text: the INI and .env
# readers of migrate) with AddressSanitizer and runs each for SECONDS (default 600), two at a time,
# seeded with Tests/Conformance and the regression inputs. Crashing inputs are copied to
# Tests/PrefsCoreTests/Fixtures/fuzz-regressions/ (which the test suite decodes on every run);
# commit them with the fix.
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
mapfile -t sources < <(find "$root/Sources/PrefsCore" -name '*.swift' | sort)

build() {
  local target=$1 flag
  rm -f "$work/fuzz-$target"
  flag=FUZZ_$(echo "$target" | tr a-z A-Z)
  swiftc -sanitize=fuzzer,address -parse-as-library -O -D "$flag" -module-name PrefsCore \
    "${sources[@]}" "$root/Tests/Fuzz/FuzzTarget.swift" -o "$work/fuzz-$target" 2>&1 |
    grep -v -e 'Cannot export local symbol' -e '^$' || true
  [ -x "$work/fuzz-$target" ] || { echo "building fuzz-$target failed" >&2; exit 1; }
}

seed() {
  local target=$1
  local dir=$work/corpus-$target
  mkdir -p "$dir"
  case $target in
    binary) find "$conformance/plist" -name '*.bplist' -o -name '*.bin.plist' | xargs -r cp -t "$dir" ;
            find "$conformance/plist/real-world" -type f | while read -r f; do head -c 8 "$f" | grep -q bplist && cp "$f" "$dir/" || true; done ;;
    xml) find "$conformance/plist" -name '*.plist' | while read -r f; do head -c 8 "$f" | grep -q bplist || cp "$f" "$dir/"; done ;
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

run() {
  local target=$1
  rm -rf "$work/crashes-$target"; mkdir -p "$work/crashes-$target"
  SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=0 "$work/fuzz-$target" "$work/corpus-$target" \
    -max_total_time="$seconds" -rss_limit_mb=2048 -max_len=65536 -timeout=10 \
    -artifact_prefix="$work/crashes-$target/" -print_final_stats=1 >"$work/log-$target.txt" 2>&1 || true
  local found
  found=$(find "$work/crashes-$target" -type f | wc -l)
  echo "$target: $(grep -E '^stat::number_of_executed_units' "$work/log-$target.txt" | awk '{print $2}') runs in ${seconds}s, $found crashing inputs"
  if [ "$found" -gt 0 ]; then
    mkdir -p "$regressions/$target"
    cp "$work/crashes-$target"/* "$regressions/$target/"
  fi
}

for t in "${targets[@]}"; do build "$t"; seed "$t"; done
pids=()
for t in "${targets[@]}"; do
  run "$t" & pids+=($!)
  if [ ${#pids[@]} -ge 2 ]; then wait "${pids[0]}"; pids=("${pids[@]:1}"); fi
done
wait
