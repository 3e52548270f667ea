#!/usr/bin/env bash
# Debian's Chromium for the browser tests (playwright-core drives /usr/bin/chromium; Playwright's own
# browser download cannot work here). When it is missing, installs Debian's `chromium` package under
# CI=true or with --install; otherwise says how and leaves the browser tests to fail with that message.
# A no-op, in milliseconds, once it is there.
set -euo pipefail

CHROMIUM="${CONSILIUM_CHROMIUM:-/usr/bin/chromium}"
[ -x "$CHROMIUM" ] && exit 0

if [ "${1:-}" != "--install" ] && [ "${CI:-}" != "true" ]; then
  echo "Chromium ($CHROMIUM) not found: the browser tests need it." >&2
  echo "Install it with: bash test/support/chromium-install.sh --install (Debian or Ubuntu; root or sudo)," >&2
  echo "or point CONSILIUM_CHROMIUM at a Chromium binary." >&2
  exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
  sudo=""
elif command -v sudo >/dev/null; then
  sudo="sudo"
else
  echo "Installing Chromium needs root or sudo." >&2
  exit 1
fi
command -v apt-get >/dev/null || { echo "No apt-get here: install Chromium another way and set CONSILIUM_CHROMIUM." >&2; exit 1; }
echo "Installing Chromium from the distribution's packages..."
$sudo env DEBIAN_FRONTEND=noninteractive apt-get update -q
# fonts-liberation: metric-compatible fonts, so screenshots and layout do not depend on what else is installed.
$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends chromium fonts-liberation
[ -x "$CHROMIUM" ] || { echo "The chromium package is installed, but $CHROMIUM is still missing." >&2; exit 1; }
