#!/usr/bin/env bash
# The auditor action's install step (action.yml): puts an auditloop binary in place for the
# rest of the job and exports its path as AUDITLOOP in $GITHUB_ENV. In order:
#   1. AUDITLOOP_BINARY, when the workflow gives one;
#   2. the release archive for this runner (docs/reference.md#releases-and-installation), kept in the runner's tool cache:
#      the version asked for (AUDITLOOP_VERSION), else the action's own ref when it is a
#      release tag, else the latest release of the repository the action comes from; the
#      archive's `.sha256` is checked and a mismatch fails the step;
#   3. only when that release has no archive for this runner (or the repository has no
#      release), a build from the action's own checkout, saying so.
#
# Environment: AUDITLOOP_BINARY, AUDITLOOP_VERSION, AUDITLOOP_ACTION_REPOSITORY,
# AUDITLOOP_ACTION_REF, AUDITLOOP_ACTION_PATH, AUDITLOOP_TOKEN, and the runner's GITHUB_API_URL,
# RUNNER_OS, RUNNER_ARCH, RUNNER_TOOL_CACHE, RUNNER_TEMP, GITHUB_ENV.
set -euo pipefail

say() { echo "auditloop: $*"; }
die() { echo "::error title=auditloop install::$*"; exit 1; }

export_binary() {
    "$1" --version
    echo "AUDITLOOP=$1" >> "$GITHUB_ENV"
}

if [ -n "${AUDITLOOP_BINARY:-}" ]; then
    say "using the given binary $AUDITLOOP_BINARY"
    export_binary "$AUDITLOOP_BINARY"
    exit 0
fi

api=${GITHUB_API_URL:-https://api.github.com}
action_path=${AUDITLOOP_ACTION_PATH:?the action path is not set}
repository=${AUDITLOOP_ACTION_REPOSITORY:-}
ref=${AUDITLOOP_ACTION_REF:-}
# Inside composite actions the runner may leave the action's repository and ref empty; the
# checkout path is .../_actions/OWNER/REPO/REF.
if [ -z "$repository" ] || [ -z "$ref" ]; then
    case $action_path in
        */_actions/*/*/*)
            rest=${action_path#*/_actions/}
            repository=${repository:-$(echo "$rest" | cut -d/ -f1-2)}
            ref=${ref:-$(echo "$rest" | cut -d/ -f3-)}
            ;;
    esac
fi

release_tag='^v[0-9]+\.[0-9]+\.[0-9]+$'
version=${AUDITLOOP_VERSION:-}
case $version in
    "")
        if [[ $ref =~ $release_tag ]]; then version=$ref; else version=latest; fi ;;
    [0-9]*) version=v$version ;;
esac
if [ "$version" != latest ] && ! [[ $version =~ $release_tag ]]; then
    die "version '$version' is not a release tag like v1.2.3 (or 'latest')"
fi

case "${RUNNER_OS:-}/${RUNNER_ARCH:-}" in
    Linux/X64) target=x86_64-unknown-linux-musl ;;
    Linux/ARM64) target=aarch64-unknown-linux-musl ;;
    macOS/X64) target=x86_64-apple-darwin ;;
    macOS/ARM64) target=aarch64-apple-darwin ;;
    *) target= ;;
esac

build_from_source() {
    echo "::warning title=auditloop install::$1: building auditloop from the action's source with cargo (this takes minutes)"
    command -v cargo >/dev/null 2>&1 || die "$1, and there is no cargo on this runner to build it"
    cargo install --locked --quiet --path "$action_path" --root "$RUNNER_TEMP/auditloop"
    export_binary "$RUNNER_TEMP/auditloop/bin/auditloop"
    exit 0
}

[ -n "$target" ] || build_from_source "auditloop publishes no release for ${RUNNER_OS:-?}/${RUNNER_ARCH:-?}"
[ -n "$repository" ] || build_from_source "the action's repository is unknown"

# A version already in the tool cache is used as it is (its checksum was checked when it
# was put there).
if [ "$version" != latest ]; then
    cached=${RUNNER_TOOL_CACHE:?}/auditloop/${version#v}/${RUNNER_ARCH}
    if [ -f "$cached.complete" ] && [ -x "$cached/auditloop" ]; then
        say "auditloop $version from the tool cache"
        export_binary "$cached/auditloop"
        exit 0
    fi
fi

get() {
    local auth=()
    if [ -n "${AUDITLOOP_TOKEN:-}" ]; then auth=(-H "Authorization: Bearer $AUDITLOOP_TOKEN"); fi
    curl -sS -L --retry 3 --connect-timeout 10 --max-time 300 "${auth[@]}" "$@"
}

if [ "$version" = latest ]; then
    url="$api/repos/$repository/releases/latest"
else
    url="$api/repos/$repository/releases/tags/$version"
fi
release="$RUNNER_TEMP/auditloop-release.json"
status=$(get -o "$release" -w '%{http_code}' -H 'Accept: application/vnd.github+json' "$url") ||
    die "cannot reach $url"
case $status in
    200) ;;
    404) build_from_source "$repository has no release $version" ;;
    *) die "$url answered $status: $(head -c 300 "$release")" ;;
esac
version=$(jq -r '.tag_name' "$release")
[[ $version =~ $release_tag ]] || die "the release's tag '$version' is not a release tag like v1.2.3"

archive="auditloop-$version-$target.tar.gz"
asset_url() {
    jq -r --arg name "$1" '[.assets[] | select(.name == $name) | .browser_download_url][0] // empty' "$release"
}
archive_url=$(asset_url "$archive")
[ -n "$archive_url" ] || build_from_source "release $version of $repository has no $archive"
sum_url=$(asset_url "$archive.sha256")
[ -n "$sum_url" ] || die "release $version of $repository has $archive but no $archive.sha256 to check it against; refusing it"

download="$RUNNER_TEMP/auditloop-download"
rm -rf "$download"
mkdir -p "$download"
say "downloading $archive from $repository's release $version"
get -f -o "$download/$archive" "$archive_url" || die "cannot download $archive_url"
get -f -o "$download/$archive.sha256" "$sum_url" || die "cannot download $sum_url"

expected=$(awk '{print $1; exit}' "$download/$archive.sha256")
if command -v sha256sum >/dev/null 2>&1; then
    actual=$(sha256sum "$download/$archive" | awk '{print $1}')
else
    actual=$(shasum -a 256 "$download/$archive" | awk '{print $1}')
fi
if ! [[ $expected =~ ^[0-9a-f]{64}$ ]] || [ "$expected" != "$actual" ]; then
    die "checksum mismatch for $archive: its .sha256 says '$expected', the download is $actual. Refusing to run it; the release asset or the download is corrupt or was tampered with."
fi
say "checksum verified: $actual"

tar -xzf "$download/$archive" -C "$download"
found=$(find "$download" -type f -name auditloop -perm -u+x | head -n 1)
[ -n "$found" ] || die "$archive holds no auditloop binary"
cached=${RUNNER_TOOL_CACHE:?}/auditloop/${version#v}/${RUNNER_ARCH}
rm -rf "$cached"
mkdir -p "$cached"
cp "$found" "$cached/auditloop"
touch "$cached.complete"
rm -rf "$download" "$release"
export_binary "$cached/auditloop"
