/**
 * Options → Dry Run on every sending operation, over real HTTP against the emulator: every check
 * runs and each item is priced (encoding, segments, credits, sender, send time), a hint gives the
 * total, and the emulator receives no send request at all; nothing is written to the send ledger,
 * so a Retry afterwards sends every message.
 */
import type { IDataObject } from 'n8n-workflow';

import { limiterCount, releaseIdleLimiters } from '../../nodes/SvcMessaging/transport/limiter';
import { useEmulator } from '../helpers/emulatorFixture';
import { executeNodeWithHints } from '../helpers/n8n';
import { credentials as campaignCredentials, createParameters } from '../campaign/helpers';
import { OPTED_IN, OPTED_IN_2 } from '../chat/helpers';
import { apiKeyCredentials, sendBulkParameters, sendParameters } from '../sms/fixtures';

const emu = useEmulator();

const SEND_PATHS = ['/api/sms/send-api', '/api/chat/messages', '/api/sms/campaigns'];
const sendRequests = () => emu.control.requests().filter((r) => r.method !== 'GET' && SEND_PATHS.some((p) => r.path.startsWith(p)));

const run = async (parameters: IDataObject, items: IDataObject[], extra: IDataObject = {}) => {
	const { output, hints } = await executeNodeWithHints({ parameters, credentials: apiKeyCredentials(emu.url), ...extra }, items);
	return { outputs: output, out: output[0].map((i) => i.json), hints };
};

const two = [{ phone: '+254712345601', name: 'Amina' }, { phone: '+2348031234567', name: 'Zoë 😀' }];

