#!/usr/bin/env bash
# Makes sure the machine's PostgreSQL, which the tests share when it answers on 127.0.0.1:5432, has
# connections for every stack a test run starts side by side: each service keeps a pool of 10, and
# the end-to-end, TLS and upgrade tests hold several stacks at once.
#
# Idempotent: it only raises `max_connections` (then restarts the cluster, which that setting
# needs); a machine without a PostgreSQL is left alone, as the tests then start an embedded one.
# Run it as root on Debian or Ubuntu.
set -euo pipefail

WANTED="${PRINTCLOUD_CI_PG_CONNECTIONS:-300}"

say() { echo "ci-postgres: $*" >&2; }

psql_() { psql -h 127.0.0.1 -U postgres -d postgres -Atqc "$1"; }

if ! command -v psql >/dev/null || ! current=$(psql_ "show max_connections" 2>/dev/null); then
    exit 0
fi
if (( current >= WANTED )); then
    exit 0
fi
say "raising max_connections from ${current} to ${WANTED}"
psql_ "alter system set max_connections = ${WANTED}"
read -r version cluster < <(pg_lsclusters --no-header | awk '$3 == 5432 {print $1, $2}')
pg_ctlcluster "$version" "$cluster" restart
for _ in $(seq 100); do
    psql_ "select 1" >/dev/null 2>&1 && exit 0
    sleep 0.1
done
say "PostgreSQL did not come back after its restart"
exit 1
