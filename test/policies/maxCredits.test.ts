/**
 * Options → Max Credits on every sending operation, over real HTTP against the emulator: the
 * node estimates the credits of what it is about to send and, when the estimate is above the
 * budget, refuses before the first send request, naming both; otherwise a hint reports the
 * credits used against the budget.
 */
import type { IDataObject } from 'n8n-workflow';

import { useEmulator } from '../helpers/emulatorFixture';
import { executeNodeWithHints } from '../helpers/n8n';
import { credentials as campaignCredentials, createParameters } from '../campaign/helpers';
import { OPTED_IN, OPTED_IN_2 } from '../chat/helpers';
import { apiKeyCredentials, sendBulkParameters, sendParameters } from '../sms/fixtures';

const emu = useEmulator();

const SEND_PATHS = ['/api/sms/send-api', '/api/chat/messages', '/api/sms/campaigns'];
const sendRequests = () => emu.control.requests().filter((r) => r.method !== 'GET' && SEND_PATHS.some((p) => r.path.startsWith(p)));

const run = async (parameters: IDataObject, items: IDataObject[]) => {
	const { output, hints } = await executeNodeWithHints({ parameters, credentials: apiKeyCredentials(emu.url) }, items);
	return { out: output[0].map((i) => i.json), hints };
};

const refusal = (estimate: number, budget: number) =>
	`CREDIT_BUDGET_EXCEEDED: this send needs about ${estimate} credits, more than "Max Credits" (${budget}). Nothing was sent.`;

// 200 GSM-7 characters: 2 segments, 2 credits a message.
const LONG = 'x'.repeat(200);
const three = [{ phone: '+254712345601' }, { phone: '+254712345602' }, { phone: '+254712345603' }];

describe('Max Credits: refused before the first request when the estimate is above it', () => {
	it('SMS → Send: 3 messages of 2 segments (6 credits) against 5: refused, 0 send requests', async () => {
		await expect(run(sendParameters({ message: LONG, options: { maxCredits: 5 } }), three)).rejects.toThrow(refusal(6, 5));
		expect(sendRequests()).toHaveLength(0);
	});

	it('SMS → Send: 6 credits against 6 are sent, and the hint reports them against the budget', async () => {
		const { out, hints } = await run(sendParameters({ message: LONG, options: { maxCredits: 6 } }), three);
		expect(out.map((o) => o.accepted)).toEqual([true, true, true]);
		expect(emu.control.messages().reduce((sum, m) => sum + Number(m.segments), 0)).toBe(6);
		expect(hints).toContain('Max Credits: about 6 of 6 credits used.');
	});

	it('SMS → Send Bulk: placeholders filled count (1 + 2 + 1 credits) against 3: refused, 0 send requests', async () => {
		const items = [
			{ phone: '+254712345601', name: 'Amina' },
			{ phone: '+254712345602', name: LONG },
			{ phone: '+254712345603', name: 'Otieno' },
		];
		const error = await run(sendBulkParameters({ options: { maxCredits: 3 } }), items).catch((e: unknown) => e as Error & { context: IDataObject });
		expect(error).toBeInstanceOf(Error);
		expect((error as Error).message).toBe(refusal(4, 3));
		expect(sendRequests()).toHaveLength(0);
	});

	it('SMS → Send and Wait: refused before sending', async () => {
		await expect(
			run(sendParameters({ operation: 'sendAndWaitForDelivery', waitMode: 'polling', timeout: 30, message: LONG, options: { maxCredits: 1 } }), three.slice(0, 1)),
		).rejects.toThrow(refusal(2, 1));
		expect(sendRequests()).toHaveLength(0);
	});

	it('Chat Message → Send: one credit a message, 2 against 1: refused', async () => {
		const parameters = { resource: 'chatMessage', operation: 'send', phoneNumber: '={{ $json.phone }}', messageType: 'text', text: 'Hello', options: { maxCredits: 1 } };
		await expect(run(parameters, [{ phone: OPTED_IN }, { phone: OPTED_IN_2 }])).rejects.toThrow(refusal(2, 1));
		expect(sendRequests()).toHaveLength(0);
	});

	it('Campaign → Create: segments × numbers against the budget; contact groups cannot be estimated and are refused', async () => {
		const before = emu.state.campaigns.size;
		const create = async (extra: IDataObject) =>
			await executeNodeWithHints({ parameters: { resource: 'campaign', ...createParameters(extra) }, credentials: campaignCredentials(emu.url) }, [{}]);
		await expect(create({ options: { maxCredits: 1 } })).rejects.toThrow(refusal(2, 1));
		await expect(create({ contactGroupIds: '1', options: { maxCredits: 1000 } })).rejects.toThrow(/cannot be estimated before sending/);
		expect(sendRequests()).toHaveLength(0);
		expect(emu.state.campaigns.size).toBe(before);
		const { output, hints } = await create({ options: { maxCredits: 2 } });
		expect(output[0][0].json.estimatedCredits).toBe(2);
		expect(hints).toContain('Max Credits: about 2 of 2 credits used.');
	});

	it('a budget that is not a number of credits is refused, naming the field', async () => {
		await expect(run(sendParameters({ options: { maxCredits: -1 } }), three)).rejects.toThrow('Item 0: "Max Credits" must be a number of credits, 0 or more (got -1)');
		expect(sendRequests()).toHaveLength(0);
	});

	it('with Dry Run: the same refusal, and under the budget the hint sets the estimate against it', async () => {
		await expect(run(sendParameters({ message: LONG, options: { maxCredits: 5, dryRun: true } }), three)).rejects.toThrow(refusal(6, 5));
		const { hints } = await run(sendParameters({ message: LONG, options: { maxCredits: 10, dryRun: true } }), three);
		expect(hints).toContain('Dry run: nothing was sent. 3 messages would be sent, about 6 credits of the budget of 10 (Max Credits). Turn off "Dry Run" to send.');
		expect(sendRequests()).toHaveLength(0);
	});
});
