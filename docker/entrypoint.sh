#!/bin/sh
# The image's entrypoint: link the package into the nodes folder of the (possibly mounted)
# /home/node/.n8n, then start n8n through the official image's own entrypoint, arguments unchanged
# (start, worker, webhook).
set -eu
sh /opt/n8n-svc-messaging/link-package.sh "${N8N_USER_FOLDER:-$HOME}/.n8n/nodes" /opt/n8n-svc-messaging/node_modules/n8n-nodes-svc-messaging
exec /docker-entrypoint.sh "$@"
