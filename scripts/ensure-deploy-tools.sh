#!/usr/bin/env bash
# Makes sure nginx and Caddy are installed for the deploy-files specs, which check
# docs/deploy/'s nginx and Caddy examples with the real programs (Debian's
# nginx-light and caddy packages, installed when we may). Neither is started:
# the specs run nginx themselves on loopback.
set -euo pipefail
missing=()
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || missing+=(nginx-light)
command -v caddy >/dev/null 2>&1 || missing+=(caddy)
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
  echo "ensure-deploy-tools: missing ${missing[*]}; install them (apt-get install -y ${missing[*]}) or the deploy-files specs skip those checks" >&2
  exit 0
fi
echo "ensure-deploy-tools: installing Debian's ${missing[*]} for the deploy-files specs" >&2
export DEBIAN_FRONTEND=noninteractive
# Keep the packages' services from starting (nginx would take port 80).
policy=/usr/sbin/policy-rc.d
if [ ! -e "$policy" ]; then
  printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod +x "$policy"
  trap 'rm -f "$policy"' EXIT
fi
apt-get install -y -q "${missing[@]}" >/dev/null || { apt-get update -q >/dev/null && apt-get install -y -q "${missing[@]}" >/dev/null; }
