#!/usr/bin/env bash
# This host's snapshots of etcd reads, on a local 3-member cluster, timed with hyperfine (per-process
# wall time) in ROUNDS interleaved rounds of 10 runs each, medians printed:
#   - what writing the snapshot costs a one-key read: `prefs read s k` by this build and, with
#     BEFORE=REV (or BEFORE_BINARY=PATH), by a build without snapshots, in the same rounds, for a
#     small suite and for one of KEYS keys whose whole snapshot is on disk (goal: ≤ 1.05× before);
#   - `read s k --max-stale 60` (answered from the snapshot, the cluster not contacted) against the
#     file store's `read files key5` (goal: ≤ 1.1×) and against the one-key read of etcd.
# Not a test: figures only. --smoke: one round of two runs.
#   [BEFORE=REV | BEFORE_BINARY=PATH] Tests/Benchmarks/bench-snapshots.sh [ROUNDS | --smoke]
#   (needs etcd, etcdctl and hyperfine)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
if [ "${1:-}" = --smoke ]; then rounds=1 runs=2 keys=100; else rounds=${1:-3} runs=10 keys=${KEYS:-1000}; fi
for tool in etcd etcdctl hyperfine; do
  command -v $tool >/dev/null || { echo "needs $tool (apt-get install etcd-server etcd-client hyperfine)" >&2; exit 1; }
done
. "$root/Tests/Benchmarks/common.sh"
bench_prefs
bench_scratch
bench_before
bench_etcd_cluster

export PREFS_STORE="etcd://$endpoints/bench" XDG_CONFIG_HOME=$work/config XDG_STATE_HOME=$work/state XDG_DATA_HOME=$work/data XDG_DATA_DIRS=$work/none \
  XDG_CONFIG_DIRS=$work/none XDG_CACHE_HOME=$work/cache
mkdir -p "$XDG_CONFIG_HOME"
"$prefs" write s k -int 1
python3 -c 'import json, sys; print(json.dumps({f"key{i}": f"value number {i}" for i in range(int(sys.argv[1]))}))' "$keys" |
  "$prefs" import big -
"$prefs" read big >/dev/null        # its whole snapshot, which each one-key read then checks
"$prefs" read s k >/dev/null
for i in $(seq 10); do PREFS_STORE= "$prefs" write files "key$i" "value number $i"; done

times() { python3 -c 'import json,sys; [print(" ".join(map(str, r["times"]))) for r in json.load(open(sys.argv[1]))["results"]]' "$1"; }
: >"$work/times"
for round in $(seq "$rounds"); do
  commands=("$prefs read s k" "$prefs read big key5")
  names=(etcd-read big-read)
  if [ -n "$before" ]; then commands+=("$before read s k" "$before read big key5"); names+=(etcd-read-before big-read-before); fi
  commands+=("$prefs read s k --max-stale 60" "env PREFS_STORE= $prefs read files key5")
  names+=(max-stale files-read)
  hyperfine -N -w 2 -r "$runs" --export-json "$work/r.json" "${commands[@]}" >/dev/null
  times "$work/r.json" | paste -d' ' <(printf '%s\n' "${names[@]}") - >>"$work/times"
done
python3 - "$work/times" "$keys" <<'PY'
import collections, statistics, sys
runs = collections.defaultdict(list)
for line in open(sys.argv[1]):
    name, *values = line.split()
    runs[name] += map(float, values)
m = {name: statistics.median(values) * 1e3 for name, values in runs.items()}
print(f"{'case':<48}{'ms':>9}{'vs ms':>9}{'ratio':>9}{'runs':>6}")
def row(name, a, b=None):
    if b is None or b not in m:
        print(f"{name:<48}{m[a]:>9.2f}{'':>9}{'':>9}{len(runs[a]):>6}")
    else:
        print(f"{name:<48}{m[a]:>9.2f}{m[b]:>9.2f}{m[a] / m[b]:>8.2f}x{len(runs[a]):>6}")
row("etcd one-key read vs before (small suite)", "etcd-read", "etcd-read-before")
row(f"etcd one-key read vs before ({sys.argv[2]}-key suite)", "big-read", "big-read-before")
row("read --max-stale 60 vs file store read", "max-stale", "files-read")
row("read --max-stale 60 vs etcd one-key read", "max-stale", "etcd-read")
PY
