const path = require('path');
const fs = require('fs');
const { task, src, dest, parallel } = require('gulp');

// Icons, and the codex files (*.node.json: category, aliases, links) n8n reads next to each node.
function nodeAssets() {
	return src(path.resolve('nodes', '**', '*.{png,svg,node.json}'), { encoding: false }).pipe(dest(path.resolve('dist', 'nodes')));
}

function credentialIcons() {
	return src(path.resolve('credentials', '**', '*.{png,svg}'), { encoding: false }).pipe(dest(path.resolve('dist', 'credentials')));
}

// Output schemas (__schema__/v<x.y.z>/<resource>/<operation>.json): n8n serves them from next to the
// node's file, so the editor can offer the output's fields for mapping before the node has run.
function outputSchemas() {
	return src(path.resolve('nodes', '**', '__schema__', '**', '*.json')).pipe(dest(path.resolve('dist', 'nodes')));
}

task('build:icons', parallel(nodeAssets, credentialIcons, outputSchemas));

// `npm run build` starts from an empty dist/, so that no file of a removed source is published.
task('clean', (done) => {
	fs.rmSync(path.resolve('dist'), { recursive: true, force: true });
	done();
});
