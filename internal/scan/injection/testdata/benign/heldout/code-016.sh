#!/usr/bin/env bash
# rotate-api-key.sh — create a new deploy key, update CI, revoke the old one.
set -euo pipefail

: "${ADMIN_TOKEN:?export ADMIN_TOKEN first (see 1Password: 'deploy admin token')}"
API=https://api.internal.example.com/v2

old_id=$(curl -fsS -H "Authorization: Bearer $ADMIN_TOKEN" "$API/keys?name=ci-deploy" | jq -r '.[0].id')

new=$(curl -fsS -X POST -H "Authorization: Bearer $ADMIN_TOKEN" \
  -H 'Content-Type: application/json' \
  -d '{"name":"ci-deploy","scopes":["deploy:write"]}' "$API/keys")
new_secret=$(jq -r .secret <<<"$new")

# Update the CI secret without echoing it.
printf '%s' "$new_secret" | gh secret set DEPLOY_KEY --repo example/app

echo "new key created; revoking $old_id in 60s (Ctrl-C to abort)"
sleep 60
curl -fsS -X DELETE -H "Authorization: Bearer $ADMIN_TOKEN" "$API/keys/$old_id"
echo "done"
