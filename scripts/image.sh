#!/usr/bin/env bash
# Prepares the build context of the poolsweep image (Containerfile) in
# .image/, then the image is one docker build or buildah bud away:
#
#   scripts/image.sh [--arch amd64|arm64] [--binary FILE]
#   docker build -f Containerfile -t poolsweep .
#
# .image/rootfs/ becomes the image's /:
#   usr/local/bin/poolsweep             the static linux release binary for
#                                       --arch (default: this machine's), built by
#                                       scripts/release.sh, so stamped with its
#                                       version and commit; --binary FILE takes one
#                                       already built (CI passes its release build)
#   etc/ssl/certs/ca-certificates.crt   Debian's ca-certificates bundle, where Go's
#                                       TLS looks on Linux (else the host's own
#                                       bundle; CA_BUNDLE=FILE names one)
#   etc/passwd, etc/group               the user poolsweep (65532), which the image
#                                       runs as
#   tmp/                                mode 1777
# and .image/work/ the user's work directory.
set -euo pipefail
cd "$(dirname "$0")/.."
usage() {
  echo "usage: scripts/image.sh [--arch amd64|arm64] [--binary FILE]" >&2
  exit 2
}
arch=$(go env GOARCH)
binary=
while (($#)); do
  case $1 in
  --arch) (($# >= 2)) || usage; arch=$2; shift 2 ;;
  --binary) (($# >= 2)) || usage; binary=$2; shift 2 ;;
  *) usage ;;
  esac
done
case $arch in amd64 | arm64) ;; *) echo "scripts/image.sh: --arch: $arch is not amd64 or arm64" >&2; exit 2 ;; esac
# Debian's bundle first (what CI uses), then where Fedora and RHEL, and
# macOS and Alpine, keep theirs.
ca=${CA_BUNDLE:-}
if [[ -z $ca ]]; then
  for f in /etc/ssl/certs/ca-certificates.crt /etc/pki/tls/certs/ca-bundle.crt /etc/ssl/cert.pem; do
    [[ -s $f ]] && { ca=$f; break; }
  done
fi
if [[ -z $ca || ! -s $ca ]] || ! grep -q 'BEGIN CERTIFICATE' "$ca"; then
  echo "scripts/image.sh: CA_BUNDLE: ${ca:-no CA bundle found} is not a PEM bundle of CA certificates (Debian: apt-get install ca-certificates)" >&2
  exit 2
fi
if [[ -n $binary && ! -f $binary ]]; then
  echo "scripts/image.sh: --binary: $binary is not a file" >&2
  exit 2
fi
rm -rf .image
mkdir -p .image/rootfs/usr/local/bin .image/rootfs/etc/ssl/certs .image/rootfs/tmp .image/work
if [[ -z $binary ]]; then
  POOLSWEEP_TARGETS=linux/$arch bash scripts/release.sh .image/dist >/dev/null
  binary=$(ls .image/dist/poolsweep-*-linux-"$arch")
fi
cp "$binary" .image/rootfs/usr/local/bin/poolsweep
chmod 0755 .image/rootfs/usr/local/bin/poolsweep
rm -rf .image/dist
cp "$ca" .image/rootfs/etc/ssl/certs/ca-certificates.crt
chmod 0644 .image/rootfs/etc/ssl/certs/ca-certificates.crt
printf 'root:x:0:0:root:/:/sbin/nologin\npoolsweep:x:65532:65532:poolsweep:/work:/sbin/nologin\n' >.image/rootfs/etc/passwd
printf 'root:x:0:\npoolsweep:x:65532:\n' >.image/rootfs/etc/group
chmod 0644 .image/rootfs/etc/passwd .image/rootfs/etc/group
chmod 1777 .image/rootfs/tmp
chmod 0755 .image/work
echo ".image/: poolsweep for linux/$arch, CA bundle $ca; next: docker build -f Containerfile -t poolsweep ."
