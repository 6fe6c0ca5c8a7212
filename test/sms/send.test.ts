import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { useEmulator } from '../helpers/emulatorFixture';
import { executeNode } from '../helpers/n8n';
import { accountCredentials, apiKeyCredentials, SEED_KEYS, sendParameters, sent } from './fixtures';

const emu = useEmulator();

describe('SMS → Send', () => {
	it('sends one SMS per item, in input order, paired, with the segment estimate', async () => {
		const [out] = await executeNode(
			{ parameters: sendParameters({ message: 'Habari! 🎉 order shipped' }), credentials: apiKeyCredentials(emu.url) },
			[{ phone: '+254712345678' }, { phone: '+2348031234567' }, { phone: '+256712345678' }],
		);
		expect(out).toHaveLength(3);
		expect(out.map((i) => i.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		expect(out.map((i) => i.json.phoneNumber)).toEqual(['+254712345678', '+2348031234567', '+256712345678']);
		for (const item of out) {
			expect(item.json).toMatchObject({ accepted: true, status: 'PENDING', encoding: 'Unicode', segments: 1, creditsUsed: 1, sandbox: true });
			expect(typeof item.json.messageId).toBe('string');
			expect(item.json.senderId).toBe('SVCSMS');
		}
		expect(emu.control.messages()).toHaveLength(3);
	});

	it('normalises national numbers with Default Country and passes sender, reference and delivery URL', async () => {
		const [out] = await executeNode(
			{
				parameters: sendParameters({
					senderId: { __rl: true, mode: 'id', value: 'ACMEKE' },
					options: { defaultCountry: 'KE', reference: 'order-42', webhookUrl: 'https://hooks.example.com/dlr' },
				}),
				credentials: apiKeyCredentials(emu.url),
			},
			[{ phone: '0712 345 678' }],
		);
		expect(out[0].json).toMatchObject({ phoneNumber: '+254712345678', senderId: 'ACMEKE', reference: 'order-42' });
		const [message] = emu.control.messages();
		expect(message).toMatchObject({ phoneNumber: '+254712345678', senderId: 'ACMEKE', reference: 'order-42', webhookUrl: 'https://hooks.example.com/dlr' });
	});

	it('counts GSM-7 segments at 160 characters and extension characters as two', async () => {
		const [out] = await executeNode({ parameters: sendParameters({ message: `${'a'.repeat(159)}€` }), credentials: apiKeyCredentials(emu.url) }, [
			{ phone: '+254712345678' },
		]);
		expect(out[0].json).toMatchObject({ encoding: 'GSM-7', characters: 160, segments: 2, creditsUsed: 2 });
	});

	it('sends a future scheduled time as ISO 8601 in UTC from the workflow timezone', async () => {
		const local = new Date(Date.now() + 2 * 3600_000 + 3 * 3600_000).toISOString().slice(0, 19); // Nairobi is UTC+3
		const [out] = await executeNode(
			{ parameters: sendParameters({ options: { scheduledAt: local } }), credentials: apiKeyCredentials(emu.url) },
			[{ phone: '+254712345678' }],
		);
		const expected = new Date(Date.parse(`${local}Z`) - 3 * 3600_000).toISOString();
		expect(out[0].json.scheduledAt).toBe(expected);
		expect(emu.control.messages()[0].scheduledAt).toBe(expected);
	});

	describe('bad input is refused before any request', () => {
		it.each([
			[{ phone: '12345' }, {}, /Item 0: "Phone Number" must be in E\.164 format/],
			[{ phone: '+14155550123' }, {}, /Item 0: "Phone Number" is not in a supported destination country/],
			[{ phone: '+254712345678' }, { message: '' }, /Item 0: "Message" must not be empty/],
			[{ phone: '+254712345678' }, { message: 'x'.repeat(1601) }, /Item 0: "Message" must be at most 1600 characters/],
			[{ phone: '+254712345678' }, { senderId: { __rl: true, mode: 'id', value: 'ACME KE!' } }, /Item 0: "Sender ID" must be 1–11 capital letters/],
			[{ phone: '+254712345678' }, { options: { scheduledAt: '2020-01-01T10:00:00' } }, /Item 0: "Scheduled Time" must be in the future/],
			[{ phone: '+254712345678' }, { options: { webhookUrl: 'not a url' } }, /Item 0: "Delivery Report URL" must be a full URL/],
		])('%j %j', async (item, params, message) => {
			const run = executeNode({ parameters: sendParameters(params), credentials: apiKeyCredentials(emu.url) }, [item]);
			await expect(run).rejects.toThrow(NodeOperationError);
			await expect(run).rejects.toThrow(message);
			expect(sent(emu)).toHaveLength(0);
		});

		it('names the failing item and sends nothing for any item', async () => {
			const run = executeNode({ parameters: sendParameters(), credentials: apiKeyCredentials(emu.url) }, [
				{ phone: '+254712345678' },
				{ phone: '+254712345679' },
				{ phone: 'call me' },
			]);
			await expect(run).rejects.toThrow(/^Item 2: "Phone Number"/);
			expect(sent(emu)).toHaveLength(0);
		});
	});

	describe('service errors reach the user with the code and a hint', () => {
		async function failing(parameters: Record<string, unknown>, credentials: ReturnType<typeof apiKeyCredentials>, phone = '+254712345678') {
			const error = await executeNode({ parameters: sendParameters(parameters), credentials }, [{ phone }]).then(
				() => undefined,
				(e: NodeApiError) => e,
			);
			expect(error).toBeInstanceOf(NodeApiError);
			return error!;
		}

		it('401 UNAUTHORIZED for an unknown key, without the key in the error', async () => {
			const error = await failing({}, apiKeyCredentials(emu.url, { apiKey: 'svc_test_not_a_key_9999' }));
			expect(error.message).toMatch(/UNAUTHORIZED/);
			expect(error.description).toMatch(/Check the API key/);
			expect(JSON.stringify({ m: error.message, d: error.description, c: error.context })).not.toContain('svc_test_not_a_key_9999');
		});

		it('402 INSUFFICIENT_CREDITS suggests topping up', async () => {
			const error = await failing({}, apiKeyCredentials(emu.url, { apiKey: SEED_KEYS.broke, plan: 'free' }));
			expect(error.message).toMatch(/INSUFFICIENT_CREDITS/);
			expect(error.httpCode).toBe('402');
			expect(error.description).toMatch(/Top up credits/);
		});

		it('422 INVALID_SENDER_ID when the sender is not approved for the destination', async () => {
			const error = await failing({ senderId: { __rl: true, mode: 'id', value: 'ACMEKE' } }, apiKeyCredentials(emu.url), '+233241234567');
			expect(error.message).toMatch(/INVALID_SENDER_ID/);
			expect(error.description).toMatch(/Sender ID → Get Many/);
		});

		it('422 INVALID_PHONE_NUMBER from the service when only the format is checked locally', async () => {
			const error = await failing({ options: { numberCheck: 'format' } }, apiKeyCredentials(emu.url), '+2547123');
			expect(error.message).toMatch(/INVALID_PHONE_NUMBER/);
			expect(error.httpCode).toBe('422');
		});

		it('429 RATE_LIMIT_EXCEEDED is waited out (Retry-After) and the send succeeds once', async () => {
			await emu.control.addFault({ kind: 'rate-limit', pathPrefix: '/api/sms/send-api', count: 1, retryAfterSeconds: 1 });
			const [out] = await executeNode({ parameters: sendParameters(), credentials: apiKeyCredentials(emu.url) }, [{ phone: '+254712345678' }]);
			expect(out[0].json.accepted).toBe(true);
			expect(sent(emu).map((r) => r.status)).toEqual([429, 202]);
			expect(emu.control.messages()).toHaveLength(1);
		});
	});

	describe('never sends an SMS twice', () => {
		it('a dropped connection after the service accepted gives one message and a clear error, not a retry', async () => {
			await emu.control.addFault({ kind: 'drop-after-processing', pathPrefix: '/api/sms/send-api', count: 1 });
			const run = executeNode({ parameters: sendParameters(), credentials: apiKeyCredentials(emu.url) }, [{ phone: '+254712345678' }]);
			await expect(run).rejects.toThrow(/no answer from the service/);
			await expect(run).rejects.toMatchObject({ description: expect.stringMatching(/may have accepted it\. It was not repeated/) });
			expect(sent(emu)).toHaveLength(1);
			expect(emu.control.messages()).toHaveLength(1);
		});

		it('a 5xx on a send is reported, not repeated', async () => {
			await emu.control.addFault({ kind: 'server-error', pathPrefix: '/api/sms/send-api', count: 1, status: 503 });
			const run = executeNode({ parameters: sendParameters(), credentials: apiKeyCredentials(emu.url) }, [{ phone: '+254712345678' }]);
			await expect(run).rejects.toMatchObject({ httpCode: '503', description: expect.stringMatching(/may have processed it/) });
			expect(sent(emu)).toHaveLength(1);
		});

		it("n8n's Retry On Fail re-run of the same execution re-sends nothing already accepted", async () => {
			const setup = {
				parameters: sendParameters(),
				credentials: apiKeyCredentials(emu.url),
				settings: { retryOnFail: true },
				executionId: 'retry-on-fail-execution',
			};
			const items = [{ phone: '+254712345678' }, { phone: '+254712345679' }, { phone: '+256712345678' }];
			await emu.control.addFault({ kind: 'server-error', pathPrefix: '/api/sms/send-api', count: 1, status: 500 });
			// First try: one of the three sends hits the 500 and is not repeated; the node throws.
			await expect(executeNode(setup, items)).rejects.toThrow(/1 message\(s\) were not accepted .*; 2 were accepted/);
			expect(emu.control.messages()).toHaveLength(2);
			// n8n runs the node again with the same input in the same execution.
			const again = await executeNode(setup, items).catch((e: Error) => e);
			expect(emu.control.messages()).toHaveLength(2);
			expect(sent(emu)).toHaveLength(3);
			expect(again).toBeInstanceOf(Error);
		});
	});

	describe('Continue On Fail', () => {
		it('outputs accepted and rejected items in order, paired, without json.error', async () => {
			const [out] = await executeNode(
				{ parameters: sendParameters(), credentials: apiKeyCredentials(emu.url), settings: { onError: 'continueRegularOutput' } },
				[{ phone: '+254712345678' }, { phone: 'nonsense' }, { phone: '+254712345679' }],
			);
			expect(out.map((i) => i.json.accepted)).toEqual([true, false, true]);
			expect(out.map((i) => i.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
			expect(out[1].json).toMatchObject({ errorCode: 'VALIDATION_ERROR', errorMessage: expect.stringMatching(/Item 1: "Phone Number"/) });
			expect(out[1].json.error).toBeUndefined();
			// n8n would replace the fields of an item carrying `error` with { error } (see rejectedItem).
			expect(out[1].error).toBeUndefined();
			expect(emu.control.messages()).toHaveLength(2);
		});

		it('with "On Error → error output", rejected items carry n8n\'s error so n8n routes them there', async () => {
			const [out] = await executeNode(
				{ parameters: sendParameters(), credentials: apiKeyCredentials(emu.url), settings: { onError: 'continueErrorOutput' } },
				[{ phone: '+254712345678' }, { phone: 'nonsense' }],
			);
			expect(out[0].error).toBeUndefined();
			expect(out[1].error).toBeInstanceOf(NodeOperationError);
			expect(out[1].json.error).toBeUndefined();
			expect(out[1].json).toMatchObject({ accepted: false, errorCode: 'VALIDATION_ERROR' });
		});
	});

	describe('Check Balance Before Sending', () => {
		it('stops before sending when the balance is short, stating needed vs available', async () => {
			await emu.control.updateAccount('acc_demo', { credits: 2 });
			const run = executeNode(
				{
					parameters: sendParameters({ checkBalance: true, message: 'x'.repeat(200) }),
					credentials: { ...apiKeyCredentials(emu.url), ...accountCredentials(emu.url) },
				},
				[{ phone: '+254712345678' }, { phone: '+254712345679' }],
			);
			await expect(run).rejects.toThrow('INSUFFICIENT_CREDITS: this send needs about 4 credits but the account has 2. Nothing was sent.');
			expect(sent(emu)).toHaveLength(0);
		});

		it('sends when the balance covers the estimate', async () => {
			const [out] = await executeNode(
				{ parameters: sendParameters({ checkBalance: true }), credentials: { ...apiKeyCredentials(emu.url), ...accountCredentials(emu.url) } },
				[{ phone: '+254712345678' }],
			);
			expect(out[0].json.accepted).toBe(true);
		});

		it('says which credential is missing instead of failing silently', async () => {
			const run = executeNode({ parameters: sendParameters({ checkBalance: true }), credentials: apiKeyCredentials(emu.url) }, [
				{ phone: '+254712345678' },
			]);
			await expect(run).rejects.toThrow(/needs the SVC Messaging Account API \(email and password\) credential/);
			expect(sent(emu)).toHaveLength(0);
		});
	});
});

describe('SMS → Send to a service that refuses the connection', () => {
	test('is reported as not sent (nothing reached the service), not as a message that may have been accepted', async () => {
		const { freeTcpPort } = await import('../helpers/services');
		const closed = `http://127.0.0.1:${await freeTcpPort()}`;
		const error = await executeNode(
			{ parameters: sendParameters(), credentials: apiKeyCredentials(closed) },
			[{ phone: '+254712345678' }],
		).then(
			() => undefined,
			(e: unknown) => e as NodeApiError,
		);
		expect(error).toBeInstanceOf(NodeApiError);
		if (!error) return;
		expect(error.message).toMatch(/the service could not be reached/);
		expect(error.description).toMatch(/Nothing reached the service. Check the Base URL/);
		expect(error.description).not.toMatch(/may have accepted/);
	});
});
