/**
 * The do-not-send list in a real n8n:
 * - examples/opt-outs-and-sending-hours.json as a user runs it: an n8n Data Table "opt-outs" (made
 *   through n8n's REST API, as the Data tables page makes it) read by n8n's own Data Table node,
 *   mapped into Send Bulk's "Do-Not-Send List → Numbers", with Sending Hours on. The opted-out
 *   customer is never posted (counted at the emulator); the others are sent or scheduled.
 * - the credential's Redis list: the Do-Not-Send List resource adds a number in one execution, and a
 *   send in the next posts nothing to it.
 * A community node cannot read a Data Table itself: n8n 2.41.1 and 1.123.81 serve their data-table
 * proxy to n8n's Data Table, Data Table Tool and Evaluation nodes only (docs/assumptions.md).
 */
import { startRedis, type RedisServer } from '../helpers/services';
import type { WorkflowJson } from './harness';
import { e2e, expectSuccess, jsonOf, out, withNode, workflow } from './context';

const { n8n, emulator, version } = e2e();
const run = Date.now().toString(36);

/** The numbers the emulator holds messages for, of those given. */
const messagedOf = async (numbers: string[]) =>
	(await emulator.messages()).map((m) => String(m.phoneNumber)).filter((n) => numbers.includes(n)).sort();

describe('do-not-send list in real n8n', () => {
	let redis: RedisServer | undefined;
	afterAll(async () => await redis?.stop());

	test('the example: an n8n Data Table of opt-outs, read once, suppresses its number; Sending Hours still apply to the rest', async () => {
		// National form in the table, E.164 in the customer list's other rows: one number all the same.
		const tableId = await n8n.createDataTable('opt-outs', ['phone'], [{ phone: '0712000911' }]);
		// n8n 1.123's Data Table node reads its table by ID only (its "By Name" mode came later): the
		// user picks the table from the list there, as this edit does.
		const byId = (wf: WorkflowJson) => {
			wf.nodes.find((n) => n.name === 'Opt-Outs')!.parameters.dataTableId = { __rl: true, mode: 'id', value: tableId };
		};
		const execution = expectSuccess(await n8n.runManual('svcExampleOptOutHours', version.startsWith('1.') ? { edit: byId } : {}));
		const sent = jsonOf(out(execution, 'Send Bulk SMS'));
		expect(sent.map((s) => [s.phoneNumber, s.suppressed === true])).toEqual([
			['+254712000911', true],
			['+254712000912', false],
			['+2348031000913', false],
			['+233241000914', false],
		]);
		expect(sent[0]).toMatchObject({ accepted: false, sent: false, reason: 'The number is on the do-not-send list (Do-Not-Send List → Numbers)' });
		for (const s of sent.slice(1)) {
			expect(s.accepted).toBe(true);
			// Outside the hours (08:00 to 20:00 local, Monday to Saturday) a message is scheduled for the next opening.
			if (s.outsideSendingHours) expect(Date.parse(String(s.scheduledAt))).toBeGreaterThan(Date.now());
		}
		expect(jsonOf(out(execution, 'Not Sent (Opted Out)')).map((s) => s.phoneNumber)).toEqual(['+254712000911']);
		expect(await messagedOf(sent.map((s) => String(s.phoneNumber)))).toEqual(['+233241000914', '+2348031000913', '+254712000912']);
	});

	test("the credential's Redis list: Add in one execution, the next send posts nothing to the number", async () => {
		redis = await startRedis();
		const name = `SVC with Redis ${run}`;
		const { data: credential } = await n8n.rest<{ data: { id: string } }>('POST', '/rest/credentials', {
			name,
			type: 'svcMessagingApi',
			data: { baseUrl: process.env.E2E_EMULATOR_URL, apiKey: 'svc_test_starter_0001', plan: 'starter', sharedRateLimit: true, redisHost: '127.0.0.1', redisPort: redis.port, redisPrefix: `e2e-${run}` },
		});
		const credentials = { svcMessagingApi: { id: credential.id, name } };
		const KE = '+254712000921';
		const add = withNode(workflow('sms-send'), 'Send SMS', {
			credentials,
			parameters: { resource: 'doNotSendList', operation: 'add', phoneNumber: '={{ $json.phone }}', options: { defaultCountry: 'KE' } },
		});
		const added = await n8n.run(add, { items: [{ phone: '0712000921' }] });
		expect(jsonOf(out(expectSuccess(added.execution), 'Send SMS'))).toEqual([{ phoneNumber: KE, onDoNotSendList: true, added: true }]);
		const send = withNode(workflow('sms-send'), 'Send SMS', { credentials });
		const { execution } = await n8n.run(send, { items: [{ phone: KE, text: 'Sale today' }, { phone: '+254712000922', text: 'Sale today' }] });
		const [listed, other] = jsonOf(out(expectSuccess(execution), 'Send SMS'));
		expect(listed).toMatchObject({ phoneNumber: KE, suppressed: true, reason: "The number is on the do-not-send list (the credential's Redis)" });
		expect(other).toMatchObject({ accepted: true });
		expect(await messagedOf([KE, '+254712000922'])).toEqual(['+254712000922']);
		await n8n.rest('DELETE', `/rest/credentials/${credential.id}`).catch(() => undefined);
	});
});
