#!/usr/bin/env bash
# Dependencies point inward (README: Architecture):
#   domain       imports no framework and nothing of ours outside domain;
#   application  imports only domain (it declares the interfaces it needs);
#   ports        never import adapters or cmd: they see only the application
#                (and ports/portkit, which they share);
#   adapters     never import ports, cmd or another adapter (an adapter is
#                adapters/<name>/ with its subpackages); cmd/formd wires them.
# Tests follow the same rules, with one exception: an adapter's or a port's
# _test files may import adapters/postgres/pgtest, which hands a test a
# fresh migrated database. Nothing else of another adapter, in tests either.
set -euo pipefail
cd "$(dirname "$0")/.."
mod=$(go list -m)
pgtest="$mod/adapters/postgres/pgtest"
fail=0
# A package that does not load (an import cycle, say) must fail the check,
# not vanish from the lists below.
go list -test -deps ./... >/dev/null
report() { # what, offenders
  if [ -n "$2" ]; then echo "architecture: $1:"; echo "$2" | sed 's/^/  /'; fail=1; fi
}
# deps lists what the packages of a pattern build on, transitively.
check() { # package pattern, forbidden regexp, reason
  report "$1 $3" "$(go list -deps "$1" | grep -E "$2" || true)"
}
check ./domain/... "gin-gonic|jackc/pgx|ThreeDotsLabs/watermill|google/wire|^$mod/(application|adapters|ports|cmd)" "must stay pure"
check ./application/... "gin-gonic|jackc/pgx|ThreeDotsLabs/watermill|google/wire|^$mod/(adapters|ports|cmd)" "may import only domain"
check ./ports/... "^$mod/(adapters|cmd)(/|$)" "may not import adapters or cmd"
check ./adapters/... "gin-gonic|^$mod/(ports|cmd)(/|$)" "may not import ports or cmd"
# Each driving port stands alone in front of the application: the JSON API,
# the dashboard, the MCP server and the event router share nothing but it
# and ports/portkit, the shapes and request plumbing they have in common,
# which itself imports no port.
kit="$mod/ports/portkit"
for port in ports/*/; do
  name=$(basename "$port")
  report "./ports/$name may not import another port but $kit" \
    "$(go list -deps "./ports/$name/..." | grep -E "^$mod/ports/" | grep -vE "^$mod/ports/$name(/|$)" | grep -vE "^$kit(/|$)" || true)"
done
report "$kit may not import a port" "$(go list -deps "./ports/portkit/..." | grep -E "^$mod/ports/" | grep -vE "^$kit(/|$)" || true)"

# Direct imports, one line per "package imported", production and test code
# apart, so an adapter importing another adapter is caught even where the
# transitive list above cannot tell whose import it was.
imports() { # pattern, go list fields
  go list -f "{{\$p := .ImportPath}}{{range $2}}{{\$p}} {{.}}{{\"\n\"}}{{end}}" "$1"
}
adapter_of() { sed -E "s#^$mod/adapters/([^/ ]+).*#\1#"; }
cross_adapter() { # reads "pkg imported" lines, prints those that cross adapters
  while read -r pkg imp; do
    case "$imp" in "$mod"/adapters/*) ;; *) continue ;; esac
    if [ "$(echo "$pkg" | adapter_of)" != "$(echo "$imp" | adapter_of)" ]; then echo "$pkg imports $imp"; fi
  done
}
report "an adapter may not import another adapter" "$(imports ./adapters/... .Imports | cross_adapter)"
report "an adapter's tests may import only $pgtest of another adapter" \
  "$( { imports ./adapters/... .TestImports; imports ./adapters/... .XTestImports; } | grep -v " $pgtest\$" | cross_adapter)"
report "a port's tests may import only $pgtest of the adapters" \
  "$( { imports ./ports/... .TestImports; imports ./ports/... .XTestImports; } | grep -E " $mod/(adapters|cmd)(/|$)" | grep -v " $pgtest\$" | sed 's/ / imports /' || true)"
exit $fail
