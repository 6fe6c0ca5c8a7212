import { ACCOUNT, delivery, receiver, SECRET, sendSms, sent, signed, trigger, useTriggerBed, withoutSignature, withSecret } from './bed';

/** The X-SVC-Signature check against the secret of the credential, and its absence. */
const emulator = useTriggerBed();

describe('signature', () => {
	it('accepts the signature the emulator computed with the shared secret', async () => {
		const d = delivery('delivered', 'message.delivered');
		const answer = await trigger(d);
		expect(answer.statusCode).toBe(200);
		expect(answer.executions).toBe(1);
	});

	it('rejects a delivery without a signature with 401 and no execution', async () => {
		const answer = await trigger(withoutSignature(delivery('delivered', 'message.delivered')));
		expect(answer).toEqual({
			statusCode: 401,
			body: { received: false, error: 'Missing or invalid signature' },
			executions: 0,
			items: [],
			staticData: expect.anything(),
		});
	});

	it('rejects forged signatures with 401', async () => {
		const d = delivery('delivered', 'message.delivered');
		const otherSecret = signed(d, d.rawBody, 'not-the-secret');
		const tampered = Buffer.from(
			d.rawBody.toString('utf8').replace(sent.delivered.phoneNumber, '+254700000001'),
			'utf8',
		);
		expect(tampered.equals(d.rawBody)).toBe(false);
		const forgeries = [
			otherSecret,
			// a real signature over a changed body
			{ headers: d.headers, rawBody: tampered },
			// the right digest under another scheme name, truncated, or not hex
			{ headers: { ...d.headers, 'x-svc-signature': d.headers['x-svc-signature'].replace('sha256=', 'sha1=') }, rawBody: d.rawBody },
			{ headers: { ...d.headers, 'x-svc-signature': d.headers['x-svc-signature'].slice(0, -2) }, rawBody: d.rawBody },
			{ headers: { ...d.headers, 'x-svc-signature': 'sha256=' + 'zz'.repeat(32) }, rawBody: d.rawBody },
		];
		for (const forged of forgeries) {
			const answer = await trigger(forged);
			expect(answer.statusCode).toBe(401);
			expect(answer.executions).toBe(0);
		}
	});

	it('rejects the emulator signature when the credential holds another secret', async () => {
		const answer = await trigger(delivery('delivered', 'message.delivered'), { credentials: withSecret('rotated-secret') });
		expect(answer.statusCode).toBe(401);
		expect(answer.executions).toBe(0);
	});

	it('checks the signature before it parses the body', async () => {
		const d = delivery('delivered', 'message.delivered');
		const answer = await trigger({ headers: withoutSignature(d).headers, rawBody: Buffer.from('{not json') });
		expect(answer.statusCode).toBe(401);
	});

	it('never shows the secret in responses or outputs', async () => {
		const d = delivery('unreachable', 'message.failed');
		const answers = [
			await trigger(d, { parameters: { options: { includeRawPayload: true } } }),
			await trigger(withoutSignature(d)),
			await trigger(signed(d, '{bad')),
		];
		expect(answers.map((a) => a.statusCode)).toEqual([200, 401, 400]);
		expect(JSON.stringify(answers)).not.toContain(SECRET);
	});
});

describe('no secret configured', () => {
	it('accepts unsigned deliveries when the node has no credential', async () => {
		emulator.control.updateAccount(ACCOUNT, { webhookUrl: receiver.url, webhookSecret: null });
		try {
			const unsigned = await sendSms('+254712340001', 'order-unsigned');
			const [d] = await receiver.waitFor(
				(x) => x.messageId === unsigned.messageId && x.event === 'message.delivered',
			);
			expect(d.headers['x-svc-signature']).toBeUndefined();

			const answer = await trigger(d, { credentials: {} });
			expect(answer.statusCode).toBe(200);
			expect(answer.executions).toBe(1);
			expect(answer.items[0]).toMatchObject({ messageId: unsigned.messageId, event: 'message.delivered' });

			// the same unsigned call is refused once a secret is configured
			const checked = await trigger(d);
			expect(checked.statusCode).toBe(401);
		} finally {
			emulator.control.updateAccount(ACCOUNT, { webhookUrl: receiver.url, webhookSecret: SECRET });
		}
	});

	it('does not check signatures when the credential has an empty Webhook Secret', async () => {
		const d = delivery('delivered', 'message.delivered');
		const forged = signed(d, d.rawBody, 'anything');
		const answer = await trigger(forged, { credentials: withSecret('') });
		expect(answer.statusCode).toBe(200);
		expect(answer.executions).toBe(1);
	});
});
