/**
 * Never twice with the n8n Cloud edition (cloud/dist/package, `npm run build:cloud`) in real n8n
 * 2.41.1, installed as cloudEdition.test.ts installs it (its tarball from the local registry, listed
 * in N8N_COMMUNITY_PACKAGES), regular mode, SQLite, no Redis (n8n Cloud offers none):
 * - bad input is refused before any request (none at the emulator);
 * - n8n is SIGKILLed in the middle of a 300-item Send at Free, started again on the same folder, and
 *   the crashed execution retried as the executions list's Retry does (harness/restartRetry.ts, the
 *   steps test/e2e/restart.e2e.test.ts takes with the self-hosted package): no number gets a second
 *   SMS, none is left without one unless the Retry names it as of unknown outcome, and only messages
 *   that may have reached the service are so named. Counted at the emulator.
 */
import { sendWindow } from '../../nodes/SvcMessaging/sending/window';
import { PLANS } from '../../nodes/SvcMessaging/transport/service';
import { type N8n } from '../e2e/harness';
import { CLOUD_DIR, cloudCredentialRef, cloudCredentials, cloudEdition } from '../e2e/harness/cloudEdition';
import { installedPackages, startManagedN8n, startPackageSource, type PackageSource } from '../e2e/harness/managedPackages';
import { killMidSendThenRetry, smsSendWorkflow } from '../e2e/harness/restartRetry';
import { startEmulatorWithClient, type EmulatorProcess } from '../e2e/harness/stack';

const CLOUD = cloudEdition();
const ITEMS = 300;

let source: PackageSource;
let emulator: EmulatorProcess;
let n8n: N8n | undefined;

beforeAll(async () => {
	source = await startPackageSource(async (registry) => await registry.publishFolder(CLOUD_DIR));
	emulator = await startEmulatorWithClient({ timeScale: 0.1 });
	const { credits } = await emulator.client.account('acc_demo');
	await emulator.client.patchAccount('acc_demo', { credits: Number(credits) + 2 * ITEMS });
	n8n = await startManagedN8n(source, [{ name: CLOUD.packageName, version: CLOUD.manifest.version }], { credentials: cloudCredentials(emulator.url) });
}, 300_000);

afterAll(async () => {
	await n8n?.stop();
	await emulator?.stop();
	await source?.stop();
}, 120_000);

test(`${CLOUD.packageName} is installed from the registry, alone`, async () => {
	expect(await installedPackages(n8n!)).toEqual([expect.objectContaining({ packageName: CLOUD.packageName, installedVersion: CLOUD.manifest.version, failedLoading: false })]);
});

test('bad input (one number of two is not a phone number) stops the Send before any request: 0 requests at the emulator', async () => {
	await emulator.client.clearRequests();
	const wf = smsSendWorkflow({ type: CLOUD.nodeType, credentials: cloudCredentialRef('free') });
	// Stop on error (n8n's default for a node): the whole batch is refused, not only the bad item.
	wf.nodes.find((n) => n.name === 'Send SMS')!.onError = 'stopWorkflow';
	const items = [
		{ phone: '+254712009001', text: 'Your order shipped', ref: 'cloud-bad-input' },
		{ phone: '12345', text: 'Your order shipped', ref: 'cloud-bad-input' },
	];
	const { execution } = await n8n!.run(wf, { items });
	expect(execution.status).toBe('error');
	expect(execution.data?.resultData.error?.message ?? '').toMatch(/Phone Number/);
	expect(await emulator.client.requests()).toEqual([]);
	expect(await emulator.client.messages()).toEqual([]);
});

test('SIGKILL mid-send at Free, restart, Retry: 0 numbers with two SMS, none lost unreported; the unknown outcomes only requests under way or in their slot at the kill', async () => {
	// Free sends 5 a second: 100 messages out after ~20 s, a request under way every 200 ms.
	const r = await killMidSendThenRetry({
		n8n: n8n!,
		emulator: emulator.client,
		send: { type: CLOUD.nodeType, credentials: cloudCredentialRef('free') },
		label: 'cloud-restart-free',
		phonePrefix: '+2547152',
		items: ITEMS,
		killAfter: 100,
	});
	expect(r.output).toHaveLength(ITEMS);
	expect(r.twice).toBe(0);
	expect(r.lost).toBe(0);
	// A message still waiting for its turn is sent by the Retry, not refused as of unknown outcome
	// (see test/e2e/restart.e2e.test.ts: Free's slots are 200 ms apart).
	expect(r.unknownNeverReceived).toBeLessThanOrEqual(2);
	expect(r.unknown).toBeLessThanOrEqual(sendWindow(PLANS.free));
	expect(r.alreadySent).toBeGreaterThanOrEqual(r.sentBeforeKill - r.unknown);
}, 420_000);
