#!/usr/bin/env bash
# What the tests need from outside npm, checked before any test runs (`npm test`'s pretest, and .ci/run):
# PostgreSQL's server binaries (support/postgres.ts), Chromium (ui/browser.ts), MediaWiki 1.39 with PHP
# (support/mediawiki.ts), nginx (support/cluster.ts). All there: silent, in milliseconds. Something missing, with apt-get and root or
# sudo without a password: installs it from Debian's packages in one apt step, saying so in one line.
# Missing and not installable that way: one message saying what to run, and exit 1.
# CI=true or --install: installs whatever it takes, through sudo even if sudo asks for a password.
# CONSILIUM_SKIP_SERVICES=postgres,chromium,mediawiki,nginx leaves the named ones out (their tests skip instead).
set -euo pipefail

CHROMIUM="${CONSILIUM_CHROMIUM:-/usr/bin/chromium}"
MEDIAWIKI="${MW_INSTALL_PATH:-/usr/share/mediawiki}"
NGINX="${CONSILIUM_NGINX:-/usr/sbin/nginx}"
skip="${CONSILIUM_SKIP_SERVICES:-}"
SKIPPED=",${skip// /},"

have_postgres() {
  [ -n "${CONSILIUM_TEST_DATABASE_URL:-}" ] && return 0
  [ -n "${PG_BIN:-}" ] && { [ -x "$PG_BIN/initdb" ] && [ -x "$PG_BIN/pg_ctl" ]; return; }
  compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null && return 0
  command -v initdb >/dev/null && command -v pg_ctl >/dev/null
}

have_chromium() {
  [ -x "$CHROMIUM" ]
}

have_mediawiki() {
  [ -f "$MEDIAWIKI/maintenance/install.php" ] || return 1
  command -v php >/dev/null || return 1
  # Listed once into a variable: `php -m | grep -q` under pipefail fails at random, when grep exits at its
  # match before php has written the rest (SIGPIPE).
  local modules module
  modules="$(php -m 2>/dev/null)" || return 1
  for module in pdo_sqlite intl mbstring xml; do
    grep -qix "$module" <<<"$modules" || return 1
  done
}

have_nginx() {
  [ -x "$NGINX" ]
}

# Per missing service: its id (as CONSILIUM_SKIP_SERVICES names it), what it is, its Debian packages,
# and how to give the tests one of your own instead.
missing=() names=() packages=() overrides=()
need() {
  [[ "$SKIPPED" == *",$1,"* ]] && return 0
  "have_$1" && return 0
  missing+=("$1")
  names+=("$2")
  read -ra more <<<"$3"
  packages+=("${more[@]}")
  overrides+=("$4")
}
need postgres "PostgreSQL" "postgresql" \
  "PG_BIN=<the directory of initdb and pg_ctl>, or CONSILIUM_TEST_DATABASE_URL=postgres://… (a server to use)"
# fonts-liberation: metric-compatible fonts, so screenshots and layout do not depend on what else is installed.
need chromium "Chromium" "chromium fonts-liberation" "CONSILIUM_CHROMIUM=<a Chromium binary> (now $CHROMIUM)"
# The mediawiki package recommends Apache; the tests serve the wiki with `php -S` instead.
need mediawiki "MediaWiki with PHP" "mediawiki php-cli php-sqlite3 php-intl php-mbstring php-xml" \
  "MW_INSTALL_PATH=<a MediaWiki 1.39> (now $MEDIAWIKI), with php and its pdo_sqlite, intl, mbstring, xml modules"
# The proxy in front of several instances (test/cluster); the tests run their own, never the system's service.
need nginx "nginx" "nginx" "CONSILIUM_NGINX=<an nginx binary> (now $NGINX)"

[ ${#missing[@]} -eq 0 ] && exit 0

# "A", "A and B", "A, B and C".
listed() {
  local out="$1"
  shift
  while [ $# -gt 1 ]; do
    out+=", $1"
    shift
  done
  [ $# -eq 1 ] && out+=" and $1"
  echo "$out"
}

forced=false
if [ "${1:-}" = "--install" ] || [ "${CI:-}" = "true" ]; then forced=true; fi

# How to become root: "" (already), a sudo command, or none.
sudo=none
if [ "$(id -u)" -eq 0 ]; then
  sudo=""
elif command -v sudo >/dev/null; then
  if $forced; then
    sudo="sudo"
  elif sudo -n true 2>/dev/null; then
    sudo="sudo -n"
  fi
fi

if [ "$sudo" = none ] || ! command -v apt-get >/dev/null; then
  if command -v apt-get >/dev/null; then
    why="installing them needs root, or sudo without a password"
  else
    why="there is no apt-get here to install them with"
  fi
  {
    echo "npm test needs $(listed "${names[@]}"), missing here; $why. To install them (Debian, Ubuntu), run"
    echo "  sudo apt-get update && sudo apt-get install -y --no-install-recommends ${packages[*]}"
    echo "then npm test again. Or give the tests your own:"
    printf '  %s\n' "${overrides[@]}"
    echo "or skip their tests: CONSILIUM_SKIP_SERVICES=$(IFS=,; echo "${missing[*]}") npm test"
  } >&2
  exit 1
fi

log="$(mktemp "${TMPDIR:-/tmp}/consilium-setup.XXXXXX.log")"
echo "Installing $(listed "${names[@]}") from Debian's packages for the tests (log: $log)…"
apt() {
  # $sudo is a command and its options, or nothing: split on purpose.
  # shellcheck disable=SC2086
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get -q -y "$@" >>"$log" 2>&1
}
if ! { apt update && apt install --no-install-recommends "${packages[@]}"; }; then
  echo "apt-get failed; the end of its log ($log):" >&2
  tail -n 20 "$log" >&2
  exit 1
fi

still=()
for i in "${!missing[@]}"; do
  "have_${missing[$i]}" || still+=("${names[$i]}")
done
if [ ${#still[@]} -gt 0 ]; then
  echo "Installed ${packages[*]}, but still missing: $(listed "${still[@]}") (log: $log)." >&2
  exit 1
fi
rm -f "$log"
