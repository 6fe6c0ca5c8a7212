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

task('build:icons', parallel(nodeAssets, credentialIcons));

// `npm run build` starts from an empty dist/, so that no file of a removed source is published.
task('clean', (done) => {
	fs.rmSync(path.resolve('dist'), { recursive: true, force: true });
	done();
});
