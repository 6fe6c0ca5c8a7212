/**
 * `npm run dev`: the emulator plus the n8n editor on http://127.0.0.1:5678, with the package
 * loaded (as an installed community package), credentials for the emulator, and the example
 * workflows (examples/) and one workflow per operation (test/e2e/workflows/, with sample input
 * pinned so that "Execute workflow" runs them) imported; a redis-server for the API key credentials'
 * "Use Redis" (the Do-Not-Send List) when one is installed. Stop with Ctrl+C.
 *
 * n8n listens on 127.0.0.1 only, and the owner's password is generated on the first run (printed,
 * and kept in .n8n-e2e/dev/owner-password.txt for later runs): see devOptions.ts.
 *
 *   npm run dev                      keeps its n8n data in .n8n-e2e/dev/ between runs
 *   npm run dev -- --fresh           starts from an empty n8n (workflows re-imported, new password)
 *   npm run dev -- --host 0.0.0.0    lets other machines reach the editor (every interface)
 *   npm run dev -- --port 5678 --emulator-port 4010 --time-scale 1
 */
import { existsSync, readdirSync, rmSync } from 'fs';
import { createServer } from 'net';
import { join } from 'path';

import {
	CREDENTIAL_NAMES,
	E2E_OWNER,
	ensureInstalled,
	readWorkflow,
	ROOT,
	startStack,
	targetInfo,
	WEBHOOK_SECRET,
	type WorkflowJson,
} from './harness';
import { SEED_KEYS } from '../emulator/seed';
import { devNetwork, devOwnerPassword, PASSWORD_FILE, redisNote, senderNote } from './devOptions';

/** The number the OTP-with-fallback example's failing branch is tried with (…999: the SMS fails). */
const FALLBACK_PHONE = '+254712345999';

function arg(name: string, fallback: string): string {
	const i = process.argv.indexOf(`--${name}`);
	return i > 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}

async function portFree(port: number): Promise<boolean> {
	return await new Promise((resolve) => {
		const server = createServer();
		server.once('error', () => resolve(false));
		server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
	});
}

function workflowsIn(dir: string): WorkflowJson[] {
	return readdirSync(dir)
		.filter((f) => f.endsWith('.json'))
		.sort()
		.map((f) => readWorkflow(join(dir, f)));
}

