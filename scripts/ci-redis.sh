#!/usr/bin/env bash
# Makes sure the Redis the tests share is there: `redis-server` installed (the rate-limit tests also
# start private ones on free ports and kill them) and a server answering on 127.0.0.1:6379.
#
# Idempotent: it starts a server only when none answers, and never stops or reconfigures one.
# Run it as root (sudo) on Debian or Ubuntu; it installs the Debian package when it is missing.
set -euo pipefail

PORT="${PRINTCLOUD_CI_REDIS_PORT:-6379}"

say() { echo "ci-redis: $*" >&2; }

if ! command -v redis-server >/dev/null || ! command -v redis-cli >/dev/null; then
    if [[ $(id -u) -ne 0 ]]; then
        say "redis-server is missing; run me as root (sudo $0) to install it"
        exit 1
    fi
    say "installing redis-server"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q
    apt-get install -y -q --no-install-recommends redis-server redis-tools
fi

if redis-cli -h 127.0.0.1 -p "$PORT" ping >/dev/null 2>&1; then
    exit 0
fi
say "starting redis-server on 127.0.0.1:${PORT} (no persistence)"
redis-server --bind 127.0.0.1 --port "$PORT" --save "" --appendonly no --daemonize yes \
    --dir /tmp --logfile /tmp/printcloud-ci-redis.log
for _ in $(seq 50); do
    redis-cli -h 127.0.0.1 -p "$PORT" ping >/dev/null 2>&1 && exit 0
    sleep 0.1
done
say "redis-server did not answer on ${PORT}"
exit 1
