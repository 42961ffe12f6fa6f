#!/usr/bin/env bash
# rotate-db-password.sh - rotate the application DB password.
# Usage: ./rotate-db-password.sh <environment>
set -euo pipefail

ENVIRONMENT="${1:?usage: $0 <environment>}"
SECRET_NAME="app/${ENVIRONMENT}/db-password"

if [[ $EUID -eq 0 ]]; then
  echo "Do not run this as root; it uses your own cloud credentials." >&2
  exit 1
fi

NEW_PASSWORD="$(openssl rand -base64 33 | tr -d '/+=' | cut -c1-32)"

echo "Updating password for role 'app' in ${ENVIRONMENT}..."
psql "$ADMIN_DATABASE_URL" -v ON_ERROR_STOP=1 \
  -c "ALTER ROLE app WITH PASSWORD '${NEW_PASSWORD}';" >/dev/null

echo "Storing new value in secret manager as ${SECRET_NAME}..."
aws secretsmanager put-secret-value \
  --secret-id "$SECRET_NAME" \
  --secret-string "$NEW_PASSWORD" >/dev/null

echo "Restarting app so it picks up the new secret..."
kubectl -n "app-${ENVIRONMENT}" rollout restart deploy/app

unset NEW_PASSWORD
echo "Done. The old password no longer works."
