#!/usr/bin/env node
/**
 * First step of `prepublishOnly`: this package is published only by .github/workflows/publish.yml
 * (a version tag, `npm publish --provenance`), never from a laptop. n8n's verification requires a
 * provenance statement, which only a CI publish has. A dry run (`npm publish --dry-run`) may run anywhere.
 *
 * npm runs prepublishOnly only with scripts enabled: this repository's .npmrc sets ignore-scripts=true
 * (for the development install), so the workflow publishes with `--ignore-scripts=false`. A plain
 * `npm publish` elsewhere skips this script but is still refused: package.json's
 * `publishConfig.provenance` makes npm require a CI provider ("Automatic provenance generation not
 * supported for provider: null").
 */
const env = process.env;
if (env.npm_config_dry_run === 'true') {
	console.log('prepublish-guard: dry run, nothing is published.');
} else if (env.GITHUB_ACTIONS !== 'true') {
	console.error(
		[
			'',
			'n8n-nodes-svc-messaging is published only from GitHub Actions, with an npm provenance statement',
			"(required for n8n's community-node verification). Do not run `npm publish` here.",
			'To publish: set "version" in package.json and CHANGELOG.md, merge to main, then push the tag:',
			'  git tag v<version> && git push origin v<version>',
			'The workflow .github/workflows/publish.yml builds, lints and publishes it.',
			'To see what would be published: npm publish --dry-run',
			'',
		].join('\n'),
	);
	process.exit(1);
}
