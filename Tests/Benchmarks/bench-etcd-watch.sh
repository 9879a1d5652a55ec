#!/usr/bin/env bash
# What a `prefs watch` on the etcd store costs the cluster and the network, against etcd's own
# `etcdctl watch`, on a local 3-member cluster (loopback only). Bytes are what each watcher process
# has received on its TCP connections (`ss -tinp`, bytes_received), CPU time is the etcd members'
# (utime + stime from /proc/PID/stat). Two cases:
#   1. one watcher of suite `watched` while a value of SIZE MiB is written to another suite (in
#      1 MiB chunks): `prefs watch watched`, `etcdctl watch --prefix PREFIX/` (one watch on the
#      whole prefix: what prefs did before) and `etcdctl watch PREFIX/.suites/watched` (the floor);
#   2. COUNT watchers on COUNT suites, then one write to one suite: bytes delivered to all of them
#      and the members' CPU over the same window (WINDOW s), with no write (idle) and with one;
#      for the write, the events the members sent to watchers (etcd_debugging_mvcc_events_total,
#      summed over the members: the written suite's watcher needs 1, the others 0) and the bytes
#      received by the written suite's watcher and by the COUNT-1 others;
#      `prefs watch sI` against `etcdctl watch --prefix PREFIX2/sI/`, each on its own prefix;
#      prefs with the default PREFS_ETCD_TIMEOUT (5 s: a check of its member every 2.5 s of quiet,
#      whose answers are bytes too) and with 3600 (no check in the window: what the watch costs).
# Not a test: figures only. Stops by itself and kills everything it started.
#   Tests/Benchmarks/bench-etcd-watch.sh [--smoke]    (needs etcd, etcdctl and python3; installs iproute2 for ss)
# --smoke: SIZE 1, COUNT 5, WINDOW 1 (CI runs it so). Else SIZE 20, COUNT 200, WINDOW 3.
set -euo pipefail
# Everything ends after 10 minutes at most, whatever happens (TERM: the EXIT trap below cleans up).
[ -n "${BENCH_TIMED:-}" ] || BENCH_TIMED=1 exec timeout -k 10 600 "$0" "$@"
root=$(cd "$(dirname "$0")/../.." && pwd)
if [ "${1:-}" = --smoke ]; then size=1 count=5 window=1; else size=${SIZE:-20} count=${COUNT:-200} window=${WINDOW:-3}; fi
for tool in etcd etcdctl python3; do
  command -v $tool >/dev/null || { echo "needs $tool (apt-get install etcd-server etcd-client python3)" >&2; exit 1; }
done
. "$root/Tests/Benchmarks/common.sh"
bench_need ss:iproute2
bench_prefs
work=$(mktemp -d)
data=$(mktemp -d -p "$( [ -d /dev/shm ] && echo /dev/shm || echo /tmp)")
members=() watchers=()
stop_watchers() {
  for pid in "${watchers[@]}"; do kill -9 "$pid" 2>/dev/null || true; done
  for pid in "${watchers[@]}"; do wait "$pid" 2>/dev/null || true; done
  watchers=()
}
cleanup() {
  stop_watchers
  for pid in "${members[@]}"; do { kill -9 "$pid" && wait "$pid"; } 2>/dev/null || true; done
  rm -rf "$work" "$data"
}
trap cleanup EXIT
trap 'exit 1' TERM INT

read -r -a ports < <(bench_free_ports 6)
cluster=""
for i in 0 1 2; do cluster+="${cluster:+,}m$i=http://127.0.0.1:${ports[$((3 + i))]}"; done
for i in 0 1 2; do
  etcd --name "m$i" --data-dir "$data/m$i" --listen-client-urls "http://127.0.0.1:${ports[$i]}" \
    --advertise-client-urls "http://127.0.0.1:${ports[$i]}" --listen-peer-urls "http://127.0.0.1:${ports[$((3 + i))]}" \
    --initial-advertise-peer-urls "http://127.0.0.1:${ports[$((3 + i))]}" --initial-cluster "$cluster" \
    --initial-cluster-state new --initial-cluster-token "watch$$" --quota-backend-bytes 8589934592 >"$work/m$i.log" 2>&1 &
  members+=($!)
