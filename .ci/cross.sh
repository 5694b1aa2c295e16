#!/usr/bin/env bash
# CI: the release builds (scripts/release.sh: six platforms, each binary
# stamped with HEAD's commit, which the script checks) into DIST, then
# every package for each of those platforms, so that a platform's own
# file in a package the binary does not link cannot break that platform
# silently either. .ci/run passes its DIST on to .ci/image.sh.
#
#   bash .ci/cross.sh DIST
set -euo pipefail
cd "$(dirname "$0")/.."
(($# == 1)) || { echo "usage: .ci/cross.sh DIST" >&2; exit 2; }
bash scripts/release.sh "$1"
for t in linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64; do
  # The release build's flags, so the packages it compiled come from the
  # cache and only the ones it left out are compiled here.
  CGO_ENABLED=0 GOOS=${t%/*} GOARCH=${t#*/} go build -trimpath ./...
done
echo "== every package compiles for each release platform"
