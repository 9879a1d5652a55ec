#!/usr/bin/env bash
# Writers of different suites must not wait for each other: a small write to suite B, timed alone and
# while a write holding suite A's lock for a long time runs (an import of a 100 MB data value into A:
# the value goes to a blob — read, hashed, written and fsynced — inside A's lock). Prints the medians
# of the small write's wall time, alone and during A's write, and the difference (goal: a few ms).
# A small write to A itself during A's write is timed too, to show the lock is really held.
# Not a test: figures only. --smoke: a 1 MB value and a few runs — checks that it runs.
#   Tests/Benchmarks/bench-locks.sh [--smoke]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
if [ "${1:-}" = --smoke ]; then size=1000000 runs=5; else size=100000000 runs=30; fi
. "$root/Tests/Benchmarks/common.sh"
bench_prefs
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export XDG_CONFIG_HOME=$work/config XDG_STATE_HOME=$work/state XDG_DATA_HOME=$work/data XDG_DATA_DIRS=$work/none XDG_CONFIG_DIRS=$work/none
head -c "$size" /dev/urandom | python3 -c '
import plistlib, sys
open(sys.argv[1], "wb").write(plistlib.dumps({"big": sys.stdin.buffer.read()}, fmt=plistlib.FMT_BINARY))' "$work/big.plist"
"$prefs" write A k 0
"$prefs" write B k 0
PREFS=$prefs WORK=$work RUNS=$runs python3 - <<'PY'
import os, statistics, subprocess, time
prefs, work, runs = os.environ["PREFS"], os.environ["WORK"], int(os.environ["RUNS"])
def small(suite, i):
    start = time.perf_counter()
    subprocess.run([prefs, "write", suite, "k", str(i)], check=True)
    return (time.perf_counter() - start) * 1000
alone = [small("B", i) for i in range(runs)]
during, same, held = [], [], []
for i in range(runs):
    subprocess.run([prefs, "delete", "A", "big"], stderr=subprocess.DEVNULL)
    big = subprocess.Popen([prefs, "import", "A", work + "/big.plist"])
    start = time.perf_counter()
    time.sleep(0.005)  # let A's writer take its lock
    during.append(small("B", i))
    if i % 5 == 0:
        same.append(small("A", i))
    big.wait()
    held.append((time.perf_counter() - start) * 1000)
    if big.returncode != 0: raise SystemExit("the import failed")
m = statistics.median
print(f"small write to B alone:             {m(alone):7.2f} ms (median of {runs})")
print(f"small write to B during A's import: {m(during):7.2f} ms  (+{m(during) - m(alone):.2f} ms)")
print(f"small write to A during A's import: {m(same):7.2f} ms  (waits for A's lock; the import takes {m(held):.0f} ms)")
PY
