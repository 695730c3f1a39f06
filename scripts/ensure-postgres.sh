#!/usr/bin/env bash
# Prints the base URL (no database name) of a PostgreSQL server formd can use,
# starting one if needed:
#   1. the server on 127.0.0.1:5432, when it answers;
#   2. the machine's Debian cluster, started with pg_ctlcluster, when it exists but is down;
#   3. otherwise a project-local cluster under .data/pg on port 55432, created with
#      the machine's initdb/pg_ctl (Debian's postgresql package is installed when missing).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
say() { echo "ensure-postgres: $*" >&2; }

ready() { pg_isready -q -h 127.0.0.1 -p "$1" 2>/dev/null; }

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else return 1; fi; }

if command -v pg_isready >/dev/null && ready 5432; then
  echo "postgres://postgres@127.0.0.1:5432"; exit 0
fi

if command -v pg_ctlcluster >/dev/null && ls /etc/postgresql/*/main >/dev/null 2>&1; then
  ver=$(ls /etc/postgresql | sort -V | tail -n 1)
  say "starting the machine's PostgreSQL $ver cluster"
  as_root pg_ctlcluster --skip-systemctl-redirect "$ver" main start >&2 || true
  for _ in $(seq 1 30); do ready 5432 && { echo "postgres://postgres@127.0.0.1:5432"; exit 0; }; sleep 1; done
  say "the machine's cluster did not answer on 5432; falling back to a project-local cluster"
fi

bindir=""
if command -v pg_config >/dev/null && [ -x "$(pg_config --bindir)/initdb" ]; then bindir=$(pg_config --bindir); fi
if [ -z "$bindir" ]; then bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true); fi
if [ -z "$bindir" ] || [ ! -x "$bindir/initdb" ]; then
  say "installing Debian's postgresql package"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >&2
  bindir=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
fi

port=55432
data="$root/.data/pg"
run_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
if ready "$port"; then echo "postgres://postgres@127.0.0.1:$port"; exit 0; fi
mkdir -p "$data"
if [ "$(id -u)" = 0 ]; then
  chown postgres:postgres "$data" && chmod 700 "$data"
  # The postgres user must reach the folder; a checkout under /root is closed to it.
  if ! runuser -u postgres -- test -w "$data"; then
    data="/var/tmp/formd-pg-$(echo "$root" | md5sum | cut -c1-8)"
    mkdir -p "$data" && chown postgres:postgres "$data" && chmod 700 "$data"
  fi
fi
if [ ! -f "$data/PG_VERSION" ]; then
  say "creating a project-local cluster in $data"
  run_pg "$bindir/initdb" -D "$data" -U postgres -A trust --no-sync >&2
fi
say "starting the project-local cluster on 127.0.0.1:$port"
run_pg "$bindir/pg_ctl" -D "$data" -l "$data/server.log" -w \
  -o "-c listen_addresses=127.0.0.1 -p $port -k /tmp" start >&2
echo "postgres://postgres@127.0.0.1:$port"
