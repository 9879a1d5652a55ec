#!/usr/bin/env bash
# Peak memory (maximum resident set, from wait4, through Tools/peak-rss.c built here with gcc) of a one-key read and a one-key write of a suite of
# 1M string keys, XML and binary, beside `git config` on the same data. Goals: a read ≤ 16 MB whatever
# the suite's size; a write ≤ 1.5× the file's size. Then `read S K` of a 100 MB data value (kept in
# external storage, printed in hex): goal ≤ 16 MB. Each figure is the median of RUNS runs. Every
# write changes the value (it alternates between two). Not a test: figures only.
# --smoke: 1000 keys and a 1 MB value, two runs — checks that it runs; the figures mean nothing.
#   Tests/Benchmarks/bench-memory.sh [RUNS | --smoke]     (installs gcc and git if missing)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/Tests/Benchmarks/common.sh"
if [ "${1:-}" = --smoke ]; then keys=1000 runs=2 size=1000000; else keys=1000000 runs=${1:-5} size=100000000; fi
bench_need gcc:gcc git:git python3:python3
bench_prefs
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
gcc -O2 -o "$work/peak-rss" "$root/Tests/Benchmarks/Tools/peak-rss.c"
export XDG_CONFIG_HOME=$work/config XDG_STATE_HOME=$work/state XDG_DATA_HOME=$work/data XDG_DATA_DIRS=$work/none XDG_CONFIG_DIRS=$work/none
mkdir -p "$XDG_CONFIG_HOME"
python3 - "$work" "$keys" <<'PY'
import plistlib, sys
work, n = sys.argv[1], int(sys.argv[2])
doc = {f"key{i:07d}": f"value number {i}" for i in range(n)}
open(f"{work}/config/xml.plist", "wb").write(plistlib.dumps(doc, fmt=plistlib.FMT_XML))
open(f"{work}/config/bin.plist", "wb").write(plistlib.dumps(doc, fmt=plistlib.FMT_BINARY))
with open(f"{work}/git.cfg", "w") as f:
    f.write("[section]\n" + "".join(f"\tkey{i:07d} = value number {i}\n" for i in range(n)))
PY
head -c "$size" /dev/urandom >"$work/blob"
"$prefs" write large value -data @"$work/blob"
PREFS=$prefs WORK=$work KEYS=$keys RUNS=$runs SIZE=$size python3 - <<'PY'
import os, statistics, subprocess
prefs, work, n, runs = os.environ["PREFS"], os.environ["WORK"], int(os.environ["KEYS"]), int(os.environ["RUNS"])
key = f"key{n // 2:07d}"
def peak(argv):
    """Peak resident set of one run, in MB (stdout discarded, failure fatal)."""
    return int(subprocess.run([f"{work}/peak-rss"] + argv, check=True, capture_output=True, text=True).stdout) / 1024
def median(make):
    return statistics.median(peak(make(r)) for r in range(runs))
size = {f: os.path.getsize(f"{work}/config/{f}.plist") / 1e6 for f in ("xml", "bin")}
size["git"] = os.path.getsize(f"{work}/git.cfg") / 1e6
cfg = f"{work}/git.cfg"
read = {f: median(lambda r: [prefs, "read", f, key]) for f in ("xml", "bin")}
read["git"] = median(lambda r: ["git", "config", "--file", cfg, "--get", "section." + key])
write = {f: median(lambda r: [prefs, "write", f, key, f"changed {r % 2}"]) for f in ("xml", "bin")}
write["git"] = median(lambda r: ["git", "config", "--file", cfg, "section." + key, f"changed {r % 2}"])
print(f"{n} keys; file sizes: XML {size['xml']:.1f} MB, binary {size['bin']:.1f} MB, git config {size['git']:.1f} MB")
print(f"{'peak RSS (median)':<26}{'prefs XML':>11}{'prefs binary':>14}{'git config':>12}")
print(f"{'one-key read, MB':<26}{read['xml']:>11.1f}{read['bin']:>14.1f}{read['git']:>12.1f}   (goal: prefs <= 16 MB)")
print(f"{'one-key write, MB':<26}{write['xml']:>11.1f}{write['bin']:>14.1f}{write['git']:>12.1f}")
large = median(lambda r: [prefs, "read", "large", "value"])
print(f"{'write / file size':<26}{write['xml'] / size['xml']:>10.2f}x{write['bin'] / size['bin']:>13.2f}x{write['git'] / size['git']:>11.2f}x   (goal: prefs <= 1.5x)")
print(f"read S K of a {int(os.environ['SIZE']) / 1e6:.0f} MB data value (hex): {large:.1f} MB peak   (goal: <= 16 MB)")
PY
