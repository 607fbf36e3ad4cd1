#!/usr/bin/env bash
# Installs Debian's Chromium for the dashboard's browser tests (tests/e2e/dashboard), which drive it
# with Playwright at /usr/bin/chromium. Nothing downloads a browser: `playwright install` is never run.
#
# Idempotent: it installs only when /usr/bin/chromium is missing. Run it as root on Debian or Ubuntu.
set -euo pipefail

say() { echo "ci-chromium: $*" >&2; }

if [[ -x /usr/bin/chromium ]]; then
    say "ready: $(/usr/bin/chromium --version 2>/dev/null || echo /usr/bin/chromium)"
    exit 0
fi
if [[ $(id -u) -ne 0 ]]; then
    say "run me as root (sudo $0): I install the chromium package"
    exit 1
fi
say "installing chromium"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends chromium
say "ready: $(/usr/bin/chromium --version 2>/dev/null || echo /usr/bin/chromium)"
