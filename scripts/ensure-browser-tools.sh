#!/usr/bin/env bash
# Installs the browser specs' npm tools (axe-core, pinned in
# features/browser/package-lock.json) with `npm ci` when they are missing or
# older than the lock file. Needs Node.js and npm; installs Debian's when we may.
set -euo pipefail
cd "$(dirname "$0")/../features/browser"
if [ -f node_modules/axe-core/axe.min.js ] && [ node_modules/.package-lock.json -nt package-lock.json ]; then exit 0; fi
if ! command -v npm >/dev/null 2>&1; then
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
    echo "ensure-browser-tools: npm not found; install Node.js and npm, then run: (cd features/browser && npm ci)" >&2
    exit 1
  fi
  echo "ensure-browser-tools: installing Debian's nodejs and npm for the browser specs" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -q nodejs npm >/dev/null || { apt-get update -q >/dev/null && apt-get install -y -q nodejs npm >/dev/null; }
fi
echo "ensure-browser-tools: npm ci in features/browser" >&2
npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >&2
