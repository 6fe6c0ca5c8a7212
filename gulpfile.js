const path = require('path');
const { task, src, dest, parallel } = require('gulp');

// Icons, and the codex files (*.node.json: category, aliases, links) n8n reads next to each node.
function nodeAssets() {
	return src(path.resolve('nodes', '**', '*.{png,svg,node.json}'), { encoding: false }).pipe(dest(path.resolve('dist', 'nodes')));
}

function credentialIcons() {
	return src(path.resolve('credentials', '**', '*.{png,svg}'), { encoding: false }).pipe(dest(path.resolve('dist', 'credentials')));
}

task('build:icons', parallel(nodeAssets, credentialIcons));
