import type { IDataObject, IHookFunctions } from 'n8n-workflow';

import { SvcMessagingTrigger } from '../../nodes/SvcMessaging/SvcMessagingTrigger.node';
import { hasSeen, LEDGER_CAPACITY, remember, reportKey } from '../../nodes/SvcMessaging/trigger/ledger';
import type { DeliveryReport } from '../../nodes/SvcMessaging/trigger/payload';
import { TRIGGER_LIMITS } from '../../nodes/SvcMessaging/trigger/limits';
import { hasValidSignature, signBody } from '../../nodes/SvcMessaging/trigger/signature';
import { sign as emulatorSign } from '../emulator/webhooks';

const report = (messageId: string, event = 'message.delivered') =>
	({ event, timestamp: new Date().toISOString(), data: { messageId, phoneNumber: '+254712345678', status: 'DELIVERED' } }) as DeliveryReport;

describe('duplicate ledger', () => {
	it(`keeps the last ${LEDGER_CAPACITY} digests (within ${TRIGGER_LIMITS.ledgerMaxBytes} bytes), oldest out first`, () => {
		const staticData: IDataObject = {};
		for (let i = 0; i <= LEDGER_CAPACITY; i++) remember(staticData, report(`msg_${i}`));
		const keys = staticData.deliveryReportKeys as string[];
		expect(keys).toHaveLength(LEDGER_CAPACITY);
		expect(JSON.stringify(keys).length).toBeLessThanOrEqual(TRIGGER_LIMITS.ledgerMaxBytes);
		expect(hasSeen(staticData, report('msg_0'))).toBe(false);
		expect(hasSeen(staticData, report('msg_1'))).toBe(true);
		expect(keys[keys.length - 1]).toBe(reportKey(report(`msg_${LEDGER_CAPACITY}`)));
	});

	it('stores each key once, as a digest, and tolerates foreign static data', () => {
		const staticData: IDataObject = { deliveryReportKeys: 'corrupted' };
		expect(hasSeen(staticData, report('a', 'message.sent'))).toBe(false);
		remember(staticData, report('a', 'message.sent'));
		remember(staticData, report('a', 'message.sent'));
		expect(staticData.deliveryReportKeys).toEqual([reportKey(report('a', 'message.sent'))]);
		expect(reportKey(report('a', 'message.sent'))).toMatch(/^[0-9a-f]{32}$/);
	});

	it('still knows the plain keys of earlier versions', () => {
		const staticData: IDataObject = { deliveryReportKeys: ['old_1|message.delivered'] };
		expect(hasSeen(staticData, report('old_1'))).toBe(true);
	});

	it('takes the same bytes for a long message ID as for a short one', () => {
		const short: IDataObject = {};
		const long: IDataObject = {};
		remember(short, report('m'));
		remember(long, report('m'.repeat(TRIGGER_LIMITS.maxMessageIdCharacters)));
		expect(JSON.stringify(long).length).toBe(JSON.stringify(short).length);
	});
});

describe('signature helper', () => {
	const body = Buffer.from('{"event":"message.sent","timestamp":"2026-01-01T00:00:00.000Z"}');

	it('computes the same header as the emulator', () => {
		expect(signBody(body, 's3cret')).toBe(emulatorSign('s3cret', body.toString('utf8')));
	});

	it('accepts upper-case hex and surrounding spaces, and rejects non-strings', () => {
		const header = signBody(body, 's3cret');
		expect(hasValidSignature(body, header, 's3cret')).toBe(true);
		expect(hasValidSignature(body, `  sha256=${header.slice(7).toUpperCase()} `, 's3cret')).toBe(true);
		expect(hasValidSignature(body, [header], 's3cret')).toBe(false);
		expect(hasValidSignature(body, undefined, 's3cret')).toBe(false);
		expect(hasValidSignature(body, header, 'other')).toBe(false);
	});
});

describe('node description', () => {
	const node = new SvcMessagingTrigger();

	it('is a POST webhook trigger that answers at once with its own response', () => {
		const { description } = node;
		expect(description.group).toEqual(['trigger']);
		expect(description.inputs).toEqual([]);
		expect(description.webhooks).toEqual([
			expect.objectContaining({ name: 'default', httpMethod: 'POST', responseMode: 'onReceived', responseData: '' }),
		]);
		expect(description.credentials).toEqual([{ name: 'svcMessagingApi', required: false, testedBy: 'svcMessagingApiTest' }]);
	});

	it('selects delivered, failed and expired by default', () => {
		const events = node.description.properties.find((p) => p.name === 'events');
		expect(events?.default).toEqual(['message.delivered', 'message.expired', 'message.failed']);
		expect(events?.options?.map((o) => (o as { value: string }).value).sort()).toEqual(
			['message.delivered', 'message.expired', 'message.failed', 'message.pending', 'message.sent'],
		);
	});

	it('registers nothing remotely and reports success to n8n', async () => {
		const calls: string[] = [];
		const context = new Proxy({} as IHookFunctions, {
			get: (_target, name) => {
				calls.push(String(name));
				return undefined;
			},
		});
		const methods = node.webhookMethods.default;
		await expect(methods.checkExists.call(context)).resolves.toBe(true);
		await expect(methods.create.call(context)).resolves.toBe(true);
		await expect(methods.delete.call(context)).resolves.toBe(true);
		// no HTTP request, no credential read, no static data
		expect(calls).toEqual([]);
	});
});
