#!/usr/bin/env bash
# The test command: installs what the tests use when it is missing (Debian or Ubuntu, with apt-get
# as root, or through sudo), then runs the whole suite but the slow tests, which `swift test` skips
# and Tests/run-slow-tests.sh runs (CI runs both), on the test build (PREFS_TEST_BUILD=1, which
# Package.swift reads: the library optimized, the debug prefs static). On a machine that has the
# tools, `PREFS_TEST_BUILD=1 swift test --parallel` alone is the same run.
#
# The tests use libplist's plistutil and CPython's plistlib as oracles, bash, zsh and fish to drive
# the completions (bash-completion to show that bash finds the installed one), mandoc to check the
# man page, strace to prove that a hand-edited external-storage reference opens nothing outside the
# store, sha256sum to check blob hashes, and etcd with etcdctl
# (the etcd store's tests start real clusters on loopback ports, with TLS certificates that
# openssl makes), ss (iproute2) to count the bytes an etcd watch receives, and two NSS modules
# (libnss-myhostname, libnss-mdns) that a test names in an nsswitch.conf of its own, to show that
# prefs never loads one (their install scripts add them to /etc/nsswitch.conf: the machine's file is
# put back as it was). Building needs
# OpenSSL's headers and static libraries (libssl-dev). Some run a tool by its absolute path, so the
# check is for that path.
#   Tests/run-tests.sh [SWIFT TEST OPTIONS...]
set -euo pipefail
cd "$(dirname "$0")/.."
need=()
command -v plistutil >/dev/null || need+=(libplist-utils)
[ -x /usr/bin/python3 ] || need+=(python3)
command -v zsh >/dev/null || need+=(zsh)
command -v fish >/dev/null || need+=(fish)
[ -f /usr/share/bash-completion/bash_completion ] || need+=(bash-completion)
command -v mandoc >/dev/null || need+=(mandoc)
[ -x /usr/bin/strace ] || need+=(strace)
[ -x /usr/bin/etcd ] || need+=(etcd-server)
[ -x /usr/bin/etcdctl ] || need+=(etcd-client)
[ -x /usr/bin/openssl ] || need+=(openssl)
[ -f /usr/include/openssl/ssl.h ] && [ -f /usr/lib/"$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)"/libssl.a ] || need+=(libssl-dev)
[ -x /usr/bin/ss ] || [ -x /bin/ss ] || need+=(iproute2)
[ -x /usr/bin/sha256sum ] && [ -x /usr/bin/timeout ] || need+=(coreutils)
nss=()
# Matched by the shell, not by piping `ldconfig -p` into `grep -q`: grep leaving at the first match ends
# ldconfig with SIGPIPE, which pipefail takes for a failure (the modules were installed again).
libraries=$(/sbin/ldconfig -p)
[[ $libraries == *'libnss_myhostname.so.2 '* ]] || nss+=(libnss-myhostname)
[[ $libraries == *'libnss_mdns4_minimal.so.2 '* ]] || nss+=(libnss-mdns)
if [ ${#need[@]} -gt 0 ] || [ ${#nss[@]} -gt 0 ]; then
  echo "installing ${need[*]} ${nss[*]}" >&2
  sudo=(); [ "$(id -u)" = 0 ] || sudo=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  "${sudo[@]}" apt-get update -qq
  [ ${#need[@]} -eq 0 ] || "${sudo[@]}" apt-get install -y -qq "${need[@]}" >/dev/null
  if [ ${#nss[@]} -gt 0 ]; then
    saved=$(mktemp)
    cp -p /etc/nsswitch.conf "$saved"
    "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${nss[@]}" >/dev/null
    "${sudo[@]}" cp "$saved" /etc/nsswitch.conf
    rm -f "$saved"
  fi
fi
/usr/bin/python3 -c 'import plistlib'
export PREFS_TEST_BUILD=${PREFS_TEST_BUILD-1}
swift test --parallel "$@"
