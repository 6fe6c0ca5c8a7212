/**
 * N8N_COMMUNITY_PACKAGES in queue mode (real n8n 2.41.1: main + 1 worker on Redis and PostgreSQL of
 * their own): main installs the package at start-up from the local npm registry (it alone reads
 * the list); the worker, started after that, finds the package recorded in the database but not on
 * its disk and installs it at its own start with N8N_REINSTALL_MISSING_PACKAGES=true (each process
 * has its own user folder here; processes that share one /home/node/.n8n volume need nothing).
 * A production webhook execution then runs on the worker and sends one SMS (counted at the
 * emulator).
 */
import { existsSync } from 'fs';
import { join } from 'path';

import { CREDENTIAL_IDS, CREDENTIAL_NAMES, http, PACKAGE_NAME } from '../e2e/harness';
import { startPackageSource, type PackageSource } from '../e2e/harness/managedPackages';
import { createActive, finishedExecutions, workerRuns } from '../queue/batch';
import { startQueueStack, type QueueStack } from '../queue/queueStack';
import { smsSendWorkflow } from '../queue/workflows';

const N = '0.1.0';
let source: PackageSource;
let stack: QueueStack;

beforeAll(async () => {
	source = await startPackageSource(async (registry) => await registry.publish(N));
	stack = await startQueueStack({
		workers: 1,
		installPackage: false,
		mainEnv: source.managedEnv([{ name: PACKAGE_NAME, version: N }]),
		workerEnv: { ...source.npmEnv, N8N_REINSTALL_MISSING_PACKAGES: 'true' },
	});
}, 400_000);

afterAll(async () => {
	await stack?.stop();
	await source?.stop();
}, 120_000);

const installedIn = (userFolder: string) => existsSync(join(userFolder, '.n8n', 'nodes', 'node_modules', PACKAGE_NAME, 'package.json'));

test('main installs the listed package at start-up; the worker installs it at its start', async () => {
	const { main, workers } = stack;
	expect(main.logLines().join('\n')).toMatch(new RegExp(`Installed community package '?${PACKAGE_NAME}@${N}'? from env`));
	const listed = await main.rest<{ data: Array<{ packageName: string; installedVersion: string; failedLoading?: boolean }> }>('GET', '/rest/community-packages');
	expect(listed.data).toEqual([expect.objectContaining({ packageName: PACKAGE_NAME, installedVersion: N, failedLoading: false })]);
	expect(installedIn(main.userFolder)).toBe(true);
	expect(workers[0].logLines().join('\n')).toMatch(/Packages reinstalled successfully/);
	expect(installedIn(workers[0].userFolder)).toBe(true);
});

test('a production execution runs on the worker with the installed node and sends one SMS', async () => {
	const { main, workers, emulator } = stack;
	const { id, path } = await createActive(main, smsSendWorkflow('env-queue', { id: CREDENTIAL_IDS.starter, name: CREDENTIAL_NAMES.starter }));
	const res = await http('POST', `${main.url}/webhook/${path}`, { items: [{ phone: '+254712345678', text: 'Installed by N8N_COMMUNITY_PACKAGES', ref: 'env-queue-1' }] });
	expect(res.status).toBe(200);
	const [execution] = await finishedExecutions(stack, id, 1, 120_000);
	expect(execution.status).toBe('success');
	expect(workerRuns(workers).map((r) => r.executionId)).toContain(String(execution.id));
	expect((await emulator.client.messages()).map((m: { phoneNumber: string }) => m.phoneNumber)).toEqual(['+254712345678']);
});
