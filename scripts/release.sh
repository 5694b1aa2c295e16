#!/usr/bin/env bash
# Release builds: poolsweep for linux, darwin and windows on amd64 and
# arm64, each a static binary (CGO off, so it runs on any libc and in an
# empty container image), written into the directory DIST with a
# SHA256SUMS beside them.
#
#   scripts/release.sh DIST
#
# Each binary is stamped by the Go toolchain with the version and commit
# of the checkout (-buildvcs=true: the tag vX.Y.Z when HEAD is at one, the
# revision always, +dirty with uncommitted changes), which poolsweep
# --version, every results header and every report print; the script
# reads each stamp back with go version -m and fails if the revision is
# not HEAD's. It builds from a git checkout only, for that reason.
# POOLSWEEP_TARGETS="linux/amd64 ..." builds only those.
set -euo pipefail
cd "$(dirname "$0")/.."
if (($# != 1)) || [[ -z $1 || $1 == -* ]]; then
  echo "usage: scripts/release.sh DIST (a directory for the binaries, made if absent)" >&2
  exit 2
fi
dist=$1
rev=$(git rev-parse HEAD 2>/dev/null) || { echo "scripts/release.sh: not a git checkout: the binaries could not be stamped with their commit" >&2; exit 2; }
# The Go toolchain looks for a .git directory: in a git worktree, where
# .git is a file, it stamps nothing, silently.
if [[ -f .git ]]; then
  echo "scripts/release.sh: a git worktree (.git is a file), where the Go toolchain stamps no commit: build from a clone" >&2
  exit 2
fi
# The name the files carry: the tag at HEAD, or the nearest tag and the
# commits past it, or the short revision; -dirty with changes.
version=$(git describe --tags --always --dirty)
targets=${POOLSWEEP_TARGETS:-linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64}
mkdir -p "$dist"
built=()
for t in $targets; do
  os=${t%/*} arch=${t#*/}
  ext=
  [[ $os == windows ]] && ext=.exe
  name=poolsweep-$version-$os-$arch$ext
  start=$SECONDS
  # -buildvcs=true overrides a GOFLAGS=-buildvcs=false in the environment
  # (go env), which would leave the binary unstamped. -trimpath keeps the
  # build machine's paths out of it; -s -w leaves out the symbol table
  # and DWARF (the build information the stamp lives in stays).
  CGO_ENABLED=0 GOOS=$os GOARCH=$arch go build -buildvcs=true -trimpath -ldflags='-s -w' -o "$dist/$name" ./cmd/poolsweep
  stamped=$(go version -m "$dist/$name" | sed -n 's/^[[:space:]]*build[[:space:]]*vcs\.revision=//p')
  if [[ $stamped != "$rev" ]]; then
    echo "scripts/release.sh: $name is stamped with revision '${stamped}', not HEAD's $rev" >&2
    exit 1
  fi
  printf '%-48s %6.1f MB  %3ds\n' "$name" "$(($(wc -c <"$dist/$name") / 100000))e-1" $((SECONDS - start))
  built+=("$name")
done
sum=(sha256sum)
command -v sha256sum >/dev/null || sum=(shasum -a 256) # macOS
(cd "$dist" && "${sum[@]}" "${built[@]}" >SHA256SUMS)
echo "$dist: ${#built[@]} binaries of poolsweep $version, and SHA256SUMS"
