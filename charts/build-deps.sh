#!/usr/bin/env bash
# Vendors the file:// dependencies: wds-lib into every service chart, then the service charts
# into the umbrella. Run after changing any chart, before `helm lint` / `helm template` / install.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
for chart in gateway scraper crawler batch browser-pool billing docs-search webhooks; do
  helm dependency update "$chart" >/dev/null
done
helm dependency update wds >/dev/null
echo "dependencies vendored"
