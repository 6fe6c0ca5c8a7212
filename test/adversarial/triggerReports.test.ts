/**
 * Hostile delivery reports at the trigger. Signed with the emulator's own
 * signer (test/emulator/webhooks.ts sign), handed to the trigger in n8n-core's real WebhookContext.
 * - 2,000 reports with 60 KB message IDs: refused by the schema, the static data stays bounded.
 * - Replays: the replay window is the duplicate ledger (its byte bound, LEDGER_CAPACITY reports) and
 *   the report's age (TRIGGER_LIMITS.maxReportAgeMs); with the shared Redis, the claim's TTL, which
 *   outlasts the window of a report dated as far ahead as accepted (TRIGGER_LIMITS.maxFutureSkewMs).
 * - Reports dated further ahead (a year, year 9999) are refused.
 * - A report nested 5,000 levels deep with Include Raw Payload: the execution data stays serialisable.
 */
import Redis from 'ioredis';
import type { IDataObject } from 'n8n-workflow';

import { SvcMessagingTrigger } from '../../nodes/SvcMessaging/SvcMessagingTrigger.node';
import { LEDGER_CAPACITY } from '../../nodes/SvcMessaging/trigger/ledger';
import { TRIGGER_LIMITS } from '../../nodes/SvcMessaging/trigger/limits';
import { sign } from '../emulator/webhooks';
import { apiKeyCredentials, type SharedLimitRedis, type TestCredentials } from '../helpers/credentials';
import { callWebhook, registerNodeType } from '../helpers/n8n';
import { useRedis } from '../helpers/redisFixture';
import { asWebhookRequest, n8nAnswer } from '../trigger/harness';
import { recordCase } from './tally';

registerNodeType('svcMessagingTrigger', new SvcMessagingTrigger());
const TYPE = 'n8n-nodes-svc-messaging.svcMessagingTrigger';
const SECRET = 'whsec_adversarial_reports_01';
const LEDGER = 'node:SVC Messaging';

/** The trigger only checks signatures: the key and the service's address are never used. */
const credentials = (redis?: SharedLimitRedis): TestCredentials =>
	apiKeyCredentials('http://127.0.0.1:9', { apiKey: 'svc_live_unused', plan: 'free', webhookSecret: SECRET, redis });

function report(messageId: string, at = Date.now(), extra: IDataObject = {}) {
	return {
		event: 'message.delivered',
		timestamp: new Date(at).toISOString(),
		data: { messageId, phoneNumber: '+254712345678', status: 'DELIVERED', deliveredAt: new Date(at).toISOString(), creditsUsed: 1 },
		...extra,
	};
}

async function post(body: unknown, run: { staticData?: IDataObject; parameters?: IDataObject; credentials?: TestCredentials } = {}) {
	const text = typeof body === 'string' ? body : JSON.stringify(body);
	const rawBody = Buffer.from(text, 'utf8');
	const request = asWebhookRequest({ headers: { 'content-type': 'application/json', 'x-svc-signature': sign(SECRET, text) }, rawBody });
	const call = await callWebhook(
		{ type: TYPE, parameters: run.parameters ?? {}, credentials: run.credentials ?? credentials() },
		request,
		run.staticData ?? {},
	);
	return n8nAnswer(call);
}

it('2,000 reports with 60 KB message IDs are refused, and the ledger stays within its byte bound', async () => {
	const staticData: IDataObject = {};
	let executions = 0;
	let refused = 0;
	for (let i = 0; i < 2000; i++) {
		const answer = await post(report(`${String(i).padStart(6, '0')}${'x'.repeat(60 * 1024)}`), { staticData });
		executions += answer.executions;
		if (answer.statusCode === 400) refused++;
	}
	expect({ executions, refused }).toEqual({ executions: 0, refused: 2000 });
	const hugeIdExecutions = executions;
	// Then as many ordinary reports as the ledger holds, with IDs at the cap: bounded by bytes.
	for (let i = 0; i < LEDGER_CAPACITY + 50; i++) {
		executions += (await post(report(`msg_${String(i).padStart(TRIGGER_LIMITS.maxMessageIdCharacters - 4, '0')}`), { staticData })).executions;
	}
	expect(executions).toBe(LEDGER_CAPACITY + 50);
	const stored = JSON.stringify(staticData[LEDGER]);
	expect(stored.length).toBeLessThanOrEqual(TRIGGER_LIMITS.ledgerMaxBytes + 100);
	recordCase('2,000 reports with 60 KB message IDs: refused, ledger within its byte bound', { sentTwice: 0, lost: 0, forgedAccepted: hugeIdExecutions });
}, 120_000);

