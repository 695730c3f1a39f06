#!/usr/bin/env bash
# Regenerates domain/form/spamdata/disposable_domains.txt, the disposable
# email domains the spam rule blockDisposable matches, from the community
# list (CC0): github.com/disposable-email-domains/disposable-email-domains.
# Usage: scripts/update-disposable-domains.sh [commit-or-branch]  (default: main)
set -euo pipefail
ref="${1:-main}"
repo=disposable-email-domains/disposable-email-domains
out="$(dirname "$0")/../domain/form/spamdata/disposable_domains.txt"
list=$(curl -fsSL "https://raw.githubusercontent.com/$repo/$ref/disposable_email_blocklist.conf")
# Only lower-case domain names make it into the file.
domains=$(printf '%s\n' "$list" | tr -d '\r' | tr 'A-Z' 'a-z' | grep -E '^[a-z0-9.-]+\.[a-z0-9-]+$' | sort -u)
{
  echo "# Disposable email address domains, one a line (lines starting with # are comments)."
  echo "# Source: https://github.com/$repo"
  echo "# (disposable_email_blocklist.conf, CC0 1.0 Universal), $ref of $(date -u +%Y-%m-%d)."
  echo "# Regenerate with scripts/update-disposable-domains.sh."
  printf '%s\n' "$domains"
} >"$out"
echo "$(printf '%s\n' "$domains" | wc -l) domains written to $out" >&2
