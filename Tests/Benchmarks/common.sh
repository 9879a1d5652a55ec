# Sourced by the benchmark scripts: the binary to time, tools, and medians of interleaved runs.
# PREFS_BENCH_BINARY=PATH times that prefs instead of building the static release binary (to print a
# "before" figure from an older build with the same script).

# The README's release build: static, with a section per function and per variable so that lld can
# lay them out in the order Tests/Benchmarks/startup.order gives (Package.swift).
release_build=(swift build -q -c release --product prefs -Xswiftc -static-executable
  -Xswiftc -Xfrontend -Xswiftc -function-sections -Xcc -ffunction-sections -Xcc -fdata-sections)

# Sets $prefs: the static release binary, built unless PREFS_BENCH_BINARY names one, and timed as
# installed — a copy, as the README's install block makes (`git` and `dconf` are installed files too).
# The linker's own output file starts about 0.4 ms slower on this machine's kernel, a matter of how
# the page cache holds a file the linker wrote, not of the program: a fresh `cp` of the same bytes
# starts as fast as an installed one.
bench_prefs() {
  if [ -n "${PREFS_BENCH_BINARY:-}" ]; then
    prefs=$PREFS_BENCH_BINARY
  else
    (cd "$root" && "${release_build[@]}")
    prefs=$(bench_copy "$root/.build/release/prefs" prefs)
  fi
}

# bench_copy BINARY NAME — a fresh copy of BINARY as .build/bench/NAME, its path printed: a build
# timed as installed (see bench_prefs).
bench_copy() {
  mkdir -p "$root/.build/bench"
  rm -f "$root/.build/bench/$2"
  cp "$1" "$root/.build/bench/$2"
  echo "$root/.build/bench/$2"
}