describe('Dry Run: priced, checked, nothing posted', () => {
	it('SMS → Send: each item priced with its sender and send time, a total, 0 send requests', async () => {
		const { out, hints } = await run(sendParameters({ message: '={{ "Hi " + $json.name }}', options: { dryRun: true } }), two);
		expect(sendRequests()).toHaveLength(0);
		expect(emu.control.messages()).toHaveLength(0);
		expect(out).toEqual([
			{ accepted: false, phoneNumber: '+254712345601', message: 'Hi Amina', senderId: 'SVCSMS', encoding: 'GSM-7', messageLength: 8, segments: 1, credits: 1, sendAt: 'now', dryRun: true },
			{ accepted: false, phoneNumber: '+2348031234567', message: 'Hi Zoë 😀', senderId: 'SVCSMS', encoding: 'Unicode', messageLength: 8, segments: 1, credits: 1, sendAt: 'now', dryRun: true },
		]);
		expect(hints).toContain('Dry run: nothing was sent. 2 messages would be sent, about 2 credits. Turn off "Dry Run" to send.');
	});

	it('SMS → Send: the checks still run (a bad number is refused as in a real send)', async () => {
		await expect(run(sendParameters({ options: { dryRun: true } }), [{ phone: '12' }])).rejects.toThrow(/Phone Number/);
		expect(sendRequests()).toHaveLength(0);
	});

	it('SMS → Send: a dry run opens no limiter for its key (it posts nothing); a real send does', async () => {
		await releaseIdleLimiters(0);
		const before = limiterCount();
		// Messages of their own: the later tests' Retry must not find them in the send ledger.
		const own = sendParameters({ message: 'Only the limiter is counted here' });
		await run({ ...own, options: { dryRun: true } }, two);
		expect(limiterCount()).toBe(before);
		await run({ ...own, options: {} }, two);
		expect(limiterCount()).toBe(before + 1);
	});

	it('SMS → Send: nothing is written to the send ledger — a Retry after a dry run sends every message once', async () => {
		const parameters = sendParameters({ options: { dryRun: true } });
		await run(parameters, two, { executionId: 'dry-1' });
		const retry = await run({ ...parameters, options: {} }, two, { executionId: 'dry-2', mode: 'retry' });
		expect(retry.out.map((o) => [o.accepted, o.alreadySent])).toEqual([
			[true, undefined],
			[true, undefined],
		]);
		expect(emu.control.messages()).toHaveLength(2);
	});

	it('SMS → Send Bulk: each recipient priced with its placeholders filled, 0 send requests', async () => {
		const scheduledAt = new Date(Date.now() + 3_600_000).toISOString();
		const { out, hints } = await run(sendBulkParameters({ senderId: { __rl: true, mode: 'id', value: 'ACMEKE' }, options: { dryRun: true, scheduledAt } }), [
			...two,
			{ phone: '+254712345603', name: 'x'.repeat(200) },
		]);
		expect(sendRequests()).toHaveLength(0);
		expect(out.map((o) => [o.phoneNumber, o.message, o.senderId, o.encoding, o.segments, o.credits, o.dryRun])).toEqual([
			['+254712345601', 'Hi Amina', 'ACMEKE', 'GSM-7', 1, 1, true],
			['+2348031234567', 'Hi Zoë 😀', 'ACMEKE', 'Unicode', 1, 1, true],
			['+254712345603', `Hi ${'x'.repeat(200)}`, 'ACMEKE', 'GSM-7', 2, 2, true],
		]);
		expect(Date.parse(out[0].sendAt as string)).toBe(Date.parse(scheduledAt));
		expect(hints).toContain('Dry run: nothing was sent. 3 messages would be sent, about 4 credits. Turn off "Dry Run" to send.');
	});

	it('SMS → Send and Wait: priced on the first output, no wait, 0 send requests', async () => {
		const { outputs } = await run(sendParameters({ operation: 'sendAndWaitForDelivery', waitMode: 'polling', timeout: 30, options: { dryRun: true } }), two);
		expect(sendRequests()).toHaveLength(0);
		expect(outputs[0].map((i) => [i.json.dryRun, i.json.credits, i.pairedItem])).toEqual([
			[true, 1, { item: 0 }],
			[true, 1, { item: 1 }],
		]);
		expect(outputs[1]).toEqual([]);
	});

	it('Chat Message → Send: priced at one credit a message, 0 send requests', async () => {
		const { out, hints } = await run(
			{ resource: 'chatMessage', operation: 'send', phoneNumber: '={{ $json.phone }}', messageType: 'text', text: 'Your order shipped', options: { dryRun: true } },
			[{ phone: OPTED_IN }, { phone: OPTED_IN_2 }],
		);
		expect(sendRequests()).toHaveLength(0);
		expect(out).toEqual([
			{ accepted: false, phoneNumber: OPTED_IN, type: 'text', recipientType: 'individual', credits: 1, sendAt: 'now', dryRun: true },
			{ accepted: false, phoneNumber: OPTED_IN_2, type: 'text', recipientType: 'individual', credits: 1, sendAt: 'now', dryRun: true },
		]);
		expect(hints).toContain('Dry run: nothing was sent. 2 messages would be sent, about 2 credits. Turn off "Dry Run" to send.');
	});

	it('Campaign → Create: priced (segments × numbers), no campaign created', async () => {
		const before = emu.state.campaigns.size;
		const { output, hints } = await executeNodeWithHints(
			{ parameters: { resource: 'campaign', ...createParameters({ options: { dryRun: true } }) }, credentials: campaignCredentials(emu.url) },
			[{}],
		);
		expect(sendRequests()).toHaveLength(0);
		expect(emu.state.campaigns.size).toBe(before);
		expect(output[0][0].json).toEqual({
			created: false,
			name: 'March promotion',
			senderId: 'ACMEKE',
			manualRecipients: 2,
			encoding: 'GSM-7',
			characters: 34,
			segments: 1,
			creditsPerRecipient: 1,
			estimatedCredits: 2,
			sendAt: 'draft (Send Now)',
			dryRun: true,
		});
		expect(hints).toContain('Dry run: nothing was sent. 1 campaign would be sent, about 2 credits. Turn off "Dry Run" to send.');
	});
});
