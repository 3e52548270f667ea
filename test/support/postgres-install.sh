#!/usr/bin/env bash
# PostgreSQL's server binaries for the tests: test/support/postgres.ts starts a throwaway cluster
# with them (initdb, pg_ctl; pg_dump and pg_restore for the backup test). When they are missing,
# installs Debian's `postgresql` package under CI=true or with --install; otherwise says how and
# leaves the PostgreSQL tests to skip. A no-op, in milliseconds, once they are there.
set -euo pipefail

have_postgres() {
  [ -n "${CONSILIUM_TEST_DATABASE_URL:-}" ] && return 0
  [ -n "${PG_BIN:-}" ] && { [ -x "$PG_BIN/initdb" ]; return; }
  compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null && return 0
  command -v initdb >/dev/null && command -v pg_ctl >/dev/null
}

have_postgres && exit 0

if [ "${1:-}" != "--install" ] && [ "${CI:-}" != "true" ]; then
  echo "PostgreSQL server binaries (initdb, pg_ctl) not found: the PostgreSQL store's tests will be skipped." >&2
  echo "Install them with: bash test/support/postgres-install.sh --install (Debian or Ubuntu; root or sudo)," >&2
  echo "or point the tests at a server with CONSILIUM_TEST_DATABASE_URL=postgres://..." >&2
  exit 0
fi

. "$(dirname "$0")/apt-install.sh"
apt_install PostgreSQL "install PostgreSQL (initdb, pg_ctl, pg_dump) another way, or set CONSILIUM_TEST_DATABASE_URL." postgresql
have_postgres || { echo "The postgresql package is installed, but initdb is still not found." >&2; exit 1; }
