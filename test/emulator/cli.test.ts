import { spawn } from 'child_process';
import { join } from 'path';

import { SEED_KEYS, SEED_LOGINS } from './index';
import { Client } from './testkit';

it('starts from the command line (here with --rate-limit sliding-window and --latency), prints URL, rate-limit mode, keys and logins, serves requests and stops on SIGTERM', async () => {
	const child = spawn(
		process.execPath,
		[require.resolve('ts-node/dist/bin.js'), '--transpile-only', join(__dirname, 'cli.ts'), '--port', '0', '--time-scale', '0.5', '--rate-limit', 'sliding-window', '--latency', '20±5', '--latency-out', '10'],
		{ stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, PORT: '' } },
	);
	let output = '';
	child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
	child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
	const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
	try {
		const url = await new Promise<string>((resolve, reject) => {
			const timer = setTimeout(() => reject(new Error(`no URL printed:\n${output}`)), 25_000);
			child.stdout.on('data', () => {
				const match = /listening on (http:\/\/\S+)/.exec(output);
				if (match && output.includes('Logins')) {
					clearTimeout(timer);
					resolve(match[1]);
				}
			});
		});
		for (const key of Object.values(SEED_KEYS)) expect(output).toContain(key);
		expect(output).toContain('Rate limit per API key: sliding-window');
		expect(output).toContain('Latency: in 20±5 ms, out 10 ms');
		expect(output).toMatch(/svc_test_free_0001\s+Free/);
		expect(output).toMatch(/svc_live_enterprise_0001\s+Enterprise\s+200 req\/s\s+20000 recipients/);
		expect(output).toContain(`${SEED_LOGINS.demo.email} / ${SEED_LOGINS.demo.password}`);
		const res = await new Client(url).get('/api/sms/sender-ids', { key: SEED_KEYS.free });
		expect(res.status).toBe(200);
		child.kill('SIGTERM');
		expect(await exited).toBe(0);
	} finally {
		if (child.exitCode === null) child.kill('SIGKILL');
	}
}, 40_000);
