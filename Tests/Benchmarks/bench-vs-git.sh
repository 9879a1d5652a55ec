#!/usr/bin/env bash
# prefs vs `git config --file` on equal data: read and write one key, in suites of 10, 1k and 100k
# string keys, stored as XML and as binary plists. Every case is timed with hyperfine (per-process
# wall time, median), prefs and git back to back, and the whole table is repeated ROUNDS times with
# the cases interleaved; the median of the rounds is printed with the ratio prefs/git (below 1.0 =
# prefs faster). Writes change the value every run (a --prepare step writes another value first), so
# neither tool gets a no-op. Not a test: no limits, just figures. --smoke: suites of 10 and 100 keys,
# one round of two runs — checks that it runs; the figures mean nothing.
#   Tests/Benchmarks/bench-vs-git.sh [ROUNDS | --smoke]  (needs hyperfine; builds the static release binary)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
if [ "${1:-}" = --smoke ]; then
  rounds=1 sizes=(10 100) runs=2 warmup=(0 0)
else
  rounds=${1:-3} sizes=(10 1000 100000) runs=40 warmup=(3 2)   # warm-up runs: read, write
fi
command -v hyperfine >/dev/null || { echo "needs hyperfine (apt-get install hyperfine)" >&2; exit 1; }
. "$root/Tests/Benchmarks/common.sh"
bench_prefs
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export XDG_CONFIG_HOME=$work/config XDG_STATE_HOME=$work/state XDG_CONFIG_DIRS=$work/none
mkdir -p "$XDG_CONFIG_HOME"
python3 - "$work" "${sizes[@]}" <<'PY'
import plistlib, sys
work = sys.argv[1]
for n in map(int, sys.argv[2:]):
    name = str(n)
    doc = {f"key{i:06d}": f"value number {i}" for i in range(n)}
    open(f"{work}/config/xml{name}.plist", "wb").write(plistlib.dumps(doc, fmt=plistlib.FMT_XML))
    open(f"{work}/config/bin{name}.plist", "wb").write(plistlib.dumps(doc, fmt=plistlib.FMT_BINARY))
    with open(f"{work}/git{name}.cfg", "w") as f:
        f.write("[section]\n" + "".join(f"\tkey{i:06d} = value number {i}\n" for i in range(n)))
PY
median() { python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"]; print(" ".join(str(x["median"]) for x in r))' "$1"; }
: >"$work/times"
for round in $(seq "$rounds"); do
  for size in "${sizes[@]}"; do
    key=$(printf 'key%06d' $((size / 2)))
    n=$([ "$size" -ge 100000 ] && echo 15 || echo "$runs")
    for format in xml bin; do
      hyperfine -N --warmup "${warmup[0]}" -r "$n" --export-json "$work/r.json" \
        "$prefs read $format$size $key" "git config --file $work/git$size.cfg --get section.$key" >/dev/null
      echo "read $format $size $(median "$work/r.json")" >>"$work/times"
      hyperfine -N --warmup "${warmup[1]}" -r "$n" --export-json "$work/w.json" \
        --prepare "$prefs write $format$size $key other" "$prefs write $format$size $key changed" \
        --prepare "git config --file $work/git$size.cfg section.$key other" "git config --file $work/git$size.cfg section.$key changed" >/dev/null
      echo "write $format $size $(median "$work/w.json")" >>"$work/times"
    done
  done
done
python3 - "$work/times" "${sizes[@]}" <<'PY'
import collections, statistics, sys
rows = collections.defaultdict(list)
for line in open(sys.argv[1]):
    op, fmt, size, p, g = line.split()
    rows[(op, fmt, size)].append((float(p), float(g)))
print(f"{'case':<22}{'prefs ms':>10}{'git ms':>10}{'prefs/git':>11}")
for size in sys.argv[2:]:
    for op in ("read", "write"):
        for fmt in ("xml", "bin"):
            values = rows[(op, fmt, size)]
            p = statistics.median(v[0] for v in values); g = statistics.median(v[1] for v in values)
            print(f"{op + ' ' + fmt + ' ' + size:<22}{p*1e3:>10.2f}{g*1e3:>10.2f}{p/g:>10.2f}x")
PY
