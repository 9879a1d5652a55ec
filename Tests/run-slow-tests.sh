#!/usr/bin/env bash
# The tests too slow for the edit loop, which `swift test` skips unless PREFS_SLOW_TESTS=1
# (Tests/PrefsTestSupport/SlowTests.swift): a client package that depends on a tagged copy of this
# checkout, built from scratch, and a 100 MB value through a pipe. Runs exactly them, and fails
# unless each test named here ran and passed (a skip is a failure: the gate must not hide them) and
# unless every file that marks a test slow is one of the suites named here. CI runs it as a step of
# its own, after Tests/run-tests.sh, which installs what the tests use (git, sha256sum).
#   Tests/run-slow-tests.sh [SWIFT TEST OPTIONS...]
set -euo pipefail
cd "$(dirname "$0")/.."
# Suite/test function, as Swift Testing prints it.
tests=(
  ClientPackageTests/'aClientDependingOnACloneBuildsWithoutWarningsAndRuns()'
  ClientPackageTests/'theReadmesDependencyLinesNameAClone()'
  ClientPackageTests/'aDependencyByVersionPassesSwiftPMsChecks()'
  ClientPackageTests/'theReadmesSwiftSectionBuildsAndPrintsWhatItSays()'
  ExternalStorageTests/'aHundredMegabyteValueThroughAPipeLeavesTheSuiteSmallAndReadsBackIdentically()'
)
suites=() filter=()
for test in "${tests[@]}"; do
  suites+=("${test%%/*}")
  filter+=("${test%%/*}/${test#*/}")
done
# Every file that marks a test slow holds a suite named above.
status=0
for file in $(grep -rl --include='*.swift' --exclude-dir=PrefsTestSupport 'enabled(if: SlowTests.enabled' Tests); do
  name=$(basename "$file" .swift)
  [[ " ${suites[*]} " == *" $name "* ]] || { echo "run-slow-tests.sh: $file marks a test slow, but no test of $name is listed here" >&2; status=1; }
done
[ $status -eq 0 ] || exit 1
log=$(mktemp)
trap 'rm -f "$log"' EXIT
pattern=$(IFS='|'; echo "${filter[*]//[()]/}")
export PREFS_TEST_BUILD=${PREFS_TEST_BUILD-1}
set +e
PREFS_SLOW_TESTS=1 swift test --filter "$pattern" "$@" 2>&1 | tee "$log"
ran=${PIPESTATUS[0]}
set -e
for test in "${tests[@]}"; do
  if ! grep -Fq -- "✔ Test ${test#*/} passed" "$log"; then
    echo "run-slow-tests.sh: ${test} did not run and pass" >&2
    status=1
  fi
done
if grep -Fq -- ' skipped' "$log"; then
  echo "run-slow-tests.sh: a test was skipped" >&2
  status=1
fi
[ "$ran" -eq 0 ] || status=1
exit $status