done
endpoints="127.0.0.1:${ports[0]},127.0.0.1:${ports[1]},127.0.0.1:${ports[2]}"
export ETCDCTL_API=3
for _ in $(seq 100); do etcdctl --endpoints "$endpoints" endpoint health >/dev/null 2>&1 && break; sleep 0.1; done
etcdctl --endpoints "$endpoints" endpoint health >/dev/null 2>&1 || { cat "$work"/m*.log >&2; exit 1; }
export PREFS_STORE="etcd://$endpoints/bench" XDG_CACHE_HOME=$work/cache XDG_CONFIG_HOME=$work/config XDG_STATE_HOME=$work/state XDG_DATA_HOME=$work/data XDG_DATA_DIRS=$work/none XDG_CONFIG_DIRS=$work/none
mkdir -p "$XDG_CONFIG_HOME"

# received PID... — the bytes those processes' open TCP connections have received.
received() {
  ss -tinpH | python3 -c '
import re, sys
pids = set(sys.argv[1:]); total = 0; ours = False
for line in sys.stdin:
    if not line[0].isspace():
        ours = any(p in pids for p in re.findall(r"pid=(\d+),", line))
    elif ours:
        m = re.search(r"bytes_received:(\d+)", line)
        total += int(m.group(1)) if m else 0
print(total)' "$@"
}
# cpu — the members' CPU time so far, in ms.
cpu() {
  python3 -c '
import os, sys
tick = os.sysconf("SC_CLK_TCK")
# After the ")" that ends the command name: state is field 3, utime 14 and stime 15.
fields = [open(f"/proc/{p}/stat").read().rsplit(")", 1)[1].split() for p in sys.argv[1:]]
print(sum((int(f[11]) + int(f[12])) * 1000 // tick for f in fields))' "${members[@]}"
}
# wait_for FILE TEXT — until FILE holds TEXT (30 s at most).
wait_for() {
  for _ in $(seq 600); do grep -q -- "$2" "$1" 2>/dev/null && return 0; sleep 0.05; done
  echo "timed out waiting for '$2' in $1" >&2; return 1
}
# events — the events the members have sent to watchers so far.
events() {
  python3 -c '
import sys, urllib.request
total = 0
for port in sys.argv[1:]:
    for line in urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics").read().decode().splitlines():
        if line.startswith("etcd_debugging_mvcc_events_total "):
            total += int(float(line.split()[1]))
print(total)' "${ports[@]:0:3}"
}
mib() { python3 -c 'import sys; print("%.2f MiB" % (int(sys.argv[1]) / 1048576))' "$1"; }
kib() { python3 -c 'import sys; print("%.1f KiB" % (int(sys.argv[1]) / 1024))' "$1"; }

echo "== 1. one watcher of suite 'watched' while $size MiB are written to another suite"
"$prefs" write watched n -int 0
"$prefs" watch watched n --initial >"$work/ours.out" 2>&1 & watchers+=($!); ours=$!
etcdctl --endpoints "$endpoints" watch --prefix bench/ >"$work/prefix.out" 2>&1 & watchers+=($!); prefix=$!
# BEFORE_BINARY=PATH: an older prefs watches too (one built before this benchmark: it watched the whole prefix).
before=""
if [ -n "${BEFORE_BINARY:-}" ]; then "$BEFORE_BINARY" watch watched n --initial >"$work/before.out" 2>&1 & watchers+=($!); before=$!; fi
etcdctl --endpoints "$endpoints" watch bench/.suites/watched >"$work/key.out" 2>&1 & watchers+=($!); key=$!
# Ready once each has seen a write of the watched suite (etcdctl says nothing before).
wait_for "$work/ours.out" "n (absent) -> 0"; sleep 1
"$prefs" write watched n -int 1
[ -z "$before" ] || wait_for "$work/before.out" "n 0 -> 1"
wait_for "$work/ours.out" "n 0 -> 1"; wait_for "$work/prefix.out" "bench/.suites/watched"; wait_for "$work/key.out" "bench/.suites/watched"
b_before=$([ -z "$before" ] || received $before) b_ours=$(received $ours) b_prefix=$(received $prefix) b_key=$(received $key)
python3 -c 'import sys; sys.stdout.write("{\"big\": \"" + "x" * (int(sys.argv[1]) << 20) + "\"}")' "$size" >"$work/big.json"
"$prefs" import other "$work/big.json"
# Then a change the watchers see: once they have it, they have had everything before it.
: >"$work/key.out"
"$prefs" write watched n -int 2
[ -z "$before" ] || wait_for "$work/before.out" "n 1 -> 2"
wait_for "$work/ours.out" "n 1 -> 2"; wait_for "$work/key.out" "bench/.suites/watched"; wait_for "$work/prefix.out" "bench/.suites/watched"
sleep 0.5
printf '%-52s %14s\n' "watcher" "received"
printf '%-52s %14s\n' "prefs watch watched n" "$(kib $(( $(received $ours) - b_ours )))"
[ -z "$before" ] || printf '%-52s %14s\n' "BEFORE_BINARY watch watched n" "$(mib $(( $(received $before) - b_before )))"
printf '%-52s %14s\n' "etcdctl watch --prefix bench/ (the whole prefix)" "$(mib $(( $(received $prefix) - b_prefix )))"
printf '%-52s %14s\n' "etcdctl watch bench/.suites/watched (one key)" "$(kib $(( $(received $key) - b_key )))"
stop_watchers

echo "== 2. $count watchers on $count suites, one write to one suite (window $window s)"
# in_batches COMMAND... — COMMAND with each suite number appended, 20 at a time.
in_batches() {
  local batch=() i
  for i in $(seq "$count"); do
    "$@" "$i" >/dev/null & batch+=($!)
    if [ ${#batch[@]} -eq 20 ] || [ "$i" -eq "$count" ]; then wait "${batch[@]}"; batch=(); fi
  done
}
write_suite() { "$prefs" write "s$1" k -int 0; }
in_batches write_suite
# measure NAME RELATED WRITE... — bytes all watchers received and the members' CPU over the
# window, idle then with one write (run as the window starts); for the write, the events sent to
# watchers and the bytes received by the watcher RELATED (a PID: the written suite's) and the others.
measure() {
  local name=$1 related=$2; shift 2
  sleep 1
  local b0 c0 b1 c1 b2 c2 e1 e2 r1 r2
  b0=$(received "${watchers[@]}") c0=$(cpu); sleep "$window"
  b1=$(received "${watchers[@]}") c1=$(cpu) e1=$(events) r1=$(received "$related")
  "$@" >/dev/null; sleep "$window"
  b2=$(received "${watchers[@]}") c2=$(cpu) e2=$(events) r2=$(received "$related")
  printf '%-44s %10s %8s %12s %8s %7s %11s %13s\n' "$name" "$(kib $((b1 - b0)))" "$((c1 - c0)) ms" "$(kib $((b2 - b1)))" \
    "$((c2 - c1)) ms" "$((e2 - e1))" "$((r2 - r1)) B" "$(( (b2 - b1) - (r2 - r1) )) B"
}
printf '%-44s %10s %8s %12s %8s %7s %11s %13s\n' "$count watchers" "idle bytes" "idle CPU" "1 write bytes" "CPU" "events" "its watcher" "$((count - 1)) others"
# prefs_watchers TIMEOUT VALUE — COUNT `prefs watch sI k` with PREFS_ETCD_TIMEOUT=TIMEOUT (each asks
# its member whether it still answers every TIMEOUT/2 s of quiet), measured with a write of VALUE.
prefs_watchers() {
  local i
  for i in $(seq "$count"); do PREFS_ETCD_TIMEOUT=$1 "$prefs" watch "s$i" k --initial >"$work/w$i.out" 2>&1 & watchers+=($!); done
  # Each has read its suite once it prints the value (its watch starts from there).
  for i in $(seq "$count"); do wait_for "$work/w$i.out" "k (absent) -> "; done
  measure "prefs watch sI k, PREFS_ETCD_TIMEOUT=$1" "${watchers[$((count - 1))]}" "$prefs" write "s$count" k -int "$2"
  wait_for "$work/w$count.out" " -> $2"
  stop_watchers
}
prefs_watchers 5 1
# The same without a check in the window: what the watch itself costs.
prefs_watchers 3600 2
for i in $(seq "$count"); do etcdctl --endpoints "$endpoints" watch --prefix "bench2/s$i/" >"$work/e$i.out" 2>&1 & watchers+=($!); done
# Each is watching once it prints a write of its prefix.
sleep 1
put_key() { etcdctl --endpoints "$endpoints" put "bench2/s$1/k" 0; }
in_batches put_key
for i in $(seq "$count"); do wait_for "$work/e$i.out" "bench2/s$i/k"; done
measure "etcdctl watch --prefix bench2/sI/" "${watchers[$((count - 1))]}" etcdctl --endpoints "$endpoints" put "bench2/s$count/k" 2
wait_for "$work/e$count.out" "bench2/s$count/k"
stop_watchers
