#!/bin/sh
# Installs n8n-nodes-svc-messaging into a folder the way the Dockerfile does (/opt/n8n-svc-messaging,
# outside the n8n volume; docker/link-package.sh links it into the nodes folder at start):
#   install-package.sh <folder> <package spec>
#   e.g. install-package.sh /opt/n8n-svc-messaging n8n-nodes-svc-messaging@0.1.0
# The nodes folder is an npm project (n8n's own layout, the same in n8n 1, 2 and 3); --omit=peer
# keeps npm from installing a second n8n-workflow next to n8n's, which the package resolves from n8n.
# POSIX sh: the n8n image is Alpine-based (no bash). Checked against n8n 2.41.1's layout by
# docker/check-install.sh.
set -eu
nodes=${1:?usage: install-package.sh <nodes folder> <package spec>}
spec=${2:?usage: install-package.sh <nodes folder> <package spec>}
mkdir -p "$nodes"
cd "$nodes"
[ -f package.json ] || printf '%s\n' '{ "name": "installed-nodes", "private": true, "dependencies": {} }' >package.json
npm install --omit=peer --omit=dev --no-audit --no-fund --ignore-scripts --loglevel=error "$spec"
