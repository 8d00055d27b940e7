#!/bin/sh
# Lays out the final image's root filesystem: the auditloop binary, the shared libraries
# `ldd` names for it, the CA certificates, and an empty working directory for the
# non-root user. Nothing else: no shell, no package manager. The Dockerfile's last stage
# copies exactly this tree; check-image.sh runs the binary in it.
#
# A release binary is static (musl): ldd names nothing and only the binary is copied. A
# binary built against glibc (a local `cargo build --release`) brings its libraries and the
# loader along, at the paths the loader looks for them.
#
#   deploy/rootfs.sh BINARY DEST
set -eu
bin=$1
dest=$2
uid=${AUDITLOOP_UID:-65532}

mkdir -p "$dest/usr/local/bin" "$dest/etc/ssl/certs" "$dest/data"
cp "$bin" "$dest/usr/local/bin/auditloop"
chmod 0755 "$dest/usr/local/bin/auditloop"

# Every library the dynamic loader will map, the loader itself included, at its own path.
# ldd fails on a static binary (or one for another architecture, as release.yml's are).
if libs=$(ldd "$bin" 2>/dev/null); then
    echo "$libs" | awk '/=> \//{print $3} /^[[:space:]]*\//{print $1}' | sort -u |
    while read -r lib; do
        mkdir -p "$dest$(dirname "$lib")"
        cp -L "$lib" "$dest$lib"
    done
fi

cp -L /etc/ssl/certs/ca-certificates.crt "$dest/etc/ssl/certs/ca-certificates.crt"
chown "$uid:$uid" "$dest/data"
chmod 0750 "$dest/data"
