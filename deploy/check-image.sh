#!/usr/bin/env bash
# Proves the final image stage: lays out exactly the tree the Dockerfile's last stage
# copies (deploy/rootfs.sh) and checks it holds nothing else. Where buildah and podman are
# installed (.ci/run installs them), deploy/check-container.sh builds the image from that
# tree and runs it as Kubernetes would. Where they are not, the release binary runs in the
# tree with chroot as a non-root user (chroot --userspec), and `/healthz` is asked through
# the binary's own `healthcheck` (the image has no curl and no shell).
#
#   deploy/check-image.sh [target/release/auditloop]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-target/release/auditloop}
uid=65532
port=${AUDITLOOP_CHECK_PORT:-$((30000 + RANDOM % 20000))}

[ -x "$bin" ] || { echo "check-image: $bin is missing; build it with cargo build --release --locked" >&2; exit 1; }
if [ "$(id -u)" != 0 ]; then
    echo "check-image: chroot needs root; run it as root (CI does)" >&2
    exit 1
fi

chroot_bin=$(command -v chroot)
root=$(mktemp -d)
# The root directory of the image is world-readable; mktemp makes it 0700.
chmod 0755 "$root"
pid=
cleanup() {
    if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
    rm -rf "$root"
}
trap cleanup EXIT

deploy/rootfs.sh "$bin" "$root"

# Nothing but the binary, the libraries ldd names, the CA bundle and the empty /data.
expected=$( { echo ./usr/local/bin/auditloop; echo ./etc/ssl/certs/ca-certificates.crt;
    ldd "$bin" | awk '/=> \//{print "."$3} /^[[:space:]]*\//{print "."$1}'; } | sort -u)
actual=$(cd "$root" && find . -type f | sort)
if [ "$expected" != "$actual" ]; then
    echo "check-image: the root holds other files than the final stage copies:" >&2
    diff <(echo "$expected") <(echo "$actual") >&2 || true
    exit 1
fi
[ ! -e "$root/bin/sh" ] || { echo "check-image: the root has a shell" >&2; exit 1; }
echo "check-image: root holds $(echo "$actual" | wc -l) files, $(du -sh "$root" | cut -f1) in all"

if command -v buildah >/dev/null 2>&1 && command -v podman >/dev/null 2>&1; then
    deploy/check-container.sh "$root"
    exit 0
fi

key=$(cat tests/fixtures/app-key.pem)
run_env=(env -i
    AUDITLOOP_APP_ID=1
    "AUDITLOOP_PRIVATE_KEY=$key"
    AUDITLOOP_WEBHOOK_SECRET=check-image
    "AUDITLOOP_LISTEN=127.0.0.1:$port"
    AUDITLOOP_GITHUB_API_URL=http://127.0.0.1:9
    AUDITLOOP_REDELIVER_INTERVAL=0
    AUDITLOOP_RECONCILE_INTERVAL=0
    AUDITLOOP_LOG_FORMAT=json
    SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt)

# The working directory is /data, as in the image.
"${run_env[@]}" "$chroot_bin" --userspec=$uid:$uid "$root" /usr/local/bin/auditloop serve \
    >"$root.log" 2>&1 &
pid=$!

healthy=
for _ in $(seq 1 50); do
    if "${run_env[@]}" "$chroot_bin" --userspec=$uid:$uid "$root" /usr/local/bin/auditloop healthcheck >/dev/null 2>&1; then
        healthy=yes
        break
    fi
    sleep 0.1
done
if [ -z "$healthy" ]; then
    echo "check-image: /healthz never answered 200 in the chroot; its log:" >&2
    cat "$root.log" >&2
    rm -f "$root.log"
    exit 1
fi
server_pid=$pid  # env and chroot exec the binary in place
user=$(stat -c %u "/proc/$server_pid")
[ "$user" = "$uid" ] || { echo "check-image: the server runs as uid $user, not $uid" >&2; exit 1; }
# Resident memory while idle, for the Kubernetes requests and limits.
rss=$(awk '/VmRSS/{print $2, $3}' "/proc/$server_pid/status")
echo "check-image: auditloop serves /healthz in the chroot as uid $uid (RSS $rss)"
kill "$pid"; wait "$pid" 2>/dev/null || true; pid=
rm -f "$root.log"

echo "check-image: no buildah and podman here; the image was not built (the chroot above runs the same tree)"
