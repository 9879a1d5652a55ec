#!/usr/bin/env bash
# A setting read per request, as a server does: PrefsCore's typed read of one key of a 50-key suite,
# uncached and with `cachingReads()`, against Foundation's `UserDefaults(suiteName:)` (which keeps
# the suite in memory) in the same process, rounds taking turns; how many reads right after another
# process's write still give the old value; and how long after another process's write returns the
# app's AsyncSequence (`values(of:)`, `changes(of:)`) yields it; how many inotify instances and threads
# a process holds with 0, 1 and many suites observed and cached; how long dropping a cached suite
# takes. Prints the figures and the ratios.
# Not a test: no limits.
# --smoke: a few reads, writes and samples — checks that it runs; the figures mean nothing.
#   Tests/Benchmarks/bench-cache.sh [--smoke]     (builds the package's CacheBenchmark)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
if [ "${1:-}" = --smoke ]; then
  rounds=1 reads=1000 writes=5 samples=3 suites=3 drops=3
else
  rounds=9 reads=200000 writes=300 samples=200 suites=20 drops=50
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Linked dynamically, like CodecBenchmark (it uses Foundation), in a scratch path apart from the static `prefs`.
build=(swift build -c release --scratch-path "$root/.build/bench" --product CacheBenchmark)
(cd "$root" && "${build[@]}" -q)
benchmark=$(cd "$root" && "${build[@]}" --show-bin-path)/CacheBenchmark
mkdir -p "$work/config" "$work/data"
export HOME=$work XDG_CONFIG_HOME=$work/config XDG_DATA_HOME=$work/data XDG_DATA_DIRS=$work/none XDG_CONFIG_DIRS=$work/xdg
{
  "$benchmark" reads "$rounds" "$reads"
  "$benchmark" fresh "$writes"
  "$benchmark" latency "$samples"
  "$benchmark" instances "$suites"
  "$benchmark" drop "$drops"
} >"$work/figures.txt"
python3 - "$work/figures.txt" <<'PY'
import statistics, sys
reads, fresh, latency, instances, drops = {}, {}, {}, [], []
for line in open(sys.argv[1]):
    kind, name, *rest = line.split()
    if kind == "instances": instances.append((int(name), int(rest[0]), int(rest[1])))
    elif kind == "drop": drops.append(int(name) / 1e6)
    elif kind == "reads": reads.setdefault(name, []).append(float(rest[0]))
    elif kind == "fresh": fresh[name] = (int(rest[0]), int(rest[1]))
    elif kind == "latency": latency.setdefault(name, []).append(int(rest[0]) / 1e6)
median = {name: statistics.median(times) for name, times in reads.items()}
peer = median["userdefaults"]
print("one read of one key of a 50-key suite (median of rounds)")
print(f"{'':<16}{'ns/read':>10}{'vs UserDefaults':>17}")
for name in ("prefs-uncached", "prefs-cached", "userdefaults"):
    print(f"{name:<16}{median[name]:>10.0f}{median[name] / peer:>16.2f}x")
print("reads right after another process's write that gave the old value")
for name, (stale, total) in sorted(fresh.items()):
    print(f"{name:<16}{stale:>5} of {total}")
print("another process's write returned -> the app's AsyncSequence yields (ms)")
print(f"{'':<16}{'median':>8}{'p95':>8}{'max':>8}{'samples':>9}")
for name, times in latency.items():
    times.sort()
    p95 = times[min(len(times) - 1, int(round(0.95 * (len(times) - 1))))]
    print(f"{name:<16}{statistics.median(times):>8.2f}{p95:>8.2f}{times[-1]:>8.2f}{len(times):>9}")
print("suites observed (values(of:), started) and cached (cachingReads(), read once) in one process")
print(f"{'suites':<16}{'inotify':>8}{'threads':>9}")
for suites, inotify, threads in instances:
    print(f"{suites:<16}{inotify:>8}{threads:>9}")
drops.sort()
print(f"dropping a cached suite read once (ms): median {statistics.median(drops):.3f}, max {drops[-1]:.3f}, {len(drops)} drops")
PY
