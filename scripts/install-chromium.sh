#!/usr/bin/env bash
# Installs Debian's `chromium` (for `npm run test:editor`, driven by playwright-core) once, when
# missing. Set CHROMIUM_PATH to use another Chromium binary instead.
set -euo pipefail
chromium_path=${CHROMIUM_PATH:-/usr/bin/chromium}
[ -x "$chromium_path" ] && exit 0
echo "Installing the Debian package chromium (once)..."
as_root=()
[ "$(id -u)" = 0 ] || as_root=(sudo -n)
export DEBIAN_FRONTEND=noninteractive
if ! "${as_root[@]}" apt-get install -y -q --no-install-recommends chromium >/tmp/svc-install-chromium.log 2>&1; then
  "${as_root[@]}" apt-get update -q >>/tmp/svc-install-chromium.log 2>&1
  "${as_root[@]}" apt-get install -y -q --no-install-recommends chromium >>/tmp/svc-install-chromium.log 2>&1 ||
    { tail -30 /tmp/svc-install-chromium.log; exit 1; }
fi
echo "Installed: $("$chromium_path" --version 2>/dev/null || echo chromium)"
