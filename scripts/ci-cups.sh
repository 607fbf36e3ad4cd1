#!/usr/bin/env bash
# Installs and starts what the agent's CUPS tests print to (tests/e2e/agent_cups):
#   - cupsd, with a cups-pdf queue `printcloud-pdf` writing into /var/spool/cups-pdf/printcloud
#     (the default printer), and an IPP Everywhere queue `printcloud-ipp`;
#   - an ippeveprinter on ipp://localhost:8631/ipp/print behind `printcloud-ipp`, keeping every
#     document it receives in /var/spool/printcloud-ippeve and holding a job while the file
#     /var/spool/printcloud-ippeve/hold exists (the restart test uses it);
#   - D-Bus and Avahi, without which ippeveprinter does not start. Avahi is limited to the loopback
#     interface so that nothing is announced on the network.
#
# Idempotent: it starts only what is not running, stops nothing, and (re)creates the queues.
# Run it as root (sudo) on Debian or Ubuntu; it installs the Debian packages when they are missing.
set -euo pipefail

IPPEVE_PORT="${PRINTCLOUD_IPPEVE_PORT:-8631}"
IPPEVE_URI="ipp://localhost:${IPPEVE_PORT}/ipp/print"
IPPEVE_DIR=/var/spool/printcloud-ippeve
PDF_OUT=/var/spool/cups-pdf/printcloud
STATE_DIR=/run/printcloud-cups
PACKAGES=(cups cups-client cups-ipp-utils printer-driver-cups-pdf poppler-utils avahi-daemon dbus)

say() { echo "ci-cups: $*" >&2; }

if [[ $(id -u) -ne 0 ]]; then
    say "run me as root (sudo $0): I install packages, start cupsd and add printers"
    exit 1
fi

missing=()
for command in cupsd lpadmin ipptool ippeveprinter pdfinfo avahi-daemon dbus-daemon; do
    command -v "$command" >/dev/null || missing+=("$command")
done
[[ -x /usr/lib/cups/backend/cups-pdf ]] || missing+=(cups-pdf)
if ((${#missing[@]})); then
    say "installing ${PACKAGES[*]} (missing: ${missing[*]})"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q
    apt-get install -y -q --no-install-recommends "${PACKAGES[@]}"
fi

mkdir -p "$STATE_DIR" /run/dbus
install -d -m 0755 "$IPPEVE_DIR"
# The tests (possibly not root) create and remove the hold file here.
chmod 1777 "$IPPEVE_DIR"

wait_for() { # seconds description command...
    local deadline=$((SECONDS + $1)) what=$2
    shift 2
    until "$@" >/dev/null 2>&1; do
        if ((SECONDS > deadline)); then
            say "$what did not come up"
            return 1
        fi
        sleep 0.2
    done
}

if ! dbus-send --system --dest=org.freedesktop.DBus --print-reply / org.freedesktop.DBus.GetId >/dev/null 2>&1; then
    say "starting dbus-daemon"
    rm -f /run/dbus/pid
    dbus-daemon --system --fork
fi

if ! avahi-daemon --check 2>/dev/null; then
    say "starting avahi-daemon (loopback only)"
    cat >"$STATE_DIR/avahi-daemon.conf" <<'EOF'
[server]
allow-interfaces=lo
use-ipv4=yes
use-ipv6=no
[wide-area]
enable-wide-area=no
[publish]
publish-workstation=no
publish-hinfo=no
EOF
    avahi-daemon --daemonize --no-drop-root --no-rlimits --file="$STATE_DIR/avahi-daemon.conf"
    wait_for 10 avahi-daemon avahi-daemon --check
fi

if ! lpstat -r 2>/dev/null | grep -q "is running"; then
    say "starting cupsd"
    cupsd
    wait_for 20 cupsd bash -c 'lpstat -r | grep -q "is running"'
fi

ippeve_answers() { ipptool -T 2 "$IPPEVE_URI" get-printer-attributes.test; }
if ! ippeve_answers >/dev/null 2>&1; then
    say "starting ippeveprinter on $IPPEVE_URI"
    cat >"$IPPEVE_DIR/print-command" <<EOF
#!/bin/sh
# ippeveprinter's print command: the document is already kept (-k); hold while the hold file exists.
while [ -e "$IPPEVE_DIR/hold" ]; do sleep 0.2; done
exit 0
EOF
    chmod 0755 "$IPPEVE_DIR/print-command"
    setsid ippeveprinter -p "$IPPEVE_PORT" -M PrintCloud -m "IPP Everywhere Test" -2 -k \
        -f application/pdf,image/pwg-raster -d "$IPPEVE_DIR" -c "$IPPEVE_DIR/print-command" \
        "PrintCloud IPP" </dev/null >"$STATE_DIR/ippeveprinter.log" 2>&1 &
    echo $! >"$STATE_DIR/ippeveprinter.pid"
    wait_for 20 ippeveprinter ippeve_answers
fi

# cups-pdf reads /etc/cups/cups-pdf-<name>.conf for a queue whose URI is cups-pdf:/<name>.
install -d -m 0755 "$PDF_OUT"
cat >/etc/cups/cups-pdf-printcloud.conf <<EOF
Out $PDF_OUT
AnonDirName $PDF_OUT
UserUMask 0022
Label 1
EOF

if ! lpstat -p printcloud-pdf >/dev/null 2>&1; then
    say "adding queue printcloud-pdf"
    lpadmin -p printcloud-pdf -E -v cups-pdf:/printcloud -P /usr/share/ppd/cups-pdf/CUPS-PDF_opt.ppd \
        -D "PrintCloud PDF" -o printer-is-shared=false
fi
if ! lpstat -p printcloud-ipp >/dev/null 2>&1; then
    say "adding queue printcloud-ipp"
    lpadmin -p printcloud-ipp -E -v "$IPPEVE_URI" -m everywhere -D "PrintCloud IPP Everywhere" \
        -o printer-is-shared=false
fi
# A test may have stopped a queue and died before starting it again.
for queue in printcloud-pdf printcloud-ipp; do
    cupsenable "$queue"
    cupsaccept "$queue"
done
lpadmin -d printcloud-pdf
say "ready: queues printcloud-pdf (default) and printcloud-ipp"
