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

. "$(dirname "$0")/apt-install.sh"
# fonts-liberation: metric-compatible fonts, so screenshots and layout do not depend on what else is installed.
apt_install Chromium "install Chromium another way and set CONSILIUM_CHROMIUM." chromium fonts-liberation
[ -x "$CHROMIUM" ] || { echo "The chromium package is installed, but $CHROMIUM is still missing." >&2; exit 1; }
