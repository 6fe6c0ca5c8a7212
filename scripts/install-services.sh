#!/usr/bin/env bash
# Installs the Debian packages the queue-mode bed, the shared-limit tests and the benchmark need
# (redis-server, postgresql), once, when missing. Never starts them as system services: the tests
# start their own servers on free ports in temporary folders (test/helpers/services.ts).
#   scripts/install-services.sh            redis-server and postgresql
#   scripts/install-services.sh redis      redis-server only
set -euo pipefail
want=${1:-all}
missing=()
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
# redis-cli joins the test cluster's nodes (test/helpers/redisCluster.ts); openssl makes the TLS tests' CA.
command -v redis-cli >/dev/null 2>&1 || missing+=(redis-tools)
command -v openssl >/dev/null 2>&1 || missing+=(openssl)
if [ "$want" = "all" ] && ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then missing+=(postgresql); fi
[ ${#missing[@]} -eq 0 ] && exit 0

echo "Installing Debian packages: ${missing[*]} (once)..."
as_root=()
[ "$(id -u)" = 0 ] || as_root=(sudo -n)
# A policy-rc.d that denies every start keeps the packages' own services from starting.
policy=/usr/sbin/policy-rc.d
own_policy=0
if [ ! -e "$policy" ]; then
  printf '#!/bin/sh\nexit 101\n' | "${as_root[@]}" tee "$policy" >/dev/null
  "${as_root[@]}" chmod 755 "$policy"
  own_policy=1
fi
cleanup() { [ "$own_policy" = 1 ] && "${as_root[@]}" rm -f "$policy"; return 0; }
trap cleanup EXIT
export DEBIAN_FRONTEND=noninteractive
if ! "${as_root[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}" >/tmp/svc-install-services.log 2>&1; then
  "${as_root[@]}" apt-get update -q >>/tmp/svc-install-services.log 2>&1
  "${as_root[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}" >>/tmp/svc-install-services.log 2>&1 ||
    { tail -30 /tmp/svc-install-services.log; exit 1; }
fi
echo "Installed: ${missing[*]}"
