#!/usr/bin/env bash
# Makes sure clamd (and sigtool) are installed for the malware scanner tests:
# Debian's clamav-daemon, installed when we may. It never downloads
# signatures: the tests make their own database offline (EICAR only), so the
# daemons the package ships (clamav-daemon, clamav-freshclam) are kept from
# starting and left disabled.
set -euo pipefail
export PATH="$PATH:/usr/sbin:/sbin"
if command -v clamd >/dev/null 2>&1; then exit 0; fi
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
  echo "ensure-clamd: no clamd found; install Debian's clamav-daemon (apt-get install -y clamav-daemon) without running freshclam" >&2
  exit 1
fi
echo "ensure-clamd: installing Debian's clamav-daemon for the malware scanner tests (no signatures are downloaded)" >&2
export DEBIAN_FRONTEND=noninteractive
# A policy-rc.d that answers 101 keeps the package scripts from starting the
# daemons (clamd without a database, freshclam downloading signatures).
policy=/usr/sbin/policy-rc.d
made_policy=
if [ ! -e "$policy" ]; then
  printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod +x "$policy" && made_policy=1
fi
cleanup() { if [ -n "$made_policy" ]; then rm -f "$policy"; fi; }
trap cleanup EXIT
apt-get install -y -q --no-install-recommends clamav-daemon >/dev/null ||
  { apt-get update -q >/dev/null && apt-get install -y -q --no-install-recommends clamav-daemon >/dev/null; }
# Under systemd the units may be enabled anyway: stop and disable them.
if command -v systemctl >/dev/null 2>&1 && [ -d /run/systemd/system ]; then
  systemctl disable --now clamav-daemon.service clamav-daemon.socket clamav-freshclam.service >/dev/null 2>&1 || true
fi
command -v clamd >/dev/null
