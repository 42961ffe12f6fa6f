#!/bin/sh
# .githooks/pre-push — run fast checks before pushing.
# Install with: git config core.hooksPath .githooks
# To skip in an emergency: git push --no-verify (CI will still run everything).

set -e

branch=$(git rev-parse --abbrev-ref HEAD)
if [ "$branch" = "main" ]; then
  echo "pre-push: direct pushes to main are disabled; open a PR instead." >&2
  exit 1
fi

echo "pre-push: running unit tests"
make test-short

echo "pre-push: checking for large files"
git diff --stat --cached origin/"$branch"...HEAD 2>/dev/null | awk '$3 > 5000 {print "large change:", $1}'

if git diff origin/main...HEAD | grep -qE '^\+.*(BEGIN [A-Z ]*PRIVATE KEY|AKIA[0-9A-Z]{16})'; then
  echo "pre-push: looks like a secret is being pushed. Aborting." >&2
  exit 1
fi
