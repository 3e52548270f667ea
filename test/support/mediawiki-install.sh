#!/usr/bin/env bash
# MediaWiki for the live-wiki tests: test/support/mediawiki.ts installs a throwaway wiki on SQLite
# from Debian's `mediawiki` package (1.39.x) and serves it with PHP's built-in server on loopback.
# When it is missing, installs it under CI=true or with --install; otherwise says how and leaves the
# live-wiki tests to skip (they fail instead under CI=true). A no-op, in milliseconds, once installed.
set -euo pipefail

have_mediawiki() {
  [ -f "${MW_INSTALL_PATH:-/usr/share/mediawiki}/maintenance/install.php" ] || return 1
  command -v php >/dev/null || return 1
  # Listed once into a variable: `php -m | grep -q` under pipefail fails at random, when grep exits at its
  # match before php has written the rest (SIGPIPE).
  local modules
  modules="$(php -m 2>/dev/null)" || return 1
  local module
  for module in pdo_sqlite intl mbstring xml; do
    grep -qix "$module" <<<"$modules" || return 1
  done
}

have_mediawiki && exit 0

if [ "${1:-}" != "--install" ] && [ "${CI:-}" != "true" ]; then
  echo "MediaWiki (or PHP with sqlite3, intl, mbstring, xml) not found: the live-wiki tests will be skipped." >&2
  echo "Install it with: bash test/support/mediawiki-install.sh --install (Debian or Ubuntu; root or sudo)." >&2
  exit 0
fi

. "$(dirname "$0")/apt-install.sh"
# The package recommends Apache; the tests serve the wiki with `php -S` instead.
apt_install "MediaWiki and PHP" "install MediaWiki 1.39 and php-cli, php-sqlite3, php-intl, php-mbstring, php-xml another way." \
  mediawiki php-cli php-sqlite3 php-intl php-mbstring php-xml
have_mediawiki || { echo "The mediawiki package is installed, but PHP or its extensions are still missing." >&2; exit 1; }
