#!/usr/bin/env bash
# apt-install.sh MESSAGE PKG...: says MESSAGE, then installs the Debian
# packages PKG... quietly, without their recommends, through sudo unless
# already root.  For scripts/install-deps.sh and scripts/bench.sh --setup,
# which decide first what is missing.
set -euo pipefail
echo "$1"
shift
SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "$@" >/dev/null
