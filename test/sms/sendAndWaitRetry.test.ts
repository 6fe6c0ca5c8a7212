/**
 * A run is finished only when its items are: Send and Wait marks its run finished in the send
 * ledger when the wait ends, not when it posts. An execution that ends while it waits (a crash, a
 * timeout, Stop) and is then retried from the executions list (a NEW execution in mode `retry`)
 * must send none of its messages again. Counted at the emulator: 0 numbers with two SMS.
 */
import { useEmulator } from '../helpers/emulatorFixture';
import { executeNode } from '../helpers/n8n';
import { apiKeyCredentials, noSender, numbersWithTwo } from './fixtures';

const emu = useEmulator();

const parameters = (waitMode: 'polling' | 'webhook', timeout: number) => ({
	resource: 'sms',
	operation: 'sendAndWaitForDelivery',
	phoneNumber: '={{ $json.phone }}',
	message: 'Your code is 123456',
	senderId: noSender,
	waitMode,
	timeout,
	options: { pollInterval: 1 },
});
const credentials = () => apiKeyCredentials(emu.url);
/** Until the first execution polls: its messages are posted and their answers recorded. */
const waitForPolling = async () => {
	const polled = () => emu.control.requests().some((r) => r.method === 'GET' && r.path.startsWith('/api/sms/messages/'));
	for (let i = 0; i < 400 && !polled(); i++) await new Promise((r) => setTimeout(r, 25));
};

test('polling interrupted (the execution ends while it polls), then Retry: no message is sent again', async () => {
	const inputs = [{ phone: '+254712350001' }, { phone: '+254712350002' }, { phone: '+254712350003' }];
	// The first execution posts its three messages and polls (it would wait up to 5 s); before its
	// wait ends, the execution is given up and retried, as after a crash, a timeout or Stop.
	const first = executeNode({ parameters: parameters('polling', 5), credentials: credentials(), executionId: 'poll-a' }, inputs);
	await waitForPolling();
	expect(emu.control.messages()).toHaveLength(3);
	const [delivered, notDelivered] = await executeNode({ parameters: parameters('polling', 5), credentials: credentials(), executionId: 'poll-b', mode: 'retry' }, inputs);
	await first;
	expect([...delivered, ...notDelivered].map((i) => i.json.alreadySent)).toEqual([true, true, true]);
	expect(emu.control.messages()).toHaveLength(3);
	expect(numbersWithTwo(emu)).toBe(0);
}, 60_000);

test('webhook wait interrupted (the waiting execution is never resumed), then Retry: no message is sent again', async () => {
	const inputs = [{ phone: '+254712350011' }, { phone: '+254712350012' }];
	await executeNode({ parameters: parameters('webhook', 60), credentials: credentials(), executionId: 'hook-a' }, inputs);
	expect(emu.control.messages()).toHaveLength(2);
	const [delivered, notDelivered] = await executeNode({ parameters: parameters('webhook', 60), credentials: credentials(), executionId: 'hook-b', mode: 'retry' }, inputs);
	expect([...delivered, ...notDelivered].map((i) => i.json.alreadySent)).toEqual([true, true]);
	expect(emu.control.messages()).toHaveLength(2);
	expect(numbersWithTwo(emu)).toBe(0);
}, 60_000);

test('the wait ended, then the execution crashed before n8n saved its progress; Retry sends none again', async () => {
	const inputs = [{ phone: '+254712350021' }];
	const [done] = await executeNode({ parameters: parameters('polling', 5), credentials: credentials(), executionId: 'done-a' }, inputs);
	expect(done).toHaveLength(1);
	const [delivered, notDelivered] = await executeNode({ parameters: parameters('polling', 5), credentials: credentials(), executionId: 'done-b', mode: 'retry' }, inputs);
	expect([...delivered, ...notDelivered].map((i) => i.json.alreadySent)).toEqual([true]);
	expect(emu.control.messages()).toHaveLength(1);
}, 60_000);
