# shellcheck shell=bash
# Sourced by scripts/test.sh: make sure the real MongoDB clients that the
# tests point at the simulator are installed — Debian's python3-pymongo,
# libmongodb-java (the Java driver 3.6, seed 003's client) and a JDK to
# compile the small Java clients with (internal/realclients). As root with
# apt-get it installs what is missing; when all are there it costs a few
# dpkg queries. Without them those tests skip locally and fail in CI
# (CI=true).

clients_packages=(python3-pymongo libmongodb-java default-jdk-headless)

clients_missing() {
  local p
  for p in "${clients_packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || echo "$p"
  done
}

clients_setup() {
  command -v dpkg-query >/dev/null || { echo "== no dpkg: the real-client tests need ${clients_packages[*]}"; return 0; }
  local missing
  missing=$(clients_missing)
  [ -z "$missing" ] && return 0
  # shellcheck disable=SC2086 # one package a word
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "== installing $(echo $missing) (for the real-client tests)"
    # Try without refreshing the package lists first (seconds); refresh
    # only if that fails.
    if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null 2>&1; then
      apt-get update -qq >/dev/null &&
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null ||
        echo "== apt-get could not install $(echo $missing)"
    fi
  else
    echo "== not root, or no apt-get: the real-client tests need $(echo $missing)"
  fi
}
