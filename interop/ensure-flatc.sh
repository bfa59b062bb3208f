#!/usr/bin/env bash
# Makes sure flatc (Debian's flatbuffers-compiler, 2.0.8 on bookworm) is on
# PATH, installing it with apt-get when running as root.
set -euo pipefail
if command -v flatc >/dev/null 2>&1; then exit 0; fi
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo -n"; fi
echo "installing flatbuffers-compiler with apt-get"
$SUDO apt-get install -y -qq flatbuffers-compiler >/dev/null 2>&1 || {
  $SUDO apt-get update -qq >/dev/null 2>&1 && $SUDO apt-get install -y -qq flatbuffers-compiler >/dev/null
}
command -v flatc >/dev/null
