#!/usr/bin/env bash
# What a TLS one-key read (`prefs read S K` on `etcds://`) costs in instructions, counted by callgrind
# (the same count whatever else the machine does), with the client key in each form OpenSSL writes:
# PKCS#8 (`openssl req -nodes`, `genpkey`), SEC1 for an EC key (`ecparam -genkey`), PKCS#1 for RSA
# (`genrsa -traditional`); for ECDSA P-256, RSA 2048 and Ed25519 client certificates. Beside the
# total, where it goes: making the TLS context (`SSL_CTX_new`: OpenSSL's set-up, every cipher and
# digest fetched from its default provider); the handshake, and of it the CA and client certificates
# and the client key, parsed after the ClientHello is sent, while the server answers it; the rest
# (prefs itself, the request over TLS); and the same read resuming the session the command before
# it kept in a private XDG_RUNTIME_DIR (as a logged-in user has: no certificate is parsed or
# checked). Then the wall time of a TLS one-key read against `etcdctl get` over TLS with the same
# certificates (PKCS#8 key), a new connection per process on both sides, in interleaved hyperfine
# rounds (goal: ≤ 0.35×): with XDG_RUNTIME_DIR, the session resumed, and without it, a full
# handshake (each against its own etcdctl runs). Beside them, the floor: the same OpenSSL calls
# from a C program that makes them and nothing else (Tools/tls-read.c, resuming from a file of its
# own), its instructions and its time. One member with `--client-cert-auth` on loopback. Not a
# test: figures only.
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
bench_need valgrind:valgrind python3:python3 gcc:gcc
bench_prefs
bench_scratch
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
bench_etcd_healthy "https://$endpoint" "${etcdctl[@]:3}"

export PREFS_STORE="etcds://$endpoint/bench" PREFS_ETCD_CACERT=$certs/ca.pem XDG_CONFIG_HOME=$work/config XDG_STATE_HOME=$work/state XDG_DATA_HOME=$work/data \
  XDG_DATA_DIRS=$work/none XDG_CONFIG_DIRS=$work/none
unset XDG_RUNTIME_DIR
runtime=$work/run
mkdir -m 700 "$runtime"
PREFS_ETCD_CERT=$certs/client-root.pem PREFS_ETCD_KEY=$certs/client-root.key "$prefs" write s k -int 1
"${etcdctl[@]}" put plain/k 1 >/dev/null

# count LABEL CERT KEY [COMMAND...]: instructions of a TLS one-key read (by prefs, or COMMAND), and
# where they go.
count() {
  local label=$1 cert=$2 key=$3
  shift 3
  [ $# -gt 0 ] || set -- "$work/prefs" read s k
  PREFS_ETCD_CERT=$cert PREFS_ETCD_KEY=$key valgrind --tool=callgrind --callgrind-out-file="$work/cg" "$@" >/dev/null 2>"$work/err" \
    || { cat "$work/err" >&2; return 1; }
  python3 - "$work/cg" "$label" <<'PY'
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
total, context, handshake = cost["total"], part("prefs_tls_context_new"), part("prefs_tls_handshake")
key = part("prefs_tls_read_key", "read_key")
certs = part("PEM_read_bio_X509_AUX", "PEM_read_bio_X509", "PEM_X509_INFO_read_bio")
print(f"{sys.argv[2]:<22}" + "".join(f"{v / 1e6:>10.2f}" for v in (total, context, handshake, certs, key, total - context - handshake)))
PY
}
echo "TLS one-key read, instructions (millions): the context, the handshake (of it: the certificates, the key), the rest"
printf '%-22s%10s%10s%10s%10s%10s%10s\n' "client key" total context handshake certs key rest
for algorithm in "${algorithms[@]}"; do
  for form in pkcs8 traditional; do
    [ -f "$certs/client-$algorithm-$form.key" ] || continue
    count "$algorithm $form" "$certs/client-$algorithm.pem" "$certs/client-$algorithm-$form.key"
  done
done
# The floor: the same OpenSSL calls from a C program that does nothing else (Tools/tls-read.c).
gcc -O2 -static -I "$root/Sources/CPrefsTLS/include" "$root/Tests/Benchmarks/Tools/tls-read.c" "$root"/Sources/CPrefsTLS/*.c \
  -lssl -lcrypto -lpthread -o "$work/tls-read" 2>/dev/null
for form in pkcs8 traditional; do
  key=$certs/client-ec-$form.key
  count "C, ec $form" "$certs/client-ec.pem" "$key" "$work/tls-read" "$certs/ca.pem" "$certs/client-ec.pem" "$key" "${endpoint#*:}"
done
# Resumed: the command before kept its session (prefs in $runtime, the C program in a file).
key=$certs/client-ec-pkcs8.key
PREFS_ETCD_CERT=$certs/client-ec.pem PREFS_ETCD_KEY=$key XDG_RUNTIME_DIR=$runtime "$work/prefs" read s k >/dev/null
XDG_RUNTIME_DIR=$runtime count "ec pkcs8, resumed" "$certs/client-ec.pem" "$key"
"$work/tls-read" "$certs/ca.pem" "$certs/client-ec.pem" "$key" "${endpoint#*:}" "$work/session"
count "C, ec pkcs8, resumed" "$certs/client-ec.pem" "$key" "$work/tls-read" "$certs/ca.pem" "$certs/client-ec.pem" "$key" "${endpoint#*:}" "$work/session"

# Wall time against etcdctl, both with the ECDSA certificate and its PKCS#8 key.
key=$certs/client-ec-pkcs8.key
export PREFS_ETCD_CERT=$certs/client-ec.pem PREFS_ETCD_KEY=$key
etcdctl_get="etcdctl --endpoints https://$endpoint --cacert $certs/ca.pem --cert $certs/client-ec.pem --key $key get plain/k"
tls_read="$work/tls-read $certs/ca.pem $certs/client-ec.pem $key ${endpoint#*:}"
XDG_RUNTIME_DIR=$runtime "$prefs" read s k >/dev/null
XDG_RUNTIME_DIR=$runtime bench_rounds "$rounds" "$runs" 1 "$work/times" "$prefs read s k" "$etcdctl_get" "$tls_read $work/session"
read -r p e c < <(bench_medians "$work/times")
bench_rounds "$rounds" "$runs" 1 "$work/full" "$prefs read s k" "$etcdctl_get" "$tls_read"
read -r pf ef cf < <(bench_medians "$work/full")
printf '\n%-46s%9s%10s%9s\n' case ms "peer ms" ratio
printf '%-46s%9.2f%10.2f%8sx\n' "TLS one-key read vs etcdctl get, resumed" "$p" "$e" "$(bench_ratio "$p" "$e")"
printf '%-46s%9.2f%10.2f%8sx\n' "the C floor (tls-read.c) vs etcdctl, resumed" "$c" "$e" "$(bench_ratio "$c" "$e")"
printf '%-46s%9.2f%10.2f%8sx\n' "TLS one-key read vs etcdctl get, full" "$pf" "$ef" "$(bench_ratio "$pf" "$ef")"
printf '%-46s%9.2f%10.2f%8sx\n' "the C floor (tls-read.c) vs etcdctl, full" "$cf" "$ef" "$(bench_ratio "$cf" "$ef")"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
