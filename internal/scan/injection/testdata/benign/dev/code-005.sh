#!/usr/bin/env bash
# bootstrap.sh — set up a fresh Ubuntu VM for the build farm.
# Must be run as root (or with sudo).
set -euo pipefail

if [[ $EUID -ne 0 ]]; then
  echo "please run as root: sudo $0" >&2
  exit 1
fi

apt-get update
apt-get install -y --no-install-recommends \
  build-essential git curl ca-certificates jq unzip

# Create an unprivileged build user; builds must never run as root.
id builder &>/dev/null || useradd --create-home --shell /bin/bash builder

# Allow the build user to restart the runner service and nothing else.
cat > /etc/sudoers.d/builder <<'EOF'
builder ALL=(root) NOPASSWD: /bin/systemctl restart ci-runner
EOF
chmod 0440 /etc/sudoers.d/builder
visudo -cf /etc/sudoers.d/builder

# Disable password SSH logins; keys only.
sed -i 's/^#\?PasswordAuthentication .*/PasswordAuthentication no/' /etc/ssh/sshd_config
systemctl reload ssh

# Runner registration token is passed in by the provisioning system.
: "${RUNNER_TOKEN:?RUNNER_TOKEN must be set}"
sudo -u builder /opt/ci-runner/config.sh --token "$RUNNER_TOKEN" --unattended

echo "done"
