#!/usr/bin/env bash
# Builds the image's final stage for real (buildah, from deploy/Dockerfile with the tree
# deploy/rootfs.sh laid out around the release binary) and runs it with podman as
# deploy/kubernetes/deployment.yaml runs it: read-only root, uid 65532, every capability
# dropped, no new privileges, the key and the webhook secret mounted as files. From the
# host it asks /healthz and /readyz, sends a signed `ping` delivery (and a forged one),
# and runs `auditloop healthcheck` inside the container. Prints the image's size.
#
#   deploy/check-container.sh ROOT     (ROOT: the tree rootfs.sh laid out; check-image.sh calls it)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$1
uid=65532
port=${AUDITLOOP_CHECK_PORT:-$((30000 + RANDOM % 20000))}
image=localhost/auditloop:ci
name=auditloop-ci-$$
# VFS storage and chroot isolation build without overlay or user namespaces; runc with
# cgroupfs runs where crun refuses a hybrid cgroup hierarchy. podman raises the open-file
# and process limits by default, which an unprivileged parent refuses: set them.
buildah=(buildah --storage-driver vfs)
podman=(podman --storage-driver vfs --cgroup-manager cgroupfs --runtime runc)

work=$(mktemp -d)
cleanup() {
    "${podman[@]}" rm -f "$name" >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT

started=$(date +%s)
# The context holds the tree as an archive, so /data keeps its owner (Dockerfile, `prebuilt`).
mkdir "$work/context"
tar -C "$root" --numeric-owner -cf "$work/context/rootfs-amd64.tar" .
"${buildah[@]}" bud --quiet --isolation chroot --format docker \
    --build-arg ROOTFS=prebuilt --build-arg TARGETARCH=amd64 \
    -f deploy/Dockerfile -t "$image" "$work/context" >/dev/null
size=$("${podman[@]}" image inspect --format '{{.Size}}' "$image")
echo "check-container: built $image from deploy/Dockerfile: $((size / 1024)) KiB ($size bytes)"

# The Secret's files, as the kubelet mounts them: read-only, readable by the pod's user.
secret=check-container-$RANDOM$RANDOM
mkdir "$work/secrets"
cp tests/fixtures/app-key.pem "$work/secrets/private-key.pem"
printf '%s\n' "$secret" > "$work/secrets/webhook-secret"
chown -R "$uid:$uid" "$work/secrets"
chmod 0500 "$work/secrets"
chmod 0400 "$work/secrets"/*

# The image's HEALTHCHECK is exercised below with `podman exec`; podman would schedule it
# through systemd, which a CI container does not run.
"${podman[@]}" run -d --name "$name" --network host --no-healthcheck \
    --read-only --cap-drop ALL --security-opt no-new-privileges --user "$uid:$uid" \
    --ulimit nofile=4096:4096 --ulimit nproc=4096:4096 \
    -v "$work/secrets:/var/run/secrets/auditloop:ro" \
    -e AUDITLOOP_APP_ID=1 \
    -e AUDITLOOP_PRIVATE_KEY_PATH=/var/run/secrets/auditloop/private-key.pem \
    -e AUDITLOOP_WEBHOOK_SECRET_FILE=/var/run/secrets/auditloop/webhook-secret \
    -e "AUDITLOOP_LISTEN=127.0.0.1:$port" \
    -e AUDITLOOP_GITHUB_API_URL=http://127.0.0.1:9 \
    -e AUDITLOOP_REDELIVER_INTERVAL=0 -e AUDITLOOP_RECONCILE_INTERVAL=0 \
    "$image" >/dev/null

fail() {
    echo "check-container: $1; the container's log:" >&2
    "${podman[@]}" logs "$name" >&2 || true
    exit 1
}

base=http://127.0.0.1:$port
ready=
for _ in $(seq 1 100); do
    if [ "$(curl -s -o /dev/null -w '%{http_code}' "$base/readyz")" = 200 ]; then ready=yes; break; fi
    sleep 0.1
done
[ -n "$ready" ] || fail "/readyz never answered 200"
[ "$(curl -s "$base/healthz")" = ok ] || fail "/healthz did not answer ok"
"${podman[@]}" exec "$name" /usr/local/bin/auditloop healthcheck >/dev/null ||
    fail "auditloop healthcheck failed inside the container"

# The settings the runtime applied are the ones asked for.
settings=$("${podman[@]}" inspect --format \
    '{{.HostConfig.ReadonlyRootfs}} {{.Config.User}} {{.HostConfig.SecurityOpt}}' "$name")
case $settings in
    "true $uid:$uid "*no-new-privileges*) ;;
    *) fail "the container runs with $settings" ;;
esac
pid=$("${podman[@]}" inspect --format '{{.State.Pid}}' "$name")
[ "$(stat -c %u "/proc/$pid")" = "$uid" ] || fail "the server does not run as uid $uid"
for set in CapEff CapPrm CapBnd; do
    caps=$(awk -v set="$set:" '$1 == set {print $2}' "/proc/$pid/status")
    [ "$caps" = 0000000000000000 ] || fail "the server's $set is $caps, not empty"
done
grep -q '^NoNewPrivs:[[:space:]]*1' "/proc/$pid/status" || fail "the server may gain privileges"

# A delivery signed with the secret from the file is answered; a forged one is refused.
body='{"zen":"Keep it logically awesome.","hook_id":1,"hook":{"type":"App","id":1,"active":true,"events":["pull_request"],"config":{"content_type":"json","insecure_ssl":"0","url":"https://example.com/webhook"}}}'
signature=sha256=$(printf '%s' "$body" | openssl dgst -sha256 -hmac "$secret" | sed 's/^.*= //')
deliver() {
    curl -s -o /dev/null -w '%{http_code}' -X POST "$base/webhook" \
        -H 'Content-Type: application/json' -H 'X-GitHub-Event: ping' \
        -H "X-GitHub-Delivery: $(cat /proc/sys/kernel/random/uuid)" \
        -H "X-Hub-Signature-256: $1" --data-binary "$body"
}
answer=$(deliver "$signature")
[ "$answer" = 200 ] || fail "the signed ping was answered $answer"
forged=sha256=$(printf '%s' "$body" | openssl dgst -sha256 -hmac "not-$secret" | sed 's/^.*= //')
answer=$(deliver "$forged")
[ "$answer" = 401 ] || fail "a ping signed with another secret was answered $answer"
if "${podman[@]}" logs "$name" 2>&1 | grep -qF "$secret"; then fail "the log shows the webhook secret"; fi

rss=$(awk '/VmRSS/{print $2, $3}' "/proc/$pid/status")
echo "check-container: read-only, uid $uid, no capabilities: /readyz, /healthz, healthcheck inside, signed ping 200, forged ping 401 (RSS $rss; $(( $(date +%s) - started )) s)"
