#!/usr/bin/env bash
# What a TLS one-key read (`prefs read S K` on `etcds://`) costs in instructions, counted by callgrind
# (the same count whatever else the machine does), with the client key in each form OpenSSL writes:
# PKCS#8 (`openssl req -nodes`, `genpkey`), SEC1 for an EC key (`ecparam -genkey`), PKCS#1 for RSA
# (`genrsa -traditional`); for ECDSA P-256, RSA 2048 and Ed25519 client certificates. Beside the
# total, where it goes (inclusive instructions under OpenSSL's entry points, so parts overlap their
# callers): making the TLS context (`SSL_CTX_new`: OpenSSL's set-up, its providers' algorithms),
# reading the client key, the certificates, the handshake, and prefs without OpenSSL. Then the wall
# time of a TLS one-key read against `etcdctl get` over TLS with the same certificates (PKCS#8 key),
# a new connection and handshake per process on both sides, in interleaved hyperfine rounds (goal:
# ≤ 0.35×). One member with `--client-cert-auth` on loopback. Not a test: figures only.
#   Tests/Benchmarks/bench-etcd-tls.sh [ROUNDS | --smoke]    (needs etcd, etcdctl, openssl, hyperfine, valgrind)
# --smoke: ECDSA only, one round of two runs.
set -euo pipefail
[ -n "${BENCH_TIMED:-}" ] || BENCH_TIMED=1 exec timeout -k 10 900 "$0" "$@"
root=$(cd "$(dirname "$0")/../.." && pwd)
if [ "${1:-}" = --smoke ]; then rounds=1 runs=2 algorithms=(ec); else rounds=${1:-3} runs=10 algorithms=(ec rsa ed25519); fi
for tool in etcd etcdctl openssl hyperfine; do
  command -v $tool >/dev/null || { echo "needs $tool (apt-get install etcd-server etcd-client openssl hyperfine)" >&2; exit 1; }
done
. "$root/Tests/Benchmarks/common.sh"
bench_need valgrind:valgrind python3:python3
bench_prefs
work=$(mktemp -d)
data=$(mktemp -d -p "$( [ -d /dev/shm ] && echo /dev/shm || echo /tmp)")
pids=()
cleanup() {
  for pid in "${pids[@]}"; do { kill -9 "$pid" && wait "$pid"; } 2>/dev/null || true; done
  rm -rf "$work" "$data"
}
trap cleanup EXIT
trap 'exit 1' TERM INT
# valgrind cannot read the DWARF 5 that clang writes for the C target: count a copy without it.
strip --strip-debug -o "$work/prefs" "$prefs"

# The member's certificate (ECDSA P-256); a client certificate per algorithm (each from a CA of its
# own, which the member trusts), its key in every form that algorithm has.
mkdir "$work/certs" && cd "$work/certs"
"$root/Tests/Tools/make-certificates.sh" >/dev/null
for algorithm in "${algorithms[@]}"; do "$root/Tests/Tools/make-certificates.sh" openssl "$algorithm" >/dev/null; done
cat ca.pem ca-*.pem >trusted.pem
cd "$root"
certs=$work/certs

read -r -a ports < <(bench_free_ports 2)
etcd --name m0 --data-dir "$data/m0" --listen-client-urls "https://127.0.0.1:${ports[0]}" \
  --advertise-client-urls "https://127.0.0.1:${ports[0]}" --listen-peer-urls "http://127.0.0.1:${ports[1]}" \
  --initial-advertise-peer-urls "http://127.0.0.1:${ports[1]}" --initial-cluster "m0=http://127.0.0.1:${ports[1]}" \
  --cert-file "$certs/server.pem" --key-file "$certs/server.key" --client-cert-auth --trusted-ca-file "$certs/trusted.pem" \
  >"$work/m0.log" 2>&1 &
