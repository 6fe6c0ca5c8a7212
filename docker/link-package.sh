#!/bin/sh
# Makes the package baked into the image visible in n8n's nodes folder, at every container start:
#   link-package.sh <nodes folder> <the image's package folder>
#   e.g. link-package.sh /home/node/.n8n/nodes /opt/n8n-svc-messaging/node_modules/n8n-nodes-svc-messaging
# The image installs the package outside /home/node/.n8n (which the standard n8n volume mounts over)
# and links it into <nodes folder>/node_modules here, so n8n loads it as a community package under
# its own name (node types `n8n-nodes-svc-messaging.*`, the same as an Install-button install). The
# link points into the image, so a new image brings its version with it: nothing in the volume goes
# stale. A real folder there (installed from Settings → Community Nodes or N8N_COMMUNITY_PACKAGES) is
# left alone and wins; the script says so.
# POSIX sh (the n8n image is Alpine-based). Checked against n8n 2.41.1 by docker/check-install.sh.
set -eu
nodes=${1:?usage: link-package.sh <nodes folder> <package folder>}
source=${2:?usage: link-package.sh <nodes folder> <package folder>}
[ -f "$source/package.json" ] || { echo "link-package.sh: no package at $source" >&2; exit 1; }
name=$(basename "$source")
target="$nodes/node_modules/$name"
mkdir -p "$nodes/node_modules"
if [ -e "$target" ] && [ ! -L "$target" ]; then
  echo "link-package.sh: $target is an installed copy (Community Nodes or N8N_COMMUNITY_PACKAGES); n8n loads that one, not the image's"
  exit 0
fi
if [ "$(readlink "$target" 2>/dev/null || true)" != "$source" ]; then
  # Main, workers and the webhook process may share the volume and start together: another one may
  # have made the same link between the test and here.
  ln -sfn "$source" "$target" 2>/dev/null || [ "$(readlink "$target")" = "$source" ]
fi
echo "link-package.sh: $target -> $source"