describe('the replay window', () => {
	it(`a signed report replayed after ${LEDGER_CAPACITY - 1} others starts nothing; after ${LEDGER_CAPACITY} others (out of the ledger) it starts a new execution`, async () => {
		const staticData: IDataObject = {};
		const original = report('replayed_1');
		expect((await post(original, { staticData })).executions).toBe(1);
		for (let i = 0; i < LEDGER_CAPACITY - 1; i++) await post(report(`other_${i}`), { staticData });
		const inWindow = await post(original, { staticData });
		expect(inWindow).toMatchObject({ statusCode: 200, executions: 0, body: { ignored: 'duplicate' } });
		recordCase(`signed report replayed after ${LEDGER_CAPACITY - 1} others: starts nothing`, { sentTwice: 0, lost: 0, forgedAccepted: inWindow.executions });

		// The documented edge of the static-data ledger: once pushed out, a replay is new to it.
		for (let i = 0; i < LEDGER_CAPACITY; i++) await post(report(`more_${i}`), { staticData });
		expect((await post(original, { staticData })).executions).toBe(1);
	}, 120_000);

	it('a signed report dated more than the accepted skew ahead (a year, year 9999) is refused: 400, nothing starts', async () => {
		const { maxFutureSkewMs } = TRIGGER_LIMITS;
		const ahead = {
			sixMinutes: Date.now() + maxFutureSkewMs + 60_000,
			aYear: Date.now() + 365 * 24 * 3600 * 1000,
			year9999: Date.parse('9999-12-31T23:59:59Z'),
		};
		const staticData: IDataObject = {};
		const answers = await Promise.all(Object.entries(ahead).map(async ([name, at]) => [name, await post(report(`future_${name}`, at), { staticData })] as const));
		for (const [, answer] of answers) {
			expect(answer).toMatchObject({ statusCode: 400, executions: 0 });
			expect(String((answer.body as IDataObject).error)).toMatch(/^The timestamp \S+ is more than 5 minutes ahead of this n8n's clock/);
		}
		// Within the skew, a first delivery starts its execution.
		expect((await post(report('future_within', Date.now() + maxFutureSkewMs - 60_000), { staticData })).executions).toBe(1);
		const forgedAccepted = answers.reduce((sum, [, answer]) => sum + answer.executions, 0);
		recordCase('signed reports dated a year ahead and in year 9999: refused', { sentTwice: 0, lost: 0, forgedAccepted });
	});

	it('a signed report older than the replay window starts nothing, whatever the ledger holds', async () => {
		const old = report('replayed_old', Date.now() - TRIGGER_LIMITS.maxReportAgeMs - 60_000);
		const answer = await post(old, { staticData: {} });
		expect(answer).toMatchObject({ statusCode: 200, executions: 0, body: { ignored: 'older than the replay window' } });
		// Just inside the window, a first delivery still starts its execution.
		const recent = report('recent_1', Date.now() - TRIGGER_LIMITS.maxReportAgeMs + 60_000);
		expect((await post(recent, { staticData: {} })).executions).toBe(1);
		recordCase('signed report replayed after the replay window (6 h): starts nothing', { sentTwice: 0, lost: 0, forgedAccepted: answer.executions });
	});

	describe('with the shared Redis', () => {
		const REDIS_PASSWORD = 'redis-replay-pw-0001';
		const redis = useRedis({ password: REDIS_PASSWORD });

		it(`a signed report replayed after ${LEDGER_CAPACITY + 100} others starts nothing (the claim lasts a time, not a count)`, async () => {
			const shared = credentials({ port: redis.port, password: REDIS_PASSWORD, prefix: 'svc-replay' });
			const original = report('replayed_redis');
			expect((await post(original, { credentials: shared })).executions).toBe(1);
			for (let i = 0; i < LEDGER_CAPACITY + 100; i++) await post(report(`redis_other_${i}`), { credentials: shared });
			const replay = await post(original, { credentials: shared });
			expect(replay).toMatchObject({ statusCode: 200, executions: 0, body: { ignored: 'duplicate' } });
			recordCase(`signed report replayed after ${LEDGER_CAPACITY + 100} others, shared Redis: starts nothing`, {
				sentTwice: 0,
				lost: 0,
				forgedAccepted: replay.executions,
			});
		}, 120_000);

		it('a report dated 4 minutes ahead, replayed 6 h 1 min later (past the old 6 h claim), starts nothing: the claim outlasts its window', async () => {
			const shared = credentials({ port: redis.port, password: REDIS_PASSWORD, prefix: 'svc-skew' });
			const skewed = report('skewed_redis', Date.now() + 4 * 60_000);
			expect((await post(skewed, { credentials: shared })).executions).toBe(1);
			// 6 h 1 min pass for both clocks: n8n's (Date.now) and Redis's (each claim's remaining TTL).
			const passed = 6 * 3600 * 1000 + 60_000;
			const admin = new Redis({ host: '127.0.0.1', port: redis.port, password: REDIS_PASSWORD });
			try {
				const keys = await admin.keys('svc-skew:report:*');
				expect(keys).toHaveLength(1);
				for (const key of keys) {
					const left = (await admin.pttl(key)) - passed;
					await (left > 0 ? admin.pexpire(key, left) : admin.del(key));
				}
			} finally {
				admin.disconnect();
			}
			const realNow = Date.now.bind(Date);
			const clock = jest.spyOn(Date, 'now').mockImplementation(() => realNow() + passed);
			let replay: Awaited<ReturnType<typeof post>>;
			try {
				replay = await post(skewed, { credentials: shared });
			} finally {
				clock.mockRestore();
			}
			expect(replay).toMatchObject({ statusCode: 200, executions: 0, body: { ignored: 'duplicate' } });
			recordCase('signed report dated 4 min ahead, replayed 6 h 1 min later, shared Redis: starts nothing', { sentTwice: 0, lost: 0, forgedAccepted: replay.executions });
		});
	});
});

describe('Include Raw Payload with hostile bodies', () => {
	it('a report nested 5,000 levels deep starts its execution with serialisable data: raw is replaced by a marker', async () => {
		let nested = '{}';
		for (let i = 0; i < 5000; i++) nested = `{"a":${nested}}`;
		const base = JSON.stringify(report('deep_1'));
		const body = `${base.slice(0, -1)},"extra":${nested}}`;
		const answer = await post(body, { parameters: { options: { includeRawPayload: true } } });
		expect(answer.executions).toBe(1);
		expect(answer.items[0]).toMatchObject({ messageId: 'deep_1', status: 'DELIVERED' });
		expect(answer.items[0].raw).toEqual({ omitted: true, reason: `the body nests deeper than ${TRIGGER_LIMITS.rawPayloadMaxDepth} levels` });
		expect(() => JSON.stringify(answer.items)).not.toThrow();
		recordCase('report nested 5,000 levels deep with Include Raw Payload: executes, serialisable', {
			sentTwice: 0,
			lost: 1 - answer.items.length,
			forgedAccepted: 0,
		});
	});

	it('a body larger than the raw payload bound keeps the report and replaces raw by a marker', async () => {
		const body = report('big_1', Date.now(), { padding: 'p'.repeat(TRIGGER_LIMITS.rawPayloadMaxBytes) });
		const answer = await post(body, { parameters: { options: { includeRawPayload: true, maxBodySizeKb: 64 } } });
		expect(answer.executions).toBe(1);
		expect((answer.items[0].raw as IDataObject).omitted).toBe(true);
		expect(String((answer.items[0].raw as IDataObject).reason)).toMatch(/^the body is larger than 16384 bytes/);
		// An ordinary report keeps its raw body.
		const plain = await post(report('plain_1'), { parameters: { options: { includeRawPayload: true } } });
		expect((plain.items[0].raw as IDataObject).data).toMatchObject({ messageId: 'plain_1' });
	});
});
