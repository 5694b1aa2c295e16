# shellcheck shell=bash
# Sourced by scripts/test.sh: make sure a throwaway PostgreSQL cluster runs on
# a loopback port for the PostgreSQL-backed FerretDB tests, and export
# POOLSWEEP_TEST_PG_URL for them. Without root (no apt-get) and without an
# installed PostgreSQL, those tests are skipped with a message saying so.

PG_PORT=${POOLSWEEP_PG_PORT:-54329}
PG_DIR=${POOLSWEEP_PG_DIR:-/tmp/poolsweep-pg}

pg_bindir() {
  ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1
}

pg_setup() {
  local bin
  bin=$(pg_bindir)
  if [ -z "$bin" ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
      echo "== installing Debian's postgresql (for the PostgreSQL-backed FerretDB tests)"
      if apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null; then
        bin=$(pg_bindir)
      else
        echo "== apt-get could not install postgresql"
      fi
    fi
  fi
  if [ -z "$bin" ]; then
    echo "== PostgreSQL not available (not root, or no apt-get): PostgreSQL-backed tests will be skipped"
    return 0
  fi
  local run_as=()
  if [ "$(id -u)" = 0 ]; then
    run_as=(runuser -u postgres --)
  fi
  if ! "${run_as[@]}" "$bin/pg_ctl" -D "$PG_DIR/data" status >/dev/null 2>&1; then
    rm -rf "$PG_DIR"
    mkdir -p "$PG_DIR"
    [ "$(id -u)" = 0 ] && chown postgres "$PG_DIR"
    "${run_as[@]}" "$bin/initdb" -D "$PG_DIR/data" -U postgres --auth=trust -E UTF8 >/dev/null
    # FerretDB deadlocks under concurrent updates with a small backend pool:
    # give PostgreSQL room for pool_max_conns=300 (see DESIGN.md).
    "${run_as[@]}" "$bin/pg_ctl" -D "$PG_DIR/data" -w -l "$PG_DIR/log" start \
      -o "-p $PG_PORT -c listen_addresses=127.0.0.1 -c unix_socket_directories=$PG_DIR -c max_connections=500 -c fsync=off" >/dev/null
    "${run_as[@]}" "$bin/createdb" -h 127.0.0.1 -p "$PG_PORT" -U postgres ferretdb
  fi
  export POOLSWEEP_TEST_PG_URL="postgres://postgres@127.0.0.1:$PG_PORT/ferretdb?pool_max_conns=300"
  # The deadlock test's backend: FerretDB's default pool (50 connections).
  export POOLSWEEP_TEST_PG_URL_SMALLPOOL="postgres://postgres@127.0.0.1:$PG_PORT/ferretdb_small"
  "${run_as[@]}" "$bin/createdb" -h 127.0.0.1 -p "$PG_PORT" -U postgres ferretdb_small 2>/dev/null || true
  echo "== PostgreSQL $("$bin/postgres" --version | awk '{print $3}') on 127.0.0.1:$PG_PORT ($PG_DIR)"
}

pg_teardown() {
  local bin
  bin=$(pg_bindir)
  [ -n "$bin" ] && [ -d "$PG_DIR/data" ] || return 0
  if [ "$(id -u)" = 0 ]; then
    runuser -u postgres -- "$bin/pg_ctl" -D "$PG_DIR/data" -m fast stop >/dev/null 2>&1 || true
  else
    "$bin/pg_ctl" -D "$PG_DIR/data" -m fast stop >/dev/null 2>&1 || true
  fi
  rm -rf "$PG_DIR"
}
