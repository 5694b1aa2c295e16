#!/usr/bin/env bash
# CI: every package compiled for each release platform (linux, darwin
# and windows on amd64 and arm64, CGO off, scripts/release.sh's flags),
# so that a platform's own file cannot break that platform silently;
# then the linux/amd64 release build itself (scripts/release.sh: stamped
# with HEAD's commit, which the script checks) into DIST, for
# .ci/image.sh. Only that one is linked: linking the other five would
# prove nothing the compile does not, at some 8 s of CPU each.
#
#   bash .ci/cross.sh DIST
set -euo pipefail
cd "$(dirname "$0")/.."
(($# == 1)) || { echo "usage: .ci/cross.sh DIST" >&2; exit 2; }
failed=()
for t in linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64; do
  start=$SECONDS
  # go build of many packages compiles them and links none.
  if CGO_ENABLED=0 GOOS=${t%/*} GOARCH=${t#*/} go build -trimpath ./...; then
    echo "== every package compiles for $t ($((SECONDS - start))s)"
  else
    failed+=("$t")
  fi
done
POOLSWEEP_TARGETS=linux/amd64 bash scripts/release.sh "$1" || failed+=("the linux/amd64 release build")
if ((${#failed[@]})); then
  echo "== FAILED to build: ${failed[*]}" >&2
  exit 1
fi
