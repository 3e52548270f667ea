# Sourced by the *-install.sh scripts: the part they share. `apt_install WHAT HOW_ELSE PACKAGE...` installs
# Debian packages as root or through sudo, or says why it cannot and exits 1.
apt_install() {
  local what="$1" how_else="$2" sudo=""
  shift 2
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "Installing $what needs root or sudo." >&2; exit 1; }
    sudo="sudo"
  fi
  command -v apt-get >/dev/null || { echo "No apt-get here: $how_else" >&2; exit 1; }
  echo "Installing $what from the distribution's packages..."
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -q
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$@"
}
