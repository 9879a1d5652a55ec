#!/usr/bin/env bash
# What keeping a history costs (`prefs history`, `diff`, `rollback`): a one-key write with the
# history on (PREFS_HISTORY=10, the default) against the same write with it off (0), on files and
# on a 3-member etcd cluster on loopback, in interleaved hyperfine rounds (goal: ≤ 1.15× each); the
# wall time of `prefs history` of 10 versions on etcd (goal: ≤ 50 ms); and the bytes a history of
# 10 one-key versions keeps beside the suite's own (goal: ≤ 10 × the suite). Not a test: figures only.
#   Tests/Benchmarks/bench-history.sh [ROUNDS | --smoke]    (needs etcd, etcdctl, hyperfine)
# --smoke: one round of a few runs.
set -euo pipefail
[ -n "${BENCH_TIMED:-}" ] || BENCH_TIMED=1 exec timeout -k 10 900 "$0" "$@"
root=$(cd "$(dirname "$0")/../.." && pwd)
if [ "${1:-}" = --smoke ]; then rounds=1 runs=3; else rounds=${1:-5} runs=20; fi
for tool in etcd etcdctl hyperfine; do
  command -v $tool >/dev/null || { echo "needs $tool (apt-get install etcd-server etcd-client hyperfine)" >&2; exit 1; }
done
. "$root/Tests/Benchmarks/common.sh"
bench_prefs
bench_scratch
export HOME=$work XDG_CONFIG_HOME=$work/config XDG_DATA_HOME=$work/data XDG_STATE_HOME=$work/state XDG_CACHE_HOME=$work/cache \
  XDG_RUNTIME_DIR=$work/run XDG_DATA_DIRS=$work/none XDG_CONFIG_DIRS=$work/none
mkdir -p "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"
bench_etcd_cluster
store="etcd://$endpoints/bench"

# A suite of 20 keys, with 10 versions already kept, in each store.
for url in "" "$store"; do
  for i in $(seq 20); do PREFS_STORE=$url "$prefs" write app "key$i" "value number $i" ; done
  PREFS_STORE=$url "$prefs" write app key1 -int 0
done

out=$work/times
# Every run changes the value (-int-add): hyperfine runs one command several times in a row, and a
# write of the value already stored writes nothing.
bench_rounds "$rounds" "$runs" 2 "$out" \
  "env PREFS_HISTORY=0 $prefs write app key1 -int-add 1" "env PREFS_HISTORY=10 $prefs write app key1 -int-add 1" \
  "env PREFS_HISTORY=0 PREFS_STORE=$store $prefs write app key1 -int-add 1" "env PREFS_HISTORY=10 PREFS_STORE=$store $prefs write app key1 -int-add 1" \
  "env PREFS_STORE=$store $prefs history app"
read -r files_off files_on etcd_off etcd_on history <<<"$(bench_medians "$out")"

# Storage: the history of 10 one-key versions beside the suite (files: the suite's size and its history's log, as
# the runs leave it: the log holds up to 10 versions beyond the 10 kept before a change rewrites it; etcd: the bytes
# of the keys and values under each prefix).
suite_file=$(stat -c %s "$XDG_CONFIG_HOME/app.plist")
history_file=$(cat "$XDG_STATE_HOME"/prefs/history/app/* | wc -c)
etcd_bytes() { ETCDCTL_API=3 etcdctl --endpoints "$endpoints" get --prefix "$1" -w json | python3 -c '
import base64, json, sys
print(sum(len(base64.b64decode(kv["key"])) + len(base64.b64decode(kv.get("value", ""))) for kv in json.load(sys.stdin).get("kvs", [])))'; }
suite_etcd=$(etcd_bytes bench/app/)
history_etcd=$(etcd_bytes bench/.history/app/)
versions=$(PREFS_STORE=$store "$prefs" history app | wc -l)

echo "case                                     ms   no history    ratio"
printf "one-key write, files               %7.2f   %10.2f    %sx\n" "$files_on" "$files_off" "$(bench_ratio "$files_on" "$files_off")"
printf "one-key write, etcd (3 members)    %7.2f   %10.2f    %sx\n" "$etcd_on" "$etcd_off" "$(bench_ratio "$etcd_on" "$etcd_off")"
printf "history of %s versions, etcd        %7.2f   (goal: <= 50 ms)\n" "$versions" "$history"
echo
echo "storage (bytes)      suite    history of $versions   history/suite"
printf "files             %7d   %12d   %.2f\n" "$suite_file" "$history_file" "$(python3 -c "print($history_file / $suite_file)")"
printf "etcd              %7d   %12d   %.2f\n" "$suite_etcd" "$history_etcd" "$(python3 -c "print($history_etcd / $suite_etcd)")"
