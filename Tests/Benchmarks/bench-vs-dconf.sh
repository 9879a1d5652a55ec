#!/usr/bin/env bash
# Reading one key of a 100k-key suite vs `dconf read` of the same key in a compiled dconf database
# holding the same 100k keys (a GVDB hash table, mmapped: the fastest lookup there is). Goals: the XML
# suite ≤ 1.0× dconf, the binary suite ≤ 0.5×. Printed beside them: `prefs read` of a one-key suite
# (what starting prefs costs: the floor of any prefs read) and `git config --get` of a 10-key file (the
# cost of starting a small C program). Medians of every run, ROUNDS hyperfine rounds with
# the commands interleaved. Not a test: figures only.
#
# The database is built with `dconf compile` from a keyfile, and read through a profile that names
# it (`file-db:PATH`, DCONF_PROFILE). Its keys sit in directories of 1000 (/bench/d042/key0042000):
# `dconf compile` links each key into its directory's list by walking that list, so 100k keys in one
# directory take it minutes; a lookup hashes the whole path either way.
# --smoke: 1000 keys, one round of two runs — checks that it runs; the figures mean nothing.
#   Tests/Benchmarks/bench-vs-dconf.sh [ROUNDS | --smoke]    (installs dconf-cli and hyperfine if missing)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/Tests/Benchmarks/common.sh"
if [ "${1:-}" = --smoke ]; then rounds=1 keys=1000 runs=2 warmup=0; else rounds=${1:-5} keys=100000 runs=30 warmup=3; fi
bench_need hyperfine:hyperfine dconf:dconf-cli git:git python3:python3
bench_prefs
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export XDG_CONFIG_HOME=$work/config XDG_STATE_HOME=$work/state XDG_DATA_HOME=$work/data XDG_DATA_DIRS=$work/none XDG_CONFIG_DIRS=$work/none
mkdir -p "$XDG_CONFIG_HOME" "$work/keyfiles"
python3 - "$work" "$keys" <<'PY'
import plistlib, sys
work, n = sys.argv[1], int(sys.argv[2])
doc = {f"key{i:07d}": f"value number {i}" for i in range(n)}
open(f"{work}/config/xml.plist", "wb").write(plistlib.dumps(doc, fmt=plistlib.FMT_XML))
open(f"{work}/config/bin.plist", "wb").write(plistlib.dumps(doc, fmt=plistlib.FMT_BINARY))
with open(f"{work}/keyfiles/bench", "w") as f:
    for start in range(0, n, 1000):
        f.write(f"[bench/d{start // 1000:03d}]\n")
        f.writelines(f"key{i:07d}='value number {i}'\n" for i in range(start, min(n, start + 1000)))
with open(f"{work}/small.cfg", "w") as f:
    f.write("[section]\n" + "".join(f"\tkey{i:07d} = value number {i}\n" for i in range(10)))
PY
dconf compile "$work/db" "$work/keyfiles"
echo "file-db:$work/db" >"$work/profile"
export DCONF_PROFILE=$work/profile
i=$((keys / 2))
key=$(printf 'key%07d' "$i")
dpath=$(printf '/bench/d%03d/%s' $((i / 1000)) "$key")
[ "$(dconf read "$dpath")" = "'value number $i'" ] || { echo "dconf read $dpath: wrong value" >&2; exit 1; }
[ "$("$prefs" read xml "$key")" = "value number $i" ] && [ "$("$prefs" read bin "$key")" = "value number $i" ]
"$prefs" write tiny "$key" "value number $i"
echo "files: XML $(stat -c %s "$XDG_CONFIG_HOME/xml.plist") B, binary $(stat -c %s "$XDG_CONFIG_HOME/bin.plist") B, dconf db $(stat -c %s "$work/db") B"
bench_rounds "$rounds" "$runs" "$warmup" "$work/times" \
  "$prefs read xml $key" "$prefs read bin $key" "dconf read $dpath" "git config --file $work/small.cfg --get section.key0000005" "$prefs read tiny $key"
read -r xml bin dconf git tiny < <(bench_medians "$work/times")
echo "one-key read, $keys keys (median ms): prefs XML $xml, prefs binary $bin, dconf read $dconf; git config --get (10 keys) $git, prefs read of a 1-key suite $tiny"
echo "prefs XML / dconf = $(bench_ratio "$xml" "$dconf")x (goal <= 1.0), prefs binary / dconf = $(bench_ratio "$bin" "$dconf")x (goal <= 0.5); the 1-key floor / dconf = $(bench_ratio "$tiny" "$dconf")x"
