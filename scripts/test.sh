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
