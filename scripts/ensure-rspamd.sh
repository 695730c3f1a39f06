#!/usr/bin/env bash
# Makes sure a test rspamd runs for the spam classifier's tests: Debian's
# rspamd, installed when we may, started with the test configuration in
# scripts/rspamd/ (loopback only, Bayes in database 15 of the machine's
# Redis, no network lookups). The package's own daemon is kept from starting
# and left disabled. A second run finds the test rspamd answering and
# returns; a changed configuration restarts it.
#
# It prints the variables the tests read, one NAME=value a line (also kept
# in $FORMD_TEST_RSPAMD_DIR/endpoints.env), and says on stderr where it
# listens. Its state (database, pid file, log) lives in
# FORMD_TEST_RSPAMD_DIR, /tmp/formd-rspamd unless set.
set -euo pipefail
export PATH="$PATH:/usr/sbin:/sbin"
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${FORMD_TEST_RSPAMD_DIR:-/tmp/formd-rspamd}
say() { echo "ensure-rspamd: $*" >&2; }

# The addresses and password of scripts/rspamd/rspamd.conf.
scanner=http://127.0.0.1:11433
controller=http://127.0.0.1:11434
password=formd-test-password

if ! command -v rspamd >/dev/null 2>&1 || ! command -v curl >/dev/null 2>&1; then
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
    say "no rspamd (or curl) found; install Debian's rspamd and curl (apt-get install -y rspamd curl)"
    exit 1
  fi
  say "installing Debian's rspamd for the spam classifier tests"
  export DEBIAN_FRONTEND=noninteractive
  # A policy-rc.d that answers 101 keeps the package scripts from starting
  # the system's rspamd (on the default ports, with network lookups).
  policy=/usr/sbin/policy-rc.d
  made_policy=
  if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod +x "$policy" && made_policy=1
  fi
  cleanup() { if [ -n "$made_policy" ]; then rm -f "$policy"; fi; }
  trap cleanup EXIT
  # curl asks the workers whether they answer.
  apt-get install -y -q --no-install-recommends rspamd curl >/dev/null ||
    { apt-get update -q >/dev/null && apt-get install -y -q --no-install-recommends rspamd curl >/dev/null; }
  if command -v systemctl >/dev/null 2>&1 && [ -d /run/systemd/system ]; then
    systemctl disable --now rspamd.service >/dev/null 2>&1 || true
  fi
  command -v rspamd >/dev/null && command -v curl >/dev/null
fi

# Bayes keeps its counts in Redis: without it every check would still
# answer, but learning would fail.
if ! redis-cli -h 127.0.0.1 -p 6379 ping 2>/dev/null | grep -q PONG; then
  say "Redis does not answer on 127.0.0.1:6379; the test rspamd keeps its Bayes statistics there (.ci/run starts it)"
  exit 1
fi

# Each worker answers /ping with pong (the controller adds a CRLF).
answers() { [ "$(curl -s -m 2 "$1/ping" 2>/dev/null | tr -d '\r\n')" = pong ]; }

report() {
  printf 'FORMD_TEST_RSPAMD_URL=%s\nFORMD_TEST_RSPAMD_CONTROLLER_URL=%s\nFORMD_TEST_RSPAMD_PASSWORD=%s\n' \
    "$scanner" "$controller" "$password" >"$dir/endpoints.env.tmp"
  mv "$dir/endpoints.env.tmp" "$dir/endpoints.env"
  say "scanner at $scanner, controller at $controller (log: $dir/state/rspamd.log)"
  cat "$dir/endpoints.env"
}

mkdir -p "$dir"
# One run at a time: two test runs starting at once must not both start it.
exec 9>"$dir/lock"
flock 9

if answers "$scanner" && answers "$controller" && diff -rq "$root/scripts/rspamd" "$dir/conf" >/dev/null 2>&1; then
  report
  exit 0
fi

# The pid file may outlive its rspamd (a machine restarted, say): only a
# process that is rspamd is stopped.
pidfile="$dir/state/rspamd.pid"
pid=$(cat "$pidfile" 2>/dev/null || true)
if [ -n "$pid" ] && [ "$(ps -o comm= -p "$pid" 2>/dev/null)" = rspamd ]; then
  say "restarting the test rspamd with the current configuration"
  kill "$pid"
  for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
fi

rm -rf "$dir/conf"
cp -r "$root/scripts/rspamd" "$dir/conf"
mkdir -p "$dir/state"
user=()
# Its workers refuse to run as root; the package's _rspamd user runs them.
if [ "$(id -u)" = 0 ] && id _rspamd >/dev/null 2>&1; then
  chown -R _rspamd:_rspamd "$dir/state"
  user=(-u _rspamd -g _rspamd)
fi
say "starting the test rspamd (configuration: scripts/rspamd)"
# It forks into the background; its start-up output goes to a file, so
# that it holds no pipe of ours open, nor the lock.
(cd "$dir/state" && rspamd -c "$dir/conf/rspamd.conf" --var="LOCAL_CONFDIR=$dir/conf" --var="DBDIR=$dir/state" "${user[@]}") \
  </dev/null >"$dir/state/start.log" 2>&1 9>&-
for _ in $(seq 1 100); do
  if answers "$scanner" && answers "$controller"; then
    report
    exit 0
  fi
  sleep 0.2
done
say "the test rspamd did not answer within 20 s; its log:"
tail -n 20 "$dir/state/rspamd.log" >&2 || true
exit 1
