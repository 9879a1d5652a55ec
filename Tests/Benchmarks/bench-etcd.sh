#!/usr/bin/env bash
# The etcd store against etcd's own client on the same local 3-member cluster: one-key read
# (`prefs read S K` vs `etcdctl get`) and one-key write (`prefs write S K -int N` vs `etcdctl put`),
# timed with hyperfine (per-process wall time) in ROUNDS interleaved rounds of 10 runs each, so at
# least 30 runs per command; prints the median of every run with the ratio prefs/etcdctl (goal:
# ≤ 0.25). The same over TLS (`etcds://`, each member also listening on an https port that requires
# client certificates; certificates from Tests/Tools/make-certificates.sh, ECDSA P-256), both clients
# with the same files and a new connection per process (goals: read ≤ 0.35×, write ≤ 0.5×). prefs
# runs with a private XDG_RUNTIME_DIR, as a logged-in user's commands do: it starts with the member
# that answered last and resumes the TLS session the command before kept (bench-etcd-tls.sh shows a
# full handshake beside it). Then the file store, to show that the etcd store cost it nothing: read and write of a
# 10-key suite by this build and, with BEFORE=REV, by the build of git revision REV (BEFORE_BINARY=PATH: that binary), in the same
# rounds (goal: ≤ 1.05× before). Both clusters' members fsync (etcd's default), so writes compare
# durable with durable. Not a test: figures only. --smoke: one round of two runs.
#   Tests/Benchmarks/bench-etcd.sh [ROUNDS | --smoke]    (needs etcd, etcdctl and hyperfine)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
if [ "${1:-}" = --smoke ]; then rounds=1 runs=2; else rounds=${1:-3} runs=10; fi
for tool in etcd etcdctl hyperfine; do
  command -v $tool >/dev/null || { echo "needs $tool (apt-get install etcd-server etcd-client hyperfine)" >&2; exit 1; }
done
. "$root/Tests/Benchmarks/common.sh"
bench_prefs
bench_scratch
bench_before
bench_etcd_cluster
tls_etcdctl="etcdctl --endpoints https://${tls_endpoints//,/,https://} --cacert $certs/ca.pem --cert $certs/client-root.pem --key $certs/client-root.key"
export PREFS_ETCD_CACERT=$certs/ca.pem PREFS_ETCD_CERT=$certs/client-root.pem PREFS_ETCD_KEY=$certs/client-root.key
tls_prefs="$prefs --store etcds://$tls_endpoints/bench"
export ETCDCTL_API=3

export PREFS_STORE="etcd://$endpoints/bench" XDG_CONFIG_HOME=$work/config XDG_STATE_HOME=$work/state XDG_DATA_HOME=$work/data XDG_DATA_DIRS=$work/none XDG_CONFIG_DIRS=$work/none
mkdir -p "$XDG_CONFIG_HOME"
export XDG_RUNTIME_DIR=$work/run
mkdir -m 700 "$XDG_RUNTIME_DIR"
"$prefs" write s k -int 1
etcdctl --endpoints "$endpoints" put plain/k 1 >/dev/null
for i in $(seq 10); do PREFS_STORE= "$prefs" write files "key$i" "value number $i"; done

times() { python3 -c 'import json,sys; [print(" ".join(map(str, r["times"]))) for r in json.load(open(sys.argv[1]))["results"]]' "$1"; }
: >"$work/times"
for round in $(seq "$rounds"); do
  hyperfine -N -w 1 -r "$runs" --export-json "$work/r.json" \
    "$prefs read s k" "etcdctl --endpoints $endpoints get plain/k" >/dev/null
  times "$work/r.json" | paste -d' ' <(printf 'read-prefs\nread-etcdctl\n') - >>"$work/times"
  # Each write changes the value (a --prepare step writes another first), so none is a no-op.
  hyperfine -N -w 1 -r "$runs" --export-json "$work/w.json" \
    --prepare "$prefs write s k -int 0" "$prefs write s k -int 1" \
    --prepare "etcdctl --endpoints $endpoints put plain/k 0" "etcdctl --endpoints $endpoints put plain/k 1" >/dev/null
  times "$work/w.json" | paste -d' ' <(printf 'write-prefs\nwrite-etcdctl\n') - >>"$work/times"
  # The same over TLS.
  hyperfine -N -w 1 -r "$runs" --export-json "$work/r.json" "$tls_prefs read s k" "$tls_etcdctl get plain/k" >/dev/null
  times "$work/r.json" | paste -d' ' <(printf 'tls-read-prefs\ntls-read-etcdctl\n') - >>"$work/times"
  hyperfine -N -w 1 -r "$runs" --export-json "$work/w.json" \
    --prepare "$tls_prefs write s k -int 0" "$tls_prefs write s k -int 1" \
    --prepare "$tls_etcdctl put plain/k 0" "$tls_etcdctl put plain/k 1" >/dev/null
  times "$work/w.json" | paste -d' ' <(printf 'tls-write-prefs\ntls-write-etcdctl\n') - >>"$work/times"
  # The file store: this build, and the one before (PREFS_STORE empty: files).
  commands=("env PREFS_STORE= $prefs read files key5")
  [ -n "$before" ] && commands+=("env PREFS_STORE= $before read files key5")
  hyperfine -N -w 2 -r "$runs" --export-json "$work/f.json" "${commands[@]}" >/dev/null
  times "$work/f.json" | paste -d' ' <(printf 'files-read\nfiles-read-before\n' | sed -n "1,${#commands[@]}p") - >>"$work/times"
  commands=("env PREFS_STORE= $prefs write files key5 changed")
  [ -n "$before" ] && commands+=("env PREFS_STORE= $before write files key5 changed")
  hyperfine -N -w 2 -r "$runs" --prepare "env PREFS_STORE= $prefs write files key5 other" --export-json "$work/f.json" "${commands[@]}" >/dev/null
  times "$work/f.json" | paste -d' ' <(printf 'files-write\nfiles-write-before\n' | sed -n "1,${#commands[@]}p") - >>"$work/times"
done
python3 - "$work/times" <<'PY'
import collections, statistics, sys
runs = collections.defaultdict(list)
for line in open(sys.argv[1]):
    name, *values = line.split()
    runs[name] += map(float, values)
m = {name: statistics.median(values) * 1e3 for name, values in runs.items()}
print(f"{'case':<34}{'ms':>9}{'peer ms':>10}{'ratio':>9}{'runs':>6}")
for tls in ("", "tls-"):
    for op in ("read", "write"):
        p, e = m[f"{tls}{op}-prefs"], m[f"{tls}{op}-etcdctl"]
        name = ("TLS " if tls else "") + "etcd one-key " + op + " vs etcdctl"
        print(f"{name:<34}{p:>9.2f}{e:>10.2f}{p / e:>8.2f}x{len(runs[tls + op + '-prefs']):>6}")
for op in ("read", "write"):
    now = m[f"files-{op}"]
    if f"files-{op}-before" in m:
        b = m[f"files-{op}-before"]
        print(f"{'file store ' + op + ' vs before':<34}{now:>9.2f}{b:>10.2f}{now / b:>8.2f}x{len(runs['files-' + op]):>6}")
    else:
        print(f"{'file store ' + op + ' (BEFORE unset)':<34}{now:>9.2f}")
PY
