#!/usr/bin/env bash
# The test command: vet, unit tests, and integration tests against real
# MongoDB-wire servers over loopback sockets (embedded FerretDB with SQLite,
# FerretDB on a throwaway PostgreSQL cluster, and the calibrated simulator).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/pg.sh
pg_setup
trap pg_teardown EXIT
echo "== go vet"
go vet ./...
echo "== go test"
go test -count=1 -timeout 25m ./... "$@"
# Each fuzz target briefly: the seed corpora under testdata/fuzz run as
# part of go test above; this looks for new crashers for a few seconds.
echo "== fuzz (5 s each)"
while read -r target pkg; do
  go test -run='^$' -fuzz="^${target}\$" -fuzztime=5s "$pkg"
done <<'EOF'
FuzzParseLevels ./plan
FuzzParsePropertyFile ./workload
FuzzReadResults ./results
FuzzOpArgsKey ./workload
FuzzReadCSV ./analysis/knee
FuzzParseSpec ./topology/sim
FuzzRedactURI ./topology
FuzzParse ./threshold
EOF
