#!/usr/bin/env bash
# Every tier of the tests: vet, the fast tier (go test ./..., the README's
# test command), the soak tier (go test -tags soak: the long runs, agents
# against FerretDB, CPU hogs, FerretDB on a throwaway PostgreSQL, which
# scripts/pg.sh starts, installing Debian's postgresql when run as root),
# the real clients (pymongo, the Java driver) that scripts/clients.sh
# installs as root,
# and each fuzz target on a fixed number of inputs. docs/tests.md says what each tier holds.
# Arguments go to both go test runs (say, -run or -v). Every tier runs
# even when one before it failed; the exit status says whether all passed.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/pg.sh
. scripts/clients.sh
clients_setup
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
# part of go test above; this looks for new crashers in a fixed number of
# inputs per target (about 2 to 4 s each on a quiet machine). A count, not
# a time: with -fuzztime=5s the fuzz engine itself now and then ended a
# run with "context deadline exceeded" and no failing input (2 of 12
# targets in one CI run), a failure of the deadline, not of the code.
echo "== fuzz (a fixed number of inputs each)"
# -parallel=2: the fuzz workers, one per core (the packages whose
# TestMain raises -parallel for their waiting tests would otherwise fuzz
# with eight workers on two cores).
# Should the engine still end a run that way, with no failing input, that
# run, and only such a run, is tried once more. A crasher is always a
# failure: the engine writes it under testdata/fuzz and names it.
fuzz() {
  local out
  out=$(go test -run='^$' -parallel=2 -fuzz="^${1}\$" -fuzztime="$3" "$2" 2>&1)
  local rc=$?
  echo "$out"
  if ((rc != 0)) && grep -q 'context deadline exceeded' <<<"$out" && ! grep -q 'Failing input written to' <<<"$out"; then
    echo "== $1: the fuzz engine timed out with no failing input; once more"
    go test -run='^$' -parallel=2 -fuzz="^${1}\$" -fuzztime="$3" "$2"
    return
  fi
  return $rc
}
while read -r target pkg count; do
  fuzz "$target" "$pkg" "$count" || failed+=("$target")
done <<'EOF2'
FuzzParseLevels ./plan 100000x
FuzzParsePropertyFile ./workload 5000x
FuzzReadResults ./results 300x
FuzzOpArgsKey ./workload 5000x
FuzzReadCSV ./analysis/knee 20000x
FuzzParseSpec ./topology/sim 15000x
FuzzRedactURI ./topology 10000x
FuzzToken ./internal/textfmt 20000x
FuzzDotSteps ./internal/outfile 100000x
FuzzResolvedAsKernel ./internal/outfile 20000x
FuzzValidateURI ./topology 5000x
FuzzParse ./threshold 40000x
FuzzSteady ./analysis/steady 4000x
FuzzParseProcStatCPU ./telemetry 5000x
FuzzParsePSISomeTotal ./telemetry 5000x
FuzzParseSchedstat ./internal/cpuwait 100000x
FuzzReader ./ftdc 20000x
FuzzChunk ./ftdc 20000x
FuzzParseLogLine ./querylog 2000x
FuzzParse ./workload/shapes 5000x
EOF2
if ((${#failed[@]})); then
  echo "== FAILED: ${failed[*]}"
  exit 1
fi
echo "== all passed"
