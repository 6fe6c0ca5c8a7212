/**
 * Send and Wait (polling) on a worker that is SIGKILLed while it polls, its limit and send ledger
 * shared through Redis; then the executions list's Retry on a fresh worker (this process, whose own
 * ledger never saw the messages). The run was not finished (it finishes when its wait ends), so
 * the Retry finds every message in Redis and sends none again. Counted at the emulator.
 */
import { spawn } from 'child_process';
import { join } from 'path';

import { executeNode } from '../helpers/n8n';
import { smsPerNumber } from '../sms/fixtures';
import { useRedisBehindProxy } from './redisBehindProxy';
import { recordCase } from './tally';
import { sendAndWaitParameters } from './waitingN8n';

// Real time: a message is final 4 s after it is accepted, so the worker is still polling when killed.
// The proxy stays open: Redis itself is not what this case breaks.
const bed = useRedisBehindProxy('killed', { plan: 'business', timeScale: 1 });
const { emu } = bed;

it('a worker SIGKILLed while Send and Wait polls, then Retry on a fresh worker: no number gets two SMS', async () => {
	const phones = ['+254712360001', '+254712360002', '+254712360003'];
	const child = spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', join(__dirname, 'sendAndWaitWorker.ts'), JSON.stringify({ credentials: bed.credentials().svcMessagingApi, phones, executionId: 'killed-a' })], {
		cwd: join(__dirname, '../..'),
		stdio: 'ignore',
	});
	const exited = new Promise((resolve) => child.once('exit', resolve));
	// Killed once it polls: every message is posted and its answer written to Redis.
	const polled = () => emu.control.requests().some((r) => r.method === 'GET' && r.path.startsWith('/api/sms/messages/'));
	for (let i = 0; i < 1200 && !polled() && child.exitCode === null; i++) await new Promise((r) => setTimeout(r, 25));
	expect(polled()).toBe(true);
	child.kill('SIGKILL');
	await exited;
	expect(emu.control.messages()).toHaveLength(3);

	const [delivered, notDelivered] = await executeNode(
		{ parameters: sendAndWaitParameters('polling', 10, { pollInterval: 1 }), credentials: bed.credentials(), executionId: 'killed-b', mode: 'retry' },
		phones.map((phone) => ({ phone })),
	);
	expect([...delivered, ...notDelivered].map((i) => i.json.alreadySent)).toEqual([true, true, true]);
	const counts = smsPerNumber(emu);
	const sentTwice = [...counts.values()].filter((n) => n > 1).length;
	const lost = phones.filter((p) => !counts.has(p)).length;
	expect({ sentTwice, lost }).toEqual({ sentTwice: 0, lost: 0 });
	recordCase('Send and Wait polling, worker SIGKILLed mid-wait, Retry on a fresh worker with the shared Redis', { sentTwice, lost, forgedAccepted: 0 });
}, 120_000);
