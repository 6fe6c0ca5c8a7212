/**
 * Polling's timeout counts from each message's acceptance. 30 items on a Free key
 * (5 requests per second: sending alone takes 6 s) with the minimum timeout of 5 s: before, the
 * timeout ran out while sending, no message was looked up and all 30 went to "Not Delivered" — a
 * fallback branch would then have sent everyone a second message. The emulator runs in real time
 * (a message is final 4 s after it is accepted).
 */
import { apiKeyCredentials } from '../helpers/credentials';
import { useEmulator } from '../helpers/emulatorFixture';
import { executeNode } from '../helpers/n8n';
import { recordCase } from './tally';
import { sendAndWaitParameters } from './waitingN8n';

const emu = useEmulator({ timeScale: 1 });

it('30 items on a Free key, 5 s timeout: every delivered message on "Delivered"; each "Not Delivered" item was looked up', async () => {
	const inputs = Array.from({ length: 30 }, (_, i) => ({ phone: i === 7 ? '+254712340999' : `+2547123400${String(i).padStart(2, '0')}` }));
	const [delivered, notDelivered] = await executeNode(
		{
			parameters: sendAndWaitParameters('polling', 5, { pollInterval: 1 }),
			credentials: apiKeyCredentials(emu.url, { plan: 'free' }),
		},
		inputs,
	);
	const messages = emu.control.messages();
	const deliveredAtService = messages.filter((m) => m.status === 'DELIVERED').map((m) => m.messageId).sort();
	expect(deliveredAtService).toHaveLength(29);
	expect(delivered.map((i) => String(i.json.messageId)).sort()).toEqual(deliveredAtService);
	const lookedUp = new Set(emu.control.requests().filter((r) => r.method === 'GET' && r.path.startsWith('/api/sms/messages/')).map((r) => r.path.split('/').pop()));
	expect(notDelivered.length).toBeGreaterThan(0);
	for (const item of notDelivered) expect(lookedUp.has(String(item.json.messageId))).toBe(true);
	expect(notDelivered.map((i) => [i.json.phoneNumber, i.json.status])).toEqual([['+254712340999', 'FAILED']]);

	const sentTwice = messages.length - new Set(messages.map((m) => m.phoneNumber)).size;
	const lost = inputs.length - delivered.length - notDelivered.length;
	expect(sentTwice).toBe(0);
	expect(lost).toBe(0);
	recordCase('Send and Wait, polling, 30 items on a Free key with a 5 s timeout: each message waits from its acceptance', { sentTwice, lost, forgedAccepted: 0 });
}, 90_000);
