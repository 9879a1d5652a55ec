#!/usr/bin/env bash
# Certificates for the TLS tests and benchmarks, made in the current directory with OPENSSL (ECDSA
# P-256, whose handshakes are cheap): ca.pem (a CA) and other-ca.pem (another), server.pem for
# 127.0.0.1 and localhost signed by the CA, other-server.pem (the same names, the other CA),
# wrong-name.pem (for etcd.example.invalid only), expired.pem (valid for one day in 2020), and the
# client certificates client-root.pem, client-alice.pem (etcd takes the CN as the user over gRPC) and
# client-anonymous.pem (no CN: what etcd's JSON gateway takes while auth is on); each
# with its key beside it (NAME.key). `req -x509` makes the CAs, `x509 -req` what they sign, and `ca`
# the expired one (the only command of OpenSSL 3.0 that takes explicit dates).
#
# With ALGORITHM (ec, rsa, rsa-pss, ed25519), in a directory where the above were made: a CA of that
# algorithm, ca-ALGORITHM.pem, and the certificates it signs, server-ALGORITHM.pem (127.0.0.1 and
# localhost) and client-ALGORITHM.pem (CN root): ECDSA P-256, RSA 2048, RSA 2048 keys whose
# certificates are signed with RSASSA-PSS, or Ed25519. Each key in PKCS#8 (NAME.key and
# NAME-pkcs8.key, as `openssl genpkey` and `req -nodes` write it) and, where the algorithm has one,
# in its traditional form (NAME-traditional.key: SEC1 for EC, PKCS#1 for RSA).
#   Tests/Tools/make-certificates.sh [OPENSSL [ALGORITHM]]
set -euo pipefail
openssl=${1:-openssl}
if [ -n "${2:-}" ]; then
  algorithm=$2
  case $algorithm in
    ec) generate=(-algorithm EC -pkeyopt ec_paramgen_curve:P-256) traditional=1 signing=() ;;
    rsa) generate=(-algorithm RSA -pkeyopt rsa_keygen_bits:2048) traditional=1 signing=() ;;
    rsa-pss) generate=(-algorithm RSA -pkeyopt rsa_keygen_bits:2048) traditional=1
      signing=(-sigopt rsa_padding_mode:pss -sigopt rsa_pss_saltlen:digest) ;;
    ed25519) generate=(-algorithm ED25519) traditional= signing=() ;;
    *) echo "unknown algorithm $algorithm (ec, rsa, rsa-pss, ed25519)" >&2; exit 64 ;;
  esac
  # NAME: its key in every form it has.
  pkey() {
    "$openssl" genpkey "${generate[@]}" -out "$1-pkcs8.key" 2>/dev/null
    cp "$1-pkcs8.key" "$1.key"
    if [ -n "$traditional" ]; then "$openssl" pkey -in "$1-pkcs8.key" -traditional -out "$1-traditional.key"; fi
  }
  pkey "ca-$algorithm"
  "$openssl" req -x509 -new -key "ca-$algorithm.key" "${signing[@]}" -subj "/CN=prefs test $algorithm CA" -days 30 \
    -out "ca-$algorithm.pem" -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign
  for leaf in server client; do
    name=$leaf-$algorithm
    pkey "$name"
    if [ $leaf = server ]; then subject=/CN=etcd names=IP:127.0.0.1,DNS:localhost usage=serverAuth,clientAuth
    else subject=/CN=root names=DNS:root usage=clientAuth; fi
    "$openssl" req -new -key "$name.key" -subj "$subject" -out "$name.csr"
    printf 'subjectAltName=%s\nextendedKeyUsage=%s\n' "$names" "$usage" >"$name.ext"
    "$openssl" x509 -req -in "$name.csr" -CA "ca-$algorithm.pem" -CAkey "ca-$algorithm.key" "${signing[@]}" -CAcreateserial \
      -days 30 -extfile "$name.ext" -out "$name.pem" 2>/dev/null
  done
  exit 0
fi
key() { "$openssl" ecparam -name prime256v1 -genkey -noout -out "$1" 2>/dev/null; }
ca() {
  key "$1.key"
  "$openssl" req -x509 -new -key "$1.key" -subj "/CN=$2" -days 30 -out "$1.pem" \
    -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign
}
# sign NAME CA SUBJECT SUBJECT-ALT-NAME [EXTENDED-KEY-USAGE]
sign() {
  key "$1.key"
  "$openssl" req -new -key "$1.key" -subj "$3" -out "$1.csr"
  printf 'subjectAltName=%s\nextendedKeyUsage=%s\n' "$4" "${5:-serverAuth,clientAuth}" >"$1.ext"
  "$openssl" x509 -req -in "$1.csr" -CA "$2.pem" -CAkey "$2.key" -CAcreateserial -days 30 -extfile "$1.ext" -out "$1.pem" 2>/dev/null
}
ca ca "prefs test CA"
ca other-ca "another CA"
sign server ca /CN=etcd "IP:127.0.0.1,DNS:localhost"
sign other-server other-ca /CN=etcd "IP:127.0.0.1,DNS:localhost"
sign wrong-name ca /CN=etcd "DNS:etcd.example.invalid"
sign client-root ca /CN=root "DNS:root" clientAuth
sign client-alice ca /CN=alice "DNS:alice" clientAuth
sign client-anonymous ca "/O=prefs test client" "DNS:client" clientAuth
key expired.key
"$openssl" req -new -key expired.key -subj "/CN=etcd" -out expired.csr
mkdir -p ca-db && : >ca-db/index.txt && echo 01 >ca-db/serial
cat >ca.cnf <<'CNF'
[ca]
default_ca = test
[test]
database = ca-db/index.txt
serial = ca-db/serial
new_certs_dir = ca-db
default_md = sha256
policy = any
copy_extensions = none
x509_extensions = server
[any]
commonName = supplied
[server]
subjectAltName = IP:127.0.0.1,DNS:localhost
CNF
"$openssl" ca -batch -config ca.cnf -cert ca.pem -keyfile ca.key -in expired.csr -out expired.pem \
  -startdate 20200101000000Z -enddate 20200102000000Z -notext 2>/dev/null
