#!/usr/bin/env bash
# CI: the container image (Containerfile), built and run the way a user
# would, without a daemon: Debian's buildah (installed with apt-get when
# missing, as root), vfs storage and chroot isolation, in a throwaway
# storage directory. It builds the image from the linux/amd64 release
# binary BINARY (.ci/cross.sh made it), exports it as an OCI archive,
# then runs poolsweep --version in it, a short sweep in it against the
# simulator on loopback (served by the same binary on this host) and one
# against its own embedded FerretDB,
# and checks that the results header names the build that --version
# names. Any step that cannot run is a failure, never a skip.
#
#   bash .ci/image.sh BINARY
set -euo pipefail
cd "$(dirname "$0")/.."
(($# == 1)) && [[ -f $1 ]] || { echo "usage: .ci/image.sh BINARY (the linux/amd64 release binary)" >&2; exit 2; }
binary=$1
if ! command -v buildah >/dev/null; then
  if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
    echo "== installing buildah"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends buildah >/dev/null 2>&1 ||
      { apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends buildah >/dev/null; }
  fi
  command -v buildah >/dev/null || { echo "== FAILED: no buildah, and it could not be installed (apt-get as root)" >&2; exit 1; }
fi
tmp=$(mktemp -d)
srv=
cleanup() {
  local rc=$?
  if [[ -n $srv ]]; then kill "$srv" 2>/dev/null || true; fi # it may have stopped on its own
  buildah "${store[@]}" rm --all >/dev/null 2>&1 || true
  buildah "${store[@]}" rmi --all --force >/dev/null 2>&1 || true
  rm -rf "$tmp"
  exit "$rc"
}
store=(--root "$tmp/storage" --runroot "$tmp/run" --storage-driver vfs)
trap cleanup EXIT
bah() { buildah "${store[@]}" "$@"; }

bash scripts/image.sh --binary "$binary" >/dev/null
start=$SECONDS
bah bud --quiet --isolation chroot -f Containerfile -t localhost/poolsweep:ci . >/dev/null
echo "== image built in $((SECONDS - start))s: $(bah images --format '{{.Size}}' localhost/poolsweep:ci)"
bah push --quiet --digestfile "$tmp/digest" localhost/poolsweep:ci "oci-archive:$tmp/poolsweep.oci.tar:poolsweep:ci"
echo "== OCI archive: $(($(wc -c <"$tmp/poolsweep.oci.tar") / 1000000)) MB, manifest $(cat "$tmp/digest")"

ctr=$(bah from --quiet localhost/poolsweep:ci)
version=$(bah run --isolation chroot "$ctr" -- /usr/local/bin/poolsweep --version)
echo "== in the image: $version"
rev=$(git rev-parse --short=12 HEAD)
[[ $version == "poolsweep version "*" $rev"* ]] || { echo "== FAILED: the image's --version does not name HEAD ($rev)" >&2; exit 1; }

# The simulator on this host's loopback, from the same binary: it prints
# its URI first and stops when its standard input closes.
mkfifo "$tmp/srv.in"
"$binary" serve --sim slots=4,service=1ms <"$tmp/srv.in" >"$tmp/srv.out" 2>"$tmp/srv.err" &
srv=$!
exec 3>"$tmp/srv.in"
for _ in $(seq 100); do [[ -s $tmp/srv.out ]] && break; sleep 0.1; done
uri=$(head -n1 "$tmp/srv.out")
[[ $uri == mongodb://127.0.0.1:* ]] || { echo "== FAILED: the simulator did not start: $(head -c 300 "$tmp/srv.err")" >&2; exit 1; }
# The image's user (65532) writes the results to a directory of this
# host's, as a user's --out on a mounted volume.
mkdir "$tmp/out" && chown 65532:65532 "$tmp/out"
start=$SECONDS
rc=0
bah run --isolation chroot -v "$tmp/out:/out" "$ctr" -- /usr/local/bin/poolsweep sweep --uri "$uri" \
  --concurrency 1,4 --warmup 1s --duration 1s --no-plot --out /out/sim >"$tmp/sweep.log" 2>&1 || rc=$?
exec 3>&-
echo "== a sweep in the image against the simulator: exit status $rc in $((SECONDS - start))s"
if ((rc != 0)); then
  tail -n 20 "$tmp/sweep.log" >&2
  exit 1
fi
# And with nothing but the image: the embedded FerretDB, as
# docker run IMAGE sweep runs it.
start=$SECONDS
rc=0
bah run --isolation chroot -v "$tmp/out:/out" "$ctr" -- /usr/local/bin/poolsweep sweep \
  --concurrency 1 --warmup 1s --duration 1s --no-plot --out /out/embedded >"$tmp/embedded.log" 2>&1 || rc=$?
echo "== a sweep in the image against its embedded FerretDB: exit status $rc in $((SECONDS - start))s"
if ((rc != 0)); then
  tail -n 20 "$tmp/embedded.log" >&2
  exit 1
fi
header=$(head -n1 "$tmp/out/sim/results.jsonl")
[[ $header == *"\"tool_version\":\"${version#poolsweep version }\""* ]] ||
  { echo "== FAILED: the results header does not name the image's build (${version#poolsweep version })" >&2; exit 1; }
[[ $(stat -c %u "$tmp/out/sim/results.jsonl") == 65532 ]] ||
  { echo "== FAILED: the results were not written by the image's user 65532" >&2; exit 1; }
echo "== the image builds, runs as 65532, and its results header names its build"
