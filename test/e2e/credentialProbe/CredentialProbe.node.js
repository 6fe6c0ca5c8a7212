/**
 * Test-only node (never published; bench/credentials.ts puts it beside the package in a real
 * n8n): reads the svcMessagingApi credential `reads` times through `this.getCredentials` exactly
 * as the package's nodes call it (no item index), and outputs the wall and process CPU time per
 * read. In n8n each read is a database query, a decryption and the credential's expression
 * resolution; process CPU includes SQLite's worker threads, which run in the same process.
 * Plain JavaScript so that it needs no build step.
 */
'use strict';

const TYPE = 'svcMessagingApi';

class CredentialProbe {
	constructor() {
		this.description = {
			displayName: 'SVC Credential Probe (test only)',
			name: 'credentialProbe',
			group: ['transform'],
			version: 1,
			description: 'Reads the SVC Messaging API credential K times and reports the cost per read',
			defaults: { name: 'Credential Probe' },
			inputs: ['main'],
			outputs: ['main'],
			credentials: [{ name: TYPE, required: true }],
			properties: [
				{ displayName: 'Reads', name: 'reads', type: 'number', default: 1000 },
				// The first reads also warm caches (credential type, external-secrets check, JIT).
				{ displayName: 'Warm-up Reads', name: 'warmup', type: 'number', default: 50 },
			],
		};
	}

	async execute() {
		const reads = Number(this.getNodeParameter('reads', 0));
		const warmup = Number(this.getNodeParameter('warmup', 0));
		let fields = 0;
		for (let i = 0; i < warmup; i++) fields = Object.keys(await this.getCredentials(TYPE)).length;
		const cpu0 = process.cpuUsage();
		const t0 = process.hrtime.bigint();
		for (let i = 0; i < reads; i++) await this.getCredentials(TYPE);
		const wallMs = Number(process.hrtime.bigint() - t0) / 1e6;
		const cpu = process.cpuUsage(cpu0);
		const cpuMs = (cpu.user + cpu.system) / 1000;
		// Only counts and times leave the node: never the credential's values.
		return [[{ json: { reads, warmup, fields, wallMs, cpuMs, wallMsPerRead: wallMs / reads, cpuMsPerRead: cpuMs / reads } }]];
	}
}

module.exports = { CredentialProbe };
