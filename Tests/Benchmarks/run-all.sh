#!/usr/bin/env bash
# Every benchmark, one after the other: the codecs vs Foundation and CPython, the command vs
# `git config`, external storage vs cp/cat, writers of different suites, the etcd store vs etcdctl. Not tests: they print figures and check nothing.
# --smoke runs each at tiny sizes, only to show that they still build and run (CI does this).
#   Tests/Benchmarks/run-all.sh [--smoke]       (needs python3, git, hyperfine, etcd and etcdctl)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
for bench in bench-codecs bench-vs-git bench-external bench-locks bench-etcd; do
  echo "== $bench ${1:-}"
  start=$SECONDS
  "$here/$bench.sh" "$@"
  echo "== $bench: $((SECONDS - start)) s"
done