pids+=($!)
endpoint=127.0.0.1:${ports[0]}
etcdctl=(etcdctl --endpoints "https://$endpoint" --cacert "$certs/ca.pem" --cert "$certs/client-root.pem" --key "$certs/client-root.key")
export ETCDCTL_API=3
for _ in $(seq 100); do "${etcdctl[@]}" endpoint health >/dev/null 2>&1 && break; sleep 0.1; done
"${etcdctl[@]}" endpoint health >/dev/null 2>&1 || { cat "$work/m0.log" >&2; exit 1; }

export PREFS_STORE="etcds://$endpoint/bench" PREFS_ETCD_CACERT=$certs/ca.pem XDG_CONFIG_HOME=$work/config XDG_DATA_HOME=$work/data \
  XDG_DATA_DIRS=$work/none XDG_CONFIG_DIRS=$work/none
unset XDG_RUNTIME_DIR
PREFS_ETCD_CERT=$certs/client-root.pem PREFS_ETCD_KEY=$certs/client-root.key "$prefs" write s k -int 1
"${etcdctl[@]}" put plain/k 1 >/dev/null

# count LABEL CERT KEY: instructions of a TLS one-key read, and where they go.
count() {
  PREFS_ETCD_CERT=$2 PREFS_ETCD_KEY=$3 valgrind --tool=callgrind --callgrind-out-file="$work/cg" "$work/prefs" read s k >/dev/null 2>"$work/err" \
    || { cat "$work/err" >&2; return 1; }
  python3 - "$work/cg" "$1" <<'PY'
import re, subprocess, sys
out = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", sys.argv[1]], capture_output=True, text=True).stdout
cost = {}
for line in out.splitlines():
    m = re.match(r"\s*([\d,]+) \([^)]*\)\s+(.*?)(?: \[.*\])?$", line)
    if m:
        name = m.group(2).split(":", 1)[-1].split("'")[0]
        cost.setdefault(name, int(m.group(1).replace(",", "")))
    m = re.match(r"\s*([\d,]+) .*PROGRAM TOTALS", line)
    if m: cost["total"] = int(m.group(1).replace(",", ""))
def part(*names): return sum(cost.get(n, 0) for n in names)
total = cost["total"]
context, key = part("prefs_tls_context_new"), part("read_key")
certs = part("PEM_read_bio_X509_AUX", "PEM_read_bio_X509", "PEM_X509_INFO_read_bio", "add_trust")
handshake = part("SSL_connect", "SSL_do_handshake")
print(f"{sys.argv[2]:<28}{total / 1e6:>9.2f}{context / 1e6:>9.2f}{key / 1e6:>8.2f}{certs / 1e6:>8.2f}{handshake / 1e6:>11.2f}{(total - context - handshake) / 1e6:>9.2f}")
PY
}
echo "TLS one-key read, instructions (millions; a part includes what it calls)"
printf '%-28s%9s%9s%8s%8s%11s%9s\n' "client key" total context key certs handshake rest
for algorithm in "${algorithms[@]}"; do
  for form in pkcs8 traditional; do
    [ -f "$certs/client-$algorithm-$form.key" ] || continue
    count "$algorithm $form" "$certs/client-$algorithm.pem" "$certs/client-$algorithm-$form.key"
  done
done

# Wall time against etcdctl, both with the ECDSA certificate and its PKCS#8 key.
key=$certs/client-ec-pkcs8.key
export PREFS_ETCD_CERT=$certs/client-ec.pem PREFS_ETCD_KEY=$key
etcdctl_get="etcdctl --endpoints https://$endpoint --cacert $certs/ca.pem --cert $certs/client-ec.pem --key $key get plain/k"
bench_rounds "$rounds" "$runs" 1 "$work/times" "$prefs read s k" "$etcdctl_get"
read -r p e < <(bench_medians "$work/times")
printf '\n%-34s%9s%10s%9s\n' case ms "peer ms" ratio
printf '%-34s%9.2f%10.2f%8sx\n' "TLS one-key read vs etcdctl get" "$p" "$e" "$(bench_ratio "$p" "$e")"
