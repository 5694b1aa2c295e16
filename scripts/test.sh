#!/usr/bin/env bash
# Every tier of the tests: vet, the fast tier (go test ./..., the README's
# test command), the soak tier (go test -tags soak: the long runs, agents
# against FerretDB, CPU hogs, FerretDB on a throwaway PostgreSQL, which
# scripts/pg.sh starts, installing Debian's postgresql when run as root),
# and each fuzz target for 5 s. docs/tests.md says what each tier holds.
# Arguments go to both go test runs (say, -run or -v). Every tier runs
# even when one before it failed; the exit status says whether all passed.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/pg.sh
pg_setup
trap pg_teardown EXIT
failed=()
echo "== go vet"
go vet ./... || failed+=(vet)
go vet -tags soak ./... || failed+=("vet -tags soak")
echo "== go test ./... (the fast tier)"
go test -count=1 ./... "$@" || failed+=("the fast tier")
# The soak tier: the files tagged soak (with the fast tier's tests, which
# they build beside, left out by -run).
echo "== go test -tags soak (the soak tier)"
soak=$(grep -l '^//go:build soak' --include='*_test.go' -r . | xargs grep -ho '^func \(Test[A-Za-z0-9_]*\)' | sed 's/^func //' | paste -sd'|')
go test -count=1 -tags soak -timeout 30m -run "^(${soak})\$" ./... "$@" || failed+=("the soak tier")
# Each fuzz target briefly: the seed corpora under testdata/fuzz run as
# part of go test above; this looks for new crashers for a few seconds.
echo "== fuzz (5 s each)"
# The fuzz engine itself sometimes ends a run with "context deadline
# exceeded" and no failing input as -fuzztime runs out on a busy machine;
# such a run, and only such a run, is tried once more. A crasher is always
# a failure: the engine writes it under testdata/fuzz and names it.
fuzz() {
  local out
  out=$(go test -run='^$' -fuzz="^${1}\$" -fuzztime=5s "$2" 2>&1)
  local rc=$?
  echo "$out"
  if ((rc != 0)) && grep -q 'context deadline exceeded' <<<"$out" && ! grep -q 'Failing input written to' <<<"$out"; then
    echo "== $1: the fuzz engine timed out with no failing input; once more"
    go test -run='^$' -fuzz="^${1}\$" -fuzztime=5s "$2"
    return
  fi
  return $rc
}
while read -r target pkg; do
  fuzz "$target" "$pkg" || failed+=("$target")
done <<'EOF2'
FuzzParseLevels ./plan
FuzzParsePropertyFile ./workload
FuzzReadResults ./results
FuzzOpArgsKey ./workload
FuzzReadCSV ./analysis/knee
FuzzParseSpec ./topology/sim
FuzzRedactURI ./topology
FuzzParse ./threshold
FuzzSteady ./analysis/steady
FuzzParseProcStatCPU ./telemetry
FuzzParsePSISomeTotal ./telemetry
FuzzParseSchedstat ./internal/cpuwait
EOF2
if ((${#failed[@]})); then
  echo "== FAILED: ${failed[*]}"
  exit 1
fi
echo "== all passed"
