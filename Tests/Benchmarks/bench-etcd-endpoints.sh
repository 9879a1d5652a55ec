#!/usr/bin/env bash
# What a member that stops answering costs each new command: a local 3-member cluster (plain text,
# and TLS with client certificates), a follower stopped with SIGSTOP (its kernel still takes
# connections; nothing answers) and listed first in the URL. Per-command wall time (hyperfine,
# medians of ROUNDS interleaved rounds) of a one-key read, `prefs read S K`:
#   - all members healthy, with `XDG_RUNTIME_DIR` (a private directory) and without;
#   - the first endpoint stopped, with `XDG_RUNTIME_DIR`: every command after the first finds the
#     member's failure remembered there and starts with another (goal: ≤ 300 ms);
#   - the first endpoint stopped, without it: each command starts the next endpoint beside the
#     stopped one after EtcdClient.hedgeDelay (150 ms);
#   - with BEFORE=REV (built in a scratch worktree) or BEFORE_BINARY=PATH, that build too, healthy
#     and stopped (before the hedge and the health file it waited a third of PREFS_ETCD_TIMEOUT).
# Not a test: figures only. --smoke: one round of two runs.
#   Tests/Benchmarks/bench-etcd-endpoints.sh [ROUNDS | --smoke]    (needs etcd, etcdctl, openssl and hyperfine)
set -euo pipefail
[ -n "${BENCH_TIMED:-}" ] || BENCH_TIMED=1 exec timeout -k 10 1200 "$0" "$@"
root=$(cd "$(dirname "$0")/../.." && pwd)
if [ "${1:-}" = --smoke ]; then rounds=1 runs=2; else rounds=${1:-3} runs=10; fi
for tool in etcd etcdctl openssl hyperfine; do
  command -v $tool >/dev/null || { echo "needs $tool (apt-get install etcd-server etcd-client openssl hyperfine)" >&2; exit 1; }
done
. "$root/Tests/Benchmarks/common.sh"
bench_prefs
bench_scratch
bench_before
bench_etcd_cluster
export ETCDCTL_API=3

# A follower first in the URL (a stopped leader would hold every read until an election).
leader=$(etcdctl --endpoints "$endpoints" endpoint status -w json | python3 -c '
import json, sys
for i, s in enumerate(json.load(sys.stdin)):
    if s["Status"]["leader"] == s["Status"]["header"]["member_id"]: print(i)')
first=$(((leader + 1) % 3))
order=("$first" $(((first + 1) % 3)) $(((first + 2) % 3)))
plain="etcd://127.0.0.1:${plain_ports[${order[0]}]},127.0.0.1:${plain_ports[${order[1]}]},127.0.0.1:${plain_ports[${order[2]}]}/bench"
tls="etcds://127.0.0.1:${tls_ports[${order[0]}]},127.0.0.1:${tls_ports[${order[1]}]},127.0.0.1:${tls_ports[${order[2]}]}/bench"
export XDG_CONFIG_HOME=$work/config XDG_STATE_HOME=$work/state XDG_DATA_HOME=$work/data XDG_DATA_DIRS=$work/none XDG_CONFIG_DIRS=$work/none
export PREFS_ETCD_CACERT=$certs/ca.pem PREFS_ETCD_CERT=$certs/client-root.pem PREFS_ETCD_KEY=$certs/client-root.key
mkdir -p "$XDG_CONFIG_HOME" && mkdir -m 700 "$work/run"
unset XDG_RUNTIME_DIR
PREFS_STORE=$plain "$prefs" write s k -int 1

# read STORE BINARY [RUNTIME]: the command hyperfine times.
read_with() { echo "env PREFS_STORE=$1 ${3:+XDG_RUNTIME_DIR=$3} $2 read s k"; }
# measure LABEL... -- COMMAND...: medians, one line per command.
measure() {
  local labels=() commands=()
  while [ "$1" != -- ]; do labels+=("$1"); shift; done
  shift
  commands=("$@")
  : >"$work/times"
  bench_rounds "$rounds" "$runs" 1 "$work/times" "${commands[@]}"
  read -r -a medians < <(bench_medians "$work/times")
  for i in "${!labels[@]}"; do printf '%-58s%10.1f\n' "${labels[$i]}" "${medians[$i]}"; done
}
printf '%-58s%10s\n' "one-key read, a new process each" "ms"
labels=("healthy, XDG_RUNTIME_DIR" "healthy, no XDG_RUNTIME_DIR") commands=("$(read_with "$plain" "$prefs" "$work/run")" "$(read_with "$plain" "$prefs")")
[ -n "$before" ] && labels+=("healthy, build before") commands+=("$(read_with "$plain" "$before")")
measure "${labels[@]}" -- "${commands[@]}"

kill -STOP "${member_pids[$first]}"
# The first command after the stop learns it (not timed), then each after it uses what it learnt.
PREFS_STORE=$plain XDG_RUNTIME_DIR=$work/run "$prefs" read s k >/dev/null
PREFS_STORE=$tls XDG_RUNTIME_DIR=$work/run "$prefs" read s k >/dev/null
labels=("first endpoint stopped, XDG_RUNTIME_DIR (goal 300)" "first endpoint stopped, no XDG_RUNTIME_DIR"
  "TLS, first endpoint stopped, XDG_RUNTIME_DIR" "TLS, first endpoint stopped, no XDG_RUNTIME_DIR")
commands=("$(read_with "$plain" "$prefs" "$work/run")" "$(read_with "$plain" "$prefs")" "$(read_with "$tls" "$prefs" "$work/run")"
  "$(read_with "$tls" "$prefs")")
if [ -n "$before" ]; then
  labels+=("first endpoint stopped, build before" "TLS, first endpoint stopped, build before")
  commands+=("$(read_with "$plain" "$before")" "$(read_with "$tls" "$before")")
fi
measure "${labels[@]}" -- "${commands[@]}"
kill -CONT "${member_pids[$first]}"
