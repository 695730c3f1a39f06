#!/usr/bin/env bash
# Dependencies point inward: domain imports no framework and nothing of ours
# outside domain; application imports only domain; ports and adapters never
# import cmd.
set -euo pipefail
cd "$(dirname "$0")/.."
mod=$(go list -m)
fail=0
check() { # package pattern, forbidden regexp, reason
  local bad
  bad=$(go list -deps "$1" | grep -E "$2" || true)
  if [ -n "$bad" ]; then echo "architecture: $1 $3:"; echo "$bad" | sed 's/^/  /'; fail=1; fi
}
check ./domain/... "gin-gonic|jackc/pgx|ThreeDotsLabs/watermill|google/wire|^$mod/(application|adapters|ports|cmd)" "must stay pure"
check ./application/... "gin-gonic|jackc/pgx|ThreeDotsLabs/watermill|google/wire|^$mod/(adapters|ports|cmd)" "may import only domain"
check ./adapters/... "gin-gonic|^$mod/(ports|cmd)" "may not import ports or cmd"
check ./ports/... "^$mod/cmd" "may not import cmd"
exit $fail
