/**
 * The finished-run retry window (an hour) counts from when a run FINISHED, not from when its
 * messages were written to the send ledger. A Send and Wait for Delivery (Delivery Report) that
 * waited longer than the window, finished, and whose execution then crashed before n8n saved its
 * progress, is re-run by the Retry: it must send none of its messages again. Counted at the
 * emulator. Its own file: the clock is moved on for the rest of the file (never back, which would
 * confuse the key's limiter).
 */
import type { INodeExecutionData } from 'n8n-workflow';

import { useEmulator } from '../helpers/emulatorFixture';
import { executeNode } from '../helpers/n8n';
import { apiKeyCredentials, noSender, numbersWithTwo } from './fixtures';

const emu = useEmulator();
afterAll(() => {
	jest.restoreAllMocks();
});

const parameters = {
	resource: 'sms',
	operation: 'sendAndWaitForDelivery',
	phoneNumber: '={{ $json.phone }}',
	message: 'Your code is 123456',
	senderId: noSender,
	waitMode: 'webhook',
	// the shortest wait: its wake-up call (a timer of this process) then keeps jest waiting 5 s, not a minute
	timeout: 5,
	options: {},
};
const credentials = () => apiKeyCredentials(emu.url, { plan: 'business' });

test('a webhook wait that ended two hours after its messages were sent, then a crash before progress was saved: Retry sends none again', async () => {
	const inputs = [{ phone: '+254712350031' }, { phone: '+254712350032' }];
	const [waitingDelivered, waitingNot] = await executeNode({ parameters, credentials: credentials(), executionId: 'late-a' }, inputs);
	expect(emu.control.messages()).toHaveLength(2);

	// Two hours on (past the one-hour window since the messages were written), the execution resumes
	// (n8n hands the node its waiting items again) and the node finishes its run.
	const realNow = Date.now.bind(Date);
	const twoHours = 2 * 60 * 60 * 1000;
	jest.spyOn(Date, 'now').mockImplementation(() => realNow() + twoHours);
	const waiting: INodeExecutionData[] = [...waitingDelivered, ...waitingNot];
	const [delivered, notDelivered] = await executeNode({ parameters, credentials: credentials(), executionId: 'late-a' }, waiting);
	expect(delivered.length + notDelivered.length).toBe(2);

	// The execution then crashed before n8n saved its progress; the Retry re-runs the node.
	const [again, againNot] = await executeNode({ parameters, credentials: credentials(), executionId: 'late-b', mode: 'retry' }, inputs);
	expect([...again, ...againNot].map((i) => i.json.alreadySent)).toEqual([true, true]);
	expect(emu.control.messages()).toHaveLength(2);
	expect(numbersWithTwo(emu)).toBe(0);
}, 60_000);