async function main() {
	const port = Number(arg('port', '5678'));
	const emulatorPort = Number(arg('emulator-port', '4010'));
	const timeScale = Number(arg('time-scale', '1'));
	const userFolder = join(ROOT, '.n8n-e2e', 'dev');
	if (process.argv.includes('--fresh')) rmSync(userFolder, { recursive: true, force: true });
	const firstRun = !existsSync(join(userFolder, '.n8n', 'database.sqlite'));
	const network = devNetwork(process.argv);
	const owner = { ...E2E_OWNER, password: devOwnerPassword(userFolder, E2E_OWNER.password) };

	for (const [what, p, flag] of [
		['n8n', port, '--port'],
		['the emulator', emulatorPort, '--emulator-port'],
	] as const) {
		if (!(await portFree(p))) {
			console.error(`Port ${p} (for ${what}) is in use. Stop what uses it, or choose another with \`npm run dev -- ${flag} <port>\`.`);
			process.exit(1);
		}
	}

	const info = targetInfo();
	ensureInstalled(info);
	const examples = workflowsIn(join(ROOT, 'examples'));
	const perOperation = workflowsIn(join(ROOT, 'test', 'e2e', 'workflows'));
	console.log(`Starting the emulator (port ${emulatorPort}) and n8n ${info.version} (port ${port})...`);
	const stack = await startStack({
		target: info.target,
		n8nPort: port,
		emulatorPort,
		timeScale,
		userFolder,
		// Only on the first run: later runs keep your changes (use --fresh to re-import).
		workflows: firstRun ? [...examples, ...perOperation] : undefined,
		env: {
			N8N_LISTEN_ADDRESS: network.listenAddress,
			N8N_HOST: network.urlHost,
			WEBHOOK_URL: `http://${network.urlHost}:${port}/`,
		},
		owner: { ...owner, password: owner.password.password },
		withRedis: true,
	});
	// What examples/otp-with-fallback.json needs for its fallback branch (as `npm run demo` does): the
	// approved chat template otp_code, and a chat opt-in for the number whose SMS fails.
	await stack.emulator.client.prepareOtpFallback(SEED_KEYS.starter, [FALLBACK_PHONE]);
	// What examples/opt-outs-and-sending-hours.json reads: a Data Table "opt-outs" holding one of its numbers.
	if (firstRun) await stack.n8n.createDataTable('opt-outs', ['phone'], [{ phone: '0712000911' }]).catch((e) => console.warn(`Could not create the Data Table "opt-outs": ${e}`));
	// Delivery reports of examples/otp-send.json arrive here.
	const tracking = examples.find((w) => w.id === 'svcExampleOtpTrack');
	if (tracking?.id) await stack.n8n.activate(tracking.id).catch((e) => console.warn(`Could not activate "${tracking.name}": ${e}`));

	const line = '─'.repeat(78);
	console.log(`
${line}
 n8n editor   http://${network.urlHost}:${port}${network.reachableFromOtherMachines ? `   (listening on ${network.listenAddress}: reachable from other machines)` : '   (this machine only; --host 0.0.0.0 to share)'}
 login        ${owner.email}  /  ${owner.password.password}
              ${passwordNote(owner.password.origin, userFolder)}
 emulator     ${stack.emulator.url}   (time scale ${timeScale}; state is in memory, reset at each start)
${redisNote(stack.redis).map((l) => ` ${l}`).join('\n')}
${line}
 Credentials (already selected in the imported workflows):
   ${CREDENTIAL_NAMES.starter}   key svc_test_starter_0001
   ${CREDENTIAL_NAMES.free}      key svc_test_free_0001
   ${CREDENTIAL_NAMES.business}  key svc_test_business_0001
   ${CREDENTIAL_NAMES.account}   demo@svc.test / demo-password
   Webhook secret of the demo account and of these credentials: ${WEBHOOK_SECRET}
 Workflows: "SVC example · …" (examples/; "Track OTP delivery" is active) and
   "E2E · <resource> · <operation>", one per operation, with sample input pinned on
   their Input node: open one and click "Execute workflow".
 Test numbers: …999 fails (DESTINATION_NOT_REACHABLE), …998 expires, …997 is blacklisted.
 ${senderNote()}
 Data Table "opt-outs" (Overview → Data tables): 0712000911, which
   "SVC example · Bulk SMS that skips opted-out numbers and waits for daytime" skips.
 Chat opt-ins: +254712345678, +254712345679, +2348031234567, ${FALLBACK_PHONE} (its SMS fails: put it in
   "SVC example · OTP by SMS, chat template if not delivered" to see its fallback; otp_code is approved).
 n8n data: ${userFolder}${firstRun ? '' : '  (kept from an earlier run; --fresh re-imports)'}
${line}
Press Ctrl+C to stop.`);

	const stop = async () => {
		console.log('\nStopping n8n and the emulator...');
		await stack.stop();
		process.exit(0);
	};
	process.removeAllListeners('SIGINT');
	process.removeAllListeners('SIGTERM');
	process.once('SIGINT', () => void stop());
	process.once('SIGTERM', () => void stop());
	await new Promise(() => undefined);
}

function passwordNote(origin: 'new' | 'kept' | 'legacy', userFolder: string): string {
	if (origin === 'legacy') return 'the fixed password of data made by an older `npm run dev`: start with --fresh for a generated one';
	return `${origin === 'new' ? 'generated now' : 'generated on the first run'}, kept in ${join(userFolder, PASSWORD_FILE)}`;
}

main().catch((error) => {
	console.error((error as Error)?.stack ?? String(error));
	process.exit(1);
});
