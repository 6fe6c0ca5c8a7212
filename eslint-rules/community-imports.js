/**
 * n8n's community-package rule: published node code may import only n8n-workflow, the package's
 * declared runtime dependencies, node's crypto and relative files. node:dns is allowed for one
 * purpose: "Verify Media Link" resolves a host to refuse private addresses (platform/hostAddresses.ts,
 * which the n8n Cloud edition replaces).
 */
const pkg = require('../package.json');

const allowed = new Set(['n8n-workflow', 'crypto', 'node:crypto', ...Object.keys(pkg.dependencies ?? {})]);

module.exports = {
	meta: { type: 'problem', docs: { description: 'restrict imports of community nodes' }, schema: [] },
	create(context) {
		const check = (node, source) => {
			if (typeof source !== 'string' || source.startsWith('./') || source.startsWith('../')) return;
			const name = source.startsWith('@') ? source.split('/').slice(0, 2).join('/') : source.split('/')[0];
			const dnsHere = name === 'node:dns' && /platform[\\/]hostAddresses\.ts$/.test(context.getFilename());
			if (!allowed.has(name) && !allowed.has(source) && !dnsHere) {
				context.report({ node, message: `"${source}" is not allowed in a community node: use n8n-workflow, a declared dependency, crypto or a relative file` });
			}
		};
		return {
			ImportDeclaration: (node) => check(node, node.source.value),
			ExportNamedDeclaration: (node) => node.source && check(node, node.source.value),
			ExportAllDeclaration: (node) => check(node, node.source.value),
			CallExpression: (node) => {
				if (node.callee.type === 'Identifier' && node.callee.name === 'require' && node.arguments[0]?.type === 'Literal') {
					check(node, node.arguments[0].value);
				}
			},
		};
	},
};
