#!/usr/bin/env bash
# Installs `promtool` (Prometheus's rule checker) for the alert-rule tests (tests/telemetry).
#
# Only the binary: it is taken out of Debian's `prometheus` package without installing the package,
# so no Prometheus server is set up or started on the machine. Idempotent: does nothing when
# promtool is already on PATH. Run it as root on Debian or Ubuntu.
set -euo pipefail

TARGET="${PROMTOOL_TARGET:-/usr/local/bin/promtool}"

say() { echo "ci-promtool: $*" >&2; }

if command -v promtool >/dev/null 2>&1; then
    exit 0
fi
if [[ $(id -u) -ne 0 ]]; then
    say "run me as root (sudo $0): I write $TARGET"
    exit 1
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"
if ! apt-get download prometheus >/dev/null 2>&1; then
    apt-get update -qq
    apt-get download prometheus >/dev/null
fi
dpkg-deb -x prometheus_*.deb extracted
install -m 0755 extracted/usr/bin/promtool "$TARGET"
say "$("$TARGET" --version 2>&1 | head -1)"
