#!/usr/bin/env bash
# The edit loop: the tests worth running after each edit, in a fraction of the full run. Builds, then
# runs `swift test --skip-build --skip …` without what needs minutes of a 2-core machine:
#   - every test that starts etcd (suites and tests named for it, and the few others that use a
#     cluster); PREFS_TEST_NO_ETCD=1 makes one this list misses fail rather than start a cluster,
#     and runs the contract suite on its other backends (PREFS_CONTRACT_BACKENDS=file/memory,minimal
#     keeps only the rows it names);
#   - the stress suites: many processes at once, large values, killed writers;
#   - the soaks: the oracles in other languages (Differential), SHA-256 over megabytes, the
#     streamed lookup's random documents and corpora, every layer combination.
# The full run (Tests/run-tests.sh, and Tests/run-slow-tests.sh) runs all of them. Both build the
# test build (PREFS_TEST_BUILD=1: the library optimized, the debug prefs static; Package.swift).
#   Tests/run-edit-loop.sh [SWIFT TEST OPTIONS...]
set -euo pipefail
cd "$(dirname "$0")/.."
skip=(
  '[Ee]tcd' HostName DomainsFault ReadOrder
  'prefsTests\.(History|ExternalStorage|ExternalTrust|Concurrency|Watch|DumpLoad)Tests/'
  Differential SHA256Tests StreamedLookupTests theHighestLayerThatHasTheKeyAnswers
)
export PREFS_TEST_BUILD=${PREFS_TEST_BUILD-1}
swift build --build-tests
PREFS_TEST_NO_ETCD=1 exec swift test --skip-build --skip "$(IFS='|'; echo "${skip[*]}")" "$@"
