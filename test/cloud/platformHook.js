/**
 * Runs the source with the Cloud edition's platform files, as its build's overlay does, in a process
 * that loads nodes/ from source (the bench's workers):
 *   NODE_OPTIONS="--require ./test/cloud/platformHook.js" BENCH_ONLY=… npm run bench
 * Every `../platform/<seam>` a file under nodes/ requires resolves to cloud/platform/<seam>.ts
 * (cloud/platform/numberingData.json must exist: node cloud/numbering-data.mjs <that path>).
 */
const Module = require('module');
const { join, sep } = require('path');

const root = join(__dirname, '..', '..');
const resolve = Module._resolveFilename;
const told = new Set();
Module._resolveFilename = function (request, parent, ...rest) {
	const seam = /^\.\.\/platform\/(bottleneck|phoneNumbers)$/.exec(request);
	if (seam && parent?.filename?.startsWith(join(root, 'nodes') + sep)) {
		if (!told.has(seam[1])) process.stderr.write(`platformHook (pid ${process.pid}): ${request} → cloud/platform/${seam[1]}.ts\n`);
		told.add(seam[1]);
		return join(root, 'cloud', 'platform', `${seam[1]}.ts`);
	}
	return resolve.call(this, request, parent, ...rest);
};