# bench_build_core SOURCES-ROOT OUTPUT SWIFT-FILE... — the PrefsCore sources under SOURCES-ROOT and
# the given files compiled as one module (whole-module, -O, Swift 6 mode), as `swift build -c
# release` builds it, with this checkout's C target compiled the way SwiftPM does (no -m flags) and
# reached through a module map of our own: a harness that times PrefsCore in process.
bench_build_core() {
  local sources_root=$1 output=$2
  shift 2
  local objects source sources target
  objects=$(mktemp -d)
  for target in CPrefsSystem CPrefsTLS; do
    [ -d "$root/Sources/$target" ] || continue
    for source in "$root/Sources/$target"/*.c; do
      clang -O2 -c -I "$root/Sources/$target/include" "$source" -o "$objects/$target-$(basename "$source" .c).o"
    done
    printf 'module %s {\n  header "%s"\n  export *\n}\n' "$target" "$root/Sources/$target/include/$target.h" >>"$objects/module.modulemap"
  done
  mapfile -t sources < <(find "$sources_root/Sources/PrefsCore" -name '*.swift' | sort)
  swiftc -O -wmo -swift-version 6 -parse-as-library -module-name PrefsCore -package-name prefs -Xcc -fmodule-map-file="$objects/module.modulemap" \
    "${sources[@]}" "$@" "$objects"/*.o -lssl -lcrypto -o "$output"
  rm -rf "$objects"
}

# bench_free_ports COUNT — COUNT distinct loopback ports free a moment ago, picked at random below
# the kernel's ephemeral range: a port from that range (what bind(0) gives) can be taken by the local
# end of any outgoing connection, such as the members of a cluster dialling each other as they start.
bench_free_ports() {
  python3 - "$1" <<'PY'
import random, socket, sys
low = int(open("/proc/sys/net/ipv4/ip_local_port_range").read().split()[0])
ports = []
while len(ports) < int(sys.argv[1]):
    port = random.randrange(max(1024, low - 16384), low)
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", port))
        if port not in ports: ports.append(port)
    except OSError:
        pass
    finally:
        s.close()
print(" ".join(map(str, ports)))
PY
}

# Installs the Debian packages that provide the named commands when they are missing (as root, or
# through sudo): bench_need COMMAND:PACKAGE...
bench_need() {
  local missing=() pair
  for pair in "$@"; do command -v "${pair%%:*}" >/dev/null || missing+=("${pair#*:}"); done
  [ ${#missing[@]} -eq 0 ] && return
  echo "installing ${missing[*]}" >&2
  local sudo=(); [ "$(id -u)" = 0 ] || sudo=(sudo)
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null
}

# bench_rounds ROUNDS RUNS WARMUP OUT COMMAND... — hyperfine ROUNDS times over all the commands (each
# round runs every command RUNS times, one command after the other), so slow phases of a shared
# machine hit them all alike; every single run's wall time is appended to OUT as "INDEX SECONDS".
# A command may be "PREPARE ;; COMMAND": PREPARE runs before each run of it, untimed.
bench_rounds() {
  local rounds=$1 runs=$2 warmup=$3 out=$4
  shift 4
  local args=() spec
  for spec in "$@"; do
    if [[ $spec == *" ;; "* ]]; then args+=(--prepare "${spec%% ;; *}" "${spec#* ;; }"); else args+=("$spec"); fi
  done
  # Without a --prepare for every command, hyperfine wants none: give the others a no-op.
  if [[ " ${args[*]} " == *" --prepare "* ]]; then
    local fixed=() i=0
    while [ $i -lt ${#args[@]} ]; do
      if [ "${args[$i]}" = --prepare ]; then fixed+=(--prepare "${args[$((i + 1))]}" "${args[$((i + 2))]}"); i=$((i + 3))
      else fixed+=(--prepare true "${args[$i]}"); i=$((i + 1)); fi
    done
    args=("${fixed[@]}")
  fi
  local round json
  json=$(mktemp)
  for round in $(seq "$rounds"); do
    # Its warnings (outliers on a busy machine) would drown the figures; its errors are shown.
    hyperfine -N --warmup "$warmup" -r "$runs" --export-json "$json" "${args[@]}" >/dev/null 2>"$json.err" || { cat "$json.err" >&2; return 1; }
    python3 -c '
import json, sys
for i, r in enumerate(json.load(open(sys.argv[1]))["results"]):
    for t in r["times"]: print(i, t)' "$json" >>"$out"
  done
  rm -f "$json" "$json.err"
}

# bench_medians OUT — the median wall time of each command in OUT, in ms, in command order.
bench_medians() {
  python3 -c '
import collections, statistics, sys
times = collections.defaultdict(list)
for line in open(sys.argv[1]):
    i, t = line.split(); times[int(i)].append(float(t))
print(" ".join("%.3f" % (statistics.median(times[i]) * 1000) for i in sorted(times)))' "$1"
}

# bench_ratio A B — A/B with two decimals.
bench_ratio() { python3 -c 'import sys; print("%.2f" % (float(sys.argv[1]) / float(sys.argv[2])))' "$1" "$2"; }

# bench_scratch — $work, a scratch directory, and $data, one for etcd members' data (in memory when
# it can); $pids, the processes to kill at exit. Both directories, and bench_before's worktree, go
# at exit too.
bench_scratch() {
  work=$(mktemp -d)
  # The etcd store's snapshots (and anything else cached) stay in the scratch directory, never in
  # the user's ~/.cache; a benchmark that sets its own cache home after this keeps it.
  export XDG_CACHE_HOME=$work/cache
  data=$(mktemp -d -p "$( [ -d /dev/shm ] && echo /dev/shm || echo /tmp)")
  pids=()
  trap bench_cleanup EXIT
  trap 'exit 1' TERM INT
}
bench_cleanup() {
  local pid
  for pid in "${pids[@]}"; do { kill -9 "$pid" && wait "$pid"; } 2>/dev/null || true; done
  [ -d "$work/before" ] && git -C "$root" worktree remove --force "$work/before"
  rm -rf "$work" "$data"
}

# bench_before — $before, a build to time beside this one: BEFORE=REV built in a scratch worktree,
# or BEFORE_BINARY=PATH; empty without either.
bench_before() {
  before=${BEFORE_BINARY:-}
  [ -n "${BEFORE:-}" ] || return 0
  git -C "$root" worktree add -q --detach "$work/before" "$BEFORE"
  (cd "$work/before" && "${release_build[@]}")
  before=$(bench_copy "$work/before/.build/release/prefs" prefs-before)
}

# bench_etcd_cluster — three etcd members on free loopback ports (after bench_scratch), each with a
# plain-text client URL and a TLS one that requires client certificates (make-certificates.sh's, in
# $certs); returns once the cluster is healthy. Sets $endpoints and $tls_endpoints (HOST:PORT,…),
# and for member I: ${plain_ports[I]}, ${tls_ports[I]} and ${member_pids[I]}.
bench_etcd_cluster() {
  local ports cluster="" clients i
  read -r -a ports < <(bench_free_ports 9)
  plain_ports=("${ports[@]:0:3}") tls_ports=("${ports[@]:6:3}") member_pids=()
  certs=$work/certs
  mkdir "$certs"
  (cd "$certs" && "$root/Tests/Tools/make-certificates.sh" >/dev/null)
  for i in 0 1 2; do cluster+="${cluster:+,}m$i=http://127.0.0.1:${ports[$((3 + i))]}"; done
  for i in 0 1 2; do
    clients="http://127.0.0.1:${ports[$i]},https://127.0.0.1:${ports[$((6 + i))]}"
    etcd --name "m$i" --data-dir "$data/m$i" --listen-client-urls "$clients" --advertise-client-urls "$clients" \
      --cert-file "$certs/server.pem" --key-file "$certs/server.key" --client-cert-auth --trusted-ca-file "$certs/ca.pem" \
      --listen-peer-urls "http://127.0.0.1:${ports[$((3 + i))]}" --initial-advertise-peer-urls "http://127.0.0.1:${ports[$((3 + i))]}" \
      --initial-cluster "$cluster" --initial-cluster-state new --initial-cluster-token "bench$$" >"$work/m$i.log" 2>&1 &
    pids+=($!) member_pids+=($!)
  done
  endpoints="127.0.0.1:${ports[0]},127.0.0.1:${ports[1]},127.0.0.1:${ports[2]}"
  tls_endpoints="127.0.0.1:${ports[6]},127.0.0.1:${ports[7]},127.0.0.1:${ports[8]}"
  bench_etcd_healthy "$endpoints"
}

# bench_etcd_healthy ENDPOINTS [ETCDCTL-OPTION...] — waits (10 s at most) until etcdctl finds them
# healthy; else prints the members' logs ($work/m*.log) and fails.
bench_etcd_healthy() {
  local endpoints=$1 _
  shift
  for _ in $(seq 100); do ETCDCTL_API=3 etcdctl --endpoints "$endpoints" "$@" endpoint health >/dev/null 2>&1 && return 0; sleep 0.1; done
  cat "$work"/m*.log >&2
  return 1
}
