#!/usr/bin/env bash
# Builds otelcol-moat, an OpenTelemetry Collector with the OTLP receiver and the OTLP/HTTP
# and debug exporters, for moat's OTLP end-to-end test (cmd/moat/otlp_e2e_unix_test.go).
# It is built from the collector's Go modules in a temporary module outside the
# repository (nothing of it lands in moat's go.mod), into CI's cache, and rebuilt only
# when the pinned release changes. Source it: it exports MOAT_TEST_OTELCOL.
#   . .ci/otelcol.sh
set -euo pipefail

# One collector release: core v0.165.0 with its stable modules at v1.71.0.
otelcol_core=v0.165.0
otelcol_stable=v1.71.0
otelcol_bin="${XDG_CACHE_HOME:-$HOME/.cache}/moat-ci/bin/otelcol-moat"
otelcol_stamp="$otelcol_bin.version"
otelcol_want="$otelcol_core/$otelcol_stable/$(sha256sum "$(dirname "${BASH_SOURCE[0]}")/otelcol/main.go.txt" | cut -c1-16)"

if [ ! -x "$otelcol_bin" ] || [ "$(cat "$otelcol_stamp" 2>/dev/null)" != "$otelcol_want" ]; then
  otelcol_src=$(mktemp -d)
  cp "$(dirname "${BASH_SOURCE[0]}")/otelcol/main.go.txt" "$otelcol_src/main.go"
  (
    cd "$otelcol_src"
    export GOFLAGS=-mod=mod CGO_ENABLED=0
    cat >go.mod <<MOD
module moat.local/otelcol-moat

go 1.26
MOD
    start=$SECONDS
    go get go.opentelemetry.io/collector/otelcol@$otelcol_core \
      go.opentelemetry.io/collector/receiver/otlpreceiver@$otelcol_core \
      go.opentelemetry.io/collector/exporter/otlphttpexporter@$otelcol_core \
      go.opentelemetry.io/collector/exporter/debugexporter@$otelcol_core \
      go.opentelemetry.io/collector/service@$otelcol_core \
      go.opentelemetry.io/collector/confmap@$otelcol_stable \
      go.opentelemetry.io/collector/confmap/provider/fileprovider@$otelcol_stable \
      go.opentelemetry.io/collector/component@$otelcol_stable \
      go.opentelemetry.io/collector/exporter@$otelcol_stable \
      go.opentelemetry.io/collector/receiver@$otelcol_stable >/dev/null
    mkdir -p "$(dirname "$otelcol_bin")"
    go build -trimpath -o "$otelcol_bin.tmp" .
    mv "$otelcol_bin.tmp" "$otelcol_bin"
    echo "built $otelcol_bin in $((SECONDS - start))s"
  )
  rm -rf "$otelcol_src"
  echo "$otelcol_want" >"$otelcol_stamp"
fi
"$otelcol_bin" --version
export MOAT_TEST_OTELCOL="$otelcol_bin"
