#!/usr/bin/env bash
# Every benchmark, one after the other: start-up in instructions (callgrind), the codecs vs Foundation and CPython, JSON vs CPython's json,
# PrefsCore's cached and uncached reads vs UserDefaults and its observation latency,
# SHA-256 vs OpenSSL, the command vs `git config` and `dconf read`, peak memory, durable writes vs a C
# floor, external storage vs cp/cat, writers of different suites, `prefs lock` hand-offs and cut-offs, the etcd store (its TLS set-up, a stopped member, reads from snapshots) and its watch vs etcdctl. Not
# tests: they print figures and check nothing.
# --smoke runs each at tiny sizes, only to show that they still build and run (CI does this).
#   Tests/Benchmarks/run-all.sh [--smoke]       (needs python3, git, hyperfine, openssl, valgrind, etcd and etcdctl)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
for bench in bench-startup bench-codecs bench-cache bench-json bench-sha256 bench-vs-git bench-vs-dconf bench-memory bench-durable bench-external bench-locks bench-lock-handoff bench-history bench-etcd bench-etcd-tls bench-etcd-endpoints bench-snapshots bench-etcd-watch; do
  echo "== $bench ${1:-}"
  start=$SECONDS
  "$here/$bench.sh" "$@"
  echo "== $bench: $((SECONDS - start)) s"
done
