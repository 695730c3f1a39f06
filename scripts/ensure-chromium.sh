#!/usr/bin/env bash
# Makes sure a Chromium for the browser specs is installed: FORMD_TEST_CHROMIUM,
# or a chromium on the PATH, or else Debian's package (installed when we may).
set -euo pipefail
if [ -n "${FORMD_TEST_CHROMIUM:-}" ] && [ -x "$FORMD_TEST_CHROMIUM" ]; then exit 0; fi
for name in chromium chromium-browser google-chrome-stable google-chrome headless_shell; do
  command -v "$name" >/dev/null 2>&1 && exit 0
done
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
  echo "ensure-chromium: no Chromium found; install Debian's chromium (apt-get install -y chromium) or set FORMD_TEST_CHROMIUM" >&2
  exit 1
fi
echo "ensure-chromium: installing Debian's chromium for the browser specs" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get install -y -q chromium >/dev/null || { apt-get update -q >/dev/null && apt-get install -y -q chromium >/dev/null; }
command -v chromium >/dev/null
